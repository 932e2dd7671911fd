//! A handoff's byte budget (`[handoffs] max_bytes`, 8 KiB by default): when the
//! document would be longer, whole sections give up their text in a stated order
//! ([`DROP_ORDER`]), the least needed first — their headings stay, so other tools
//! still find every section — and a list that can shrink (the person's requests)
//! first loses its oldest lines. Nothing is cut in the middle of a line. Pure.

/// Which section a part of the document is, for the drop order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// Never dropped: why, the current task, the next steps.
    Kept,
    /// `## Reload`.
    Reload,
    /// `## Open agent signals`.
    Signals,
    /// `## Git state`.
    Git,
    /// `## The person's requests`.
    Requests,
    /// `## Plan`.
    Plan,
    /// `## Progress`.
    Progress,
    /// `## Files touched`.
    Files,
    /// `## Notes from the session`.
    Notes,
    /// `## Loose ends`.
    LooseEnds,
    /// `## Decisions (from the session)`: the agent's own.
    AgentDecisions,
    /// `## Decisions`: the person's answers.
    Decisions,
    /// `## Claude Code's summary`.
    Summary,
}

/// The order in which sections give up their text when the document is over its
/// budget: first what the next session can rebuild or finds elsewhere (what to
/// reload, Signals it is shown anyway, git it can ask), last what only this session
/// knew (the person's decisions, the client's summary). Why, the current task and
/// the next steps are never dropped.
pub(crate) const DROP_ORDER: [Part; 12] = [
    Part::Reload,
    Part::Signals,
    Part::Git,
    Part::Requests,
    Part::Plan,
    Part::Progress,
    Part::Files,
    Part::Notes,
    Part::LooseEnds,
    Part::AgentDecisions,
    Part::Decisions,
    Part::Summary,
];

/// One section of the document: its heading line, its lines, and which part it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Section {
    /// Which part it is.
    pub(crate) part: Part,
    /// `## Heading`.
    pub(crate) heading: String,
    /// The lines under it (no trailing newline each).
    pub(crate) lines: Vec<String>,
    /// From this line on, the lines are a list whose oldest entries go first.
    pub(crate) shrinks_from: Option<usize>,
}

impl Section {
    /// A section from its text: the first line is the heading.
    pub(crate) fn of(part: Part, text: &str) -> Option<Self> {
        let mut lines = text.trim_end().lines().map(str::to_owned);
        let heading = lines.next()?;
        Some(Self {
            part,
            heading,
            lines: lines.collect(),
            shrinks_from: None,
        })
    }

    fn len(&self) -> usize {
        // The heading, each line, their newlines and the blank line after.
        self.heading.len() + 1 + self.lines.iter().map(|l| l.len() + 1).sum::<usize>() + 1
    }

    fn text(&self, out: &mut String) {
        out.push_str(&self.heading);
        out.push('\n');
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out.push('\n');
    }
}

/// The words a section that gave up its text says instead.
pub(crate) fn left_out(budget: usize) -> String {
    format!(
        "(Left out to keep this handoff within its {} budget: [handoffs] max_bytes.)",
        size_words(budget)
    )
}

/// `8 KiB`, `10 KiB`, `3000 bytes`.
pub(crate) fn size_words(bytes: usize) -> String {
    if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

/// `head` (front matter and title) and the sections, within `budget` bytes when
/// dropping can make it so: sections give up their text in [`DROP_ORDER`], a
/// shrinking list first losing its oldest lines (at least its newest three stay
/// until the section is dropped). Returns the document and the parts dropped.
pub(crate) fn fit(head: &str, mut sections: Vec<Section>, budget: usize) -> (String, Vec<Part>) {
    let total = |s: &[Section]| head.len() + s.iter().map(Section::len).sum::<usize>();
    let mut dropped = Vec::new();
    let stub = left_out(budget);
    for part in DROP_ORDER {
        if total(&sections) <= budget {
            break;
        }
        let Some(i) = sections.iter().position(|s| s.part == part) else {
            continue;
        };
        if let Some(from) = sections[i].shrinks_from {
            while total(&sections) > budget && sections[i].lines.len() > from + 3 {
                sections[i].lines.remove(from);
            }
            if total(&sections) <= budget {
                break;
            }
        }
        sections[i].lines = vec![stub.clone()];
        dropped.push(part);
    }
    let mut out = String::with_capacity(total(&sections));
    out.push_str(head);
    for s in &sections {
        s.text(&mut out);
    }
    // Still over (a tiny budget): whole lines from the end, never part of one.
    if out.len() > budget {
        let mut cut = String::with_capacity(budget);
        let note = "(cut at the end to fit the budget)\n";
        for line in out.split_inclusive('\n') {
            if cut.len() + line.len() + note.len() > budget {
                break;
            }
            cut.push_str(line);
        }
        cut.push_str(note);
        out = cut;
    }
    (out, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sec(part: Part, heading: &str, lines: &[&str]) -> Section {
        Section {
            part,
            heading: heading.to_owned(),
            lines: lines.iter().map(|l| (*l).to_owned()).collect(),
            shrinks_from: None,
        }
    }

    #[test]
    fn sections_give_up_their_text_in_the_stated_order_and_keep_their_headings() {
        let long = "x".repeat(300);
        let sections = vec![
            sec(Part::Kept, "## Current task", &["> the task"]),
            sec(Part::Summary, "## Claude Code's summary", &[&long]),
            sec(Part::Reload, "## Reload", &[&long]),
            sec(Part::Git, "## Git state", &[&long]),
            sec(Part::Kept, "## Next steps", &["1. go"]),
        ];
        let (all, none) = fit("# T\n\n", sections.clone(), 8192);
        assert!(none.is_empty());
        assert_eq!(all.matches(&long).count(), 3);
        let (doc, dropped) = fit("# T\n\n", sections.clone(), 700);
        assert_eq!(dropped, [Part::Reload, Part::Git]);
        assert!(doc.len() <= 700, "{}", doc.len());
        for h in [
            "## Current task",
            "## Reload",
            "## Git state",
            "## Next steps",
        ] {
            assert!(doc.contains(h), "{h}: {doc}");
        }
        assert!(doc.contains(&format!("## Claude Code's summary\n{long}\n")));
        assert!(
            doc.contains("## Reload\n(Left out to keep this handoff within its 700 bytes budget")
        );
        // Every line is whole.
        let (tiny, _) = fit("# T\n\n", sections, 60);
        assert!(tiny.len() <= 60, "{tiny}");
        assert!(
            tiny.lines().all(|l| !l.starts_with('x') || l == long),
            "{tiny}"
        );
    }

    #[test]
    fn a_shrinking_list_loses_its_oldest_lines_first() {
        let mut requests = sec(
            Part::Requests,
            "## The person's requests",
            &[
                "oldest first:",
                "- one",
                "- two",
                "- three",
                "- four",
                "- five",
            ],
        );
        requests.shrinks_from = Some(1);
        let kept = sec(Part::Kept, "## Next steps", &["1. go"]);
        let full = fit("", vec![requests.clone(), kept.clone()], 8192).0;
        let budget = full.len() - 5;
        let (doc, dropped) = fit("", vec![requests.clone(), kept.clone()], budget);
        assert!(dropped.is_empty());
        assert!(!doc.contains("- one\n") && doc.contains("- two\n"), "{doc}");
        // Down to the newest three, then the section goes.
        let (doc, dropped) = fit("", vec![requests, kept], 60);
        assert_eq!(dropped, [Part::Requests]);
        assert!(!doc.contains("- five"), "{doc}");
    }
}
