//! The fleet registry on disk: `$XDG_STATE_HOME/forge/projects.json` (else
//! `~/.local/state/forge/projects.json`), one small JSON file listing every project
//! forge's hooks ran in lately (see `crate::model::fleet` for what it holds).
//!
//! Its place comes from the environment only, never from a project: a repository
//! cannot point forge's writes elsewhere. The folder must be a real folder of the
//! user's that others cannot write to (the StrictModes rule of [`super::safe`]); the
//! file is opened like every other state file (never through a final link, never a
//! FIFO, size-capped) and replaced by an atomic rename under a short lock, so two
//! hooks in two projects never lose each other's entry.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::safe;
use crate::env::Env;
use crate::model::fleet::{MAX_BYTES, Registry};

/// The registry's file name.
pub const FILE: &str = "projects.json";
/// The lock beside it.
const LOCK: &str = "projects.lock";

/// The registry file for this environment (`None` without a usable home).
pub fn path(env: &Env) -> Option<PathBuf> {
    env.user_state_dir().map(|d| d.join(FILE))
}

/// The key of a project in the registry: its root, canonical (links and `..`
/// resolved, so every face names a project the same way), as UTF-8 text. `None`
/// for a root that is not valid UTF-8, which cannot be a key.
pub fn root_key(root: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    canonical.into_os_string().into_string().ok()
}

/// Checks the registry's folder (when it exists): a real folder, the user's, not
/// writable by others.
pub fn check(file: &Path) -> Result<(), safe::Refusal> {
    match file.parent() {
        Some(dir) => safe::check_dir(dir),
        None => Ok(()),
    }
}

/// [`read`] for the fleet views: every session whose recorded client process is
/// gone is marked ended (so it leaves the live list at once, not after
/// `stale_after`).
pub fn read_for_views(file: &Path) -> io::Result<Registry> {
    let mut reg = read(file)?;
    reg.end_gone_sessions(super::process::is_gone);
    Ok(reg)
}

/// Reads the registry. A missing file (or folder) is an empty registry, and so is
/// one that does not parse; a folder that fails [`check`], or a registry that is
/// not a regular file (a link, a FIFO), is an error that says why, and nothing is
/// read from it.
pub fn read(file: &Path) -> io::Result<Registry> {
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
pub fn update(
    file: &Path,
    wait: Duration,
    change: impl FnOnce(&mut Registry) -> bool,
) -> io::Result<()> {
    let dir = file
        .parent()
        .ok_or_else(|| io::Error::other("the registry has no folder"))?;
    check(file).map_err(|r| io::Error::new(io::ErrorKind::PermissionDenied, r.to_string()))?;
    if !safe::is_real_dir(dir) {
        safe::create_private_dir_all(dir)?;
    }
    let Some(_lock) = super::FileLock::acquire(&dir.join(LOCK), wait) else {
        return Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "the fleet registry is locked by another forge",
        ));
    };
    let mut registry = read(file)?;
    if change(&mut registry) {
        super::write_json(file, &registry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::fleet::{ProjectEntry, VERSION};

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
