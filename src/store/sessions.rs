//! Listing the per-session files of `.forge/logs/sessions/`: the session bridges
//! (`<id>.json`) and the one-shot compaction markers (`<id>.compacted`); and
//! naming a session by the start of its id.

use std::fs;

use super::Paths;
use crate::model::session::session_id::{self, PrefixError};
use crate::model::session::state::SessionBridge;

/// How many session bridges are loaded (most recently modified first).
const MAX_SESSIONS: usize = 50;
/// How many bridge file names [`known_ids`] reads at most.
const MAX_IDS: usize = 10_000;

/// The session bridges of the project, most recently updated first (at most 50),
/// each marked ended when its client process is gone (see
/// [`SessionBridge::end_if_client_gone`]).
pub(crate) fn load_sessions(paths: &Paths) -> Vec<SessionBridge> {
    let Ok(read) = fs::read_dir(paths.sessions()) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = read
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.ends_with(".json") && !n.starts_with('.'))
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    // A file time in the future (a shipped file, a wrong clock) sorts as the oldest:
    // it must not push the sessions that are really running out of the 50.
    let soon =
        std::time::SystemTime::from(crate::env::wall_clock()) + std::time::Duration::from_secs(120);
    files.sort_by_key(|f| {
        std::cmp::Reverse(if f.0 > soon {
            std::time::SystemTime::UNIX_EPOCH
        } else {
            f.0
        })
    });
    let mut out: Vec<SessionBridge> = files
        .into_iter()
        .take(MAX_SESSIONS)
        .filter_map(|(_, p)| super::read_json::<SessionBridge>(&p))
        .filter(|b| !b.session_id.is_empty())
        .collect();
    // A session whose client process is gone (killed, crashed) ran no SessionEnd:
    // it has ended all the same.
    for b in &mut out {
        b.end_if_client_gone(super::process::is_gone);
    }
    out.sort_by(|a, b| b.updated_at.cmp(&a.updated_at));
    out
}

/// The most recently updated session bridge of the project.
pub(crate) fn latest_bridge(paths: &Paths) -> Option<SessionBridge> {
    load_sessions(paths).into_iter().next()
}

/// The sessions with an armed compaction marker, sorted.
pub(crate) fn compaction_markers(paths: &Paths) -> Vec<String> {
    let Ok(read) = fs::read_dir(paths.sessions()) else {
        return Vec::new();
    };
    let mut out: Vec<String> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".compacted")
                .map(str::to_owned)
        })
        .collect();
    out.sort();
    out
}

/// The ids of every session with a bridge file (as their file names hold them),
/// whatever its age; at most 10,000.
pub(crate) fn known_ids(paths: &Paths) -> Vec<String> {
    let Ok(read) = fs::read_dir(paths.sessions()) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .take(MAX_IDS)
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let id = name.strip_suffix(".json")?;
            (!id.is_empty() && !id.starts_with('.')).then(|| id.to_owned())
        })
        .collect()
}

/// The session a `--session` value names: a whole id or a unique start of one,
/// among the sessions with a bridge file and `also` (ids the caller saw elsewhere,
/// such as in the event log). Every `--session` option resolves through this, so a
/// short id works the same everywhere; an ambiguous start is an error that lists
/// the sessions it matches.
pub(crate) fn resolve(paths: &Paths, prefix: &str, also: &[String]) -> Result<String, PrefixError> {
    let known = known_ids(paths);
    session_id::resolve(prefix, known.iter().chain(also).map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_future_file_time_does_not_push_real_sessions_out() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.sessions()).unwrap();
        let future = std::time::SystemTime::now() + std::time::Duration::from_secs(86_400 * 365);
        for i in 0..MAX_SESSIONS {
            let f = p.sessions().join(format!("fake{i:03}.json"));
            std::fs::write(&f, format!("{{\"session_id\":\"fake{i:03}\"}}")).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(future)
                .unwrap();
        }
        std::fs::write(p.sessions().join("real.json"), r#"{"session_id":"real"}"#).unwrap();
        let ids: Vec<String> = load_sessions(&p)
            .into_iter()
            .map(|b| b.session_id)
            .collect();
        assert!(ids.contains(&"real".to_owned()), "{ids:?}");
    }

    #[test]
    fn prefixes_resolve_among_bridges_and_the_ids_given() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.sessions()).unwrap();
        for name in [
            "3f0c2a9e.json",
            "3f0d0000.json",
            ".forge-x.tmp",
            "3f0e.compacted",
        ] {
            std::fs::write(p.sessions().join(name), "{}").unwrap();
        }
        assert_eq!(resolve(&p, "3f0c", &[]).unwrap(), "3f0c2a9e");
        assert!(matches!(
            resolve(&p, "3f0", &[]),
            Err(PrefixError::Ambiguous { matches, .. }) if matches.len() == 2
        ));
        assert!(matches!(
            resolve(&p, "3f0e", &[]),
            Err(PrefixError::NoMatch { .. })
        ));
        assert_eq!(resolve(&p, "ab", &["abcdef".to_owned()]).unwrap(), "abcdef");
    }
}
