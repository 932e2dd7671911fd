//! `forge run` chains: `.forge/logs/chains/<first-session-id>.json`, written whole
//! and atomically at every change, read back for `forge status`, `forge log` and the
//! dashboard.

use std::io;

use super::Paths;
use super::safe::{self, Follow};
use crate::model::agents::relay::Chain;

/// The most of a chain file that is read.
const CHAIN_CAP: u64 = 1 << 20;
/// The most chain files listed.
const LIST_CAP: usize = 200;

/// Writes `chain` (atomic: a reader sees the old file or the new one), its task
/// redacted: the file is read back by `forge status`, `forge log` and the dashboard,
/// and nothing reads the task from it to run it (the relay keeps the task it was
/// given in memory).
pub fn write(paths: &Paths, chain: &Chain) -> io::Result<()> {
    safe::create_dir_all(&paths.chains())?;
    match crate::model::text::redact::redact_cow(&chain.task) {
        std::borrow::Cow::Borrowed(_) => super::write_json(&paths.chain(&chain.id), chain),
        std::borrow::Cow::Owned(task) => {
            let shown = Chain {
                task,
                ..chain.clone()
            };
            super::write_json(&paths.chain(&chain.id), &shown)
        }
    }
}

/// Every readable chain, newest first (by start time).
pub(crate) fn list(paths: &Paths) -> Vec<Chain> {
    let Ok(rd) = std::fs::read_dir(paths.chains()) else {
        return Vec::new();
    };
    let mut out: Vec<Chain> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .take(LIST_CAP * 4)
        .filter_map(|e| {
            let text = safe::read_to_string_whole(&e.path(), CHAIN_CAP, Follow::No).ok()?;
            serde_json::from_str::<Chain>(&text).ok()
        })
        .collect();
    out.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    out.truncate(LIST_CAP);
    out
}
