//! Config errors in words a person uses: what a TOML value is, and serde's messages
//! with the key first and no Rust type names.

/// What a TOML value is, in words.
pub(super) fn kind_of(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the text \"{s}\""),
        toml::Value::Integer(i) => format!("the number {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("{b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".to_owned(),
        toml::Value::Table(_) => "a table".to_owned(),
    }
}

/// serde's type errors in words a person uses: no Rust type names, and the key first.
/// `invalid type: string "high", expected f64 in `context.warn`` becomes
/// `` `context.warn` must be a number, found "high"``, and `must be "async" or
/// "bidirectional", found "sync" in `notify.mode`` becomes `` `notify.mode` must be
/// …``.
pub(super) fn humanize_de_error(message: &str) -> String {
    let msg = join_lines(message);
    let body = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
        .unwrap_or(&msg);
    let expected_words = |e: &str| -> String {
        let e = e.trim();
        match e {
            "f64" | "f32" => "a number".to_owned(),
            "u8" | "u16" => format!(
                "a whole number from 0 to {}",
                if e == "u8" { 255 } else { 65535 }
            ),
            "u32" | "u64" | "usize" => "a whole number (0 or more)".to_owned(),
            "i32" | "i64" | "isize" => "a whole number".to_owned(),
            "a boolean" => "true or false".to_owned(),
            "a sequence" => "a list".to_owned(),
            "a string" | "a char" => "text in quotes".to_owned(),
            _ => match e.strip_prefix("struct ") {
                Some(name) => {
                    let section = name.trim_end_matches("Config").to_ascii_lowercase();
                    format!("a table like [{section}]")
                }
                None => e.to_owned(),
            },
        }
    };
    let found_words = |f: &str| -> String {
        let f = f.trim();
        let ticked = |s: &str| s.trim().trim_matches('`').to_owned();
        if let Some(v) = f.strip_prefix("string ") {
            format!("the text {v}")
        } else if let Some(v) = f
            .strip_prefix("integer ")
            .or_else(|| f.strip_prefix("floating point "))
        {
            format!("the number {}", ticked(v))
        } else if let Some(v) = f.strip_prefix("boolean ") {
            ticked(v)
        } else if f == "sequence" {
            "a list".to_owned()
        } else if f == "map" {
            "a table".to_owned()
        } else {
            f.to_owned()
        }
    };
    let Some((head, key)) = body
        .rsplit_once(" in `")
        .and_then(|(head, key)| Some((head, key.strip_suffix('`')?)))
    else {
        return msg;
    };
    if let Some((found, expected)) = head.split_once(", expected ") {
        return format!(
            "`{key}` must be {}, found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    // A value its type refused in our own words (`crate::model::named::refusal`,
    // `crate::model::time::Span`): the key goes first.
    if head.starts_with("must be ") || head.starts_with("has unknown ") {
        return format!("`{key}` {head}");
    }
    msg
}

/// A multi-line message (a TOML parse error) as one line: its non-empty lines,
/// trimmed, joined by spaces. It is not sanitised: what prints it cleans it.
pub(super) fn join_lines(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
