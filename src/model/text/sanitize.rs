//! The one sanitiser for outside text on its way to a terminal (or a one-line field).
//!
//! Values forge prints or writes come from places it does not control: `state.json`,
//! Claude Code's payload, branch and folder names, handoff files, Signal blocks, the
//! transcript, error messages that quote any of them. Any of them can hold a newline,
//! a carriage return, an escape sequence (a CSI screen clear, an OSC 52 clipboard
//! write, an OSC 8 link, a DCS string), a bell, or a bidi override that makes a
//! terminal show text in another order than it is. Text stays data until it is
//! printed; the printing side cleans it here, with one of two variants of the same
//! scanner:
//!
//! - [`clean`] for multi-line output (every command's text, errors, hook text):
//!   keeps `\n` and `\t`, drops everything else listed below;
//! - [`single_line`] for one-line output (the statusline's parts, a handoff's front
//!   matter, a list row): also folds line breaks and tabs into one space.
//!
//! Removed by both: whole ESC sequences (with their parameters and, for string
//! sequences, their payload up to the terminator or the end of the line), every
//! other C0 and C1 control and DEL, and the bidi controls U+202A–U+202E,
//! U+2066–U+2069, U+200E, U+200F and U+061C. An 8-bit C1 introducer (U+009B CSI,
//! U+009D OSC…) is removed alone: UTF-8 terminals rarely honour it, and reading
//! parameters after it would swallow ordinary text (`"}` in a JSON diff). JSON output
//! is the exception: [`json_for_terminal`] escapes instead of removing, so a script
//! still reads back the exact value.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The bidirectional formatting characters: embeddings and overrides (U+202A–U+202E),
/// isolates (U+2066–U+2069) and the marks (LRM, RLM, ALM). A terminal that applies
/// them shows text in another order than it is stored ("Trojan Source").
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that must not reach a terminal as they are: every control character
/// (C0, DEL, C1) and the bidi controls. `\n` and `\t` are in this set too; [`clean`]
/// keeps them, [`single_line`] folds them.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// Characters that end a line or act like whitespace in a terminal or a YAML reader:
/// folded into one space by [`single_line`] (in [`clean`], the Unicode line and
/// paragraph separators become `\n`).
fn is_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\t' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Characters that must not reach a one-line output (kept for callers that only
/// test): every unsafe character and the Unicode line and paragraph separators.
pub(crate) fn is_breaking(c: char) -> bool {
    is_unsafe(c) || c == '\u{2028}' || c == '\u{2029}'
}

/// One piece of input as the scanner sees it.
enum Piece {
    /// A character to keep as it is.
    Keep(char),
    /// A line break or whitespace control (see [`is_break`]).
    Break(char),
    /// An escape sequence, a lone control or a bidi control: removed.
    Drop,
}

/// Splits `text` into [`Piece`]s, consuming whole escape sequences.
struct Scanner<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
/// The 8-bit String Terminator.
const ST: char = '\u{9c}';

impl Scanner<'_> {
    fn new(text: &str) -> Scanner<'_> {
        Scanner {
            chars: text.chars().peekable(),
        }
    }

    /// After a CSI introducer: parameter and intermediate bytes, then one final byte.
    /// A character outside the grammar ends the sequence without being consumed.
    fn skip_csi(&mut self) {
        while let Some(&c) = self.chars.peek() {
            match c {
                '\u{20}'..='\u{3f}' => {
                    self.chars.next();
                }
                '\u{40}'..='\u{7e}' => {
                    self.chars.next();
                    return;
                }
                _ => return,
            }
        }
    }

    /// After an OSC, DCS, SOS, PM or APC introducer: the payload up to BEL or ST (both
    /// consumed), or up to the end of the line (the newline is kept). An ESC that
    /// does not start ST ends the string and is scanned again.
    fn skip_string(&mut self) {
        while let Some(&c) = self.chars.peek() {
            match c {
                BEL | ST => {
                    self.chars.next();
                    return;
                }
                '\n' => return,
                ESC => {
                    let mut ahead = self.chars.clone();
                    ahead.next();
                    if ahead.peek() == Some(&'\\') {
                        self.chars.next();
                        self.chars.next();
                    }
                    return;
                }
                _ => {
                    self.chars.next();
                }
            }
        }
    }

    /// After ESC: the rest of the sequence it starts.
    fn skip_escape(&mut self) {
        match self.chars.peek().copied() {
            Some('[') => {
                self.chars.next();
                self.skip_csi();
            }
            Some(']' | 'P' | 'X' | '^' | '_') => {
                self.chars.next();
                self.skip_string();
            }
            Some('\u{20}'..='\u{2f}') => {
                // nF: intermediates, then one final byte.
                while self
                    .chars
                    .peek()
                    .is_some_and(|c| ('\u{20}'..='\u{2f}').contains(c))
                {
                    self.chars.next();
                }
                if self
                    .chars
                    .peek()
                    .is_some_and(|c| ('\u{30}'..='\u{7e}').contains(c))
                {
                    self.chars.next();
                }
            }
            Some('\u{30}'..='\u{7e}') => {
                // Two-character escapes: ESC c (reset), ESC 7, ESC M…
                self.chars.next();
            }
            _ => {}
        }
    }
}

impl Iterator for Scanner<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        let c = self.chars.next()?;
        Some(match c {
            ESC => {
                self.skip_escape();
                Piece::Drop
            }
            c if is_break(c) => Piece::Break(c),
            c if is_unsafe(c) => Piece::Drop,
            c => Piece::Keep(c),
        })
    }
}

/// `text` ready for a terminal, several lines allowed: escape sequences removed
/// whole, `\r\n` read as `\n`, U+2028/U+2029 as `\n`, `\n` and `\t` kept, every other
/// control and bidi character removed. Text that needs none of this is returned as it
/// is, without allocating.
pub fn clean(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| (is_unsafe(c) && c != '\n' && c != '\t') || c == '\u{2028}' || c == '\u{2029}')
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut scanner = Scanner::new(text).peekable();
    while let Some(piece) = scanner.next() {
        match piece {
            Piece::Keep(c) | Piece::Break(c @ ('\n' | '\t')) => out.push(c),
            Piece::Break('\r') => {
                // `\r\n` is a line end; a lone `\r` would let the rest of the line
                // overwrite what came before it.
                if matches!(scanner.peek(), Some(Piece::Break('\n'))) {
                    continue;
                }
            }
            Piece::Break('\u{2028}' | '\u{2029}' | '\u{85}') => out.push('\n'),
            Piece::Break(_) | Piece::Drop => {}
        }
    }
    Cow::Owned(out)
}

/// `text` on one line: escape sequences, controls and bidi characters removed as by
/// [`clean`], and every run of line breaks and tabs (with the spaces around them)
/// replaced by one space, then trimmed when anything was replaced. Text without such
/// characters is returned as it is, without allocating: the check is one pass over
/// the characters, which is what the statusline pays for clean input.
pub fn single_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_breaking) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for piece in Scanner::new(text) {
        match piece {
            Piece::Keep(c) if !c.is_whitespace() => {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                out.push(c);
            }
            Piece::Keep(_) | Piece::Break(_) => gap = true,
            Piece::Drop => {}
        }
    }
    Cow::Owned(out)
}

/// [`single_line`], then trimmed, as an owned string: a field a person typed (a task
/// id, a `--from` name, a question) as it is kept and compared.
pub(crate) fn single_line_trimmed(text: &str) -> String {
    single_line(text).trim().to_owned()
}

/// Serialized JSON made safe for a terminal without changing what it says: every
/// character [`is_unsafe`] (serde_json already escapes C0; this adds DEL, C1 and
/// the bidi controls) becomes a `\uXXXX` escape, which any JSON reader decodes back
/// to the same character. Such characters can only occur inside strings in valid
/// JSON, where the escape is valid too.
pub(crate) fn json_for_terminal(json: &str) -> Cow<'_, str> {
    if !json
        .chars()
        .any(|c| is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r'))
    {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r') {
            // All of them are in the Basic Multilingual Plane: one escape each.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
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
            "emoji 👩‍💻 with a joiner, and עברית text",
        ] {
            assert!(
                matches!(single_line(s), Cow::Borrowed(x) if x == s),
                "{s:?}"
            );
            assert!(matches!(clean(s), Cow::Borrowed(x) if x == s), "{s:?}");
        }
        let multi = "two\nlines\twith a tab\n";
        assert!(matches!(clean(multi), Cow::Borrowed(x) if x == multi));
    }

    #[test]
    fn control_runs_become_one_space() {
        assert_eq!(single_line("build\nT-012"), "build T-012");
        assert_eq!(single_line("a \r\n\t b"), "a b");
        assert_eq!(single_line("\nlead and trail\n"), "lead and trail");
        assert_eq!(single_line("x\u{85}y\u{2028}z\u{7f}"), "x y z");
        assert_eq!(single_line("\n\r\x1b"), "");
        // Once cleaning, inner space runs collapse too.
        assert_eq!(single_line("a  b\nc"), "a b c");
    }

    /// Each hostile shape, what [`clean`] leaves and what [`single_line`] leaves.
    const HOSTILE: &[(&str, &str, &str)] = &[
        // CSI: colours, a screen clear, a cursor move with parameters.
        ("\x1b[31mred\x1b[0m", "red", "red"),
        ("a\x1b[2J\x1b[Hb", "ab", "ab"),
        ("a\x1b[?1049hb", "ab", "ab"),
        // 8-bit introducers go alone; what follows is plain text then.
        ("a\u{9b}2Jb", "a2Jb", "a2Jb"),
        ("{\"k\": \"v\u{9b}\"}", "{\"k\": \"v\"}", "{\"k\": \"v\"}"),
        // OSC 52 (clipboard write), BEL- and ST-terminated; OSC 0 (title); OSC 8 link.
        ("x\x1b]52;c;ZWNobyBwd25lZA==\x07y", "xy", "xy"),
        ("x\x1b]52;c;ZWNobyBwd25lZA==\x1b\\y", "xy", "xy"),
        ("x\u{9d}0;title\u{9c}y", "x0;titley", "x0;titley"),
        (
            "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
            "click",
            "click",
        ),
        // An unterminated OSC swallows the rest of its line only.
        ("a\x1b]0;title\nnext", "a\nnext", "a next"),
        // DCS, APC, PM, SOS strings.
        ("a\x1bPq#0;2;0;0;0\x1b\\b", "ab", "ab"),
        ("a\x1b_payload\x07b", "ab", "ab"),
        ("a\x1b^pm\x1b\\b", "ab", "ab"),
        ("a\x1bXsos\x1b\\b", "ab", "ab"),
        ("a\u{90}dcs\u{9c}b", "adcsb", "adcsb"),
        // Two-character and nF escapes: reset, save cursor, charset.
        ("a\x1bcb", "ab", "ab"),
        ("a\x1b7b", "ab", "ab"),
        ("a\x1b(Bb", "ab", "ab"),
        // A lone ESC at the end.
        ("a\x1b", "a", "a"),
        // BEL, backspace, NUL, DEL, C1 controls.
        ("ding\x07dong", "dingdong", "dingdong"),
        ("pass\x08\x08\x08word", "password", "password"),
        ("a\0b\x7fc\u{80}d\u{9a}e", "abcde", "abcde"),
        // Carriage returns: a lone one would overwrite the line.
        ("safe\rEVIL", "safeEVIL", "safe EVIL"),
        ("one\r\ntwo", "one\ntwo", "one two"),
        // NEL and the Unicode separators are line breaks.
        (
            "one\u{85}two\u{2028}three",
            "one\ntwo\nthree",
            "one two three",
        ),
        // Bidi controls: overrides, embeddings, isolates, marks.
        ("main\u{202E}txt.exe", "maintxt.exe", "maintxt.exe"),
        ("\u{202A}a\u{202B}b\u{202C}c\u{202D}d", "abcd", "abcd"),
        ("\u{2066}a\u{2067}b\u{2068}c\u{2069}d", "abcd", "abcd"),
        ("a\u{200E}b\u{200F}c\u{061C}d", "abcd", "abcd"),
        // Tabs and newlines are kept by `clean` only.
        ("k\tv\nnext", "k\tv\nnext", "k v next"),
    ];

    #[test]
    fn hostile_sequences_are_removed_whole() {
        for (input, multi, one) in HOSTILE {
            assert_eq!(clean(input), *multi, "clean({input:?})");
            assert_eq!(single_line(input), *one, "single_line({input:?})");
            for out in [clean(input), single_line(input)] {
                assert!(
                    !out.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'),
                    "{input:?} → {out:?}"
                );
            }
        }
    }

    #[test]
    fn cleaning_is_idempotent() {
        for (input, _, _) in HOSTILE {
            let once = clean(input).into_owned();
            assert_eq!(clean(&once), once);
            let once = single_line(input).into_owned();
            assert_eq!(single_line(&once), once);
        }
    }

    #[test]
    fn json_keeps_the_exact_value() {
        let value = "main\u{202E}x\u{9b}2J\u{7f}\x1b[31m\u{2066}";
        let json =
            serde_json::to_string(&serde_json::json!({ "branch": value })).unwrap_or_default();
        let safe = json_for_terminal(&json);
        assert!(!safe.chars().any(is_unsafe), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap_or_default();
        assert_eq!(back["branch"], value);
        let plain = "{\n  \"a\": \"b\"\n}";
        assert!(matches!(json_for_terminal(plain), Cow::Borrowed(x) if x == plain));
    }
}

/// At most `max` characters, ending in `…` when cut (so columns of text stay
/// aligned).
pub(crate) fn cut_chars(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A session id as lists show it: its first 8 characters, on one line, with no
/// control characters (an id comes from a file a repository may ship).
pub(crate) fn short_id(id: &str) -> String {
    single_line(id).chars().take(8).collect()
}

#[cfg(test)]
mod short_id_tests {
    use super::*;

    #[test]
    fn short_ids_are_clean_and_cut_on_characters() {
        assert_eq!(short_id("3f0c2a9e-8b1d"), "3f0c2a9e");
        assert_eq!(short_id("€€€x\n* deadbeef"), "€€€x * d");
        assert_eq!(short_id("ab\u{1b}[2Jcd"), "abcd");
        assert_eq!(short_id("ab"), "ab");
    }

    #[test]
    fn a_trimmed_single_line_is_folded_cleaned_and_trimmed() {
        assert_eq!(single_line_trimmed("  T-012  "), "T-012");
        assert_eq!(single_line_trimmed(" a\nb \u{1b}[2J"), "a b");
        assert_eq!(single_line_trimmed("\n\t"), "");
    }
}
