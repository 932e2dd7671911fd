//! Composition mode (`forge statusline --wrap '<cmd>'`), the pure half: what the
//! other status-line command printed, made safe to print, and forge's segments put
//! beside it. The process half (running the command under a deadline) is
//! [`crate::app::wrapped`].
//!
//! The other command's output is data from another program: every control
//! character and escape sequence goes except SGR colour (`ESC [ … m`), which
//! Claude Code draws and which those tools rely on; OSC (links, titles), cursor
//! moves, bidi overrides and C1 controls are dropped. Lines are treated the way the
//! client treats a status line's output (docs/client-reference.md §5.3): each line
//! trimmed, empty lines dropped.

use std::fmt::Write as _;

use unicode_width::UnicodeWidthChar;

use crate::model::segment::WrapPosition;

/// At most this many lines of the other command's output are kept.
pub(crate) const MAX_LINES: usize = 8;
/// At most this many characters of one line are kept.
pub(crate) const MAX_LINE_CHARS: usize = 1000;
/// forge's segments go after (or before) the other tool's first line only when at
/// least this many columns are left for them; else on a line of their own.
pub(crate) const MIN_BESIDE: usize = 16;

const SEP: &str = " │ ";

/// One line of the other command's output with every escape sequence and control
/// character removed but SGR colour sequences, cut to [`MAX_LINE_CHARS`] visible
/// characters.
pub(crate) fn clean_line(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    let mut shown = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // CSI: parameter and intermediate bytes, then one final byte.
                    let mut body = String::new();
                    let mut fin = None;
                    for d in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            fin = Some(d);
                            break;
                        }
                        if !('\u{20}'..='\u{3f}').contains(&d) {
                            break;
                        }
                        body.push(d);
                    }
                    let sgr = fin == Some('m')
                        && body
                            .chars()
                            .all(|d| d.is_ascii_digit() || d == ';' || d == ':');
                    if sgr {
                        let _ = write!(out, "\u{1b}[{body}m");
                    }
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    // OSC, DCS, SOS, PM, APC: up to BEL or ESC \.
                    chars.next();
                    while let Some(d) = chars.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                Some(_) => {
                    // ESC, intermediate bytes (`(` of `ESC ( B`), a final byte.
                    while chars
                        .next_if(|d| ('\u{20}'..='\u{2f}').contains(d))
                        .is_some()
                    {}
                    chars.next();
                }
                None => {}
            },
            '\t' => {
                out.push(' ');
                shown += 1;
            }
            // What moves, hides or reorders text, or breaks the line: the one
            // sanitiser's rule (C0/C1 controls, DEL, every bidi mark, U+2028/9).
            c if crate::model::text::sanitize::is_breaking(c) => {}
            c => {
                if shown >= MAX_LINE_CHARS {
                    break;
                }
                out.push(c);
                shown += 1;
            }
        }
    }
    out
}

/// The other command's stdout as the lines to show: lossy UTF-8, each line cleaned
/// ([`clean_line`]) and trimmed, lines with no visible text dropped, at most
/// [`MAX_LINES`].
pub(crate) fn clean_output(raw: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(raw)
        .split('\n')
        .map(|l| clean_line(l.trim_end_matches('\r')))
        .map(|l| l.trim().to_owned())
        .filter(|l| visible_width(l) > 0)
        .take(MAX_LINES)
        .collect()
}

/// The columns `line` takes on screen: its SGR sequences take none.
pub(crate) fn visible_width(line: &str) -> usize {
    let mut width = 0;
    let mut in_esc = false;
    for c in line.chars() {
        if in_esc {
            if c == 'm' {
                in_esc = false;
            }
            continue;
        }
        if c == '\u{1b}' {
            in_esc = true;
            continue;
        }
        width += c.width().unwrap_or(0);
    }
    width
}

/// The lines to print: the other command's `other` lines with forge's segments
/// where `position` says. `forge` renders forge's segments for a width (`None`: no
/// limit). Beside the first line they get the columns that line leaves of
/// `columns` (without `$COLUMNS`, no limit); when fewer than [`MIN_BESIDE`] are
/// left they go on a line of their own instead, so the warning is never cut away
/// by the other tool's long line. With no output from the other command, forge's
/// line alone. `color`: the separator is dim, and the other tool's colour is reset
/// before forge's part so it does not run into it.
pub(crate) fn compose(
    other: &[String],
    forge: &dyn Fn(Option<u16>) -> String,
    position: WrapPosition,
    columns: Option<u16>,
    color: bool,
) -> String {
    let Some((first, rest)) = other.split_first() else {
        return forge(columns);
    };
    let sep = if color {
        format!("\u{1b}[0m\u{1b}[90m{SEP}\u{1b}[0m")
    } else {
        SEP.to_owned()
    };
    let own_line = |lines: &[String]| {
        let mut out = lines.join("\n");
        out.push('\n');
        out.push_str(&forge(columns));
        out
    };
    if position == WrapPosition::Line {
        return own_line(other);
    }
    let room =
        columns.map(|c| usize::from(c).saturating_sub(visible_width(first) + SEP.chars().count()));
    if room.is_some_and(|r| r < MIN_BESIDE) {
        return own_line(other);
    }
    let ours = forge(room.map(|r| u16::try_from(r).unwrap_or(u16::MAX)));
    let mut out = if position == WrapPosition::Before {
        format!("{ours}{sep}{first}")
    } else {
        format!("{first}{sep}{ours}")
    };
    for l in rest {
        out.push('\n');
        out.push_str(l);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_colour_survives_of_what_the_other_command_prints() {
        let raw = "\u{1b}[1;32mmain\u{1b}[0m \u{1b}]8;;https://x\u{7}link\u{1b}]8;;\u{7} \u{1b}[2J\u{1b}[Hcost\u{9b}\u{202e}evil\u{7}\u{1b}(B\tok";
        assert_eq!(
            clean_line(raw),
            "\u{1b}[1;32mmain\u{1b}[0m link costevil ok"
        );
        // An SGR with odd bytes is no SGR; an unterminated escape eats nothing else.
        assert_eq!(clean_line("a\u{1b}[?25hb"), "ab");
        // Every bidi mark and the Unicode line separators, as the one sanitiser has
        // them (the marks U+200E/U+200F/U+061C were kept before).
        assert_eq!(clean_line("a\u{200f}b\u{061c}c\u{200e}d\u{2028}e"), "abcde");
        assert_eq!(clean_line("a\u{1b}"), "a");
        assert_eq!(clean_line("a\u{1b}]0;title"), "a");
        let long = "x".repeat(MAX_LINE_CHARS + 50);
        assert_eq!(clean_line(&long).len(), MAX_LINE_CHARS);
    }

    #[test]
    fn lines_are_trimmed_and_empty_ones_dropped_as_the_client_does() {
        let out = clean_output(b"  one  \r\n\n\x1b[0m\n two\n");
        assert_eq!(out, ["one", "two"]);
        let many: String = (0..20).map(|i| format!("l{i}\n")).collect();
        assert_eq!(clean_output(many.as_bytes()).len(), MAX_LINES);
        assert!(clean_output(b"\xff\xfe bad utf8").len() == 1);
        assert_eq!(visible_width("\u{1b}[31mab\u{1b}[0m漢"), 4);
    }

    #[test]
    fn forge_goes_where_asked_and_never_where_it_would_be_cut() {
        let forge = |w: Option<u16>| format!("F{}", w.map_or("∞".to_owned(), |w| w.to_string()));
        let other = vec!["ccline".to_owned(), "second".to_owned()];
        assert_eq!(
            compose(&other, &forge, WrapPosition::After, Some(80), false),
            "ccline │ F71\nsecond"
        );
        assert_eq!(
            compose(&other, &forge, WrapPosition::Before, Some(80), false),
            "F71 │ ccline\nsecond"
        );
        assert_eq!(
            compose(&other, &forge, WrapPosition::Line, Some(80), false),
            "ccline\nsecond\nF80"
        );
        assert_eq!(
            compose(&other, &forge, WrapPosition::After, None, false),
            "ccline │ F∞\nsecond"
        );
        // Too little room beside a long first line: a line of its own.
        let long = vec!["x".repeat(70)];
        assert_eq!(
            compose(&long, &forge, WrapPosition::After, Some(80), false),
            format!("{}\nF80", "x".repeat(70))
        );
        // Nothing from the other command: forge's line alone.
        assert_eq!(
            compose(&[], &forge, WrapPosition::After, Some(80), false),
            "F80"
        );
        // With colour the other tool's colour is reset before forge's part.
        let coloured = compose(&other[..1], &forge, WrapPosition::After, Some(80), true);
        assert_eq!(coloured, "ccline\u{1b}[0m\u{1b}[90m │ \u{1b}[0mF71");
    }
}
