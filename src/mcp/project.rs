//! The tools and resources of `forge mcp` on a real project.
//!
//! Every writer is the one the commands use: a Signal is rendered and written by
//! `crate::app::signal` (the template `forge signal` fills, so forge's parser and
//! the dashboard read it like any other), `resolve` is
//! `crate::app::signal::resolve_task` (the thread rules of `forge signal resolve`),
//! `handoff` is `crate::app::session_handoff`, `status` is `forge status --json`.
//! Every tool call (and resource read) appends one line to `events.jsonl` with what
//! it did or why it refused, so `forge log` tells. What goes back to the model (a
//! tool's text and data, a resource's text and title) is redacted on its way out.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::protocol::{Backend, ToolResult};
use super::tools::{self, Call, ResolveCall, SignalCall};
use crate::app::session_handoff::{self, GitInput, Request};
use crate::app::signal::{Draft, resolve_task, write_draft};
use crate::env::Env;
use crate::model::handoff::entry::HandoffEntry;
use crate::model::handoff::entry::HandoffKind;
use crate::model::handoff::handoff_doc::{AgentNotes, Trigger};
use crate::model::handoff::signal::SignalParse;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;
use crate::model::text::redact::{redact, redact_cow, redact_document, redact_json};
use crate::store::{self, Paths, files};

/// The event name of `forge mcp`'s lines in `events.jsonl`.
pub(crate) const EVENT: &str = "forge mcp";

/// The URI scheme of handoffs as resources: `forge://handoffs/<file name>`.
pub(crate) const RESOURCE_PREFIX: &str = "forge://handoffs/";

/// The most handoffs `resources/list` lists (newest first) and `inbox` answers.
const LIST_MAX: usize = 100;
/// The largest tool arguments accepted, as JSON.
const ARGS_MAX: usize = 256 * 1024;
/// The most a resource read returns of one handoff.
const READ_MAX: u64 = 1024 * 1024;

/// What the server tells the client about itself.
const INSTRUCTIONS: &str = "forge keeps this project's session state and agent handoffs \
in .forge/. Hand work to another agent or ask a question you cannot go on without with \
`signal` (status blocked, with questions); read what is addressed to you with `inbox`; \
answer a blocked Signal with `resolve`; before the context fills or before you stop, \
write a session handoff with your decisions and next steps with `handoff`; `status` is \
the project's state. Handoffs are also resources (forge://handoffs/<file>).";

/// One project, served.
pub(crate) struct Project {
    /// The project.
    pub(crate) paths: Paths,
    /// The environment (its clock is read again at every call).
    pub(crate) env: Env,
    /// The Claude Code session this server runs for (`$CLAUDE_CODE_SESSION_ID`).
    pub(crate) session: Option<String>,
    agent: OnceCell<Option<String>>,
}

impl Project {
    /// Serves the project at `paths`.
    pub(crate) fn new(paths: Paths, env: Env, session: Option<String>) -> Self {
        Self {
            paths,
            env,
            session: session.filter(|s| !s.trim().is_empty()),
            agent: OnceCell::new(),
        }
    }

    /// This session's agent: `$FORGE_AGENT`, else the agent its SessionStart
    /// recorded in its bridge, else the tmux session's name (of this very pane).
    fn agent(&self) -> Option<String> {
        self.agent
            .get_or_init(|| {
                let recorded = || {
                    self.env.forge_agent.is_none().then_some(())?;
                    files::read_bridge(&self.paths, self.session.as_deref()?)?.agent
                };
                recorded()
                    .or_else(|| self.env.agent_name())
                    .map(|a| crate::model::text::sanitize::single_line_trimmed(&a))
                    .filter(|a| !a.is_empty())
            })
            .clone()
    }

    fn who(&self, given: Option<&String>, role: &str) -> Result<String, String> {
        given.cloned().or_else(|| self.agent()).ok_or_else(|| {
            format!(
                "{role} is required here: this session has no agent name ($FORGE_AGENT is not set and it does not run in tmux)"
            )
        })
    }

    /// A handoff's path as the model is told it: `.forge/handoffs/<file>` in this
    /// project's own folder, else where it is (another work tree's, or the
    /// repository's inbox in the main work tree).
    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(self.paths.handoffs()) {
            Ok(file) => format!(".forge/handoffs/{}", file.display()),
            Err(_) => path.display().to_string(),
        }
    }

    /// Whether forge may read this project's `.forge/` (its folders are the user's,
    /// real folders, not writable by others).
    fn readable(&self) -> Result<(), String> {
        self.paths
            .check()
            .map_err(|r| format!("forge does not use this project's .forge/: {r}"))
    }

    /// [`Self::readable`], and a project forge writes into.
    fn writable(&self) -> Result<(), String> {
        self.readable()?;
        self.paths
            .is_project(self.env.home.as_deref())
            .map_err(|why| why.explain(&self.paths.root))?;
        self.paths
            .ensure_dirs()
            .map_err(|e| format!("creating {}: {e}", self.paths.forge_dir().display()))
    }

    fn record(&self, env: &Env, tool: &str, outcomes: Vec<Outcome>) {
        if !self.paths.logs().is_dir() || self.readable().is_err() {
            return;
        }
        let mut facts = Map::new();
        // An unknown tool's name is the client's text: kept to one line, redacted.
        facts.insert(
            "tool".into(),
            crate::model::text::sanitize::single_line_trimmed(&redact(tool)).into(),
        );
        if let Some(a) = self.agent.get().cloned().flatten() {
            facts.insert("agent".into(), a.into());
        }
        let line = EventLine {
            time: crate::model::time::iso(env.now),
            event: EVENT.to_owned(),
            session: self.session.clone(),
            facts,
            outcomes,
        };
        if let Err(e) = files::append_event(&self.paths, &line) {
            store::log_error(&self.paths, "forge mcp", &format!("events.jsonl: {e}"));
        }
    }

    fn run(&self, call: Call, env: &Env) -> Result<(ToolResult, Outcome), String> {
        match call {
            Call::Signal(s) => self.signal(s, env),
            Call::Inbox { to } => self.inbox(to),
            Call::Resolve(r) => self.resolve(r, env),
            Call::Handoff(notes) => self.handoff(&notes, env),
            Call::Status => self.status(env),
        }
    }

    fn signal(&self, s: SignalCall, env: &Env) -> Result<(ToolResult, Outcome), String> {
        let from = self.who(s.from.as_ref(), "from")?;
        self.writable()?;
        let draft = Draft {
            from,
            to: s.to,
            task: s.task,
            status: s.status,
            questions: s.questions,
            files: s.files,
            findings: s.findings,
            recommendation: s.recommendation,
            context: s.context,
        };
        let path = write_draft(&self.paths, &draft, env).map_err(|e| format!("{e:#}"))?;
        let file = file_name(&path);
        let id = file.strip_suffix(".md").unwrap_or(&file).to_owned();
        let mut text = format!(
            "Wrote {}: a {} Signal of task {} from {} to {}",
            self.shown(&path),
            draft.status,
            draft.task,
            draft.from,
            draft.to
        );
        if draft.status == crate::model::handoff::signal::SignalStatus::Blocked {
            let _ = write!(
                text,
                " with {}. It shows as blocked (dashboard, status line, every new session) until a later Signal of {} or the resolve tool supersedes it.",
                crate::model::text::count(draft.questions.len(), "open question", "open questions"),
                draft.task
            );
        } else {
            text.push('.');
        }
        let result = ToolResult {
            text,
            structured: Some(json!({
                "id": id,
                "path": path,
                "file": file,
                "task": draft.task,
                "status": draft.status.as_str(),
                "from": draft.from,
                "to": draft.to,
            })),
            is_error: false,
        };
        let outcome = Outcome::SignalWritten {
            path: path.display().to_string(),
            task: draft.task,
            status: draft.status.as_str().to_owned(),
            to: draft.to,
            resolves: String::new(),
        };
        Ok((result, outcome))
    }

    fn inbox(&self, to: Option<String>) -> Result<(ToolResult, Outcome), String> {
        self.readable()?;
        let agent = to.or_else(|| self.agent());
        let entries = store::handoffs::repository(&self.paths);
        let mut mine: Vec<&HandoffEntry> = entries
            .iter()
            .filter(|h| h.kind == HandoffKind::Agent && !h.is_superseded())
            .filter(
                |h| match (&agent, h.signal.as_ref().and_then(SignalParse::signal)) {
                    (Some(a), Some(s)) => s.to.trim().eq_ignore_ascii_case(a.trim()),
                    (Some(_), None) => false,
                    (None, _) => h.is_blocked(),
                },
            )
            .collect();
        // Blocked first, then newest first (the list is newest first already).
        mine.sort_by_key(|h| !h.is_blocked());
        mine.truncate(LIST_MAX);
        // Each item redacted before the text is made of it: the text puts a Signal's
        // fields side by side, and a field redacted alone is redacted whole.
        let items: Vec<Value> = mine
            .iter()
            .map(|h| {
                let mut item = inbox_item(h);
                item["path"] = json!(h.path);
                redact_json(&mut item);
                item
            })
            .collect();
        let blocked = mine.iter().filter(|h| h.is_blocked()).count();
        let whom = agent.as_deref().map_or_else(
            || {
                "anyone (this session has no agent name: every unresolved blocked Signal)"
                    .to_owned()
            },
            str::to_owned,
        );
        let mut text = format!(
            "{} for {whom}{}",
            crate::model::text::count(items.len(), "Signal", "Signals"),
            if blocked > 0 {
                format!(", {blocked} blocked")
            } else {
                String::new()
            }
        );
        text.push_str(if items.is_empty() { ".\n" } else { ":\n" });
        for (item, h) in items.iter().zip(&mine) {
            let _ = writeln!(
                text,
                "- {} task {} ({} → {}) in {}",
                item["status"].as_str().unwrap_or("?"),
                item["task"].as_str().unwrap_or("?"),
                item["from"].as_str().unwrap_or("?"),
                item["to"].as_str().unwrap_or("?"),
                redact(&h.place(&self.paths.root)),
            );
            for (key, label) in [("questions", "Open question"), ("findings", "Finding")] {
                for q in item[key].as_array().into_iter().flatten() {
                    let _ = writeln!(text, "  - {label}: {}", q.as_str().unwrap_or(""));
                }
            }
            if let Some(r) = item["recommendation"].as_str() {
                let _ = writeln!(text, "  - Recommendation: {r}");
            }
        }
        let summary = format!(
            "{} for {}{}",
            crate::model::text::count(items.len(), "Signal", "Signals"),
            agent.as_deref().unwrap_or("anyone"),
            if blocked > 0 {
                format!(" ({blocked} blocked)")
            } else {
                String::new()
            }
        );
        let result = ToolResult {
            text,
            structured: Some(json!({"agent": agent, "signals": items})),
            is_error: false,
        };
        Ok((
            result,
            Outcome::ToolAnswered {
                tool: "inbox".into(),
                summary,
            },
        ))
    }

    fn resolve(&self, r: ResolveCall, env: &Env) -> Result<(ToolResult, Outcome), String> {
        let from = self.who(r.from.as_ref(), "from")?;
        self.writable()?;
        let done = resolve_task(
            &self.paths,
            env,
            &r.task,
            &from,
            Some(&r.answer),
            r.complete,
        )
        .map_err(|e| format!("{e:#}"))?;
        let file = file_name(&done.path);
        let text = format!(
            "Resolved task {}: wrote {}, a {} Signal from {} back to {} with the answer. The blocked Signal {} is history now and no longer counts as blocked.",
            done.draft.task,
            self.shown(&done.path),
            done.draft.status,
            done.draft.from,
            done.draft.to,
            done.resolves
        );
        let result = ToolResult {
            text,
            structured: Some(json!({
                "id": file.strip_suffix(".md").unwrap_or(&file),
                "path": done.path,
                "file": file,
                "task": done.draft.task,
                "status": done.draft.status.as_str(),
                "to": done.draft.to,
                "resolves": done.resolves,
            })),
            is_error: false,
        };
        let outcome = Outcome::SignalWritten {
            path: done.path.display().to_string(),
            task: done.draft.task,
            status: done.draft.status.as_str().to_owned(),
            to: done.draft.to,
            resolves: done.resolves,
        };
        Ok((result, outcome))
    }

    fn handoff(&self, notes: &AgentNotes, env: &Env) -> Result<(ToolResult, Outcome), String> {
        self.writable()?;
        let cfg = crate::config::load_or_default(&self.paths, env);
        let session = self.session.as_deref();
        // A session forge has no bridge for yet (print mode runs no status line)
        // still has its transcript where Claude Code keeps it.
        let transcript = session
            .filter(|id| files::read_bridge(&self.paths, id).is_none())
            .and_then(|id| {
                store::transcript::find_for_session(&env.claude_dir()?, &self.paths.root, id)
            })
            .map(|p| p.to_string_lossy().into_owned());
        let req = Request {
            trigger: Trigger::Manual,
            session_id: session,
            transcript_path: transcript.as_deref(),
            git: GitInput::Compute,
            // The handoff tool writes what `forge handoff` writes: the session's own
            // request is its task, and the handoff is the pending resume.
            task: None,
            pending: true,
        };
        let written = session_handoff::write_with_notes(&self.paths, env, &cfg, &req, notes)
            .map_err(|e| format!("writing the handoff: {e}"))?;
        let file = file_name(&written.path);
        let pending = written
            .markers
            .as_ref()
            .is_ok_and(|m| !m.written.is_empty());
        let text = format!(
            "Wrote .forge/handoffs/{file}{}{}",
            if notes.is_empty() {
                ""
            } else {
                " with your decisions and next steps"
            },
            if pending {
                "; it is the pending resume, so the next session starts from it."
            } else {
                "; it could not be made the pending resume (see forge log)."
            }
        );
        let result = ToolResult {
            text,
            structured: Some(json!({
                "id": file.strip_suffix(".md").unwrap_or(&file),
                "path": written.path,
                "file": file,
                "pending": pending,
            })),
            is_error: false,
        };
        let mut outcomes = written.outcomes(Trigger::Manual);
        // The handoff itself first; a marker error rides along in the same line.
        let first = outcomes.remove(0);
        for extra in outcomes {
            self.record(env, "handoff", vec![extra]);
        }
        Ok((result, first))
    }

    fn status(&self, env: &Env) -> Result<(ToolResult, Outcome), String> {
        self.readable()?;
        let set_up = crate::app::project::is_set_up(&self.paths, env);
        let mut warning = None;
        let mut v = crate::app::status::Report::load(&self.paths, env, set_up, |e| {
            warning = Some(format!("{e:#}"));
        })
        .to_json();
        // As `forge status --json` prints it: every string redacted, before the text
        // (JSON, where a line break is an escape) is made of it.
        redact_json(&mut v);
        let blocked = v["blocked"].as_array().map_or(0, Vec::len);
        let handoffs = v["handoffs"].as_array().map_or(0, Vec::len);
        let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
        if let Some(w) = &warning {
            let _ = write!(text, "\n(config: {w}; the built-in defaults are used)");
        }
        Ok((
            ToolResult {
                text,
                structured: Some(v),
                is_error: false,
            },
            Outcome::ToolAnswered {
                tool: "status".into(),
                summary: format!(
                    "{}, {blocked} blocked",
                    crate::model::text::count(handoffs, "handoff", "handoffs")
                ),
            },
        ))
    }
}

impl Backend for Project {
    fn tools(&self) -> Vec<Value> {
        tools::definitions()
    }

    fn call_tool(&mut self, name: &str, args: &Map<String, Value>) -> Option<ToolResult> {
        let mut env = self.env.clone();
        env.now = crate::env::wall_clock();
        let size = serde_json::to_string(args).map_or(usize::MAX, |s| s.len());
        let checked = if size > ARGS_MAX {
            Err(format!(
                "the arguments are {size} bytes of JSON; at most {ARGS_MAX}"
            ))
        } else {
            tools::parse(name, args, &self.paths.root)
        };
        let (result, outcome) = match checked {
            Ok(None) => {
                self.record(
                    &env,
                    name,
                    vec![Outcome::ToolRefused {
                        tool: crate::model::text::sanitize::single_line_trimmed(name),
                        why: "no such tool".into(),
                    }],
                );
                return None;
            }
            Ok(Some(call)) => match self.run(call, &env) {
                Ok((mut result, outcome)) => {
                    // Claude Code 2.1.330 gives the model a result's
                    // structuredContent instead of its text when there is one:
                    // the sentence goes into the data too (`status` is its data).
                    if let Some(obj) = result.structured.as_mut().and_then(Value::as_object_mut)
                        && name != "status"
                    {
                        obj.insert("message".into(), Value::String(result.text.clone()));
                    }
                    (result, outcome)
                }
                Err(why) => refused(name, why),
            },
            Err(why) => refused(name, why),
        };
        self.record(&env, name, vec![outcome]);
        Some(redacted(result))
    }

    fn list_resources(&mut self) -> Vec<Value> {
        if self.readable().is_err() {
            return Vec::new();
        }
        store::handoffs::repository(&self.paths)
            .iter()
            .take(LIST_MAX)
            .map(|h| {
                let title = match h.kind {
                    HandoffKind::Agent => format!(
                        "{} Signal of {}{}",
                        h.status_word(),
                        h.task().unwrap_or("?"),
                        h.route().map(|r| format!(" ({r})")).unwrap_or_default()
                    ),
                    HandoffKind::Session => format!(
                        "session handoff ({}): {}",
                        h.status_word(),
                        h.display_title().unwrap_or(&h.file_name)
                    ),
                };
                json!({
                    "uri": format!("{RESOURCE_PREFIX}{}", h.file_name),
                    "name": h.file_name,
                    "title": crate::model::text::sanitize::single_line(&redact(&title)),
                    "mimeType": "text/markdown",
                })
            })
            .collect()
    }

    fn read_resource(&mut self, uri: &str) -> Result<Vec<Value>, String> {
        let mut env = self.env.clone();
        env.now = crate::env::wall_clock();
        let read = self.read_handoff(uri);
        let outcome = match &read {
            Ok((name, _)) => Outcome::ToolAnswered {
                tool: "resources/read".into(),
                summary: name.clone(),
            },
            Err(why) => Outcome::ToolRefused {
                tool: "resources/read".into(),
                why: why.clone(),
            },
        };
        self.record(&env, "resources/read", vec![outcome]);
        let (_, text) = read?;
        // A handoff may be written by hand (or by an agent, not through forge): what
        // the model reads is redacted, as SessionStart's text is (its Signal block as
        // JSON, where a line break is an escape).
        Ok(vec![
            json!({"uri": uri, "mimeType": "text/markdown", "text": redact_document(&text)}),
        ])
    }

    fn instructions(&self) -> &str {
        INSTRUCTIONS
    }
}

impl Project {
    /// The handoff a `forge://handoffs/<file>` URI names: its name and text.
    fn read_handoff(&self, uri: &str) -> Result<(String, String), String> {
        self.readable()?;
        let shown = crate::model::text::sanitize::single_line_trimmed(uri);
        let name = uri
            .strip_prefix(RESOURCE_PREFIX)
            .filter(|n| {
                !n.contains(['/', '\\'])
                    && n.ends_with(".md")
                    && HandoffKind::of_file_name(n).is_some()
            })
            .ok_or_else(|| {
                format!("no resource {shown}: forge's resources are {RESOURCE_PREFIX}<file>")
            })?;
        let path = store::inbox::find(&self.paths, name)
            .ok_or_else(|| format!("{shown}: no such handoff in the repository's inbox"))?;
        let bytes = store::safe::read_capped(&path, READ_MAX, store::safe::Follow::No)
            .map_err(|e| format!("{shown}: {e}"))?;
        Ok((
            name.to_owned(),
            String::from_utf8_lossy(&bytes).into_owned(),
        ))
    }
}

/// `result` as it leaves forge for the model: its text and every string of its
/// data redacted ([`crate::model::text::redact`]). Questions, findings and tasks come from
/// files an agent or a person wrote, `status` quotes the project's state, and a
/// refusal may quote the arguments.
fn redacted(mut result: ToolResult) -> ToolResult {
    if let Cow::Owned(text) = redact_cow(&result.text) {
        result.text = text;
    }
    if let Some(data) = result.structured.as_mut() {
        redact_json(data);
    }
    result
}

fn refused(tool: &str, why: String) -> (ToolResult, Outcome) {
    (
        ToolResult::error(format!("{tool}: {why}")),
        Outcome::ToolRefused {
            tool: tool.to_owned(),
            why,
        },
    )
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One Signal as `inbox` gives it: its Signal's fields, and the findings and
/// recommendation of its text (where an answer to a blocked Signal is).
fn inbox_item(h: &HandoffEntry) -> Value {
    let signal = h.signal.as_ref().and_then(SignalParse::signal);
    let text = store::safe::read_capped(&h.path, 256 * 1024, store::safe::Follow::No)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    // Redacted while its lines are still lines: a key block under Findings would
    // otherwise become items of one line each, none of which looks like a key.
    let text = redact_document(&text);
    let recommendation = section(&text, "Recommendations").join(" ");
    json!({
        "id": h.file_name.strip_suffix(".md").unwrap_or(&h.file_name),
        "file": h.file_name,
        "task": h.task(),
        "from": signal.map(|s| s.from.as_str()),
        "to": signal.map(|s| s.to.as_str()),
        "status": h.status_word(),
        "blocked": h.is_blocked(),
        "worktree": h.origin.as_ref().map(|o| o.worktree.as_str()).filter(|w| !w.is_empty()),
        "branch": h.origin.as_ref().and_then(|o| o.branch.as_deref()),
        // Shared from another machine through the git remote (docs/share.md): shown,
        // never acted on.
        "remote": h.origin.as_ref().and_then(|o| o.remote.as_ref()).map(|r| json!({
            "writer": r.writer, "machine": r.machine,
        })),
        "written_at": h.created.map(crate::model::time::iso),
        "questions": signal.map(|s| s.open_questions.clone()).unwrap_or_default(),
        "findings": section(&text, "Findings"),
        "recommendation": (!recommendation.is_empty()).then_some(recommendation),
    })
}

/// The lines under `### <heading>` of an agent handoff, at most a tool's list
/// ([`crate::model::handoff::signal::section_items`]).
fn section(text: &str, heading: &str) -> Vec<String> {
    crate::model::handoff::signal::section_items(text, heading, tools::LIST_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_read_up_to_the_next_heading() {
        let text = "### Findings\n- Answer: 20\n- more\n\n### Files Modified\n- (none)\n### Recommendations\nCarry on.\n";
        assert_eq!(section(text, "Findings"), ["Answer: 20", "more"]);
        assert!(section(text, "Files Modified").is_empty());
        assert_eq!(section(text, "Recommendations"), ["Carry on."]);
        assert!(section(text, "Signal").is_empty());
    }
}
