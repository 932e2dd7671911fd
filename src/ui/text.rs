//! Fitting text into cells: display widths, cutting with `…` (never silently in
//! the middle of a word), and word wrapping with a hanging indent.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// The mark that says "there was more".
pub(crate) const ELLIPSIS: char = '…';

/// Display width of one character (control characters count 0).
pub(crate) fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// Display width of `s`.
pub(crate) fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// `s` cut to at most `max` cells, ending in `…` when anything was cut.
pub(crate) fn fit(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = char_width(c);
        if used + w > max - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push(ELLIPSIS);
    out
}

/// `s` cut like [`fit`] and padded with spaces to exactly `cells` wide (a column).
pub(crate) fn column(s: &str, cells: usize) -> String {
    let mut out = fit(s, cells);
    let w = width(&out);
    out.extend(std::iter::repeat_n(' ', cells.saturating_sub(w)));
    out
}

/// Styled spans cut to at most `max` cells; when something was cut the last cell is
/// `…` in the style of the span it cut.
pub(crate) fn fit_spans(spans: Vec<Span<'static>>, max: usize) -> Vec<Span<'static>> {
    let total: usize = spans.iter().map(|s| width(&s.content)).sum();
    if total <= max {
        return spans;
    }
    let mut out = Vec::new();
    let mut left = max;
    for s in spans {
        let w = width(&s.content);
        if w < left {
            left -= w;
            out.push(s);
            continue;
        }
        // This span holds the last cell: cut it and end with the mark.
        let cut = fit(&s.content, left);
        if !cut.is_empty() {
            out.push(Span::styled(cut, s.style));
        }
        break;
    }
    out
}

/// Word-wraps `line` to `width` cells. Continuation rows start with `hang` spaces, so
/// a wrapped list item stays under its text rather than under its bullet. A word
/// longer than a row is broken. The line's own style is kept on every row.
pub(crate) fn wrap(line: Line<'static>, width: usize, hang: usize) -> Vec<Line<'static>> {
    let total: usize = line.spans.iter().map(|s| self::width(&s.content)).sum();
    if width == 0 || total <= width {
        return vec![line];
    }
    // A hang that leaves almost no room helps nobody.
    let hang = if hang * 2 > width { 0 } else { hang };
    let chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    let mut i = 0;
    while i < chars.len() {
        // The next piece: a run of spaces, or a word.
        let space = chars[i].0 == ' ';
        let end = chars[i..]
            .iter()
            .position(|(c, _)| (*c == ' ') != space)
            .map_or(chars.len(), |n| i + n);
        let piece = &chars[i..end];
        let pw: usize = piece.iter().map(|(c, _)| char_width(*c)).sum();
        let fresh = rows.len() > 1 && used == hang;
        if used + pw <= width {
            // Spaces at the start of a continuation row are dropped.
            if !(space && fresh)
                && let Some(row) = rows.last_mut()
            {
                row.extend_from_slice(piece);
                used += pw;
            }
        } else if space {
            // Spaces at the end of a row become the break.
            if !fresh {
                new_row(&mut rows, &mut used, hang);
            }
        } else if pw <= width - hang && !(fresh || used == 0) {
            new_row(&mut rows, &mut used, hang);
            if let Some(row) = rows.last_mut() {
                row.extend_from_slice(piece);
            }
            used += pw;
        } else {
            // Longer than a row: break the word where the row ends.
            for &(c, st) in piece {
                let cw = char_width(c);
                if used + cw > width && used > hang {
                    new_row(&mut rows, &mut used, hang);
                }
                if let Some(row) = rows.last_mut() {
                    row.push((c, st));
                }
                used += cw;
            }
        }
        i = end;
    }
    let style = line.style;
    let alignment = line.alignment;
    rows.into_iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            let mut l = Line::from(spans_of(&r)).style(style);
            l.alignment = alignment;
            l
        })
        .collect()
}

fn new_row(rows: &mut Vec<Vec<(char, Style)>>, used: &mut usize, hang: usize) {
    if let Some(row) = rows.last_mut() {
        while row.last().is_some_and(|(c, _)| *c == ' ') {
            row.pop();
        }
    }
    rows.push(vec![(' ', Style::new()); hang]);
    *used = hang;
}

fn spans_of(chars: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for &(c, st) in chars {
        if style.is_some_and(|s| s != st) {
            out.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(st);
        text.push(c);
    }
    if !text.is_empty() {
        out.push(Span::styled(text, style.unwrap_or_default()));
    }
    out
}

/// `line` with every case-insensitive occurrence of `needle` (lowercase) in its
/// text marked with `mark` added to the span's style (matches may cross spans).
pub(crate) fn highlight(line: Line<'static>, needle: &str, mark: Style) -> Line<'static> {
    let want: Vec<char> = needle.chars().collect();
    if want.is_empty() {
        return line;
    }
    let mut chars: Vec<(char, Style)> = line
        .spans
        .iter()
        .flat_map(|s| {
            let st = line.style.patch(s.style);
            s.content.chars().map(move |c| (c, st))
        })
        .collect();
    // One lowercase char per char, so positions line up (a char whose lowercase is
    // longer than one char compares by its first).
    let low: Vec<char> = chars
        .iter()
        .map(|(c, _)| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let mut i = 0;
    let mut found = false;
    while i + want.len() <= low.len() {
        if low[i..i + want.len()] == want[..] {
            for (_, st) in &mut chars[i..i + want.len()] {
                *st = st.patch(mark);
            }
            found = true;
            i += want.len();
        } else {
            i += 1;
        }
    }
    if !found {
        return line;
    }
    Line::from(spans_of(&chars)).alignment(line.alignment.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    #[test]
    fn highlight_marks_every_match_without_case_across_spans() {
        let mark = Style::new().add_modifier(ratatui::style::Modifier::UNDERLINED);
        let line = Line::from(vec![
            Span::raw("Pool po"),
            Span::styled("ol", Style::new().fg(Color::Red)),
        ]);
        let out = highlight(line, "pool", mark);
        let marked: String = out
            .spans
            .iter()
            .filter(|s| {
                s.style
                    .add_modifier
                    .contains(ratatui::style::Modifier::UNDERLINED)
            })
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(marked, "Poolpool");
        assert_eq!(out.to_string(), "Pool pool");
        // The second match keeps its red where it was red.
        assert!(
            out.spans
                .iter()
                .any(|s| s.content == "ol" && s.style.fg == Some(Color::Red))
        );
        let none = highlight(Line::raw("nothing"), "pool", mark);
        assert_eq!(none.spans.len(), 1);
    }

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn fit_cuts_with_an_ellipsis() {
        assert_eq!(fit("T-012", 8), "T-012");
        assert_eq!(fit("T-2026-very-long-id", 8), "T-2026-…");
        assert_eq!(width(&fit("T-2026-very-long-id", 8)), 8);
        assert_eq!(fit("abc", 0), "");
        assert_eq!(fit("abc", 1), "…");
        // Wide characters count two cells.
        assert_eq!(fit("日本語のテキスト", 5), "日本…");
        assert_eq!(column("T-1", 5), "T-1  ");
        assert_eq!(column("T-123456", 5), "T-12…");
    }

    #[test]
    fn fit_spans_ends_with_the_cut_spans_style() {
        let red = Style::new().fg(Color::Red);
        let spans = vec![Span::raw("⚑ "), Span::styled("✎ learn pending", red)];
        let cut = fit_spans(spans.clone(), 8);
        assert_eq!(Line::from(cut.clone()).to_string(), "⚑ ✎ lea…");
        assert_eq!(cut.last().unwrap().style, red);
        assert_eq!(fit_spans(spans.clone(), 40), spans);
        // Cut right at a span boundary: the mark replaces the next span's first cell.
        let cut = fit_spans(vec![Span::raw("ab"), Span::raw("cd")], 3);
        assert_eq!(Line::from(cut).to_string(), "ab…");
    }

    #[test]
    fn wrap_hangs_continuations_under_the_text() {
        let l = Line::from(vec![
            Span::raw("  • "),
            Span::raw("The pool must be created before the router"),
        ]);
        assert_eq!(
            plain(&wrap(l, 20, 4)),
            [
                "  • The pool must be",
                "    created before",
                "    the router"
            ]
        );
        // Fits: unchanged; width 0: unchanged.
        let short = Line::raw("short");
        assert_eq!(plain(&wrap(short.clone(), 20, 4)), ["short"]);
        assert_eq!(plain(&wrap(short, 0, 4)), ["short"]);
        // A word longer than the row is broken, continuing under the hang.
        let long = Line::from(vec![Span::raw("- "), Span::raw("abcdefghijkl")]);
        assert_eq!(plain(&wrap(long, 6, 2)), ["- abcd", "  efgh", "  ijkl"]);
        // Every row keeps the line's style.
        let styled = Line::styled("aaa bbb ccc", Style::new().fg(Color::Cyan));
        assert!(
            wrap(styled, 4, 0)
                .iter()
                .all(|l| l.style.fg == Some(Color::Cyan))
        );
    }
}
