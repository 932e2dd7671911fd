//! Wake messages: after a hook event, the `[notify]` command of the user's config
//! hears about it (see [`crate::model::agents::notify`]). Async: started detached, the hook
//! returns at once. Bidirectional (Stop only): the reply may keep the session
//! working, never when the turn already continues because of a Stop hook.

use serde_json::{Value, json};

use super::call::Call;
use super::event::HookEvent;
use crate::model::agents::notify::{
    BlockedOn, Facts, NotifyEvent, NotifyMode, block_reason, message,
};
use crate::model::outcome::Outcome;
use crate::model::session::level::Level;

/// How long a Stop's wake message waits for the turn's reply to reach the
/// transcript (seen with 2.1.330: written some tens of milliseconds after the Stop
/// hook starts).
const REPLY_WAIT: std::time::Duration = std::time::Duration::from_millis(800);

/// The message an event sends, if any. A permission prompt is told once, at
/// PermissionRequest (the `permission_prompt` Notification follows it ~6 s later).
fn notify_event(event: &HookEvent) -> Option<NotifyEvent> {
    match event {
        HookEvent::Stop { .. } => Some(NotifyEvent::Stop),
        HookEvent::Notification { kind, .. } => match kind.as_deref() {
            Some("idle_prompt" | "agent_needs_input") => Some(NotifyEvent::Idle),
            _ => None,
        },
        HookEvent::PermissionRequest { .. } => Some(NotifyEvent::Permission),
        HookEvent::SessionEnd { .. } => Some(NotifyEvent::SessionEnd),
        HookEvent::PreCompact { .. } => Some(NotifyEvent::PreCompact),
        HookEvent::SessionStart { .. } => Some(NotifyEvent::SessionStart),
        _ => None,
    }
}

/// The context a wake message states, and whether it is an estimate, with what
/// needs saying about it. The transcript's end is the truth as of the last reply
/// (at Stop, this turn's figure, which the status line may not have reported
/// yet; after a compaction, its estimate), the bridge's reading the fallback.
/// PreCompact's figure is the one that led to the compaction; SessionStart after
/// a compaction has no reading yet (the client writes the compaction's record
/// after that hook), so it says so rather than repeat the old figure.
fn context(
    call: &Call,
    event: &HookEvent,
    bridge: Option<&crate::model::session::state::SessionBridge>,
) -> (Option<f64>, bool, Option<&'static str>) {
    if matches!(event, HookEvent::Stop { .. }) {
        wait_for_reply(call);
    }
    let scanned = super::gather::transcript_path(call, bridge).and_then(|p| {
        crate::model::hook::turn::transcript_context(
            &crate::store::transcript::tail_context(std::path::Path::new(&p)),
            bridge.and_then(|b| b.context_window_size),
            call.wire.model.as_deref(),
        )
    });
    let reading = || bridge.and_then(crate::model::session::state::SessionBridge::context_pct);
    match event {
        HookEvent::PreCompact { .. } => (
            scanned.map(|c| c.pct).or_else(reading),
            false,
            Some("before the compaction"),
        ),
        HookEvent::SessionStart { source } if source.as_deref() == Some("compact") => {
            match scanned.filter(|c| c.estimate) {
                Some(c) => (Some(c.pct), true, Some("estimate after the compaction")),
                None => (None, false, Some("just compacted: the next reply tells")),
            }
        }
        _ => match scanned {
            Some(c) if c.estimate => (Some(c.pct), true, Some("estimate after the compaction")),
            Some(c) => (Some(c.pct), false, None),
            None => (reading(), false, None),
        },
    }
}

/// At Stop, waits (at most [`REPLY_WAIT`]) until the transcript holds this
/// turn's reply: the client writes it asynchronously, and without it the figure
/// read would be the turn before's (or none at the first Stop). Only a Stop that
/// sends a wake message waits.
fn wait_for_reply(call: &Call) {
    let Some(path) = call.wire.transcript_path.as_deref() else {
        return;
    };
    let (head, prompt) = (
        call.wire.last_reply_head.as_deref(),
        call.wire.prompt_id.as_deref(),
    );
    if head.is_none() && prompt.is_none() {
        return;
    }
    let deadline = crate::env::deadline_after(REPLY_WAIT);
    while !crate::store::transcript::reply_written(std::path::Path::new(path), head, prompt)
        && !crate::env::time_left(deadline).is_zero()
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The unresolved blocked Signals of the repository's inbox that `agent` wrote (it
/// waits for their answers), newest first; none for an ended session or an unknown
/// agent.
fn blocked_on(call: &Call, agent: Option<&str>, kind: NotifyEvent) -> Vec<BlockedOn> {
    let Some(agent) = agent.map(str::trim).filter(|a| !a.is_empty()) else {
        return Vec::new();
    };
    if kind == NotifyEvent::SessionEnd {
        return Vec::new();
    }
    crate::store::handoffs::repository(&call.paths)
        .iter()
        .filter(|h| h.is_blocked())
        .filter_map(|h| {
            let s = h
                .signal
                .as_ref()
                .and_then(crate::model::handoff::signal::SignalParse::signal)?;
            s.from
                .trim()
                .eq_ignore_ascii_case(agent)
                .then(|| BlockedOn {
                    to: s.to.clone(),
                    task: s.task_id.clone(),
                    questions: s.open_questions.clone(),
                    file: h.place(&call.paths.root),
                })
        })
        .collect()
}

/// Sends the wake message for `event` when `[notify]` asks for it; returns the
/// hook's stdout (for a bidirectional Stop, with the orchestrator's block).
/// `bridge` is the session's bridge as this call left it.
pub(super) fn send(
    call: &Call,
    event: &HookEvent,
    out: String,
    bridge: Option<&crate::model::session::state::SessionBridge>,
) -> String {
    let cfg = &call.config;
    let n = &cfg.notify;
    if n.command.is_empty() {
        return out;
    }
    let Some(kind) = notify_event(event) else {
        return out;
    };
    if !n.events.contains(&kind) {
        return out;
    }
    let continuing = matches!(
        event,
        HookEvent::Stop {
            stop_hook_active: true
        }
    );
    // Forge's own block (the re-read failsafe) goes first: no second one.
    let already_blocks = out.contains("\"decision\"");
    let wait = n.mode == NotifyMode::Bidirectional
        && kind == NotifyEvent::Stop
        && !continuing
        && !already_blocks;
    let (pct, estimate, pct_note) = context(call, event, bridge);
    let (tmux, pane) = crate::app::notify::pane(call.env, n.pane_capture_lines);
    // Who the session runs as, fixed at its start (its bridge), never asked of tmux
    // now: after `kill-session` the pane is gone and tmux would name another.
    let agent = bridge
        .and_then(|b| b.agent.clone())
        .or_else(|| call.env.agent_name());
    let facts = Facts {
        blocked: blocked_on(call, agent.as_deref(), kind),
        tmux_socket: call
            .env
            .tmux_place()
            .1
            .or_else(|| bridge.and_then(|b| b.tmux_socket.clone())),
        agent,
        tmux,
        session_id: call.session_id().map(str::to_owned),
        cwd: call.paths.root.display().to_string(),
        pct,
        level: pct.map(|p| Level::from_pct(p, &cfg.context.thresholds())),
        estimate,
        pct_note,
        pane,
        replies: wait,
        headless: call.env.headless(),
    };
    let text = message(kind, &facts);
    let named = |o: Outcome| match o {
        Outcome::Notified { mode, .. } => Outcome::Notified {
            event: kind.name().to_owned(),
            mode,
        },
        other => other,
    };
    if !wait {
        call.record(named(crate::app::notify::send_async(
            call.env,
            n,
            &text,
            &call.paths.root,
            facts.agent.as_deref(),
        )));
        return out;
    }
    let (outcome, reply) = crate::app::notify::send_and_wait(
        call.env,
        n,
        &text,
        &call.paths.root,
        facts.agent.as_deref(),
    );
    call.record(named(outcome));
    let Some(reason) = reply.as_deref().and_then(block_reason) else {
        return out;
    };
    let mut obj = serde_json::from_str::<Value>(out.trim())
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    obj.insert("decision".into(), json!("block"));
    obj.insert("reason".into(), json!(reason));
    call.record(Outcome::StopBlocked { reason });
    format!("{}\n", Value::Object(obj))
}
