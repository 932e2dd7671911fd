//! Builds the [`Snapshot`] from a project's `.forge/` folder and git — in one place,
//! for the dashboard, `forge status` and SessionStart alike.

use chrono::{DateTime, Utc};

use crate::model::session::state::EventLine;
use crate::model::snapshot::Flags;
use crate::model::snapshot::Snapshot;
use crate::store::{self, Paths, files, handoffs, read_capped, sessions};

/// How many recent event lines are kept (for the dashboard's activity view).
const RECENT_EVENTS: usize = 100;
/// The most of `events.jsonl` read for them (from its end).
const RECENT_EVENTS_BYTES: u64 = 128 * 1024;

/// Where the snapshot's git facts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GitSource {
    /// Only the hooks' cache (`logs/git-cache.json`): no git work at all.
    Cache,
    /// Compute them now with git2 (and refresh the cache).
    Live,
}

/// Reads everything forge knows about the project at `paths`.
pub(crate) fn load(paths: &Paths, now: DateTime<Utc>, git: GitSource) -> Snapshot {
    let mut snap = load_state(paths, now, git);
    snap.handoffs = handoffs::repository(paths);
    snap
}

/// [`load`] for the dashboard: its handoffs as the inbox keeps them
/// ([`crate::model::handoff::entry::HandoffEntry::for_inbox`]), so thousands of them stay small.
pub(crate) fn load_for_inbox(paths: &Paths, now: DateTime<Utc>, git: GitSource) -> Snapshot {
    let mut snap = load_state(paths, now, git);
    snap.handoffs = handoffs::repository_for_inbox(paths);
    snap
}

/// Reads everything but the handoff folder (whose listing is the costly part): for
/// the dashboard, when only state files changed.
pub(crate) fn load_state(paths: &Paths, now: DateTime<Utc>, git: GitSource) -> Snapshot {
    let mut snap = load_files(paths, now, Some(git));
    snap.sessions = sessions::load_sessions(paths);
    snap.chains = store::chains::list(paths);
    snap.recent_events = store::tail_lines(&paths.events(), RECENT_EVENTS, RECENT_EVENTS_BYTES)
        .iter()
        .filter_map(|l| serde_json::from_str::<EventLine>(l).ok())
        .collect();
    snap
}

/// The state files, flags and git facts (none without a `git` source): everything but
/// the handoffs, the session bridges and the event log.
fn load_files(paths: &Paths, now: DateTime<Utc>, git: Option<GitSource>) -> Snapshot {
    let mut snap = Snapshot::empty(paths.root.clone(), now);
    snap.last_session = files::read_last_session(paths);
    snap.pre_compact = files::read_pre_compact(paths);
    (snap.compactions, snap.compactions_by_session) = compactions(paths);
    snap.workflow = files::read_workflow(paths);
    snap.git = match git {
        Some(GitSource::Cache) => files::read_git_cache(paths),
        Some(GitSource::Live) => crate::git::refresh_cache(paths, now),
        None => None,
    };
    snap.flags = Flags {
        learn_pending: store::safe::is_regular(&paths.learn_pending()),
        threshold_fired: store::safe::is_regular(&paths.threshold_flag()),
        threshold_sessions: files::threshold_sessions(paths),
        // Only a marker SessionStart would honour (a handoff of this project).
        pending_resume: files::read_marker(&paths.pending_resume())
            .and_then(|m| files::resume_target(paths, &m)),
        compaction_markers: sessions::compaction_markers(paths),
    };
    snap
}

/// The lines of `logs/compactions.jsonl` (current file, capped), and those lines
/// by session: the one compaction count `status`, `context`, `sessions` and the
/// dashboard report.
pub(crate) fn compactions(paths: &Paths) -> (usize, std::collections::BTreeMap<String, usize>) {
    let text = read_capped(&paths.compactions(), store::COMPACTIONS_CAP * 2);
    let lines: Vec<&[u8]> = text
        .as_deref()
        .unwrap_or_default()
        .split(|c| *c == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    (
        lines.len(),
        crate::model::snapshot::count_by_session(&lines),
    )
}
