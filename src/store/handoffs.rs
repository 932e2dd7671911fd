//! Listing the handoff inbox: `.forge/handoffs/handoff-*.md` and `agent-*.md`.

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::Paths;
use crate::model::handoff::{HandoffEntry, HandoffKind, sort_newest_first};

/// How much of each handoff file is read when listing (front matter, header, Signal).
const READ_CAP: u64 = 256 * 1024;

/// Lists every handoff of the project, parsed, newest first. Unreadable files are
/// skipped; an agent file whose Signal is broken is kept (as malformed).
pub fn list(paths: &Paths) -> Vec<HandoffEntry> {
    list_dir(&paths.handoffs())
}

/// Lists the handoffs in `dir`, newest first.
pub fn list_dir(dir: &Path) -> Vec<HandoffEntry> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<HandoffEntry> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name();
            HandoffKind::of_file_name(name.to_str()?)?;
            load_one(&e.path())
        })
        .collect();
    sort_newest_first(&mut out);
    out
}

/// Counts the agent handoffs whose Signal blocks. Only `agent-*.md` files are read
/// (the statusline calls this every tick; session handoffs are never opened).
pub fn count_blocked(paths: &Paths) -> usize {
    let Ok(read) = fs::read_dir(paths.handoffs()) else {
        return 0;
    };
    read.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| HandoffKind::of_file_name(n) == Some(HandoffKind::Agent))
        })
        .filter_map(|e| load_one(&e.path()))
        .filter(HandoffEntry::is_blocked)
        .count()
}

/// Parses one handoff file.
pub fn load_one(path: &Path) -> Option<HandoffEntry> {
    let meta = fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let bytes = super::read_capped(path, READ_CAP)?;
    let text = String::from_utf8_lossy(&bytes);
    let mtime = meta.modified().ok().map(DateTime::<Utc>::from);
    HandoffEntry::parse(path.to_path_buf(), &text, mtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_fixture_inbox_newest_first_with_signals() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs");
        let list = list_dir(&dir);
        let names: Vec<_> = list.iter().map(|e| e.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "agent-T-012-20261121-101502.md",
                "handoff-20261121-094500.md",
                "agent-T-011-20261121-090102.md",
                "agent-T-010-20261120-170944.md",
            ]
        );
        let words: Vec<_> = list.iter().map(HandoffEntry::status_word).collect();
        assert_eq!(
            words,
            ["blocked", "context-threshold", "malformed", "complete"]
        );
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        assert_eq!(count_blocked(&paths), 0);
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        for e in &list {
            std::fs::copy(&e.path, paths.handoffs().join(&e.file_name)).unwrap();
        }
        assert_eq!(count_blocked(&paths), 1);
    }
}
