//! Listing the per-session files of `.forge/logs/sessions/`: the session bridges
//! (`<id>.json`) and the one-shot compaction markers (`<id>.compacted`).

use std::fs;

use super::Paths;
use crate::model::state::SessionBridge;

/// How many session bridges are loaded (most recently modified first).
const MAX_SESSIONS: usize = 50;

/// The session bridges of the project, most recently updated first (at most 50).
pub fn load_sessions(paths: &Paths) -> Vec<SessionBridge> {
    let Ok(read) = fs::read_dir(paths.sessions()) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = read
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    let mut out: Vec<SessionBridge> = files
        .into_iter()
        .take(MAX_SESSIONS)
        .filter_map(|(_, p)| super::read_json::<SessionBridge>(&p))
        .filter(|b| !b.session_id.is_empty())
        .collect();
    out.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    out
}

/// The most recently updated session bridge of the project.
pub fn latest_bridge(paths: &Paths) -> Option<SessionBridge> {
    load_sessions(paths).into_iter().next()
}

/// The sessions with an armed compaction marker, sorted.
pub fn compaction_markers(paths: &Paths) -> Vec<String> {
    let Ok(read) = fs::read_dir(paths.sessions()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".compacted")
                .map(str::to_owned)
        })
        .collect();
    out.sort();
    out
}
