//! Rendered frames at fixed sizes (insta snapshots of `TestBackend`) and the colours
//! that carry meaning (asserted on the `Buffer`, since snapshots hold no colour).

use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use super::*;
use crate::app::snapshot::{GitSource, load};
use crate::model::dashboard::{Action, Event, update};
use crate::model::session::level::Thresholds;
use crate::model::snapshot::Snapshot;
use crate::store::Paths;
use crate::tui::demo;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 0).unwrap()
}

/// A model over the project at `root`, with the selected handoff's preview loaded.
fn model_of(root: &Path) -> Model {
    let snap = load(&Paths::new(root), now(), GitSource::Cache);
    let mut m = Model::new(snap, Thresholds::default(), now());
    // Absolute times show in local time: pinned here to UTC+1, so a frame shows
    // 10:12Z as 11:12.
    m.zone = crate::model::time::Zone::Fixed(chrono::FixedOffset::east_opt(3600).unwrap());
    for fx in m.start() {
        if let dashboard::Effect::LoadPreview(p) = fx {
            let text = std::fs::read_to_string(&p).ok();
            update(&mut m, Event::PreviewLoaded { path: p, text });
        }
    }
    m
}

fn demo_model() -> (tempfile::TempDir, Model) {
    let t = tempfile::tempdir().unwrap();
    let root = demo::install(t.path(), now()).unwrap();
    let mut m = model_of(&root);
    m.demo = true;
    (t, m)
}

fn draw(m: &Model, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| f.render_widget(Dashboard::new(m), f.area()))
        .unwrap();
    terminal
}

/// Temp folders vary between runs; frames must not: `/tmp/…` paths and `.tmpXXXX`
/// names read `[TMP]`. (By hand rather than insta's regex filters, which would turn
/// on regex features the release build leaves out — see Cargo.toml.)
fn mask_tmp(frame: &str) -> String {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "._/-".contains(c);
    let mut out = String::with_capacity(frame.len());
    let mut rest = frame;
    while let Some((at, skip)) = [("/tmp/", 0), (".tmp", 4)]
        .iter()
        .filter_map(|(needle, skip)| {
            // `.tmp` counts only when an alphanumeric name follows it.
            let (at, _) = rest.match_indices(needle).find(|(at, _)| {
                let next = rest[at + needle.len()..].chars().next();
                *skip == 0 || next.is_some_and(|c| c.is_ascii_alphanumeric())
            })?;
            Some((at, *skip))
        })
        .min()
    {
        out.push_str(&rest[..at]);
        out.push_str("[TMP]");
        let tail = &rest[at + skip..];
        let end = if skip == 0 {
            tail.find(|c| !path_char(c)).unwrap_or(tail.len())
        } else {
            tail.find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(tail.len())
        };
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

macro_rules! frame_snapshot {
    ($name:expr, $terminal:expr) => {
        insta::assert_snapshot!($name, mask_tmp(&$terminal.backend().to_string()));
    };
}

#[test]
fn mask_tmp_hides_temp_paths_only() {
    assert_eq!(
        mask_tmp("a /tmp/.tmpAb1/x.md b .tmpZ9q c /tmpx .tmp! d .tmpQ7"),
        "a [TMP] b [TMP] c /tmpx .tmp! d [TMP]"
    );
}

#[test]
fn empty_project() {
    let t = tempfile::tempdir().unwrap();
    let m = model_of(t.path());
    frame_snapshot!("empty_80x24", draw(&m, 80, 24));
}

#[test]
fn demo_side_pane_and_wide() {
    let (_t, m) = demo_model();
    frame_snapshot!("demo_70x40", draw(&m, 70, 40));
    frame_snapshot!("demo_140x36", draw(&m, 140, 36));
}

/// The demo with a pending resume and a session waiting for input with Claude
/// Code's words: what the left column must not cut when there is room.
fn demo_with_what_matters() -> (tempfile::TempDir, Model) {
    let (t, mut m) = demo_model();
    let handoff = m
        .snapshot
        .handoffs
        .iter()
        .find(|h| h.file_name.starts_with("handoff-2026112"))
        .map(|h| h.path.clone())
        .unwrap();
    m.snapshot.flags.pending_resume = Some(handoff);
    for s in &mut m.snapshot.sessions {
        if s.session_id.starts_with("5c2e9f10") {
            s.attention_message = Some("Claude is waiting for your input".into());
        }
    }
    (t, m)
}

#[test]
fn columns_are_sized_by_their_text_at_120_and_200_columns() {
    let (_t, m) = demo_with_what_matters();
    for (w, h) in [(120, 36), (200, 40)] {
        let terminal = draw(&m, w, h);
        frame_snapshot!(format!("what_matters_{w}x{h}"), terminal);
        let text = buffer_text(terminal.backend().buffer());
        // Nothing that matters is cut: Claude Code's words, the pending resume's
        // whole name, the session record.
        for whole in [
            "Claude is waiting for your input",
            "Claude needs your permission to use Bash",
            "↻ resume handoff-20261121-094500.md",
            "final (logout)",
            "build / T-012",
        ] {
            assert!(text.contains(whole), "{w}: {whole} is cut:\n{text}");
        }
        // The inbox keeps its route column beside it.
        assert!(text.contains("builder→reviewer"), "{w}:\n{text}");
    }
    // At 200 the left column stops where its text does: the right one has the rest.
    let plan = plan_of(&m, Rect::new(0, 0, 200, 40));
    assert!(plan.context.unwrap().width < 100, "{plan:?}");
    assert!(plan.inbox.unwrap().width > 100, "{plan:?}");
}

#[test]
fn blocked_signal_only() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join(".forge/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
    std::fs::copy(src, dir.join("agent-T-012-20261121-101502.md")).unwrap();
    let m = model_of(t.path());
    let terminal = draw(&m, 60, 20);
    frame_snapshot!("blocked_60x20", terminal);
    // Blocked is red, in the inbox row and in the header.
    let buf = terminal.backend().buffer();
    let row = (0..20)
        .find(|y| buffer_row(buf, *y).contains("blocked    T-012"))
        .expect("blocked row");
    let x = buffer_row(buf, row).find("blocked").unwrap();
    let col = buffer_row(buf, row)[..x].chars().count() as u16;
    assert_eq!(buf[(col, row)].fg, Color::Red);
    assert!(buf[(col, row)].modifier.contains(Modifier::BOLD));
}

#[test]
fn the_preview_hides_the_templates_html_comment() {
    // The fixture ends as the agent template does: a Signal block, then an HTML
    // comment listing the valid statuses, a note for the writer, not the reader.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join(".forge/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
    assert!(
        std::fs::read_to_string(&src)
            .unwrap()
            .contains("<!-- status valid values")
    );
    std::fs::copy(src, dir.join("agent-T-012-20261121-101502.md")).unwrap();
    let m = model_of(t.path());
    let terminal = draw(&m, 100, 80);
    let buf = terminal.backend().buffer();
    let rows: Vec<String> = (0..80).map(|y| buffer_row(buf, y)).collect();
    // The whole preview is on screen, down to the end of the Signal block…
    assert!(
        rows.iter().any(|r| r.contains("\"blocking\": true")),
        "{rows:#?}"
    );
    // …and the comment after it is not.
    assert!(
        !rows
            .iter()
            .any(|r| r.contains("<!--") || r.contains("valid values")),
        "{rows:#?}"
    );
    frame_snapshot!("agent_preview_100x80", terminal);
}

fn buffer_row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_owned())
        .collect()
}

#[test]
fn the_record_of_a_running_session_says_it_is_live() {
    let (_t, mut m) = demo_model();
    // The demo's record is of an ended session (final): "Last session".
    let text = buffer_text(draw(&m, 140, 36).backend().buffer());
    assert!(text.contains("Last session"), "{text}");
    // A turn's record of the session running now (its bridge is live): "Live
    // session", with when its last turn ended; never "ended … · not final".
    let last = m.snapshot.last_session.as_mut().unwrap();
    last.session_id = Some("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21".into());
    last.is_final = false;
    last.reason = None;
    last.ended_at = "2026-11-21T10:28:00Z".into();
    let text = buffer_text(draw(&m, 140, 36).backend().buffer());
    assert!(text.contains("Live session"), "{text}");
    assert!(
        text.contains("● live 3f0c2a9e · last turn 2m ago, 11-21 11:28"),
        "{text}"
    );
    assert!(
        !text.contains("Last session") && !text.contains("not final"),
        "{text}"
    );
    // Once that session ends, the record is of an ended session again.
    for s in &mut m.snapshot.sessions {
        s.attention = Some(crate::model::session::state::Attention::Ended);
    }
    let text = buffer_text(draw(&m, 140, 36).backend().buffer());
    assert!(
        text.contains("Last session") && text.contains("ended 2m ago, 11-21 11:28 · not final"),
        "{text}"
    );
}

#[test]
fn colours_carry_level_and_status() {
    let (_t, m) = demo_model();
    let terminal = draw(&m, 70, 40);
    let buf = terminal.backend().buffer();
    // The demo's context is 74%: L1, yellow.
    let gauge = (0..40)
        .find(|y| buffer_row(buf, *y).contains("74% L1"))
        .unwrap();
    let x = buffer_row(buf, gauge)
        .chars()
        .position(|c| c == '█')
        .unwrap() as u16;
    assert_eq!(buf[(x, gauge)].fg, Color::Yellow);
    // The malformed Signal is a yellow warning, not hidden.
    let row = (0..40)
        .find(|y| buffer_row(buf, *y).contains("⚠malformed"))
        .unwrap();
    let x = buffer_row(buf, row).chars().position(|c| c == '⚠').unwrap() as u16;
    assert_eq!(buf[(x, row)].fg, Color::Yellow);
    // Waiting for permission is red.
    let row = (0..40)
        .find(|y| buffer_row(buf, *y).contains("permission b71d04f6"))
        .unwrap();
    assert_eq!(buf[(2, row)].fg, Color::Red);
    // NO_COLOR drops colours but keeps the selection visible.
    let mut plain = Terminal::new(TestBackend::new(70, 40)).unwrap();
    plain
        .draw(|f| f.render_widget(Dashboard::new(&m).no_color(true), f.area()))
        .unwrap();
    let pb = plain.backend().buffer();
    assert!(
        pb.content
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
    assert!(
        pb.content
            .iter()
            .any(|c| c.modifier.contains(Modifier::REVERSED))
    );
}

#[test]
fn tiny_panes_never_panic() {
    let (_t, m) = demo_model();
    frame_snapshot!("demo_10x3", draw(&m, 10, 3));
    frame_snapshot!("demo_30x8", draw(&m, 30, 8));
    frame_snapshot!("demo_15x5", draw(&m, 15, 5));
    for (w, h) in [(0, 0), (1, 1), (0, 5), (5, 0), (2, 2)] {
        draw(&m, w, h);
    }
    let mut help = m.clone();
    update(&mut help, Event::Action(Action::ToggleHelp));
    for w in 0..50 {
        for h in 0..30 {
            let area = Rect::new(0, 0, w, h);
            let mut buf = Buffer::empty(area);
            Dashboard::new(&m).render(area, &mut buf);
            Dashboard::new(&help).render(area, &mut buf);
            viewport(&m, area);
        }
    }
    // Rendering into an area outside the buffer is clipped, not a panic.
    let mut buf = Buffer::empty(Rect::new(0, 0, 5, 5));
    Dashboard::new(&m).render(Rect::new(3, 3, 40, 40), &mut buf);
}

#[test]
fn help_is_drawn_from_the_keymap() {
    let (_t, mut m) = demo_model();
    update(&mut m, Event::Action(Action::ToggleHelp));
    let terminal = draw(&m, 70, 34);
    frame_snapshot!("help_70x34", terminal);
    let text = buffer_text(terminal.backend().buffer());
    for b in dashboard::bindings(Mode::Normal) {
        assert!(text.contains(b.desc), "help lacks {:?}", b.desc);
    }
    // In a short pane it scrolls to its glossary, and stops at its end.
    for _ in 0..10 {
        update(&mut m, Event::Action(Action::HelpScroll(10)));
    }
    let terminal = draw(&m, 70, 34);
    frame_snapshot!("help_scrolled_70x34", terminal);
    let text = buffer_text(terminal.backend().buffer());
    for word in ["Words", "L0–L3", "not final", "bridge", "threshold"] {
        assert!(text.contains(word), "help lacks {word:?}:\n{text}");
    }
    assert!(text.contains("help 52/52"), "{text}");
}

#[test]
fn filter_prompt_and_notice_show_in_the_footer() {
    let (t, mut m) = demo_model();
    update(&mut m, Event::Action(Action::StartFilter));
    for c in "T-01".chars() {
        update(&mut m, Event::Action(Action::FilterChar(c)));
    }
    let text = buffer_text(draw(&m, 70, 40).backend().buffer());
    assert!(text.contains("/T-01▏"), "{text}");
    update(&mut m, Event::Action(Action::FilterAccept));
    let target = m.selected_path.clone().unwrap();
    let marker = t.path().join("acme-api/.forge/pending-resume");
    update(
        &mut m,
        Event::ResumeWritten {
            target,
            result: Ok(vec![marker]),
        },
    );
    let terminal = draw(&m, 100, 30);
    frame_snapshot!("notice_100x30", terminal);
    assert!(buffer_text(terminal.backend().buffer()).contains("pending resume → agent-T-012"));
}

#[test]
fn once_text_has_no_escape_codes() {
    let (_t, m) = demo_model();
    let text = crate::tui::render_text(&m, 80, 24);
    assert_eq!(text.lines().count(), 24);
    assert!(!text.contains('\u{1b}'));
    assert!(text.contains("blocked"));
    let _ = PathBuf::new();
    let _ = Snapshot::empty(PathBuf::new(), now());
}

/// The rows of a region of the buffer, as text.
fn rows_text(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height).map(|y| buffer_row(buf, y)).collect()
}

#[test]
fn preview_g_stops_at_the_last_line() {
    let (_t, mut m) = demo_model();
    let (w, h) = (70u16, 40u16);
    // As the loop does before each frame: tell the model the pane's size.
    let sync = |m: &mut Model| {
        let (inbox_rows, preview_rows, preview_len) = viewport(m, Rect::new(0, 0, w, h));
        update(
            m,
            Event::Viewport {
                shown: Pane::ALL.to_vec(),
                sessions_rows: 1,
                inbox_rows,
                preview_rows,
                preview_len,
            },
        );
    };
    sync(&mut m);
    update(&mut m, Event::Action(Action::NextPane));
    update(&mut m, Event::Action(Action::Bottom));
    update(&mut m, Event::Action(Action::PageDown));
    update(&mut m, Event::Action(Action::Down));
    let rows = rows_text(draw(&m, w, h).backend().buffer());
    // The row above the footer holds the document's last shown line (not the HTML
    // comment after it, which the preview hides): the pane is full.
    let last = super::markdown::render(m.preview.text.as_deref().unwrap())
        .iter()
        .map(ToString::to_string)
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap()
        .trim()
        .to_owned();
    let bottom = &rows[usize::from(h) - 2];
    assert!(
        bottom.contains(&last),
        "last line {last:?} not at the bottom:\n{}",
        rows.join("\n")
    );
    // One line up moves the text at once (no dead keys past the end).
    let scroll = m.preview.scroll;
    update(&mut m, Event::Action(Action::Up));
    assert_eq!(m.preview.scroll, scroll - 1);
}

#[test]
fn pending_resume_is_marked_in_the_inbox_and_cut_lines_end_with_an_ellipsis() {
    let (_t, mut m) = demo_model();
    let target = m.selected_path.clone().unwrap();
    update(
        &mut m,
        Event::ResumeWritten {
            target,
            result: Ok(vec![PathBuf::from(
                "/home/someone/with/a/long/path/acme-api/.forge/pending-resume",
            )]),
        },
    );
    let terminal = draw(&m, 60, 30);
    let buf = terminal.backend().buffer();
    let rows = rows_text(buf);
    // The inbox row of the pending resume carries ↻ (cyan); no other row does.
    let marked: Vec<_> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.starts_with("▶A↻") || r.starts_with(" A↻") || r.starts_with(" S↻"))
        .collect();
    assert_eq!(marked.len(), 1, "{}", rows.join("\n"));
    let (y, row) = marked[0];
    assert!(row.contains("T-012"), "{row}");
    assert_eq!(buf[(2, y as u16)].fg, Color::Cyan);
    // The flags line names it, and being too long for 60 cells, ends with …
    let flags = rows.iter().find(|r| r.contains("learn pending")).unwrap();
    assert!(flags.trim_end().ends_with('…'), "{flags:?}");
    assert!(flags.contains("↻ resume"), "{flags:?}");
    // So does the notice in the footer.
    let footer = &rows[29];
    assert!(
        footer.contains("pending resume → agent-T-012"),
        "{footer:?}"
    );
    assert!(footer.trim_end().ends_with('…'), "{footer:?}");
    assert_eq!(text::width(footer), 60);
}

#[test]
fn tiny_panes_lead_with_what_is_blocked() {
    let (_t, m) = demo_model();
    let terminal = draw(&m, 20, 6);
    frame_snapshot!("demo_20x6", terminal);
    let rows = rows_text(terminal.backend().buffer());
    assert!(rows[0].contains("⚑ 1 blocked"), "{:?}", rows[0]);
    // Every number in the one-line summary says what it counts.
    let line = |w: u16| rows_text(draw(&m, w, 3).backend().buffer())[0].clone();
    assert_eq!(line(10).trim_end(), "⚑1 blocked");
    assert_eq!(line(14).trim_end(), "⚑1 blocked");
    assert_eq!(line(8).trim_end(), "⚑1 74%");
    assert_eq!(line(30).trim_end(), "forge · ⚑1 blocked · ctx 74%");
    assert_eq!(
        line(60).trim_end(),
        "forge · ⚑1 blocked · ctx 74% · 6 handoffs"
    );
    // Without blocked Signals the context leads.
    let mut calm = m.clone();
    calm.snapshot.handoffs.retain(|h| !h.is_blocked());
    let rows = rows_text(draw(&calm, 12, 3).backend().buffer());
    assert_eq!(rows[0].trim_end(), "ctx 74%");
    let rows = rows_text(draw(&calm, 20, 3).backend().buffer());
    assert_eq!(rows[0].trim_end(), "forge · ctx 74%");
}

#[test]
fn a_long_task_id_keeps_the_columns_in_line() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join(".forge/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/handoffs");
    let long = std::fs::read_to_string(fixtures.join("agent-T-010-20261120-170944.md"))
        .unwrap()
        .replace("T-010", "T-2026-11-pool-refactor-part-two");
    std::fs::write(dir.join("agent-T-099-20261121-100000.md"), long).unwrap();
    std::fs::copy(
        fixtures.join("agent-T-012-20261121-101502.md"),
        dir.join("agent-T-012-20261121-101502.md"),
    )
    .unwrap();
    let m = model_of(t.path());
    let rows = rows_text(draw(&m, 70, 24).backend().buffer());
    let long_row = rows.iter().find(|r| r.contains("T-2026-")).unwrap();
    let short_row = rows.iter().find(|r| r.contains("T-012 ")).unwrap();
    assert!(long_row.contains("T-2026-… "), "{long_row:?}");
    let col = |r: &str, s: &str| r[..r.find(s).unwrap()].chars().count();
    assert_eq!(
        col(long_row, "planner→builder"),
        col(short_row, "builder→reviewer"),
        "\n{long_row}\n{short_row}"
    );
}

#[test]
fn growth_after_a_compaction_is_measured_from_the_drop() {
    use crate::model::session::state::{Reading, SessionBridge};
    let (_t, mut m) = demo_model();
    let with = |pcts: &[f64]| SessionBridge {
        session_id: "3f0c2a9e-x".into(),
        used_percentage: pcts.last().copied(),
        readings: pcts
            .iter()
            .map(|p| Reading {
                at: String::new(),
                tokens: None,
                pct: *p,
            })
            .collect(),
        ..SessionBridge::default()
    };
    let trend_row = |m: &Model| {
        rows_text(draw(m, 70, 40).backend().buffer())
            .into_iter()
            .nth(4)
            .unwrap()
    };
    m.snapshot.sessions = vec![with(&[60.0, 70.0, 82.0, 30.0])];
    assert!(
        trend_row(&m).contains("context dropped (a compaction or /clear): growth per turn shows"),
        "{}",
        trend_row(&m)
    );
    m.snapshot.sessions = vec![with(&[60.0, 70.0, 82.0, 30.0, 33.0, 36.0])];
    assert!(
        trend_row(&m).contains("+3.0%/turn since drop · L1 in ~12 turns"),
        "{}",
        trend_row(&m)
    );
    m.snapshot.sessions = vec![with(&[30.0, 33.0])];
    assert!(
        trend_row(&m).contains("+3.0%/turn · L1"),
        "{}",
        trend_row(&m)
    );
}

#[test]
fn no_escape_or_bidi_character_reaches_a_cell() {
    let (_t, mut m) = demo_model();
    let hostile = "main\u{202E}gpj.exe\x1b]52;c;cHduZWQ=\x07\u{2066}";
    if let Some(g) = m.snapshot.git.as_mut() {
        g.branch = Some(hostile.into());
    }
    m.snapshot.workflow.task = Some("T-012\u{202D}\x1b[2J\u{9b}".into());
    if let Some(h) = m.snapshot.handoffs.first_mut() {
        h.file_name = format!("agent-\u{202E}{}", h.file_name);
    }
    m.preview.text = Some(
        "---\nbranch: a\u{202E}b\n---\n# Title \u{2067}x\u{2069}\n\
         - [ ] step \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\ done\n\
         plain \u{202E}cba\u{202C} text\u{200F}\n"
            .into(),
    );
    for (w, h) in [(100u16, 30u16), (40, 12)] {
        let terminal = draw(&m, w, h);
        let text = buffer_text(terminal.backend().buffer());
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && crate::model::text::sanitize::is_unsafe(c)),
            "{text}"
        );
        if w == 100 {
            // Escape sequences go whole, payload included (ratatui alone would keep
            // `]52;c;…` and `[2J` as text).
            assert!(text.contains("⎇ maingpj.exe ●3"), "{text}");
            assert!(text.contains("build T-012\n"), "{text}");
            assert!(text.contains("step link done"), "{text}");
            assert!(text.contains("plain cba text"), "{text}");
        }
    }
}

#[test]
fn activity_view_lists_what_forge_did_newest_first() {
    let (_t, mut m) = demo_model();
    update(&mut m, Event::Action(Action::ToggleActivity));
    let wide = draw(&m, 140, 36);
    frame_snapshot!("activity_140x36", wide);
    let narrow = draw(&m, 70, 40);
    frame_snapshot!("activity_70x40", narrow);
    let text = buffer_text(narrow.backend().buffer());
    // Newest first: the permission request above the compaction's denial.
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} not on screen:\n{text}"))
    };
    assert!(
        at("session is waiting:permission") < at("denied Edit"),
        "{text}"
    );
    assert!(!text.contains("Handoffs"), "the inbox gives way: {text}");
    // A warning reads as one; quiet calls are dim.
    let buf = wide.backend().buffer();
    let row = (0..36)
        .find(|y| buffer_row(buf, *y).contains("let the tool run"))
        .expect("a quiet row");
    let x = buffer_row(buf, row).find("let the tool run").unwrap();
    let col = buffer_row(buf, row)[..x].chars().count() as u16;
    assert_eq!(buf[(col, row)].fg, Color::DarkGray);
    // Scrolling moves through older rows; `a` again brings the handoffs back.
    update(&mut m, Event::Action(Action::Bottom));
    let scrolled = buffer_text(draw(&m, 70, 40).backend().buffer());
    assert!(scrolled.contains("context-threshold"), "{scrolled}");
    update(&mut m, Event::Action(Action::ToggleActivity));
    assert!(buffer_text(draw(&m, 70, 40).backend().buffer()).contains("Handoffs"));
}

#[test]
fn a_resolved_thread_and_the_answer_prompt() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join(".forge/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
    let blocked = dir.join("agent-T-012-20261121-101502.md");
    std::fs::copy(src, &blocked).unwrap();

    // Before: r opens the answer prompt in the footer.
    let mut m = model_of(t.path());
    update(&mut m, Event::Action(Action::StartResolve));
    for c in "Read DATABASE_POOL_SIZE".chars() {
        update(&mut m, Event::Action(Action::AnswerChar(c)));
    }
    let terminal = draw(&m, 80, 24);
    frame_snapshot!("answer_prompt_80x24", terminal);

    // After: the answer supersedes it; the preview shows the thread and who answered.
    let mut env = crate::env::Env::for_test(&t.path().join("home"), t.path());
    env.now = now() + chrono::Duration::minutes(5);
    crate::app::signal::resolve_file(
        &Paths::new(t.path()),
        &env,
        &blocked,
        "lead",
        Some("Read DATABASE_POOL_SIZE"),
    )
    .unwrap();
    let mut m = model_of(t.path());
    assert_eq!(m.snapshot.blocked().count(), 0);
    // Show the old, resolved Signal.
    for fx in update(&mut m, Event::Action(Action::Bottom)) {
        if let dashboard::Effect::LoadPreview(p) = fx {
            let text = std::fs::read_to_string(&p).ok();
            update(&mut m, Event::PreviewLoaded { path: p, text });
        }
    }
    let terminal = draw(&m, 80, 30);
    frame_snapshot!("resolved_thread_80x30", terminal);
    let text = buffer_text(terminal.backend().buffer());
    assert!(text.contains("Thread T-012 · 2 Signals"), "{text}");
    assert!(text.contains("resolved"), "{text}");
    assert!(!text.contains("⚑ 1 blocked"), "{text}");
}

#[test]
fn the_filter_searches_bodies_and_highlights_what_matches() {
    let (_t, mut m) = demo_model();
    update(&mut m, Event::Action(Action::StartFilter));
    // "orders.rs" is only in the body of one session handoff. Bodies are read on
    // demand (as the loop does for SearchBodies), never kept with the list.
    let mut searched = Vec::new();
    for c in "ORDERS.rs".chars() {
        for fx in update(&mut m, Event::Action(Action::FilterChar(c))) {
            if let dashboard::Effect::SearchBodies(needle) = fx {
                let paths = crate::app::search::bodies(&m.snapshot.handoffs, &needle);
                searched.push(needle.clone());
                update(&mut m, Event::BodyHits { needle, paths });
            }
        }
    }
    assert_eq!(searched.len(), "ORDERS.rs".len(), "searched as typed");
    assert_eq!(searched.last().unwrap(), "orders.rs");
    assert_eq!(
        m.rows.len(),
        1,
        "incremental, case-insensitive, in the body"
    );
    // An answer for text no longer typed changes nothing.
    update(
        &mut m,
        Event::BodyHits {
            needle: "orders".into(),
            paths: Default::default(),
        },
    );
    assert_eq!(m.rows.len(), 1);
    let path = m.selected_path.clone().unwrap();
    let text = std::fs::read_to_string(&path).ok();
    update(&mut m, Event::PreviewLoaded { path, text });
    // As the loop does before a frame: sizes, then where the first match is.
    let area = Rect::new(0, 0, 140, 36);
    let (inbox_rows, preview_rows, preview_len) = viewport(&m, area);
    update(
        &mut m,
        Event::Viewport {
            shown: Pane::ALL.to_vec(),
            sessions_rows: 3,
            inbox_rows,
            preview_rows,
            preview_len,
        },
    );
    assert!(m.seek_match);
    let at = first_match(&m, area);
    update(&mut m, Event::MatchAt(at));
    assert!(m.preview.scroll > 0, "the preview scrolled to the match");
    let terminal = draw(&m, 140, 36);
    frame_snapshot!("filter_body_140x36", terminal);
    let buf = terminal.backend().buffer();
    // The match in the preview is marked (bold and underlined survive NO_COLOR).
    let text = buffer_text(buf);
    let (y, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("orders.rs"))
        .expect("the match is shown");
    let x = line[..line.find("orders.rs").unwrap()].chars().count() as u16;
    let cell = &buf[(x, y as u16)];
    assert!(cell.modifier.contains(Modifier::UNDERLINED), "{cell:?}");
    let before = &buf[(x - 1, y as u16)];
    assert!(!before.modifier.contains(Modifier::UNDERLINED));
    // The inbox row of a session handoff shows its title when it says more than
    // the task (a handoff written with no task is titled by the last request).
    let root = _t.path().join("acme-api");
    let fixture = root.join(".forge/handoffs/handoff-20261121-094500.md");
    let doc = std::fs::read_to_string(&fixture)
        .unwrap()
        .replace("forge_task: T-011", "forge_task:")
        .replace(
            "# Session handoff — T-011",
            "# Session handoff — Fix the flaky login test",
        );
    std::fs::write(root.join(".forge/handoffs/handoff-20261121-115900.md"), doc).unwrap();
    let m = model_of(&root);
    let text = buffer_text(draw(&m, 140, 36).backend().buffer());
    // Its trigger in the status column (the kind column says S), no route column:
    // the title starts right after the task and the drift mark.
    assert!(
        text.contains("S  now threshold           ± Fix the flaky login test"),
        "{text}"
    );
    assert!(
        !text.contains("T-011    context-threshold  ± T-011"),
        "{text}"
    );
}

// ----- the fleet list (forge tui --all) ---------------------------------------------

fn fleet_model() -> crate::model::dashboard::fleet::FleetModel {
    use crate::model::agents::fleet::{ProjectEntry, Registry, SessionRow};
    use crate::model::session::state::Attention;
    let at = |mins: i64| {
        (now() - chrono::Duration::minutes(mins)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let session = |id: &str, pct: u8, level: &str, attention, event: &str, mins| SessionRow {
        id: id.into(),
        context_pct: Some(pct),
        level: Some(level.into()),
        attention: Some(attention),
        last_event: Some(event.into()),
        last_event_at: Some(at(mins)),
        ..SessionRow::default()
    };
    let project = |root: &str, branch: &str, blocked, sessions| ProjectEntry {
        root: root.into(),
        name: root.rsplit('/').next().unwrap().into(),
        branch: Some(branch.into()),
        repository: None,
        blocked,
        seen_at: at(1),
        stale_after_secs: 1800,
        sessions,
    };
    let registry = Registry {
        projects: vec![
            project(
                "/home/me/src/acme-api",
                "main",
                1,
                vec![
                    SessionRow {
                        agent: Some("builder".into()),
                        tmux_pane: Some("%3".into()),
                        tmux_socket: Some("/tmp/tmux-1000/default".into()),
                        ..session(
                            "3f0c2a9e-8b1d",
                            74,
                            "L1",
                            Attention::WaitingPermission,
                            "PermissionRequest",
                            2,
                        )
                    },
                    session(
                        "5c2e9f10-aa01",
                        12,
                        "L0",
                        Attention::Busy,
                        "UserPromptSubmit",
                        0,
                    ),
                ],
            ),
            project(
                "/home/me/src/web",
                "feat/login",
                0,
                vec![session(
                    "b71d04f6-0c3e",
                    91,
                    "L2",
                    Attention::WaitingInput,
                    "Stop",
                    5,
                )],
            ),
            // A name and branch with escape sequences: drawn clean.
            project(
                "/home/me/src/evil\u{1b}]52;c;aGk=\u{7}",
                "x\u{1b}[2J\u{202e}y",
                2,
                vec![],
            ),
        ],
        ..Registry::default()
    };
    let mut m = crate::model::dashboard::fleet::FleetModel::new(
        Ok(registry),
        PathBuf::from("/home/me/.local/state/forge/projects.json"),
        now(),
    );
    m.home = Some(PathBuf::from("/home/me"));
    m
}

fn draw_fleet(
    m: &crate::model::dashboard::fleet::FleetModel,
    w: u16,
    h: u16,
) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| f.render_widget(fleet::FleetView::new(m), f.area()))
        .unwrap();
    terminal
}

#[test]
fn fleet_frames() {
    let mut m = fleet_model();
    frame_snapshot!("fleet_100x12", draw_fleet(&m, 100, 12));
    frame_snapshot!("fleet_60x10", draw_fleet(&m, 60, 10));
    // The cursor on the next row, and its root below the list.
    crate::model::dashboard::fleet::update(
        &mut m,
        crate::model::dashboard::fleet::FleetEvent::Action(Action::Down),
    );
    let terminal = draw_fleet(&m, 100, 12);
    let text = crate::ui::buffer_text(terminal.backend().buffer());
    assert!(text.contains("▶ input      web"), "{text}");
    assert!(text.contains("⏎ opens ~/src/web"), "{text}");
    // The first row's agent and pane; outside tmux, the line under the list says
    // how to attach to its pane.
    let first = draw_fleet(&fleet_model(), 120, 12);
    let first = crate::ui::buffer_text(first.backend().buffer());
    assert!(first.contains(" builder "), "{first}");
    assert!(first.contains(" %3 "), "{first}");
    assert!(
        first.contains("attach: tmux -S /tmp/tmux-1000/default attach -t %3"),
        "{first}"
    );
    // No escape, bell or bidi control reaches a cell.
    for bad in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!text.contains(bad), "{bad:?}");
    }
    // Colours: permission red, the L2 context light red, blocked red.
    let terminal = draw_fleet(&fleet_model(), 100, 12);
    let buf = terminal.backend().buffer();
    let row = (0..12)
        .find(|y| buffer_row(buf, *y).contains("permission"))
        .unwrap();
    assert_eq!(buf[(2, row)].fg, Color::Red);
    let row = (0..12)
        .find(|y| buffer_row(buf, *y).contains("91% L2"))
        .unwrap();
    let x = buffer_row(buf, row).find("91% L2").unwrap();
    let col = buffer_row(buf, row)[..x].chars().count() as u16;
    assert_eq!(buf[(col, row)].fg, Color::LightRed);
    // The help comes from the key table.
    crate::model::dashboard::fleet::update(
        &mut m,
        crate::model::dashboard::fleet::FleetEvent::Action(Action::ToggleHelp),
    );
    frame_snapshot!("fleet_help_70x24", draw_fleet(&m, 70, 24));
}

#[test]
fn fleet_empty_refused_and_tiny() {
    let empty = crate::model::dashboard::fleet::FleetModel::new(
        Ok(crate::model::agents::fleet::Registry::default()),
        PathBuf::from("/home/me/.local/state/forge/projects.json"),
        now(),
    );
    frame_snapshot!("fleet_empty_80x8", draw_fleet(&empty, 80, 8));
    let refused = crate::model::dashboard::fleet::FleetModel::new(
        Err("refusing to read /r/projects.json: a FIFO, not a regular file".into()),
        PathBuf::from("/r/projects.json"),
        now(),
    );
    let text = crate::ui::buffer_text(draw_fleet(&refused, 80, 8).backend().buffer());
    assert!(
        text.contains("cannot read the fleet registry: refusing"),
        "{text}"
    );
    let m = fleet_model();
    for (w, h) in [(0, 0), (1, 1), (0, 5), (5, 0), (2, 2), (12, 3), (30, 1)] {
        draw_fleet(&m, w, h);
    }
}

#[test]
fn a_dashboard_opened_from_the_fleet_says_q_goes_back() {
    let (_t, mut m) = demo_model();
    m.from_fleet = true;
    let text = crate::ui::buffer_text(draw(&m, 140, 36).backend().buffer());
    let footer = text.lines().last().unwrap();
    assert!(footer.contains("q back"), "{footer}");
    update(&mut m, Event::Action(Action::ToggleHelp));
    let text = crate::ui::buffer_text(draw(&m, 70, 40).backend().buffer());
    assert!(text.contains("back to the fleet list"), "{text}");
}

#[test]
fn a_relay_handoff_shows_its_chain() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let dir = root.join(".forge/handoffs");
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("handoff-20261121-094500.md");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/handoffs/handoff-20261121-094500.md"),
        &h,
    )
    .unwrap();
    let session =
        |id: &str, end, handoff: Option<&Path>| crate::model::agents::relay::ChainSession {
            session_id: Some(id.into()),
            started_at: "2026-11-21T09:00:00.000Z".into(),
            ended_at: None,
            context_tokens: Some(180_000),
            context_pct: Some(90.0),
            handoff: handoff.map(|p| p.display().to_string()),
            end,
            compacted: false,
            exit_code: None,
        };
    let chain = crate::model::agents::relay::Chain {
        version: 1,
        id: "aaaa1111-chain".into(),
        task: "Build the widget".into(),
        started_at: "2026-11-21T09:00:00.000Z".into(),
        ended_at: None,
        threshold: 90.0,
        max_handoffs: 3,
        agent: None,
        sessions: vec![
            session(
                "aaaa1111-chain",
                crate::model::agents::relay::SessionEnd::Relayed,
                Some(&h),
            ),
            session(
                "bbbb2222-next",
                crate::model::agents::relay::SessionEnd::Running,
                None,
            ),
        ],
        exit_code: None,
        notes: Vec::new(),
    };
    crate::store::chains::write(&Paths::new(&root), &chain).unwrap();
    let m = model_of(&root);
    let text = buffer_text(draw(&m, 120, 50).backend().buffer());
    assert!(text.contains("⛓1"), "{text}");
    assert!(text.contains("Chain (forge run)"), "{text}");
    assert!(text.contains("bbbb2222 running"), "{text}");
    assert!(text.contains("⛓ forge run: session 2, 1 handoff"), "{text}");
}

/// A key's text too long for the help box goes on under itself, word by word: no
/// line of the help is cut (the fleet help's `t` line was, at 70 columns).
#[test]
fn help_lines_wrap_under_their_text_instead_of_being_cut() {
    let lines = vec![
        Line::from(vec![
            Span::raw("t      "),
            Span::raw("go to the session's tmux pane (outside tmux: the command that attaches)"),
        ]),
        Line::from(vec![Span::raw("q      "), Span::raw("quit")]),
    ];
    let wrapped = wrap_help(lines, 40);
    let text: Vec<String> = wrapped
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert_eq!(
        text,
        [
            "t      go to the session's tmux pane",
            "       (outside tmux: the command that",
            "       attaches)",
            "q      quit",
        ]
    );
    assert!(text.iter().all(|l| text::width(l) <= 40));
    // Every line of the fleet and project help fits a 70-column terminal's box.
    for mode in [Mode::Fleet, Mode::Normal] {
        for l in wrap_help(help_keys(mode, |b| b.desc), 62) {
            let w: usize = l.spans.iter().map(|s| text::width(&s.content)).sum();
            assert!(w <= 62, "{mode:?}: {l:?}");
        }
    }
}

/// The levels the panes show (`74% L1`) are explained in the header, with the
/// project's own thresholds, where there is room; a narrow header drops it first.
#[test]
fn the_header_says_what_the_levels_mean() {
    let (_t, mut m) = demo_model();
    m.thresholds = Thresholds {
        warn: 60.0,
        critical: 80.0,
        emergency: 90.0,
    };
    let wide = buffer_text(draw(&m, 160, 30).backend().buffer());
    let first = wide.lines().next().unwrap();
    assert!(
        first.contains("L1 ≥60% · L2 ≥80% · L3 ≥90% context"),
        "{first}"
    );
    let narrow = buffer_text(draw(&m, 80, 30).backend().buffer());
    let first = narrow.lines().next().unwrap();
    assert!(!first.contains("L1 ≥"), "{first}");
    assert!(first.contains("acme-api"), "{first}");
}

/// The dashboard shows the quota's pace under the context's trend, from the
/// gauge session's `rate_limits` readings (red when a window runs out before its
/// reset); nothing without readings.
#[test]
fn the_context_pane_shows_the_quota_pace_with_the_trend() {
    use crate::model::session::pace::QuotaReading;
    use crate::model::session::state::{Reading, SessionBridge};
    let (_t, mut m) = demo_model();
    let t = m.now.timestamp();
    let reset = t + 2 * 3600 + 5 * 60;
    let mut s = SessionBridge {
        session_id: "3f0c2a9e-x".into(),
        used_percentage: Some(40.0),
        readings: vec![
            Reading {
                at: String::new(),
                tokens: None,
                pct: 38.0,
            },
            Reading {
                at: String::new(),
                tokens: None,
                pct: 40.0,
            },
        ],
        ..SessionBridge::default()
    };
    m.snapshot.sessions = vec![s.clone()];
    let text = |m: &Model| rows_text(draw(m, 100, 40).backend().buffer()).join("\n");
    assert!(!text(&m).contains("quota "), "{}", text(&m));
    // 50 → 62 % over the last 12 minutes: 1 % a minute, 38 % left, out in 38m.
    s.quota_5h = vec![
        QuotaReading {
            at: t - 720,
            pct: 50.0,
            resets_at: Some(reset),
        },
        QuotaReading {
            at: t,
            pct: 62.0,
            resets_at: Some(reset),
        },
    ];
    m.snapshot.sessions = vec![s];
    let shown = text(&m);
    assert!(
        shown.contains("+2.0%/turn · L1 in ~15 turns · quota 5h 62% ↗ out in 38m (resets 2h05)"),
        "{shown}"
    );
}

/// The sessions pane's footer names what p, i and t do there (not the help's
/// "sessions:" prefix), and after i the footer is the prompt being typed for that
/// session, with Enter and Esc, as in the fleet list.
#[test]
fn the_sessions_footer_offers_answering_and_the_prompt_shows_while_typed() {
    let (_t, mut m) = demo_model();
    m.focus = dashboard::Pane::Sessions;
    let footer = |m: &Model| {
        let terminal = draw(m, 160, 30);
        let text = buffer_text(terminal.backend().buffer());
        text.lines().last().unwrap_or_default().to_owned()
    };
    let f = footer(&m);
    for want in [" p approve ", " i prompt ", " t tmux "] {
        assert!(f.contains(want), "{want:?} in {f:?}");
    }
    assert!(!f.contains("sessions:") && !f.contains(" t kind "), "{f:?}");
    m.mode = dashboard::Mode::Answer;
    m.prompt_for = Some("0123456789abcdef".into());
    m.answer = "run the tests".into();
    let f = footer(&m);
    assert!(
        f.contains(" prompt 01234567: run the tests▏  ⏎ send  Esc cancel"),
        "{f:?}"
    );
    assert!(!f.contains("write"), "{f:?}");
}
