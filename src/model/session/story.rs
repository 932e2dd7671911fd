//! A session's story, as a handoff tells it, read forwards from its transcript: the
//! person's requests in their own words (the first one is the task), the client's
//! latest compaction summary and what happened after it, the plan the person
//! approved, their answers to the agent's questions, background commands still
//! running, the last command that failed and is not fixed since, and Claude's last
//! words. Pure: records go in one at a time ([`Story::observe`]); everything is raw
//! and is redacted by whoever shows it.
//!
//! Who wrote a `user` record is [`super::user_record`]'s to say. Tool calls and
//! their results are matched by `tool_use` id: `ExitPlanMode` (approved when its
//! result says "User has approved …"), `AskUserQuestion` (the answers in the
//! result's `toolUseResult.answers`, else in its text `"question"="answer"`),
//! `Bash` (started in the background when its result names a background id; failed
//! when its result is an error), and the calls and notices that end a background
//! command (`<task-notification>`, `TaskOutput`, `TaskStop`/`KillShell`).

use serde::Serialize;
use serde_json::Value;

use super::record::{content_text, is_boundary};
use super::user_record::{self, UserRecord};

/// The most requests kept (the first one always stays).
pub(crate) const REQUESTS_KEPT: usize = 200;
/// The most characters kept of one request, a plan, an answer.
const TEXT_KEPT: usize = 4000;
/// The most characters kept of a compaction summary.
const SUMMARY_KEPT: usize = 64 * 1024;
/// The most lines of a failed command's output kept (its end).
const ERROR_LINES: usize = 12;
/// The most tool calls waiting for their result that are remembered.
const PENDING_MAX: usize = 512;

/// Something the person said, and when (the record's `timestamp`, as written).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Said {
    /// Their words.
    pub text: String,
    /// When.
    pub at: Option<String>,
    /// How many times they said it (a repeated request is kept once, at its
    /// latest place).
    pub times: usize,
    /// The client marked it interrupted (`[Request interrupted by user…]`) before
    /// Claude said anything to it.
    pub interrupted: bool,
}

/// The client's compaction summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ClientSummary {
    /// Its text, as the client wrote it.
    pub text: String,
    /// When it was written.
    pub at: Option<String>,
    /// Where it came from: `transcript` (the `isCompactSummary` record) or
    /// `post-compact` (the PostCompact hook's `compact_summary`).
    pub source: &'static str,
}

/// What happened after the latest compaction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Since {
    /// Files edited, in the order last touched (absolute as recorded).
    pub files: Vec<String>,
    /// Requests of the person.
    pub requests: usize,
    /// Shell commands run.
    pub commands: usize,
}

/// The plan the person approved (`ExitPlanMode`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ApprovedPlan {
    /// The plan (as the person edited it, when they did).
    pub text: String,
    /// When it was approved.
    pub at: Option<String>,
    /// The person edited it before approving.
    pub edited: bool,
}

/// The person's answer to one of the agent's questions (`AskUserQuestion`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The question.
    pub question: String,
    /// The answer (an option's label, or what the person wrote).
    pub answer: String,
    /// When.
    pub at: Option<String>,
}

/// A command started in the background and not reported finished.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Background {
    /// The client's id for it.
    pub id: String,
    /// The command.
    pub command: String,
    /// Its description, when the call gave one.
    pub description: Option<String>,
    /// When it started.
    pub at: Option<String>,
}

/// A shell command that failed, not run again with success since.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The command.
    pub command: String,
    /// The last lines of its output.
    pub tail: String,
    /// When.
    pub at: Option<String>,
}

/// A tool call waiting for its result.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pending {
    Plan(String),
    Ask(Vec<String>),
    Bash {
        command: String,
        description: Option<String>,
    },
    Stop(String),
    Output(String),
}

/// The session's story, built record by record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Story {
    /// The person's first request in the part read (see [`Story::first`]).
    pub first: Option<Said>,
    /// Every request of the person, in order, each once (at its latest place).
    pub requests: Vec<Said>,
    /// The latest compaction summary.
    pub summary: Option<ClientSummary>,
    /// When the latest compaction happened (its boundary's time).
    pub compacted_at: Option<String>,
    /// What happened after it (everything, when there was none).
    pub since: Since,
    /// The last plan the person approved.
    pub plan: Option<ApprovedPlan>,
    /// The person's answers, in order.
    pub decisions: Vec<Decision>,
    /// Background commands still running, as far as the transcript tells.
    pub background: Vec<Background>,
    /// The last failed command, unless one like it succeeded after it.
    pub failure: Option<Failure>,
    /// Claude's last text in the person's turns.
    pub last_words: Option<Said>,
    /// Its last text after that, answering what the client reported itself (a
    /// background command's end), when there is one.
    pub notice_words: Option<Said>,
    #[serde(skip)]
    pending: Vec<(String, Pending)>,
    /// Claude wrote text after the person's last request.
    #[serde(skip)]
    answered_since_last_request: bool,
    /// The turn going on answers a client's notice, not the person.
    #[serde(skip)]
    answering_notice: bool,
}

fn at_of(rec: &Value) -> Option<String> {
    rec.get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn kept(text: &str, max: usize) -> String {
    crate::model::text::sanitize::cut_chars(text.trim(), max)
}

impl Story {
    /// Takes one record into the story (sidechain records are the caller's to skip).
    pub(crate) fn observe(&mut self, rec: &Value) {
        match rec.get("type").and_then(Value::as_str) {
            Some("system") if is_boundary(rec) => {
                self.compacted_at = at_of(rec);
                self.since = Since::default();
            }
            Some("assistant") => self.assistant(rec),
            Some("user") => self.user(rec),
            _ => {}
        }
    }

    /// A compaction summary sent by the PostCompact hook: it takes the place of the
    /// transcript's unless the transcript's is of a later compaction (more than
    /// [`SAME_COMPACTION`] after it; PostCompact's time is when forge heard it, a
    /// moment after the client wrote its record).
    pub(crate) fn offer_summary(&mut self, summary: ClientSummary) {
        let takes = match (&self.summary, &summary.at) {
            (None, _) => true,
            (Some(s), Some(at)) => {
                s.at.as_deref()
                    .is_none_or(|t| !later_by(t, at, SAME_COMPACTION))
            }
            (Some(_), None) => false,
        };
        if takes {
            self.summary = Some(summary);
        }
    }

    /// The task: the first request that says more than "continue", else the first.
    pub(crate) fn task(&self) -> Option<&Said> {
        self.first
            .iter()
            .chain(&self.requests)
            .find(|s| !user_record::is_continue_like(&s.text))
            .or(self.first.as_ref())
    }

    fn assistant(&mut self, rec: &Value) {
        let blocks = rec
            .pointer("/message/content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for b in blocks {
            match b.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = b.get("text").and_then(Value::as_str).unwrap_or("");
                    if !text.trim().is_empty() {
                        self.answered_since_last_request = true;
                        let words = Some(Said {
                            text: kept(text, TEXT_KEPT),
                            at: at_of(rec),
                            times: 1,
                            interrupted: false,
                        });
                        if self.answering_notice {
                            self.notice_words = words;
                        } else {
                            self.last_words = words;
                            self.notice_words = None;
                        }
                    }
                }
                Some("tool_use") => self.tool_use(b),
                _ => {}
            }
        }
    }

    fn tool_use(&mut self, b: &Value) {
        let Some(id) = b.get("id").and_then(Value::as_str) else {
            return;
        };
        let input = b.get("input").unwrap_or(&Value::Null);
        let field = |k: &str| input.get(k).and_then(Value::as_str);
        let pending = match b.get("name").and_then(Value::as_str).unwrap_or("") {
            "ExitPlanMode" => Pending::Plan(field("plan").unwrap_or("").to_owned()),
            "AskUserQuestion" => Pending::Ask(
                input
                    .get("questions")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|q| q.get("question").and_then(Value::as_str))
                    .map(str::to_owned)
                    .collect(),
            ),
            "Bash" => {
                self.since.commands += 1;
                Pending::Bash {
                    command: kept(field("command").unwrap_or(""), TEXT_KEPT),
                    description: field("description").map(|d| kept(d, 300)),
                }
            }
            "TaskStop" | "KillShell" | "KillBash" => match field("task_id")
                .or_else(|| field("shell_id"))
                .or_else(|| field("bash_id"))
            {
                Some(t) => Pending::Stop(t.to_owned()),
                None => return,
            },
            "TaskOutput" | "BashOutput" => match field("task_id").or_else(|| field("bash_id")) {
                Some(t) => Pending::Output(t.to_owned()),
                None => return,
            },
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
                if let Some(p) = field("file_path").or_else(|| field("notebook_path")) {
                    push_recent(&mut self.since.files, p);
                }
                return;
            }
            _ => return,
        };
        if self.pending.len() >= PENDING_MAX {
            self.pending.remove(0);
        }
        self.pending.push((id.to_owned(), pending));
    }

    fn user(&mut self, rec: &Value) {
        match user_record::classify(rec) {
            Some(UserRecord::ToolResult) => self.results(rec),
            Some(UserRecord::CompactSummary(text)) => {
                self.summary = Some(ClientSummary {
                    text: kept(&text, SUMMARY_KEPT),
                    at: at_of(rec),
                    source: "transcript",
                });
            }
            Some(UserRecord::TaskNotification(n)) => {
                if let Some(id) = n.id {
                    self.background.retain(|b| b.id != id);
                }
                self.answering_notice = true;
            }
            Some(UserRecord::Client(user_record::ClientText::Interrupted)) => {
                let answered = self.answered_since_last_request;
                if let Some(last) = self.requests.last_mut().filter(|_| !answered) {
                    last.interrupted = true;
                }
            }
            Some(r) => {
                if let Some(text) = r.request() {
                    self.said(kept(&text, TEXT_KEPT), at_of(rec));
                }
            }
            None => {}
        }
    }

    fn said(&mut self, text: String, at: Option<String>) {
        self.since.requests += 1;
        self.answered_since_last_request = false;
        self.answering_notice = false;
        if self.first.is_none() {
            self.first = Some(Said {
                text: text.clone(),
                at: at.clone(),
                times: 1,
                interrupted: false,
            });
        }
        let times = match self.requests.iter().position(|s| s.text == text) {
            Some(i) => self.requests.remove(i).times + 1,
            None => 1,
        };
        self.requests.push(Said {
            text,
            at,
            times,
            interrupted: false,
        });
        if self.requests.len() > REQUESTS_KEPT {
            self.requests.remove(0);
        }
    }

    fn results(&mut self, rec: &Value) {
        let at = at_of(rec);
        let extra = rec.get("toolUseResult");
        let blocks = rec
            .pointer("/message/content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for b in blocks {
            if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else {
                continue;
            };
            let Some(pos) = self.pending.iter().position(|(p, _)| p == id) else {
                continue;
            };
            let (_, pending) = self.pending.remove(pos);
            let error = b.get("is_error").and_then(Value::as_bool) == Some(true);
            let text = content_text(b.get("content").unwrap_or(&Value::Null));
            self.result(pending, error, &text, extra, at.clone());
        }
    }

    fn result(
        &mut self,
        pending: Pending,
        error: bool,
        text: &str,
        extra: Option<&Value>,
        at: Option<String>,
    ) {
        match pending {
            Pending::Plan(plan) if !error && text.starts_with("User has approved") => {
                let (text, edited) = approved_plan(text).unwrap_or((plan, false));
                // Approving "exit plan mode" with no plan approves nothing to follow.
                if text.trim().is_empty() {
                    return;
                }
                self.plan = Some(ApprovedPlan {
                    text: kept(&text, TEXT_KEPT * 4),
                    at,
                    edited,
                });
            }
            Pending::Ask(questions) if !error => {
                for (question, answer) in answers(&questions, text, extra) {
                    self.decisions.push(Decision {
                        question: kept(&question, TEXT_KEPT),
                        answer: kept(&answer, TEXT_KEPT),
                        at: at.clone(),
                    });
                }
            }
            Pending::Bash {
                command,
                description,
            } => self.bash_result(command, description, error, text, extra, at),
            Pending::Stop(id) if !error => self.background.retain(|b| b.id != id),
            Pending::Output(id) => {
                let status = tag_text(text, "status").unwrap_or_default();
                if matches!(status, "completed" | "failed" | "killed" | "stopped") {
                    self.background.retain(|b| b.id != id);
                }
            }
            _ => {}
        }
    }

    fn bash_result(
        &mut self,
        command: String,
        description: Option<String>,
        error: bool,
        text: &str,
        extra: Option<&Value>,
        at: Option<String>,
    ) {
        if let Some(id) = background_id(text, extra) {
            self.background.retain(|b| b.id != id);
            self.background.push(Background {
                id,
                command,
                description,
                at,
            });
            return;
        }
        if error {
            // A call cancelled because another of the same reply failed, or one the
            // person refused or interrupted, says nothing about the command.
            let refused = matches!(
                user_record::classify_text(text),
                UserRecord::Client(
                    user_record::ClientText::Refusal | user_record::ClientText::Interrupted
                )
            );
            if refused || text.contains("Sibling tool call errored") {
                return;
            }
            self.failure = Some(Failure {
                tail: tail_lines(text, ERROR_LINES),
                command,
                at,
            });
        } else if self
            .failure
            .as_ref()
            .is_some_and(|f| same_kind(&f.command, &command))
        {
            self.failure = None;
        }
    }
}

/// How far apart two summaries of one compaction may be dated.
const SAME_COMPACTION: chrono::Duration = chrono::Duration::minutes(2);

/// Whether time `a` is more than `by` later than `b` (RFC 3339 times, compared by
/// their instant; unreadable ones never are).
fn later_by(a: &str, b: &str, by: chrono::Duration) -> bool {
    match (
        crate::model::time::parse_iso(a),
        crate::model::time::parse_iso(b),
    ) {
        (Some(a), Some(b)) => a - b > by,
        _ => false,
    }
}

fn push_recent(list: &mut Vec<String>, item: &str) {
    if item.trim().is_empty() {
        return;
    }
    list.retain(|x| x != item);
    list.push(item.to_owned());
}

/// The plan in an approval's text (`## Approved Plan:` or `## Approved Plan
/// (edited by user):` then the plan), and whether the person edited it.
fn approved_plan(text: &str) -> Option<(String, bool)> {
    for (head, edited) in [
        ("## Approved Plan (edited by user):\n", true),
        ("## Approved Plan:\n", false),
    ] {
        if let Some(i) = text.find(head) {
            let plan = text.get(i + head.len()..)?.trim();
            if !plan.is_empty() {
                return Some((plan.to_owned(), edited));
            }
        }
    }
    None
}

/// The person's answers: `toolUseResult.answers` (question → answer), with the
/// notes they added (`annotations.<question>.notes`); else the `"question"="answer"`
/// pairs of the result's text. Questions asked and not answered are left out.
fn answers(questions: &[String], text: &str, extra: Option<&Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(map) = extra
        .and_then(|e| e.get("answers"))
        .and_then(Value::as_object)
    {
        let notes = extra
            .and_then(|e| e.get("annotations"))
            .and_then(Value::as_object);
        // In the order asked, then any other.
        let mut keys: Vec<&String> = questions
            .iter()
            .filter(|q| map.contains_key(q.as_str()))
            .collect();
        keys.extend(map.keys().filter(|k| !questions.contains(k)));
        for q in keys {
            let answer = match map.get(q.as_str()) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                _ => continue,
            };
            let note = notes
                .and_then(|n| n.get(q.as_str()))
                .and_then(|n| n.get("notes"))
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|n| !n.is_empty());
            let answer = match note {
                Some(n) => format!("{answer} (note: {n})"),
                None => answer,
            };
            out.push((q.clone(), answer));
        }
        if let Some(r) = extra
            .and_then(|e| e.get("response"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|r| !r.is_empty())
        {
            out.push(("(their own words)".to_owned(), r.to_owned()));
        }
        return out;
    }
    // `"Which database?"="Postgres", "Pool size?"="10"` in the result's text.
    for q in questions {
        let key = format!("\"{q}\"=\"");
        if let Some(i) = text.find(&key) {
            let rest = text.get(i + key.len()..).unwrap_or("");
            if let Some(end) = rest.find('"') {
                out.push((q.clone(), rest.get(..end).unwrap_or("").to_owned()));
            }
        }
    }
    out
}

/// The background id a Bash result names: `toolUseResult.backgroundTaskId`, or the
/// client's words "running in background with ID: X" / "moved to the background
/// (ID: X)".
fn background_id(text: &str, extra: Option<&Value>) -> Option<String> {
    if let Some(id) = extra
        .and_then(|e| e.get("backgroundTaskId"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        return Some(id.to_owned());
    }
    for mark in ["running in background with ID: ", "to the background (ID: "] {
        if let Some(i) = text.find(mark) {
            let id: String = text
                .get(i + mark.len()..)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if !id.is_empty() {
                return Some(id);
            }
        }
    }
    None
}

/// The text inside `<tag>…</tag>`.
fn tag_text<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let end = start + text.get(start..)?.find('<')?;
    text.get(start..end).map(str::trim)
}

/// The last `n` non-empty lines of `text`.
fn tail_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let start = lines.len().saturating_sub(n);
    kept(&lines.get(start..).unwrap_or(&[]).join("\n"), 2000)
}

/// Whether two shell commands are the same kind of command: the same first two
/// words once a leading `cd <dir> &&` and variable assignments are set aside
/// (`mix test a.exs` and `mix test`; `git push` and `git push -u origin x`).
fn same_kind(a: &str, b: &str) -> bool {
    let key = |c: &str| -> Vec<String> {
        let mut rest = c.trim();
        while let Some(after) = rest
            .strip_prefix("cd ")
            .and_then(|r| r.split_once("&&").map(|(_, t)| t.trim()))
        {
            rest = after;
        }
        rest.split_whitespace()
            .filter(|w| !w.contains('='))
            .take(2)
            .map(str::to_owned)
            .collect()
    };
    let (ka, kb) = (key(a), key(b));
    !ka.is_empty() && ka == kb
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn story(records: &[Value]) -> Story {
        let mut s = Story::default();
        for r in records {
            s.observe(r);
        }
        s
    }

    fn said(text: &str, at: &str) -> Value {
        json!({"type":"user","timestamp":at,"message":{"role":"user","content":text}})
    }

    fn call(id: &str, name: &str, input: &Value) -> Value {
        json!({"type":"assistant","message":{"role":"assistant","content":[
            {"type":"tool_use","id":id,"name":name,"input":input}]}})
    }

    fn result(id: &str, text: &str, error: bool, extra: &Value) -> Value {
        json!({"type":"user","timestamp":"2026-11-21T10:05:00Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":text,"is_error":error}]},
            "toolUseResult":extra})
    }

    #[test]
    fn requests_are_the_persons_in_order_each_once_and_the_task_is_not_continue() {
        let s = story(&[
            said("continue", "2026-11-21T09:00:00Z"),
            said("Port the pool to deadpool", "2026-11-21T09:01:00Z"),
            said(
                "<task-notification><task-id>b1</task-id><status>completed</status></task-notification>",
                "2026-11-21T09:02:00Z",
            ),
            said("continue", "2026-11-21T09:03:00Z"),
            said("did you push?", "2026-11-21T09:04:00Z"),
            said("[Request interrupted by user]", "2026-11-21T09:05:00Z"),
        ]);
        let texts: Vec<(&str, usize)> = s
            .requests
            .iter()
            .map(|r| (r.text.as_str(), r.times))
            .collect();
        assert_eq!(
            texts,
            [
                ("Port the pool to deadpool", 1),
                ("continue", 2),
                ("did you push?", 1)
            ]
        );
        assert_eq!(s.first.as_ref().unwrap().text, "continue");
        assert_eq!(s.task().unwrap().text, "Port the pool to deadpool");
        assert_eq!(
            s.task().unwrap().at.as_deref(),
            Some("2026-11-21T09:01:00Z")
        );
    }

    #[test]
    fn the_last_words_are_those_to_the_person_not_to_a_clients_notice() {
        let text = |t: &str| {
            json!({"type":"assistant","timestamp":"2026-11-21T10:00:00Z","message":{"role":"assistant",
                "content":[{"type":"text","text":t}]}})
        };
        let s = story(&[
            said("ship it", "2026-11-21T09:00:00Z"),
            text("All done: pushed."),
            said(
                "<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>",
                "2026-11-21T10:01:00Z",
            ),
            text("That old background run finished; nothing to do."),
        ]);
        assert_eq!(s.last_words.unwrap().text, "All done: pushed.");
        assert_eq!(
            s.notice_words.unwrap().text,
            "That old background run finished; nothing to do."
        );
        // The person speaking again makes Claude's next words the last ones.
        let s = story(&[
            said(
                "<task-notification><task-id>b1</task-id></task-notification>",
                "2026-11-21T10:01:00Z",
            ),
            text("noted"),
            said("go on", "2026-11-21T10:02:00Z"),
            text("Going on."),
        ]);
        assert_eq!(s.last_words.unwrap().text, "Going on.");
        assert!(s.notice_words.is_none());
    }

    #[test]
    fn an_approved_plan_counts_and_a_refused_one_does_not() {
        let plan = json!({"plan":"# Plan\n1. pool\n2. tests"});
        let s = story(&[
            call("p1", "ExitPlanMode", &plan),
            result(
                "p1",
                "User has approved your plan. You can now start coding.\n\n## Approved Plan:\n# Plan\n1. pool\n2. tests",
                false,
                &json!({}),
            ),
            call("p2", "ExitPlanMode", &json!({"plan":"# Worse plan"})),
            result(
                "p2",
                "The user doesn't want to proceed with this tool use. The tool use was rejected",
                true,
                &json!({}),
            ),
        ]);
        let p = s.plan.unwrap();
        assert_eq!(p.text, "# Plan\n1. pool\n2. tests");
        assert!(!p.edited);
        assert_eq!(p.at.as_deref(), Some("2026-11-21T10:05:00Z"));
        let edited = story(&[
            call("p1", "ExitPlanMode", &plan),
            result(
                "p1",
                "User has approved your plan.\n\n## Approved Plan (edited by user):\n# Plan\n1. pool only",
                false,
                &json!({}),
            ),
        ]);
        assert_eq!(edited.plan.unwrap().text, "# Plan\n1. pool only");
    }

    #[test]
    fn the_persons_answers_are_the_decisions() {
        let ask = json!({"questions":[
            {"question":"Which database?","header":"DB","options":[{"label":"Postgres"},{"label":"SQLite"}],"multiSelect":false},
            {"question":"Pool size?","header":"Pool","options":[{"label":"10"}],"multiSelect":false}]});
        let s = story(&[
            call("q1", "AskUserQuestion", &ask),
            result(
                "q1",
                "User has answered your questions: \"Which database?\"=\"Postgres\", \"Pool size?\"=\"10\". You can now continue with the user's answers in mind.",
                false,
                &json!({"questions":[],"answers":{"Which database?":"Postgres","Pool size?":"10"},
                        "annotations":{"Pool size?":{"notes":"keep it small"}}}),
            ),
        ]);
        let d: Vec<(&str, &str)> = s
            .decisions
            .iter()
            .map(|d| (d.question.as_str(), d.answer.as_str()))
            .collect();
        assert_eq!(
            d,
            [
                ("Which database?", "Postgres"),
                ("Pool size?", "10 (note: keep it small)")
            ]
        );
        // Without the structured result, the text's pairs.
        let s = story(&[
            call("q1", "AskUserQuestion", &ask),
            result(
                "q1",
                "User has answered your questions: \"Which database?\"=\"SQLite\". You can now continue.",
                false,
                &json!(null),
            ),
        ]);
        assert_eq!(s.decisions[0].answer, "SQLite");
        assert_eq!(s.decisions.len(), 1);
    }

    #[test]
    fn background_commands_run_until_reported_finished() {
        let bash =
            |cmd: &str| json!({"command":cmd,"description":"Run it","run_in_background":true});
        let s = story(&[
            call("b1", "Bash", &bash("mix test")),
            result(
                "b1",
                "Command running in background with ID: be613ab. Output is being written to: /tmp/be613ab.output",
                false,
                &json!({"backgroundTaskId":"be613ab"}),
            ),
            call("b2", "Bash", &bash("sleep 300")),
            result(
                "b2",
                "Command running in background with ID: bz9. Output is being written to: /tmp/bz9.output",
                false,
                &json!({}),
            ),
            call("b3", "Bash", &bash("npm run dev")),
            result(
                "b3",
                "Command running in background with ID: dev1.",
                false,
                &json!({}),
            ),
            said(
                "<task-notification>\n<task-id>be613ab</task-id>\n<status>completed</status>\n</task-notification>",
                "2026-11-21T10:09:00Z",
            ),
            call("s1", "TaskStop", &json!({"task_id":"dev1"})),
            result("s1", "Stopped", false, &json!({})),
        ]);
        let running: Vec<(&str, &str)> = s
            .background
            .iter()
            .map(|b| (b.id.as_str(), b.command.as_str()))
            .collect();
        assert_eq!(running, [("bz9", "sleep 300")]);
        let out = story(&[
            call("b1", "Bash", &bash("mix test")),
            result(
                "b1",
                "Command running in background with ID: be613ab.",
                false,
                &json!({}),
            ),
            call(
                "o1",
                "TaskOutput",
                &json!({"task_id":"be613ab","block":true}),
            ),
            result(
                "o1",
                "<retrieval_status>timeout</retrieval_status>\n<task_id>be613ab</task_id>\n<status>running</status>",
                false,
                &json!({}),
            ),
        ]);
        assert_eq!(out.background.len(), 1, "still running after a timeout");
    }

    #[test]
    fn the_last_failure_stays_until_a_command_like_it_succeeds() {
        let bash = |cmd: &str| json!({"command":cmd});
        let s = story(&[
            call("c1", "Bash", &bash("mix test test/a_test.exs")),
            result(
                "c1",
                "Exit code 2\nline\n  1) test a fails\n",
                true,
                &json!({}),
            ),
            call("c2", "Bash", &bash("git status")),
            result("c2", "clean", false, &json!({})),
            call("c3", "Bash", &bash("npx vitest run")),
            result(
                "c3",
                "<tool_use_error>Sibling tool call errored</tool_use_error>",
                true,
                &json!({}),
            ),
        ]);
        let f = s.failure.clone().unwrap();
        assert_eq!(f.command, "mix test test/a_test.exs");
        assert_eq!(f.tail, "Exit code 2\nline\n  1) test a fails");
        let fixed = story(&[
            call("c1", "Bash", &bash("cd /p && mix test test/a_test.exs")),
            result("c1", "Exit code 2", true, &json!({})),
            call("c2", "Bash", &bash("mix test")),
            result("c2", "ok", false, &json!({})),
        ]);
        assert_eq!(fixed.failure, None);
        assert!(same_kind("git push", "git push --set-upstream origin x"));
        assert!(!same_kind("git push", "git status"));
    }

    #[test]
    fn the_latest_summary_and_what_happened_after_it() {
        let boundary = json!({"type":"system","subtype":"compact_boundary","timestamp":"2026-11-21T10:00:00Z"});
        let summary = json!({"type":"user","isCompactSummary":true,"isVisibleInTranscriptOnly":true,
            "timestamp":"2026-11-21T10:00:01Z","message":{"role":"user","content":"This session is being continued…\n7. Pending Tasks:\n   - write tests"}});
        let s = story(&[
            said("first", "2026-11-21T09:00:00Z"),
            call("e1", "Edit", &json!({"file_path":"/p/old.rs"})),
            boundary,
            summary,
            call("e2", "Write", &json!({"file_path":"/p/new.rs"})),
            call("c1", "Bash", &json!({"command":"cargo test"})),
            said("go on", "2026-11-21T10:01:00Z"),
        ]);
        let sum = s.summary.clone().unwrap();
        assert!(sum.text.contains("write tests"));
        assert_eq!(sum.at.as_deref(), Some("2026-11-21T10:00:01Z"));
        assert_eq!(s.compacted_at.as_deref(), Some("2026-11-21T10:00:00Z"));
        assert_eq!(
            s.since,
            Since {
                files: vec!["/p/new.rs".into()],
                requests: 1,
                commands: 1
            }
        );
        // PostCompact's summary of the same compaction takes its place (heard a
        // moment later, or dated to the second before the record's milliseconds)…
        let mut t = s.clone();
        t.offer_summary(ClientSummary {
            text: "the same compaction".into(),
            at: Some("2026-11-21T10:00:01Z".into()),
            source: "post-compact",
        });
        assert_eq!(t.summary.as_ref().unwrap().source, "post-compact");
        // …one of an earlier compaction does not.
        let mut t = s.clone();
        t.offer_summary(ClientSummary {
            text: "older".into(),
            at: Some("2026-11-21T09:40:00Z".into()),
            source: "post-compact",
        });
        assert!(t.summary.as_ref().unwrap().text.contains("write tests"));
    }
}
