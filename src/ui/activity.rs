//! The activity view: what forge did, newest first, in place of the handoff inbox
//! and preview while `a` shows it. The rows are `Model::activity_rows` (the same
//! ones `forge log` prints); ages come from `Model::now`. A cursor moves through
//! the rows; the one under it is shown whole below the list (a row is one line, cut
//! to the pane, and the why is often at its end).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::{DIM, TITLE, cursor_style, indent, pane_body, rows, text, title};
use crate::model::activity::{Row, Tone, short_session};
use crate::model::dashboard::{Model, Pane};
use crate::model::text::sanitize::single_line;
use crate::model::time::{Zone, age};

/// Rows the whole text of the row under the cursor may take (its heading included).
const DETAIL_MAX: u16 = 5;

/// The whole text of the row under the cursor, when `body` has room for it.
fn detail_of(m: &Model, list: &[Row], body: Rect) -> Vec<Line<'static>> {
    let selected = m.activity_selected.min(list.len().saturating_sub(1));
    list.get(selected)
        .map(|r| detail_lines(r, usize::from(body.width), m.zone))
        .filter(|_| body.height >= 8)
        .unwrap_or_default()
}

/// The rows of the list itself in `area` (the view's whole area, title included):
/// what the model pages and clicks by, as [`render`] draws it.
pub(crate) fn list_height(m: &Model, area: Rect) -> u16 {
    let body = pane_body(area);
    let list = m.activity_rows();
    let detail_h = (detail_of(m, &list, body).len() as u16).min(DETAIL_MAX);
    body.height.saturating_sub(detail_h).max(1)
}

/// Draws the activity view into `area` (its title row included).
pub(crate) fn render(m: &Model, area: Rect, buf: &mut Buffer) {
    let list = m.activity_rows();
    let focused = m.focus == Pane::Activity;
    let extra = vec![Span::styled(
        format!(" {} · newest first · a: back to handoffs", list.len()),
        DIM,
    )];
    let body = indent(title(area, buf, "What forge did", extra, focused), 2);
    if list.is_empty() {
        if let Some(r) = rows(body).next() {
            Paragraph::new(Line::styled(
                "nothing yet: hooks record each call in .forge/logs/events.jsonl",
                DIM,
            ))
            .render(r, buf);
        }
        return;
    }
    let selected = m.activity_selected.min(list.len() - 1);
    // The row under the cursor, whole, below the list when there is room for both.
    let detail = detail_of(m, &list, body);
    let detail_h = (detail.len() as u16).min(DETAIL_MAX);
    let list_area = Rect {
        height: body.height - detail_h,
        ..body
    };
    let height = usize::from(list_area.height.max(1));
    let first = selected.saturating_sub(height - 1);
    let wide = list_area.width >= 90;
    let label_w = if wide { 22 } else { 20 };
    let mut drawn: u16 = 0;
    for (i, (r, row)) in rows(list_area).zip(list.iter().skip(first)).enumerate() {
        drawn += 1;
        let style = match row.tone {
            Tone::Did => Style::new(),
            Tone::Quiet => DIM,
            Tone::Error => Style::new().fg(Color::Red),
        };
        let mut spans = vec![Span::styled(format!("{:>3} ", age(m.now, row.time)), DIM)];
        if list_area.width >= 60 {
            spans.push(Span::styled(format!("{:<8} ", session(row)), DIM));
        }
        spans.push(Span::raw(format!(
            "{} ",
            text::column(&single_line(&row.label), label_w)
        )));
        spans.push(Span::styled(single_line(&row.text).into_owned(), style));
        let mut line = Line::from(text::fit_spans(spans, usize::from(r.width)));
        if first + i == selected {
            line = line.style(cursor_style(focused));
        }
        Paragraph::new(line).render(r, buf);
    }
    // Right under a short list (after a blank row), else at the bottom.
    let detail_area = Rect {
        y: (list_area.y + drawn + 1).min(list_area.y + list_area.height),
        height: detail_h,
        ..body
    };
    let mut detail = detail;
    if detail.len() > usize::from(detail_h) {
        detail.truncate(usize::from(detail_h));
        // More than fits: the last row shown says so.
        if let Some(last) = detail.pop() {
            let spans = last.spans.clone();
            let mut spans = text::fit_spans(spans, usize::from(body.width).saturating_sub(1));
            spans.push(Span::raw(text::ELLIPSIS.to_string()));
            detail.push(Line::from(spans).style(last.style));
        }
    }
    Paragraph::new(detail).render(detail_area, buf);
}

fn session(row: &Row) -> String {
    row.session
        .as_deref()
        .map_or_else(|| "-".to_owned(), short_session)
}

/// The row under the cursor: a heading (when, which session, which event), then its
/// text wrapped to `width`.
fn detail_lines(row: &Row, width: usize, zone: Zone) -> Vec<Line<'static>> {
    let when = row
        .time
        .map_or_else(|| "?".to_owned(), |t| zone.clock_secs(t));
    let heading = format!(
        "── {when} · {} · {}",
        single_line(row.session.as_deref().unwrap_or("no session")),
        single_line(&row.label)
    );
    let mut out = vec![Line::styled(text::fit(&heading, width), TITLE)];
    let style = match row.tone {
        Tone::Error => Style::new().fg(Color::Red),
        _ => Style::new(),
    };
    out.extend(text::wrap(
        Line::styled(single_line(&row.text).into_owned(), style),
        width,
        2,
    ));
    out
}
