//! What forge sends to the user's own commands on context events (`[[on_threshold]]`,
//! `[[on_session_start]]`): one JSON object on stdin, shaped like herdctl's context
//! hook payloads (fractions from 0 to 1, as herdctl uses them).

use serde_json::{Value, json};

/// The facts of a session at a threshold crossing.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ThresholdFacts {
    /// The session.
    pub(crate) session_id: String,
    /// `$FORGE_AGENT` or the tmux session's name.
    pub(crate) agent_name: Option<String>,
    /// The project folder.
    pub(crate) working_directory: String,
    /// The git work tree's root (the project folder when it is one).
    pub(crate) worktree_path: Option<String>,
    /// The session's transcript.
    pub(crate) transcript_path: Option<String>,
    /// Tokens in context.
    pub(crate) input_tokens: Option<u64>,
    /// The context window.
    pub(crate) context_window: Option<u64>,
    /// Used, in percent (0–100).
    pub(crate) used_pct: Option<f64>,
    /// The model's name.
    pub(crate) model_name: Option<String>,
    /// The handoff forge wrote at this crossing (`None` when it wrote none).
    pub(crate) handoff_path: Option<String>,
}

/// The `on_threshold` payload.
pub(crate) fn threshold_payload(f: &ThresholdFacts) -> Value {
    let usage = f.used_pct.map(|p| (p / 100.0).clamp(0.0, 1.0));
    json!({
        "hook_event_name": "context_threshold",
        "context": {
            "input_tokens": f.input_tokens,
            "context_window": f.context_window,
            "usage_percent": usage,
            "remaining_percent": usage.map(|u| 1.0 - u),
            "model_name": f.model_name,
        },
        "session": {
            "session_id": f.session_id,
            "agent_name": f.agent_name,
            "working_directory": f.working_directory,
            "worktree_path": f.worktree_path,
            "transcript_path": f.transcript_path,
        },
        "handoff_path": f.handoff_path,
    })
}

/// The facts of a starting session.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct StartFacts {
    /// The session.
    pub(crate) session_id: Option<String>,
    /// `$FORGE_AGENT` or the tmux session's name.
    pub(crate) agent_name: Option<String>,
    /// The project folder.
    pub(crate) working_directory: String,
    /// The git work tree's root.
    pub(crate) worktree_path: Option<String>,
    /// The session goes on (`resume`, `compact`) rather than starting afresh.
    pub(crate) is_continuation: bool,
    /// The session before it in this project (from `last-session.json`).
    pub(crate) previous_session_id: Option<String>,
    /// Session handoffs in `.forge/handoffs/`.
    pub(crate) handoff_count: usize,
    /// Claude Code's `source`: startup, resume, clear or compact.
    pub(crate) source: Option<String>,
    /// The `forge run` chain this session continues (its first session id).
    pub(crate) relay_chain: Option<String>,
}

/// The `on_session_start` payload.
pub(crate) fn start_payload(f: &StartFacts) -> Value {
    json!({
        "hook_event_name": "session_start",
        "session": {
            "session_id": f.session_id,
            "agent_name": f.agent_name,
            "working_directory": f.working_directory,
            "worktree_path": f.worktree_path,
            "is_continuation": f.is_continuation,
            "previous_session_id": f.previous_session_id,
            "handoff_count": f.handoff_count,
            "source": f.source,
            "relay_chain": f.relay_chain,
        },
    })
}

/// A command as the event log names it: on one line, at most 200 characters.
pub(crate) fn command_label(command: &str) -> String {
    crate::model::text::sanitize::cut_chars(
        &crate::model::text::sanitize::single_line(command.trim()),
        200,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_have_herdctls_shape_with_fractions() {
        let v = threshold_payload(&ThresholdFacts {
            session_id: "s1".into(),
            agent_name: Some("builder".into()),
            working_directory: "/p".into(),
            worktree_path: Some("/p".into()),
            transcript_path: Some("/t.jsonl".into()),
            input_tokens: Some(150_000),
            context_window: Some(200_000),
            used_pct: Some(75.0),
            model_name: Some("Opus".into()),
            handoff_path: None,
        });
        assert_eq!(v["hook_event_name"], "context_threshold");
        assert_eq!(v["context"]["usage_percent"], 0.75);
        assert_eq!(v["context"]["remaining_percent"], 0.25);
        assert_eq!(v["context"]["input_tokens"], 150_000);
        assert_eq!(v["session"]["agent_name"], "builder");
        assert!(v["handoff_path"].is_null());
        let v = start_payload(&StartFacts {
            source: Some("clear".into()),
            handoff_count: 3,
            ..StartFacts::default()
        });
        assert_eq!(v["hook_event_name"], "session_start");
        assert_eq!(v["session"]["handoff_count"], 3);
        assert_eq!(v["session"]["is_continuation"], false);
        assert_eq!(command_label("a\nb"), "a b");
        assert_eq!(command_label(&"x".repeat(300)).chars().count(), 200);
    }
}
