//! The few facts of one transcript record every reader of a transcript asks: is it
//! a compaction boundary, is it a subagent's, what is its message's text. Pure.

use serde_json::Value;

/// Whether a record is a `compact_boundary` (`type: system`, `subtype:
/// compact_boundary`).
pub(crate) fn is_boundary(rec: &Value) -> bool {
    rec.get("type").and_then(Value::as_str) == Some("system")
        && rec.get("subtype").and_then(Value::as_str) == Some("compact_boundary")
}

/// Whether a record is a subagent's (`isSidechain`), not the main chain's.
pub(crate) fn is_sidechain(rec: &Value) -> bool {
    rec.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// The text of a message's `content`: the string, or its `text` blocks joined with
/// newlines (empty when there is none).
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
