//! The session bridge's change a hook call decides: a value, applied once to the
//! bridge as it is on disk under its lock (`crate::store::files::update_bridge`).
//!
//! A hook decides with the bridge it read at the start of the call, but others
//! write the same file meanwhile (the status line's readings, a parallel tool
//! call's hook), so the change is not a whole new bridge: it names the fields this
//! event owns, and the conditional ones ("the first baseline of the turn stays",
//! "the count at start is kept once set", "the transcript's figure only when the
//! status line gave none") are decided again on the bridge read under the lock —
//! as each of the separate writes did before they became this one.

use crate::model::session::dirty::{self, DirtyWarning};
use crate::model::session::state::{Attention, GitCache, Identity, SessionBridge};

/// The most of a notification's message a session bridge keeps (after redaction).
pub(crate) const ATTENTION_MESSAGE_MAX: usize = 200;

/// The change one hook call makes to its session's bridge.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BridgeEdit {
    /// The transcript's context figure (percent, tokens), kept only while the bridge
    /// has no reading of the status line's (print mode has no status line).
    pub(crate) context: Option<(f64, u64)>,
    /// Learning is done: edits forgotten, a running turn's baseline moved to this
    /// tree ([`crate::model::session::learn::rebase`]).
    pub(crate) rebase_learning: Option<Option<GitCache>>,
    /// An editing tool ran on a file of the project.
    pub(crate) files_edited: bool,
    /// The turn's command baseline.
    pub(crate) baseline: Baseline,
    /// A command (Bash) call's id, kept with the baseline (see
    /// [`SessionBridge::command_calls`]).
    pub(crate) command_call: Option<String>,
    /// The threshold handoff is re-armed: `threshold_crossed_at` goes.
    pub(crate) threshold_rearmed: bool,
    /// A handoff was written now (ISO 8601 UTC).
    pub(crate) handoff_written_at: Option<String>,
    /// The event itself: last event, attention, client process, transcript, cwd.
    pub(crate) touch: Option<Touch>,
    /// Stop's dirty-tree floor, decided again on the bridge under the lock.
    pub(crate) dirty: Option<(DirtyWarning, u64)>,
    /// SessionStart: the uncommitted count the session starts with, kept once set.
    pub(crate) dirty_at_start: Option<u64>,
    /// SessionStart: how many handoffs led to this session.
    pub(crate) chain_handoffs: Option<u64>,
    /// SessionStart: who the session runs as and its tmux pane; each value found
    /// replaces the one kept (a `--resume` runs in a new pane), none found keeps it.
    pub(crate) identity: Option<Identity>,
    /// SessionStart after a compaction: the reading before it is kept as
    /// `compacted_from`, so that reading crosses no threshold again.
    pub(crate) compacted: bool,
}

/// What becomes of the turn's command baseline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Baseline {
    /// Left as it is.
    #[default]
    Keep,
    /// The turn's first command: this fingerprint, unless a parallel call's is
    /// there already (the first of the turn stays).
    First(String),
    /// The turn is over: the next one's first command takes a new one.
    Clear,
}

/// A hook event recorded in the bridge.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Touch {
    /// The event's name.
    pub(crate) event: String,
    /// When (ISO 8601 UTC).
    pub(crate) at: String,
    /// The attention state it sets, with its message (redacted, cut).
    pub(crate) attention: Option<(Attention, Option<String>)>,
    /// The payload's transcript path, when it names one.
    pub(crate) transcript_path: Option<String>,
    /// The payload's cwd, when it names one.
    pub(crate) cwd: Option<String>,
    /// The Claude Code process running the hook (`$CLAUDE_PID`).
    pub(crate) client_pid: Option<u32>,
}

impl Touch {
    /// The touch of `event` with `attention` and its `message` — redacted whole,
    /// then cut to [`ATTENTION_MESSAGE_MAX`] characters (a cut first could leave half
    /// a key no rule knows). A message is kept only with an attention state.
    pub(crate) fn new(
        event: &str,
        attention: Option<Attention>,
        message: Option<&str>,
        payload: &super::wire::WireHookInput,
        now: chrono::DateTime<chrono::Utc>,
        client_pid: Option<u32>,
    ) -> Self {
        let message = message.map(|m| {
            let red = crate::model::text::redact::redact(m);
            crate::model::text::sanitize::cut_chars(&red, ATTENTION_MESSAGE_MAX)
        });
        Self {
            event: event.to_owned(),
            at: crate::model::time::iso(now),
            attention: attention.map(|a| (a, message)),
            transcript_path: payload.transcript_path.clone(),
            cwd: payload.cwd.clone(),
            client_pid,
        }
    }
}

impl BridgeEdit {
    /// An edit that only records the event.
    pub(crate) fn touch(touch: Touch) -> Self {
        Self {
            touch: Some(touch),
            ..Self::default()
        }
    }

    /// Whether it changes nothing at all (then the bridge is not written).
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Applies the change to `b` (the bridge as read under the lock); returns
    /// whether anything changed (a touch always does: it records the time).
    /// `start_time` reads a process's start time, asked only for a client process
    /// the bridge does not know yet (once per process: a `--resume` is a new one).
    pub(crate) fn apply(
        &self,
        b: &mut SessionBridge,
        start_time: impl Fn(u32) -> Option<u64>,
    ) -> bool {
        let mut changed = false;
        if let Some((pct, tokens)) = self.context
            && b.readings.is_empty()
            && (b.used_percentage, b.tokens) != (Some(pct), Some(tokens))
        {
            b.used_percentage = Some(pct);
            b.tokens = Some(tokens);
            changed = true;
        }
        if let Some(git) = &self.rebase_learning {
            changed |= crate::model::session::learn::rebase(b, git.as_ref());
        }
        if self.files_edited && !b.files_edited {
            b.files_edited = true;
            changed = true;
        }
        if let Baseline::First(fp) = &self.baseline
            && b.command_baseline.is_none()
        {
            b.command_baseline = Some(fp.clone());
            b.command_calls.clear();
            changed = true;
        }
        if let Some(id) = &self.command_call
            && b.command_baseline.is_some()
            && !b.command_calls.contains(id)
        {
            if b.command_calls.len() < crate::model::session::state::COMMAND_CALLS_MAX {
                b.command_calls.push(id.clone());
            } else {
                // Too many to follow: the turn counts as having run a command.
                b.command_calls.clear();
            }
            changed = true;
        }
        if self.threshold_rearmed {
            changed |= b.threshold_crossed_at.take().is_some();
        }
        if let Some(at) = &self.handoff_written_at {
            b.handoff_written_at = Some(at.clone());
            changed = true;
        }
        if let Some(t) = &self.touch {
            apply_touch(t, b, start_time);
            changed = true;
        }
        if let Some((mode, count)) = self.dirty {
            b.dirty_warned = dirty::decide(mode, count, b.dirty_at_start, b.dirty_warned).warned;
        }
        if self.baseline == Baseline::Clear {
            b.command_baseline = None;
            b.command_calls.clear();
        }
        if b.dirty_at_start.is_none() && self.dirty_at_start.is_some() {
            b.dirty_at_start = self.dirty_at_start;
        }
        if let Some(n) = self.chain_handoffs {
            b.chain_handoffs = Some(n);
        }
        if let Some(id) = &self.identity {
            for (field, value) in [
                (&mut b.agent, &id.agent),
                (&mut b.tmux_pane, &id.tmux_pane),
                (&mut b.tmux_socket, &id.tmux_socket),
            ] {
                if value.is_some() && field != value {
                    field.clone_from(value);
                    changed = true;
                }
            }
        }
        if self.compacted
            && let Some(r) = b.last_reading()
        {
            b.compacted_from = Some(r);
            changed = true;
        }
        changed
    }
}

fn apply_touch(t: &Touch, b: &mut SessionBridge, start_time: impl Fn(u32) -> Option<u64>) {
    b.last_event = Some(t.event.clone());
    b.last_event_at = Some(t.at.clone());
    // The client's process, for the views' liveness check.
    if let Some(pid) = t.client_pid
        && b.client_pid != Some(pid)
    {
        b.client_started = start_time(pid);
        b.client_pid = b.client_started.map(|_| pid);
    }
    if let Some((a, message)) = &t.attention {
        b.attention = Some(*a);
        b.attention_message.clone_from(message);
    }
    if t.transcript_path.is_some() {
        b.transcript_path.clone_from(&t.transcript_path);
    }
    if t.cwd.is_some() {
        b.cwd.clone_from(&t.cwd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::hook::wire::WireHookInput;
    use crate::model::session::state::Reading;

    fn now() -> chrono::DateTime<chrono::Utc> {
        crate::model::time::parse_iso("2026-11-21T10:00:00Z").unwrap()
    }

    #[test]
    fn conditional_fields_are_decided_again_on_the_bridge_under_the_lock() {
        let edit = BridgeEdit {
            context: Some((41.0, 82_000)),
            baseline: Baseline::First("new".into()),
            dirty_at_start: Some(3),
            ..BridgeEdit::default()
        };
        // What the hook read had none of them; what is on disk now has all three
        // (the status line's reading, a parallel call's baseline, the start's count).
        let mut b = SessionBridge {
            readings: vec![Reading {
                at: "2026-11-21T09:59:00Z".into(),
                tokens: Some(1),
                pct: 10.0,
            }],
            command_baseline: Some("first".into()),
            dirty_at_start: Some(0),
            ..SessionBridge::default()
        };
        assert!(!edit.apply(&mut b, |_| None), "nothing of it is news");
        assert_eq!(b.used_percentage, None);
        assert_eq!(b.command_baseline.as_deref(), Some("first"));
        assert_eq!(b.dirty_at_start, Some(0));
        // On a bridge without them, all three land.
        let mut b = SessionBridge::default();
        assert!(edit.apply(&mut b, |_| None));
        assert_eq!((b.used_percentage, b.tokens), (Some(41.0), Some(82_000)));
        assert_eq!(b.command_baseline.as_deref(), Some("new"));
        assert_eq!(b.dirty_at_start, Some(3));
    }

    #[test]
    fn a_touch_records_the_event_and_asks_a_new_client_once() {
        let payload = WireHookInput {
            transcript_path: Some("/t.jsonl".into()),
            ..WireHookInput::default()
        };
        let long = format!("token ghp_{} {}", "a".repeat(36), "x".repeat(300));
        let t = Touch::new(
            "Notification",
            Some(Attention::WaitingPermission),
            Some(&long),
            &payload,
            now(),
            Some(42),
        );
        let msg = t.attention.as_ref().and_then(|(_, m)| m.clone()).unwrap();
        assert!(!msg.contains("ghp_aaaa"), "{msg}");
        assert!(msg.chars().count() <= ATTENTION_MESSAGE_MAX);
        let edit = BridgeEdit::touch(t);
        let asked = std::cell::Cell::new(0);
        let start = |_| {
            asked.set(asked.get() + 1);
            Some(7)
        };
        let mut b = SessionBridge {
            cwd: Some("/kept".into()),
            ..SessionBridge::default()
        };
        assert!(edit.apply(&mut b, start));
        assert_eq!(b.last_event.as_deref(), Some("Notification"));
        assert_eq!(b.last_event_at.as_deref(), Some("2026-11-21T10:00:00Z"));
        assert_eq!(b.attention, Some(Attention::WaitingPermission));
        assert_eq!((b.client_pid, b.client_started), (Some(42), Some(7)));
        assert_eq!(b.transcript_path.as_deref(), Some("/t.jsonl"));
        assert_eq!(b.cwd.as_deref(), Some("/kept"), "no cwd in the payload");
        // The same process again: its start time is not read twice.
        assert!(edit.apply(&mut b, start));
        assert_eq!(asked.get(), 1);
    }

    #[test]
    fn the_end_of_a_turn_rebases_then_clears_the_baseline() {
        let edit = BridgeEdit {
            rebase_learning: Some(None),
            baseline: Baseline::Clear,
            dirty: Some((DirtyWarning::Grew, 4)),
            ..BridgeEdit::default()
        };
        let mut b = SessionBridge {
            files_edited: true,
            command_baseline: Some("x".into()),
            dirty_at_start: Some(2),
            ..SessionBridge::default()
        };
        assert!(edit.apply(&mut b, |_| None));
        assert!(!b.files_edited);
        assert_eq!(b.command_baseline, None);
        assert_eq!(
            b.dirty_warned,
            Some(4),
            "the floor rose to what was warned about"
        );
        assert!(BridgeEdit::default().is_empty());
        assert!(!edit.is_empty());
    }
}
