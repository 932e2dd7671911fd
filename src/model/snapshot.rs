//! The one picture of a project's state that every face draws.
//!
//! `crate::app::snapshot::load` builds it from `.forge/` (and git); the dashboard
//! renders it, `forge status --json` prints it, SessionStart summarises it.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::handoff::{HandoffEntry, HandoffKind};
use super::state::{
    EventLine, GitCache, LastSession, PreCompactState, SessionBridge, WorkflowState,
};

/// Flag files and markers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Flags {
    /// `logs/learn-pending` exists.
    pub learn_pending: bool,
    /// `logs/context-threshold-triggered` exists.
    pub threshold_fired: bool,
    /// The sessions listed in that flag.
    pub threshold_sessions: Vec<String>,
    /// Where `.forge/pending-resume` points.
    pub pending_resume: Option<PathBuf>,
    /// Sessions with an unconsumed compaction marker.
    pub compaction_markers: Vec<String>,
}

/// Everything forge knows about one project at one moment.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    /// The project root.
    pub root: PathBuf,
    /// When this snapshot was taken (serialised to the second, like every state file).
    #[serde(serialize_with = "iso_seconds")]
    pub taken_at: DateTime<Utc>,
    /// `logs/last-session.json`.
    pub last_session: Option<LastSession>,
    /// `logs/pre-compact-state.json`.
    pub pre_compact: Option<PreCompactState>,
    /// Number of lines in `logs/compactions.jsonl` (current file only).
    pub compactions: usize,
    /// `state.json` phase and task.
    pub workflow: WorkflowState,
    /// Git facts (from the hooks' cache, or computed when asked).
    pub git: Option<GitCache>,
    /// Flags and markers.
    pub flags: Flags,
    /// Session bridges, most recently updated first.
    pub sessions: Vec<SessionBridge>,
    /// Handoffs, newest first.
    pub handoffs: Vec<HandoffEntry>,
    /// The last few `events.jsonl` lines, oldest first.
    pub recent_events: Vec<EventLine>,
}

fn iso_seconds<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

impl Snapshot {
    /// An empty snapshot of `root` (no `.forge/` yet).
    pub fn empty(root: PathBuf, taken_at: DateTime<Utc>) -> Self {
        Self {
            root,
            taken_at,
            last_session: None,
            pre_compact: None,
            compactions: 0,
            workflow: WorkflowState::default(),
            git: None,
            flags: Flags::default(),
            sessions: Vec::new(),
            handoffs: Vec::new(),
            recent_events: Vec::new(),
        }
    }

    /// Unresolved blocked agent Signals (blocking, and no newer Signal of their task
    /// supersedes them), newest first.
    pub fn blocked(&self) -> impl Iterator<Item = &HandoffEntry> {
        self.handoffs.iter().filter(|h| h.is_blocked())
    }

    /// The newest session handoff.
    pub fn newest_session_handoff(&self) -> Option<&HandoffEntry> {
        self.handoffs
            .iter()
            .find(|h| h.kind == HandoffKind::Session)
    }

    /// The most recently updated session (the "current" one for the gauge).
    pub fn current_session(&self) -> Option<&SessionBridge> {
        self.sessions.first()
    }

    /// Sessions waiting for permission or input, or ended.
    pub fn needing_attention(&self) -> Vec<&SessionBridge> {
        self.sessions
            .iter()
            .filter(|s| {
                s.attention
                    .is_some_and(super::state::Attention::needs_attention)
            })
            .collect()
    }

    /// The branch now, from git facts.
    pub fn branch(&self) -> Option<&str> {
        self.git.as_ref().and_then(|g| g.branch.as_deref())
    }

    /// The uncommitted count now, from git facts.
    pub fn uncommitted(&self) -> Option<u64> {
        self.git.as_ref().map(|g| g.uncommitted_changes)
    }
}
