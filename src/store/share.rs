//! The local cache of the Signals other machines shared through the repository's
//! git remote (docs/share.md), in the repository's inbox home
//! (`store::inbox`): `.forge/share/`.
//!
//! ```text
//! .forge/share/inbox/agent-r<tag>-<name>   each remote entry, cleaned (one folder:
//!                                          the status line stats it once)
//! .forge/share/writers/<tag>.json          each writer: id, machine, commit, its
//!                                          cached names and their branches
//! .forge/share/status.json                 what was last sent and fetched, and
//!                                          the last error (`forge share --status`)
//! .forge/share/lock                        one share run at a time
//! ```
//!
//! Everything here is written by forge from what `crate::app::share` took from a
//! fetched ref under the caps of `model::agents::share`; a file of the inbox folder
//! is an agent handoff like any other to the readers, except that its entry says it
//! is remote (see [`remote_entries`]).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Paths, safe};

/// `.forge/share` of the inbox's home.
pub(crate) fn dir(home: &Paths) -> PathBuf {
    home.forge_dir().join("share")
}

/// The folder of the cached remote entries.
pub(crate) fn inbox_dir(home: &Paths) -> PathBuf {
    dir(home).join("inbox")
}

fn writers_dir(home: &Paths) -> PathBuf {
    dir(home).join("writers")
}

/// The lock of a share run.
pub(crate) fn lock_path(home: &Paths) -> PathBuf {
    dir(home).join("lock")
}

fn status_path(home: &Paths) -> PathBuf {
    dir(home).join("status.json")
}

/// What the cache knows of one writer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct WriterIndex {
    /// Its id (its ref's last part).
    pub(crate) writer: String,
    /// The machine its tree names (cleaned).
    pub(crate) machine: String,
    /// The commit its entries were taken from.
    pub(crate) commit: String,
    /// Its entries' names in the cache, with their branch (empty: unknown).
    pub(crate) names: BTreeMap<String, String>,
}

/// The most bytes of a writer's index read (a thousand names with branches).
const WRITER_INDEX_CAP: u64 = 1024 * 1024;

/// The index of the writer whose tag is `tag`.
pub(crate) fn read_writer(home: &Paths, tag: &str) -> Option<WriterIndex> {
    let bytes = safe::read_capped(
        &writers_dir(home).join(format!("{tag}.json")),
        WRITER_INDEX_CAP,
        safe::Follow::No,
    )
    .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The tags of every writer the cache holds.
pub(crate) fn writer_tags(home: &Paths) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(writers_dir(home)) else {
        return Vec::new();
    };
    let mut tags: Vec<String> = read
        .filter_map(Result::ok)
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix(".json")
                .map(str::to_owned)
        })
        .filter(|t| t.len() == 8 && t.bytes().all(|b| b.is_ascii_hexdigit()))
        .collect();
    tags.sort();
    tags
}

/// Whether the cache may be read: the home passes its check, and `share/` and
/// `share/inbox/` are each missing or a real folder of the user's.
pub(crate) fn sound(home: &Paths) -> bool {
    home.check().is_ok()
        && safe::check_dir(&dir(home)).is_ok()
        && safe::check_dir(&inbox_dir(home)).is_ok()
}

/// The cache's folders, made (each a real folder of the user's, not a link).
fn ready(home: &Paths) -> io::Result<()> {
    home.check().map_err(|r| io::Error::other(r.to_string()))?;
    for d in [dir(home), inbox_dir(home), writers_dir(home)] {
        safe::create_dir_all(&d)?;
        safe::check_dir(&d).map_err(|r| io::Error::other(r.to_string()))?;
    }
    Ok(())
}

/// Replaces what the cache holds of the writer `tag` with `index` and its entries
/// (`files`: cached name and text): the new files written first (each atomically),
/// then the old ones that are gone removed, then the index. A reader in between
/// sees both sets for a moment, never half a file.
pub(crate) fn replace_writer(
    home: &Paths,
    tag: &str,
    index: &WriterIndex,
    files: &[(String, String)],
) -> io::Result<()> {
    ready(home)?;
    let inbox = inbox_dir(home);
    let old = read_writer(home, tag).unwrap_or_default();
    for (name, text) in files {
        if !is_cache_name(name, tag) {
            continue;
        }
        let path = inbox.join(name);
        // Unchanged (same length and bytes): left alone, so its mtime and the status
        // line's cache row stay.
        let same = safe::read_capped(
            &path,
            crate::model::agents::share::MAX_BLOB + 1,
            safe::Follow::No,
        )
        .is_ok_and(|b| b == text.as_bytes());
        if !same {
            // A derived copy (the remote has it): atomic, but not synced, as the
            // other caches.
            super::write_state(&path, text.as_bytes())?;
        }
    }
    for name in old.names.keys().filter(|n| !index.names.contains_key(*n)) {
        if is_cache_name(name, tag) {
            super::remove_if_exists(&inbox.join(name))?;
        }
    }
    super::write_json(&writers_dir(home).join(format!("{tag}.json")), index)
}

/// Removes the writer `tag` from the cache (its ref is gone from the remote).
pub(crate) fn remove_writer(home: &Paths, tag: &str) -> io::Result<()> {
    let old = read_writer(home, tag).unwrap_or_default();
    for name in old.names.keys().filter(|n| is_cache_name(n, tag)) {
        super::remove_if_exists(&inbox_dir(home).join(name))?;
    }
    super::remove_if_exists(&writers_dir(home).join(format!("{tag}.json")))?;
    Ok(())
}

/// Whether `name` is a cached name of the writer `tag` (so a forged index never
/// makes forge write or remove anything else).
fn is_cache_name(name: &str, tag: &str) -> bool {
    name.strip_prefix("agent-r")
        .and_then(|r| r.strip_prefix(tag))
        .is_some_and(|r| r.starts_with('-'))
        && crate::model::agents::share::valid_entry_name(name)
}

/// One act of `forge share` as the status file remembers it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Act {
    /// When (ISO 8601 UTC).
    pub(crate) at: String,
    /// The commit sent, or the writers fetched.
    pub(crate) what: String,
    /// How many Signals.
    pub(crate) entries: usize,
}

/// `.forge/share/status.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Status {
    /// The remote (as the person's config names it).
    pub(crate) remote: String,
    /// This machine's writer id.
    pub(crate) writer: String,
    /// The last publish that reached the remote.
    pub(crate) sent: Option<Act>,
    /// What the last publish sent, summed up: an unchanged set is not pushed again.
    pub(crate) sent_digest: String,
    /// The last fetch that reached the remote.
    pub(crate) fetched: Option<Act>,
    /// The last error, until a run succeeds (said once in the event log).
    pub(crate) error: Option<Act>,
    /// What the last fetch refused or capped (each said once in the event log).
    pub(crate) refused: Vec<String>,
}

/// The status file (default when missing or unreadable).
pub(crate) fn read_status(home: &Paths) -> Status {
    safe::read_capped(&status_path(home), 256 * 1024, safe::Follow::No)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Writes the status file.
pub(crate) fn write_status(home: &Paths, status: &Status) -> io::Result<()> {
    ready(home)?;
    super::write_json(&status_path(home), status)
}

/// Where a remote entry's path is, for the refusals of acts on it (`forge resume`
/// of a remote Signal).
pub(crate) fn is_cached(path: &Path) -> bool {
    let mut it = path.components().rev().skip(1);
    matches!(
        (it.next(), it.next(), it.next()),
        (Some(a), Some(b), Some(c))
            if a.as_os_str() == "inbox" && b.as_os_str() == "share" && c.as_os_str() == ".forge"
    )
}
