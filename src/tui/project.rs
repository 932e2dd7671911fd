//! `forge tui`: one project's dashboard as an [`App`] of the one loop
//! ([`Screen::run_app`]).
//!
//! Its producers besides the input thread: the project's file watcher (a burst of
//! `.forge/` changes becomes one re-read of what changed, [`super::reload`]), the git
//! poller ([`super::git_poll`]) and the handoff-body search thread. Its model is
//! `crate::model::dashboard`; the effects that need no terminal run in
//! [`super::run_effects`], the rest (the editor, the pager, Ctrl-Z, the clipboard)
//! here, with the screen.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;

use anyhow::Context;
use chrono::{DateTime, Utc};
use crossterm::event::{self as ct, KeyEventKind, MouseButton, MouseEventKind};

use super::{
    App, Flow, LoopEvent, Screen, Session, conversation_file, forward, git_poll, key_of,
    osc52_copy, reload, run_effects, suspend_for_editor, suspend_self, trace_draw,
    transcript_to_show,
};
use crate::model::dashboard::{self, Action, Effect, Event, Model, Pane};
use crate::ui::{self, FrameLayout};
use crate::watch::{Pending, Watcher};

/// Searches handoff bodies off the UI thread: each search supersedes the one before
/// (which stops at its next file), so typing never waits for the disk.
struct Searcher {
    tx: Sender<LoopEvent>,
    generation: Arc<AtomicU64>,
}

impl Searcher {
    fn search(&self, needle: String, paths: Vec<PathBuf>) {
        let mine = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = Arc::clone(&self.generation);
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let hits = crate::app::search::bodies_of(&paths, &needle, || {
                generation.load(Ordering::SeqCst) != mine
            });
            if let Some(hits) = hits {
                let _ = tx.send(LoopEvent::BodyHits(needle, hits));
            }
        });
    }
}

/// One project's dashboard: its model, the session it runs in, and its producers
/// (they stop when it is dropped).
pub(crate) struct ProjectApp<'s> {
    model: Model,
    session: &'s Session,
    watcher: Watcher,
    _git_poll: Option<git_poll::GitPoll>,
    searcher: Searcher,
    /// What the file events of this batch said changed.
    pending: Pending,
    /// The effects of this batch's events, carried out once they are all in.
    effects: Vec<Effect>,
}

impl<'s> ProjectApp<'s> {
    /// Starts the project's file watcher and (for a live project) its git poller,
    /// both feeding `tx`, and runs the model's first effects (the preview).
    pub(crate) fn open(
        mut model: Model,
        session: &'s Session,
        tx: &Sender<LoopEvent>,
    ) -> anyhow::Result<Self> {
        let watcher = Watcher::start(&session.paths, forward(tx, LoopEvent::Fs))
            .with_context(|| format!("watching {}", session.paths.root.display()))?;
        let git_tx = tx.clone();
        let git_poll = session
            .poll_git
            .then(|| {
                git_poll::GitPoll::spawn(session.paths.clone(), model.snapshot.git.clone(), {
                    move |git| git_tx.send(LoopEvent::Git(Box::new(git))).is_ok()
                })
            })
            .transpose()
            .context("starting the git poller")?;
        let searcher = Searcher {
            tx: tx.clone(),
            generation: Arc::new(AtomicU64::new(0)),
        };
        let start = model.start();
        run_effects(&mut model, session, start);
        Ok(Self {
            model,
            session,
            watcher,
            _git_poll: git_poll,
            searcher,
            pending: Pending::default(),
            effects: Vec::new(),
        })
    }

    /// The model (for tests).
    #[cfg(test)]
    pub(crate) fn model(&self) -> &Model {
        &self.model
    }
}

impl App for ProjectApp<'_> {
    type Layout = FrameLayout;

    fn layout(&mut self, area: ratatui::layout::Rect) -> FrameLayout {
        let model = &mut self.model;
        let laid = FrameLayout::of(model, area);
        let (inbox_rows, preview_rows, preview_len) = laid.viewport(model);
        let (shown, sessions_rows) = laid.shown();
        if (inbox_rows, preview_rows, preview_len)
            != (model.inbox_rows, model.preview_rows, model.preview_len)
            || model.shown.as_ref() != Some(&shown)
            || model.sessions_rows != sessions_rows
        {
            dashboard::update(
                model,
                Event::Viewport {
                    shown,
                    sessions_rows,
                    inbox_rows,
                    preview_rows,
                    preview_len,
                },
            );
        }
        if model.seek_match {
            dashboard::update(model, Event::MatchAt(laid.first_match(model)));
        }
        laid
    }

    fn view(&self, layout: &FrameLayout, frame: &mut ratatui::Frame) {
        frame.render_widget(
            ui::Dashboard::new(&self.model)
                .layout(layout)
                .no_color(self.session.no_color),
            frame.area(),
        );
    }

    fn drawn(&self) {
        if let Some(t) = &self.session.trace {
            trace_draw(t, &self.model);
        }
    }

    fn notice_expires(&self) -> Option<DateTime<Utc>> {
        self.model.notice_expires()
    }

    fn tick(&mut self, now: DateTime<Utc>, slow: bool) -> bool {
        // The clock first, so a notice made now says when it was made.
        let had_notice = self.model.notice.is_some();
        dashboard::update(&mut self.model, Event::Tick(now));
        if slow {
            // A killed client writes nothing the watcher could see: its session
            // ends in the view when its process is found gone, at the tick.
            for b in &mut self.model.snapshot.sessions {
                b.end_if_client_gone(crate::store::process::is_gone);
            }
        }
        slow || (had_notice && self.model.notice.is_none())
    }

    fn event(&mut self, event: LoopEvent, shown: &FrameLayout) -> bool {
        let model = &mut self.model;
        match event {
            LoopEvent::Fs(res) => {
                self.pending.add_result(&res, self.watcher.forge_dir());
                self.pending.add_elsewhere(&res, self.watcher.others());
                false
            }
            LoopEvent::BodyHits(needle, paths) => {
                let fx = dashboard::update(model, Event::BodyHits { needle, paths });
                self.effects.extend(fx);
                true
            }
            LoopEvent::Git(git) => {
                // Redraw only for news: a hook may have shown these already.
                let news = model.git_differs(&git);
                if news {
                    dashboard::update(model, Event::GitLoaded(*git));
                }
                news
            }
            LoopEvent::Input(ev) => {
                if let Some(action) = action_of(&ev, model, &shown.plan) {
                    let fx = dashboard::update(model, Event::Action(action));
                    self.effects.extend(fx);
                    true
                } else {
                    matches!(ev, ct::Event::Resize(..))
                }
            }
            // The fleet list's registry news (while this dashboard is open over it),
            // and signals, which the loop handles.
            LoopEvent::Registry(_) | LoopEvent::Signal(_) => false,
        }
    }

    fn settle(&mut self, screen: &mut Screen) -> anyhow::Result<Flow> {
        let (model, s) = (&mut self.model, self.session);
        let mut redraw = false;
        let mut effects = std::mem::take(&mut self.effects);
        if !self.pending.is_empty() {
            let _ = self.watcher.sync();
            effects.extend(reload(model, &s.paths, &std::mem::take(&mut self.pending)));
            redraw = true;
        }
        let (terminal, input) = (&mut screen.terminal, &screen.input);
        let mut search_now = false;
        for fx in run_effects(model, s, effects) {
            match fx {
                Effect::Quit => return Ok(Flow::Quit),
                Effect::OpenEditor(path) => {
                    let result =
                        suspend_for_editor(terminal, input, &s.env, s.env.editor.as_deref(), &path);
                    let more = dashboard::update(model, Event::EditorClosed(result));
                    run_effects(model, s, more);
                    redraw = true;
                }
                Effect::OpenTranscript(path) => {
                    // The conversation, readable (never the raw .jsonl), in a private
                    // temporary file the pager opens; it is removed when the pager
                    // returns.
                    let result = transcript_to_show(&s.env, &path)
                        .and_then(|file| conversation_file(&file, model.zone))
                        .and_then(|file| {
                            let program = s
                                .env
                                .pager
                                .clone()
                                .or_else(|| s.env.editor.clone())
                                .or_else(|| s.env.find_program("less").map(|_| "less".to_owned()));
                            suspend_for_editor(
                                terminal,
                                input,
                                &s.env,
                                program.as_deref(),
                                file.path(),
                            )
                        });
                    let more = dashboard::update(model, Event::EditorClosed(result));
                    run_effects(model, s, more);
                    redraw = true;
                }
                // Keys typed together ask for several searches (and effects run last
                // first): one search, for the text as it is now, once they are all in.
                Effect::SearchBodies(_) => search_now = true,
                Effect::Suspend => {
                    suspend_self(terminal, input);
                    redraw = true;
                }
                Effect::Copy(text) => {
                    // The notice names what reached the clipboard: the clean text.
                    let result = osc52_copy(&text).map_err(|e| e.to_string());
                    dashboard::update(model, Event::Copied(result));
                    redraw = true;
                }
                Effect::LoadPreview(_)
                | Effect::WritePendingResume(_)
                | Effect::ResolveSignal { .. }
                | Effect::AnswerPane(_)
                | Effect::PromptPane(_)
                | Effect::SwitchToPane { .. } => {}
            }
        }
        if search_now && let Some(needle) = model.filter.needle() {
            let paths = model
                .snapshot
                .handoffs
                .iter()
                .map(|h| h.path.clone())
                .collect();
            self.searcher.search(needle, paths);
        }
        Ok(if model.quit {
            Flow::Quit
        } else {
            Flow::Stay { redraw }
        })
    }
}

/// The action a terminal event asks for, given the frame on screen (`plan`): a click
/// or a wheel turn hits the pane drawn where it happened.
fn action_of(ev: &ct::Event, model: &Model, plan: &ui::layout::Plan) -> Option<Action> {
    match ev {
        ct::Event::Key(k) if k.kind == KeyEventKind::Press => {
            dashboard::action_for(model.mode, Some(model.focus), key_of(k.code, k.modifiers)?)
        }
        ct::Event::Mouse(m) => {
            let pane = plan.pane_at(m.column, m.row)?;
            // The activity view is drawn where the inbox and preview are.
            let pane = match pane {
                Pane::Inbox | Pane::Preview if model.activity => Pane::Activity,
                p => p,
            };
            match m.kind {
                MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
                    let delta = if m.kind == MouseEventKind::ScrollUp {
                        -1
                    } else {
                        1
                    };
                    let lines = if pane == Pane::Preview { 3 } else { 1 };
                    Some(Action::Scroll(pane, delta * lines))
                }
                // The tiny layout draws a summary, not the panes' rows: no clicks there.
                MouseEventKind::Down(MouseButton::Left)
                    if model.mode == dashboard::Mode::Normal && !plan.tiny =>
                {
                    let top = match pane {
                        Pane::Activity => plan.list_area(),
                        Pane::Inbox => plan.inbox,
                        Pane::Preview => plan.preview,
                        Pane::Sessions => plan.attention,
                    }?
                    .y;
                    // Row 0 is the pane's title.
                    Some(Action::Click(pane, m.row.checked_sub(top + 1)))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use crossterm::event::{KeyModifiers, MouseEvent};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::app::snapshot::GitSource;
    use crate::env::Env;
    use crate::store::Paths;
    use crate::tui::{demo, draw_frame, initial_model};

    /// Plans laid out so far on this thread.
    fn plans() -> usize {
        crate::ui::layout::PLANS.with(std::cell::Cell::get)
    }

    /// The frame a fresh dashboard draws of `model` (laid out by the widget itself).
    fn fresh(model: &Model, w: u16, h: u16) -> ratatui::buffer::Buffer {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(|f| f.render_widget(ui::Dashboard::new(model).no_color(true), f.area()))
            .unwrap();
        t.backend().buffer().clone()
    }

    #[test]
    fn a_frame_is_laid_out_once_and_a_click_hits_the_frame_on_screen() {
        let t = tempfile::tempdir().unwrap();
        let root = demo::install(t.path(), Utc::now()).unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let paths = Paths::new(&root);
        let model = initial_model(&paths, &env, GitSource::Cache);
        let session = Session {
            paths,
            env,
            no_color: true,
            trace: None,
            poll_git: false,
        };
        let (tx, _rx) = mpsc::channel();
        let mut app = ProjectApp::open(model, &session, &tx).unwrap();
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        // Each size: one plan a frame, and the frame is the one the widget draws when
        // it lays the frame out itself.
        let mut frame = |app: &mut ProjectApp<'_>, w: u16, h: u16| {
            terminal.backend_mut().resize(w, h);
            let before = plans();
            let laid = draw_frame(&mut terminal, app).unwrap();
            assert_eq!(plans() - before, 1, "{w}×{h}: one layout per frame");
            assert_eq!(laid.area, ratatui::layout::Rect::new(0, 0, w, h));
            assert_eq!(
                *terminal.backend().buffer(),
                fresh(app.model(), w, h),
                "{w}×{h}"
            );
            laid
        };
        for (w, h) in [(100, 30), (140, 40), (60, 20), (12, 4)] {
            frame(&mut app, w, h);
        }
        // The filter that scrolls the preview to its first match, in the same layout.
        dashboard::update(&mut app.model, Event::Action(Action::StartFilter));
        for c in "orders.rs".chars() {
            for fx in dashboard::update(&mut app.model, Event::Action(Action::FilterChar(c))) {
                if let Effect::SearchBodies(needle) = fx {
                    let paths = crate::app::search::bodies(&app.model.snapshot.handoffs, &needle);
                    let more = dashboard::update(&mut app.model, Event::BodyHits { needle, paths });
                    run_effects(&mut app.model, &session, more);
                }
            }
        }
        assert!(app.model().seek_match);
        frame(&mut app, 140, 36);
        assert!(!app.model().seek_match);
        assert!(
            app.model().preview.scroll > 0,
            "the preview scrolled to the match"
        );
        dashboard::update(&mut app.model, Event::Action(Action::FilterCancel));
        // A click lays nothing out: it hits the pane drawn where it happened.
        let laid = frame(&mut app, 100, 30);
        let inbox = laid.plan.inbox.unwrap();
        let click = |row| {
            LoopEvent::Input(ct::Event::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: inbox.x + 2,
                row,
                modifiers: KeyModifiers::NONE,
            }))
        };
        let before = plans();
        assert!(app.event(click(inbox.y + 2), &laid));
        assert_eq!(plans(), before, "a click lays out no frame");
        assert_eq!(app.model().focus, Pane::Inbox);
        assert_eq!(app.model().selected, 1);
    }
}
