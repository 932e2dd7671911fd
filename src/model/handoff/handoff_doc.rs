//! Composing a session handoff document (docs/design.md#handoff-documents) from inputs
//! gathered elsewhere (`crate::app::session_handoff`). Pure: no disk, no git.
//!
//! Every piece of text that comes from the session (the last request, todo items,
//! file names, commit subjects, Signal questions, the task) goes through
//! [`crate::model::text::redact::redact`] before it is cut, and the whole document once
//! more at the end. File contents and diffs are never inputs here.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Utc};

use crate::model::session::level::Level;
use crate::model::session::state::WorkflowState;
use crate::model::session::transcript::{Todo, TodoStatus, TranscriptFacts};
use crate::model::text::redact::{redact, redact_cow};
use crate::model::text::sanitize::single_line;

/// Why a handoff was written (the front matter's `trigger`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The statusline saw the context reach the threshold.
    ContextThreshold,
    /// PreCompact's safety net.
    PreCompact,
    /// A person ran `forge handoff`.
    Manual,
    /// The session ended.
    SessionEnd,
    /// `forge run` handed a headless task over to a fresh session (or stopped it on
    /// Ctrl-C).
    Relay,
}

impl Trigger {
    /// Every trigger, in the order of docs/design.md#triggers.
    pub(crate) const ALL: [Self; 5] = [
        Self::ContextThreshold,
        Self::PreCompact,
        Self::Manual,
        Self::SessionEnd,
        Self::Relay,
    ];

    /// The contract spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::ContextThreshold => "context-threshold",
            Self::PreCompact => "pre-compact",
            Self::Manual => "manual",
            Self::SessionEnd => "session-end",
            Self::Relay => "relay",
        }
    }

    /// Parses the contract spelling.
    pub(crate) fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s.trim())
    }
}

/// An open agent Signal to list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSignal {
    /// The handoff file's name when it is in the project's own `.forge/handoffs/`,
    /// else its path (the repository's inbox in the main work tree, or another work
    /// tree's folder: `store::inbox`).
    pub file_name: String,
    /// `blocked` or `partial`.
    pub status: String,
    /// The task id.
    pub task: Option<String>,
    /// `from→to`.
    pub route: Option<String>,
    /// Open questions.
    pub questions: Vec<String>,
}

/// What the session's agent said itself when it asked for the handoff (the `handoff`
/// tool of `forge mcp`): what forge cannot read from a transcript alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentNotes {
    /// What was decided, and why: `(decision, why)`.
    pub decisions: Vec<(String, String)>,
    /// What the agent would do next, in order.
    pub next_steps: Vec<String>,
    /// Anything else the next session should know.
    pub notes: Option<String>,
}

impl AgentNotes {
    /// Whether the agent said nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.decisions.is_empty() && self.next_steps.is_empty() && self.notes.is_none()
    }
}

/// Everything a handoff document is made from.
#[derive(Debug, Clone)]
pub struct HandoffInputs<'a> {
    /// The project root (file names are shown relative to it).
    pub root: &'a Path,
    /// When it is written.
    pub created_at: DateTime<Utc>,
    /// The session it is for.
    pub session_id: Option<String>,
    /// Why.
    pub trigger: Trigger,
    /// Context used, in percent.
    pub context_pct: Option<f64>,
    /// Level of that percentage.
    pub level: Option<Level>,
    /// Tokens in context and the window.
    pub tokens: Option<u64>,
    /// The window size.
    pub window: Option<u64>,
    /// The configured handoff threshold.
    pub threshold: f64,
    /// The session's transcript path.
    pub transcript_path: Option<String>,
    /// What the transcript said (`None` when there was none to read).
    pub transcript: Option<TranscriptFacts>,
    /// Only the end of the transcript was read.
    pub transcript_cut: Option<u64>,
    /// Why the transcript could not be read, when it could not.
    pub transcript_problem: Option<String>,
    /// Branch.
    pub branch: Option<String>,
    /// Uncommitted changes.
    pub uncommitted: Option<u64>,
    /// Changed file names.
    pub changed_files: Vec<String>,
    /// `<sha7> <subject>` of the last commits.
    pub recent_commits: Vec<String>,
    /// `state.json`.
    pub workflow: WorkflowState,
    /// Blocked and partial Signals.
    pub signals: Vec<OpenSignal>,
    /// `CLAUDE.md` exists at the root.
    pub has_claude_md: bool,
    /// `.forge/state.json` exists.
    pub has_state_json: bool,
    /// The agent's own decisions, next steps and notes (empty unless it wrote them).
    pub notes: AgentNotes,
    /// The task the session was given, when the caller knows it (`forge run`'s
    /// chain task): the title and the current task, instead of the transcript's last
    /// request (in a continuation, that is the long continuation prompt).
    pub task: Option<String>,
    /// The most bytes the document may take (`[handoffs] max_bytes`): past it,
    /// sections give up their text in the order of [`super::budget::DROP_ORDER`].
    pub budget: usize,
}

/// How many characters of the last request are kept.
const REQUEST_CHARS: usize = 1500;
/// How many names a list shows.
const LIST_MAX: usize = 40;

/// `handoff-YYYYMMDD-HHMMSS.md`, with `-N` before `.md` for the N-th file of the same
/// second (`n` ≥ 2).
pub(crate) fn file_name(created_at: DateTime<Utc>, n: u32) -> String {
    let stamp = created_at.format("%Y%m%d-%H%M%S");
    if n <= 1 {
        format!("handoff-{stamp}.md")
    } else {
        format!("handoff-{stamp}-{n}.md")
    }
}

pub(crate) use super::fields::{project_path, redacted_field};

/// A front matter value: on one line (a newline would end the value and break the
/// front matter), then as a YAML scalar (see [`yaml_scalar`]).
fn yaml_text(text: &str, max: usize) -> String {
    yaml_scalar(&redacted_field(text, max)).into_owned()
}

/// `text` as a YAML scalar that every YAML reader reads back as this same string:
/// plain when that is safe, else double-quoted with `\` and `"` escaped. Quoted are
/// values with a `: ` or ` #` inside, leading or trailing spaces, a leading indicator
/// character (`[ ] { } , & * ! | > ' " % @` and backquote, `#`, or `-`, `?`, `:`
/// followed by a space), and values a YAML reader would take for something other
/// than text: booleans and nulls (`yes`, `off`, `~`, `null`, …), numbers (`1.0`,
/// `0x1f`, `12:30`, `.inf`), dates. Empty stays empty (a null: "unknown"). Control
/// characters are folded first, so the result is always one line.
pub(crate) fn yaml_scalar(text: &str) -> Cow<'_, str> {
    let text = single_line(text);
    if text.is_empty() || !needs_yaml_quotes(&text) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

fn needs_yaml_quotes(s: &str) -> bool {
    let first = s.chars().next().unwrap_or(' ');
    let second = s.chars().nth(1);
    s != s.trim()
        || "[]{},&*!|>'\"%@`#".contains(first)
        || (matches!(first, '-' | '?' | ':') && second.is_none_or(char::is_whitespace))
        || s.contains(": ")
        || s.ends_with(':')
        || s.contains(" #")
        || s.ends_with(['"', '\''])
        || matches!(s, "=" | "<<")
        || reads_as_non_text(s)
}

/// Whether a plain YAML scalar `s` would load as a bool, null, number or date
/// (YAML 1.1 or 1.2). Errs towards yes: quoting a string needlessly is harmless.
fn reads_as_non_text(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "y" | "n"
            | "yes"
            | "no"
            | "true"
            | "false"
            | "on"
            | "off"
            | "~"
            | "null"
            | ".inf"
            | "+.inf"
            | "-.inf"
            | ".nan"
    ) {
        return true;
    }
    let body = lower.strip_prefix(['+', '-']).unwrap_or(&lower);
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return false;
    }
    if let Some(digits) = ["0x", "0o", "0b"].iter().find_map(|p| body.strip_prefix(p)) {
        return digits.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    // A date (`2026-11-21`, and any timestamp starting with one).
    let b = body.as_bytes();
    if b.len() >= 8 && b.iter().take(4).all(u8::is_ascii_digit) && b.get(4) == Some(&b'-') {
        return true;
    }
    body.chars()
        .all(|c| c.is_ascii_digit() || "_.:e+-".contains(c))
}

fn cut(text: &str, max: usize) -> String {
    crate::model::text::sanitize::cut_chars(text, max)
}

/// The context size as the "Why this handoff" sentence says it, `None` when no
/// reading was known (the sentence then says so in words, never "at unknown").
fn pct_text(i: &HandoffInputs<'_>) -> Option<String> {
    match (i.context_pct, i.level) {
        (Some(p), Some(l)) => Some(format!("{}% ({l})", p.round() as i64)),
        (Some(p), None) => Some(format!("{}%", p.round() as i64)),
        _ => None,
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The document text: the front matter, the title, then one section after another
/// (each written by the function named after it), fitted to the byte budget
/// ([`super::budget::fit`]: sections give up their text in a stated order, never a
/// line cut in two), and the whole once more through the redactor.
pub fn compose(i: &HandoffInputs<'_>) -> String {
    use super::budget::{Part, Section, fit};
    use super::story_sections as story;
    let mut head = String::new();
    front_matter(&mut head, i);
    let _ = writeln!(head, "# Session handoff — {}\n", title(i));
    let written = |f: &dyn Fn(&mut String)| {
        let mut d = String::new();
        f(&mut d);
        d
    };
    let mut parts: Vec<(Part, Option<String>)> = vec![
        (Part::Kept, Some(written(&|d| why_this_handoff(d, i)))),
        (Part::Kept, Some(written(&|d| current_task(d, i)))),
    ];
    let st = i.transcript.as_ref().map(|f| &f.story);
    let requests = st.and_then(story::requests);
    let shrinks_from = requests.as_ref().map(|(_, from)| *from);
    parts.push((Part::Requests, requests.map(|(text, _)| text)));
    parts.extend([
        (
            Part::Summary,
            st.and_then(|s| story::client_summary(s, i.root, i.created_at)),
        ),
        (Part::Plan, st.and_then(story::plan)),
        (Part::Decisions, st.and_then(story::decisions)),
        (
            Part::AgentDecisions,
            written(&|d| agents_decisions(d, i)).into(),
        ),
        (Part::Notes, written(&|d| agents_notes(d, i)).into()),
        (Part::Progress, Some(written(&|d| progress(d, i)))),
        (Part::LooseEnds, st.and_then(story::loose_ends)),
        (Part::Files, Some(written(&|d| files_touched(d, i)))),
        (Part::Git, Some(written(&|d| git_state(d, i)))),
        (Part::Signals, Some(written(&|d| open_agent_signals(d, i)))),
        (Part::Reload, Some(written(&|d| reload(d, i)))),
    ]);
    let mut steps = String::from("## Next steps\n");
    for (n, s) in next_steps(i).iter().enumerate() {
        let _ = writeln!(steps, "{}. {s}", n + 1);
    }
    parts.push((Part::Kept, Some(steps)));
    let sections: Vec<Section> = parts
        .into_iter()
        .filter_map(|(part, text)| {
            let mut s = Section::of(part, text.as_deref().filter(|t| !t.trim().is_empty())?)?;
            if part == Part::Requests {
                s.shrinks_from = shrinks_from;
            }
            Some(s)
        })
        .collect();
    let (d, _) = fit(&head, sections, i.budget);
    // The whole document once more, as it leaves: every field was redacted before
    // it was cut, and this catches what only shows across fields or lines.
    match redact_cow(&d) {
        Cow::Owned(r) => r,
        Cow::Borrowed(_) => d,
    }
}

/// The task the caller gave (`forge run`'s chain task), when it says something.
fn given_task<'s>(i: &'s HandoffInputs<'_>) -> Option<&'s str> {
    i.task.as_deref().map(str::trim).filter(|t| !t.is_empty())
}

/// The request the document quotes, with its label: the given task; else the
/// person's own task (their first request that says more than "continue"); else
/// the task as Claude Code's summary states it; else the transcript's last request
/// (as recorded).
fn quoted_request(i: &HandoffInputs<'_>) -> (String, Option<String>) {
    use super::story_sections::when;
    if let Some(t) = given_task(i) {
        return (
            "The task (given to `forge run`):".to_owned(),
            Some(t.to_owned()),
        );
    }
    if let Some(t) = person_task(i) {
        let first = i
            .transcript
            .as_ref()
            .and_then(|f| f.story.first.as_ref())
            .is_some_and(|f| f.text == t.text);
        let at = when(t.at.as_deref()).map_or_else(String::new, |w| format!(", {w}"));
        let label = if first {
            format!("The task, in the person's words (their first request of the session{at}):")
        } else {
            format!(
                "The task, in the person's words (their first request that says more than \"continue\"{at}):"
            )
        };
        return (label, Some(t.text.clone()));
    }
    if let Some(r) = story_of(i).and_then(super::story_sections::summary_request) {
        return (
            "The task, as Claude Code's summary states it (no request of the person is in the part of the transcript read):".to_owned(),
            Some(r),
        );
    }
    (
        "Last request:".to_owned(),
        i.transcript.as_ref().and_then(|f| f.last_request.clone()),
    )
}

/// The transcript's todo list (empty without a transcript).
fn todos<'s>(i: &'s HandoffInputs<'_>) -> &'s [Todo] {
    i.transcript.as_ref().map(|f| &f.todos[..]).unwrap_or(&[])
}

fn front_matter(d: &mut String, i: &HandoffInputs<'_>) {
    let opt = |v: &Option<String>| v.as_deref().map(|s| yaml_text(s, 200)).unwrap_or_default();
    let _ = writeln!(d, "---");
    let _ = writeln!(d, "kind: session-handoff");
    let _ = writeln!(d, "created_at: {}", crate::model::time::iso(i.created_at));
    let _ = writeln!(d, "session_id: {}", opt(&i.session_id));
    let _ = writeln!(d, "trigger: {}", i.trigger.as_str());
    let _ = writeln!(
        d,
        "context_used_pct: {}",
        i.context_pct
            .map(|p| (p.round() as i64).to_string())
            .unwrap_or_default()
    );
    let _ = writeln!(
        d,
        "level: {}",
        i.level.map(|l| l.as_str().to_owned()).unwrap_or_default()
    );
    let _ = writeln!(d, "branch: {}", opt(&i.branch));
    let _ = writeln!(
        d,
        "uncommitted_changes: {}",
        i.uncommitted.map(|n| n.to_string()).unwrap_or_default()
    );
    let _ = writeln!(d, "forge_phase: {}", opt(&i.workflow.phase));
    let _ = writeln!(d, "forge_task: {}", opt(&i.workflow.task));
    let _ = writeln!(d, "---");
}

/// A title that says what the session was doing: the task — given by `forge run`,
/// in `state.json`, else the person's own task (their first request that says more
/// than "continue"), else the task as Claude Code's summary states it — and only
/// then the last request, the branch, the project. A request gives its first line
/// (cut; `redacted_field` redacts).
fn title(i: &HandoffInputs<'_>) -> String {
    let first_line = |t: &str| {
        let line = t
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        redacted_field(line, 60)
    };
    let request = i
        .transcript
        .as_ref()
        .and_then(|f| f.last_request.as_deref())
        .map(str::trim)
        .filter(|r| !r.is_empty());
    given_task(i)
        .map(|t| redacted_field(t, 60))
        .or_else(|| i.workflow.task.as_deref().map(|t| redacted_field(t, 100)))
        .or_else(|| person_task(i).map(|t| first_line(&t.text)))
        .or_else(|| {
            story_of(i)
                .and_then(super::story_sections::summary_request)
                .map(|t| first_line(&t))
        })
        .or_else(|| request.map(first_line))
        .filter(|t| !t.is_empty())
        .or_else(|| i.branch.as_deref().map(|b| redacted_field(b, 100)))
        .unwrap_or_else(|| {
            i.root.file_name().map_or_else(
                || "this session".to_owned(),
                |n| redacted_field(&n.to_string_lossy(), 100),
            )
        })
}

/// The transcript's story, when a transcript was read.
fn story_of<'s>(i: &'s HandoffInputs<'_>) -> Option<&'s crate::model::session::story::Story> {
    i.transcript.as_ref().map(|f| &f.story)
}

/// The person's task from the transcript's story.
fn person_task<'s>(i: &'s HandoffInputs<'_>) -> Option<&'s crate::model::session::story::Said> {
    i.transcript.as_ref()?.story.task()
}

fn why_this_handoff(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Why this handoff");
    let pct = pct_text(i);
    let threshold = i.threshold.round() as i64;
    let why = match (i.trigger, pct) {
        (Trigger::ContextThreshold, Some(pct)) => {
            format!("Context reached {pct}, at or above the handoff threshold of {threshold}%.")
        }
        (Trigger::ContextThreshold, None) => format!(
            "Context reached the handoff threshold of {threshold}% (its exact size was not known)."
        ),
        (Trigger::PreCompact, pct) => format!(
            "Claude Code is compacting the context ({}); written as a safety net before details are lost.",
            pct.map_or_else(
                || "its size was not known".to_owned(),
                |p| format!("last reading {p}")
            )
        ),
        (Trigger::Manual, Some(pct)) => format!("Written on request; context at {pct}."),
        (Trigger::Manual, None) => "Written on request; the context size was not known.".to_owned(),
        (Trigger::SessionEnd, Some(pct)) => format!("The session ended; context at {pct}."),
        (Trigger::SessionEnd, None) => {
            "The session ended; the context size was not known.".to_owned()
        }
        (Trigger::Relay, Some(pct)) => format!(
            "`forge run` ended this headless session at {pct} to carry its task on in a fresh one."
        ),
        (Trigger::Relay, None) => "`forge run` ended this headless session to carry its task on in a fresh one; the context size was not known.".to_owned(),
    };
    let _ = writeln!(d, "{why}");
    if let (Some(t), Some(w)) = (i.tokens, i.window) {
        let _ = writeln!(
            d,
            "Tokens in context: {} of {}.",
            thousands(t),
            thousands(w)
        );
    }
    if let Some(p) = &i.transcript_path {
        let _ = writeln!(d, "Session transcript: {}", redacted_field(p, 400));
    }
    let _ = writeln!(d);
}

fn current_task(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Current task");
    match (&i.workflow.phase, &i.workflow.task) {
        (None, None) => {
            let _ = writeln!(d, "No phase or task in .forge/state.json.");
        }
        (ph, t) => {
            let _ = writeln!(
                d,
                "Phase: {} · Task: {}",
                ph.as_deref()
                    .map_or_else(|| "-".to_owned(), |s| redacted_field(s, 100)),
                t.as_deref()
                    .map_or_else(|| "-".to_owned(), |s| redacted_field(s, 100))
            );
        }
    }
    match quoted_request(i) {
        (label, Some(r)) => {
            let _ = writeln!(d, "\n{label}");
            let full = redact(r.trim());
            let text = cut(&full, REQUEST_CHARS);
            for line in text.lines() {
                let _ = writeln!(d, "> {}", single_line(line));
            }
            if text.chars().count() < full.chars().count() {
                let _ = writeln!(d, "(cut; the full request is in the transcript)");
            }
            latest_request(d, i, &r);
        }
        (_, None) => {
            let _ = writeln!(d, "No user request found in the transcript.");
        }
    }
    if let Some(s) = story_of(i) {
        super::story_sections::last_words(d, s);
    }
    let _ = writeln!(d);
}

/// The person's latest request, when it is not the task quoted above.
fn latest_request(d: &mut String, i: &HandoffInputs<'_>, task: &str) {
    if given_task(i).is_some() {
        return;
    }
    let Some(last) = i.transcript.as_ref().and_then(|f| f.story.requests.last()) else {
        return;
    };
    if last.text.trim() == task.trim() {
        return;
    }
    let _ = writeln!(
        d,
        "\nTheir latest request{}{}:",
        super::story_sections::when(last.at.as_deref())
            .map_or_else(String::new, |w| format!(" ({w})")),
        if last.interrupted {
            ", interrupted before Claude answered"
        } else {
            ""
        }
    );
    let (lines, cut) = super::story_sections::quote(&last.text, 600);
    for l in lines {
        let _ = writeln!(d, "{l}");
    }
    if cut {
        let _ = writeln!(d, "(cut; the full request is in the transcript)");
    }
}

fn progress(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Progress");
    let todos = todos(i);
    if todos.is_empty() {
        let _ = writeln!(d, "No todo list in the transcript.");
    }
    for t in todos.iter().take(LIST_MAX) {
        let mark = match t.status {
            TodoStatus::Completed => "[x]",
            TodoStatus::InProgress => "[~]",
            TodoStatus::Pending => "[ ]",
        };
        let _ = writeln!(d, "- {mark} {}", redacted_field(&t.content, 300));
    }
    if let Some(cap) = i.transcript_cut {
        let _ = writeln!(
            d,
            "\n(Only the last {} MiB of the transcript were read; older todos and files may be missing.)",
            cap / (1024 * 1024)
        );
    }
    if let Some(problem) = &i.transcript_problem {
        let _ = writeln!(
            d,
            "\n(Transcript not read: {}.)",
            redacted_field(problem, 300)
        );
    }
    let _ = writeln!(d);
}

/// The agent's own decisions (redacted, each on one line); no section when it
/// said nothing.
fn agents_decisions(d: &mut String, i: &HandoffInputs<'_>) {
    if i.notes.decisions.is_empty() {
        return;
    }
    let _ = writeln!(d, "## Decisions (from the session)");
    for (decision, why) in i.notes.decisions.iter().take(LIST_MAX) {
        let why = redacted_field(why, 600);
        if why.is_empty() {
            let _ = writeln!(d, "- {}", redacted_field(decision, 600));
        } else {
            let _ = writeln!(d, "- {} — why: {why}", redacted_field(decision, 600));
        }
    }
}

/// The agent's own notes, quoted whole lines; no section when it wrote none.
fn agents_notes(d: &mut String, i: &HandoffInputs<'_>) {
    let Some(notes) = i
        .notes
        .notes
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
    else {
        return;
    };
    let _ = writeln!(d, "## Notes from the session");
    let (lines, cut) = super::story_sections::quote(notes, 4000);
    for line in lines {
        let _ = writeln!(d, "{line}");
    }
    if cut {
        let _ = writeln!(d, "(cut)");
    }
}

/// The files the transcript shows touched (newest first), then those git shows
/// changed that it does not.
fn files_touched(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Files touched");
    let touched: Vec<String> = i
        .transcript
        .as_ref()
        .map(|f| {
            f.touched
                .iter()
                .rev()
                .filter_map(|p| project_path(i.root, p))
                .collect()
        })
        .unwrap_or_default();
    let also: Vec<String> = i
        .changed_files
        .iter()
        .map(|p| redacted_field(p, 400))
        .filter(|p| !touched.contains(p))
        .collect();
    let since = since_compaction(i);
    if touched.is_empty() && also.is_empty() {
        let _ = writeln!(d, "None recorded.\n");
        return;
    }
    match &since {
        Some((at, files)) => {
            let git_known = i.branch.is_some();
            let _ = writeln!(
                d,
                "Edited since the compaction{} (newest first{}):",
                at.as_deref()
                    .map_or_else(String::new, |w| format!(" at {w}")),
                if git_known {
                    "; git's word on each"
                } else {
                    ""
                }
            );
            if files.is_empty() {
                let _ = writeln!(d, "- none");
            }
            for p in files.iter().take(LIST_MAX) {
                let mark = match (git_known, i.changed_files.contains(p)) {
                    (false, _) => "",
                    (true, true) => " (uncommitted)",
                    (true, false) => " (no uncommitted change)",
                };
                let _ = writeln!(d, "- {p}{mark}");
            }
            let before: Vec<&String> = touched.iter().filter(|p| !files.contains(p)).collect();
            if !before.is_empty() {
                let _ = writeln!(d, "\nEdited before it:");
                for p in before.into_iter().take(LIST_MAX) {
                    let _ = writeln!(d, "- {p}");
                }
            }
        }
        None => {
            for p in touched.iter().take(LIST_MAX) {
                let _ = writeln!(d, "- {p}");
            }
        }
    }
    if !also.is_empty() {
        if !touched.is_empty() || since.is_some() {
            let _ = writeln!(d, "\nAlso changed in the work tree:");
        }
        for p in also.iter().take(LIST_MAX) {
            let _ = writeln!(d, "- {p}");
        }
    }
    let _ = writeln!(d);
}

/// When the transcript shows a compaction: its time and the project files edited
/// after it (newest first).
fn since_compaction(i: &HandoffInputs<'_>) -> Option<(Option<String>, Vec<String>)> {
    let f = i.transcript.as_ref()?;
    if f.compactions == 0 {
        return None;
    }
    let files = f
        .story
        .since
        .files
        .iter()
        .rev()
        .filter_map(|p| project_path(i.root, p))
        .collect();
    Some((
        super::story_sections::when(f.story.compacted_at.as_deref()),
        files,
    ))
}

fn git_state(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Git state");
    match (&i.branch, i.uncommitted) {
        (Some(b), n) => {
            let n = n.unwrap_or(0);
            let _ = writeln!(
                d,
                "Branch {}, {n} uncommitted change{}.",
                redacted_field(b, 200),
                if n == 1 { "" } else { "s" }
            );
        }
        (None, _) => {
            let _ = writeln!(d, "Not a git work tree (or git was unreadable).");
        }
    }
    if !i.changed_files.is_empty() {
        let names: Vec<String> = i
            .changed_files
            .iter()
            .take(LIST_MAX)
            .map(|p| redacted_field(p, 400))
            .collect();
        let _ = writeln!(d, "Changed: {}", names.join(", "));
    }
    if !i.recent_commits.is_empty() {
        let _ = writeln!(d, "Last commits:");
        for c in &i.recent_commits {
            let _ = writeln!(d, "- {}", redacted_field(c, 200));
        }
    }
    let _ = writeln!(d);
}

fn open_agent_signals(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Open agent signals");
    if i.signals.is_empty() {
        let _ = writeln!(d, "None.");
    }
    for s in &i.signals {
        let folder = if s.file_name.contains('/') {
            ""
        } else {
            ".forge/handoffs/"
        };
        let _ = writeln!(
            d,
            "- {}: task {}{} in {folder}{}",
            s.status,
            s.task
                .as_deref()
                .map_or_else(|| "?".to_owned(), |t| redacted_field(t, 80)),
            s.route
                .as_deref()
                .map(|r| format!(" ({})", redacted_field(r, 80)))
                .unwrap_or_default(),
            s.file_name
        );
        for q in &s.questions {
            let _ = writeln!(d, "  - Open question: {}", redacted_field(q, 300));
        }
    }
    let _ = writeln!(d);
}

/// What the next session should read first: `CLAUDE.md`, `.forge/state.json`, then
/// the files the transcript shows read (newest first, at most 20 in all).
fn reload(d: &mut String, i: &HandoffInputs<'_>) {
    let _ = writeln!(d, "## Reload");
    let mut reload: Vec<String> = Vec::new();
    if i.has_claude_md {
        reload.push("CLAUDE.md".to_owned());
    }
    if i.has_state_json {
        reload.push(".forge/state.json".to_owned());
    }
    if let Some(f) = &i.transcript {
        for shown in f.read.iter().rev().filter_map(|p| project_path(i.root, p)) {
            if !reload.contains(&shown) && reload.len() < 20 {
                reload.push(shown);
            }
        }
    }
    if reload.is_empty() {
        let _ = writeln!(d, "Nothing recorded; start from the files touched above.");
    }
    for p in &reload {
        let _ = writeln!(d, "- {p}");
    }
    let _ = writeln!(d);
}

/// The next steps, in order: the agent's own, the todo in progress, the next five
/// pending (or, with no todos, the task or request), the blocked Signals'
/// questions, uncommitted changes, and always re-reading the Reload files.
fn next_steps(i: &HandoffInputs<'_>) -> Vec<String> {
    let mut steps: Vec<String> = Vec::new();
    for step in i.notes.next_steps.iter().take(LIST_MAX) {
        let step = redacted_field(step, 600);
        if !step.is_empty() {
            steps.push(format!("From the session: {step}"));
        }
    }
    let todos = todos(i);
    for t in todos.iter().filter(|t| t.status == TodoStatus::InProgress) {
        steps.push(format!("Finish: {}", redacted_field(&t.content, 300)));
    }
    for t in todos
        .iter()
        .filter(|t| t.status == TodoStatus::Pending)
        .take(5)
    {
        steps.push(format!("Then: {}", redacted_field(&t.content, 300)));
    }
    if let Some(next) = story_of(i).and_then(super::story_sections::summary_next_step) {
        steps.push(format!(
            "Claude Code's summary said next (check it against what happened since): {next}"
        ));
    }
    if steps.is_empty() && given_task(i).is_some() {
        steps.push("Continue the task (under Current task).".to_owned());
    } else if steps.is_empty() {
        match quoted_request(i) {
            (label, Some(_)) if label == "Last request:" => {
                steps.push("Continue with the last request (under Current task).".to_owned());
            }
            (_, Some(_)) => steps.push("Continue the task (under Current task).".to_owned()),
            (_, None) => {}
        }
    }
    if let Some(s) = i.transcript.as_ref().map(|f| &f.story) {
        if !s.background.is_empty() {
            steps.push(format!(
                "Check on the background command{} under Loose ends: {} still running when this was written.",
                if s.background.len() == 1 { "" } else { "s" },
                if s.background.len() == 1 { "it was" } else { "they were" }
            ));
        }
        if s.failure.is_some() {
            steps.push(
                "Look at the last failing command under Loose ends: nothing like it has succeeded since."
                    .to_owned(),
            );
        }
    }
    let blocked: Vec<&OpenSignal> = i.signals.iter().filter(|s| s.status == "blocked").collect();
    if !blocked.is_empty() {
        let tasks: Vec<String> = blocked
            .iter()
            .map(|s| {
                s.task
                    .as_deref()
                    .map_or_else(|| "?".to_owned(), |t| redacted_field(t, 80))
            })
            .collect();
        steps.push(format!(
            "Answer the open questions of the blocked Signal{} ({}).",
            if blocked.len() == 1 { "" } else { "s" },
            tasks.join(", ")
        ));
    }
    if let Some(n) = i.uncommitted.filter(|n| *n > 0) {
        steps.push(format!(
            "Review and commit the {n} uncommitted change{}.",
            if n == 1 { "" } else { "s" }
        ));
    }
    steps.push("Re-read the files under Reload before editing.".to_owned());
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::handoff::entry::{HandoffEntry, split_front_matter};
    use crate::model::session::story::Story;
    use crate::model::session::transcript::Todo;
    use chrono::TimeZone;

    fn inputs(root: &Path) -> HandoffInputs<'_> {
        HandoffInputs {
            root,
            created_at: Utc.with_ymd_and_hms(2026, 11, 21, 10, 15, 2).unwrap(),
            session_id: Some("c41d7e02".into()),
            trigger: Trigger::ContextThreshold,
            context_pct: Some(74.0),
            level: Some(Level::L1),
            tokens: Some(148_000),
            window: Some(200_000),
            threshold: 70.0,
            transcript_path: Some("/home/a/.claude/projects/x/c41d7e02.jsonl".into()),
            transcript: Some(TranscriptFacts {
                todos: vec![
                    Todo {
                        id: None,
                        content: "Create pool".into(),
                        status: TodoStatus::Completed,
                    },
                    Todo {
                        id: None,
                        content: "Move handlers".into(),
                        status: TodoStatus::InProgress,
                    },
                    Todo {
                        id: None,
                        content: "Update tests".into(),
                        status: TodoStatus::Pending,
                    },
                ],
                touched: vec![
                    "/repo/src/db/pool.rs".into(),
                    "/repo/src/routes/users.rs".into(),
                ],
                read: vec!["/repo/docs/SPEC.md".into()],
                last_request: Some(
                    "Refactor the pool; the db url is postgres://app:hunter2@db/prod".into(),
                ),
                compactions: 0,
                lines: 10,
                story: Story::default(),
            }),
            transcript_cut: None,
            transcript_problem: None,
            branch: Some("main".into()),
            uncommitted: Some(3),
            changed_files: vec!["src/db/pool.rs".into(), "Cargo.toml".into()],
            recent_commits: vec!["abc1234 Add pool".into()],
            workflow: WorkflowState {
                phase: Some("build".into()),
                task: Some("T-012".into()),
            },
            signals: vec![OpenSignal {
                file_name: "agent-T-012-20261121-101502.md".into(),
                status: "blocked".into(),
                task: Some("T-012".into()),
                route: Some("builder→reviewer".into()),
                questions: vec!["Which pool size?".into()],
            }],
            has_claude_md: true,
            has_state_json: true,
            notes: AgentNotes::default(),
            task: None,
            budget: 8192,
        }
    }

    #[test]
    fn front_matter_has_exactly_the_design_keys() {
        let root = Path::new("/repo");
        let doc = compose(&inputs(root));
        let (fm, body) = split_front_matter(&doc);
        let keys: Vec<&str> = fm.keys().map(String::as_str).collect();
        let mut want = vec![
            "kind",
            "created_at",
            "session_id",
            "trigger",
            "context_used_pct",
            "level",
            "branch",
            "uncommitted_changes",
            "forge_phase",
            "forge_task",
        ];
        want.sort_unstable();
        assert_eq!(keys, want);
        assert_eq!(fm["kind"], "session-handoff");
        assert_eq!(fm["created_at"], "2026-11-21T10:15:02Z");
        assert_eq!(fm["context_used_pct"], "74");
        assert_eq!(fm["level"], "L1");
        assert_eq!(fm["uncommitted_changes"], "3");
        let headings: Vec<&str> = body.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(
            headings,
            [
                "# Session handoff — T-012",
                "## Why this handoff",
                "## Current task",
                "## Progress",
                "## Files touched",
                "## Git state",
                "## Open agent signals",
                "## Reload",
                "## Next steps",
            ]
        );
        // The listing code reads it back as a context-threshold session handoff.
        let name = file_name(Utc.with_ymd_and_hms(2026, 11, 21, 10, 15, 2).unwrap(), 1);
        let e = HandoffEntry::parse(root.join(&name), &doc, None).unwrap();
        assert_eq!(e.status_word(), "context-threshold");
        assert_eq!(e.branch(), Some("main"));
        assert_eq!(e.uncommitted(), Some(3));
    }

    #[test]
    fn body_is_filled_and_redacted() {
        let doc = compose(&inputs(Path::new("/repo")));
        assert!(!doc.contains("hunter2"), "{doc}");
        assert!(
            doc.contains("> Refactor the pool; the db url is postgres://app:[REDACTED]@db/prod")
        );
        assert!(doc.contains("- [x] Create pool\n- [~] Move handlers\n- [ ] Update tests"));
        assert!(doc.contains("- src/routes/users.rs\n- src/db/pool.rs\n"));
        assert!(doc.contains("Also changed in the work tree:\n- Cargo.toml"));
        assert!(doc.contains("Branch main, 3 uncommitted changes."));
        assert!(doc.contains("- abc1234 Add pool"));
        assert!(doc.contains(
            "- blocked: task T-012 (builder→reviewer) in .forge/handoffs/agent-T-012-20261121-101502.md\n  - Open question: Which pool size?"
        ));
        assert!(doc.contains("## Reload\n- CLAUDE.md\n- .forge/state.json\n- docs/SPEC.md\n"));
        assert!(doc.contains("1. Finish: Move handlers\n2. Then: Update tests\n3. Answer"));
        assert!(doc.contains("Tokens in context: 148,000 of 200,000."));
    }

    #[test]
    fn the_agents_decisions_and_steps_come_with_forges_facts() {
        let root = Path::new("/repo");
        let plain = compose(&inputs(root));
        assert!(!plain.contains("## Decisions"), "{plain}");
        assert!(!plain.contains("From the session"), "{plain}");
        let mut i = inputs(root);
        i.notes = AgentNotes {
            decisions: vec![
                (
                    "Pool starts in main".into(),
                    "the router needs it\nfirst".into(),
                ),
                ("No retries".into(), String::new()),
            ],
            next_steps: vec!["Move the handlers".into()],
            notes: Some("db at postgres://app:hunter2@db/prod\n## not a heading".into()),
        };
        let doc = compose(&i);
        assert!(
            doc.contains("## Decisions (from the session)\n- Pool starts in main — why: the router needs it first\n- No retries\n"),
            "{doc}"
        );
        assert!(doc.contains("## Notes from the session\n> db at "), "{doc}");
        assert!(!doc.contains("hunter2"), "{doc}");
        // A line of the notes cannot start a section of its own.
        assert!(doc.contains("> ## not a heading"), "{doc}");
        let steps = doc.split("## Next steps\n").nth(1).unwrap();
        assert!(
            steps.starts_with("1. From the session: Move the handlers\n2. Finish: Move handlers"),
            "{steps}"
        );
        // The forge facts are all still there.
        for h in [
            "## Progress",
            "## Files touched",
            "## Git state",
            "## Reload",
        ] {
            assert!(doc.contains(h), "{h}");
        }
    }

    #[test]
    fn unknowns_leave_values_empty_and_say_so() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.context_pct = None;
        i.level = None;
        i.branch = None;
        i.uncommitted = None;
        i.session_id = None;
        i.workflow = WorkflowState::default();
        i.transcript = None;
        i.transcript_problem = Some("no transcript path known".into());
        i.signals.clear();
        i.changed_files.clear();
        i.trigger = Trigger::Manual;
        let doc = compose(&i);
        let (fm, _) = split_front_matter(&doc);
        assert_eq!(fm["context_used_pct"], "");
        assert_eq!(fm["branch"], "");
        assert!(doc.contains("# Session handoff — repo"));
        assert!(doc.contains("Written on request; the context size was not known."));
        assert!(!doc.contains("unknown."), "{doc}");
        // Every trigger says it in words, never "at unknown".
        for (trigger, words) in [
            (
                Trigger::ContextThreshold,
                "Context reached the handoff threshold of 70% (its exact size was not known).",
            ),
            (
                Trigger::PreCompact,
                "Claude Code is compacting the context (its size was not known);",
            ),
            (
                Trigger::SessionEnd,
                "The session ended; the context size was not known.",
            ),
        ] {
            i.trigger = trigger;
            let doc = compose(&i);
            assert!(doc.contains(words), "{doc}");
            assert!(!doc.contains("unknown"), "{doc}");
        }
        assert!(doc.contains("(Transcript not read: no transcript path known.)"));
        assert!(doc.contains("## Open agent signals\nNone."));
    }

    const DESIGN_KEYS: [&str; 10] = [
        "kind",
        "created_at",
        "session_id",
        "trigger",
        "context_used_pct",
        "level",
        "branch",
        "uncommitted_changes",
        "forge_phase",
        "forge_task",
    ];

    /// The front matter's keys in file order (forge's reader sorts them).
    fn keys_in_order(doc: &str) -> Vec<String> {
        let fm = doc
            .strip_prefix("---\n")
            .unwrap()
            .split("\n---\n")
            .next()
            .unwrap();
        fm.lines()
            .map(|l| l.split_once(':').unwrap().0.to_owned())
            .collect()
    }

    #[test]
    fn every_value_reads_back_as_written() {
        for v in [
            "fix \"pool\"",
            "it's",
            "quoted'",
            "\"both\"",
            "'single'",
            "T-9: fix pool # urgent",
            "a \\ b",
            "plain",
        ] {
            let written = yaml_scalar(v);
            assert_eq!(
                crate::model::handoff::entry::unquote(&written),
                v,
                "{v} → {written}"
            );
        }
    }

    #[test]
    fn yaml_scalar_quotes_only_what_needs_it() {
        for plain in [
            "T-012",
            "build",
            "feature/pool-size",
            "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21",
            "C#",
            "fix:colon",
            "x\"y",
            "v1.2-beta",
            "yesterday",
            "",
        ] {
            assert_eq!(yaml_scalar(plain), plain, "{plain:?}");
        }
        for (text, quoted) in [
            ("T-9: fix pool # urgent", r#""T-9: fix pool # urgent""#),
            ("build: phase 2", r#""build: phase 2""#),
            ("yes", r#""yes""#),
            ("Off", r#""Off""#),
            ("~", r#""~""#),
            ("null", r#""null""#),
            ("1.0", r#""1.0""#),
            ("42", r#""42""#),
            ("-7", r#""-7""#),
            ("0x1F", r#""0x1F""#),
            ("12:30", r#""12:30""#),
            (".inf", r#"".inf""#),
            ("2026-11-21", r#""2026-11-21""#),
            ("[wip] pool", r#""[wip] pool""#),
            ("{a}", r#""{a}""#),
            ("&anchor", r#""&anchor""#),
            ("*alias", r#""*alias""#),
            ("!tag", r#""!tag""#),
            ("| pipe", r#""| pipe""#),
            ("> fold", r#""> fold""#),
            ("'single'", r#""'single'""#),
            ("\"quoted\" \\ back", r#""\"quoted\" \\ back""#),
            ("%TAG", r#""%TAG""#),
            ("@at", r#""@at""#),
            ("`tick`", r#""`tick`""#),
            ("- item", r#""- item""#),
            ("-", r#""-""#),
            ("ends with:", r#""ends with:""#),
            ("#hash", r##""#hash""##),
            ("=", r#""=""#),
            (" padded ", r#"" padded ""#),
            ("two\nlines: x", r#""two lines: x""#),
        ] {
            assert_eq!(yaml_scalar(text), quoted, "{text:?}");
            // Forge's own reader gives the text back (folded to one line).
            let (fm, _) = split_front_matter(&format!("---\nforge_task: {quoted}\n---\n"));
            assert_eq!(fm["forge_task"], single_line(text), "{text:?}");
        }
    }

    #[test]
    fn front_matter_values_are_valid_yaml_and_read_back() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.workflow = WorkflowState {
            phase: Some("build: phase 2".into()),
            task: Some("T-9: fix pool # urgent".into()),
        };
        i.branch = Some("yes".into());
        i.session_id = Some("1.0".into());
        let doc = compose(&i);
        assert!(doc.contains("\nforge_phase: \"build: phase 2\"\n"), "{doc}");
        assert!(
            doc.contains("\nforge_task: \"T-9: fix pool # urgent\"\n"),
            "{doc}"
        );
        assert!(doc.contains("\nbranch: \"yes\"\n"), "{doc}");
        assert!(doc.contains("\nsession_id: \"1.0\"\n"), "{doc}");
        assert_eq!(keys_in_order(&doc), DESIGN_KEYS);
        let (fm, _) = split_front_matter(&doc);
        assert_eq!(fm["forge_phase"], "build: phase 2");
        assert_eq!(fm["forge_task"], "T-9: fix pool # urgent");
        assert_eq!(fm["branch"], "yes");
        assert_eq!(fm["session_id"], "1.0");
        let e = HandoffEntry::parse(root.join("handoff-20261121-101502.md"), &doc, None).unwrap();
        assert_eq!(e.branch(), Some("yes"));
        assert_eq!(e.status_word(), "context-threshold");
    }

    #[test]
    fn control_characters_cannot_break_front_matter_or_headings() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.workflow = WorkflowState {
            phase: Some("build\r\n".into()),
            task: Some("T-9\n---\nkind: evil\n# Injected heading\x1b[2J".into()),
        };
        i.branch = Some("main\nlevel: L3\u{202E}".into());
        let doc = compose(&i);
        assert_eq!(keys_in_order(&doc), DESIGN_KEYS);
        let (fm, body) = split_front_matter(&doc);
        assert_eq!(fm["kind"], "session-handoff");
        assert_eq!(fm["level"], "L1");
        assert_eq!(fm["forge_phase"], "build");
        assert_eq!(fm["forge_task"], "T-9 --- kind: evil # Injected heading");
        assert_eq!(fm["branch"], "main level: L3");
        assert!(!doc.contains('\x1b') && !doc.contains('\r'), "{doc:?}");
        let headings: Vec<&str> = body.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(headings.len(), 9, "{headings:?}");
        assert_eq!(
            headings[0],
            "# Session handoff — T-9 --- kind: evil # Injected heading"
        );
    }

    #[test]
    fn only_project_files_are_listed() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        let f = i.transcript.as_mut().unwrap();
        f.read = vec![
            "/home/a/.ssh/id_rsa".into(),
            "/repo".into(),
            "/repo/".into(),
            "/repo/../etc/passwd".into(),
            "~/.aws/credentials".into(),
            "../outside.txt".into(),
            "/repository-next-door/x.rs".into(),
            "/repo/docs/SPEC.md".into(),
            "src/lib.rs".into(),
        ];
        f.touched = vec!["/etc/hosts".into(), "/repo/src/db/pool.rs".into()];
        let doc = compose(&i);
        for leak in [
            "id_rsa",
            "passwd",
            "credentials",
            "outside",
            "hosts",
            "next-door",
        ] {
            assert!(!doc.contains(leak), "{leak} listed:\n{doc}");
        }
        assert!(
            doc.contains(
                "## Reload\n- CLAUDE.md\n- .forge/state.json\n- src/lib.rs\n- docs/SPEC.md\n\n"
            ),
            "{doc}"
        );
        assert!(
            doc.contains("## Files touched\n- src/db/pool.rs\n"),
            "{doc}"
        );
        assert_eq!(
            project_path(root, "/repo/./a/b.rs").as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(project_path(root, "./"), None);
    }

    #[test]
    fn a_cut_request_says_so() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        let long = format!("start {} end-marker", "word ".repeat(400));
        i.transcript.as_mut().unwrap().last_request = Some(long);
        let doc = compose(&i);
        assert!(!doc.contains("end-marker"));
        assert!(
            doc.contains("…\n(cut; the full request is in the transcript)\n"),
            "{doc}"
        );
        // A short request is not marked.
        let doc = compose(&inputs(root));
        assert!(!doc.contains("(cut;"), "{doc}");
    }

    #[test]
    fn the_title_is_the_task_else_the_last_request_cut() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.workflow.task = None;
        i.transcript.as_mut().unwrap().last_request = Some(
            "  Fix the flaky login test with api_key=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789 \n and more words that go on and on"
                .into(),
        );
        let doc = compose(&i);
        let title = doc
            .lines()
            .find(|l| l.starts_with("# Session handoff — "))
            .unwrap();
        assert!(
            title.starts_with("# Session handoff — Fix the flaky login test"),
            "{title}"
        );
        assert!(!title.contains("sk-ant"), "redacted: {title}");
        assert!(
            title.chars().count() <= "# Session handoff — ".len() + 60,
            "{title}"
        );
        // With a task, the task.
        i.workflow.task = Some("T-77".into());
        assert!(compose(&i).contains("# Session handoff — T-77\n"));
    }

    #[test]
    fn a_relay_handoff_carries_the_chains_task_not_the_continuation_prompt() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.trigger = Trigger::Relay;
        i.workflow.task = None;
        i.transcript.as_mut().unwrap().last_request =
            Some("You are continuing a task that an earlier Claude Code session started …".into());
        i.task = Some("Build the widget: WIDGET-TASK".into());
        i.transcript.as_mut().unwrap().todos.clear();
        let doc = compose(&i);
        assert!(
            doc.contains("# Session handoff — Build the widget: WIDGET-TASK\n"),
            "{doc}"
        );
        assert!(
            doc.contains("The task (given to `forge run`):\n> Build the widget: WIDGET-TASK\n"),
            "{doc}"
        );
        assert!(!doc.contains("You are continuing"), "{doc}");
        assert!(!doc.contains("Last request"), "{doc}");
        assert!(
            doc.contains("Continue the task (under Current task)."),
            "{doc}"
        );
    }

    /// A long session's story: many requests, a long plan, a summary, and a Reload
    /// list of forty files.
    fn long_story(i: &mut HandoffInputs<'_>) {
        use crate::model::session::story::{ApprovedPlan, ClientSummary, Said};
        let f = i.transcript.as_mut().unwrap();
        let said = |n: usize| Said {
            text: format!(
                "request {n}: {}",
                "please keep going with the pool ".repeat(6)
            ),
            at: Some("2026-11-21T10:00:00Z".into()),
            times: 1,
            interrupted: false,
        };
        f.story.first = Some(Said {
            text: "Refactor the pool and move every handler to it".into(),
            ..said(0)
        });
        f.story.requests = (1..80).map(said).collect();
        f.story.plan = Some(ApprovedPlan {
            text: (0..200)
                .map(|n| format!("{n}. a step of the plan\n"))
                .collect(),
            at: None,
            edited: false,
        });
        f.story.summary = Some(ClientSummary {
            text: "Summary:\n7. Pending Tasks:\n   - PENDING-ONE\n9. Optional Next Step:\n   NEXT-ONE\n"
                .into(),
            at: Some("2026-11-21T10:00:00Z".into()),
            source: "transcript",
        });
        f.compactions = 1;
        f.read = (0..40).map(|n| format!("/repo/src/file{n}.rs")).collect();
    }

    #[test]
    fn a_long_session_stays_within_its_budget_dropping_sections_by_rank() {
        let root = Path::new("/repo");
        let mut i = inputs(root);
        i.workflow.task = None;
        long_story(&mut i);
        let full = compose(&HandoffInputs {
            budget: 64 * 1024,
            ..i.clone()
        });
        assert!(full.len() > 8 * 1024, "the premise: {} bytes", full.len());
        let doc = compose(&i);
        assert!(doc.len() <= 8 * 1024, "{} bytes", doc.len());
        // The headings stay; the first to give up their text are Reload and the
        // Signals; the task, the summary's pending work and the steps stay.
        for h in [
            "## Why this handoff",
            "## Current task",
            "## Reload",
            "## Open agent signals",
            "## Next steps",
        ] {
            assert!(doc.contains(h), "{h}:\n{doc}");
        }
        assert!(
            doc.contains("## Reload\n(Left out to keep this handoff within its 8 KiB budget: [handoffs] max_bytes.)\n"),
            "{doc}"
        );
        assert!(
            doc.contains("# Session handoff — Refactor the pool and move every handler to it\n")
        );
        assert!(doc.contains("> - PENDING-ONE\n"), "{doc}");
        assert!(
            doc.contains(
                "Claude Code's summary said next (check it against what happened since): NEXT-ONE"
            ),
            "{doc}"
        );
        // The requests kept are the newest.
        assert!(doc.contains("request 79:"), "{doc}");
        assert!(!doc.contains("request 1:"), "{doc}");
        // A tighter budget drops more, in the same order, still whole lines.
        let tight = compose(&HandoffInputs {
            budget: 3 * 1024,
            ..i.clone()
        });
        assert!(tight.len() <= 3 * 1024, "{} bytes", tight.len());
        assert!(tight.contains("## Plan\n(Left out"), "{tight}");
        assert!(tight.contains("> - PENDING-ONE\n"), "{tight}");
    }

    #[test]
    fn names_get_a_suffix_for_the_same_second() {
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(file_name(t, 1), "handoff-20260102-030405.md");
        assert_eq!(file_name(t, 3), "handoff-20260102-030405-3.md");
        assert_eq!(
            crate::model::handoff::entry::stamp_from_file_name(&file_name(t, 3)),
            Some(t)
        );
        assert_eq!(Trigger::parse("pre-compact"), Some(Trigger::PreCompact));
        assert_eq!(Trigger::parse("nope"), None);
    }
}
