//! Where forge's state lives, and how a project root is found.

use std::path::{Path, PathBuf};

/// All the paths of one project's `.forge/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The project root (the folder that holds `.forge/`).
    pub root: PathBuf,
}

impl Paths {
    /// Paths for the project at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
    /// `<root>/.forge`.
    pub fn forge_dir(&self) -> PathBuf {
        self.root.join(".forge")
    }
    /// `<root>/.forge/logs`.
    pub fn logs(&self) -> PathBuf {
        self.forge_dir().join("logs")
    }
    /// `<root>/.forge/handoffs`.
    pub fn handoffs(&self) -> PathBuf {
        self.forge_dir().join("handoffs")
    }
    /// `<root>/.forge/logs/sessions`: one bridge file per session.
    pub fn sessions(&self) -> PathBuf {
        self.logs().join("sessions")
    }
    /// The bridge file of one session (the id is sanitised first).
    pub fn session_bridge(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.json", sanitize_id(session_id)))
    }
    /// The once-per-crossing guard of one session's threshold handoff.
    ///
    /// Created with `create_new`, so of two racing statusline ticks exactly one fires.
    pub fn threshold_guard(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.threshold", sanitize_id(session_id)))
    }
    /// The one-shot compaction marker of one session: set on a proven compaction
    /// (SessionStart `compact`), consumed by the first PreToolUse of a tool that is
    /// not read-only (or by Stop when no tool ran).
    pub fn compaction_marker(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.compacted", sanitize_id(session_id)))
    }
    /// Flag beside the compaction marker: a read-only tool ran since the compaction,
    /// so the session is re-reading and Stop need not ask it to.
    pub fn reread_started(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.reread", sanitize_id(session_id)))
    }
    /// `logs/last-session.json`.
    pub fn last_session(&self) -> PathBuf {
        self.logs().join("last-session.json")
    }
    /// `logs/pre-compact-state.json`.
    pub fn pre_compact_state(&self) -> PathBuf {
        self.logs().join("pre-compact-state.json")
    }
    /// `logs/compactions.jsonl`.
    pub fn compactions(&self) -> PathBuf {
        self.logs().join("compactions.jsonl")
    }
    /// `logs/learn-pending` (empty flag file).
    pub fn learn_pending(&self) -> PathBuf {
        self.logs().join("learn-pending")
    }
    /// `logs/context-threshold-triggered` (flag; lists the sessions that fired).
    pub fn threshold_flag(&self) -> PathBuf {
        self.logs().join("context-threshold-triggered")
    }
    /// `logs/events.jsonl`.
    pub fn events(&self) -> PathBuf {
        self.logs().join("events.jsonl")
    }
    /// `logs/errors.log`.
    pub fn errors_log(&self) -> PathBuf {
        self.logs().join("errors.log")
    }
    /// `logs/git-cache.json`: git facts refreshed by hooks, read by the statusline.
    pub fn git_cache(&self) -> PathBuf {
        self.logs().join("git-cache.json")
    }
    /// `.forge/state.json` (the user's workflow state).
    pub fn state_json(&self) -> PathBuf {
        self.forge_dir().join("state.json")
    }
    /// `.forge/pending-resume`.
    pub fn pending_resume(&self) -> PathBuf {
        self.forge_dir().join("pending-resume")
    }
    /// `.forge/config.toml`.
    pub fn config(&self) -> PathBuf {
        self.forge_dir().join("config.toml")
    }
    /// Whether forge may create `.forge/` here on its own (hooks, status line,
    /// handoffs): always when it exists already; never at a filesystem root or in the
    /// home folder itself, where a session's cwd is not a project (`forge init` there
    /// is still possible, deliberately).
    pub fn may_create_state(&self, home: Option<&Path>) -> bool {
        if self.forge_dir().is_dir() {
            return true;
        }
        let same = |a: &Path, b: &Path| {
            a == b
                || (a
                    .canonicalize()
                    .ok()
                    .is_some_and(|x| Some(x) == b.canonicalize().ok()))
        };
        self.root.parent().is_some() && !home.is_some_and(|h| same(&self.root, h))
    }

    /// Creates `.forge/logs` and `.forge/handoffs`, and a `.forge/.gitignore` holding
    /// `*` when `.forge/` is new, so forge's state never shows up in `git status`.
    pub fn ensure_dirs(&self) -> std::io::Result<()> {
        let fresh = !self.forge_dir().exists();
        std::fs::create_dir_all(self.logs())?;
        std::fs::create_dir_all(self.handoffs())?;
        let ignore = self.forge_dir().join(".gitignore");
        if fresh && !ignore.exists() {
            super::write_atomic(&ignore, b"# forge state: local to this machine\n*\n")?;
        }
        Ok(())
    }
}

/// Reduces an id (task or session) to `[A-Za-z0-9._-]`, at most 64 characters, so it
/// can become part of a file name without ever leaving its folder.
///
/// Other characters become `_`; a leading `.` becomes `_` (no `.`/`..`/hidden
/// names); an empty result becomes `unnamed`.
pub fn sanitize_id(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if out.starts_with('.') {
        out.replace_range(0..1, "_");
    }
    if out.is_empty() {
        out.push_str("unnamed");
    }
    out
}

/// Finds the project root, as DESIGN.md orders it: `CLAUDE_PROJECT_DIR`; the nearest
/// ancestor of `cwd` that holds `.forge/`; the git work-tree root above it; `cwd`.
///
/// Cheap: a walk up the folder tree with `stat` calls, no git library.
pub fn resolve_root(claude_project_dir: Option<&Path>, cwd: &Path) -> PathBuf {
    if let Some(dir) = claude_project_dir.filter(|d| d.is_dir()) {
        return dir.to_path_buf();
    }
    let cwd = absolute(cwd);
    if let Some(found) = cwd.ancestors().find(|a| a.join(".forge").is_dir()) {
        return found.to_path_buf();
    }
    if let Some(found) = cwd.ancestors().find(|a| a.join(".git").exists()) {
        return found.to_path_buf();
    }
    cwd
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_keeps_ids_inside_their_folder() {
        assert_eq!(sanitize_id("T-012"), "T-012");
        assert_eq!(sanitize_id("../../etc/passwd"), "_._.._etc_passwd");
        assert_eq!(sanitize_id(".."), "_.");
        assert_eq!(sanitize_id(""), "unnamed");
        assert_eq!(sanitize_id("a/b\\c d"), "a_b_c_d");
        assert_eq!(sanitize_id(&"x".repeat(200)).len(), 64);
        let p = Paths::new("/p");
        for evil in ["../x", "/abs", "..", "a/../../b", "\0"] {
            let f = p.session_bridge(evil);
            assert_eq!(f.parent().unwrap(), p.sessions(), "{evil}");
        }
    }

    #[test]
    fn state_is_never_created_at_the_root_or_in_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let proj = home.join("proj");
        std::fs::create_dir_all(&proj).unwrap();
        assert!(!Paths::new("/").may_create_state(Some(&home)));
        assert!(!Paths::new(&home).may_create_state(Some(&home)));
        assert!(Paths::new(&proj).may_create_state(Some(&home)));
        // An existing .forge/ is always used (e.g. after `forge init` in home).
        std::fs::create_dir_all(home.join(".forge")).unwrap();
        assert!(Paths::new(&home).may_create_state(Some(&home)));
    }

    #[test]
    fn root_prefers_project_dir_then_forge_then_git() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join("repo");
        let deep = repo.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert_eq!(resolve_root(None, &deep), repo);
        std::fs::create_dir_all(repo.join("a/.forge")).unwrap();
        assert_eq!(resolve_root(None, &deep), repo.join("a"));
        assert_eq!(resolve_root(Some(&repo), &deep), repo);
        let lone = t.path().join("lone");
        std::fs::create_dir_all(&lone).unwrap();
        // No .forge and no .git above a temp folder (unless the temp root is in a repo).
        if !t
            .path()
            .ancestors()
            .any(|a| a.join(".git").exists() || a.join(".forge").is_dir())
        {
            assert_eq!(resolve_root(None, &lone), lone);
        }
    }
}
