//! Git facts through `git2` (built without default features: no OpenSSL, no network),
//! and, for a large work tree, through the `git` binary.
//!
//! Only names and counts are read — never file contents or diffs. Hooks compute
//! these and write `logs/git-cache.json` (so does the open dashboard, when its
//! [`marks`] show a checkout or commit); the statusline only reads that cache (and
//! `.git/HEAD` for the branch).
//!
//! The work-tree scan (one `lstat` per tracked file, a listing of every folder) is
//! nearly all the cost of [`facts`]. On a large index it is left to `git status
//! --porcelain=v2 -z`, which stats with many threads and relative paths and honours
//! `core.untrackedCache` — libgit2 needs about twice its CPU time for the same
//! answer. git is run so that it executes nothing the repository configures (see
//! [`status_by_git`]), and only after `git config` (which runs nothing) has shown
//! that the repository's configuration, as git resolves it, names no filter or diff
//! program ([`runs_nothing`]); without a `git` binary, or when it fails, libgit2
//! scans.
//!
//! Every repository is opened through [`open_checked`]: first [`guard`] looks at each
//! file libgit2 or git would open there (the config and every file it includes,
//! `HEAD`, the index, …). One that could make them wait — a FIFO, a device — means
//! no facts, and the caller says why.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use chrono::{DateTime, Utc};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use git2::{DiffOptions, ErrorCode, Repository};

use crate::env::{deadline_after, time_left};
use crate::model::session::state::GitCache;
use crate::proc::{Cmd, Output};
use crate::store::{Paths, files};

pub(crate) mod guard;

pub(crate) use guard::Refusal;

/// How many changed names are kept.
pub(crate) const MAX_CHANGED_NAMES: usize = 50;

/// Branch, uncommitted count and changed names of a work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GitFacts {
    /// Branch name; `detached@<sha7>` on a detached HEAD; the unborn branch's name
    /// in a repository without commits.
    pub(crate) branch: String,
    /// Tracked changes plus untracked files, counted like `git status --porcelain`
    /// (an untracked folder counts once). forge's own `.forge/` is left out.
    pub(crate) uncommitted: u64,
    /// Changed names (repo-relative), at most [`MAX_CHANGED_NAMES`].
    pub(crate) changed: Vec<String>,
    /// The commit HEAD points at, when there is one.
    pub(crate) head: Option<String>,
}

/// Opens the repository whose work tree contains `dir`: `None` outside a work tree,
/// and when [`open_checked`] refuses it.
pub(crate) fn open(dir: &Path) -> Option<Repository> {
    open_checked(dir).ok().flatten()
}

/// Opens the repository whose work tree contains `dir` (`Ok(None)` outside one, or
/// for a bare repository) — unless a file libgit2 would open there, as git names
/// it (the config and every file it includes, `HEAD`, the index, …), is a FIFO, a
/// device or anything but a regular file: libgit2's blocking read would wait on it
/// for good (in a hook, until its deadline; in the dashboard's git poller, for
/// ever). Then `Err` says which file and why; see [`guard`].
pub(crate) fn open_checked(dir: &Path) -> Result<Option<Repository>, Refusal> {
    guard::check(dir)?;
    Ok(Repository::discover(dir).ok().filter(|r| !r.is_bare()))
}

/// The key `forge trust` keeps a project's trust under: the project's folder as it
/// is in the repository's *main* work tree, so that trust given once covers every
/// work tree of the repository (`git worktree add`) while the file's content is the
/// same. For a linked work tree that is the main work tree's root (the folder of the
/// common git folder, `…/.git`) joined with where the project sits in this work
/// tree; for the main work tree, a folder outside git, or anything forge cannot
/// follow, the project's own canonical root (so the key of a main work tree is the
/// one trust records had before).
///
/// A linked work tree counts only as `git worktree add` makes one: a `.git` *file*
/// naming a folder in the common git folder's `worktrees/`, whose `gitdir` file
/// names this work tree's `.git` back. A repository cannot ship that pointing into
/// another repository of yours, so no folder borrows the trust of one it is not a
/// work tree of. Cheap: a few `stat`s and three small reads, only for a project
/// file that waits for trust.
pub(crate) fn trust_key(root: &Path) -> Option<String> {
    let canonical = std::fs::canonicalize(root).ok()?;
    let own = || canonical.clone().into_os_string().into_string().ok();
    let Ok(Some(layout)) = guard::locate(&canonical) else {
        return own();
    };
    let (Some(work_dir), Ok(git_dir), Ok(common)) = (
        layout.work_dir.as_deref(),
        std::fs::canonicalize(&layout.git_dir),
        std::fs::canonicalize(&layout.common_dir),
    ) else {
        return own();
    };
    if git_dir == common {
        return own();
    }
    let dot_git = work_dir.join(".git");
    let back = crate::store::safe::read_capped(
        &git_dir.join("gitdir"),
        4096,
        crate::store::safe::Follow::No,
    )
    .ok()
    .map(|b| PathBuf::from(String::from_utf8_lossy(&b).trim()));
    let linked = crate::store::safe::is_regular(&dot_git)
        && git_dir.parent() == Some(common.join("worktrees").as_path())
        && back
            .and_then(|b| std::fs::canonicalize(b).ok())
            .is_some_and(|b| std::fs::canonicalize(&dot_git).is_ok_and(|d| d == b));
    let main = match (linked, common.file_name()) {
        (true, Some(name)) if name == ".git" => common.parent()?.to_path_buf(),
        (true, _) => common,
        (false, _) => return own(),
    };
    let inside = canonical.strip_prefix(work_dir).ok()?;
    let key = if inside.as_os_str().is_empty() {
        main
    } else {
        main.join(inside)
    };
    key.into_os_string().into_string().ok()
}

/// The branch name of HEAD, with detached and unborn HEADs handled.
pub(crate) fn branch(repo: &Repository) -> Option<String> {
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
pub(crate) fn branch_from_head_file(root: &Path) -> Option<String> {
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
    crate::model::session::state::branch_of_head(&read(&git_dir.join("HEAD"))?)
}

/// The cheap signs that the git facts may have changed: where HEAD points and which
/// index file is there. A checkout, commit, reset, merge, rebase, `git add` or
/// `git restore --staged` changes them; editing a work-tree file does not (only
/// [`facts`]' scan sees that).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Marks {
    /// HEAD's branch, as [`branch`] names it.
    pub(crate) branch: Option<String>,
    /// The commit HEAD points at.
    pub(crate) head: Option<String>,
    /// The index file's size, modification time (seconds, nanoseconds) and inode
    /// (git writes a new index and renames it into place); `None` without one.
    pub(crate) index: Option<(u64, i64, i64, u64)>,
}

/// The commit HEAD points at, as hex; `None` on an unborn branch.
fn head_commit(repo: &Repository) -> Option<String> {
    repo.head()
        .ok()
        .and_then(|h| h.target())
        .map(|oid| oid.to_string())
}

/// Reads the [`Marks`] of the repository whose work tree contains `root`: HEAD,
/// the ref it names and one `lstat` of the index, in the repository's own git
/// folder (a linked work tree's, or wherever a `.git` file points). No work-tree
/// scan, so it can be read every second. `None` outside a work tree, or when
/// [`open_checked`] refuses the repository.
#[cfg(test)]
pub(crate) fn marks(root: &Path) -> Option<Marks> {
    marks_checked(root).ok().flatten()
}

/// [`marks`], saying why a repository was not opened.
pub(crate) fn marks_checked(root: &Path) -> Result<Option<Marks>, Refusal> {
    use std::os::unix::fs::MetadataExt;
    let Some(repo) = open_checked(root)? else {
        return Ok(None);
    };
    let index = std::fs::symlink_metadata(repo.path().join("index"))
        .ok()
        .map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ino()));
    let head = head_commit(&repo);
    Ok(Some(Marks {
        branch: branch(&repo),
        head,
        index,
    }))
}

/// Index file size from which the work-tree scan is split across two threads (about
/// 4,000 entries).
const PARALLEL_MIN_INDEX_BYTES: u64 = 350 * 1024;

/// Index file size from which the `git` binary scans the work tree instead of
/// libgit2 (about 2,000 entries): below it, starting a process costs more than git's
/// faster scan saves (`scripts/bench-hooks.sh` measures both sides).
const GIT_BINARY_MIN_INDEX_BYTES: u64 = 170 * 1024;

/// `$PATH` as `main` found it, where the `git` binary is looked for (once, and only
/// when a large work tree needs it).
static SEARCH_PATH: OnceLock<Option<OsString>> = OnceLock::new();
/// The `git` binary found in [`SEARCH_PATH`].
static GIT_PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Lets [`facts`] run the `git` binary found in `path` (a `$PATH` value; relative
/// entries are skipped) for a large work tree. `main` calls it once; without it (in
/// unit tests, or when `$PATH` is unset) libgit2 scans every tree.
pub fn set_search_path(path: Option<OsString>) {
    let _ = SEARCH_PATH.set(path);
}

fn git_program() -> Option<&'static Path> {
    GIT_PROGRAM
        .get_or_init(|| {
            let path = SEARCH_PATH.get()?.as_ref()?;
            crate::env::find_in_path(path, "git")
        })
        .as_deref()
}

/// Computes branch, uncommitted count and changed names for the work tree at `root`.
/// `None` when `root` is not inside a git work tree, when [`open_checked`] refuses
/// the repository, or when a `git` binary scanning it did not answer within
/// [`GIT_DEADLINE`].
///
/// The count matches `git status --porcelain`: staged changes (HEAD → index, renames
/// found) and work-tree changes (index → work tree, untracked files, an untracked
/// folder once), one per path. On a large index `git status` itself is asked (see the
/// module documentation); otherwise libgit2 scans, and on a large tree splits the
/// scan between two threads by folder.
#[cfg(test)]
pub(crate) fn facts(root: &Path) -> Option<GitFacts> {
    facts_until(root, deadline_after(GIT_DEADLINE), GitBinary::FromPath)
}

/// Which `git` binary [`facts_until`] may run for a large index.
#[derive(Debug, Clone, Copy)]
enum GitBinary<'a> {
    /// The one found in the `$PATH` `main` gave (looked up only when needed).
    FromPath,
    /// This one (tests).
    #[cfg_attr(not(test), allow(dead_code))]
    At(&'a Path),
    /// This one, whatever the index's size (tests: a small repository takes the
    /// large-index path).
    #[cfg(test)]
    AtAnySize(&'a Path),
    /// None: libgit2 scans every tree.
    #[cfg_attr(not(test), allow(dead_code))]
    Never,
}

/// What a look at the git facts gave: the facts (`None` outside a work tree, or past
/// the deadline), or why forge did not open the repository.
pub(crate) type Answer = Result<Option<GitFacts>, Refusal>;

/// [`facts`], with the `git` binary to use for a large index and the moment to give
/// up on it.
#[cfg(test)]
fn facts_until(root: &Path, until: Instant, git: GitBinary<'_>) -> Option<GitFacts> {
    facts_until_checked(root, until, git).ok().flatten()
}

/// [`facts_until`], saying why a repository was not opened.
fn facts_until_checked(root: &Path, until: Instant, git: GitBinary<'_>) -> Answer {
    let Some(repo) = open_checked(root)? else {
        return Ok(None);
    };
    Ok(scan(&repo, root, until, git))
}

/// The facts of `repo`, opened from `start` (see [`facts_until`]).
fn scan(repo: &Repository, start: &Path, until: Instant, git: GitBinary<'_>) -> Option<GitFacts> {
    let workdir = repo.workdir()?.to_path_buf();
    let branch = branch(repo).unwrap_or_else(|| "HEAD".to_owned());
    let index_len = std::fs::metadata(repo.path().join("index")).map_or(0, |m| m.len());
    let program = match git {
        #[cfg(test)]
        GitBinary::AtAnySize(p) => Some(p),
        _ if index_len < GIT_BINARY_MIN_INDEX_BYTES => None,
        GitBinary::FromPath => git_program(),
        GitBinary::At(p) => Some(p),
        GitBinary::Never => None,
    };
    let at = GitAt {
        git_dir: repo.path(),
        work_tree: &workdir,
    };
    let verdict = |p: &Path| match plain_config_runs_nothing(repo) {
        Some(answer) => Ok(answer),
        None => runs_nothing(p, at, until),
    };
    let by_git = match program.map(|p| (p, verdict(p))) {
        Some((program, Ok(true))) => status_by_git(program, at, until),
        Some((_, Err(Stopped::TimedOut))) => GitScan::TimedOut,
        _ => GitScan::Unavailable,
    };
    let mut changed = match by_git {
        GitScan::Paths(paths) => paths.into_iter().collect(),
        GitScan::TimedOut => return None,
        GitScan::Unavailable => changes_by_libgit2(repo, start, &workdir, index_len)?,
    };
    changed.retain(|name| name != ".forge" && !name.starts_with(".forge/"));
    let head = head_commit(repo);
    Some(GitFacts {
        head,
        branch,
        uncommitted: changed.len() as u64,
        changed: changed.into_iter().take(MAX_CHANGED_NAMES).collect(),
    })
}

/// Staged and work-tree changes through libgit2; on a large tree (index of
/// `index_len` bytes) the work-tree scan is split between two threads, the second
/// opening the repository again from `start`, as `repo` was (not from its work
/// tree, which `core.worktree` may have put inside another repository).
fn changes_by_libgit2(
    repo: &Repository,
    start: &Path,
    workdir: &Path,
    index_len: u64,
) -> Option<BTreeSet<String>> {
    // Decide from the index file's size, before reading it, whether to use a second
    // thread: then that thread loads its own copy of the index while this one does.
    let big = index_len >= PARALLEL_MIN_INDEX_BYTES;
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let ok = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel::<Option<PathSpecs>>();
        let helper = big.then(|| {
            let dir = start.to_path_buf();
            scope.spawn(move || -> Option<Vec<String>> {
                // The same repository, checked again as every open is.
                let repo = open(&dir)?;
                let index = repo.index().ok()?;
                match rx.recv().ok()? {
                    Some(specs) => workdir_changes(&repo, &index, Some(&specs)),
                    None => Some(Vec::new()),
                }
            })
        });
        let index = repo.index().ok();
        let split = match (&index, big) {
            (Some(index), true) => split_workdir(workdir, index),
            _ => None,
        };
        let (mine, theirs) = match split {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        // Always answer the helper, so it never waits forever.
        let _ = tx.send(theirs);
        let index = index?;
        let staged = staged_changes(repo, &index)?;
        let local = workdir_changes(repo, &index, mine.as_ref())?;
        changed.extend(staged);
        changed.extend(local);
        if let Some(h) = helper {
            changed.extend(h.join().ok()??);
        }
        Some(())
    });
    ok?;
    Some(changed)
}

/// What asking the `git` binary gave.
#[derive(Debug)]
enum GitScan {
    /// The changed paths, as `git status` lists them.
    Paths(Vec<String>),
    /// git ran past the deadline and was killed: libgit2 would be no faster.
    TimedOut,
    /// No answer (not installed, too old, refused the repository, odd output): libgit2
    /// scans instead.
    Unavailable,
}

/// Whether `git status` in `workdir` would run no program the repository's
/// configuration names, as git itself resolves that configuration: `git config
/// --list --includes --show-scope` (which runs nothing) lists every value with where
/// it came from, includes and every `includeIf` kind (`gitdir:`, `gitdir/i:`,
/// `onbranch:`, `hasconfig:remote.*.url:`) and the worktree config
/// (`extensions.worktreeConfig`) evaluated — libgit2, which forge used before, does
/// not evaluate `hasconfig:`. A filter driver (`filter.*.clean`, `.smudge`,
/// `.process`) or a diff program (`diff.*.textconv`, `diff.*.command`,
/// `diff.external`) set by the repository (scope `local` or `worktree`, the files they
/// include among them) cannot be switched off from the command line, so then libgit2
/// scans instead, which runs no external program. `core.fsmonitor` and hooks are
/// switched off on `git status`'s command line (see [`status_by_git`]). The same
/// drivers from your own config (git-lfs installs one in `~/.gitconfig`) are your
/// choice, as they are for your own `git status`. A `git config` that fails or is
/// fails is a "no"; one still running at `until` is killed (`Err(TimedOut)`: libgit2
/// would be no faster on a machine that slow).
fn runs_nothing(program: &Path, at: GitAt<'_>, until: Instant) -> Result<bool, Stopped> {
    let mut cmd = git_command(program, at);
    cmd.args([
        "--no-pager",
        "config",
        "--list",
        "--includes",
        "--show-scope",
        "-z",
    ]);
    run_capped(&mut cmd, until, CONFIG_OUTPUT_CAP).map(|out| config_runs_nothing(&out))
}

/// [`runs_nothing`] without a process, for a repository whose config cannot make
/// git read anything else: not a linked work tree, no `commondir` (the config would
/// be another folder's), no `config.worktree`, and a `config` (read whole, at most
/// 1 MiB) that says `include` nowhere — no `include.path`, no `includeIf` of any
/// kind, so nothing git evaluates that a parser here might not. Its entries, as git
/// parses them and as libgit2 does (both: `guard::valued_keys`), are judged as
/// `git config --list` output is. `None` (ask git) otherwise. Saves the `git config`
/// child on every large-index scan of a plain repository (about 1.5 ms of a Stop).
fn plain_config_runs_nothing(repo: &Repository) -> Option<bool> {
    let dir = repo.path();
    if repo.is_worktree() || repo.commondir() != dir {
        return None;
    }
    for other in ["commondir", "config.worktree"] {
        if std::fs::symlink_metadata(dir.join(other)).is_ok() {
            return None;
        }
    }
    const MAX: u64 = 1024 * 1024;
    let text = crate::store::safe::read_capped(
        &dir.join("config"),
        MAX + 1,
        crate::store::safe::Follow::No,
    )
    .ok()?;
    if text.len() as u64 > MAX
        || text
            .to_ascii_lowercase()
            .windows(7)
            .any(|w| w == b"include")
    {
        return None;
    }
    Some(!guard::valued_keys(&text).iter().any(|k| runs_a_program(k)))
}

/// Why [`run_capped`] has no output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stopped {
    /// It could not start, failed, or said too much.
    Failed,
    /// It was still running at the deadline, and was stopped.
    TimedOut,
}

/// The most output read from `git config --list`.
const CONFIG_OUTPUT_CAP: usize = 4 * 1024 * 1024;

/// [`runs_nothing`] on `git config --list --show-scope -z` output: records of
/// `scope NUL key LF value NUL` (a key without a value has no LF). `false` for
/// output not in that shape.
fn config_runs_nothing(out: &[u8]) -> bool {
    let mut fields = out.split(|b| *b == 0);
    while let Some(scope) = fields.next() {
        if scope.is_empty() {
            // The end (a trailing NUL).
            return fields.next().is_none();
        }
        let Some(entry) = fields.next() else {
            return false;
        };
        let (key, value) = match entry.iter().position(|b| *b == b'\n') {
            Some(i) => (
                entry.get(..i).unwrap_or_default(),
                entry.get(i + 1..).unwrap_or_default(),
            ),
            None => (entry, &b""[..]),
        };
        let repository = !matches!(scope, b"system" | b"global" | b"command");
        if repository && !value.is_empty() && runs_a_program(key) {
            return false;
        }
    }
    true
}

/// Whether the config key (as `git config --list` prints it: section and key in
/// lower case, the subsection as written) names a program `git status` or a diff
/// could run.
fn runs_a_program(key: &[u8]) -> bool {
    let key = String::from_utf8_lossy(key).to_ascii_lowercase();
    let (first, rest) = key.split_once('.').unwrap_or((&key, ""));
    let last = rest.rsplit('.').next().unwrap_or("");
    match first {
        "filter" => matches!(last, "clean" | "smudge" | "process"),
        "diff" => rest == "external" || matches!(last, "textconv" | "command"),
        _ => false,
    }
}

/// The repository a `git` child is pointed at: the git folder and work tree libgit2
/// opened (and [`guard`] looked at), both given on git's command line so that git
/// reads exactly the configuration forge judged. Left to itself, `git -C WORK_TREE`
/// finds its repository again: a `core.worktree` pointing into a nested
/// repository (`core.worktree = ../sub`, with `sub/.git`) made git read the nested
/// one's config, filters included, after forge had judged the outer one.
#[derive(Debug, Clone, Copy)]
struct GitAt<'a> {
    git_dir: &'a Path,
    work_tree: &'a Path,
}

/// `git --git-dir=GIT_DIR --work-tree=WORK_TREE -C WORK_TREE` run by `program`,
/// hardened like [`status_by_git`]: none of git's variables that move which
/// repository, work tree, index or configuration it reads ([`GIT_LOCATION_VARS`]),
/// a relative `$HOME` or `$XDG_CONFIG_HOME` left out (git would read a
/// repository's file as your global config, which forge does not judge), no
/// prompt, no optional locks (stdin closed and stderr dropped, as every [`Cmd`]
/// starts).
fn git_command(program: &Path, at: GitAt<'_>) -> Cmd {
    let mut cmd = Cmd::new(program);
    let mut git_dir = std::ffi::OsString::from("--git-dir=");
    git_dir.push(at.git_dir);
    let mut work_tree = std::ffi::OsString::from("--work-tree=");
    work_tree.push(at.work_tree);
    cmd.arg(git_dir)
        .arg(work_tree)
        .arg("-C")
        .arg(at.work_tree)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0");
    for var in GIT_LOCATION_VARS {
        cmd.env_remove(var);
    }
    for var in ["HOME", "XDG_CONFIG_HOME"] {
        if std::env::var_os(var).is_some_and(|v| !Path::new(&v).is_absolute()) {
            cmd.env_remove(var);
        }
    }
    cmd
}

/// The repository `forge share` runs `git push`, `git fetch` and its plumbing in
/// (docs/share.md): opened as every repository is ([`open_checked`], the guard), and
/// each child pointed at exactly that git folder and work tree ([`git_command`]), with
/// hooks off (`core.hooksPath=/dev/null`: no `pre-push` or `reference-transaction`
/// hook of the repository's runs), no fsmonitor, and the `ext::` transport refused
/// whatever the configuration says.
#[derive(Debug, Clone)]
pub(crate) struct Guarded {
    program: PathBuf,
    git_dir: PathBuf,
    work_tree: PathBuf,
}

impl Guarded {
    /// The repository of `root`, when forge can vouch for it and a `git` binary is on
    /// `$PATH`; else why not.
    pub(crate) fn of(root: &Path) -> Result<Self, String> {
        let repo = open_checked(root)
            .map_err(|r| r.to_string())?
            .ok_or_else(|| format!("{} is not in a git repository", root.display()))?;
        let program = git_program()
            .ok_or("no git binary was found on $PATH")?
            .to_path_buf();
        let git_dir = repo.path().to_path_buf();
        let work_tree = repo
            .workdir()
            .map_or_else(|| git_dir.clone(), Path::to_path_buf);
        Ok(Self {
            program,
            git_dir,
            work_tree,
        })
    }

    /// A `git` child of this repository, hardened as above; the caller adds the
    /// subcommand and runs it with a deadline.
    pub(crate) fn cmd(&self) -> Cmd {
        let mut cmd = git_command(
            &self.program,
            GitAt {
                git_dir: &self.git_dir,
                work_tree: &self.work_tree,
            },
        );
        cmd.args([
            "--no-pager",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=",
            "-c",
            "protocol.ext.allow=never",
        ]);
        cmd
    }

    /// The first key of the repository's own configuration (`local` or `worktree`
    /// scope, includes followed) that would make `git fetch` or `git push` run a
    /// program the repository names — `remote.*.uploadpack`, `.receivepack`, `.vcs`
    /// (a remote helper), `core.sshCommand`, `core.gitProxy` — as `git config
    /// --list --show-scope` (which runs nothing) resolves it. The same keys in your
    /// `~/.gitconfig` are your choice. `Err` when git did not answer by `until`.
    pub(crate) fn transport_program(&self, until: Instant) -> Result<Option<String>, String> {
        let mut cmd = self.cmd();
        cmd.args(["config", "--list", "--includes", "--show-scope", "-z"]);
        let out = run_capped(&mut cmd, until, CONFIG_OUTPUT_CAP)
            .map_err(|_| "`git config --list` did not answer".to_owned())?;
        Ok(transport_key(&out))
    }
}

/// [`Guarded::transport_program`] on `git config --list --show-scope -z` output.
fn transport_key(out: &[u8]) -> Option<String> {
    let mut fields = out.split(|b| *b == 0);
    while let Some(scope) = fields.next() {
        let entry = fields.next()?;
        let key = entry
            .iter()
            .position(|b| *b == b'\n')
            .map_or(entry, |i| entry.get(..i).unwrap_or_default());
        let key = String::from_utf8_lossy(key).to_ascii_lowercase();
        let repository = matches!(scope, b"local" | b"worktree");
        let runs = (key.starts_with("remote.")
            && (key.ends_with(".uploadpack")
                || key.ends_with(".receivepack")
                || key.ends_with(".vcs")))
            || key == "core.sshcommand"
            || key == "core.gitproxy";
        if repository && runs {
            return Some(key);
        }
    }
    None
}

/// Runs `cmd` and returns its stdout when it exits 0 before `until` with at most
/// `cap` bytes, its output ended; its process group is stopped at `until`
/// (`Err(TimedOut)`, also when git had exited but something it left still held its
/// output).
fn run_capped(cmd: &mut Cmd, until: Instant, cap: usize) -> Result<Vec<u8>, Stopped> {
    match cmd.stdout(Output::Capture(cap)).run_until(until) {
        Ok(done) if done.timed_out() || done.lingered => Err(Stopped::TimedOut),
        Ok(done) if done.success() && !done.stdout.cut => Ok(done.stdout.bytes),
        _ => Err(Stopped::Failed),
    }
}

/// The most output read from `git status` (a tree with millions of changed paths is
/// left to the cache).
const GIT_OUTPUT_CAP: usize = 256 * 1024 * 1024;

/// Environment variables that would point git at another repository, work tree,
/// index or object store than the one libgit2 opened, or at other configuration than
/// what forge judged: `GIT_CONFIG` (read by `git config` alone, so the verdict would
/// be of another file than `git status` reads), the global and system files'
/// overrides and `-c` entries passed down (a project's `.claude/settings.json` can
/// set a session's environment; without them git reads your `~/.gitconfig` as it
/// does in your shell), and the attributes' source.
const GIT_LOCATION_VARS: [&str; 17] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_INDEX_VERSION",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_CONFIG",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "GIT_ATTR_SOURCE",
];

/// Runs `git status --porcelain=v2 -z` in `workdir` with `program` (an absolute path)
/// and reads the changed paths, killing git at `until`.
///
/// Hardened so that git executes nothing a repository configures, and changes
/// nothing: `core.fsmonitor` is emptied on the command line (a repository's
/// `.git/config` may name any program there, and `git status` would run it; the
/// command line wins over every config file), hooks point at `/dev/null`, and
/// `--no-optional-locks` keeps git from rewriting the index (so no
/// `post-index-change` hook, and no lock taken from under the person's own git
/// commands). Filter drivers cannot be switched off from the command line:
/// [`runs_nothing`] keeps such repositories away from here. No pager, no prompt,
/// stdin closed. Untracked files and submodules are set explicitly to what the
/// libgit2 scan counts (`normal`, submodules ignored), whatever `status.*` says.
fn status_by_git(program: &Path, at: GitAt<'_>, until: Instant) -> GitScan {
    let mut cmd = git_command(program, at);
    cmd.args([
        "--no-pager",
        "--no-optional-locks",
        "-c",
        "core.fsmonitor=",
        "-c",
        "core.hooksPath=/dev/null",
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=normal",
        "--ignore-submodules=all",
    ]);
    match run_capped(&mut cmd, until, GIT_OUTPUT_CAP) {
        Ok(out) => parse_porcelain_v2(&out).map_or(GitScan::Unavailable, GitScan::Paths),
        Err(Stopped::TimedOut) => GitScan::TimedOut,
        Err(Stopped::Failed) => GitScan::Unavailable,
    }
}

/// The paths `git status --porcelain=v2 -z` lists, one per record, repo-relative as
/// git prints them (an untracked folder as `dir/`): changed (`1`), renamed or copied
/// (`2`: the new path; the original path that follows is skipped), unmerged (`u`),
/// untracked (`?`). Ignored (`!`) and header (`#`) records are skipped. `None` when
/// the output is not in that format.
fn parse_porcelain_v2(out: &[u8]) -> Option<Vec<String>> {
    let mut paths = Vec::new();
    let mut records = out.split(|b| *b == 0);
    while let Some(record) = records.next() {
        // Fields before the path: `1` has 8, `2` has 9, `u` has 10, `?`/`!` have 1.
        let fields = match record.first() {
            None => continue,
            Some(b'1') => 8,
            Some(b'2') => 9,
            Some(b'u') => 10,
            Some(b'?') => 1,
            Some(b'!' | b'#') => {
                continue;
            }
            Some(_) => return None,
        };
        let path = record.splitn(fields + 1, |b| *b == b' ').nth(fields)?;
        if record.get(1) != Some(&b' ') || path.is_empty() {
            return None;
        }
        if record.first() == Some(&b'2') {
            // The original path, in a record of its own.
            records.next()?;
        }
        paths.push(String::from_utf8_lossy(path).into_owned());
    }
    Some(paths)
}

/// The path of each delta (the new one of a rename), as text: a name that is not
/// UTF-8 still counts, as it does for `git status`.
fn delta_paths(diff: &git2::Diff<'_>) -> Vec<String> {
    diff.deltas()
        .filter_map(|d| {
            d.new_file()
                .path_bytes()
                .or_else(|| d.old_file().path_bytes())
                .map(|p| String::from_utf8_lossy(p).into_owned())
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
/// `None` when `root` is not inside a git work tree, or when a `.gitignore` git would
/// read for it (one in each folder on the way) is not a regular file.
pub(crate) fn is_ignored(root: &Path, rel: &str) -> Option<bool> {
    let repo = open(root)?;
    let workdir = repo.workdir()?.to_path_buf();
    let abs = root.join(rel);
    let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let canon_work = std::fs::canonicalize(&workdir).unwrap_or(workdir);
    let inside = canon_root
        .strip_prefix(&canon_work)
        .map(|p| p.join(rel))
        .unwrap_or(abs);
    let rel_inside = inside.strip_prefix(&canon_work).unwrap_or(&inside);
    guard::check_ignore_files(&canon_work, rel_inside).ok()?;
    repo.is_path_ignored(&inside).ok()
}

/// The file where git reads a repository's personal exclude patterns (never
/// committed, unlike `.gitignore`): `info/exclude` in its git folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ExcludeFile {
    /// `<git folder>/info/exclude`.
    pub(crate) path: PathBuf,
    /// The work tree's root (patterns in the file are relative to it).
    pub(crate) work_tree: PathBuf,
    /// The git folder that holds it: `<work tree>/.git`, or for a linked worktree the
    /// main repository's git folder (whose excludes every worktree of it shares).
    pub(crate) git_dir: PathBuf,
    /// The work tree is a linked worktree (`.git` is a file naming its git folder).
    pub(crate) linked: bool,
}

/// Where git reads the personal excludes of the work tree that holds `dir`, checked
/// the way `forge init` checks what it writes ([`crate::store::safe::check_inside`]):
/// no link is followed on the way, and the folders and the file are yours.
/// `Ok(None)` outside a git work tree.
///
/// `.git` a folder: `.git/info/exclude`. `.git` a file: a linked worktree (`git
/// worktree add`) is taken when its git folder names this very `.git` file back (its
/// `gitdir`), as git itself wrote it: then the main repository's `info/exclude`,
/// which every worktree of it reads. Any other `.git` file (a submodule's, or one a
/// repository shipped to point anywhere) is refused with the reason: `forge init`
/// writes into no folder a file of the project merely names.
pub(crate) fn exclude_file(dir: &Path) -> Result<Option<ExcludeFile>, String> {
    use crate::store::safe::{Want, check_dir, check_inside};
    let repo = match open_checked(dir) {
        Ok(Some(r)) => r,
        Ok(None) => return Ok(None),
        Err(refusal) => return Err(refusal.to_string()),
    };
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let Some(work_tree) = repo.workdir().map(canonical) else {
        return Ok(None);
    };
    let common = canonical(repo.commondir());
    // A `.git` file may name the git folder of a repository elsewhere, whose work
    // tree does not hold `dir` at all.
    if !canonical(dir).starts_with(&work_tree) {
        return Err(format!(
            "{} is not in the work tree ({}) of the git folder its .git names (a submodule's, or a file that points elsewhere)",
            dir.display(),
            work_tree.display()
        ));
    }
    let dot_git = work_tree.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git)
        .map_err(|e| format!("cannot check {}: {e}", dot_git.display()))?;
    let kind = meta.file_type();
    if kind.is_dir() {
        let path = dot_git.join("info").join("exclude");
        if common != dot_git {
            return Err(format!(
                "{} is not the git folder git uses here ({})",
                dot_git.display(),
                common.display()
            ));
        }
        check_inside(&work_tree, &path, Want::File).map_err(|r| r.to_string())?;
        return Ok(Some(ExcludeFile {
            path,
            work_tree,
            git_dir: dot_git,
            linked: false,
        }));
    }
    if !kind.is_file() {
        return Err(format!(
            "{} is {}, not a folder or a file git wrote",
            dot_git.display(),
            if kind.is_symlink() {
                "a symbolic link"
            } else {
                "something else"
            }
        ));
    }
    // A linked worktree: its own git folder's `gitdir` names this `.git` file.
    let own = canonical(repo.path());
    let back = crate::store::safe::read_to_string_whole(
        &own.join("gitdir"),
        64 * 1024,
        crate::store::safe::Follow::No,
    )
    .ok()
    .map(|t| canonical(Path::new(t.trim())));
    if !repo.is_worktree() || back.as_deref() != Some(dot_git.as_path()) {
        return Err(format!(
            "{} is a file that names the git folder {}, and that folder does not name this work tree back as a worktree of its repository (a submodule, or a file that points elsewhere)",
            dot_git.display(),
            own.display()
        ));
    }
    check_dir(&common).map_err(|r| r.to_string())?;
    let path = common.join("info").join("exclude");
    check_inside(&common, &path, Want::File).map_err(|r| r.to_string())?;
    Ok(Some(ExcludeFile {
        path,
        work_tree,
        git_dir: common,
        linked: true,
    }))
}

/// Whether git tracks `file` (an absolute path; it is in the index of the work tree
/// that contains it, as `git ls-files --error-unmatch` would say). `None` when the
/// file is in no git work tree.
pub(crate) fn is_tracked(file: &Path) -> Option<bool> {
    let dir = file.parent()?;
    let repo = open(dir)?;
    let workdir = std::fs::canonicalize(repo.workdir()?).ok()?;
    let name = file.file_name()?;
    let canon_dir = std::fs::canonicalize(dir).ok()?;
    let rel = canon_dir.strip_prefix(&workdir).ok()?.join(name);
    let index = repo.index().ok()?;
    Some(index.get_path(&rel, 0).is_some())
}

/// The subjects of the last `n` commits on HEAD (`<sha7> <subject>`), read on a
/// helper thread and waited for at most [`GIT_DEADLINE`] (a commit's object file is
/// one no check before can vouch for): none past it.
pub(crate) fn recent_commits(root: &Path, n: usize) -> Vec<String> {
    let root = root.to_path_buf();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("git-commits".into())
        .spawn(move || {
            let _ = tx.send(commits_of(&root, n));
        });
    if spawned.is_err() {
        return Vec::new();
    }
    rx.recv_timeout(GIT_DEADLINE).unwrap_or_default()
}

/// [`recent_commits`], on this thread.
fn commits_of(root: &Path, n: usize) -> Vec<String> {
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
pub(crate) const GIT_DEADLINE: Duration = Duration::from_secs(3);

/// [`facts`] on a helper thread, waited for at most `deadline`. `None` when it takes
/// longer (a huge or cold tree): the thread is left to finish on its own and the
/// hook carries on — git work in a hook is bounded.
pub(crate) fn facts_within(root: &Path, deadline: Duration) -> Option<GitFacts> {
    start_facts(root, deadline).wait()
}

/// Git facts being computed on a helper thread (see [`start_facts`]): the caller
/// does its other reads meanwhile — on two cores the scan and the hook's own file
/// work overlap — and then [`PendingFacts::wait`]s.
#[derive(Debug)]
pub(crate) struct PendingFacts {
    answer: Option<std::sync::mpsc::Receiver<Answer>>,
    until: Instant,
}

impl PendingFacts {
    /// The facts, waiting at most until the deadline given to [`start_facts`]
    /// (`None` past it, outside a work tree, or for a refused repository).
    pub(crate) fn wait(self) -> Option<GitFacts> {
        self.wait_checked().ok().flatten()
    }

    /// [`Self::wait`], saying why a repository was not opened.
    pub(crate) fn wait_checked(self) -> Answer {
        self.wait_or_keep().unwrap_or(Ok(None))
    }

    /// [`Self::wait_checked`], or, when no answer came by the deadline, this
    /// pending look back: its thread is still at work (see [`Self::running`]).
    pub(crate) fn wait_or_keep(self) -> Result<Answer, Self> {
        let Some(rx) = &self.answer else {
            return Ok(Ok(None));
        };
        match rx.recv_timeout(time_left(self.until)) {
            Ok(answer) => Ok(answer),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(self),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Ok(Ok(None)),
        }
    }

    /// Whether the helper thread is still at work (it has neither answered nor
    /// ended): whoever polls starts no second look while one has not come back.
    pub(crate) fn running(&self) -> bool {
        self.answer
            .as_ref()
            .is_some_and(|rx| matches!(rx.try_recv(), Err(std::sync::mpsc::TryRecvError::Empty)))
    }
}

/// Starts [`facts`] for `root` on a helper thread, to be waited for at most
/// `deadline` from now.
pub(crate) fn start_facts(root: &Path, deadline: Duration) -> PendingFacts {
    let root = root.to_path_buf();
    let until = deadline_after(deadline);
    start_within(until, move || {
        facts_until_checked(&root, until, GitBinary::FromPath)
    })
}

/// Runs `work` on a helper thread; its answer is waited for until `until`.
fn start_within(until: Instant, work: impl FnOnce() -> Answer + Send + 'static) -> PendingFacts {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("git-facts".into())
        .spawn(move || {
            let _ = tx.send(work());
        });
    PendingFacts {
        answer: spawned.ok().map(|_| rx),
        until,
    }
}

/// Computes git facts (within [`GIT_DEADLINE`]) and writes them to
/// `logs/git-cache.json`; falls back to the cache when git takes too long.
///
/// An unchanged cache younger than a few seconds is not rewritten: creating a file is
/// the slowest part of a hook on some file systems.
pub(crate) fn refresh_cache(paths: &Paths, now: DateTime<Utc>) -> Option<GitCache> {
    refresh_cache_within(paths, now, GIT_DEADLINE)
}

/// [`refresh_cache`] with an explicit deadline.
pub(crate) fn refresh_cache_within(
    paths: &Paths,
    now: DateTime<Utc>,
    deadline: Duration,
) -> Option<GitCache> {
    finish_refresh(paths, now, start_facts(&paths.root, deadline))
}

/// The second half of [`refresh_cache`] for facts started with [`start_facts`]:
/// waits for them, writes the cache, falls back to it when git took too long. A
/// repository forge does not open ([`open_checked`]) has no facts, and one line in
/// `errors.log` says why.
pub(crate) fn finish_refresh(
    paths: &Paths,
    now: DateTime<Utc>,
    pending: PendingFacts,
) -> Option<GitCache> {
    let (cache, refused) = finish_refresh_checked(paths, now, pending);
    if let Some(why) = refused {
        crate::store::log_error(paths, "git", &why.to_string());
    }
    cache
}

/// [`finish_refresh`], handing back why a repository was not opened instead of
/// logging it (a hook records it as an outcome of its own).
pub(crate) fn finish_refresh_checked(
    paths: &Paths,
    now: DateTime<Utc>,
    pending: PendingFacts,
) -> (Option<GitCache>, Option<Refusal>) {
    let answer = finish_checked(paths, now, pending);
    if let Some(cache) = &answer.to_save
        && paths.logs().is_dir()
    {
        let _ = files::write_git_cache(paths, cache);
    }
    (answer.cache, answer.refused)
}

/// What [`finish_checked`] found.
#[derive(Debug, Default)]
pub(crate) struct Finished {
    /// The facts now, else the stored cache (git took too long, or no work tree).
    pub(crate) cache: Option<GitCache>,
    /// The facts to store in `logs/git-cache.json`: `None` when the stored ones say
    /// the same and are younger than a few seconds (or git gave none).
    pub(crate) to_save: Option<GitCache>,
    /// Why the repository was not opened ([`open_checked`]).
    pub(crate) refused: Option<Refusal>,
}

/// [`finish_refresh_checked`] without the write: waits for the facts and reads the
/// stored cache once (to compare, or to fall back on), and says what to store. A
/// hook writes it with the rest of what it decided.
pub(crate) fn finish_checked(paths: &Paths, now: DateTime<Utc>, pending: PendingFacts) -> Finished {
    match pending.wait_checked() {
        Ok(Some(f)) => {
            let cache = cache_of(f, now);
            let stored = files::read_git_cache(paths);
            let to_save = cache
                .worth_saving(
                    stored.as_ref(),
                    Some(chrono::Duration::seconds(CACHE_REWRITE_SECS)),
                )
                .then(|| cache.clone());
            Finished {
                cache: Some(cache),
                to_save,
                refused: None,
            }
        }
        Ok(None) => Finished {
            cache: files::read_git_cache(paths),
            ..Finished::default()
        },
        Err(why) => Finished {
            refused: Some(why),
            ..Finished::default()
        },
    }
}

/// The cache record of `facts` computed at `now`.
pub(crate) fn cache_of(facts: GitFacts, now: DateTime<Utc>) -> GitCache {
    GitCache {
        updated_at: crate::model::time::iso(now),
        branch: Some(facts.branch),
        uncommitted_changes: facts.uncommitted,
        changed_files: facts.changed,
        head: facts.head,
    }
}

/// The facts a cache record of [`cache_of`] holds, back (what a hook that keeps git's
/// answer as a cache record hands to the handoff writer).
pub(crate) fn facts_of(cache: &GitCache) -> GitFacts {
    GitFacts {
        branch: cache.branch.clone().unwrap_or_default(),
        uncommitted: cache.uncommitted_changes,
        changed: cache.changed_files.clone(),
        head: cache.head.clone(),
    }
}

/// Writes `cache` to `logs/git-cache.json` (when `logs/` exists) unless the file
/// already holds the same facts — and, with `rewrite_after`, is younger than that
/// (an unchanged cache's time is then refreshed). Returns whether it wrote.
pub(crate) fn save_cache(
    paths: &Paths,
    cache: &GitCache,
    rewrite_after: Option<chrono::Duration>,
) -> bool {
    if !paths.logs().is_dir() {
        return false;
    }
    let stored = files::read_git_cache(paths);
    cache.worth_saving(stored.as_ref(), rewrite_after)
        && files::write_git_cache(paths, cache).is_ok()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::process::Command;

    /// Runs git in `dir` with a fixed identity; fails the test when git fails.
    pub(crate) fn git(dir: &Path, args: &[&str]) {
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
    fn a_repository_config_that_runs_a_transport_program_is_named() {
        let out = |entries: &[(&str, &str)]| {
            let mut v = Vec::new();
            for (scope, entry) in entries {
                v.extend_from_slice(scope.as_bytes());
                v.push(0);
                v.extend_from_slice(entry.as_bytes());
                v.push(0);
            }
            v
        };
        assert_eq!(
            transport_key(&out(&[
                ("global", "core.sshcommand\nssh -v"),
                ("local", "remote.origin.url\n/x.git"),
            ])),
            None,
            "your own ssh command is yours"
        );
        for key in [
            "remote.origin.uploadpack\nsh -c evil",
            "remote.Origin.receivepack\nevil",
            "remote.origin.vcs\nevil",
            "core.sshCommand\nevil",
            "core.gitproxy\nevil",
        ] {
            assert!(transport_key(&out(&[("local", key)])).is_some(), "{key}");
            assert!(transport_key(&out(&[("worktree", key)])).is_some(), "{key}");
        }
    }

    /// The repository of the work tree `d` (a plain `.git` folder), as a `git`
    /// child is pointed at it.
    fn at(d: &Path) -> GitAt<'static> {
        GitAt {
            git_dir: Box::leak(d.join(".git").into_boxed_path()),
            work_tree: Box::leak(d.to_path_buf().into_boxed_path()),
        }
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

    /// The `git` binary the tests run (the same lookup `main` arranges).
    fn git_binary() -> PathBuf {
        crate::env::find_in_path(&std::env::var_os("PATH").unwrap(), "git").unwrap()
    }

    /// A committed tree of `n` files under `src/mNN/` (index of ~90 bytes a file).
    fn big_repo(d: &Path, n: usize) {
        git(d, &["init", "-q", "-b", "main"]);
        for i in 0..n {
            let sub = d.join(format!("src/m{:02}", i / 400));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{i}.rs")), format!("{i}")).unwrap();
        }
        std::fs::write(d.join("top.txt"), "t").unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "init"]);
    }

    #[test]
    fn porcelain_v2_records_give_one_path_each() {
        let out = b"# branch.oid abc\0\
1 .M N... 100644 100644 100644 aaa aaa src/a b.rs\0\
1 A. N... 000000 100644 100644 000 bbb new.rs\0\
2 R. N... 100644 100644 100644 ccc ccc R100 moved to.rs\0was here.rs\0\
2 C. N... 100644 100644 100644 ccc ccc C75 copy.rs\0orig.rs\0\
u UU N... 100644 100644 100644 100644 d1 d2 d3 conflict.rs\0\
? untracked dir/\0\
? caf\xe9.txt\0\
! target/\0";
        assert_eq!(
            parse_porcelain_v2(out).unwrap(),
            [
                "src/a b.rs",
                "new.rs",
                "moved to.rs",
                "copy.rs",
                "conflict.rs",
                "untracked dir/",
                "caf\u{fffd}.txt"
            ]
        );
        assert_eq!(parse_porcelain_v2(b"").unwrap(), Vec::<String>::new());
        // Not porcelain v2: v1 lines, a rename without its original path, a record
        // with too few fields.
        assert_eq!(parse_porcelain_v2(b" M src/a.rs\0"), None);
        assert_eq!(
            parse_porcelain_v2(b"2 R. N... 100644 100644 100644 c c R100 moved.rs"),
            None
        );
        assert_eq!(parse_porcelain_v2(b"1 .M N... 100644\0"), None);
        assert_eq!(parse_porcelain_v2(b"?\0"), None);
    }

    #[test]
    fn git_binary_and_libgit2_count_the_same_as_git_status() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        big_repo(d, 2500);
        let index_len = std::fs::metadata(d.join(".git/index")).unwrap().len();
        assert!(index_len >= GIT_BINARY_MIN_INDEX_BYTES, "{index_len}");
        std::fs::write(d.join("src/m00/f0.rs"), "changed").unwrap();
        std::fs::remove_file(d.join("src/m05/f2000.rs")).unwrap();
        std::fs::write(d.join("top.txt"), "changed").unwrap();
        std::fs::create_dir_all(d.join("src/m03/newdir/deeper")).unwrap();
        std::fs::write(d.join("src/m03/newdir/deeper/a"), "a").unwrap();
        std::fs::write(d.join("with space.txt"), "n").unwrap();
        std::fs::write(d.join("src/m01/staged.rs"), "s").unwrap();
        git(d, &["add", "src/m01/staged.rs"]);
        git(d, &["mv", "src/m02/f900.rs", "src/m02/renamed.rs"]);
        // Staged, then changed again: one path.
        std::fs::write(d.join("src/m01/staged.rs"), "s2").unwrap();
        std::fs::create_dir_all(d.join(".forge/logs")).unwrap();
        std::fs::write(d.join(".forge/logs/x"), "x").unwrap();
        let until = || Instant::now() + Duration::from_secs(30);
        let by_git = facts_until(d, until(), GitBinary::At(&git_binary())).unwrap();
        let by_libgit2 = facts_until(d, until(), GitBinary::Never).unwrap();
        // What `git status --porcelain` lists (the rename once, by its new name;
        // .forge/ left out).
        let expected = [
            "src/m00/f0.rs",
            "src/m01/staged.rs",
            "src/m02/renamed.rs",
            "src/m03/newdir/",
            "src/m05/f2000.rs",
            "top.txt",
            "with space.txt",
        ];
        assert_eq!(by_git.changed, expected);
        assert_eq!(by_git.uncommitted, 7);
        assert_eq!(by_git, by_libgit2);
        // Without renames git lists the old and the new name: one more.
        assert_eq!(porcelain(d).len(), expected.len() + 1);
    }

    #[test]
    fn git_runs_nothing_the_repository_configures() {
        let t = tempfile::tempdir().unwrap();
        let d = &t.path().join("repo");
        std::fs::create_dir_all(d).unwrap();
        big_repo(d, 2500);
        // A repository (say, unpacked from an archive) whose own .git/config names
        // programs: an fsmonitor hook and a clean filter that `git status` would run.
        let ran = t.path().join("ran");
        let script = t.path().join("evil.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\ncat\n", ran.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let evil = script.to_str().unwrap();
        git(d, &["config", "core.fsmonitor", evil]);
        git(d, &["config", "core.hooksPath", t.path().to_str().unwrap()]);
        std::fs::copy(&script, t.path().join("post-index-change")).unwrap();
        std::fs::write(d.join("src/m00/f1.rs"), "changed").unwrap();
        let until = || Instant::now() + Duration::from_secs(30);
        let f = facts_until(d, until(), GitBinary::At(&git_binary())).unwrap();
        assert_eq!(f.changed, ["src/m00/f1.rs"]);
        assert!(
            !ran.exists(),
            "git ran {}",
            std::fs::read_to_string(&ran).unwrap()
        );
        let soon = || Instant::now() + Duration::from_secs(30);
        assert_eq!(runs_nothing(&git_binary(), at(d), soon()), Ok(true));
        let repo = || Repository::open(d).unwrap();
        assert_eq!(plain_config_runs_nothing(&repo()), Some(true));
        // A filter driver cannot be switched off from the command line: libgit2
        // (which runs no program) scans such a repository, with the same answer.
        git(d, &["config", "filter.x.clean", evil]);
        std::fs::write(d.join(".gitattributes"), "*.rs filter=x\n").unwrap();
        assert_eq!(runs_nothing(&git_binary(), at(d), soon()), Ok(false));
        // Read in process too, as git reads it (no include: libgit2 sees all).
        assert_eq!(plain_config_runs_nothing(&repo()), Some(false));
        std::fs::write(d.join("src/m00/f2.rs"), "changed").unwrap();
        let f = facts_until(d, until(), GitBinary::At(&git_binary())).unwrap();
        assert_eq!(
            f.changed,
            [".gitattributes", "src/m00/f1.rs", "src/m00/f2.rs"]
        );
        assert!(
            !ran.exists(),
            "git ran {}",
            std::fs::read_to_string(&ran).unwrap()
        );
    }

    /// A small committed repository on `main` whose `.gitattributes` sends every file
    /// through the filter driver `x` (defined nowhere yet), with a tracked file edited
    /// to the same size (so `git status` must hash it: through the filter), and a
    /// filter program that appends to `ran` when it runs.
    struct Planted {
        _t: tempfile::TempDir,
        repo: PathBuf,
        ran: PathBuf,
        evil: String,
    }

    fn planted() -> Planted {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a").unwrap();
        std::fs::write(repo.join(".gitattributes"), "* filter=x\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", "init"]);
        std::fs::write(repo.join("a.txt"), "b").unwrap();
        let ran = t.path().join("ran");
        let script = t.path().join("evil.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\necho \"$0\" >> '{}'\ncat\n", ran.display()),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let evil = script.display().to_string();
        Planted {
            _t: t,
            repo,
            ran,
            evil,
        }
    }

    impl Planted {
        /// Appends `text` to `.git/config`.
        fn config(&self, text: &str) {
            let path = self.repo.join(".git/config");
            let mut c = std::fs::read_to_string(&path).unwrap();
            c.push_str(text);
            std::fs::write(path, c).unwrap();
        }

        /// The planted filter, as a config file the repository's config includes
        /// (beside the work tree).
        fn included_file(&self) -> PathBuf {
            let path = self.repo.with_file_name("evil.cfg");
            std::fs::write(&path, format!("[filter \"x\"]\n\tclean = {}\n", self.evil)).unwrap();
            path
        }

        /// `git status` itself runs the filter here (so the repository really does
        /// configure one, as git resolves it), and forge's git facts never do — with
        /// the `git` binary allowed whatever the index's size — and still count the
        /// change.
        fn assert_forge_runs_no_filter(&self) {
            let control = Command::new(git_binary())
                .args(["--no-optional-locks", "status", "--porcelain"])
                .current_dir(&self.repo)
                .output()
                .unwrap();
            assert!(control.status.success());
            assert!(
                self.ran.exists(),
                "control: git status did not run the filter"
            );
            std::fs::remove_file(&self.ran).unwrap();
            let until = Instant::now() + Duration::from_secs(30);
            let f = facts_until(&self.repo, until, GitBinary::AtAnySize(&git_binary()));
            assert!(
                !self.ran.exists(),
                "forge's git ran the repository's filter: {}",
                std::fs::read_to_string(&self.ran).unwrap()
            );
            let f = f.expect("libgit2 answers instead");
            assert_eq!(f.changed, ["a.txt"]);
        }
    }

    #[test]
    fn only_a_config_libgit2_reads_whole_is_judged_without_git() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        git(d, &["init", "-q", "-b", "main"]);
        let repo = || Repository::open(d).unwrap();
        assert_eq!(plain_config_runs_nothing(&repo()), Some(true));
        git(d, &["config", "diff.external", "/bin/evil"]);
        assert_eq!(plain_config_runs_nothing(&repo()), Some(false));
        git(d, &["config", "--unset", "diff.external"]);
        // Anything git evaluates and libgit2 might not: git is asked.
        for include in [
            "[include]\n\tpath = x\n",
            "[includeIf \"onbranch:main\"]\n\tpath = x\n",
            "[INCLUDE]\n",
        ] {
            let config = d.join(".git/config");
            let before = std::fs::read_to_string(&config).unwrap();
            std::fs::write(&config, format!("{before}{include}")).unwrap();
            assert_eq!(plain_config_runs_nothing(&repo()), None, "{include}");
            std::fs::write(&config, before).unwrap();
        }
        // A continuation libgit2 reads past a blank line and git does not: git's
        // reading counts too.
        let config = d.join(".git/config");
        let before = std::fs::read_to_string(&config).unwrap();
        std::fs::write(
            &config,
            format!("{before}[core]\n\tx = y\\\n\n[filter \"e\"] clean = sh -c evil\n"),
        )
        .unwrap();
        assert_eq!(plain_config_runs_nothing(&repo()), Some(false));
        // A key without a value is no program (and no panic).
        std::fs::write(&config, format!("{before}[x]\n\ty\n")).unwrap();
        assert_eq!(plain_config_runs_nothing(&repo()), Some(true));
        std::fs::write(&config, before).unwrap();
        // The config of another folder (commondir), or of the work tree: git is asked.
        let opened = repo();
        std::fs::write(d.join(".git/commondir"), ".\n").unwrap();
        assert_eq!(plain_config_runs_nothing(&opened), None);
        std::fs::remove_file(d.join(".git/commondir")).unwrap();
        std::fs::write(d.join(".git/config.worktree"), "").unwrap();
        assert_eq!(plain_config_runs_nothing(&repo()), None);
    }

    #[test]
    fn a_filter_from_include_path_never_runs() {
        let p = planted();
        p.included_file();
        // Relative to the including file's folder (.git/).
        p.config("[include]\n\tpath = ../../evil.cfg\n");
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn a_filter_from_include_if_gitdir_never_runs() {
        let p = planted();
        let inc = p.included_file();
        p.config(&format!(
            "[includeIf \"gitdir:{}/\"]\n\tpath = {}\n",
            p.repo.display(),
            inc.display()
        ));
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn a_filter_from_include_if_gitdir_i_never_runs() {
        let p = planted();
        let inc = p.included_file();
        p.config(&format!(
            "[includeIf \"gitdir/i:{}/\"]\n\tpath = {}\n",
            p.repo.display().to_string().to_uppercase(),
            inc.display()
        ));
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn a_filter_from_include_if_onbranch_never_runs() {
        let p = planted();
        let inc = p.included_file();
        p.config(&format!(
            "[includeIf \"onbranch:main\"]\n\tpath = {}\n",
            inc.display()
        ));
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn a_filter_from_include_if_hasconfig_remote_url_never_runs() {
        let p = planted();
        let inc = p.included_file();
        git(
            &p.repo,
            &["remote", "add", "origin", "https://example.com/acme/x.git"],
        );
        p.config(&format!(
            "[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = {}\n",
            inc.display()
        ));
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn a_filter_from_the_worktree_config_never_runs() {
        let p = planted();
        git(&p.repo, &["config", "core.repositoryformatversion", "1"]);
        git(&p.repo, &["config", "extensions.worktreeConfig", "true"]);
        git(
            &p.repo,
            &["config", "--worktree", "filter.x.clean", &p.evil],
        );
        assert!(
            !std::fs::read_to_string(p.repo.join(".git/config"))
                .unwrap()
                .contains("evil")
        );
        p.assert_forge_runs_no_filter();
    }

    #[test]
    fn config_listings_are_judged_by_scope_and_key() {
        let rec = |scope: &str, kv: &str| format!("{scope}\0{kv}\0");
        let ok = |s: String| config_runs_nothing(s.as_bytes());
        assert!(ok(String::new()));
        assert!(ok(
            rec("local", "core.bare\nfalse") + &rec("local", "core.hookspath\n.husky")
        ));
        // Your own config's drivers are yours (git-lfs).
        assert!(ok(rec(
            "global",
            "filter.lfs.process\ngit-lfs filter-process"
        )));
        assert!(ok(rec("system", "diff.tool.textconv\nx")));
        for kv in [
            "filter.x.clean\nevil",
            "filter.x.smudge\nevil",
            "filter.a.b.process\nevil",
            "Filter.X.Clean\nevil",
            "diff.pdf.textconv\nevil",
            "diff.x.command\nevil",
            "diff.external\nevil",
        ] {
            assert!(!ok(rec("local", kv)), "{kv}");
            assert!(!ok(rec("worktree", kv)), "{kv}");
        }
        // An empty value names no program; a key alone has no value.
        assert!(ok(rec("local", "filter.x.clean\n")));
        assert!(ok(rec("local", "filter.x.clean")));
        // Not in that shape: no.
        assert!(!config_runs_nothing(b"local\0filter.x.clean\nevil"));
        assert!(!config_runs_nothing(b"local"));
    }

    #[test]
    fn a_git_that_fails_or_hangs_is_not_waited_for() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let d = &t.path().join("repo");
        std::fs::create_dir_all(d).unwrap();
        big_repo(d, 2500);
        std::fs::write(d.join("top.txt"), "changed").unwrap();
        let fake = |name: &str, body: &str| {
            let p = t.path().join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            p
        };
        let later = Instant::now() + Duration::from_secs(30);
        // Missing, failing or talking nonsense: libgit2 answers instead.
        for program in [
            t.path().join("no-such-git"),
            fake("fails", "exit 128"),
            fake("nonsense", "echo ' M top.txt'"),
        ] {
            let f = facts_until(d, later, GitBinary::At(&program)).unwrap();
            assert_eq!(f.changed, ["top.txt"], "{}", program.display());
        }
        // Hanging: killed at the deadline, and no answer (libgit2 would be no faster
        // on a tree that slow).
        let hangs = fake("hangs", "exec sleep 30");
        let started = Instant::now();
        let soon = Instant::now() + Duration::from_millis(200);
        assert!(matches!(
            status_by_git(&hangs, at(d), soon),
            GitScan::TimedOut
        ));
        assert!(facts_until(d, soon, GitBinary::At(&hangs)).is_none());
        assert!(started.elapsed() < Duration::from_secs(10), "it waited");
    }

    #[test]
    fn facts_within_gives_up_at_the_deadline() {
        let t = tempfile::tempdir().unwrap();
        git(t.path(), &["init", "-q", "-b", "main"]);
        assert!(facts_within(t.path(), Duration::from_secs(10)).is_some());
        let within =
            |d: Duration, work: fn() -> Answer| start_within(Instant::now() + d, work).wait();
        let slow = || {
            std::thread::sleep(Duration::from_millis(500));
            Ok(Some(GitFacts::default()))
        };
        assert_eq!(within(Duration::from_millis(20), slow), None);
        assert_eq!(
            within(Duration::from_secs(5), || Ok(Some(GitFacts::default()))),
            Some(GitFacts::default())
        );
        // A look past its deadline is handed back, still running, until it ends.
        let late = start_within(Instant::now() + Duration::from_millis(20), slow)
            .wait_or_keep()
            .unwrap_err();
        assert!(late.running());
        std::thread::sleep(Duration::from_millis(800));
        assert!(!late.running(), "it answered");
    }

    #[test]
    fn a_fifo_commit_object_never_holds_the_commit_list() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().to_path_buf();
        git(&d, &["init", "-q", "-b", "main"]);
        std::fs::write(d.join("a"), "a").unwrap();
        git(&d, &["add", "a"]);
        git(&d, &["commit", "-qm", "one"]);
        assert_eq!(recent_commits(&d, 5).len(), 1);
        // No check before the walk can vouch for an object file: the walk blocks on
        // the FIFO, and the list gives up at the deadline.
        let sha = String::from_utf8(
            Command::new("git")
                .args(["rev-parse", "HEAD"])
                .current_dir(&d)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let object = d.join(".git/objects").join(&sha[..2]).join(sha[2..].trim());
        std::fs::remove_file(&object).unwrap();
        assert!(
            Command::new("mkfifo")
                .arg(&object)
                .status()
                .unwrap()
                .success()
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let started = Instant::now();
        std::thread::spawn(move || tx.send(recent_commits(&d, 5)));
        let got = rx.recv_timeout(Duration::from_secs(10));
        assert_eq!(
            got.ok(),
            Some(Vec::new()),
            "the commit list waited on the FIFO"
        );
        assert!(started.elapsed() < GIT_DEADLINE + Duration::from_secs(1));
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
