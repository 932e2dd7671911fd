//! Cutting composed text to Claude Code's budgets: lines clipped to a width, whole
//! texts cut at a line boundary, everything counted as the client counts it.

/// No line forge composes for SessionStart (last session, Signals, questions, drift
/// notes) is longer than this many characters: a 100 KB branch name or question is
/// cut (with `…`), never allowed to crowd out the rest.
pub(super) const LINE_MAX: usize = 400;
/// The same for lines of a resumed handoff's text, which may hold a long request
/// written as one paragraph (and front matter a repository may have planted).
pub(super) const BODY_LINE_MAX: usize = 2_000;

/// The length of `s` as Claude Code measures it: UTF-16 code units (a character
/// outside the Basic Multilingual Plane counts twice).
pub(super) fn units(s: &str) -> usize {
    s.encode_utf16().count()
}

/// `line` cut to at most `max` characters, ending in `…` when cut.
pub(super) fn clip_line(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let mut out: String = line.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Every line of `text` cut to at most `max` characters (see [`clip_line`]).
pub(crate) fn clip_lines(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.lines().all(|l| l.chars().count() <= max) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(max * 64));
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(&clip_line(body, max));
        out.push_str(end);
    }
    std::borrow::Cow::Owned(out)
}

/// Cuts `text` to at most `max` UTF-16 units (see [`units`]) at a line boundary.
/// When anything is cut, `note` is appended whole (and counted in `max`).
pub(crate) fn cut_lines(text: &str, max: usize, note: &str) -> String {
    if units(text) <= max {
        return text.to_owned();
    }
    let room = max.saturating_sub(units(note));
    let mut out = String::new();
    let mut used = 0;
    for line in text.split_inclusive('\n') {
        let n = units(line);
        if used + n > room {
            break;
        }
        out.push_str(line);
        used += n;
    }
    if units(note) <= max {
        out.push_str(note);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_lines_keeps_whole_lines_and_the_whole_note() {
        let text = "one\ntwo\nthree\n";
        assert_eq!(cut_lines(text, 100, "[cut]\n"), text);
        assert_eq!(cut_lines(text, 13, "[cut]\n"), "one\n[cut]\n");
        assert_eq!(cut_lines(text, 3, "[cut]\n"), "");
        let long = "é".repeat(50) + "\n";
        assert_eq!(
            cut_lines(&long.repeat(3), 120, "…\n"),
            format!("{long}{long}…\n")
        );
        // Claude Code counts UTF-16 units: an emoji is two.
        let emoji = "😀".repeat(50) + "\n";
        assert_eq!(cut_lines(&emoji.repeat(3), 120, ""), emoji);
    }

    #[test]
    fn clip_lines_cuts_only_long_lines() {
        assert!(matches!(
            clip_lines("short\nlines\n", 10),
            std::borrow::Cow::Borrowed(_)
        ));
        let long = format!("branch {}\nnext\n{}", "b".repeat(100), "x".repeat(20));
        let clipped = clip_lines(&long, 10);
        assert_eq!(clipped, "branch bb…\nnext\nxxxxxxxxx…");
    }
}
