//! Git facts through `git2` (built without default features: no OpenSSL, no network).
//!
//! Only names and counts are read — never file contents or diffs. Hooks compute
//! these and write `logs/git-cache.json`; the statusline only reads that cache (and
//! `.git/HEAD` for the branch).

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use chrono::{DateTime, Utc};
use git2::{ErrorCode, Repository, Status, StatusOptions};

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
}

/// Opens the repository whose work tree contains `dir`.
pub fn open(dir: &Path) -> Option<Repository> {
    Repository::discover(dir).ok().filter(|r| !r.is_bare())
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
pub fn branch_from_head_file(root: &Path) -> Option<String> {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
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
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned());
    }
    head.get(..7).map(|s| format!("detached@{s}"))
}

/// Computes branch, uncommitted count and changed names for the work tree at `root`.
/// `None` when `root` is not inside a git work tree.
pub fn facts(root: &Path) -> Option<GitFacts> {
    let repo = open(root)?;
    let branch = branch(&repo).unwrap_or_else(|| "HEAD".to_owned());
    let mut opts = StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(false)
        .include_ignored(false)
        .exclude_submodules(true)
        .renames_head_to_index(false);
    let statuses = repo.statuses(Some(&mut opts)).ok()?;
    let mut uncommitted = 0;
    let mut changed = Vec::new();
    for entry in statuses.iter() {
        let status = entry.status();
        if status.is_empty() || status.contains(Status::IGNORED) || status == Status::CURRENT {
            continue;
        }
        let Ok(name) = entry.path() else { continue };
        if name == ".forge" || name.starts_with(".forge/") {
            continue;
        }
        uncommitted += 1;
        if changed.len() < MAX_CHANGED_NAMES {
            changed.push(name.to_owned());
        }
    }
    Some(GitFacts {
        branch,
        uncommitted,
        changed,
    })
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

/// Computes git facts now and writes them to `logs/git-cache.json` (best effort).
pub fn refresh_cache(paths: &Paths, now: DateTime<Utc>) -> Option<GitCache> {
    let f = facts(&paths.root)?;
    let cache = GitCache {
        updated_at: files::iso(now),
        branch: Some(f.branch),
        uncommitted_changes: f.uncommitted,
        changed_files: f.changed,
    };
    if paths.logs().is_dir() {
        let _ = files::write_git_cache(paths, &cache);
    }
    Some(cache)
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
    fn no_repo_means_no_facts() {
        let t = tempfile::tempdir().unwrap();
        if open(t.path()).is_none() {
            assert!(facts(t.path()).is_none());
            assert!(recent_commits(t.path(), 3).is_empty());
        }
    }
}
