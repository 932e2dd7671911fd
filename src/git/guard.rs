//! What forge looks at before it hands a repository to libgit2 (or to the `git`
//! binary): every file the repository can make them open that could make them wait.
//!
//! libgit2 reads a file with a plain blocking `open` and then as many bytes as
//! `stat` says. A FIFO (or a terminal, or a device whose `open` waits) planted where
//! it reads blocks that `open` for good: `forge status` and every hook waited out the
//! whole git deadline, and the dashboard's git poller thread never came back. git
//! reads the same files, and reads a device until it ends. A cloned repository
//! controls most of those paths: its `.git/config` can `include` any file, by any
//! path.
//!
//! So [`check`] finds the repository the way libgit2 does when forge opens one (each
//! folder up from the start: its `.git` folder or `.git` file, then the folder
//! itself as a bare repository; then, in the git folder found, a `.git` of its own
//! first — see [`locate`]), and requires each file below to be missing (git skips
//! it) or a regular file, following links as git does:
//!
//! - read while libgit2 *opens* the repository: the `.git` file's `gitdir:`, the
//!   `commondir` pointer, the git folder's `gitdir` back-link, `HEAD`, `config` and
//!   `config.worktree` with every file their `include.path` and `includeIf.*.path`
//!   name, recursively (relative to the including file's folder, `~/` from `HOME`,
//!   at most [`MAX_INCLUDE_DEPTH`] deep, as git and libgit2 stop there), whatever
//!   the condition (git evaluates `hasconfig:`, libgit2 does not: both are covered),
//!   `info/grafts` and `shallow`;
//! - read by what forge then asks: the ref `HEAD` names (and the refs it names, up
//!   to five), `packed-refs`, `index`, `objects/info/alternates`, `info/exclude`,
//!   `info/attributes`, and the `core.excludesFile` / `core.attributesFile` the
//!   repository's configuration names.
//!
//! The config files are read as `store::safe` reads them (non-blocking open, `fstat`
//! on the handle, capped), parsed twice — as git and as libgit2 parse them, as they
//! differ on odd quoting and white space — and every path either would open is
//! checked. The other files get one `stat` each. A typical repository costs three
//! small reads (`config`, `HEAD`, the loose ref it names) and about fifteen `stat`s,
//! besides resolving the start folder.
//!
//! What this does not cover, because it cannot without reading the whole repository:
//! object files (loose and packed), and the `.gitignore` / `.gitattributes` in the
//! work tree's folders. Only the work-tree scan and the commit list read those, and
//! they run on a helper thread with a deadline everywhere (hooks, `forge status`,
//! handoffs, the dashboard's poller, which leaves at most two such looks waiting).
//! [`check_ignore_files`] covers the `.gitignore` files of one path, for
//! [`super::is_ignored`].

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeSet, VecDeque};
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::store::safe::{self, Follow};

/// How deep includes go: git and libgit2 read a file at this depth, and stop there.
pub(crate) const MAX_INCLUDE_DEPTH: usize = 10;
/// The most config files (the repository's own and the ones they include) forge
/// looks at before it refuses: a legitimate repository names a handful.
pub(crate) const MAX_CONFIG_FILES: usize = 64;
/// The most bytes of config forge reads for one repository, its includes with it
/// (git reads a 1 GiB file a character at a time, and libgit2 allocates it whole).
pub(crate) const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// The most symbolic refs followed from `HEAD` (libgit2 follows five).
const MAX_SYMREF_DEPTH: usize = 5;

/// Why forge leaves a repository alone: a file git would open that could make it
/// wait, or that forge cannot resolve the way git would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The offending file.
    pub(crate) path: PathBuf,
    /// What it is and why that stops forge ("a FIFO, which git would wait on for
    /// good").
    pub(crate) what: String,
    /// How git gets there ("included from /p/.git/config", "the repository's
    /// config").
    pub(crate) via: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "git facts unavailable: {} ({}) is {}; forge does not open this repository \
             until that changes",
            self.path.display(),
            self.via,
            self.what
        )
    }
}

impl std::error::Error for Refusal {}

/// Where a repository's files are, found as libgit2 finds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The git folder (`.git`, a linked work tree's `.git/worktrees/<name>`, or a
    /// bare repository).
    pub(crate) git_dir: PathBuf,
    /// Where the shared files are (`commondir`): the git folder itself but in a
    /// linked work tree.
    pub(crate) common_dir: PathBuf,
    /// The folder the `.git` entry was found in; `None` for a bare repository.
    pub(crate) work_dir: Option<PathBuf>,
}

/// Checks the repository whose work tree (or git folder) contains `start`, as
/// described in the module documentation. `Ok` outside any repository (libgit2 finds
/// none either) and when every file is missing or regular.
pub(crate) fn check(start: &Path) -> Result<(), Refusal> {
    match locate(start)? {
        Some(layout) => check_layout(&layout, home().as_deref()),
        None => Ok(()),
    }
}

/// `$HOME`, which git and libgit2 both expand `~/` with.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// What is at `path`, following links as git does: `None` when nothing (or nothing
/// `stat` can see, which git cannot open either).
fn kind(path: &Path) -> Option<fs::Metadata> {
    fs::metadata(path).ok()
}

/// What a file that is not regular is, and why git must not be sent to it.
fn not_regular(meta: &fs::Metadata) -> String {
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    if ft.is_fifo() {
        "a FIFO, which git would wait on for good".to_owned()
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device, which git may wait on or read without end".to_owned()
    } else {
        format!("{}, not a regular file", safe::kind_of(ft))
    }
}

/// Requires `path` to be missing or a regular file.
fn regular_or_missing(path: &Path, via: &str) -> Result<(), Refusal> {
    match kind(path) {
        Some(m) if !m.is_file() => Err(Refusal {
            path: path.to_path_buf(),
            what: not_regular(&m),
            via: via.to_owned(),
        }),
        _ => Ok(()),
    }
}

/// Reads a small pointer file (`.git` file, `commondir`, `HEAD`, a loose ref) that
/// `stat` said is regular: non-blocking, `fstat`-checked, at most 4 KiB (a path or a
/// ref name). `None` when it is not there or not a regular file.
fn read_pointer(path: &Path) -> Option<Vec<u8>> {
    safe::read_capped(path, 4096, Follow::Yes).ok()
}

/// Trims ASCII white space at the end, as libgit2 does to pointer files.
fn rtrim(b: &[u8]) -> &[u8] {
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    b.get(..end).unwrap_or_default()
}

/// `rel` (bytes) against `base` unless it is absolute.
fn join_bytes(base: &Path, rel: &[u8]) -> PathBuf {
    base.join(OsStr::from_bytes(rel))
}

/// Finds the repository containing `start` as forge's [`super::open`] makes libgit2
/// find it. git2's `Repository::discover` looks in each folder from `start` up (the
/// root excluded, across file systems): its `.git` (a folder that is a valid git
/// folder, or a file pointing at one — which ends the search either way), then the
/// folder itself as a bare repository. It then opens the git folder it found, and
/// that open looks once more: for a `.git` inside that folder first, then the
/// folder. `Err` when a pointer file on the way is not a regular file.
pub(crate) fn locate(start: &Path) -> Result<Option<Layout>, Refusal> {
    let Ok(start) = fs::canonicalize(start) else {
        return Ok(None);
    };
    let mut found = None;
    for dir in start.ancestors() {
        if dir.parent().is_none() && dir != start {
            break;
        }
        match probe(dir)? {
            Probe::Found(layout) => {
                found = Some(layout);
                break;
            }
            Probe::Stop => return Ok(None),
            Probe::Next => {}
        }
    }
    let Some(found) = found else {
        return Ok(None);
    };
    Ok(match probe(&found.git_dir)? {
        Probe::Found(again) if again.git_dir == found.git_dir => Some(found),
        Probe::Found(elsewhere) => Some(elsewhere),
        Probe::Stop | Probe::Next => None,
    })
}

/// What libgit2 finds in one folder.
enum Probe {
    /// A repository.
    Found(Layout),
    /// A `.git` file that names no valid git folder: the search ends, with nothing.
    Stop,
    /// Nothing: look further up.
    Next,
}

/// Looks in `dir` as libgit2 does: `dir/.git` (a valid git folder, or a `.git` file
/// naming one), then `dir` itself as a git folder.
fn probe(dir: &Path) -> Result<Probe, Refusal> {
    let dot_git = dir.join(".git");
    match kind(&dot_git) {
        Some(m) if m.is_dir() => {
            if let Some(common_dir) = valid_git_dir(&dot_git)? {
                return Ok(Probe::Found(Layout {
                    git_dir: dot_git,
                    common_dir,
                    work_dir: Some(dir.to_path_buf()),
                }));
            }
        }
        Some(m) if m.is_file() => {
            let Some(git_dir) = read_git_file(&dot_git) else {
                return Ok(Probe::Stop);
            };
            return Ok(match valid_git_dir(&git_dir)? {
                Some(common_dir) => Probe::Found(Layout {
                    git_dir,
                    common_dir,
                    work_dir: Some(dir.to_path_buf()),
                }),
                None => Probe::Stop,
            });
        }
        _ => {}
    }
    if kind(dir).is_some_and(|m| m.is_dir())
        && let Some(common_dir) = valid_git_dir(dir)?
    {
        return Ok(Probe::Found(Layout {
            git_dir: dir.to_path_buf(),
            common_dir,
            work_dir: None,
        }));
    }
    Ok(Probe::Next)
}

/// The git folder a `.git` file names (`gitdir: <path>`, relative to the file's
/// folder).
fn read_git_file(file: &Path) -> Option<PathBuf> {
    let text = read_pointer(file)?;
    let rest = rtrim(&text).strip_prefix(b"gitdir:")?;
    let start = rest.iter().position(|c| !c.is_ascii_whitespace())?;
    Some(join_bytes(file.parent()?, rest.get(start..)?))
}

/// Whether `dir` is a git folder as libgit2 judges it (a regular `HEAD`, `objects/`
/// and `refs/` in its common folder); its common folder when it is. `Err` when its
/// `commondir` exists but is not a regular file (git opens it when it merely exists).
fn valid_git_dir(dir: &Path) -> Result<Option<PathBuf>, Refusal> {
    let pointer = dir.join("commondir");
    regular_or_missing(&pointer, "the git folder's commondir")?;
    let common = match read_pointer(&pointer) {
        Some(text) => join_bytes(dir, rtrim(&text)),
        None => dir.to_path_buf(),
    };
    let is_dir = |p: PathBuf| kind(&p).is_some_and(|m| m.is_dir());
    let valid = kind(&dir.join("HEAD")).is_some_and(|m| m.is_file())
        && is_dir(common.join("objects"))
        && is_dir(common.join("refs"));
    Ok(valid.then_some(common))
}

/// Checks the files of a located repository (see the module documentation). `home`
/// is where `~/` points.
pub(crate) fn check_layout(layout: &Layout, home: Option<&Path>) -> Result<(), Refusal> {
    let (git, common) = (&layout.git_dir, &layout.common_dir);
    // Read while libgit2 opens the repository.
    let fixed = [
        (git.join("gitdir"), "the git folder's gitdir link"),
        (git.join("HEAD"), "the repository's HEAD"),
        (common.join("info/grafts"), "the repository's grafts"),
        (git.join("shallow"), "the repository's shallow list"),
        (common.join("shallow"), "the repository's shallow list"),
        // Read by what forge asks next.
        (git.join("index"), "the repository's index"),
        (common.join("packed-refs"), "the repository's packed refs"),
        (
            common.join("objects/info/alternates"),
            "the repository's alternates",
        ),
        (common.join("info/exclude"), "the repository's exclude file"),
        (
            common.join("info/attributes"),
            "the repository's attributes",
        ),
    ];
    for (path, via) in &fixed {
        regular_or_missing(path, via)?;
    }
    check_head_refs(git, common)?;
    let named = check_config_files(
        &[
            (common.join("config"), "the repository's config"),
            (git.join("config.worktree"), "the work tree's config"),
        ],
        home,
    )?;
    let base = layout.work_dir.as_deref().unwrap_or(git);
    let mut seen = BTreeSet::new();
    for (value, from) in &named.files {
        for path in resolve(value, base, home, from)? {
            if seen.insert(path.clone()) && seen.len() > MAX_CONFIG_FILES {
                return Err(Refusal {
                    path,
                    what: format!(
                        "past the {MAX_CONFIG_FILES} files forge looks at for one repository"
                    ),
                    via: format!("named by {}", from.display()),
                });
            }
            regular_or_missing(&path, &format!("named by {}", from.display()))?;
        }
    }
    Ok(())
}

/// The loose refs `HEAD` leads to (`ref: refs/heads/main`, and on while a loose ref
/// is itself symbolic), each missing or regular.
fn check_head_refs(git: &Path, common: &Path) -> Result<(), Refusal> {
    let mut file = git.join("HEAD");
    for _ in 0..MAX_SYMREF_DEPTH {
        let Some(text) = read_pointer(&file) else {
            return Ok(());
        };
        let Some(name) = rtrim(&text).strip_prefix(b"ref:") else {
            return Ok(());
        };
        let name = name.trim_ascii_start();
        let shown = String::from_utf8_lossy(name).into_owned();
        // HEAD and the per-work-tree refs live in the git folder, the rest in the
        // common one: look at both.
        regular_or_missing(&join_bytes(common, name), &format!("the ref {shown}"))?;
        if git != common {
            regular_or_missing(&join_bytes(git, name), &format!("the ref {shown}"))?;
        }
        file = join_bytes(common, name);
        if !file.is_file() {
            file = join_bytes(git, name);
        }
    }
    Ok(())
}

/// What the config files name that git may open besides their includes.
#[derive(Debug, Default)]
struct NamedFiles {
    /// `core.excludesFile` / `core.attributesFile` values, with the file naming each.
    files: Vec<(Vec<u8>, PathBuf)>,
}

/// Walks `roots` (the repository's config files) and every file they include,
/// breadth first (each file at the least depth it is reached), each read at most
/// once. `Err` at the first file that is there but not a regular file, past
/// [`MAX_CONFIG_FILES`] or past [`MAX_CONFIG_BYTES`] read in all, or at an include
/// path forge cannot resolve as git would.
fn check_config_files(
    roots: &[(PathBuf, &str)],
    home: Option<&Path>,
) -> Result<NamedFiles, Refusal> {
    let mut queue: VecDeque<(PathBuf, usize, String)> = roots
        .iter()
        .map(|(p, via)| (p.clone(), 0, (*via).to_owned()))
        .collect();
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut named = NamedFiles::default();
    let mut read = 0u64;
    while let Some((path, depth, via)) = queue.pop_front() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let Some(meta) = kind(&path) else {
            continue;
        };
        let refuse = |what: String| Refusal {
            path: path.clone(),
            what,
            via: via.clone(),
        };
        if !meta.is_file() {
            return Err(refuse(not_regular(&meta)));
        }
        if seen.len() > MAX_CONFIG_FILES {
            return Err(refuse(format!(
                "past the {MAX_CONFIG_FILES} config files forge reads for one repository"
            )));
        }
        read = read.saturating_add(meta.len());
        if read > MAX_CONFIG_BYTES {
            return Err(refuse(format!(
                "past the {} KiB of config forge reads for one repository",
                MAX_CONFIG_BYTES / 1024
            )));
        }
        // Changed since the `stat`, or unreadable: git would fail on it too.
        let Ok(text) = safe::read_capped(&path, MAX_CONFIG_BYTES, Follow::Yes) else {
            continue;
        };
        let found = named_paths(&text);
        for value in found.files {
            named.files.push((value, path.clone()));
        }
        if depth >= MAX_INCLUDE_DEPTH {
            continue;
        }
        let dir = path.parent().unwrap_or(Path::new("/"));
        let from = format!("included from {}", path.display());
        for value in found.includes {
            for target in resolve(&value, dir, home, &path)? {
                queue.push_back((target, depth + 1, from.clone()));
            }
        }
    }
    Ok(named)
}

/// The files a path value (an include, `core.excludesFile`) in the config file
/// `from` may name: `~/…` from `home`, an absolute path as it is, a relative one
/// from `base` (the including file's folder). A value git resolves through
/// something forge cannot see the same (`~user/…`, `%(prefix)/…`, `~/` without
/// `HOME`) is refused; an empty one names nothing.
fn resolve(
    value: &[u8],
    base: &Path,
    home: Option<&Path>,
    from: &Path,
) -> Result<Vec<PathBuf>, Refusal> {
    let value = value.split(|b| *b == 0).next().unwrap_or_default();
    let refuse = |what: &str| Refusal {
        path: PathBuf::from(OsStr::from_bytes(value)),
        what: what.to_owned(),
        via: format!("named by {}", from.display()),
    };
    if value.is_empty() {
        return Ok(Vec::new());
    }
    if value.starts_with(b"%(prefix)/") {
        return Err(refuse(
            "a path under git's install prefix, which forge cannot resolve as git does",
        ));
    }
    if let Some(rest) = value.strip_prefix(b"~") {
        let (user, tail) = match rest.iter().position(|b| *b == b'/') {
            Some(i) => (
                rest.get(..i).unwrap_or_default(),
                rest.get(i + 1..).unwrap_or_default(),
            ),
            None => (rest, &b""[..]),
        };
        if !user.is_empty() {
            return Err(refuse(
                "a path in another user's home, which forge cannot resolve as git does",
            ));
        }
        let Some(home) = home else {
            return Err(refuse("a path in your home, and HOME is not set"));
        };
        // git reads `~/x` from HOME; libgit2 reads a bare `~` as a relative name.
        let mut out = vec![join_bytes(home, tail)];
        if tail.is_empty() {
            out.push(join_bytes(base, value));
        }
        return Ok(out);
    }
    Ok(vec![join_bytes(base, value)])
}

/// Checks the `.gitignore` files git reads to judge `rel` (relative to `work_dir`):
/// one in each folder from the work tree's top down to `rel`'s own.
pub(crate) fn check_ignore_files(work_dir: &Path, rel: &Path) -> Result<(), Refusal> {
    let mut dir = work_dir.to_path_buf();
    regular_or_missing(&dir.join(".gitignore"), "the work tree's .gitignore")?;
    let parent = rel.parent().unwrap_or(Path::new(""));
    for part in parent.components() {
        dir.push(part);
        regular_or_missing(&dir.join(".gitignore"), "a .gitignore of the work tree")?;
    }
    Ok(())
}

/// The path values a config file names, as either git or libgit2 reads them (the
/// union: they differ on odd quoting and white space).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Named {
    /// `include.path` and `includeIf.<condition>.path` values, whatever the
    /// condition (and `path` keys of any other `include…` section, which neither
    /// reads: checking one more is harmless).
    pub(crate) includes: Vec<Vec<u8>>,
    /// `core.excludesFile` and `core.attributesFile` values.
    pub(crate) files: Vec<Vec<u8>>,
}

/// [`Named`] of the config text `text`: parsed as git parses it and as libgit2 does,
/// each up to where it stops at an error (what came before was already read).
pub(crate) fn named_paths(text: &[u8]) -> Named {
    let mut entries = Vec::new();
    parse_as_git(text, &mut entries);
    parse_as_libgit2(text, &mut entries);
    let mut named = Named::default();
    let mut seen = BTreeSet::new();
    for e in entries {
        let base = e.section.split(|b| *b == b'.').next().unwrap_or_default();
        let (list, include) = match (base, e.key.as_slice()) {
            (b"include" | b"includeif", b"path") => (&mut named.includes, true),
            (b"core", b"excludesfile" | b"attributesfile") if e.section == b"core" => {
                (&mut named.files, false)
            }
            _ => continue,
        };
        for v in e.values {
            if seen.insert((include, v.clone())) {
                list.push(v);
            }
        }
    }
    named
}

/// The `section.key` names (lower case, a subsection as the parsers keep it) of the
/// entries of the config text `text` that have a non-empty value, as git parses it
/// and as libgit2 does: the union, so a line the two read differently (a
/// continuation, a quirk of quoting) hides nothing from the caller.
pub(crate) fn valued_keys(text: &[u8]) -> Vec<Vec<u8>> {
    let mut entries = Vec::new();
    parse_as_git(text, &mut entries);
    parse_as_libgit2(text, &mut entries);
    entries
        .into_iter()
        .filter(|e| e.values.iter().any(|v| !v.is_empty()))
        .map(|e| {
            let mut name = e.section;
            name.push(b'.');
            name.extend(e.key);
            name
        })
        .collect()
}

/// One `key = value` of a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// The section, its name in lower case (`include`, `includeif."gitdir:x"` as
    /// `includeif.gitdir:x`).
    section: Vec<u8>,
    /// The key, in lower case.
    key: Vec<u8>,
    /// The value as it may be read (one or more spellings); none for a key without
    /// `=`.
    values: Vec<Vec<u8>>,
}

/// git's white space (its own `isspace`: no vertical tab, no form feed).
fn git_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// A key character, for git and libgit2 alike.
fn key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// The characters of a config file as git's parser sees them: `\r\n` as `\n`, and
/// `\n` for ever at the end.
struct GitChars<'a> {
    text: &'a [u8],
    pos: usize,
    eof: bool,
}

impl GitChars<'_> {
    fn next(&mut self) -> u8 {
        let Some(&c) = self.text.get(self.pos) else {
            self.eof = true;
            return b'\n';
        };
        self.pos += 1;
        if c == b'\r' && self.text.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
            return b'\n';
        }
        c
    }
}

/// Parses `text` as git does (a character at a time: sections, keys, values with
/// quotes, escapes, comments and line continuations), pushing each entry until the
/// end or the first error. A value comes in the two spellings git versions give it:
/// runs of white space inside it kept as written (git 2.47) or each made spaces
/// (older).
fn parse_as_git(text: &[u8], out: &mut Vec<Entry>) {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut s = GitChars {
        text,
        pos: 0,
        eof: false,
    };
    let mut section: Option<Vec<u8>> = None;
    let mut comment = false;
    loop {
        let c = s.next();
        if c == b'\n' {
            if s.eof {
                return;
            }
            comment = false;
            continue;
        }
        if comment || git_space(c) {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            match git_section(&mut s) {
                Some(name) => section = Some(name),
                None => return,
            }
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return;
        }
        let mut key = vec![c.to_ascii_lowercase()];
        let mut c = s.next();
        while !s.eof && key_char(c) {
            key.push(c.to_ascii_lowercase());
            c = s.next();
        }
        while c == b' ' || c == b'\t' {
            c = s.next();
        }
        let values = if c == b'\n' {
            Vec::new()
        } else if c == b'=' {
            match git_value(&mut s) {
                Some(v) => v,
                None => return,
            }
        } else {
            return;
        };
        out.push(Entry {
            section: section.clone().unwrap_or_default(),
            key,
            values,
        });
    }
}

/// A section header after its `[`, as git reads it: `name]` or `name "sub"]`.
fn git_section(s: &mut GitChars<'_>) -> Option<Vec<u8>> {
    let mut name = Vec::new();
    loop {
        let c = s.next();
        if s.eof {
            return None;
        }
        if c == b']' {
            return (!name.is_empty()).then_some(name);
        }
        if git_space(c) {
            let mut c = c;
            while git_space(c) {
                if c == b'\n' {
                    return None;
                }
                c = s.next();
            }
            if c != b'"' {
                return None;
            }
            name.push(b'.');
            loop {
                let mut c = s.next();
                if c == b'\n' {
                    return None;
                }
                if c == b'"' {
                    break;
                }
                if c == b'\\' {
                    c = s.next();
                    if c == b'\n' {
                        return None;
                    }
                }
                name.push(c);
            }
            return (s.next() == b']').then_some(name);
        }
        if !key_char(c) && c != b'.' {
            return None;
        }
        name.push(c.to_ascii_lowercase());
    }
}

/// A value after its `=`, as git reads it, in both spellings (see
/// [`parse_as_git`]). `None` on an unknown escape or an unclosed quote.
fn git_value(s: &mut GitChars<'_>) -> Option<Vec<Vec<u8>>> {
    let (mut quote, mut comment) = (false, false);
    let (mut kept, mut spaced, mut pending) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        let mut c = s.next();
        if c == b'\n' {
            if quote {
                return None;
            }
            return Some(if kept == spaced {
                vec![kept]
            } else {
                vec![kept, spaced]
            });
        }
        if comment {
            continue;
        }
        if git_space(c) && !quote {
            if !kept.is_empty() {
                pending.push(c);
            }
            continue;
        }
        if !quote && (c == b';' || c == b'#') {
            comment = true;
            continue;
        }
        spaced.extend(std::iter::repeat_n(b' ', pending.len()));
        kept.append(&mut pending);
        if c == b'\\' {
            c = match s.next() {
                b'\n' => continue,
                b't' => b'\t',
                b'b' => 8,
                b'n' => b'\n',
                c @ (b'\\' | b'"') => c,
                _ => return None,
            };
        } else if c == b'"' {
            quote = !quote;
            continue;
        }
        kept.push(c);
        spaced.push(c);
    }
}

/// libgit2's white space (C's `isspace`).
fn c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// A line as libgit2 copies it (`strndup`): up to its first NUL.
fn c_str(line: &[u8]) -> &[u8] {
    line.split(|b| *b == 0).next().unwrap_or_default()
}

/// Parses `text` as libgit2 does (a line at a time), pushing each entry until the
/// end or the first error.
fn parse_as_libgit2(text: &[u8], out: &mut Vec<Entry>) {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let mut lines = text.split_inclusive(|b| *b == b'\n').peekable();
    let mut section: Option<Vec<u8>> = None;
    while let Some(full) = lines.next() {
        let mut line = full;
        loop {
            let first = line
                .iter()
                .copied()
                .find(|c| !c_space(*c))
                .or_else(|| line.first().copied());
            match first {
                None | Some(b'\n' | b'\r' | b' ' | b'\t' | b';' | b'#') => break,
                Some(b'[') => {
                    let start = line.iter().position(|c| *c == b'[').unwrap_or(0);
                    let rest = line.get(start..).unwrap_or_default();
                    let Some((name, used)) = libgit2_section(c_str(rest)) else {
                        return;
                    };
                    section = Some(name);
                    line = rest.get(used..).unwrap_or_default();
                    if line.iter().any(|c| !c_space(*c)) {
                        continue;
                    }
                    break;
                }
                Some(_) => {
                    let Some(entry) = libgit2_variable(line, &mut lines, section.as_deref()) else {
                        return;
                    };
                    out.push(entry);
                    break;
                }
            }
        }
    }
}

/// A section header line (from its `[`), as libgit2 reads it: the name and how many
/// bytes it took.
fn libgit2_section(line: &[u8]) -> Option<(Vec<u8>, usize)> {
    line.iter().rposition(|c| *c == b']')?;
    let at = |i: usize| line.get(i).copied().unwrap_or(0);
    let mut name = Vec::new();
    let (mut c, mut pos) = (at(1), 2);
    loop {
        if c_space(c) {
            return libgit2_subsection(line, pos, name);
        }
        if !key_char(c) && c != b'.' {
            return None;
        }
        name.push(c.to_ascii_lowercase());
        c = at(pos);
        pos += 1;
        if c == b']' {
            return Some((name, pos));
        }
    }
}

/// The `"sub"]` part of a section header line, from `pos`.
fn libgit2_subsection(line: &[u8], mut pos: usize, mut name: Vec<u8>) -> Option<(Vec<u8>, usize)> {
    let at = |i: usize| line.get(i).copied().unwrap_or(0);
    while c_space(at(pos)) {
        pos += 1;
    }
    if at(pos) != b'"' {
        return None;
    }
    let last = line.iter().rposition(|c| *c == b'"')?;
    if last == pos {
        return None;
    }
    name.push(b'.');
    let mut i = pos + 1;
    let mut c = at(i);
    loop {
        match c {
            0 => return None,
            b'"' => break,
            b'\\' => {
                i += 1;
                c = at(i);
                if c == 0 {
                    return None;
                }
            }
            _ => {}
        }
        name.push(c);
        i += 1;
        c = at(i);
        if i >= last {
            break;
        }
    }
    (at(i) == b'"' && at(i + 1) == b']').then_some((name, i + 2))
}

/// libgit2's comment stripping: cuts the line at a `;` or `#` it judges outside
/// quotes (counting a `"` unless a backslash is right before it), then trims white
/// space at the end. Returns the line and the quote count.
fn libgit2_strip(line: &[u8], in_quotes: usize) -> (Vec<u8>, usize) {
    let mut quotes = in_quotes;
    let mut backslashes = 0usize;
    let mut end = line.len();
    for (i, &c) in line.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| line.get(j)).copied();
        if c == b'"' && prev != Some(b'\\') {
            quotes += 1;
        }
        if (c == b';' || c == b'#') && quotes.is_multiple_of(2) && backslashes.is_multiple_of(2) {
            end = i;
            break;
        }
        if c == b'\\' {
            backslashes += 1;
        } else {
            backslashes = 0;
        }
    }
    let mut kept = line.get(..end).unwrap_or_default();
    while let Some((last, rest)) = kept.split_last() {
        if !c_space(*last) {
            break;
        }
        kept = rest;
    }
    (kept.to_vec(), quotes)
}

/// libgit2's unescaping of a value line: quotes dropped, `\n \t \b \" \\` decoded,
/// a final `\` marks a continued line. `None` on another escape.
fn libgit2_unescape(line: &[u8], out: &mut Vec<u8>) -> Option<bool> {
    let mut it = line.iter().copied();
    while let Some(c) = it.next() {
        match c {
            b'"' => {}
            b'\\' => match it.next() {
                None => return Some(true),
                Some(b'n') => out.push(b'\n'),
                Some(b't') => out.push(b'\t'),
                Some(b'b') => out.push(8),
                Some(c @ (b'"' | b'\\')) => out.push(c),
                Some(_) => return None,
            },
            c => out.push(c),
        }
    }
    Some(false)
}

/// A `key = value` line as libgit2 reads it (the value may go on over the next
/// lines, which it takes from `lines`).
fn libgit2_variable<'a>(
    line: &[u8],
    lines: &mut std::iter::Peekable<impl Iterator<Item = &'a [u8]>>,
    section: Option<&[u8]>,
) -> Option<Entry> {
    let start = line
        .iter()
        .position(|c| !c_space(*c) || *c == b'\n')
        .unwrap_or(line.len());
    let (line, quotes) = libgit2_strip(c_str(line.get(start..).unwrap_or_default()), 0);
    let name_len = line.iter().take_while(|c| key_char(**c)).count();
    if name_len == 0 {
        return None;
    }
    let key: Vec<u8> = line
        .get(..name_len)
        .unwrap_or_default()
        .to_ascii_lowercase();
    let rest = line.get(name_len..).unwrap_or_default();
    let rest = rest.get(rest.iter().take_while(|c| c_space(**c)).count()..)?;
    let mut values = Vec::new();
    if let Some(value) = rest.strip_prefix(b"=") {
        let value = value.get(value.iter().take_while(|c| c_space(**c)).count()..)?;
        let mut v = Vec::new();
        let mut more = libgit2_unescape(value, &mut v)?;
        let mut in_quotes = quotes % 2;
        while more {
            let Some(next) = lines.next() else { break };
            let next = c_str(next);
            if next.is_empty() {
                break;
            }
            let (stripped, q) = libgit2_strip(next, in_quotes);
            if !stripped.is_empty() {
                more = libgit2_unescape(&stripped, &mut v)?;
            }
            in_quotes = q;
        }
        values.push(v);
    } else if !rest.is_empty() {
        return None;
    }
    Some(Entry {
        section: section.unwrap_or_default().to_vec(),
        key,
        values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn mkfifo(path: &Path) {
        let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
        assert!(ok, "mkfifo {}", path.display());
    }

    fn git(dir: &Path, args: &[&str]) {
        crate::git::tests::git(dir, args);
    }

    /// The include paths one parser found (each value's first spelling).
    fn includes(parse: fn(&[u8], &mut Vec<Entry>), text: &str) -> Vec<String> {
        let mut entries = Vec::new();
        parse(text.as_bytes(), &mut entries);
        entries
            .into_iter()
            .filter(|e| e.key == b"path" && e.section.starts_with(b"include"))
            .map(|e| String::from_utf8_lossy(&e.values[0]).into_owned())
            .collect()
    }

    /// The `include.path` / `includeIf.*.path` values of `text` as the installed
    /// `git` lists them (`--no-includes`: the values themselves).
    fn as_real_git(dir: &Path, text: &str) -> Vec<String> {
        let file = dir.join("real-git.cfg");
        std::fs::write(&file, text).unwrap();
        let out = Command::new("git")
            .args(["config", "--no-includes", "--list", "-z", "-f"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "git refused {text:?}");
        out.stdout
            .split(|b| *b == 0)
            .filter_map(|rec| {
                let text = String::from_utf8_lossy(rec).into_owned();
                let (key, value) = text.split_once('\n')?;
                let include = key == "include.path"
                    || (key.starts_with("includeif.") && key.ends_with(".path"));
                include.then(|| value.to_owned())
            })
            .collect()
    }

    /// The same values as libgit2 (the library forge links) reads them.
    fn as_real_libgit2(dir: &Path, text: &str) -> Vec<String> {
        let file = dir.join("real-libgit2.cfg");
        std::fs::write(&file, text).unwrap();
        let cfg = git2::Config::open(&file).unwrap();
        let mut out = Vec::new();
        let mut entries = cfg.entries(None).unwrap();
        while let Some(e) = entries.next() {
            let e = e.unwrap();
            let key = String::from_utf8_lossy(e.name_bytes()).into_owned();
            if key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path")) {
                out.push(String::from_utf8_lossy(e.value_bytes()).into_owned());
            }
        }
        out
    }

    #[test]
    fn both_parsers_read_include_paths_as_the_real_ones_do() {
        let t = tempfile::tempdir().unwrap();
        // Each is valid for both; the included names exist nowhere.
        let corpus = [
            "[include]\n\tpath = nope-plain\n",
            "[Include]\n  PATH = \"nope quoted\" ; a comment\n",
            "[include] path = nope-same-line\n",
            "[include]\n\tpath = nope\\ttab\n",
            "[include]\n\tpath = nope-cont\\\n  inued\n",
            "[include]\n\tpath = nope ws\t  kept  \n",
            "[include]\n\tpath = \"nope;x#y\"\n",
            "[includeIf \"gitdir:/nowhere/\"]\n\tpath = nope-cond\n",
            "[include]\r\n\tpath = nope-crlf\r\n",
            "\u{feff}[include]\n\tpath = nope-bom\n",
            "[core]\n\tbare = false\n[include]\n\tpath = nope-1\n\tpath = nope-2\n",
            // Where the two differ: a quote after an escaped backslash, which
            // libgit2's comment stripping does not count as one...
            "[include]\n\tpath = \"nope\\\\\";x\n",
            // ...and a vertical tab at the end, which only libgit2 trims.
            "[include]\n\tpath = nope-vt\x0b\n",
        ];
        for text in corpus {
            assert_eq!(
                includes(parse_as_git, text),
                as_real_git(t.path(), text),
                "git on {text:?}"
            );
            assert_eq!(
                includes(parse_as_libgit2, text),
                as_real_libgit2(t.path(), text),
                "libgit2 on {text:?}"
            );
        }
        // The last two really differ, so forge checks both readings.
        let quirk = "[include]\n\tpath = \"q\\\\\";r\n";
        assert_eq!(includes(parse_as_git, quirk), ["q\\"]);
        assert_eq!(includes(parse_as_libgit2, quirk), ["q\\;r"]);
        assert_eq!(
            named_paths(quirk.as_bytes()).includes,
            [b"q\\".to_vec(), b"q\\;r".to_vec()]
        );
    }

    #[test]
    fn named_paths_covers_every_spelling_and_stops_where_the_parsers_do() {
        let names = |text: &str| -> Vec<String> {
            named_paths(text.as_bytes())
                .includes
                .iter()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect()
        };
        // White space inside a value: kept by git 2.47 and libgit2, made spaces by
        // older gits.
        assert_eq!(names("[include]\n\tpath = a\t b\n"), ["a\t b", "a  b"]);
        // Any condition, any case; a `path` elsewhere is not an include.
        assert_eq!(
            names("[INCLUDEIF \"hasconfig:remote.*.url:x\"]\npath=c\n[remote \"o\"]\npath = d\n"),
            ["c"]
        );
        // Both stop at a broken line; what came before was read.
        assert_eq!(names("[include]\npath = e\n!broken\npath = f\n"), ["e"]);
        // A quote git never closes: git stops, libgit2 reads on.
        assert_eq!(names("[include]\npath = \"g h\n"), ["g h"]);
        let mut git_read = Vec::new();
        parse_as_git(b"[include]\npath = \"g h\n", &mut git_read);
        assert!(git_read.is_empty());
        // core.excludesFile and core.attributesFile are files git opens too.
        let named = named_paths(b"[core]\n\texcludesFile = ~/ignore\n\tattributesfile = attrs\n");
        assert_eq!(named.files, [b"~/ignore".to_vec(), b"attrs".to_vec()]);
        assert!(named.includes.is_empty());
    }

    /// A repository at `<t>/repo` (work tree) with `text` appended to its config.
    fn repo_with_config(t: &Path, text: &str) -> Layout {
        let root = t.join("repo");
        std::fs::create_dir_all(&root).unwrap();
        git(&root, &["init", "-q", "-b", "main"]);
        let config = root.join(".git/config");
        let mut all = std::fs::read_to_string(&config).unwrap();
        all.push_str(text);
        std::fs::write(&config, all).unwrap();
        locate(&root).unwrap().unwrap()
    }

    #[test]
    fn the_include_walker_follows_every_include_as_git_resolves_it() {
        let t = tempfile::tempdir().unwrap();
        let t = &t.path().canonicalize().unwrap();
        let home = t.join("home");
        std::fs::create_dir_all(&home).unwrap();
        // .git/config → ../team.cfg (relative to .git/) → ~/mine.cfg → sub/deep.cfg
        // (relative to ~/) → the FIFO, behind an includeIf whose condition is false.
        let layout = repo_with_config(t, "[include]\n\tpath = ../team.cfg\n");
        assert_eq!(layout.work_dir.as_deref(), Some(t.join("repo").as_path()));
        assert_eq!(layout.git_dir, t.join("repo/.git"));
        std::fs::write(t.join("repo/team.cfg"), "[include]\n\tpath = ~/mine.cfg\n").unwrap();
        std::fs::write(home.join("mine.cfg"), "[include]\npath = sub/deep.cfg\n").unwrap();
        std::fs::create_dir_all(home.join("sub")).unwrap();
        let fifo = t.join("endless");
        std::fs::write(
            home.join("sub/deep.cfg"),
            format!(
                "[includeIf \"onbranch:never\"]\n\tpath = {}\n",
                fifo.display()
            ),
        )
        .unwrap();
        let home = Some(home.as_path());
        assert_eq!(check_layout(&layout, home), Ok(()), "missing is fine");
        mkfifo(&fifo);
        let e = check_layout(&layout, home).unwrap_err();
        assert_eq!(e.path, fifo);
        assert_eq!(
            e.via,
            format!("included from {}", t.join("home/sub/deep.cfg").display())
        );
        assert!(e.what.starts_with("a FIFO"), "{e}");
        assert!(e.to_string().contains("git facts unavailable"), "{e}");
        // Without HOME, `~/` cannot be resolved as git would: refused, not skipped.
        let e = check_layout(&layout, None).unwrap_err();
        assert!(e.what.contains("HOME is not set"), "{e}");
        std::fs::remove_file(&fifo).unwrap();
        // A link to a device.
        std::os::unix::fs::symlink("/dev/zero", &fifo).unwrap();
        let e = check_layout(&layout, home).unwrap_err();
        assert!(e.what.starts_with("a device"), "{e}");
    }

    #[test]
    fn the_include_walker_stops_where_git_does_and_bounds_its_work() {
        let t = tempfile::tempdir().unwrap();
        let t = &t.path().canonicalize().unwrap();
        // A chain c1 → c2 → … : the file at depth 10 is read, one at 11 never is.
        let layout = repo_with_config(t, "[include]\n\tpath = c1\n");
        let git_dir = &layout.git_dir;
        for i in 1..=11 {
            std::fs::write(
                git_dir.join(format!("c{i}")),
                format!("[include]\n\tpath = c{}\n", i + 1),
            )
            .unwrap();
        }
        mkfifo(&git_dir.join("c12"));
        assert_eq!(
            check_layout(&layout, None),
            Ok(()),
            "depth 11: git stops first"
        );
        std::fs::remove_file(git_dir.join("c11")).unwrap();
        mkfifo(&git_dir.join("c11"));
        assert!(check_layout(&layout, None).is_ok(), "depth 11");
        std::fs::remove_file(git_dir.join("c10")).unwrap();
        mkfifo(&git_dir.join("c10"));
        let e = check_layout(&layout, None).unwrap_err();
        assert_eq!(e.path, git_dir.join("c10"), "depth 10 is read");
        // A cycle ends.
        std::fs::write(git_dir.join("c1"), "[include]\npath = c1\npath = config\n").unwrap();
        assert_eq!(check_layout(&layout, None), Ok(()));
        // Forge reads at most 64 files, and cannot resolve `~user/` or
        // `%(prefix)/` as git does.
        let many: String = (0..70)
            .map(|i| format!("[include]\npath = m{i}\n"))
            .collect();
        for i in 0..70 {
            std::fs::write(git_dir.join(format!("m{i}")), "").unwrap();
        }
        std::fs::write(git_dir.join("c1"), &many).unwrap();
        assert!(
            check_layout(&layout, None)
                .unwrap_err()
                .what
                .contains("64 config files")
        );
        for (value, why) in [
            ("~root/x", "another user's home"),
            ("%(prefix)/x", "install prefix"),
        ] {
            std::fs::write(git_dir.join("c1"), format!("[include]\npath = {value}\n")).unwrap();
            let e = check_layout(&layout, None).unwrap_err();
            assert!(e.what.contains(why), "{e}");
        }
    }

    #[test]
    fn the_files_libgit2_opens_with_the_repository_are_checked() {
        let t = tempfile::tempdir().unwrap();
        let t = &t.path().canonicalize().unwrap();
        let layout = repo_with_config(t, "");
        let git_dir = layout.git_dir.clone();
        assert_eq!(check(&t.join("repo")), Ok(()));
        for name in [
            "gitdir",
            "shallow",
            "info/grafts",
            "packed-refs",
            "objects/info/alternates",
            "info/exclude",
            "info/attributes",
            "config.worktree",
            "commondir",
            "refs/heads/main",
        ] {
            let path = git_dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let _ = std::fs::remove_file(&path);
            mkfifo(&path);
            let e = check(&t.join("repo")).unwrap_err();
            assert_eq!(e.path, path, "{name}");
            std::fs::remove_file(&path).unwrap();
        }
        // core.excludesFile, relative to the work tree.
        std::fs::write(
            git_dir.join("config"),
            "[core]\n\texcludesFile = my-ignore\n",
        )
        .unwrap();
        mkfifo(&t.join("repo/my-ignore"));
        assert_eq!(
            check(&t.join("repo")).unwrap_err().path,
            t.join("repo/my-ignore")
        );
        // The config itself; from a folder deep in the work tree.
        std::fs::remove_file(git_dir.join("config")).unwrap();
        mkfifo(&git_dir.join("config"));
        std::fs::create_dir_all(t.join("repo/a/b")).unwrap();
        assert_eq!(
            check(&t.join("repo/a/b")).unwrap_err().path,
            git_dir.join("config")
        );
        // libgit2 opens the git folder it found, and looks for a `.git` in it first:
        // a `.git/.git` file sends it to another git folder, whose config counts.
        std::fs::remove_file(git_dir.join("config")).unwrap();
        let other = t.join("other.git");
        std::fs::create_dir_all(&other).unwrap();
        git(&other, &["init", "-q", "--bare"]);
        std::fs::remove_file(other.join("config")).unwrap();
        mkfifo(&other.join("config"));
        std::fs::write(
            git_dir.join(".git"),
            format!("gitdir: {}\n", other.display()),
        )
        .unwrap();
        assert_eq!(
            check(&t.join("repo")).unwrap_err().path,
            other.join("config")
        );
        std::fs::remove_file(git_dir.join(".git")).unwrap();
        // Outside any repository: nothing to check.
        std::fs::create_dir_all(t.join("plain")).unwrap();
        assert_eq!(locate(&t.join("plain")).unwrap(), None);
    }

    #[test]
    fn a_linked_work_tree_is_found_through_its_git_file_and_commondir() {
        let t = tempfile::tempdir().unwrap();
        let t = &t.path().canonicalize().unwrap();
        let main = repo_with_config(t, "");
        let root = t.join("repo");
        std::fs::write(root.join("a"), "a").unwrap();
        git(&root, &["add", "a"]);
        git(&root, &["commit", "-qm", "one"]);
        let wt = t.join("wt");
        git(
            &root,
            &["worktree", "add", "-q", "-b", "other", wt.to_str().unwrap()],
        );
        let layout = locate(&wt).unwrap().unwrap();
        assert_eq!(layout.git_dir, main.git_dir.join("worktrees/wt"));
        assert_eq!(
            layout.common_dir.canonicalize().unwrap(),
            main.git_dir.canonicalize().unwrap()
        );
        assert_eq!(layout.work_dir.as_deref(), Some(wt.as_path()));
        // The shared config, and the work tree's own.
        let fifo = t.join("endless");
        mkfifo(&fifo);
        std::fs::write(
            layout.git_dir.join("config.worktree"),
            format!("[include]\npath = {}\n", fifo.display()),
        )
        .unwrap();
        assert_eq!(check(&wt).unwrap_err().path, fifo);
        assert_eq!(
            check(&root),
            Ok(()),
            "the main work tree reads no config.worktree of wt"
        );
        std::fs::remove_file(layout.git_dir.join("config.worktree")).unwrap();
        std::fs::write(
            main.git_dir.join("config"),
            format!("[include]\npath = {}\n", fifo.display()),
        )
        .unwrap();
        assert_eq!(check(&wt).unwrap_err().path, fifo);
    }

    #[test]
    fn the_gitignore_files_of_one_path() {
        let t = tempfile::tempdir().unwrap();
        let w = t.path();
        std::fs::create_dir_all(w.join("a/b")).unwrap();
        assert_eq!(check_ignore_files(w, Path::new("a/b/c.md")), Ok(()));
        mkfifo(&w.join("a/b/.gitignore"));
        assert_eq!(
            check_ignore_files(w, Path::new("a/b/c.md"))
                .unwrap_err()
                .path,
            w.join("a/b/.gitignore")
        );
        assert_eq!(
            check_ignore_files(w, Path::new("a/c.md")),
            Ok(()),
            "not on the way"
        );
    }
}
