//! Listing the handoff inbox: `.forge/handoffs/handoff-*.md` and `agent-*.md`.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// `logs/signal-cache.txt`: a first line `dir <mtime_ns>` (the handoffs folder's
/// mtime at the last full check), then one line per agent file, `<blocked 0|1> <len>
/// <mtime_ns> <name>`, so the statusline parses an agent file only when it changed.
/// Plain text: cheaper to read on every tick than JSON.
const SIGNAL_CACHE: &str = "signal-cache.txt";

/// Every agent file is `stat`ed again at least this often, to catch a file rewritten
/// in place (which, unlike a new, removed or renamed file, leaves the folder's mtime
/// alone).
const SIGNAL_RECHECK: Duration = Duration::from_secs(5);

fn mtime_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

fn parse_signal_cache(text: &str) -> std::collections::HashMap<&str, (u64, u128, bool)> {
    text.lines()
        .filter(|l| !l.starts_with("dir "))
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
/// tick. When the handoffs folder has not changed since the last full check and that
/// check is younger than a few seconds, the answer comes from `logs/signal-cache.txt`
/// alone (one `stat` and one small read). Otherwise it lists the folder, `stat`s each
/// `agent-*.md` file and parses only the new or changed ones; the cache is rewritten
/// when something changed, else only its time is refreshed. Session handoffs are
/// never opened.
pub fn count_blocked(paths: &Paths, now: SystemTime) -> usize {
    let Ok(dir_meta) = fs::symlink_metadata(paths.handoffs()) else {
        return 0;
    };
    if !dir_meta.is_dir() {
        return 0;
    }
    let dir_stamp = format!("dir {}\n", mtime_ns(&dir_meta));
    let cache_path = paths.logs().join(SIGNAL_CACHE);
    let cache_time = fs::symlink_metadata(&cache_path)
        .ok()
        .filter(fs::Metadata::is_file)
        .and_then(|m| m.modified().ok());
    let old_text = super::read_text(&cache_path).unwrap_or_default();
    let recent = cache_time.is_some_and(|t| t + SIGNAL_RECHECK > now && t <= now);
    if recent && old_text.starts_with(&dir_stamp) {
        return parse_signal_cache(&old_text)
            .values()
            .filter(|v| v.2)
            .count();
    }
    let old = parse_signal_cache(&old_text);
    let Ok(read) = fs::read_dir(paths.handoffs()) else {
        return 0;
    };
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
        let mtime = mtime_ns(&meta);
        let len = meta.len();
        let blocked = match old.get(name) {
            Some(&(l, m, b)) if l == len && m == mtime => b,
            _ => load_one(&e.path()).is_some_and(|h| h.is_blocked()),
        };
        rows.push((name.to_owned(), len, mtime, blocked));
    }
    rows.sort();
    let mut text = dir_stamp;
    for (n, l, m, b) in &rows {
        text.push_str(&format!("{} {l} {m} {n}\n", u8::from(*b)));
    }
    if super::safe::is_real_dir(&paths.logs()) {
        if text == old_text {
            // Nothing changed: only record that it was checked now.
            let _ = super::safe::open_rw(&cache_path, false).and_then(|f| f.set_modified(now));
        } else {
            let _ = super::write_state(&cache_path, text.as_bytes());
        }
    }
    rows.iter().filter(|r| r.3).count()
}

/// Parses one handoff file: a regular file (never through a link planted in the
/// folder, never a FIFO), its first [`READ_CAP`] bytes.
pub fn load_one(path: &Path) -> Option<HandoffEntry> {
    let (file, meta) = super::safe::open_read_meta(path, super::safe::Follow::No).ok()?;
    let bytes = super::safe::read_file_capped(&file, meta.len(), READ_CAP).ok()?;
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
        let now = SystemTime::now;
        assert_eq!(count_blocked(&paths, now()), 0);
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        for e in &list {
            std::fs::copy(&e.path, paths.handoffs().join(&e.file_name)).unwrap();
        }
        assert_eq!(count_blocked(&paths, now()), 1);
        // With the cache in place, the answer is the same.
        std::fs::create_dir_all(paths.logs()).unwrap();
        assert_eq!(count_blocked(&paths, now()), 1);
        let cache = paths.logs().join(SIGNAL_CACHE);
        assert!(std::fs::read_to_string(&cache).unwrap().starts_with("dir "));
        assert_eq!(count_blocked(&paths, now()), 1);
        // A file rewritten in place leaves the folder's mtime alone: it is seen at the
        // next full check (at most SIGNAL_RECHECK later).
        let blocked = paths.handoffs().join("agent-T-012-20261121-101502.md");
        let text = std::fs::read_to_string(&blocked)
            .unwrap()
            .replace("\"blocked\"", "\"complete\"")
            .replace("\"blocking\": true", "\"blocking\": false");
        std::fs::write(&blocked, text).unwrap();
        assert_eq!(count_blocked(&paths, now()), 1, "served from the cache");
        assert_eq!(
            count_blocked(&paths, now() + SIGNAL_RECHECK + Duration::from_secs(1)),
            0
        );
        // A new file changes the folder: seen at once.
        let back = paths.handoffs().join("agent-T-099-20261121-101502.md");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
            &back,
        )
        .unwrap();
        assert_eq!(count_blocked(&paths, now()), 1);
        std::fs::remove_file(&back).unwrap();
        assert_eq!(count_blocked(&paths, now()), 0);
    }
}
