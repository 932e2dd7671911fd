//! The on-disk side of forge: paths, atomic writes, capped logs and typed state files.
//!
//! Every writer here is atomic (a temp file in the same folder, then a rename), so a
//! reader — another hook, the statusline, the dashboard, another tool — never sees a
//! half-written file. Every reader treats a missing or unparsable file as "no data".
//! Temp files start with `.forge-` and end with `.tmp` so the watcher can ignore them.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod files;
pub mod handoffs;
pub mod paths;
pub mod session_handoff;
pub mod snapshot;
pub mod transcript;

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

pub use paths::{Paths, resolve_root, sanitize_id};

/// Size at which `events.jsonl` is rotated to `events.jsonl.1`.
pub const EVENTS_CAP: u64 = 1024 * 1024;
/// Size at which `errors.log` is rotated to `errors.log.1`.
pub const ERRORS_CAP: u64 = 256 * 1024;
/// Size at which `compactions.jsonl` is rotated.
pub const COMPACTIONS_CAP: u64 = 512 * 1024;

/// Prefix of every temp file forge creates; the watcher ignores these.
pub const TEMP_PREFIX: &str = ".forge-";
/// Suffix of every temp file forge creates.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically: temp file in the same folder, sync, rename.
///
/// Creates the parent folder when missing. An existing file keeps its permission
/// mode; a new file gets the usual `0666 & !umask` (0644 under the common umask),
/// not the temp file's private 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    persist_new_temp(path, bytes, existing, false, true)
}

/// [`write_atomic`] without the `fsync`, for forge's own high-frequency state (the
/// session bridges, git and Signal caches, flags): rewritten on every turn or tick,
/// where a sync would be most of a hook's cost. Readers still never see
/// a torn file (the rename is atomic); after a power cut the worst case is the
/// previous version, or no file, which readers treat as "no data". Documents people
/// and other tools rely on (handoffs, last-session, pre-compact state, settings,
/// pending-resume) keep the sync.
pub fn write_state(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let existing = fs::metadata(path).ok().map(|m| m.permissions());
    persist_new_temp(path, bytes, existing, false, false)
}

/// Writes `bytes` to a new file at `path`, failing with `AlreadyExists` rather than
/// replacing a file someone else created first. Atomic: the content appears whole.
/// The file gets `0666 & !umask`, like any newly created file.
pub fn write_new_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    persist_new_temp(path, bytes, None, true, true)
}

/// [`write_new_atomic`] with the permissions of `like` (a backup keeps the mode of
/// the file it copies, so a private settings file gets a private backup).
pub fn write_new_atomic_like(path: &Path, bytes: &[u8], like: &Path) -> io::Result<()> {
    let perms = fs::metadata(like).ok().map(|m| m.permissions());
    persist_new_temp(path, bytes, perms, true, true)
}

/// The one atomic writer: temp file (`.forge-*.tmp`) in the target's folder, its
/// mode set *before* any content is written, sync (when `sync`), then rename (or
/// link, for `no_clobber`). `perms: None` means a new file's default mode.
fn persist_new_temp(
    path: &Path,
    bytes: &[u8],
    perms: Option<fs::Permissions>,
    no_clobber: bool,
    sync: bool,
) -> io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    // tempfile creates 0600 by default; ask for 0666 so the umask decides, as for
    // any file a program creates.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    if let Some(perms) = perms {
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_data()?;
    }
    if no_clobber {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    } else {
        tmp.persist(path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// Serialises `value` as pretty JSON (with a trailing newline) and writes it as state
/// ([`write_state`]: atomic, not synced).
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_state(path, &bytes)
}

/// [`write_json`] with an `fsync` before the rename, for the contract files other
/// tools read after a session (`last-session.json`, `pre-compact-state.json`):
/// written once a turn, so durability is cheap there.
pub fn write_json_synced<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Reads and parses a JSON file; missing, unreadable or unparsable means `None`.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = read_capped(path, 4 * 1024 * 1024)?;
    serde_json::from_slice(&bytes).ok()
}

/// Reads at most `cap` bytes of a file; `None` when it is missing or unreadable.
pub fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    let file = fs::File::open(path).ok()?;
    // Sized from the file's length, so a small file is read in one call rather than
    // in growing 32-, 64-, 128-byte probes (this runs on the statusline's hot path).
    let hint = file.metadata().map_or(0, |m| m.len().min(cap));
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0).saturating_add(1));
    file.take(cap).read_to_end(&mut buf).ok()?;
    Some(buf)
}

/// Reads a small text file (lossy UTF-8, capped at 1 MiB); `None` when missing.
pub fn read_text(path: &Path) -> Option<String> {
    read_capped(path, 1024 * 1024).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Creates an empty flag file (atomically; an existing flag is left as it is).
pub fn touch_flag(path: &Path) -> io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    write_state(path, b"")
}

/// Removes a file; a file that is already gone is not an error.
/// Returns whether this call removed it (so exactly one racer "wins").
pub fn remove_if_exists(path: &Path) -> io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// An advisory lock (`flock`) on a small, persistent lock file; released on drop
/// (and by the kernel when a process dies, so a crash never leaves a stale lock).
///
/// Hooks never wait on a lock without limit: [`FileLock::acquire`] gives up after a
/// deadline of tens of milliseconds and the caller carries on without it.
#[derive(Debug)]
pub struct FileLock {
    _file: fs::File,
}

impl FileLock {
    /// Tries to take the lock at `path` (creating the lock file when missing) until
    /// `deadline` has passed.
    pub fn acquire(path: &Path, deadline: Duration) -> Option<Self> {
        let start = Instant::now();
        let open = || {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
        };
        let file = match open() {
            Ok(f) => f,
            Err(_) => {
                fs::create_dir_all(path.parent()?).ok()?;
                open().ok()?
            }
        };
        loop {
            match file.try_lock() {
                Ok(()) => return Some(Self { _file: file }),
                Err(fs::TryLockError::WouldBlock) => {}
                // A file system without flock: locking cannot work there, so carry on
                // unlocked rather than never writing at all.
                Err(fs::TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => {
                    return Some(Self { _file: file });
                }
                Err(fs::TryLockError::Error(_)) => return None,
            }
            if start.elapsed() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Appends one line to a log file with `O_APPEND` in a single write, so concurrent
/// writers never interleave within a line. When the file has grown past `cap`, it
/// is first rotated to `<name>.1` (under a short lock, so two writers never rotate
/// twice and lose lines).
pub fn append_line_capped(path: &Path, line: &str, cap: u64) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    if fs::metadata(path).map(|m| m.len()).unwrap_or(0) >= cap {
        rotate(path, cap);
    }
    let mut buf = String::with_capacity(line.len() + 1);
    buf.push_str(line.trim_end_matches('\n'));
    buf.push('\n');
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(buf.as_bytes())
}

fn rotate(path: &Path, cap: u64) {
    let lock_path = sibling(path, ".lock");
    let Some(_lock) = FileLock::acquire(&lock_path, Duration::from_millis(50)) else {
        return;
    };
    // Another writer may have rotated while we waited for the lock.
    if fs::metadata(path).map(|m| m.len()).unwrap_or(0) < cap {
        return;
    }
    let _ = fs::rename(path, sibling(path, ".1"));
}

/// `path` with `suffix` appended to its file name.
pub fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// Reads the last `max_lines` lines of a text file, reading at most `max_bytes` from
/// its end. A first partial line (cut by the byte cap) is dropped.
pub fn tail_lines(path: &Path, max_lines: usize, max_bytes: u64) -> Vec<String> {
    let Ok(mut file) = fs::File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(max_bytes);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut buf = Vec::new();
    if file.take(max_bytes).read_to_end(&mut buf).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines: Vec<&str> = text.lines().collect();
    if start > 0 && !lines.is_empty() {
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(max_lines);
    lines
        .into_iter()
        .skip(skip)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// Appends a line to `.forge/logs/errors.log` (capped). Never fails: logging must not
/// break the hook or statusline that is reporting a problem.
pub fn log_error(paths: &Paths, context: &str, message: &str) {
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let one_line: String = message
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .take(2000)
        .collect();
    let _ = append_line_capped(
        &paths.errors_log(),
        &format!("{now} [{context}] {one_line}"),
        ERRORS_CAP,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomic_replaces_whole_file_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn write_new_atomic_refuses_to_replace() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.md");
        write_new_atomic(&p, b"first").unwrap();
        let err = write_new_atomic(&p, b"second").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&p).unwrap(), b"first");
    }

    #[cfg(unix)]
    #[test]
    fn writes_keep_an_existing_mode_and_give_new_files_the_umask_default() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let umask = fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022);
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("new.json");
        write_atomic(&fresh, b"x").unwrap();
        assert_eq!(mode(&fresh), 0o666 & !umask);
        let private = dir.path().join("private.json");
        fs::write(&private, "old").unwrap();
        fs::set_permissions(&private, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&private, b"new").unwrap();
        assert_eq!(mode(&private), 0o600);
        let script = dir.path().join("run.sh");
        fs::write(&script, "old").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&script, b"new").unwrap();
        assert_eq!(mode(&script), 0o755);
        let created = dir.path().join("h.md");
        write_new_atomic(&created, b"x").unwrap();
        assert_eq!(mode(&created), 0o666 & !umask);
        let bak = dir.path().join("private.json.bak");
        write_new_atomic_like(&bak, b"old", &private).unwrap();
        assert_eq!(mode(&bak), 0o600);
    }

    #[test]
    fn read_json_treats_garbage_as_no_data() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        assert!(read_json::<serde_json::Value>(&p).is_none());
        fs::write(&p, "{not json").unwrap();
        assert!(read_json::<serde_json::Value>(&p).is_none());
    }

    #[test]
    fn append_rotates_past_cap_and_keeps_lines_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("events.jsonl");
        for i in 0..100 {
            append_line_capped(&p, &format!("{{\"n\":{i}}}"), 200).unwrap();
        }
        let current = fs::read_to_string(&p).unwrap();
        let rotated = fs::read_to_string(sibling(&p, ".1")).unwrap();
        assert!(current.len() < 400, "current file stays near the cap");
        for line in current.lines().chain(rotated.lines()) {
            serde_json::from_str::<serde_json::Value>(line).unwrap();
        }
        assert!(current.ends_with("{\"n\":99}\n"));
    }

    #[test]
    fn tail_lines_returns_last_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.log");
        let body: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        fs::write(&p, body).unwrap();
        let last = tail_lines(&p, 3, 100);
        assert_eq!(last, vec!["line 997", "line 998", "line 999"]);
    }

    #[test]
    fn lock_is_exclusive_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/x.lock");
        let first = FileLock::acquire(&p, Duration::from_millis(10)).unwrap();
        assert!(FileLock::acquire(&p, Duration::from_millis(10)).is_none());
        drop(first);
        assert!(FileLock::acquire(&p, Duration::from_millis(10)).is_some());
    }
}
