//! Claude Code's per-project memory folder and `MEMORY.md` housekeeping.
//!
//! Claude Code keeps a project's data in `<claude dir>/projects/<name>/`, where
//! `<name>` is the project's real path with every character that is not an ASCII letter
//! or digit replaced by `-` (docs/client-reference.md §6.1). Names longer than 200
//! characters are cut to 200 and given a hash suffix. `forge learn` and `forge doctor`
//! use this to find `memory/MEMORY.md` and the `learned-*.md` pattern files.

use std::fmt::Write as _;

/// `MEMORY.md` longer than this is archived by `forge learn archive`.
pub(crate) const MEMORY_MAX_LINES: usize = 180;

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
pub(crate) fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, u| {
        h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u))
    })
}

/// A non-negative number in base 36 (lowercase), as JavaScript's `toString(36)`.
pub(crate) fn base36(mut n: i64) -> String {
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
pub(crate) struct Archived {
    /// The archive file's full new text (old archive text, if any, kept first).
    pub(crate) archive: String,
    /// The `MEMORY.md` left behind: its heading, a pointer to the archives, and its
    /// newest lines.
    pub(crate) memory: String,
    /// How many lines moved.
    pub(crate) moved_lines: usize,
}

/// The pointer line `forge learn archive` leaves in `MEMORY.md`.
const POINTER: &str = "- Older memory was archived by `forge learn archive`: see ";

/// Plans the archive of `memory` into `archive_name` (which may already hold
/// `existing_archive` from earlier today), so that `MEMORY.md` has at most `limit`
/// lines. `None` when it already has.
///
/// Claude Code reads `MEMORY.md` from the top and /forge-learn appends to it, so the
/// newest lines are the last ones: they stay, and the older ones move to the
/// archive, whole lines only, never cutting into an indented continuation. The
/// first `# ` heading stays on top, with one pointer line naming every archive
/// (earlier pointers are merged into it, not archived).
pub(crate) fn plan_archive(
    memory: &str,
    existing_archive: Option<&str>,
    archive_name: &str,
    stamp: &str,
    limit: usize,
) -> Option<Archived> {
    let lines: Vec<&str> = memory.lines().collect();
    if lines.len() <= limit {
        return None;
    }
    let heading = lines.first().filter(|l| l.starts_with("# ")).copied();
    let body = &lines[usize::from(heading.is_some())..];
    // Earlier pointers: their archive names join the new pointer.
    let mut archives: Vec<String> = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    for l in body {
        match l.strip_prefix(POINTER) {
            Some(names) => {
                for n in names.split(", ") {
                    let n = n.trim().trim_end_matches('.');
                    if let Some(name) = n.strip_prefix('[').and_then(|n| n.split(']').next())
                        && !archives.iter().any(|a| a == name)
                    {
                        archives.push(name.to_owned());
                    }
                }
            }
            // The blank line under the heading is not content.
            None if rest.is_empty() && l.trim().is_empty() => {}
            None => rest.push(l),
        }
    }
    if !archives.iter().any(|a| a == archive_name) {
        archives.push(archive_name.to_owned());
    }
    let pointer = format!(
        "{POINTER}{}.",
        archives
            .iter()
            .map(|a| format!("[{a}]({a})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Heading, a blank line, the pointer: the rest of the room is for the newest lines.
    let fixed = if heading.is_some() { 3 } else { 1 };
    let room = limit.saturating_sub(fixed);
    let mut cut = rest.len().saturating_sub(room);
    // Never start the kept part inside an entry (an indented continuation line).
    while cut < rest.len() && rest[cut].starts_with([' ', '\t']) {
        cut += 1;
    }
    let (moved, kept) = rest.split_at(cut);
    if moved.is_empty() {
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
    let _ = writeln!(archive, "<!-- moved from MEMORY.md at {stamp} -->");
    for l in moved {
        archive.push_str(l);
        archive.push('\n');
    }
    let mut memory_new = String::new();
    if let Some(h) = heading {
        memory_new.push_str(h);
        memory_new.push_str("\n\n");
    }
    memory_new.push_str(&pointer);
    memory_new.push('\n');
    for l in kept {
        memory_new.push_str(l);
        memory_new.push('\n');
    }
    Some(Archived {
        archive,
        memory: memory_new,
        moved_lines: moved.len(),
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
    fn archive_keeps_the_newest_lines_under_the_limit() {
        let memory: String = std::iter::once("# Project memory\n".to_owned())
            .chain((1..=200).map(|i| format!("- note {i}\n")))
            .collect();
        let a = plan_archive(
            &memory,
            None,
            "archive-2026-11-21.md",
            "2026-11-21T10:00:00Z",
            180,
        )
        .unwrap();
        let kept: Vec<&str> = a.memory.lines().collect();
        assert_eq!(kept.len(), 180);
        assert_eq!(kept[0], "# Project memory");
        assert!(kept[2].contains("[archive-2026-11-21.md](archive-2026-11-21.md)"));
        // The newest (last) notes stay, the oldest moved: nothing is lost.
        assert_eq!(*kept.last().unwrap(), "- note 200");
        assert_eq!(kept[3], "- note 24");
        assert_eq!(a.moved_lines, 23);
        assert!(a.archive.contains("- note 1\n") && a.archive.contains("- note 23\n"));
        assert!(!a.archive.contains("- note 24\n"));
        for i in 1..=200 {
            let line = format!("- note {i}\n");
            assert_eq!(
                a.archive.matches(&line).count() + a.memory.matches(&line).count(),
                1,
                "{line}"
            );
        }
        // Again, later, with a smaller limit: today's archive grows, one pointer stays.
        let again = plan_archive(
            &a.memory,
            Some(&a.archive),
            "archive-2026-11-22.md",
            "later",
            100,
        )
        .unwrap();
        assert!(again.archive.starts_with(&a.archive));
        assert_eq!(again.memory.lines().count(), 100);
        assert_eq!(again.memory.matches("forge learn archive").count(), 1);
        assert!(again.memory.contains("[archive-2026-11-21.md]"));
        assert!(again.memory.contains("[archive-2026-11-22.md]"));
        assert!(!again.archive.contains("forge learn archive`: see"));
        // Short memory: nothing to do.
        assert!(plan_archive("# m\n- a\n", None, "x", "y", 180).is_none());
    }

    #[test]
    fn archive_never_splits_an_entry() {
        let memory = "- a\n  more a\n- b\n  more b\n- c\n";
        let a = plan_archive(memory, None, "x.md", "t", 3).unwrap();
        // Room for two lines after the pointer would start at "  more b": the cut
        // moves on to the next entry.
        assert_eq!(
            a.memory,
            "- Older memory was archived by `forge learn archive`: see [x.md](x.md).\n- c\n"
        );
        assert!(a.archive.contains("- b\n  more b\n"));
    }
}
