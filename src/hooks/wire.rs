//! Claude Code's hook JSON as sent, read leniently.
//!
//! Every field is optional: a missing key, an explicit `null` or a value of the wrong
//! type all read as "absent" rather than failing the whole payload (see reference §1.2,
//! §8). Unknown fields are ignored. Prompt text and tool inputs are not kept.

use serde_json::Value;

/// The fields forge uses from any hook payload.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WireHookInput {
    /// `session_id`.
    pub session_id: Option<String>,
    /// `transcript_path` (`""` in diskless modes reads as absent).
    pub transcript_path: Option<String>,
    /// `cwd`.
    pub cwd: Option<String>,
    /// `hook_event_name`.
    pub hook_event_name: Option<String>,
    /// SessionStart `source`.
    pub source: Option<String>,
    /// SessionEnd `reason`.
    pub reason: Option<String>,
    /// PreCompact `trigger`.
    pub trigger: Option<String>,
    /// Stop `stop_hook_active`.
    pub stop_hook_active: bool,
    /// Notification `notification_type`.
    pub notification_type: Option<String>,
    /// Notification `message`.
    pub message: Option<String>,
    /// Tool events' `tool_name`.
    pub tool_name: Option<String>,
    /// SessionStart `model`.
    pub model: Option<String>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl WireHookInput {
    /// Reads the fields from a parsed JSON value. A non-object gives all-absent.
    pub fn from_value(v: &Value) -> Self {
        Self {
            session_id: text(v, "session_id"),
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
            message: text(v, "message").map(|m| m.chars().take(200).collect()),
            tool_name: text(v, "tool_name"),
            model: text(v, "model"),
        }
    }
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
    fn fixture_fields_are_read() {
        let v: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/hooks/Stop.json")).unwrap();
        let w = WireHookInput::from_value(&v);
        assert_eq!(
            w.session_id.as_deref(),
            Some("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21")
        );
        assert!(!w.stop_hook_active);
    }
}
