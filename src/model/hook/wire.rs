//! Claude Code's hook JSON as sent, read leniently.
//!
//! Every field is optional: a missing key, an explicit `null` or a value of the wrong
//! type all read as "absent" rather than failing the whole payload (see
//! docs/client-reference.md §2.1). Unknown fields are ignored. Prompt text and tool
//! inputs are not kept.

use serde_json::Value;

use crate::model::lenient::text;

/// The fields forge uses from any hook payload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WireHookInput {
    /// `session_id`.
    pub(crate) session_id: Option<String>,
    /// `transcript_path` (`""` in diskless modes reads as absent).
    pub(crate) transcript_path: Option<String>,
    /// `cwd`.
    pub(crate) cwd: Option<String>,
    /// `hook_event_name`.
    pub(crate) hook_event_name: Option<String>,
    /// SessionStart `source`.
    pub(crate) source: Option<String>,
    /// SessionEnd `reason`.
    pub(crate) reason: Option<String>,
    /// PreCompact `trigger`.
    pub(crate) trigger: Option<String>,
    /// Stop `stop_hook_active`.
    pub(crate) stop_hook_active: bool,
    /// Notification `notification_type`.
    pub(crate) notification_type: Option<String>,
    /// Notification `message`.
    pub(crate) message: Option<String>,
    /// Tool events' `tool_name`.
    pub(crate) tool_name: Option<String>,
    /// Tool events' `tool_use_id`: the call's id, which its result in the
    /// transcript names.
    pub(crate) tool_use_id: Option<String>,
    /// The file a tool works on: `tool_input.file_path` (or `notebook_path`). Only
    /// its name is kept, never the input's content.
    pub(crate) tool_file: Option<String>,
    /// SessionStart `model`.
    pub(crate) model: Option<String>,
    /// Set inside a subagent (its tool calls carry the parent's `session_id`).
    pub(crate) agent_id: Option<String>,
    /// Stop `last_assistant_message`: its first [`REPLY_HEAD`] characters, enough to
    /// tell whether the transcript already holds this turn's reply (the client
    /// writes it asynchronously). Not the whole text.
    pub(crate) last_reply_head: Option<String>,
    /// `prompt_id`: the person's prompt this turn answers (absent before the
    /// first). The transcript's user records carry it as `promptId`.
    pub(crate) prompt_id: Option<String>,
    /// PostCompact `compact_summary`: the client's compaction summary (at most
    /// [`SUMMARY_MAX`] characters; redacted before it is kept).
    pub(crate) compact_summary: Option<String>,
}

/// How much of a PostCompact's `compact_summary` is read.
pub(crate) const SUMMARY_MAX: usize = 64 * 1024;

/// How much of a Stop's `last_assistant_message` is kept.
pub(crate) const REPLY_HEAD: usize = 200;

impl WireHookInput {
    /// Reads the fields from a parsed JSON value. A non-object gives all-absent.
    pub(crate) fn from_value(v: &Value) -> Self {
        Self {
            session_id: text(v, "session_id"),
            tool_use_id: text(v, "tool_use_id").filter(|id| id.len() <= 128),
            transcript_path: text(v, "transcript_path"),
            cwd: text(v, "cwd"),
            hook_event_name: text(v, "hook_event_name"),
            source: text(v, "source"),
            reason: text(v, "reason"),
            trigger: text(v, "trigger"),
            stop_hook_active: v
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            notification_type: text(v, "notification_type"),
            // Bounded here, cut to the bridge's 200 characters only after it is
            // redacted (`crate::model::hook::bridge::Touch::new`).
            message: text(v, "message").map(|m| m.chars().take(4_000).collect()),
            tool_name: text(v, "tool_name"),
            tool_file: v.get("tool_input").and_then(|i| {
                text(i, "file_path")
                    .or_else(|| text(i, "notebook_path"))
                    .filter(|p| p.len() <= 4096)
            }),
            model: text(v, "model"),
            agent_id: text(v, "agent_id"),
            last_reply_head: text(v, "last_assistant_message")
                .map(|m| m.chars().take(REPLY_HEAD).collect()),
            prompt_id: text(v, "prompt_id").filter(|p| p.len() <= 100),
            compact_summary: text(v, "compact_summary")
                .map(|s| s.chars().take(SUMMARY_MAX).collect()),
        }
    }

    /// Reads the leading string fields of a payload that was cut at the stdin cap (a
    /// `Write` of several megabytes): Claude Code sends the common fields first, so
    /// the session, cwd, event and tool are usually all in the part that was read.
    /// `None` when no `session_id` is found.
    pub(crate) fn from_truncated(bytes: &[u8]) -> Option<Self> {
        let text = String::from_utf8_lossy(bytes);
        let w = Self {
            session_id: leading_string(&text, "session_id"),
            transcript_path: leading_string(&text, "transcript_path"),
            cwd: leading_string(&text, "cwd"),
            hook_event_name: leading_string(&text, "hook_event_name"),
            tool_name: leading_string(&text, "tool_name"),
            agent_id: leading_string(&text, "agent_id"),
            ..Self::default()
        };
        w.session_id.is_some().then_some(w)
    }
}

/// The first `"key": "value"` string in `text` (JSON escapes decoded), found without
/// parsing the whole document.
fn leading_string(text: &str, key: &str) -> Option<String> {
    let needle = format!("\"{key}\"");
    let at = text.find(&needle)? + needle.len();
    let rest = text.get(at..)?.trim_start().strip_prefix(':')?.trim_start();
    let body = rest.strip_prefix('"')?;
    let mut end = None;
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match (escaped, c) {
            (true, _) => escaped = false,
            (false, '\\') => escaped = true,
            (false, '"') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let raw = body.get(..end?)?;
    serde_json::from_str::<String>(&format!("\"{raw}\""))
        .ok()
        .filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_and_nulls_read_as_absent() {
        let w = WireHookInput::from_value(&json!({
            "session_id": 42, "cwd": null, "transcript_path": "", "stop_hook_active": "yes",
            "hook_event_name": "Stop", "tool_name": ["Bash"]
        }));
        assert_eq!(w.session_id, None);
        assert_eq!(w.cwd, None);
        assert_eq!(w.transcript_path, None);
        assert!(!w.stop_hook_active);
        assert_eq!(w.hook_event_name.as_deref(), Some("Stop"));
        assert_eq!(w.tool_name, None);
        assert_eq!(
            WireHookInput::from_value(&json!([1, 2])),
            WireHookInput::default()
        );
    }

    #[test]
    fn a_cut_payload_still_names_its_session_and_tool() {
        let full = r#"{"session_id":"s-1","transcript_path":"/t.jsonl","cwd":"/p/q \"x\"","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"content":"aaaa"#;
        let w = WireHookInput::from_truncated(full.as_bytes()).unwrap();
        assert_eq!(w.session_id.as_deref(), Some("s-1"));
        assert_eq!(w.cwd.as_deref(), Some("/p/q \"x\""));
        assert_eq!(w.hook_event_name.as_deref(), Some("PreToolUse"));
        assert_eq!(w.tool_name.as_deref(), Some("Write"));
        assert!(WireHookInput::from_truncated(b"{\"cwd\":\"/x\"").is_none());
        assert!(WireHookInput::from_truncated(b"{\"session_id\":\"unterminated").is_none());
    }

    #[test]
    fn fixture_fields_are_read() {
        let v: Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/hooks/Stop.json")).unwrap();
        let w = WireHookInput::from_value(&v);
        assert_eq!(
            w.session_id.as_deref(),
            Some("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21")
        );
        assert!(!w.stop_hook_active);
    }
}
