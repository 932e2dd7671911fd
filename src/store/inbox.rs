//! The repository's inbox: the agent handoffs (Signals) of every work tree of one git
//! repository, read as one list (docs/design.md#the-repositorys-inbox).
//!
//! Each work tree keeps its own `.forge/` (its sessions, session handoffs, logs, the
//! pending resume). Its agent handoffs are the repository's: forge writes a new one
//! into the **home** folder — the main work tree's `.forge/handoffs/` (for a bare
//! repository, `.forge/handoffs/` in its git folder), which outlives every linked
//! work tree — and reads those of every work tree's `.forge/handoffs/`, so a Signal
//! written or copied by hand into one is found from all the others. In a checkout
//! with no linked work tree, the home is the project's own folder: nothing changes.
//!
//! The work trees are the ones git itself records: the main one (the folder that
//! holds the common git folder `.git`) and each `<common>/worktrees/<name>` whose
//! `gitdir` names a `.git` file that names that entry back. A `.git` file, a
//! `gitdir` or a `commondir` can point anywhere (a repository can ship a `.git`
//! file): a pointer is followed only when the other end points back, the common
//! folder and its `worktrees/` must be real folders of the user's, every pointer is
//! read as `store::safe` reads (no FIFO, at most 4 KiB), at most [`MAX_WORKTREES`]
//! entries are looked at, and each work tree's `.forge/` is used only when it passes
//! [`Paths::check`]. Anything that does not hold up leaves the project alone with
//! its own folder, never an error: a work tree removed with `git worktree remove`
//! (or deleted by hand) is simply not there.
//!
//! A project in a sub-folder of its work tree (`<tree>/app/.forge`) shares with the
//! same sub-folder of every other work tree (`<other>/app/.forge`).
//!
//! This is the one place that says which folders a repository's Signals are in
//! ([`Inbox::of`]); `store::handoffs::repository` lists them, and the status line's
//! count (`store::handoffs::count_blocked`) caches over the same folders.

use std::path::{Path, PathBuf};

use super::{Paths, safe};
use crate::model::handoff::entry::{HandoffKind, Origin};

/// The most linked work trees of one repository looked at (the first ones by name).
pub(crate) const MAX_WORKTREES: usize = 64;

/// The most bytes read of one pointer file (`.git`, `gitdir`, `commondir`, `HEAD`).
const POINTER_CAP: u64 = 4096;

/// One work tree's project in the repository's inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Folder {
    /// Its project: the work tree's root, or the same sub-folder of it as this
    /// project's (for a bare repository's home: its git folder).
    pub(crate) paths: Paths,
    /// The work tree's root (`None`: a bare repository's home, in no work tree).
    pub(crate) worktree: Option<PathBuf>,
    /// The git folder whose `HEAD` names the work tree's branch.
    git_dir: Option<PathBuf>,
}

impl Folder {
    /// The work tree's branch now, from its `HEAD` (one capped read).
    pub(crate) fn branch(&self) -> Option<String> {
        let head = safe::read_capped(
            &self.git_dir.as_ref()?.join("HEAD"),
            POINTER_CAP,
            safe::Follow::No,
        )
        .ok()?;
        crate::model::session::state::branch_of_head(&String::from_utf8_lossy(&head))
    }

    /// Where an agent handoff found in this folder came from, when it does not say.
    pub(crate) fn origin(&self) -> Option<Origin> {
        Some(Origin {
            remote: None,
            worktree: self.worktree.as_ref()?.display().to_string(),
            branch: self.branch(),
        })
    }
}

/// Where a project's Signals are: the home forge writes them into, and every folder
/// they are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inbox {
    /// Where forge writes a new agent handoff.
    pub(crate) home: Paths,
    /// Every folder whose agent handoffs are the repository's: this project's first,
    /// then the home, then the other work trees by name; each once.
    pub(crate) folders: Vec<Folder>,
    /// What, when it changes, can change `folders` (this work tree's `.git`, the
    /// repository's `worktrees/` and each entry's `gitdir`): the status line's cache
    /// is valid while none of them and none of the folders changed.
    pub(crate) marks: Vec<Mark>,
}

/// A file or folder whose change says the list of folders may have changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Its path.
    pub(crate) path: PathBuf,
    /// Only its inode counts, not its change time: a `.git` folder, which changes at
    /// every `git status`.
    pub(crate) inode_only: bool,
}

impl Inbox {
    /// The project alone: no repository, or one forge cannot vouch for.
    pub(crate) fn alone(paths: &Paths) -> Self {
        Self {
            home: paths.clone(),
            folders: vec![Folder {
                paths: paths.clone(),
                worktree: None,
                git_dir: None,
            }],
            marks: Vec::new(),
        }
    }

    /// The inbox of the project at `paths` (see the module documentation).
    pub(crate) fn of(paths: &Paths) -> Self {
        discover(paths).unwrap_or_else(|| Self::alone(paths))
    }

    /// The folders other than the project's own.
    pub(crate) fn others(&self) -> impl Iterator<Item = &Folder> {
        self.folders.iter().skip(1)
    }

    /// Where forge writes a new agent handoff, ready: the home when its `.forge/` is
    /// sound (created, with its `.gitignore`, when missing), else the project's own
    /// folder, with why the home was not used (for the error log).
    pub(crate) fn writable_home(&self, own: &Paths) -> (Paths, Option<String>) {
        if self.home == *own {
            return (own.clone(), None);
        }
        match self.home.check() {
            Ok(()) => match self.home.ensure_dirs() {
                Ok(()) => (self.home.clone(), None),
                Err(e) => (
                    own.clone(),
                    Some(format!(
                        "creating the repository's inbox {}: {e}",
                        self.home.handoffs().display()
                    )),
                ),
            },
            Err(refusal) => (own.clone(), Some(refusal.to_string())),
        }
    }
}

/// The canonical form of `p`, when it exists.
fn canonical(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

/// A pointer file's text, trimmed: a regular file (never through a final link,
/// never a FIFO), at most [`POINTER_CAP`] bytes, one line.
fn pointer(path: &Path) -> Option<String> {
    let bytes = safe::read_capped(path, POINTER_CAP, safe::Follow::No).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let text = text.trim();
    (!text.is_empty() && !text.contains(['\n', '\0'])).then(|| text.to_owned())
}

/// `rel` against `base` unless it is absolute.
fn against(base: &Path, rel: &str) -> PathBuf {
    let p = Path::new(rel);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// The git folder a linked work tree's `.git` file names and its repository's
/// common folder (both canonical), when every pointer agrees, as `git worktree add`
/// writes them: the `.git` file says `gitdir: <common>/worktrees/<name>`, that
/// folder's `commondir` names `<common>`, and its `gitdir` names this very `.git`
/// file back.
fn linked(dot_git: &Path) -> Option<(PathBuf, PathBuf)> {
    let text = pointer(dot_git)?;
    let named = text.strip_prefix("gitdir:")?.trim();
    let git_dir = canonical(&against(dot_git.parent()?, named))?;
    let common = canonical(&against(&git_dir, &pointer(&git_dir.join("commondir"))?))?;
    if git_dir.parent()? != common.join("worktrees") {
        return None;
    }
    let back = canonical(&against(&git_dir, &pointer(&git_dir.join("gitdir"))?))?;
    (back == canonical(dot_git)?).then_some((git_dir, common))
}

/// The work trees of the repository whose common folder is `common`, other than the
/// main one: each entry of `<common>/worktrees/` (the first [`MAX_WORKTREES`] by
/// name) whose `gitdir` names a `.git` file that [`linked`] names back. Returns each
/// work tree's root and git folder, and the entries' `gitdir` files (marks).
fn linked_trees(common: &Path) -> (Vec<(PathBuf, PathBuf)>, Vec<PathBuf>) {
    let dir = common.join("worktrees");
    let Ok(read) = std::fs::read_dir(&dir) else {
        return (Vec::new(), Vec::new());
    };
    let mut names: Vec<_> = read
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name())
        .take(MAX_WORKTREES * 4)
        .collect();
    names.sort();
    names.truncate(MAX_WORKTREES);
    let mut trees = Vec::new();
    let mut marks = Vec::new();
    for name in names {
        let entry = dir.join(&name);
        let gitdir = entry.join("gitdir");
        marks.push(gitdir.clone());
        let Some(dot_git) = pointer(&gitdir).map(|t| against(&entry, &t)) else {
            continue;
        };
        let Some(tree) = dot_git.parent().map(Path::to_path_buf) else {
            continue;
        };
        if linked(&dot_git)
            .is_some_and(|(g, c)| c == common && Some(&g) == canonical(&entry).as_ref())
        {
            trees.push((tree, entry));
        }
    }
    (trees, marks)
}

/// Where a project sits in its repository, found as [`discover`] finds it.
struct Located {
    /// The project's root, canonical.
    root: PathBuf,
    /// The root of the work tree that holds it.
    top: PathBuf,
    /// The project's place inside its work tree (empty at the work tree's root).
    rel: PathBuf,
    /// The work tree's `.git`, and whether it is a folder (the main work tree's).
    dot_git: (PathBuf, bool),
    /// The work tree's own git folder.
    own_git: PathBuf,
    /// The repository's common git folder.
    common: PathBuf,
    /// The main work tree's root (`None`: a bare repository).
    main: Option<PathBuf>,
}

/// The repository of a project in a git work tree forge can vouch for: the work
/// tree, its git folder, the common folder and the main work tree (see the module
/// documentation for what is checked). `None` otherwise.
fn locate(paths: &Paths) -> Option<Located> {
    let root = canonical(&paths.root)?;
    let top = super::paths::work_tree_root(&root)?.to_path_buf();
    let rel = root.strip_prefix(&top).ok()?.to_path_buf();
    let dot_git = top.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    let (own_git, common) = if meta.is_dir() {
        // A `.git` folder with a `commondir` of its own is not one git writes.
        if std::fs::symlink_metadata(dot_git.join("commondir")).is_ok() {
            return None;
        }
        let c = canonical(&dot_git)?;
        (c.clone(), c)
    } else if meta.is_file() {
        linked(&dot_git)?
    } else {
        return None;
    };
    safe::check_dir(&common).ok()?;
    safe::check_dir(&common.join("worktrees")).ok()?;
    // The main work tree: the folder whose `.git` is the common folder itself.
    let main = common
        .file_name()
        .filter(|n| *n == ".git")
        .and(common.parent())
        .filter(|m| {
            let g = m.join(".git");
            safe::is_real_dir(&g) && canonical(&g).as_ref() == Some(&common)
        })
        .map(Path::to_path_buf);
    Some(Located {
        root,
        top,
        rel,
        dot_git: (dot_git, meta.is_dir()),
        own_git,
        common,
        main,
    })
}

/// The project of the repository's main work tree that the project at `paths`
/// shares its inbox with, when the project is in one of its linked work trees (for
/// a bare repository, its git folder): the repository the fleet views say it
/// belongs to. `None` in the main work tree, in a checkout without linked work
/// trees, or outside git. No work tree is listed: a few reads.
pub(crate) fn repository_root(paths: &Paths) -> Option<PathBuf> {
    let l = locate(paths)?;
    if l.dot_git.1 {
        return None;
    }
    Some(l.main.map_or(l.common, |m| m.join(&l.rel)))
}

/// The inbox of a project in a git work tree whose repository forge can vouch for;
/// `None` otherwise (then the project is alone).
fn discover(paths: &Paths) -> Option<Inbox> {
    let Located {
        root,
        top,
        rel,
        dot_git: (dot_git, git_is_dir),
        own_git,
        common,
        main,
    } = locate(paths)?;
    let worktrees = common.join("worktrees");
    let (linked, mut gitdirs) = linked_trees(&common);
    let mut marks = vec![
        Mark {
            path: dot_git,
            inode_only: git_is_dir,
        },
        Mark {
            path: worktrees,
            inode_only: false,
        },
    ];
    marks.extend(gitdirs.drain(..).map(|path| Mark {
        path,
        inode_only: false,
    }));
    let own = Folder {
        paths: paths.clone(),
        worktree: Some(top.clone()),
        git_dir: Some(own_git),
    };
    let mut folders = vec![own.clone()];
    let mut seen = vec![root];
    let mut add = |folders: &mut Vec<Folder>, folder: Folder| {
        let key = canonical(&folder.paths.root).unwrap_or_else(|| folder.paths.root.clone());
        if !seen.contains(&key) {
            seen.push(key);
            folders.push(folder);
        }
    };
    let home = match &main {
        Some(m) => Folder {
            paths: Paths::new(m.join(&rel)),
            worktree: Some(m.clone()),
            git_dir: Some(common.clone()),
        },
        // A bare repository: its git folder holds the inbox, for a project at the
        // root of its work trees (a sub-folder's shares nothing to write into).
        None if rel.as_os_str().is_empty() => Folder {
            paths: Paths::new(&common),
            worktree: None,
            git_dir: None,
        },
        None => own,
    };
    let home_paths = if canonical(&home.paths.root) == canonical(&paths.root) {
        paths.clone()
    } else {
        home.paths.clone()
    };
    add(&mut folders, home);
    for (tree, git_dir) in linked {
        add(
            &mut folders,
            Folder {
                paths: Paths::new(tree.join(&rel)),
                worktree: Some(tree),
                git_dir: Some(git_dir),
            },
        );
    }
    Some(Inbox {
        home: home_paths,
        folders,
        marks,
    })
}

/// The file `name` (a handoff's file name) in the repository's inbox: this
/// project's folder first, then the others in order. `None` when the name is not a
/// handoff's or no folder has it.
pub(crate) fn find(paths: &Paths, name: &str) -> Option<PathBuf> {
    if name.contains(['/', '\\']) || HandoffKind::of_file_name(name).is_none() {
        return None;
    }
    let own = paths.handoffs().join(name);
    if safe::is_regular(&own) {
        return Some(own);
    }
    Inbox::of(paths)
        .others()
        .filter(|f| f.paths.check().is_ok())
        .map(|f| f.paths.handoffs().join(name))
        .find(|p| {
            HandoffKind::of_file_name(name) == Some(HandoffKind::Agent) && safe::is_regular(p)
        })
}

/// The most file names an agent's record of the Signals it was told of keeps (the
/// newest).
const TOLD_MAX: usize = 500;

/// The record of the Signals addressed to `agent` its sessions' starts were told
/// of: `logs/inbox-told/<agent>.txt` in the home's `.forge/` (one for the whole
/// repository, so an agent that moves to another work tree is not told twice), one
/// file name a line.
fn told_file(home: &Paths, agent: &str) -> PathBuf {
    home.logs()
        .join("inbox-told")
        .join(format!("{}.txt", super::sanitize_id(agent.trim())))
}

/// The file names of the Signals `agent` was told of at its sessions' starts.
pub(crate) fn told(paths: &Paths, agent: &str) -> std::collections::HashSet<String> {
    let home = Inbox::of(paths).home;
    let home = if home.check().is_ok() {
        home
    } else {
        paths.clone()
    };
    safe::read_capped(&told_file(&home, agent), 64 * 1024, safe::Follow::No)
        .map(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Adds `names` to what `agent` was told of (the newest [`TOLD_MAX`] kept).
pub(crate) fn mark_told(paths: &Paths, agent: &str, names: &[String]) -> std::io::Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    let inbox = Inbox::of(paths);
    let (home, _) = inbox.writable_home(paths);
    let file = told_file(&home, agent);
    let old = safe::read_capped(&file, 64 * 1024, safe::Follow::No).unwrap_or_default();
    let old = String::from_utf8_lossy(&old);
    let mut lines: Vec<&str> = old
        .lines()
        .filter(|l| !names.iter().any(|n| n == l))
        .collect();
    lines.extend(names.iter().map(String::as_str));
    let skip = lines.len().saturating_sub(TOLD_MAX);
    let mut text = lines.split_off(skip).join("\n");
    text.push('\n');
    super::write_state(&file, text.as_bytes())
}

#[cfg(test)]
#[allow(
    clippy::cloned_ref_to_slice_refs,
    reason = "the expected folder lists read best as lists of paths"
)]
mod tests {
    use super::*;
    use crate::git::tests::git;

    /// A repository `main` with one commit, in a fresh temp folder (canonical).
    fn repo() -> (tempfile::TempDir, PathBuf) {
        let t = tempfile::tempdir().unwrap();
        let main = t.path().canonicalize().unwrap().join("main");
        std::fs::create_dir_all(&main).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        git(&main, &["commit", "-q", "--allow-empty", "-m", "one"]);
        (t, main)
    }

    fn add(main: &Path, wt: &Path, branch: &str) {
        git(
            main,
            &["worktree", "add", "-q", "-b", branch, wt.to_str().unwrap()],
        );
    }

    fn roots(inbox: &Inbox) -> Vec<PathBuf> {
        inbox.folders.iter().map(|f| f.paths.root.clone()).collect()
    }

    #[test]
    fn every_worktree_of_a_repository_is_one_inbox_written_in_the_main_one() {
        let (t, main) = repo();
        // One checkout: the project alone, its own folder the home.
        let alone = Inbox::of(&Paths::new(&main));
        assert_eq!(roots(&alone), [main.clone()]);
        assert_eq!(alone.home, Paths::new(&main));
        let (a, b) = (t.path().join("wt-a"), t.path().join("wt-b"));
        add(&main, &a, "feat-a");
        add(&main, &b, "feat-b");
        let (a, b) = (a.canonicalize().unwrap(), b.canonicalize().unwrap());
        // From a linked work tree: itself first, then the main one (the home), then
        // the others by name.
        let inbox = Inbox::of(&Paths::new(&b));
        assert_eq!(roots(&inbox), [b.clone(), main.clone(), a.clone()]);
        assert_eq!(inbox.home, Paths::new(&main));
        assert_eq!(inbox.folders[0].branch().as_deref(), Some("feat-b"));
        assert_eq!(inbox.folders[1].branch().as_deref(), Some("main"));
        assert_eq!(inbox.folders[2].branch().as_deref(), Some("feat-a"));
        assert_eq!(repository_root(&Paths::new(&b)), Some(main.clone()));
        assert_eq!(repository_root(&Paths::new(&main)), None);
        // From the main one: itself (the home), then the linked ones.
        let from_main = Inbox::of(&Paths::new(&main));
        assert_eq!(roots(&from_main), [main.clone(), a.clone(), b.clone()]);
        // What can change the list: this `.git`, `worktrees/`, each entry's gitdir.
        let marks: Vec<_> = inbox.marks.iter().map(|m| m.path.clone()).collect();
        assert_eq!(
            marks,
            [
                b.join(".git"),
                main.join(".git/worktrees"),
                main.join(".git/worktrees/wt-a/gitdir"),
                main.join(".git/worktrees/wt-b/gitdir"),
            ]
        );
        assert!(
            from_main.marks[0].inode_only,
            "a .git folder: its inode only"
        );
        // A project in a sub-folder shares with the same sub-folder of the others.
        for d in [&main, &a, &b] {
            std::fs::create_dir_all(d.join("app/.forge")).unwrap();
        }
        let sub = Inbox::of(&Paths::new(a.join("app")));
        assert_eq!(
            roots(&sub),
            [a.join("app"), main.join("app"), b.join("app")]
        );
        assert_eq!(sub.home, Paths::new(main.join("app")));
        // A work tree removed: simply not there.
        git(&main, &["worktree", "remove", b.to_str().unwrap()]);
        assert_eq!(
            roots(&Inbox::of(&Paths::new(&a))),
            [a.clone(), main.clone()]
        );
        // Deleted by hand (not yet pruned): not there either.
        std::fs::remove_dir_all(&a).unwrap();
        assert_eq!(roots(&Inbox::of(&Paths::new(&main))), [main.clone()]);
    }

    #[test]
    fn a_bare_repositorys_inbox_is_in_its_git_folder() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let (src, bare) = (base.join("src"), base.join("repo.git"));
        std::fs::create_dir_all(&src).unwrap();
        git(&src, &["init", "-q", "-b", "main"]);
        git(&src, &["commit", "-q", "--allow-empty", "-m", "one"]);
        git(
            &base,
            &[
                "clone",
                "-q",
                "--bare",
                src.to_str().unwrap(),
                bare.to_str().unwrap(),
            ],
        );
        let wt = base.join("wt");
        add(&bare, &wt, "feat");
        let inbox = Inbox::of(&Paths::new(&wt));
        assert_eq!(roots(&inbox), [wt.clone(), bare.clone()]);
        assert_eq!(inbox.home, Paths::new(&bare));
        assert_eq!(repository_root(&Paths::new(&wt)), Some(bare));
    }

    #[test]
    fn a_pointer_that_does_not_point_back_is_not_followed() {
        let (t, main) = repo();
        let a = t.path().canonicalize().unwrap().join("wt-a");
        add(&main, &a, "feat-a");
        // A shipped folder whose `.git` file names main's worktree entry: the entry
        // names wt-a back, not it, so it is alone.
        let intruder = t.path().canonicalize().unwrap().join("intruder");
        std::fs::create_dir_all(&intruder).unwrap();
        std::fs::write(
            intruder.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt-a").display()),
        )
        .unwrap();
        assert_eq!(
            roots(&Inbox::of(&Paths::new(&intruder))),
            [intruder.clone()]
        );
        // A fake repository it ships itself, whose worktree entry names a real
        // project's `.git`: that project does not name the fake back, so it is not
        // read, and the fake's own home is not the real project.
        let fake = intruder.join("fake");
        std::fs::create_dir_all(fake.join("objects")).unwrap();
        std::fs::create_dir_all(fake.join("refs")).unwrap();
        std::fs::create_dir_all(fake.join("worktrees/me")).unwrap();
        std::fs::create_dir_all(fake.join("worktrees/victim")).unwrap();
        std::fs::write(fake.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(fake.join("worktrees/me/HEAD"), "ref: refs/heads/x\n").unwrap();
        std::fs::write(fake.join("worktrees/me/commondir"), "../..\n").unwrap();
        std::fs::write(
            fake.join("worktrees/me/gitdir"),
            format!("{}\n", intruder.join(".git").display()),
        )
        .unwrap();
        std::fs::write(
            fake.join("worktrees/victim/gitdir"),
            format!("{}\n", a.join(".git").display()),
        )
        .unwrap();
        std::fs::write(
            intruder.join(".git"),
            format!("gitdir: {}\n", fake.join("worktrees/me").display()),
        )
        .unwrap();
        let inbox = Inbox::of(&Paths::new(&intruder));
        assert!(!roots(&inbox).contains(&a), "{:?}", roots(&inbox));
        assert!(!roots(&inbox).contains(&main), "{:?}", roots(&inbox));
        // A FIFO where a pointer is read is never waited on: the entry is skipped.
        let fifo = main.join(".git/worktrees/wt-a/gitdir");
        std::fs::remove_file(&fifo).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let started = std::time::Instant::now();
        assert_eq!(roots(&Inbox::of(&Paths::new(&main))), [main.clone()]);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        // A `.git` that is a link, or a `.git` folder with a commondir of its own:
        // alone.
        let odd = t.path().canonicalize().unwrap().join("odd");
        std::fs::create_dir_all(odd.join(".git")).unwrap();
        std::fs::write(odd.join(".git/commondir"), "../main/.git\n").unwrap();
        assert_eq!(roots(&Inbox::of(&Paths::new(&odd))), [odd.clone()]);
    }

    #[test]
    fn at_most_max_worktrees_are_looked_at() {
        let (t, main) = repo();
        let base = t.path().canonicalize().unwrap();
        // Entries beyond the cap (made by hand, no git needed): only the first ones
        // by name are read.
        for i in 0..MAX_WORKTREES + 5 {
            let entry = main.join(format!(".git/worktrees/w{i:03}"));
            std::fs::create_dir_all(&entry).unwrap();
            std::fs::write(
                entry.join("gitdir"),
                format!("{}/w{i:03}/.git\n", base.display()),
            )
            .unwrap();
        }
        let inbox = Inbox::of(&Paths::new(&main));
        // None of them points back (no such work trees), and no more than the cap
        // were looked at.
        assert_eq!(roots(&inbox), [main.clone()]);
        assert_eq!(inbox.marks.len(), 2 + MAX_WORKTREES);
    }
}
