//! Handoff text made readable in a terminal: front matter as dim `key: value` lines,
//! headings in bold, task lists as ✓ / ◐ / ☐, bullets as •, code dimmed.
//! Not a Markdown engine — just the shapes forge's handoffs use.
//!
//! [`render_wrapped`] also wraps to a width, continuing list items under their text
//! (a hanging indent) rather than under the bullet.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use super::text;

/// The lines of a handoff document, styled, one per source line.
pub fn render(text: &str) -> Vec<Line<'static>> {
    render_hung(text).into_iter().map(|(l, _)| l).collect()
}

/// The lines of a handoff document, styled and wrapped to `width` cells.
pub fn render_wrapped(text: &str, width: usize) -> Vec<Line<'static>> {
    render_hung(text)
        .into_iter()
        .flat_map(|(l, hang)| text::wrap(l, width, hang))
        .collect()
}

/// Each line with its hanging indent: where a wrapped continuation starts.
fn render_hung(text: &str) -> Vec<(Line<'static>, usize)> {
    // A handoff is a file anyone can write: escape sequences go whole, here.
    let text = &*crate::model::text::clean(text);
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
    let mut in_code = false;
    for l in lines {
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
        out.push(line(l, t, dim));
    }
    out
}

fn line(raw: &str, t: &str, dim: Style) -> (Line<'static>, usize) {
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
    if t.starts_with("<!--") {
        return (Line::styled(raw.to_owned(), dim), lead);
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
    fn unclosed_front_matter_is_plain_text() {
        assert_eq!(plain(&render("---\nno end")), ["---", "no end"]);
    }
}
