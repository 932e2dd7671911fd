//! The fleet list of `forge tui --all`: one row per live session of every registered
//! project, most urgent first, then the projects with none; the selected row's root
//! below the list; key hints from [`dashboard::KEYMAP`] in the footer.
//!
//! Every name, branch, root and event in it comes from the registry, which
//! repositories help fill: it is drawn through [`single_line`] and the frame's last
//! pass ([`super::finish`]), so no escape sequence or control reaches the terminal.
//! Columns give way to the width: the root line, then the session id, then the
//! branch go first.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{
    DIM, TITLE, WARN, attention_style, help_box, help_keys, help_words, level_color, notice_line,
    push_hints, rows, short, text,
};
use crate::model::agents::fleet::FleetRow;
use crate::model::dashboard::Mode;
use crate::model::dashboard::fleet::FleetModel;
use crate::model::text::sanitize::single_line;
use crate::model::time::age;

/// The fleet list over a [`FleetModel`].
pub(crate) struct FleetView<'a> {
    model: &'a FleetModel,
    no_color: bool,
    plan: Option<Plan>,
}

impl<'a> FleetView<'a> {
    /// A view of `model`.
    pub(crate) fn new(model: &'a FleetModel) -> Self {
        Self {
            model,
            no_color: false,
            plan: None,
        }
    }

    /// Draws without colours (`NO_COLOR`).
    pub(crate) fn no_color(mut self, yes: bool) -> Self {
        self.no_color = yes;
        self
    }

    /// Draws the frame `plan` laid out (the loop's, computed once for the frame)
    /// instead of laying it out again; a plan made for another area is not used.
    pub(crate) fn plan(mut self, plan: Plan) -> Self {
        self.plan = Some(plan);
        self
    }
}

/// Where the parts of the fleet screen go: computed once per frame ([`plan`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    area: Rect,
    header: Rect,
    columns: Option<Rect>,
    list: Option<Rect>,
    detail: Option<Rect>,
    footer: Option<Rect>,
}

impl Plan {
    /// Rows of the list (for paging).
    pub(crate) fn list_rows(&self) -> u16 {
        self.list.map_or(1, |r| r.height.max(1))
    }
}

/// Lays out a frame of `area`.
pub(crate) fn plan(area: Rect) -> Plan {
    let row = |i: u16| Rect {
        y: area.y + i,
        height: 1,
        ..area
    };
    let h = area.height;
    let header = row(0);
    if h < 3 {
        return Plan {
            area,
            header,
            columns: None,
            list: None,
            detail: None,
            footer: (h == 2).then(|| row(1)),
        };
    }
    // header, column titles, list…, [root of the selected row], footer
    let detail = (h >= 7).then(|| row(h - 2));
    let list_end = if detail.is_some() { h - 2 } else { h - 1 };
    Plan {
        area,
        header,
        columns: (h >= 4).then(|| row(1)),
        list: Some(Rect {
            y: area.y + if h >= 4 { 2 } else { 1 },
            height: list_end - if h >= 4 { 2 } else { 1 },
            ..area
        }),
        detail,
        footer: Some(row(h - 1)),
    }
}

/// Rows of the list for a frame of `area` (for paging).
#[cfg(test)]
pub(crate) fn list_rows(area: Rect) -> u16 {
    plan(area).list_rows()
}

/// The column widths for a width — 0 leaves a column out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Widths {
    project: usize,
    agent: usize,
    branch: usize,
    session: usize,
    tmux: usize,
}

fn widths(width: u16) -> Widths {
    let w = |project, agent, branch, session, tmux| Widths {
        project,
        agent,
        branch,
        session,
        tmux,
    };
    match width {
        120.. => w(20, 12, 18, 8, 5),
        100..120 => w(16, 10, 12, 8, 5),
        80..100 => w(14, 8, 0, 8, 4),
        64..80 => w(14, 8, 0, 0, 0),
        50..64 => w(14, 0, 0, 0, 0),
        _ => w(
            usize::from(width.saturating_sub(26)).clamp(4, 14),
            0,
            0,
            0,
            0,
        ),
    }
}

impl Widget for FleetView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        let m = self.model;
        let p = self
            .plan
            .filter(|p| p.area == area)
            .unwrap_or_else(|| plan(area));
        header(m, p.header.width).render(p.header, buf);
        if let Some(r) = p.columns.filter(|_| !m.rows().is_empty()) {
            columns(r.width).render(r, buf);
        }
        if let Some(r) = p.list {
            render_list(m, r, buf);
        }
        if let Some(r) = p.detail {
            detail(m, r.width).render(r, buf);
        }
        if let Some(r) = p.footer {
            footer(m, r.width).render(r, buf);
        }
        if m.mode == Mode::Help {
            render_help(m, area, buf);
        }
        super::finish(area, buf, self.no_color);
    }
}

/// ` forge  fleet · 3 projects · 4 live · 2 waiting`, what waits first when narrow.
fn header(m: &FleetModel, width: u16) -> Paragraph<'static> {
    let rows = m.rows();
    let live = rows.iter().filter(|r| r.session.is_some()).count();
    let waiting = rows
        .iter()
        .filter(|r| r.session.is_some_and(|s| s.is_waiting()))
        .count();
    let projects = m.registry.current(m.now).count();
    let mut spans = vec![
        Span::styled(" forge ", Style::new().fg(Color::Black).bg(Color::Cyan)),
        Span::styled(" fleet", TITLE),
    ];
    if waiting > 0 {
        spans.push(Span::styled(format!(" · {waiting} waiting"), WARN));
    }
    spans.push(Span::styled(
        format!(
            " · {live} live · {projects} project{}",
            if projects == 1 { "" } else { "s" }
        ),
        DIM,
    ));
    Paragraph::new(Line::from(text::fit_spans(spans, usize::from(width))))
}

fn columns(width: u16) -> Paragraph<'static> {
    let w = widths(width);
    let mut line = format!(
        "  {} {}",
        text::column("ATTENTION", 10),
        text::column("PROJECT", w.project)
    );
    if w.agent > 0 {
        line.push(' ');
        line.push_str(&text::column("AGENT", w.agent));
    }
    if w.branch > 0 {
        line.push(' ');
        line.push_str(&text::column("BRANCH", w.branch));
    }
    line.push_str(" CONTEXT  ⚑   ");
    if w.session > 0 {
        line.push_str(&text::column("SESSION", w.session));
        line.push(' ');
    }
    if w.tmux > 0 {
        line.push_str(&text::column("TMUX", w.tmux));
        line.push(' ');
    }
    line.push_str("LAST");
    Paragraph::new(Line::styled(
        text::fit(&line, usize::from(width)),
        DIM.add_modifier(Modifier::BOLD),
    ))
}

fn row_line(m: &FleetModel, r: &FleetRow<'_>, selected: bool, width: u16) -> Line<'static> {
    let w = widths(width);
    let (project_w, branch_w, session_w) = (w.project, w.branch, w.session);
    let s = r.session;
    let mut spans = vec![
        Span::raw(if selected { "▶ " } else { "  " }),
        Span::styled(
            text::column(r.attention_word(), 10),
            if s.is_some() {
                attention_style(s.and_then(|s| s.attention))
            } else {
                DIM
            },
        ),
        Span::raw(" "),
        Span::styled(
            text::column(&single_line(&r.project.name), project_w),
            if selected { TITLE } else { Style::new() },
        ),
    ];
    if w.agent > 0 {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            text::column(
                &single_line(s.and_then(|s| s.agent.as_deref()).unwrap_or("-")),
                w.agent,
            ),
            Style::new().fg(Color::Cyan),
        ));
    }
    if branch_w > 0 {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(
            text::column(
                &single_line(r.project.branch.as_deref().unwrap_or("-")),
                branch_w,
            ),
            Style::new().fg(Color::Magenta),
        ));
    }
    let (context, style) = match s {
        None => ("-".to_owned(), DIM),
        Some(s) => match (s.context_pct, s.level()) {
            (Some(p), Some(l)) => (
                format!("{p}% {}", l.as_str()),
                Style::new().fg(level_color(l)),
            ),
            (Some(p), None) => (format!("{p}%"), Style::new()),
            _ => ("?".to_owned(), DIM),
        },
    };
    spans.push(Span::raw(" "));
    spans.push(Span::styled(text::column(&context, 7), style));
    let blocked = match r.project.blocked {
        0 => Span::styled(text::column(" -", 4), DIM),
        n => Span::styled(
            text::column(&format!(" ⚑{n}"), 4),
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
    };
    spans.push(Span::raw(" "));
    spans.push(blocked);
    spans.push(Span::raw(" "));
    if session_w > 0 {
        spans.push(Span::styled(
            text::column(
                &s.map_or_else(|| "-".to_owned(), |s| short(&s.id)),
                session_w,
            ),
            DIM,
        ));
        spans.push(Span::raw(" "));
    }
    if w.tmux > 0 {
        spans.push(Span::styled(
            text::column(
                s.and_then(|s| s.tmux_pane.as_deref()).unwrap_or("-"),
                w.tmux,
            ),
            DIM,
        ));
        spans.push(Span::raw(" "));
    }
    let event = s
        .and_then(|s| s.last_event.as_deref())
        .map(|e| format!(" {}", single_line(e)))
        .unwrap_or_default();
    spans.push(Span::styled(
        format!("{:>3}{event}", age(m.now, r.last_heard())),
        DIM,
    ));
    Line::from(text::fit_spans(spans, usize::from(width)))
}

fn render_list(m: &FleetModel, area: Rect, buf: &mut Buffer) {
    let list = m.rows();
    if list.is_empty() {
        let lines = match &m.error {
            Some(e) => vec![
                Line::styled(
                    format!("  cannot read the fleet registry: {}", single_line(e)),
                    Style::new().fg(Color::Red),
                ),
                Line::styled(
                    "  remove it (or fix its folder) and the hooks write a new one",
                    DIM,
                ),
            ],
            None => vec![
                Line::styled(
                    "  no project yet: forge's hooks register one the first time they run in it",
                    DIM,
                ),
                Line::styled(
                    format!(
                        "  registry: {}",
                        single_line(&m.registry_path.display().to_string())
                    ),
                    DIM,
                ),
            ],
        };
        for (r, line) in rows(area).zip(lines) {
            let spans: Vec<Span<'static>> = line.spans;
            Paragraph::new(Line::from(text::fit_spans(spans, usize::from(r.width))))
                .style(line.style)
                .render(r, buf);
        }
        return;
    }
    let selected = m.selected.min(list.len() - 1);
    let height = usize::from(area.height.max(1));
    let first = selected.saturating_sub(height - 1);
    for (k, (r, row)) in rows(area).zip(list.iter().skip(first)).enumerate() {
        row_line(m, row, first + k == selected, r.width).render(r, buf);
    }
}

/// The selected row's root, and what Enter does with it.
fn detail(m: &FleetModel, width: u16) -> Paragraph<'static> {
    let Some(r) = m.selected_row() else {
        return Paragraph::new("");
    };
    let root = crate::model::agents::fleet::tilde(&r.project.root, m.home.as_deref());
    let mut spans = vec![
        Span::styled("  ⏎ opens ", DIM),
        Span::raw(single_line(&root).into_owned()),
    ];
    if let Some(hint) = m.pane_hint() {
        spans.push(Span::styled(" · ", DIM));
        spans.push(Span::raw(single_line(&hint).into_owned()));
    }
    Paragraph::new(Line::from(text::fit_spans(spans, usize::from(width))))
}

fn footer(m: &FleetModel, width: u16) -> Paragraph<'static> {
    if m.mode == Mode::Answer {
        // The prompt being typed (`i`), its end kept in view.
        let head = " prompt: ";
        let tail = "▏  ⏎ send  Esc cancel";
        let room = usize::from(width).saturating_sub(text::width(head) + text::width(tail));
        let typed = single_line(&m.prompt).into_owned();
        let shown: String = {
            let chars: Vec<char> = typed.chars().collect();
            chars[chars.len().saturating_sub(room)..].iter().collect()
        };
        return Paragraph::new(Line::from(vec![
            Span::styled(head, Style::new().fg(Color::Cyan)),
            Span::raw(shown),
            Span::styled(tail, DIM),
        ]));
    }
    if let Some(n) = &m.notice {
        return notice_line(n, width);
    }
    let mut spans = Vec::new();
    push_hints(&mut spans, m.mode, None, width, false);
    Paragraph::new(Line::from(spans))
}

/// The `?` help of the fleet list: its keys (from the table) and its words.
fn render_help(m: &FleetModel, area: Rect, buf: &mut Buffer) {
    let mut lines = help_keys(Mode::Fleet, |b| b.desc);
    lines.extend(help_words(&[
        ("permission", "a permission prompt is open"),
        ("input", "the turn is over: it waits for you"),
        ("busy", "working"),
        ("idle", "a project with no live session"),
        ("live", "not ended, heard from within stale_after"),
        ("⚑N", "unresolved blocked Signals in that project"),
        ("AGENT", "the session's FORGE_AGENT"),
        ("TMUX", "its tmux pane (%N): t goes there"),
        (
            "L0–L3",
            "context level: L1 ≥70%, L2 ≥85%, L3 ≥95% (default)",
        ),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Kept by each project's hooks (up to a minute behind), in",
        DIM,
    ));
    lines.push(Line::styled(
        single_line(&m.registry_path.display().to_string()).into_owned(),
        DIM,
    ));
    help_box(lines, m.help_scroll, area, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_gives_way_from_the_bottom() {
        let p = plan(Rect::new(0, 0, 80, 24));
        assert_eq!(p.columns.unwrap().y, 1);
        assert_eq!(p.list.unwrap(), Rect::new(0, 2, 80, 20));
        assert_eq!(p.detail.unwrap().y, 22);
        assert_eq!(p.footer.unwrap().y, 23);
        let p = plan(Rect::new(0, 0, 80, 4));
        assert!(p.detail.is_none());
        assert_eq!(p.list.unwrap(), Rect::new(0, 2, 80, 1));
        let p = plan(Rect::new(0, 0, 80, 3));
        assert!(p.columns.is_none());
        assert_eq!(p.list.unwrap(), Rect::new(0, 1, 80, 1));
        let p = plan(Rect::new(0, 0, 80, 1));
        assert!(p.list.is_none() && p.footer.is_none());
        assert_eq!(list_rows(Rect::new(0, 0, 80, 1)), 1);
    }
}
