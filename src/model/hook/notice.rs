//! What SessionStart says to the person, besides what it gives the model: a few
//! one-line notices (what was resumed, from when and how old; an automatic handoff
//! left waiting; whatever another part of a SessionStart adds to
//! `crate::model::hook::start::Found::notices`). The pinned client draws a
//! SessionStart hook's JSON `systemMessage` under the session's banner as
//! `SessionStart:<source> says: <text>` (docs/client-reference.md §9.1 #15) and
//! gives its `hookSpecificOutput.additionalContext` to the model; with no notice,
//! the context stays plain stdout, as it always was. Pure.

use super::text::{LINE_MAX, clip_line};
use crate::model::handoff::entry::HandoffEntry;
use crate::model::text::sanitize::single_line;
use crate::model::time::Zone;

/// The most notices one SessionStart shows (a line each).
pub(crate) const NOTICES_MAX: usize = 5;

/// `forge: resumed "<title>" from handoff-20261121-101502.md, written 11-21 10:15
/// (2h ago) at the context threshold`.
pub(crate) fn resumed(
    entry: &HandoffEntry,
    now: chrono::DateTime<chrono::Utc>,
    zone: Zone,
) -> String {
    let title = entry
        .title
        .as_deref()
        .map(|t| t.trim_start_matches("Session handoff —").trim())
        .filter(|t| !t.is_empty())
        .map(|t| format!("\"{}\" ", clip_line(&single_line(t), 80)))
        .unwrap_or_default();
    let when = entry.created.map_or_else(
        || ", of unknown age".to_owned(),
        |c| {
            format!(
                ", written {} ({})",
                zone.clock(c),
                crate::model::time::ago(now, Some(c))
            )
        },
    );
    let why = entry
        .front
        .get("trigger")
        .and_then(trigger_words)
        .map(|w| format!(" {w}"))
        .unwrap_or_default();
    clip_line(
        &format!(
            "forge: resumed {title}from {}{when}{why}",
            single_line(&entry.file_name)
        ),
        LINE_MAX,
    )
}

/// What a handoff's trigger says in a notice.
fn trigger_words(trigger: &str) -> Option<&'static str> {
    Some(match trigger {
        "context-threshold" => "at the context threshold",
        "pre-compact" => "before a compaction",
        "manual" => "on request",
        "session-end" => "when the session ended",
        "relay" => "by forge run",
        _ => return None,
    })
}

/// `forge: an automatic handoff (2 days old) is waiting, not loaded: forge resume
/// handoff-….md loads it next time`.
pub(crate) fn waiting(age: Option<&str>, name: &str) -> String {
    clip_line(
        &format!(
            "forge: an automatic handoff{} is waiting, not loaded — `forge resume {}` makes the next session resume it",
            age.map(|a| format!(" ({a} old)")).unwrap_or_default(),
            single_line(name)
        ),
        LINE_MAX,
    )
}

/// SessionStart's stdout: `context` for the model, and the person's `notices`.
/// Without a notice, `context` as plain text (what Claude Code adds to the context);
/// with one, a JSON object: the notices joined as `systemMessage`, the context as
/// `hookSpecificOutput.additionalContext` (left out when empty).
pub(crate) fn output(context: String, notices: &[String]) -> String {
    let lines: Vec<String> = notices
        .iter()
        .map(|n| clip_line(single_line(n).trim(), LINE_MAX))
        .filter(|n| !n.is_empty())
        .take(NOTICES_MAX)
        .collect();
    if lines.is_empty() {
        return context;
    }
    let mut out = serde_json::json!({ "systemMessage": lines.join("\n") });
    if !context.is_empty() {
        // The terminal cleaning plain stdout gets (escape sequences, bidi and
        // control characters go whole) is done here: inside a JSON string they
        // would pass as escapes.
        out["hookSpecificOutput"] = serde_json::json!({
            "hookEventName": "SessionStart",
            "additionalContext": crate::model::text::sanitize::clean(&context),
        });
    }
    let mut text = out.to_string();
    text.push('\n');
    text
}

/// What SessionStart's stdout gives the model and the person: `(context, notice)`,
/// from either form [`output`] writes.
#[cfg(test)]
pub(crate) fn split(stdout: &str) -> (String, String) {
    match serde_json::from_str::<serde_json::Value>(stdout) {
        Ok(v) if v.is_object() => (
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            v["systemMessage"].as_str().unwrap_or_default().to_owned(),
        ),
        _ => (stdout.to_owned(), String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(text: &str) -> HandoffEntry {
        HandoffEntry::parse(
            "/p/.forge/handoffs/handoff-20261121-101502.md".into(),
            text,
            None,
        )
        .unwrap()
    }

    #[test]
    fn the_resume_notice_says_what_from_when_and_how_old() {
        let e = entry(
            "---\nkind: session-handoff\ntrigger: context-threshold\n---\n# Session handoff — Port the pool to deadpool\n",
        );
        let now = chrono::Utc
            .with_ymd_and_hms(2026, 11, 21, 12, 20, 0)
            .unwrap();
        assert_eq!(
            resumed(&e, now, Zone::utc()),
            "forge: resumed \"Port the pool to deadpool\" from handoff-20261121-101502.md, \
             written 11-21 10:15 (2h ago) at the context threshold"
        );
        // A title a repository wrote cannot break the line or the screen.
        let hostile = entry("---\ntrigger: manual\n---\n# Session handoff — x\u{1b}[2J\u{202E}y\n");
        let line = resumed(&hostile, now, Zone::utc());
        assert!(
            !line.contains('\u{1b}') && !line.contains('\u{202E}'),
            "{line:?}"
        );
    }

    #[test]
    fn notices_turn_the_output_into_json_and_none_keeps_it_plain() {
        assert_eq!(output("Last session: …\n".into(), &[]), "Last session: …\n");
        let out = output(
            "Resuming from handoff …\n".into(),
            &[
                "forge: resumed \"x\"".into(),
                "  ".into(),
                "second\nline".into(),
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["systemMessage"], "forge: resumed \"x\"\nsecond line");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            "Resuming from handoff …\n"
        );
        // What plain stdout would lose on its way to the terminal, JSON loses too.
        let hostile = output(
            "a\u{1b}]52;c;cHduZWQ=\u{7}b\u{202E}c\n".into(),
            &["n".into()],
        );
        let (context, _) = split(&hostile);
        assert_eq!(context, "abc\n");
        let only = output(String::new(), &["n".into()]);
        assert_eq!(only, "{\"systemMessage\":\"n\"}\n");
    }
}
