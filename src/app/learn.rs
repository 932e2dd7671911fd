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

/// What `forge learn status` shows.
#[derive(Debug)]
pub(crate) struct Status {
    /// Whether learning is pending: the flag is set and no `learned-*.md` is newer.
    pub(crate) pending: bool,
    /// Whether the memory folder exists.
    pub(crate) dir_exists: bool,
    /// MEMORY.md's lines, `None` when there is none.
    pub(crate) lines: Option<usize>,
    /// Each `learned-*.md`: its name and lines.
    pub(crate) learned: Vec<(String, usize)>,
}

/// The learn flag and the memory folder `dir`, read for `forge learn status`.
pub(crate) fn status(paths: &Paths, env: &Env, dir: &Path) -> Status {
    // A learned-*.md newer than the flag means the learning happened: the next hook
    // removes the flag.
    let pending =
        store::safe::is_regular(&paths.learn_pending()) && !learned_after_flag(paths, env);
    let learned = learned_files(dir)
        .iter()
        .map(|p| {
            (
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                line_count(p).unwrap_or(0),
            )
        })
        .collect();
    Status {
        pending,
        dir_exists: dir.is_dir(),
        lines: line_count(&dir.join("MEMORY.md")),
        learned,
    }
}

/// The largest memory or archive file `forge learn archive` reads (it refuses,
/// rather than cuts, a larger one).
const WHOLE_MAX: u64 = 64 * 1024 * 1024;

/// What `forge learn archive` did.
#[derive(Debug)]
pub(crate) enum Archived {
    /// There is no MEMORY.md.
    NoMemory,
    /// MEMORY.md is within the limit: it has this many lines.
    Within(usize),
    /// The oldest `moved` lines went to `archive`; MEMORY.md keeps `kept`.
    Moved {
        /// Lines moved.
        moved: usize,
        /// The archive file.
        archive: PathBuf,
        /// MEMORY.md's lines now.
        kept: usize,
    },
}

/// Keeps MEMORY.md of the memory folder `dir` within `limit` lines, the older ones
/// moved to `archive-YYYY-MM-DD.md` (see [`crate::model::setup::memory::plan_archive`]).
pub(crate) fn archive(dir: &Path, env: &Env, limit: usize) -> anyhow::Result<Archived> {
    use anyhow::{Context, bail};
    let memory_md = dir.join("MEMORY.md");
    let read = |p: &Path| store::safe::read_to_string_whole(p, WHOLE_MAX, store::safe::Follow::Yes);
    let text = match read(&memory_md) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Archived::NoMemory),
        Err(e) => return Err(e).with_context(|| format!("reading {}", memory_md.display())),
    };
    let name = format!("archive-{}.md", env.now.format("%Y-%m-%d"));
    let archive_path = dir.join(&name);
    let existing = match read(&archive_path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("reading {}", archive_path.display())),
    };
    let stamp = crate::model::time::iso(env.now);
    let Some(plan) =
        crate::model::setup::memory::plan_archive(&text, existing.as_deref(), &name, &stamp, limit)
    else {
        return Ok(Archived::Within(text.lines().count()));
    };
    // The archive first, and checked, so MEMORY.md is only shortened once its content
    // is safely elsewhere.
    store::write_atomic(&archive_path, plan.archive.as_bytes())
        .with_context(|| format!("writing {}", archive_path.display()))?;
    let written =
        read(&archive_path).with_context(|| format!("reading back {}", archive_path.display()))?;
    if written != plan.archive {
        bail!(
            "{} does not hold MEMORY.md's content after writing; MEMORY.md was left as it is",
            archive_path.display()
        );
    }
    store::write_atomic(&memory_md, plan.memory.as_bytes())
        .with_context(|| format!("writing {}", memory_md.display()))?;
    Ok(Archived::Moved {
        moved: plan.moved_lines,
        archive: archive_path,
        kept: plan.memory.lines().count(),
    })
}
