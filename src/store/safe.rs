//! Opening files the way OpenSSH's `StrictModes` reads `authorized_keys`
//! (openssh-portable `misc.c`: `safe_path()` / `safe_path_fd()`).
//!
//! forge runs as the user on every tool call, and a cloned repository can ship a
//! `.forge/` folder. So every file forge opens under `.forge/` (and the
//! `~/.claude/pending-resume` marker, `.git/HEAD`, config files and transcripts) goes
//! through this module:
//!
//! - opened with `O_NONBLOCK`, so a FIFO (or a device) never blocks the open;
//! - opened with `O_NOFOLLOW` ([`Follow::No`]), so a final symbolic link planted in
//!   the folder (`events.jsonl -> ~/.bashrc`) is never followed, for reading or
//!   appending — only the user's own files elsewhere, which a dotfiles manager may
//!   link, are opened with [`Follow::Yes`];
//! - checked with `fstat` on the open handle to be a regular file, so what is
//!   checked is what is read;
//! - read up to a size cap.
//!
//! The folders themselves (`.forge/`, `logs/`, `handoffs/`, `logs/sessions/`) must be
//! real folders (not symbolic links), owned by the user and not writable by others
//! ([`check_dir`]); a refused folder is never read or written (see
//! `Paths::check`). Group-writable folders are accepted: under the common `umask
//! 002` every folder a user creates is, and the group is usually the user's own.
//!
//! Nothing else in the crate opens files under `.forge/` directly: `clippy.toml`
//! disallows `std::fs::File::open`, `std::fs::read`, `std::fs::read_to_string` and
//! `OpenOptions::open` outside this module.

#![allow(clippy::disallowed_methods)]

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Whether a final symbolic link is followed when opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Follow {
    /// Never: everything under `.forge/`, the pending-resume markers, `.git/HEAD`,
    /// the project's `config.toml`.
    No,
    /// Yes, for the user's own files outside the project state (the user config,
    /// a transcript named by Claude Code or on the command line, settings files):
    /// these may be links made by a dotfiles manager. Still non-blocking, still only
    /// a regular file.
    Yes,
}

fn open_flags(follow: Follow) -> i32 {
    match follow {
        Follow::No => libc::O_NONBLOCK | libc::O_NOFOLLOW,
        Follow::Yes => libc::O_NONBLOCK,
    }
}

/// What kind of file a mode names, in words (for error messages).
pub(crate) fn kind_of(ft: fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() || ft.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Checks, on the open handle, that `file` is a regular file.
fn ensure_regular(file: &File) -> io::Result<fs::Metadata> {
    let meta = file.metadata()?;
    if meta.file_type().is_file() {
        Ok(meta)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}, not a regular file", kind_of(meta.file_type())),
        ))
    }
}

/// `ELOOP` from `O_NOFOLLOW`, in words. (Callers name the path.)
fn explain(e: io::Error) -> io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        return io::Error::new(
            e.kind(),
            "a symbolic link, which forge does not follow here",
        );
    }
    e
}

/// Opens `path` for reading: non-blocking, a final link followed only with
/// [`Follow::Yes`], and only when the handle is a regular file.
pub(crate) fn open_read(path: &Path, follow: Follow) -> io::Result<File> {
    open_read_meta(path, follow).map(|(file, _)| file)
}

/// [`open_read`], with the handle's metadata (from the one `fstat`).
pub(crate) fn open_read_meta(path: &Path, follow: Follow) -> io::Result<(File, fs::Metadata)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(open_flags(follow))
        .open(path)
        .map_err(explain)?;
    let meta = ensure_regular(&file)?;
    #[cfg(test)]
    trace::note(trace::Op::Read, path);
    Ok((file, meta))
}

/// The files this thread read and replaced, recorded only in unit tests (which
/// assert that a hook call reads each file once: `hooks::tests`). Production
/// builds compile none of it.
#[cfg(test)]
pub(crate) mod trace {
    use std::cell::RefCell;
    use std::path::{Path, PathBuf};

    /// What was done to a file.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Op {
        /// Opened for reading.
        Read,
        /// Replaced (or created) whole, atomically.
        Write,
    }

    thread_local! {
        static LOG: RefCell<Option<Vec<(Op, PathBuf)>>> = const { RefCell::new(None) };
    }

    /// Starts recording on this thread (what was recorded before is dropped).
    pub(crate) fn start() {
        LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
    }

    /// Stops recording and returns what was recorded, in order.
    pub(crate) fn take() -> Vec<(Op, PathBuf)> {
        LOG.with(|l| l.borrow_mut().take().unwrap_or_default())
    }

    pub(crate) fn note(op: Op, path: &Path) {
        LOG.with(|l| {
            if let Some(log) = l.borrow_mut().as_mut() {
                log.push((op, path.to_path_buf()));
            }
        });
    }
}

/// Reads at most `cap` bytes of the regular file at `path` (see [`open_read`]).
pub(crate) fn read_capped(path: &Path, cap: u64, follow: Follow) -> io::Result<Vec<u8>> {
    let (file, meta) = open_read_meta(path, follow)?;
    read_file_capped(&file, meta.len(), cap)
}

/// Reads at most `cap` bytes from an open file of length `len`, from its current
/// position.
pub(crate) fn read_file_capped(file: &File, len: u64, cap: u64) -> io::Result<Vec<u8>> {
    // Sized from the file's length, so a small file is read in one call rather than
    // in growing 32-, 64-, 128-byte probes (this runs on the statusline's hot path).
    let hint = len.min(cap);
    let mut buf = Vec::with_capacity(usize::try_from(hint).unwrap_or(0).saturating_add(1));
    file.take(cap).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Reads the whole regular file at `path` as UTF-8 text (see [`open_read`]),
/// refusing rather than cutting one longer than `max` bytes: for files forge parses
/// or rewrites whole (settings, config, `MEMORY.md`), where a cut would change their
/// meaning or lose their end.
pub(crate) fn read_to_string_whole(path: &Path, max: u64, follow: Follow) -> io::Result<String> {
    let bytes = read_capped(path, max.saturating_add(1), follow)?;
    if bytes.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {max} bytes"),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text ({e})")))
}

/// Opens (creating when missing) `path` for appending: never through a final link,
/// never a FIFO or device (`O_NONBLOCK` makes a FIFO without a reader fail at once).
pub(crate) fn open_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o666)
        .custom_flags(open_flags(Follow::No))
        .open(path)
        .map_err(explain)?;
    ensure_regular(&file)?;
    Ok(file)
}

/// Opens `path` for reading and writing (creating it when `create`), never through a
/// final link, only a regular file: for lock files and for touching a file's time.
pub(crate) fn open_rw(path: &Path, create: bool) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(false)
        .mode(0o666)
        .custom_flags(open_flags(Follow::No))
        .open(path)
        .map_err(explain)?;
    ensure_regular(&file)?;
    Ok(file)
}

/// Creates a new file at `path` (`O_EXCL`: an existing entry, link or not, is
/// `AlreadyExists`), for write-once guards.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .custom_flags(open_flags(Follow::No))
        .open(path)
}

/// Whether `path` itself (not what a link points to) is a regular file: for flag
/// files, whose presence is all that counts.
pub(crate) fn is_regular(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Whether `path` itself is a folder (a symbolic link to one is not).
pub(crate) fn is_real_dir(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_dir())
}

/// Creates `path` and its missing parents. New folders get `0775` under the umask:
/// never writable by others, whatever the umask, so forge never creates a folder it
/// would then refuse.
pub(crate) fn create_dir_all(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o775)
        .create(path)
}

/// Creates `path` and its missing parents as private folders (`0700`): for forge's
/// user state folder, which lists the user's projects.
pub(crate) fn create_private_dir_all(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
}

/// The effective user id of this process (asked once).
pub(crate) fn euid() -> u32 {
    static EUID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *EUID.get_or_init(|| rustix::process::geteuid().as_raw())
}

/// A state folder forge will not use, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The folder.
    pub(crate) path: PathBuf,
    /// Why, and what to do (one line).
    pub(crate) reason: String,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "refusing to use {}: {}",
            self.path.display(),
            self.reason
        )
    }
}

impl std::error::Error for Refusal {}

/// The facts about a folder entry that decide whether forge trusts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirFacts {
    /// It is a folder (not a link, not a file).
    pub(crate) is_dir: bool,
    /// It is a symbolic link.
    pub(crate) is_symlink: bool,
    /// Its owner.
    pub(crate) uid: u32,
    /// Its permission bits.
    pub(crate) mode: u32,
}

impl DirFacts {
    /// The facts of `meta` (from `symlink_metadata`).
    pub(crate) fn of(meta: &fs::Metadata) -> Self {
        Self {
            is_dir: meta.file_type().is_dir(),
            is_symlink: meta.file_type().is_symlink(),
            uid: meta.uid(),
            mode: meta.mode() & 0o7777,
        }
    }
}

/// The StrictModes rule, as a pure function: a real folder, owned by `euid`, not
/// writable by others. `Err` holds the reason and what to do, in one line.
pub(crate) fn judge_dir(f: DirFacts, euid: u32, shown: &str) -> Result<(), String> {
    if f.is_symlink {
        return Err(format!(
            "it is a symbolic link, and forge only keeps its state in a real folder \
             (a link could send its writes anywhere): remove the link (`rm {shown}`) and \
             forge creates the folder again"
        ));
    }
    if !f.is_dir {
        return Err(format!(
            "it is not a folder: move it away (`mv {shown} {shown}.old`) and forge creates the folder"
        ));
    }
    if f.uid != euid {
        return Err(format!(
            "it belongs to uid {}, not to you (uid {euid}); a folder someone else \
             controls could feed their files into your sessions: remove it, or `chown` \
             it if it is yours",
            f.uid
        ));
    }
    if f.mode & 0o002 != 0 {
        return Err(format!(
            "anyone on this machine can write to it (mode {:o}): run `chmod o-w {shown}`",
            f.mode
        ));
    }
    Ok(())
}

/// Checks the folder at `path` with [`judge_dir`] (`lstat`, so a link is seen as
/// one). A folder that does not exist is fine: forge creates it.
pub(crate) fn check_dir(path: &Path) -> Result<(), Refusal> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Refusal {
                path: path.to_path_buf(),
                reason: format!("cannot check it: {e}"),
            });
        }
    };
    judge_dir(DirFacts::of(&meta), euid(), &path.display().to_string()).map_err(|reason| Refusal {
        path: path.to_path_buf(),
        reason,
    })
}

/// What [`check_inside`] expects at the end of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// A regular file.
    File,
    /// A folder.
    Dir,
}

/// Checks `path`, inside `root`, the way `forge init` needs it before it reads or
/// writes there: nothing below `root` is followed. Every folder on the way must be a
/// real folder (not a symbolic link) of yours that others cannot write to
/// ([`judge_dir`]), and `path` itself must be missing or a `want` of yours (a regular
/// file — not a link, FIFO or device — or such a folder). Each component is
/// `lstat`ed; the first one missing ends the check (forge creates the rest). `Err`
/// names the offending path and says why and what to do.
pub(crate) fn check_inside(root: &Path, path: &Path, want: Want) -> Result<(), Refusal> {
    let refuse = |path: &Path, reason: String| Refusal {
        path: path.to_path_buf(),
        reason,
    };
    let rel = path
        .strip_prefix(root)
        .map_err(|_| refuse(path, format!("it is not inside {}", root.display())))?;
    let parts: Vec<_> = rel.components().collect();
    if !parts
        .iter()
        .all(|p| matches!(p, std::path::Component::Normal(_)))
    {
        return Err(refuse(
            path,
            "it is not a plain path inside the project".into(),
        ));
    }
    let mut cur = root.to_path_buf();
    for (i, part) in parts.iter().enumerate() {
        cur.push(part);
        let meta = match fs::symlink_metadata(&cur) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(refuse(&cur, format!("cannot check it: {e}"))),
        };
        let last = i + 1 == parts.len();
        let shown = cur.display().to_string();
        if meta.file_type().is_symlink() {
            let to = fs::read_link(&cur)
                .map(|t| format!(" (to {})", t.display()))
                .unwrap_or_default();
            return Err(refuse(
                &cur,
                format!(
                    "it is a symbolic link{to}, and forge does not follow links out of the project: replace it with a real {} (or remove it) and run the command again",
                    if last && want == Want::File {
                        "file"
                    } else {
                        "folder"
                    }
                ),
            ));
        }
        if last && want == Want::File {
            if !meta.file_type().is_file() {
                return Err(refuse(
                    &cur,
                    format!(
                        "it is {}, not a regular file: move it away and run the command again",
                        kind_of(meta.file_type())
                    ),
                ));
            }
            if meta.uid() != euid() {
                return Err(refuse(
                    &cur,
                    format!(
                        "it belongs to uid {}, not to you (uid {}): forge does not rewrite someone else's file",
                        meta.uid(),
                        euid()
                    ),
                ));
            }
            return Ok(());
        }
        judge_dir(DirFacts::of(&meta), euid(), &shown).map_err(|reason| refuse(&cur, reason))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn check_inside_follows_nothing_below_the_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("p");
        let outside = t.path().join("outside");
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let ok = |rel: &str, want| check_inside(&root, &root.join(rel), want);
        assert!(ok(".gitignore", Want::File).is_ok(), "missing is fine");
        assert!(ok(".claude/settings.json", Want::File).is_ok());
        assert!(ok("new/deeper/file", Want::File).is_ok());
        std::fs::write(root.join(".gitignore"), "x").unwrap();
        assert!(ok(".gitignore", Want::File).is_ok());
        assert!(
            ok(".gitignore", Want::Dir).is_err(),
            "a file where a folder goes"
        );
        // A link anywhere on the way, to a file or to a folder.
        std::fs::remove_file(root.join(".gitignore")).unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", root.join(".gitignore")).unwrap();
        let e = ok(".gitignore", Want::File).unwrap_err();
        assert_eq!(e.path, root.join(".gitignore"));
        assert!(
            e.reason.contains("symbolic link (to /proc/self/environ)"),
            "{e}"
        );
        std::fs::remove_dir(root.join(".claude")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join(".claude")).unwrap();
        let e = ok(".claude/commands/x.md", Want::File).unwrap_err();
        assert_eq!(e.path, root.join(".claude"), "names the link, not the file");
        assert!(ok(".claude", Want::Dir).is_err());
        // A FIFO where a file goes, and a folder others may write to.
        std::fs::remove_file(root.join(".claude")).unwrap();
        std::fs::create_dir(root.join(".claude")).unwrap();
        mkfifo(&root.join(".claude/settings.json"));
        let e = ok(".claude/settings.json", Want::File).unwrap_err();
        assert!(e.reason.contains("a FIFO"), "{e}");
        std::fs::set_permissions(root.join(".claude"), fs::Permissions::from_mode(0o777)).unwrap();
        assert!(
            ok(".claude/x", Want::File)
                .unwrap_err()
                .reason
                .contains("anyone")
        );
        // Nothing outside the root, nothing with `..`.
        assert!(check_inside(&root, &outside.join("x"), Want::File).is_err());
        assert!(ok("a/../../outside/x", Want::File).is_err());
    }

    fn mkfifo(path: &Path) {
        let ok = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }

    #[test]
    fn reads_refuse_links_fifos_and_folders_without_blocking() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real.txt");
        std::fs::write(&real, "hello").unwrap();
        assert_eq!(read_capped(&real, 100, Follow::No).unwrap(), b"hello");
        assert_eq!(read_capped(&real, 2, Follow::No).unwrap(), b"he");

        let link = t.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = read_capped(&link, 100, Follow::No).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(read_capped(&link, 100, Follow::Yes).unwrap(), b"hello");

        // A FIFO with no writer: a blocking open would wait forever.
        let fifo = t.path().join("fifo");
        mkfifo(&fifo);
        for follow in [Follow::No, Follow::Yes] {
            let err = read_capped(&fifo, 100, follow).unwrap_err();
            assert!(err.to_string().contains("FIFO"), "{err}");
        }
        let err = open_append(&fifo).unwrap_err();
        assert!(err.kind() != io::ErrorKind::NotFound, "{err}");
        assert!(open_rw(&fifo, false).is_err());
        let err = read_capped(t.path(), 100, Follow::Yes).unwrap_err();
        assert!(err.to_string().contains("folder"), "{err}");
        assert!(read_capped(Path::new("/dev/zero"), 10, Follow::Yes).is_err());
    }

    #[test]
    fn appends_never_follow_a_link() {
        let t = tempfile::tempdir().unwrap();
        let outside = t.path().join("outside.txt");
        std::fs::write(&outside, "mine\n").unwrap();
        let link = t.path().join("events.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(open_append(&link).is_err());
        assert!(open_rw(&link, true).is_err());
        assert!(create_new(&link).is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine\n");
        assert!(!is_regular(&link));
        assert!(is_regular(&outside));
    }

    #[test]
    fn the_strict_modes_rule() {
        let dir = DirFacts {
            is_dir: true,
            is_symlink: false,
            uid: 1000,
            mode: 0o755,
        };
        assert!(judge_dir(dir, 1000, ".forge").is_ok());
        // umask 002: group-writable folders are the norm, and accepted.
        assert!(judge_dir(DirFacts { mode: 0o775, ..dir }, 1000, ".forge").is_ok());
        let other = judge_dir(dir, 1001, ".forge").unwrap_err();
        assert!(other.contains("uid 1000, not to you (uid 1001)"), "{other}");
        let world = judge_dir(DirFacts { mode: 0o777, ..dir }, 1000, ".forge").unwrap_err();
        assert!(world.contains("chmod o-w .forge"), "{world}");
        let sticky = judge_dir(
            DirFacts {
                mode: 0o1777,
                ..dir
            },
            1000,
            ".forge",
        );
        assert!(sticky.is_err(), "a shared /tmp-like folder is not private");
        let link = DirFacts {
            is_dir: false,
            is_symlink: true,
            ..dir
        };
        assert!(
            judge_dir(link, 1000, ".forge")
                .unwrap_err()
                .contains("symbolic link")
        );
        let file = DirFacts {
            is_dir: false,
            ..dir
        };
        assert!(
            judge_dir(file, 1000, ".forge")
                .unwrap_err()
                .contains("not a folder")
        );
    }

    #[test]
    fn check_dir_on_disk() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("state");
        assert!(check_dir(&d).is_ok(), "missing is fine: forge creates it");
        create_dir_all(&d).unwrap();
        assert!(check_dir(&d).is_ok());
        let mode = std::fs::metadata(&d).unwrap().permissions().mode();
        assert_eq!(mode & 0o002, 0, "never created writable by others");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(check_dir(&d).unwrap_err().to_string().contains("chmod o-w"));
        let link = t.path().join("link");
        std::os::unix::fs::symlink(t.path(), &link).unwrap();
        assert!(check_dir(&link).is_err());
    }
}
