//! The fleet registry on disk: `$XDG_STATE_HOME/forge/projects.json` (else
//! `~/.local/state/forge/projects.json`), one small JSON file listing every project
//! forge's hooks ran in lately (see `crate::model::agents::fleet` for what it holds).
//!
//! Its place comes from the environment only, never from a project: a repository
//! cannot point forge's writes elsewhere. The folder must be a real folder of the
//! user's that others cannot write to (the StrictModes rule of [`super::safe`]); the
//! file is opened like every other state file (never through a final link, never a
//! FIFO, size-capped) and replaced by an atomic rename under a short lock, so two
//! hooks in two projects never lose each other's entry.
//!
//! A hook waits for that lock a few tens of milliseconds at most. When it stays busy
//! (forty sessions stopping at once), the hook's registration is not dropped: it is
//! kept aside as a file of its own in `projects.pending/` (a new name each, written
//! whole), and the next writer that holds the lock folds every pending file in and
//! removes it. Readers fold the pending files in too, so the views never miss one.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::safe;
use crate::env::Env;
use crate::model::agents::fleet::{MAX_BYTES, Pending, Registry};

/// The registry's file name.
pub(crate) const FILE: &str = "projects.json";
/// The lock beside it.
const LOCK: &str = "projects.lock";
/// The folder beside it of registrations waiting for the lock.
pub(crate) const PENDING: &str = "projects.pending";
/// At most this many pending registrations are read at once (the rest wait for the
/// next writer).
const MAX_PENDING: usize = 1024;
/// The largest pending file read.
const PENDING_MAX_BYTES: u64 = 64 * 1024;

/// The registry file for this environment (`None` without a usable home).
pub(crate) fn path(env: &Env) -> Option<PathBuf> {
    env.user_state_dir().map(|d| d.join(FILE))
}

/// The key of a project in the registry: its root, canonical (links and `..`
/// resolved, so every face names a project the same way), as UTF-8 text. `None`
/// for a root that is not valid UTF-8, which cannot be a key.
pub(crate) fn root_key(root: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    canonical.into_os_string().into_string().ok()
}

/// Checks the registry's folder (when it exists): a real folder, the user's, not
/// writable by others.
pub(crate) fn check(file: &Path) -> Result<(), safe::Refusal> {
    match file.parent() {
        Some(dir) => safe::check_dir(dir),
        None => Ok(()),
    }
}

/// [`read`] for the fleet views: every session whose recorded client process is
/// gone is marked ended (so it leaves the live list at once, not after
/// `stale_after`).
pub(crate) fn read_for_views(file: &Path) -> io::Result<Registry> {
    let mut reg = read(file)?;
    reg.end_gone_sessions(super::process::is_gone);
    Ok(reg)
}

/// Reads the registry, with the registrations still pending folded in (see the
/// module documentation): what the fleet views show. A missing file (or folder) is
/// an empty registry, and so is one that does not parse; a folder that fails
/// [`check`], or a registry that is not a regular file (a link, a FIFO), is an error
/// that says why, and nothing is read from it.
pub(crate) fn read(file: &Path) -> io::Result<Registry> {
    let mut registry = read_stored(file)?;
    for pending in read_pending(file).into_iter().filter_map(|(_, p)| p) {
        registry.apply(pending);
    }
    Ok(registry)
}

/// The pending registrations beside `file`, oldest first (by name), with their
/// files. A folder that is missing, a link, or not private enough gives none; a
/// file that is not a registration is skipped (and removed by the next fold).
fn read_pending(file: &Path) -> Vec<(std::path::PathBuf, Option<Pending>)> {
    let dir = file.with_file_name(PENDING);
    if !safe::is_real_dir(&dir) || safe::check_dir(&dir).is_err() {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<std::ffi::OsString> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| {
            n.to_str()
                .is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
        })
        .collect();
    names.sort_unstable();
    names.truncate(MAX_PENDING);
    names
        .into_iter()
        .map(|n| {
            let path = dir.join(n);
            let pending = safe::read_capped(&path, PENDING_MAX_BYTES, safe::Follow::No)
                .ok()
                .and_then(|b| Pending::parse(&b));
            (path, pending)
        })
        .collect()
}

/// The registry file alone, without the pending registrations.
fn read_stored(file: &Path) -> io::Result<Registry> {
    check(file).map_err(|r| io::Error::new(io::ErrorKind::PermissionDenied, r.to_string()))?;
    match safe::read_capped(file, MAX_BYTES, safe::Follow::No) {
        Ok(bytes) => Ok(Registry::parse(&bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Registry::default()),
        Err(e) => Err(io::Error::new(
            e.kind(),
            format!("refusing to read {}: {e}", file.display()),
        )),
    }
}

/// Read-modify-writes the registry under its lock, waiting at most `wait` for it
/// (`WouldBlock` after that). `change` returns whether it changed anything; only
/// then is the file written (atomically). A registry that is a link or a FIFO is
/// refused, not replaced: the error says so.
pub(crate) fn update(
    file: &Path,
    wait: Duration,
    change: impl FnOnce(&mut Registry) -> bool,
) -> io::Result<()> {
    if locked(file, wait, change)? {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "the fleet registry is locked by another forge",
        ))
    }
}

/// Registers one hook call: under the lock (waited for at most `wait`) the registry
/// is rewritten with `pending` applied; when the lock stays busy, `pending` is kept
/// aside for the next writer (see the module documentation). Either way it is not
/// lost; `Err` only when it could be neither written nor kept.
pub(crate) fn register(file: &Path, wait: Duration, pending: Pending) -> io::Result<()> {
    let mut mine = Some(pending.clone());
    let done = locked(file, wait, |reg| {
        if let Some(p) = mine.take() {
            reg.apply(p);
        }
        true
    })?;
    if done {
        return Ok(());
    }
    keep_pending(file, &pending)
}

/// Writes `pending` to a new file of its own in `projects.pending/` (created
/// private): a name no other call uses, sorting by time, the content whole or not
/// at all.
fn keep_pending(file: &Path, pending: &Pending) -> io::Result<()> {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = file.with_file_name(PENDING);
    safe::check_dir(&dir)
        .map_err(|r| io::Error::new(io::ErrorKind::PermissionDenied, r.to_string()))?;
    if !safe::is_real_dir(&dir) {
        safe::create_private_dir_all(&dir)?;
    }
    let nanos = crate::env::wall_clock()
        .timestamp_nanos_opt()
        .and_then(|n| u128::try_from(n).ok())
        .unwrap_or(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("{nanos:020}-{}-{seq}.json", std::process::id());
    let bytes = serde_json::to_vec(pending).map_err(io::Error::other)?;
    super::write_new_atomic(&dir.join(name), &bytes)
}

/// Runs `change` on the registry under its lock, waited for at most `wait`, with
/// every pending registration folded in first (their files removed once the
/// registry holding them is written); writes when anything changed. `Ok(false)`
/// when the lock stayed busy (nothing done).
fn locked(
    file: &Path,
    wait: Duration,
    change: impl FnOnce(&mut Registry) -> bool,
) -> io::Result<bool> {
    let dir = file
        .parent()
        .ok_or_else(|| io::Error::other("the registry has no folder"))?;
    check(file).map_err(|r| io::Error::new(io::ErrorKind::PermissionDenied, r.to_string()))?;
    if !safe::is_real_dir(dir) {
        safe::create_private_dir_all(dir)?;
    }
    let Some(_lock) = super::FileLock::acquire(&dir.join(LOCK), wait) else {
        return Ok(false);
    };
    let mut registry = read_stored(file)?;
    let pending = read_pending(file);
    for p in pending.iter().filter_map(|(_, p)| p.clone()) {
        registry.apply(p);
    }
    if change(&mut registry) || !pending.is_empty() {
        super::write_json(file, &registry)?;
    }
    for (path, _) in &pending {
        let _ = super::remove_if_exists(path);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::agents::fleet::{ProjectEntry, VERSION};

    fn entry(root: &str) -> ProjectEntry {
        ProjectEntry {
            root: root.into(),
            name: "x".into(),
            seen_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ..ProjectEntry::default()
        }
    }

    #[test]
    fn the_place_comes_from_the_environment() {
        let mut env = Env::for_test(Path::new("/home/me"), Path::new("/"));
        assert_eq!(
            path(&env).unwrap(),
            Path::new("/home/me/.local/state/forge/projects.json")
        );
        env.xdg_state_home = Some(PathBuf::from("/xdg/state"));
        assert_eq!(
            path(&env).unwrap(),
            Path::new("/xdg/state/forge/projects.json")
        );
        // A relative XDG_STATE_HOME (or HOME) would put the file wherever a hook runs.
        env.xdg_state_home = Some(PathBuf::from("rel/state"));
        assert_eq!(
            path(&env).unwrap(),
            Path::new("/home/me/.local/state/forge/projects.json")
        );
        env.home = Some(PathBuf::from("relative-home"));
        assert_eq!(path(&env), None);
    }

    #[test]
    fn update_writes_atomically_and_keeps_other_entries() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("state/forge").join(FILE);
        assert_eq!(read(&file).unwrap(), Registry::default());
        let now = chrono::Utc::now();
        update(&file, Duration::from_millis(50), |r| {
            r.upsert(entry("/p/a"), now);
            true
        })
        .unwrap();
        update(&file, Duration::from_millis(50), |r| {
            r.upsert(entry("/p/b"), now);
            true
        })
        .unwrap();
        let r = read(&file).unwrap();
        assert_eq!(r.version, VERSION);
        assert_eq!(r.projects.len(), 2);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the folder is private: {mode:o}");
        // Nothing changed: nothing written.
        let before = std::fs::metadata(&file).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        update(&file, Duration::from_millis(50), |_| false).unwrap();
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            before
        );
        // A busy lock gives up after the wait.
        let _held =
            crate::store::FileLock::acquire(&file.with_file_name(LOCK), Duration::ZERO).unwrap();
        let err = update(&file, Duration::from_millis(10), |_| true).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
    }

    fn pending(root: &str, sid: &str) -> Pending {
        let now = chrono::Utc::now();
        Pending {
            facts: crate::model::agents::fleet::ProjectFacts::new(
                root,
                Some("main"),
                0,
                chrono::Duration::minutes(30),
            )
            .unwrap(),
            row: crate::model::agents::fleet::SessionRow {
                id: sid.into(),
                attention: Some(crate::model::session::state::Attention::Busy),
                last_event: Some("Stop".into()),
                last_event_at: Some(now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
                ..Default::default()
            },
            at: now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }

    #[test]
    fn a_registration_that_meets_a_busy_lock_waits_aside_and_is_never_lost() {
        let t = tempfile::tempdir().unwrap();
        let file = t.path().join("state/forge").join(FILE);
        register(&file, Duration::from_millis(50), pending("/p/a", "s1")).unwrap();
        let held =
            crate::store::FileLock::acquire(&file.with_file_name(LOCK), Duration::ZERO).unwrap();
        register(&file, Duration::from_millis(10), pending("/p/b", "s2")).unwrap();
        register(&file, Duration::from_millis(10), pending("/p/c", "s3")).unwrap();
        let dir = file.with_file_name(PENDING);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "kept aside");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        // Views see them at once; the file does not hold them yet.
        let roots = |r: &Registry| {
            let mut v: Vec<String> = r.projects.iter().map(|p| p.root.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(roots(&read(&file).unwrap()), ["/p/a", "/p/b", "/p/c"]);
        assert_eq!(roots(&read_stored(&file).unwrap()), ["/p/a"]);
        // Something that is no registration, in the folder: skipped, then removed.
        std::fs::write(dir.join("0-junk.json"), "{not json").unwrap();
        assert_eq!(read(&file).unwrap().projects.len(), 3);
        drop(held);
        // The next writer folds them in and removes their files.
        update(&file, Duration::from_millis(50), |_| false).unwrap();
        assert_eq!(
            roots(&read_stored(&file).unwrap()),
            ["/p/a", "/p/b", "/p/c"]
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        // A pending folder that is a link is neither read nor written through.
        std::fs::remove_dir(&dir).unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let _held =
            crate::store::FileLock::acquire(&file.with_file_name(LOCK), Duration::ZERO).unwrap();
        assert!(register(&file, Duration::from_millis(10), pending("/p/d", "s4")).is_err());
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    #[test]
    fn a_link_or_fifo_is_refused_without_blocking_and_left_alone() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("forge");
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join(FILE);
        let outside = t.path().join("outside.json");
        std::fs::write(&outside, "{\"mine\": true}").unwrap();
        std::os::unix::fs::symlink(&outside, &file).unwrap();
        let err = read(&file).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(update(&file, Duration::from_millis(10), |_| true).is_err());
        assert_eq!(
            std::fs::read_to_string(&outside).unwrap(),
            "{\"mine\": true}"
        );
        assert!(std::fs::symlink_metadata(&file).unwrap().is_symlink());
        std::fs::remove_file(&file).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&file)
            .status()
            .unwrap();
        assert!(made.success());
        let err = read(&file).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
        // A folder others may write to is refused too.
        std::fs::remove_file(&file).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(read(&file).is_err());
        assert!(update(&file, Duration::from_millis(10), |_| true).is_err());
    }
}
