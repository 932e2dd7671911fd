//! Handoff text made readable in a terminal: front matter as dim `key: value` lines,
//! headings in bold, task lists as ✓ / ◐ / ☐, bullets as •, code dimmed.
//! Not a Markdown engine — just the shapes forge's handoffs use.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// The lines of a handoff document, styled.
pub fn render(text: &str) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let dim = Style::new().fg(Color::DarkGray);
    if lines.peek().is_some_and(|l| l.trim_end() == "---") {
        let rest: Vec<&str> = text.lines().skip(1).collect();
        if let Some(end) = rest.iter().position(|l| l.trim_end() == "---") {
            lines.next();
            for l in lines.by_ref().take(end) {
                match l.split_once(':') {
                    Some((k, v)) => out.push(Line::from(vec![
                        Span::styled(format!("{k}:"), dim),
                        Span::raw(v.to_owned()),
                    ])),
                    None => out.push(Line::styled(l.to_owned(), dim)),
                }
            }
            lines.next();
            out.push(Line::styled("─".repeat(20), dim));
        }
    }
    let mut in_code = false;
    for l in lines {
        let t = l.trim_start();
        if t.starts_with("```") {
            in_code = !in_code;
            out.push(Line::styled(
                format!("  ┈┈ {}", t.trim_start_matches('`')),
                dim,
            ));
            continue;
        }
        if in_code {
            out.push(Line::styled(format!("  {l}"), Style::new().fg(Color::Gray)));
            continue;
        }
        out.push(line(l, t, dim));
    }
    out
}

fn line(raw: &str, t: &str, dim: Style) -> Line<'static> {
    let indent = " ".repeat(raw.len() - t.len());
    if let Some(h) = t.strip_prefix("# ") {
        return Line::styled(
            h.trim().to_owned(),
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        );
    }
    if t.starts_with("##") {
        let h = t.trim_start_matches('#').trim();
        return Line::styled(
            h.to_owned(),
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        );
    }
    if t.starts_with("<!--") {
        return Line::styled(raw.to_owned(), dim);
    }
    for (prefix, mark, style) in [
        ("- [x] ", "✓ ", Style::new().fg(Color::Green)),
        ("- [X] ", "✓ ", Style::new().fg(Color::Green)),
        ("- [~] ", "◐ ", Style::new().fg(Color::Yellow)),
        ("- [ ] ", "☐ ", Style::new()),
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            return Line::from(vec![
                Span::styled(format!("{indent}  {mark}"), style),
                Span::raw(rest.to_owned()),
            ]);
        }
    }
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Line::from(vec![
            Span::raw(format!("{indent}  • ")),
            Span::raw(rest.to_owned()),
        ]);
    }
    Line::raw(raw.to_owned())
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
    fn unclosed_front_matter_is_plain_text() {
        assert_eq!(plain(&render("---\nno end")), ["---", "no end"]);
    }
}
