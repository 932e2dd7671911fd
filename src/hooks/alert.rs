//! Alerts to the person after a hook event (`[alerts]`, from the user's own
//! config only; docs/alerts.md): which reason the event is
//! ([`crate::model::agents::alert::reason_of`]), and the send
//! ([`crate::app::alert::send`]: debounced, never for the pane in view, every
//! child deadline-bound). A new turn or tool call forgets the session's debounce:
//! what it asks next is news.

use super::call::Call;
use super::event::HookEvent;
use crate::app::alert::{Pane, Reach, forget, send};
use crate::model::agents::alert::{Who, reason_of};
use crate::model::session::state::SessionBridge;

/// Sends the event's alert, if it has one, and records what came of it.
pub(super) fn after(call: &Call, event: &HookEvent, bridge: Option<&SessionBridge>) {
    let wire = call.wire;
    if matches!(event, HookEvent::UserPromptSubmit | HookEvent::PreToolUse)
        && let Some(sid) = wire.session_id.as_deref()
        && call.paths.alerts_sent().exists()
    {
        forget(&call.paths, sid);
    }
    let cfg = &call.config.alerts;
    let Some(reason) = reason_of(
        event,
        wire.notification_type.as_deref(),
        wire.tool_name.as_deref(),
    )
    .filter(|r| cfg.on.contains(r)) else {
        return;
    };
    // A `forge run` session or `claude -p` has no one at a prompt to answer.
    if call.env.relay_stop.is_some() || call.env.claude_entrypoint.as_deref() == Some("sdk-cli") {
        return;
    }
    let (env_pane, env_socket) = call.env.tmux_place();
    let who = Who {
        project: call
            .paths
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        agent: bridge
            .and_then(|b| b.agent.clone())
            .or_else(|| call.env.forge_agent.clone()),
        session: wire.session_id.clone(),
        pane: bridge
            .and_then(|b| b.tmux_pane.clone())
            .or(env_pane.clone()),
    };
    let pane = Pane {
        id: who.pane.clone(),
        socket: bridge.and_then(|b| b.tmux_socket.clone()).or(env_socket),
        // A hook writes a terminal alert to the client's terminal only.
        reach: Reach::Client,
    };
    let detail = match event {
        HookEvent::Notification { .. } => wire.message.as_deref(),
        _ => wire.tool_name.as_deref(),
    };
    if let Some(outcome) = send(&call.paths, call.env, cfg, reason, &who, &pane, detail) {
        call.record(outcome);
    }
}
