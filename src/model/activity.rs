//! What forge did, as rows people read: one row per outcome of each `events.jsonl`
//! line (one row for a call that did nothing worth a word). `forge log` prints
//! these rows and the dashboard's activity view lists them, from the same lines.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::time::Zone;
use crate::model::session::state::EventLine;

/// One thing forge did (or one call that did nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Row {
    /// When the call started (`None` when the line's time does not parse).
    pub(crate) time: Option<DateTime<Utc>>,
    /// The session, when the line names one.
    pub(crate) session: Option<String>,
    /// The event and its detail: `SessionStart startup`, `PreToolUse Write`.
    pub(crate) label: String,
    /// What happened and why.
    pub(crate) text: String,
    /// How it reads.
    pub(crate) tone: Tone,
}

/// How a row reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Something forge did.
    Did,
    /// A call that did nothing worth a word.
    Quiet,
    /// A failure.
    Error,
}

/// The facts shown beside an event's name, in this order of preference.
const DETAIL_FACTS: [&str; 5] = ["source", "trigger", "reason", "tool", "notification"];

/// `SessionStart startup`, `PreToolUse Write`, `Stop` (…`(continued)` when the
/// client continues a turn because of a Stop hook), `forge handoff --auto` (a
/// command's line: its outcomes say the rest).
pub(crate) fn label(line: &EventLine) -> String {
    let command = line.event.starts_with("forge ");
    let detail = DETAIL_FACTS
        .iter()
        .filter(|_| !command)
        .find_map(|k| line.facts.get(*k).and_then(Value::as_str));
    let mut out = line.event.clone();
    if let Some(d) = detail {
        out.push(' ');
        out.push_str(d);
    }
    if line.facts.get("auto") == Some(&Value::Bool(true)) {
        out.push_str(" --auto");
    }
    if line.facts.get("stop_hook_active") == Some(&Value::Bool(true)) {
        out.push_str(" (continued)");
    }
    out
}

/// The rows of one line, in the order things happened.
pub(crate) fn rows(line: &EventLine) -> Vec<Row> {
    let time = crate::model::time::parse_iso(&line.time);
    // What people read is redacted, whatever the line holds (a line an older forge
    // wrote, an orchestrator's reply): `forge log` and the dashboard both read these.
    let label = crate::model::text::redact::redact(&label(line));
    let row = |text: String, tone: Tone| Row {
        time,
        session: line.session.clone(),
        label: label.clone(),
        text: match crate::model::text::redact::redact_cow(&text) {
            std::borrow::Cow::Owned(r) => r,
            std::borrow::Cow::Borrowed(_) => text,
        },
        tone,
    };
    if line.outcomes.is_empty() {
        // Lines from before outcomes, or calls that changed nothing.
        return vec![match line.facts.get("error").and_then(Value::as_str) {
            Some(e) => row(format!("error (input): {e}"), Tone::Error),
            None if line.event == "PreToolUse" => row("let the tool run".to_owned(), Tone::Quiet),
            None => row("nothing to do".to_owned(), Tone::Quiet),
        }];
    }
    line.outcomes
        .iter()
        .map(|o| {
            let tone = if o.is_error() { Tone::Error } else { Tone::Did };
            row(o.describe(), tone)
        })
        .collect()
}

/// The first eight characters of a session id (enough to tell sessions apart, and
/// to pass back to `--session`).
pub(crate) fn short_session(id: &str) -> String {
    crate::model::text::sanitize::short_id(id)
}

/// A row as `forge log` prints it: `11-21 10:15:02  3f0c2a9e  Stop  recorded the
/// turn: …`, the time in `zone`.
pub(crate) fn format_row(row: &Row, zone: Zone) -> String {
    let time = row
        .time
        .map_or_else(|| "??-?? ??:??:??".to_owned(), |t| zone.clock_secs(t));
    let session = row
        .session
        .as_deref()
        .map_or_else(|| "-".to_owned(), short_session);
    // Every field from the file on its own line's place: none can forge a line.
    let one = crate::model::text::sanitize::single_line;
    format!(
        "{time}  {session:<8}  {:<20} {}",
        one(&row.label),
        one(&row.text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;
    use serde_json::json;

    fn line(v: Value) -> EventLine {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn one_row_per_outcome_and_one_for_a_quiet_call() {
        let l = line(json!({
            "time": "2026-11-21T10:15:02Z", "event": "SessionStart",
            "session": "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21", "facts": {"source": "startup"},
            "outcomes": [
                {"kind": "resume_injected", "path": "/p/.forge/handoffs/handoff-20261121-101502.md"},
                {"kind": "error", "what": "bridge", "message": "disk full"}
            ]
        }));
        let r = rows(&l);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].label, "SessionStart startup");
        assert_eq!(
            r[0].text,
            "resumed handoff-20261121-101502.md into the new session"
        );
        assert_eq!((r[0].tone, r[1].tone), (Tone::Did, Tone::Error));
        assert_eq!(
            format_row(&r[1], Zone::Fixed(FixedOffset::east_opt(3600).unwrap())),
            "11-21 11:15:02  3f0c2a9e  SessionStart startup error (bridge): disk full"
        );

        let quiet = rows(&line(
            json!({"time": "2026-11-21T10:15:03Z", "event": "PreToolUse",
            "session": "s1", "facts": {"tool": "Bash"}}),
        ));
        assert_eq!(quiet.len(), 1);
        assert_eq!(
            (
                quiet[0].label.as_str(),
                quiet[0].text.as_str(),
                quiet[0].tone
            ),
            ("PreToolUse Bash", "let the tool run", Tone::Quiet)
        );
        assert_eq!(
            format_row(&quiet[0], Zone::utc()),
            "11-21 10:15:03  s1        PreToolUse Bash      let the tool run"
        );
        // A line from before outcomes that recorded bad input is an error row.
        let old = rows(&line(
            json!({"time": "x", "event": "Stop", "facts": {"error": "invalid JSON"}}),
        ));
        assert_eq!(old[0].tone, Tone::Error);
        assert_eq!(old[0].time, None);
        assert!(format_row(&old[0], Zone::utc()).starts_with("??-?? ??:??:??  -         Stop"));
    }

    #[test]
    fn labels_carry_the_detail_that_tells_calls_apart() {
        let l = |facts: Value| label(&line(json!({"event": "E", "facts": facts})));
        assert_eq!(l(json!({"tool": "Write"})), "E Write");
        assert_eq!(l(json!({"stop_hook_active": true})), "E (continued)");
        assert_eq!(l(json!({"trigger": "auto"})), "E auto");
        let handoff = json!({"event": "forge handoff",
            "facts": {"trigger": "context-threshold", "auto": true}});
        assert_eq!(
            label(&serde_json::from_value(handoff).unwrap()),
            "forge handoff --auto"
        );
        assert_eq!(l(json!({})), "E");
    }
}
