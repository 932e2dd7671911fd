//! `forge tui --all`: the fleet list as an [`App`] of the one loop
//! ([`Screen::run_app`]), and the project dashboards it opens on the same screen.
//!
//! The list reads the fleet registry (one small file, plus the registrations kept
//! aside in `projects.pending/`). A watcher on the registry's folder wakes it when a
//! hook changed either ([`crate::watch::registry_changed`]); nothing is polled. The
//! slow tick redraws ages and reads the registry again (a killed client writes
//! nothing: its session leaves the list when its process is found gone). Enter hands
//! the screen to the selected project's own dashboard ([`Screen::project`]), with its
//! watcher and git poller; q or Esc there returns here, with the registry read again.

use std::path::Path;

use anyhow::Context;
use chrono::{DateTime, Utc};
use crossterm::event::{self as ct, KeyEventKind};

use super::{App, Flow, LoopEvent, Screen, Session, forward, key_of, suspend_self};
use crate::model::dashboard::fleet::{FleetEffect, FleetEvent, FleetModel, PaneSend, update};
use crate::model::dashboard::{Model, action_for};
use crate::store::registry;
use crate::ui::fleet::{FleetView, Plan, plan};
use crate::watch::{Watcher, registry_changed};

/// Opens a project's dashboard from its root: the model and session, or why not
/// (the folder is gone, is refused, is no longer set up).
pub(crate) type Opener<'a> = dyn Fn(&Path) -> Result<(Model, Session), String> + 'a;

/// Takes the tmux client to a session's pane (`%N`, on the server of that socket):
/// its `session:window.pane`, or why not.
pub(crate) type Switcher<'a> = dyn Fn(&str, Option<&str>) -> Result<String, String> + 'a;

/// Answers a session's prompt in its pane: what was sent, or why not.
pub(crate) type Answerer<'a> =
    dyn Fn(&crate::model::dashboard::fleet::PaneSend) -> Result<String, String> + 'a;

/// Reads the registry for the list: its contents, or why they cannot be read.
pub(crate) fn read(file: &Path) -> Result<crate::model::agents::fleet::Registry, String> {
    registry::read_for_views(file).map_err(|e| e.to_string())
}

/// Runs the fleet list until q (`Ok(None)`) or a termination signal. Restores the
/// terminal on every path out.
pub(crate) fn run(
    model: FleetModel,
    no_color: bool,
    open: &Opener<'_>,
    switch: &Switcher<'_>,
    answer: &Answerer<'_>,
) -> anyhow::Result<Option<i32>> {
    Screen::run(|screen| {
        let mut app = FleetApp::open(model, no_color, open, switch, &screen.tx)?;
        app.answer = Some(answer);
        screen.run_app(&mut app)
    })
}

/// The fleet list: its model, how it opens a project and reaches a tmux pane, and the
/// watcher of the registry's folder (it stops when the list is dropped).
pub(crate) struct FleetApp<'a> {
    model: FleetModel,
    no_color: bool,
    open: &'a Opener<'a>,
    switch: &'a Switcher<'a>,
    /// How a session's prompt is answered (none: the list says it cannot).
    answer: Option<&'a Answerer<'a>>,
    watcher: Watcher,
    /// A batch of this round touched the registry: read it again.
    reread: bool,
    /// The effects of this round's events, carried out once they are all in.
    effects: Vec<FleetEffect>,
}

impl<'a> FleetApp<'a> {
    /// Starts watching the registry's folder (which may not exist yet), feeding `tx`.
    pub(crate) fn open(
        model: FleetModel,
        no_color: bool,
        open: &'a Opener<'a>,
        switch: &'a Switcher<'a>,
        tx: &std::sync::mpsc::Sender<LoopEvent>,
    ) -> anyhow::Result<Self> {
        let dir = model
            .registry_path
            .parent()
            .context("the fleet registry has no folder")?
            .to_path_buf();
        let watcher = Watcher::folder(&dir, forward(tx, LoopEvent::Registry))
            .with_context(|| format!("watching {}", dir.display()))?;
        Ok(Self {
            model,
            no_color,
            open,
            switch,
            answer: None,
            watcher,
            reread: false,
            effects: Vec::new(),
        })
    }

    /// Sends to a session's pane and says how it went.
    fn send(&mut self, what: PaneSend) {
        let result = match self.answer {
            Some(answer) => answer(&what),
            None => Err("answering is not wired here".to_owned()),
        };
        update(&mut self.model, FleetEvent::Answered(result));
    }

    /// The model (for tests).
    #[cfg(test)]
    pub(crate) fn model(&self) -> &FleetModel {
        &self.model
    }

    /// Reads the registry again into the model.
    fn load(&mut self) {
        let registry = read(&self.model.registry_path);
        update(&mut self.model, FleetEvent::Loaded(registry));
    }

    /// Reads the registry again when this round's file events touched it (and starts
    /// watching its folder once that exists); returns whether it did.
    pub(crate) fn reread(&mut self) -> bool {
        if !std::mem::take(&mut self.reread) {
            return false;
        }
        let _ = self.watcher.sync();
        self.load();
        true
    }

    /// Opens the project at `root` on `screen` until q or Esc there: `Some` when a
    /// termination signal ended it.
    #[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
    fn open_project(&mut self, screen: &mut Screen, root: &Path) -> Option<i32> {
        let (mut project, session) = match (self.open)(root) {
            Ok(opened) => opened,
            Err(why) => {
                update(&mut self.model, FleetEvent::OpenFailed(why));
                return None;
            }
        };
        project.from_fleet = true;
        match screen.project(project, &session) {
            Ok(Some(sig)) => return Some(sig),
            Ok(None) => {}
            Err(e) => {
                update(&mut self.model, FleetEvent::OpenFailed(format!("{e:#}")));
            }
        }
        // What was queued meanwhile (the project's file news, the registry's) is
        // dropped: the registry is read again below.
        if let Some(sig) = screen.drain() {
            return Some(sig);
        }
        let _ = screen.terminal.clear();
        update(&mut self.model, FleetEvent::Tick(Utc::now()));
        self.load();
        None
    }
}

impl App for FleetApp<'_> {
    type Layout = Plan;

    fn layout(&mut self, area: ratatui::layout::Rect) -> Plan {
        let plan = plan(area);
        let rows = plan.list_rows();
        if rows != self.model.list_rows {
            update(&mut self.model, FleetEvent::Viewport(rows));
        }
        plan
    }

    fn view(&self, plan: &Plan, frame: &mut ratatui::Frame) {
        frame.render_widget(
            FleetView::new(&self.model)
                .plan(*plan)
                .no_color(self.no_color),
            frame.area(),
        );
    }

    fn notice_expires(&self) -> Option<DateTime<Utc>> {
        self.model.notice_expires()
    }

    fn tick(&mut self, now: DateTime<Utc>, slow: bool) -> bool {
        let had_notice = self.model.notice.is_some();
        update(&mut self.model, FleetEvent::Tick(now));
        if slow {
            // A killed client writes nothing: its session leaves the list when its
            // process is found gone, at the tick.
            self.load();
        }
        slow || (had_notice && self.model.notice.is_none())
    }

    fn event(&mut self, event: LoopEvent, _shown: &Plan) -> bool {
        match event {
            LoopEvent::Registry(res) => {
                self.reread |= registry_changed(&res, &self.model.registry_path);
                false
            }
            LoopEvent::Input(ct::Event::Key(k)) if k.kind == KeyEventKind::Press => {
                let Some(action) = key_of(k.code, k.modifiers)
                    .and_then(|key| action_for(self.model.mode, None, key))
                else {
                    return false;
                };
                let fx = update(&mut self.model, FleetEvent::Action(action));
                self.effects.extend(fx);
                true
            }
            LoopEvent::Input(ct::Event::Resize(..)) => true,
            // Mouse events; a closed dashboard's file and git news: not for the list.
            LoopEvent::Input(_)
            | LoopEvent::Fs(_)
            | LoopEvent::Git(_)
            | LoopEvent::BodyHits(..)
            | LoopEvent::Signal(_) => false,
        }
    }

    fn settle(&mut self, screen: &mut Screen) -> anyhow::Result<Flow> {
        let mut redraw = self.reread();
        for fx in std::mem::take(&mut self.effects) {
            match fx {
                FleetEffect::Quit => return Ok(Flow::Quit),
                FleetEffect::Suspend => suspend_self(&mut screen.terminal, &screen.input),
                FleetEffect::SwitchToPane { pane, socket } => {
                    let result = (self.switch)(&pane, socket.as_deref());
                    update(&mut self.model, FleetEvent::Switched(result));
                }
                FleetEffect::Answer(req) => self.send(PaneSend::Answer(req)),
                FleetEffect::Prompt(req) => self.send(PaneSend::Prompt(req)),
                FleetEffect::Open(root) => {
                    if let Some(sig) = self.open_project(screen, &root) {
                        return Ok(Flow::Signal(sig));
                    }
                }
            }
            redraw = true;
        }
        Ok(Flow::Stay { redraw })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::model::agents::fleet::{Pending, ProjectFacts, SessionRow};

    fn registration(root: &str) -> Pending {
        let now = Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        Pending {
            facts: ProjectFacts::new(root, Some("main"), 0, chrono::Duration::minutes(30)).unwrap(),
            row: SessionRow {
                id: "s1".into(),
                attention: Some(crate::model::session::state::Attention::WaitingInput),
                last_event: Some("Stop".into()),
                last_event_at: Some(now.clone()),
                ..Default::default()
            },
            at: now,
        }
    }

    /// Hands the loop's events to `app` until a round touched the registry (and the
    /// list read it again); false after 5 s.
    fn until_reread(app: &mut FleetApp<'_>, rx: &mpsc::Receiver<LoopEvent>) -> bool {
        let shown = plan(ratatui::layout::Rect::new(0, 0, 100, 30));
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(ev) = rx.recv_timeout(Duration::from_millis(100)) {
                app.event(ev, &shown);
                if app.reread() {
                    return true;
                }
            }
        }
        false
    }

    fn roots(app: &FleetApp<'_>) -> Vec<String> {
        app.model()
            .rows()
            .iter()
            .map(|r| r.project.root.clone())
            .collect()
    }

    #[test]
    fn a_registration_reaches_the_list_through_the_watcher_not_a_poll() {
        let t = tempfile::tempdir().unwrap();
        // Neither the state folder nor the registry exists yet.
        let file = t
            .path()
            .canonicalize()
            .unwrap()
            .join("state/forge")
            .join(registry::FILE);
        let model = FleetModel::new(read(&file), file.clone(), Utc::now());
        let open = |_: &Path| Err("not in this test".to_owned());
        let switch = |_: &str, _: Option<&str>| Err("not in this test".to_owned());
        let (tx, rx) = mpsc::channel();
        let mut app = FleetApp::open(model, true, &open, &switch, &tx).unwrap();
        assert!(roots(&app).is_empty());
        // Nothing happens: no event, nothing read.
        assert!(rx.recv_timeout(Duration::from_millis(400)).is_err());
        assert!(!app.reread());

        // A hook registers a project: the folder and the file appear.
        registry::register(&file, Duration::from_millis(50), registration("/p/api")).unwrap();
        assert!(
            until_reread(&mut app, &rx),
            "the registry written was not seen"
        );
        assert_eq!(roots(&app), ["/p/api"]);

        // The lock is busy: the next registration waits aside in projects.pending/,
        // and the list shows it as soon as it is written there.
        let _held =
            crate::store::FileLock::acquire(&file.with_file_name("projects.lock"), Duration::ZERO)
                .unwrap();
        registry::register(&file, Duration::from_millis(10), registration("/p/web")).unwrap();
        let pending = file.with_file_name(registry::PENDING);
        assert_eq!(std::fs::read_dir(&pending).unwrap().count(), 1);
        assert!(
            until_reread(&mut app, &rx),
            "the pending registration was not seen"
        );
        let mut shown = roots(&app);
        shown.sort();
        assert_eq!(shown, ["/p/api", "/p/web"]);
    }
}
