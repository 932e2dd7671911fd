//! The relay of `forge run`: reading Claude Code's `--output-format stream-json`
//! lines, tracking the context they report, deciding when to hand a headless task
//! over to a fresh session, the continuation prompt, and the chain record.
//!
//! Pure: the process handling is `crate::app::relay`, the file is
//! `crate::store::chains`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::session::transcript::{infer_window, pct_of};

/// One line of the stream, as far as the relay cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StreamEvent {
    /// `{"type":"system","subtype":"init",…}`: the session started.
    Init {
        /// Its id.
        session_id: Option<String>,
        /// The model it runs (the CLI's spelling, which may carry `[1m]`).
        model: Option<String>,
    },
    /// One line of an assistant message. The client writes a line per content block
    /// (thinking, text, each tool call), all with the message's id: a line is not a
    /// message (see [`Tracker`]).
    Assistant(AssistantLine),
    /// A user line: the tool results it carries (their `tool_use_id`s), or a text
    /// the client wrote itself (`[Request interrupted by user]`).
    User {
        /// The tool calls answered.
        tool_results: Vec<String>,
        /// A subagent's message (`parent_tool_use_id` set).
        sidechain: bool,
    },
    /// `{"type":"system","subtype":"status","status":…}`: `compacting` or not.
    Status {
        /// The stream says it is compacting now.
        compacting: bool,
    },
    /// `{"type":"system","subtype":"compact_boundary",…}`: a compaction happened.
    CompactBoundary,
    /// `{"type":"result",…}`: the session's last line.
    Result {
        /// `success`, `error_during_execution`, `error_max_turns`, …
        subtype: String,
        /// `is_error`.
        is_error: bool,
        /// The final text.
        text: Option<String>,
    },
    /// Anything else (hook lines, `thinking_tokens`, a newer kind).
    Other,
}

/// One line of an assistant message: one content block (or, from an older client,
/// several) with the message's id and usage.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct AssistantLine {
    /// The session.
    pub(crate) session_id: Option<String>,
    /// The API message id (`msg_…`), shared by every line of one reply.
    pub(crate) message_id: Option<String>,
    /// The API model id.
    pub(crate) model: Option<String>,
    /// Input-side tokens (input + cache read + cache creation), when it had usage.
    pub(crate) context_tokens: Option<u64>,
    /// A subagent's message (`parent_tool_use_id` set): not the main context.
    pub(crate) sidechain: bool,
    /// Its text blocks.
    pub(crate) texts: Vec<String>,
    /// Its tool calls: id, tool name and a one-line summary of the input.
    pub(crate) tool_uses: Vec<(String, String, String)>,
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Input-side tokens of a `usage` object (docs/client-reference.md §6.4): input + cache creation
/// + cache read. `None` when it has none of them.
pub(crate) fn context_tokens(usage: &Value) -> Option<u64> {
    let keys = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ];
    let parts: Vec<u64> = keys
        .iter()
        .filter_map(|k| usage.get(*k).and_then(Value::as_u64))
        .collect();
    (!parts.is_empty()).then(|| parts.iter().sum())
}

/// A short, one-line summary of a tool call's input (a command, a path, a pattern).
fn tool_summary(input: &Value) -> String {
    let pick = [
        "command",
        "file_path",
        "path",
        "pattern",
        "url",
        "description",
    ]
    .iter()
    .find_map(|k| input.get(*k).and_then(Value::as_str));
    let text = pick.unwrap_or("");
    let one = crate::model::text::sanitize::single_line(text);
    let mut s: String = one.chars().take(120).collect();
    if one.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Parses one line of the stream. `None` when it is not a JSON object.
pub(crate) fn parse_line(line: &str) -> Option<StreamEvent> {
    let v: Value = serde_json::from_str(line.trim()).ok()?;
    let obj = v.as_object()?;
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let sidechain = obj.get("parent_tool_use_id").is_some_and(|p| !p.is_null());
    let ev = match kind {
        "system" => match obj.get("subtype").and_then(Value::as_str).unwrap_or("") {
            "init" => StreamEvent::Init {
                session_id: str_of(&v, "session_id"),
                model: str_of(&v, "model"),
            },
            "status" => StreamEvent::Status {
                compacting: obj.get("status").and_then(Value::as_str) == Some("compacting"),
            },
            "compact_boundary" => StreamEvent::CompactBoundary,
            _ => StreamEvent::Other,
        },
        "assistant" => {
            let msg = v.get("message").cloned().unwrap_or(Value::Null);
            let mut m = AssistantLine {
                session_id: str_of(&v, "session_id"),
                message_id: str_of(&msg, "id"),
                model: str_of(&msg, "model"),
                context_tokens: msg.get("usage").and_then(context_tokens),
                sidechain,
                ..AssistantLine::default()
            };
            for b in msg
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                match b.get("type").and_then(Value::as_str) {
                    Some("text") => m.texts.extend(str_of(b, "text")),
                    Some("tool_use") => m.tool_uses.push((
                        str_of(b, "id").unwrap_or_default(),
                        str_of(b, "name").unwrap_or_default(),
                        tool_summary(b.get("input").unwrap_or(&Value::Null)),
                    )),
                    _ => {}
                }
            }
            StreamEvent::Assistant(m)
        }
        "user" => StreamEvent::User {
            tool_results: v
                .pointer("/message/content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .filter_map(|b| str_of(b, "tool_use_id"))
                .collect(),
            sidechain,
        },
        "result" => StreamEvent::Result {
            subtype: str_of(&v, "subtype").unwrap_or_default(),
            is_error: obj
                .get("is_error")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            text: str_of(&v, "result"),
        },
        _ => StreamEvent::Other,
    };
    Some(ev)
}

/// The readable form of a stream line for the terminal (`None`: nothing to show).
pub(crate) fn readable(ev: &StreamEvent) -> Option<String> {
    match ev {
        StreamEvent::Assistant(m) if !m.sidechain => {
            let mut out = String::new();
            for t in &m.texts {
                let t = t.trim();
                if !t.is_empty() {
                    let _ = writeln!(out, "{t}");
                }
            }
            for (_, name, summary) in &m.tool_uses {
                if summary.is_empty() {
                    let _ = writeln!(out, "  → {name}");
                } else {
                    let _ = writeln!(out, "  → {name}: {summary}");
                }
            }
            (!out.is_empty()).then_some(out)
        }
        StreamEvent::CompactBoundary => {
            Some("  (Claude Code compacted the conversation)\n".to_owned())
        }
        _ => None,
    }
}

/// What the relay decided after a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Keep the session running.
    Continue,
    /// The context reached the threshold: ask the session to stop after the tool
    /// calls of its current reply (its `PostToolUse` hook answers `continue: false`,
    /// so every call runs and gets its result, and nothing is interrupted). Given
    /// once per session.
    AskStop,
    /// The session went on past two complete rounds of tool calls after the stop was
    /// asked (the hook did not act): end it with SIGINT now, at a clean point (a
    /// complete message whose every tool call has its result).
    Interrupt,
    /// The threshold is reached but the chain may not grow: let it run (once).
    LimitReached,
}

/// How many complete rounds of tool calls may pass after [`Decision::AskStop`]
/// before [`Decision::Interrupt`]: the first may have finished before the request
/// reached the hook (the stream is read a little behind the client).
pub(crate) const ROUNDS_BEFORE_INTERRUPT: u32 = 2;

/// The context of one session as the stream reports it, and where its main chain
/// stands: which message is being written, and which tool calls wait for results.
///
/// A message is complete when a line of another message, a `user` line or the
/// `result` line arrives (the client writes one line per content block: a reply
/// "I'll run the tests." + `tool_use` is two lines with one id). A clean point is a
/// complete message whose every tool call has its `tool_result`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Tracker {
    /// The session id (from `init` or the first message).
    pub(crate) session_id: Option<String>,
    /// The model (the CLI's spelling first, then the API's).
    pub(crate) model: Option<String>,
    /// Input-side tokens of the latest main-chain assistant message.
    pub(crate) tokens: Option<u64>,
    /// The stream says it is compacting.
    pub(crate) compacting: bool,
    /// Claude Code compacted this session on its own: it is not relayed any more.
    pub(crate) compacted: bool,
    /// The latest main-chain message's id (`None` before the first, or when the
    /// client gave none).
    pub(crate) message: Option<String>,
    /// Whether that message is complete.
    pub(crate) complete: bool,
    /// That message's tool calls (ids).
    pub(crate) message_tools: Vec<String>,
    /// Tool calls of the main chain still waiting for their results.
    pub(crate) pending: BTreeSet<String>,
    /// Complete rounds of tool calls (a message with tool calls, all answered).
    pub(crate) rounds: u32,
    /// The session ended (`result` line).
    pub(crate) finished: bool,
    /// Its `result` said it succeeded (not `error_during_execution`, which is what
    /// an interrupted session says).
    pub(crate) result_ok: bool,
    /// Whether [`Decision::LimitReached`] was already given.
    pub(crate) limit_said: bool,
    /// [`Decision::AskStop`] was given, at this many [`Tracker::rounds`].
    pub(crate) stop_asked: Option<u32>,
}

impl Tracker {
    /// The context window: from the model (docs/client-reference.md §7.2), or 1M when the tokens
    /// say so.
    pub(crate) fn window(&self) -> u64 {
        infer_window(None, self.model.as_deref(), self.tokens)
    }

    /// The used percentage (whole number), when a usage was seen.
    pub(crate) fn pct(&self) -> Option<f64> {
        self.tokens.map(|t| pct_of(t, self.window()))
    }

    /// At a clean point: the latest message is complete and every tool call of it
    /// (and of the main chain before it) has its result.
    pub(crate) fn is_clean(&self) -> bool {
        self.complete && self.pending.is_empty()
    }

    /// The session ended between replies: its last message made tool calls, all of
    /// them answered, and no reply came after (the client stopped because its
    /// `PostToolUse` hook said so). A session that ended on a reply without tool
    /// calls finished its task instead.
    pub(crate) fn stopped_between_replies(&self) -> bool {
        self.finished && self.result_ok && self.is_clean() && !self.message_tools.is_empty()
    }

    /// The message in progress is complete (a line of another message, a user line
    /// or the result came).
    fn complete_message(&mut self) {
        self.complete = true;
    }

    /// Takes in one event; answers what to do now. `handoffs_left` is how many
    /// continuations the chain may still start.
    pub(crate) fn feed(
        &mut self,
        ev: &StreamEvent,
        threshold: f64,
        handoffs_left: u32,
    ) -> Decision {
        match ev {
            StreamEvent::Init { session_id, model } => {
                if self.session_id.is_none() {
                    self.session_id.clone_from(session_id);
                }
                if model.is_some() {
                    self.model.clone_from(model);
                }
                Decision::Continue
            }
            StreamEvent::Assistant(m) if !m.sidechain => {
                if self.session_id.is_none() {
                    self.session_id.clone_from(&m.session_id);
                }
                if self.model.is_none() {
                    self.model.clone_from(&m.model);
                }
                // A line of another message (or one without an id) starts a new one.
                if m.message_id.is_none() || m.message_id != self.message {
                    self.complete_message();
                    self.message.clone_from(&m.message_id);
                    self.message_tools.clear();
                    self.complete = false;
                }
                if let Some(t) = m.context_tokens {
                    self.tokens = Some(t);
                }
                for (id, _, _) in &m.tool_uses {
                    self.message_tools.push(id.clone());
                    self.pending.insert(id.clone());
                }
                self.at_threshold(threshold, handoffs_left)
            }
            StreamEvent::User {
                tool_results,
                sidechain: false,
            } => {
                let waited = !self.pending.is_empty();
                for id in tool_results {
                    self.pending.remove(id);
                }
                self.complete_message();
                if waited && self.pending.is_empty() && !self.message_tools.is_empty() {
                    self.rounds += 1;
                    let overdue = self
                        .stop_asked
                        .is_some_and(|at| self.rounds >= at + ROUNDS_BEFORE_INTERRUPT);
                    if overdue && !self.compacting && !self.finished {
                        return Decision::Interrupt;
                    }
                }
                Decision::Continue
            }
            StreamEvent::Status { compacting } => {
                self.compacting = *compacting;
                Decision::Continue
            }
            StreamEvent::CompactBoundary => {
                self.compacting = false;
                self.compacted = true;
                // The context is small again: no stop is wanted any more.
                self.stop_asked = None;
                Decision::Continue
            }
            StreamEvent::Result {
                is_error, subtype, ..
            } => {
                self.complete_message();
                self.finished = true;
                self.result_ok = !is_error && subtype == "success";
                Decision::Continue
            }
            _ => Decision::Continue,
        }
    }

    /// The decision when a main-chain line reports the context.
    fn at_threshold(&mut self, threshold: f64, handoffs_left: u32) -> Decision {
        let at = self.pct().is_some_and(|p| p >= threshold);
        if !at || self.compacting || self.compacted || self.finished {
            return Decision::Continue;
        }
        if handoffs_left == 0 {
            if self.limit_said {
                return Decision::Continue;
            }
            self.limit_said = true;
            return Decision::LimitReached;
        }
        if self.stop_asked.is_some() {
            return Decision::Continue;
        }
        self.stop_asked = Some(self.rounds);
        Decision::AskStop
    }
}

/// Where Claude Code compacts a session on its own, in percent of the model's
/// window (docs/client-reference.md §7.1): the auto-compact window `W` (the model's, or
/// `CLAUDE_CODE_AUTO_COMPACT_WINDOW` when lower), `E = W − min(max output, 20,000)`,
/// `T = E − 13,000`, lowered by `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (a percentage of
/// `E`). `None` when the environment turns auto-compaction off
/// (`DISABLE_AUTO_COMPACT`, `DISABLE_COMPACT`). Every model of the table has a
/// maximum output of at least 20,000 tokens, so the reservation is 20,000.
pub(crate) fn auto_compact_pct(
    model_window: u64,
    var: impl Fn(&str) -> Option<String>,
) -> Option<f64> {
    let on = |name: &str| var(name).is_some_and(|v| !v.trim().is_empty() && v.trim() != "0");
    if on("DISABLE_AUTO_COMPACT") || on("DISABLE_COMPACT") {
        return None;
    }
    let num = |name: &str| var(name).and_then(|v| v.trim().parse::<u64>().ok());
    let w = num("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
        .filter(|w| (100_000..=1_000_000).contains(w))
        .map_or(model_window, |w| w.min(model_window));
    let e = w.saturating_sub(20_000);
    let mut t = e.saturating_sub(13_000);
    if let Some(p) = num("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE").filter(|p| (1..=100).contains(p)) {
        t = t.min(e * p / 100);
    }
    Some(t as f64 * 100.0 / model_window as f64)
}

/// Why `threshold` cannot relay a session of `model` (its window from the model's
/// name, docs/client-reference.md §7.2): Claude Code compacts it on its own first. `None` when the
/// threshold comes before that point, or auto-compaction is off.
pub(crate) fn unreachable_threshold(
    threshold: f64,
    model: &str,
    var: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    let window = infer_window(None, Some(model), None);
    let at = auto_compact_pct(window, var)?;
    (threshold >= at).then(|| {
        format!(
            "the threshold {threshold}% is never reached: Claude Code compacts {model} \
             ({}k window) on its own at about {at:.1}% — sessions will compact instead of \
             relaying; give --threshold below that (e.g. {})",
            window / 1000,
            (at - 8.0).floor().max(1.0)
        )
    })
}

/// The model a command asks for (`--model M` or `--model=M`), if any.
pub(crate) fn model_arg(extra: &[String]) -> Option<&str> {
    let mut it = extra.iter();
    while let Some(a) = it.next() {
        if a == "--model" {
            return it.next().map(String::as_str);
        }
        if let Some(m) = a.strip_prefix("--model=") {
            return Some(m);
        }
    }
    None
}

/// The hook event a `forge run` session's own settings wire to forge (and no
/// `forge init` does): after each tool call, so the run can ask the session to stop.
pub const RELAY_EVENT: &str = "PostToolUse";

/// The `--settings` JSON `forge run` gives each session: the person's own
/// (`user`, when the command had `--settings`) with one more `PostToolUse` hook,
/// `hook_command`, which asks the session to stop when forge wants it to.
pub(crate) fn settings_with_stop_hook(user: Option<Value>, hook_command: &str) -> Value {
    let mut settings = match user {
        Some(Value::Object(o)) => Value::Object(o),
        _ => Value::Object(serde_json::Map::new()),
    };
    let entry =
        serde_json::json!({"hooks": [{"type": "command", "command": hook_command, "timeout": 30}]});
    let hooks = &mut settings["hooks"];
    if !hooks.is_object() {
        *hooks = Value::Object(serde_json::Map::new());
    }
    let post = &mut hooks[RELAY_EVENT];
    match post {
        Value::Array(list) => list.push(entry),
        _ => *post = Value::Array(vec![entry]),
    }
    settings
}

/// The most of a handoff's text put into a continuation prompt.
pub(crate) const PROMPT_HANDOFF_CAP: usize = 24_000;

/// The longest single argument a program can be given on Linux (`MAX_ARG_STRLEN`,
/// 32 pages of 4 KiB, its terminating NUL included): the prompt is one argument of
/// `claude -p`, so a longer one would make starting the session fail (`E2BIG`).
pub(crate) const MAX_ARG_BYTES: usize = 32 * 4096 - 1;

/// The handoff text a continuation prompt must have room for at least (in bytes):
/// `forge run` refuses, before it starts, a task too long to leave that much.
pub(crate) const MIN_HANDOFF_BYTES: usize = 4096;

/// The note that ends a handoff cut to fit.
const CUT_NOTE: &str = "\n[… cut; the whole handoff is in the file named above]\n";

/// The prompt of continuation `n` (1-based): the handoff, the original task, and
/// the instruction to go on without redoing finished work. The handoff is cut to
/// [`PROMPT_HANDOFF_CAP`] characters, and further when needed so that the prompt
/// fits in [`MAX_ARG_BYTES`] (see [`fits_in_an_argument`] for the task's share).
pub(crate) fn continuation_prompt(task: &str, handoff: &str, handoff_path: &str, n: u32) -> String {
    let whole = |doc: &str| prompt_with(task, doc, handoff_path, n);
    let mut doc: String = handoff.chars().take(PROMPT_HANDOFF_CAP).collect();
    let mut cut = handoff.chars().count() > PROMPT_HANDOFF_CAP;
    let room = MAX_ARG_BYTES.saturating_sub(whole("").len() + CUT_NOTE.len());
    if whole(&doc).len() > MAX_ARG_BYTES {
        let mut end = room.min(doc.len());
        while !doc.is_char_boundary(end) {
            end -= 1;
        }
        doc.truncate(end);
        cut = true;
    }
    if cut {
        doc.push_str(CUT_NOTE);
    }
    whole(&doc)
}

/// Whether every prompt of a chain for `task` fits in one argument: the task
/// itself, and a continuation with at least [`MIN_HANDOFF_BYTES`] of handoff named
/// by a path like `handoff_path`. `Err` says by how much, and what to do.
pub(crate) fn fits_in_an_argument(task: &str, handoff_path: &str) -> Result<(), String> {
    let needed =
        prompt_with(task, &"x".repeat(MIN_HANDOFF_BYTES), handoff_path, 99).len() + CUT_NOTE.len();
    if needed <= MAX_ARG_BYTES {
        return Ok(());
    }
    Err(format!(
        "the task is {} bytes: forge run gives it to claude as one argument, with the handoff added for each continuation, and one argument holds at most {MAX_ARG_BYTES} bytes — {} too many. Put the task in a file and give a short one that names it: -p \"Do what TASK.md says\"",
        task.len(),
        needed - MAX_ARG_BYTES
    ))
}

fn prompt_with(task: &str, doc: &str, handoff_path: &str, n: u32) -> String {
    format!(
        "You are continuing a task that an earlier Claude Code session started and could not \
         finish within its context window (continuation {n}, started by `forge run`).\n\n\
         The original task:\n<task>\n{task}\n</task>\n\n\
         The previous session's handoff ({handoff_path}):\n<handoff>\n{}\n</handoff>\n\n\
         Continue the task from where the previous session stopped. Do not repeat work the \
         handoff shows as finished: check the current state of the files and the repository \
         first, then do what remains, and finish the task.\n",
        doc.trim_end()
    )
}

/// How a session of a chain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SessionEnd {
    /// Still running.
    Running,
    /// forge ended it at the threshold and started the next one.
    Relayed,
    /// It ran to its own end.
    Exited,
    /// Ctrl-C (or a termination signal) stopped it and the chain.
    Interrupted,
    /// It could not be started.
    NotStarted,
}

/// One session of a chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChainSession {
    /// Its session id (unknown until the stream names it).
    pub(crate) session_id: Option<String>,
    /// ISO 8601 UTC.
    pub(crate) started_at: String,
    /// ISO 8601 UTC, when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ended_at: Option<String>,
    /// Input-side tokens at its last reading (at hand-over for a relayed session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context_tokens: Option<u64>,
    /// The same as a percentage of the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) context_pct: Option<f64>,
    /// The handoff written when it ended (absolute path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) handoff: Option<String>,
    /// How it ended.
    pub(crate) end: SessionEnd,
    /// Claude Code compacted it on its own.
    #[serde(default)]
    pub(crate) compacted: bool,
    /// Its exit status (`None`: killed by a signal, or still running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
}

/// A chain: one task carried by `forge run` across sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// The format's version.
    pub version: u32,
    /// The first session's id (the file's name).
    pub id: String,
    /// The task as given after `-p` (redacted in the chain file: see
    /// `store::chains::write`; the relay passes on the task it was given).
    pub task: String,
    /// ISO 8601 UTC.
    pub started_at: String,
    /// ISO 8601 UTC, when the chain ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The relay threshold (percent).
    pub threshold: f64,
    /// The most continuations allowed.
    pub max_handoffs: u32,
    /// The agent it ran as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The sessions, in order.
    pub sessions: Vec<ChainSession>,
    /// The chain's exit status (the last session's), once it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// A note for the person (the limit held, a session compacted on its own).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Chain {
    /// The handoffs written in the chain, in order.
    pub(crate) fn handoffs(&self) -> impl Iterator<Item = &str> {
        self.sessions.iter().filter_map(|s| s.handoff.as_deref())
    }

    /// Whether it is still running (no end recorded).
    pub(crate) fn is_running(&self) -> bool {
        self.ended_at.is_none()
    }

    /// One line: `3 sessions, 2 handoffs, exit 0 — <task>`.
    pub fn summary(&self) -> String {
        let n = self.sessions.len();
        let h = self.handoffs().count();
        let state = match (self.is_running(), self.exit_code) {
            (true, _) => "running".to_owned(),
            (false, Some(c)) => format!("exit {c}"),
            (false, None) => "ended by a signal".to_owned(),
        };
        // Redacted before it is cut (a chain file an older forge wrote holds the task
        // as given).
        let task = crate::model::text::redact::redact(&self.task);
        let task = crate::model::text::sanitize::single_line(&task);
        let task: String = task.chars().take(80).collect();
        format!(
            "{n} session{}, {h} handoff{}, {state} — {task}",
            if n == 1 { "" } else { "s" },
            if h == 1 { "" } else { "s" },
        )
    }
}

/// The task and the other arguments of `claude -p "<task>" [args…]` (the program
/// first). The task is the argument right after `-p`/`--print`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Command {
    /// The program (`claude`, or a path).
    pub(crate) program: String,
    /// The task.
    pub(crate) task: String,
    /// Every other argument, without `-p`, the task, `--output-format`,
    /// `--verbose` and `--settings` (forge sets those).
    pub(crate) extra: Vec<String>,
    /// The command's own `--settings` (a file or a JSON text): forge adds its hook
    /// to it.
    pub(crate) settings: Option<String>,
}

fn after_p() -> String {
    "put the task right after -p: forge run -- claude -p \"<task>\" [args…] (a task that starts with -: -p -- \"<task>\")"
        .to_owned()
}

/// Splits `claude -p "<task>" [args…]`. `Err` says what is wrong.
pub(crate) fn parse_command(argv: &[String]) -> Result<Command, String> {
    let (program, rest) = argv
        .split_first()
        .ok_or("give the command after `--`: forge run -- claude -p \"<task>\"")?;
    let mut task = None;
    let mut settings = None;
    let mut extra = Vec::new();
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" | "--print" if task.is_none() => match it.next().map(String::as_str) {
                // `-p -- "-task"`: whatever follows `--` is the task.
                Some("--") => match it.next() {
                    Some(t) => task = Some(t.clone()),
                    None => return Err(after_p()),
                },
                // A task may start with `-` ("- fix the flaky test"); a word without
                // a space that does is an option in the wrong place.
                Some(t) if !t.starts_with('-') || t.contains(char::is_whitespace) => {
                    task = Some(t.to_owned());
                }
                _ => return Err(after_p()),
            },
            "--" => {
                return Err(
                    "forge run gives claude the task after its own `--`: put the task right after -p (a task that starts with - as -p -- \"<task>\")"
                        .to_owned(),
                );
            }
            "--output-format" | "--input-format" => {
                it.next();
            }
            "--verbose" => {}
            "--settings" => match it.next() {
                Some(v) => settings = Some(v.clone()),
                None => return Err("--settings needs a file or a JSON text".to_owned()),
            },
            s if s.starts_with("--settings=") => {
                settings = Some(s["--settings=".len()..].to_owned());
            }
            s if s.starts_with("--output-format=") || s.starts_with("--input-format=") => {}
            "-c" | "--continue" | "-r" | "--resume" => {
                return Err(format!(
                    "{a} does not go with forge run: each session of the chain starts fresh"
                ));
            }
            _ => extra.push(a.clone()),
        }
    }
    let task = task.ok_or("no -p \"<task>\": forge run runs Claude Code headless")?;
    if task.trim().is_empty() {
        return Err("the task after -p is empty".to_owned());
    }
    Ok(Command {
        program: program.clone(),
        task,
        extra,
        settings,
    })
}

/// The arguments of one session: `-p`, the extra arguments, the stream-json output,
/// the settings (see [`settings_with_stop_hook`]), then `--` and the prompt — after
/// `--`, a prompt that starts with `-` is never read as an option (the pinned client
/// 2.1.330 takes the word after `--` as the prompt).
pub(crate) fn session_args(prompt: &str, extra: &[String], settings: &str) -> Vec<String> {
    let mut v = vec!["-p".to_owned()];
    v.extend(extra.iter().cloned());
    v.extend(
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--settings",
            settings,
            "--",
            prompt,
        ]
        .iter()
        .map(|s| (*s).to_owned()),
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(tokens: u64, tools: &[&str]) -> String {
        let content: Vec<Value> = if tools.is_empty() {
            vec![serde_json::json!({"type":"text","text":"working"})]
        } else {
            tools
                .iter()
                .map(|id| serde_json::json!({"type":"tool_use","id":id,"name":"Bash","input":{"command":"ls\nx"}}))
                .collect()
        };
        serde_json::json!({"type":"assistant","session_id":"s1","parent_tool_use_id":null,
            "message":{"model":"claude-sonnet-4-6","content":content,
              "usage":{"input_tokens":3,"cache_read_input_tokens":tokens-3,"cache_creation_input_tokens":0,"output_tokens":20}}})
        .to_string()
    }

    fn result_of(id: &str) -> String {
        serde_json::json!({"type":"user","parent_tool_use_id":null,"message":{"role":"user",
            "content":[{"type":"tool_result","tool_use_id":id,"content":"ok"}]}})
        .to_string()
    }

    #[test]
    fn lines_parse_into_events() {
        let init = r#"{"type":"system","subtype":"init","session_id":"s1","model":"claude-sonnet-4-6","tools":[]}"#;
        assert_eq!(
            parse_line(init),
            Some(StreamEvent::Init {
                session_id: Some("s1".into()),
                model: Some("claude-sonnet-4-6".into())
            })
        );
        let Some(StreamEvent::Assistant(m)) = parse_line(&assistant(100_000, &["t1"])) else {
            panic!()
        };
        assert_eq!(m.context_tokens, Some(100_000));
        assert_eq!(m.tool_uses[0].2, "ls x");
        assert!(!m.sidechain);
        assert_eq!(
            parse_line(r#"{"type":"system","subtype":"status","status":"compacting"}"#),
            Some(StreamEvent::Status { compacting: true })
        );
        assert_eq!(
            parse_line(r#"{"type":"system","subtype":"status","status":null}"#),
            Some(StreamEvent::Status { compacting: false })
        );
        assert_eq!(
            parse_line(r#"{"type":"system","subtype":"compact_boundary","compact_metadata":{}}"#),
            Some(StreamEvent::CompactBoundary)
        );
        assert!(matches!(
            parse_line(r#"{"type":"result","subtype":"success","is_error":false,"result":"ok"}"#),
            Some(StreamEvent::Result {
                is_error: false,
                ..
            })
        ));
        assert_eq!(parse_line("not json"), None);
        assert_eq!(
            parse_line(r#"{"type":"stream_event"}"#),
            Some(StreamEvent::Other)
        );
        assert_eq!(
            context_tokens(
                &serde_json::json!({"input_tokens":1,"cache_read_input_tokens":2,"cache_creation_input_tokens":4,"output_tokens":100})
            ),
            Some(7)
        );
        assert_eq!(context_tokens(&serde_json::json!({})), None);
    }

    fn feed(t: &mut Tracker, line: &str, left: u32) -> Decision {
        t.feed(&parse_line(line).unwrap(), 50.0, left)
    }

    /// A recording of the real client (tests/fixtures/stream-json/README.md).
    fn recorded(name: &str) -> Vec<&'static str> {
        let text = match name {
            "blocks" => include_str!("../../../tests/fixtures/stream-json/blocks.stream.jsonl"),
            "stopped" => include_str!(
                "../../../tests/fixtures/stream-json/stopped-by-post-tool-use.stream.jsonl"
            ),
            "cut-tool" => include_str!(
                "../../../tests/fixtures/stream-json/interrupted-before-tool-result.stream.jsonl"
            ),
            "cut-request" => include_str!(
                "../../../tests/fixtures/stream-json/interrupted-after-tool-result.stream.jsonl"
            ),
            _ => unreachable!(),
        };
        text.lines().filter(|l| !l.trim().is_empty()).collect()
    }

    /// Feeds a recording at `threshold`; returns, per line, the decision and whether
    /// the session was at a clean point after it.
    fn replay(lines: &[&str], threshold: f64) -> (Tracker, Vec<(Decision, bool)>) {
        let mut t = Tracker::default();
        let steps = lines
            .iter()
            .map(|l| {
                let d = t.feed(&parse_line(l).expect("a JSON line"), threshold, 3);
                (d, t.is_clean())
            })
            .collect();
        (t, steps)
    }

    fn is_text_line(l: &str) -> bool {
        l.starts_with(r#"{"type":"assistant""#) && l.contains(r#"[{"type":"text""#)
    }

    #[test]
    fn a_line_is_not_a_message_a_reply_with_text_and_tool_calls_is_one() {
        let lines = recorded("blocks");
        let (t, steps) = replay(&lines, 99.0);
        // Every line of the recording parses; the assistant lines are one block each.
        for l in &lines {
            if let Some(StreamEvent::Assistant(m)) = parse_line(l) {
                assert!(m.message_id.as_deref().unwrap().starts_with("msg_"), "{l}");
                assert!(m.texts.len() + m.tool_uses.len() <= 1, "{l}");
            }
        }
        // Never clean right after a text line: its tool call follows (same id).
        for (l, (_, clean)) in lines.iter().zip(&steps) {
            if is_text_line(l) {
                assert!(!clean, "clean after a text line: {l}");
            }
        }
        // Clean points: after the first reply's result, after the second reply's
        // second result (not its first), and at the end.
        let clean_after: Vec<usize> = steps
            .iter()
            .enumerate()
            .filter(|(_, (_, c))| *c)
            .map(|(i, _)| i)
            .collect();
        let user_lines: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with(r#"{"type":"user""#))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(user_lines.len(), 3);
        assert!(clean_after.contains(&user_lines[0]));
        assert!(
            !clean_after.contains(&user_lines[1]),
            "one of two results in"
        );
        assert!(clean_after.contains(&user_lines[2]));
        assert_eq!(t.rounds, 2);
        assert!(t.finished && t.result_ok);
        assert_eq!(t.model.as_deref(), Some("claude-sonnet-4-6"));
        assert_eq!(t.tokens, Some(12_000));
        // It ended on a reply without tool calls: it finished its task.
        assert!(!t.stopped_between_replies());
    }

    #[test]
    fn at_the_threshold_the_stop_is_asked_once_and_a_hook_that_ignores_it_ends_in_an_interrupt_at_a_clean_point()
     {
        let lines = recorded("blocks");
        // 12,000 of 200,000 is 6 %: the first line of the first reply reaches 5 %.
        let (_, steps) = replay(&lines, 5.0);
        let asks: Vec<usize> = steps
            .iter()
            .enumerate()
            .filter(|(_, (d, _))| *d == Decision::AskStop)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(asks.len(), 1);
        assert!(lines[asks[0]].starts_with(r#"{"type":"assistant""#));
        // The recording's client had no stop hook: two rounds of tool calls later
        // forge would interrupt it — at a clean point, never after a text line.
        let interrupts: Vec<usize> = steps
            .iter()
            .enumerate()
            .filter(|(_, (d, _))| *d == Decision::Interrupt)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(interrupts.len(), 1, "{steps:?}");
        let i = interrupts[0];
        assert!(steps[i].1, "not clean at the interrupt");
        assert!(lines[i].starts_with(r#"{"type":"user""#), "{}", lines[i]);
        // Below the threshold: nothing.
        let (_, steps) = replay(&lines, 7.0);
        assert!(steps.iter().all(|(d, _)| *d == Decision::Continue));
    }

    #[test]
    fn a_session_stopped_by_its_hook_ended_between_replies_an_interrupted_one_did_not() {
        let (t, _) = replay(&recorded("stopped"), 99.0);
        assert!(t.stopped_between_replies(), "{t:?}");
        assert_eq!(t.message_tools.len(), 2);
        assert!(t.pending.is_empty());
        // SIGINT before the tool call's result: the client refuses the call itself
        // and ends with an error result.
        let lines = recorded("cut-tool");
        let (t, steps) = replay(&lines, 99.0);
        assert!(!t.stopped_between_replies());
        assert!(t.finished && !t.result_ok);
        let text = lines.iter().position(|l| is_text_line(l)).unwrap();
        assert!(!steps[text].1, "the text line is not a clean point");
        // SIGINT while the next request is in flight.
        let (t, _) = replay(&recorded("cut-request"), 99.0);
        assert!(!t.stopped_between_replies());
    }

    #[test]
    fn relays_at_the_threshold_only_at_a_clean_point() {
        // Lines without message ids (an older client): each line is its own message.
        let mut t = Tracker::default();
        assert_eq!(feed(&mut t, &assistant(60_000, &[]), 3), Decision::Continue);
        assert_eq!(t.pct(), Some(30.0));
        assert_eq!(
            feed(&mut t, &assistant(100_000, &["t1"]), 3),
            Decision::AskStop
        );
        assert!(!t.is_clean());
        assert_eq!(feed(&mut t, &result_of("t1"), 3), Decision::Continue);
        assert!(t.is_clean());
        assert_eq!(
            feed(&mut t, &assistant(110_000, &["t2"]), 3),
            Decision::Continue,
            "asked once"
        );
        assert_eq!(feed(&mut t, &result_of("t2"), 3), Decision::Interrupt);
        // Compacting: never.
        let mut t = Tracker::default();
        feed(
            &mut t,
            r#"{"type":"system","subtype":"status","status":"compacting"}"#,
            3,
        );
        assert_eq!(
            feed(&mut t, &assistant(120_000, &[]), 3),
            Decision::Continue
        );
        // Compacted on its own: not relayed on top of it, and a stop already asked
        // is taken back.
        let mut t = Tracker::default();
        assert_eq!(
            feed(&mut t, &assistant(120_000, &["t1"]), 3),
            Decision::AskStop
        );
        feed(
            &mut t,
            r#"{"type":"system","subtype":"compact_boundary"}"#,
            3,
        );
        assert_eq!(t.stop_asked, None);
        assert_eq!(
            feed(&mut t, &assistant(120_000, &[]), 3),
            Decision::Continue
        );
        // A subagent's usage is not the main context.
        let mut t = Tracker::default();
        let side = assistant(150_000, &[]).replace(
            "\"parent_tool_use_id\":null",
            "\"parent_tool_use_id\":\"t9\"",
        );
        assert_eq!(feed(&mut t, &side, 3), Decision::Continue);
        assert_eq!(t.tokens, None);
        // The limit: said once, then the session runs on.
        let mut t = Tracker::default();
        assert_eq!(
            feed(&mut t, &assistant(100_000, &[]), 0),
            Decision::LimitReached
        );
        assert_eq!(
            feed(&mut t, &assistant(110_000, &[]), 0),
            Decision::Continue
        );
    }

    #[test]
    fn the_client_compacts_at_83_5_percent_of_200k_and_the_environment_moves_it() {
        let none = |_: &str| None;
        let at = auto_compact_pct(200_000, none).unwrap();
        assert!((at - 83.5).abs() < 1e-9, "{at}");
        let at = auto_compact_pct(1_000_000, none).unwrap();
        assert!((at - 96.7).abs() < 1e-9, "{at}");
        let with = |k: &'static str, v: &'static str| move |n: &str| (n == k).then(|| v.to_owned());
        assert_eq!(
            auto_compact_pct(200_000, with("DISABLE_AUTO_COMPACT", "1")),
            None
        );
        assert_eq!(
            auto_compact_pct(200_000, with("DISABLE_COMPACT", "true")),
            None
        );
        assert!(auto_compact_pct(200_000, with("DISABLE_AUTO_COMPACT", "0")).is_some());
        // 50 % of E (180,000) = 90,000 = 45 % of the window.
        let at = auto_compact_pct(200_000, with("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")).unwrap();
        assert!((at - 45.0).abs() < 1e-9, "{at}");
        // A 1M model told to compact as if its window were 200k.
        let at =
            auto_compact_pct(1_000_000, with("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "200000")).unwrap();
        assert!((at - 16.7).abs() < 1e-9, "{at}");
        // The old default (90) on a 200k model is never reached; 75 is.
        let why = unreachable_threshold(90.0, "claude-sonnet-4-6", none).unwrap();
        assert!(why.contains("83.5%") && why.contains("200k"), "{why}");
        assert_eq!(unreachable_threshold(75.0, "claude-sonnet-4-6", none), None);
        assert_eq!(unreachable_threshold(90.0, "claude-opus-4-8", none), None);
        assert!(unreachable_threshold(97.0, "claude-sonnet-4-6[1m]", none).is_some());
        let argv = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(model_arg(&argv(&["--model", "opus"])), Some("opus"));
        assert_eq!(model_arg(&argv(&["--model=opus[1m]"])), Some("opus[1m]"));
        assert_eq!(model_arg(&argv(&["--verbose"])), None);
    }

    #[test]
    fn the_stop_hook_joins_the_commands_own_settings() {
        let s = settings_with_stop_hook(None, "'/bin/forge' hook PostToolUse");
        assert_eq!(
            s["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "'/bin/forge' hook PostToolUse"
        );
        let user = serde_json::json!({"model": "opus", "hooks": {"PostToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}],
            "Stop": []}});
        let s = settings_with_stop_hook(Some(user), "f");
        assert_eq!(s["model"], "opus");
        assert_eq!(s["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(s["hooks"]["PostToolUse"][0]["hooks"][0]["command"], "mine");
        assert!(s["hooks"]["Stop"].is_array());
        let s = settings_with_stop_hook(Some(serde_json::json!([1])), "f");
        assert!(s["hooks"]["PostToolUse"].is_array());
    }

    #[test]
    fn the_window_comes_from_the_model() {
        let mut t = Tracker {
            model: Some("claude-opus-4-8".into()),
            tokens: Some(500_000),
            ..Tracker::default()
        };
        assert_eq!(t.window(), 1_000_000);
        assert_eq!(t.pct(), Some(50.0));
        t.model = Some("claude-sonnet-4-6".into());
        t.tokens = Some(180_000);
        assert_eq!(t.pct(), Some(90.0));
    }

    #[test]
    fn the_continuation_prompt_holds_the_handoff_and_the_task() {
        let p = continuation_prompt("Build the widget", "# Session handoff\nDone: A", "/h.md", 2);
        assert!(p.contains("Build the widget"));
        assert!(p.contains("Done: A"));
        assert!(p.contains("/h.md"));
        assert!(p.contains("continuation 2"));
        assert!(p.contains("Do not repeat work"));
        let long = "x".repeat(PROMPT_HANDOFF_CAP + 10);
        assert!(continuation_prompt("t", &long, "/h", 1).contains("cut"));
    }

    #[test]
    fn every_prompt_of_a_chain_fits_in_one_argument() {
        // A long task (within the limit) and a handoff of 4-byte characters: the
        // handoff is cut further, at a character boundary, and the prompt fits.
        let task = "t".repeat(MAX_ARG_BYTES - 20_000);
        assert!(fits_in_an_argument(&task, "/p/.forge/handoffs/handoff-x.md").is_ok());
        let handoff = "𝄞".repeat(PROMPT_HANDOFF_CAP);
        let p = continuation_prompt(&task, &handoff, "/p/.forge/handoffs/handoff-x.md", 3);
        assert!(p.len() <= MAX_ARG_BYTES, "{}", p.len());
        assert!(p.contains("cut; the whole handoff") && p.contains(&task));
        assert!(p.contains("𝄞𝄞"));
        // A short task keeps the usual cap.
        let p = continuation_prompt("t", &"a".repeat(100), "/h", 1);
        assert!(!p.contains("cut"));
        // A task that leaves no room for a handoff is refused, with the numbers.
        let huge = "t".repeat(MAX_ARG_BYTES);
        let e = fits_in_an_argument(&huge, "/h").unwrap_err();
        assert!(
            e.contains(&format!("the task is {MAX_ARG_BYTES} bytes")),
            "{e}"
        );
        assert!(e.contains("TASK.md"), "{e}");
        let edge = "t".repeat(MAX_ARG_BYTES - MIN_HANDOFF_BYTES);
        assert!(fits_in_an_argument(&edge, "/h").is_err());
    }

    #[test]
    fn the_command_splits_into_task_and_arguments() {
        let argv = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let c = parse_command(&argv(&[
            "claude",
            "-p",
            "do it",
            "--model",
            "m",
            "--output-format",
            "json",
            "--verbose",
        ]))
        .unwrap();
        assert_eq!(c.program, "claude");
        assert_eq!(c.task, "do it");
        assert_eq!(c.extra, argv(&["--model", "m"]));
        assert_eq!(c.settings, None);
        assert_eq!(
            session_args("go", &c.extra, "{}"),
            argv(&[
                "-p",
                "--model",
                "m",
                "--output-format",
                "stream-json",
                "--verbose",
                "--settings",
                "{}",
                "--",
                "go",
            ])
        );
        let c = parse_command(&argv(&["claude", "-p", "x", "--settings", "s.json"])).unwrap();
        assert_eq!(c.settings.as_deref(), Some("s.json"));
        assert!(c.extra.is_empty());
        let c = parse_command(&argv(&["claude", "-p", "x", "--settings={}"])).unwrap();
        assert_eq!(c.settings.as_deref(), Some("{}"));
        assert!(parse_command(&argv(&["claude", "do it"])).is_err());
        assert!(parse_command(&argv(&["claude", "-p", "--model"])).is_err());
        assert!(parse_command(&argv(&["claude", "-p", "--model", "m", "task"])).is_err());
        // A task that starts with `-`: with a space it cannot be an option; else
        // after `--`. The prompt then goes after forge's own `--`.
        for (args, task) in [
            (
                &["claude", "-p", "- fix the flaky test"][..],
                "- fix the flaky test",
            ),
            (&["claude", "-p", "--", "-v"][..], "-v"),
            (&["claude", "--print", "--", "--help me"][..], "--help me"),
        ] {
            let c = parse_command(&argv(args)).unwrap();
            assert_eq!(c.task, task);
            assert!(c.extra.is_empty(), "{:?}", c.extra);
            let a = session_args(&c.task, &c.extra, "{}");
            assert_eq!(&a[a.len() - 2..], ["--".to_owned(), task.to_owned()]);
        }
        assert!(parse_command(&argv(&["claude", "-p", "--"])).is_err());
        // A `--` of the user's own would make a second prompt.
        assert!(
            parse_command(&argv(&["claude", "-p", "x", "--", "y"]))
                .unwrap_err()
                .contains("own `--`")
        );
        assert!(parse_command(&argv(&["claude", "-p", "x", "--resume", "id"])).is_err());
        assert!(parse_command(&[]).is_err());
    }

    #[test]
    fn a_chain_reads_back_and_sums_up() {
        let c = Chain {
            version: 1,
            id: "s1".into(),
            task: "Build\nit".into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            ended_at: Some("2026-01-01T00:10:00Z".into()),
            threshold: 90.0,
            max_handoffs: 3,
            agent: None,
            sessions: vec![ChainSession {
                session_id: Some("s1".into()),
                started_at: "2026-01-01T00:00:00Z".into(),
                ended_at: None,
                context_tokens: Some(1),
                context_pct: None,
                handoff: Some("/h.md".into()),
                end: SessionEnd::Relayed,
                compacted: false,
                exit_code: Some(0),
            }],
            exit_code: Some(0),
            notes: vec![],
        };
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.contains("\"end\":\"relayed\""));
        let back: Chain = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.summary(), "1 session, 1 handoff, exit 0 — Build it");
    }
}
