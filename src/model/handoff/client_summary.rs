//! The parts of Claude Code's compaction summary a continuation needs: its pending
//! tasks, its current work and its next step (and the original request as the
//! summary states it). The client asks the model for numbered sections (the pinned
//! client's prompts: "1. Primary Request and Intent:", "7. Pending Tasks:", "8.
//! Current Work:", "9. Optional Next Step:", or for a partial summary "8. Work
//! Completed:", "9. Context for Continuing Work:"); the summary it stores puts
//! "Summary:" before them, after the model's "Analysis:". Pure.

/// The sections read from one summary (each as written, trimmed; `None` when the
/// summary has no such section).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SummaryParts {
    /// "Primary Request and Intent".
    pub(crate) request: Option<String>,
    /// "Pending Tasks".
    pub(crate) pending: Option<String>,
    /// "Current Work" (or "Work Completed").
    pub(crate) current: Option<String>,
    /// "Optional Next Step" (or "Context for Continuing Work").
    pub(crate) next: Option<String>,
}

impl SummaryParts {
    /// Whether no section was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.request.is_none()
            && self.pending.is_none()
            && self.current.is_none()
            && self.next.is_none()
    }
}

/// Where a section's text goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Request,
    Pending,
    Current,
    Next,
    Other,
}

/// The section a line opens (`7. Pending Tasks:` → Pending), with what follows the
/// colon on the same line.
fn heading(line: &str) -> Option<(Part, &str)> {
    let t = line.trim_start().trim_start_matches(['#', '*', ' ']);
    let digits = t.find(|c: char| !c.is_ascii_digit())?;
    if digits == 0 || digits > 2 {
        return None;
    }
    let rest = t.get(digits..)?.strip_prefix('.')?.trim_start();
    let (name, after) = rest.split_once(':')?;
    let name = name.trim().trim_matches('*').trim().to_ascii_lowercase();
    if name.is_empty() || name.len() > 40 {
        return None;
    }
    let part = match name.as_str() {
        "primary request and intent" => Part::Request,
        "pending tasks" => Part::Pending,
        "current work" | "work completed" => Part::Current,
        "optional next step" | "next step" | "next steps" | "context for continuing work" => {
            Part::Next
        }
        _ => Part::Other,
    };
    Some((part, after.trim_start_matches('*').trim()))
}

/// The client's own words after the model's summary (where to find the full
/// transcript, "continue without asking"): not part of any section.
fn is_client_trailer(line: &str) -> bool {
    let t = line.trim_start();
    [
        "If you need specific details from before compaction",
        "Please continue the conversation from where we left",
        "Continue the conversation from where it left off",
        "Pick up the last task as if the break never happened",
        "The messages after this summary are the most recent messages",
    ]
    .iter()
    .any(|s| t.starts_with(s))
}

/// Reads the sections of a summary's text.
pub(crate) fn parse(text: &str) -> SummaryParts {
    // The sections are after "Summary:" (or `<summary>`) when the text has one: the
    // analysis before it numbers its own points.
    let body = ["\nSummary:\n", "<summary>"]
        .iter()
        .find_map(|m| text.find(m).map(|i| &text[i + m.len()..]))
        .unwrap_or(text);
    let body = body.split("</summary>").next().unwrap_or(body);
    let mut parts = SummaryParts::default();
    let mut current: Option<(Part, Vec<&str>)> = None;
    let finish = |cur: Option<(Part, Vec<&str>)>, parts: &mut SummaryParts| {
        let Some((part, lines)) = cur else { return };
        let text = dedent(&lines);
        if text.is_empty() {
            return;
        }
        let slot = match part {
            Part::Request => &mut parts.request,
            Part::Pending => &mut parts.pending,
            Part::Current => &mut parts.current,
            Part::Next => &mut parts.next,
            Part::Other => return,
        };
        if slot.is_none() {
            *slot = Some(text);
        }
    };
    for line in body.lines() {
        if is_client_trailer(line) {
            finish(current.take(), &mut parts);
            continue;
        }
        if let Some((part, after)) = heading(line) {
            finish(current.take(), &mut parts);
            let mut lines = Vec::new();
            if !after.is_empty() {
                lines.push(after);
            }
            current = Some((part, lines));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    finish(current, &mut parts);
    parts
}

/// The lines with their common indentation removed and blank lines at either end
/// dropped.
fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let out: Vec<&str> = lines
        .iter()
        .map(|l| {
            l.get(indent.min(l.len() - l.trim_start().len())..)
                .unwrap_or("")
        })
        .map(str::trim_end)
        .collect();
    out.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_sessions_summary_gives_its_pending_work_and_next_step() {
        // The isCompactSummary record of tests/fixtures/real-transcripts/8463c716….jsonl.
        let transcript = include_str!(
            "../../../tests/fixtures/real-transcripts/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
        );
        let rec: serde_json::Value = transcript
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .find(|r: &serde_json::Value| r["isCompactSummary"] == true)
            .unwrap();
        let text = rec["message"]["content"].as_str().unwrap();
        let p = parse(text);
        let pending = p.pending.unwrap();
        assert!(
            pending.starts_with("- **spotter-fum.3** (IN PROGRESS): \"Integrate highlight.js"),
            "{pending}"
        );
        assert!(pending.contains("spotter-fum.4** (OPEN"), "{pending}");
        assert!(pending.contains("regression coverage"), "{pending}");
        let current = p.current.unwrap();
        assert!(
            current.starts_with("Working on `spotter-fum.3`."),
            "{current}"
        );
        let next = p.next.unwrap();
        assert!(
            next.starts_with("Complete spotter-fum.3 by running `mix compile`"),
            "{next}"
        );
        // The client's own words after the summary are not the model's next step.
        assert!(!next.contains("read the full transcript"), "{next}");
        assert!(!next.contains("Please continue"), "{next}");
        assert!(
            p.request
                .unwrap()
                .starts_with("User asked to work on bead `spotter-fum`"),
        );
        // The analysis's numbered points before "Summary:" are not sections.
        assert!(!pending.contains("Task Discovery"), "{pending}");
    }

    #[test]
    fn the_partial_summary_and_the_raw_tags_read_too() {
        let text = "<analysis>\n1. Pending Tasks: not this\n</analysis>\n<summary>\n1. Primary Request and Intent: ship it\n7. Pending Tasks:\n   - write tests\n8. Work Completed:\n   Pool done.\n9. Context for Continuing Work:\n   The pool lives in src/db.rs.\n</summary>";
        assert_eq!(
            parse(text),
            SummaryParts {
                request: Some("ship it".into()),
                pending: Some("- write tests".into()),
                current: Some("Pool done.".into()),
                next: Some("The pool lives in src/db.rs.".into()),
            }
        );
        // The mock's one-line form, and a text with no sections at all.
        let mock = parse(
            "1. Primary Request and Intent: exercise forge's hooks.\n2. Pending Tasks: none.",
        );
        assert_eq!(mock.pending.as_deref(), Some("none."));
        assert!(parse("Just prose about the conversation.").is_empty());
    }
}
