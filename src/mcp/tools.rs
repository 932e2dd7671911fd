//! The tools of `forge mcp`: their JSON schemas, and the checks that turn a tool
//! call's arguments (untrusted input: a model wrote them) into a typed call. Pure.
//!
//! Every text is checked like any other input from outside: a size limit per field
//! and per list, no control characters or escape sequences (a newline is allowed in
//! free text, where the writer folds it), file names inside the project, task ids
//! of the characters a file name keeps. What passes is redacted
//! ([`crate::model::text::redact::redact`]) before anything is written. Unknown
//! arguments are refused, so a misspelt one is an error the model can fix rather
//! than an answer silently lost.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::model::handoff::handoff_doc::AgentNotes;
use crate::model::handoff::signal::SignalStatus;
use crate::model::text::redact::redact;

/// The longest agent name or task id.
pub(crate) const NAME_MAX: usize = 64;
/// The longest question, finding, answer, decision or step.
pub(crate) const ITEM_MAX: usize = 2000;
/// The longest context, recommendation or notes text.
pub(crate) const TEXT_MAX: usize = 8000;
/// The most items in one list.
pub(crate) const LIST_MAX: usize = 30;
/// The longest file name.
pub(crate) const FILE_MAX: usize = 400;
/// The most files one Signal lists.
pub(crate) const FILES_MAX: usize = 200;

/// A tool call, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Call {
    /// `signal`.
    Signal(SignalCall),
    /// `inbox`.
    Inbox {
        /// Whose inbox (`None`: this session's agent).
        to: Option<String>,
    },
    /// `resolve`.
    Resolve(ResolveCall),
    /// `handoff`.
    Handoff(AgentNotes),
    /// `status`.
    Status,
}

/// The arguments of `signal`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SignalCall {
    /// The writer (`None`: this session's agent).
    pub(crate) from: Option<String>,
    /// The agent it is for.
    pub(crate) to: String,
    /// The task id.
    pub(crate) task: String,
    /// Its status.
    pub(crate) status: SignalStatus,
    /// Open questions.
    pub(crate) questions: Vec<String>,
    /// What was found.
    pub(crate) findings: Vec<String>,
    /// Files changed, relative to the project root.
    pub(crate) files: Vec<String>,
    /// Background.
    pub(crate) context: Option<String>,
    /// What the next agent should do.
    pub(crate) recommendation: Option<String>,
}

/// The arguments of `resolve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolveCall {
    /// The task whose blocked Signal is answered.
    pub(crate) task: String,
    /// The answer.
    pub(crate) answer: String,
    /// Who answers (`None`: this session's agent).
    pub(crate) from: Option<String>,
    /// The task is complete rather than partial.
    pub(crate) complete: bool,
}

/// The tools' names, in the order `tools/list` gives them.
#[cfg(test)]
pub(crate) const NAMES: [&str; 5] = ["signal", "inbox", "resolve", "handoff", "status"];

fn text_list(description: &str, max_chars: usize) -> Value {
    json!({
        "type": "array",
        "description": description,
        "items": {"type": "string", "maxLength": max_chars},
        "maxItems": LIST_MAX,
    })
}

/// The `tools/list` entries: name, title, description, input schema, hints.
pub(crate) fn definitions() -> Vec<Value> {
    let name = |d: &str| json!({"type": "string", "description": d, "minLength": 1, "maxLength": NAME_MAX});
    let task = json!({
        "type": "string",
        "description": "The task id, e.g. T-012 (letters, digits, '.', '_' and '-'). Signals of one task form a thread: the newest is its state.",
        "pattern": "^[A-Za-z0-9._-]{1,64}$",
    });
    vec![
        json!({
            "name": "signal",
            "title": "Write an agent Signal",
            "description": "Hand work to another agent, or ask a question you cannot go on without: writes an agent handoff (.forge/handoffs/agent-<task>-<time>.md) whose Signal is valid by construction, and returns its id and path. status blocked needs at least one question; a blocked Signal is shown first by forge's dashboard, status line and the next session's start, and stays blocked until a later Signal of the task (or the resolve tool) supersedes it.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": name("The agent it is for (e.g. reviewer, lead)."),
                    "task": task,
                    "status": {"type": "string", "enum": ["complete", "partial", "blocked"], "description": "complete: done; partial: some of it done; blocked: you need an answer to go on."},
                    "questions": text_list("Open questions (required when blocked), each one complete on its own.", ITEM_MAX),
                    "findings": text_list("What you found or decided.", ITEM_MAX),
                    "files": {"type": "array", "description": "Files you changed, relative to the project root (names only, never contents).", "items": {"type": "string", "maxLength": FILE_MAX}, "maxItems": FILES_MAX},
                    "context": {"type": "string", "description": "Background the next agent needs.", "maxLength": TEXT_MAX},
                    "recommendation": {"type": "string", "description": "What the next agent should do.", "maxLength": TEXT_MAX},
                    "from": name("Who writes it (default: this session's agent, $FORGE_AGENT or the tmux session's name)."),
                },
                "required": ["to", "task", "status"],
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
        }),
        json!({
            "name": "inbox",
            "title": "Signals addressed to you",
            "description": "The current Signals addressed to an agent (the newest of each task's thread, so an answered question no longer shows), blocked first, then newest first, with their open questions, findings and recommendation. Without `to` it is this session's agent ($FORGE_AGENT or the tmux session's name); when that is unknown, every unresolved blocked Signal.",
            "inputSchema": {
                "type": "object",
                "properties": {"to": name("The agent whose inbox to read.")},
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
        }),
        json!({
            "name": "resolve",
            "title": "Answer a blocked Signal",
            "description": "Answer a task's blocked Signal, as `forge signal resolve` does: writes the Signal that supersedes it, back to the agent that asked, status partial (complete with complete: true), not blocking, with the answer under Findings. From then on the task no longer counts as blocked; the old Signal stays on disk as history.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "task": task,
                    "answer": {"type": "string", "description": "The answer to the open questions.", "minLength": 1, "maxLength": ITEM_MAX},
                    "complete": {"type": "boolean", "description": "The task is complete (default: partial, the asker carries on)."},
                    "from": name("Who answers (default: this session's agent)."),
                },
                "required": ["task", "answer"],
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
        }),
        json!({
            "name": "handoff",
            "title": "Write a session handoff now",
            "description": "Write a session handoff (as `forge handoff`): forge's facts from the transcript and git (task, progress, files, git state, open Signals), plus what only you know: your decisions and why, what you would do next, and notes. It becomes the pending resume, so the next session starts from it. Use it before the context fills or before you stop.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "decisions": {
                        "type": "array",
                        "description": "What you decided, and why.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "decision": {"type": "string", "maxLength": ITEM_MAX},
                                "why": {"type": "string", "maxLength": ITEM_MAX},
                            },
                            "required": ["decision"],
                            "additionalProperties": false,
                        },
                        "maxItems": LIST_MAX,
                    },
                    "next_steps": text_list("What you would do next, in order.", ITEM_MAX),
                    "notes": {"type": "string", "description": "Anything else the next session should know.", "maxLength": TEXT_MAX},
                },
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
        }),
        json!({
            "name": "status",
            "title": "This project's forge status",
            "description": "What `forge status --json` says: the current session's context, the last session, flags, sessions waiting, and the handoff inbox with blocked Signals.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "openWorldHint": false},
        }),
    ]
}

/// Checks the arguments of tool `name`. `Ok(None)`: there is no such tool. `Err`:
/// what is wrong, in words for the agent. `root` is the project root (files must be
/// inside it).
pub(crate) fn parse(
    name: &str,
    args: &Map<String, Value>,
    root: &Path,
) -> Result<Option<Call>, String> {
    let a = Args { map: args };
    let call = match name {
        "signal" => {
            a.only(&[
                "to",
                "task",
                "status",
                "questions",
                "findings",
                "files",
                "context",
                "recommendation",
                "from",
            ])?;
            let status_text = a.required_name("status")?;
            let Some(status) = SignalStatus::parse(&status_text) else {
                return Err(format!(
                    "status {status_text:?} is not one of complete, partial, blocked"
                ));
            };
            let questions = a.list("questions", ITEM_MAX)?;
            if status == SignalStatus::Blocked && questions.is_empty() {
                return Err("a blocked Signal needs at least one question: say what the other agent must answer".to_owned());
            }
            Call::Signal(SignalCall {
                from: a.name("from")?,
                to: a.required_name("to")?,
                task: a.task()?,
                status,
                questions,
                findings: a.list("findings", ITEM_MAX)?,
                files: a.files(root)?,
                context: a.text("context", TEXT_MAX)?,
                recommendation: a.text("recommendation", TEXT_MAX)?,
            })
        }
        "inbox" => {
            a.only(&["to"])?;
            Call::Inbox { to: a.name("to")? }
        }
        "resolve" => {
            a.only(&["task", "answer", "complete", "from"])?;
            let Some(answer) = a.text("answer", ITEM_MAX)? else {
                return Err(
                    "answer is required: the answer to the blocked Signal's questions".to_owned(),
                );
            };
            Call::Resolve(ResolveCall {
                task: a.task()?,
                answer,
                from: a.name("from")?,
                complete: a.flag("complete")?,
            })
        }
        "handoff" => {
            a.only(&["decisions", "next_steps", "notes"])?;
            Call::Handoff(AgentNotes {
                decisions: a.decisions()?,
                next_steps: a.list("next_steps", ITEM_MAX)?,
                notes: a.text("notes", TEXT_MAX)?,
            })
        }
        "status" => {
            a.only(&[])?;
            Call::Status
        }
        _ => return Ok(None),
    };
    Ok(Some(call))
}

/// What is wrong with a text from outside, if anything: control characters or
/// escape sequences (a newline and a tab are allowed where `multiline`).
fn bad_characters(text: &str, multiline: bool) -> Option<String> {
    let cleaned = crate::model::text::sanitize::clean(text);
    let has_break = !multiline && text.contains(['\n', '\t', '\r']);
    if cleaned != text || has_break {
        let c = text
            .chars()
            .find(|c| {
                (c.is_control() && (!multiline || !matches!(c, '\n' | '\t')))
                    || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
            })
            .unwrap_or('?');
        return Some(format!(
            "contains the control character U+{:04X}{}",
            u32::from(c),
            if multiline {
                ""
            } else {
                " (it must be one line)"
            }
        ));
    }
    None
}

struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl Args<'_> {
    fn only(&self, known: &[&str]) -> Result<(), String> {
        let mut unknown: Vec<&str> = self
            .map
            .keys()
            .map(String::as_str)
            .filter(|k| !known.contains(k))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        unknown.sort_unstable();
        Err(format!(
            "unknown argument{} {} (this tool takes: {})",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            if known.is_empty() {
                "nothing".to_owned()
            } else {
                known.join(", ")
            }
        ))
    }

    /// A string argument, checked: `None` when absent, null or blank.
    fn string(&self, key: &str, max: usize, multiline: bool) -> Result<Option<String>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => {
                let s = s.trim();
                if s.is_empty() {
                    return Ok(None);
                }
                let n = s.chars().count();
                if n > max {
                    return Err(format!("{key} is {n} characters long; at most {max}"));
                }
                if let Some(why) = bad_characters(s, multiline) {
                    return Err(format!("{key} {why}"));
                }
                Ok(Some(redact(s)))
            }
            Some(other) => Err(format!("{key} must be a string, not {}", kind(other))),
        }
    }

    fn name(&self, key: &str) -> Result<Option<String>, String> {
        self.string(key, NAME_MAX, false)
    }

    fn required_name(&self, key: &str) -> Result<String, String> {
        self.name(key)?
            .ok_or_else(|| format!("{key} is required and must not be empty"))
    }

    fn text(&self, key: &str, max: usize) -> Result<Option<String>, String> {
        self.string(key, max, true)
    }

    fn task(&self) -> Result<String, String> {
        let task = self.required_name("task")?;
        if let Some(c) = task
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        {
            return Err(format!(
                "task {task:?} has the character {c:?}: a task id is letters, digits, '.', '_' and '-' (e.g. T-012)"
            ));
        }
        Ok(task)
    }

    fn flag(&self, key: &str) -> Result<bool, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(format!("{key} must be true or false, not {}", kind(other))),
        }
    }

    fn items(&self, key: &str, max_items: usize) -> Result<&[Value], String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(&[]),
            Some(Value::Array(items)) if items.len() > max_items => Err(format!(
                "{key} has {} items; at most {max_items}",
                items.len()
            )),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(format!("{key} must be a list, not {}", kind(other))),
        }
    }

    fn list(&self, key: &str, max_chars: usize) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for (n, item) in self.items(key, LIST_MAX)?.iter().enumerate() {
            let one = Map::from_iter([(format!("{key}[{n}]"), item.clone())]);
            if let Some(s) = (Args { map: &one }).string(&format!("{key}[{n}]"), max_chars, true)? {
                out.push(s);
            }
        }
        Ok(out)
    }

    fn files(&self, root: &Path) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for (n, item) in self.items("files", FILES_MAX)?.iter().enumerate() {
            let key = format!("files[{n}]");
            let one = Map::from_iter([(key.clone(), item.clone())]);
            let Some(file) = (Args { map: &one }).string(&key, FILE_MAX, false)? else {
                continue;
            };
            out.push(inside(root, &file).ok_or_else(|| {
                format!(
                    "{key} {file:?} is not a file inside the project: give it relative to the project root, without .. or ~"
                )
            })?);
        }
        Ok(out)
    }

    fn decisions(&self) -> Result<Vec<(String, String)>, String> {
        let mut out = Vec::new();
        for (n, item) in self.items("decisions", LIST_MAX)?.iter().enumerate() {
            let Value::Object(map) = item else {
                return Err(format!(
                    "decisions[{n}] must be an object {{\"decision\": …, \"why\": …}}, not {}",
                    kind(item)
                ));
            };
            let d = Args { map };
            d.only(&["decision", "why"])
                .map_err(|e| format!("decisions[{n}]: {e}"))?;
            let Some(decision) = d
                .text("decision", ITEM_MAX)
                .map_err(|e| format!("decisions[{n}].{e}"))?
            else {
                return Err(format!("decisions[{n}].decision is required"));
            };
            let why = d
                .text("why", ITEM_MAX)
                .map_err(|e| format!("decisions[{n}].{e}"))?
                .unwrap_or_default();
            out.push((decision, why));
        }
        Ok(out)
    }
}

/// `file` as the project-relative name a Signal stores, or `None` when it is not a
/// name inside the project (`/etc/hosts`, `../x`, `~/.ssh/id_rsa`, the root).
pub(crate) fn inside(root: &Path, file: &str) -> Option<String> {
    let path = Path::new(file);
    let rel = if path.is_absolute() {
        path.strip_prefix(root).ok()?
    } else {
        path
    };
    let rel = rel.to_string_lossy();
    let mut rel = rel.as_ref();
    while let Some(rest) = rel.strip_prefix("./") {
        rel = rest;
    }
    crate::model::handoff::handoff_doc::project_path(root, rel)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn refused(name: &str, v: Value) -> String {
        match parse(name, &args(v.clone()), Path::new("/repo")) {
            Err(e) => e,
            Ok(c) => panic!("{name} {v} accepted as {c:?}"),
        }
    }

    #[test]
    fn every_tool_has_a_schema_that_refuses_unknown_arguments() {
        let defs = definitions();
        let names: Vec<&str> = defs.iter().map(|d| d["name"].as_str().unwrap()).collect();
        assert_eq!(names, NAMES);
        for d in &defs {
            let schema = &d["inputSchema"];
            assert_eq!(schema["type"], "object", "{d}");
            assert_eq!(schema["additionalProperties"], false, "{d}");
            assert!(d["description"].as_str().unwrap().len() > 40, "{d}");
            for r in schema["required"].as_array().into_iter().flatten() {
                assert!(
                    schema["properties"].get(r.as_str().unwrap()).is_some(),
                    "{d}: required {r} has no property"
                );
            }
            // Every property the schema names is one the checks accept.
            let name = d["name"].as_str().unwrap();
            for key in schema["properties"].as_object().unwrap().keys() {
                let e = parse(name, &args(json!({key: 12345})), Path::new("/repo"));
                if let Err(e) = e {
                    assert!(!e.contains("unknown argument"), "{name}.{key}: {e}");
                }
            }
        }
    }

    #[test]
    fn a_good_signal_is_checked_and_redacted() {
        let call = parse(
            "signal",
            &args(json!({
                "to": "reviewer", "task": "T-012", "status": "blocked",
                "questions": ["Pool size from env\nor config?", "  "],
                "findings": ["the key is AKIAIOSFODNN7EXAMPLE"],
                "files": ["src/db.rs", "/repo/src/main.rs", "./README.md"],
            })),
            Path::new("/repo"),
        )
        .unwrap()
        .unwrap();
        let Call::Signal(s) = call else { panic!() };
        assert_eq!(s.status, SignalStatus::Blocked);
        assert_eq!(s.questions, ["Pool size from env\nor config?"]);
        assert_eq!(s.files, ["src/db.rs", "src/main.rs", "README.md"]);
        assert!(
            !s.findings[0].contains("AKIAIOSFODNN7EXAMPLE"),
            "{:?}",
            s.findings
        );
        assert!(s.findings[0].contains("[REDACTED]"), "{:?}", s.findings);
        assert_eq!(s.from, None);
    }

    #[test]
    fn bad_input_is_refused_with_the_reason() {
        let base = json!({"to": "reviewer", "task": "T-1", "status": "partial"});
        let with = |k: &str, v: Value| {
            let mut b = base.clone();
            b[k] = v;
            b
        };
        let cases = [
            (
                with("status", json!("done")),
                "not one of complete, partial, blocked",
            ),
            (
                with("status", json!("blocked")),
                "needs at least one question",
            ),
            (
                with("task", json!("../../etc/passwd")),
                "a task id is letters",
            ),
            (with("task", json!("x".repeat(65))), "at most 64"),
            (with("to", json!("")), "to is required"),
            (
                with("to", json!("rev\u{1b}[31mviewer")),
                "control character U+001B",
            ),
            (with("to", json!("a\nb")), "one line"),
            (with("to", json!(7)), "must be a string, not a number"),
            (with("questions", json!("why?")), "must be a list"),
            (with("questions", json!(vec!["q"; 31])), "at most 30"),
            (with("questions", json!(["a\u{202e}b"])), "U+202E"),
            (with("findings", json!(["x".repeat(2001)])), "at most 2000"),
            (
                with("files", json!(["/etc/hosts"])),
                "not a file inside the project",
            ),
            (
                with("files", json!(["../secrets"])),
                "not a file inside the project",
            ),
            (
                with("files", json!(["~/.ssh/id_rsa"])),
                "not a file inside the project",
            ),
            (with("colour", json!("red")), "unknown argument colour"),
        ];
        for (v, want) in cases {
            let e = refused("signal", v.clone());
            assert!(e.contains(want), "{v}: {e}");
        }
        assert!(refused("resolve", json!({"task": "T-1"})).contains("answer is required"));
        assert!(
            refused(
                "resolve",
                json!({"task": "T-1", "answer": "x", "complete": "yes"})
            )
            .contains("true or false")
        );
        assert!(refused("status", json!({"x": 1})).contains("takes: nothing"));
        assert!(
            refused("handoff", json!({"decisions": ["use a pool"]})).contains("must be an object")
        );
        assert!(
            refused("handoff", json!({"decisions": [{"why": "w"}]}))
                .contains("decision is required")
        );
        assert_eq!(
            parse("nope", &Map::new(), Path::new("/repo")).unwrap(),
            None
        );
    }

    #[test]
    fn handoff_notes_keep_decisions_with_their_reasons() {
        let call = parse(
            "handoff",
            &args(json!({
                "decisions": [{"decision": "Pool in main", "why": "router needs it"}, {"decision": "No retries"}],
                "next_steps": ["Move handlers"],
                "notes": "token=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB",
            })),
            Path::new("/repo"),
        )
        .unwrap()
        .unwrap();
        let Call::Handoff(n) = call else { panic!() };
        assert_eq!(
            n.decisions,
            [
                ("Pool in main".to_owned(), "router needs it".to_owned()),
                ("No retries".to_owned(), String::new())
            ]
        );
        assert_eq!(n.next_steps, ["Move handlers"]);
        assert!(!n.notes.unwrap().contains("ghp_0123"));
    }
}
