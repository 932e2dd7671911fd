//! The Signal block of an agent handoff (docs/design.md#agent-handoffs-and-signals).
//!
//! An agent handoff is Markdown with a header (`From:`, `To:`, `Timestamp:`, `Task:`),
//! sections, and a fenced JSON Signal under `### Signal`. Parsing never fails: a
//! missing or malformed Signal becomes [`SignalParse::Malformed`] with the reason,
//! which the dashboard shows as a warning and which never counts as complete.

use serde::Serialize;
use serde_json::Value;

/// The three statuses a Signal may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SignalStatus {
    /// The task is done.
    Complete,
    /// Some of it is done.
    Partial,
    /// The agent cannot go on without an answer.
    Blocked,
}

impl SignalStatus {
    /// Every valid status, in the order they are listed to users.
    pub(crate) const ALL: [Self; 3] = [Self::Complete, Self::Partial, Self::Blocked];

    /// The lowercase name used in Signal JSON.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Partial => "partial",
            Self::Blocked => "blocked",
        }
    }

    /// Parses a status name (exact, lowercase).
    pub(crate) fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|st| st.as_str() == s)
    }
}

impl std::fmt::Display for SignalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A valid Signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Signal {
    /// The agent that wrote it.
    pub from: String,
    /// The agent it is for.
    pub to: String,
    /// The task id.
    pub task_id: String,
    /// complete / partial / blocked.
    pub status: SignalStatus,
    /// Files the agent changed (names only).
    pub files_modified: Vec<String>,
    /// The open questions, when given as a list.
    pub open_questions: Vec<String>,
    /// How many questions are open (the list's length, or the count given).
    pub(crate) open_question_count: u64,
    /// The `blocking` field.
    pub blocking: bool,
}

impl Signal {
    /// Blocked when `status` is `blocked` or `blocking` is true.
    pub(crate) fn is_blocked(&self) -> bool {
        self.status == SignalStatus::Blocked || self.blocking
    }
}

/// The outcome of reading an agent handoff's Signal.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum SignalParse {
    /// A well-formed Signal. Boxed: a [`Signal`] is 130 bytes of fields, the reason
    /// of a malformed one 24, and the dashboard keeps one of these per agent handoff
    /// (the JSON is the same).
    Valid(Box<Signal>),
    /// No Signal, or one that cannot be trusted; `reason` says why.
    Malformed {
        /// What is wrong, in words for a person.
        reason: String,
    },
}

impl SignalParse {
    /// The Signal when valid.
    pub fn signal(&self) -> Option<&Signal> {
        match self {
            Self::Valid(s) => Some(s),
            Self::Malformed { .. } => None,
        }
    }
    /// Whether this Signal blocks (a malformed one does not block, but is a warning).
    pub fn is_blocked(&self) -> bool {
        self.signal().is_some_and(Signal::is_blocked)
    }
    /// A short status word: complete/partial/blocked/malformed.
    pub fn status_word(&self) -> &'static str {
        match self {
            Self::Valid(s) if s.is_blocked() => "blocked",
            Self::Valid(s) => s.status.as_str(),
            Self::Malformed { .. } => "malformed",
        }
    }
}

/// The header lines of an agent handoff (`From:`, `To:`, `Timestamp:`, `Task:`,
/// `Plan:`, and the `Worktree:` and `Branch:` it was written from).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct AgentHeader {
    /// `From:`.
    pub(crate) from: Option<String>,
    /// `To:`.
    pub(crate) to: Option<String>,
    /// `Timestamp:`.
    pub(crate) timestamp: Option<String>,
    /// `Task:`.
    pub(crate) task: Option<String>,
    /// `Plan:`.
    pub(crate) plan: Option<String>,
    /// `Worktree:`: the work tree the writer ran in (forge writes it; a handoff
    /// written by hand may not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) worktree: Option<String>,
    /// `Branch:`: that work tree's branch when it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) branch: Option<String>,
}

/// The lines under `### <heading>` of an agent handoff (bullets without their `- `),
/// up to the next heading, at most `max`; `(none)` is nothing. Each on one line,
/// without control characters: the answer of a resolving Signal is its first
/// `Findings` item.
pub(crate) fn section_items(text: &str, heading: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("###") {
            if inside {
                break;
            }
            inside = h.trim().eq_ignore_ascii_case(heading);
            continue;
        }
        if !inside || t.is_empty() {
            continue;
        }
        let item = t.strip_prefix("- ").unwrap_or(t);
        if item != "(none)" && out.len() < max {
            out.push(crate::model::text::sanitize::single_line_trimmed(item));
        }
    }
    out
}

/// Reads the header lines that come before the first `###` section.
pub(crate) fn parse_header(text: &str) -> AgentHeader {
    let mut h = AgentHeader::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("###") {
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        let slot = match key.trim() {
            "From" => &mut h.from,
            "To" => &mut h.to,
            "Timestamp" => &mut h.timestamp,
            "Task" => &mut h.task,
            "Plan" => &mut h.plan,
            "Worktree" => &mut h.worktree,
            "Branch" => &mut h.branch,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(value.to_owned());
        }
    }
    h
}

/// Finds the JSON text of the Signal: the first fenced block after a `### Signal`
/// heading, else the last ```` ```json ```` block of the document. An unterminated fence
/// runs to the end of the text. Returns `None` when there is no fenced JSON.
pub fn extract_signal_json(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let heading = lines.iter().position(|l| {
        l.trim()
            .trim_start_matches('#')
            .trim()
            .eq_ignore_ascii_case("signal")
            && l.trim().starts_with('#')
    });
    let is_fence = |l: &str| l.trim_start().starts_with("```");
    let start = match heading {
        Some(h) => lines
            .iter()
            .skip(h + 1)
            .position(|l| is_fence(l))
            .map(|i| i + h + 1),
        None => lines
            .iter()
            .rposition(|l| l.trim_start().starts_with("```json")),
    }?;
    let body: Vec<&str> = lines
        .iter()
        .skip(start + 1)
        .take_while(|l| !is_fence(l))
        .copied()
        .collect();
    Some(body.join("\n"))
}

/// The `task_id` of a Signal whose JSON parses, whether or not it is valid otherwise.
pub(crate) fn lenient_task_id(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(&extract_signal_json(text)?).ok()?;
    v.get("task_id")?.as_str().map(str::to_owned)
}

/// Parses the Signal of an agent handoff. `header` fills `from`/`to`/`task_id` when
/// the JSON leaves them out.
pub fn parse_signal(text: &str) -> SignalParse {
    let malformed = |reason: String| SignalParse::Malformed { reason };
    let Some(json) = extract_signal_json(text) else {
        return malformed("no Signal block (a fenced ```json block under ### Signal)".into());
    };
    let value: Value = match serde_json::from_str(&json) {
        Ok(v) => v,
        Err(e) => return malformed(format!("Signal JSON does not parse: {e}")),
    };
    let Some(obj) = value.as_object() else {
        return malformed("Signal JSON is not an object".into());
    };
    let header = parse_header(text);
    let status = match obj.get("status") {
        Some(Value::String(s)) => match SignalStatus::parse(s) {
            Some(st) => st,
            None => {
                return malformed(format!(
                    "unknown status \"{s}\" (valid: complete, partial, blocked)"
                ));
            }
        },
        Some(other) => return malformed(format!("status must be a string, found {other}")),
        None => return malformed("Signal has no status".into()),
    };
    let text_field = |key: &str, fallback: Option<&String>| -> Result<String, String> {
        match obj.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => fallback
                .cloned()
                .ok_or_else(|| format!("Signal has no {key}")),
            Some(other) => Err(format!("{key} must be a string, found {other}")),
        }
    };
    let from = match text_field("from", header.from.as_ref()) {
        Ok(v) => v,
        Err(e) => return malformed(e),
    };
    let to = match text_field("to", header.to.as_ref()) {
        Ok(v) => v,
        Err(e) => return malformed(e),
    };
    let task_id = match text_field("task_id", header.task.as_ref()) {
        Ok(v) => v,
        Err(e) => return malformed(e),
    };
    let files_modified = match obj.get("files_modified") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => match strings(items) {
            Some(v) => v,
            None => return malformed("files_modified must list strings".into()),
        },
        Some(other) => {
            return malformed(format!("files_modified must be a list, found {other}"));
        }
    };
    let (open_questions, open_question_count) = match obj.get("open_questions") {
        None | Some(Value::Null) => (Vec::new(), 0),
        Some(Value::Array(items)) => match strings(items) {
            Some(v) => {
                let n = v.len() as u64;
                (v, n)
            }
            None => return malformed("open_questions must list strings".into()),
        },
        Some(Value::Number(n)) => match n.as_u64() {
            Some(count) => (Vec::new(), count),
            None => {
                return malformed(format!(
                    "open_questions count must be a whole number, found {n}"
                ));
            }
        },
        Some(other) => {
            return malformed(format!(
                "open_questions must be a list or a count, found {other}"
            ));
        }
    };
    let blocking = match obj.get("blocking") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return malformed(format!("blocking must be true or false, found {other}")),
    };
    SignalParse::Valid(Box::new(Signal {
        from,
        to,
        task_id,
        status,
        files_modified,
        open_questions,
        open_question_count,
        blocking,
    }))
}

fn strings(items: &[Value]) -> Option<Vec<String>> {
    items
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCKED: &str =
        include_str!("../../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
    const COMPLETE: &str =
        include_str!("../../../tests/fixtures/handoffs/agent-T-010-20261120-170944.md");
    const BROKEN: &str =
        include_str!("../../../tests/fixtures/handoffs/agent-T-011-20261121-090102.md");

    #[test]
    fn blocked_fixture_is_blocked_with_questions() {
        let p = parse_signal(BLOCKED);
        let s = p.signal().unwrap();
        assert_eq!(s.status, SignalStatus::Blocked);
        assert!(s.blocking && p.is_blocked());
        assert_eq!(s.task_id, "T-012");
        assert_eq!(s.files_modified, vec!["src/db/pool.rs", "src/main.rs"]);
        assert_eq!(
            s.open_questions,
            vec!["Should the pool size come from the environment or from config.toml?"]
        );
        assert_eq!(s.open_question_count, 1);
    }

    #[test]
    fn count_of_open_questions_is_accepted() {
        let p = parse_signal(COMPLETE);
        let s = p.signal().unwrap();
        assert_eq!(s.status, SignalStatus::Complete);
        assert_eq!(s.open_question_count, 0);
        assert!(s.open_questions.is_empty());
        assert!(!p.is_blocked());
        assert_eq!(p.status_word(), "complete");
    }

    #[test]
    fn truncated_json_is_malformed_with_reason() {
        let p = parse_signal(BROKEN);
        match &p {
            SignalParse::Malformed { reason } => {
                assert!(reason.contains("does not parse"), "{reason}");
            }
            SignalParse::Valid(_) => panic!("truncated Signal accepted"),
        }
        assert_eq!(p.status_word(), "malformed");
        assert!(!p.is_blocked());
    }

    #[test]
    fn every_malformation_has_a_reason() {
        let wrap = |json: &str| {
            format!(
                "## FORGE AGENT HANDOFF\nFrom: a\nTo: b\nTask: T-1\n### Signal\n```json\n{json}\n```\n"
            )
        };
        let cases = [
            (r#"{"status":"done-ish"}"#, "unknown status \"done-ish\""),
            (r#"{"status":3}"#, "status must be a string"),
            (r#"{"from":"a"}"#, "no status"),
            (r#"[1,2]"#, "not an object"),
            (
                r#"{"status":"partial","open_questions":"why?"}"#,
                "list or a count",
            ),
            (
                r#"{"status":"partial","open_questions":-1}"#,
                "whole number",
            ),
            (
                r#"{"status":"partial","files_modified":"a.rs"}"#,
                "must be a list",
            ),
            (r#"{"status":"partial","blocking":"yes"}"#, "true or false"),
            (r#"{"status":"partial","to":7}"#, "to must be a string"),
        ];
        for (json, want) in cases {
            match parse_signal(&wrap(json)) {
                SignalParse::Malformed { reason } => {
                    assert!(reason.contains(want), "{json}: {reason}");
                }
                SignalParse::Valid(s) => panic!("{json} accepted as {s:?}"),
            }
        }
        match parse_signal("## FORGE AGENT HANDOFF\nno signal here") {
            SignalParse::Malformed { reason } => assert!(reason.contains("no Signal")),
            SignalParse::Valid(_) => panic!(),
        }
    }

    #[test]
    fn header_fills_missing_names_and_blocking_flag_blocks() {
        let text = "From: planner\nTo: builder\nTask: T-9\n### Signal\n```json\n{\"status\":\"partial\",\"blocking\":true}\n```";
        let p = parse_signal(text);
        let s = p.signal().unwrap();
        assert_eq!(
            (s.from.as_str(), s.to.as_str(), s.task_id.as_str()),
            ("planner", "builder", "T-9")
        );
        assert!(p.is_blocked());
        assert_eq!(p.status_word(), "blocked");
    }

    #[test]
    fn malformed_signal_still_names_its_task() {
        let text = "### Signal\n```json\n{\"task_id\":\"T-9\",\"status\":\"done\"}\n```";
        assert!(matches!(parse_signal(text), SignalParse::Malformed { .. }));
        assert_eq!(lenient_task_id(text).as_deref(), Some("T-9"));
        let e = crate::model::handoff::entry::HandoffEntry::parse(
            "/h/agent-T-9-20261121-101502.md".into(),
            text,
            None,
        )
        .unwrap();
        assert_eq!(e.task(), Some("T-9"));
    }

    #[test]
    fn header_parser_reads_fixture() {
        let h = parse_header(BLOCKED);
        assert_eq!(h.from.as_deref(), Some("builder"));
        assert_eq!(h.to.as_deref(), Some("reviewer"));
        assert_eq!(h.task.as_deref(), Some("T-012"));
        assert_eq!(h.plan.as_deref(), Some("plans/pool-refactor.md"));
        assert_eq!(h.timestamp.as_deref(), Some("2026-11-21T10:15:02Z"));
    }
}
