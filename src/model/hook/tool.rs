//! PreToolUse and PostToolUse, decided: what a tool call tells forge about the
//! session (it edits files of the project, the turn's first command, it is busy
//! again), the one call held back after a compaction, and `forge run`'s stop.

use serde_json::json;

use super::bridge::{Baseline, BridgeEdit, Touch};
use super::wire::WireHookInput;
use super::{Effect, Plan, Session};
use crate::model::outcome::Outcome;
use crate::model::session::learn::{COMMAND_TOOL, EDITING_TOOLS};
use crate::model::session::state::{Attention, SessionBridge};

/// Tools that only read: a compacted session re-reads with them, so they are never
/// held back.
pub(crate) const READ_ONLY_TOOLS: [&str; 5] = ["Read", "Grep", "Glob", "LS", "NotebookRead"];

/// What a PreToolUse knows, gathered once.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ToolFacts {
    /// The session and its bridge.
    pub(crate) session: Session,
    /// An editing tool works on a file of the project (or on a file the payload does
    /// not name), and the bridge does not say so yet (see [`may_mark_edit`]).
    pub(crate) edits_project: bool,
    /// The turn's first command: the work tree's fingerprint (`None`: not the first,
    /// not a command, or the scan did not finish in time — then the turn's commands
    /// claim nothing). See [`needs_baseline`].
    pub(crate) baseline: Option<String>,
    /// A read-only tool: the session's re-read marker is armed.
    pub(crate) marker_armed: bool,
    /// The files to re-read, when this call took the session's re-read marker (see
    /// [`takes_marker`]).
    pub(crate) reread: Option<Vec<String>>,
}

/// Whether `tool` only reads.
pub(crate) fn is_read_only(tool: Option<&str>) -> bool {
    tool.is_some_and(|t| READ_ONLY_TOOLS.contains(&t))
}

/// Whether this call may take the session's re-read marker (and be held back): a
/// tool that may change something, on the main thread (a subagent's call carries
/// the parent's session id, but the compaction was the main thread's).
pub(crate) fn takes_marker(payload: &WireHookInput) -> bool {
    payload.session_id.is_some()
        && payload.agent_id.is_none()
        && !is_read_only(payload.tool_name.as_deref())
}

/// Whether an editing tool's file must be looked at: the bridge does not say yet
/// that the session edited files (it is written once, not on every edit).
pub(crate) fn may_mark_edit(payload: &WireHookInput, bridge: Option<&SessionBridge>) -> bool {
    payload.session_id.is_some()
        && payload
            .tool_name
            .as_deref()
            .is_some_and(|t| EDITING_TOOLS.contains(&t))
        && bridge.is_none_or(|b| !b.files_edited)
}

/// Whether this call is the turn's first command, which takes the work tree's
/// fingerprint for the end of the turn to compare with (one git scan per turn that
/// runs commands; later calls read one small file).
pub(crate) fn needs_baseline(payload: &WireHookInput, bridge: Option<&SessionBridge>) -> bool {
    payload.session_id.is_some()
        && payload.tool_name.as_deref() == Some(COMMAND_TOOL)
        && bridge.is_none_or(|b| b.command_baseline.is_none())
}

/// PreToolUse: an edit and the turn's baseline noted; after a compaction, a
/// re-reading tool marks the session as re-reading, and the first other tool is
/// held back once; otherwise a session that was waiting is busy again.
pub(crate) fn pre_tool_use(
    f: &ToolFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let mut plan = Plan::default();
    let mut edit = BridgeEdit {
        files_edited: f.edits_project,
        baseline: f.baseline.clone().map_or(Baseline::Keep, Baseline::First),
        command_call: payload
            .tool_use_id
            .clone()
            .filter(|_| payload.tool_name.as_deref() == Some(COMMAND_TOOL)),
        ..BridgeEdit::default()
    };
    let tool = payload.tool_name.as_deref();
    if payload.agent_id.is_none() {
        if is_read_only(tool) {
            // Re-reading is what a compacted session should do: never held back. It
            // tells Stop that the session is re-reading.
            if f.marker_armed
                && let Some(sid) = f.session.id()
            {
                plan.then(Effect::MarkRereading {
                    session: sid.to_owned(),
                });
            }
        } else if let Some(files) = &f.reread {
            let reason = deny_reason(&super::reread_or_generic(files));
            let out = json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            });
            plan.stdout = format!("{out}\n");
            plan.record(Outcome::Denied {
                tool: tool.unwrap_or("?").to_owned(),
                reason,
            });
            // A call held back runs nothing and edits nothing: it takes no baseline
            // and marks no edit (the retry does, when it runs). Otherwise a commit
            // another shell makes before the session ends would count as the
            // session's, and set the learn flag.
            edit.baseline = Baseline::Keep;
            edit.command_call = None;
            edit.files_edited = false;
            plan.bridge = (f.session.id.is_some() && !edit.is_empty()).then_some(edit);
            return plan;
        }
        // A tool is running, so the session is busy again (after a permission prompt).
        let waiting = f
            .session
            .bridge
            .as_ref()
            .and_then(|b| b.attention)
            .is_some_and(|a| a != Attention::Busy);
        if waiting && f.session.id.is_some() {
            plan.record(Outcome::AttentionSet {
                state: Attention::Busy.as_str().to_owned(),
            });
            edit.touch = Some(Touch::new(
                "PreToolUse",
                Some(Attention::Busy),
                None,
                payload,
                now,
                f.session.client_pid,
            ));
        }
    }
    plan.bridge = (f.session.id.is_some() && !edit.is_empty()).then_some(edit);
    plan
}

/// `forge run`'s stop (only reached when it was asked): `continue: false`, so the
/// client ends the session once this reply's tool calls have all run and been
/// answered, without interrupting anything.
pub(crate) fn post_tool_use(payload: &WireHookInput) -> Plan {
    let mut plan = Plan::default();
    plan.record(Outcome::RelayStopAsked {
        tool: payload.tool_name.as_deref().unwrap_or("tool").to_owned(),
    });
    let out = json!({
        "continue": false,
        "stopReason": "forge run: the context reached the relay threshold; the task goes on in a fresh session",
    });
    plan.stdout = format!("{out}\n");
    plan
}

/// Why PreToolUse holds a call back; the client shows it after
/// `PreToolUse:<Tool> hook error: ` (docs/client-reference.md §9.1 #9).
fn deny_reason(files_to_read: &[String]) -> String {
    format!(
        "forge held this call back once because the context was just compacted. \
         Re-read {} first (reading is never held back), then make the call again.",
        files_to_read.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> chrono::DateTime<chrono::Utc> {
        crate::model::time::parse_iso("2026-11-21T10:00:00Z").unwrap()
    }

    fn payload(tool: &str) -> WireHookInput {
        WireHookInput {
            session_id: Some("s1".into()),
            tool_name: Some(tool.into()),
            ..WireHookInput::default()
        }
    }

    fn facts(attention: Option<Attention>) -> ToolFacts {
        ToolFacts {
            session: Session {
                id: Some("s1".into()),
                bridge: Some(SessionBridge {
                    attention,
                    ..SessionBridge::default()
                }),
                client_pid: None,
            },
            ..ToolFacts::default()
        }
    }

    #[test]
    fn a_busy_session_writes_nothing_and_a_waiting_one_is_busy_again() {
        let plan = pre_tool_use(&facts(Some(Attention::Busy)), &payload("Bash"), now());
        assert_eq!(plan, Plan::default());
        let plan = pre_tool_use(
            &facts(Some(Attention::WaitingPermission)),
            &payload("Bash"),
            now(),
        );
        assert_eq!(
            plan.recorded().collect::<Vec<_>>(),
            [&Outcome::AttentionSet {
                state: "busy".into()
            }]
        );
        assert!(plan.bridge.unwrap().touch.is_some());
    }

    #[test]
    fn the_first_other_tool_after_a_compaction_is_held_back_and_reading_is_not() {
        let mut f = facts(Some(Attention::WaitingInput));
        f.reread = Some(vec!["src/lib.rs".into()]);
        f.baseline = Some("fp".into());
        let plan = pre_tool_use(&f, &payload("Bash"), now());
        assert!(plan.stdout.contains("\"permissionDecision\":\"deny\""));
        assert!(plan.stdout.contains("Re-read src/lib.rs first"));
        // Held back: not busy, and it ran nothing: no baseline (the retry takes it),
        // so a commit in another shell before the session ends is not the session's.
        assert_eq!(plan.bridge, None);
        let mut edit_call = f.clone();
        edit_call.edits_project = true;
        let plan = pre_tool_use(&edit_call, &payload("Edit"), now());
        assert!(plan.stdout.contains("\"permissionDecision\":\"deny\""));
        assert_eq!(plan.bridge, None, "a held-back edit edited nothing");

        let mut f = facts(Some(Attention::Busy));
        f.marker_armed = true;
        let plan = pre_tool_use(&f, &payload("Read"), now());
        assert_eq!(
            plan.effects,
            [Effect::MarkRereading {
                session: "s1".into()
            }]
        );
        assert!(takes_marker(&payload("Edit")));
        assert!(!takes_marker(&payload("Grep")));
        let mut sub = payload("Edit");
        sub.agent_id = Some("a1".into());
        assert!(!takes_marker(&sub), "a subagent's call leaves the marker");
    }

    #[test]
    fn edits_and_baselines_are_looked_at_once() {
        let done = SessionBridge {
            files_edited: true,
            command_baseline: Some("fp".into()),
            ..SessionBridge::default()
        };
        assert!(may_mark_edit(&payload("Write"), None));
        assert!(!may_mark_edit(&payload("Write"), Some(&done)));
        assert!(!may_mark_edit(&payload("Read"), None));
        assert!(needs_baseline(&payload("Bash"), None));
        assert!(!needs_baseline(&payload("Bash"), Some(&done)));
        assert!(!needs_baseline(&payload("Edit"), None));
    }
}
