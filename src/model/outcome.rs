//! What a hook call (or `forge handoff`) did, as values: the `outcomes` of an
//! `events.jsonl` line.
//!
//! The hooks return these (`crate::hooks::dispatch::Handled`), the dispatcher writes
//! them into the call's one event line, and `forge log` and the dashboard's activity
//! view read them back and say, in words, what happened and why (like `starship
//! explain`). The type lives in `model` because writers (hooks, `forge handoff`)
//! and readers (`forge log`, the dashboard) sit in different layers.
//!
//! On disk each outcome is an object tagged by `kind` (`{"kind": "denied", "tool":
//! "Write", "reason": "…"}`). A reader meets kinds from a newer forge as
//! [`Outcome::Unknown`], never as an unreadable line.

use serde::{Deserialize, Deserializer, Serialize};

/// Something a hook call did (or chose not to do, and why).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// PreToolUse held a tool call back (`permissionDecision: deny`).
    Denied {
        /// The tool.
        tool: String,
        /// What the client was told.
        reason: String,
    },
    /// Stop blocked the end of the turn once (`decision: block`).
    StopBlocked {
        /// What the model was told.
        reason: String,
    },
    /// A message shown to the person (Stop's `systemMessage`).
    Warned {
        /// The message.
        message: String,
    },
    /// A session handoff was written.
    HandoffWritten {
        /// Its absolute path.
        path: String,
        /// Why (`context-threshold`, `pre-compact`, `manual`, `session-end`, `relay`).
        trigger: String,
        /// Whether it became the pending resume (the project's marker was written).
        pending: bool,
    },
    /// No handoff was written, and why.
    HandoffSkipped {
        /// The trigger that would have written it.
        trigger: String,
        /// Why not.
        why: String,
    },
    /// SessionStart added a pending handoff to the new session's context.
    ResumeInjected {
        /// The handoff.
        path: String,
    },
    /// SessionStart left a pending handoff alone (or could not use it), and why.
    ResumeSkipped {
        /// The handoff (empty when unknown).
        path: String,
        /// Why.
        why: String,
    },
    /// A flag file was set (`learn-pending`…).
    FlagSet {
        /// The flag's file name.
        flag: String,
        /// Why, when it says more than the event.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        why: String,
    },
    /// A flag file was cleared.
    FlagCleared {
        /// The flag's file name.
        flag: String,
        /// Why, when it says more than the event.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        why: String,
    },
    /// SessionStart listed blocked agent Signals for the new session.
    SignalsSurfaced {
        /// Their tasks, newest first.
        tasks: Vec<String>,
    },
    /// SessionStart told the session of the Signals addressed to its agent that it
    /// had not been told of (answers to its questions among them).
    SignalsTold {
        /// The agent.
        agent: String,
        /// Their tasks, newest first.
        tasks: Vec<String>,
    },
    /// SessionStart(`compact`) counted a proven compaction.
    CompactionRecorded {
        /// The files the session is asked to re-read.
        reread: Vec<String>,
        /// Whether the one-shot re-read marker was armed (`[hooks]
        /// compaction_reread`, and something to re-read).
        armed: bool,
    },
    /// SessionStart(`compact`) or PostCompact found the compaction counted already
    /// by the other (the pinned client sends both): not counted twice.
    CompactionKnown {
        /// The files the session is asked to re-read.
        reread: Vec<String>,
    },
    /// SessionStart showed the person these one-line notices (the client draws its
    /// `systemMessage` under the session's banner).
    PersonNotified {
        /// The lines.
        lines: Vec<String>,
    },
    /// PostCompact kept the client's compaction summary for the next handoff.
    SummaryKept {
        /// Its length in characters (redacted).
        chars: usize,
    },
    /// PreCompact waited for a handoff of this session that was being written.
    HandoffAwaited {
        /// How long it waited, in milliseconds.
        waited_ms: u64,
        /// It landed within the wait (else the compaction went on without it).
        landed: bool,
    },
    /// PreCompact captured the state a compaction may lose.
    StateCaptured {
        /// The branch then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
        /// Uncommitted changes then.
        uncommitted: u64,
    },
    /// Stop or SessionEnd recorded `last-session.json`.
    SessionRecorded {
        /// The branch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        branch: Option<String>,
        /// Uncommitted changes.
        uncommitted: u64,
        /// SessionEnd (the session is over) rather than a turn's Stop.
        #[serde(rename = "final")]
        is_final: bool,
    },
    /// SessionStart added text to the new session's context.
    ContextAdded {
        /// Its length in characters.
        chars: usize,
    },
    /// The session's attention state in its bridge (for the dashboard).
    AttentionSet {
        /// `busy`, `waiting:permission`, `waiting:input` or `ended`.
        state: String,
    },
    /// Stale files were removed (per-session files untouched for a week, temp files
    /// a killed writer left behind).
    Pruned {
        /// How many files.
        count: usize,
    },
    /// Handoff retention (`[handoffs] auto_prune`) removed old handoffs.
    HandoffsPruned {
        /// How many.
        count: usize,
    },
    /// A user hook (`[[on_threshold]]`, `[[on_session_start]]`) ran to its end.
    UserHookRan {
        /// `on_threshold` or `on_session_start`.
        hook: String,
        /// The command (cut to 200 characters).
        command: String,
        /// Its exit code (`None`: killed by a signal).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit: Option<i32>,
        /// How long it took.
        ms: u64,
    },
    /// A user hook could not start, timed out or failed; the session went on.
    UserHookFailed {
        /// `on_threshold` or `on_session_start`.
        hook: String,
        /// The command (cut to 200 characters).
        command: String,
        /// What went wrong.
        why: String,
    },
    /// The ladder's WIP commit of tracked changes.
    WipCommitted {
        /// The commit (short id).
        commit: String,
        /// Its message.
        message: String,
    },
    /// The ladder's WIP commit was not made, and why (a protected branch, a file
    /// that looks like a secret, nothing to commit, no git identity).
    WipSkipped {
        /// Why.
        why: String,
    },
    /// A changed file the ladder's WIP commit left out because it could not scan
    /// it for secrets (binary, or over the scan's size cap); the rest was committed.
    WipLeftOut {
        /// The file (relative to the work tree).
        path: String,
        /// Why it could not be scanned.
        why: String,
    },
    /// The ladder's alert was added to the prompt the model gets.
    Alerted {
        /// The note.
        text: String,
    },
    /// The dashboard answered a session's prompt in its tmux pane.
    PaneAnswered {
        /// The pane, `%N`.
        pane: String,
        /// `approve` or `deny`.
        answer: String,
        /// The tmux keys sent.
        keys: String,
    },
    /// The dashboard typed a prompt into a session's tmux pane.
    PanePrompted {
        /// The pane.
        pane: String,
        /// How long the prompt was (its text is not kept).
        chars: u64,
    },
    /// The dashboard sent nothing: the pane did not show that prompt.
    PaneRefused {
        /// The pane.
        pane: String,
        /// What was asked.
        answer: String,
        /// Why nothing was sent.
        why: String,
    },
    /// An alert reached the person (`[alerts]`).
    AlertSent {
        /// `permission`, `question`, `turn_done`, `blocked`, `relay_stopped` or
        /// `test`.
        reason: String,
        /// How: `osc9`, `osc777`, `notify-send`, `osascript`, `bell`.
        via: String,
        /// What it said.
        text: String,
    },
    /// An alert was not sent: debounced, or the pane is in view.
    AlertSkipped {
        /// Its reason.
        reason: String,
        /// Why not.
        why: String,
    },
    /// An alert could not be delivered.
    AlertFailed {
        /// Its reason.
        reason: String,
        /// What went wrong.
        why: String,
    },
    /// A wake message went to the `[notify]` command.
    Notified {
        /// `stop`, `idle`, `permission`, `session_end`, `pre_compact` or `session_start`.
        event: String,
        /// `async` or `bidirectional`.
        mode: String,
    },
    /// `forge run` ended a session at its relay threshold and started the next.
    Relayed {
        /// The chain (its first session id).
        chain: String,
        /// The handoff the next session starts from.
        handoff: String,
        /// Which continuation starts (1, 2, …).
        continuation: u32,
        /// The context % at hand-over.
        context_pct: Option<u64>,
    },
    /// A `forge run` session's `PostToolUse` hook asked the client to stop after
    /// its tool calls (`continue: false`), for the relay.
    RelayStopAsked {
        /// The tool call that had just run.
        tool: String,
    },
    /// A `forge run` chain ended.
    ChainEnded {
        /// The chain (its first session id).
        chain: String,
        /// Its sessions.
        sessions: u64,
        /// Its handoffs.
        handoffs: u64,
        /// Its exit status.
        exit: Option<i32>,
    },
    /// An agent wrote an agent handoff through `forge mcp` (its `signal` or `resolve`
    /// tool).
    SignalWritten {
        /// Its absolute path.
        path: String,
        /// The task.
        task: String,
        /// `complete`, `partial` or `blocked`.
        status: String,
        /// The agent it is for.
        to: String,
        /// The blocked Signal it resolves (its file name), for `resolve`.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        resolves: String,
    },
    /// A `forge mcp` tool (or resource read) answered without writing anything.
    ToolAnswered {
        /// The tool (`inbox`, `status`) or `resources/read`.
        tool: String,
        /// What it answered, in words.
        summary: String,
    },
    /// A `forge mcp` tool call was refused: its input was not valid, or what it asked
    /// for could not be done. Nothing was written.
    ToolRefused {
        /// The tool.
        tool: String,
        /// Why, as the agent was told.
        why: String,
    },
    /// The project's `.forge/config.toml` has keys that make forge act, and you have
    /// not trusted its content: they were left out (said once per content).
    ConfigIgnored {
        /// The file.
        file: String,
        /// The keys left out (`ladder.L1`, `agents.builder.notify.mode`).
        keys: Vec<String>,
        /// Why (not trusted, or changed since you trusted it).
        why: String,
    },
    /// `forge share` sent or fetched something new through the git remote
    /// (docs/share.md).
    Shared {
        /// The remote.
        remote: String,
        /// How many Signals were published (0: nothing new to send).
        sent: usize,
        /// How many writers' refs were fetched.
        writers: usize,
        /// How many of their Signals changed in the local cache.
        fetched: usize,
    },
    /// `forge share` could not reach the remote, or git refused: forge goes on
    /// locally (said once until a run succeeds).
    ShareFailed {
        /// The remote.
        remote: String,
        /// What failed, as git said it.
        why: String,
    },
    /// A fetched ref (or an entry of it) was refused or capped (said once).
    ShareRefused {
        /// What and why.
        why: String,
    },
    /// Something failed (also in `errors.log`); the hook still exited 0.
    Error {
        /// What was being done.
        what: String,
        /// The error.
        message: String,
    },
    /// An outcome a newer forge wrote.
    #[serde(other)]
    Unknown,
}

impl Outcome {
    /// Whether it reports a failure.
    pub(crate) fn is_error(&self) -> bool {
        matches!(
            self,
            Self::Error { .. } | Self::UserHookFailed { .. } | Self::ToolRefused { .. }
        ) || matches!(self, Self::UserHookRan { exit, .. } if *exit != Some(0))
    }

    /// Whether it carries text from outside forge that [`Outcome::redacted`] looks at.
    pub(crate) fn carries_outside_text(&self) -> bool {
        matches!(
            self,
            Self::StopBlocked { .. }
                | Self::Warned { .. }
                | Self::UserHookRan { .. }
                | Self::UserHookFailed { .. }
                | Self::WipCommitted { .. }
                | Self::WipSkipped { .. }
                | Self::Alerted { .. }
                | Self::AlertSent { .. }
                | Self::AlertFailed { .. }
                | Self::SignalWritten { .. }
                | Self::ToolAnswered { .. }
                | Self::ToolRefused { .. }
                | Self::ShareFailed { .. }
                | Self::ShareRefused { .. }
                | Self::Error { .. }
        )
    }

    /// The outcome with its text from outside forge (an orchestrator's reply, a user
    /// hook's command line and error, a WIP commit's message, what an agent gave a
    /// `forge mcp` tool, an error message) redacted, as it is stored in
    /// `events.jsonl`. Outcomes that carry only forge's own words, paths and counts
    /// are returned as they are, without a look.
    pub(crate) fn redacted(self) -> Self {
        use crate::model::text::redact::redact;
        match self {
            Self::StopBlocked { reason } => Self::StopBlocked {
                reason: redact(&reason),
            },
            Self::Warned { message } => Self::Warned {
                message: redact(&message),
            },
            Self::UserHookRan {
                hook,
                command,
                exit,
                ms,
            } => Self::UserHookRan {
                hook,
                command: redact(&command),
                exit,
                ms,
            },
            Self::UserHookFailed { hook, command, why } => Self::UserHookFailed {
                hook,
                command: redact(&command),
                why: redact(&why),
            },
            Self::WipCommitted { commit, message } => Self::WipCommitted {
                commit,
                message: redact(&message),
            },
            Self::WipSkipped { why } => Self::WipSkipped { why: redact(&why) },
            Self::Alerted { text } => Self::Alerted {
                text: redact(&text),
            },
            // What an agent gave `forge mcp` (a task, an agent's name, a refused
            // argument's name quoted in the refusal) or what a file named.
            Self::SignalWritten {
                path,
                task,
                status,
                to,
                resolves,
            } => Self::SignalWritten {
                path,
                task: redact(&task),
                status,
                to: redact(&to),
                resolves,
            },
            Self::SignalsTold { agent, tasks } => Self::SignalsTold {
                agent: redact(&agent),
                tasks: tasks.iter().map(|t| redact(t)).collect(),
            },
            Self::ToolAnswered { tool, summary } => Self::ToolAnswered {
                tool,
                summary: redact(&summary),
            },
            Self::ToolRefused { tool, why } => Self::ToolRefused {
                tool: redact(&tool),
                why: redact(&why),
            },
            Self::ShareFailed { remote, why } => Self::ShareFailed {
                remote: redact(&remote),
                why: redact(&why),
            },
            Self::ShareRefused { why } => Self::ShareRefused { why: redact(&why) },
            Self::Error { what, message } => Self::Error {
                what,
                message: redact(&message),
            },
            other => other,
        }
    }

    /// What happened and why, in one line of words.
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per Outcome variant, in the enum's order: a table that grows with the enum, read best whole"
    )]
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Denied { tool, reason } => format!("denied {tool}: {reason}"),
            Self::StopBlocked { reason } => format!("blocked the stop once: {reason}"),
            Self::Warned { message } => format!("warned: {message}"),
            Self::HandoffWritten {
                path,
                trigger,
                pending,
            } => format!(
                "wrote {} ({trigger}){}",
                file_name(path),
                match (*pending, trigger.as_str()) {
                    (true, _) => ", now the pending resume",
                    (false, "relay") => ", not pending: the chain's next session starts from it",
                    (false, _) => ", not pending",
                }
            ),
            Self::HandoffSkipped { trigger, why } => format!("no {trigger} handoff: {why}"),
            Self::ResumeInjected { path } => {
                format!("resumed {} into the new session", file_name(path))
            }
            Self::ResumeSkipped { path, why } if path.is_empty() => {
                format!("resumed nothing: {why}")
            }
            Self::ResumeSkipped { path, why } => {
                format!("did not resume {}: {why}", file_name(path))
            }
            Self::FlagSet { flag, why } => with_why(format!("set {flag}"), why),
            Self::FlagCleared { flag, why } => with_why(format!("cleared {flag}"), why),
            Self::SignalsSurfaced { tasks } => format!(
                "surfaced {} blocked Signal{}: {}",
                tasks.len(),
                if tasks.len() == 1 { "" } else { "s" },
                tasks.join(", ")
            ),
            Self::SignalsTold { agent, tasks } => format!(
                "told {agent} of {} Signal{} addressed to it: {}",
                tasks.len(),
                if tasks.len() == 1 { "" } else { "s" },
                tasks.join(", ")
            ),
            Self::CompactionRecorded { reread, .. } if reread.is_empty() => {
                "recorded a compaction; nothing to re-read (no handoff, no file in the \
                 transcript)"
                    .to_owned()
            }
            Self::CompactionRecorded { reread, armed } => {
                let what = if *armed {
                    "re-read asked once before the next tool"
                } else {
                    "re-read suggested (compaction_reread is off)"
                };
                format!("recorded a compaction; {what}: {}", reread.join(", "))
            }
            Self::CompactionKnown { reread } if reread.is_empty() => {
                "the compaction was counted already by its other hook; nothing to re-read"
                    .to_owned()
            }
            Self::CompactionKnown { reread } => format!(
                "the compaction was counted already by its other hook; re-read: {}",
                reread.join(", ")
            ),
            Self::PersonNotified { lines } => format!("told the person: {}", lines.join(" / ")),
            Self::SummaryKept { chars } => format!(
                "kept Claude Code's compaction summary ({chars} characters, redacted) for the next handoff"
            ),
            Self::HandoffAwaited {
                waited_ms,
                landed: true,
            } => format!(
                "waited {waited_ms} ms for this session's handoff to land before the compaction"
            ),
            Self::HandoffAwaited {
                waited_ms,
                landed: false,
            } => format!(
                "this session's handoff was still being written after {waited_ms} ms: the compaction goes on without waiting longer"
            ),
            Self::StateCaptured {
                branch,
                uncommitted,
            } => format!(
                "captured the state before a possible compaction: {}",
                tree(branch.as_deref(), *uncommitted)
            ),
            Self::SessionRecorded {
                branch,
                uncommitted,
                is_final,
            } => format!(
                "recorded the {}: {}",
                if *is_final { "session's end" } else { "turn" },
                tree(branch.as_deref(), *uncommitted)
            ),
            Self::ContextAdded { chars } => {
                format!("added {chars} characters to the session's context")
            }
            Self::AttentionSet { state } => format!("session is {state}"),
            Self::Pruned { count } => format!(
                "removed {count} stale file{} (sessions untouched for a week, leftover temp files)",
                if *count == 1 { "" } else { "s" }
            ),
            Self::HandoffsPruned { count } => format!(
                "pruned {count} old handoff{} ([handoffs] auto_prune)",
                if *count == 1 { "" } else { "s" }
            ),
            Self::UserHookRan {
                hook,
                command,
                exit,
                ms,
            } => format!(
                "ran your {hook} hook `{command}`: {} in {ms} ms",
                match exit {
                    Some(0) => "exit 0".to_owned(),
                    Some(n) => format!("failed with exit {n}"),
                    None => "killed by a signal".to_owned(),
                }
            ),
            Self::UserHookFailed { hook, command, why } => {
                format!("your {hook} hook `{command}` failed: {why}")
            }
            Self::WipCommitted { commit, message } => format!("committed {commit}: {message}"),
            Self::WipSkipped { why } => format!("no WIP commit: {why}"),
            Self::WipLeftOut { path, why } => {
                format!("left {path} out of the WIP commit: {why}")
            }
            Self::Alerted { text } => format!("told the model: {text}"),
            Self::AlertSent { reason, via, text } => {
                format!("alerted you ({reason}, by {via}): {text}")
            }
            Self::AlertSkipped { reason, why } => format!("no {reason} alert: {why}"),
            Self::PaneAnswered { pane, answer, keys } => {
                format!(
                    "the dashboard {answer}d the permission prompt in tmux pane {pane} (sent {keys})"
                )
            }
            Self::PanePrompted { pane, chars } => {
                format!("the dashboard sent a prompt of {chars} characters to tmux pane {pane}")
            }
            Self::PaneRefused { pane, answer, why } => {
                format!("the dashboard did not {answer} in tmux pane {pane}: {why}")
            }
            Self::AlertFailed { reason, why } => format!("the {reason} alert failed: {why}"),
            Self::Notified { event, mode } => format!(
                "sent a wake message ({event}) to your [notify] command{}",
                if mode == "bidirectional" {
                    " and read its reply"
                } else {
                    ""
                }
            ),
            Self::Relayed {
                chain,
                handoff,
                continuation,
                context_pct,
            } => format!(
                "relayed chain {chain} at {}: wrote {}, started continuation {continuation}",
                context_pct.map_or_else(|| "the threshold".to_owned(), |p| format!("{p}%")),
                file_name(handoff)
            ),
            Self::RelayStopAsked { tool } => format!(
                "asked the session to stop after its {tool} call, between replies, for forge run's relay"
            ),
            Self::ChainEnded {
                chain,
                sessions,
                handoffs,
                exit,
            } => format!(
                "chain {chain} ended after {sessions} session{} and {handoffs} handoff{}: {}",
                if *sessions == 1 { "" } else { "s" },
                if *handoffs == 1 { "" } else { "s" },
                exit.map_or_else(|| "killed by a signal".to_owned(), |c| format!("exit {c}"))
            ),
            Self::SignalWritten {
                path,
                task,
                status,
                to,
                resolves,
            } if resolves.is_empty() => {
                format!(
                    "wrote {} (a {status} Signal of {task} for {to})",
                    file_name(path)
                )
            }
            Self::SignalWritten {
                path,
                task,
                status,
                to,
                resolves,
            } => format!(
                "resolved {task} ({resolves}): wrote {} (a {status} Signal for {to})",
                file_name(path)
            ),
            Self::ToolAnswered { tool, summary } => format!("answered {tool}: {summary}"),
            Self::ToolRefused { tool, why } => format!("refused {tool}: {why}"),
            Self::ConfigIgnored { file, keys, why } => format!(
                "ignored {} {} of {file}: {why}; `forge trust` shows what {} and trusts the file",
                if keys.len() == 1 {
                    "the acting key"
                } else {
                    "the acting keys"
                },
                keys.join(", "),
                if keys.len() == 1 {
                    "it does"
                } else {
                    "they do"
                }
            ),
            Self::Shared {
                remote,
                sent,
                writers,
                fetched,
            } => format!(
                "shared through {remote}: sent {sent} Signal{}, fetched {writers} writer{} ({fetched} Signal{} changed)",
                if *sent == 1 { "" } else { "s" },
                if *writers == 1 { "" } else { "s" },
                if *fetched == 1 { "" } else { "s" }
            ),
            Self::ShareFailed { remote, why } => {
                format!("could not share through {remote} (forge goes on locally): {why}")
            }
            Self::ShareRefused { why } => format!("refused from the remote: {why}"),
            Self::Error { what, message } => format!("error ({what}): {message}"),
            Self::Unknown => "(an outcome this forge version does not know)".to_owned(),
        }
    }
}

fn with_why(what: String, why: &str) -> String {
    if why.is_empty() {
        what
    } else {
        format!("{what}: {why}")
    }
}

fn tree(branch: Option<&str>, uncommitted: u64) -> String {
    format!(
        "branch {}, {uncommitted} uncommitted",
        branch.unwrap_or("(none)")
    )
}

/// The file name of a path written as text (the whole text when it has none).
fn file_name(path: &str) -> &str {
    path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path)
}

/// Reads an `outcomes` array leniently: an element that is not an outcome this
/// version knows (a newer kind, a field of another type) becomes
/// [`Outcome::Unknown`] instead of making the whole event line unreadable.
pub(crate) fn deserialize_lenient<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Vec<Outcome>, D::Error> {
    crate::model::lenient::items_or(d, || Some(Outcome::Unknown))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_outcomes_with_outside_text_are_redacted() {
        let key = "sk_live_51HxAbCdEfGhIjKlMnOpQrStUv";
        let with_key = |o: &Outcome| serde_json::to_string(o).unwrap().contains(key);
        for o in [
            Outcome::StopBlocked {
                reason: format!("use {key}"),
            },
            Outcome::Warned {
                message: format!("use {key}"),
            },
            Outcome::UserHookRan {
                hook: "on_threshold".into(),
                command: format!("notify {key}"),
                exit: Some(0),
                ms: 3,
            },
            Outcome::UserHookFailed {
                hook: "on_threshold".into(),
                command: format!("notify {key}"),
                why: format!("said {key}"),
            },
            Outcome::WipCommitted {
                commit: "abc1234".into(),
                message: format!("[WIP] {key}"),
            },
            Outcome::WipSkipped {
                why: key.to_owned(),
            },
            Outcome::Alerted {
                text: key.to_owned(),
            },
            Outcome::Error {
                what: "x".into(),
                message: key.to_owned(),
            },
        ] {
            assert!(o.carries_outside_text() && with_key(&o));
            assert!(!with_key(&o.clone().redacted()), "{o:?}");
        }
        let plain = Outcome::HandoffWritten {
            path: "/p/.forge/handoffs/handoff-20261121-101502.md".into(),
            trigger: "manual".into(),
            pending: true,
        };
        assert!(!plain.carries_outside_text());
        assert_eq!(plain.clone().redacted(), plain);
    }

    #[test]
    fn outcomes_are_tagged_by_kind_on_disk() {
        let o = Outcome::Denied {
            tool: "Write".into(),
            reason: "re-read first".into(),
        };
        assert_eq!(
            serde_json::to_value(&o).unwrap(),
            json!({"kind": "denied", "tool": "Write", "reason": "re-read first"})
        );
        let s = Outcome::SessionRecorded {
            branch: None,
            uncommitted: 2,
            is_final: true,
        };
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            json!({"kind": "session_recorded", "uncommitted": 2, "final": true})
        );
        let back: Outcome = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn unknown_kinds_and_bad_fields_do_not_spoil_the_line() {
        #[derive(Deserialize)]
        struct Line {
            #[serde(default, deserialize_with = "deserialize_lenient")]
            outcomes: Vec<Outcome>,
        }
        let line: Line = serde_json::from_value(json!({"outcomes": [
            {"kind": "flag_set", "flag": "learn-pending"},
            {"kind": "teleported", "where": "mars"},
            {"kind": "denied", "tool": 7},
            "not even an object"
        ]}))
        .unwrap();
        assert_eq!(
            line.outcomes,
            [
                Outcome::FlagSet {
                    flag: "learn-pending".into(),
                    why: String::new()
                },
                Outcome::Unknown,
                Outcome::Unknown,
                Outcome::Unknown
            ]
        );
        let none: Line = serde_json::from_value(json!({"outcomes": null})).unwrap();
        assert!(none.outcomes.is_empty());
    }

    #[test]
    fn descriptions_say_what_and_why() {
        let cases = [
            (
                Outcome::HandoffWritten {
                    path: "/p/.forge/handoffs/handoff-20261121-101502.md".into(),
                    trigger: "context-threshold".into(),
                    pending: true,
                },
                "wrote handoff-20261121-101502.md (context-threshold), now the pending resume",
            ),
            (
                Outcome::ResumeSkipped {
                    path: "/p/.forge/handoffs/handoff-1.md".into(),
                    why: "it belongs to another session".into(),
                },
                "did not resume handoff-1.md: it belongs to another session",
            ),
            (
                Outcome::SignalsSurfaced {
                    tasks: vec!["T-12".into(), "T-13".into()],
                },
                "surfaced 2 blocked Signals: T-12, T-13",
            ),
            (
                Outcome::FlagCleared {
                    flag: "learn-pending".into(),
                    why: "the learn notice was shown".into(),
                },
                "cleared learn-pending: the learn notice was shown",
            ),
            (
                Outcome::SessionRecorded {
                    branch: Some("main".into()),
                    uncommitted: 3,
                    is_final: false,
                },
                "recorded the turn: branch main, 3 uncommitted",
            ),
            (
                Outcome::ConfigIgnored {
                    file: "/p/.forge/config.toml".into(),
                    keys: vec!["ladder.L1".into(), "notify.mode".into()],
                    why: "you have not trusted this file".into(),
                },
                "ignored the acting keys ladder.L1, notify.mode of /p/.forge/config.toml: you have not trusted this file; `forge trust` shows what they do and trusts the file",
            ),
            (
                Outcome::CompactionRecorded {
                    reread: vec![".forge/handoffs/handoff-1.md".into(), "SPEC.md".into()],
                    armed: true,
                },
                "recorded a compaction; re-read asked once before the next tool: \
                 .forge/handoffs/handoff-1.md, SPEC.md",
            ),
            (
                Outcome::CompactionRecorded {
                    reread: Vec::new(),
                    armed: false,
                },
                "recorded a compaction; nothing to re-read (no handoff, no file in the transcript)",
            ),
        ];
        for (o, want) in cases {
            assert_eq!(o.describe(), want);
        }
        assert!(
            Outcome::Error {
                what: "hook".into(),
                message: "x".into()
            }
            .is_error()
        );
    }
}
