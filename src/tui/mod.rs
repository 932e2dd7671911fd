//! The terminal side of the dashboards: setup and restore, the input thread, the
//! one event loop ([`Screen::run_app`]) both dashboards run in, and the effects
//! (`model::dashboard::Effect`) that need the disk or the terminal.
//!
//! Two apps share the loop through the [`App`] trait (The Elm Architecture: a model,
//! how each event updates it, how it is drawn): one project's dashboard
//! ([`project::ProjectApp`], `forge tui`) and the fleet list ([`fleet::FleetApp`],
//! `forge tui --all`, which opens a project's dashboard on the same screen).
//!
//! One channel, many producers: the input thread sends terminal events, the signal
//! thread termination signals, the debouncer's thread file-system batches (the
//! project's `.forge/`, or the fleet registry's folder), the git poller ([`git_poll`])
//! git facts when a checkout, commit or edit changed them, and the search thread the
//! handoffs whose text matches. The loop blocks on the channel (no polling; it wakes
//! by itself only for the slow tick that redraws ages, or when a notice is due to
//! go), drains whatever else is queued, applies it all to the model, and draws only
//! when something changed. A frame is laid out once ([`App::layout`]); that layout
//! draws it, sizes the model's pages and, until the next frame, hit-tests clicks.
//!
//! SIGTERM, SIGHUP, SIGINT and SIGQUIT end the loop like `q` does, so the terminal
//! is restored (alternate screen, raw mode, mouse reporting) and the caller's
//! clean-up runs (the demo's temporary folder). A second such signal while that is
//! under way restores the terminal and exits at once.

pub(crate) mod demo;
pub(crate) mod fleet;
pub mod git_poll;
pub(crate) mod project;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::{DateTime, Utc};
use crossterm::event::{
    self as ct, DisableMouseCapture, EnableMouseCapture, KeyCode, KeyModifiers,
};
use crossterm::execute;
use notify_debouncer_full::DebounceEventResult;
use ratatui::DefaultTerminal;
use ratatui::layout::Rect;

use crate::app::snapshot::{self, GitSource};
use crate::env::Env;
#[cfg(test)]
use crate::model::dashboard::Action;
use crate::model::dashboard::{self, Effect, Event, Key, Model};
use crate::model::handoff::entry::HandoffEntry;
use crate::model::session::state::GitCache;
use crate::store::{self, Paths};
use crate::ui;
use crate::watch::Pending;

/// How often ages are redrawn when nothing else happens.
pub(crate) const TICK: Duration = Duration::from_secs(30);
/// How long the input thread waits for a key before checking whether it must pause
/// (while `$EDITOR` owns the terminal). Blocking, not busy: about four wakeups a second.
const INPUT_WAIT: Duration = Duration::from_millis(250);
/// Preview files are read up to this size.
const PREVIEW_CAP: u64 = 1024 * 1024;

/// What arrives on the loop's channel.
#[derive(Debug)]
pub(crate) enum LoopEvent {
    /// A terminal event from the input thread.
    Input(ct::Event),
    /// A debounced batch of file-system events under the project's `.forge/`.
    Fs(DebounceEventResult),
    /// A debounced batch of file-system events in the fleet registry's folder.
    Registry(DebounceEventResult),
    /// Git facts that differ from the last sent (from the git poller's thread).
    Git(Box<GitCache>),
    /// A termination signal (SIGTERM, SIGHUP, SIGINT, SIGQUIT).
    Signal(i32),
    /// The handoffs whose text holds `needle` (from the search thread).
    BodyHits(String, std::collections::HashSet<PathBuf>),
}

/// A debouncer handler that hands each batch to the loop as `wrap(batch)` (a project's
/// `.forge/` news, or the fleet registry's).
fn forward(
    tx: &Sender<LoopEvent>,
    wrap: fn(DebounceEventResult) -> LoopEvent,
) -> impl notify_debouncer_full::DebounceEventHandler {
    let tx = std::sync::Mutex::new(tx.clone());
    move |res: DebounceEventResult| {
        if let Ok(tx) = tx.lock() {
            let _ = tx.send(wrap(res));
        }
    }
}

/// The signals that end the dashboard.
const END_SIGNALS: [i32; 4] = [
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGQUIT,
];

/// Forwards termination signals to the loop. The first one ends the loop (which
/// restores the terminal on its way out); a second one, should the loop be stuck,
/// restores the terminal from this thread and exits with `128 + signal`.
fn watch_signals(tx: Sender<LoopEvent>) -> std::io::Result<signal_hook::iterator::Handle> {
    let mut signals = signal_hook::iterator::Signals::new(END_SIGNALS)?;
    let handle = signals.handle();
    thread::spawn(move || {
        let mut seen = false;
        for sig in signals.forever() {
            if seen {
                let _ = execute!(io::stdout(), DisableMouseCapture);
                ratatui::restore();
                std::process::exit(128 + sig);
            }
            seen = true;
            let _ = tx.send(LoopEvent::Signal(sig));
        }
    });
    Ok(handle)
}

/// Converts a crossterm key to the dashboard's own key type.
pub(crate) fn key_of(code: KeyCode, mods: KeyModifiers) -> Option<Key> {
    Some(match code {
        KeyCode::Char('c') if mods.contains(KeyModifiers::CONTROL) => Key::Esc,
        KeyCode::Char('z') if mods.contains(KeyModifiers::CONTROL) => Key::Suspend,
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Tab => Key::Tab,
        KeyCode::BackTab => Key::BackTab,
        KeyCode::Enter => Key::Enter,
        KeyCode::Esc => Key::Esc,
        KeyCode::Backspace => Key::Backspace,
        _ => return None,
    })
}

/// The input thread, which can be paused while another program owns the terminal.
struct Input {
    paused: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    ack: Receiver<()>,
    resume: Sender<()>,
}

impl Input {
    fn spawn(tx: Sender<LoopEvent>) -> Self {
        let paused = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (ack_tx, ack) = mpsc::channel();
        let (resume, resume_rx) = mpsc::channel::<()>();
        let (p, s) = (paused.clone(), stop.clone());
        thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if p.load(Ordering::Relaxed) {
                    let _ = ack_tx.send(());
                    if resume_rx.recv().is_err() {
                        return;
                    }
                    continue;
                }
                match ct::poll(INPUT_WAIT) {
                    Ok(true) => match ct::read() {
                        Ok(ev) => {
                            if tx.send(LoopEvent::Input(ev)).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    },
                    Ok(false) => {}
                    Err(_) => return,
                }
            }
        });
        Self {
            paused,
            stop,
            ack,
            resume,
        }
    }

    /// Stops reading the terminal; returns once the thread is out of `poll`.
    fn pause(&self) {
        self.paused.store(true, Ordering::Relaxed);
        let _ = self.ack.recv_timeout(INPUT_WAIT * 4);
    }

    fn resume(&self) {
        self.paused.store(false, Ordering::Relaxed);
        let _ = self.resume.send(());
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.resume.send(());
    }
}

/// Turns mouse capture off when dropped (also while unwinding from a panic).
/// ratatui's own panic hook restores raw mode and the alternate screen.
struct MouseGuard;

impl MouseGuard {
    fn enable() -> Self {
        let _ = execute!(io::stdout(), EnableMouseCapture);
        Self
    }
}

impl Drop for MouseGuard {
    fn drop(&mut self) {
        // Failures only matter to nobody: the terminal is going away.
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
}

/// Everything the loop needs besides the model.
pub(crate) struct Session {
    /// The project.
    pub(crate) paths: Paths,
    /// The environment (for `$EDITOR` and `~/.claude/pending-resume`).
    pub(crate) env: Env,
    /// Draw without colours.
    pub(crate) no_color: bool,
    /// Append a line per frame drawn to this file (benchmarks).
    pub(crate) trace: Option<PathBuf>,
    /// Keep the git facts true while open ([`git_poll`]); off for the demo, whose
    /// facts are made up.
    pub(crate) poll_git: bool,
}

/// Reads the project and builds the first model.
pub(crate) fn initial_model(paths: &Paths, env: &Env, git: GitSource) -> Model {
    let (config, untrusted_keys) = match crate::config::load(paths, env) {
        Ok(l) if l.untrusted_line().is_some() => {
            let n = l.ignored.len();
            (l.config, n)
        }
        Ok(l) => (l.config, 0),
        Err(_) => (crate::config::load_or_default(paths, env), 0),
    };
    let snap = snapshot::load_for_inbox(paths, env.now, git);
    let mut m = Model::new(snap, config.context.thresholds(), env.now);
    m.stale_after = config.attention.stale_after();
    m.untrusted_keys = untrusted_keys;
    // Inside tmux, `t` in the sessions pane switches this client to a session's
    // pane (on this server); outside, it says how to attach.
    m.tmux = env.tmux.then(|| {
        env.tmux_socket
            .as_ref()
            .and_then(|p| p.to_str().map(str::to_owned))
    });
    m
}

/// Carries out the effects that need no terminal (preview reads, marker writes),
/// feeding the results back into the model. Returns the rest (editor, quit).
#[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
pub(crate) fn run_effects(model: &mut Model, s: &Session, effects: Vec<Effect>) -> Vec<Effect> {
    let mut queue = effects;
    let mut rest = Vec::new();
    while let Some(fx) = queue.pop() {
        let more = match fx {
            Effect::LoadPreview(path) => {
                // A handoff an agent or a person wrote may hold what forge's own
                // never do: redacted as it is shown, like every text that leaves.
                let text = store::read_capped(&path, PREVIEW_CAP)
                    .map(|b| crate::model::text::redact::redact(&String::from_utf8_lossy(&b)));
                dashboard::update(model, Event::PreviewLoaded { path, text })
            }
            Effect::WritePendingResume(target) => {
                // A global marker that could not be written is left out of the list
                // the notice shows: the project's marker is the one that resumes.
                let result = store::files::write_pending_resume(
                    &s.paths,
                    &s.env,
                    &target,
                    crate::model::session::state::ResumeOrigin::Chosen,
                )
                .map(|m| m.written)
                .map_err(|e| e.to_string());
                dashboard::update(model, Event::ResumeWritten { target, result })
            }
            Effect::AnswerPane(req) => {
                let result = crate::app::fleet::answer_pane(&s.env, &req);
                dashboard::update(model, Event::PaneAnswered(result))
            }
            Effect::PromptPane(req) => {
                let result = crate::app::fleet::prompt_pane(&s.env, &req);
                dashboard::update(model, Event::PaneAnswered(result))
            }
            Effect::SwitchToPane { pane, socket } => {
                let result = crate::app::fleet::switch_to_pane(&s.env, &pane, socket.as_deref());
                dashboard::update(model, Event::Switched(result))
            }
            Effect::ResolveSignal { blocked, answer } => {
                let task = model
                    .snapshot
                    .handoffs
                    .iter()
                    .find(|h| h.path == blocked)
                    .and_then(|h| h.task())
                    .unwrap_or("?")
                    .to_owned();
                let mut env = s.env.clone();
                env.now = Utc::now();
                let from = crate::app::signal::default_resolver();
                let answer = Some(answer.as_str()).filter(|a| !a.trim().is_empty());
                let result =
                    crate::app::signal::resolve_file(&s.paths, &env, &blocked, &from, answer)
                        .map_err(|e| format!("{e:#}"));
                dashboard::update(model, Event::SignalResolved { task, result })
            }
            other => {
                rest.push(other);
                Vec::new()
            }
        };
        queue.extend(more);
    }
    rest
}

/// Renders one frame of `model` at `width`×`height` as plain text (for `--once`).
pub(crate) fn render_text(model: &Model, width: u16, height: u16) -> String {
    ui::frame_text(ui::Dashboard::new(model), width, height)
}

/// A screen the one loop runs ([`Screen::run_app`]), in The Elm Architecture: its
/// model (the implementor), how each event updates it, and how it is drawn. The
/// decisions are the models' (`crate::model::dashboard`); an app carries out their
/// effects.
pub(crate) trait App {
    /// Where everything goes in one frame: laid out once per frame, from the frame's
    /// own area, then used to draw it and, until the next frame, to hit-test clicks.
    type Layout;
    /// Lays out a frame of `area`, telling the model the sizes it pages and scrolls
    /// by.
    fn layout(&mut self, area: Rect) -> Self::Layout;
    /// Draws the frame `layout` laid out.
    fn view(&self, layout: &Self::Layout, frame: &mut ratatui::Frame);
    /// A frame was drawn.
    fn drawn(&self) {}
    /// When the notice on screen goes, if nothing happens first (the loop wakes then).
    fn notice_expires(&self) -> Option<DateTime<Utc>>;
    /// The clock moved, at every wake before its events; `slow` at the slow tick
    /// ([`TICK`]). Returns whether the frame changed.
    fn tick(&mut self, now: DateTime<Utc>, slow: bool) -> bool;
    /// One event from the channel (never a termination signal: the loop ends on
    /// those), with the layout of the frame on screen. Returns whether the frame
    /// changed.
    fn event(&mut self, event: LoopEvent, shown: &Self::Layout) -> bool;
    /// Once the queued events are all in: reads again what they said changed and
    /// carries out their effects, with the screen for those that need the terminal
    /// (an editor, Ctrl-Z, a dashboard opened from the fleet list).
    fn settle(&mut self, screen: &mut Screen) -> anyhow::Result<Flow>;
}

/// What the loop does after [`App::settle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Go on, drawing a frame first when `redraw`.
    Stay {
        /// The frame changed.
        redraw: bool,
    },
    /// The app is done (q, or Esc in a dashboard opened from the fleet list).
    Quit,
    /// A termination signal ended a screen the app ran (a dashboard it opened).
    Signal(i32),
}

/// Lays out and draws one frame of `app`: the layout is made from the frame's own
/// area, inside the draw, so it is the one drawn; it is returned for the clicks.
pub(crate) fn draw_frame<B: ratatui::backend::Backend, A: App>(
    terminal: &mut ratatui::Terminal<B>,
    app: &mut A,
) -> anyhow::Result<A::Layout> {
    let mut laid = None;
    terminal
        .draw(|frame| {
            let layout = app.layout(frame.area());
            app.view(&layout, frame);
            laid = Some(layout);
        })
        .map_err(|e| anyhow::anyhow!("drawing: {e}"))?;
    app.drawn();
    laid.context("drawing: no frame was laid out")
}

/// Runs the dashboard until the user quits or a termination signal arrives. Restores
/// the terminal on every path out. Returns the signal that ended it, if one did.
pub(crate) fn run(model: Model, session: Session) -> anyhow::Result<Option<i32>> {
    Screen::run(|screen| screen.project(model, &session))
}

/// The terminal while forge owns it, and the one channel every producer feeds: the
/// input thread, the signal watcher, and the apps' own (a project's file watcher,
/// git poller and search thread; the fleet list's registry watcher). `forge tui
/// --all` keeps one screen across the fleet list and the dashboards it opens.
pub(crate) struct Screen {
    terminal: DefaultTerminal,
    tx: Sender<LoopEvent>,
    rx: Receiver<LoopEvent>,
    input: Input,
}

impl Screen {
    /// Sets the terminal up, runs `body` on it, and restores the terminal on every
    /// path out (an error included).
    pub(crate) fn run<T>(body: impl FnOnce(&mut Self) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let (tx, rx) = mpsc::channel::<LoopEvent>();
        let terminal = ratatui::try_init()
            .inspect_err(|_| ratatui::restore())
            .context("setting up the terminal")?;
        let signals = watch_signals(tx.clone()).inspect_err(|_| ratatui::restore());
        let signals = signals.context("installing the signal handlers")?;
        let mouse = MouseGuard::enable();
        let input = Input::spawn(tx.clone());
        let mut screen = Self {
            terminal,
            tx,
            rx,
            input,
        };
        let result = body(&mut screen);
        drop(screen);
        drop(mouse);
        ratatui::restore();
        signals.close();
        result
    }

    /// Drops what is queued (a closed project's file and git news, keys typed while
    /// switching screens); a termination signal among it is returned.
    fn drain(&self) -> Option<i32> {
        self.rx.try_iter().find_map(|ev| match ev {
            LoopEvent::Signal(sig) => Some(sig),
            _ => None,
        })
    }

    /// Runs one project's dashboard on this screen until q or Esc (`Ok(None)`) or a
    /// termination signal (`Ok(Some(sig))`). Its watcher and git poller stop when it
    /// returns.
    pub(crate) fn project(
        &mut self,
        model: Model,
        session: &Session,
    ) -> anyhow::Result<Option<i32>> {
        if let Some(sig) = self.drain() {
            return Ok(Some(sig));
        }
        let mut app = project::ProjectApp::open(model, session, &self.tx)?;
        self.run_app(&mut app)
    }

    /// The one loop: draws `app`, then blocks on the channel until something happens
    /// (or the slow tick, or a notice due to go), drains what else is queued, hands it
    /// all to the app, lets the app carry out the effects, and draws again only when
    /// the frame changed. Ends on the app's quit (`Ok(None)`) or a termination signal
    /// (`Ok(Some(sig))`).
    #[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
    pub(crate) fn run_app<A: App>(&mut self, app: &mut A) -> anyhow::Result<Option<i32>> {
        let mut next_tick = Instant::now() + TICK;
        let mut shown = draw_frame(&mut self.terminal, app)?;
        loop {
            let wait = sleep_for(
                next_tick.saturating_duration_since(Instant::now()),
                app.notice_expires(),
                Utc::now(),
            );
            let first = match self.rx.recv_timeout(wait) {
                Ok(ev) => Some(ev),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return Ok(None),
            };
            let slow = Instant::now() >= next_tick;
            if slow {
                next_tick = Instant::now() + TICK;
            }
            let mut redraw = app.tick(Utc::now(), slow);
            for ev in first.into_iter().chain(self.rx.try_iter()) {
                if let LoopEvent::Signal(sig) = ev {
                    return Ok(Some(sig));
                }
                redraw |= app.event(ev, &shown);
            }
            match app.settle(self)? {
                Flow::Quit => return Ok(None),
                Flow::Signal(sig) => return Ok(Some(sig)),
                Flow::Stay { redraw: changed } => redraw |= changed,
            }
            if redraw {
                shown = draw_frame(&mut self.terminal, app)?;
            }
        }
    }
}

/// How long the loop may sleep: until the next tick, or until the notice on screen
/// is due to go (plus a little, so that it has), whichever is first.
fn sleep_for(
    to_tick: Duration,
    notice_expires: Option<chrono::DateTime<Utc>>,
    now: chrono::DateTime<Utc>,
) -> Duration {
    match notice_expires {
        Some(t) => to_tick.min((t - now).to_std().unwrap_or_default() + Duration::from_millis(50)),
        None => to_tick,
    }
}

/// Re-reads what `pending` says changed and returns the model's effects.
#[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
pub(crate) fn reload(model: &mut Model, paths: &Paths, pending: &Pending) -> Vec<Effect> {
    let now = Utc::now();
    let keep_git = |snap: &mut crate::model::snapshot::Snapshot, model: &Model| {
        // Hooks and the git poller refresh the git cache; until one has, keep the
        // facts read at start, and keep facts newer than a hook wrote (a slow hook
        // may write what it saw before a checkout the poller has already seen).
        snap.git = model.fresher_git(snap.git.take());
    };
    let mut fx = dashboard::update(model, Event::Tick(now));
    // The folders were checked at start; one swapped for a link (or made someone
    // else's) since is not read: the dashboard shows nothing rather than its files.
    if paths.check().is_err() {
        let empty = crate::model::snapshot::Snapshot::empty(paths.root.clone(), now);
        fx.extend(dashboard::update(model, Event::Loaded(Box::new(empty))));
        return fx;
    }
    if pending.full {
        let mut snap = snapshot::load_for_inbox(paths, now, GitSource::Cache);
        keep_git(&mut snap, model);
        fx.extend(dashboard::update(model, Event::Loaded(Box::new(snap))));
        return fx;
    }
    if pending.state {
        let mut snap = snapshot::load_state(paths, now, GitSource::Cache);
        keep_git(&mut snap, model);
        fx.extend(dashboard::update(model, Event::StateLoaded(Box::new(snap))));
    }
    if !pending.handoffs.is_empty() {
        let changes = pending
            .handoffs
            .iter()
            .map(|p| {
                let entry = store::handoffs::load_one(p).map(HandoffEntry::for_inbox);
                (p.clone(), entry)
            })
            .collect();
        fx.extend(dashboard::update(model, Event::HandoffsChanged(changes)));
    }
    fx
}

/// Ctrl-Z: gives the terminal back, stops like any terminal program (SIGTSTP, which
/// raw mode kept from being sent by the terminal), and takes the terminal again when
/// the shell continues it (`fg`).
fn suspend_self(terminal: &mut DefaultTerminal, input: &Input) {
    away_from_terminal(terminal, input, || {
        // Returns once SIGCONT has resumed us.
        let _ =
            rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::TSTP);
    });
}

/// Gives the terminal back (input reader paused, mouse off, raw mode and the
/// alternate screen left) while `away` runs, then takes it again and redraws.
fn away_from_terminal<T>(
    terminal: &mut DefaultTerminal,
    input: &Input,
    away: impl FnOnce() -> T,
) -> T {
    input.pause();
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    let result = away();
    let _ = crossterm::terminal::enable_raw_mode();
    let _ = execute!(
        io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        EnableMouseCapture
    );
    let _ = terminal.clear();
    input.resume();
    result
}

/// Hands the terminal to `$EDITOR` for `path` and takes it back.
fn suspend_for_editor(
    terminal: &mut DefaultTerminal,
    input: &Input,
    env: &Env,
    editor: Option<&str>,
    path: &Path,
) -> Result<(), String> {
    let Some(editor) = editor else {
        return Err(format!(
            "set $EDITOR or $VISUAL ($PAGER for transcripts) to open it: {}",
            path.display()
        ));
    };
    // Through the shell, so an $EDITOR with arguments ("code -w") works; the path is
    // passed as "$1", never spliced into the command text.
    // `sh` from an absolute folder of PATH, and the editor's name looked up only in
    // those: never a `./sh` or `./vim` of the project.
    let mut cmd =
        crate::proc::Cmd::shell(env, &format!("{editor} \"$1\"")).map_err(|e| e.to_string())?;
    cmd.arg("forge-editor").arg(path);
    let status = away_from_terminal(terminal, input, || cmd.interactive());
    match status {
        Ok(st) if st.success() => Ok(()),
        Ok(st) => Err(format!("{editor} exited with {st}")),
        Err(e) => Err(format!("could not start {editor}: {e}")),
    }
}

/// A session transcript the sessions pane may open: a regular `.jsonl` file (not a
/// link) under Claude Code's `projects/` folder. The path comes from a bridge file
/// under `.forge/`, which a repository can ship: nothing else is ever opened.
fn transcript_to_show(env: &Env, path: &Path) -> Result<PathBuf, String> {
    let projects = env
        .claude_dir()
        .map(|d| std::fs::canonicalize(d.join("projects")).unwrap_or(d.join("projects")));
    let parent = path.parent().and_then(|p| std::fs::canonicalize(p).ok());
    let inside = projects
        .zip(parent)
        .is_some_and(|(root, parent)| parent.starts_with(root));
    let jsonl = path.extension().is_some_and(|e| e == "jsonl");
    if !inside || !jsonl || !store::safe::is_regular(path) {
        return Err(format!(
            "not opening {}: a transcript is a .jsonl file under ~/.claude/projects/",
            crate::model::text::sanitize::single_line(&path.display().to_string())
        ));
    }
    Ok(path.to_path_buf())
}

/// The conversation of the transcript at `path` ([`crate::model::session::conversation`]:
/// cleaned and redacted), written to a new private temporary file (`0600`, removed
/// when the handle is dropped) for the pager.
fn conversation_file(
    path: &Path,
    zone: crate::model::time::Zone,
) -> Result<tempfile::NamedTempFile, String> {
    use std::io::Write as _;
    let text = store::transcript::read_conversation(path, zone)
        .map_err(|e| format!("could not read the transcript: {e}"))?;
    let mut file = tempfile::Builder::new()
        .prefix("forge-conversation-")
        .suffix(".txt")
        .tempfile()
        .map_err(|e| format!("could not write the conversation for the pager: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("could not write the conversation for the pager: {e}"))?;
    Ok(file)
}

/// Puts `text` on the clipboard through the terminal (OSC 52), which works over ssh
/// and in tmux with `set-clipboard on`; returns what was copied.
fn osc52_copy(text: &str) -> io::Result<String> {
    use std::io::Write as _;
    let (sequence, copied) = osc52_sequence(text);
    let mut out = io::stdout();
    out.write_all(sequence.as_bytes())?;
    out.flush()?;
    Ok(copied)
}

/// The OSC 52 sequence that copies `text`, and the text it copies: the one-line
/// sanitiser's output ([`crate::model::text::sanitize::single_line`]), whoever asked. The
/// clipboard is an exit like the screen: a pasted escape sequence, control
/// character or line break could drive a terminal or run a command, and a bidi
/// control would make the pasted text read otherwise than it is.
fn osc52_sequence(text: &str) -> (String, String) {
    let clean = crate::model::text::sanitize::single_line(text)
        .trim()
        .to_owned();
    (format!("\x1b]52;c;{}\x07", base64(clean.as_bytes())), clean)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ABC[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `--trace-draws <file>`: after each frame, appends the wall-clock time and the
/// handoff count, so the benchmark can measure how fast a change reaches the screen.
#[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
fn trace_draw(path: &Path, model: &Model) {
    let line = format!(
        "{} handoffs={}",
        Utc::now().timestamp_micros(),
        model.snapshot.handoffs.len()
    );
    let _ = store::append_line_capped(path, &line, 1024 * 1024);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossterm_keys_convert() {
        assert_eq!(
            key_of(KeyCode::Char('j'), KeyModifiers::NONE),
            Some(Key::Char('j'))
        );
        assert_eq!(
            key_of(KeyCode::Char('c'), KeyModifiers::CONTROL),
            Some(Key::Esc)
        );
        assert_eq!(
            key_of(KeyCode::BackTab, KeyModifiers::SHIFT),
            Some(Key::BackTab)
        );
        assert_eq!(key_of(KeyCode::F(1), KeyModifiers::NONE), None);
    }

    #[test]
    fn the_clipboard_gets_only_the_sanitised_text() {
        let hostile = "id-1\x1b]52;c;ZXZpbA==\x07\u{202e}gpj.exe\n; rm -rf ~\r\x1b[2J";
        let (sequence, copied) = osc52_sequence(hostile);
        assert_eq!(copied, "id-1gpj.exe ; rm -rf ~");
        assert_eq!(
            copied,
            crate::model::text::sanitize::single_line(hostile).trim()
        );
        assert_eq!(
            sequence,
            format!("\x1b]52;c;{}\x07", base64(copied.as_bytes()))
        );
        // One sequence: the only ESC and BEL are forge's own.
        assert_eq!(sequence.matches('\x1b').count(), 1);
        assert_eq!(sequence.matches('\x07').count(), 1);
        let (_, plain) = osc52_sequence("/p/.forge/handoffs/handoff-20261121-101502.md");
        assert_eq!(plain, "/p/.forge/handoffs/handoff-20261121-101502.md");
    }

    #[test]
    fn base64_matches_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn only_a_transcript_under_claude_projects_is_opened() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let env = Env::for_test(&home, t.path());
        let dir = home.join(".claude/projects/-p");
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("s.jsonl");
        std::fs::write(&good, "{}\n").unwrap();
        assert_eq!(transcript_to_show(&env, &good), Ok(good.clone()));
        let secret = t.path().join("secret.jsonl");
        std::fs::write(&secret, "x").unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let not_jsonl = dir.join("notes.md");
        std::fs::write(&not_jsonl, "x").unwrap();
        for bad in [
            secret,
            link,
            not_jsonl,
            dir.join("../../../../secret.jsonl"),
            PathBuf::from("/etc/passwd"),
        ] {
            assert!(transcript_to_show(&env, &bad).is_err(), "{}", bad.display());
        }
    }

    #[test]
    fn the_loop_wakes_when_a_notice_is_due_to_go() {
        let now = Utc::now();
        let tick = TICK;
        assert_eq!(sleep_for(tick, None, now), tick);
        let in_10s = now + chrono::Duration::seconds(10);
        assert_eq!(
            sleep_for(tick, Some(in_10s), now),
            Duration::from_millis(10_050)
        );
        // Overdue: wake almost at once; a tick due sooner still wins.
        let past = now - chrono::Duration::seconds(1);
        assert_eq!(sleep_for(tick, Some(past), now), Duration::from_millis(50));
        let soon = Duration::from_millis(5);
        assert_eq!(sleep_for(soon, Some(in_10s), now), soon);
    }

    #[test]
    fn enter_writes_both_markers_through_the_store() {
        let t = tempfile::tempdir().unwrap();
        let root = demo::install(t.path(), Utc::now()).unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let paths = Paths::new(&root);
        let mut model = initial_model(&paths, &env, GitSource::Cache);
        let s = Session {
            paths: paths.clone(),
            env,
            no_color: true,
            trace: None,
            poll_git: false,
        };
        let start = model.start();
        run_effects(&mut model, &s, start);
        assert!(
            model
                .preview
                .text
                .as_deref()
                .unwrap()
                .contains("FORGE AGENT HANDOFF")
        );
        let fx = dashboard::update(&mut model, Event::Action(Action::Resume));
        assert!(run_effects(&mut model, &s, fx).is_empty());
        let marker = std::fs::read_to_string(paths.pending_resume()).unwrap();
        assert!(marker.contains("agent-T-012-"), "{marker}");
        assert!(t.path().join("home/.claude/pending-resume").exists());
        assert!(model.notice.unwrap().text.contains("pending resume"));
    }

    #[test]
    fn reload_applies_handoff_and_state_changes() {
        let t = tempfile::tempdir().unwrap();
        let root = demo::install(t.path(), Utc::now()).unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let paths = Paths::new(&root);
        let mut model = initial_model(&paths, &env, GitSource::Cache);
        let new = paths.handoffs().join("handoff-20991231-235959.md");
        std::fs::write(&new, "# later\n").unwrap();
        let mut p = Pending::default();
        p.handoffs.insert(new.clone());
        reload(&mut model, &paths, &p);
        assert_eq!(model.snapshot.handoffs.len(), 7);
        std::fs::remove_file(paths.learn_pending()).unwrap();
        let p = Pending {
            state: true,
            ..Pending::default()
        };
        reload(&mut model, &paths, &p);
        assert!(!model.snapshot.flags.learn_pending);
        assert_eq!(
            model.snapshot.handoffs.len(),
            7,
            "state reload keeps handoffs"
        );
        assert!(model.snapshot.git.is_some());
    }
}
