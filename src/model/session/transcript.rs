//! Reading a Claude Code session transcript (JSONL): pure functions over its lines.
//!
//! Two readers, with different costs (the file I/O is in `crate::store::transcript`):
//!
//! - [`scan_tail`]: the current context size, scanning lines **backwards** from the
//!   end, as Claude Code does (docs/client-reference.md §6.4): skip sidechains,
//!   `<synthetic>` and API error records; stop at a `compact_boundary` (report
//!   "compacted", with `compactMetadata.postTokens` as an estimate); take the last
//!   qualifying `usage.iterations[]` entry when there is one. Several records share one
//!   `message.id` (one per content block); scanning backwards meets the last and most
//!   complete one first.
//! - [`extract_facts`]: what a handoff needs, scanning **forwards**: the current todo
//!   list (latest `TodoWrite`, or `TaskCreate`/`TaskUpdate` replayed), files touched by
//!   `Edit`/`Write`/`NotebookEdit`, files read, and the last real user request
//!   (docs/client-reference.md §6.5). Only names and the user's own words are taken:
//!   tool inputs that hold file contents (`new_string`, `content`, `old_string`) are
//!   never read.
//!
//! Unparsable lines (a half-written last line, garbage) are skipped, never an error.

use serde::Serialize;
use serde_json::Value;

use super::story::Story;

/// The input-side and output token counts of one API response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// `input_tokens`.
    pub(crate) input: u64,
    /// `cache_creation_input_tokens` (0 when absent).
    pub(crate) cache_creation: u64,
    /// `cache_read_input_tokens` (0 when absent).
    pub(crate) cache_read: u64,
    /// `output_tokens`.
    pub(crate) output: u64,
}

impl Usage {
    /// Reads a `usage` object (or one `iterations[]` entry); missing fields are 0.
    pub(crate) fn from_value(v: &Value) -> Option<Self> {
        let obj = v.as_object()?;
        let n = |k: &str| obj.get(k).and_then(as_u64).unwrap_or(0);
        Some(Self {
            input: n("input_tokens"),
            cache_creation: n("cache_creation_input_tokens"),
            cache_read: n("cache_read_input_tokens"),
            output: n("output_tokens"),
        })
    }

    /// What is in the context window: input + cache creation + cache read. This is
    /// what the statusline's `used_percentage` is computed from.
    pub(crate) fn context_in(&self) -> u64 {
        self.input
            .saturating_add(self.cache_creation)
            .saturating_add(self.cache_read)
    }

    /// [`Usage::context_in`] plus the output tokens (Claude Code's auto-compact count).
    #[cfg(test)]
    pub(crate) fn context_total(&self) -> u64 {
        self.context_in().saturating_add(self.output)
    }
}

/// A JSON number as `u64` (floats are truncated; negatives are rejected).
pub(crate) fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0)
            .map(|f| f as u64)
    })
}

/// What a backwards scan of a transcript's tail found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TailScan {
    /// The newest qualifying main-chain assistant usage.
    Usage {
        /// The usage (last qualifying iteration when the record has iterations).
        usage: Usage,
        /// `message.model` of that record.
        model: Option<String>,
        /// `message.id` of that record.
        message_id: Option<String>,
    },
    /// A `compact_boundary` is newer than any usage: no fresh count exists yet.
    Compacted {
        /// `compactMetadata.postTokens`, an estimate of the context after compaction.
        post_tokens: Option<u64>,
    },
    /// Neither was found in the lines scanned.
    Nothing,
}

impl TailScan {
    /// Whether the scan found an answer (a usage or a boundary), so no more of the
    /// file needs to be read.
    pub(crate) fn is_conclusive(&self) -> bool {
        !matches!(self, Self::Nothing)
    }

    /// The best estimate of the tokens in context: the usage's `context_in`, or the
    /// boundary's `postTokens`.
    pub(crate) fn tokens(&self) -> Option<u64> {
        match self {
            Self::Usage { usage, .. } => Some(usage.context_in()),
            Self::Compacted { post_tokens } => *post_tokens,
            Self::Nothing => None,
        }
    }
}

pub(crate) use super::record::{content_text, is_boundary, is_sidechain};

/// The usage a main-chain assistant record contributes, per docs/client-reference.md
/// §6.4, steps 2–3.
fn qualifying_usage(rec: &Value) -> Option<(Usage, Option<String>, Option<String>)> {
    if rec.get("type").and_then(Value::as_str) != Some("assistant")
        || is_sidechain(rec)
        || rec.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true)
    {
        return None;
    }
    let msg = rec.get("message")?;
    let model = msg.get("model").and_then(Value::as_str);
    if model == Some("<synthetic>") {
        return None;
    }
    let usage = msg.get("usage").filter(|u| u.is_object())?;
    let from_iterations = usage
        .get("iterations")
        .and_then(Value::as_array)
        .and_then(|its| {
            its.iter().rev().find(|it| {
                !matches!(
                    it.get("type").and_then(Value::as_str),
                    Some("advisor_message" | "compaction")
                ) && it.is_object()
            })
        })
        .and_then(Usage::from_value);
    let u = from_iterations.or_else(|| Usage::from_value(usage))?;
    // No API response has an empty context: an all-zero usage is a placeholder
    // (docs/client-reference.md §9.1 #1), never a reading.
    if u.context_in() == 0 {
        return None;
    }
    Some((
        u,
        model.map(str::to_owned),
        msg.get("id").and_then(Value::as_str).map(str::to_owned),
    ))
}

/// Scans `lines` (in file order) from the last one backwards for the current
/// context size. Cheap pre-checks skip lines that cannot matter without parsing.
pub fn scan_tail<'a, I>(lines: I) -> TailScan
where
    I: DoubleEndedIterator<Item = &'a str>,
{
    for line in lines.rev() {
        let maybe_boundary = line.contains("compact_boundary");
        if !maybe_boundary && !line.contains("\"assistant\"") {
            continue;
        }
        let Ok(rec) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if maybe_boundary && is_boundary(&rec) {
            let post_tokens = rec
                .get("compactMetadata")
                .and_then(|m| m.get("postTokens"))
                .and_then(as_u64);
            return TailScan::Compacted { post_tokens };
        }
        if let Some((usage, model, message_id)) = qualifying_usage(&rec) {
            return TailScan::Usage {
                usage,
                model,
                message_id,
            };
        }
    }
    TailScan::Nothing
}

/// Whether the turn's reply is already in `lines` (a transcript's tail, in file
/// order): the last main-chain user or assistant record is an assistant record
/// whose text starts with `head` (trimmed, at most [`REPLY_HEAD_CHARS`] characters
/// compared; any text when `head` is `None`), and, with `prompt_id`, the nearest
/// user record before it carries that `promptId` (so the same words replied to an
/// earlier prompt do not count). `None` when that cannot be told from what is in
/// view (read further). The client writes the transcript asynchronously: at Stop,
/// the turn's records may not be there yet.
pub(crate) fn reply_written<'a, I>(
    lines: I,
    head: Option<&str>,
    prompt_id: Option<&str>,
) -> Option<bool>
where
    I: DoubleEndedIterator<Item = &'a str>,
{
    let want: Option<String> = head.map(|h| h.trim().chars().take(REPLY_HEAD_CHARS).collect());
    let mut reply_seen = false;
    for line in lines.rev() {
        let user = line.contains("\"type\":\"user\"");
        if !user && !line.contains("\"type\":\"assistant\"") {
            continue;
        }
        let Ok(rec) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if is_sidechain(&rec) {
            continue;
        }
        match rec.get("type").and_then(Value::as_str) {
            Some("user") if !reply_seen => return Some(false),
            Some("user") => {
                let Some(id) = rec.get("promptId").and_then(Value::as_str) else {
                    continue;
                };
                return Some(prompt_id.is_none_or(|p| p == id));
            }
            Some("assistant") if !reply_seen => {
                let text: String = rec
                    .pointer("/message/content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                let got: String = text.trim().chars().take(REPLY_HEAD_CHARS).collect();
                let matches = match &want {
                    Some(w) => !w.is_empty() && got == *w,
                    None => !got.is_empty(),
                };
                if !matches {
                    return Some(false);
                }
                if prompt_id.is_none() {
                    return Some(true);
                }
                reply_seen = true;
            }
            _ => {}
        }
    }
    None
}

/// How many characters of a reply [`reply_written`] compares.
pub(crate) const REPLY_HEAD_CHARS: usize = 200;

/// What a session should re-read after a compaction, from its transcript facts: the
/// files it edited (newest first), then the files it read (newest first), each once.
/// The caller drops what is not a file on disk (search folders, deleted files).
pub(crate) fn reread_candidates(facts: &TranscriptFacts) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in facts.touched.iter().rev().chain(facts.read.iter().rev()) {
        if !out.contains(f) {
            out.push(f.clone());
        }
    }
    out
}

/// Counts the `compact_boundary` records among `lines`.
#[cfg(test)]
pub(crate) fn count_compactions<'a>(lines: impl Iterator<Item = &'a str>) -> usize {
    lines.filter(|l| is_boundary_line(l)).count()
}

/// Whether one transcript line is a `compact_boundary` record (parsed only when the
/// cheap substring check passes).
pub(crate) fn is_boundary_line(line: &str) -> bool {
    line.contains("compact_boundary")
        && serde_json::from_str::<Value>(line).is_ok_and(|rec| is_boundary(&rec))
}

/// The window size of a model id when the statusline did not send one (docs/client-reference.md
/// §7.2): 1M for a `[1m]` suffix or a native-1M family, else 200k.
pub(crate) fn window_for_model(model_id: &str) -> u64 {
    if model_id.to_ascii_lowercase().contains("[1m]") || is_native_1m(model_id) {
        1_000_000
    } else {
        200_000
    }
}

/// Families with a native 1M window: Opus 4.7 and later, and every 5-series model.
fn is_native_1m(model_id: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    let id = id.strip_prefix("claude-").unwrap_or(&id);
    let mut parts = id.split('-');
    let family = parts.next().unwrap_or("");
    if !matches!(family, "opus" | "sonnet" | "haiku" | "fable" | "mythos") {
        return false;
    }
    let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let minor: u32 = parts
        .next()
        .filter(|p| p.len() <= 2)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    match family {
        "opus" => major > 4 || (major == 4 && minor >= 7),
        "haiku" => major > 5 || (major == 5 && minor >= 5),
        _ => major >= 5,
    }
}

/// The used percentage of `window` as Claude Code computes `used_percentage`
/// (docs/client-reference.md §5.2): `round(tokens / window * 100)`, clamped to 0..=100. Rounding
/// first means the number shown, the bar, the warning and the level all agree.
pub(crate) fn pct_of(tokens: u64, window: u64) -> f64 {
    if window == 0 {
        return 0.0;
    }
    round_pct(tokens as f64 / window as f64 * 100.0)
}

/// A percentage rounded to a whole number (halves up, as JavaScript's
/// `Math.round` does for positive numbers) and clamped to 0..=100.
pub(crate) fn round_pct(pct: f64) -> f64 {
    if !pct.is_finite() {
        return 0.0;
    }
    pct.round().clamp(0.0, 100.0)
}

/// Where [`infer_window_with_source`] took the window from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WindowSource {
    /// Declared by the statusline payload (or recorded from it in the bridge).
    Statusline,
    /// Known from the model id.
    Model,
    /// More than 200k tokens were observed, so the window must be 1M.
    Tokens,
    /// Nothing said: the 200k default.
    Default,
}

impl WindowSource {
    /// The JSON spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Statusline => "statusline",
            Self::Model => "model",
            Self::Tokens => "tokens",
            Self::Default => "default",
        }
    }
}

/// Whether a model id names a family whose window forge knows (docs/client-reference.md §7.2).
fn is_known_model(model_id: &str) -> bool {
    let id = model_id.to_ascii_lowercase();
    id.contains("[1m]")
        || ["opus", "sonnet", "haiku", "fable", "mythos"]
            .iter()
            .any(|f| id.contains(f))
}

/// [`infer_window`] and where the answer came from.
pub(crate) fn infer_window_with_source(
    declared: Option<u64>,
    model_id: Option<&str>,
    tokens: Option<u64>,
) -> (u64, WindowSource) {
    if let Some(w) = declared.filter(|w| *w > 0) {
        return (w, WindowSource::Statusline);
    }
    let known = model_id.filter(|m| is_known_model(m));
    let by_model = known.map_or(200_000, window_for_model);
    if by_model < 1_000_000 && tokens.is_some_and(|t| t > 200_000) {
        (1_000_000, WindowSource::Tokens)
    } else if known.is_some() {
        (by_model, WindowSource::Model)
    } else {
        (by_model, WindowSource::Default)
    }
}

/// The window to assume: `declared` (the statusline's `context_window_size`) when
/// known; else from the model id; else 1M when more than 200k tokens were observed.
pub(crate) fn infer_window(
    declared: Option<u64>,
    model_id: Option<&str>,
    tokens: Option<u64>,
) -> u64 {
    infer_window_with_source(declared, model_id, tokens).0
}

// ----- handoff facts -------------------------------------------------------------

/// State of one todo item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
}

impl TodoStatus {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "in_progress" => Some(Self::InProgress),
            "completed" => Some(Self::Completed),
            _ => None,
        }
    }
}

/// One item of the session's todo list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Todo {
    /// The task id (`TaskCreate` lists only).
    pub id: Option<String>,
    /// What it is.
    pub content: String,
    /// Its state.
    pub status: TodoStatus,
}

/// What a handoff takes from a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TranscriptFacts {
    /// The current todo list (latest `TodoWrite`, or the replayed `Task*` calls,
    /// whichever came last).
    pub todos: Vec<Todo>,
    /// Files changed by `Edit`/`Write`/`NotebookEdit` (absolute as recorded), in the
    /// order they were last touched, most recent last.
    pub touched: Vec<String>,
    /// Files (and search folders) read by `Read`/`Grep`/`Glob`, most recent last.
    pub read: Vec<String>,
    /// The newest real user request (raw: redact before showing it).
    pub last_request: Option<String>,
    /// `compact_boundary` records seen.
    pub compactions: usize,
    /// The session's story: the person's requests, the client's summary, the plan,
    /// the decisions, loose ends ([`super::story`]).
    pub story: Story,
    /// Lines looked at.
    pub lines: usize,
}

fn push_recent(list: &mut Vec<String>, item: &str) {
    if item.trim().is_empty() {
        return;
    }
    list.retain(|x| x != item);
    list.push(item.to_owned());
}

/// Which todo source was used last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TodoSource {
    TodoWrite,
    Tasks,
}

#[derive(Default)]
struct TaskReplay {
    tasks: Vec<Todo>,
    /// `tool_use` id of a `TaskCreate` → index in `tasks`, until its result names it.
    pending: Vec<(String, usize)>,
    created: usize,
}

impl TaskReplay {
    fn create(&mut self, tool_use_id: Option<&str>, input: &Value) {
        let subject = input
            .get("subject")
            .and_then(Value::as_str)
            .or_else(|| input.get("description").and_then(Value::as_str))
            .unwrap_or("(untitled task)");
        self.created += 1;
        self.tasks.push(Todo {
            // Claude Code numbers tasks 1, 2, …; the result's `task.id` overrides this.
            id: Some(self.created.to_string()),
            content: subject.to_owned(),
            status: TodoStatus::Pending,
        });
        if let Some(id) = tool_use_id {
            self.pending.push((id.to_owned(), self.tasks.len() - 1));
        }
    }

    fn result(&mut self, tool_use_id: &str, result: Option<&Value>) {
        let Some(pos) = self.pending.iter().position(|(id, _)| id == tool_use_id) else {
            return;
        };
        let (_, index) = self.pending.remove(pos);
        let id = result
            .and_then(|r| r.get("task"))
            .and_then(|t| t.get("id"))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
        if let (Some(id), Some(task)) = (id, self.tasks.get_mut(index)) {
            task.id = Some(id);
        }
    }

    fn update(&mut self, input: &Value) {
        let Some(id) = input.get("taskId").and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }) else {
            return;
        };
        let Some(pos) = self.tasks.iter().position(|t| t.id.as_deref() == Some(&id)) else {
            return;
        };
        match input.get("status").and_then(Value::as_str) {
            Some("deleted") => {
                self.tasks.remove(pos);
                return;
            }
            Some(s) => {
                if let (Some(st), Some(t)) = (TodoStatus::parse(s), self.tasks.get_mut(pos)) {
                    t.status = st;
                }
            }
            None => {}
        }
        if let (Some(subject), Some(t)) = (
            input.get("subject").and_then(Value::as_str),
            self.tasks.get_mut(pos),
        ) {
            subject.clone_into(&mut t.content);
        }
    }
}

fn todo_write_list(input: &Value) -> Vec<Todo> {
    input
        .get("todos")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|t| {
                    let content = t.get("content").and_then(Value::as_str)?;
                    let status = t
                        .get("status")
                        .and_then(Value::as_str)
                        .and_then(TodoStatus::parse)
                        .unwrap_or(TodoStatus::Pending);
                    Some(Todo {
                        id: None,
                        content: content.to_owned(),
                        status,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Scans `lines` (in file order) for what a handoff needs. Sidechain records are
/// skipped. File contents in tool inputs are never looked at.
pub fn extract_facts<'a>(lines: impl Iterator<Item = &'a str>) -> TranscriptFacts {
    let mut facts = TranscriptFacts::default();
    let mut todo_write: Vec<Todo> = Vec::new();
    let mut replay = TaskReplay::default();
    let mut last_source: Option<TodoSource> = None;
    for line in lines {
        facts.lines += 1;
        let Ok(rec) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if is_sidechain(&rec) {
            continue;
        }
        facts.story.observe(&rec);
        if is_boundary(&rec) {
            facts.compactions += 1;
            continue;
        }
        match rec.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let blocks = rec
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array);
                for block in blocks.into_iter().flatten() {
                    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                    let input = block.get("input").unwrap_or(&Value::Null);
                    let field = |k: &str| input.get(k).and_then(Value::as_str);
                    match name {
                        "TodoWrite" => {
                            todo_write = todo_write_list(input);
                            last_source = Some(TodoSource::TodoWrite);
                        }
                        "TaskCreate" => {
                            replay.create(block.get("id").and_then(Value::as_str), input);
                            last_source = Some(TodoSource::Tasks);
                        }
                        "TaskUpdate" => {
                            replay.update(input);
                            last_source = Some(TodoSource::Tasks);
                        }
                        "Edit" | "Write" | "MultiEdit" => {
                            if let Some(p) = field("file_path") {
                                push_recent(&mut facts.touched, p);
                            }
                        }
                        "NotebookEdit" => {
                            if let Some(p) = field("notebook_path") {
                                push_recent(&mut facts.touched, p);
                            }
                        }
                        "Read" => {
                            if let Some(p) = field("file_path") {
                                push_recent(&mut facts.read, p);
                            }
                        }
                        "Grep" | "Glob" => {
                            if let Some(p) = field("path") {
                                push_recent(&mut facts.read, p);
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some("user") => {
                if let Some(blocks) = rec
                    .get("message")
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array)
                {
                    for b in blocks {
                        if b.get("type").and_then(Value::as_str) == Some("tool_result")
                            && let Some(id) = b.get("tool_use_id").and_then(Value::as_str)
                        {
                            replay.result(id, rec.get("toolUseResult"));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The story classified every user record once; its newest request is the last.
    facts.last_request = facts.story.requests.last().map(|s| s.text.clone());
    facts.todos = match last_source {
        Some(TodoSource::TodoWrite) => todo_write,
        Some(TodoSource::Tasks) => replay.tasks,
        None => Vec::new(),
    };
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turns_reply_is_written_when_its_prompt_and_text_are_the_last_records() {
        let user = |text: &str, prompt: &str| {
            json!({"type":"user","promptId":prompt,"message":{"role":"user","content":text}})
                .to_string()
        };
        let reply = |text: &str| {
            json!({"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":text}]}})
                .to_string()
        };
        let summary = json!({"type":"system","subtype":"stop_hook_summary"}).to_string();
        let turn1 = [user("first", "p1"), reply("OK."), summary.clone()];
        let lines = |v: &[String]| v.to_vec();
        // The second turn's reply is the same words: not written until its prompt is.
        let t = lines(&turn1);
        let at =
            |t: &[String], head, prompt| reply_written(t.iter().map(String::as_str), head, prompt);
        assert_eq!(at(&t, Some("OK."), Some("p1")), Some(true));
        assert_eq!(at(&t, Some("OK."), Some("p2")), Some(false));
        let mut t2 = t.clone();
        t2.push(user("second", "p2"));
        assert_eq!(
            at(&t2, Some("OK."), Some("p2")),
            Some(false),
            "the prompt, no reply yet"
        );
        t2.push(reply("OK."));
        assert_eq!(at(&t2, Some("OK."), Some("p2")), Some(true));
        assert_eq!(at(&t2, Some("Something else"), Some("p2")), Some(false));
        // Without a prompt id, the text alone; without either line in view, unknown.
        assert_eq!(at(&t2, Some("OK."), None), Some(true));
        assert_eq!(at(&[summary], Some("OK."), Some("p1")), None);
    }

    #[test]
    fn the_clients_own_interruption_messages_are_not_the_last_request() {
        // Recorded from the real client (tests/fixtures/stream-json/README.md): a
        // session ended mid-reply has the client's interruption marker (and, before
        // the tool result, its refusal text) after the person's request.
        for text in [
            include_str!(
                "../../../tests/fixtures/stream-json/interrupted-before-tool-result.transcript.jsonl"
            ),
            include_str!(
                "../../../tests/fixtures/stream-json/interrupted-after-tool-result.transcript.jsonl"
            ),
        ] {
            assert!(text.contains("[Request interrupted by user"), "the premise");
            let facts = extract_facts(text.lines());
            assert_eq!(facts.last_request.as_deref(), Some("RECORD-CUT please"));
        }
        for synthetic in [
            "[Request interrupted by user]",
            "[Request interrupted by user for tool use]",
            "The user doesn't want to proceed with this tool use. The tool use was rejected",
            "No response requested.",
        ] {
            let kind = crate::model::session::user_record::classify_text(synthetic);
            assert_eq!(kind.request(), None, "{synthetic}");
        }
        let theirs = crate::model::session::user_record::classify_text(
            "Request the interrupted build again",
        );
        assert!(theirs.request().is_some());
    }
    use serde_json::json;

    fn assistant(id: &str, input: u64, cc: u64, cr: u64, out: u64) -> String {
        json!({"type":"assistant","isSidechain":false,"message":{"model":"claude-sonnet-4-6",
            "id":id,"role":"assistant","content":[{"type":"text","text":"x"}],
            "usage":{"input_tokens":input,"cache_creation_input_tokens":cc,
                     "cache_read_input_tokens":cr,"output_tokens":out}}})
        .to_string()
    }

    fn boundary(post: Option<u64>) -> String {
        let mut meta = json!({"trigger":"auto","preTokens":167_412});
        if let Some(p) = post {
            meta["postTokens"] = json!(p);
        }
        json!({"type":"system","subtype":"compact_boundary","parentUuid":null,
               "content":"Conversation compacted","compactMetadata":meta})
        .to_string()
    }

    fn scan(lines: &[String]) -> TailScan {
        scan_tail(lines.iter().map(String::as_str))
    }

    #[test]
    fn fixture_excerpt_is_24000_tokens_12_percent() {
        let text = include_str!("../../../tests/fixtures/transcripts/compact-excerpt.jsonl");
        let s = scan_tail(text.lines());
        let TailScan::Usage {
            usage, message_id, ..
        } = &s
        else {
            panic!("{s:?}")
        };
        assert_eq!(usage.context_in(), 24_000);
        assert_eq!(usage.output, 97, "the last record of the split response");
        assert_eq!(message_id.as_deref(), Some("msg_01Cd7"));
        let pct = usage.context_in() as f64 / 200_000.0 * 100.0;
        assert!((pct - 12.0).abs() < f64::EPSILON);
        assert_eq!(count_compactions(text.lines()), 1);
        // Without the two records after the summary, the boundary is met first.
        let first4: Vec<&str> = text.lines().take(4).collect();
        assert_eq!(
            scan_tail(first4.into_iter()),
            TailScan::Compacted {
                post_tokens: Some(11_890)
            }
        );
    }

    #[test]
    fn compaction_in_the_middle_stops_the_scan() {
        let lines = vec![
            assistant("m1", 2, 900, 160_000, 10),
            boundary(None),
            r#"{"type":"user","message":{"role":"user","content":"go on"}}"#.to_owned(),
        ];
        assert_eq!(scan(&lines), TailScan::Compacted { post_tokens: None });
        let mut after = lines.clone();
        after.push(assistant("m2", 3, 100, 12_000, 5));
        assert_eq!(scan(&after).tokens(), Some(12_103));
    }

    #[test]
    fn split_records_share_an_id_and_the_last_wins() {
        let lines = vec![
            assistant("m1", 3, 11_942, 12_055, 2),
            assistant("m1", 3, 11_942, 12_055, 97),
        ];
        let TailScan::Usage { usage, .. } = scan(&lines) else {
            panic!()
        };
        assert_eq!((usage.context_in(), usage.output), (24_000, 97));
        assert_eq!(usage.context_total(), 24_097);
    }

    #[test]
    fn sidechains_synthetic_and_api_errors_are_skipped() {
        let mut side: Value = serde_json::from_str(&assistant("s", 1, 1, 1, 1)).unwrap();
        side["isSidechain"] = json!(true);
        let mut synth: Value = serde_json::from_str(&assistant("y", 2, 2, 2, 2)).unwrap();
        synth["message"]["model"] = json!("<synthetic>");
        let mut err: Value = serde_json::from_str(&assistant("e", 3, 3, 3, 3)).unwrap();
        err["isApiErrorMessage"] = json!(true);
        let lines = vec![
            assistant("main", 10, 20, 30, 4),
            side.to_string(),
            synth.to_string(),
            err.to_string(),
        ];
        assert_eq!(scan(&lines).tokens(), Some(60));
    }

    #[test]
    fn iterations_use_the_last_qualifying_entry() {
        let rec = json!({"type":"assistant","message":{"model":"claude-opus-4-8","id":"m",
        "usage":{"input_tokens":1,"cache_read_input_tokens":1,"output_tokens":1,
          "iterations":[
            {"type":"message","input_tokens":100,"cache_read_input_tokens":5000,"output_tokens":50},
            {"type":"message","input_tokens":200,"cache_read_input_tokens":7000,"output_tokens":60},
            {"type":"advisor_message","input_tokens":999_999,"output_tokens":1},
            {"type":"compaction","input_tokens":888_888}
          ]}}});
        let s = scan_tail(std::iter::once(rec.to_string().as_str()));
        assert_eq!(s.tokens(), Some(7_200));
    }

    #[test]
    fn an_all_zero_usage_is_no_reading() {
        let lines = vec![
            assistant("m1", 3, 0, 60_000, 20),
            assistant("m2", 0, 0, 0, 0),
        ];
        assert_eq!(scan(&lines).tokens(), Some(60_003));
    }

    #[test]
    fn reread_candidates_are_edits_then_reads_newest_first_once_each() {
        let facts = TranscriptFacts {
            touched: vec!["/p/a.rs".into(), "/p/b.rs".into()],
            read: vec!["/p/SPEC.md".into(), "/p/a.rs".into(), "/p/src".into()],
            ..TranscriptFacts::default()
        };
        assert_eq!(
            reread_candidates(&facts),
            ["/p/b.rs", "/p/a.rs", "/p/src", "/p/SPEC.md"]
        );
        assert!(reread_candidates(&TranscriptFacts::default()).is_empty());
    }

    #[test]
    fn truncated_last_line_and_garbage_are_skipped() {
        let full = assistant("m1", 1, 2, 3, 4);
        let cut = assistant("m2", 9, 9, 9, 9);
        let lines = vec![
            full,
            "not json at all".to_owned(),
            cut.get(..cut.len() / 2).unwrap().to_owned(),
        ];
        assert_eq!(scan(&lines).tokens(), Some(6));
    }

    #[test]
    fn a_boundary_is_a_system_record_of_that_subtype() {
        let rec = |v: Value| is_boundary(&v);
        assert!(rec(
            json!({"type": "system", "subtype": "compact_boundary"})
        ));
        assert!(!rec(json!({"type": "user", "subtype": "compact_boundary"})));
        assert!(!rec(json!({"subtype": "compact_boundary"})));
        assert!(!rec(json!({"type": "system", "subtype": "informational"})));
        assert!(is_boundary_line(
            r#"{"type":"system","subtype":"compact_boundary"}"#
        ));
        assert!(!is_boundary_line(
            r#"{"type":"user","content":"compact_boundary"}"#
        ));
    }

    #[test]
    fn empty_input_finds_nothing() {
        assert_eq!(scan(&[]), TailScan::Nothing);
        assert_eq!(scan(&[String::new()]), TailScan::Nothing);
        assert!(!TailScan::Nothing.is_conclusive());
        assert_eq!(
            extract_facts(std::iter::empty()),
            TranscriptFacts::default()
        );
    }

    #[test]
    fn windows_follow_the_model_table() {
        assert_eq!(window_for_model("claude-sonnet-4-6"), 200_000);
        assert_eq!(window_for_model("claude-opus-4-6[1m]"), 1_000_000);
        assert_eq!(window_for_model("sonnet[1M]"), 1_000_000);
        assert_eq!(window_for_model("claude-opus-4-6"), 200_000);
        assert_eq!(window_for_model("claude-opus-4-7"), 1_000_000);
        assert_eq!(window_for_model("claude-opus-4-8"), 1_000_000);
        assert_eq!(window_for_model("claude-opus-4-5-20251101"), 200_000);
        assert_eq!(window_for_model("claude-opus-4-20250514"), 200_000);
        assert_eq!(window_for_model("claude-sonnet-5"), 1_000_000);
        assert_eq!(window_for_model("claude-haiku-4-5-20251001"), 200_000);
        assert_eq!(window_for_model("claude-haiku-5-5"), 1_000_000);
        assert_eq!(window_for_model("claude-mythos-5-1"), 1_000_000);
        assert_eq!(window_for_model("gpt-something"), 200_000);
        assert_eq!(
            infer_window(Some(500_000), Some("claude-sonnet-4-6"), None),
            500_000
        );
        assert_eq!(
            infer_window(None, Some("claude-sonnet-4-6"), Some(250_000)),
            1_000_000
        );
        assert_eq!(infer_window(None, None, None), 200_000);
    }

    #[test]
    fn window_sources_say_where_the_size_came_from() {
        let src = |d, m, t| infer_window_with_source(d, m, t);
        assert_eq!(
            src(Some(1_000_000), None, None),
            (1_000_000, WindowSource::Statusline)
        );
        assert_eq!(
            src(None, Some("claude-sonnet-4-6"), None),
            (200_000, WindowSource::Model)
        );
        assert_eq!(
            src(None, Some("opus[1m]"), None),
            (1_000_000, WindowSource::Model)
        );
        assert_eq!(
            src(None, None, Some(1000)),
            (200_000, WindowSource::Default)
        );
        assert_eq!(
            src(None, Some("my-gateway"), Some(1000)),
            (200_000, WindowSource::Default)
        );
        assert_eq!(
            src(None, None, Some(250_000)),
            (1_000_000, WindowSource::Tokens)
        );
    }

    #[test]
    fn percentages_round_like_claude_code() {
        assert_eq!(pct_of(139_000, 200_000), 70.0);
        assert_eq!(pct_of(138_999, 200_000), 69.0);
        assert_eq!(pct_of(169_000, 200_000), 85.0);
        assert_eq!(pct_of(189_000, 200_000), 95.0);
        assert_eq!(pct_of(300_000, 200_000), 100.0);
        assert_eq!(pct_of(5, 0), 0.0);
        assert_eq!(round_pct(f64::NAN), 0.0);
        assert_eq!(round_pct(-3.0), 0.0);
    }

    fn tool_use(id: &str, name: &str, input: &Value) -> String {
        json!({"type":"assistant","message":{"model":"m","id":id,"role":"assistant",
            "content":[{"type":"tool_use","id":format!("toolu_{id}"),"name":name,"input":input}]}})
        .to_string()
    }

    fn tool_result(id: &str, result: &Value) -> String {
        json!({"type":"user","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":format!("toolu_{id}"),"content":"ok"}]},
            "toolUseResult":result})
        .to_string()
    }

    fn user(text: &str) -> String {
        json!({"type":"user","message":{"role":"user","content":text}}).to_string()
    }

    #[test]
    fn facts_take_latest_todo_write_and_file_names_only() {
        let lines = vec![
            user("first request"),
            tool_use("a", "TodoWrite", &json!({"todos":[{"content":"old","status":"pending"}]})),
            tool_use("b", "Edit", &json!({"file_path":"/p/src/a.rs","old_string":"SECRET_OLD","new_string":"SECRET_NEW"})),
            tool_use("c", "Write", &json!({"file_path":"/p/src/b.rs","content":"SECRET_CONTENT"})),
            tool_use("d", "NotebookEdit", &json!({"notebook_path":"/p/n.ipynb","new_source":"x"})),
            tool_use("e", "Read", &json!({"file_path":"/p/SPEC.md"})),
            tool_use("f", "Grep", &json!({"pattern":"fn main","path":"/p/src"})),
            tool_use("g", "Edit", &json!({"file_path":"/p/src/a.rs"})),
            tool_use("h", "TodoWrite", &json!({"todos":[
                {"content":"done one","status":"completed","activeForm":"x"},
                {"content":"doing","status":"in_progress"},
                {"content":"later","status":"pending"}]})),
            tool_result("h", &json!({})),
            json!({"type":"user","isMeta":true,"message":{"role":"user","content":"meta"}}).to_string(),
            json!({"type":"user","isCompactSummary":true,"message":{"role":"user","content":"summary"}}).to_string(),
            json!({"type":"user","isSidechain":true,"message":{"role":"user","content":"side"}}).to_string(),
            json!({"type":"user","message":{"role":"user","content":[{"type":"text","text":"second request"}]}}).to_string(),
            user("<command-name>/compact</command-name>"),
        ];
        let f = extract_facts(lines.iter().map(String::as_str));
        assert_eq!(f.touched, ["/p/src/b.rs", "/p/n.ipynb", "/p/src/a.rs"]);
        assert_eq!(f.read, ["/p/SPEC.md", "/p/src"]);
        assert_eq!(f.last_request.as_deref(), Some("second request"));
        let todos: Vec<_> = f
            .todos
            .iter()
            .map(|t| (t.content.as_str(), t.status))
            .collect();
        assert_eq!(
            todos,
            [
                ("done one", TodoStatus::Completed),
                ("doing", TodoStatus::InProgress),
                ("later", TodoStatus::Pending)
            ]
        );
        let dump = serde_json::to_string(&f).unwrap();
        assert!(!dump.contains("SECRET"), "{dump}");
    }

    #[test]
    fn tasks_are_replayed_in_order() {
        let lines = vec![
            tool_use(
                "t0",
                "TodoWrite",
                &json!({"todos":[{"content":"stale","status":"pending"}]}),
            ),
            tool_use(
                "t1",
                "TaskCreate",
                &json!({"subject":"Write parser","description":"d"}),
            ),
            tool_result("t1", &json!({"task":{"id":"7","subject":"Write parser"}})),
            tool_use("t2", "TaskCreate", &json!({"subject":"Write tests"})),
            tool_use("t3", "TaskCreate", &json!({"subject":"Drop me"})),
            tool_use(
                "t4",
                "TaskUpdate",
                &json!({"taskId":"7","status":"completed"}),
            ),
            tool_use(
                "t5",
                "TaskUpdate",
                &json!({"taskId":"2","status":"in_progress","subject":"Write more tests"}),
            ),
            tool_use(
                "t6",
                "TaskUpdate",
                &json!({"taskId":"3","status":"deleted"}),
            ),
            tool_use(
                "t7",
                "TaskUpdate",
                &json!({"taskId":"99","status":"completed"}),
            ),
        ];
        let f = extract_facts(lines.iter().map(String::as_str));
        let todos: Vec<_> = f
            .todos
            .iter()
            .map(|t| (t.id.as_deref().unwrap(), t.content.as_str(), t.status))
            .collect();
        assert_eq!(
            todos,
            [
                ("7", "Write parser", TodoStatus::Completed),
                ("2", "Write more tests", TodoStatus::InProgress)
            ]
        );
    }

    #[test]
    fn sidechain_tool_calls_do_not_count() {
        let mut side: Value =
            serde_json::from_str(&tool_use("s", "Edit", &json!({"file_path":"/p/x"}))).unwrap();
        side["isSidechain"] = json!(true);
        let f = extract_facts(std::iter::once(side.to_string().as_str()));
        assert!(f.touched.is_empty());
    }
}
