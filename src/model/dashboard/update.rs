//! What each [`Event`] does to the [`Model`], and the I/O it asks the loop for.
//!
//! [`update`] names one function per event; [`apply`] (a user action) first lets the
//! activity view and the focused pane claim the keys they treat differently, then
//! routes every action to its step: moving, filters, the Signal answer, the view.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Action, Effect, Event, Filter, Mode, Model, Notice, Pane};
use crate::model::handoff::entry::{HandoffEntry, link_threads, sort_newest_first};
use crate::model::text::sanitize::single_line;

/// Applies one event; returns the I/O the loop must do. No I/O here.
pub(crate) fn update(m: &mut Model, event: Event) -> Vec<Effect> {
    match event {
        Event::Action(a) => apply(m, a),
        Event::Tick(now) => tick(m, now),
        Event::Loaded(snap) => loaded(m, *snap),
        Event::StateLoaded(snap) => state_loaded(m, *snap),
        Event::HandoffsChanged(changes) => handoffs_changed(m, changes),
        Event::GitLoaded(git) => {
            m.snapshot.git = Some(git);
            Vec::new()
        }
        Event::PreviewLoaded { path, text } => preview_loaded(m, &path, text),
        Event::BodyHits { needle, paths } => body_hits(m, needle, paths),
        Event::MatchAt(row) => match_at(m, row),
        Event::ResumeWritten { target, result } => resume_written(m, &target, result),
        Event::SignalResolved { task, result } => {
            match result {
                Ok(path) => say(m, format!("resolved {task}: {}", file_name(&path))),
                Err(e) => warn(m, format!("could not resolve {task}: {e}")),
            }
            Vec::new()
        }
        Event::PaneAnswered(result) => {
            match result {
                Ok(what) => say(m, what),
                Err(why) => warn(m, format!("nothing sent: {why}")),
            }
            Vec::new()
        }
        Event::Switched(result) => {
            let (text, error) = super::fleet::switched_words(result);
            if error {
                warn(m, text);
            } else {
                say(m, text);
            }
            Vec::new()
        }
        Event::Copied(result) => {
            match result {
                Ok(text) => say(
                    m,
                    format!(
                        "copied {} (through the terminal: OSC 52 must be allowed, in tmux set-clipboard on)",
                        single_line(&text)
                    ),
                ),
                Err(e) => warn(m, format!("could not copy: {e}")),
            }
            Vec::new()
        }
        Event::EditorClosed(result) => {
            let at = m.now;
            m.notice = result.err().map(|e| Notice {
                text: e,
                error: true,
                at,
            });
            // The file may have been edited.
            m.preview.path = None;
            m.preview_effect()
        }
        Event::Viewport {
            shown,
            sessions_rows,
            inbox_rows,
            preview_rows,
            preview_len,
        } => {
            m.shown = Some(shown);
            m.sessions_rows = sessions_rows;
            m.inbox_rows = inbox_rows;
            m.preview_rows = preview_rows;
            m.preview_len = preview_len;
            viewport_changed(m);
            Vec::new()
        }
    }
}

/// A notice for the user.
fn say(m: &mut Model, text: String) {
    m.notice = Some(Notice {
        text,
        error: false,
        at: m.now,
    });
}

/// A notice that reports a failure, or an action that cannot be done here.
fn warn(m: &mut Model, text: String) {
    m.notice = Some(Notice {
        text,
        error: true,
        at: m.now,
    });
}

/// The clock moved: ages change, and an old notice goes.
fn tick(m: &mut Model, now: chrono::DateTime<chrono::Utc>) -> Vec<Effect> {
    m.now = now;
    if m.notice_expires().is_some_and(|t| now >= t) {
        m.notice = None;
    }
    Vec::new()
}

/// A full reload: the activity cursor stays on its row, and the preview is read
/// again (the file may have changed).
fn loaded(m: &mut Model, snap: super::Snapshot) -> Vec<Effect> {
    let cursor = m.activity.then(|| m.selected_activity()).flatten();
    m.snapshot = snap;
    m.keep_activity_cursor(cursor);
    m.refresh_rows();
    m.preview.path = None;
    m.preview_effect()
}

/// Everything but the handoffs was re-read: the handoff list is kept.
fn state_loaded(m: &mut Model, snap: super::Snapshot) -> Vec<Effect> {
    let cursor = m.activity.then(|| m.selected_activity()).flatten();
    let handoffs = std::mem::take(&mut m.snapshot.handoffs);
    m.snapshot = snap;
    m.snapshot.handoffs = handoffs;
    m.keep_activity_cursor(cursor);
    m.refresh_rows();
    m.sessions_selected = m.sessions_cursor();
    Vec::new()
}

/// Handoff files changed: each is replaced (or dropped), the threads linked again,
/// the preview re-read when it shows one of them, and a body search run again.
fn handoffs_changed(m: &mut Model, changes: Vec<(PathBuf, Option<HandoffEntry>)>) -> Vec<Effect> {
    let mut reread_preview = false;
    for (path, entry) in changes {
        reread_preview |= m.preview.path.as_deref() == Some(path.as_path());
        m.snapshot.handoffs.retain(|h| h.path != path);
        m.snapshot.handoffs.extend(entry);
    }
    sort_newest_first(&mut m.snapshot.handoffs);
    // A new Signal may resolve an older one of its task.
    link_threads(&mut m.snapshot.handoffs);
    m.refresh_rows();
    if reread_preview {
        m.preview.path = None;
    }
    let mut fx = m.preview_effect();
    // New or changed text: the body search is stale.
    if let Some(n) = m.filter.needle() {
        fx.push(Effect::SearchBodies(n));
    }
    fx
}

/// The preview's text, when it is still the selected file's.
fn preview_loaded(m: &mut Model, path: &Path, text: Option<String>) -> Vec<Effect> {
    if m.preview.path.as_deref() == Some(path) {
        let text = text.unwrap_or_else(|| "(could not read this file)".into());
        // A first guess; the screen sends the wrapped count before the next key.
        m.preview_len = text.lines().count();
        m.preview.text = Some(text);
        m.seek_match = m.filter.needle().is_some();
    }
    Vec::new()
}

/// Which handoffs' text holds the filter: an answer for text no longer typed is
/// dropped.
fn body_hits(m: &mut Model, needle: String, paths: HashSet<PathBuf>) -> Vec<Effect> {
    if m.filter.needle().as_deref() != Some(needle.as_str()) {
        return Vec::new();
    }
    m.filter.body_hits = Some((needle, paths));
    m.refresh_rows();
    m.seek_match = true;
    m.preview_effect()
}

/// The preview scrolls to the filter's first match, once per search.
fn match_at(m: &mut Model, row: Option<usize>) -> Vec<Effect> {
    if m.seek_match {
        m.seek_match = false;
        if let Some(r) = row {
            // Two lines of context above the match, never past the last page.
            let want = r.saturating_sub(2) as isize;
            let max = m.max_scroll();
            m.preview.scroll = u16::try_from(want.min(max).max(0)).unwrap_or(0);
        }
    }
    Vec::new()
}

fn resume_written(
    m: &mut Model,
    target: &Path,
    result: Result<Vec<PathBuf>, String>,
) -> Vec<Effect> {
    match result {
        Ok(written) => {
            // The marker names it now; the watcher's reload will say the same.
            m.snapshot.flags.pending_resume = Some(target.to_path_buf());
            let written: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
            say(
                m,
                format!(
                    "pending resume → {} (written to {})",
                    file_name(target),
                    written.join(" and ")
                ),
            );
        }
        Err(e) => warn(m, format!("could not write the pending resume: {e}")),
    }
    Vec::new()
}

/// The screen's sizes changed: focus never stays on a pane the frame does not
/// show, and a wider pane or a shorter text stays on the last page, not past it.
fn viewport_changed(m: &mut Model) {
    if !m.panes().contains(&m.focus) {
        m.focus = m.panes()[0];
    }
    let max = m.max_scroll();
    if m.preview.scroll as isize > max {
        m.preview.scroll = u16::try_from(max).unwrap_or(0);
    }
}

/// The first 8 characters of a session id, as the panes show it.
fn short_id(id: &str) -> String {
    crate::model::text::sanitize::short_id(id)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// A user action.
fn apply(m: &mut Model, a: Action) -> Vec<Effect> {
    // A notice stays until the user does something else.
    if !matches!(a, Action::Scroll(..)) {
        m.notice = None;
    }
    // Any key but a second Esc forgets the first.
    let esc_armed = std::mem::take(&mut m.esc_armed);
    if m.activity
        && let Some(fx) = in_activity_view(m, a)
    {
        return fx;
    }
    if let Some(fx) = pane_own_keys(m, a) {
        return fx;
    }
    match a {
        // Esc: a filter goes first; with none, a first Esc says how to quit and a
        // second one quits (opened from the fleet list, Esc goes back to it).
        Action::Back if m.filter.is_active() => clear_filters(m),
        Action::Back if !esc_armed && !m.from_fleet => {
            m.esc_armed = true;
            say(m, super::ESC_AGAIN.to_owned());
            Vec::new()
        }
        Action::Back | Action::Quit => {
            m.quit = true;
            vec![Effect::Quit]
        }
        Action::Up => m.move_by(-1),
        Action::Down => m.move_by(1),
        Action::Top => m.move_by(isize::MIN / 2),
        Action::Bottom => m.move_by(isize::MAX / 2),
        Action::PageUp => m.move_by(-m.page()),
        Action::PageDown => m.move_by(m.page()),
        Action::Scroll(pane, lines) => scroll(m, pane, lines),
        Action::Click(pane, row) => click(m, pane, row),
        Action::StartFilter
        | Action::FilterChar(_)
        | Action::FilterBackspace
        | Action::FilterAccept
        | Action::FilterCancel
        | Action::ToggleBlocked
        | Action::CycleKind
        | Action::ClearFilters => filters(m, a),
        Action::Resume => match m.selected_entry() {
            Some(h) => vec![Effect::WritePendingResume(h.path.clone())],
            None => {
                warn(m, "no handoff selected".into());
                Vec::new()
            }
        },
        Action::Open => m
            .selected_entry()
            .map(|h| Effect::OpenEditor(h.path.clone()))
            .into_iter()
            .collect(),
        Action::StartResolve
        | Action::AnswerChar(_)
        | Action::AnswerBackspace
        | Action::AnswerCancel
        | Action::AnswerAccept => answer(m, a),
        Action::NextPane
        | Action::PrevPane
        | Action::NextGaugeSession
        | Action::ToggleActivity
        | Action::ToggleHelp
        | Action::HelpScroll(_) => view(m, a),
        Action::Suspend => vec![Effect::Suspend],
        // The sessions pane's keys and CopyId were handled by `pane_own_keys`; only
        // the fleet list binds OpenProject.
        Action::Dismiss
        | Action::CopyId
        | Action::OpenConversation
        | Action::OpenProject
        | Action::GoToPane
        | Action::Approve
        | Action::Deny
        | Action::StartPrompt => Vec::new(),
    }
}

/// The activity view is shown: a filter key shows the handoffs again (and goes on
/// to filter them); an action on the selected handoff is refused, since none is on
/// screen (the keys are not bound in the activity pane; a mouse-focused pane may
/// still send them). `Some`: the action ends here.
fn in_activity_view(m: &mut Model, a: Action) -> Option<Vec<Effect>> {
    match a {
        Action::StartFilter | Action::ToggleBlocked | Action::CycleKind | Action::ClearFilters => {
            m.activity = false;
            if m.focus == Pane::Activity {
                m.focus = Pane::Inbox;
            }
            None
        }
        Action::Resume | Action::Open | Action::StartResolve => {
            warn(
                m,
                "the activity view is shown: press a to go back to the handoffs".into(),
            );
            Some(Vec::new())
        }
        _ => None,
    }
}

/// The keys the focused pane treats its own way: the sessions pane's (the keymap
/// binds them there only), and `y`, which copies the selected session's id there
/// and the selected handoff's path elsewhere. `Some`: the action ends here.
fn pane_own_keys(m: &mut Model, a: Action) -> Option<Vec<Effect>> {
    let sessions = m.focus == Pane::Sessions;
    match a {
        Action::OpenConversation if sessions => Some(open_conversation(m)),
        Action::Dismiss if sessions => {
            dismiss_session(m);
            Some(Vec::new())
        }
        Action::Approve | Action::Deny if sessions => Some(answer_session(m, a)),
        Action::StartPrompt if sessions => {
            start_prompt(m);
            Some(Vec::new())
        }
        Action::GoToPane if sessions => Some(go_to_pane(m)),
        // Never control characters into a clipboard (a paste could run them), and
        // quoted for a shell: a file name a repository ships (`…$(curl …|sh)….md`)
        // pasted into a terminal runs nothing.
        Action::CopyId if sessions => Some(
            m.selected_session()
                .map(|s| Effect::Copy(for_clipboard(&s.session_id)))
                .into_iter()
                .collect(),
        ),
        Action::CopyId => Some(
            m.selected_entry()
                .map(|h| Effect::Copy(for_clipboard(&h.path.display().to_string())))
                .into_iter()
                .collect(),
        ),
        _ => None,
    }
}

/// p and n in the sessions pane: answer the selected session's permission prompt
/// in its tmux pane (the loop reads the pane first), or say why not — the fleet
/// list's rules ([`super::fleet::pane_target`]).
fn answer_session(m: &mut Model, a: Action) -> Vec<Effect> {
    use crate::model::agents::pane::Answer;
    let Some(s) = m.selected_session() else {
        return Vec::new();
    };
    let req = super::fleet::pane_target(
        s.tmux_pane.as_deref(),
        s.tmux_socket.as_deref(),
        s.attention,
        true,
        'p',
    )
    .map(|(pane, socket)| super::fleet::AnswerRequest {
        root: m.snapshot.root.clone(),
        session: s.session_id.clone(),
        pane,
        socket,
        answer: if a == Action::Approve {
            Answer::Approve
        } else {
            Answer::Deny
        },
    });
    match req {
        Ok(r) => vec![Effect::AnswerPane(r)],
        Err(why) => {
            warn(m, why);
            Vec::new()
        }
    }
}

/// The session `id`'s pane, when a prompt can be typed there (the fleet list's
/// rules, [`super::fleet::pane_target`]); else why not.
fn prompt_target(m: &Model, id: &str) -> Result<(String, Option<String>), String> {
    let s = m
        .attention_rows()
        .into_iter()
        .find(|s| s.session_id == id)
        .ok_or("the session is no longer live")?;
    super::fleet::pane_target(
        s.tmux_pane.as_deref(),
        s.tmux_socket.as_deref(),
        s.attention,
        false,
        'p',
    )
}

/// i in the sessions pane: type the selected session's next prompt (Answer mode;
/// Enter sends it), when it runs in tmux and waits for no permission; else why not.
fn start_prompt(m: &mut Model) {
    let Some(id) = m.selected_session().map(|s| s.session_id.clone()) else {
        return;
    };
    match prompt_target(m, &id) {
        Ok(_) => {
            m.mode = Mode::Answer;
            m.answer.clear();
            m.answer_for = None;
            m.prompt_for = Some(id);
        }
        Err(why) => warn(m, why),
    }
}

/// Enter after i: the prompt for its session's pane (the loop reads the pane and
/// types it only when it shows the client's empty prompt), or why nothing is sent.
fn send_prompt(m: &mut Model, id: &str, text: String) -> Vec<Effect> {
    if text.trim().is_empty() {
        warn(m, "an empty prompt: nothing was sent".to_owned());
        return Vec::new();
    }
    match prompt_target(m, id) {
        Ok((pane, socket)) => vec![Effect::PromptPane(super::fleet::PromptRequest {
            root: m.snapshot.root.clone(),
            session: id.to_owned(),
            pane,
            socket,
            text,
        })],
        Err(why) => {
            warn(m, why);
            Vec::new()
        }
    }
}

/// t in the sessions pane: switch this tmux client to the selected session's pane,
/// or say the command that attaches to it — as the fleet list does
/// ([`super::fleet::jump`]).
fn go_to_pane(m: &mut Model) -> Vec<Effect> {
    let Some(s) = m.selected_session() else {
        return Vec::new();
    };
    let target = s.tmux_pane.clone().map(|p| (p, s.tmux_socket.clone()));
    match super::fleet::jump(target, m.tmux.as_ref()) {
        Ok((pane, socket)) => vec![Effect::SwitchToPane { pane, socket }],
        Err((text, error)) => {
            if error {
                warn(m, text);
            } else {
                say(m, text);
            }
            Vec::new()
        }
    }
}

/// What `y` puts on the clipboard: one line, without control characters, quoted
/// for a shell when it holds anything but the plain characters of a path (a name
/// with `$`, `` ` ``, `;`, `|`, a quote or a space comes out in single quotes).
pub(crate) fn for_clipboard(text: &str) -> String {
    crate::model::setup::settings::shell_quote(single_line(text).trim())
}

/// The selected session's conversation, in the pager.
fn open_conversation(m: &mut Model) -> Vec<Effect> {
    let Some(s) = m.selected_session() else {
        return Vec::new();
    };
    match &s.transcript_path {
        Some(t) => vec![Effect::OpenTranscript(t.into())],
        None => {
            let text = format!(
                "session {} has no transcript on record",
                short_id(&s.session_id)
            );
            warn(m, text);
            Vec::new()
        }
    }
}

/// Hides the selected session until it has news.
fn dismiss_session(m: &mut Model) {
    if let Some(s) = m.selected_session() {
        let entry = (s.session_id.clone(), super::news_key(s));
        let id = short_id(&s.session_id);
        m.dismissed.push(entry);
        let n = m.attention_rows().len();
        m.sessions_selected = m.sessions_selected.min(n.saturating_sub(1));
        say(m, format!("dismissed session {id} until it has news"));
    }
}

/// The mouse wheel over a pane scrolls that pane, whatever has the focus.
fn scroll(m: &mut Model, pane: Pane, lines: i8) -> Vec<Effect> {
    // The inbox and preview are not on screen while the activity view is.
    let pane = match pane {
        Pane::Inbox | Pane::Preview if m.activity => Pane::Activity,
        p => p,
    };
    let before = m.focus;
    m.focus = pane;
    let fx = m.move_by(isize::from(lines));
    m.focus = before;
    fx
}

/// A click focuses the pane and selects the row under it.
fn click(m: &mut Model, pane: Pane, row: Option<u16>) -> Vec<Effect> {
    m.focus = pane;
    match (pane, row) {
        (Pane::Inbox, Some(r)) => {
            let i = m.inbox_first() + usize::from(r);
            if i < m.rows.len() {
                return m.select(i);
            }
        }
        (Pane::Sessions, Some(r)) => {
            let i = m.sessions_first() + usize::from(r);
            if i < m.attention_rows().len() {
                m.sessions_selected = i;
            }
        }
        (Pane::Activity, Some(r)) => {
            let first = m
                .activity_selected
                .saturating_sub(usize::from(m.inbox_rows.max(1)) - 1);
            let i = first + usize::from(r);
            if i < m.activity_rows().len() {
                m.activity_selected = i;
            }
        }
        _ => {}
    }
    Vec::new()
}

fn clear_filters(m: &mut Model) -> Vec<Effect> {
    m.filter = Filter::default();
    m.refresh_rows();
    m.preview_effect()
}

/// The inbox's filters: the typed text (Filter mode), blocked-only and the kind.
fn filters(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::StartFilter => {
            m.mode = Mode::Filter;
            m.filter_before = m.filter.text.clone();
            m.focus = Pane::Inbox;
            Vec::new()
        }
        Action::FilterChar(c) => {
            m.filter.text.push(c);
            m.filter_changed()
        }
        Action::FilterBackspace => {
            m.filter.text.pop();
            m.filter_changed()
        }
        Action::FilterAccept => {
            m.mode = Mode::Normal;
            Vec::new()
        }
        Action::FilterCancel => {
            m.mode = Mode::Normal;
            m.filter.text = std::mem::take(&mut m.filter_before);
            m.refresh_rows();
            m.preview_effect()
        }
        Action::ToggleBlocked => {
            m.filter.blocked_only = !m.filter.blocked_only;
            m.refresh_rows();
            m.preview_effect()
        }
        Action::CycleKind => {
            m.filter.kind = m.filter.kind.next();
            m.refresh_rows();
            m.preview_effect()
        }
        Action::ClearFilters => clear_filters(m),
        // `apply` sends only the filter actions here.
        _ => Vec::new(),
    }
}

/// Answering a blocked Signal: started on the selected one, typed in Answer mode,
/// written (as an effect) or dropped.
fn answer(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::StartResolve => start_resolve(m),
        Action::AnswerChar(c) if !c.is_control() => m.answer.push(c),
        Action::AnswerBackspace => {
            m.answer.pop();
        }
        Action::AnswerCancel => {
            m.mode = Mode::Normal;
            m.answer.clear();
            m.answer_for = None;
            m.prompt_for = None;
        }
        Action::AnswerAccept => {
            m.mode = Mode::Normal;
            let answer = std::mem::take(&mut m.answer);
            if let Some(id) = m.prompt_for.take() {
                return send_prompt(m, &id, answer);
            }
            return m
                .answer_for
                .take()
                .map(|blocked| Effect::ResolveSignal { blocked, answer })
                .into_iter()
                .collect();
        }
        // A control character is not typed; `apply` sends only the answer actions
        // here.
        _ => {}
    }
    Vec::new()
}

/// Answer mode for the selected Signal when it is blocked; else why not.
fn start_resolve(m: &mut Model) {
    let refusal = match m.selected_entry() {
        Some(h) if h.is_blocked() => {
            m.answer_for = Some(h.path.clone());
            m.prompt_for = None;
            m.answer.clear();
            m.mode = Mode::Answer;
            return;
        }
        Some(h) if h.signal_blocks() => format!(
            "{} is already resolved (by {})",
            h.file_name,
            h.superseded_by.as_deref().unwrap_or("a newer Signal")
        ),
        _ => "select a blocked Signal to resolve (b shows only those)".into(),
    };
    warn(m, refusal);
}

/// What is shown: the focused pane, the gauge's session, the activity view, the help.
fn view(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::NextPane => m.focus = m.focus.step(true, &m.panes()),
        Action::PrevPane => m.focus = m.focus.step(false, &m.panes()),
        Action::NextGaugeSession => next_gauge_session(m),
        Action::ToggleActivity => {
            m.activity = !m.activity;
            m.activity_selected = 0;
            m.focus = if m.activity {
                Pane::Activity
            } else {
                Pane::Inbox
            };
        }
        Action::ToggleHelp => {
            m.mode = if m.mode == Mode::Help {
                Mode::Normal
            } else {
                Mode::Help
            };
            m.help_scroll = 0;
        }
        // The renderer stops at the last page.
        Action::HelpScroll(lines) => {
            m.help_scroll = m.help_scroll.saturating_add_signed(i16::from(lines));
        }
        // `apply` sends only the view actions here.
        _ => {}
    }
    Vec::new()
}

/// The gauge follows the next live session (after the last: the most recently
/// active one again).
fn next_gauge_session(m: &mut Model) {
    let live: Vec<String> = m
        .snapshot
        .live_sessions(m.now, m.stale_after)
        .iter()
        .map(|s| s.session_id.clone())
        .collect();
    let next = match m.gauge_pinned.as_ref() {
        None => live.first().cloned(),
        Some(p) => live
            .iter()
            .position(|id| id == p)
            .and_then(|i| live.get(i + 1))
            .cloned(),
    };
    let text = match &next {
        Some(id) => format!(
            "gauge: session {} ({} live; s for the next)",
            short_id(id),
            live.len()
        ),
        None if live.is_empty() => {
            "no live session to pick: the gauge shows the most recent one".to_owned()
        }
        None => "gauge: following the most recently active session".to_owned(),
    };
    m.gauge_pinned = next;
    say(m, text);
}
