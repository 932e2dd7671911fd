//! The on-disk side of forge: paths, atomic writes, capped logs and typed state files.
//!
//! Every writer here is atomic (a temp file in the same folder, then a rename), so a
//! reader — another hook, the statusline, the dashboard, another tool — never sees a
//! half-written file. Every reader treats a missing or unparsable file as "no data".
//! Temp files start with `.forge-` and end with `.tmp` so the watcher can ignore them.
//!
//! Every file is opened through [`safe`]: never through a final symbolic link, never
//! a FIFO or device, always with a size cap (OpenSSH's StrictModes, see there).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

pub mod chains;
pub(crate) mod events;
pub(crate) mod files;
pub(crate) mod guard;
pub(crate) mod handoffs;
pub(crate) mod inbox;
pub(crate) mod memory;
pub(crate) mod paths;
pub(crate) mod process;
pub(crate) mod registry;
pub(crate) mod safe;
pub(crate) mod sessions;
pub(crate) mod share;
pub(crate) mod transcript;
pub(crate) mod trust;

use std::fs;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

pub use paths::Paths;
pub(crate) use paths::{resolve_root, same_file, sanitize_id};

/// Size at which `events.jsonl` is rotated to `events.jsonl.1`.
pub(crate) const EVENTS_CAP: u64 = 1024 * 1024;
/// Size at which `errors.log` is rotated to `errors.log.1`.
pub(crate) const ERRORS_CAP: u64 = 256 * 1024;
/// Size at which `compactions.jsonl` is rotated.
pub(crate) const COMPACTIONS_CAP: u64 = 512 * 1024;

/// Prefix of every temp file forge creates; the watcher ignores these.
pub(crate) const TEMP_PREFIX: &str = ".forge-";
/// Suffix of every temp file forge creates.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// Writes `bytes` to `path` atomically: temp file in the same folder, sync, rename.
///
/// Creates the parent folder when missing. An existing file keeps its permission
/// mode; a new file gets the usual `0666 & !umask` (0644 under the common umask),
/// not the temp file's private 0600.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    persist_new_temp(path, bytes, existing_mode(path), false, true)
}

/// The permissions of the regular file at `path` itself (never of what a link there
/// points to: a planted link must not lend its target's mode to forge's file).
fn existing_mode(path: &Path) -> Option<fs::Permissions> {
    fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map(|m| m.permissions())
}

/// [`write_atomic`] without the `fsync`, for forge's own high-frequency state (the
/// session bridges, git and Signal caches, flags): rewritten on every turn or tick,
/// where a sync would be most of a hook's cost. Readers still never see
/// a torn file (the rename or exchange is atomic); after a power cut the worst case
/// is the previous version, no file or an empty one, which readers treat as "no
/// data". Documents people and other tools rely on (handoffs, the final
/// last-session, pre-compact state, settings, pending-resume) keep the sync.
pub(crate) fn write_state(path: &Path, bytes: &[u8]) -> io::Result<()> {
    persist_new_temp(path, bytes, existing_mode(path), false, false)
}

/// Writes `bytes` to a new file at `path`, failing with `AlreadyExists` rather than
/// replacing a file someone else created first. Atomic: the content appears whole.
/// The file gets `0666 & !umask`, like any newly created file.
pub(crate) fn write_new_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    persist_new_temp(path, bytes, None, true, true)
}

/// [`write_new_atomic`] with the permissions of `like` (a backup keeps the mode of
/// the file it copies, so a private settings file gets a private backup).
pub(crate) fn write_new_atomic_like(path: &Path, bytes: &[u8], like: &Path) -> io::Result<()> {
    persist_new_temp(path, bytes, existing_mode(like), true, true)
}

/// The one atomic writer: temp file (`.forge-*.tmp`) in the target's folder, its
/// mode set *before* any content is written, sync (when `sync`), then rename (or
/// link, for `no_clobber`). `perms: None` means a new file's default mode.
///
/// The rename replaces whatever entry is at `path` (a planted link or FIFO included)
/// and never writes through it.
fn persist_new_temp(
    path: &Path,
    bytes: &[u8],
    perms: Option<fs::Permissions>,
    no_clobber: bool,
    sync: bool,
) -> io::Result<()> {
    #[cfg(test)]
    safe::trace::note(safe::trace::Op::Write, path);
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    safe::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    // tempfile creates 0600 by default; ask for 0666 so the umask decides, as for
    // any file a program creates.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let replaces_file = perms.is_some() && !no_clobber;
    let mut tmp = builder.tempfile_in(dir)?;
    if let Some(perms) = perms {
        tmp.as_file().set_permissions(perms)?;
    }
    tmp.write_all(bytes)?;
    if sync {
        tmp.as_file().sync_data()?;
    } else if replaces_file && exchange(tmp.path(), path) {
        // The previous version now has the temp name; dropping the temp file removes
        // it. (Not a plain rename over the old file: ext4 flushes the new file's data
        // at such a rename — its guard for programs that skip the sync — which is
        // most of an unsynced write's cost there, ~0.15 ms of every hook's state
        // file. Live readers see the old file or the new one either way; after a
        // power cut an unsynced state file may be empty, which readers treat as no
        // data, as they do a missing one.)
        drop(tmp);
        return Ok(());
    }
    if no_clobber {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    } else {
        tmp.persist(path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// Swaps the files at `a` and `b` in one step (`renameat2` with `RENAME_EXCHANGE`).
/// False where the system or the file system cannot (the caller renames instead).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> bool {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).is_ok()
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> bool {
    false
}

/// Serialises `value` as pretty JSON (with a trailing newline) and writes it as state
/// ([`write_state`]: atomic, not synced).
pub(crate) fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_state(path, &bytes)
}

/// [`write_json`] with an `fsync` before the rename, for the contract files other
/// tools read after a session (the final `last-session.json`,
/// `pre-compact-state.json`): written once a session or once a compaction.
pub(crate) fn write_json_synced<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Reads and parses a JSON file; missing, unreadable or unparsable means `None`.
pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = read_capped(path, 4 * 1024 * 1024)?;
    serde_json::from_slice(&bytes).ok()
}

/// Reads at most `cap` bytes of a regular file (never through a final link, never a
/// FIFO: see [`safe`]); `None` when it is missing, unreadable or not a regular file.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    safe::read_capped(path, cap, safe::Follow::No).ok()
}

/// Reads a small text file (lossy UTF-8, capped at 1 MiB) as [`read_capped`] does;
/// `None` when missing.
pub(crate) fn read_text(path: &Path) -> Option<String> {
    read_capped(path, 1024 * 1024).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// [`read_text`] for the user's own files outside `.forge/` (settings, memory
/// files), which may be links made by a dotfiles manager: a final link is followed;
/// still only a regular file, still non-blocking and capped.
pub(crate) fn read_text_follow(path: &Path) -> Option<String> {
    safe::read_capped(path, 1024 * 1024, safe::Follow::Yes)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Creates an empty flag file (atomically; an existing flag is left as it is; any
/// other entry of that name, a link or a FIFO, is replaced by the flag).
pub(crate) fn touch_flag(path: &Path) -> io::Result<()> {
    if safe::is_regular(path) {
        return Ok(());
    }
    write_state(path, b"")
}

/// Removes a file; a file that is already gone is not an error.
/// Returns whether this call removed it (so exactly one racer "wins").
pub(crate) fn remove_if_exists(path: &Path) -> io::Result<bool> {
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
pub(crate) struct FileLock {
    _file: fs::File,
}

impl FileLock {
    /// Tries to take the lock at `path` (creating the lock file when missing) until
    /// `deadline` has passed.
    pub(crate) fn acquire(path: &Path, deadline: Duration) -> Option<Self> {
        let until = crate::env::deadline_after(deadline);
        let open = || safe::open_rw(path, true);
        let file = match open() {
            Ok(f) => f,
            Err(_) => {
                safe::create_dir_all(path.parent()?).ok()?;
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
            if crate::env::time_left(until).is_zero() {
                return None;
            }
            thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Appends one line to a log file with `O_APPEND` in a single write, so concurrent
/// writers never interleave within a line, and a line is there whole or not at all
/// (see [`append_whole`]). Never through a link planted at `path`, never into a FIFO.
/// When the file has grown past `cap`, it is first rotated to `<name>.1` (under a
/// short lock, so two writers never rotate twice and lose lines).
pub(crate) fn append_line_capped(path: &Path, line: &str, cap: u64) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        safe::create_dir_all(dir)?;
    }
    if file_len(path) >= cap {
        rotate(path, cap);
    }
    let mut buf = String::with_capacity(line.len() + 1);
    buf.push_str(line.trim_end_matches('\n'));
    buf.push('\n');
    let mut file = safe::open_append(path)?;
    append_whole(&mut file, buf.as_bytes())
}

/// The length of the regular file at `path` itself; 0 for anything else.
fn file_len(path: &Path) -> u64 {
    fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.file_type().is_file())
        .map_or(0, |m| m.len())
}

/// Writes `buf` with a single `write` on an `O_APPEND` handle. When the disk fills
/// up (or a file-size limit is hit) mid-line, `write` returns short: the bytes that
/// did land are then overwritten in place with spaces ending in a newline — a blank
/// line every reader skips — so no torn line is left and the next line is never
/// glued onto one. The overwrite touches only this call's own bytes, so unlike a
/// truncation it cannot cut a line another process appended meanwhile (appenders
/// take no lock: this is every hook's hot path).
fn append_whole(file: &mut fs::File, buf: &[u8]) -> io::Result<()> {
    let written = loop {
        match file.write(buf) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    };
    finish_append(file, buf.len(), written)
}

/// The second half of [`append_whole`]: after `written` of `wanted` bytes landed,
/// blank them out when the line is incomplete.
fn finish_append(file: &mut fs::File, wanted: usize, written: usize) -> io::Result<()> {
    if written >= wanted {
        return Ok(());
    }
    let short = format!("only {written} of {wanted} bytes written (disk full?)");
    if written == 0 {
        return Err(io::Error::other(short));
    }
    // After an O_APPEND write the handle's offset is the end of this write.
    let end = file.stream_position()?;
    let start = end.saturating_sub(written as u64);
    // pwrite on an O_APPEND handle appends on Linux: clear O_APPEND first.
    rustix::fs::fcntl_setfl(&*file, rustix::fs::OFlags::empty())?;
    let mut blank = vec![b' '; written];
    if let Some(last) = blank.last_mut() {
        *last = b'\n';
    }
    std::os::unix::fs::FileExt::write_all_at(&*file, &blank, start)?;
    Err(io::Error::other(format!(
        "{short}; the partial line was blanked"
    )))
}

fn rotate(path: &Path, cap: u64) {
    let lock_path = sibling(path, ".lock");
    let Some(_lock) = FileLock::acquire(&lock_path, Duration::from_millis(50)) else {
        return;
    };
    // Another writer may have rotated while we waited for the lock.
    if file_len(path) < cap {
        return;
    }
    let _ = fs::rename(path, sibling(path, ".1"));
}

/// `path` with `suffix` appended to its file name.
pub(crate) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(suffix);
    path.with_file_name(name)
}

/// Reads the last `max_lines` lines of a text file, reading at most `max_bytes` from
/// its end. A first partial line (cut by the byte cap) is dropped.
pub(crate) fn tail_lines(path: &Path, max_lines: usize, max_bytes: u64) -> Vec<String> {
    let Ok(mut file) = safe::open_read(path, safe::Follow::No) else {
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
/// break the hook or statusline that is reporting a problem. Writes only where that
/// is safe: when `.forge/` and `logs/` pass [`safe::check_dir`] (a refused folder
/// gets nothing, not even its own refusal).
pub(crate) fn log_error(paths: &Paths, context: &str, message: &str) {
    if safe::check_dir(&paths.forge_dir()).is_err() || safe::check_dir(&paths.logs()).is_err() {
        return;
    }
    let now = crate::model::time::iso(crate::env::wall_clock());
    let flat: String = message
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .take(2000)
        .collect();
    let _ = append_line_capped(
        &paths.errors_log(),
        &format!("{now} [{context}] {flat}"),
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

    #[cfg(unix)]
    #[test]
    fn write_state_replaces_in_one_step_and_leaves_no_temp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s/state.json");
        write_state(&p, b"one").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        for content in [&b"two"[..], b"three, longer", b"4"] {
            write_state(&p, content).unwrap();
            assert_eq!(fs::read(&p).unwrap(), content);
        }
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A link planted at the name is replaced, never written through.
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        fs::remove_file(&p).unwrap();
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        write_state(&p, b"five").unwrap();
        assert!(fs::symlink_metadata(&p).unwrap().is_file());
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
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

    /// The fault-injection seam of `append_whole`: a write that landed only part of
    /// a line (as on a full disk) is given to `finish_append`.
    #[test]
    fn a_short_append_is_blanked_and_the_next_line_starts_clean() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("events.jsonl");
        append_line_capped(&p, "{\"n\":1}", 1 << 20).unwrap();
        let line = b"{\"n\":2,\"pad\":\"xxxxxxxx\"}\n";
        let mut file = safe::open_append(&p).unwrap();
        let landed = file.write(line.get(..9).unwrap()).unwrap();
        assert_eq!(landed, 9);
        let err = finish_append(&mut file, line.len(), landed).unwrap_err();
        assert!(err.to_string().contains("9 of 25 bytes"), "{err}");
        drop(file);
        append_line_capped(&p, "{\"n\":3}", 1 << 20).unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "{\"n\":1}\n        \n{\"n\":3}\n"
        );
        // Nothing landed: nothing to blank, still an error.
        let mut file = safe::open_append(&p).unwrap();
        assert!(finish_append(&mut file, 5, 0).is_err());
        assert!(finish_append(&mut file, 5, 5).is_ok());
    }

    #[test]
    fn appends_never_follow_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("bashrc");
        fs::write(&outside, "mine\n").unwrap();
        let p = dir.path().join("events.jsonl");
        std::os::unix::fs::symlink(&outside, &p).unwrap();
        assert!(append_line_capped(&p, "{}", 1 << 20).is_err());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "mine\n");
        // The atomic writer replaces the link; the target is untouched.
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "mine\n");
        assert!(safe::is_regular(&p));
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
