//! Where forge's state lives, and how a project root is found.

use std::path::{Path, PathBuf};

use super::guard::Crossing;
use super::safe;

/// All the paths of one project's `.forge/` folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The project root (the folder that holds `.forge/`).
    pub(crate) root: PathBuf,
}

impl Paths {
    /// Paths for the project at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
    /// `<root>/.forge`.
    pub(crate) fn forge_dir(&self) -> PathBuf {
        self.root.join(".forge")
    }
    /// `<root>/.forge/logs`.
    pub fn logs(&self) -> PathBuf {
        self.forge_dir().join("logs")
    }
    /// `<root>/.forge/logs/chains`: one file per `forge run` chain.
    pub(crate) fn chains(&self) -> PathBuf {
        self.logs().join("chains")
    }
    /// The file of the chain whose first session is `id` (sanitised first).
    pub(crate) fn chain(&self, id: &str) -> PathBuf {
        self.chains().join(format!("{}.json", sanitize_id(id)))
    }
    /// `<root>/.forge/handoffs`.
    pub(crate) fn handoffs(&self) -> PathBuf {
        self.forge_dir().join("handoffs")
    }
    /// `<root>/.forge/logs/sessions`: one bridge file per session.
    pub(crate) fn sessions(&self) -> PathBuf {
        self.logs().join("sessions")
    }
    /// The bridge file of one session (the id is sanitised first).
    pub(crate) fn session_bridge(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.json", sanitize_id(session_id)))
    }
    /// The once-per-crossing guard of one session's threshold handoff, hook or
    /// ladder level (`<id>.threshold`, `<id>.hook<n>`, `<id>.L1`…`.L3`): see
    /// [`super::guard`].
    pub(crate) fn guard(&self, session_id: &str, crossing: Crossing) -> super::guard::Guard {
        super::guard::Guard::new(self, session_id, crossing)
    }
    /// The ladder's alert for one session's next prompt (consumed by
    /// UserPromptSubmit).
    pub(crate) fn alert(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.alert", sanitize_id(session_id)))
    }
    /// The one-shot compaction marker of one session: set on a proven compaction
    /// (SessionStart `compact`), consumed by the first PreToolUse of a tool that is
    /// not read-only (or by Stop when no tool ran).
    pub(crate) fn compaction_marker(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.compacted", sanitize_id(session_id)))
    }
    /// Held while a session handoff of this project is being written
    /// (`forge handoff`, the status line's threshold handoff, PreCompact's): PreCompact
    /// waits on it, so a compaction does not start before the handoff is on disk.
    pub(crate) fn handoff_lock(&self) -> PathBuf {
        self.logs().join(".handoff.lock")
    }
    /// The first proof of the session's latest compaction, until the second comes
    /// (`crate::store::files::first_proof`).
    pub(crate) fn compaction_claim(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.counted", sanitize_id(session_id)))
    }
    /// The client's latest compaction summary for one session, as PostCompact sent
    /// it (redacted): what the session's next handoff quotes.
    pub(crate) fn compact_summary(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.summary.json", sanitize_id(session_id)))
    }
    /// Flag beside the compaction marker: a read-only tool ran since the compaction,
    /// so the session is re-reading and Stop need not ask it to.
    pub(crate) fn reread_started(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .join(format!("{}.reread", sanitize_id(session_id)))
    }
    /// `logs/last-session.json`.
    pub(crate) fn last_session(&self) -> PathBuf {
        self.logs().join("last-session.json")
    }
    /// `logs/pre-compact-state.json`.
    pub(crate) fn pre_compact_state(&self) -> PathBuf {
        self.logs().join("pre-compact-state.json")
    }
    /// `logs/compactions.jsonl`.
    pub(crate) fn compactions(&self) -> PathBuf {
        self.logs().join("compactions.jsonl")
    }
    /// `logs/learn-pending` (empty flag file).
    pub(crate) fn learn_pending(&self) -> PathBuf {
        self.logs().join("learn-pending")
    }
    /// `logs/context-threshold-triggered` (flag; lists the sessions that fired).
    pub(crate) fn threshold_flag(&self) -> PathBuf {
        self.logs().join("context-threshold-triggered")
    }
    /// `logs/events.jsonl`.
    pub(crate) fn events(&self) -> PathBuf {
        self.logs().join("events.jsonl")
    }
    /// `logs/errors.log`.
    pub(crate) fn errors_log(&self) -> PathBuf {
        self.logs().join("errors.log")
    }
    /// `logs/alerts.json`: when each session last alerted the person for each
    /// reason (the alerts' debounce).
    pub(crate) fn alerts_sent(&self) -> PathBuf {
        self.logs().join("alerts.json")
    }
    /// `logs/git-cache.json`: git facts refreshed by hooks, read by the statusline.
    pub(crate) fn git_cache(&self) -> PathBuf {
        self.logs().join("git-cache.json")
    }
    /// `.forge/state.json` (the user's workflow state).
    pub(crate) fn state_json(&self) -> PathBuf {
        self.forge_dir().join("state.json")
    }
    /// `.forge/pending-resume`.
    pub(crate) fn pending_resume(&self) -> PathBuf {
        self.forge_dir().join("pending-resume")
    }
    /// `.forge/config.toml`.
    pub(crate) fn config(&self) -> PathBuf {
        self.forge_dir().join("config.toml")
    }
    /// Whether forge may create `.forge/` here on its own (hooks, status line,
    /// handoffs): always when it exists already; never at a filesystem root or in the
    /// home folder itself, where a session's cwd is not a project (`forge init` there
    /// is still possible, deliberately).
    pub(crate) fn may_create_state(&self, home: Option<&Path>) -> bool {
        if safe::is_real_dir(&self.forge_dir()) {
            return true;
        }
        self.root.parent().is_some() && !home.is_some_and(|h| same_file(&self.root, h))
    }

    /// Whether this is a project forge's commands may write into (`forge handoff`,
    /// `forge signal`): a folder with a `.forge/` folder, or a git work-tree root
    /// that is neither `/` nor the home folder (a dotfiles repository in the home
    /// folder does not make it a project). Anywhere else a handoff would be empty
    /// and its marker would take over `~/.claude/pending-resume` for nothing.
    pub(crate) fn is_project(&self, home: Option<&Path>) -> Result<(), NotAProject> {
        if safe::is_real_dir(&self.forge_dir()) {
            return Ok(());
        }
        if self.root.parent().is_none() {
            return Err(NotAProject::FilesystemRoot);
        }
        if home.is_some_and(|h| same_file(&self.root, h)) {
            return Err(NotAProject::Home);
        }
        if work_tree_root(&self.root) == Some(self.root.as_path()) {
            return Ok(());
        }
        Err(NotAProject::Elsewhere)
    }

    /// Creates `.forge/logs` and `.forge/handoffs`, and a `.forge/.gitignore` holding
    /// `*` when `.forge/` is new, so forge's state never shows up in `git status`.
    pub(crate) fn ensure_dirs(&self) -> std::io::Result<()> {
        let fresh = std::fs::symlink_metadata(self.forge_dir()).is_err();
        safe::create_dir_all(&self.logs())?;
        safe::create_dir_all(&self.handoffs())?;
        let ignore = self.forge_dir().join(".gitignore");
        if fresh && std::fs::symlink_metadata(&ignore).is_err() {
            super::write_atomic(&ignore, FORGE_GITIGNORE.as_bytes())?;
        }
        Ok(())
    }

    /// The StrictModes check (see [`safe`]) of forge's folders: `.forge/`, `logs/`,
    /// `handoffs/` and `logs/sessions/` must each be missing or a real folder owned by
    /// the user and not writable by others. A refused project is neither read nor
    /// written: hooks and the status line carry on without its state, commands
    /// stop with the reason, `forge doctor` reports it.
    pub(crate) fn check(&self) -> Result<(), safe::Refusal> {
        let forge = self.forge_dir();
        safe::check_dir(&forge)?;
        if std::fs::symlink_metadata(&forge).is_err() {
            return Ok(());
        }
        for dir in [self.logs(), self.handoffs(), self.sessions()] {
            safe::check_dir(&dir)?;
        }
        Ok(())
    }
}

/// The `.forge/.gitignore` that [`Paths::ensure_dirs`] writes into a new `.forge/`:
/// everything is this machine's state, but `config.toml`, the project's config a
/// team may commit (and each teammate trusts: `forge trust`).
pub(crate) const FORGE_GITIGNORE: &str = "# forge state: local to this machine (config.toml is the project's: commit it to share it)\n*\n!config.toml\n";

/// The `.forge/.gitignore` earlier versions wrote (every file ignored, the config
/// too): `forge init` replaces it with [`FORGE_GITIGNORE`].
pub(crate) const OLD_FORGE_GITIGNORE: &str = "# forge state: local to this machine\n*\n";

/// Why a folder is not a project (see [`Paths::is_project`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAProject {
    /// `/`.
    FilesystemRoot,
    /// The home folder itself.
    Home,
    /// No `.forge/` folder, and not a git work-tree root.
    Elsewhere,
}

impl NotAProject {
    /// Why `root` is not a project, and how to start one: the error of a command
    /// that would write there.
    pub(crate) fn explain(self, root: &Path) -> String {
        let root = root.display();
        match self {
            Self::FilesystemRoot => format!(
                "{root} is not a project: cd into your project first (or pass --project DIR)"
            ),
            Self::Home => format!(
                "{root} is your home folder, not a project: cd into your project first (or \
                 pass --project DIR); `forge init` here would make your whole home folder one"
            ),
            Self::Elsewhere => format!(
                "{root} is not a project: it has no .forge/ folder and is not the root of a git \
                 repository. cd into your project first (or pass --project DIR), or run \
                 `forge init` here to make this folder one"
            ),
        }
    }
}

/// Whether `a` and `b` name the same file or folder: the same path as written, else
/// the same inode once links are followed (so a hard link, or a symbolic link to it,
/// is the same file) when both exist, else the same path once each that exists is
/// resolved ([`canonical`]).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if a == b {
        return true;
    }
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => canonical(a) == canonical(b),
    }
}

/// The canonical form of `p` (links and `..` resolved) when it exists, else `p` as
/// given.
pub(super) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Reduces an id (task or session) to `[A-Za-z0-9._-]`, at most 64 characters, so it
/// can become part of a file name without ever leaving its folder.
///
/// Other characters become `_`; a leading `.` becomes `_` (no `.`/`..`/hidden
/// names); an empty result becomes `unnamed`.
pub(crate) fn sanitize_id(id: &str) -> String {
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

/// Finds the project root: `CLAUDE_PROJECT_DIR` when set; else, inside a git work
/// tree, the nearest folder from `cwd` up to the work-tree root that holds
/// `.forge/`, else the work-tree root; outside git, `cwd` itself.
///
/// The search never goes above the repository: a `.forge/` in a folder above it
/// (a shared parent folder, someone else's checkout) is never used, and outside git
/// only the folder itself counts. A `.git` owned by another user does not make a
/// work tree (as git's `safe.directory` rule). Any entry named `.forge` counts as
/// found, so a planted link or file is refused by [`Paths::check`] rather than
/// skipped in favour of another folder.
///
/// Cheap: a walk up the folder tree with `lstat` calls, no git library.
pub(crate) fn resolve_root(claude_project_dir: Option<&Path>, cwd: &Path) -> PathBuf {
    if let Some(dir) = claude_project_dir.filter(|d| d.is_dir()) {
        return dir.to_path_buf();
    }
    let cwd = absolute(cwd);
    let Some(top) = work_tree_root(&cwd) else {
        return cwd;
    };
    cwd.ancestors()
        .take_while(|a| a.starts_with(top))
        .find(|a| std::fs::symlink_metadata(a.join(".forge")).is_ok())
        .unwrap_or(top)
        .to_path_buf()
}

/// The nearest ancestor of `dir` (itself included) holding a `.git` folder or file
/// that belongs to the user.
pub(super) fn work_tree_root(dir: &Path) -> Option<&Path> {
    use std::os::unix::fs::MetadataExt;
    let me = safe::euid();
    dir.ancestors()
        .find(|a| std::fs::metadata(a.join(".git")).is_ok_and(|m| m.uid() == me))
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_file_follows_links_of_both_kinds_and_spellings() {
        use std::os::unix::fs::symlink;
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        let file = d.join("forge");
        std::fs::write(&file, "x").unwrap();
        std::fs::create_dir(d.join("home")).unwrap();
        // `forge init`'s question: is `forge` on PATH this binary (a hard link is)?
        std::fs::hard_link(&file, d.join("hard")).unwrap();
        assert!(same_file(&d.join("hard"), &file));
        // The pending resume's: the same handoff through a link or another spelling.
        symlink(&file, d.join("soft")).unwrap();
        assert!(same_file(&d.join("soft"), &file));
        assert!(same_file(&d.join("home/../forge"), &file));
        // The home check's: a folder and a link to it.
        symlink(d.join("home"), d.join("home-link")).unwrap();
        assert!(same_file(&d.join("home-link"), &d.join("home")));
        assert!(!same_file(&d.join("home"), d));
        std::fs::write(d.join("other"), "x").unwrap();
        assert!(!same_file(&d.join("other"), &file), "equal text, two files");
        // Missing: the same path as written, or nothing.
        assert!(same_file(&d.join("gone"), &d.join("gone")));
        assert!(!same_file(&d.join("gone"), &file));
        assert!(!same_file(&d.join("gone"), &d.join("./gone2")));
    }

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
    fn a_project_has_forge_state_or_is_a_repository_other_than_home() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let repo = home.join("repo");
        let notes = home.join("notes");
        for d in [&repo, &notes] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let h = Some(home.as_path());
        assert_eq!(Paths::new(&repo).is_project(h), Ok(()));
        assert_eq!(
            Paths::new(&notes).is_project(h),
            Err(NotAProject::Elsewhere)
        );
        assert_eq!(
            Paths::new("/").is_project(h),
            Err(NotAProject::FilesystemRoot)
        );
        // A repository's subfolder is not its root (commands resolve to the root).
        assert_eq!(
            Paths::new(repo.join("src")).is_project(h),
            Err(NotAProject::Elsewhere)
        );
        // A dotfiles repository does not make the home folder a project...
        std::fs::create_dir_all(home.join(".git")).unwrap();
        assert_eq!(Paths::new(&home).is_project(h), Err(NotAProject::Home));
        // ...but `forge init` there (or state already there) does, as anywhere.
        std::fs::create_dir_all(home.join(".forge")).unwrap();
        assert_eq!(Paths::new(&home).is_project(h), Ok(()));
        std::fs::create_dir_all(notes.join(".forge")).unwrap();
        assert_eq!(Paths::new(&notes).is_project(h), Ok(()));
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
        // A .forge/ above the repository is never used.
        std::fs::create_dir_all(t.path().join(".forge")).unwrap();
        std::fs::remove_dir(repo.join("a/.forge")).unwrap();
        assert_eq!(resolve_root(None, &deep), repo);
        // Outside git: the folder itself, never a parent's .forge/.
        let lone = t.path().join("lone/sub");
        std::fs::create_dir_all(&lone).unwrap();
        std::fs::create_dir_all(t.path().join("lone/.forge")).unwrap();
        if work_tree_root(t.path()).is_none() {
            assert_eq!(resolve_root(None, &lone), lone);
        }
        // A planted link named .forge is found (and then refused), not skipped.
        std::os::unix::fs::symlink(t.path(), repo.join("a/.forge")).unwrap();
        assert_eq!(resolve_root(None, &deep), repo.join("a"));
        assert!(Paths::new(repo.join("a")).check().is_err());
    }
}
