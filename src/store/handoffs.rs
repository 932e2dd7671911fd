//! Listing the handoff inbox: `.forge/handoffs/handoff-*.md` and `agent-*.md`.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};

use super::Paths;
use crate::model::handoff::entry::{
    HandoffEntry, HandoffKind, ThreadKey, link_threads, newest_first, sort_newest_first,
};
use crate::model::handoff::signal::SignalParse;

/// How much of each handoff file is read when listing (front matter, header, Signal).
const READ_CAP: u64 = 256 * 1024;

/// Lists every handoff of the project, parsed, newest first. Unreadable files are
/// skipped; an agent file whose Signal is broken is kept (as malformed).
pub(crate) fn list(paths: &Paths) -> Vec<HandoffEntry> {
    list_dir(&paths.handoffs())
}

/// Lists the handoffs of the project as the dashboard's inbox keeps them (see
/// [`HandoffEntry::for_inbox`]), newest first: each entry is slimmed as it is read,
/// so a folder of thousands never holds them whole.
pub(crate) fn list_for_inbox(paths: &Paths) -> Vec<HandoffEntry> {
    list_dir_with(&paths.handoffs(), HandoffEntry::for_inbox)
}

/// Lists the handoffs in `dir`, newest first.
pub(crate) fn list_dir(dir: &Path) -> Vec<HandoffEntry> {
    list_dir_with(dir, |e| e)
}

/// [`list_dir`], with `keep` applied to each entry as it is read.
fn list_dir_with(dir: &Path, keep: impl Fn(HandoffEntry) -> HandoffEntry) -> Vec<HandoffEntry> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    // Names first, so the list is allocated once at its size: collecting the parsed
    // entries straight away grows it by doubling (12.8 MB for 20,000 handoffs, 7.8 MB
    // of which were entries).
    let mut files: Vec<std::path::PathBuf> = read
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .and_then(HandoffKind::of_file_name)
                .is_some()
        })
        .map(|e| e.path())
        .collect();
    files.shrink_to_fit();
    let mut out: Vec<HandoffEntry> = Vec::with_capacity(files.len());
    // Each path moves into its entry: no second copy of the list's paths.
    out.extend(files.into_iter().filter_map(|p| load_owned(p).map(&keep)));
    sort_newest_first(&mut out);
    link_threads(&mut out);
    out
}

/// `logs/signal-cache.txt`: a first line `dir <ctime_ns> <built_ns> <blocked>` (the
/// handoffs folder's change time when the cache was built, when it was built, and
/// the answer), then one line per agent file, `<state> <len> <mtime_ns> <created> <task>
/// <name>`, so a rebuild parses an agent file only when it changed: `state` is `b`
/// (the Signal blocks), `v` (valid, not blocking) or `m` (malformed); `created` the
/// file's time in seconds (`-` when unknown); `task` the Signal's task id,
/// percent-encoded (`-` when none). Plain text: a tick reads only the first line.
const SIGNAL_CACHE: &str = "signal-cache.txt";

/// The most bytes a rebuild reads of the cache per agent file listed (a row is
/// ~80 bytes; a long task id takes more, and a row cut short is only parsed again).
const SIGNAL_ROW_CAP: u64 = 512;

/// How many bytes of the cache a tick reads: its first line and no more.
const SIGNAL_HEAD_CAP: u64 = 96;

/// How much older than the cache the folder's last change must be for the cache to
/// answer alone ("racy git": a file added in the same clock tick as the rebuild
/// leaves the folder's mtime where the rebuild saw it). Coarse file-system clocks
/// tick at most every 2 s (FAT); until then each tick rebuilds, which stats only.
const SIGNAL_RACY: Duration = Duration::from_secs(2);

/// The rebuild reads the whole cache, up to this much (one row is ~80 bytes).
const SIGNAL_CACHE_CAP: u64 = 64 * 1024 * 1024;

/// The folder's change time in nanoseconds: it moves whenever an entry is added,
/// removed or renamed, and unlike the mtime no archive tool or `touch` can set it,
/// so a shipped cache cannot be made to match a folder it was not built from.
fn ctime_ns(meta: &fs::Metadata) -> u128 {
    use std::os::unix::fs::MetadataExt;
    u128::try_from(meta.ctime()).unwrap_or(0) * 1_000_000_000
        + u128::try_from(meta.ctime_nsec()).unwrap_or(0)
}

fn mtime_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// One agent file as the cache remembers it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CacheRow {
    state: u8,
    len: u64,
    mtime: u128,
    created: Option<i64>,
    task: Option<String>,
    name: String,
}

impl CacheRow {
    fn of(name: &str, len: u64, mtime: u128, entry: Option<&HandoffEntry>) -> Self {
        let state = match entry.and_then(|h| h.signal.as_ref()) {
            Some(SignalParse::Valid(s)) if s.is_blocked() => b'b',
            Some(SignalParse::Valid(_)) => b'v',
            _ => b'm',
        };
        Self {
            state,
            len,
            mtime,
            created: entry.and_then(|h| h.created).map(|c| c.timestamp()),
            task: entry
                .and_then(HandoffEntry::task)
                .map(|t| t.trim().to_owned()),
            name: name.to_owned(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{} {} {} {} {} {}\n",
            char::from(self.state),
            self.len,
            self.mtime,
            self.created
                .map_or_else(|| "-".to_owned(), |c| c.to_string()),
            self.task
                .as_deref()
                .map_or_else(|| "-".to_owned(), encode_task),
            self.name
        )
    }

    fn parse(line: &str) -> Option<Self> {
        let mut it = line.splitn(6, ' ');
        let state = *it.next()?.as_bytes().first()?;
        let len = it.next()?.parse().ok()?;
        let mtime = it.next()?.parse().ok()?;
        let created = match it.next()? {
            "-" => None,
            c => Some(c.parse().ok()?),
        };
        let task = match it.next()? {
            "-" => None,
            t => Some(decode_task(t)?),
        };
        Some(Self {
            state,
            len,
            mtime,
            created,
            task,
            name: it.next()?.to_owned(),
        })
    }
}

/// A task id as one cache field: every byte outside `[A-Za-z0-9._]` as `%XX` (so a
/// space, a newline or a lone `-` never splits or fakes a field).
fn encode_task(task: &str) -> String {
    let mut out = String::with_capacity(task.len());
    for b in task.bytes() {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn decode_task(field: &str) -> Option<String> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = field.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// How many of `rows` are unresolved blocked Signals: blocking, and their task's
/// newest valid Signal (see `model::handoff::entry::supersessions`).
fn open_blocked(mut rows: Vec<CacheRow>) -> usize {
    let time = |r: &CacheRow| {
        r.created
            .and_then(|c| DateTime::<Utc>::from_timestamp(c, 0))
    };
    rows.sort_by(|a, b| newest_first((time(a), &a.name), (time(b), &b.name)));
    let keys: Vec<ThreadKey<'_>> = rows
        .iter()
        .map(|r| ThreadKey {
            task: r.task.as_deref(),
            valid: r.state != b'm',
        })
        .collect();
    crate::model::handoff::entry::supersessions(&keys)
        .iter()
        .zip(&rows)
        .filter(|(by, r)| by.is_none() && r.state == b'b')
        .count()
}

/// Counts the unresolved blocked Signals (agent handoffs whose Signal blocks and that
/// no newer Signal of their task supersedes). The statusline calls this every tick,
/// so its cost must not grow with the number of handoffs: when the handoffs folder's
/// mtime is the one the cache was built at (and older than the build by
/// [`SIGNAL_RACY`]), the answer is the cache's first line — one `stat` and one read
/// of at most [`SIGNAL_HEAD_CAP`] bytes. Otherwise (a file was added, removed or
/// renamed, which is how every writer of forge's writes a handoff) it lists the
/// folder, `stat`s each `agent-*.md` file, parses only the new or changed ones and
/// rewrites the cache. A file rewritten in place by hand leaves the folder's mtime
/// alone: it is seen at the folder's next change. Session handoffs are never opened.
pub(crate) fn count_blocked(paths: &Paths, now: SystemTime) -> usize {
    let Ok(dir_meta) = fs::symlink_metadata(paths.handoffs()) else {
        return 0;
    };
    if !dir_meta.is_dir() {
        return 0;
    }
    let dir_stamp = ctime_ns(&dir_meta);
    let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let cache_path = paths.logs().join(SIGNAL_CACHE);
    // One open: the first line answers, else the rest is read from the same handle.
    let cache = super::safe::open_read_meta(&cache_path, super::safe::Follow::No).ok();
    let mut old_bytes = Vec::new();
    if let Some((file, meta)) = &cache {
        old_bytes =
            super::safe::read_file_capped(file, meta.len(), SIGNAL_HEAD_CAP).unwrap_or_default();
        if let Some(blocked) = fresh_answer(&old_bytes, dir_stamp, now_ns) {
            return blocked;
        }
    }
    let Ok(read) = fs::read_dir(paths.handoffs()) else {
        return 0;
    };
    let mut files = Vec::new();
    for e in read.filter_map(Result::ok) {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if HandoffKind::of_file_name(name) != Some(HandoffKind::Agent) || name.contains('\n') {
            continue;
        }
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_file() {
            files.push((name.to_owned(), meta.len(), mtime_ns(&meta), e.path()));
        }
    }
    // The rest of the cache, at most what rows for these files can take: a cache
    // shipped with millions of rows is not read into memory.
    if let Some((file, meta)) = &cache
        && old_bytes.len() as u64 == SIGNAL_HEAD_CAP
    {
        let cap = (files.len() as u64 + 1)
            .saturating_mul(SIGNAL_ROW_CAP)
            .min(SIGNAL_CACHE_CAP);
        match super::safe::read_file_capped(file, meta.len(), cap) {
            Ok(rest) => old_bytes.extend_from_slice(&rest),
            Err(_) => old_bytes.clear(),
        }
    }
    drop(cache);
    let old_text = String::from_utf8_lossy(&old_bytes);
    let listed: std::collections::HashSet<&str> = files.iter().map(|f| f.0.as_str()).collect();
    let old: std::collections::HashMap<String, CacheRow> = old_text
        .lines()
        .skip(1)
        .filter_map(CacheRow::parse)
        .filter(|r| listed.contains(r.name.as_str()))
        .map(|r| (r.name.clone(), r))
        .collect();
    let mut rows: Vec<CacheRow> = Vec::with_capacity(files.len());
    for (name, len, mtime, path) in &files {
        let row = match old.get(name.as_str()) {
            Some(r) if r.len == *len && r.mtime == *mtime => r.clone(),
            _ => CacheRow::of(name, *len, *mtime, load_one(path).as_ref()),
        };
        rows.push(row);
    }
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    let mut body = String::with_capacity(rows.len() * 80);
    for r in &rows {
        body.push_str(&r.line());
    }
    let blocked = open_blocked(rows);
    if super::safe::is_real_dir(&paths.logs()) {
        let text = format!("dir {dir_stamp} {now_ns} {blocked}\n{body}");
        let _ = super::write_state(&cache_path, text.as_bytes());
    }
    blocked
}

/// The cache's answer from its first line, when the folder is as it was built and the
/// build came [`SIGNAL_RACY`] after the folder's last change.
fn fresh_answer(head: &[u8], dir_stamp: u128, now_ns: u128) -> Option<usize> {
    // A whole first line: a cut one could end in a cut number.
    let end = head.iter().position(|&b| b == b'\n')?;
    let line = head.get(..end)?;
    let mut it = std::str::from_utf8(line).ok()?.split(' ');
    if it.next()? != "dir" {
        return None;
    }
    let seen: u128 = it.next()?.parse().ok()?;
    let built: u128 = it.next()?.parse().ok()?;
    let blocked: usize = it.next()?.parse().ok()?;
    // A build stamped in the future is no build (a clock set back, or a forged line).
    let fresh = seen == dir_stamp
        && seen.saturating_add(SIGNAL_RACY.as_nanos()) <= built
        && built <= now_ns;
    (fresh && it.next().is_none()).then_some(blocked)
}

/// Parses one handoff file: a regular file (never through a link planted in the
/// folder, never a FIFO), its first [`READ_CAP`] bytes.
pub(crate) fn load_one(path: &Path) -> Option<HandoffEntry> {
    load_owned(path.to_path_buf())
}

/// How much of a handoff [`load_with_text`] reads: what SessionStart may inject is
/// cut far below it.
const TEXT_CAP: u64 = 1024 * 1024;

/// [`load_one`] and the file's text (its first [`TEXT_CAP`] bytes, lossy UTF-8), from
/// one read: the handoff SessionStart resumes. The entry is parsed from the first
/// [`READ_CAP`] bytes, as [`load_one`] parses it.
pub(crate) fn load_with_text(path: &Path) -> Option<(HandoffEntry, String)> {
    let (file, meta) = super::safe::open_read_meta(path, super::safe::Follow::No).ok()?;
    let bytes = super::safe::read_file_capped(&file, meta.len(), TEXT_CAP).ok()?;
    drop(file);
    let head = bytes
        .get(
            ..bytes
                .len()
                .min(usize::try_from(READ_CAP).unwrap_or(usize::MAX)),
        )
        .unwrap_or(&bytes);
    let mtime = meta.modified().ok().map(DateTime::<Utc>::from);
    let entry = HandoffEntry::parse(path.to_path_buf(), &String::from_utf8_lossy(head), mtime)?;
    Some((entry, String::from_utf8_lossy(&bytes).into_owned()))
}

/// [`load_one`], keeping `path` in the entry.
fn load_owned(path: std::path::PathBuf) -> Option<HandoffEntry> {
    let (file, meta) = super::safe::open_read_meta(&path, super::safe::Follow::No).ok()?;
    let bytes = super::safe::read_file_capped(&file, meta.len(), READ_CAP).ok()?;
    drop(file);
    let text = String::from_utf8_lossy(&bytes);
    let mtime = meta.modified().ok().map(DateTime::<Utc>::from);
    HandoffEntry::parse(path, &text, mtime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_read_gives_the_entry_load_one_gives_and_the_whole_text() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("handoff-20261121-101502.md");
        // Longer than the listing's cap: the entry is parsed from its first part,
        // the text is whole up to its own cap.
        let text = format!(
            "---\nkind: session-handoff\nsession_id: s1\n---\n# Handoff\n{}end\n",
            "line\n".repeat(60_000)
        );
        std::fs::write(&path, &text).unwrap();
        let (entry, read) = load_with_text(&path).unwrap();
        let one = load_one(&path).unwrap();
        assert_eq!(entry.front, one.front);
        assert_eq!(entry.file_name, one.file_name);
        assert_eq!(entry.created, one.created);
        assert_eq!(read, text);
        assert!(load_with_text(&t.path().join("handoff-20261121-101503.md")).is_none());
    }

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
        // With the cache in place, the answer is the same; once the folder's last
        // change is SIGNAL_RACY older than the build, it comes from the first line.
        std::fs::create_dir_all(paths.logs()).unwrap();
        let later = || now() + SIGNAL_RACY + Duration::from_secs(1);
        assert_eq!(count_blocked(&paths, later()), 1);
        let cache = paths.logs().join(SIGNAL_CACHE);
        assert!(std::fs::read_to_string(&cache).unwrap().starts_with("dir "));
        assert_eq!(count_blocked(&paths, later()), 1);
        // A file rewritten in place leaves the folder's mtime alone: it is seen at the
        // folder's next change.
        let blocked = paths.handoffs().join("agent-T-012-20261121-101502.md");
        let text = std::fs::read_to_string(&blocked)
            .unwrap()
            .replace("\"blocked\"", "\"complete\"")
            .replace("\"blocking\": true", "\"blocking\": false");
        std::fs::write(&blocked, text).unwrap();
        assert_eq!(count_blocked(&paths, later()), 1, "served from the cache");
        std::fs::write(paths.handoffs().join("handoff-20261121-120000.md"), "# x\n").unwrap();
        assert_eq!(count_blocked(&paths, now()), 0);
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

    #[test]
    fn an_unchanged_folder_is_answered_from_the_caches_first_line_alone() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        std::fs::create_dir_all(paths.logs()).unwrap();
        for i in 0..50 {
            std::fs::write(
                paths
                    .handoffs()
                    .join(format!("agent-T-{i}-20261121-100000.md")),
                "no signal\n",
            )
            .unwrap();
        }
        let later = SystemTime::now() + SIGNAL_RACY + Duration::from_secs(1);
        assert_eq!(count_blocked(&paths, later), 0);
        let cache = paths.logs().join(SIGNAL_CACHE);
        let text = std::fs::read_to_string(&cache).unwrap();
        assert_eq!(text.lines().count(), 51, "{text}");
        // The answer is the first line's: the folder is not listed, no file is
        // stat-ed, the rows are not read (a forged answer shows it).
        let (head, rows) = text.split_once('\n').unwrap();
        let forged = format!("{} 7\n{rows}", head.rsplit_once(' ').unwrap().0);
        std::fs::write(&cache, forged).unwrap();
        assert_eq!(count_blocked(&paths, later), 7);
        // Built in the same instant as the folder's change: not trusted, rebuilt.
        let racy = UNIX_EPOCH
            + Duration::from_nanos(
                u64::try_from(ctime_ns(&std::fs::metadata(paths.handoffs()).unwrap())).unwrap(),
            );
        std::fs::remove_file(&cache).unwrap();
        assert_eq!(count_blocked(&paths, racy), 0);
        let text = std::fs::read_to_string(&cache).unwrap();
        let (head, rows) = text.split_once('\n').unwrap();
        let forged = format!("{} 7\n{rows}", head.rsplit_once(' ').unwrap().0);
        std::fs::write(&cache, forged).unwrap();
        assert_eq!(count_blocked(&paths, later), 0);
        // A first line cut before its end is no answer, nor is one built in the
        // future.
        let now = 5_000_000_000;
        assert_eq!(fresh_answer(b"dir 1 3000000000 7", 1, now), None);
        assert_eq!(fresh_answer(b"dir 1 3000000000 7\n", 1, now), Some(7));
        assert_eq!(fresh_answer(b"dir 1 3000000000 7\n", 2, now), None);
        assert_eq!(fresh_answer(b"dir 1 9000000000 7\n", 1, now), None);
        // A folder whose mtime is set back to the cache's (as tar or `touch` can)
        // is still seen to have changed: the stamp is the change time.
        std::fs::write(
            paths.handoffs().join("agent-T-900-20261121-100000.md"),
            std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
            )
            .unwrap()
            .replace("T-012", "T-900"),
        )
        .unwrap();
        let dir = std::fs::File::open(paths.handoffs()).unwrap();
        dir.set_modified(racy).unwrap();
        assert_eq!(count_blocked(&paths, later), 1);
    }

    #[test]
    fn a_later_signal_of_the_task_resolves_the_count_also_from_the_cache() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        std::fs::create_dir_all(paths.logs()).unwrap();
        let signal = |task: &str, status: &str| {
            format!(
                "## FORGE AGENT HANDOFF\nTask: {task}\n### Signal\n```json\n\
                 {{\"from\":\"a\",\"to\":\"b\",\"task_id\":{},\"status\":\"{status}\"}}\n```\n",
                serde_json::to_string(task).unwrap()
            )
        };
        let put =
            |name: &str, text: String| std::fs::write(paths.handoffs().join(name), text).unwrap();
        // A task id with a space and a percent sign survives the cache.
        put("agent-T_1-20261121-100000.md", signal("T 1%", "blocked"));
        put("agent-T-2-20261121-100000.md", signal("T-2", "blocked"));
        let now = SystemTime::now;
        assert_eq!(count_blocked(&paths, now()), 2);
        put("agent-T_1-20261121-110000.md", signal("T 1%", "partial"));
        assert_eq!(count_blocked(&paths, now()), 1, "T 1% is resolved");
        let later = now() + SIGNAL_RACY + Duration::from_secs(1);
        assert_eq!(count_blocked(&paths, later), 1, "rebuilt");
        assert_eq!(count_blocked(&paths, later), 1, "from the cache too");
        let cache = std::fs::read_to_string(paths.logs().join(SIGNAL_CACHE)).unwrap();
        assert!(cache.contains(" T%201%25 "), "{cache}");
        // An older answer does not resolve a newer question.
        put("agent-T-2-20261120-100000.md", signal("T-2", "complete"));
        assert_eq!(count_blocked(&paths, now()), 1);
        assert_eq!(
            decode_task(&encode_task("a b\n-%é")).as_deref(),
            Some("a b\n-%é")
        );
    }
}
