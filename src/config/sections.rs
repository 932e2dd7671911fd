//! The config's sections as typed values: what each key holds, read once when a
//! file is loaded (enums for the keys that name one of a few values, [`Span`] for
//! durations), and the built-in defaults.

use serde::{Deserialize, Serialize};

use crate::model::agents::alert::{AlertReason, AlertVia};
use crate::model::agents::ladder::LadderAction;
use crate::model::agents::notify::{NotifyEvent, NotifyMode};
use crate::model::segment::{DEFAULT_SEGMENTS, DEFAULT_WRAP_SEGMENTS, Segment, WrapPosition};
use crate::model::session::dirty::DirtyWarning;
use crate::model::session::level::Thresholds;
use crate::model::session::state::ResumeAuto;
use crate::model::time::Span;

/// Context levels and the handoff threshold, in percent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct ContextConfig {
    /// Start of L1 (default 70).
    pub(crate) warn: f64,
    /// Start of L2 (default 85).
    pub(crate) critical: f64,
    /// Start of L3 (default 95).
    pub(crate) emergency: f64,
    /// The statusline shows `⚠ CTX` and fires the automatic handoff from here (default 70).
    pub(crate) handoff_threshold: f64,
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
    pub(crate) fn thresholds(&self) -> Thresholds {
        Thresholds {
            warn: self.warn,
            critical: self.critical,
            emergency: self.emergency,
        }
    }
}

/// What the statusline shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct StatuslineConfig {
    /// Segments in order.
    pub(crate) segments: Vec<Segment>,
    /// Width of the context bar in cells (default 10).
    pub(crate) bar_width: u16,
    /// With `forge statusline --wrap`: where forge's segments go (default `after`,
    /// on a line of their own when they would not fit after the other tool's first
    /// line).
    pub(crate) wrap_position: WrapPosition,
    /// With `forge statusline --wrap`: forge's segments, in order (default
    /// [`DEFAULT_WRAP_SEGMENTS`]).
    pub(crate) wrap_segments: Vec<Segment>,
}

impl Default for StatuslineConfig {
    fn default() -> Self {
        Self {
            segments: DEFAULT_SEGMENTS.to_vec(),
            bar_width: 10,
            wrap_position: WrapPosition::After,
            wrap_segments: DEFAULT_WRAP_SEGMENTS.to_vec(),
        }
    }
}

/// Git facts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct GitConfig {
    /// How long the hooks' git cache is trusted by the statusline, in seconds.
    pub(crate) cache_ttl_secs: u64,
}

impl Default for GitConfig {
    fn default() -> Self {
        Self { cache_ttl_secs: 30 }
    }
}

/// Hook behaviour switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct HooksConfig {
    /// PreCompact writes a safety-net handoff when the session has none yet.
    pub(crate) handoff_on_precompact: bool,
    /// After a proven compaction, the first tool call that is not read-only is denied
    /// once with what to re-read (and Stop blocks once when no tool ran).
    pub(crate) compaction_reread: bool,
    /// When Stop warns the person about uncommitted changes: `grew` (past the count
    /// the session started with, or last warned about), `changed` (whenever the count
    /// changed) or `off` ([`crate::model::session::dirty`]). It only changes what forge shows.
    pub(crate) dirty_warning: DirtyWarning,
}

impl Default for HooksConfig {
    fn default() -> Self {
        Self {
            handoff_on_precompact: true,
            compaction_reread: true,
            dirty_warning: DirtyWarning::Grew,
        }
    }
}

/// Learning reminders and `MEMORY.md` housekeeping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct LearnConfig {
    /// SessionStart reminds the session to run /forge-learn while `learn-pending` is
    /// set (the flag is still kept, for `status` and the dashboard).
    pub(crate) nudge: bool,
    /// `forge learn archive` keeps `MEMORY.md` at or under this many lines.
    pub(crate) memory_max_lines: usize,
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
pub(crate) struct ResumeConfig {
    /// Automatic handoffs (threshold, pre-compact): `recent` (injected while younger
    /// than `max_age`), `always`, or `never` (only named). A handoff the user chose
    /// is always injected.
    pub(crate) auto: ResumeAuto,
    /// The age limit of `auto = "recent"`: `30m`, `12h`, `2d`…
    pub(crate) max_age: Span,
    /// The most bytes SessionStart gives the model (the orientation with the resumed
    /// handoff), 1024 to 10240; never more than Claude Code's own cap of 10,000
    /// characters, so forge stops at 9,500 whatever this says.
    pub(crate) max_bytes: usize,
}

impl Default for ResumeConfig {
    fn default() -> Self {
        Self {
            auto: ResumeAuto::Recent,
            max_age: Span::default_of("12h"),
            max_bytes: 10 * 1024,
        }
    }
}

/// Who is shown as needing attention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct AttentionConfig {
    /// A live session silent for longer than this leaves "needs attention".
    pub(crate) stale_after: Span,
}

impl Default for AttentionConfig {
    fn default() -> Self {
        Self {
            stale_after: Span::default_of("30m"),
        }
    }
}

impl AttentionConfig {
    /// `stale_after` as a duration.
    pub(crate) fn stale_after(&self) -> chrono::Duration {
        self.stale_after.get()
    }
}

/// Handoff retention.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct HandoffsConfig {
    /// SessionEnd prunes handoffs as `forge handoff prune --older-than OLDER_THAN
    /// --keep KEEP` would.
    pub(crate) auto_prune: bool,
    /// Handoffs older than this may be pruned.
    pub(crate) older_than: Span,
    /// The newest this many handoffs are always kept.
    pub(crate) keep: usize,
    /// The most bytes a session handoff document takes, 2048 to 65536: past it,
    /// sections give up their text in a stated order (docs/design.md#handoff-documents).
    pub(crate) max_bytes: usize,
}

impl Default for HandoffsConfig {
    fn default() -> Self {
        Self {
            auto_prune: false,
            older_than: Span::default_of("30d"),
            keep: 50,
            max_bytes: 8 * 1024,
        }
    }
}

impl HandoffsConfig {
    /// `older_than` as a duration.
    pub(crate) fn older_than(&self) -> chrono::Duration {
        self.older_than.get()
    }
}

/// The escalation ladder (`[ladder]`, after anvil's checkpoints): what happens the
/// first time a session reaches each level. L1's `handoff` is the threshold handoff
/// at `[context] handoff_threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct LadderConfig {
    /// At L1 (default: handoff).
    #[serde(rename = "L1")]
    pub(crate) l1: Vec<LadderAction>,
    /// At L2 (default: alert).
    #[serde(rename = "L2")]
    pub(crate) l2: Vec<LadderAction>,
    /// At L3 (default: handoff and alert).
    #[serde(rename = "L3")]
    pub(crate) l3: Vec<LadderAction>,
    /// Branches `wip_commit` never commits on (`*` matches anything).
    pub(crate) protected_branches: Vec<String>,
}

impl Default for LadderConfig {
    fn default() -> Self {
        Self {
            l1: vec![LadderAction::Handoff],
            l2: vec![LadderAction::Alert],
            l3: vec![LadderAction::Handoff, LadderAction::Alert],
            protected_branches: ["main", "master", "release/*"].map(str::to_owned).to_vec(),
        }
    }
}

impl LadderConfig {
    /// The actions at `level`.
    pub(crate) fn at(&self, level: crate::model::session::level::Level) -> &[LadderAction] {
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
pub(crate) struct RelayConfig {
    /// The context % at which the session is ended and the task carried on. The
    /// default, 75, comes before Claude Code's own compaction on every window (at
    /// about 83.5 % of a 200k window and 96.7 % of a 1M one, docs/client-reference.md §7.1), with
    /// room for a turn of tool output: a higher one never relays a 200k session.
    pub(crate) threshold: f64,
    /// The most continuations a chain starts.
    pub(crate) max_handoffs: u32,
    /// How long a session gets to end after SIGINT before SIGTERM.
    pub(crate) grace_secs: u64,
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

/// Wake messages to an orchestrating agent (`[notify]`): off until `command` is set,
/// and taken only from the user's own config (it runs a command).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct NotifyConfig {
    /// The program and its first arguments; the message is appended as the last
    /// argument (or given on stdin with `stdin = true`). Empty: off.
    pub(crate) command: Vec<String>,
    /// Give the message on stdin instead of as the last argument.
    pub(crate) stdin: bool,
    /// Which events send one.
    pub(crate) events: Vec<NotifyEvent>,
    /// `async` (started detached; the hook returns at once) or `bidirectional`
    /// (Stop waits for a reply that can keep the session working).
    pub(crate) mode: NotifyMode,
    /// How long a bidirectional Stop waits for the reply.
    pub(crate) timeout_secs: u64,
    /// Lines of the tmux pane sent (inside tmux only).
    pub(crate) pane_capture_lines: usize,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        Self {
            command: Vec::new(),
            stdin: false,
            events: NotifyEvent::ALL.to_vec(),
            mode: NotifyMode::Async,
            timeout_secs: 30,
            pane_capture_lines: 40,
        }
    }
}

/// Sharing Signals through the repository's git remote (`[share]`, docs/share.md):
/// off until `remote` is set, and taken only from your own config (it sends and
/// fetches over the network); a project file's `[share]` is ignored, trusted or not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct ShareConfig {
    /// The git remote (`origin`) Signals are published to and fetched from. Empty:
    /// off.
    pub(crate) remote: String,
    /// A resolved Signal older than this many days is no longer published.
    pub(crate) retention_days: u32,
    /// How long one run (fetch and push together) may take before git is stopped.
    pub(crate) timeout_secs: u64,
}

impl Default for ShareConfig {
    fn default() -> Self {
        Self {
            remote: String::new(),
            retention_days: 14,
            timeout_secs: 30,
        }
    }
}

/// Alerts to the person (`[alerts]`, docs/alerts.md): taken only from the user's
/// own config (they write to the terminal and run programs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct AlertsConfig {
    /// Which reasons alert: `permission`, `question`, `turn_done`, `blocked`,
    /// `relay_stopped`. Empty: no alerts.
    pub(crate) on: Vec<AlertReason>,
    /// How: `auto`, `osc9`, `osc777`, `notify-send`, `osascript`, `bell`.
    pub(crate) via: AlertVia,
    /// One alert per session and reason within this span.
    pub(crate) debounce: Span,
}

impl Default for AlertsConfig {
    fn default() -> Self {
        Self {
            on: crate::model::agents::alert::DEFAULT_ON.to_vec(),
            via: AlertVia::Auto,
            debounce: Span::default_of("2m"),
        }
    }
}

impl ShareConfig {
    /// The remote, when sharing is on.
    pub(crate) fn remote(&self) -> Option<&str> {
        Some(self.remote.trim()).filter(|r| !r.is_empty())
    }
}

/// A command of the user's that forge runs on a context event (`[[on_threshold]]`,
/// `[[on_session_start]]`), with one JSON object on stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UserHook {
    /// Run with `sh -c` in the project folder.
    pub(crate) command: String,
    /// Killed (with its process group) after this many seconds (default 10).
    #[serde(default = "default_hook_timeout")]
    pub(crate) timeout_secs: u64,
    /// `on_threshold` only: the context % that fires it (default: the handoff threshold).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) threshold: Option<f64>,
    /// `on_threshold` only: at the handoff threshold, this command replaces forge's
    /// own handoff.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) replace_handoff: bool,
}

fn default_hook_timeout() -> u64 {
    10
}

/// The effective configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// `[context]`.
    pub(crate) context: ContextConfig,
    /// `[statusline]`.
    pub(crate) statusline: StatuslineConfig,
    /// `[git]`.
    pub(crate) git: GitConfig,
    /// `[hooks]`.
    pub(crate) hooks: HooksConfig,
    /// `[learn]`.
    pub(crate) learn: LearnConfig,
    /// `[resume]`.
    pub(crate) resume: ResumeConfig,
    /// `[attention]`.
    pub(crate) attention: AttentionConfig,
    /// `[handoffs]`.
    pub(crate) handoffs: HandoffsConfig,
    /// `[notify]`.
    pub(crate) notify: NotifyConfig,
    /// `[alerts]`.
    pub(crate) alerts: AlertsConfig,
    /// `[ladder]`.
    pub(crate) ladder: LadderConfig,
    /// `[relay]`.
    pub(crate) relay: RelayConfig,
    /// `[share]`.
    pub(crate) share: ShareConfig,
    /// `[[on_threshold]]`: commands run once per crossing of their threshold.
    pub(crate) on_threshold: Vec<UserHook>,
    /// `[[on_session_start]]`: commands whose output is added to SessionStart's text.
    pub(crate) on_session_start: Vec<UserHook>,
    /// The context values that decide when forge acts for you, when they differ from
    /// [`Config::context`]: a project file nobody trusted set some (they apply to what
    /// forge shows; see `Side::Gates`). Not a key: set by the loader.
    #[serde(skip)]
    pub(crate) gates: Option<ContextConfig>,
}

impl Config {
    /// The context levels and handoff threshold at which your own steps act (the
    /// ladder, the threshold handoff, `[[on_threshold]]`, `forge run`'s hooks): from
    /// your own file, the defaults, or a project file you trusted — never from one
    /// you did not, whose values only change what forge shows.
    pub(crate) fn acting_context(&self) -> &ContextConfig {
        self.gates.as_ref().unwrap_or(&self.context)
    }

    /// The `on_threshold` hooks with their effective thresholds (a hook without one
    /// runs at the acting handoff threshold).
    pub(crate) fn threshold_hooks(&self) -> impl Iterator<Item = (usize, &UserHook, f64)> {
        let at = self.acting_context().handoff_threshold;
        self.on_threshold
            .iter()
            .enumerate()
            .map(move |(i, h)| (i, h, h.threshold.unwrap_or(at)))
    }
}
