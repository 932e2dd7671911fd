//! Once-per-crossing guards: what makes a session's threshold handoff, each
//! `[[on_threshold]]` hook with a threshold of its own, and each level of the
//! escalation ladder fire once per crossing, however many status line ticks see it.
//!
//! A guard is an empty file beside the session's bridge, `logs/sessions/<id>.<ext>`
//! ([`Crossing::extension`]; the names are listed in the README's *State files* and
//! other tools may look for them). No file: the crossing is armed. The process that
//! fires claims it by creating the file exclusively (`create_new`), so of two racing
//! claimants exactly one wins; removing the file re-arms it (the session fell well
//! below the threshold again). The status line only looks (one `lstat`); the
//! detached child it starts claims.

use std::io;
#[cfg(test)]
use std::path::Path;
use std::path::PathBuf;

use super::{Paths, safe, sanitize_id};
use crate::model::session::level::Level;

/// What a guard guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Crossing {
    /// The threshold handoff (`<id>.threshold`). `[[on_threshold]]` hooks at the
    /// handoff threshold fire with it and share it.
    Threshold,
    /// `[[on_threshold]]` hook number `n` (from 0), with a threshold of its own
    /// (`<id>.hook<n>`).
    Hook(usize),
    /// A level of the escalation ladder, `L1`…`L3` (`<id>.L1`…`.L3`).
    Level(Level),
}

impl Crossing {
    /// The guard file's extension: `threshold`, `hook<n>`, `L1`…`L3`.
    pub(crate) fn extension(self) -> String {
        match self {
            Self::Threshold => "threshold".to_owned(),
            Self::Hook(n) => format!("hook{n}"),
            Self::Level(level) => level.as_str().to_owned(),
        }
    }

    /// Whether `ext` is the extension of a guard (`threshold`, `hook` and digits,
    /// `L1`…`L3`), so a file named `<id>.<ext>` is one of session `<id>`'s.
    pub(crate) fn is_extension(ext: &str) -> bool {
        match ext {
            "threshold" | "L1" | "L2" | "L3" => true,
            _ => ext
                .strip_prefix("hook")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        }
    }
}

/// One session's guard of one [`Crossing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Guard {
    path: PathBuf,
}

impl Guard {
    /// The guard of `crossing` for `session_id` (sanitised into the file name);
    /// [`Paths::guard`] is the way in.
    pub(super) fn new(paths: &Paths, session_id: &str, crossing: Crossing) -> Self {
        Self {
            path: paths.sessions().join(format!(
                "{}.{}",
                sanitize_id(session_id),
                crossing.extension()
            )),
        }
    }

    /// The guard file.
    #[cfg(test)]
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the crossing may fire: nothing (not even a link) is at the guard's
    /// path. One `lstat`.
    pub(crate) fn is_armed(&self) -> bool {
        std::fs::symlink_metadata(&self.path).is_err()
    }

    /// Claims the crossing: `Ok(true)` for exactly one caller per crossing (the file
    /// is created with `create_new`, never through a link), `Ok(false)` when it was
    /// already claimed.
    pub(crate) fn claim(&self) -> io::Result<bool> {
        if let Some(dir) = self.path.parent() {
            safe::create_dir_all(dir)?;
        }
        match safe::create_new(&self.path) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Re-arms the crossing (removes the guard); returns whether it was claimed.
    pub(crate) fn rearm(&self) -> io::Result<bool> {
        super::remove_if_exists(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guards(p: &Paths, sid: &str) -> [Guard; 5] {
        [
            p.guard(sid, Crossing::Threshold),
            p.guard(sid, Crossing::Hook(0)),
            p.guard(sid, Crossing::Hook(12)),
            p.guard(sid, Crossing::Level(Level::L1)),
            p.guard(sid, Crossing::Level(Level::L3)),
        ]
    }

    #[test]
    fn each_guard_keeps_its_file_name() {
        let p = Paths::new("/p");
        let names: Vec<String> = guards(&p, "../s 1")
            .iter()
            .map(|g| g.path().display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "/p/.forge/logs/sessions/_._s_1.threshold",
                "/p/.forge/logs/sessions/_._s_1.hook0",
                "/p/.forge/logs/sessions/_._s_1.hook12",
                "/p/.forge/logs/sessions/_._s_1.L1",
                "/p/.forge/logs/sessions/_._s_1.L3",
            ]
        );
        for g in guards(&p, "s") {
            let name = g.path().file_name().unwrap().to_str().unwrap().to_owned();
            let (_, ext) = name.rsplit_once('.').unwrap();
            assert!(Crossing::is_extension(ext), "{ext}");
        }
        for other in [
            "json",
            "compacted",
            "reread",
            "alert",
            "hook",
            "hookx",
            "L0",
            "L4",
        ] {
            assert!(!Crossing::is_extension(other), "{other}");
        }
        assert!(Crossing::is_extension("hook007"));
    }

    #[test]
    fn a_crossing_is_claimed_once_until_it_is_rearmed() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        for g in guards(&p, "s1") {
            assert!(g.is_armed(), "{g:?}");
            // The sessions folder is made on the first claim.
            assert!(g.claim().unwrap(), "{g:?}");
            assert!(!g.is_armed());
            assert!(!g.claim().unwrap(), "a second claim loses: {g:?}");
            // Empty: a guard holds nothing but its name.
            assert_eq!(std::fs::read(g.path()).unwrap(), b"");
        }
        // Guards of one session, and of two sessions, do not share a claim.
        let other = p.guard("s2", Crossing::Threshold);
        assert!(other.claim().unwrap());
        let [threshold, ..] = guards(&p, "s1");
        assert!(threshold.rearm().unwrap());
        assert!(threshold.is_armed());
        assert!(!threshold.rearm().unwrap(), "nothing left to re-arm");
        assert!(threshold.claim().unwrap(), "a new crossing fires again");
        assert!(!p.guard("s1", Crossing::Hook(0)).is_armed());
    }

    #[test]
    fn a_link_or_folder_at_the_guard_is_a_claim_never_followed() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        let g = p.guard("s1", Crossing::Level(Level::L2));
        safe::create_dir_all(&p.sessions()).unwrap();
        let target = t.path().join("elsewhere");
        std::os::unix::fs::symlink(&target, g.path()).unwrap();
        assert!(!g.is_armed(), "a dangling link is not nothing");
        assert!(!g.claim().unwrap());
        assert!(!target.exists(), "the link was not followed");
        // A path that cannot be claimed is an error, not a win.
        let blocked = Paths::new(t.path().join("file"));
        std::fs::write(t.path().join("file"), "").unwrap();
        assert!(blocked.guard("s1", Crossing::Threshold).claim().is_err());
    }
}
