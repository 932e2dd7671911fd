//! The one picture of a project's state that every face draws.
//!
//! `crate::app::snapshot::load` builds it from `.forge/` (and git); the dashboard
//! renders it, `forge status --json` prints it, SessionStart summarises it.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::model::handoff::entry::HandoffEntry;
use crate::model::session::state::{
    EventLine, GitCache, LastSession, PreCompactState, SessionBridge, WorkflowState,
};
use crate::model::time::{believable, heard_within};

/// Flag files and markers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Flags {
    /// `logs/learn-pending` exists.
    pub(crate) learn_pending: bool,
    /// `logs/context-threshold-triggered` exists.
    pub(crate) threshold_fired: bool,
    /// The sessions listed in that flag.
    pub(crate) threshold_sessions: Vec<String>,
    /// Where `.forge/pending-resume` points.
    pub(crate) pending_resume: Option<PathBuf>,
    /// Sessions with an unconsumed compaction marker.
    pub(crate) compaction_markers: Vec<String>,
}

/// Everything forge knows about one project at one moment.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Snapshot {
    /// The project root.
    pub(crate) root: PathBuf,
    /// When this snapshot was taken (serialised to the second, like every state file).
    #[serde(serialize_with = "iso_seconds")]
    pub(crate) taken_at: DateTime<Utc>,
    /// `logs/last-session.json`.
    pub(crate) last_session: Option<LastSession>,
    /// `logs/pre-compact-state.json`.
    pub(crate) pre_compact: Option<PreCompactState>,
    /// Number of lines in `logs/compactions.jsonl` (current file only).
    pub(crate) compactions: usize,
    /// Those lines by session id: the compactions forge recorded for each session
    /// (one per compaction the transcript proves, however often PreCompact ran).
    pub(crate) compactions_by_session: std::collections::BTreeMap<String, usize>,
    /// `state.json` phase and task.
    pub(crate) workflow: WorkflowState,
    /// Git facts (from the hooks' cache, or computed when asked).
    pub(crate) git: Option<GitCache>,
    /// Flags and markers.
    pub(crate) flags: Flags,
    /// Session bridges, most recently updated first.
    pub(crate) sessions: Vec<SessionBridge>,
    /// Handoffs, newest first.
    pub(crate) handoffs: Vec<HandoffEntry>,
    /// The last few `events.jsonl` lines, oldest first.
    pub(crate) recent_events: Vec<EventLine>,
    /// `forge run` chains (`logs/chains/`), newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) chains: Vec<crate::model::agents::relay::Chain>,
}

fn iso_seconds<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::model::time::iso(*t))
}

impl Snapshot {
    /// An empty snapshot of `root` (no `.forge/` yet).
    pub(crate) fn empty(root: PathBuf, taken_at: DateTime<Utc>) -> Self {
        Self {
            root,
            taken_at,
            last_session: None,
            pre_compact: None,
            compactions: 0,
            compactions_by_session: std::collections::BTreeMap::new(),
            workflow: WorkflowState::default(),
            git: None,
            flags: Flags::default(),
            sessions: Vec::new(),
            handoffs: Vec::new(),
            recent_events: Vec::new(),
            chains: Vec::new(),
        }
    }

    /// The chain a handoff belongs to (its path is one of the chain's handoffs), and
    /// which of them it is (1-based).
    pub(crate) fn chain_of(
        &self,
        handoff: &std::path::Path,
    ) -> Option<(&crate::model::agents::relay::Chain, usize)> {
        self.chains.iter().find_map(|c| {
            c.handoffs()
                .position(|h| std::path::Path::new(h) == handoff)
                .map(|i| (c, i + 1))
        })
    }

    /// Unresolved blocked agent Signals (blocking, and no newer Signal of their task
    /// supersedes them), newest first.
    pub(crate) fn blocked(&self) -> impl Iterator<Item = &HandoffEntry> {
        self.handoffs.iter().filter(|h| h.is_blocked())
    }

    /// The session the context figures are about: the most recently heard of live
    /// one (not ended, heard from within `stale_after` of `now`), else the most
    /// recently heard of any. `forge status` and the dashboard's gauge (unless
    /// pinned with `s`) follow it.
    pub(crate) fn current_session(
        &self,
        now: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Option<&SessionBridge> {
        current_of(&self.sessions, now, stale_after)
    }

    /// The live sessions, the most recently heard of first (the order `s` steps
    /// through in the dashboard).
    pub(crate) fn live_sessions(
        &self,
        now: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Vec<&SessionBridge> {
        let mut list = self.attention(now, stale_after);
        list.sort_by_key(|b| std::cmp::Reverse(last_heard(b)));
        list
    }

    /// The compactions forge recorded for a session.
    pub(crate) fn compactions_of(&self, session_id: &str) -> usize {
        self.compactions_by_session
            .get(session_id)
            .copied()
            .unwrap_or(0)
    }

    /// The live sessions, most urgent first (waiting for permission, then for
    /// input, then busy; the most recent first within each). An ended session
    /// leaves the list, and so does one silent for longer than `stale_after`
    /// at `now` (its client was killed, or it was left for the day).
    pub(crate) fn attention(
        &self,
        now: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Vec<&SessionBridge> {
        let mut list: Vec<&SessionBridge> = self
            .sessions
            .iter()
            .filter(|s| is_live(s, now, stale_after))
            .collect();
        list.sort_by(|a, b| {
            // Reported by the status line alone: as busy.
            let rank = |s: &SessionBridge| {
                s.attention
                    .unwrap_or(crate::model::session::state::Attention::Busy)
                    .urgency()
            };
            rank(a)
                .cmp(&rank(b))
                .then_with(|| last_heard(b).cmp(&last_heard(a)))
        });
        list
    }

    /// Of [`Snapshot::attention`], the sessions waiting for a person.
    pub(crate) fn waiting(
        &self,
        now: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Vec<&SessionBridge> {
        self.attention(now, stale_after)
            .into_iter()
            .filter(|s| {
                s.attention
                    .is_some_and(crate::model::session::state::Attention::needs_attention)
            })
            .collect()
    }

    /// The bridge of the session `last-session.json` records, when that session is
    /// still live at `now` (see [`live_last_session`]): then the record is of its last
    /// turn, not of an end, and every face says so.
    pub(crate) fn last_session_live(
        &self,
        now: DateTime<Utc>,
        stale_after: chrono::Duration,
    ) -> Option<&SessionBridge> {
        let last = self.last_session.as_ref()?;
        let id = last.session_id.as_deref()?;
        live_last_session(
            last,
            self.sessions.iter().find(|s| s.session_id == id),
            now,
            stale_after,
        )
    }

    /// The branch now, from git facts.
    pub(crate) fn branch(&self) -> Option<&str> {
        self.git.as_ref().and_then(|g| g.branch.as_deref())
    }

    /// The uncommitted count now, from git facts.
    pub(crate) fn uncommitted(&self) -> Option<u64> {
        self.git.as_ref().map(|g| g.uncommitted_changes)
    }
}

/// Whether a session is live: something reported it — a hook event (its attention
/// state) or a status line reading — it has not ended, and it was last heard from
/// within `stale_after` of `now`. A time in the future (a file a repository shipped,
/// a wrong clock) is not believed: such a session is not live, so it cannot stay in
/// view for ever.
pub(crate) fn is_live(
    s: &SessionBridge,
    now: DateTime<Utc>,
    stale_after: chrono::Duration,
) -> bool {
    let reported = match s.attention {
        Some(crate::model::session::state::Attention::Ended) => false,
        Some(_) => true,
        None => !s.readings.is_empty(),
    };
    reported && last_heard(s).is_some_and(|t| heard_within(t, now, stale_after))
}

/// `bridge`, when it is the bridge of the session `last` records and that session is
/// still live: `last` was written at the end of a turn (Stop: not final) and the
/// session is live by [`is_live`] — the one rule of what is live. Then "Last session:
/// ended just now · not final" would be about the session running now: the faces say
/// it is live, with when its last turn ended, and keep "Last session" for one that
/// ended. A final record, or one whose session is not live (killed, or silent past
/// `stale_after`), is of an ended session.
pub(crate) fn live_last_session<'a>(
    last: &LastSession,
    bridge: Option<&'a SessionBridge>,
    now: DateTime<Utc>,
    stale_after: chrono::Duration,
) -> Option<&'a SessionBridge> {
    let id = last.session_id.as_deref().filter(|id| !id.is_empty())?;
    bridge.filter(|b| !last.is_final && b.session_id == id && is_live(b, now, stale_after))
}

/// [`Snapshot::current_session`] of a list of bridges.
pub(crate) fn current_of(
    sessions: &[SessionBridge],
    now: DateTime<Utc>,
    stale_after: chrono::Duration,
) -> Option<&SessionBridge> {
    let live = |s: &&SessionBridge| is_live(s, now, stale_after);
    // Ties (the same second) go to the lower id, so every face picks the same one;
    // a time in the future counts as none.
    let heard = |s: &SessionBridge| last_heard(s).filter(|t| believable(*t, now));
    let newest = |a: &&SessionBridge, b: &&SessionBridge| {
        heard(a)
            .cmp(&heard(b))
            .then_with(|| b.session_id.cmp(&a.session_id))
    };
    sessions
        .iter()
        .filter(live)
        .max_by(newest)
        .or_else(|| sessions.iter().max_by(newest))
}

/// The `compactions.jsonl` lines per session id (lines that do not parse, or name
/// no session, are not counted).
pub(crate) fn count_by_session(lines: &[&[u8]]) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for line in lines {
        if let Ok(r) =
            serde_json::from_slice::<crate::model::session::state::CompactionRecord>(line)
            && let Some(id) = r.session_id.filter(|s| !s.is_empty())
        {
            *out.entry(id).or_insert(0) += 1;
        }
    }
    out
}

/// When a session was last heard of: its last hook event, else its bridge's update.
pub(crate) fn last_heard(s: &SessionBridge) -> Option<DateTime<Utc>> {
    s.last_event_at
        .as_deref()
        .or(s.updated_at.as_deref())
        .and_then(crate::model::time::parse_iso)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn bridge(id: &str, at: &str, attention: Option<&str>) -> SessionBridge {
        serde_json::from_value(serde_json::json!({
            "session_id": id,
            "last_event_at": at,
            "attention": attention,
        }))
        .unwrap()
    }

    #[test]
    fn the_current_session_is_the_latest_live_one_and_ties_pick_the_same_every_time() {
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 12, 0, 0).unwrap();
        let stale = chrono::Duration::minutes(30);
        let a = bridge("aaaa", "2026-11-25T11:59:00Z", Some("busy"));
        let b = bridge("bbbb", "2026-11-25T11:59:00Z", Some("waiting:input"));
        let ended = bridge("cccc", "2026-11-25T11:59:59Z", Some("ended"));
        for list in [
            vec![a.clone(), b.clone(), ended.clone()],
            vec![ended.clone(), b.clone(), a.clone()],
        ] {
            let current = current_of(&list, now, stale).unwrap();
            assert_eq!(current.session_id, "aaaa", "in any order");
        }
        // Nothing live: the most recent of all.
        let old = bridge("dddd", "2026-11-25T10:00:00Z", Some("busy"));
        assert_eq!(
            current_of(&[old, ended], now, stale).unwrap().session_id,
            "cccc"
        );
        assert!(current_of(&[], now, stale).is_none());
        // A time in the future is not believed: never live, never the current one.
        let future = bridge("ffff", "2099-01-01T00:00:00Z", Some("waiting:permission"));
        assert!(!is_live(&future, now, stale));
        assert_eq!(
            current_of(&[future.clone(), a.clone()], now, stale)
                .unwrap()
                .session_id,
            "aaaa"
        );
        // Only an update time (a bridge `forge handoff --session` made): not live;
        // a status line reading alone: live.
        let ghost: SessionBridge = serde_json::from_value(serde_json::json!({
            "session_id": "gggg", "updated_at": "2026-11-25T11:59:30Z"
        }))
        .unwrap();
        assert!(!is_live(&ghost, now, stale));
        let mut line_only = ghost.clone();
        line_only
            .readings
            .push(crate::model::session::state::Reading {
                at: "2026-11-25T11:59:30Z".into(),
                tokens: None,
                pct: 40.0,
            });
        assert!(is_live(&line_only, now, stale));
        // The lines of compactions.jsonl per session.
        let lines: Vec<&[u8]> = vec![
            br#"{"compacted_at":"x","session_id":"aaaa"}"#,
            br#"{"compacted_at":"x","session_id":"aaaa"}"#,
            br#"{"compacted_at":"x"}"#,
            b"not json",
        ];
        let by = count_by_session(&lines);
        assert_eq!(by.get("aaaa"), Some(&2));
        assert_eq!(by.len(), 1);
    }
}
