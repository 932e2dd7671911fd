//! Claude Code's per-project memory folder, where /forge-learn writes
//! `learned-*.md` and `MEMORY.md`. Only file access: the naming rule is in
//! [`crate::model::setup::memory`].

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::Paths;
use crate::env::Env;
use crate::model::setup::memory;

/// The project's memory folder: `<claude dir>/projects/<name>/memory`. `None` when
/// neither `CLAUDE_CONFIG_DIR` nor `HOME` is set.
pub(crate) fn memory_dir(paths: &Paths, env: &Env) -> Option<PathBuf> {
    let real = std::fs::canonicalize(&paths.root).unwrap_or_else(|_| paths.root.clone());
    let name = memory::project_dir_name(&real.to_string_lossy());
    Some(env.claude_dir()?.join("projects").join(name).join("memory"))
}

/// Whether `name` is a pattern file /forge-learn writes.
fn is_learned(name: &str) -> bool {
    name.starts_with("learned-") && name.ends_with(".md")
}

/// The `learned-*.md` files of a memory folder (regular files only), sorted by name.
pub(crate) fn learned_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter(|e| e.file_name().to_str().is_some_and(is_learned))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// When the newest `learned-*.md` of `dir` was last written.
pub(crate) fn newest_learned(dir: &Path) -> Option<SystemTime> {
    learned_files(dir)
        .iter()
        .filter_map(|p| std::fs::symlink_metadata(p).ok()?.modified().ok())
        .max()
}

/// When the flag file at `path` was set (its modification time).
pub(crate) fn flag_time(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)?
        .modified()
        .ok()
}
