//! Handoff files: session handoffs (`handoff-YYYYMMDD-HHMMSS*.md`) and agent handoffs
//! (`agent-{TASK}-{YYYYMMDD-HHMMSS}*.md`), their names, front matter and order.
//!
//! "Newer" compares the timestamps in file names; front matter `created_at` or the
//! file's mtime are used only when a name carries none.

use std::collections::BTreeMap;
use std::path::PathBuf;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use serde::Serialize;

use super::signal::{AgentHeader, SignalParse};

/// Session handoff or agent handoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HandoffKind {
    /// `handoff-*.md`, written by `forge handoff`.
    Session,
    /// `agent-*.md`, written by `forge signal` or an agent.
    Agent,
}

impl HandoffKind {
    /// Classifies a file name; `None` for anything that is not a handoff.
    /// No `handoff-*` name is ever an agent file and vice versa.
    pub(crate) fn of_file_name(name: &str) -> Option<Self> {
        if !name.ends_with(".md") {
            return None;
        }
        if name.starts_with("handoff-") {
            Some(Self::Session)
        } else if name.starts_with("agent-") {
            Some(Self::Agent)
        } else {
            None
        }
    }
    /// `"session"` or `"agent"`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Session => "session",
            Self::Agent => "agent",
        }
    }
}

/// YAML-style `key: value` front matter between `---` lines (flat; values as text).
pub(crate) type FrontMatter = BTreeMap<String, String>;

/// Front matter as a [`HandoffEntry`] keeps it: the keys and values of a
/// [`FrontMatter`] (sorted by key, each key once) in one buffer. A map of `String`s
/// costs a tree node and two allocations a key — about a kilobyte for a session
/// handoff — and a dashboard keeps one per handoff, thousands of them. Serialised as
/// the same JSON object the map gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Front {
    /// Every key followed by its value, in key order.
    text: Box<str>,
    /// For each entry, where its key ends and where its value ends in `text` (a key
    /// starts where the previous value ends).
    ends: Box<[(u32, u32)]>,
}

impl Front {
    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let (mut lo, mut hi) = (0, self.ends.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (k, v) = self.entry(mid)?;
            match k.cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(v),
            }
        }
        None
    }

    /// The entries, in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        (0..self.ends.len()).filter_map(|i| self.entry(i))
    }

    /// How many keys.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// No front matter.
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Entry `i`: its key and value.
    fn entry(&self, i: usize) -> Option<(&str, &str)> {
        let start = match i.checked_sub(1) {
            Some(prev) => self.ends.get(prev)?.1 as usize,
            None => 0,
        };
        let (k, v) = *self.ends.get(i)?;
        Some((
            self.text.get(start..k as usize)?,
            self.text.get(k as usize..v as usize)?,
        ))
    }
}

impl Front {
    /// Only the entries whose key is one of `keys`.
    pub(crate) fn only(&self, keys: &[&str]) -> Self {
        Self::from(
            self.iter()
                .filter(|(k, _)| keys.contains(k))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect::<FrontMatter>(),
        )
    }
}

/// The front matter keys the inbox reads (see [`HandoffEntry::for_inbox`]).
const INBOX_FRONT_KEYS: [&str; 4] = ["trigger", "branch", "uncommitted_changes", "forge_task"];

impl From<FrontMatter> for Front {
    fn from(map: FrontMatter) -> Self {
        let mut text = String::with_capacity(map.iter().map(|(k, v)| k.len() + v.len()).sum());
        let mut ends = Vec::with_capacity(map.len());
        for (k, v) in &map {
            let start = text.len();
            text.push_str(k);
            let key_end = text.len();
            text.push_str(v);
            match (u32::try_from(key_end), u32::try_from(text.len())) {
                (Ok(k), Ok(v)) => ends.push((k, v)),
                // Past 4 GiB of front matter (never: handoffs are read capped).
                _ => text.truncate(start),
            }
        }
        Self {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }
}

impl Serialize for Front {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Splits a document into its front matter (when it opens with `---`) and its body.
pub fn split_front_matter(text: &str) -> (FrontMatter, &str) {
    let mut fm = FrontMatter::new();
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (fm, text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        offset += line.len();
        let trimmed = line.trim_end();
        if trimmed == "---" {
            return (fm, rest.get(offset..).unwrap_or(""));
        }
        if let Some((k, v)) = trimmed.split_once(':') {
            fm.insert(k.trim().to_owned(), unquote(v.trim()));
        }
    }
    // No closing fence: not front matter after all.
    (FrontMatter::new(), text)
}

/// A front matter value as text. A YAML double-quoted value loses its quotes and
/// has its backslash escapes undone (`\"`, `\\`, `\n`, `\t`, `\r`, `\0`, `\uXXXX`;
/// any other escaped character stands for itself); a single-quoted one loses its
/// quotes and has `''` turned back into `'`; anything else has stray surrounding
/// quotes trimmed, as before.
pub(crate) fn unquote(v: &str) -> String {
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        let inner = v.get(1..v.len() - 1).unwrap_or("");
        if !inner.contains('\\') {
            return inner.to_owned();
        }
        let mut out = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('0') => out.push('\0'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => {
                            out.push_str("\\u");
                            out.push_str(&hex);
                        }
                    }
                }
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        return out;
    }
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        return v.get(1..v.len() - 1).unwrap_or("").replace("''", "'");
    }
    // An unterminated quoted value (hand-edited front matter) loses its opening quote;
    // a plain scalar is read as written (`fix "pool"` keeps its quotes).
    v.strip_prefix(['"', '\'']).unwrap_or(v).to_owned()
}

/// Whether `w` has the shape `YYYYMMDD-HHMMSS`.
fn is_stamp(w: &[u8]) -> bool {
    w.len() == 15
        && w.iter().enumerate().all(|(i, b)| {
            if i == 8 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
}

/// The `YYYYMMDD-HHMMSS` stamp in a handoff file name (the last one in the name, so a
/// task id containing digits and dashes does not confuse it), as UTC.
pub(crate) fn stamp_from_file_name(name: &str) -> Option<DateTime<Utc>> {
    let bytes = name.as_bytes();
    let pos = (0..bytes.len().saturating_sub(14))
        .rev()
        .find(|&i| bytes.get(i..i + 15).is_some_and(is_stamp))?;
    let s = name.get(pos..pos + 15)?;
    let naive = NaiveDateTime::parse_from_str(s, "%Y%m%d-%H%M%S").ok()?;
    Some(Utc.from_utc_datetime(&naive))
}

/// A handoff's id, which does not shift when other handoffs land: the stamp of its
/// file name with any same-second suffix (`handoff-20261121-094500-2.md` →
/// `20261121-094500-2`). `forge resume` accepts it.
pub(crate) fn stamp_id(name: &str) -> Option<&str> {
    let bytes = name.as_bytes();
    let pos = (0..bytes.len().saturating_sub(14))
        .rev()
        .find(|&i| bytes.get(i..i + 15).is_some_and(is_stamp))?;
    let rest = name.get(pos..)?;
    Some(rest.strip_suffix(".md").unwrap_or(rest))
}

/// The one order handoffs are shown in — `forge resume`'s numbered list, `forge
/// status` and the dashboard: unresolved blocked Signals first, then newest first.
/// Returns indices into `entries` (which must be newest first, as listed).
pub(crate) fn inbox_order(entries: &[HandoffEntry]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|i| !entries[*i].is_blocked());
    order
}

/// The handoffs `id` names: those whose [`stamp_id`] is `id`, else those whose
/// stamp id starts with it (so `20261121-0945` works while it is unique).
pub(crate) fn by_stamp_id<'a>(entries: &'a [HandoffEntry], id: &str) -> Vec<&'a HandoffEntry> {
    let id = id.trim();
    let exact: Vec<&HandoffEntry> = entries
        .iter()
        .filter(|e| stamp_id(&e.file_name) == Some(id))
        .collect();
    if !exact.is_empty() || id.is_empty() {
        return exact;
    }
    entries
        .iter()
        .filter(|e| stamp_id(&e.file_name).is_some_and(|s| s.starts_with(id)))
        .collect()
}

/// The first `# ` heading of a body, without the `#`.
pub(crate) fn title_of(body: &str) -> Option<String> {
    body.lines()
        .map(str::trim)
        .find(|l| l.starts_with("# ") || l.starts_with("## "))
        .map(|l| l.trim_start_matches('#').trim().to_owned())
}

/// Where an agent handoff came from: the work tree it was written in, and that work
/// tree's branch then (docs/design.md#agent-handoffs-and-signals). Several work trees
/// of one repository share one inbox (`store::inbox`), so a Signal says which one
/// asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Origin {
    /// The work tree's folder (absolute, as written).
    pub(crate) worktree: String,
    /// Its branch when the Signal was written (`None`: unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// Set when it came through the repository's git remote (docs/share.md): who
    /// published it, from which machine. Such a Signal is shown, never acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) remote: Option<Remote>,
}

/// The writer and machine a remote Signal came from (cleaned when fetched).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Remote {
    /// The writer's id (its ref's last part).
    pub(crate) writer: String,
    /// The machine it said it runs on.
    pub(crate) machine: String,
}

impl Origin {
    /// The origin an agent header names (`Worktree:`, `Branch:`), if it names one.
    pub(crate) fn of_header(h: &AgentHeader) -> Option<Self> {
        let worktree = h.worktree.as_deref()?.trim();
        (!worktree.is_empty()).then(|| Self {
            remote: None,
            worktree: worktree.to_owned(),
            branch: h
                .branch
                .as_deref()
                .map(str::trim)
                .filter(|b| !b.is_empty())
                .map(str::to_owned),
        })
    }

    /// `worktree /src/app-b (branch feat/b)`; a remote one: `remote writer
    /// box-1a2b3c4d on machine box (branch feat/b)`.
    pub(crate) fn words(&self) -> String {
        if let Some(r) = &self.remote {
            let branch = self
                .branch
                .as_deref()
                .map(|b| format!(" (branch {b})"))
                .unwrap_or_default();
            return format!(
                "remote writer {} on machine {}{branch}",
                r.writer, r.machine
            );
        }
        match &self.branch {
            Some(b) => format!("worktree {} (branch {b})", self.worktree),
            None => format!("worktree {}", self.worktree),
        }
    }
}

/// One handoff file, parsed.
#[derive(Debug, Clone, Serialize)]
pub struct HandoffEntry {
    /// Absolute path.
    pub(crate) path: PathBuf,
    /// File name.
    pub(crate) file_name: String,
    /// Session or agent.
    pub(crate) kind: HandoffKind,
    /// When it was written: name stamp, else `created_at`/`Timestamp`, else mtime.
    pub(crate) created: Option<DateTime<Utc>>,
    /// Front matter (session handoffs).
    pub(crate) front: Front,
    /// The first heading.
    pub(crate) title: Option<String>,
    /// Agent header lines (agent handoffs). Boxed: most entries of a large inbox are
    /// agent handoffs whose valid Signal says the same, and [`HandoffEntry::for_inbox`]
    /// drops it for those — a box is 8 bytes in every entry, the header 120.
    pub(crate) header: Option<Box<AgentHeader>>,
    /// The Signal (agent handoffs only).
    pub(crate) signal: Option<SignalParse>,
    /// The file name of the newer Signal of the same task that is this task's state
    /// now (agent handoffs only; see [`link_threads`]). A superseded Signal is history:
    /// shown, never counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) superseded_by: Option<String>,
    /// Where an agent handoff came from: its `Worktree:` and `Branch:` lines, else
    /// (set by `store::inbox`) the other work tree whose folder holds it. Boxed: most
    /// entries of a large inbox have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<Box<Origin>>,
}

impl HandoffEntry {
    /// Builds an entry from a file's name, text and mtime.
    pub fn parse(path: PathBuf, text: &str, mtime: Option<DateTime<Utc>>) -> Option<Self> {
        let file_name = path.file_name()?.to_str()?.to_owned();
        let kind = HandoffKind::of_file_name(&file_name)?;
        let (front, body) = split_front_matter(text);
        let (header, signal) = match kind {
            HandoffKind::Agent => {
                let mut header = super::signal::parse_header(body);
                if header.task.is_none() {
                    // A Signal that failed validation may still name its task.
                    header.task = super::signal::lenient_task_id(body);
                }
                (
                    Some(Box::new(header)),
                    Some(super::signal::parse_signal(body)),
                )
            }
            HandoffKind::Session => (None, None),
        };
        let created = stamp_from_file_name(&file_name)
            .or_else(|| {
                front
                    .get("created_at")
                    .and_then(|s| crate::model::time::parse_iso(s))
            })
            .or_else(|| {
                header
                    .as_ref()
                    .and_then(|h| h.timestamp.as_deref())
                    .and_then(crate::model::time::parse_iso)
            })
            .or(mtime);
        let origin = header.as_deref().and_then(Origin::of_header).map(Box::new);
        Some(Self {
            path,
            file_name,
            kind,
            created,
            title: title_of(body),
            front: front.into(),
            header,
            signal,
            superseded_by: None,
            origin,
        })
    }

    /// The entry as the dashboard's inbox keeps it, thousands at a time: what no row,
    /// filter, order or preview pin reads is dropped. That is the agent header when
    /// the Signal is valid (the Signal names the task and the route then; a malformed
    /// one keeps its header), the Signal's file and question lists (their count
    /// stays), an agent handoff's heading (a row shows its route, and the `/` filter
    /// finds the heading in the body it searches), and front matter other than the
    /// keys rows, the filter and drift read
    /// (`trigger`, `branch`, `uncommitted_changes`, `forge_task`). The preview and the
    /// `/` filter read the file itself; `forge status --json`, the hooks and every
    /// command keep whole entries.
    pub(crate) fn for_inbox(mut self) -> Self {
        if let Some(SignalParse::Valid(signal)) = &mut self.signal {
            self.header = None;
            signal.files_modified = Vec::new();
            signal.open_questions = Vec::new();
        }
        if self.kind == HandoffKind::Agent {
            // Never shown (a row shows the route); `/` finds it in the body.
            self.title = None;
        }
        if !self.front.is_empty() {
            self.front = self.front.only(&INBOX_FRONT_KEYS);
        }
        self
    }

    /// The title the inbox shows: a session handoff's heading without its "Session
    /// handoff — " prefix; `None` for agent handoffs (their route says more).
    pub(crate) fn display_title(&self) -> Option<&str> {
        match self.kind {
            HandoffKind::Session => self.title.as_deref().map(|t| {
                t.strip_prefix("Session handoff — ")
                    .or_else(|| t.strip_prefix("Session handoff"))
                    .unwrap_or(t)
                    .trim()
            }),
            HandoffKind::Agent => None,
        }
    }

    /// The task this handoff is about: Signal task id, header `Task:`, or front matter.
    pub(crate) fn task(&self) -> Option<&str> {
        self.signal
            .as_ref()
            .and_then(SignalParse::signal)
            .map(|s| s.task_id.as_str())
            .or_else(|| self.header.as_ref().and_then(|h| h.task.as_deref()))
            .or_else(|| self.front.get("forge_task"))
    }

    /// Whether this is an agent handoff whose Signal blocks and is still its task's
    /// state: an unresolved blocked Signal, the only kind anything counts.
    pub(crate) fn is_blocked(&self) -> bool {
        self.signal_blocks() && self.superseded_by.is_none()
    }

    /// Whether the Signal itself says it blocks, resolved later or not.
    pub(crate) fn signal_blocks(&self) -> bool {
        self.signal.as_ref().is_some_and(SignalParse::is_blocked)
    }

    /// Whether it came through the repository's git remote (docs/share.md): shown,
    /// never acted on.
    pub(crate) fn is_remote(&self) -> bool {
        self.origin.as_deref().is_some_and(|o| o.remote.is_some())
    }

    /// Whether another Signal of its task supersedes it.
    pub(crate) fn is_superseded(&self) -> bool {
        self.superseded_by.is_some()
    }

    /// complete / partial / blocked / malformed for agents (`resolved` for a blocked
    /// Signal a newer one of its task superseded); the trigger for sessions.
    pub(crate) fn status_word(&self) -> &str {
        match &self.signal {
            Some(s) if s.is_blocked() && self.superseded_by.is_some() => "resolved",
            Some(s) => s.status_word(),
            None => self.front.get("trigger").unwrap_or("session"),
        }
    }

    /// `from→to` for agent handoffs.
    pub(crate) fn route(&self) -> Option<String> {
        if let Some(s) = self.signal.as_ref().and_then(SignalParse::signal) {
            return Some(format!("{}→{}", s.from, s.to));
        }
        let h = self.header.as_ref()?;
        Some(format!(
            "{}→{}",
            h.from.as_deref().unwrap_or("?"),
            h.to.as_deref().unwrap_or("?")
        ))
    }

    /// Where this handoff is, and where it came from, as a session of the project at
    /// `root` is told (on one line, cleaned): `.forge/handoffs/<file>` when it is in
    /// the project's own folder, else its path (the repository's inbox in the main
    /// work tree, or another work tree's folder); then `, from worktree <w> (branch
    /// <b>)` when it came from another work tree.
    pub(crate) fn place(&self, root: &std::path::Path) -> String {
        use crate::model::text::sanitize::single_line;
        let here = root.join(".forge").join("handoffs");
        if let Some(o) = self.origin.as_deref().filter(|o| o.remote.is_some()) {
            return format!(
                "{} (a remote Signal, from {})",
                single_line(&self.file_name),
                single_line(&o.words())
            );
        }
        let mut out = match self.path.strip_prefix(&here) {
            Ok(_) => format!(".forge/handoffs/{}", single_line(&self.file_name)),
            Err(_) => single_line(&self.path.display().to_string()).into_owned(),
        };
        if let Some(o) = self
            .origin
            .as_deref()
            .filter(|o| std::path::Path::new(&o.worktree) != root)
        {
            out.push_str(", from ");
            out.push_str(&single_line(&o.words()));
        }
        out
    }

    /// The branch recorded in front matter.
    pub(crate) fn branch(&self) -> Option<&str> {
        self.front.get("branch")
    }

    /// The uncommitted count recorded in front matter.
    pub(crate) fn uncommitted(&self) -> Option<u64> {
        self.front.get("uncommitted_changes")?.parse().ok()
    }
}

/// The `-N` after the stamp of a same-second handoff (`handoff-…-094500-2.md` → 2;
/// no suffix → 1), so the second one of a second sorts after the first.
pub(crate) fn seq_from_file_name(name: &str) -> u32 {
    let stem = name.strip_suffix(".md").unwrap_or(name);
    let ends_with_stamp = |s: &str| {
        s.len() >= 15
            && s.get(s.len() - 15..)
                .is_some_and(|t| is_stamp(t.as_bytes()))
    };
    match stem.rsplit_once('-') {
        Some((head, tail)) if !ends_with_stamp(stem) && ends_with_stamp(head) => {
            tail.parse().unwrap_or(1)
        }
        _ => 1,
    }
}

/// Newest first: by `created`, then by the same-second suffix, then by name so the
/// order is stable. The one order of handoffs everywhere (and of Signal threads).
pub(crate) fn newest_first(
    a: (Option<DateTime<Utc>>, &str),
    b: (Option<DateTime<Utc>>, &str),
) -> std::cmp::Ordering {
    b.0.cmp(&a.0)
        .then_with(|| seq_from_file_name(b.1).cmp(&seq_from_file_name(a.1)))
        .then_with(|| b.1.cmp(a.1))
}

/// Sorts newest first (see [`newest_first`]).
///
/// An unstable sort, with the path as the last tie-break: the same order (no two
/// entries compare equal), without the stable sort's scratch copy of the whole list
/// (8 MB of the dashboard's peak with 20,000 handoffs).
pub(crate) fn sort_newest_first(entries: &mut [HandoffEntry]) {
    entries.sort_unstable_by(|a, b| {
        newest_first((a.created, &a.file_name), (b.created, &b.file_name))
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// One agent handoff's place in its task's thread: its task id (trimmed; `None` when
/// it names none) and whether its Signal is valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ThreadKey<'a> {
    /// The task id.
    pub(crate) task: Option<&'a str>,
    /// A valid Signal (a malformed one never becomes a task's state).
    pub(crate) valid: bool,
}

/// Signal threads (docs/design.md#agent-handoffs-and-signals): the Signals of one task,
/// newest first; the newest **valid** one is the task's state. Given `items` sorted
/// newest first, returns for each item the index of the Signal that supersedes it:
/// its task's state, when that is another, newer item. A malformed Signal newer than
/// the state supersedes nothing (it is shown as a warning); an item without a task is
/// a thread of its own.
pub(crate) fn supersessions(items: &[ThreadKey<'_>]) -> Vec<Option<usize>> {
    // The items that name a task, grouped by task, newest first within a group (a
    // sorted list rather than a map by task: a third of the memory, which counts
    // when the dashboard links 20,000 handoffs).
    let mut named: Vec<(&str, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| Some((item.task.map(str::trim).filter(|t| !t.is_empty())?, i)))
        .collect();
    named.sort_unstable();
    let mut out = vec![None; items.len()];
    for thread in named.chunk_by(|a, b| a.0 == b.0) {
        // The task's state: its newest valid Signal. Older items are history; newer
        // ones (malformed) supersede nothing.
        let valid = |i: usize| items.get(i).is_some_and(|item| item.valid);
        let Some(&(_, state)) = thread.iter().find(|(_, i)| valid(*i)) else {
            continue;
        };
        for &(_, i) in thread.iter().filter(|(_, i)| *i > state) {
            if let Some(slot) = out.get_mut(i) {
                *slot = Some(state);
            }
        }
    }
    out
}

/// Links the agent handoffs of `entries` (sorted newest first) into threads: sets
/// `superseded_by` on every Signal a newer valid one of its task supersedes.
pub(crate) fn link_threads(entries: &mut [HandoffEntry]) {
    let keys: Vec<ThreadKey<'_>> = entries
        .iter()
        .map(|e| ThreadKey {
            task: (e.kind == HandoffKind::Agent).then(|| e.task()).flatten(),
            valid: e.signal.as_ref().and_then(SignalParse::signal).is_some(),
        })
        .collect();
    let by = supersessions(&keys);
    // Only the superseded few get a name (a name per entry was a second list as long
    // as the inbox, at the moment the inbox is largest).
    let names: Vec<(usize, String)> = by
        .iter()
        .enumerate()
        .filter_map(|(i, h)| Some((i, entries.get((*h)?)?.file_name.clone())))
        .collect();
    drop(by);
    for e in entries.iter_mut() {
        e.superseded_by = None;
    }
    for (i, name) in names {
        if let Some(e) = entries.get_mut(i) {
            e.superseded_by = Some(name);
        }
    }
}

/// The thread of `task`: its agent handoffs in `entries` (newest first).
pub(crate) fn thread_of<'a>(entries: &'a [HandoffEntry], task: &str) -> Vec<&'a HandoffEntry> {
    let task = task.trim();
    entries
        .iter()
        .filter(|e| e.kind == HandoffKind::Agent && e.task().map(str::trim) == Some(task))
        .collect()
}

/// Drift between a handoff and the tree now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Drift {
    /// The branch now, when it differs from the handoff's.
    pub(crate) branch_changed: Option<(String, String)>,
    /// Uncommitted changes then and now, when there are more now.
    pub(crate) dirtier: Option<(u64, u64)>,
    /// Age in hours, when older than 24 h.
    pub(crate) stale_hours: Option<i64>,
}

impl Drift {
    /// Compares a handoff with the current branch and uncommitted count at `now`.
    pub(crate) fn of(
        entry: &HandoffEntry,
        branch_now: Option<&str>,
        uncommitted_now: Option<u64>,
        now: DateTime<Utc>,
    ) -> Self {
        let branch_changed = match (entry.branch(), branch_now) {
            (Some(then), Some(now_b)) if then != now_b => Some((then.to_owned(), now_b.to_owned())),
            _ => None,
        };
        let dirtier = match (entry.uncommitted(), uncommitted_now) {
            (Some(then), Some(n)) if n > then => Some((then, n)),
            _ => None,
        };
        let stale_hours = entry
            .created
            .map(|c| (now - c).num_hours())
            .filter(|h| *h >= 24);
        Self {
            branch_changed,
            dirtier,
            stale_hours,
        }
    }

    /// Whether anything drifted.
    pub(crate) fn any(&self) -> bool {
        self.branch_changed.is_some() || self.dirtier.is_some() || self.stale_hours.is_some()
    }

    /// One note per drift, in words.
    pub(crate) fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((then, now)) = &self.branch_changed {
            out.push(format!(
                "branch changed: the handoff was written on {then}, you are on {now}"
            ));
        }
        if let Some((then, now)) = self.dirtier {
            out.push(format!(
                "tree dirtier: {then} uncommitted changes then, {now} now"
            ));
        }
        if let Some(h) = self.stale_hours {
            out.push(format!(
                "older than 24 h: written {} ago",
                crate::model::time::short(chrono::Duration::hours(h))
            ));
        }
        out
    }
}

/// Why [`prune_plan`] keeps a handoff that is old enough to go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeptBecause {
    /// An unresolved blocked Signal: someone still has to answer it.
    Blocked,
    /// The pending resume.
    Pending,
    /// The Signal that resolves a blocked one kept in another work tree's folder
    /// (the repository's inbox): without it that question would be open again.
    Answers,
}

impl KeptBecause {
    /// In words.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Blocked => "an unresolved blocked Signal",
            Self::Pending => "the pending resume",
            Self::Answers => "the answer to a blocked Signal of another work tree",
        }
    }
}

/// What handoff retention removes and what it keeps although it could go.
#[derive(Debug, Default)]
pub(crate) struct PrunePlan<'a> {
    /// The handoffs to remove, newest first.
    pub(crate) remove: Vec<&'a HandoffEntry>,
    /// Old enough to go, but kept, and why.
    pub(crate) kept: Vec<(&'a HandoffEntry, KeptBecause)>,
}

/// Handoff retention: of `entries` (any order), the ones that are both beyond the
/// newest `keep` and older than `older_than` go — never an unresolved blocked
/// Signal, nor the pending resume (`pending`). A handoff of unknown age is never old
/// enough. Ages and ranks are by creation time alone (not the display order, which
/// puts blocked Signals first), so an older Signal of a task always goes no later
/// than the newer one that resolved it.
pub(crate) fn prune_plan<'a>(
    entries: &'a [HandoffEntry],
    now: DateTime<Utc>,
    older_than: chrono::Duration,
    keep: usize,
    pending: &[&std::path::Path],
) -> PrunePlan<'a> {
    let mut by_age: Vec<&HandoffEntry> = entries.iter().collect();
    by_age.sort_by(|a, b| newest_first((a.created, &a.file_name), (b.created, &b.file_name)));
    let mut plan = PrunePlan::default();
    for h in by_age.into_iter().skip(keep) {
        if h.created.is_none_or(|c| now - c <= older_than) {
            continue;
        }
        if h.is_blocked() {
            plan.kept.push((h, KeptBecause::Blocked));
        } else if pending.iter().any(|p| *p == h.path) {
            plan.kept.push((h, KeptBecause::Pending));
        } else {
            plan.remove.push(h);
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str =
        include_str!("../../../tests/fixtures/handoffs/handoff-20261121-094500.md");

    #[test]
    fn quoted_values_are_unquoted_and_unescaped() {
        assert_eq!(unquote(r#""a: b # c""#), "a: b # c");
        assert_eq!(unquote(r#""say \"hi\" \\ \u00e9""#), r#"say "hi" \ é"#);
        assert_eq!(unquote("'it''s'"), "it's");
        assert_eq!(unquote("plain"), "plain");
        assert_eq!(unquote(r#""unbalanced"#), "unbalanced");
        assert_eq!(unquote(r#"fix "pool""#), r#"fix "pool""#);
        assert_eq!(unquote("\"\""), "");
    }

    #[test]
    fn compact_front_matter_answers_as_the_map_did() {
        let (map, _) = split_front_matter(SESSION);
        assert!(map.len() >= 8, "{map:?}");
        let front = Front::from(map.clone());
        assert_eq!(front.len(), map.len());
        for (k, v) in &map {
            assert_eq!(front.get(k), Some(v.as_str()), "{k}");
        }
        assert_eq!(front.get("nope"), None);
        assert_eq!(front.get(""), None);
        assert_eq!(front.get("zzzz"), None);
        let pairs: Vec<(&str, &str)> = front.iter().collect();
        let expected: Vec<(&str, &str)> = map.iter().map(|(k, v)| (&**k, &**v)).collect();
        assert_eq!(pairs, expected);
        // The same JSON object, key order included.
        assert_eq!(
            serde_json::to_string(&front).unwrap(),
            serde_json::to_string(&map).unwrap()
        );
        // Empty keys and values, a key that is a prefix of another, one entry, none.
        let (odd, _) = split_front_matter("---\n: v\nk:\nkey: 1\nkeys: 2\n---\n");
        let compact = Front::from(odd.clone());
        for (k, v) in &odd {
            assert_eq!(compact.get(k), Some(v.as_str()), "{k:?}");
        }
        assert_eq!(compact.get("key"), Some("1"));
        assert_eq!(compact.get("keys"), Some("2"));
        let one = Front::from(FrontMatter::from([("a".to_owned(), "b".to_owned())]));
        assert_eq!((one.get("a"), one.get("b")), (Some("b"), None));
        let none = Front::default();
        assert!(none.is_empty() && none.get("a").is_none());
        assert_eq!(serde_json::to_string(&none).unwrap(), "{}");
    }

    fn agent(name: &str, task: &str, status: &str) -> HandoffEntry {
        let text = format!(
            "## FORGE AGENT HANDOFF\nTask: {task}\n### Signal\n```json\n{{\"from\":\"a\",\"to\":\"b\",\
             \"task_id\":\"{task}\",\"status\":\"{status}\",\"blocking\":{}}}\n```\n",
            status == "blocked"
        );
        HandoffEntry::parse(PathBuf::from(format!("/p/{name}")), &text, None).unwrap()
    }

    fn linked(mut entries: Vec<HandoffEntry>) -> Vec<HandoffEntry> {
        sort_newest_first(&mut entries);
        link_threads(&mut entries);
        entries
    }

    #[test]
    fn stamp_ids_and_the_one_inbox_order() {
        assert_eq!(
            stamp_id("handoff-20261121-094500.md"),
            Some("20261121-094500")
        );
        assert_eq!(
            stamp_id("handoff-20261121-094500-2.md"),
            Some("20261121-094500-2")
        );
        assert_eq!(
            stamp_id("agent-T-20261121-000000-20261122-101502.md"),
            Some("20261122-101502")
        );
        assert_eq!(stamp_id("handoff-latest.md"), None);
        let list = linked(vec![
            agent("agent-T-1-20261121-100000.md", "T-1", "complete"),
            agent("agent-T-2-20261121-090000.md", "T-2", "blocked"),
            agent("agent-T-3-20261121-080000.md", "T-3", "partial"),
            agent("agent-T-4-20261121-070000.md", "T-4", "blocked"),
        ]);
        let names: Vec<&str> = inbox_order(&list)
            .into_iter()
            .map(|i| list[i].file_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "agent-T-2-20261121-090000.md",
                "agent-T-4-20261121-070000.md",
                "agent-T-1-20261121-100000.md",
                "agent-T-3-20261121-080000.md"
            ]
        );
        let names = |id: &str| -> Vec<String> {
            by_stamp_id(&list, id)
                .iter()
                .map(|e| e.file_name.clone())
                .collect()
        };
        assert_eq!(names("20261121-090000"), ["agent-T-2-20261121-090000.md"]);
        assert_eq!(names("20261121-08"), ["agent-T-3-20261121-080000.md"]);
        assert_eq!(names("20261121").len(), 4);
        assert!(names("2099").is_empty());
    }

    #[test]
    fn the_newest_valid_signal_of_a_task_is_its_state() {
        let list = linked(vec![
            agent("agent-T-1-20261121-100000.md", "T-1", "blocked"),
            agent("agent-T-1-20261121-110000.md", "T-1", "partial"),
            agent("agent-T-2-20261121-090000.md", "T-2", "blocked"),
            agent("agent-T-3-20261121-080000.md", "T-3", "complete"),
            agent("agent-T-3-20261121-120000.md", "T-3", "blocked"),
        ]);
        let state: Vec<(&str, &str, bool)> = list
            .iter()
            .map(|e| (e.file_name.as_str(), e.status_word(), e.is_blocked()))
            .collect();
        assert_eq!(
            state,
            [
                ("agent-T-3-20261121-120000.md", "blocked", true),
                ("agent-T-1-20261121-110000.md", "partial", false),
                ("agent-T-1-20261121-100000.md", "resolved", false),
                ("agent-T-2-20261121-090000.md", "blocked", true),
                ("agent-T-3-20261121-080000.md", "complete", false),
            ]
        );
        assert_eq!(
            list[2].superseded_by.as_deref(),
            Some("agent-T-1-20261121-110000.md")
        );
        // A blocked Signal answered by a newer blocked one counts once.
        let twice = linked(vec![
            agent("agent-T-1-20261121-100000.md", "T-1", "blocked"),
            agent("agent-T-1-20261121-100000-2.md", "T-1", "blocked"),
        ]);
        assert_eq!(twice.iter().filter(|e| e.is_blocked()).count(), 1);
        assert_eq!(twice[0].file_name, "agent-T-1-20261121-100000-2.md");
        assert_eq!(thread_of(&twice, " T-1 ").len(), 2);
    }

    #[test]
    fn a_malformed_signal_never_resolves_anything() {
        let mut broken = agent("agent-T-1-20261121-110000.md", "T-1", "complete");
        broken.signal = Some(SignalParse::Malformed {
            reason: "bad".into(),
        });
        let list = linked(vec![
            agent("agent-T-1-20261121-100000.md", "T-1", "blocked"),
            broken,
        ]);
        assert_eq!(list[0].status_word(), "malformed");
        assert!(!list[0].is_superseded());
        assert!(list[1].is_blocked(), "still blocked");
        // Keys alone: no task means a thread of its own.
        let keys = [
            ThreadKey {
                task: None,
                valid: true,
            },
            ThreadKey {
                task: None,
                valid: true,
            },
            ThreadKey {
                task: Some("x"),
                valid: false,
            },
            ThreadKey {
                task: Some("x"),
                valid: true,
            },
            ThreadKey {
                task: Some("x"),
                valid: true,
            },
        ];
        assert_eq!(supersessions(&keys), [None, None, None, None, Some(3)]);
    }

    #[test]
    fn supersessions_follow_the_first_valid_rule_on_any_thread() {
        // The rule as it was first written (a map from task to its state).
        fn by_map(items: &[ThreadKey<'_>]) -> Vec<Option<usize>> {
            let mut head = std::collections::HashMap::new();
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let task = item.task.map(str::trim).filter(|t| !t.is_empty())?;
                    match head.get(task) {
                        Some(&h) => Some(h),
                        None => {
                            if item.valid {
                                head.insert(task, i);
                            }
                            None
                        }
                    }
                })
                .collect()
        }
        let tasks = [
            None,
            Some(""),
            Some(" "),
            Some("a"),
            Some(" a "),
            Some("b"),
            Some("c"),
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let len = (next() % 12) as usize;
            let items: Vec<ThreadKey<'_>> = (0..len)
                .map(|_| ThreadKey {
                    task: tasks[(next() % tasks.len() as u64) as usize],
                    valid: next() % 3 != 0,
                })
                .collect();
            assert_eq!(supersessions(&items), by_map(&items), "{items:?}");
        }
    }

    #[test]
    fn kinds_never_cross() {
        assert_eq!(
            HandoffKind::of_file_name("handoff-20261121-094500.md"),
            Some(HandoffKind::Session)
        );
        assert_eq!(
            HandoffKind::of_file_name("agent-T-1-20261121-094500.md"),
            Some(HandoffKind::Agent)
        );
        assert_eq!(
            HandoffKind::of_file_name("agent-handoff-x.md"),
            Some(HandoffKind::Agent)
        );
        assert_eq!(
            HandoffKind::of_file_name("handoff-agent-x.md"),
            Some(HandoffKind::Session)
        );
        assert_eq!(HandoffKind::of_file_name("notes.md"), None);
        assert_eq!(HandoffKind::of_file_name("handoff-1.txt"), None);
    }

    #[test]
    fn stamp_is_the_last_one_in_the_name() {
        let s = stamp_from_file_name("agent-20200101-000000-20261121-101502.md").unwrap();
        assert_eq!(s.to_rfc3339(), "2026-11-21T10:15:02+00:00");
        let s = stamp_from_file_name("handoff-20261121-094500-2.md").unwrap();
        assert_eq!(s.to_rfc3339(), "2026-11-21T09:45:00+00:00");
        assert!(stamp_from_file_name("handoff-x.md").is_none());
        assert!(stamp_from_file_name("handoff-20261399-999999.md").is_none());
    }

    #[test]
    fn front_matter_is_parsed_and_body_split() {
        let (fm, body) = split_front_matter(SESSION);
        assert_eq!(
            fm.get("trigger").map(String::as_str),
            Some("context-threshold")
        );
        assert_eq!(fm.get("branch").map(String::as_str), Some("feat/pool"));
        assert!(body.trim_start().starts_with("# Session handoff"));
        let (fm, body) = split_front_matter("---\nno closing");
        assert!(fm.is_empty());
        assert_eq!(body, "---\nno closing");
    }

    #[test]
    fn drift_notes_branch_dirt_and_age() {
        let e = HandoffEntry::parse(
            PathBuf::from("/x/handoff-20261121-094500.md"),
            SESSION,
            None,
        )
        .unwrap();
        let now = Utc.with_ymd_and_hms(2026, 11, 23, 9, 45, 0).unwrap();
        let d = Drift::of(&e, Some("main"), Some(5), now);
        assert_eq!(d.branch_changed, Some(("feat/pool".into(), "main".into())));
        assert_eq!(d.dirtier, Some((2, 5)));
        assert_eq!(d.stale_hours, Some(48));
        assert_eq!(d.notes().len(), 3);
        // The age reads as everywhere else ("2d"), not as a count of hours.
        assert_eq!(d.notes()[2], "older than 24 h: written 2d ago");
        let fresh = Drift::of(
            &e,
            Some("feat/pool"),
            Some(2),
            Utc.with_ymd_and_hms(2026, 11, 21, 10, 0, 0).unwrap(),
        );
        assert!(!fresh.any());
    }

    #[test]
    fn same_second_suffix_sorts_after_the_first() {
        assert_eq!(seq_from_file_name("handoff-20261121-094500.md"), 1);
        assert_eq!(seq_from_file_name("handoff-20261121-094500-2.md"), 2);
        assert_eq!(seq_from_file_name("handoff-20261121-094500-13.md"), 13);
        assert_eq!(seq_from_file_name("agent-T-12-20261121-094500.md"), 1);
        assert_eq!(seq_from_file_name("agent-T-12-20261121-094500-3.md"), 3);
        let mk = |n: &str| HandoffEntry::parse(PathBuf::from(format!("/h/{n}")), "", None).unwrap();
        let mut v = vec![
            mk("handoff-20261121-094500-2.md"),
            mk("handoff-20261121-094500.md"),
            mk("handoff-20261121-094500-3.md"),
        ];
        sort_newest_first(&mut v);
        let names: Vec<_> = v.iter().map(|e| e.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "handoff-20261121-094500-3.md",
                "handoff-20261121-094500-2.md",
                "handoff-20261121-094500.md"
            ]
        );
    }

    #[test]
    fn newest_first_by_name_stamp() {
        let mk = |n: &str| HandoffEntry::parse(PathBuf::from(format!("/h/{n}")), "", None).unwrap();
        let mut v = vec![
            mk("handoff-20261120-100000.md"),
            mk("agent-T-1-20261121-080000.md"),
            mk("handoff-20261121-090000.md"),
        ];
        sort_newest_first(&mut v);
        let names: Vec<_> = v.iter().map(|e| e.file_name.as_str()).collect();
        assert_eq!(
            names,
            [
                "handoff-20261121-090000.md",
                "agent-T-1-20261121-080000.md",
                "handoff-20261120-100000.md"
            ]
        );
    }

    #[test]
    fn prune_keeps_the_newest_the_young_the_blocked_and_the_pending() {
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 12, 0, 0).unwrap();
        let at = |days: i64| now - chrono::Duration::days(days);
        let session = |name: &str, days: i64| {
            let mut h = HandoffEntry::parse(
                PathBuf::from(format!("/p/.forge/handoffs/{name}")),
                "---\nkind: session-handoff\n---\n# s\n",
                None,
            )
            .unwrap();
            h.created = Some(at(days));
            h
        };
        let blocked = {
            let mut h = HandoffEntry::parse(
                PathBuf::from("/p/.forge/handoffs/agent-T-012-20261001-101502.md"),
                include_str!("../../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
                None,
            )
            .unwrap();
            h.created = Some(at(55));
            h
        };
        let mut unknown = session("handoff-x.md", 0);
        unknown.created = None;
        let entries = vec![
            session("handoff-1.md", 1),
            session("handoff-40.md", 40),
            session("handoff-50.md", 50),
            session("handoff-60.md", 60),
            blocked,
            unknown,
        ];
        let pending = PathBuf::from("/p/.forge/handoffs/handoff-60.md");
        let names = |p: &PrunePlan<'_>| -> Vec<String> {
            p.remove.iter().map(|h| h.file_name.clone()).collect()
        };
        let plan = prune_plan(&entries, now, chrono::Duration::days(30), 0, &[&pending]);
        assert_eq!(names(&plan), ["handoff-40.md", "handoff-50.md"]);
        let kept: Vec<_> = plan
            .kept
            .iter()
            .map(|(h, why)| (h.file_name.as_str(), *why))
            .collect();
        assert_eq!(
            kept,
            [
                ("agent-T-012-20261001-101502.md", KeptBecause::Blocked),
                ("handoff-60.md", KeptBecause::Pending),
            ]
        );
        // --keep 3: the three newest (1, 40 and 50 days) stay whatever their age.
        let plan = prune_plan(&entries, now, chrono::Duration::days(30), 3, &[]);
        assert_eq!(names(&plan), ["handoff-60.md"]);
        // Nothing old enough: nothing goes.
        assert!(
            prune_plan(&entries, now, chrono::Duration::days(90), 0, &[])
                .remove
                .is_empty()
        );
    }
}
