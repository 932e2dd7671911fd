//! Where each pane goes for a given terminal size.
//!
//! A pure function of the area and of what the panes hold ([`Needs`]), computed once
//! per frame ([`super::FrameLayout`]) and shared by the renderer, by the loop (mouse
//! hit-testing, page sizes) and by tests. Space is handed
//! out by priority — the header, the footer and the inbox first — so a tiny side pane
//! shows what matters most instead of squeezing everything to nothing.
//!
//! In two columns the left one is as wide as its text asks ([`left_width`]): at
//! least [`LEFT_MIN`], and as much more as it needs while the right one keeps
//! [`RIGHT_MIN`], up to 55 % of the width. So at 120 columns a waiting
//! session's message is not cut while the inbox keeps its route column, and at 200 the
//! left column stops where its text does.

use ratatui::layout::Rect;

use crate::model::dashboard::Pane;

/// Width from which the dashboard uses two columns.
pub(crate) const WIDE: u16 = 110;
/// The least width of the left column in the two-column layout.
pub(crate) const LEFT_MIN: u16 = 44;
/// The least width the right column keeps (the inbox shows its route column from
/// `ui::INBOX_WIDE`, 50 cells).
pub(crate) const RIGHT_MIN: u16 = 53;

/// Context section height: title, gauge, sparkline, trend.
pub(crate) const CONTEXT_H: u16 = 4;
/// Last session + flags section height (with the flags on one row).
pub(crate) const SESSION_H: u16 = 4;

/// What the panes hold, as far as the layout cares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Needs {
    /// Rows of the sessions pane.
    pub(crate) attention: usize,
    /// How many of them wait for a person (they beat the sparkline).
    pub(crate) waiting: usize,
    /// The width the left column's text asks for (two-column layout).
    pub(crate) left_want: u16,
    /// The widths of the flag items, each with its separator: in two columns they
    /// wrap whole to the column ([`flag_rows`]); one column keeps them on one row.
    pub(crate) flags: Vec<u16>,
}

/// The rows `items` (widths, each with its separator) take when wrapped whole to
/// `width`: at least one.
pub(crate) fn flag_rows(items: &[u16], width: u16) -> u16 {
    let mut rows = 1u16;
    let mut used = 0u16;
    for &w in items {
        if used > 0 && used.saturating_add(w) > width {
            rows += 1;
            used = 0;
        }
        used = used.saturating_add(w);
    }
    rows
}

/// The left column's width in the two-column layout of a `width`-wide area, for text
/// that asks for `want`.
pub(crate) fn left_width(width: u16, want: u16) -> u16 {
    let most = width
        .saturating_sub(RIGHT_MIN + 1)
        .min(width * 11 / 20)
        .max(LEFT_MIN);
    want.clamp(LEFT_MIN, most)
}

/// The rectangles of one frame. A section that does not fit is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Plan {
    /// One-line header.
    pub(crate) header: Option<Rect>,
    /// Context gauge.
    pub(crate) context: Option<Rect>,
    /// Last session and flags.
    pub(crate) session: Option<Rect>,
    /// Sessions needing attention.
    pub(crate) attention: Option<Rect>,
    /// Handoff inbox.
    pub(crate) inbox: Option<Rect>,
    /// Preview of the selected handoff.
    pub(crate) preview: Option<Rect>,
    /// One-line footer (keys, notices, filter prompt).
    pub(crate) footer: Option<Rect>,
    /// Too small for sections: one summary line in `header`.
    pub(crate) tiny: bool,
}

impl Plan {
    /// Rows available for list items in the inbox (its title excluded).
    pub(crate) fn inbox_rows(&self) -> u16 {
        self.inbox.map_or(1, |r| r.height.saturating_sub(1).max(1))
    }
    /// Rows available for preview text (its title excluded).
    pub(crate) fn preview_rows(&self) -> u16 {
        self.preview
            .map_or(1, |r| r.height.saturating_sub(1).max(1))
    }
    /// The inbox and the preview together (they are stacked in every layout): where
    /// the activity view goes while it is shown.
    pub(crate) fn list_area(&self) -> Option<Rect> {
        match (self.inbox, self.preview) {
            (Some(i), Some(p)) => Some(i.union(p)),
            (i, p) => i.or(p),
        }
    }
    /// The focusable pane under a terminal cell.
    pub(crate) fn pane_at(&self, col: u16, row: u16) -> Option<Pane> {
        let hit = |r: Option<Rect>| {
            r.is_some_and(|r| {
                col >= r.x && col < r.x + r.width && row >= r.y && row < r.y + r.height
            })
        };
        if hit(self.inbox) {
            Some(Pane::Inbox)
        } else if hit(self.preview) {
            Some(Pane::Preview)
        } else if hit(self.attention) {
            Some(Pane::Sessions)
        } else {
            None
        }
    }
}

#[cfg(test)]
thread_local! {
    /// How many plans this thread has computed: a frame computes one.
    pub(crate) static PLANS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Lays out `area` for panes that hold `needs`.
pub(crate) fn plan(area: Rect, needs: &Needs) -> Plan {
    #[cfg(test)]
    PLANS.with(|n| n.set(n.get() + 1));
    let (attention, waiting) = (needs.attention, needs.waiting);
    if area.width < 16 || area.height < 6 {
        return tiny(area);
    }
    let header = row(area, area.y);
    let footer = row(area, area.y + area.height - 1);
    let body = Rect {
        y: area.y + 1,
        height: area.height - 2,
        ..area
    };
    let attention_h = 1 + (attention.clamp(1, 4) as u16);
    if area.width >= WIDE && area.height >= 14 {
        let lw = left_width(area.width, needs.left_want);
        let left = Rect { width: lw, ..body };
        let right = Rect {
            x: body.x + lw + 1,
            width: body.width - lw - 1,
            ..body
        };
        // The flags wrap (whole) to the column, under the session's two lines; the
        // sessions pane keeps its title and three rows.
        let flags = flag_rows(&needs.flags, lw.saturating_sub(2));
        let room = body
            .height
            .saturating_sub(CONTEXT_H + SESSION_H + 4)
            .saturating_add(1);
        let session_h = SESSION_H - 1 + flags.clamp(1, room.max(1));
        let mut col = Stack::new(left);
        let context = col.take(CONTEXT_H);
        let session = col.take(session_h);
        let attention = col.rest();
        let split = (right.height * 2 / 5).max(4).min(right.height);
        let inbox = Rect {
            height: split,
            ..right
        };
        let preview = Rect {
            y: right.y + split,
            height: right.height - split,
            ..right
        };
        return Plan {
            header: Some(header),
            context,
            session,
            attention,
            inbox: Some(inbox),
            preview: (preview.height >= 2).then_some(preview),
            footer: Some(footer),
            tiny: false,
        };
    }
    // One column. Heights are granted by priority: inbox (3), context, session,
    // attention, preview (5); what is left goes to the inbox and the preview.
    let mut left = body.height;
    let grant = |left: &mut u16, want: u16| {
        if *left >= want {
            *left -= want;
            want
        } else {
            0
        }
    };
    let inbox_min = grant(&mut left, 3.min(body.height));
    // A session waiting for you comes before the context's sparkline and trend: its
    // title and the most urgent row first, then the gauge.
    let waiting_h = if waiting > 0 { grant(&mut left, 2) } else { 0 };
    let context_h = match grant(&mut left, CONTEXT_H) {
        0 if waiting > 0 => grant(&mut left, 2),
        h => h,
    };
    let session_h = grant(&mut left, SESSION_H);
    // The sessions pane shrinks before it goes: its title and the most urgent row
    // are worth more than the rest of it.
    let attention_h = if waiting_h > 0 {
        waiting_h + grant(&mut left, attention_h - waiting_h)
    } else if left >= attention_h {
        grant(&mut left, attention_h)
    } else {
        grant(&mut left, 2)
    };
    let preview_min = grant(&mut left, 5);
    let (inbox_h, preview_h) = if preview_min > 0 {
        let extra_inbox = left * 2 / 5;
        (inbox_min + extra_inbox, preview_min + left - extra_inbox)
    } else {
        (inbox_min + left, 0)
    };
    let mut col = Stack::new(body);
    Plan {
        header: Some(header),
        context: col.take(context_h),
        session: col.take(session_h),
        attention: col.take(attention_h),
        inbox: col.take(inbox_h),
        preview: col.take(preview_h),
        footer: Some(footer),
        tiny: false,
    }
}

fn tiny(area: Rect) -> Plan {
    if area.width == 0 || area.height == 0 {
        return Plan {
            tiny: true,
            ..Plan::default()
        };
    }
    Plan {
        header: Some(row(area, area.y)),
        footer: (area.height >= 2).then(|| row(area, area.y + area.height - 1)),
        inbox: (area.height >= 4).then(|| Rect {
            y: area.y + 1,
            height: area.height - 2,
            ..area
        }),
        tiny: true,
        ..Plan::default()
    }
}

fn row(area: Rect, y: u16) -> Rect {
    Rect {
        y,
        height: 1,
        ..area
    }
}

/// Hands out rows from the top of a column.
struct Stack {
    area: Rect,
    used: u16,
}

impl Stack {
    fn new(area: Rect) -> Self {
        Self { area, used: 0 }
    }
    fn take(&mut self, h: u16) -> Option<Rect> {
        let h = h.min(self.area.height - self.used);
        if h == 0 {
            return None;
        }
        let r = Rect {
            y: self.area.y + self.used,
            height: h,
            ..self.area
        };
        self.used += h;
        Some(r)
    }
    fn rest(&mut self) -> Option<Rect> {
        self.take(self.area.height - self.used)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inside(outer: Rect, r: Option<Rect>) {
        if let Some(r) = r {
            assert!(
                r.x >= outer.x
                    && r.y >= outer.y
                    && r.x + r.width <= outer.x + outer.width
                    && r.y + r.height <= outer.y + outer.height,
                "{r:?} outside {outer:?}"
            );
        }
    }

    fn needs(attention: usize, waiting: usize) -> Needs {
        Needs {
            attention,
            waiting,
            ..Needs::default()
        }
    }

    #[test]
    fn every_size_stays_inside_the_area() {
        for w in 0..210 {
            for h in 0..40 {
                let area = Rect::new(0, 0, w, h);
                let p = plan(area, &needs(2, 1));
                let wide = plan(
                    area,
                    &Needs {
                        left_want: 500,
                        flags: vec![60; 6],
                        ..needs(3, 2)
                    },
                );
                for p in [p, wide] {
                    for r in [
                        p.header,
                        p.context,
                        p.session,
                        p.attention,
                        p.inbox,
                        p.preview,
                        p.footer,
                    ] {
                        inside(area, r);
                    }
                }
            }
        }
    }

    #[test]
    fn small_panes_keep_the_inbox_and_drop_the_rest() {
        let p = plan(Rect::new(0, 0, 40, 9), &needs(1, 0));
        assert!(p.inbox.is_some() && p.context.is_some());
        assert!(p.preview.is_none());
        let p = plan(Rect::new(0, 0, 10, 3), &needs(0, 0));
        assert!(p.tiny && p.header.is_some() && p.inbox.is_none());
        let p = plan(Rect::new(0, 0, 60, 40), &needs(1, 0));
        assert!(p.preview.unwrap().height > 5 && p.inbox.unwrap().height > 3);
        assert_eq!(p.pane_at(1, p.inbox.unwrap().y), Some(Pane::Inbox));
        assert_eq!(p.pane_at(1, p.preview.unwrap().y + 1), Some(Pane::Preview));
        assert_eq!(p.pane_at(1, 0), None);
    }

    #[test]
    fn a_session_waiting_for_you_beats_the_sparkline() {
        // Nine rows: nobody waiting, the context keeps its sparkline and trend.
        let p = plan(Rect::new(0, 0, 40, 9), &needs(1, 0));
        assert_eq!(p.context.unwrap().height, CONTEXT_H);
        assert!(p.attention.is_none());
        // Somebody waiting: the sessions pane shows its title and that session; the
        // context keeps its title and gauge.
        let p = plan(Rect::new(0, 0, 40, 9), &needs(1, 1));
        assert_eq!(p.attention.unwrap().height, 2);
        assert_eq!(p.context.unwrap().height, 2);
        assert_eq!(p.inbox.unwrap().height, 3);
        // Busy sessions alone do not push the context aside.
        let p = plan(Rect::new(0, 0, 40, 9), &needs(3, 0));
        assert_eq!(p.context.unwrap().height, CONTEXT_H);
    }

    #[test]
    fn the_left_column_is_as_wide_as_its_text_asks_while_the_right_keeps_its_share() {
        // Short text: the least width.
        assert_eq!(left_width(120, 30), LEFT_MIN);
        // At 120: what the text asks, while the right column keeps RIGHT_MIN.
        assert_eq!(left_width(120, 58), 58);
        assert_eq!(left_width(120, 90), 120 - RIGHT_MIN - 1);
        // At 200: what the text asks, up to 55 %.
        assert_eq!(left_width(200, 77), 77);
        assert_eq!(left_width(200, 150), 110);
        // Just wide enough for two columns, and narrower: never below the least width.
        assert_eq!(left_width(WIDE, 90), WIDE - RIGHT_MIN - 1);
        assert_eq!(left_width(90, 90), LEFT_MIN);
        // Flags wrap whole.
        assert_eq!(flag_rows(&[17, 20, 38], 56), 2);
        assert_eq!(flag_rows(&[17, 20, 38], 75), 1);
        assert_eq!(flag_rows(&[], 10), 1);
        assert_eq!(flag_rows(&[30, 30, 30], 29), 3);
        let n = Needs {
            attention: 2,
            waiting: 1,
            left_want: 90,
            flags: vec![17, 20, 38],
        };
        let p = plan(Rect::new(0, 0, 120, 30), &n);
        let left = 120 - RIGHT_MIN - 1;
        assert_eq!(p.context.unwrap().width, left);
        assert_eq!(p.session.unwrap().height, SESSION_H + 1, "the flags wrap");
        assert_eq!(p.inbox.unwrap().x, left + 1);
        assert_eq!(p.inbox.unwrap().width, RIGHT_MIN);
        let p = plan(Rect::new(0, 0, 200, 30), &n);
        assert_eq!(p.context.unwrap().width, 90);
        assert_eq!(p.session.unwrap().height, SESSION_H, "one row of flags");
        assert_eq!(p.inbox.unwrap().width, 200 - 91);
        // However many flag rows, the sessions pane keeps its title and rows.
        let crowded = Needs {
            flags: vec![40; 8],
            ..n
        };
        for h in 14..40 {
            let p = plan(Rect::new(0, 0, 120, h), &crowded);
            assert!(p.attention.is_some_and(|a| a.height >= 2), "{h}: {p:?}");
        }
    }

    #[test]
    fn wide_panes_use_two_columns() {
        let p = plan(Rect::new(0, 0, 140, 40), &needs(1, 0));
        assert_eq!(p.context.unwrap().x, 0);
        assert!(p.inbox.unwrap().x > 40);
    }
}
