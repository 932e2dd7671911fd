//! `forge tui --all`: the fleet list's loop, and the project dashboards it opens on
//! the same screen.
//!
//! The list reads the fleet registry (one small file) and polls its stamp once a
//! second, re-reading it only when it changed; ages are redrawn on the slow tick.
//! Enter hands the screen to the selected project's own dashboard
//! ([`Screen::project`]), with its watcher and git poller; q or Esc there returns
//! here, with the registry read again.

use std::path::{Path, PathBuf};
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::Utc;
use crossterm::event::{self as ct, KeyEventKind};

use super::{LoopEvent, Screen, Session, TICK, key_of, sleep_for, suspend_self};
use crate::model::dashboard::fleet::{FleetEffect, FleetEvent, FleetModel, update};
use crate::model::dashboard::{Model, action_for};
use crate::store::registry;
use crate::ui::fleet::{FleetView, list_rows};

/// How often the registry's stamp is looked at.
const POLL: Duration = Duration::from_secs(1);

/// Opens a project's dashboard from its root: the model and session, or why not
/// (the folder is gone, is refused, is no longer set up).
pub type Opener<'a> = dyn Fn(&Path) -> Result<(Model, Session), String> + 'a;

/// Reads the registry for the list: its contents, or why they cannot be read.
pub fn read(file: &Path) -> Result<crate::model::agents::fleet::Registry, String> {
    registry::read_for_views(file).map_err(|e| e.to_string())
}

/// The registry file's identity and size and time: when they move, it is re-read.
fn stamp(file: &Path) -> Option<(u64, u64, std::time::SystemTime)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(file).ok()?;
    Some((m.ino(), m.len(), m.modified().ok()?))
}

/// Renders one frame of the fleet list at `width`×`height` as plain text (`--once`).
pub fn render_text(model: &FleetModel, width: u16, height: u16) -> String {
    let area = ratatui::layout::Rect::new(0, 0, width, height);
    let mut buf = ratatui::buffer::Buffer::empty(area);
    ratatui::widgets::Widget::render(FleetView::new(model), area, &mut buf);
    crate::ui::buffer_text(&buf)
}

/// Runs the fleet list until q (`Ok(None)`) or a termination signal. Restores the
/// terminal on every path out.
pub fn run(
    mut model: FleetModel,
    no_color: bool,
    open: &Opener<'_>,
    switch: &Switcher<'_>,
) -> anyhow::Result<Option<i32>> {
    Screen::run(|screen| fleet_loop(screen, &mut model, no_color, open, switch))
}

/// Takes the tmux client to a session's pane (`%N`, on the server of that socket):
/// its `session:window.pane`, or why not.
pub type Switcher<'a> = dyn Fn(&str, Option<&str>) -> Result<String, String> + 'a;

#[allow(clippy::disallowed_methods)] // the dashboard loop reads the clock (clippy.toml)
fn fleet_loop(
    screen: &mut Screen,
    model: &mut FleetModel,
    no_color: bool,
    open: &Opener<'_>,
    switch: &Switcher<'_>,
) -> anyhow::Result<Option<i32>> {
    let file: PathBuf = model.registry_path.clone();
    let mut seen = stamp(&file);
    let mut dirty = true;
    let mut next_tick = Instant::now() + TICK;
    loop {
        if dirty {
            let size = screen
                .terminal
                .size()
                .context("reading the terminal size")?;
            let area = ratatui::layout::Rect::new(0, 0, size.width, size.height);
            let rows = list_rows(area);
            if rows != model.list_rows {
                update(model, FleetEvent::Viewport(rows));
            }
            screen
                .terminal
                .draw(|f| f.render_widget(FleetView::new(model).no_color(no_color), f.area()))
                .context("drawing")?;
            dirty = false;
        }
        let wait = sleep_for(
            POLL.min(next_tick.saturating_duration_since(Instant::now())),
            model.notice_expires(),
            Utc::now(),
        );
        let first = match screen.rx.recv_timeout(wait) {
            Ok(ev) => Some(ev),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
        };
        let had_notice = model.notice.is_some();
        update(model, FleetEvent::Tick(Utc::now()));
        dirty |= had_notice && model.notice.is_none();
        let ticked = Instant::now() >= next_tick;
        if ticked {
            next_tick = Instant::now() + TICK;
            dirty = true;
        }
        let now_stamp = stamp(&file);
        // Read again when the file moved, and at every tick: a killed client writes
        // nothing, and its session leaves the list when its process is found gone.
        if now_stamp != seen || ticked {
            seen = now_stamp;
            update(model, FleetEvent::Loaded(read(&file)));
            dirty = true;
        }
        let mut effects = Vec::new();
        for ev in first.into_iter().chain(screen.rx.try_iter()) {
            match ev {
                LoopEvent::Signal(sig) => return Ok(Some(sig)),
                LoopEvent::Input(ct::Event::Key(k)) if k.kind == KeyEventKind::Press => {
                    if let Some(action) = key_of(k.code, k.modifiers)
                        .and_then(|key| action_for(model.mode, None, key))
                    {
                        effects.extend(update(model, FleetEvent::Action(action)));
                        dirty = true;
                    }
                }
                LoopEvent::Input(ct::Event::Resize(..)) => dirty = true,
                // A closed dashboard's file and git news, mouse events: not for the list.
                LoopEvent::Input(_)
                | LoopEvent::Fs(_)
                | LoopEvent::Git(_)
                | LoopEvent::BodyHits(..) => {}
            }
        }
        for fx in effects {
            match fx {
                FleetEffect::Quit => return Ok(None),
                FleetEffect::Suspend => {
                    suspend_self(&mut screen.terminal, &screen.input);
                    dirty = true;
                }
                FleetEffect::SwitchToPane { pane, socket } => {
                    let result = switch(&pane, socket.as_deref());
                    update(model, FleetEvent::Switched(result));
                    dirty = true;
                }
                FleetEffect::Open(root) => {
                    match open(&root) {
                        Ok((mut project, session)) => {
                            project.from_fleet = true;
                            match screen.project(project, &session) {
                                Ok(Some(sig)) => return Ok(Some(sig)),
                                Ok(None) => {}
                                Err(e) => {
                                    update(model, FleetEvent::OpenFailed(format!("{e:#}")));
                                }
                            }
                            if let Some(sig) = screen.drain() {
                                return Ok(Some(sig));
                            }
                            let _ = screen.terminal.clear();
                            seen = stamp(&file);
                            update(model, FleetEvent::Tick(Utc::now()));
                            update(model, FleetEvent::Loaded(read(&file)));
                        }
                        Err(why) => {
                            update(model, FleetEvent::OpenFailed(why));
                        }
                    }
                    dirty = true;
                }
            }
        }
    }
}
