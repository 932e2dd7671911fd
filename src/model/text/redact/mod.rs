//! Redacting things that look like secrets from text forge copies out of a session
//! (the last user request, todo items, commit subjects, Signal questions,
//! notification messages, tmux screens, `forge run` tasks) before it leaves forge:
//! into a handoff, the SessionStart text, a state file, a wake message, a WIP commit,
//! or a command's output. Every one of those exits calls [`redact`] (or, for JSON,
//! [`redact_json`]; for a WIP commit's files, [`first_secret`] through
//! [`crate::model::text::scan`]), so a shape added here is redacted everywhere at once.
//!
//! The shapes are one table, [`RULES`] (in `rules.rs`), in the manner of gitleaks'
//! rule families (`config/gitleaks.toml`): each rule has an id, keywords of which one
//! must occur (ASCII case-insensitively) before its regex runs at all, the regex, and
//! a check that turns away placeholders and look-alikes (an entropy floor, where a
//! shape alone says too little). A regex with a group whose name starts with `s`
//! redacts only that group (the key name, `Bearer `, `https://user:` stay readable);
//! otherwise the whole match goes. Rules run in table order, vendor token shapes
//! first, so a generic rule never sees a secret a specific one already took.
//!
//! Cost stays flat in the number of rules: one pass over the text finds every keyword
//! at once — an Aho–Corasick automaton over a long text (a WIP commit's file), a bit
//! per byte pair and a first-byte index over a short one (a message, a handoff: the
//! automaton's build would cost more than the search) — and only the rules whose
//! keyword occurred run their regex. Nothing is built before the first call (the
//! index, the automaton, each regex the first time its keyword shows up), so a
//! process that redacts nothing pays nothing, and one that redacts a text without a
//! keyword compiles nothing.
//!
//! The regexes are byte regexes without Unicode (`\w`, `\s`, `\b` and case folding
//! are ASCII): no Unicode table is needed (the release build carries only
//! `unicode-perl`, see Cargo.toml), and the lazy DFA never gives up on non-ASCII
//! text, which keeps a WIP commit's scan of a large file fast.
//!
//! It is tuned to over-redact rather than leak: a false positive costs a word in a
//! handoff. `forge doctor`'s detector ([`crate::model::text::secrets`]) has the opposite
//! bias and its own heuristics for assignments and prose, but it takes the vendor
//! token shapes from this table ([`token_kinds`]), so a new shape is added once.

mod checks;
mod rules;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::bytes::{Captures, Regex, RegexBuilder};

pub use rules::RULES;

/// What a redacted value is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// One secret shape.
pub struct Rule {
    /// A stable id (gitleaks' where one exists).
    pub id: &'static str,
    /// What it is, for people ("a Stripe key").
    pub(crate) kind: &'static str,
    /// Lowercase words of which one must occur in the text (in any case) before the
    /// regex runs. Every rule has at least one: a rule without would run on every
    /// text, and the cost would grow with the table.
    pub(crate) keywords: &'static [&'static str],
    /// The pattern (bytes, ASCII classes); a group named `s…` marks the part to
    /// redact.
    pub regex: &'static str,
    /// Whether a match is a secret (placeholders, look-alikes are not). It gets the
    /// captures and the text of the part to redact.
    pub(crate) check: fn(&Captures<'_>, &str) -> bool,
    /// A vendor shape with a fixed prefix, precise enough for `forge doctor`.
    pub token: bool,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// Rules are told apart by their id (unique in the table, see its tests).
impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

/// The number of 64-bit words a set of rules takes.
const SET_WORDS: usize = RULES.len().div_ceil(64);

/// A set of rules, by their index in [`RULES`].
#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct RuleSet([u64; SET_WORDS]);

impl RuleSet {
    fn insert(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    fn contains(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// The rules in the set, in table order.
    fn iter(self) -> impl Iterator<Item = usize> {
        (0..RULES.len()).filter(move |i| self.contains(*i))
    }
}

/// The table's distinct keywords and the rules each one lets run, with an index
/// by first byte for short texts.
struct Keywords {
    /// Each distinct keyword once (lowercase).
    words: Vec<&'static str>,
    /// For each of `words`, the rules that have it.
    rules_of: Vec<RuleSet>,
    /// The indexes of `words`, grouped by first byte: `by_first[b]` is a range of
    /// `order`.
    order: Vec<usize>,
    by_first: Vec<(usize, usize)>,
    /// A bit for every pair of first two bytes (lowercase) a keyword starts with:
    /// most places in a text start no keyword, and one bit says so.
    pairs: Vec<u64>,
}

impl Keywords {
    fn pair(a: u8, b: u8) -> usize {
        usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
    }

    fn starts_here(&self, text: &[u8], at: usize) -> bool {
        let (Some(&a), Some(&b)) = (text.get(at), text.get(at + 1)) else {
            return false;
        };
        let p = Self::pair(a, b);
        self.pairs
            .get(p / 64)
            .is_some_and(|w| w & (1 << (p % 64)) != 0)
    }
}

/// Texts shorter than this are searched through the pair bits and the first-byte
/// index (a bit test a byte, a few comparisons where a keyword may start): building
/// the automaton (a few hundred microseconds) would cost more than the whole search
/// on a hook's message, a SessionStart text or a handoff.
const SMALL_TEXT: usize = 32 * 1024;

fn keywords() -> &'static Keywords {
    static KEYWORDS: OnceLock<Keywords> = OnceLock::new();
    KEYWORDS.get_or_init(|| {
        let mut pairs: Vec<(&'static str, usize)> = RULES
            .iter()
            .enumerate()
            .flat_map(|(i, rule)| rule.keywords.iter().map(move |k| (*k, i)))
            .collect();
        pairs.sort_unstable();
        let mut words: Vec<&'static str> = Vec::new();
        let mut rules_of: Vec<RuleSet> = Vec::new();
        for (k, i) in pairs {
            if words.last() != Some(&k) {
                words.push(k);
                rules_of.push(RuleSet::default());
            }
            if let Some(set) = rules_of.last_mut() {
                set.insert(i);
            }
        }
        let first = |w: &str| {
            w.bytes()
                .next()
                .map_or(0, |b| usize::from(b.to_ascii_lowercase()))
        };
        let mut order: Vec<usize> = (0..words.len()).collect();
        order.sort_by_key(|&w| words.get(w).map_or(0, |w| first(w)));
        let mut by_first = vec![(0, 0); 256];
        for (pos, &w) in order.iter().enumerate() {
            let b = words.get(w).map_or(0, |w| first(w));
            if let Some(r) = by_first.get_mut(b) {
                if r.0 == r.1 {
                    *r = (pos, pos);
                }
                r.1 = pos + 1;
            }
        }
        let mut pairs = vec![0u64; 65536 / 64];
        for w in &words {
            if let [a, b, ..] = w.as_bytes() {
                let p = Keywords::pair(*a, *b);
                if let Some(bits) = pairs.get_mut(p / 64) {
                    *bits |= 1 << (p % 64);
                }
            }
        }
        Keywords {
            words,
            rules_of,
            order,
            by_first,
            pairs,
        }
    })
}

/// Every keyword of the table in one Aho–Corasick automaton, built the first time a
/// long text is searched.
fn automaton() -> Option<&'static AhoCorasick> {
    static AUTOMATON: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    AUTOMATON
        .get_or_init(|| {
            // Overlapping search needs the standard match semantics; the
            // non-contiguous NFA builds fastest.
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .build(&keywords().words)
                .ok()
        })
        .as_ref()
}

/// The rules whose keywords occur in `text` (in any ASCII case): one pass, whatever
/// the table's size — one Aho–Corasick pass over a long text (a WIP commit's file),
/// the pair bits and first-byte index over a short one (the same answer, see the
/// tests). Were the automaton
/// unbuildable, every rule would run: slower, never leakier.
fn candidates(text: &[u8]) -> RuleSet {
    let k = keywords();
    let mut seen = vec![false; k.words.len()];
    if text.len() < SMALL_TEXT {
        for at in 0..text.len() {
            if !k.starts_here(text, at) {
                continue;
            }
            let Some(&b) = text.get(at) else { break };
            let Some(&(from, to)) = k.by_first.get(usize::from(b.to_ascii_lowercase())) else {
                continue;
            };
            for &w in k.order.get(from..to).unwrap_or_default() {
                let (Some(word), Some(s)) = (k.words.get(w), seen.get_mut(w)) else {
                    continue;
                };
                if !*s
                    && text
                        .get(at..at + word.len())
                        .is_some_and(|t| t.eq_ignore_ascii_case(word.as_bytes()))
                {
                    *s = true;
                }
            }
        }
    } else if let Some(ac) = automaton() {
        for m in ac.find_overlapping_iter(text) {
            if let Some(s) = seen.get_mut(m.pattern().as_usize()) {
                *s = true;
            }
        }
    } else {
        seen.iter_mut().for_each(|s| *s = true);
    }
    let mut set = RuleSet::default();
    for (rules, _) in k.rules_of.iter().zip(&seen).filter(|(_, s)| **s) {
        for (w, r) in set.0.iter_mut().zip(rules.0) {
            *w |= r;
        }
    }
    set
}

/// The ids of the rules whose regex does not compile in this build (none, unless a
/// rule needs a regex feature the build lacks): text of those shapes would be stored
/// unredacted, so `forge doctor` fails on any.
pub(crate) fn rules_that_do_not_compile() -> Vec<&'static str> {
    (0..RULES.len())
        .filter(|&i| compiled(i).is_none())
        .map(|i| RULES[i].id)
        .collect()
}

/// Rule `i`'s regex, compiled the first time it is wanted.
fn compiled(i: usize) -> Option<&'static Regex> {
    static CACHE: OnceLock<Vec<OnceLock<Option<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| RULES.iter().map(|_| OnceLock::new()).collect());
    let rule = RULES.get(i)?;
    cache
        .get(i)?
        .get_or_init(|| {
            RegexBuilder::new(rule.regex)
                .unicode(false)
                .size_limit(1 << 22)
                .build()
                .ok()
        })
        .as_ref()
}

/// The part of a match to redact: the first `s…` group that took part, else the
/// whole match.
fn secret_span(re: &Regex, c: &Captures<'_>) -> Option<(usize, usize)> {
    for (i, name) in re.capture_names().enumerate() {
        if name.is_some_and(|n| n.starts_with('s'))
            && let Some(m) = c.get(i)
        {
            return Some((m.start(), m.end()));
        }
    }
    c.get(0).map(|m| (m.start(), m.end()))
}

/// `(start, end)` widened to the nearest character boundaries of `text` (a byte
/// class can stop inside a multi-byte character; redacting a little more is safe).
fn widen(text: &str, (mut start, mut end): (usize, usize)) -> (usize, usize) {
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end.min(text.len()))
}

/// The spans of `text` that rule `i` redacts, in order.
fn spans(i: usize, text: &str) -> Vec<(usize, usize)> {
    let (Some(rule), Some(re)) = (RULES.get(i), compiled(i)) else {
        return Vec::new();
    };
    // Spans that already say [REDACTED] are not redacted again (a value class that
    // stops at `]` would otherwise leave a stray `]`).
    let done: Vec<(usize, usize)> = text
        .match_indices(REDACTED)
        .map(|(at, s)| (at, at + s.len()))
        .collect();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for c in re.captures_iter(text.as_bytes()) {
        let Some(span) = secret_span(re, &c) else {
            continue;
        };
        let (start, end) = widen(text, span);
        let Some(secret) = text.get(start..end) else {
            continue;
        };
        if start >= end || !(rule.check)(&c, secret) {
            continue;
        }
        // A span already said [REDACTED] stays as it is (a value class that stops at
        // `]` would otherwise leave a stray `]`); one that holds more than markers
        // goes whole, the markers it overlaps with it: a key block cut before its end
        // runs to the end of the text, over any [REDACTED] after it, and must not be
        // kept for that.
        let Some((s, e)) = beyond_markers(text, (start, end), &done) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// `span` widened over the `done` markers it overlaps, when something outside them
/// holds a letter or a digit; `None` when it is only markers and punctuation (a `]`,
/// a quote) — nothing left to hide.
fn beyond_markers(
    text: &str,
    (start, end): (usize, usize),
    done: &[(usize, usize)],
) -> Option<(usize, usize)> {
    let (mut lo, mut hi) = (start, end);
    let mut at = start;
    let mut secret = false;
    let holds = |from: usize, to: usize| {
        text.get(from..to)
            .is_some_and(|p| p.chars().any(char::is_alphanumeric))
    };
    for &(a, b) in done.iter().filter(|&&(a, b)| a < end && start < b) {
        secret |= a > at && holds(at, a);
        at = at.max(b);
        lo = lo.min(a);
        hi = hi.max(b);
    }
    secret |= at < end && holds(at, end);
    secret.then_some((lo, hi))
}

/// `text` with every span replaced by [`REDACTED`].
fn splice(text: &str, spans: &[(usize, usize)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end) in spans {
        if start < at {
            continue;
        }
        out.push_str(text.get(at..start).unwrap_or(""));
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// `text` with everything that looks like a secret replaced by `[REDACTED]`.
pub fn redact(text: &str) -> String {
    redact_cow(text).into_owned()
}

/// [`redact`], borrowing `text` when there is nothing to redact (the usual case).
pub(crate) fn redact_cow(text: &str) -> Cow<'_, str> {
    // A secret split over lines by a continuation (`\` at a line's end, a string
    // literal continued on the next line) is found in the joined text first and
    // redacted with the line break it spans: once a rule has taken the first line's
    // part, the rest would no longer look like anything.
    let mut out = match Joined::of(text) {
        Some(joined) => {
            let found = joined.spans();
            if found.is_empty() {
                Cow::Borrowed(text)
            } else {
                Cow::Owned(splice(text, &found))
            }
        }
        None => Cow::Borrowed(text),
    };
    let wanted = candidates(out.as_bytes());
    if wanted.is_empty() {
        return out;
    }
    for i in wanted.iter() {
        let found = spans(i, &out);
        if !found.is_empty() {
            out = Cow::Owned(splice(&out, &found));
        }
    }
    out
}

/// Whether the rule with id `id` finds a secret in `text` by itself: one of its
/// keywords occurs, its regex matches (in the text or its joined lines) and its
/// check passes. For the corpus test, which fails when a family stops matching even
/// though a generic rule would still catch its secret.
pub fn rule_finds(id: &str, text: &str) -> bool {
    let Some(i) = RULES.iter().position(|r| r.id == id) else {
        return false;
    };
    let finds = |t: &str| candidates(t.as_bytes()).contains(i) && !spans(i, t).is_empty();
    finds(text) || Joined::of(text).is_some_and(|j| finds(&j.text))
}

/// Whether `text` contains anything [`redact`] would change.
#[cfg(test)]
pub(crate) fn looks_secret(text: &str) -> bool {
    first_secret(text).is_some()
}

/// The first rule (in table order) that finds a secret in `text`, if any: what a
/// WIP commit's scan asks of each piece of a file.
pub fn first_secret(text: &str) -> Option<&'static Rule> {
    let found = |t: &str| {
        candidates(t.as_bytes())
            .iter()
            .find(|&i| !spans(i, t).is_empty())
            .and_then(|i| RULES.get(i))
    };
    found(text).or_else(|| Joined::of(text).and_then(|j| found(&j.text)))
}

/// The string values (and object keys) of `value`, redacted in place: for JSON that
/// leaves forge (`forge status --json`, `forge sessions --json`, `forge log --json`),
/// which stays valid JSON whatever is replaced.
pub(crate) fn redact_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(r) = redact_cow(s) {
                *s = r;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        Value::Object(map) => {
            let renamed: Vec<(String, String)> = map
                .keys()
                .filter_map(|k| match redact_cow(k) {
                    Cow::Owned(r) => Some((k.clone(), r)),
                    Cow::Borrowed(_) => None,
                })
                .collect();
            for (old, new) in renamed {
                if let Some(v) = map.remove(&old) {
                    map.insert(new, v);
                }
            }
            map.values_mut().for_each(redact_json);
        }
        _ => {}
    }
}

/// [`redact_cow`] for a Markdown document that may hold fenced ```` ```json ````
/// blocks (an agent handoff's Signal), as it is handed out whole (`forge mcp`'s
/// resources). In JSON a string's line breaks and quotes are escapes: `\n` glues the
/// next line's first word to an `n` (a key that starts that line no longer stands on
/// its own), and a plain pass that takes an escaped quote's `\` breaks the JSON. So
/// each closed block that parses is redacted as JSON ([`redact_json`]), the rest of
/// the document (the blocks held out) in one plain pass, and the blocks are put back
/// where they were. A block inside a span the plain pass redacted (a key block cut
/// before its end runs to the end of the text) goes with that span.
pub(crate) fn redact_document(text: &str) -> Cow<'_, str> {
    // Marks a held-out block in the text the plain pass sees.
    const MARK: char = '\u{0}';
    if !text.contains("```json") || text.contains(MARK) {
        return redact_cow(text);
    }
    let mut rest = String::with_capacity(text.len());
    // (its mark in `rest`, what goes back there)
    let mut blocks: Vec<(String, String)> = Vec::new();
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        rest.push_str(line);
        if !line.trim_start().starts_with("```json") {
            continue;
        }
        let mut body = String::new();
        let mut close = None;
        for l in lines.by_ref() {
            if l.trim_start().starts_with("```") {
                close = Some(l);
                break;
            }
            body.push_str(l);
        }
        let parsed = close.and_then(|_| serde_json::from_str::<serde_json::Value>(&body).ok());
        let Some(value) = parsed else {
            rest.push_str(&body);
            rest.extend(close);
            continue;
        };
        let mut redacted = value.clone();
        redact_json(&mut redacted);
        let newline = if body.ends_with('\n') { "\n" } else { "" };
        let back = if redacted == value {
            body
        } else {
            let json = if body.trim_end().contains('\n') {
                serde_json::to_string_pretty(&redacted)
            } else {
                serde_json::to_string(&redacted)
            };
            format!("{}{newline}", json.unwrap_or_default())
        };
        let mark = format!("{MARK}{}{MARK}{newline}", blocks.len());
        rest.push_str(&mark);
        rest.extend(close);
        blocks.push((mark, back));
    }
    let mut out = redact_cow(&rest).into_owned();
    for (mark, back) in &blocks {
        out = out.replacen(mark.as_str(), back, 1);
    }
    if out == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(out)
    }
}

/// The kinds of vendor token (the rules marked `token`) found in `text`, for
/// `forge doctor`; never the matched text.
pub(crate) fn token_kinds(text: &str) -> Vec<&'static str> {
    let mut kinds = Vec::new();
    for i in candidates(text.as_bytes()).iter() {
        let Some(rule) = RULES.get(i) else { continue };
        if rule.token && !kinds.contains(&rule.kind) && !spans(i, text).is_empty() {
            kinds.push(rule.kind);
        }
    }
    kinds
}

/// A text with its line continuations joined: `\` at a line's end (shell, C,
/// Python, Makefiles) with the line break and the next line's indentation, and a
/// string literal closed at a line's end and continued on the next (`"abc" \`,
/// `"abc" +`, `"abc"` then `"def"`) with the quotes in between. `map[j]` is the
/// byte of the original text that joined byte `j` came from, so a span found in
/// the joined text maps back to the original, line break and all.
struct Joined {
    text: String,
    map: Vec<usize>,
}

impl Joined {
    /// `None` when `text` has no continuation (the usual case: one `memchr` pass).
    fn of(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        let mut joined = false;
        let mut out = String::with_capacity(text.len());
        let mut map = Vec::with_capacity(text.len());
        let mut at = 0;
        for nl in memchr::memchr_iter(b'\n', b) {
            if let Some(cut) = Self::continuation(b, nl) {
                let (keep_to, resume) = cut;
                if keep_to >= at {
                    out.push_str(text.get(at..keep_to)?);
                    map.extend(at..keep_to);
                    at = resume;
                    joined = true;
                }
            }
        }
        if !joined {
            return None;
        }
        out.push_str(text.get(at..)?);
        map.extend(at..text.len());
        Some(Self { text: out, map })
    }

    /// For the line break at `nl`: the byte where the kept text ends before it and
    /// where it resumes after it, when the break is a continuation.
    fn continuation(b: &[u8], nl: usize) -> Option<(usize, usize)> {
        let is_blank = |c: &u8| *c == b' ' || *c == b'\t';
        // Back over `\r` and blanks.
        let mut end = nl;
        if end > 0 && b.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        while end > 0 && b.get(end - 1).is_some_and(is_blank) {
            end -= 1;
        }
        // Forward over the next line's indentation.
        let mut next = nl + 1;
        while b.get(next).is_some_and(is_blank) {
            next += 1;
        }
        let last = *b.get(end.checked_sub(1)?)?;
        if last == b'\\' {
            // `abc\` then `def`: drop the backslash and the break; a quoted piece
            // continued in the same way (`"abc" \` then `"def"`) loses its quotes.
            let before = b.get(..end - 1)?;
            let mut q = before.len();
            while q > 0 && before.get(q - 1).is_some_and(is_blank) {
                q -= 1;
            }
            if let (Some(&open), Some(&close)) =
                (q.checked_sub(1).and_then(|i| before.get(i)), b.get(next))
                && (open == b'"' || open == b'\'')
                && open == close
            {
                return Some((q - 1, next + 1));
            }
            return Some((end - 1, next));
        }
        // `"abc" +` / `"abc" .` / `"abc" &` / `"abc"` then `"def"` (or `+ "def"`).
        let mut q = end;
        if matches!(last, b'+' | b'.' | b'&') {
            q -= 1;
            while q > 0 && b.get(q - 1).is_some_and(is_blank) {
                q -= 1;
            }
        }
        let open = *b.get(q.checked_sub(1)?)?;
        if open != b'"' && open != b'\'' {
            return None;
        }
        let mut start = next;
        if matches!(b.get(start), Some(b'+' | b'.' | b'&')) && q == end {
            start += 1;
            while b.get(start).is_some_and(is_blank) {
                start += 1;
            }
        }
        (b.get(start) == Some(&open)).then_some((q - 1, start + 1))
    }

    /// The spans of the original text whose joined form holds a secret.
    fn spans(&self) -> Vec<(usize, usize)> {
        let mut found: Vec<(usize, usize)> = Vec::new();
        for i in candidates(self.text.as_bytes()).iter() {
            for (s, e) in spans(i, &self.text) {
                let (Some(&a), Some(&b)) = (self.map.get(s), self.map.get(e.saturating_sub(1)))
                else {
                    continue;
                };
                found.push((a, b + 1));
            }
        }
        found.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for (s, e) in found {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        merged
    }
}
