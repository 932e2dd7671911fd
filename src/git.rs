//! Git facts through `git2` (built without default features: no OpenSSL, no network).
//!
//! Only names and counts are read — never file contents or diffs. Hooks compute
//! these and write `logs/git-cache.json` (so does the open dashboard, when its
//! [`marks`] show a checkout or commit); the statusline only reads that cache (and
//! `.git/HEAD` for the branch).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use chrono::{DateTime, Utc};
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use git2::{DiffOptions, ErrorCode, Repository};

use crate::model::state::GitCache;
use crate::store::{Paths, files};

/// How many changed names are kept.
pub const MAX_CHANGED_NAMES: usize = 50;

/// Branch, uncommitted count and changed names of a work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitFacts {
    /// Branch name; `detached@<sha7>` on a detached HEAD; the unborn branch's name
    /// in a repository without commits.
    pub branch: String,
    /// Tracked changes plus untracked files, counted like `git status --porcelain`
    /// (an untracked folder counts once). forge's own `.forge/` is left out.
    pub uncommitted: u64,
    /// Changed names (repo-relative), at most [`MAX_CHANGED_NAMES`].
    pub changed: Vec<String>,
    /// The commit HEAD points at, when there is one.
    pub head: Option<String>,
}

/// Opens the repository whose work tree contains `dir`. A repository whose `HEAD`
/// is not a regular file, or whose index is there but not one, is not opened (a
/// FIFO would block libgit2's read — for ever, in the dashboard's git poller).
pub fn open(dir: &Path) -> Option<Repository> {
    use crate::store::safe::is_regular;
    Repository::discover(dir)
        .ok()
        .filter(|r| !r.is_bare())
        .filter(|r| is_regular(&r.path().join("HEAD")))
        .filter(|r| {
            let index = r.path().join("index");
            is_regular(&index) || std::fs::symlink_metadata(&index).is_err()
        })
}

/// The branch name of HEAD, with detached and unborn HEADs handled.
pub fn branch(repo: &Repository) -> Option<String> {
    match repo.head() {
        Ok(head) => {
            if head.is_branch() {
                head.shorthand().ok().map(str::to_owned)
            } else {
                let sha = head.target()?.to_string();
                Some(format!("detached@{}", sha.get(..7).unwrap_or(&sha)))
            }
        }
        Err(e) if e.code() == ErrorCode::UnbornBranch => {
            let head = repo.find_reference("HEAD").ok()?;
            let target = head.symbolic_target().ok()??;
            Some(
                target
                    .strip_prefix("refs/heads/")
                    .unwrap_or(target)
                    .to_owned(),
            )
        }
        Err(_) => None,
    }
}

/// Reads the branch from `<root>/.git/HEAD` without opening the repository: the
/// statusline's cheap path. Handles `.git` files (worktrees) and detached HEADs.
/// Both files are read as `store::safe` reads (never a FIFO or a link, at most
/// 4 KiB), so an odd `.git` never hangs the line.
pub fn branch_from_head_file(root: &Path) -> Option<String> {
    let read = |p: &Path| {
        crate::store::safe::read_capped(p, 4096, crate::store::safe::Follow::No)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let dot_git = root.join(".git");
    let git_dir = if crate::store::safe::is_regular(&dot_git) {
        let text = read(&dot_git)?;
        let rel = text
            .lines()
            .find_map(|l| l.strip_prefix("gitdir:"))?
            .trim()
            .to_owned();
        let p = Path::new(&rel);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            root.join(p)
        }
    } else {
        dot_git
    };
    let head = read(&git_dir.join("HEAD"))?;
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned());
    }
    head.get(..7).map(|s| format!("detached@{s}"))
}

/// The cheap signs that the git facts may have changed: where HEAD points and which
/// index file is there. A checkout, commit, reset, merge, rebase, `git add` or
/// `git restore --staged` changes them; editing a work-tree file does not (only
/// [`facts`]' scan sees that).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// HEAD's branch, as [`branch`] names it.
    pub branch: Option<String>,
    /// The commit HEAD points at.
    pub head: Option<String>,
    /// The index file's size, modification time (seconds, nanoseconds) and inode
    /// (git writes a new index and renames it into place); `None` without one.
    pub index: Option<(u64, i64, i64, u64)>,
}

/// Reads the [`Marks`] of the repository whose work tree contains `root`: HEAD,
/// the ref it names and one `lstat` of the index, in the repository's own git
/// folder (a linked work tree's, or wherever a `.git` file points). No work-tree
/// scan, so it can be read every second. `None` outside a work tree.
pub fn marks(root: &Path) -> Option<Marks> {
    use std::os::unix::fs::MetadataExt;
    let repo = open(root)?;
    let index = std::fs::symlink_metadata(repo.path().join("index"))
        .ok()
        .map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ino()));
    let head = repo
        .head()
        .ok()
        .and_then(|h| h.target())
        .map(|oid| oid.to_string());
    Some(Marks {
        branch: branch(&repo),
        head,
        index,
    })
}

/// Index file size from which the work-tree scan is split across two threads (about
/// 4,000 entries).
const PARALLEL_MIN_INDEX_BYTES: u64 = 350 * 1024;

/// Computes branch, uncommitted count and changed names for the work tree at `root`.
/// `None` when `root` is not inside a git work tree.
///
/// The count matches `git status --porcelain`: staged changes (HEAD → index, renames
/// found) and work-tree changes (index → work tree, untracked files, an untracked
/// folder once), one per path. On a large tree the work-tree scan — one `lstat` per
/// file, nearly all of the cost — is split between two threads by folder.
pub fn facts(root: &Path) -> Option<GitFacts> {
    let repo = open(root)?;
    let workdir = repo.workdir()?.to_path_buf();
    let branch = branch(&repo).unwrap_or_else(|| "HEAD".to_owned());
    // Decide from the index file's size, before reading it, whether to use a second
    // thread: then that thread loads its own copy of the index while this one does.
    let big = std::fs::metadata(repo.path().join("index"))
        .is_ok_and(|m| m.len() >= PARALLEL_MIN_INDEX_BYTES);
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let ok = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Option<PathSpecs>>();
        let helper = big.then(|| {
            let dir = workdir.clone();
            scope.spawn(move || -> Option<Vec<String>> {
                let repo = Repository::open(&dir).ok()?;
                let index = repo.index().ok()?;
                match rx.recv().ok()? {
                    Some(specs) => workdir_changes(&repo, &index, Some(&specs)),
                    None => Some(Vec::new()),
                }
            })
        });
        let index = repo.index().ok();
        let split = match (&index, big) {
            (Some(index), true) => split_workdir(&workdir, index),
            _ => None,
        };
        let (mine, theirs) = match split {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        // Always answer the helper, so it never waits forever.
        let _ = tx.send(theirs);
        let index = index?;
        let staged = staged_changes(&repo, &index)?;
        let local = workdir_changes(&repo, &index, mine.as_ref())?;
        changed.extend(staged);
        changed.extend(local);
        if let Some(h) = helper {
            changed.extend(h.join().ok()??);
        }
        Some(())
    });
    ok?;
    changed.retain(|name| name != ".forge" && !name.starts_with(".forge/"));
    let head = repo
        .head()
        .ok()
        .and_then(|h| h.target())
        .map(|oid| oid.to_string());
    Some(GitFacts {
        head,
        branch,
        uncommitted: changed.len() as u64,
        changed: changed.into_iter().take(MAX_CHANGED_NAMES).collect(),
    })
}

fn delta_paths(diff: &git2::Diff<'_>) -> Vec<String> {
    diff.deltas()
        .filter_map(|d| {
            d.new_file()
                .path()
                .or_else(|| d.old_file().path())
                .and_then(|p| p.to_str())
                .map(str::to_owned)
        })
        .collect()
}

/// HEAD → index (what `git status` calls "Changes to be committed").
fn staged_changes(repo: &Repository, index: &git2::Index) -> Option<Vec<String>> {
    let head_tree = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
    let mut opts = DiffOptions::new();
    opts.ignore_submodules(true);
    let mut diff = repo
        .diff_tree_to_index(head_tree.as_ref(), Some(index), Some(&mut opts))
        .ok()?;
    let _ = diff.find_similar(None);
    Some(delta_paths(&diff))
}

/// Index → work tree plus untracked files, optionally limited to `specs` (literal
/// folder or file names, so only those subtrees are read).
fn workdir_changes(
    repo: &Repository,
    index: &git2::Index,
    specs: Option<&PathSpecs>,
) -> Option<Vec<String>> {
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(false)
        .enable_fast_untracked_dirs(true)
        .include_ignored(false)
        .ignore_submodules(true);
    if let Some(specs) = specs {
        opts.disable_pathspec_match(true);
        for s in specs {
            opts.pathspec(s.clone());
        }
    }
    let diff = repo
        .diff_index_to_workdir(Some(index), Some(&mut opts))
        .ok()?;
    Some(delta_paths(&diff))
}

/// Literal paths (bytes) given to libgit2 as a pathspec list.
type PathSpecs = Vec<Vec<u8>>;

/// Splits the work tree into two sets of literal paths with about the same number of
/// tracked files each: top-level entries, and the entries of any folder that holds
/// most of the files (up to three levels down). Every entry of the tree is in exactly
/// one set, tracked or not. `None` when the tree cannot be split usefully.
fn split_workdir(workdir: &Path, index: &git2::Index) -> Option<(PathSpecs, PathSpecs)> {
    let total = index.len();
    let mut groups = children_with_counts(workdir, b"", index)?;
    for _ in 0..3 {
        // One folder holds most files: split inside it instead.
        let Some(pos) = groups.iter().position(|g| g.1 * 10 > total * 6) else {
            break;
        };
        let (name, _) = groups.swap_remove(pos);
        let is_dir = std::fs::symlink_metadata(workdir.join(std::ffi::OsStr::from_bytes(&name)))
            .is_ok_and(|m| m.is_dir());
        if !is_dir {
            groups.push((name, 0));
            break;
        }
        let mut prefix = name;
        prefix.push(b'/');
        groups.extend(children_with_counts(workdir, &prefix, index)?);
    }
    if groups.len() < 2 {
        return None;
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    // This thread also diffs HEAD against the index: give it a little less.
    let (mut na, mut nb) = (total / 8, 0usize);
    for (name, n) in groups {
        if na <= nb {
            a.push(name);
            na += n;
        } else {
            b.push(name);
            nb += n;
        }
    }
    (!a.is_empty() && !b.is_empty()).then_some((a, b))
}

/// The entries of folder `prefix` (`""` for the root, else ending in `/`) as full
/// relative paths, each with the number of index entries under it.
fn children_with_counts(
    workdir: &Path,
    prefix: &[u8],
    index: &git2::Index,
) -> Option<Vec<(Vec<u8>, usize)>> {
    let dir = workdir.join(std::ffi::OsStr::from_bytes(prefix));
    let mut groups: std::collections::BTreeMap<Vec<u8>, usize> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.file_name().as_bytes().to_vec())
        .filter(|n| !(prefix.is_empty() && n.as_slice() == b".git"))
        .map(|n| {
            let mut full = prefix.to_vec();
            full.extend_from_slice(&n);
            (full, 0)
        })
        .collect();
    for entry in index.iter() {
        let Some(rest) = entry.path.strip_prefix(prefix) else {
            continue;
        };
        let first = rest.split(|b| *b == b'/').next().unwrap_or(rest);
        let mut full = prefix.to_vec();
        full.extend_from_slice(first);
        if let Some(n) = groups.get_mut(&full) {
            *n += 1;
        }
    }
    Some(groups.into_iter().collect())
}

/// Whether git ignores `rel` (a path relative to the work tree, which need not exist).
/// `None` when `root` is not inside a git work tree.
pub fn is_ignored(root: &Path, rel: &str) -> Option<bool> {
    let repo = open(root)?;
    let workdir = repo.workdir()?.to_path_buf();
    let abs = root.join(rel);
    let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let canon_work = std::fs::canonicalize(&workdir).unwrap_or(workdir);
    let inside = canon_root
        .strip_prefix(&canon_work)
        .map(|p| p.join(rel))
        .unwrap_or(abs);
    repo.is_path_ignored(&inside).ok()
}

/// Whether git tracks `file` (an absolute path; it is in the index of the work tree
/// that contains it, as `git ls-files --error-unmatch` would say). `None` when the
/// file is in no git work tree.
pub fn is_tracked(file: &Path) -> Option<bool> {
    let dir = file.parent()?;
    let repo = open(dir)?;
    let workdir = std::fs::canonicalize(repo.workdir()?).ok()?;
    let name = file.file_name()?;
    let canon_dir = std::fs::canonicalize(dir).ok()?;
    let rel = canon_dir.strip_prefix(&workdir).ok()?.join(name);
    let index = repo.index().ok()?;
    Some(index.get_path(&rel, 0).is_some())
}

/// The subjects of the last `n` commits on HEAD (`<sha7> <subject>`).
pub fn recent_commits(root: &Path, n: usize) -> Vec<String> {
    let Some(repo) = open(root) else {
        return Vec::new();
    };
    let Ok(mut walk) = repo.revwalk() else {
        return Vec::new();
    };
    if walk.push_head().is_err() {
        return Vec::new();
    }
    walk.filter_map(Result::ok)
        .take(n)
        .filter_map(|oid| {
            let c = repo.find_commit(oid).ok()?;
            let sha = oid.to_string();
            Some(format!(
                "{} {}",
                sha.get(..7).unwrap_or(&sha),
                c.summary().ok().flatten().unwrap_or("")
            ))
        })
        .collect()
}

/// How long an unchanged cache is left as it is before its time is refreshed.
const CACHE_REWRITE_SECS: i64 = 10;

/// How long a hook waits for git facts before it falls back to the cache.
pub const GIT_DEADLINE: Duration = Duration::from_secs(3);

/// [`facts`] on a helper thread, waited for at most `deadline`. `None` when it takes
/// longer (a huge or cold tree): the thread is left to finish on its own and the
/// hook carries on — git work in a hook is bounded.
pub fn facts_within(root: &Path, deadline: Duration) -> Option<GitFacts> {
    let root = root.to_path_buf();
    run_within(deadline, move || facts(&root))
}

/// Runs `work` on a helper thread and waits at most `deadline` for its answer.
fn run_within<T: Send + 'static>(
    deadline: Duration,
    work: impl FnOnce() -> Option<T> + Send + 'static,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("git-facts".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .ok()?;
    rx.recv_timeout(deadline).ok().flatten()
}

/// Computes git facts (within [`GIT_DEADLINE`]) and writes them to
/// `logs/git-cache.json`; falls back to the cache when git takes too long.
///
/// An unchanged cache younger than a few seconds is not rewritten: creating a file is
/// the slowest part of a hook on some file systems.
pub fn refresh_cache(paths: &Paths, now: DateTime<Utc>) -> Option<GitCache> {
    refresh_cache_within(paths, now, GIT_DEADLINE)
}

/// [`refresh_cache`] with an explicit deadline.
pub fn refresh_cache_within(
    paths: &Paths,
    now: DateTime<Utc>,
    deadline: Duration,
) -> Option<GitCache> {
    let Some(f) = facts_within(&paths.root, deadline) else {
        return files::read_git_cache(paths);
    };
    let cache = cache_of(f, now);
    save_cache(
        paths,
        &cache,
        Some(chrono::Duration::seconds(CACHE_REWRITE_SECS)),
    );
    Some(cache)
}

/// The cache record of `facts` computed at `now`.
pub fn cache_of(facts: GitFacts, now: DateTime<Utc>) -> GitCache {
    GitCache {
        updated_at: files::iso(now),
        branch: Some(facts.branch),
        uncommitted_changes: facts.uncommitted,
        changed_files: facts.changed,
        head: facts.head,
    }
}

/// Writes `cache` to `logs/git-cache.json` (when `logs/` exists) unless the file
/// already holds the same facts — and, with `rewrite_after`, is younger than that
/// (an unchanged cache's time is then refreshed). Returns whether it wrote.
pub fn save_cache(
    paths: &Paths,
    cache: &GitCache,
    rewrite_after: Option<chrono::Duration>,
) -> bool {
    if !paths.logs().is_dir() {
        return false;
    }
    let now = files::parse_iso(&cache.updated_at);
    let fresh_enough = files::read_git_cache(paths).is_some_and(|old| {
        old.same_facts(cache)
            && rewrite_after.is_none_or(|max| {
                files::parse_iso(&old.updated_at)
                    .zip(now)
                    .is_some_and(|(t, now)| now - t < max)
            })
    });
    !fresh_enough && files::write_git_cache(paths, cache).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    #[test]
    fn unborn_then_commits_then_detached() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q", "-b", "trunk"]);
        let f = facts(d).unwrap();
        assert_eq!(f.branch, "trunk");
        assert_eq!(f.uncommitted, 0);
        assert_eq!(branch_from_head_file(d).as_deref(), Some("trunk"));

        std::fs::write(d.join("a.txt"), "a").unwrap();
        std::fs::create_dir_all(d.join("newdir")).unwrap();
        std::fs::write(d.join("newdir/x"), "x").unwrap();
        std::fs::write(d.join("newdir/y"), "y").unwrap();
        std::fs::create_dir_all(d.join(".forge/logs")).unwrap();
        std::fs::write(d.join(".forge/logs/e"), "x").unwrap();
        let f = facts(d).unwrap();
        // a.txt and newdir/ (once, as porcelain shows it); .forge/ is forge's own.
        assert_eq!(f.uncommitted, 2, "{:?}", f.changed);
        git(d, &["add", "a.txt"]);
        git(d, &["commit", "-qm", "first"]);
        std::fs::write(d.join("a.txt"), "changed").unwrap();
        let f = facts(d).unwrap();
        assert_eq!(f.uncommitted, 2);
        assert!(f.changed.contains(&"a.txt".to_owned()));
        assert_eq!(recent_commits(d, 5).len(), 1);
        assert!(recent_commits(d, 5)[0].ends_with(" first"));

        git(d, &["checkout", "-q", "--detach"]);
        let f = facts(d).unwrap();
        assert!(f.branch.starts_with("detached@"), "{}", f.branch);
        assert_eq!(branch_from_head_file(d), Some(f.branch));
    }

    #[test]
    fn marks_follow_head_and_the_index_in_any_work_tree() {
        let t = tempfile::tempdir().unwrap();
        let d = &t.path().join("repo");
        std::fs::create_dir_all(d).unwrap();
        git(d, &["init", "-q", "-b", "main"]);
        std::fs::write(d.join("a.txt"), "a").unwrap();
        git(d, &["add", "a.txt"]);
        git(d, &["commit", "-qm", "first"]);
        let m0 = marks(d).unwrap();
        assert_eq!(m0.branch.as_deref(), Some("main"));
        assert!(m0.head.is_some() && m0.index.is_some());
        assert_eq!(marks(d).as_ref(), Some(&m0), "nothing changed");
        // A work-tree edit leaves them alone (the full scan finds it).
        std::fs::write(d.join("a.txt"), "changed").unwrap();
        std::fs::write(d.join("new.txt"), "n").unwrap();
        assert_eq!(marks(d).as_ref(), Some(&m0));
        git(d, &["checkout", "-q", "-b", "feat/x"]);
        let m1 = marks(d).unwrap();
        assert_eq!(m1.branch.as_deref(), Some("feat/x"));
        git(d, &["add", "a.txt"]);
        let m2 = marks(d).unwrap();
        assert_ne!(m2.index, m1.index, "git add rewrites the index");
        git(d, &["commit", "-qm", "second"]);
        assert_ne!(marks(d).unwrap().head, m2.head);

        // A linked work tree (its .git is a file): its own HEAD and index.
        let wt = &t.path().join("wt");
        git(
            d,
            &["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()],
        );
        assert!(wt.join(".git").is_file());
        let before = marks(d).unwrap();
        let w0 = marks(wt).unwrap();
        assert_eq!(w0.branch.as_deref(), Some("other"));
        git(wt, &["checkout", "-q", "-b", "other2"]);
        let w1 = marks(wt).unwrap();
        assert_eq!(w1.branch.as_deref(), Some("other2"));
        assert_eq!(marks(d).unwrap(), before, "the main tree's marks stay");

        let none = tempfile::tempdir().unwrap();
        if open(none.path()).is_none() {
            assert_eq!(marks(none.path()), None);
        }
    }

    #[test]
    fn an_index_that_is_no_file_is_never_read() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q", "-b", "main"]);
        std::fs::write(d.join("a.txt"), "a").unwrap();
        git(d, &["add", "a.txt"]);
        git(d, &["commit", "-qm", "first"]);
        let index = d.join(".git/index");
        std::fs::remove_file(&index).unwrap();
        assert!(facts(d).is_some(), "a missing index is an empty one");
        let ok = Command::new("mkfifo")
            .arg(&index)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        // Nobody writes to the FIFO: reading it would block for ever.
        let started = std::time::Instant::now();
        assert!(facts_within(d, Duration::from_secs(5)).is_none());
        assert!(marks(d).is_none());
        assert!(started.elapsed() < Duration::from_secs(2), "it waited");
    }

    #[test]
    fn save_cache_writes_changed_facts_and_ages_only_when_asked() {
        let t = tempfile::tempdir().unwrap();
        let paths = Paths::new(t.path());
        let at = |s: &str, n: u64| GitCache {
            updated_at: s.into(),
            branch: Some("main".into()),
            uncommitted_changes: n,
            ..GitCache::default()
        };
        // No logs/ folder: nothing is created.
        assert!(!save_cache(&paths, &at("2026-11-21T10:00:00Z", 0), None));
        assert!(!paths.logs().exists());
        std::fs::create_dir_all(paths.logs()).unwrap();
        assert!(save_cache(&paths, &at("2026-11-21T10:00:00Z", 0), None));
        let ten = Some(chrono::Duration::seconds(10));
        assert!(!save_cache(&paths, &at("2026-11-21T10:00:05Z", 0), ten));
        assert!(!save_cache(&paths, &at("2026-11-21T10:01:00Z", 0), None));
        assert!(save_cache(&paths, &at("2026-11-21T10:01:00Z", 0), ten));
        assert!(save_cache(&paths, &at("2026-11-21T10:01:00Z", 3), None));
        let read = files::read_git_cache(&paths).unwrap();
        assert_eq!(read.uncommitted_changes, 3);
    }

    fn porcelain(dir: &Path) -> Vec<String> {
        let out = Command::new("git")
            .args(["status", "--porcelain", "--no-renames"])
            .current_dir(dir)
            .output()
            .unwrap();
        let mut v: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l[3..].trim_matches('"').to_owned())
            .filter(|l| !l.starts_with(".forge"))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn large_tree_split_scan_matches_git_status() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q", "-b", "main"]);
        for i in 0..5000 {
            let sub = d.join(format!("src/m{:02}", i / 400));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{i}.rs")), format!("{i}")).unwrap();
        }
        std::fs::write(d.join("top.txt"), "t").unwrap();
        std::fs::write(d.join("src/lib.rs"), "l").unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "init"]);
        assert!(facts(d).unwrap().uncommitted == 0);
        // Changes spread over both halves, the top level and src/ itself.
        std::fs::write(d.join("src/m00/f0.rs"), "changed").unwrap();
        std::fs::write(d.join("src/m11/f4400.rs"), "changed").unwrap();
        std::fs::remove_file(d.join("src/m05/f2000.rs")).unwrap();
        std::fs::write(d.join("top.txt"), "changed").unwrap();
        std::fs::write(d.join("src/lib.rs"), "changed").unwrap();
        std::fs::create_dir_all(d.join("src/m03/newdir/deeper")).unwrap();
        std::fs::write(d.join("src/m03/newdir/deeper/a"), "a").unwrap();
        std::fs::write(d.join("src/untracked.rs"), "u").unwrap();
        std::fs::write(d.join("new-top"), "n").unwrap();
        std::fs::write(d.join("src/m07/staged.rs"), "s").unwrap();
        git(d, &["add", "src/m07/staged.rs"]);
        std::fs::create_dir_all(d.join(".forge/logs")).unwrap();
        std::fs::write(d.join(".forge/logs/x"), "x").unwrap();
        let index = open(d).unwrap().index().unwrap();
        assert!(split_workdir(d, &index).is_some(), "large tree is split");
        let index_len = std::fs::metadata(d.join(".git/index")).unwrap().len();
        assert!(
            index_len >= PARALLEL_MIN_INDEX_BYTES,
            "two threads are used: {index_len}"
        );
        let f = facts(d).unwrap();
        let expected = porcelain(d);
        assert_eq!(f.changed, expected);
        assert_eq!(f.uncommitted, expected.len() as u64);
        assert_eq!(f.uncommitted, 9);
    }

    #[test]
    fn facts_within_gives_up_at_the_deadline() {
        let t = tempfile::tempdir().unwrap();
        git(t.path(), &["init", "-q", "-b", "main"]);
        assert!(facts_within(t.path(), Duration::from_secs(10)).is_some());
        let slow = || {
            std::thread::sleep(Duration::from_millis(500));
            Some(1)
        };
        assert_eq!(run_within(Duration::from_millis(20), slow), None);
        assert_eq!(run_within(Duration::from_secs(5), || Some(2)), Some(2));
    }

    #[test]
    fn no_repo_means_no_facts() {
        let t = tempfile::tempdir().unwrap();
        if open(t.path()).is_none() {
            assert!(facts(t.path()).is_none());
            assert!(recent_commits(t.path(), 3).is_empty());
        }
    }
}
