//! Handoff text made readable in a terminal: front matter as dim `key: value` lines,
//! headings in bold, task lists as ✓ / ◐ / ☐, bullets as •, code dimmed, HTML
//! comments (notes for whoever edits the file) hidden.
//! Not a Markdown engine — just the shapes forge's handoffs use.
//!
//! [`render_wrapped`] also wraps to a width, continuing list items under their text
//! (a hanging indent) rather than under the bullet.

use std::borrow::Cow;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::text;

/// The lines of a handoff document, styled, one per source line.
#[cfg(test)]
pub(crate) fn render(text: &str) -> Vec<Line<'static>> {
    render_hung(text).into_iter().map(|(l, _)| l).collect()
}

/// The lines of a handoff document, styled and wrapped to `width` cells.
pub(crate) fn render_wrapped(text: &str, width: usize) -> Vec<Line<'static>> {
    render_hung(text)
        .into_iter()
        .flat_map(|(l, hang)| text::wrap(l, width, hang))
        .collect()
}

/// Each line with its hanging indent: where a wrapped continuation starts.
fn render_hung(text: &str) -> Vec<(Line<'static>, usize)> {
    // A handoff is a file anyone can write: escape sequences go whole, here.
    let text = &*crate::model::text::sanitize::clean(text);
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let dim = Style::new().fg(Color::DarkGray);
    if lines.peek().is_some_and(|l| l.trim_end() == "---") {
        let rest: Vec<&str> = text.lines().skip(1).collect();
        if let Some(end) = rest.iter().position(|l| l.trim_end() == "---") {
            lines.next();
            for l in lines.by_ref().take(end) {
                match l.split_once(':') {
                    Some((k, v)) => out.push((
                        Line::from(vec![
                            Span::styled(format!("{k}:"), dim),
                            Span::raw(v.to_owned()),
                        ]),
                        2,
                    )),
                    None => out.push((Line::styled(l.to_owned(), dim), 2)),
                }
            }
            lines.next();
            out.push((Line::styled("─".repeat(20), dim), 0));
        }
    }
    let rest: Vec<&str> = lines.collect();
    let mut in_code = false;
    for l in without_comments(&rest) {
        let l = &*l;
        let t = l.trim_start();
        if t.starts_with("```") {
            in_code = !in_code;
            out.push((
                Line::styled(format!("  ┈┈ {}", t.trim_start_matches('`')), dim),
                0,
            ));
            continue;
        }
        if in_code {
            let hang = 2 + l.len() - t.len();
            out.push((
                Line::styled(format!("  {l}"), Style::new().fg(Color::Gray)),
                hang,
            ));
            continue;
        }
        out.push(line(l, t));
    }
    out
}

/// Whether `l` opens or closes a code block.
fn is_fence(l: &str) -> bool {
    l.trim_start().starts_with("```")
}

/// `lines` without their HTML comments (`<!-- … -->`, within a line or across
/// several), which are notes for whoever edits the file, not part of what it says
/// (the agent handoff template ends with one). A line that held nothing but a
/// comment goes; code blocks and code spans keep theirs, and a `<!--` that is never
/// closed stays as text.
fn without_comments<'a>(lines: &[&'a str]) -> Vec<Cow<'a, str>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut in_code = false;
    let mut i = 0;
    while let Some(&first) = lines.get(i) {
        i += 1;
        if is_fence(first) {
            in_code = !in_code;
        }
        if in_code || is_fence(first) {
            out.push(Cow::Borrowed(first));
            continue;
        }
        let mut kept = String::new();
        let mut rest = first;
        let mut cut = false;
        while let Some(open) = comment_start(rest) {
            let after = &rest[open + 4..];
            if let Some(close) = after.find("-->") {
                kept.push_str(&rest[..open]);
                rest = &after[close + 3..];
                cut = true;
                continue;
            }
            // Closed on a later line (outside a code block)?
            let Some(end) = lines[i..]
                .iter()
                .position(|l| l.contains("-->"))
                .filter(|&n| !lines[i..i + n].iter().any(|l| is_fence(l)))
            else {
                break;
            };
            kept.push_str(&rest[..open]);
            let close_line = lines[i + end];
            let close = close_line.find("-->").unwrap_or(0);
            rest = &close_line[close + 3..];
            i += end + 1;
            cut = true;
        }
        if !cut {
            out.push(Cow::Borrowed(first));
            continue;
        }
        kept.push_str(rest);
        // A line that was only a comment goes, not leaving a blank line behind.
        if !kept.trim().is_empty() {
            out.push(Cow::Owned(kept.trim_end().to_owned()));
        }
    }
    out
}

/// Where the first `<!--` outside a code span starts in `line`.
fn comment_start(line: &str) -> Option<usize> {
    line.match_indices("<!--")
        .map(|(at, _)| at)
        .find(|&at| line[..at].matches('`').count().is_multiple_of(2))
}

fn line(raw: &str, t: &str) -> (Line<'static>, usize) {
    let lead = raw.len() - t.len();
    let indent = " ".repeat(lead);
    if let Some(h) = t.strip_prefix("# ") {
        return (
            Line::styled(
                h.trim().to_owned(),
                Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            ),
            0,
        );
    }
    if t.starts_with("##") {
        let h = t.trim_start_matches('#').trim();
        return (
            Line::styled(
                h.to_owned(),
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ),
            0,
        );
    }
    for (prefix, mark, style) in [
        ("- [x] ", "✓ ", Style::new().fg(Color::Green)),
        ("- [X] ", "✓ ", Style::new().fg(Color::Green)),
        ("- [~] ", "◐ ", Style::new().fg(Color::Yellow)),
        ("- [ ] ", "☐ ", Style::new()),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            let head = format!("{indent}  {mark}");
            let hang = text::width(&head);
            return (
                Line::from(vec![Span::styled(head, style), Span::raw(rest.to_owned())]),
                hang,
            );
        }
    }
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        let head = format!("{indent}  • ");
        let hang = text::width(&head);
        return (
            Line::from(vec![Span::raw(head), Span::raw(rest.to_owned())]),
            hang,
        );
    }
    // Numbered items hang under their text too.
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && t[digits..].starts_with(". ") {
        return (Line::raw(raw.to_owned()), lead + digits + 2);
    }
    (Line::raw(raw.to_owned()), lead)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn headings_lists_and_front_matter_read_well() {
        let text = "---\nkind: session-handoff\nbranch: main\n---\n# Title\n\n## Progress\n- [x] done\n- [~] doing\n- [ ] todo\n- plain\n  - nested\n```json\n{\"a\":1}\n```\n";
        let out = plain(&render(text));
        assert_eq!(
            out,
            [
                "kind: session-handoff",
                "branch: main",
                "────────────────────",
                "Title",
                "",
                "Progress",
                "  ✓ done",
                "  ◐ doing",
                "  ☐ todo",
                "  • plain",
                "    • nested",
                "  ┈┈ json",
                "  {\"a\":1}",
                "  ┈┈ ",
            ]
        );
        let styled = render("# T\n## S");
        assert!(styled[0].style.add_modifier.contains(Modifier::BOLD));
        assert_eq!(styled[1].style.fg, Some(Color::Cyan));
    }

    #[test]
    fn wrapped_items_hang_under_their_text() {
        let text = "- The pool must be created before the router, or checks fail.\n  - [ ] nested task that is long enough\n1. numbered item that wraps\nplain paragraph text that wraps\n";
        let out = plain(&render_wrapped(text, 24));
        assert_eq!(
            out,
            [
                "  • The pool must be",
                "    created before the",
                "    router, or checks",
                "    fail.",
                "    ☐ nested task that",
                "      is long enough",
                "1. numbered item that",
                "   wraps",
                "plain paragraph text",
                "that wraps",
            ]
        );
    }

    #[test]
    fn html_comments_are_not_shown() {
        let text = concat!(
            "### Signal\n",
            "```json\n",
            "{\"status\": \"blocked\"} <!-- code keeps it -->\n",
            "```\n",
            "<!-- status valid values: \"complete\" | \"partial\" | \"blocked\" -->\n",
            "Before <!-- inline --> after <!-- two -->\n",
            "  <!-- indented -->\n",
            "Text <!-- starts here\n",
            "and goes on\n",
            "--> ends here\n",
            "<!--\n",
            "a whole block\n",
            "-->\n",
            "Use `<!-- x -->` in code spans\n",
            "Last <!-- never closed\n",
        );
        assert_eq!(
            plain(&render(text)),
            [
                "Signal",
                "  ┈┈ json",
                "  {\"status\": \"blocked\"} <!-- code keeps it -->",
                "  ┈┈ ",
                "Before  after",
                "Text  ends here",
                "Use `<!-- x -->` in code spans",
                "Last <!-- never closed",
            ]
        );
    }

    #[test]
    fn the_agent_template_shows_no_comment() {
        let template = include_str!("../../assets/templates/agent-handoff.md");
        assert!(template.contains("<!--"), "the template still has its note");
        let out = plain(&render(template)).join("\n");
        assert!(
            !out.contains("<!--") && !out.contains("valid values"),
            "{out}"
        );
        assert!(out.ends_with("  ┈┈ "), "{out}");
    }

    #[test]
    fn unclosed_front_matter_is_plain_text() {
        assert_eq!(plain(&render("---\nno end")), ["---", "no end"]);
    }
}
