//! The trust records of `forge trust` on disk: `$XDG_STATE_HOME/forge/trust/` (else
//! `~/.local/state/forge/trust/`), one small JSON file per project named by
//! [`project_id`], and beside it a `.noticed` file that holds the hash of the last
//! untrusted content the event log was told about (so that is said once per content,
//! not on every status-line tick).
//!
//! Like the fleet registry, its place comes from the environment only, never from a
//! project; its folders must be real folders of yours that nobody else can write to
//! (created private, `0700`); files are opened without following a link, never a
//! FIFO, size-capped, and replaced by atomic renames. A record that cannot be read is
//! no trust: the project's acting keys stay ignored.

use std::io;
use std::path::{Path, PathBuf};

use super::safe;
use crate::env::Env;
use crate::model::setup::trust::{Record, project_id};

/// The folder's name in forge's state folder.
pub(crate) const DIR: &str = "trust";

/// The largest record read.
const MAX_BYTES: u64 = 64 * 1024;

/// The trust folder for this environment (`None` without an absolute state folder).
pub(crate) fn dir(env: &Env) -> Option<PathBuf> {
    env.user_state_dir().map(|d| d.join(DIR))
}

/// The record file of the project whose canonical root is `root_key`.
pub(crate) fn record_path(env: &Env, root_key: &str) -> Option<PathBuf> {
    dir(env).map(|d| d.join(format!("{}.json", project_id(root_key))))
}

fn noticed_path(env: &Env, root_key: &str) -> Option<PathBuf> {
    dir(env).map(|d| d.join(format!("{}.noticed", project_id(root_key))))
}

/// Beside [`noticed_path`]: the hash of the last untrusted content the *person* was
/// told about at a SessionStart (`model::setup::trust::person_notice`).
fn told_path(env: &Env, root_key: &str) -> Option<PathBuf> {
    dir(env).map(|d| d.join(format!("{}.told", project_id(root_key))))
}

/// The state folder and the trust folder pass `safe::check_dir` (when they exist).
fn check(trust_dir: &Path) -> io::Result<()> {
    let denied = |r: safe::Refusal| io::Error::new(io::ErrorKind::PermissionDenied, r.to_string());
    if let Some(state) = trust_dir.parent() {
        safe::check_dir(state).map_err(denied)?;
    }
    safe::check_dir(trust_dir).map_err(denied)
}

/// The record kept for the project `root_key`, when there is one that reads and
/// names that project. Any problem (no state folder, a refused folder, a link, a
/// FIFO, a broken file) is no record.
pub(crate) fn read(env: &Env, root_key: &str) -> Option<Record> {
    let path = record_path(env, root_key)?;
    check(path.parent()?).ok()?;
    let bytes = safe::read_capped(&path, MAX_BYTES, safe::Follow::No).ok()?;
    serde_json::from_slice::<Record>(&bytes)
        .ok()
        .filter(|r| r.project == root_key)
}

/// Writes `record` (replacing the project's old one); returns its path.
pub(crate) fn write(env: &Env, record: &Record) -> io::Result<PathBuf> {
    let path = record_path(env, &record.project).ok_or_else(no_state_dir)?;
    let dir = path.parent().ok_or_else(no_state_dir)?;
    check(dir)?;
    if !safe::is_real_dir(dir) {
        safe::create_private_dir_all(dir)?;
    }
    super::write_json_synced(&path, record)?;
    Ok(path)
}

/// Removes the project's record; whether there was one.
pub(crate) fn revoke(env: &Env, root_key: &str) -> io::Result<bool> {
    let path = record_path(env, root_key).ok_or_else(no_state_dir)?;
    if let Some(dir) = path.parent() {
        check(dir)?;
    }
    let _ = noticed_path(env, root_key).map(|p| super::remove_if_exists(&p));
    let _ = told_path(env, root_key).map(|p| super::remove_if_exists(&p));
    super::remove_if_exists(&path)
}

/// Whether the event log was already told that the project's content `sha256` is
/// ignored. One small read.
pub(crate) fn noticed(env: &Env, root_key: &str, sha256: &str) -> bool {
    noticed_path(env, root_key)
        .and_then(|p| safe::read_capped(&p, 128, safe::Follow::No).ok())
        .is_some_and(|b| b.trim_ascii() == sha256.as_bytes())
}

/// Records that the event log was told about the content `sha256`.
pub(crate) fn mark_noticed(env: &Env, root_key: &str, sha256: &str) -> io::Result<()> {
    mark(noticed_path(env, root_key), sha256)
}

/// The content hash the person was last told about at a SessionStart (one small
/// read), if any.
pub(crate) fn told(env: &Env, root_key: &str) -> Option<String> {
    let path = told_path(env, root_key)?;
    check(path.parent()?).ok()?;
    safe::read_capped(&path, 128, safe::Follow::No)
        .ok()
        .map(|b| String::from_utf8_lossy(b.trim_ascii()).into_owned())
}

/// Records that the person was told about the content `sha256`.
pub(crate) fn mark_told(env: &Env, root_key: &str, sha256: &str) -> io::Result<()> {
    mark(told_path(env, root_key), sha256)
}

/// Writes `sha256` to the mark file at `path` (in a private trust folder).
fn mark(path: Option<PathBuf>, sha256: &str) -> io::Result<()> {
    let path = path.ok_or_else(no_state_dir)?;
    let dir = path.parent().ok_or_else(no_state_dir)?;
    check(dir)?;
    if !safe::is_real_dir(dir) {
        safe::create_private_dir_all(dir)?;
    }
    super::write_state(&path, format!("{sha256}\n").as_bytes())
}

fn no_state_dir() -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        "no state folder: set HOME (or XDG_STATE_HOME) to an absolute path",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::setup::trust::VERSION;

    fn env(t: &Path) -> Env {
        let mut env = Env::for_test(&t.join("home"), t);
        env.xdg_state_home = Some(t.join("state"));
        env
    }

    fn record(root: &str, sha: &str) -> Record {
        Record {
            version: VERSION,
            project: root.into(),
            config: format!("{root}/.forge/config.toml"),
            sha256: sha.into(),
            trusted_at: "2026-11-26T10:00:00Z".into(),
        }
    }

    #[test]
    fn records_round_trip_per_project_in_a_private_folder() {
        let t = tempfile::tempdir().unwrap();
        let env = env(t.path());
        assert_eq!(read(&env, "/p/a"), None);
        let path = write(&env, &record("/p/a", "aa")).unwrap();
        write(&env, &record("/p/b", "bb")).unwrap();
        assert_eq!(read(&env, "/p/a").unwrap().sha256, "aa");
        assert_eq!(read(&env, "/p/b").unwrap().sha256, "bb");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        assert!(!noticed(&env, "/p/a", "cc"));
        assert_eq!(told(&env, "/p/a"), None);
        mark_told(&env, "/p/a", "cc").unwrap();
        assert_eq!(told(&env, "/p/a").as_deref(), Some("cc"));
        mark_noticed(&env, "/p/a", "cc").unwrap();
        assert!(noticed(&env, "/p/a", "cc"));
        assert!(!noticed(&env, "/p/a", "dd"));
        assert!(revoke(&env, "/p/a").unwrap());
        assert!(!revoke(&env, "/p/a").unwrap());
        assert_eq!(read(&env, "/p/a"), None);
        assert!(!noticed(&env, "/p/a", "cc"));
        assert_eq!(told(&env, "/p/a"), None, "a revoke forgets what was told");
        assert!(read(&env, "/p/b").is_some());
        // A record that names another project (copied over) is not this one's.
        std::fs::copy(
            record_path(&env, "/p/b").unwrap(),
            record_path(&env, "/p/a").unwrap(),
        )
        .unwrap();
        assert_eq!(read(&env, "/p/a"), None);
    }

    #[test]
    fn a_planted_link_or_an_open_folder_is_no_trust() {
        let t = tempfile::tempdir().unwrap();
        let env = env(t.path());
        let path = record_path(&env, "/p/a").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let elsewhere = t.path().join("elsewhere.json");
        std::fs::write(
            &elsewhere,
            serde_json::to_vec(&record("/p/a", "aa")).unwrap(),
        )
        .unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        assert_eq!(read(&env, "/p/a"), None);
        std::fs::remove_file(&path).unwrap();
        std::fs::copy(&elsewhere, &path).unwrap();
        assert!(read(&env, "/p/a").is_some());
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            path.parent().unwrap(),
            std::fs::Permissions::from_mode(0o777),
        )
        .unwrap();
        assert_eq!(read(&env, "/p/a"), None, "anyone could have written it");
        assert!(write(&env, &record("/p/a", "aa")).is_err());
    }
}
