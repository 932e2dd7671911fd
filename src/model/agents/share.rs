//! Sharing Signals through the repository's git remote (docs/share.md): the ref
//! layout, what a writer's commit holds and how it is written (a `git fast-import`
//! stream), and what a fetched ref may hold — every rule pure, the git runs and the
//! cache's files are `crate::app::share` and `crate::store::share`.
//!
//! One ref per writer (`refs/forge/signals/<writer>`), each a parentless commit whose
//! tree is flat: [`META`] (who wrote it, on which machine, each entry's branch) and
//! at most [`MAX_PUBLISH`] `agent-*.md` files, each already redacted and at most
//! [`MAX_BLOB`] bytes. Only a writer pushes its own ref, so writers never race.
//!
//! A fetched ref is read as a cloned repository's files are: at most [`MAX_ENTRIES`]
//! entries (more: the whole ref is refused), each a plain blob (mode `100644`; a
//! symlink, a sub-tree or a submodule is refused) of at most [`MAX_BLOB`] bytes
//! (declared by git's tree listing, so a larger blob is never read), named
//! `agent-*.md` with only `[A-Za-z0-9._-]` in the name; its text has every control
//! character but the line break and tab removed before it is stored.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// Where each writer's ref lives on the remote.
pub(crate) const REF_PREFIX: &str = "refs/forge/signals/";
/// Where the fetched refs are kept locally (never pushed).
pub(crate) const FETCHED_PREFIX: &str = "refs/forge/fetched/";
/// The refspec `git fetch` is given.
pub(crate) const FETCH_REFSPEC: &str = "+refs/forge/signals/*:refs/forge/fetched/*";
/// The file of a writer's tree that says who wrote it.
pub(crate) const META: &str = "forge-share.json";
/// The most entries of one fetched ref looked at; a ref with more is refused whole.
pub(crate) const MAX_ENTRIES: usize = 2_000;
/// The most Signals a writer publishes (the newest).
pub(crate) const MAX_PUBLISH: usize = 1_000;
/// The most bytes of one entry, sent or taken.
pub(crate) const MAX_BLOB: u64 = 64 * 1024;
/// The most bytes of [`META`] taken.
pub(crate) const MAX_META: u64 = 512 * 1024;
/// The most writers' refs taken from one remote (the first by name).
pub(crate) const MAX_WRITERS: usize = 256;
/// The longest entry name taken.
pub(crate) const MAX_NAME: usize = 160;
/// The longest writer, machine or branch name kept.
pub(crate) const MAX_FIELD: usize = 64;

/// Whether `c` may be in a writer id or an entry name.
fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// A writer id as a ref name's last part: 1–64 of `[A-Za-z0-9._-]`, not starting
/// with `.` or `-`, no `..`, not ending in `.lock`.
pub(crate) fn valid_writer(w: &str) -> bool {
    !w.is_empty()
        && w.len() <= MAX_FIELD
        && w.chars().all(name_char)
        && !w.starts_with(['.', '-'])
        && !w.contains("..")
        && !w.ends_with(".lock")
}

/// A shared entry's name: an agent handoff's (`agent-*.md`), only `[A-Za-z0-9._-]`,
/// at most [`MAX_NAME`] bytes.
pub(crate) fn valid_entry_name(n: &str) -> bool {
    n.len() <= MAX_NAME
        && n.starts_with("agent-")
        && n.ends_with(".md")
        && n.len() > "agent-.md".len()
        && n.chars().all(name_char)
}

/// A writer id from a machine name and a few random-ish bits: the machine name's
/// name characters (at most 40), `-`, eight hex digits.
pub(crate) fn writer_id(machine: &str, seed: u64) -> String {
    let mut base: String = machine
        .chars()
        .map(|c| if name_char(c) { c } else { '-' })
        .take(40)
        .collect();
    base = base.trim_matches(['.', '-']).replace("..", ".");
    if base.is_empty() {
        base.push_str("machine");
    }
    format!("{base}-{:08x}", seed & 0xffff_ffff)
}

/// A short, stable tag of a writer id (FNV-1a, eight hex digits): the prefix that
/// keeps two writers' entries of the same name apart in the local cache.
pub(crate) fn writer_tag(writer: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in writer.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", h & 0xffff_ffff)
}

/// The name of a remote entry in the local cache: `agent-r<tag>-<rest>` (an agent
/// handoff's name still, its stamp where it was).
pub(crate) fn cached_name(tag: &str, name: &str) -> String {
    let rest = name.strip_prefix("agent-").unwrap_or(name);
    format!("agent-r{tag}-{rest}")
}

/// A field from a remote (writer, machine, branch) as it is kept: one line, no
/// control or bidi character, at most [`MAX_FIELD`] characters.
pub(crate) fn clean_field(s: &str) -> String {
    crate::model::text::sanitize::cut_chars(
        crate::model::text::sanitize::single_line(s).trim(),
        MAX_FIELD,
    )
}

/// A remote entry's text as it is stored: lossy UTF-8, every control character
/// but the line break and tab removed (escape sequences whole).
pub(crate) fn clean_text(bytes: &[u8]) -> String {
    crate::model::text::sanitize::clean(&String::from_utf8_lossy(bytes)).into_owned()
}

/// What [`META`] says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Meta {
    /// The format (1).
    pub(crate) v: u32,
    /// The writer's id (its ref's last part).
    pub(crate) writer: String,
    /// The machine it runs on.
    pub(crate) machine: String,
    /// Each entry's branch, by name.
    pub(crate) branches: BTreeMap<String, String>,
}

impl Meta {
    /// The meta of a fetched ref, cleaned: every field [`clean_field`]ed, the
    /// writer taken from the ref's name (what the tree claims is not believed).
    pub(crate) fn cleaned(self, writer: &str) -> Self {
        Self {
            v: self.v,
            writer: writer.to_owned(),
            machine: clean_field(&self.machine),
            branches: self
                .branches
                .into_iter()
                .filter(|(n, _)| valid_entry_name(n))
                .map(|(n, b)| (n, clean_field(&b)))
                .collect(),
        }
    }
}

/// One entry a writer publishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outgoing {
    /// Its file name (checked with [`valid_entry_name`]).
    pub(crate) name: String,
    /// Its text, redacted and cut to [`MAX_BLOB`].
    pub(crate) text: String,
    /// The branch it was written on.
    pub(crate) branch: Option<String>,
}

/// `text` cut to at most `max` bytes on a character boundary.
pub(crate) fn cut_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("")
}

/// The `git fast-import` stream that makes `refname` a new parentless commit whose
/// tree is `entries` (their names checked, at most [`MAX_PUBLISH`]) and their
/// [`META`]. `unix` is the commit's time.
pub(crate) fn fast_import_stream(
    refname: &str,
    writer: &str,
    machine: &str,
    entries: &[Outgoing],
    unix: i64,
) -> Vec<u8> {
    use crate::model::text::redact::{first_secret, redact};
    // Nothing unredacted leaves the machine: a name with a secret in it (a task id
    // an agent made of a token) is left out, the machine and branches redacted.
    let entries: Vec<&Outgoing> = entries
        .iter()
        .filter(|e| valid_entry_name(&e.name) && first_secret(&e.name).is_none())
        .take(MAX_PUBLISH)
        .collect();
    let meta = Meta {
        v: 1,
        writer: writer.to_owned(),
        machine: clean_field(&redact(machine)),
        branches: entries
            .iter()
            .filter_map(|e| Some((e.name.clone(), clean_field(&redact(e.branch.as_deref()?)))))
            .collect(),
    };
    let meta = serde_json::to_string(&meta).unwrap_or_default();
    let message = format!("forge share: {} Signals from {writer}\n", entries.len());
    let mut out = Vec::with_capacity(entries.iter().map(|e| e.text.len() + 64).sum());
    let mut head = String::new();
    let _ = write!(
        head,
        "commit {refname}\ncommitter forge <forge@localhost> {unix} +0000\ndata {}\n{message}deleteall\n",
        message.len()
    );
    out.extend_from_slice(head.as_bytes());
    let mut file = |name: &str, text: &str| {
        out.extend_from_slice(format!("M 100644 inline {name}\ndata {}\n", text.len()).as_bytes());
        out.extend_from_slice(text.as_bytes());
        out.push(b'\n');
    };
    file(META, &meta);
    for e in entries {
        file(
            &e.name,
            cut_bytes(&e.text, usize::try_from(MAX_BLOB).unwrap_or(usize::MAX)),
        );
    }
    out.extend_from_slice(b"done\n");
    out
}

/// One line of `git ls-tree -l -z`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    /// Its mode (`100644`, `100755`, `120000`, `040000`, `160000`).
    pub(crate) mode: String,
    /// `blob`, `tree` or `commit`.
    pub(crate) kind: String,
    /// Its object id.
    pub(crate) oid: String,
    /// Its size (`None` for a tree or a submodule).
    pub(crate) size: Option<u64>,
    /// Its name, as bytes.
    pub(crate) name: Vec<u8>,
}

/// The entries of `git ls-tree -l -z` output; `None` when it is not that format.
pub(crate) fn parse_ls_tree(out: &[u8]) -> Option<Vec<TreeEntry>> {
    let mut entries = Vec::new();
    for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let tab = record.iter().position(|&b| b == b'\t')?;
        let (head, name) = (record.get(..tab)?, record.get(tab + 1..)?);
        let head = std::str::from_utf8(head).ok()?;
        let mut it = head.split_whitespace();
        let (mode, kind, oid, size) = (it.next()?, it.next()?, it.next()?, it.next()?);
        if !oid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        entries.push(TreeEntry {
            mode: mode.to_owned(),
            kind: kind.to_owned(),
            oid: oid.to_owned(),
            size: size.parse().ok(),
            name: name.to_vec(),
        });
    }
    Some(entries)
}

/// Why an entry of a fetched ref is not taken (`None`: taken).
pub(crate) fn refuse_entry(e: &TreeEntry) -> Option<String> {
    let shown = crate::model::text::sanitize::cut_chars(
        &String::from_utf8_lossy(&e.name).escape_debug().to_string(),
        80,
    );
    if e.kind != "blob" {
        return Some(format!("{shown}: a {} is not a Signal", e.kind));
    }
    if e.mode == "120000" {
        return Some(format!("{shown}: a symbolic link is not a Signal"));
    }
    if e.mode != "100644" && e.mode != "100755" {
        return Some(format!("{shown}: mode {} is not a plain file", e.mode));
    }
    let Ok(name) = std::str::from_utf8(&e.name) else {
        return Some(format!("{shown}: the name is not UTF-8"));
    };
    if name != META && !valid_entry_name(name) {
        return Some(format!(
            "{shown}: not an agent handoff's name (agent-*.md, letters, digits, . _ -)"
        ));
    }
    let cap = if name == META { MAX_META } else { MAX_BLOB };
    match e.size {
        Some(s) if s <= cap => None,
        Some(s) => Some(format!("{shown}: {s} bytes, more than the {cap} taken")),
        None => Some(format!("{shown}: no size")),
    }
}

/// The objects of `git cat-file --batch` output, in order: each id and its bytes;
/// `None` when it is not that format (a missing object ends the list there).
pub(crate) fn parse_batch(out: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut objects = Vec::new();
    let mut rest = out;
    while !rest.is_empty() {
        let nl = rest.iter().position(|&b| b == b'\n')?;
        let head = std::str::from_utf8(rest.get(..nl)?).ok()?;
        let mut it = head.split(' ');
        let oid = it.next()?.to_owned();
        let kind = it.next()?;
        if kind == "missing" {
            return Some(objects);
        }
        let size: usize = it.next()?.parse().ok()?;
        let body = rest.get(nl + 1..nl + 1 + size)?;
        objects.push((oid, body.to_vec()));
        rest = rest.get(nl + 1 + size + 1..).unwrap_or(&[]);
    }
    Some(objects)
}

/// Whether a writer publishes an entry of its own: not one resolved (superseded)
/// longer ago than `retention_days` (its age from `age_days`; unknown: kept).
pub(crate) fn keeps(superseded: bool, age_days: Option<i64>, retention_days: u32) -> bool {
    !(superseded && age_days.is_some_and(|a| a > i64::from(retention_days)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_writers_are_checked() {
        assert!(valid_writer("box-1a2b3c4d"));
        for bad in [
            "",
            ".x",
            "-x",
            "a..b",
            "a/b",
            "a b",
            "x.lock",
            &"w".repeat(65),
        ] {
            assert!(!valid_writer(bad), "{bad:?}");
        }
        assert!(valid_entry_name("agent-T-1-20261121-101502.md"));
        for bad in [
            "agent-.md",
            "handoff-20261121-101502.md",
            "agent-a\u{1b}[2J.md",
            "agent-a/b.md",
            "agent-a b.md",
            "../agent-x.md",
        ] {
            assert!(!valid_entry_name(bad), "{bad:?}");
        }
        let w = writer_id("my box.local", 0x1_2345_6789);
        assert_eq!(w, "my-box.local-23456789");
        assert!(valid_writer(&w));
        assert!(valid_writer(&writer_id("..", 1)));
        assert_eq!(writer_tag(&w).len(), 8);
        assert_ne!(writer_tag("a-1"), writer_tag("a-2"));
        let name = cached_name("0badcafe", "agent-T-1-20261121-101502.md");
        assert_eq!(name, "agent-r0badcafe-T-1-20261121-101502.md");
        assert_eq!(
            crate::model::handoff::entry::stamp_id(&name),
            Some("20261121-101502")
        );
        assert_eq!(clean_field("ma\u{1b}[31mchine\nx"), "machine x");
        assert_eq!(clean_text(b"a\x1b[2Jb\x07\n\tc"), "ab\n\tc");
    }

    #[test]
    fn the_stream_makes_one_commit_of_the_checked_entries() {
        let entries = vec![
            Outgoing {
                name: "agent-T-1-20261121-101502.md".into(),
                text: "é".repeat(40_000),
                branch: Some("feat\nx".into()),
            },
            Outgoing {
                name: "agent-../x.md".into(),
                text: "no".into(),
                branch: None,
            },
            Outgoing {
                name: "agent-ghp_ABCDEFGHIJKLMNOPQRSTuvwxyz0123456789-20261121-101502.md".into(),
                text: "a task id made of a token".into(),
                branch: None,
            },
        ];
        let s = fast_import_stream(
            "refs/forge/signals/w-1",
            "w-1",
            "box",
            &entries,
            1_700_000_000,
        );
        let s = String::from_utf8(s).unwrap();
        assert!(s.starts_with(
            "commit refs/forge/signals/w-1\ncommitter forge <forge@localhost> 1700000000 +0000\n"
        ));
        assert!(s.contains("deleteall\nM 100644 inline forge-share.json\n"));
        assert!(s.contains("\"branches\":{\"agent-T-1-20261121-101502.md\":\"feat x\"}"));
        assert!(
            !s.contains("agent-../x.md"),
            "an unchecked name is left out"
        );
        assert!(!s.contains("ghp_"), "a name with a secret is left out");
        // Cut to the cap, on a character boundary.
        let data = s
            .split("inline agent-T-1-20261121-101502.md\ndata ")
            .nth(1)
            .unwrap();
        let n: usize = data.split('\n').next().unwrap().parse().unwrap();
        assert_eq!(n, 65_536);
        assert!(s.ends_with("\ndone\n"));
    }

    #[test]
    fn a_fetched_tree_is_taken_entry_by_entry() {
        let out = b"100644 blob 0123abcd     120\tagent-T-1-20261121-101502.md\0\
                    120000 blob 0123abce      10\tagent-link-20261121-101502.md\0\
                    040000 tree 0123abcf       -\tagent-dir-20261121-101502.md\0\
                    100644 blob 0123abd0 1073741824\tagent-big-20261121-101502.md\0\
                    100644 blob 0123abd1      10\tagent-\x1b[2J-20261121-101502.md\0\
                    160000 commit 0123abd2       -\tsub\0";
        let entries = parse_ls_tree(out).unwrap();
        assert_eq!(entries.len(), 6);
        let why: Vec<Option<String>> = entries.iter().map(refuse_entry).collect();
        assert_eq!(why[0], None);
        assert!(why[1].as_deref().unwrap().contains("symbolic link"));
        assert!(why[2].as_deref().unwrap().contains("a tree"));
        assert!(why[3].as_deref().unwrap().contains("1073741824 bytes"));
        let ctl = why[4].as_deref().unwrap();
        assert!(
            ctl.contains("not an agent handoff's name") && !ctl.contains('\u{1b}'),
            "{ctl}"
        );
        assert!(why[5].as_deref().unwrap().contains("a commit"));
        assert!(parse_ls_tree(b"garbage\0").is_none());
    }

    #[test]
    fn batch_output_is_read_object_by_object() {
        let out = b"aa blob 3\nabc\nbb blob 0\n\ncc missing\n";
        let objects = parse_batch(out).unwrap();
        assert_eq!(
            objects,
            [("aa".into(), b"abc".to_vec()), ("bb".into(), vec![])]
        );
        assert!(parse_batch(b"aa blob 10\nabc\n").is_none(), "cut short");
    }

    #[test]
    fn resolved_entries_older_than_the_retention_are_not_published() {
        assert!(keeps(false, Some(400), 14), "unresolved: kept");
        assert!(keeps(true, Some(3), 14), "resolved lately: kept");
        assert!(!keeps(true, Some(15), 14));
        assert!(keeps(true, None, 14));
    }
}
