//! Wake messages: after a hook event, the `[notify]` command of the user's config
//! hears about it (see [`crate::model::agents::notify`]). Async: started detached, the hook
//! returns at once. Bidirectional (Stop only): the reply may keep the session
//! working, never when the turn already continues because of a Stop hook.

use serde_json::{Value, json};

use super::dispatch::Ctx;
use super::event::HookEvent;
use crate::model::agents::notify::{Facts, NotifyEvent, NotifyMode, block_reason, message};
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

impl Ctx<'_> {
    /// The context a wake message states, and whether it is an estimate, with what
    /// needs saying about it. The transcript's end is the truth as of the last reply
    /// (at Stop, this turn's figure, which the status line may not have reported
    /// yet; after a compaction, its estimate), the bridge's reading the fallback.
    /// PreCompact's figure is the one that led to the compaction; SessionStart after
    /// a compaction has no reading yet (the client writes the compaction's record
    /// after that hook), so it says so rather than repeat the old figure.
    fn notify_context(
        &self,
        event: &HookEvent,
        bridge: Option<&crate::model::session::state::SessionBridge>,
    ) -> (Option<f64>, bool, Option<&'static str>) {
        if matches!(event, HookEvent::Stop { .. }) {
            self.wait_for_reply();
        }
        let scanned = self.transcript_context(bridge);
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
    fn wait_for_reply(&self) {
        let Some(path) = self.wire.transcript_path.as_deref() else {
            return;
        };
        let (head, prompt) = (
            self.wire.last_reply_head.as_deref(),
            self.wire.prompt_id.as_deref(),
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

    /// Sends the wake message for `event` when `[notify]` asks for it; returns the
    /// hook's stdout (for a bidirectional Stop, with the orchestrator's block).
    pub(super) fn notify(&self, event: &HookEvent, out: String) -> String {
        let cfg = self.config();
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
        let bridge = self
            .session_id()
            .and_then(|s| crate::store::files::read_bridge(&self.paths, s));
        let (pct, estimate, pct_note) = self.notify_context(event, bridge.as_ref());
        let (tmux, pane) = crate::app::notify::pane(self.env, n.pane_capture_lines);
        let facts = Facts {
            agent: self.env.agent_name(),
            tmux,
            session_id: self.session_id().map(str::to_owned),
            cwd: self.paths.root.display().to_string(),
            pct,
            level: pct.map(|p| Level::from_pct(p, &cfg.context.thresholds())),
            estimate,
            pct_note,
            pane,
            replies: wait,
            headless: self.env.headless(),
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
            self.record(named(crate::app::notify::send_async(
                self.env,
                n,
                &text,
                &self.paths.root,
                facts.agent.as_deref(),
            )));
            return out;
        }
        let (outcome, reply) = crate::app::notify::send_and_wait(
            self.env,
            n,
            &text,
            &self.paths.root,
            facts.agent.as_deref(),
        );
        self.record(named(outcome));
        let Some(reason) = reply.as_deref().and_then(block_reason) else {
            return out;
        };
        let mut obj = serde_json::from_str::<Value>(out.trim())
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        obj.insert("decision".into(), json!("block"));
        obj.insert("reason".into(), json!(reason));
        self.record(Outcome::StopBlocked { reason });
        format!("{}\n", Value::Object(obj))
    }
}
