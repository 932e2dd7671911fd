//! A session's transcript as a person reads it: who said what, each tool call on one
//! line, and where the context was compacted. Pure: the transcript's lines go in,
//! the text for the pager comes out.
//!
//! The dashboard's sessions pane opens this (Enter) instead of the raw `.jsonl`,
//! whose records are mostly the client's bookkeeping (attachments, request shapes,
//! hook summaries: a 13-turn session was 892 KB). What is kept, in order:
//!
//! - what the person typed (a slash command as `you ran /compact`), never the
//!   client's plumbing around it (caveats, command output, meta records);
//! - what Claude wrote, and each tool call as one line — the tool and what it was
//!   called on (a file, a command, a pattern), never the file contents a Write or an
//!   Edit carries — with a failed call's first line of error under it;
//! - each compaction boundary, and that a summary stands for what came before it.
//!
//! Subagents' records (`isSidechain`) are left out: their Task call is the line.
//! Every piece of text is cleaned of control characters and escape sequences and
//! redacted ([`crate::model::text::redact`]) before it is written.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::model::text::redact::redact;
use crate::model::text::sanitize::{clean, cut_chars, single_line};
use crate::model::time::Zone;

/// The most characters of a tool call's one line.
const CALL_MAX: usize = 160;
/// The most characters of a failed call's error line.
const ERROR_MAX: usize = 400;

/// Who a block of the conversation is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    Person,
    Claude,
}

/// Renders the transcript `lines` (in file order). `cut`: the file's first part was
/// not read (it is long); the text says so at the top.
pub(crate) fn render<'a>(lines: impl Iterator<Item = &'a str>, zone: Zone, cut: bool) -> String {
    let mut out = String::new();
    if cut {
        out.push_str("(the beginning of this long transcript is left out)\n\n");
    }
    let mut last: Option<Speaker> = None;
    let mut any = false;
    for line in lines {
        let Ok(rec) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if super::transcript::is_sidechain(&rec) {
            continue;
        }
        let at = rec
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(crate::model::time::parse_iso);
        match rec.get("type").and_then(Value::as_str) {
            Some("system") if super::transcript::is_boundary(&rec) => {
                let _ = writeln!(out, "\n{}\n", boundary_line(&rec));
                last = None;
                any = true;
            }
            Some("user") => {
                for piece in user_pieces(&rec) {
                    any = true;
                    match piece {
                        UserPiece::Said(text) => {
                            header(&mut out, &mut last, Speaker::Person, at, zone);
                            indented(&mut out, &text);
                        }
                        UserPiece::Command(cmd) => {
                            if last.is_some() {
                                out.push('\n');
                            }
                            let _ = writeln!(out, "you ran {cmd}");
                            last = None;
                        }
                        UserPiece::Summary(n) => {
                            let _ = writeln!(
                                out,
                                "(Claude goes on from a summary of the conversation above: \
                                 {n} line{})",
                                if n == 1 { "" } else { "s" }
                            );
                            last = None;
                        }
                        UserPiece::Failed(text) => {
                            let _ = writeln!(out, "  ✗ {text}");
                        }
                        UserPiece::Notice(text) => {
                            if last.is_some() {
                                out.push('\n');
                            }
                            let _ = writeln!(out, "(Claude Code: {text})");
                            last = None;
                        }
                    }
                }
            }
            Some("assistant") => {
                let blocks = rec
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array);
                for b in blocks.into_iter().flatten() {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let text = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if text.trim().is_empty() {
                                continue;
                            }
                            header(&mut out, &mut last, Speaker::Claude, at, zone);
                            indented(&mut out, text);
                            any = true;
                        }
                        Some("tool_use") => {
                            header(&mut out, &mut last, Speaker::Claude, at, zone);
                            let _ = writeln!(out, "  ⚙ {}", call_line(b));
                            any = true;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if !any {
        out.push_str("(no messages in this transcript yet)\n");
    }
    out
}

/// A block's first line: `you · 11-21 10:12` (time when the record has one), after a
/// blank line; nothing when the same speaker goes on.
fn header(
    out: &mut String,
    last: &mut Option<Speaker>,
    who: Speaker,
    at: Option<DateTime<Utc>>,
    zone: Zone,
) {
    if *last == Some(who) {
        return;
    }
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push('\n');
    }
    let name = match who {
        Speaker::Person => "you",
        Speaker::Claude => "Claude",
    };
    match at {
        Some(t) => {
            let _ = writeln!(out, "{name} · {}", zone.clock(t));
        }
        None => {
            let _ = writeln!(out, "{name}");
        }
    }
    *last = Some(who);
}

/// `text`, cleaned and redacted, each line indented by two spaces.
fn indented(out: &mut String, text: &str) {
    let text = redact(&clean(text));
    for line in text.trim_end().lines() {
        let _ = writeln!(out, "  {line}");
    }
}

/// `──── compacted · auto · 167k tokens before, 12k after ────`.
fn boundary_line(rec: &Value) -> String {
    let meta = rec.get("compactMetadata");
    let field = |k: &str| meta.and_then(|m| m.get(k));
    let mut parts = vec!["compacted".to_owned()];
    if let Some(t) = field("trigger").and_then(Value::as_str) {
        parts.push(single_line(t).into_owned());
    }
    let tokens = |k: &str| field(k).and_then(super::transcript::as_u64).map(thousands);
    match (tokens("preTokens"), tokens("postTokens")) {
        (Some(pre), Some(post)) => parts.push(format!("{pre} tokens before, {post} after")),
        (Some(pre), None) => parts.push(format!("{pre} tokens before")),
        _ => {}
    }
    format!("──── {} ────", parts.join(" · "))
}

/// `167412` as `167k`, `950` as `950`.
fn thousands(n: u64) -> String {
    if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// What a `user` record holds for the reader.
enum UserPiece {
    /// The person's words.
    Said(String),
    /// A slash command the person ran (`/compact focus on tests`).
    Command(String),
    /// The summary a compaction left (its length in lines).
    Summary(usize),
    /// A tool call that failed: the first line of its error (cleaned, redacted).
    Failed(String),
    /// What the client reported in the person's role that a reader wants to see (a
    /// background command's end), as one line.
    Notice(String),
}

/// What a `user` record shows, by who wrote it ([`super::user_record`]): the
/// person's words, their commands, the summary a compaction left, a background
/// command's end, a failed call's error — and nothing of the rest the client writes
/// in the person's role.
fn user_pieces(rec: &Value) -> Vec<UserPiece> {
    use super::user_record::{UserRecord, classify};
    match classify(rec) {
        Some(UserRecord::CompactSummary(text)) => {
            vec![UserPiece::Summary(text.lines().count().max(1))]
        }
        Some(UserRecord::ToolResult) => failed_results(rec),
        Some(UserRecord::Typed(text)) => vec![UserPiece::Said(text)],
        Some(UserRecord::Command { name, args }) => {
            let cmd = format!("/{name} {args}");
            vec![UserPiece::Command(cut_chars(
                &redact(&single_line(cmd.trim())),
                CALL_MAX,
            ))]
        }
        Some(UserRecord::Shell(cmd)) => vec![UserPiece::Command(cut_chars(
            &redact(&single_line(&format!("! {cmd}"))),
            CALL_MAX,
        ))],
        Some(UserRecord::TaskNotification(n)) => {
            let what = n
                .summary
                .or_else(|| {
                    n.id.map(|id| format!("background task {id} {}", n.status.unwrap_or_default()))
                })
                .unwrap_or_else(|| "a background task ended".to_owned());
            vec![UserPiece::Notice(cut_chars(
                &redact(&single_line(&what)),
                ERROR_MAX,
            ))]
        }
        Some(UserRecord::Client(_)) | None => Vec::new(),
    }
}

/// The first line of each failed tool result's error.
fn failed_results(rec: &Value) -> Vec<UserPiece> {
    let blocks = rec
        .pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    blocks
        .filter(|b| {
            b.get("type").and_then(Value::as_str) == Some("tool_result")
                && b.get("is_error").and_then(Value::as_bool) == Some(true)
        })
        .map(|b| {
            let text = super::transcript::content_text(b.get("content").unwrap_or(&Value::Null));
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("(no message)");
            UserPiece::Failed(cut_chars(&redact(&single_line(first)), ERROR_MAX))
        })
        .collect()
}

/// A tool call on one line: the tool, then what it was called on — never a file's
/// contents (`content`, `new_string` and the like are not read).
fn call_line(block: &Value) -> String {
    let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
    let input = block.get("input").unwrap_or(&Value::Null);
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    let what = match name {
        "Bash" => field("command").map(str::to_owned),
        "Read" | "Edit" | "Write" | "MultiEdit" => field("file_path").map(str::to_owned),
        "NotebookEdit" | "NotebookRead" => field("notebook_path").map(str::to_owned),
        "Grep" | "Glob" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p} in {path}"),
            None => p.to_owned(),
        }),
        "LS" => field("path").map(str::to_owned),
        "WebFetch" => field("url").map(str::to_owned),
        "WebSearch" => field("query").map(str::to_owned),
        "Task" | "Agent" => field("description").map(str::to_owned),
        "TaskCreate" => field("subject").map(str::to_owned),
        "TaskUpdate" => {
            let id = input.get("taskId").map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
            id.map(|id| match field("status") {
                Some(s) => format!("task {id} → {s}"),
                None => format!("task {id}"),
            })
        }
        "TodoWrite" => input
            .get("todos")
            .and_then(Value::as_array)
            .map(|t| format!("{} item{}", t.len(), if t.len() == 1 { "" } else { "s" })),
        _ => None,
    };
    let line = match what {
        Some(w) if !w.trim().is_empty() => format!("{name} {w}"),
        _ => name.to_owned(),
    };
    cut_chars(&redact(&single_line(&line)), CALL_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const RECORDED: &str =
        include_str!("../../../tests/fixtures/transcripts/recorded-read-compact-write.jsonl");

    fn utc() -> Zone {
        Zone::utc()
    }

    #[test]
    fn a_recorded_transcript_reads_as_a_conversation() {
        let text = render(RECORDED.lines(), utc(), false);
        assert_eq!(
            text,
            "you · 11-26 13:32\n\
             \x20 please READ-SPEC\n\
             \n\
             Claude · 11-26 13:32\n\
             \x20 ⚙ Read /home/alice/src/acme-api/SPEC.md\n\
             \x20 Done.\n\
             \n\
             ──── compacted · manual · 12k tokens before, 3.4k after ────\n\
             \n\
             (Claude goes on from a summary of the conversation above: 13 lines)\n\
             you ran /compact\n\
             \n\
             you · 11-26 13:32\n\
             \x20 please WRITE-AFTER\n\
             \n\
             Claude · 11-26 13:32\n\
             \x20 ⚙ Write /home/alice/src/acme-api/after.md\n\
             \x20 ✗ PreToolUse:Write hook error: forge held this call back once because the \
             context was just compacted. Re-read .forge/handoffs/handoff-20261126-133231.md, \
             SPEC.md first (reading is never held back), then make the call again.\n\
             \x20 Done.\n",
            "{text}"
        );
        // The client's bookkeeping and plumbing never show.
        for noise in [
            "api-request",
            "attachment",
            "local-command",
            "\u{1b}",
            "Compacted (ctrl",
        ] {
            assert!(!text.contains(noise), "{noise}: {text}");
        }
    }

    #[test]
    fn in_real_sessions_only_the_persons_words_read_as_theirs() {
        // tests/fixtures/real-transcripts (MIT, see its LICENSE): the long session
        // ends with the client's <task-notification>; the tool-heavy one has /mcp
        // with its caveat and output, and interruption markers.
        let long = include_str!(
            "../../../tests/fixtures/real-transcripts/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
        );
        let text = render(long.lines(), utc(), false);
        assert!(!text.contains("task-notification"), "{text}");
        assert!(
            text.contains(
                "(Claude Code: Background command \"Run transcript renderer tests\" completed (exit code 0))"
            ),
            "{text}"
        );
        let text = format!("\n{text}");
        let said: Vec<&str> = text
            .split("\nyou · ")
            .skip(1)
            .filter_map(|b| b.lines().nth(1))
            .collect();
        assert_eq!(
            said,
            [
                "  Work on bead spotter-fum. Run bd show spotter-fum to see the issue details and bd ready to find available subtasks. Start with the first ready task."
            ],
            "{text}"
        );
        let heavy = include_str!("../../../tests/fixtures/real-transcripts/tool_heavy.jsonl");
        let text = render(heavy.lines(), utc(), false);
        assert!(text.contains("you ran /mcp\n"), "{text}");
        for noise in [
            "local-command",
            "Caveat:",
            "Request interrupted",
            "Reconnected",
        ] {
            assert!(!text.contains(noise), "{noise}: {text}");
        }
        assert!(text.contains("  start phoenix in background\n"), "{text}");
    }

    #[test]
    fn secrets_controls_contents_and_subagents_stay_out() {
        let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL";
        let lines = [
            json!({"type":"user","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user",
                "content":format!("use \u{1b}]0;pwned\u{7}the key {key}\nand\u{202E} go")}}),
            json!({"type":"assistant","message":{"role":"assistant","content":[
                {"type":"thinking","thinking":"secret plan"},
                {"type":"tool_use","id":"t1","name":"Write","input":{
                    "file_path":"/p/config.env","content":format!("API_KEY={key}")}},
                {"type":"tool_use","id":"t2","name":"Bash","input":{
                    "command":format!("curl -H 'x-api-key: {key}' \u{1b}[2J https://x")}},
                {"type":"tool_use","id":"t3","name":"Edit","input":{
                    "file_path":"/p/a.rs","old_string":"OLD-CONTENT","new_string":"NEW-CONTENT"}}]}}),
            json!({"type":"assistant","isSidechain":true,"message":{"role":"assistant",
                "content":[{"type":"text","text":"SUBAGENT-WORDS"}]}}),
            json!({"type":"user","isMeta":true,"message":{"role":"user","content":"META-WORDS"}}),
            json!({"type":"system","subtype":"compact_boundary",
                "compactMetadata":{"trigger":"auto","preTokens":167_412,"postTokens":11_890}}),
        ];
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        let out = render(text.iter().map(String::as_str), utc(), true);
        assert!(out.starts_with("(the beginning of this long transcript is left out)"));
        assert!(!out.contains(key), "{out}");
        assert!(out.contains("[REDACTED]"), "{out}");
        assert!(
            !out.chars()
                .any(|c| c != '\n' && crate::model::text::sanitize::is_unsafe(c)),
            "{out:?}"
        );
        for hidden in [
            "OLD-CONTENT",
            "NEW-CONTENT",
            "API_KEY",
            "secret plan",
            "SUBAGENT-WORDS",
            "META-WORDS",
        ] {
            assert!(!out.contains(hidden), "{hidden}: {out}");
        }
        assert!(out.contains("  ⚙ Write /p/config.env\n"), "{out}");
        assert!(out.contains("  ⚙ Edit /p/a.rs\n"), "{out}");
        assert!(out.contains("  ⚙ Bash curl -H 'x-api-key: "), "{out}");
        assert!(
            out.contains("──── compacted · auto · 167k tokens before, 11k after ────"),
            "{out}"
        );
        assert_eq!(
            render(std::iter::empty(), utc(), false),
            "(no messages in this transcript yet)\n"
        );
    }
}
