//! Handoff retention: `forge handoff prune` and, with `[handoffs] auto_prune`, each
//! new session. Never an unresolved blocked Signal, never the pending resume.

use std::io;
use std::path::PathBuf;

use crate::env::Env;
use crate::model::handoff::entry::{KeptBecause, prune_plan};
use crate::store::{self, Paths, files, handoffs};

/// What a prune removed (or, dry, would remove) and kept.
#[derive(Debug, Default)]
pub(crate) struct Pruned {
    /// Removed (or to remove), newest first, with their creation time.
    pub(crate) removed: Vec<(PathBuf, Option<chrono::DateTime<chrono::Utc>>)>,
    /// Old enough, but kept, and why.
    pub(crate) kept: Vec<(PathBuf, KeptBecause)>,
    /// Files that could not be removed.
    pub(crate) errors: Vec<(PathBuf, io::Error)>,
}

/// Prunes the project's handoffs older than `older_than` beyond the newest `keep`.
/// With `dry_run` nothing is removed. Only the project's own folder is pruned, but
/// its Signals' threads are the repository's inbox's (`store::inbox`): a Signal here
/// is unresolved or not across every work tree, and one that resolves a blocked
/// Signal kept in another work tree's folder stays.
pub(crate) fn prune(
    paths: &Paths,
    env: &Env,
    older_than: chrono::Duration,
    keep: usize,
    dry_run: bool,
) -> Pruned {
    let own = paths.handoffs();
    let (entries, elsewhere): (Vec<_>, Vec<_>) = handoffs::repository(paths)
        .into_iter()
        .partition(|h| h.path.parent() == Some(own.as_path()));
    // The Signals here that answer a blocked one of another work tree's folder.
    let answers: Vec<&str> = elsewhere
        .iter()
        .filter(|h| h.signal_blocks())
        .filter_map(|h| h.superseded_by.as_deref())
        .collect();
    let pending = files::pending_resume(paths, env).map(|(_, t)| t);
    let pending: Vec<&std::path::Path> = pending.iter().map(PathBuf::as_path).collect();
    let mut plan = prune_plan(&entries, env.now, older_than, keep, &pending);
    let (answering, remove): (Vec<_>, Vec<_>) = std::mem::take(&mut plan.remove)
        .into_iter()
        .partition(|h| answers.contains(&h.file_name.as_str()));
    plan.remove = remove;
    plan.kept
        .extend(answering.into_iter().map(|h| (h, KeptBecause::Answers)));
    let mut out = Pruned {
        kept: plan
            .kept
            .iter()
            .map(|(h, why)| (h.path.clone(), *why))
            .collect(),
        ..Pruned::default()
    };
    for h in plan.remove {
        if !dry_run && let Err(e) = store::remove_if_exists(&h.path) {
            out.errors.push((h.path.clone(), e));
            continue;
        }
        out.removed.push((h.path.clone(), h.created));
    }
    out
}
