//! Rendered frames at fixed sizes (insta snapshots of `TestBackend`) and the colours
//! that carry meaning (asserted on the `Buffer`, since snapshots hold no colour).

use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use super::*;
use crate::model::Snapshot;
use crate::model::dashboard::{Action, Event, update};
use crate::model::level::Thresholds;
use crate::store::Paths;
use crate::store::snapshot::{GitSource, load};
use crate::tui::demo;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 0).unwrap()
}

/// A model over the project at `root`, with the selected handoff's preview loaded.
fn model_of(root: &Path) -> Model {
    let snap = load(&Paths::new(root), now(), GitSource::Cache);
    let mut m = Model::new(snap, Thresholds::default(), now());
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

/// Temp folders and wall-clock times vary between runs; frames must not.
macro_rules! frame_snapshot {
    ($name:expr, $terminal:expr) => {
        insta::with_settings!({filters => vec![
            (r"/tmp/[A-Za-z0-9._/-]+", "[TMP]"),
            (r"\.tmp[A-Za-z0-9]+", "[TMP]"),
        ]}, {
            insta::assert_snapshot!($name, $terminal.backend());
        });
    };
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

fn buffer_row(buf: &Buffer, y: u16) -> String {
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_owned())
        .collect()
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
        .find(|y| buffer_row(buf, *y).contains("waiting:permission"))
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
