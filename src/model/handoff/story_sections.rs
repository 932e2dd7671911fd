//! The sections of a session handoff that tell the session's story
//! ([`crate::model::session::story`]): the person's requests, Claude Code's own
//! compaction summary and what happened after it, the approved plan, the person's
//! decisions, and the loose ends (background commands still running, the last
//! failing command). Each returns its text, heading first, or `None` when the
//! transcript has nothing for it. Every piece of the session is redacted before it
//! is cut, and cut at a line where it can be.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use std::path::Path;

use super::client_summary::{self, SummaryParts};
use super::fields::{project_path, redacted_field};
use crate::model::session::story::{Said, Story};
use crate::model::text::redact::redact;
use crate::model::text::sanitize::{cut_chars, single_line};

/// How many of the person's requests the list shows (the newest; the first is
/// under Current task).
const REQUESTS_SHOWN: usize = 30;
/// The most characters of one request in the list.
const REQUEST_LINE: usize = 300;
/// The most characters of each part quoted from the client's summary.
const SUMMARY_PART: usize = 1_200;
/// The most characters of the plan.
const PLAN_CHARS: usize = 2_000;
/// The most files named in "since then".
const SINCE_FILES: usize = 8;

/// A transcript time as the document writes it: `2026-11-21 10:15 UTC`.
pub(super) fn when(at: Option<&str>) -> Option<String> {
    at.and_then(crate::model::time::parse_iso)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
}

fn parsed(at: Option<&str>) -> Option<DateTime<Utc>> {
    at.and_then(crate::model::time::parse_iso)
}

/// `text`, redacted, as quoted lines (`> …`) of at most `max` characters in all:
/// whole lines while they fit, the first line cut with `…` when it alone is too
/// long. Returns the lines and whether anything was left out.
pub(super) fn quote(text: &str, max: usize) -> (Vec<String>, bool) {
    let red = redact(text.trim());
    let mut out = Vec::new();
    let mut used = 0;
    let all: Vec<&str> = red.lines().collect();
    for (n, line) in all.iter().enumerate() {
        let line = single_line(line);
        let len = line.chars().count();
        if used + len > max {
            if out.is_empty() {
                out.push(format!("> {}", cut_chars(&line, max)));
            }
            return (out, true);
        }
        used += len + 1;
        out.push(format!("> {line}").trim_end().to_owned());
        if n + 1 == all.len() {
            break;
        }
    }
    (out, false)
}

/// One line of the person's words: `- 10:15 UTC did you push? (×2)`.
fn request_line(s: &Said) -> String {
    let at = parsed(s.at.as_deref())
        .map(|t| format!("{} ", t.format("%m-%d %H:%M")))
        .unwrap_or_default();
    let times = if s.times > 1 {
        format!(" (×{})", s.times)
    } else {
        String::new()
    };
    let cut = if s.interrupted { " (interrupted)" } else { "" };
    format!(
        "- {at}{}{times}{cut}",
        redacted_field(&s.text, REQUEST_LINE)
    )
}

/// `## The person's requests`: every request after the task, in order, oldest
/// first (the list that loses its oldest lines first when the document is long).
/// `None` when the person asked only once.
pub(super) fn requests(s: &Story) -> Option<(String, usize)> {
    let task = s.task().map(|t| t.text.as_str());
    let later: Vec<&Said> = s
        .requests
        .iter()
        .filter(|r| Some(r.text.as_str()) != task)
        .collect();
    // One later request is the latest, which Current task quotes already.
    if later.len() < 2 {
        return None;
    }
    let mut d = String::from("## The person's requests\n");
    let shown = later.len().min(REQUESTS_SHOWN);
    let _ = writeln!(
        d,
        "After the task, in their words, oldest first (times UTC; {} in all{}):",
        later.len(),
        if shown < later.len() {
            format!(", the newest {shown} shown")
        } else {
            String::new()
        }
    );
    for r in &later[later.len() - shown..] {
        let _ = writeln!(d, "{}", request_line(r));
    }
    Some((d, 1))
}

/// The summary's parts, when the story has a summary with any.
fn summary_parts(s: &Story) -> Option<SummaryParts> {
    let parts = client_summary::parse(&s.summary.as_ref()?.text);
    (!parts.is_empty()).then_some(parts)
}

/// The original request as the client's summary states it (when no request of the
/// person is in the part of the transcript read).
pub(super) fn summary_request(s: &Story) -> Option<String> {
    summary_parts(s)?.request
}

/// The summary's next step, for the steps list.
pub(super) fn summary_next_step(s: &Story) -> Option<String> {
    let next = summary_parts(s)?.next?;
    let first = next.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(redacted_field(
        first.trim_start_matches(['-', '*', ' ']),
        300,
    ))
}

/// `## Claude Code's summary`: its pending tasks, current work and next step,
/// quoted and marked as the client's with its time and age, then what happened
/// after it (files edited, requests, commands), so a summary the session has moved
/// past reads as such.
pub(super) fn client_summary(s: &Story, root: &Path, now: DateTime<Utc>) -> Option<String> {
    let summary = s.summary.as_ref()?;
    let parts = summary_parts(s)?;
    let mut d = String::from("## Claude Code's summary\n");
    let source = if summary.source == "post-compact" {
        "sent by its PostCompact hook"
    } else {
        "from the transcript"
    };
    let at = parsed(summary.at.as_deref());
    let _ = writeln!(
        d,
        "Written by Claude Code when it compacted the context{} ({source}){}; quoted as it wrote it, not checked by forge.",
        when(summary.at.as_deref()).map_or_else(String::new, |w| format!(" at {w}")),
        at.map_or_else(String::new, |t| match crate::model::time::short(now - t) {
            s if s == "now" => ", moments before this handoff".to_owned(),
            s => format!(", {s} before this handoff"),
        }),
    );
    for (label, text) in [
        ("Pending tasks", &parts.pending),
        ("Current work", &parts.current),
        ("Next step", &parts.next),
    ] {
        let Some(text) = text else { continue };
        let (lines, cut) = quote(text, SUMMARY_PART);
        let _ = writeln!(d, "{label}:");
        for l in lines {
            let _ = writeln!(d, "{l}");
        }
        if cut {
            let _ = writeln!(d, "(cut; the whole summary is in the transcript)");
        }
    }
    let _ = writeln!(d, "{}", since_line(root, s));
    Some(d)
}

/// What happened after the summary, in one line.
fn since_line(root: &Path, s: &Story) -> String {
    let since = &s.since;
    if since.files.is_empty() && since.requests == 0 && since.commands == 0 {
        return "Since then: nothing yet — no file edited, no request, no command.".to_owned();
    }
    let files: Vec<String> = since
        .files
        .iter()
        .rev()
        .filter_map(|p| project_path(root, p))
        .collect();
    let named = if files.is_empty() {
        String::new()
    } else {
        let more = files.len().saturating_sub(SINCE_FILES);
        format!(
            " ({}{})",
            files
                .iter()
                .take(SINCE_FILES)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if more > 0 {
                format!(", {more} more")
            } else {
                String::new()
            }
        )
    };
    let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    format!(
        "Since then (so parts of it may be done or stale): {}{named}, {}, {}.",
        n(since.files.len(), "file edited", "files edited"),
        n(
            since.requests,
            "request of the person",
            "requests of the person"
        ),
        n(since.commands, "shell command", "shell commands")
    )
}

/// `## Plan`: the last plan the person approved (`ExitPlanMode`), quoted.
pub(super) fn plan(s: &Story) -> Option<String> {
    let p = s.plan.as_ref()?;
    let mut d = String::from("## Plan\n");
    let _ = writeln!(
        d,
        "The plan the person approved{}{}:",
        when(p.at.as_deref()).map_or_else(String::new, |w| format!(" at {w}")),
        if p.edited { " (they edited it)" } else { "" }
    );
    let (lines, cut) = quote(&p.text, PLAN_CHARS);
    for l in lines {
        let _ = writeln!(d, "{l}");
    }
    if cut {
        let _ = writeln!(d, "(cut; the whole plan is in the transcript)");
    }
    Some(d)
}

/// `## Decisions`: the person's answers to the agent's questions
/// (`AskUserQuestion`), in order.
pub(super) fn decisions(s: &Story) -> Option<String> {
    if s.decisions.is_empty() {
        return None;
    }
    let mut d = String::from("## Decisions\n");
    let _ = writeln!(d, "The person's answers to the agent's questions:");
    for x in s.decisions.iter().rev().take(40).rev() {
        let at = parsed(x.at.as_deref())
            .map(|t| format!(" ({})", t.format("%m-%d %H:%M UTC")))
            .unwrap_or_default();
        let _ = writeln!(
            d,
            "- {} → {}{at}",
            redacted_field(&x.question, 300),
            redacted_field(&x.answer, 600)
        );
    }
    Some(d)
}

/// `## Loose ends`: background commands started and not reported finished, and the
/// last failing command (not run again with success since) with its output's end.
pub(super) fn loose_ends(s: &Story) -> Option<String> {
    if s.background.is_empty() && s.failure.is_none() {
        return None;
    }
    let mut d = String::from("## Loose ends\n");
    for b in &s.background {
        let _ = writeln!(
            d,
            "- Started in the background{} and not reported finished: `{}`{} (id {})",
            when(b.at.as_deref()).map_or_else(String::new, |w| format!(" at {w}")),
            redacted_field(&b.command, 300),
            b.description
                .as_deref()
                .map(|x| format!(" — {}", redacted_field(x, 200)))
                .unwrap_or_default(),
            redacted_field(&b.id, 40)
        );
    }
    if let Some(f) = &s.failure {
        let _ = writeln!(
            d,
            "- The last failing command{}: `{}`; the end of its output:",
            when(f.at.as_deref()).map_or_else(String::new, |w| format!(" ({w})")),
            redacted_field(&f.command, 300)
        );
        let (lines, _) = quote(&f.tail, 1_500);
        for l in lines {
            let _ = writeln!(d, "  {l}");
        }
    }
    Some(d)
}

/// Claude's last words in the person's turns, quoted (at most a few lines): where
/// the session stopped; then the first line of what it said after, answering the
/// client's own notice (a background command's end), when it did.
pub(super) fn last_words(d: &mut String, s: &Story) {
    if let Some(w) = s.last_words.as_ref() {
        quote_words(d, w, "Claude's last words");
    }
    if let Some(w) = s.notice_words.as_ref() {
        quote_words(
            d,
            w,
            "Then, answering Claude Code's own notice (a background task's end)",
        );
    }
}

/// `label (time):` and `w`'s first lines with words in them, quoted (a table's
/// rules and blank lines left out).
fn quote_words(d: &mut String, w: &Said, label: &str) {
    const LINES: usize = 8;
    let _ = writeln!(
        d,
        "\n{label}{}:",
        when(w.at.as_deref()).map_or_else(String::new, |t| format!(" ({t})"))
    );
    let (lines, cut) = quote(&w.text, 800);
    let worded: Vec<String> = lines
        .into_iter()
        .filter(|l| l.chars().any(char::is_alphanumeric))
        .collect();
    for l in worded.iter().take(LINES) {
        let _ = writeln!(d, "{l}");
    }
    if cut || worded.len() > LINES {
        let _ = writeln!(d, "> …");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_keep_whole_lines_and_say_when_they_are_cut() {
        let (lines, cut) = quote("one\ntwo\nthree", 8);
        assert_eq!(lines, ["> one", "> two"]);
        assert!(cut);
        let (lines, cut) = quote(&"x".repeat(50), 10);
        assert_eq!(lines, [format!("> {}…", "x".repeat(9))]);
        assert!(cut);
        let (lines, cut) = quote(
            "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\n",
            400,
        );
        assert!(!cut);
        assert!(!lines[0].contains("sk-ant"), "{lines:?}");
        assert_eq!(
            when(Some("2026-02-11T22:31:35.740Z")).as_deref(),
            Some("2026-02-11 22:31 UTC")
        );
    }
}
