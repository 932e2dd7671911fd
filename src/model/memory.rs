//! Claude Code's per-project memory folder and `MEMORY.md` housekeeping.
//!
//! Claude Code keeps a project's data in `<claude dir>/projects/<name>/`, where
//! `<name>` is the project's real path with every character that is not an ASCII
//! letter or digit replaced by `-` (reference §5.1). Names longer than 200 characters
//! are cut to 200 and given a hash suffix. `forge learn` and `forge doctor` use this
//! to find `memory/MEMORY.md` and the `learned-*.md` pattern files.

/// `MEMORY.md` longer than this is archived by `forge learn archive`.
pub const MEMORY_MAX_LINES: usize = 180;

/// Longest folder name before the hash suffix is added.
const MAX_NAME: usize = 200;

/// Claude Code's folder name for a project at `real_path` (already canonical).
///
/// Mirrors the JavaScript `p.replace(/[^a-zA-Z0-9]/g, "-")`, which works on UTF-16
/// units: a character outside the BMP becomes two dashes.
pub fn project_dir_name(real_path: &str) -> String {
    let mut name = String::with_capacity(real_path.len());
    for c in real_path.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                name.push('-');
            }
        }
    }
    if name.len() <= MAX_NAME {
        return name;
    }
    let hash = i64::from(java_hash(real_path)).abs();
    // `name` is ASCII, so byte 200 is a character boundary.
    format!("{}-{}", name.get(..MAX_NAME).unwrap_or(&name), base36(hash))
}

/// Java's `String.hashCode`: `h = 31*h + unit` over UTF-16 units, wrapping i32.
pub fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, u| {
        h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u))
    })
}

/// A non-negative number in base 36 (lowercase), as JavaScript's `toString(36)`.
pub fn base36(mut n: i64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n <= 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        let d = usize::try_from(n % 36).unwrap_or(0);
        out.push(DIGITS.get(d).copied().unwrap_or(b'0'));
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The new texts after archiving `MEMORY.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archived {
    /// The archive file's full new text (old archive text, if any, kept first).
    pub archive: String,
    /// The short `MEMORY.md` left behind.
    pub memory: String,
    /// How many lines moved.
    pub moved_lines: usize,
}

/// Plans the archive of `memory` into `archive_name` (which may already hold
/// `existing_archive` from earlier today). `None` when `memory` is short enough.
///
/// Nothing is dropped: the whole of `memory` goes into the archive. The new
/// `MEMORY.md` keeps the first `# ` heading (when it opens the file) and one line
/// pointing at the archive.
pub fn plan_archive(
    memory: &str,
    existing_archive: Option<&str>,
    archive_name: &str,
    stamp: &str,
) -> Option<Archived> {
    let lines = memory.lines().count();
    if lines <= MEMORY_MAX_LINES {
        return None;
    }
    let mut archive = match existing_archive {
        Some(old) if !old.is_empty() => {
            let mut a = old.to_owned();
            if !a.ends_with('\n') {
                a.push('\n');
            }
            a.push('\n');
            a
        }
        _ => format!("# MEMORY.md archive ({archive_name})\n\n"),
    };
    archive.push_str(&format!("<!-- moved from MEMORY.md at {stamp} -->\n"));
    archive.push_str(memory);
    if !archive.ends_with('\n') {
        archive.push('\n');
    }
    let heading = memory
        .lines()
        .next()
        .filter(|l| l.starts_with("# "))
        .map(|l| format!("{l}\n\n"))
        .unwrap_or_default();
    let memory_new = format!(
        "{heading}- Older memory ({lines} lines) was archived at {stamp}: see [{archive_name}]({archive_name})\n"
    );
    Some(Archived {
        archive,
        memory: memory_new,
        moved_lines: lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_claude_code() {
        assert_eq!(
            project_dir_name("/home/alice/src/my_app.v2"),
            "-home-alice-src-my-app-v2"
        );
        assert_eq!(project_dir_name(r"C:\Users\bob\x"), "C--Users-bob-x");
        assert_eq!(project_dir_name("/tmp/é😀"), "-tmp----");
    }

    #[test]
    fn long_names_get_a_java_hash_suffix() {
        assert_eq!(java_hash(""), 0);
        assert_eq!(java_hash("a"), 97);
        // Known Java values: "hello".hashCode() == 99162322, "polygenelubricants" == i32::MIN.
        assert_eq!(java_hash("hello"), 99_162_322);
        assert_eq!(java_hash("polygenelubricants"), i32::MIN);
        assert_eq!(base36(i64::from(i32::MIN).abs()), "zik0zk");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        let long = format!("/{}", "a".repeat(250));
        let name = project_dir_name(&long);
        let (head, tail) = name.split_at(200);
        assert_eq!(head, format!("-{}", "a".repeat(199)));
        assert_eq!(
            tail,
            format!("-{}", base36(i64::from(java_hash(&long)).abs()))
        );
    }

    #[test]
    fn archive_keeps_everything_and_leaves_a_pointer() {
        let memory: String = std::iter::once("# Project memory\n".to_owned())
            .chain((1..=200).map(|i| format!("- note {i}\n")))
            .collect();
        let a = plan_archive(
            &memory,
            None,
            "archive-2026-11-21.md",
            "2026-11-21T10:00:00Z",
        )
        .unwrap();
        assert!(a.archive.contains(&memory));
        assert_eq!(a.moved_lines, 201);
        assert!(a.memory.starts_with("# Project memory\n"));
        assert!(a.memory.contains("(archive-2026-11-21.md)"));
        assert!(a.memory.lines().count() <= 3);
        // Appending to today's archive keeps what was there.
        let again =
            plan_archive(&memory, Some(&a.archive), "archive-2026-11-21.md", "later").unwrap();
        assert!(again.archive.starts_with(&a.archive));
        assert_eq!(again.archive.matches("- note 200").count(), 2);
        // Short memory: nothing to do.
        assert!(plan_archive("# m\n- a\n", None, "x", "y").is_none());
    }
}
