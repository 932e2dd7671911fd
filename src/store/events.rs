//! Reading `logs/events.jsonl` back (the writer is [`super::files::append_event`]):
//! its rotated `events.jsonl.1` then the current file, each read from its end and
//! bounded, and a [`Follower`] that picks up lines as they are appended, across a
//! rotation. Every open goes through [`super::safe`] (never a link, never a FIFO).

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use super::safe::{self, Follow};
use super::{Paths, sibling};

/// The most read from each file: the log rotates at [`super::EVENTS_CAP`], so a
/// file forge wrote is never longer than that and a line.
pub(crate) const READ_CAP: u64 = 4 * super::EVENTS_CAP;

/// The lines of the rotated file and then the current one, oldest first (blank lines
/// skipped; a first line cut by [`READ_CAP`] dropped).
#[cfg(test)]
pub(crate) fn read_lines(paths: &Paths) -> Vec<String> {
    read_and_follow(paths).0
}

/// [`read_lines`], and a [`Follower`] that goes on exactly where they end: no line
/// appended meanwhile is lost or returned twice.
pub(crate) fn read_and_follow(paths: &Paths) -> (Vec<String>, Follower) {
    let path = paths.events();
    let mut lines = super::tail_lines(&sibling(&path, ".1"), usize::MAX, READ_CAP);
    let mut follower = Follower {
        path,
        file: None,
        offset: 0,
    };
    if let Ok((mut file, meta)) = safe::open_read_meta(&follower.path, Follow::No) {
        let start = meta.len().saturating_sub(READ_CAP);
        let (mut current, used) = read_from(&mut file, start, meta.len());
        if start > 0 && !current.is_empty() {
            current.remove(0);
        }
        lines.extend(current);
        follower.file = Some((meta.dev(), meta.ino()));
        follower.offset = start + used;
    }
    (lines, follower)
}

/// Follows `events.jsonl` the way `tail -F` does: each [`Follower::poll`] returns the
/// whole lines appended since the last one. When the file is rotated (renamed to
/// `.1` and started afresh), the rest of the old file is read first, then the new
/// one from its start.
#[derive(Debug)]
pub(crate) struct Follower {
    path: PathBuf,
    /// The file being read (device and inode), once one was seen.
    file: Option<(u64, u64)>,
    /// Bytes of it already returned.
    offset: u64,
}

impl Follower {
    /// The whole lines appended since the last call (at most [`READ_CAP`] bytes of
    /// them; the rest comes at the next call). A line still being written (no
    /// newline yet) waits for the next call.
    pub(crate) fn poll(&mut self) -> Vec<String> {
        let Ok((mut file, meta)) = safe::open_read_meta(&self.path, Follow::No) else {
            return Vec::new();
        };
        let id = (meta.dev(), meta.ino());
        let mut lines = Vec::new();
        if self.file != Some(id) {
            // Rotated: finish the old file (now `.1`), if it is the one we read.
            if self.file.is_some()
                && let Ok((mut old, old_meta)) =
                    safe::open_read_meta(&sibling(&self.path, ".1"), Follow::No)
                && Some((old_meta.dev(), old_meta.ino())) == self.file
            {
                lines.extend(read_from(&mut old, self.offset, old_meta.len()).0);
            }
            self.file = Some(id);
            self.offset = 0;
        }
        if meta.len() < self.offset {
            // Truncated in place (not by forge): start over.
            self.offset = 0;
        }
        let (new, used) = read_from(&mut file, self.offset, meta.len());
        self.offset += used;
        lines.extend(new);
        lines
    }
}

/// The whole lines of `file` from `offset` up to `len` (at most [`READ_CAP`] bytes),
/// and how many bytes they took (a final line without its newline is left).
fn read_from(file: &mut std::fs::File, offset: u64, len: u64) -> (Vec<String>, u64) {
    if len <= offset || file.seek(SeekFrom::Start(offset)).is_err() {
        return (Vec::new(), 0);
    }
    let mut buf = Vec::new();
    if file
        .take((len - offset).min(READ_CAP))
        .read_to_end(&mut buf)
        .is_err()
    {
        return (Vec::new(), 0);
    }
    let whole = buf.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let text = String::from_utf8_lossy(buf.get(..whole).unwrap_or_default());
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    (lines, whole as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::Path;

    fn append(path: &Path, text: &str) {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }

    #[test]
    fn reads_the_rotated_file_first() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.logs()).unwrap();
        assert!(read_lines(&p).is_empty());
        append(&sibling(&p.events(), ".1"), "a\nb\n");
        append(&p.events(), "c\n\n  \nd\n");
        assert_eq!(read_lines(&p), ["a", "b", "c", "d"]);
    }

    #[test]
    fn follows_appends_partial_lines_and_rotation() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.logs()).unwrap();
        // No log yet: nothing, then the file appears.
        let (lines, mut f) = read_and_follow(&p);
        assert!(lines.is_empty());
        assert!(f.poll().is_empty());
        append(&p.events(), "one\n");
        assert_eq!(f.poll(), ["one"]);
        // A reader started later gets the history once, then only what is new.
        append(&p.events(), "two\nthr");
        let (lines, mut late) = read_and_follow(&p);
        assert_eq!(lines, ["one", "two"], "a line being written waits");
        assert_eq!(f.poll(), ["two"]);
        assert!(late.poll().is_empty());
        append(&p.events(), "ee\n");
        assert_eq!(f.poll(), ["three"]);
        assert!(f.poll().is_empty());
        // Rotation: the old file's last lines, then the new file's.
        append(&p.events(), "four\n");
        std::fs::rename(p.events(), sibling(&p.events(), ".1")).unwrap();
        append(&p.events(), "five\n");
        assert_eq!(f.poll(), ["four", "five"]);
        assert_eq!(late.poll(), ["three", "four", "five"]);
    }

    #[test]
    fn a_link_is_never_followed() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.logs()).unwrap();
        let secret = t.path().join("secret");
        std::fs::write(&secret, "not yours\n").unwrap();
        std::os::unix::fs::symlink(&secret, p.events()).unwrap();
        let (lines, mut f) = read_and_follow(&p);
        assert!(lines.is_empty());
        assert!(f.poll().is_empty());
    }
}
