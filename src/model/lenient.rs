//! Reading JSON leniently: take what is there, ignore the rest, never fail.
//!
//! Claude Code's payloads (hook and status line JSON) and forge's own state files are
//! read through these helpers, so "missing" means one thing everywhere: an absent
//! key, an explicit `null` and a value of the wrong type all read as absent, and a
//! blank string is no text. Two shapes:
//!
//! - over a parsed [`Value`]: [`value_at`], [`text_at`] and [`text`] pick one field;
//! - as `#[serde(deserialize_with = …)]` on a list field: [`skip_bad_items`] keeps
//!   the items that read and drops the others, [`items_or`] puts a stand-in where
//!   one does not read. Anything but an array (absent, `null`, a string) is an empty
//!   list, so one bad field never makes the whole file unreadable.
//!
//! Pure: callers hand in parsed values or a deserializer.

use serde::{Deserialize, Deserializer, de::DeserializeOwned};
use serde_json::Value;

/// The value at `path` (object keys, outermost first; `&[]` is `v` itself), or
/// `None` when a key is missing, a step is not an object, or the value is `null`.
pub(crate) fn value_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for key in path {
        cur = cur.get(key)?;
    }
    (!cur.is_null()).then_some(cur)
}

/// The string at `path`, trimmed; `None` when it is missing, not a string, or blank.
pub(crate) fn text_at(v: &Value, path: &[&str]) -> Option<String> {
    value_at(v, path)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// [`text_at`] of one key of `v`.
pub(crate) fn text(v: &Value, key: &str) -> Option<String> {
    text_at(v, &[key])
}

/// The items of a JSON list, each read as `T`; an item that does not read as `T`
/// is `stand_in()`, or left out when that is `None`. Anything but an array (absent,
/// `null`, another type) is an empty list.
pub(crate) fn items_or<'de, D, T>(
    d: D,
    stand_in: impl Fn() -> Option<T>,
) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let items = match Option::<Value>::deserialize(d)? {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    Ok(items
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok().or_else(&stand_in))
        .collect())
}

/// A list whose unreadable items are skipped, not fatal (for
/// `#[serde(deserialize_with = "…")]`): see [`items_or`].
pub(crate) fn skip_bad_items<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    items_or(d, || None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn missing_null_and_wrong_types_are_absent() {
        let v = json!({
            "a": {"b": {"c": " deep "}},
            "null": null, "num": 42, "blank": "  ", "list": ["x"], "s": " x\n"
        });
        assert_eq!(text_at(&v, &["a", "b", "c"]).as_deref(), Some("deep"));
        assert_eq!(text(&v, "s").as_deref(), Some("x"));
        for key in ["missing", "null", "num", "blank", "list"] {
            assert_eq!(text(&v, key), None, "{key}");
        }
        // A step through something that is not an object.
        assert_eq!(text_at(&v, &["num", "c"]), None);
        assert_eq!(text_at(&v, &["a", "missing", "c"]), None);
        // Not an object at all: every field is absent.
        assert_eq!(text(&json!([1, 2]), "a"), None);
        assert_eq!(text(&json!("session_id"), "session_id"), None);
        // The value itself.
        assert_eq!(text_at(&json!(" t "), &[]).as_deref(), Some("t"));
        assert_eq!(value_at(&v, &["num"]), Some(&json!(42)));
        assert_eq!(value_at(&v, &["null"]), None);
        assert_eq!(value_at(&Value::Null, &[]), None);
        assert_eq!(value_at(&v, &["list"]), Some(&json!(["x"])));
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Item {
        n: u8,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Skipping {
        #[serde(default, deserialize_with = "skip_bad_items")]
        items: Vec<Item>,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Standing {
        #[serde(default, deserialize_with = "stand_in")]
        items: Vec<Option<Item>>,
    }

    fn stand_in<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Option<Item>>, D::Error> {
        items_or(d, || Some(None))
    }

    #[test]
    fn bad_items_are_skipped_or_stood_in_for() {
        let list = json!({"items": [{"n": 1}, {"n": 300}, "x", {"n": 2}, null]});
        let skipped: Skipping = serde_json::from_value(list.clone()).unwrap();
        assert_eq!(skipped.items, [Item { n: 1 }, Item { n: 2 }]);
        let stood: Standing = serde_json::from_value(list).unwrap();
        assert_eq!(
            stood.items,
            [Some(Item { n: 1 }), None, None, Some(Item { n: 2 }), None]
        );
    }

    #[test]
    fn anything_but_a_list_is_an_empty_list() {
        for items in [json!(null), json!("x"), json!(5), json!({"n": 1})] {
            let skipped: Skipping = serde_json::from_value(json!({ "items": items })).unwrap();
            assert!(skipped.items.is_empty(), "{items}");
            let stood: Standing = serde_json::from_value(json!({ "items": items })).unwrap();
            assert!(stood.items.is_empty(), "{items}");
        }
        let absent: Skipping = serde_json::from_value(json!({})).unwrap();
        assert!(absent.items.is_empty());
    }
}
