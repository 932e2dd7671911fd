//! The JSON state files of docs/design.md#state-files, as typed values.
//!
//! Field names are the contract other tools read: do not rename them. Readers are
//! lenient (`#[serde(default)]` everywhere, unknown fields ignored).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::lenient::{text_at, value_at};
use crate::model::named::named;

/// `logs/last-session.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct LastSession {
    /// ISO 8601 UTC.
    pub(crate) ended_at: String,
    /// Branch at the time (`null` outside git).
    pub(crate) branch: Option<String>,
    /// Count of uncommitted changes.
    pub(crate) uncommitted_changes: u64,
    /// `state.json` `phase`.
    pub(crate) forge_phase: Option<String>,
    /// `state.json` `task` or `build.current_task`.
    pub(crate) forge_task: Option<String>,
    /// The session that wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) session_id: Option<String>,
    /// That session's transcript.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) transcript_path: Option<String>,
    /// SessionEnd's `reason`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// True when written by SessionEnd.
    #[serde(rename = "final")]
    pub(crate) is_final: bool,
    /// The last known context use of that session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) context_used_pct: Option<f64>,
}

impl LastSession {
    /// When it ended, as people read it (the dashboard and `forge status`):
    /// `ended 14m ago, 11-21 10:12` in `zone`, `ended just now, …`; a time that does
    /// not parse is shown as written (`ended at …`, kept on one line).
    pub(crate) fn ended_words(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        zone: crate::model::time::Zone,
    ) -> String {
        crate::model::time::parse_iso(&self.ended_at).map_or_else(
            || {
                format!(
                    "ended at {}",
                    crate::model::text::sanitize::single_line(&self.ended_at)
                )
            },
            |t| format!("ended {}", zone.ago_at(now, t)),
        )
    }

    /// The record of a session that is still live (see
    /// [`crate::model::snapshot::live_last_session`]): written at the end of its last
    /// turn, so it says when that turn ended — `last turn 2m ago, 11-21 10:12`.
    pub(crate) fn last_turn_words(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        zone: crate::model::time::Zone,
    ) -> String {
        crate::model::time::parse_iso(&self.ended_at).map_or_else(
            || {
                format!(
                    "last turn at {}",
                    crate::model::text::sanitize::single_line(&self.ended_at)
                )
            },
            |t| format!("last turn {}", zone.ago_at(now, t)),
        )
    }
}

/// One line of `logs/compactions.jsonl`: a compaction that happened. Written when
/// SessionStart (`source: compact`) proves it, never on PreCompact alone (a
/// compaction can be cancelled, or abandoned and retried: docs/client-reference.md §9.1 #2). The
/// client writes the transcript's `compact_boundary` only after that hook, so the
/// token figures are not known here (`forge context` reads them from the transcript).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct CompactionRecord {
    /// When forge saw the proof (ISO 8601 UTC).
    pub(crate) compacted_at: String,
    /// The compacted session.
    pub(crate) session_id: Option<String>,
    /// `manual` or `auto`, from this session's PreCompact capture.
    pub(crate) trigger: Option<String>,
    /// When that capture was taken (`pre-compact-state.json`'s `captured_at`).
    pub(crate) captured_at: Option<String>,
}

/// `logs/pre-compact-state.json`: what PreCompact captured (a compaction *may*
/// follow).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct PreCompactState {
    /// ISO 8601 UTC.
    pub(crate) captured_at: String,
    /// Branch at the time.
    pub(crate) branch: Option<String>,
    /// Count of uncommitted changes.
    pub(crate) uncommitted_changes: u64,
    /// Repo-relative names of recently changed files (never contents).
    pub(crate) recent_files: Vec<String>,
    /// `auto` or `manual`.
    pub(crate) trigger: Option<String>,
    /// The session being compacted.
    pub(crate) session_id: Option<String>,
}

/// What a session is doing, for "sessions needing attention".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Attention {
    /// Working.
    #[serde(rename = "busy")]
    Busy,
    /// A permission prompt is open.
    #[serde(rename = "waiting:permission")]
    WaitingPermission,
    /// Claude finished and waits for the user.
    #[serde(rename = "waiting:input")]
    WaitingInput,
    /// The session ended.
    #[serde(rename = "ended")]
    Ended,
}

impl Attention {
    /// The contract spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Busy => "busy",
            Self::WaitingPermission => "waiting:permission",
            Self::WaitingInput => "waiting:input",
            Self::Ended => "ended",
        }
    }
    /// Whether a person should look at this session.
    pub(crate) fn needs_attention(self) -> bool {
        !matches!(self, Self::Busy)
    }

    /// Urgency, most urgent first: a permission prompt blocks the session, an idle
    /// one waits for its person, a busy one is only worth a glance. An ended session
    /// is not in the attention list at all.
    pub(crate) fn urgency(self) -> u8 {
        match self {
            Self::WaitingPermission => 0,
            Self::WaitingInput => 1,
            Self::Busy => 2,
            Self::Ended => 3,
        }
    }
}

/// One context reading, kept for trend and forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Reading {
    /// ISO 8601 UTC.
    pub(crate) at: String,
    /// Input-side tokens in context.
    pub(crate) tokens: Option<u64>,
    /// Used percentage.
    pub(crate) pct: f64,
}

/// Who made a handoff the pending resume: the second line of a pending-resume
/// marker (its first is the handoff's absolute path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResumeOrigin {
    /// A person chose it (`forge resume`, Enter in the dashboard, `forge handoff`):
    /// injected into the next session whatever its age.
    Chosen,
    /// Written automatically (the threshold, PreCompact's safety net): injected only
    /// as `[resume] auto` allows.
    Auto,
}

impl ResumeOrigin {
    /// The marker's second line.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Chosen => "chosen",
            Self::Auto => "auto",
        }
    }
}

/// What SessionStart does with a pending handoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResumeDecision {
    /// Its text goes into the new session's context.
    Inject,
    /// One line names it; `forge resume` brings it back.
    Name,
}

named! {
    /// `[resume] auto`: which automatic handoffs SessionStart injects.
    pub(crate) enum ResumeAuto {
        /// Those younger than `[resume] max_age` (the default).
        Recent = "recent",
        /// Every one.
        Always = "always",
        /// None: they are only named.
        Never = "never",
    }
}

/// The resume policy: a chosen handoff is always injected; an automatic one as
/// `auto` says — `always`, `never`, or `recent` (younger than `max_age`; a handoff
/// of unknown age is not recent).
pub(crate) fn resume_decision(
    origin: ResumeOrigin,
    age: Option<chrono::Duration>,
    auto: ResumeAuto,
    max_age: chrono::Duration,
) -> ResumeDecision {
    let inject = match (origin, auto) {
        (ResumeOrigin::Chosen, _) | (ResumeOrigin::Auto, ResumeAuto::Always) => true,
        (ResumeOrigin::Auto, ResumeAuto::Never) => false,
        (ResumeOrigin::Auto, ResumeAuto::Recent) => age.is_some_and(|a| a < max_age),
    };
    if inject {
        ResumeDecision::Inject
    } else {
        ResumeDecision::Name
    }
}

/// At most this many of a turn's command ids are kept ([`SessionBridge::command_calls`]);
/// past it the newest is not recorded, and the turn counts as having run a command.
pub(crate) const COMMAND_CALLS_MAX: usize = 32;

/// `logs/sessions/<session_id>.json`: what the statusline and hooks know of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct SessionBridge {
    /// The session id.
    pub(crate) session_id: String,
    /// Latest `used_percentage`.
    pub(crate) used_percentage: Option<f64>,
    /// Latest `context_window_size`.
    pub(crate) context_window_size: Option<u64>,
    /// Latest input-side tokens.
    pub(crate) tokens: Option<u64>,
    /// Model display name.
    pub(crate) model: Option<String>,
    /// Transcript path.
    pub(crate) transcript_path: Option<String>,
    /// Working directory last reported.
    pub(crate) cwd: Option<String>,
    /// Recent readings, oldest first, bounded by [`SessionBridge::MAX_READINGS`].
    pub(crate) readings: Vec<Reading>,
    /// The last hook event seen.
    pub(crate) last_event: Option<String>,
    /// When it was seen (ISO 8601 UTC).
    pub(crate) last_event_at: Option<String>,
    /// busy / waiting:permission / waiting:input / ended.
    pub(crate) attention: Option<Attention>,
    /// The message of the last notification (e.g. which tool needs permission).
    pub(crate) attention_message: Option<String>,
    /// When this session last wrote a handoff.
    pub(crate) handoff_written_at: Option<String>,
    /// When this session crossed the handoff threshold.
    pub(crate) threshold_crossed_at: Option<String>,
    /// The uncommitted count when the session started (SessionStart): a tree that
    /// was already this dirty is not news ([`crate::model::session::dirty`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dirty_at_start: Option<u64>,
    /// The floor of the next dirty-tree warning: the uncommitted count Stop last
    /// warned the person about, lowered when the tree got cleaner since
    /// ([`crate::model::session::dirty::decide`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dirty_warned: Option<u64>,
    /// The work tree's [`GitCache::fingerprint`] at the turn's first command (Bash):
    /// the end of the turn compares against it, then clears it
    /// ([`crate::model::session::learn`]). `None`: no command ran in this turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) command_baseline: Option<String>,
    /// The ids (`tool_use_id`) of this turn's commands (Bash calls) since the
    /// baseline, at most [`COMMAND_CALLS_MAX`]: when the person refused every one at
    /// the client's prompt, none ran, and a change of the tree is not the session's.
    /// Cleared with the baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) command_calls: Vec<String>,
    /// The session ran a file-editing tool (Edit, Write, MultiEdit, NotebookEdit) on
    /// a file of the project since its baseline.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) files_edited: bool,
    /// The Claude Code process of the session (`$CLAUDE_PID` of its hooks), and its
    /// start time in clock ticks since boot (`/proc/<pid>/stat`), so a pid reused by
    /// another process is not taken for it: a session whose process is gone has
    /// ended, whatever its last event said (a client killed with `kill -9` runs no
    /// SessionEnd hook).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) client_pid: Option<u32>,
    /// See [`SessionBridge::client_pid`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) client_started: Option<u64>,
    /// A threshold handoff was written and the status line has not marked it yet
    /// (the handoff's file name): set by the threshold handoff, cleared by the
    /// status line's next tick, which shows `✎ handoff` once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) handoff_mark: Option<String>,
    /// How many handoffs led to this session (0: it started fresh; one more than
    /// the session whose handoff it resumed; a `forge run` chain's count), for the
    /// `handoff_count` of `[[on_session_start]]`'s payload. Set by SessionStart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) chain_handoffs: Option<u64>,
    /// The agent the session runs as, fixed when it starts (SessionStart:
    /// `$FORGE_AGENT`, else the name its `[agents.<name>]` tables are matched by,
    /// the tmux session's, asked once while its pane exists). Wake messages, the
    /// fleet registry and `--json` take it from here, never from tmux after the
    /// pane is gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) agent: Option<String>,
    /// Its tmux pane (`%N`) when it started in tmux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tmux_pane: Option<String>,
    /// That pane's tmux server socket (the first part of `$TMUX`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tmux_socket: Option<String>,
    /// The last reading before the session's last compaction (SessionStart
    /// `compact`): until a reading that differs arrives, a figure equal to it is
    /// that old reading (the client's payload, or the transcript before its
    /// compaction record is written), and crosses no threshold. Cleared by the first
    /// reading that differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) compacted_from: Option<Reading>,
    /// The status line's readings of `rate_limits.five_hour` in its current window
    /// (oldest first; a new window drops the old one's), for the quota pace
    /// ([`crate::model::session::pace`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) quota_5h: Vec<crate::model::session::pace::QuotaReading>,
    /// The same for `rate_limits.seven_day`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) quota_7d: Vec<crate::model::session::pace::QuotaReading>,
    /// Last update of this file (ISO 8601 UTC).
    pub(crate) updated_at: Option<String>,
}

/// Who a session runs as, and where, as its SessionStart found it (see
/// [`SessionBridge::agent`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Identity {
    /// The agent.
    pub(crate) agent: Option<String>,
    /// The tmux pane (`%N`).
    pub(crate) tmux_pane: Option<String>,
    /// The tmux server's socket.
    pub(crate) tmux_socket: Option<String>,
}

impl SessionBridge {
    /// How many readings are kept.
    pub(crate) const MAX_READINGS: usize = 60;

    /// The session's context %: what the status line last reported (Claude Code's
    /// own figure), else its last reading, else what a Stop hook read from the
    /// transcript (print mode has no status line), rounded as the status line
    /// rounds it. The one figure `forge status`, `forge context`, `forge sessions`
    /// and the dashboard all show.
    pub(crate) fn context_pct(&self) -> Option<f64> {
        self.used_percentage
            .or_else(|| self.readings.last().map(|r| r.pct))
            .map(super::transcript::round_pct)
    }

    /// Marks the session ended when its recorded client process is gone (`gone`
    /// answers for a pid and start time); returns whether it did. The views call
    /// this after reading the bridge, so a killed client leaves them within one
    /// refresh.
    pub(crate) fn end_if_client_gone(&mut self, gone: impl Fn(u32, u64) -> bool) -> bool {
        let ended = end_if_client_gone(
            &mut self.attention,
            self.client_pid,
            self.client_started,
            gone,
        );
        if ended {
            self.attention_message = Some("its Claude Code process is gone".to_owned());
        }
        ended
    }

    /// The reading the session had when it last compacted, as [`Self::compacted_from`]
    /// keeps it: its last reading, else its figure.
    pub(crate) fn last_reading(&self) -> Option<Reading> {
        self.readings.last().cloned().or_else(|| {
            Some(Reading {
                at: self.updated_at.clone().unwrap_or_default(),
                tokens: self.tokens,
                pct: self.used_percentage?,
            })
        })
    }

    /// Whether a figure (`pct`, with `tokens` when known) is the reading the session
    /// had before its last compaction ([`Self::compacted_from`]): the same tokens, or
    /// without tokens the same percentage. Such a reading is older than the
    /// compaction: it crosses no threshold.
    pub(crate) fn is_from_before_compaction(&self, pct: f64, tokens: Option<u64>) -> bool {
        self.compacted_from
            .as_ref()
            .is_some_and(|r| match (tokens, r.tokens) {
                (Some(t), Some(old)) => t == old,
                _ => (r.pct - pct).abs() < 1e-9,
            })
    }

    /// Adds a reading unless it repeats the last one; drops the oldest past the cap.
    /// Returns whether anything changed.
    pub(crate) fn push_reading(&mut self, reading: Reading) -> bool {
        if let Some(last) = self.readings.last()
            && last.tokens == reading.tokens
            && (last.pct - reading.pct).abs() < f64::EPSILON
        {
            return false;
        }
        self.readings.push(reading);
        let excess = self.readings.len().saturating_sub(Self::MAX_READINGS);
        self.readings.drain(..excess);
        true
    }
}

/// Sets `attention` to ended when the session's recorded Claude Code process —
/// `pid`, started at `started` (see [`SessionBridge::client_pid`]) — is gone
/// (`gone` answers for both); returns whether it did. A session with no recorded
/// process, or already ended, is left as it is and `gone` is not asked. The bridge
/// and the fleet's row of a session both end this way.
pub(crate) fn end_if_client_gone(
    attention: &mut Option<Attention>,
    pid: Option<u32>,
    started: Option<u64>,
    gone: impl Fn(u32, u64) -> bool,
) -> bool {
    let (Some(pid), Some(started)) = (pid, started) else {
        return false;
    };
    if *attention == Some(Attention::Ended) || !gone(pid, started) {
        return false;
    }
    *attention = Some(Attention::Ended);
    true
}

/// The branch a git `HEAD` file names (`ref: refs/heads/main` → `main`), or
/// `detached@<sha7>` for a detached one; `None` for anything else.
pub(crate) fn branch_of_head(head: &str) -> Option<String> {
    let head = head.trim();
    if let Some(r) = head.strip_prefix("ref:") {
        let r = r.trim();
        return Some(r.strip_prefix("refs/heads/").unwrap_or(r).to_owned());
    }
    head.get(..7).map(|s| format!("detached@{s}"))
}

/// `logs/git-cache.json`: git facts written by hooks so the statusline never runs git.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GitCache {
    /// When it was computed (ISO 8601 UTC).
    pub(crate) updated_at: String,
    /// Branch (or `detached@<sha>`).
    pub branch: Option<String>,
    /// Count of uncommitted changes.
    pub(crate) uncommitted_changes: u64,
    /// Up to 50 changed file names.
    pub(crate) changed_files: Vec<String>,
    /// The commit HEAD points at (none in a repository without commits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) head: Option<String>,
}

impl GitCache {
    /// Whether both say the same about the tree (branch, HEAD commit, uncommitted
    /// count and changed names), whenever each was computed.
    pub(crate) fn same_facts(&self, other: &Self) -> bool {
        self.branch == other.branch
            && self.head == other.head
            && self.uncommitted_changes == other.uncommitted_changes
            && self.changed_files == other.changed_files
    }

    /// Whether these facts are worth writing over `stored`: it says something else,
    /// or (with `rewrite_after`) it is that much older than them (an unchanged
    /// cache's time is then refreshed). Creating a file is the slowest part of a
    /// hook on some file systems.
    pub(crate) fn worth_saving(
        &self,
        stored: Option<&Self>,
        rewrite_after: Option<chrono::Duration>,
    ) -> bool {
        let now = crate::model::time::parse_iso(&self.updated_at);
        let fresh_enough = stored.is_some_and(|old| {
            old.same_facts(self)
                && rewrite_after.is_none_or(|max| {
                    crate::model::time::parse_iso(&old.updated_at)
                        .zip(now)
                        .is_some_and(|(t, now)| now - t < max)
                })
        });
        !fresh_enough
    }

    /// Whether these facts were computed after `other`'s (to the second; an
    /// unreadable time is older than any).
    pub(crate) fn is_newer_than(&self, other: &Self) -> bool {
        let at = |c: &Self| crate::model::time::parse_iso(&c.updated_at);
        at(self) > at(other)
    }

    /// A short digest of the tree's state — branch, HEAD commit, uncommitted count
    /// and changed names — that changes when a session commits, switches branch, or
    /// changes, adds or removes a file (a file already changed and changed again
    /// keeps it; the editing tools are tracked separately).
    pub(crate) fn fingerprint(&self) -> String {
        // FNV-1a, 64 bits: stable across runs and builds, unlike `DefaultHasher`.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
            h ^= 0xff;
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        eat(self.branch.as_deref().unwrap_or("").as_bytes());
        eat(self.head.as_deref().unwrap_or("").as_bytes());
        eat(&self.uncommitted_changes.to_le_bytes());
        for name in &self.changed_files {
            eat(name.as_bytes());
        }
        format!("{h:016x}")
    }
}

/// The parts of the user's `.forge/state.json` forge reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WorkflowState {
    /// `phase`.
    pub phase: Option<String>,
    /// `task`, else `build.current_task`.
    pub task: Option<String>,
}

impl WorkflowState {
    /// Reads `phase` and `task`/`build.current_task` from any JSON value: a string
    /// (trimmed, not blank), a number, or an object's `id` string; anything else is
    /// ignored.
    pub(crate) fn from_value(v: &Value) -> Self {
        let text = |path: &[&str]| {
            let v = value_at(v, path)?;
            text_at(v, &[])
                .or_else(|| v.as_number().map(ToString::to_string))
                .or_else(|| text_at(v, &["id"]))
        };
        Self {
            phase: text(&["phase"]),
            task: text(&["task"]).or_else(|| text(&["build", "current_task"])),
        }
    }
}

/// One line of `logs/events.jsonl`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct EventLine {
    /// ISO 8601 UTC.
    pub(crate) time: String,
    /// Hook event name (or `invalid`).
    pub(crate) event: String,
    /// Session id, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) session: Option<String>,
    /// Short facts (source, reason, tool, notification type…).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub(crate) facts: serde_json::Map<String, Value>,
    /// What the call did, in order (written at the end of the call; absent when it
    /// did nothing worth saying, and in lines from forge versions before outcomes).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "crate::model::outcome::deserialize_lenient"
    )]
    pub(crate) outcomes: Vec<crate::model::outcome::Outcome>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chosen_handoffs_are_always_resumed_and_automatic_ones_as_configured() {
        use ResumeDecision::{Inject, Name};
        use ResumeOrigin::{Auto, Chosen};
        let h = chrono::Duration::hours;
        let max = h(12);
        let d = |o, age, auto| resume_decision(o, age, ResumeAuto::from_name(auto).unwrap(), max);
        assert_eq!(d(Chosen, Some(h(72)), "recent"), Inject);
        assert_eq!(d(Chosen, None, "never"), Inject);
        assert_eq!(d(Auto, Some(h(1)), "recent"), Inject);
        assert_eq!(d(Auto, Some(h(12)), "recent"), Name);
        assert_eq!(d(Auto, Some(h(48)), "recent"), Name);
        assert_eq!(d(Auto, None, "recent"), Name);
        assert_eq!(d(Auto, Some(h(48)), "always"), Inject);
        assert_eq!(d(Auto, Some(h(1)), "never"), Name);
    }

    #[test]
    fn workflow_reads_task_or_build_current_task() {
        let a = WorkflowState::from_value(&json!({"phase":"build","task":"T-1"}));
        assert_eq!(
            (a.phase.as_deref(), a.task.as_deref()),
            (Some("build"), Some("T-1"))
        );
        let b = WorkflowState::from_value(&json!({"phase":"build","build":{"current_task":"T-2"}}));
        assert_eq!(b.task.as_deref(), Some("T-2"));
        let c = WorkflowState::from_value(&json!({"phase":7,"task":null}));
        assert_eq!((c.phase.as_deref(), c.task), (Some("7"), None));
        let d = WorkflowState::from_value(&json!([1, 2]));
        assert_eq!(d, WorkflowState::default());
    }

    #[test]
    fn workflow_task_objects_give_their_id_read_like_any_text() {
        let t = |v: Value| WorkflowState::from_value(&v).task;
        assert_eq!(t(json!({"task": {"id": "T-3"}})).as_deref(), Some("T-3"));
        assert_eq!(
            t(json!({"task": {"id": " T-4 "}, "build": {"current_task": "T-5"}})).as_deref(),
            Some("T-4")
        );
        // A blank id is no task: the next source is tried.
        assert_eq!(
            t(json!({"task": {"id": "  "}, "build": {"current_task": "T-5"}})).as_deref(),
            Some("T-5")
        );
        assert_eq!(t(json!({"task": {"id": 7}})), None);
        assert_eq!(t(json!({"task": "  "})), None);
        assert_eq!(t(json!({"task": true})), None);
    }

    #[test]
    fn last_session_keeps_contract_field_names() {
        let s = LastSession {
            ended_at: "2026-11-21T10:00:00Z".into(),
            branch: Some("main".into()),
            uncommitted_changes: 3,
            ..LastSession::default()
        };
        let v = serde_json::to_value(&s).unwrap();
        for key in [
            "ended_at",
            "branch",
            "uncommitted_changes",
            "forge_phase",
            "forge_task",
            "final",
        ] {
            assert!(v.get(key).is_some(), "{key} missing from {v}");
        }
    }

    #[test]
    fn git_facts_compare_without_their_time_and_age_by_it() {
        let at = |t: &str, branch: &str, n: u64| GitCache {
            updated_at: t.into(),
            branch: Some(branch.into()),
            uncommitted_changes: n,
            ..GitCache::default()
        };
        let old = at("2026-11-21T10:00:00Z", "main", 0);
        let same_later = at("2026-11-21T10:00:05Z", "main", 0);
        assert!(old.same_facts(&same_later));
        assert!(!old.same_facts(&at("2026-11-21T10:00:00Z", "feat/x", 0)));
        assert!(!old.same_facts(&at("2026-11-21T10:00:00Z", "main", 1)));
        assert!(same_later.is_newer_than(&old));
        assert!(!old.is_newer_than(&same_later));
        assert!(
            !old.is_newer_than(&old.clone()),
            "the same second is not newer"
        );
        assert!(old.is_newer_than(&at("garbage", "main", 0)));
        assert!(!at("garbage", "main", 0).is_newer_than(&old));
    }

    #[test]
    fn a_session_ends_when_its_recorded_client_is_gone_and_only_then() {
        let mut b = SessionBridge {
            attention: Some(Attention::WaitingInput),
            ..SessionBridge::default()
        };
        // Nothing recorded: nothing claimed.
        assert!(!b.end_if_client_gone(|_, _| true));
        b.client_pid = Some(42);
        b.client_started = Some(7);
        assert!(!b.end_if_client_gone(|_, _| false));
        assert_eq!(b.attention, Some(Attention::WaitingInput));
        assert!(b.end_if_client_gone(|pid, started| pid == 42 && started == 7));
        assert_eq!(b.attention, Some(Attention::Ended));
        assert_eq!(
            b.attention_message.as_deref(),
            Some("its Claude Code process is gone")
        );
        assert!(!b.end_if_client_gone(|_, _| true), "once");
    }

    #[test]
    fn the_client_check_is_asked_only_of_a_recorded_live_session() {
        let asked = std::cell::Cell::new(0);
        let gone = |_: u32, _: u64| {
            asked.set(asked.get() + 1);
            true
        };
        for (pid, started) in [(None, Some(7)), (Some(42), None), (None, None)] {
            let mut a = Some(Attention::Busy);
            assert!(!end_if_client_gone(&mut a, pid, started, gone));
            assert_eq!(a, Some(Attention::Busy));
        }
        let mut ended = Some(Attention::Ended);
        assert!(!end_if_client_gone(&mut ended, Some(42), Some(7), gone));
        assert_eq!(asked.get(), 0, "nothing to ask about");
        // No attention recorded yet (a row from an older forge): it ends too.
        let mut none = None;
        assert!(end_if_client_gone(&mut none, Some(42), Some(7), gone));
        assert_eq!(none, Some(Attention::Ended));
        // The fleet's row ends the same way, without a message to set.
        let mut row = crate::model::agents::fleet::SessionRow {
            attention: Some(Attention::WaitingPermission),
            client_pid: Some(42),
            client_started: Some(7),
            ..Default::default()
        };
        assert!(!row.end_if_client_gone(|_, _| false));
        assert!(row.end_if_client_gone(|pid, s| pid == 42 && s == 7));
        assert_eq!(row.attention, Some(Attention::Ended));
        assert!(!row.end_if_client_gone(|_, _| true), "once");
    }

    #[test]
    fn readings_are_bounded_and_deduplicated() {
        let mut b = SessionBridge::default();
        for i in 0..100 {
            let r = Reading {
                at: String::new(),
                tokens: Some(i),
                pct: i as f64,
            };
            assert!(b.push_reading(r.clone()));
            assert!(!b.push_reading(r));
        }
        assert_eq!(b.readings.len(), SessionBridge::MAX_READINGS);
        assert_eq!(b.readings.last().unwrap().tokens, Some(99));
    }
}
