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

/// `logs/signal-cache.txt`: one line per agent file, `<blocked 0|1> <len> <mtime_ns>
/// <name>`, so the statusline parses an agent file only when it changed. Plain text:
/// cheaper to read on every tick than JSON.
const SIGNAL_CACHE: &str = "signal-cache.txt";

fn parse_signal_cache(text: &str) -> std::collections::HashMap<&str, (u64, u128, bool)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.splitn(4, ' ');
            let blocked = it.next()? == "1";
            let len = it.next()?.parse().ok()?;
            let mtime = it.next()?.parse().ok()?;
            Some((it.next()?, (len, mtime, blocked)))
        })
        .collect()
}

/// Counts the agent handoffs whose Signal blocks. The statusline calls this every
/// tick: it lists the folder and `stat`s each `agent-*.md` file, and parses only the
/// files that are new or changed since `logs/signal-cache.json` was written (the
/// cache is rewritten only when something changed). Session handoffs are never opened.
pub fn count_blocked(paths: &Paths) -> usize {
    let Ok(read) = fs::read_dir(paths.handoffs()) else {
        return 0;
    };
    let cache_path = paths.logs().join(SIGNAL_CACHE);
    let old_text = super::read_text(&cache_path).unwrap_or_default();
    let old = parse_signal_cache(&old_text);
    let mut rows: Vec<(String, u64, u128, bool)> = Vec::new();
    for e in read.filter_map(Result::ok) {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if HandoffKind::of_file_name(name) != Some(HandoffKind::Agent) || name.contains('\n') {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let len = meta.len();
        let blocked = match old.get(name) {
            Some(&(l, m, b)) if l == len && m == mtime_ns => b,
            _ => load_one(&e.path()).is_some_and(|h| h.is_blocked()),
        };
        rows.push((name.to_owned(), len, mtime_ns, blocked));
    }
    rows.sort();
    let text: String = rows
        .iter()
        .map(|(n, l, m, b)| format!("{} {l} {m} {n}\n", u8::from(*b)))
        .collect();
    if text != old_text && paths.logs().is_dir() {
        let _ = super::write_atomic(&cache_path, text.as_bytes());
    }
    rows.iter().filter(|r| r.3).count()
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
        // With the cache in place, the answer is the same, and a changed file is re-read.
        std::fs::create_dir_all(paths.logs()).unwrap();
        assert_eq!(count_blocked(&paths), 1);
        assert!(paths.logs().join(SIGNAL_CACHE).exists());
        assert_eq!(count_blocked(&paths), 1);
        let blocked = paths.handoffs().join("agent-T-012-20261121-101502.md");
        let text = std::fs::read_to_string(&blocked)
            .unwrap()
            .replace("\"blocked\"", "\"complete\"")
            .replace("\"blocking\": true", "\"blocking\": false");
        std::fs::write(&blocked, text).unwrap();
        assert_eq!(count_blocked(&paths), 0);
        std::fs::remove_file(&blocked).unwrap();
        assert_eq!(count_blocked(&paths), 0);
    }
}
