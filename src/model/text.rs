//! Keeping outside text on one line.
//!
//! Values forge prints or writes come from places it does not control: `state.json`,
//! Claude Code's payload, branch and folder names, the transcript. Any of them can
//! hold a newline, a carriage return, an escape sequence or another control
//! character, which would break the statusline (one line, no stray escapes) or a
//! handoff's front matter. [`single_line`] is the one place that cleans them.

use std::borrow::Cow;

/// Characters that must not reach a one-line output: every control character (C0,
/// DEL, C1, which covers `\n`, `\r`, `\t`, ESC and NEL) and the Unicode line and
/// paragraph separators (YAML and some terminals break lines at them).
pub fn is_breaking(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` with every run of control characters (and the spaces around them)
/// replaced by one space, then trimmed when anything was replaced. Text without
/// such characters is returned as it is, without allocating: the check is one pass
/// over the bytes, which is what the statusline pays for clean input.
pub fn single_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_breaking) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if is_breaking(c) || c.is_whitespace() {
            gap = true;
        } else {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_text_is_borrowed_unchanged() {
        for s in [
            "",
            "build T-012",
            "  two  spaces  ",
            "Opus 4.6 (1M context)",
            "⎇ main",
        ] {
            assert!(
                matches!(single_line(s), Cow::Borrowed(x) if x == s),
                "{s:?}"
            );
        }
    }

    #[test]
    fn control_runs_become_one_space() {
        assert_eq!(single_line("build\nT-012"), "build T-012");
        assert_eq!(single_line("a \r\n\t b"), "a b");
        assert_eq!(single_line("\x1b[31mred\x1b[0m"), "[31mred [0m");
        assert_eq!(single_line("\nlead and trail\n"), "lead and trail");
        assert_eq!(single_line("x\u{85}y\u{2028}z\u{7f}"), "x y z");
        assert_eq!(single_line("\n\r\x1b"), "");
        // Once cleaning, inner space runs collapse too.
        assert_eq!(single_line("a  b\nc"), "a b c");
    }
}
