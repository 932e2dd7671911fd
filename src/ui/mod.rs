//! The dashboard's widgets. They borrow the [`Model`] and draw it; every decision
//! (order, filters, drift, trend, ages) is made in `crate::model::dashboard` first.
//! Time comes from `Model::now`, never from the clock, so frames are reproducible.
//!
//! Widgets render into any area, including `Rect::ZERO` and 1×1, without panicking.
//!
//! The commands' text reports are here too, as pure as the widgets: `forge status`'s
//! ([`report`]) and the lists of `forge resume` and `forge sessions` ([`lists`]).

pub(crate) mod activity;
pub(crate) mod fleet;
pub(crate) mod layout;
pub(crate) mod lists;
pub(crate) mod markdown;
pub(crate) mod report;
pub(crate) mod text;

use std::fmt::Write as _;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Sparkline, Widget};

use crate::model::dashboard::{
    self, Binding, ContextView, KindFilter, Mode, Model, Pane, bindings,
};
use crate::model::handoff::entry::{HandoffEntry, HandoffKind};
use crate::model::handoff::signal::SignalParse;
use crate::model::session::level::Level;
use crate::model::session::state::Attention;
use crate::model::text::sanitize::single_line;
use crate::model::time::{age, parse_iso};

/// The colour of a context level.
pub(crate) fn level_color(level: Level) -> Color {
    match level {
        Level::L0 => Color::Green,
        Level::L1 => Color::Yellow,
        Level::L2 => Color::LightRed,
        Level::L3 => Color::Red,
    }
}

/// The colour of a handoff status word; blocked is red, malformed yellow.
pub(crate) fn status_style(word: &str) -> Style {
    match word {
        "blocked" => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        "malformed" => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        "partial" => Style::new().fg(Color::Yellow),
        "complete" => Style::new().fg(Color::Green),
        "resolved" => Style::new().fg(Color::DarkGray),
        _ => Style::new().fg(Color::Blue),
    }
}

const DIM: Style = Style::new().fg(Color::DarkGray);
const TITLE: Style = Style::new().add_modifier(Modifier::BOLD);
const WARN: Style = Style::new().fg(Color::Yellow);
/// Text the `/` filter matches: bold and underlined, which survive `NO_COLOR`.
const MATCH: Style = Style::new()
    .fg(Color::Yellow)
    .add_modifier(Modifier::BOLD.union(Modifier::UNDERLINED));

/// The whole dashboard.
pub(crate) struct Dashboard<'a> {
    model: &'a Model,
    no_color: bool,
    layout: Option<&'a FrameLayout>,
}

impl<'a> Dashboard<'a> {
    /// A dashboard over `model`.
    pub(crate) fn new(model: &'a Model) -> Self {
        Self {
            model,
            no_color: false,
            layout: None,
        }
    }
    /// Draws without colours (`NO_COLOR`); bold, reverse and underline stay.
    pub(crate) fn no_color(mut self, yes: bool) -> Self {
        self.no_color = yes;
        self
    }
    /// Draws the frame `layout` laid out (the loop's, computed once for the frame)
    /// instead of laying it out again; a layout made for another area is not used.
    pub(crate) fn layout(mut self, layout: &'a FrameLayout) -> Self {
        self.layout = Some(layout);
        self
    }
}

impl Widget for Dashboard<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        if area.is_empty() {
            return;
        }
        let m = self.model;
        let own;
        let laid = match self.layout.filter(|l| l.area == area) {
            Some(l) => l,
            None => {
                own = FrameLayout::of(m, area);
                &own
            }
        };
        let plan = &laid.plan;
        if plan.tiny {
            render_tiny(m, plan, buf);
        } else {
            if let Some(r) = plan.header {
                header(m, r.width).render(r, buf);
            }
            if let Some(r) = plan.context {
                render_context(m, r, buf);
            }
            if let Some(r) = plan.session {
                render_session(m, r, buf);
            }
            if let Some(r) = plan.attention {
                render_attention(m, r, buf);
            }
            if m.activity {
                if let Some(r) = plan.list_area() {
                    activity::render(m, r, buf);
                }
            } else {
                if let Some(r) = plan.inbox {
                    render_inbox(m, r, buf);
                }
                if let Some(r) = plan.preview {
                    render_preview(m, r, laid, buf);
                }
            }
            if let Some(r) = plan.footer {
                footer(m, r.width).render(r, buf);
            }
            if m.mode == Mode::Help {
                render_help(m, area, buf);
            }
        }
        finish(area, buf, self.no_color);
    }
}

/// The last edge before the terminal, for every screen: whatever a widget drew,
/// every cell goes through the one sanitiser (ratatui drops C0 and zero-width
/// characters on most paths; this holds on all of them). Escape sequences are removed
/// whole where outside text enters a widget (the header, the preview's Markdown),
/// since a cell holds only part of one. With `no_color`, colours go (bold, reverse
/// and underline stay).
fn finish(area: Rect, buf: &mut Buffer, no_color: bool) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell_mut((x, y))
                && let std::borrow::Cow::Owned(clean) = single_line(cell.symbol())
            {
                cell.set_symbol(if clean.is_empty() { " " } else { &clean });
            }
        }
    }
    if no_color {
        for y in area.top()..area.bottom() {
            for x in area.left()..area.right() {
                if let Some(cell) = buf.cell_mut((x, y)) {
                    cell.set_fg(Color::Reset).set_bg(Color::Reset);
                }
            }
        }
    }
}

fn short(id: &str) -> String {
    crate::model::text::sanitize::short_id(id)
}

/// The header, most important first: blocked Signals come before the project and
/// branch, so a narrow pane keeps them. Pieces are shown whole; the first one that
/// does not fit ends the line (a name or branch is cut with `…` when room is left).
fn header(m: &Model, width: u16) -> Paragraph<'static> {
    let s = &m.snapshot;
    let name = s.root.file_name().map_or_else(
        || s.root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    // (spans, may be cut)
    let mut pieces: Vec<(Vec<Span<'static>>, bool)> = vec![(
        vec![Span::styled(
            " forge ",
            Style::new().fg(Color::Black).bg(Color::Cyan),
        )],
        false,
    )];
    let blocked = s.blocked().count();
    if blocked > 0 {
        pieces.push((
            vec![Span::styled(
                format!(" ⚑ {blocked} blocked "),
                status_style("blocked"),
            )],
            false,
        ));
    }
    if m.untrusted_keys > 0 {
        // The project's config waits for trust: said where the person looks.
        let n = m.untrusted_keys;
        let waiting = if n == 1 {
            "1 key waits".to_owned()
        } else {
            format!("{n} keys wait")
        };
        pieces.push((
            vec![Span::styled(
                format!(" ⚠ .forge/config.toml untrusted: {waiting} · forge trust "),
                WARN,
            )],
            false,
        ));
    }
    if m.demo {
        pieces.push((
            vec![Span::styled(
                " DEMO ",
                Style::new().fg(Color::Black).bg(Color::Yellow),
            )],
            false,
        ));
    }
    let name = single_line(&name);
    pieces.push((vec![Span::styled(format!(" {name}"), TITLE)], true));
    if let Some(b) = s.branch() {
        pieces.push((vec![Span::raw(format!(" ⎇ {}", single_line(b)))], true));
    }
    if let Some(n) = s.uncommitted().filter(|n| *n > 0) {
        pieces.push((vec![Span::styled(format!(" ●{n}"), WARN)], false));
    }
    if let (Some(p), Some(t)) = (&s.workflow.phase, &s.workflow.task) {
        let (p, t) = (single_line(p), single_line(t));
        pieces.push((vec![Span::styled(format!("  {p} {t}"), DIM)], false));
    }
    // What the levels shown below mean, where there is room (the `?` help says it
    // too).
    let t = &m.thresholds;
    pieces.push((
        vec![Span::styled(
            format!(
                "   L1 ≥{:.0}% · L2 ≥{:.0}% · L3 ≥{:.0}% context",
                t.warn, t.critical, t.emergency
            ),
            DIM,
        )],
        false,
    ));
    let mut left = usize::from(width);
    let mut spans = Vec::new();
    for (piece, cuttable) in pieces {
        let w: usize = piece.iter().map(|s| text::width(&s.content)).sum();
        if w <= left {
            left -= w;
            spans.extend(piece);
            continue;
        }
        if cuttable && left >= 4 {
            spans.extend(text::fit_spans(piece, left));
        }
        break;
    }
    Paragraph::new(Line::from(spans))
}

/// A section title on the first row; returns the rows below it.
fn title(
    area: Rect,
    buf: &mut Buffer,
    text: &str,
    extra: Vec<Span<'static>>,
    focused: bool,
) -> Rect {
    let mark = if focused { "▸ " } else { "  " };
    let style = if focused {
        TITLE.fg(Color::Cyan)
    } else {
        TITLE
    };
    let mut spans = vec![Span::styled(format!("{mark}{text}"), style)];
    spans.extend(extra);
    Paragraph::new(Line::from(spans)).render(Rect { height: 1, ..area }, buf);
    Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1),
        ..area
    }
}

fn indent(area: Rect, by: u16) -> Rect {
    let by = by.min(area.width);
    Rect {
        x: area.x + by,
        width: area.width - by,
        ..area
    }
}

fn rows(area: Rect) -> impl Iterator<Item = Rect> {
    (0..area.height).map(move |i| Rect {
        y: area.y + i,
        height: 1,
        ..area
    })
}

/// The context title's tail: which session, and its compactions.
fn context_extra(m: &Model) -> Vec<Span<'static>> {
    m.context()
        .map(|c| {
            vec![Span::styled(
                format!(
                    " session {}{} · {} compaction{}",
                    short(&c.session_id),
                    if c.pinned { " (picked: s)" } else { "" },
                    c.compactions,
                    if c.compactions == 1 { "" } else { "s" }
                ),
                DIM,
            )]
        })
        .unwrap_or_default()
}

fn render_context(m: &Model, area: Rect, buf: &mut Buffer) {
    let ctx = m.context();
    let body = indent(title(area, buf, "Context", context_extra(m), false), 2);
    let mut lines = rows(body);
    let (Some(gauge_row), Some(c)) = (lines.next(), ctx) else {
        if let Some(r) = rows(body).next() {
            Paragraph::new(Line::styled("unknown: no session has reported yet", DIM))
                .render(r, buf);
        }
        return;
    };
    let ContextView {
        pct,
        level,
        history,
        growth,
        since_drop,
        next,
        ..
    } = c;
    match (pct, level) {
        (Some(p), Some(l)) => {
            let color = level_color(l);
            let label = format!("{p:>3.0}% {l} ");
            let lw = (label.len() as u16).min(gauge_row.width);
            Paragraph::new(Span::styled(
                label,
                Style::new().fg(color).add_modifier(Modifier::BOLD),
            ))
            .render(
                Rect {
                    width: lw,
                    ..gauge_row
                },
                buf,
            );
            bar(p, color).render(indent(gauge_row, lw), buf);
        }
        _ => Paragraph::new(Line::styled("unknown: no reading yet", DIM)).render(gauge_row, buf),
    }
    if let Some(r) = lines.next() {
        let w = usize::from(r.width);
        let data: Vec<u64> = history
            .iter()
            .skip(history.len().saturating_sub(w))
            .map(|p| p.clamp(0.0, 100.0).round() as u64)
            .collect();
        Sparkline::default()
            .data(&data)
            .max(100)
            .style(Style::new().fg(level.map_or(Color::Gray, level_color)))
            .render(r, buf);
    }
    if let Some(r) = lines.next() {
        // After a drop (compaction, /clear) growth is measured from it, and says so.
        let since = if since_drop.is_some() {
            " since drop"
        } else {
            ""
        };
        let text = match (growth, next) {
            (Some(g), Some((lvl, turns))) => format!(
                "{g:+.1}%/turn{since} · {lvl} in ~{turns} turn{}",
                if turns == 1 { "" } else { "s" }
            ),
            (Some(g), None) if level == Some(Level::L3) => format!("{g:+.1}%/turn{since} · at L3"),
            (Some(g), None) => format!("{g:+.1}%/turn{since} · not growing"),
            (None, _) if since_drop.is_some() => {
                "context dropped (a compaction or /clear): growth per turn shows from the next reply"
                    .into()
            }
            (None, _) => "growth unknown (needs two readings)".into(),
        };
        // The quota's pace beside the context's trend (subscription accounts): red
        // when a window runs out before its reset.
        let mut spans = vec![Span::styled(text, DIM)];
        if !c.pace.is_empty() {
            let words: Vec<String> = c.pace.iter().map(|p| p.words(true)).collect();
            let runs_out = c
                .pace
                .iter()
                .any(crate::model::session::pace::Pace::runs_out);
            spans.push(Span::styled(" · quota ", DIM));
            spans.push(Span::styled(
                words.join(" · "),
                if runs_out {
                    Style::new().fg(Color::Red)
                } else {
                    DIM
                },
            ));
        }
        Paragraph::new(Line::from(text::fit_spans(spans, usize::from(r.width)))).render(r, buf);
    }
}

/// A gauge bar that reads as text too: `█` for the used part, `░` for the rest.
fn bar(pct: f64, color: Color) -> impl Widget {
    struct Bar(f64, Color);
    impl Widget for Bar {
        fn render(self, area: Rect, buf: &mut Buffer) {
            let w = f64::from(area.width);
            let filled = ((self.0 / 100.0).clamp(0.0, 1.0) * w).round() as u16;
            for x in 0..area.width {
                if let Some(cell) = buf.cell_mut((area.x + x, area.y)) {
                    if x < filled {
                        cell.set_symbol("█").set_fg(self.1);
                    } else {
                        cell.set_symbol("░").set_fg(Color::DarkGray);
                    }
                }
            }
        }
    }
    Bar(pct, color)
}

fn render_session(m: &Model, area: Rect, buf: &mut Buffer) {
    // The record of a session still running is of its last turn: "Live session".
    let name = if m.snapshot.last_session_live(m.now, m.stale_after).is_some() {
        "Live session"
    } else {
        "Last session"
    };
    let body = indent(title(area, buf, name, Vec::new(), false), 2);
    let mut lines = session_lines(m);
    // The flags wrap, whole, into the rows left (the layout made room for them in
    // two columns); the last row takes what is left, cut.
    let room = usize::from(body.height).saturating_sub(lines.len()).max(1);
    let width = usize::from(body.width);
    let items = flag_items(m);
    if items.is_empty() {
        lines.push(Line::from(Span::styled("no flags", DIM)));
    } else {
        let mut row: Vec<Span<'static>> = vec![Span::styled("⚑ ", DIM)];
        let mut rows_done = 0;
        for item in items {
            let used: usize = row.iter().map(Span::width).sum();
            let w: usize = item.iter().map(Span::width).sum();
            let fresh = row.len() <= 1;
            if !fresh && used + 3 + w > width && rows_done + 1 < room {
                lines.push(Line::from(std::mem::take(&mut row)));
                rows_done += 1;
                row.push(Span::raw("  "));
            } else if !fresh {
                row.push(Span::styled(" · ", DIM));
            }
            row.extend(item);
        }
        lines.push(Line::from(text::fit_spans(row, width)));
    }
    Paragraph::new(lines).render(body, buf);
}

/// The session record's two lines: when it ended (or that it is live) and its facts.
fn session_lines(m: &Model) -> Vec<Line<'static>> {
    let live = m.snapshot.last_session_live(m.now, m.stale_after);
    let mut lines: Vec<Line<'static>> = Vec::new();
    match (&m.snapshot.last_session, live) {
        (Some(l), Some(b)) => {
            lines.push(Line::from(vec![
                Span::styled("● live", Style::new().fg(Color::Green)),
                Span::raw(format!(
                    " {} · {}",
                    short(&b.session_id),
                    l.last_turn_words(m.now, m.zone)
                )),
            ]));
            lines.push(session_facts(l));
        }
        (Some(l), None) => {
            let ended = l.ended_words(m.now, m.zone);
            let fin = if l.is_final {
                Span::styled(
                    format!(
                        " · final{}",
                        l.reason
                            .as_ref()
                            .map(|r| format!(" ({})", single_line(r)))
                            .unwrap_or_default()
                    ),
                    Style::new().fg(Color::Green),
                )
            } else {
                Span::styled(" · not final", WARN)
            };
            lines.push(Line::from(vec![Span::raw(ended), fin]));
            lines.push(session_facts(l));
        }
        (None, _) => lines.push(Line::styled("none recorded yet", DIM)),
    }
    lines
}

/// The branch, uncommitted count and workflow a session record names.
fn session_facts(l: &crate::model::session::state::LastSession) -> Line<'static> {
    let mut facts = vec![Span::raw(format!(
        "⎇ {}",
        single_line(l.branch.as_deref().unwrap_or("(no branch)"))
    ))];
    let dirty = l.uncommitted_changes;
    facts.push(Span::styled(
        format!(" · {dirty} uncommitted"),
        if dirty > 0 { WARN } else { Style::new() },
    ));
    if l.forge_phase.is_some() || l.forge_task.is_some() {
        facts.push(Span::raw(format!(
            " · {} / {}",
            single_line(l.forge_phase.as_deref().unwrap_or("-")),
            single_line(l.forge_task.as_deref().unwrap_or("-"))
        )));
    }
    Line::from(facts)
}

/// The flags, one item each (the renderer puts `⚑ ` before the first and ` · `
/// between them, and wraps them whole).
fn flag_items(m: &Model) -> Vec<Vec<Span<'static>>> {
    let f = &m.snapshot.flags;
    let mut spans: Vec<Vec<Span<'static>>> = Vec::new();
    let mut push = |text: String, style: Style| {
        spans.push(vec![Span::styled(text, style)]);
    };
    if f.learn_pending {
        push("✎ learn pending".into(), Style::new().fg(Color::Magenta));
    }
    if f.threshold_fired {
        push("⚠ threshold fired".into(), WARN);
    }
    if let Some(p) = &f.pending_resume {
        let name = p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        push(
            format!("↻ resume {}", single_line(&name)),
            Style::new().fg(Color::Cyan),
        );
    }
    if !f.compaction_markers.is_empty() {
        push(format!("⟳ compacted ×{}", f.compaction_markers.len()), WARN);
    }
    if let Some(c) = m.snapshot.chains.iter().find(|c| c.is_running()) {
        push(
            format!(
                "⛓ forge run: session {}, {} handoff{}",
                c.sessions.len(),
                c.handoffs().count(),
                if c.handoffs().count() == 1 { "" } else { "s" }
            ),
            Style::new().fg(Color::Cyan),
        );
    }
    spans
}

/// The widths of the flag items as the layout wraps them: each with its separator
/// (`⚑ ` before the first, ` · ` before the others).
pub(crate) fn flag_widths(m: &Model) -> Vec<u16> {
    flag_items(m)
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let w: usize = item.iter().map(Span::width).sum();
            u16::try_from(w + if i == 0 { 2 } else { 3 }).unwrap_or(u16::MAX)
        })
        .collect()
}

/// The width the left column's text asks for: its widest line whole — the context's
/// title, the session record, the flags on one row, the sessions pane's title and each
/// row with its whole message.
pub(crate) fn left_want(m: &Model) -> u16 {
    let width = |spans: &[Span<'_>]| spans.iter().map(Span::width).sum::<usize>();
    let mut want = 2 + text::width("Context") + width(&context_extra(m));
    for l in session_lines(m) {
        want = want.max(2 + width(&l.spans));
    }
    want = want.max(
        2 + flag_widths(m)
            .iter()
            .map(|w| usize::from(*w))
            .sum::<usize>(),
    );
    want = want.max(2 + text::width("Needs attention") + text::width(&attention_count(m)));
    for s in m.attention_rows() {
        let msg = s
            .attention_message
            .as_deref()
            .map_or(0, |msg| 1 + text::width(&single_line(msg)));
        want = want.max(ATTENTION_ROW_FIXED + msg);
    }
    u16::try_from(want).unwrap_or(u16::MAX)
}

fn attention_style(a: Option<Attention>) -> Style {
    match a {
        Some(Attention::WaitingPermission) => Style::new().fg(Color::Red),
        Some(Attention::WaitingInput) => Style::new().fg(Color::Yellow),
        _ => DIM,
    }
}

/// The cells of a sessions row before its message: the cursor mark, the state word,
/// the short id and the age (`▶ permission b71d04f6  2m`).
const ATTENTION_ROW_FIXED: usize = 2 + 10 + 9 + 4;

/// The sessions pane's title tail: ` 2 · 3 live`, and how many are dismissed.
fn attention_count(m: &Model) -> String {
    let waiting = m
        .attention_rows()
        .iter()
        .filter(|s| s.attention.is_some_and(Attention::needs_attention))
        .count();
    // Dismissed rows are hidden, but their sessions are still live: counted as such.
    let (live, dismissed) = m.live_counts();
    let mut count = format!(" {waiting} · {live} live");
    if dismissed > 0 {
        let _ = write!(count, " · {dismissed} dismissed");
    }
    count
}

fn render_attention(m: &Model, area: Rect, buf: &mut Buffer) {
    let list = m.attention_rows();
    let dismissed = m.live_counts().1;
    let extra = vec![Span::styled(attention_count(m), DIM)];
    let focused = m.focus == Pane::Sessions;
    let body = indent(title(area, buf, "Needs attention", extra, focused), 0);
    if list.is_empty() {
        if let Some(r) = rows(indent(body, 2)).next() {
            let text = if dismissed > 0 {
                format!(
                    "{dismissed} live session{} dismissed: back with its next event",
                    if dismissed == 1 { "" } else { "s" }
                )
            } else {
                "no live session".to_owned()
            };
            Paragraph::new(Line::styled(text::fit(&text, usize::from(r.width)), DIM))
                .render(r, buf);
        }
        return;
    }
    let selected = m.sessions_selected.min(list.len() - 1);
    let height = usize::from(body.height.max(1));
    let first = selected.saturating_sub(height - 1);
    for (k, (r, s)) in rows(body).zip(list.iter().skip(first)).enumerate() {
        let when = s.last_event_at.as_deref().and_then(parse_iso);
        let word = match s.attention {
            Some(Attention::WaitingPermission) => "permission",
            Some(Attention::WaitingInput) => "input",
            Some(Attention::Busy) | None => "busy",
            Some(Attention::Ended) => "ended",
        };
        let mark = if focused && first + k == selected {
            "▶ "
        } else {
            "  "
        };
        let mut spans = vec![
            Span::raw(mark),
            Span::styled(format!("{word:<10}"), attention_style(s.attention)),
            Span::raw(format!(" {} {:>3}", short(&s.session_id), age(m.now, when))),
        ];
        // The message takes what is left of the row, cut with an ellipsis.
        if let Some(msg) = &s.attention_message {
            let used: usize = spans.iter().map(Span::width).sum();
            let room = usize::from(r.width).saturating_sub(used + 1);
            spans.push(Span::styled(
                format!(" {}", text::fit(&single_line(msg), room)),
                DIM,
            ));
        }
        Paragraph::new(Line::from(spans)).render(r, buf);
    }
}

fn drift_mark(m: &Model, h: &HandoffEntry) -> String {
    let d = m.drift(h);
    let mut s = String::new();
    if d.branch_changed.is_some() {
        s.push('⎇');
    }
    if d.dirtier.is_some() {
        s.push('±');
    }
    if d.stale_hours.is_some() {
        s.push('◷');
    }
    s
}

/// From this width the inbox shows each handoff's route (and a session handoff's
/// title in what is left).
pub(crate) const INBOX_WIDE: u16 = 50;

/// Cells of the inbox's task column; longer ids are cut with `…`.
const TASK_W: usize = 8;

fn render_inbox(m: &Model, area: Rect, buf: &mut Buffer) {
    let total = m.snapshot.handoffs.len();
    let focused = m.focus == Pane::Inbox;
    let body = title(area, buf, "Handoffs", inbox_title_tail(m, total), focused);
    if m.rows.is_empty() {
        if let Some(r) = rows(body).next() {
            let text = if total == 0 {
                "  no handoffs yet (.forge/handoffs/ is empty)"
            } else {
                "  nothing matches the filter (c clears it)"
            };
            Paragraph::new(Line::styled(text, DIM)).render(r, buf);
        }
        return;
    }
    let height = usize::from(body.height.max(1));
    // Keep the selection in view.
    let first = m.selected.saturating_sub(height - 1);
    for (i, (r, h)) in rows(body).zip(m.visible().skip(first)).enumerate() {
        let selected = first + i == m.selected;
        let mut line = inbox_row(m, h, selected, body.width);
        if let Some(n) = m.filter.needle() {
            line = text::highlight(line, &n, MATCH);
        }
        if selected {
            line = line.style(cursor_style(focused));
        }
        Paragraph::new(line).render(r, buf);
    }
}

/// The inbox title's tail: how many handoffs it shows (of how many), and the
/// filters in force.
fn inbox_title_tail(m: &Model, total: usize) -> Vec<Span<'static>> {
    let mut extra = vec![Span::styled(
        if m.rows.len() == total {
            format!(" {total}")
        } else {
            format!(" {} of {total}", m.rows.len())
        },
        DIM,
    )];
    let f = &m.filter;
    if f.is_active() {
        let mut parts = Vec::new();
        if !f.text.is_empty() {
            parts.push(format!("/{}", f.text));
        }
        if f.blocked_only {
            parts.push("blocked only".into());
        }
        if f.kind != KindFilter::All {
            parts.push(format!("{} only", f.kind.as_str()));
        }
        extra.push(Span::styled(format!(" · {}", parts.join(" · ")), WARN));
    }
    extra
}

/// One inbox row: cursor, kind, pending-resume mark, age, status, task; from
/// [`INBOX_WIDE`] cells the route, then the drift mark, the relay hand-over, and a
/// session handoff's title in what is left.
fn inbox_row(m: &Model, h: &HandoffEntry, selected: bool, width: u16) -> Line<'static> {
    // The route column from 50 cells (a row with it takes about 50).
    let wide = width >= INBOX_WIDE;
    let word = h.status_word();
    let status = match (&h.signal, h.kind) {
        (Some(SignalParse::Malformed { .. }), _) => "⚠malformed".to_owned(),
        // The kind column says S already: a session handoff's status is its trigger.
        (_, HandoffKind::Session) => match word {
            "context-threshold" => "threshold".to_owned(),
            w => text::fit(w, 10),
        },
        _ => word.to_owned(),
    };
    let status_st = match (&h.signal, h.kind) {
        (Some(_), _) => status_style(word),
        (None, _) => status_style("session"),
    };
    let kind = match h.kind {
        HandoffKind::Session => "S",
        HandoffKind::Agent => "A",
    };
    let resume = if m.is_pending_resume(h) { "↻" } else { " " };
    let mut spans = vec![
        Span::raw(if selected { "▶" } else { " " }),
        Span::styled(kind, DIM),
        Span::styled(resume, Style::new().fg(Color::Cyan)),
        Span::raw(format!(" {:>3} ", age(m.now, h.created))),
        Span::styled(format!("{status:<10} "), status_st),
        Span::raw(format!(
            "{} ",
            text::column(&single_line(h.task().unwrap_or("-")), TASK_W)
        )),
    ];
    // An agent handoff's route; a session handoff has none, and its title gets the
    // room.
    if wide && h.kind == HandoffKind::Agent {
        let route = h.route().unwrap_or_default();
        spans.push(Span::styled(
            format!("{} ", text::column(&single_line(&route), 18)),
            DIM,
        ));
    }
    spans.push(Span::styled(drift_mark(m, h), WARN));
    // A relay handoff: which hand-over of its `forge run` chain it is.
    if let Some((_, k)) = m.snapshot.chain_of(&h.path) {
        spans.push(Span::styled(format!("⛓{k}"), Style::new().fg(Color::Cyan)));
    }
    // A session handoff's title (what the session was doing) in what is left.
    if wide
        && let Some(t) = h
            .display_title()
            .filter(|t| !t.is_empty() && Some(*t) != h.task())
    {
        let used: usize = spans.iter().map(|s| text::width(&s.content)).sum();
        let room = usize::from(width).saturating_sub(used + 1);
        if room >= 8 {
            spans.push(Span::raw(format!(" {}", text::fit(&single_line(t), room))));
        }
    }
    Line::from(spans)
}

/// The row under a list's cursor: reversed in the focused pane, bold in the others.
fn cursor_style(focused: bool) -> Style {
    if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new().add_modifier(Modifier::BOLD)
    }
}

/// One frame of the dashboard, laid out: where each pane goes ([`layout::Plan`]) and
/// the preview's text wrapped to its pane. The loop computes it once per frame and
/// uses it to tell the model its page sizes ([`FrameLayout::viewport`],
/// [`FrameLayout::shown`], [`FrameLayout::first_match`]), to draw the frame
/// ([`Dashboard::layout`]) and, until the next frame, to hit-test clicks: what was
/// clicked is what is on the screen.
#[derive(Debug, Clone)]
pub(crate) struct FrameLayout {
    /// The frame's area.
    pub(crate) area: Rect,
    /// Where each pane goes.
    pub(crate) plan: layout::Plan,
    /// The preview's warnings and text, wrapped to its pane (when the frame shows
    /// it, or looks for the filter's text in it).
    preview: Option<PreviewLines>,
}

/// The preview's pinned warnings and its (scrolled) text, wrapped.
type PreviewLines = (Vec<Line<'static>>, Vec<Line<'static>>);

impl FrameLayout {
    /// Lays out a frame of `area` for `m`.
    pub(crate) fn of(m: &Model, area: Rect) -> Self {
        let plan = plan_of(m, area);
        let preview = plan
            .preview
            .filter(|_| !m.activity || m.seek_match)
            .map(|r| preview_parts(m, pane_body(r).width));
        Self {
            area,
            plan,
            preview,
        }
    }

    /// The preview's lines for a body `width` wide: the ones laid out, else made now.
    fn preview_lines(&self, m: &Model, width: u16) -> std::borrow::Cow<'_, PreviewLines> {
        match &self.preview {
            Some(p) => std::borrow::Cow::Borrowed(p),
            None => std::borrow::Cow::Owned(preview_parts(m, width)),
        }
    }

    /// The panes the frame shows, and the rows of the sessions pane's list.
    pub(crate) fn shown(&self) -> (Vec<Pane>, u16) {
        let plan = &self.plan;
        let mut panes = Vec::new();
        if plan.inbox.is_some() {
            panes.push(Pane::Inbox);
        }
        if plan.preview.is_some() {
            panes.push(Pane::Preview);
        }
        if plan.attention.is_some() {
            panes.push(Pane::Sessions);
        }
        let rows = plan
            .attention
            .map_or(1, |r| r.height.saturating_sub(1).max(1));
        (panes, rows)
    }

    /// The sizes the model pages and scrolls by: rows of the inbox list, rows of the
    /// preview text (below its pinned warnings) and the rows the preview text takes
    /// once wrapped to the pane.
    pub(crate) fn viewport(&self, m: &Model) -> (u16, u16, usize) {
        let plan = &self.plan;
        if m.activity {
            // The activity view takes the inbox's and the preview's room: it pages (and
            // clicks) by the rows of its list, as drawn.
            let rows = plan.list_area().map_or(1, |r| activity::list_height(m, r));
            return (rows, plan.preview_rows(), 0);
        }
        let Some(body) = plan.preview.map(pane_body) else {
            return (plan.inbox_rows(), plan.preview_rows(), 0);
        };
        let lines = self.preview_lines(m, body.width);
        let (pinned, text) = lines.as_ref();
        let rows = body.height.saturating_sub(pinned.len() as u16).max(1);
        (plan.inbox_rows(), rows, text.len())
    }

    /// The row of the preview text, wrapped as the frame shows it, where the filter's
    /// text first appears (for [`Model::seek_match`]).
    pub(crate) fn first_match(&self, m: &Model) -> Option<usize> {
        let needle = m.filter.needle()?;
        let body = self.plan.preview.map(pane_body)?;
        let lines = self.preview_lines(m, body.width);
        lines
            .1
            .iter()
            .position(|l| l.to_string().to_lowercase().contains(&needle))
    }
}

/// The layout of a frame of `area` for `m`.
pub(crate) fn plan_of(m: &Model, area: Rect) -> layout::Plan {
    let rows = m.attention_rows();
    let waiting = rows
        .iter()
        .filter(|s| s.attention.is_some_and(Attention::needs_attention))
        .count();
    let wide = area.width >= layout::WIDE;
    layout::plan(
        area,
        &layout::Needs {
            attention: rows.len(),
            waiting,
            // Only the two-column layout sizes by content.
            left_want: if wide { left_want(m) } else { 0 },
            flags: if wide { flag_widths(m) } else { Vec::new() },
        },
    )
}

/// The sizes the model pages and scrolls by, for a frame of `area`
/// ([`FrameLayout::viewport`]).
#[cfg(test)]
pub(crate) fn viewport(m: &Model, area: Rect) -> (u16, u16, usize) {
    FrameLayout::of(m, area).viewport(m)
}

/// The row of the preview text, wrapped as a frame of `area` shows it, where the
/// filter's text first appears ([`FrameLayout::first_match`]).
#[cfg(test)]
pub(crate) fn first_match(m: &Model, area: Rect) -> Option<usize> {
    FrameLayout::of(m, area).first_match(m)
}

/// A pane without its title row and margin (the preview's text, the activity list).
fn pane_body(area: Rect) -> Rect {
    indent(
        Rect {
            y: area.y + area.height.min(1),
            height: area.height.saturating_sub(1),
            ..area
        },
        2,
    )
}

/// The selected handoff's warnings (kept in view) and its text (scrolled), both
/// wrapped to `width`.
fn preview_parts(m: &Model, width: u16) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
    let w = usize::from(width);
    let Some(h) = m.selected_entry() else {
        return (Vec::new(), Vec::new());
    };
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(SignalParse::Malformed { reason }) = &h.signal {
        lines.push(Line::styled(
            format!("⚠ malformed Signal: {}", single_line(reason)),
            WARN.add_modifier(Modifier::BOLD),
        ));
    }
    if h.is_blocked() {
        lines.push(Line::styled(
            "⚑ blocked: this agent waits for an answer (r answers it)",
            status_style("blocked"),
        ));
    }
    // A Signal of the repository's inbox from another work tree says which.
    if let Some(o) = h
        .origin
        .as_deref()
        .filter(|o| std::path::Path::new(&o.worktree) != m.snapshot.root)
    {
        lines.push(Line::styled(
            format!("⇄ from {}", single_line(&o.words())),
            DIM,
        ));
    }
    if let Some(by) = &h.superseded_by {
        lines.push(Line::styled(
            format!(
                "✓ {} by {}: history, no longer counted",
                if h.signal_blocks() {
                    "resolved"
                } else {
                    "superseded"
                },
                single_line(by)
            ),
            DIM,
        ));
    }
    lines.extend(thread_lines(m, h));
    lines.extend(chain_lines(m, h));
    for note in m.drift(h).notes() {
        lines.push(Line::styled(format!("Δ {note}"), WARN));
    }
    if !lines.is_empty() {
        lines.push(Line::raw(""));
    }
    let pinned = lines
        .into_iter()
        .flat_map(|l| text::wrap(l, w, 2))
        .collect();
    let body = match &m.preview.text {
        Some(t) => markdown::render_wrapped(t, w),
        None => vec![Line::styled("loading…", DIM)],
    };
    (pinned, body)
}

/// How many Signals of a thread the preview lists.
const THREAD_SHOWN: usize = 5;

/// The history of `h`'s task when it has more than one Signal: newest first, the
/// one shown marked `▸`.
fn thread_lines(m: &Model, h: &HandoffEntry) -> Vec<Line<'static>> {
    let Some(task) = h.task().filter(|_| h.kind == HandoffKind::Agent) else {
        return Vec::new();
    };
    let thread = crate::model::handoff::entry::thread_of(&m.snapshot.handoffs, task);
    if thread.len() < 2 {
        return Vec::new();
    }
    let mut lines = vec![Line::styled(
        format!(
            "Thread {} · {} Signals, the newest is the task's state:",
            single_line(task),
            thread.len()
        ),
        TITLE,
    )];
    for t in thread.iter().take(THREAD_SHOWN) {
        let mark = if t.path == h.path { "▸" } else { " " };
        lines.push(Line::from(vec![
            Span::raw(format!("{mark} {:>4} ", age(m.now, t.created))),
            Span::styled(
                format!("{:<9} ", t.status_word()),
                status_style(t.status_word()),
            ),
            Span::styled(
                format!(
                    "{} {}",
                    single_line(&t.route().unwrap_or_default()),
                    single_line(&t.file_name)
                ),
                DIM,
            ),
        ]));
    }
    if thread.len() > THREAD_SHOWN {
        lines.push(Line::styled(
            format!("  … {} older", thread.len() - THREAD_SHOWN),
            DIM,
        ));
    }
    lines
}

/// The `forge run` chain of a relay handoff: its task and sessions in order, each
/// with how it ended and its handoff (the one shown marked `▸`).
fn chain_lines(m: &Model, h: &HandoffEntry) -> Vec<Line<'static>> {
    use crate::model::agents::relay::SessionEnd;
    let Some((chain, _)) = m.snapshot.chain_of(&h.path) else {
        return Vec::new();
    };
    let mut lines = vec![Line::styled(
        format!("Chain (forge run) · {}", single_line(&chain.summary())),
        TITLE,
    )];
    for (i, s) in chain.sessions.iter().enumerate() {
        let mine = s.handoff.as_deref().map(std::path::Path::new) == Some(h.path.as_path());
        let end = match s.end {
            SessionEnd::Running => "running",
            SessionEnd::Relayed => "relayed",
            SessionEnd::Exited => "exited",
            SessionEnd::Interrupted => "interrupted",
            SessionEnd::NotStarted => "not started",
        };
        let pct = s.context_pct.map(|p| format!(" {p}%")).unwrap_or_default();
        let file = s
            .handoff
            .as_deref()
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_owned())
            .unwrap_or_default();
        lines.push(Line::from(vec![
            Span::raw(format!("{} {}. ", if mine { "▸" } else { " " }, i + 1)),
            Span::raw(format!(
                "{} ",
                s.session_id
                    .as_deref()
                    .map_or_else(|| "?".to_owned(), short)
            )),
            Span::styled(format!("{end}{pct} "), status_style("session")),
            Span::styled(single_line(&file).into_owned(), DIM),
        ]));
    }
    lines
}

fn render_preview(m: &Model, area: Rect, laid: &FrameLayout, buf: &mut Buffer) {
    let focused = m.focus == Pane::Preview;
    let entry = m.selected_entry();
    let extra = entry
        .map(|h| vec![Span::styled(format!(" {}", single_line(&h.file_name)), DIM)])
        .unwrap_or_default();
    let body = indent(title(area, buf, "Preview", extra, focused), 2);
    if entry.is_none() {
        Paragraph::new(Line::styled("select a handoff to read it here", DIM)).render(body, buf);
        return;
    }
    let parts = laid.preview_lines(m, body.width);
    let (pinned, text) = parts.as_ref();
    // Never past the last page, even before the model has heard the pane's size.
    let rows = usize::from(body.height).saturating_sub(pinned.len());
    let skip = usize::from(m.preview.scroll).min(text.len().saturating_sub(rows.max(1)));
    let needle = m.filter.needle();
    // Only the rows that fit are drawn: only they are copied.
    let mut lines = pinned.clone();
    lines.extend(text.iter().skip(skip).take(rows).map(|l| match &needle {
        Some(n) => text::highlight(l.clone(), n, MATCH),
        None => l.clone(),
    }));
    Paragraph::new(lines).render(body, buf);
}

/// The footer: a notice, the filter prompt, or key hints from [`dashboard::KEYMAP`].
/// Hints that do not fit in `width` are left out whole, never cut in half.
fn footer(m: &Model, width: u16) -> Paragraph<'static> {
    if let Some(n) = &m.notice {
        return notice_line(n, width);
    }
    let mut spans = Vec::new();
    if m.mode == Mode::Filter {
        spans.push(Span::styled(
            format!(" /{}▏ ", m.filter.text),
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        ));
    }
    if m.mode == Mode::Answer
        && let Some(id) = &m.prompt_for
    {
        // The session's next prompt (`i`), its end kept in view, as the fleet
        // list shows it.
        let head = format!(
            " prompt {}: ",
            single_line(&crate::model::text::sanitize::short_id(id))
        );
        let tail = "▏  ⏎ send  Esc cancel";
        let room = usize::from(width).saturating_sub(unicode_width(&head) + unicode_width(tail));
        let typed = single_line(&m.answer).into_owned();
        let chars: Vec<char> = typed.chars().collect();
        let shown: String = chars[chars.len().saturating_sub(room)..].iter().collect();
        return Paragraph::new(Line::from(vec![
            Span::styled(head, Style::new().fg(Color::Cyan)),
            Span::raw(shown),
            Span::styled(tail, DIM),
        ]));
    }
    if m.mode == Mode::Answer {
        let task = m
            .answer_for
            .as_ref()
            .and_then(|p| m.snapshot.handoffs.iter().find(|h| &h.path == p))
            .and_then(HandoffEntry::task)
            .unwrap_or("?");
        // The typed answer keeps its end in view: the prompt shows its last part.
        let prompt = format!(" answer {}: ", single_line(task));
        let room = usize::from(width).saturating_sub(unicode_width(&prompt) + 24);
        let typed = single_line(&m.answer);
        let chars: Vec<char> = typed.chars().collect();
        let shown: String = chars[chars.len().saturating_sub(room.max(8))..]
            .iter()
            .collect();
        spans.push(Span::styled(
            format!("{prompt}{shown}▏ "),
            Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        ));
    }
    // Esc's hint only while it has a filter to clear (else q says it all).
    if m.mode == Mode::Normal && m.filter.is_active() {
        spans.push(Span::styled(" Esc", Style::new().fg(Color::Cyan)));
        spans.push(Span::styled(" clear filter ", DIM));
    }
    push_hints(&mut spans, m.mode, Some(m.focus), width, m.from_fleet);
    Paragraph::new(Line::from(spans))
}

/// A notice on the footer row: green, red when it is an error, cut to `width`.
fn notice_line(n: &dashboard::Notice, width: u16) -> Paragraph<'static> {
    let style = if n.error {
        Style::new().fg(Color::Red)
    } else {
        Style::new().fg(Color::Green)
    };
    let text = text::fit(&format!(" {}", single_line(&n.text)), usize::from(width));
    Paragraph::new(Line::styled(text, style))
}

/// Appends the footer hints of `mode` for the `focus`ed pane that fit in `width` after
/// `spans` (whole hints only); with `back`, q reads "back" (a dashboard opened from
/// the fleet list).
fn push_hints(
    spans: &mut Vec<Span<'static>>,
    mode: Mode,
    focus: Option<Pane>,
    width: u16,
    back: bool,
) {
    let mut used: usize = spans.iter().map(Span::width).sum();
    for b in dashboard::footer_bindings(mode, focus) {
        let mut h = hint(b);
        if back && b.action == dashboard::Action::Quit {
            h[1] = Span::styled(" back ", DIM);
        }
        let w: usize = h.iter().map(Span::width).sum();
        if used + w > usize::from(width) {
            continue;
        }
        used += w;
        spans.extend(h);
    }
}

fn hint(b: &Binding) -> [Span<'static>; 2] {
    let word = b.desc.split_whitespace().next().unwrap_or(b.desc);
    let word = match b.action {
        dashboard::Action::Resume => "resume",
        dashboard::Action::OpenConversation => "conversation",
        dashboard::Action::Dismiss => "dismiss",
        dashboard::Action::CopyId => "copy",
        dashboard::Action::ToggleBlocked => "blocked",
        dashboard::Action::CycleKind => "kind",
        dashboard::Action::NextPane => "pane",
        dashboard::Action::ToggleActivity => "activity",
        dashboard::Action::OpenProject => "open",
        dashboard::Action::GoToPane => "tmux",
        dashboard::Action::Approve => "approve",
        dashboard::Action::Deny => "deny",
        dashboard::Action::StartPrompt => "prompt",
        _ => word,
    };
    [
        Span::styled(format!(" {}", b.label), Style::new().fg(Color::Cyan)),
        Span::styled(format!(" {word} "), DIM),
    ]
}

/// The `?` help: every binding of [`dashboard::KEYMAP`], and what the marks mean.
fn render_help(m: &Model, area: Rect, buf: &mut Buffer) {
    let mut lines = help_keys(Mode::Normal, |b| {
        if m.from_fleet && b.action == dashboard::Action::Quit {
            "back to the fleet list (forge tui --all)"
        } else {
            b.desc
        }
    });
    // The keys of a prompt take one line each, so the help fits a side pane.
    for (mode, name) in [
        (Mode::Filter, "in /"),
        (Mode::Answer, "in r"),
        (Mode::Answer, "in i"),
    ] {
        let mut spans = vec![Span::styled(
            format!("{name:<5}"),
            Style::new().fg(Color::Cyan),
        )];
        for b in bindings(mode) {
            let mut h = hint(b);
            // After i, Enter sends the prompt to the session's pane.
            if name == "in i" && b.action == dashboard::Action::AnswerAccept {
                h[1] = Span::styled(" send ", DIM);
            }
            spans.extend(h);
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("Marks", TITLE));
    for (mark, what) in [
        ("S / A", "session / agent handoff"),
        ("↻", "the pending resume (⏎ sets it)"),
        ("⎇", "written on another branch"),
        ("±", "more uncommitted changes now"),
        ("◷", "older than 24 h"),
        ("⚠", "malformed Signal (never counts as complete)"),
        ("resolved", "answered by a newer Signal of its task"),
    ] {
        lines.push(Line::from(vec![
            Span::styled(format!("{mark:<6} "), WARN),
            Span::raw(what),
        ]));
    }
    lines.extend(help_words(&[
        (
            "L0–L3",
            "context level: L1 ≥70%, L2 ≥85%, L3 ≥95% (default)",
        ),
        (
            "threshold",
            "the % that writes a session's automatic handoff",
        ),
        ("final", "the session ended (SessionEnd), not just paused"),
        (
            "not final",
            "a turn stopped and it is not live: killed, or left",
        ),
        ("bridge", "a session's file in .forge/logs/sessions"),
        ("live", "not ended, heard from within stale_after"),
        ("drift", "what changed since the handoff: ⎇ ± ◷"),
        ("Signal", "an agent's status block; blocked ones wait"),
    ]));
    help_box(lines, m.help_scroll, area, buf);
}

/// The help's "Keys" section: every binding of `mode` from [`dashboard::KEYMAP`],
/// its keys then what it does (`desc` may say it for this screen).
fn help_keys(mode: Mode, desc: impl Fn(&Binding) -> &'static str) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled("Keys", TITLE)];
    for b in bindings(mode) {
        lines.push(Line::from(vec![
            Span::styled(format!("{:<6} ", b.label), Style::new().fg(Color::Cyan)),
            Span::raw(desc(b)),
        ]));
    }
    lines
}

/// The help's "Words" section, after a blank line: each word, then what it means.
fn help_words(words: &[(&'static str, &'static str)]) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(""), Line::styled("Words", TITLE)];
    for (word, what) in words {
        lines.push(Line::from(vec![
            Span::styled(format!("{word:<10} "), Style::new().fg(Color::Cyan)),
            Span::raw(*what),
        ]));
    }
    lines
}

/// Draws `lines` as the `?` help: a bordered box in the middle of `area` that
/// scrolls (from line `scroll`, never past its end) when the area is shorter.
fn help_box(lines: Vec<Line<'static>>, scroll: u16, area: Rect, buf: &mut Buffer) {
    let w = area.width.min(64);
    let lines = wrap_help(lines, usize::from(w.saturating_sub(2)));
    let h = area.height.min(lines.len() as u16 + 2);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    // It scrolls when the pane is shorter than the help; never past its end.
    let inner = h.saturating_sub(2);
    let max = (lines.len() as u16).saturating_sub(inner);
    let scroll = scroll.min(max);
    let title = if max > 0 {
        format!(
            " help {}/{} · ↑↓ scroll · ? or Esc closes ",
            scroll + inner.min(lines.len() as u16),
            lines.len()
        )
    } else {
        " help · ? or Esc closes ".to_owned()
    };
    Clear.render(r, buf);
    Paragraph::new(lines)
        .scroll((scroll, 0))
        .block(
            ratatui::widgets::Block::bordered()
                .title(title)
                .border_style(Style::new().fg(Color::Cyan)),
        )
        .render(r, buf);
}

/// The help's lines fitted to `width`: a key's or word's text that is too long goes
/// on under itself, word by word, so no line of the help is cut.
fn wrap_help(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let [label, desc] = line.spans.as_slice() else {
            out.push(line);
            continue;
        };
        let indent = text::width(&label.content);
        let room = width.saturating_sub(indent);
        if text::width(&desc.content) <= room || room < 12 {
            out.push(line);
            continue;
        }
        let mut rows: Vec<String> = vec![String::new()];
        for word in desc.content.split(' ') {
            let cur = rows.last_mut().map_or(0, |r| text::width(r));
            if cur > 0 && cur + 1 + text::width(word) > room {
                rows.push(String::new());
            }
            if let Some(r) = rows.last_mut() {
                if !r.is_empty() {
                    r.push(' ');
                }
                r.push_str(word);
            }
        }
        for (i, row) in rows.into_iter().enumerate() {
            let head = if i == 0 {
                label.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            out.push(Line::from(vec![head, Span::styled(row, desc.style)]));
        }
    }
    out
}

fn render_tiny(m: &Model, plan: &layout::Plan, buf: &mut Buffer) {
    if let Some(r) = plan.header {
        Paragraph::new(Line::from(tiny_summary(m, usize::from(r.width)))).render(r, buf);
    }
    if let Some(r) = plan.inbox {
        for (row, h) in rows(r).zip(m.visible()) {
            Paragraph::new(Line::from(vec![
                Span::styled(
                    format!("{} ", h.status_word()),
                    status_style(h.status_word()),
                ),
                Span::raw(single_line(h.task().unwrap_or("-")).into_owned()),
            ]))
            .render(row, buf);
        }
    }
    if let Some(r) = plan.footer {
        Paragraph::new(Line::styled("q quit", DIM)).render(r, buf);
    }
}

/// The one-line summary of a tiny pane, every number with its word: `⚑1 blocked ·
/// ctx 74% · forge · 6 handoffs` as room allows. Blocked Signals matter most, then
/// the context, then the rest; what does not fit is left out whole. Below ten cells
/// the short forms (`⚑1 74%`) are used before anything is cut.
fn tiny_summary(m: &Model, width: usize) -> Vec<Span<'static>> {
    let s = &m.snapshot;
    // (priority, long form, short form, style), in display order.
    let mut parts: Vec<(u8, String, String, Style)> = Vec::new();
    parts.push((2, "forge".into(), String::new(), TITLE));
    let blocked = s.blocked().count();
    if blocked > 0 {
        parts.push((
            0,
            format!("⚑{blocked} blocked"),
            format!("⚑{blocked}"),
            status_style("blocked"),
        ));
    }
    if let Some(c) = m.context()
        && let (Some(p), Some(l)) = (c.pct, c.level)
    {
        parts.push((
            1,
            format!("ctx {p:.0}%"),
            format!("{p:.0}%"),
            Style::new().fg(level_color(l)),
        ));
    }
    let n = s.handoffs.len();
    parts.push((
        3,
        format!("{n} handoff{}", if n == 1 { "" } else { "s" }),
        String::new(),
        DIM,
    ));
    let line = |k: usize, short: bool| -> Vec<Span<'static>> {
        let mut ranks: Vec<u8> = parts.iter().map(|p| p.0).collect();
        ranks.sort_unstable();
        let cut = ranks.get(k - 1).copied().unwrap_or(u8::MAX);
        let sep = if short { " " } else { " · " };
        let mut spans = Vec::new();
        for (rank, long, brief, style) in &parts {
            let text = if short { brief } else { long };
            if *rank > cut || text.is_empty() {
                continue;
            }
            if !spans.is_empty() {
                spans.push(Span::styled(sep, DIM));
            }
            spans.push(Span::styled(text.clone(), *style));
        }
        spans
    };
    let fits = |spans: &Vec<Span<'static>>| {
        spans.iter().map(|s| text::width(&s.content)).sum::<usize>() <= width
    };
    for short in [false, true] {
        for k in (1..=parts.len()).rev() {
            let spans = line(k, short);
            if !spans.is_empty() && fits(&spans) {
                return spans;
            }
        }
    }
    text::fit_spans(line(1, true), width)
}

/// One frame of `widget` at `width`×`height` as plain text (for `--once`).
pub(crate) fn frame_text(widget: impl Widget, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    widget.render(area, &mut buf);
    buffer_text(&buf)
}

/// The text of a buffer, one line per row, trailing spaces trimmed (for `--once`).
pub(crate) fn buffer_text(buf: &Buffer) -> String {
    let mut out = String::new();
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut skip = 0usize;
        for x in area.left()..area.right() {
            let Some(cell) = buf.cell((x, y)) else {
                continue;
            };
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = cell.symbol();
            line.push_str(sym);
            skip = unicode_width(sym).saturating_sub(1);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn unicode_width(s: &str) -> usize {
    use ratatui::text::Span;
    Span::raw(s).width()
}

#[cfg(test)]
mod tests;
