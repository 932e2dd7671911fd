//! Listing the handoff inbox: `.forge/handoffs/handoff-*.md` and `agent-*.md`.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};

use super::{Paths, share};
use crate::model::handoff::entry::{
    HandoffEntry, HandoffKind, Origin, Remote, ThreadKey, link_threads, newest_first,
    sort_newest_first,
};
use crate::model::handoff::signal::SignalParse;

/// How much of each handoff file is read when listing (front matter, header, Signal).
const READ_CAP: u64 = 256 * 1024;

/// Lists every handoff of this project's own folder, parsed, newest first (for the
/// repository's inbox, the Signals of its other work trees too: `store::inbox`).
/// Unreadable files are skipped; an agent file whose Signal is broken is kept (as
/// malformed).
pub(crate) fn list(paths: &Paths) -> Vec<HandoffEntry> {
    list_dir(&paths.handoffs())
}

/// The repository's inbox (`store::inbox`): every handoff of the project (its
/// session handoffs and agent handoffs) and the agent handoffs of the other work
/// trees' folders, newest first,
/// their threads linked across all of them: a blocked Signal in one work tree is
/// resolved by a later Signal of its task in any. An agent handoff found in another
/// work tree's folder that does not say where it came from is said to come from
/// that work tree.
pub(crate) fn repository(paths: &Paths) -> Vec<HandoffEntry> {
    repository_with(paths, |e| e)
}

/// [`repository`] as the dashboard's inbox keeps it ([`HandoffEntry::for_inbox`]).
pub(crate) fn repository_for_inbox(paths: &Paths) -> Vec<HandoffEntry> {
    repository_with(paths, HandoffEntry::for_inbox)
}

fn repository_with(
    paths: &Paths,
    keep: impl Fn(HandoffEntry) -> HandoffEntry,
) -> Vec<HandoffEntry> {
    let inbox = super::inbox::Inbox::of(paths);
    let mut out = load_dir(&paths.handoffs(), None, &keep);
    for folder in inbox.others() {
        if folder.paths.check().is_err() {
            continue;
        }
        let mut entries = load_dir(&folder.paths.handoffs(), Some(HandoffKind::Agent), &keep);
        if entries.iter().any(|e| e.origin.is_none())
            && let Some(origin) = folder.origin().map(Box::new)
        {
            for e in entries.iter_mut().filter(|e| e.origin.is_none()) {
                e.origin = Some(origin.clone());
            }
        }
        out.append(&mut entries);
    }
    // The Signals other machines shared through the git remote (docs/share.md),
    // each said to be remote.
    out.append(&mut remote_entries(&inbox.home, &keep));
    sort_newest_first(&mut out);
    link_threads(&mut out);
    out
}

/// The remote entries of the cache, each said to be remote (writer, machine, the
/// branch it was written on), `keep` applied as it is read. Nothing when the home
/// or the cache folder is not sound.
pub(crate) fn remote_entries(
    home: &Paths,
    keep: &impl Fn(HandoffEntry) -> HandoffEntry,
) -> Vec<HandoffEntry> {
    let inbox = share::inbox_dir(home);
    if !share::sound(home) || !super::safe::is_real_dir(&inbox) {
        return Vec::new();
    }
    let mut entries = load_dir(&inbox, Some(HandoffKind::Agent), keep);
    let mut writers: std::collections::BTreeMap<String, Option<share::WriterIndex>> =
        std::collections::BTreeMap::new();
    for e in &mut entries {
        let tag = e
            .file_name
            .strip_prefix("agent-r")
            .and_then(|r| r.get(..8))
            .unwrap_or("")
            .to_owned();
        let index = writers
            .entry(tag.clone())
            .or_insert_with(|| share::read_writer(home, &tag));
        let (writer, machine, branch) = match index {
            Some(i) => (
                i.writer.clone(),
                i.machine.clone(),
                i.names.get(&e.file_name).filter(|b| !b.is_empty()).cloned(),
            ),
            None => ("?".to_owned(), "?".to_owned(), None),
        };
        e.origin = Some(Box::new(Origin {
            worktree: String::new(),
            branch,
            remote: Some(Remote { writer, machine }),
        }));
    }
    entries
}

/// Lists the handoffs in `dir`, newest first.
pub(crate) fn list_dir(dir: &Path) -> Vec<HandoffEntry> {
    let mut out = load_dir(dir, None, &|e| e);
    sort_newest_first(&mut out);
    link_threads(&mut out);
    out
}

/// The handoffs in `dir` (only those of `kind`, when given), parsed, `keep` applied
/// to each as it is read, in no order and with no thread linked.
pub(crate) fn load_dir(
    dir: &Path,
    kind: Option<HandoffKind>,
    keep: &impl Fn(HandoffEntry) -> HandoffEntry,
) -> Vec<HandoffEntry> {
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
                .is_some_and(|k| kind.is_none_or(|want| want == k))
        })
        .map(|e| e.path())
        .collect();
    files.shrink_to_fit();
    let mut out: Vec<HandoffEntry> = Vec::with_capacity(files.len());
    // Each path moves into its entry: no second copy of the list's paths.
    out.extend(files.into_iter().filter_map(|p| load_owned(p).map(keep)));
    out
}

/// `logs/signal-cache.txt`: the blocked-Signal count of the repository's inbox
/// (`store::inbox`: this project's `handoffs/` and those of its repository's other
/// work trees), so that a status-line tick reads three short lines and `stat`s a few
/// paths instead of listing folders:
///
/// ```text
/// dir <digest> <built_ns> <blocked>
/// folders <handoffs folder> …    this project's first
/// marks <i|c><path> …            what can change that list of folders
/// <state> <len> <mtime_ns> <created> <task> <folder> <name>
/// ```
///
/// `digest` sums up, when the cache was built, the change time (`ctime`, which no
/// archive tool or `touch` can set) and inode of every folder and mark (`i`: the
/// inode only, for a `.git` folder git changes all the time), `built_ns` is when it
/// was built and `blocked` the answer. Then one row per agent file, so a rebuild
/// parses an agent file only when it changed: `state` is `b` (the Signal blocks),
/// `v` (valid, not blocking) or `m` (malformed); `created` the file's time in
/// seconds (`-` when unknown); `task` the Signal's task id (`-` when none);
/// `folder` its folder's place in `folders`. Paths and task ids are
/// percent-encoded, so none splits or fakes a field.
const SIGNAL_CACHE: &str = "signal-cache.txt";

/// The most bytes a rebuild reads of the cache per agent file listed (a row is
/// ~80 bytes; a long task id takes more, and a row cut short is only parsed again).
const SIGNAL_ROW_CAP: u64 = 512;

/// How many bytes of the cache a tick reads first: its three first lines take a few
/// hundred bytes for a checkout with a few work trees, and a tick reads no more than
/// it needs (a larger read is a larger buffer and more bytes checked as UTF-8).
const SIGNAL_HEAD_READ: u64 = 4 * 1024;

/// How many bytes of the cache's head a tick reads at most, when the three lines do
/// not fit in [`SIGNAL_HEAD_READ`] (many work trees with long paths; more still and
/// every tick rebuilds, which is slower and still right).
const SIGNAL_HEAD_CAP: u64 = 16 * 1024;

/// How much older than the cache the folders' last change must be for the cache to
/// answer alone ("racy git": a file added in the same clock tick as the rebuild
/// leaves the folder's change time where the rebuild saw it). Coarse file-system
/// clocks tick at most every 2 s (FAT); until then each tick rebuilds, which stats
/// only.
pub(crate) const SIGNAL_RACY: Duration = Duration::from_secs(2);

/// The rebuild reads the whole cache, up to this much (one row is ~80 bytes).
const SIGNAL_CACHE_CAP: u64 = 64 * 1024 * 1024;

/// A path's change time in nanoseconds: it moves whenever a folder's entry is
/// added, removed or renamed, and unlike the mtime no archive tool or `touch` can
/// set it, so a shipped cache cannot be made to match a folder it was not built
/// from.
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
    folder: usize,
    name: String,
}

impl CacheRow {
    fn of(folder: usize, name: &str, len: u64, mtime: u128, entry: Option<&HandoffEntry>) -> Self {
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
            folder,
            name: name.to_owned(),
        }
    }

    fn line(&self) -> String {
        format!(
            "{} {} {} {} {} {} {}\n",
            char::from(self.state),
            self.len,
            self.mtime,
            self.created
                .map_or_else(|| "-".to_owned(), |c| c.to_string()),
            self.task
                .as_deref()
                .map_or_else(|| "-".to_owned(), encode_task),
            self.folder,
            self.name
        )
    }

    fn parse(line: &str) -> Option<Self> {
        let mut it = line.splitn(7, ' ');
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
        let folder = it.next()?.parse().ok()?;
        Some(Self {
            state,
            len,
            mtime,
            created,
            task,
            folder,
            name: it.next()?.to_owned(),
        })
    }
}

/// `bytes` as one cache field: every byte outside `[A-Za-z0-9._]` and `extra` as
/// `%XX`.
fn encode(bytes: &[u8], extra: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || extra.contains(&b) {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn decode(field: &str) -> Option<Vec<u8>> {
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
    Some(out)
}

/// A task id as one cache field (a space, a newline or a lone `-` never splits or
/// fakes a field).
fn encode_task(task: &str) -> String {
    encode(task.as_bytes(), b"")
}

fn decode_task(field: &str) -> Option<String> {
    String::from_utf8(decode(field)?).ok()
}

/// A path as one cache field.
fn encode_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    encode(path.as_os_str().as_bytes(), b"/-")
}

fn decode_path(field: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let p = PathBuf::from(std::ffi::OsString::from_vec(decode(field)?));
    p.is_absolute().then_some(p)
}

/// How many of `rows` are unresolved blocked Signals: blocking, and their task's
/// newest valid Signal (see `model::handoff::entry::supersessions`), across all the
/// inbox's folders.
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

/// What the cache checks of the disk: the folders (their change time and inode, or
/// nothing when missing) and the marks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Stamps {
    /// An FNV-1a hash of every path and its stamp, in order.
    digest: u64,
    /// The latest change time among them.
    newest: u128,
}

impl Stamps {
    /// `stat`s each of `paths` (`true`: only its inode counts) and sums them up.
    fn of<'a>(paths: impl Iterator<Item = (&'a Path, bool)>) -> Self {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::MetadataExt;
        let mut digest: u64 = 0xcbf2_9ce4_8422_2325;
        let mut feed = |bytes: &[u8]| {
            for &b in bytes {
                digest ^= u64::from(b);
                digest = digest.wrapping_mul(0x0100_0000_01b3);
            }
        };
        let mut newest = 0;
        for (path, inode_only) in paths {
            feed(path.as_os_str().as_bytes());
            let (ctime, ino) = match fs::symlink_metadata(path) {
                Ok(m) if inode_only => (0, m.ino()),
                Ok(m) => (ctime_ns(&m), m.ino()),
                Err(_) => (0, 0),
            };
            newest = newest.max(ctime);
            feed(format!(" {ctime} {ino}\n").as_bytes());
        }
        Self { digest, newest }
    }
}

/// The cache's three first lines, parsed: the answer, and what it was built from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    digest: u64,
    built: u128,
    blocked: usize,
    folders: Vec<PathBuf>,
    marks: Vec<(PathBuf, bool)>,
}

impl Head {
    /// The head of a cache's text (whole lines only: a cut one could end in a cut
    /// number or path).
    fn parse(text: &[u8]) -> Option<Self> {
        let mut lines = text.split(|&b| b == b'\n');
        let first = std::str::from_utf8(lines.next()?).ok()?;
        let folders = std::str::from_utf8(lines.next()?).ok()?;
        let marks = std::str::from_utf8(lines.next()?).ok()?;
        // A third newline must follow: `lines` yields the rest after it.
        lines.next()?;
        let mut it = first.split(' ');
        if it.next()? != "dir" {
            return None;
        }
        let digest = it.next()?.parse().ok()?;
        let built = it.next()?.parse().ok()?;
        let blocked = it.next()?.parse().ok()?;
        if it.next().is_some() {
            return None;
        }
        let mut f = folders.split(' ');
        if f.next()? != "folders" {
            return None;
        }
        let folders = f.map(decode_path).collect::<Option<Vec<_>>>()?;
        let mut m = marks.split(' ');
        if m.next()? != "marks" {
            return None;
        }
        let marks = m
            .filter(|f| !f.is_empty())
            .map(|f| {
                let (kind, path) = f.split_at_checked(1)?;
                Some((decode_path(path)?, kind == "i"))
            })
            .collect::<Option<Vec<_>>>()?;
        (!folders.is_empty()).then_some(Self {
            digest,
            built,
            blocked,
            folders,
            marks,
        })
    }

    /// What was `stat`ed, in order: the folders, then the marks.
    fn stamped(&self) -> impl Iterator<Item = (&Path, bool)> {
        self.folders
            .iter()
            .map(|p| (p.as_path(), false))
            .chain(self.marks.iter().map(|(p, i)| (p.as_path(), *i)))
    }

    fn text(&self) -> String {
        let mut out = format!(
            "dir {} {} {}\nfolders",
            self.digest, self.built, self.blocked
        );
        for f in &self.folders {
            out.push(' ');
            out.push_str(&encode_path(f));
        }
        out.push_str("\nmarks");
        for (p, inode_only) in &self.marks {
            out.push(' ');
            out.push(if *inode_only { 'i' } else { 'c' });
            out.push_str(&encode_path(p));
        }
        out.push('\n');
        out
    }
}

/// The cache's answer, when the folders and marks are as they were when it was
/// built (`project` must be its first folder) and the build came [`SIGNAL_RACY`]
/// after their last change. A build stamped in the future is no build (a clock
/// set back, or a forged line).
fn fresh_answer(head: &Head, project: &Path, now_ns: u128) -> Option<usize> {
    if head.folders.first().map(PathBuf::as_path) != Some(project) {
        return None;
    }
    let now = Stamps::of(head.stamped());
    let fresh = now.digest == head.digest
        && now.newest.saturating_add(SIGNAL_RACY.as_nanos()) <= head.built
        && head.built <= now_ns;
    fresh.then_some(head.blocked)
}

/// Counts the unresolved blocked Signals of the repository's inbox (agent handoffs
/// whose Signal blocks and that no newer Signal of their task, in any of its
/// folders, supersedes). The statusline calls this every tick, so its cost must not
/// grow with the number of handoffs, and barely with the number of work trees: when
/// the folders and marks the cache names are as it was built from (and older than
/// the build by [`SIGNAL_RACY`]), the answer is the cache's first line — one read of
/// [`SIGNAL_HEAD_READ`] bytes and one `stat` per folder and mark (three for a
/// checkout without linked work trees). Otherwise (a file was added, removed or
/// renamed in a folder, which is how every writer of forge's writes a handoff; a
/// work tree was added, moved or removed) it finds the folders again
/// (`store::inbox`), lists them, `stat`s each `agent-*.md` file, parses only the new
/// or changed ones and rewrites the cache. A file rewritten in place by hand leaves
/// its folder's change time alone: it is seen at the folder's next change. Session
/// handoffs are never opened.
pub(crate) fn count_blocked(paths: &Paths, now: SystemTime) -> usize {
    let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let look = look(paths, now_ns);
    match look.answer {
        Some(blocked) => blocked,
        None => rebuild(paths, now_ns, look.cache, look.old_bytes),
    }
}

/// What a status-line tick's [`count_for_tick`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TickCount {
    /// The count to show.
    pub(crate) blocked: usize,
    /// The count is the last one built, and the folders changed since: a rebuild
    /// should be started elsewhere (`forge statusline --recount-signals`).
    pub(crate) stale: bool,
}

/// A cache whose whole text is at most this long (about a hundred agent files) is
/// rebuilt by the tick itself, as [`count_blocked`] does: that costs a few `stat`s.
/// A larger one is answered with its last count while a detached rebuild runs.
const TICK_REBUILD_CAP: u64 = 8 * 1024;

/// A project handoffs folder whose own size (`st_size`: on ext4 and XFS its
/// entries' bytes, about a hundred names a block; on tmpfs 20 bytes a name; on btrfs
/// twice their length) is larger than this holds a few hundred files or more: a
/// tick that finds no count of this project's to show does not list it, it shows
/// none and leaves the first count to a detached rebuild.
const TICK_LIST_CAP: u64 = 8 * 1024;

/// [`count_blocked`] for a status-line tick, which must not pay for a rebuild of a
/// large inbox: when the folders changed and the cache holds more than
/// [`TICK_REBUILD_CAP`] bytes of rows (and is this project's, built in the past),
/// the answer is the cache's last count, said to be stale. With no such count (no
/// cache, another project's or one stamped in the future) the size of the
/// project's handoffs folder decides: above [`TICK_LIST_CAP`] the count is 0, said
/// to be stale, else the tick rebuilds, so a small inbox's count is right at once.
pub(crate) fn count_for_tick(paths: &Paths, now: SystemTime) -> TickCount {
    let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let look = look(paths, now_ns);
    match (look.answer, look.last) {
        (Some(blocked), _) => TickCount {
            blocked,
            stale: false,
        },
        (None, Some(blocked)) if look.len > TICK_REBUILD_CAP => TickCount {
            blocked,
            stale: true,
        },
        (None, None) if !look.long_head && large_folder(paths) => TickCount {
            blocked: 0,
            stale: true,
        },
        (None, _) => TickCount {
            blocked: rebuild(paths, now_ns, look.cache, look.old_bytes),
            stale: false,
        },
    }
}

/// Whether the project's handoffs folder (not followed when a link) is larger than
/// [`TICK_LIST_CAP`] and a recount can write the cache (`.forge/logs` is a real
/// folder; else each tick counts, as no count would ever be written): two `lstat`s.
fn large_folder(paths: &Paths) -> bool {
    fs::symlink_metadata(paths.handoffs()).is_ok_and(|m| m.is_dir() && m.len() > TICK_LIST_CAP)
        && super::safe::is_real_dir(&paths.logs())
}

/// Takes the lock a detached rebuild of the count holds while it runs
/// (`logs/signal-cache.lock`), without waiting: `None` when one runs already (or
/// the lock cannot be had).
pub(crate) fn recount_lock(paths: &Paths) -> Option<super::FileLock> {
    if !super::safe::is_real_dir(&paths.logs()) {
        return None;
    }
    super::FileLock::acquire(&paths.logs().join(SIGNAL_CACHE_LOCK), Duration::ZERO)
}

/// Whether another process holds [`recount_lock`] (a lock file that cannot be
/// opened counts as held: no rebuild is started for it).
pub(crate) fn recount_running(paths: &Paths) -> bool {
    recount_lock(paths).is_none()
}

/// How long until the cache, rebuilt now, would answer alone: `None` when it does
/// already, else the time left until the folders' last change is [`SIGNAL_RACY`]
/// old (a cache built before that is not trusted, see [`fresh_answer`]).
pub(crate) fn racy_wait(paths: &Paths, now: SystemTime) -> Option<Duration> {
    let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let text = super::safe::read_capped(
        &paths.logs().join(SIGNAL_CACHE),
        SIGNAL_HEAD_CAP,
        super::safe::Follow::No,
    )
    .ok()?;
    let head = Head::parse(&text)?;
    if fresh_answer(&head, &paths.handoffs(), now_ns).is_some() {
        return None;
    }
    let trusted_at = Stamps::of(head.stamped())
        .newest
        .saturating_add(SIGNAL_RACY.as_nanos());
    Some(Duration::from_nanos(
        u64::try_from(trusted_at.saturating_sub(now_ns)).unwrap_or(u64::MAX),
    ))
}

/// The lock file of a detached rebuild (see [`recount_lock`]).
const SIGNAL_CACHE_LOCK: &str = "signal-cache.lock";

/// What a look at the cache's head found.
struct Look {
    /// The count, when the cache answers alone.
    answer: Option<usize>,
    /// Otherwise (missing, cut, another project's, or the folders changed): the open
    /// cache and the bytes read of it, for a rebuild.
    cache: Option<(fs::File, fs::Metadata)>,
    old_bytes: Vec<u8>,
    /// Its last count, when it is this project's and was built in the past.
    last: Option<usize>,
    /// Its length.
    len: u64,
    /// Its head is longer than [`SIGNAL_HEAD_CAP`]: no rebuild makes it readable, so
    /// a tick rebuilds (slower, and still right).
    long_head: bool,
}

/// Reads the cache's head (one open, [`SIGNAL_HEAD_READ`] bytes, at most
/// [`SIGNAL_HEAD_CAP`] for a long head) and checks it against the disk.
fn look(paths: &Paths, now_ns: u128) -> Look {
    let cache_path = paths.logs().join(SIGNAL_CACHE);
    // One open: the head answers, else the rest is read from the same handle.
    let cache = super::safe::open_read_meta(&cache_path, super::safe::Follow::No).ok();
    let mut old_bytes = Vec::new();
    let mut last = None;
    let mut len = 0;
    let mut long_head = false;
    if let Some((file, meta)) = &cache {
        len = meta.len();
        old_bytes = super::safe::read_file_capped(file, len, SIGNAL_HEAD_READ).unwrap_or_default();
        let mut head = Head::parse(&old_bytes);
        if head.is_none() && old_bytes.len() as u64 == SIGNAL_HEAD_READ {
            // A long head: the rest of it, from the same handle.
            match super::safe::read_file_capped(file, len, SIGNAL_HEAD_CAP - SIGNAL_HEAD_READ) {
                Ok(more) => old_bytes.extend_from_slice(&more),
                Err(_) => old_bytes.clear(),
            }
            head = Head::parse(&old_bytes);
            long_head = head.is_none() && old_bytes.len() as u64 == SIGNAL_HEAD_CAP;
        }
        if let Some(head) = head {
            let project = paths.handoffs();
            let answer = fresh_answer(&head, &project, now_ns);
            if answer.is_some() {
                return Look {
                    answer,
                    cache: None,
                    old_bytes: Vec::new(),
                    last: None,
                    len,
                    long_head: false,
                };
            }
            let ours = head.folders.first().map(PathBuf::as_path) == Some(project.as_path());
            last = (ours && head.built <= now_ns).then_some(head.blocked);
        }
    }
    Look {
        answer: None,
        cache,
        old_bytes,
        last,
        len,
        long_head,
    }
}

/// Lists the inbox's folders, parses the agent files that are new or changed since
/// the cache (`cache`, of which `old_bytes` were read) was built, and rewrites it;
/// returns the count.
fn rebuild(
    paths: &Paths,
    now_ns: u128,
    cache: Option<(fs::File, fs::Metadata)>,
    mut old_bytes: Vec<u8>,
) -> usize {
    let cache_path = paths.logs().join(SIGNAL_CACHE);
    let inbox = super::inbox::Inbox::of(paths);
    // The folders this project reads (its own whatever it holds; another only when
    // sound), and what can change them: a refused folder is a mark, so the cache
    // notices when it is fixed.
    let mut folders = Vec::new();
    let mut marks: Vec<(PathBuf, bool)> = Vec::new();
    for (i, f) in inbox.folders.iter().enumerate() {
        if i == 0 || f.paths.check().is_ok() {
            folders.push(f.paths.handoffs());
        } else {
            marks.push((f.paths.handoffs(), false));
        }
    }
    // The cache of the Signals shared through the git remote (docs/share.md): one
    // folder more, stamped whether it exists or not, so its first fetch is seen.
    let remote = share::inbox_dir(&inbox.home);
    if share::sound(&inbox.home) {
        folders.push(remote);
    } else {
        marks.push((remote, false));
    }
    marks.extend(inbox.marks.iter().map(|m| (m.path.clone(), m.inode_only)));
    // Stamped before listing: a change while listing shows at the next tick.
    let mut head = Head {
        digest: 0,
        built: now_ns,
        blocked: 0,
        folders,
        marks,
    };
    head.digest = Stamps::of(head.stamped()).digest;
    let files = agent_files(&head.folders);
    // The rest of the cache, at most what rows for these files can take: a cache
    // shipped with millions of rows is not read into memory.
    if let Some((file, meta)) = &cache
        && !old_bytes.is_empty()
        && (old_bytes.len() as u64) < meta.len()
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
    let rows = rows_for(&files, &old_bytes);
    let mut body = String::with_capacity(rows.len() * 80);
    for r in &rows {
        body.push_str(&r.line());
    }
    head.blocked = open_blocked(rows);
    if super::safe::is_real_dir(&paths.logs()) {
        let text = format!("{}{body}", head.text());
        let _ = super::write_state(&cache_path, text.as_bytes());
    }
    head.blocked
}

/// One agent file of a folder: the folder's place, its name, length, mtime and
/// path.
type AgentFile = (usize, String, u64, u128, PathBuf);

/// Every `agent-*.md` regular file of `folders`.
fn agent_files(folders: &[PathBuf]) -> Vec<AgentFile> {
    let mut files = Vec::new();
    for (i, dir) in folders.iter().enumerate() {
        let Ok(read) = fs::read_dir(dir) else {
            continue;
        };
        for e in read.filter_map(Result::ok) {
            let name = e.file_name();
            let Some(name) = name.to_str() else { continue };
            if HandoffKind::of_file_name(name) != Some(HandoffKind::Agent) || name.contains('\n') {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_file() {
                files.push((i, name.to_owned(), meta.len(), mtime_ns(&meta), e.path()));
            }
        }
    }
    files
}

/// The rows of `files`: the old cache's (`old`, its whole text) for a file whose
/// length and mtime are unchanged, a fresh parse otherwise; sorted by folder and
/// name.
fn rows_for(files: &[AgentFile], old: &[u8]) -> Vec<CacheRow> {
    let old_head = Head::parse(old);
    let old_text = String::from_utf8_lossy(old);
    let listed: std::collections::HashSet<(&Path, &str)> = files
        .iter()
        .map(|f| (f.4.parent().unwrap_or(Path::new("")), f.1.as_str()))
        .collect();
    let old: std::collections::HashMap<(PathBuf, String), CacheRow> = old_head
        .map(|h| {
            old_text
                .lines()
                .skip(3)
                .filter_map(CacheRow::parse)
                .filter_map(|r| {
                    let dir = h.folders.get(r.folder)?.clone();
                    listed
                        .contains(&(dir.as_path(), r.name.as_str()))
                        .then(|| ((dir, r.name.clone()), r))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut rows: Vec<CacheRow> = Vec::with_capacity(files.len());
    for (folder, name, len, mtime, path) in files {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let row = match old.get(&(dir, name.clone())) {
            Some(r) if r.len == *len && r.mtime == *mtime => CacheRow {
                folder: *folder,
                ..r.clone()
            },
            _ => CacheRow::of(*folder, name, *len, *mtime, load_one(path).as_ref()),
        };
        rows.push(row);
    }
    rows.sort_by(|a, b| (a.folder, &a.name).cmp(&(b.folder, &b.name)));
    rows
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
    fn a_writer_is_replaced_whole_and_its_entries_say_they_are_remote() {
        let t = tempfile::tempdir().unwrap();
        let home = Paths::new(t.path());
        home.ensure_dirs().unwrap();
        let tag = "0badcafe";
        let signal = "## FORGE AGENT HANDOFF\nTask: T-1\n### Signal\n```json\n\
                      {\"from\":\"a\",\"to\":\"b\",\"task_id\":\"T-1\",\"status\":\"blocked\",\"blocking\":true}\n```\n";
        let one = "agent-r0badcafe-T-1-20261121-101502.md".to_owned();
        let two = "agent-r0badcafe-T-2-20261121-101502.md".to_owned();
        let index = |names: &[&String]| share::WriterIndex {
            writer: "box-1".into(),
            machine: "box".into(),
            commit: "c1".into(),
            names: names
                .iter()
                .map(|n| ((*n).clone(), "main".to_owned()))
                .collect(),
        };
        share::replace_writer(
            &home,
            tag,
            &index(&[&one, &two]),
            &[
                (one.clone(), signal.into()),
                (two.clone(), signal.replace("T-1", "T-2")),
            ],
        )
        .unwrap();
        let entries = remote_entries(&home, &|e| e);
        assert_eq!(entries.len(), 2);
        let o = entries[0].origin.as_deref().unwrap();
        assert_eq!(o.remote.as_ref().unwrap().writer, "box-1");
        assert_eq!(o.branch.as_deref(), Some("main"));
        assert!(entries[0].is_remote());
        assert!(
            entries[0]
                .place(t.path())
                .contains("a remote Signal, from remote writer box-1 on machine box (branch main)")
        );
        // The next commit has one of them: the other goes.
        share::replace_writer(&home, tag, &index(&[&one]), &[(one.clone(), signal.into())])
            .unwrap();
        assert_eq!(remote_entries(&home, &|e| e).len(), 1);
        // A forged index never names a file outside the writer's own.
        let mut forged = index(&[&one]);
        forged
            .names
            .insert("../../handoffs/agent-x.md".into(), String::new());
        share::replace_writer(&home, tag, &forged, &[("agent-x.md".into(), "x".into())]).unwrap();
        assert!(!share::inbox_dir(&home).join("agent-x.md").exists());
        assert_eq!(share::writer_tags(&home), [tag]);
        assert!(share::is_cached(&share::inbox_dir(&home).join(&one)));
        assert!(!share::is_cached(&home.handoffs().join(&one)));
        share::remove_writer(&home, tag).unwrap();
        assert!(remote_entries(&home, &|e| e).is_empty());
        assert!(share::writer_tags(&home).is_empty());
    }

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
        // The three lines of the head (no work trees here: no marks), then a row a file.
        assert_eq!(text.lines().count(), 53, "{text}");
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
        let folder = paths.handoffs();
        let stamps = Stamps::of(std::iter::once((folder.as_path(), false)));
        let built = stamps.newest + SIGNAL_RACY.as_nanos();
        let line = |digest: u64, built: u128| {
            format!(
                "dir {digest} {built} 7\nfolders {}\nmarks\n",
                encode_path(&folder)
            )
        };
        let now = built + 1;
        let answer =
            |text: &str| Head::parse(text.as_bytes()).and_then(|h| fresh_answer(&h, &folder, now));
        let good = line(stamps.digest, built);
        assert_eq!(answer(&good), Some(7));
        assert_eq!(answer(good.trim_end()), None, "cut before its end");
        assert_eq!(
            answer(&line(stamps.digest ^ 1, built)),
            None,
            "another folder state"
        );
        assert_eq!(
            answer(&line(stamps.digest, now + 1)),
            None,
            "built in the future"
        );
        assert_eq!(
            Head::parse(good.as_bytes()).and_then(|h| fresh_answer(
                &h,
                Path::new("/elsewhere"),
                now
            )),
            None,
            "another project's cache"
        );
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
    fn the_count_is_of_every_worktree_and_a_change_in_any_is_seen() {
        use crate::git::tests::git;
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let main = base.join("main");
        std::fs::create_dir_all(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "one"]);
        let wt = base.join("wt");
        git(
            &main,
            &["worktree", "add", "-q", "-b", "b", wt.to_str().unwrap()],
        );
        let (here, there) = (Paths::new(&wt), Paths::new(&main));
        std::fs::create_dir_all(here.logs()).unwrap();
        std::fs::create_dir_all(there.handoffs()).unwrap();
        let fixture = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
        )
        .unwrap();
        let put = |dir: &Paths, task: &str| {
            std::fs::write(
                dir.handoffs()
                    .join(format!("agent-{task}-20261121-101502.md")),
                fixture.replace("T-012", task),
            )
            .unwrap();
        };
        put(&there, "T-1");
        let now = SystemTime::now;
        let later = || now() + SIGNAL_RACY + Duration::from_secs(1);
        assert_eq!(count_blocked(&here, now()), 1, "the main work tree's inbox");
        assert_eq!(count_blocked(&here, later()), 1, "rebuilt");
        // Served from the head alone now: a forged answer shows it.
        let cache = here.logs().join(SIGNAL_CACHE);
        let text = std::fs::read_to_string(&cache).unwrap();
        assert!(
            text.contains(&format!(
                "folders {} {} {}\n",
                encode_path(&here.handoffs()),
                encode_path(&there.handoffs()),
                encode_path(&share::inbox_dir(&there))
            )),
            "{text}"
        );
        let (first, rest) = text.split_once('\n').unwrap();
        std::fs::write(
            &cache,
            format!("{} 9\n{rest}", first.rsplit_once(' ').unwrap().0),
        )
        .unwrap();
        assert_eq!(count_blocked(&here, later()), 9);
        // A file added in the other folder changes its change time: counted at once.
        put(&there, "T-2");
        assert_eq!(count_blocked(&here, later()), 2);
        // So is a new work tree (the repository's worktrees/ changed) with its own.
        let wt2 = base.join("wt2");
        git(
            &main,
            &["worktree", "add", "-q", "-b", "c", wt2.to_str().unwrap()],
        );
        let third = Paths::new(&wt2);
        std::fs::create_dir_all(third.handoffs()).unwrap();
        put(&third, "T-3");
        assert_eq!(count_blocked(&here, later()), 3);
        // And its removal.
        git(
            &main,
            &["worktree", "remove", "--force", wt2.to_str().unwrap()],
        );
        assert_eq!(count_blocked(&here, later()), 2);
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

    /// A project with `.forge/handoffs` and `.forge/logs`, and the text of a blocked
    /// Signal (task T-012).
    fn project_with_blocked_fixture() -> (tempfile::TempDir, Paths, String) {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        std::fs::create_dir_all(paths.logs()).unwrap();
        let fixture = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
        )
        .unwrap();
        (t, paths, fixture)
    }

    #[test]
    fn a_tick_shows_a_large_caches_last_count_until_a_recount_and_a_small_one_at_once() {
        let (_t, paths, fixture) = project_with_blocked_fixture();
        let put = |task: &str| {
            std::fs::write(
                paths
                    .handoffs()
                    .join(format!("agent-{task}-20261121-101502.md")),
                fixture.replace("T-012", task),
            )
            .unwrap();
        };
        put("T-1");
        let now = SystemTime::now;
        let later = || now() + SIGNAL_RACY + Duration::from_secs(1);
        let fresh = |blocked| TickCount {
            blocked,
            stale: false,
        };
        // A small cache: the tick rebuilds it, the new Signal counts at once.
        assert_eq!(count_for_tick(&paths, now()), fresh(1));
        put("T-2");
        assert_eq!(count_for_tick(&paths, now()), fresh(2));
        // A large one (more rows than the tick rebuilds): the last count, stale,
        // until a recount (count_blocked) rebuilds it.
        for i in 0..200 {
            std::fs::write(
                paths
                    .handoffs()
                    .join(format!("agent-Q-{i}-20261121-100000.md")),
                "no signal\n",
            )
            .unwrap();
        }
        assert_eq!(count_blocked(&paths, later()), 2);
        assert!(
            std::fs::metadata(paths.logs().join(SIGNAL_CACHE))
                .unwrap()
                .len()
                > TICK_REBUILD_CAP
        );
        assert_eq!(count_for_tick(&paths, later()), fresh(2));
        assert_eq!(racy_wait(&paths, later()), None);
        put("T-3");
        let stale = TickCount {
            blocked: 2,
            stale: true,
        };
        // (The cache was built at a `later()`: the ticks look later still.)
        assert_eq!(count_for_tick(&paths, later()), stale);
        assert_eq!(
            count_for_tick(&paths, later()),
            stale,
            "no tick rebuilds it"
        );
        assert!(racy_wait(&paths, now()).is_some());
        // The recount: at once the new count (not yet trusted alone), then fresh.
        assert_eq!(count_blocked(&paths, now()), 3);
        assert!(racy_wait(&paths, now()).is_some_and(|w| w <= SIGNAL_RACY));
        assert_eq!(
            count_for_tick(&paths, now()),
            TickCount {
                blocked: 3,
                stale: true
            }
        );
        assert_eq!(count_blocked(&paths, later()), 3);
        assert_eq!(racy_wait(&paths, later()), None);
        assert_eq!(count_for_tick(&paths, later()), fresh(3));
        // A handoff deleted by hand changes the folder: noticed the same way.
        std::fs::remove_file(paths.handoffs().join("agent-T-3-20261121-101502.md")).unwrap();
        assert!(count_for_tick(&paths, later()).stale);
        assert_eq!(count_blocked(&paths, later()), 2);
        // One recount at a time.
        let held = recount_lock(&paths).unwrap();
        assert!(recount_running(&paths));
        drop(held);
        assert!(!recount_running(&paths));
    }

    #[test]
    fn a_tick_in_a_large_folder_with_no_count_of_its_own_does_not_list_it() {
        let (_t, paths, fixture) = project_with_blocked_fixture();
        std::fs::write(
            paths.handoffs().join("agent-T-012-20261121-101502.md"),
            &fixture,
        )
        .unwrap();
        let cache = paths.logs().join(SIGNAL_CACHE);
        let later = || SystemTime::now() + SIGNAL_RACY + Duration::from_secs(1);
        // A small folder with no cache: the tick counts at once.
        assert_eq!(
            count_for_tick(&paths, SystemTime::now()),
            TickCount {
                blocked: 1,
                stale: false
            }
        );
        std::fs::remove_file(&cache).unwrap();
        // A large one (more than TICK_LIST_CAP of names, on any file system): none
        // shown and a recount asked for; the tick wrote no cache, so listed nothing.
        for i in 0..800 {
            std::fs::write(
                paths
                    .handoffs()
                    .join(format!("session-20261121-10{i:04}-abcdef.md")),
                "",
            )
            .unwrap();
        }
        assert!(large_folder(&paths));
        let unknown = TickCount {
            blocked: 0,
            stale: true,
        };
        assert_eq!(count_for_tick(&paths, later()), unknown);
        assert!(!cache.exists(), "the tick rebuilt the count");
        // The recount builds it; ticks read it from then on.
        assert_eq!(count_blocked(&paths, later()), 1);
        assert_eq!(
            count_for_tick(&paths, later()),
            TickCount {
                blocked: 1,
                stale: false
            }
        );
        // Another project's cache (a copied .forge/) or one stamped in the future
        // is no count of this project's: the same, and it is left for the recount.
        let text = std::fs::read_to_string(&cache).unwrap();
        let head = Head::parse(text.as_bytes()).unwrap();
        for forged in [
            Head {
                folders: vec![PathBuf::from("/elsewhere/.forge/handoffs")],
                ..head.clone()
            },
            Head {
                built: u128::MAX / 2,
                digest: 0,
                ..head.clone()
            },
        ] {
            let forged = forged.text();
            std::fs::write(&cache, &forged).unwrap();
            assert_eq!(count_for_tick(&paths, later()), unknown);
            assert_eq!(std::fs::read_to_string(&cache).unwrap(), forged);
        }
        // A link where the folder is: not followed, so not large; nor is a folder
        // whose count could not be written.
        let elsewhere = tempfile::tempdir().unwrap();
        let other = Paths::new(elsewhere.path());
        std::fs::create_dir_all(other.logs()).unwrap();
        std::os::unix::fs::symlink(paths.handoffs(), other.handoffs()).unwrap();
        assert!(!large_folder(&other));
        std::fs::remove_dir_all(paths.logs()).unwrap();
        assert!(!large_folder(&paths));
    }

    #[test]
    fn a_head_longer_than_the_first_read_still_answers_alone() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        std::fs::create_dir_all(paths.logs()).unwrap();
        let later = || SystemTime::now() + SIGNAL_RACY + Duration::from_secs(1);
        assert_eq!(count_blocked(&paths, later()), 0);
        let cache = paths.logs().join(SIGNAL_CACHE);
        let text = std::fs::read_to_string(&cache).unwrap();
        let mut head = Head::parse(text.as_bytes()).unwrap();
        // Marks for 60 work trees that are gone (a path that is missing stamps as
        // such): a head of about 6 KiB, longer than SIGNAL_HEAD_READ.
        for i in 0..60 {
            head.marks.push((
                t.path().join(format!(
                    "{}/worktree-{i}/.git",
                    "a-long-folder-name".repeat(4)
                )),
                false,
            ));
        }
        head.digest = Stamps::of(head.stamped()).digest;
        let long = head.text();
        assert!((SIGNAL_HEAD_READ..SIGNAL_HEAD_CAP).contains(&(long.len() as u64)));
        std::fs::write(&cache, &long).unwrap();
        assert_eq!(
            count_for_tick(&paths, later()),
            TickCount {
                blocked: 0,
                stale: false
            }
        );
        assert_eq!(std::fs::read_to_string(&cache).unwrap(), long, "rebuilt");
    }
}
