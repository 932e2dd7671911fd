//! What a hook call decides, as values: the pure half of `forge hook`.
//!
//! A hook call has the status line's shape: gather → decide → apply.
//! `crate::hooks::gather` reads what the event needs, each file once (git scans on a
//! helper thread meanwhile); a function here turns those facts, the payload and the
//! time into a [`Plan`] — what to print, the effects to carry out in order, and the
//! session bridge's change; `crate::hooks::apply` carries it out, writing only what
//! changed and the bridge at most once, under its lock. Every decision can be
//! tested here without a disk.
//!
//! One file per concern, one plain function per event:
//!
//! - [`turn`] — `Stop` (every turn) and `SessionEnd` (the last one).
//! - [`tool`] — `PreToolUse` (edits, the turn's command baseline, the re-read hold)
//!   and `PostToolUse` (`forge run`'s stop).
//! - [`compaction`] — `PreCompact`, and the re-read list a compaction asks for.
//! - [`attention`] — `Notification`, `PermissionRequest`, `UserPromptSubmit`.
//! - [`start`] — `SessionStart`'s parts (the orientation text, the resume decision,
//!   whose work a session continues), which `crate::hooks::session_start` runs in
//!   named steps around what only I/O can do (taking the pending resume, the user's
//!   own commands).
//!
//! Beside them: [`wire`] (the payload as sent) and [`event`] (as forge cares about
//! it), [`bridge`] (the bridge's change, merged under the lock), [`text`] (Claude
//! Code's budgets).
//!
//! This wing sits at the top, beside `dashboard`: it is the hooks' face on the model
//! and draws on the `session`, `handoff` and `agents` wings.

pub(crate) mod attention;
pub(crate) mod bridge;
pub(crate) mod compaction;
pub(crate) mod event;
pub(crate) mod notice;
pub(crate) mod start;
pub(crate) mod text;
pub(crate) mod tool;
pub(crate) mod turn;
pub(crate) mod wire;

use crate::model::outcome::Outcome;
use crate::model::session::dirty::DirtyWarning;
use crate::model::session::state::{
    CompactionRecord, GitCache, LastSession, PreCompactState, ResumeAuto, SessionBridge,
};
use crate::model::time::Span;

pub(crate) use bridge::BridgeEdit;

/// What one hook call does, decided: carried out by `crate::hooks::apply`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Plan {
    /// What to print on stdout (often nothing).
    pub(crate) stdout: String,
    /// What to do, in order. Each effect records its outcome (or error) as it is
    /// carried out, so the call's event line lists them in this order.
    pub(crate) effects: Vec<Effect>,
    /// The session bridge's change, written after the effects (`None`: the bridge is
    /// not written).
    pub(crate) bridge: Option<BridgeEdit>,
}

impl Plan {
    /// Adds an outcome decided already.
    pub(crate) fn record(&mut self, outcome: Outcome) {
        self.effects.push(Effect::Record(outcome));
    }

    /// Adds an effect.
    pub(crate) fn then(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// The outcomes this plan records as it is (those of its [`Effect::Record`]s).
    #[cfg(test)]
    pub(crate) fn recorded(&self) -> impl Iterator<Item = &Outcome> {
        self.effects.iter().filter_map(|e| match e {
            Effect::Record(o) => Some(o),
            _ => None,
        })
    }
}

/// Something a hook call does, with the outcome it records. What the effect writes
/// or removes is named, never a path: `crate::hooks::apply` knows where it lives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// An outcome decided already: recorded as it is.
    Record(Outcome),
    /// A failure the call carries on after: logged to `errors.log` and recorded as
    /// an `error` outcome.
    Fail {
        /// What was being done.
        what: String,
        /// The error.
        message: String,
    },
    /// `logs/git-cache.json` gets the facts this call computed (only when the stored
    /// ones differ, or are older than a few seconds). Silent.
    SaveGitCache(GitCache),
    /// `logs/last-session.json`: `session_recorded`, or an error `last-session`.
    RecordSession(LastSession),
    /// `logs/pre-compact-state.json`, synced: `state_captured`. When it cannot be
    /// written the call stops there, with an error `hook PreCompact` (and sends no
    /// wake message).
    CaptureState(PreCompactState),
    /// `logs/learn-pending` set: `flag_set` with `why`, or an error `learn-pending`.
    SetLearnFlag {
        /// Why, as the outcome says it.
        why: String,
    },
    /// `logs/learn-pending` removed: `flag_cleared` with `why`. With `report` (the
    /// end of a turn) it is said whichever call removed it, and a failure is an
    /// error `learn-pending`; without (SessionStart) only when this call removed it,
    /// and a failure is passed over.
    ClearLearnFlag {
        /// Why, as the outcome says it.
        why: String,
        /// Say it, and any failure, whoever removed the flag.
        report: bool,
    },
    /// The session's re-read flag: it re-reads after a compaction (silent).
    MarkRereading {
        /// The session.
        session: String,
    },
    /// Per-session files nobody touched for [`start::SESSION_RETENTION`] removed
    /// (never `keep`'s), with forge's stale temp files: `pruned` when any were.
    PruneSessions {
        /// The session starting now.
        keep: Option<String>,
    },
    /// Handoff retention (`[handoffs] auto_prune`): `handoffs_pruned`, and an error
    /// `handoff prune` per file that could not be removed.
    PruneHandoffs {
        /// Handoffs older than this may go.
        older_than: chrono::Duration,
        /// The newest this many stay.
        keep: usize,
    },
    /// Forge's stale temp files in the Claude Code folder removed (what a killed
    /// write of the global marker left). Silent.
    PruneClaudeTemp,
    /// The session's threshold guard and its line of `context-threshold-triggered`
    /// removed (its `threshold_crossed_at` goes with the bridge's change). Silent.
    RearmThreshold {
        /// The session.
        session: String,
    },
    /// `context-threshold-triggered` removed: `flag_cleared` with `why` when this
    /// call removed it.
    ClearThresholdFlag {
        /// Why, as the outcome says it.
        why: String,
    },
    /// A proven compaction: its line in `compactions.jsonl`, and when `armed` the
    /// session's one-shot re-read marker (its re-read flag removed):
    /// `compaction_recorded`, or an error `SessionStart compaction`.
    RecordCompaction {
        /// The line.
        record: CompactionRecord,
        /// The files to re-read.
        reread: Vec<String>,
        /// Arm the marker.
        armed: bool,
    },
    /// PostCompact: the client's compaction summary (redacted) kept in
    /// `logs/sessions/<id>.summary.json` for the session's next handoff:
    /// `summary_kept`, or an error `PostCompact summary`.
    KeepSummary {
        /// The session.
        session: String,
        /// The summary, redacted.
        text: String,
        /// `auto` or `manual`.
        trigger: Option<String>,
    },
    /// PreCompact's safety net: a session handoff (trigger `pre-compact`) made the
    /// pending resume; `handoff_written` (and an error per marker that could not be
    /// written), or an error `PreCompact handoff`. Its `handoff_written_at` goes
    /// with the bridge's change.
    SafetyNetHandoff {
        /// The session.
        session: String,
        /// Git's answer for it (`None`: git took too long; never asked twice).
        git: Option<GitCache>,
    },
}

/// The settings a hook decides with: the person's config (read once per call) as
/// the decisions need it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    /// `[hooks] dirty_warning`.
    pub(crate) dirty_warning: DirtyWarning,
    /// `[hooks] compaction_reread`.
    pub(crate) compaction_reread: bool,
    /// `[hooks] handoff_on_precompact`.
    pub(crate) handoff_on_precompact: bool,
    /// `[learn] nudge`.
    pub(crate) learn_nudge: bool,
    /// `[resume] auto`.
    pub(crate) resume_auto: ResumeAuto,
    /// `[resume] max_age` (its text is what the outcome that cites it says).
    pub(crate) resume_max_age: Span,
    /// `[attention] stale_after`.
    pub(crate) stale_after: chrono::Duration,
    /// `[handoffs] auto_prune`: how old, and how many stay (`None`: off).
    pub(crate) auto_prune: Option<(chrono::Duration, usize)>,
    /// `[resume] max_bytes`: the most bytes SessionStart gives the model.
    pub(crate) resume_max_bytes: usize,
    /// Where the times a person reads are shown (the process's zone).
    pub(crate) zone: crate::model::time::Zone,
}

impl Default for Settings {
    /// The config's defaults (a test of `crate::hooks::call` checks that they agree).
    fn default() -> Self {
        Self {
            dirty_warning: DirtyWarning::Grew,
            compaction_reread: true,
            handoff_on_precompact: true,
            learn_nudge: true,
            resume_auto: ResumeAuto::Recent,
            resume_max_age: Span::default_of("12h"),
            stale_after: chrono::Duration::minutes(30),
            auto_prune: None,
            resume_max_bytes: 10 * 1024,
            zone: crate::model::time::Zone::Local,
        }
    }
}

/// The session a call is about, as the call found it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Session {
    /// The payload's `session_id`.
    pub(crate) id: Option<String>,
    /// Its bridge file, read once (`None`: none yet, or the call needs none).
    pub(crate) bridge: Option<SessionBridge>,
    /// The Claude Code process that runs the hook (`$CLAUDE_PID`).
    pub(crate) client_pid: Option<u32>,
}

impl Session {
    /// The session's id, when the payload names one.
    pub(crate) fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }
}

/// The learn flag as a call found it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LearnFlag {
    /// `logs/learn-pending` is there.
    pub(crate) set: bool,
    /// A `learned-*.md` of the project's memory is newer than it: the learning it
    /// asks for happened.
    pub(crate) learned_after: bool,
}

/// What the re-read marker said when this call took it: the files to re-read, or a
/// phrase for them when the list is empty.
pub(crate) fn reread_or_generic(files: &[String]) -> Vec<String> {
    if files.is_empty() {
        vec!["the files you were working on".to_owned()]
    } else {
        files.to_vec()
    }
}
