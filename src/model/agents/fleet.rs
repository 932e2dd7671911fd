//! The fleet: every project forge's hooks ran in lately, and its live sessions, in one
//! small registry (`$XDG_STATE_HOME/forge/projects.json`). `forge status --all`,
//! `forge tui --all` and the status line's `elsewhere` segment read that one file and
//! never walk a project.
//!
//! Pure: `crate::store::registry` reads and writes the file, `crate::hooks::fleet`
//! builds a project's entry from what a hook call just recorded. A repository helps
//! fill the file (its folder and branch names), so every value is bounded here, when
//! it is read and before it is written, and sanitised where it is printed (`--json`
//! keeps the exact values, escaped).
//!
//! Each project's entry keeps what the fleet views show: its root, name, branch, the
//! number of unresolved blocked Signals, and per live session the context % and
//! level, the attention state and the last event. An entry not heard from for
//! [`KEEP_PROJECT`] is dropped, and so is a session once it ends or goes silent.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::model::session::level::{Level, Thresholds};
use crate::model::session::state::{Attention, SessionBridge};
use crate::model::time::{heard_within, iso, parse_iso};

/// The registry's format version.
pub(crate) const VERSION: u32 = 1;
/// At most this many projects are kept (the most recently heard from).
pub(crate) const MAX_PROJECTS: usize = 200;
/// At most this many sessions are kept per project (the most recently heard from).
pub(crate) const MAX_SESSIONS: usize = 16;
/// A project root longer than this (in bytes) is not registered.
pub(crate) const MAX_ROOT: usize = 1024;
/// Project names are cut to this many characters.
pub(crate) const MAX_NAME: usize = 80;
/// Branch names are cut to this many characters.
pub(crate) const MAX_BRANCH: usize = 120;
/// The largest registry file read (a larger one reads as empty and is rewritten).
pub(crate) const MAX_BYTES: u64 = 1024 * 1024;
/// A project not heard from for this long leaves the registry.
pub(crate) const KEEP_PROJECT: Duration = Duration::days(7);
/// An entry whose facts did not change is rewritten at most this often (to keep
/// its sessions' last events and its own `seen_at` fresh).
pub(crate) const REFRESH: Duration = Duration::seconds(60);
/// `[attention] stale_after` when an entry does not say.
pub(crate) const DEFAULT_STALE_AFTER_SECS: u64 = 30 * 60;

/// `projects.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Registry {
    /// [`VERSION`].
    pub(crate) version: u32,
    /// The projects, the most recently heard from first. An unreadable one is
    /// skipped: one bad entry (a newer forge's attention word, a number out of
    /// range) must not empty the registry.
    #[serde(deserialize_with = "crate::model::lenient::skip_bad_items")]
    pub(crate) projects: Vec<ProjectEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Self {
            version: VERSION,
            projects: Vec::new(),
        }
    }
}

/// One project in the registry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ProjectEntry {
    /// The project root, absolute and canonical (the entry's key). Data, never a
    /// place forge writes to on its own.
    pub(crate) root: String,
    /// The root's folder name.
    pub(crate) name: String,
    /// The branch when the entry was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
    /// For a linked work tree of a git repository: the project of its main work tree
    /// (for a bare repository, its git folder), which it shares its Signals with
    /// (`store::inbox`). `None`: the project is its repository's main work tree, or
    /// its only one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repository: Option<String>,
    /// Unresolved blocked agent Signals (of its repository's inbox).
    pub(crate) blocked: u32,
    /// When forge last wrote this entry (ISO 8601 UTC).
    pub(crate) seen_at: String,
    /// The project's `[attention] stale_after`, in seconds: a session silent for
    /// longer is not live.
    pub(crate) stale_after_secs: u64,
    /// Its sessions, the most recently heard from first (an unreadable one is
    /// skipped).
    #[serde(deserialize_with = "crate::model::lenient::skip_bad_items")]
    pub(crate) sessions: Vec<SessionRow>,
}

/// One session of a project, as the fleet views show it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct SessionRow {
    /// The session id (`[A-Za-z0-9._-]`, at most 64 characters).
    pub(crate) id: String,
    /// Its context %, a whole number.
    pub(crate) context_pct: Option<u8>,
    /// Its level under the project's thresholds (`L0`…`L3`).
    pub(crate) level: Option<String>,
    /// `busy`, `waiting:permission` or `waiting:input`.
    pub(crate) attention: Option<Attention>,
    /// The last hook event.
    pub(crate) last_event: Option<String>,
    /// When it was seen (ISO 8601 UTC).
    pub(crate) last_event_at: Option<String>,
    /// The agent it runs as (`$FORGE_AGENT` of its hooks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// Its tmux pane (`%N`, `$TMUX_PANE` of its hooks), when it runs in tmux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tmux_pane: Option<String>,
    /// The socket of that pane's tmux server (the first part of `$TMUX`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tmux_socket: Option<String>,
    /// Its Claude Code process and that process's start time (see
    /// `SessionBridge::client_pid`): a session whose process is gone has ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) client_pid: Option<u32>,
    /// See [`SessionRow::client_pid`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) client_started: Option<u64>,
}

/// At most this many characters of an agent's name are kept.
pub(crate) const MAX_AGENT: usize = 80;

/// `s` cut to at most `n` characters.
fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A tmux pane id: `%` and digits.
pub(crate) fn is_pane_id(p: &str) -> bool {
    p.strip_prefix('%')
        .is_some_and(|d| (1..=11).contains(&d.len()) && d.bytes().all(|b| b.is_ascii_digit()))
}

/// A session id that can name a file: `[A-Za-z0-9._-]`, 1 to 64 characters, not
/// starting with a dot.
fn is_session_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A hook event name: ASCII letters and digits, at most 32.
fn is_event_name(name: &str) -> bool {
    (1..=32).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl SessionRow {
    /// The row of a session from its bridge file (`None` when the bridge is gone).
    pub(crate) fn of(id: &str, bridge: Option<&SessionBridge>, thresholds: &Thresholds) -> Self {
        let pct = bridge.and_then(SessionBridge::context_pct);
        Self {
            id: id.to_owned(),
            context_pct: pct.map(|p| p.clamp(0.0, 100.0).round() as u8),
            level: pct.map(|p| Level::from_pct(p, thresholds).as_str().to_owned()),
            attention: bridge.and_then(|b| b.attention),
            last_event: bridge.and_then(|b| b.last_event.clone()),
            last_event_at: bridge.and_then(|b| b.last_event_at.clone().or(b.updated_at.clone())),
            client_pid: bridge.and_then(|b| b.client_pid),
            client_started: bridge.and_then(|b| b.client_started),
            ..Self::default()
        }
    }

    /// The tmux target that reaches this session's pane from anywhere: `%N` (a pane
    /// id names one pane on its server), with the server's socket when known.
    pub(crate) fn tmux_target(&self) -> Option<(&str, Option<&str>)> {
        self.tmux_pane
            .as_deref()
            .map(|p| (p, self.tmux_socket.as_deref()))
    }

    /// Marks the session ended when its recorded client process is gone.
    pub(crate) fn end_if_client_gone(&mut self, gone: impl Fn(u32, u64) -> bool) -> bool {
        crate::model::session::state::end_if_client_gone(
            &mut self.attention,
            self.client_pid,
            self.client_started,
            gone,
        )
    }

    /// When the session was last heard of.
    pub(crate) fn last_heard(&self) -> Option<DateTime<Utc>> {
        self.last_event_at.as_deref().and_then(parse_iso)
    }

    /// Whether it is live at `now`: not ended, and heard from within `stale_after`
    /// (a time far in the future is not believed, as for the project's own view:
    /// [`crate::model::snapshot::is_live`]).
    pub(crate) fn is_live(&self, now: DateTime<Utc>, stale_after: Duration) -> bool {
        self.attention.is_some_and(|a| a != Attention::Ended)
            && self
                .last_heard()
                .is_some_and(|t| heard_within(t, now, stale_after))
    }

    /// Whether it waits for a person (a permission prompt, or its turn is over).
    pub(crate) fn is_waiting(&self) -> bool {
        self.attention.is_some_and(Attention::needs_attention)
            && self.attention != Some(Attention::Ended)
    }

    /// The level, when it is one forge writes.
    pub(crate) fn level(&self) -> Option<Level> {
        Level::parse(self.level.as_deref()?)
    }

    /// The row within bounds; `None` when its id could not name a session.
    fn bounded(mut self) -> Option<Self> {
        if !is_session_id(&self.id) {
            return None;
        }
        self.context_pct = self.context_pct.map(|p| p.min(100));
        if self.level().is_none() {
            self.level = None;
        }
        if !self.last_event.as_deref().is_some_and(is_event_name) {
            self.last_event = None;
        }
        if self.last_heard().is_none() {
            self.last_event_at = None;
        }
        self.agent = self
            .agent
            .map(|a| cut(a.trim(), MAX_AGENT))
            .filter(|a| !a.is_empty());
        self.tmux_pane = self.tmux_pane.filter(|p| is_pane_id(p));
        self.tmux_socket = self
            .tmux_socket
            .filter(|s| s.starts_with('/') && s.len() <= MAX_ROOT && !s.contains('\0'));
        Some(self)
    }

    /// What the fleet views show, less the times (see [`needs_write`]).
    #[allow(clippy::type_complexity)]
    fn facts(
        &self,
    ) -> (
        &str,
        Option<u8>,
        Option<&str>,
        Option<Attention>,
        Option<&str>,
        Option<&str>,
        Option<u32>,
    ) {
        (
            &self.id,
            self.context_pct,
            self.level.as_deref(),
            self.attention,
            self.agent.as_deref(),
            self.tmux_pane.as_deref(),
            self.client_pid,
        )
    }
}

impl ProjectEntry {
    /// `stale_after_secs` as a duration (the default when unset).
    pub(crate) fn stale_after(&self) -> Duration {
        let secs = match self.stale_after_secs {
            0 => DEFAULT_STALE_AFTER_SECS,
            s => s.min(365 * 86_400),
        };
        Duration::seconds(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    /// Marks ended every session of this project whose client process is gone.
    pub(crate) fn end_gone_sessions(&mut self, gone: impl Fn(u32, u64) -> bool) {
        for s in &mut self.sessions {
            s.end_if_client_gone(&gone);
        }
    }

    /// When the entry was last written.
    pub(crate) fn seen(&self) -> Option<DateTime<Utc>> {
        parse_iso(&self.seen_at)
    }

    /// Its live sessions at `now`.
    pub(crate) fn live(&self, now: DateTime<Utc>) -> impl Iterator<Item = &SessionRow> {
        let stale = self.stale_after();
        self.sessions.iter().filter(move |s| s.is_live(now, stale))
    }

    /// The entry of `root` after a hook call of session `row.id`: the facts given,
    /// `row` in place of that session's old row (left out once the session ended),
    /// the other sessions of `old` that are still live, the most recent first.
    pub(crate) fn build(
        old: Option<&Self>,
        facts: ProjectFacts,
        row: SessionRow,
        now: DateTime<Utc>,
    ) -> Self {
        let mut entry = Self {
            root: facts.root,
            name: facts.name,
            branch: facts.branch,
            repository: facts.repository,
            blocked: facts.blocked,
            seen_at: iso(now),
            stale_after_secs: facts.stale_after_secs,
            sessions: old.map(|o| o.sessions.clone()).unwrap_or_default(),
        };
        entry.sessions.retain(|s| s.id != row.id);
        entry.sessions.push(row);
        let stale = entry.stale_after();
        entry.sessions.retain(|s| s.is_live(now, stale));
        entry
            .sessions
            .sort_by_key(|s| std::cmp::Reverse(s.last_heard()));
        entry.sessions.truncate(MAX_SESSIONS);
        entry
    }

    /// The entry within bounds; `None` when its root could not be a project's.
    fn bounded(mut self) -> Option<Self> {
        if !self.root.starts_with('/') || self.root.len() > MAX_ROOT || self.root.contains('\0') {
            return None;
        }
        self.name = cut(&self.name, MAX_NAME);
        self.branch = self.branch.map(|b| cut(&b, MAX_BRANCH));
        self.repository = self.repository.filter(|r| is_root(r));
        if self.seen().is_none() {
            self.seen_at = String::new();
        }
        let mut ids = std::collections::HashSet::new();
        self.sessions = std::mem::take(&mut self.sessions)
            .into_iter()
            .filter_map(SessionRow::bounded)
            .filter(|s| ids.insert(s.id.clone()))
            .take(MAX_SESSIONS)
            .collect();
        Some(self)
    }
}

/// What a hook knows about its project besides the session: the entry's facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ProjectFacts {
    /// The canonical root.
    pub(crate) root: String,
    /// The root's folder name.
    pub(crate) name: String,
    /// The branch now.
    pub(crate) branch: Option<String>,
    /// The main work tree's project, for a linked work tree (see
    /// [`ProjectEntry::repository`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) repository: Option<String>,
    /// Unresolved blocked Signals now.
    pub(crate) blocked: u32,
    /// The project's `[attention] stale_after`, in seconds.
    pub(crate) stale_after_secs: u64,
}

impl ProjectFacts {
    /// The facts, cut to the registry's bounds; `None` when `root` cannot be an
    /// entry's key (not absolute, too long).
    pub(crate) fn new(
        root: &str,
        branch: Option<&str>,
        blocked: usize,
        stale_after: Duration,
    ) -> Option<Self> {
        if !is_root(root) {
            return None;
        }
        let name = root
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or("/");
        Some(Self {
            root: root.to_owned(),
            name: cut(name, MAX_NAME),
            branch: branch.map(|b| cut(b, MAX_BRANCH)),
            repository: None,
            blocked: u32::try_from(blocked).unwrap_or(u32::MAX),
            stale_after_secs: u64::try_from(stale_after.num_seconds())
                .unwrap_or(DEFAULT_STALE_AFTER_SECS),
        })
    }
}

impl ProjectFacts {
    /// The facts with the project's repository (the main work tree's project of a
    /// linked work tree), when it is one the registry can hold.
    pub(crate) fn in_repository(mut self, repository: Option<&str>) -> Self {
        self.repository = repository
            .filter(|r| is_root(r) && *r != self.root)
            .map(str::to_owned);
        self
    }
}

/// Whether `root` can be a project's root in the registry: absolute, at most
/// [`MAX_ROOT`] bytes, no NUL.
fn is_root(root: &str) -> bool {
    root.starts_with('/') && root.len() <= MAX_ROOT && !root.contains('\0')
}

/// Whether `new` must be written over `old`: always when the project is new or
/// what the fleet views show changed (branch, blocked count, the sessions, their
/// context, level and attention); when only times moved, at most every
/// [`REFRESH`]. So a hook writes the file only when it has news, and a busy
/// project's entry at most once a minute otherwise.
pub(crate) fn needs_write(
    old: Option<&ProjectEntry>,
    new: &ProjectEntry,
    now: DateTime<Utc>,
) -> bool {
    let Some(old) = old else { return true };
    let facts = |e: &ProjectEntry| {
        (
            e.name.clone(),
            e.branch.clone(),
            e.repository.clone(),
            e.blocked,
            e.stale_after_secs,
        )
    };
    let mut a: Vec<_> = old.sessions.iter().map(SessionRow::facts).collect();
    let mut b: Vec<_> = new.sessions.iter().map(SessionRow::facts).collect();
    a.sort_unstable_by(|x, y| x.0.cmp(y.0));
    b.sort_unstable_by(|x, y| x.0.cmp(y.0));
    facts(old) != facts(new) || a != b || old.seen().is_none_or(|t| now - t >= REFRESH)
}

/// One hook call's registration, kept aside when the registry's lock was busy (a
/// file of its own beside the registry) and folded in by the next writer that holds
/// the lock: so no registration is lost, and no hook waits long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    /// The project's facts.
    pub(crate) facts: ProjectFacts,
    /// The session's row.
    pub(crate) row: SessionRow,
    /// When the hook saw them (ISO 8601 UTC).
    pub(crate) at: String,
}

impl Pending {
    /// Parses a pending file's bytes, within the registry's bounds; `None` when it
    /// is not one.
    pub(crate) fn parse(bytes: &[u8]) -> Option<Self> {
        let p: Self = serde_json::from_slice(bytes).ok()?;
        let secs = p.facts.stale_after_secs.min(365 * 86_400);
        let stale = Duration::try_seconds(i64::try_from(secs).ok()?)?;
        let facts = ProjectFacts::new(
            &p.facts.root,
            p.facts.branch.as_deref(),
            usize::try_from(p.facts.blocked).ok()?,
            stale,
        )?;
        let row = p.row.bounded()?;
        parse_iso(&p.at)?;
        Some(Self {
            facts,
            row,
            at: p.at,
        })
    }
}

impl Registry {
    /// Applies a registration: the project's entry rebuilt with this session's row,
    /// as the hook would have written it — unless a newer write of that project is
    /// already in, whose facts then stay (this session's row still goes in, when it
    /// is newer than the one kept).
    pub(crate) fn apply(&mut self, p: Pending) {
        let Some(at) = parse_iso(&p.at) else { return };
        let newer_kept = self
            .entry(&p.facts.root)
            .and_then(ProjectEntry::seen)
            .is_some_and(|seen| seen > at);
        if !newer_kept {
            let entry = ProjectEntry::build(self.entry(&p.facts.root), p.facts, p.row, at);
            self.upsert(entry, at);
            return;
        }
        let Some(entry) = self.projects.iter_mut().find(|e| e.root == p.facts.root) else {
            return;
        };
        let kept = entry.sessions.iter().find(|s| s.id == p.row.id);
        if kept.is_none_or(|s| s.last_heard() < p.row.last_heard()) {
            entry.sessions.retain(|s| s.id != p.row.id);
            entry.sessions.push(p.row);
            entry
                .sessions
                .sort_by_key(|s| std::cmp::Reverse(s.last_heard()));
            entry.sessions.truncate(MAX_SESSIONS);
        }
    }

    /// Parses the file's bytes: anything unreadable is an empty registry, and every
    /// entry is brought within bounds (see [`Registry::bounded`]).
    pub(crate) fn parse(bytes: &[u8]) -> Self {
        serde_json::from_slice::<Self>(bytes)
            .unwrap_or_default()
            .bounded()
    }

    /// The registry within bounds: valid roots only, each once, at most
    /// [`MAX_PROJECTS`] entries and [`MAX_SESSIONS`] sessions each, names and
    /// branches cut, ids and event names that could not be real dropped.
    pub(crate) fn bounded(mut self) -> Self {
        let mut roots = std::collections::HashSet::new();
        self.version = VERSION;
        self.projects = std::mem::take(&mut self.projects)
            .into_iter()
            .filter_map(ProjectEntry::bounded)
            .filter(|p| roots.insert(p.root.clone()))
            .take(MAX_PROJECTS)
            .collect();
        self
    }

    /// Marks ended every session whose recorded client process is gone (`gone`
    /// answers for a pid and start time): the views call this after reading the
    /// file, and a hook before it builds its project's entry (so a killed client's
    /// row leaves the file too).
    pub(crate) fn end_gone_sessions(&mut self, gone: impl Fn(u32, u64) -> bool) {
        for p in &mut self.projects {
            p.end_gone_sessions(&gone);
        }
    }

    /// The entry of `root`.
    pub(crate) fn entry(&self, root: &str) -> Option<&ProjectEntry> {
        self.projects.iter().find(|p| p.root == root)
    }

    /// Puts `entry` in, first, in place of its root's old one; drops the projects
    /// not heard from for [`KEEP_PROJECT`] and keeps the [`MAX_PROJECTS`] most
    /// recently heard from.
    pub(crate) fn upsert(&mut self, entry: ProjectEntry, now: DateTime<Utc>) {
        self.projects.retain(|p| p.root != entry.root);
        self.projects.insert(0, entry);
        self.projects
            .retain(|p| p.seen().is_some_and(|t| now - t < KEEP_PROJECT));
        self.projects.sort_by_key(|p| std::cmp::Reverse(p.seen()));
        self.projects.truncate(MAX_PROJECTS);
        self.version = VERSION;
    }

    /// The projects still worth showing at `now` (heard from within
    /// [`KEEP_PROJECT`]).
    pub(crate) fn current(&self, now: DateTime<Utc>) -> impl Iterator<Item = &ProjectEntry> {
        self.projects
            .iter()
            .filter(move |p| p.seen().is_some_and(|t| now - t < KEEP_PROJECT))
    }

    /// The live sessions of every project other than `root` that wait for a person
    /// (a permission prompt, or their turn is over): the status line's
    /// `elsewhere` segment.
    #[cfg(test)]
    pub(crate) fn waiting_elsewhere(&self, root: &str, now: DateTime<Utc>) -> usize {
        self.waiting_elsewhere_alive(root, now, |_, _| false)
    }

    /// [`Registry::waiting_elsewhere`], less the sessions whose recorded client
    /// process is `gone` (asked only of the sessions that would count).
    pub(crate) fn waiting_elsewhere_alive(
        &self,
        root: &str,
        now: DateTime<Utc>,
        gone: impl Fn(u32, u64) -> bool,
    ) -> usize {
        self.current(now)
            .filter(|p| p.root != root)
            .map(|p| {
                p.live(now)
                    .filter(|s| s.is_waiting())
                    .filter(|s| match (s.client_pid, s.client_started) {
                        (Some(pid), Some(started)) => !gone(pid, started),
                        _ => true,
                    })
                    .count()
            })
            .sum()
    }

    /// The fleet list: every live session of every project, most urgent first
    /// (waiting for permission, then for input, then busy; the most recently heard
    /// from first within each), then the projects with no live session (those with
    /// blocked Signals first, then the most recently heard from).
    pub(crate) fn rows(&self, now: DateTime<Utc>) -> Vec<FleetRow<'_>> {
        let mut live: Vec<FleetRow<'_>> = Vec::new();
        let mut idle: Vec<FleetRow<'_>> = Vec::new();
        for p in self.current(now) {
            let before = live.len();
            live.extend(p.live(now).map(|s| FleetRow {
                project: p,
                session: Some(s),
            }));
            if live.len() == before {
                idle.push(FleetRow {
                    project: p,
                    session: None,
                });
            }
        }
        live.sort_by(|a, b| {
            let rank = |r: &FleetRow<'_>| {
                r.session
                    .and_then(|s| s.attention)
                    .map_or(9, Attention::urgency)
            };
            let heard = |r: &FleetRow<'_>| r.session.and_then(SessionRow::last_heard);
            rank(a)
                .cmp(&rank(b))
                .then_with(|| heard(b).cmp(&heard(a)))
                .then_with(|| a.project.root.cmp(&b.project.root))
                .then_with(|| a.session.map(|s| &s.id).cmp(&b.session.map(|s| &s.id)))
        });
        idle.sort_by(|a, b| {
            (b.project.blocked > 0)
                .cmp(&(a.project.blocked > 0))
                .then_with(|| b.project.seen().cmp(&a.project.seen()))
                .then_with(|| a.project.root.cmp(&b.project.root))
        });
        live.extend(idle);
        live
    }
}

/// One row of the fleet list: a live session of a project, or a project with none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FleetRow<'a> {
    /// The project.
    pub(crate) project: &'a ProjectEntry,
    /// The session (`None`: the project has no live session).
    pub(crate) session: Option<&'a SessionRow>,
}

impl FleetRow<'_> {
    /// The attention word of the row: `permission`, `input`, `busy`, or `idle` for a
    /// project with no live session.
    pub(crate) fn attention_word(&self) -> &'static str {
        match self.session.and_then(|s| s.attention) {
            Some(Attention::WaitingPermission) => "permission",
            Some(Attention::WaitingInput) => "input",
            Some(Attention::Busy) => "busy",
            _ => "idle",
        }
    }

    /// When the row was last heard of: its session's last event, else the project's.
    pub(crate) fn last_heard(&self) -> Option<DateTime<Utc>> {
        self.session
            .and_then(SessionRow::last_heard)
            .or_else(|| self.project.seen())
    }
}

/// `root` with the home folder written `~`, for a narrow column.
pub(crate) fn tilde(root: &str, home: Option<&std::path::Path>) -> String {
    match home
        .and_then(|h| h.to_str())
        .map(|h| h.trim_end_matches('/'))
    {
        Some(h) if !h.is_empty() => match root.strip_prefix(h) {
            Some(rest) if rest.starts_with('/') => format!("~{rest}"),
            _ => root.to_owned(),
        },
        _ => root.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
    }

    fn session(id: &str, attention: Attention, mins_ago: i64) -> SessionRow {
        SessionRow {
            id: id.into(),
            context_pct: Some(40),
            level: Some("L0".into()),
            attention: Some(attention),
            last_event: Some("Stop".into()),
            last_event_at: Some(iso(now() - Duration::minutes(mins_ago))),
            ..SessionRow::default()
        }
    }

    #[test]
    fn a_session_whose_client_is_gone_leaves_the_live_list_and_the_count() {
        let mut killed = session("w-killed", Attention::WaitingInput, 1);
        killed.client_pid = Some(4242);
        killed.client_started = Some(99);
        let mut alive = session("w-alive", Attention::WaitingInput, 1);
        alive.client_pid = Some(1);
        alive.client_started = Some(5);
        let mut reg = Registry {
            version: VERSION,
            projects: vec![project("/p/web", 1, vec![killed, alive])],
        };
        let gone = |pid: u32, _: u64| pid == 4242;
        assert_eq!(reg.waiting_elsewhere("/p/api", now()), 2);
        assert_eq!(reg.waiting_elsewhere_alive("/p/api", now(), gone), 1);
        reg.end_gone_sessions(gone);
        let live: Vec<&str> = reg.projects[0].live(now()).map(|s| s.id.as_str()).collect();
        assert_eq!(live, ["w-alive"]);
        // A hook's next write of the entry drops it.
        let row = SessionRow {
            id: "w-new".into(),
            attention: Some(Attention::Busy),
            last_event_at: Some(iso(now())),
            ..SessionRow::default()
        };
        let e = ProjectEntry::build(reg.entry("/p/web"), facts("/p/web"), row, now());
        let ids: Vec<&str> = e.sessions.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["w-new", "w-alive"]);
    }

    #[test]
    fn agent_and_tmux_fields_are_kept_within_bounds() {
        let mut s = session("s1", Attention::Busy, 1);
        s.agent = Some(format!("  {}  ", "b".repeat(200)));
        s.tmux_pane = Some("%12".into());
        s.tmux_socket = Some("/tmp/tmux-1000/default".into());
        let b = s.clone().bounded().unwrap();
        assert_eq!(
            b.agent.as_deref().map(|a| a.chars().count()),
            Some(MAX_AGENT)
        );
        assert_eq!(
            b.tmux_target(),
            Some(("%12", Some("/tmp/tmux-1000/default")))
        );
        for (pane, socket) in [("12", "/s"), ("%1; rm -rf /", "/s"), ("%3", "relative")] {
            let mut t = s.clone();
            t.tmux_pane = Some(pane.into());
            t.tmux_socket = Some(socket.into());
            let t = t.bounded().unwrap();
            assert!(
                t.tmux_pane.is_none() || t.tmux_socket.is_none(),
                "{pane} {socket}: {t:?}"
            );
        }
    }

    fn project(root: &str, mins_ago: i64, sessions: Vec<SessionRow>) -> ProjectEntry {
        ProjectEntry {
            root: root.into(),
            name: root.rsplit('/').next().unwrap().into(),
            branch: Some("main".into()),
            repository: None,
            blocked: 0,
            seen_at: iso(now() - Duration::minutes(mins_ago)),
            stale_after_secs: 1800,
            sessions,
        }
    }

    fn facts(root: &str) -> ProjectFacts {
        ProjectFacts::new(root, Some("main"), 0, Duration::minutes(30)).unwrap()
    }

    #[test]
    fn the_fleet_is_ordered_by_urgency_then_recency_then_idle_projects() {
        let reg = Registry {
            version: VERSION,
            projects: vec![
                project(
                    "/p/api",
                    1,
                    vec![
                        session("a-busy", Attention::Busy, 1),
                        session("a-input", Attention::WaitingInput, 9),
                    ],
                ),
                project(
                    "/p/web",
                    2,
                    vec![
                        session("w-perm", Attention::WaitingPermission, 20),
                        session("w-input", Attention::WaitingInput, 2),
                        // Silent for longer than stale_after: not live.
                        session("w-old", Attention::WaitingPermission, 45),
                        session("w-ended", Attention::Ended, 1),
                    ],
                ),
                {
                    let mut p = project("/p/quiet", 60, vec![]);
                    p.blocked = 2;
                    p
                },
                project("/p/idle", 5, vec![]),
                // Not heard from for a week: gone.
                project("/p/gone", 8 * 24 * 60, vec![]),
            ],
        };
        let rows: Vec<(&str, Option<&str>)> = reg
            .rows(now())
            .iter()
            .map(|r| (r.project.name.as_str(), r.session.map(|s| s.id.as_str())))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("web", Some("w-perm")),
                ("web", Some("w-input")),
                ("api", Some("a-input")),
                ("api", Some("a-busy")),
                ("quiet", None),
                ("idle", None),
            ]
        );
        assert_eq!(reg.rows(now())[4].attention_word(), "idle");
        // Waiting elsewhere: from api, web's two; from web, api's one.
        assert_eq!(reg.waiting_elsewhere("/p/api", now()), 2);
        assert_eq!(reg.waiting_elsewhere("/p/web", now()), 1);
        assert_eq!(reg.waiting_elsewhere("/p/other", now()), 3);
        // A project's own stale_after decides what is live there.
        let mut long = reg.clone();
        long.projects[1].stale_after_secs = 3600;
        assert_eq!(long.waiting_elsewhere("/p/api", now()), 3);
    }

    #[test]
    fn a_hook_writes_only_news_or_once_a_minute() {
        let old = ProjectEntry::build(
            None,
            facts("/p/api"),
            session("s1", Attention::Busy, 0),
            now(),
        );
        assert!(needs_write(None, &old, now()));
        // The same facts a few seconds later, a newer event time: nothing to write.
        let later = now() + Duration::seconds(20);
        let mut row = session("s1", Attention::Busy, 0);
        row.last_event_at = Some(iso(later));
        row.last_event = Some("PreCompact".into());
        let same = ProjectEntry::build(Some(&old), facts("/p/api"), row.clone(), later);
        assert!(!needs_write(Some(&old), &same, later));
        // A minute on, the times are refreshed.
        let minute = now() + REFRESH;
        let again = ProjectEntry::build(Some(&old), facts("/p/api"), row.clone(), minute);
        assert!(needs_write(Some(&old), &again, minute));
        // News is written at once: attention, context, branch, blocked, a new session.
        let mut waiting = row.clone();
        waiting.attention = Some(Attention::WaitingPermission);
        let e = ProjectEntry::build(Some(&old), facts("/p/api"), waiting, later);
        assert!(needs_write(Some(&old), &e, later));
        let mut fuller = row.clone();
        fuller.context_pct = Some(75);
        let e = ProjectEntry::build(Some(&old), facts("/p/api"), fuller, later);
        assert!(needs_write(Some(&old), &e, later));
        let mut f = facts("/p/api");
        f.branch = Some("feat/x".into());
        let e = ProjectEntry::build(Some(&old), f, row.clone(), later);
        assert!(needs_write(Some(&old), &e, later));
        let mut f = facts("/p/api");
        f.blocked = 1;
        let e = ProjectEntry::build(Some(&old), f, row.clone(), later);
        assert!(needs_write(Some(&old), &e, later));
        let e = ProjectEntry::build(
            Some(&old),
            facts("/p/api"),
            session("s2", Attention::Busy, 0),
            later,
        );
        assert_eq!(e.sessions.len(), 2);
        assert!(needs_write(Some(&old), &e, later));
        // An ended session leaves the entry (and that is news).
        let e = ProjectEntry::build(
            Some(&old),
            facts("/p/api"),
            session("s1", Attention::Ended, 0),
            later,
        );
        assert!(e.sessions.is_empty());
        assert!(needs_write(Some(&old), &e, later));
    }

    #[test]
    fn the_registry_is_bounded_and_stale_projects_are_dropped() {
        let mut reg = Registry::default();
        for i in 0..(MAX_PROJECTS + 20) {
            let mut p = project(&format!("/p/{i}"), 0, vec![]);
            p.seen_at = iso(now() - Duration::seconds(i as i64));
            reg.upsert(p, now());
        }
        assert_eq!(reg.projects.len(), MAX_PROJECTS);
        // The most recently heard from are kept, newest first.
        assert_eq!(reg.projects[0].root, "/p/0");
        assert!(reg.entry(&format!("/p/{}", MAX_PROJECTS + 5)).is_none());
        // A week of silence drops a project at the next write.
        let mut old = project("/p/old", 0, vec![]);
        old.seen_at = iso(now() - KEEP_PROJECT - Duration::minutes(1));
        reg.projects.push(old);
        reg.upsert(project("/p/new", 0, vec![]), now());
        assert!(reg.entry("/p/old").is_none());
        assert_eq!(reg.entry("/p/new").unwrap().root, "/p/new");
        // Sessions per project are capped, the most recent kept.
        let mut e = None;
        for i in 0..(MAX_SESSIONS + 4) {
            let at = now() + Duration::seconds(i as i64);
            let mut row = session(&format!("s{i}"), Attention::Busy, 0);
            row.last_event_at = Some(iso(at));
            e = Some(ProjectEntry::build(e.as_ref(), facts("/p/api"), row, at));
        }
        let e = e.unwrap();
        assert_eq!(e.sessions.len(), MAX_SESSIONS);
        assert_eq!(e.sessions[0].id, format!("s{}", MAX_SESSIONS + 3));
    }

    #[test]
    fn what_a_file_holds_is_brought_within_bounds() {
        let long = "x".repeat(5000);
        let json = serde_json::json!({
            "version": 1,
            "projects": [
                {"root": "relative/path", "seen_at": iso(now())},
                {"root": format!("/{long}"), "seen_at": iso(now())},
                {"root": "/p/a", "name": long, "branch": long, "seen_at": iso(now()),
                 "sessions": [
                    {"id": "../../etc", "attention": "busy"},
                    {"id": "ok-1", "attention": "waiting:input", "context_pct": 99,
                     "level": "L9", "last_event": "Stop\u{1b}[2J", "last_event_at": "yesterday"},
                    {"id": "ok-2", "attention": "from-a-newer-forge"},
                    {"id": "ok-3", "context_pct": 300},
                    {"id": "ok-1", "attention": "busy"}
                 ]},
                {"root": "/p/a", "seen_at": iso(now())},
                "not an object",
                {"root": "/p/b", "seen_at": "garbage", "blocked": -1}
            ]
        });
        let reg = Registry::parse(&serde_json::to_vec(&json).unwrap());
        assert_eq!(reg.projects.len(), 1, "{reg:#?}");
        let p = &reg.projects[0];
        assert_eq!(p.name.chars().count(), MAX_NAME);
        assert_eq!(p.branch.as_ref().unwrap().chars().count(), MAX_BRANCH);
        assert_eq!(p.sessions.len(), 1, "{:#?}", p.sessions);
        let s = &p.sessions[0];
        assert_eq!(s.id, "ok-1");
        assert_eq!(s.level, None);
        assert_eq!(s.last_event, None);
        assert_eq!(s.last_event_at, None);
        assert!(!s.is_live(now(), p.stale_after()), "no time: not live");
        // Garbage is an empty registry, never an error.
        assert_eq!(Registry::parse(b"{not json"), Registry::default());
        assert_eq!(Registry::parse(b""), Registry::default());
        assert_eq!(Registry::parse(b"[1,2]"), Registry::default());
    }

    #[test]
    fn a_list_field_that_is_not_a_list_is_an_empty_list() {
        // A project whose `sessions` is not a list keeps its entry, with no
        // sessions, as outcomes do in `events.jsonl` (model::lenient).
        let json = serde_json::json!({"projects": [
            {"root": "/p/a", "seen_at": iso(now()), "sessions": "not a list"},
            {"root": "/p/b", "seen_at": iso(now()), "sessions": {"id": "s1"}},
        ]});
        let reg = Registry::parse(&serde_json::to_vec(&json).unwrap());
        let roots: Vec<&str> = reg.projects.iter().map(|p| p.root.as_str()).collect();
        assert_eq!(roots, ["/p/a", "/p/b"]);
        assert!(reg.projects.iter().all(|p| p.sessions.is_empty()));
        let none = serde_json::json!({"version": 1, "projects": 7});
        assert_eq!(
            Registry::parse(&serde_json::to_vec(&none).unwrap()),
            Registry::default()
        );
    }

    #[test]
    fn facts_take_the_folder_name_and_refuse_roots_that_cannot_be_keys() {
        let f = ProjectFacts::new("/src/acme-api", Some("main"), 3, Duration::hours(2)).unwrap();
        assert_eq!(f.name, "acme-api");
        assert_eq!(f.blocked, 3);
        assert_eq!(f.stale_after_secs, 7200);
        assert_eq!(
            ProjectFacts::new("/", None, 0, Duration::minutes(30))
                .unwrap()
                .name,
            "/"
        );
        assert!(ProjectFacts::new("rel", None, 0, Duration::minutes(30)).is_none());
        let long = format!("/{}", "y".repeat(MAX_ROOT));
        assert!(ProjectFacts::new(&long, None, 0, Duration::minutes(30)).is_none());
    }

    #[test]
    fn a_session_row_comes_from_its_bridge() {
        let bridge: SessionBridge = serde_json::from_value(serde_json::json!({
            "session_id": "3f0c",
            "used_percentage": 86.4,
            "attention": "waiting:permission",
            "last_event": "PermissionRequest",
            "last_event_at": "2026-11-21T11:59:00Z",
        }))
        .unwrap();
        let row = SessionRow::of("3f0c", Some(&bridge), &Thresholds::default());
        assert_eq!(row.context_pct, Some(86));
        assert_eq!(row.level(), Some(Level::L2));
        assert!(row.is_waiting());
        assert!(row.is_live(now(), Duration::minutes(30)));
        let none = SessionRow::of("3f0c", None, &Thresholds::default());
        assert_eq!(none.attention, None);
        assert!(!none.is_live(now(), Duration::minutes(30)));
    }

    #[test]
    fn a_row_heard_from_far_in_the_future_is_not_live() {
        // As for the project's own view (snapshot::is_live): a wrong clock, or a
        // bridge a repository shipped, cannot keep a session in view.
        let mut ahead = SessionRow {
            id: "s1".into(),
            attention: Some(Attention::WaitingInput),
            ..SessionRow::default()
        };
        ahead.last_event_at = Some(iso(now() + Duration::minutes(2)));
        assert!(ahead.is_live(now(), Duration::minutes(30)));
        ahead.last_event_at = Some(iso(now() + Duration::days(30)));
        assert!(!ahead.is_live(now(), Duration::minutes(30)));
    }

    #[test]
    fn a_late_pending_registration_keeps_newer_facts_and_adds_its_row() {
        let t0 = chrono::Utc::now() - Duration::minutes(5);
        let facts = |branch: &str| {
            ProjectFacts::new("/p/a", Some(branch), 0, Duration::minutes(30)).unwrap()
        };
        let row = |id: &str, at: DateTime<Utc>| SessionRow {
            id: id.into(),
            attention: Some(Attention::Busy),
            last_event: Some("Stop".into()),
            last_event_at: Some(iso(at)),
            ..SessionRow::default()
        };
        let mut reg = Registry::default();
        let newer = t0 + Duration::minutes(2);
        reg.apply(Pending {
            facts: facts("feat"),
            row: row("s2", newer),
            at: iso(newer),
        });
        // Written earlier, folded later: the newer branch stays, its session joins.
        reg.apply(Pending {
            facts: facts("main"),
            row: row("s1", t0),
            at: iso(t0),
        });
        let e = reg.entry("/p/a").unwrap();
        assert_eq!(e.branch.as_deref(), Some("feat"));
        let ids: Vec<&str> = e.sessions.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["s2", "s1"]);
        // An older row of a session kept newer is not taken.
        reg.apply(Pending {
            facts: facts("main"),
            row: SessionRow {
                attention: Some(Attention::WaitingInput),
                ..row("s2", t0)
            },
            at: iso(t0),
        });
        let s2 = &reg.entry("/p/a").unwrap().sessions[0];
        assert_eq!(s2.attention, Some(Attention::Busy));
        // A pending file out of bounds is no registration.
        let bad = serde_json::json!({"facts": {"root": "relative", "name": "x", "blocked": 0,
            "stale_after_secs": 60}, "row": {"id": "s"}, "at": iso(t0)});
        assert!(Pending::parse(bad.to_string().as_bytes()).is_none());
        let huge = serde_json::json!({"facts": {"root": "/p/a", "name": "a", "blocked": 0,
            "stale_after_secs": u64::MAX}, "row": {"id": "s"}, "at": iso(t0)});
        let p = Pending::parse(huge.to_string().as_bytes()).unwrap();
        assert_eq!(p.facts.stale_after_secs, 365 * 86_400);
        let good = serde_json::to_vec(&Pending {
            facts: facts("main"),
            row: row("s1", t0),
            at: iso(t0),
        })
        .unwrap();
        assert!(Pending::parse(&good).is_some());
    }
}
