//! The learn flag's lifecycle. `logs/learn-pending` is set at Stop/SessionEnd by a
//! session that changed files — its own edits, or commands it ran that changed the
//! tree ([`crate::model::session::learn`]) — and
//! cleared by `forge learn done` (which /forge-learn runs last) or by a
//! `learned-*.md` newer than the flag. Clearing forgets every live session's edits
//! and moves a running turn's command baseline to now, so what was learned is not
//! asked for again.

use std::io;
use std::path::{Path, PathBuf};

use crate::env::Env;
use crate::model::session::state::Attention;
use crate::store::{self, Paths, files, memory};

/// The project's memory folder: `<claude dir>/projects/<name>/memory`.
pub(crate) fn memory_dir(paths: &Paths, env: &Env) -> Option<PathBuf> {
    memory::memory_dir(paths, env)
}

/// The `learned-*.md` files of a memory folder, sorted by name.
pub(crate) fn learned_files(dir: &Path) -> Vec<PathBuf> {
    memory::learned_files(dir)
}

/// Lines in a text file, `None` when it is missing.
pub(crate) fn line_count(path: &Path) -> Option<usize> {
    store::read_text_follow(path).map(|t| t.lines().count())
}

/// Whether a `learned-*.md` of the project's memory folder was written after the
/// flag was set: the learning the flag asks for happened.
pub(crate) fn learned_after_flag(paths: &Paths, env: &Env) -> bool {
    let Some(flag) = memory::flag_time(&paths.learn_pending()) else {
        return false;
    };
    memory::memory_dir(paths, env)
        .and_then(|d| memory::newest_learned(&d))
        .is_some_and(|t| t > flag)
}

/// Learning is done for what a session changed so far (pure: see
/// [`crate::model::session::learn::rebase`]).
pub(crate) use crate::model::session::learn::rebase;

/// What `forge learn done` did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Done {
    /// The flag was set and is now removed.
    pub(crate) cleared: bool,
    /// Live sessions whose baseline moved to now.
    pub(crate) sessions: usize,
}

/// Learning is done: clears the flag and rebases every session that has not ended.
pub(crate) fn done(paths: &Paths, env: &Env) -> io::Result<Done> {
    let cleared = store::remove_if_exists(&paths.learn_pending())?;
    let git = crate::git::refresh_cache(paths, env.now);
    let mut sessions = 0;
    for b in store::sessions::load_sessions(paths) {
        if b.attention == Some(Attention::Ended) {
            continue;
        }
        files::update_bridge(paths, &b.session_id, env.now, |b| rebase(b, git.as_ref()))?;
        sessions += 1;
    }
    Ok(Done { cleared, sessions })
}
