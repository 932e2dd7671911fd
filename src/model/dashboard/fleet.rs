//! The fleet list of `forge tui --all`: every registered project's live sessions,
//! most urgent first (see `crate::model::agents::fleet::Registry::rows`), then the projects
//! with none. Enter opens the selected project's own dashboard; q or Esc there comes
//! back here, and q here quits.
//!
//! The Elm Architecture again: [`FleetModel`] is plain data, [`update`] applies one
//! [`FleetEvent`] and returns the [`FleetEffect`]s for the loop (`crate::tui::fleet`).
//! Keys come from the same [`super::KEYMAP`] table, in [`Mode::Fleet`].

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::{Action, Mode, NOTICE_TTL, Notice};
use crate::model::agents::fleet::{FleetRow, Registry};

/// What the fleet list shows.
#[derive(Debug, Clone)]
pub(crate) struct FleetModel {
    /// The registry as last read.
    pub(crate) registry: Registry,
    /// Where it is (said when it is empty or refused).
    pub(crate) registry_path: PathBuf,
    /// Why the registry could not be read (a link, a FIFO, a folder others can
    /// write to); the list is empty then.
    pub(crate) error: Option<String>,
    /// The time liveness and ages are measured from.
    pub(crate) now: DateTime<Utc>,
    /// The home folder, written `~` in roots.
    pub(crate) home: Option<PathBuf>,
    /// [`Mode::Fleet`], or [`Mode::Help`] while the help is open.
    pub(crate) mode: Mode,
    /// Index into [`FleetModel::rows`].
    pub(crate) selected: usize,
    /// The selected row's project root and session, kept across reloads so that a
    /// new row does not move the cursor.
    pub(crate) selected_key: Option<(String, Option<String>)>,
    /// Rows of the list in the last frame (for paging).
    pub(crate) list_rows: u16,
    /// The first line of the help shown.
    pub(crate) help_scroll: u16,
    /// The last message for the user.
    pub(crate) notice: Option<Notice>,
    /// Set by Quit.
    pub(crate) quit: bool,
    /// The last key was an Esc: another one quits (any other key forgets it).
    pub(crate) esc_armed: bool,
    /// The prompt being typed for the selected session (`i`, [`Mode::Answer`]).
    pub(crate) prompt: String,
    /// Where the list runs: inside tmux (on the server of this socket, when known),
    /// where `t` switches the client to a session's pane, or outside.
    pub(crate) tmux: Option<Option<String>>,
}

/// `word` quoted for a shell when it needs it.
fn sh_word(word: &str) -> String {
    if word
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-%:".contains(&b))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The command that attaches a terminal to pane `pane` of the tmux server at
/// `socket` (its default server when unknown).
pub(crate) fn attach_command(pane: &str, socket: Option<&str>) -> String {
    match socket {
        Some(s) => format!("tmux -S {} attach -t {}", sh_word(s), sh_word(pane)),
        None => format!("tmux attach -t {}", sh_word(pane)),
    }
}

/// Something that happened to the fleet list.
#[derive(Debug, Clone)]
pub(crate) enum FleetEvent {
    /// The user did something.
    Action(Action),
    /// The clock moved.
    Tick(DateTime<Utc>),
    /// The registry was read again (or why it could not be).
    Loaded(Result<Registry, String>),
    /// A project's dashboard could not be opened, and why.
    OpenFailed(String),
    /// Rows of the list on screen.
    Viewport(u16),
    /// The tmux client switched to a session's pane (its `session:window.pane`), or
    /// why not.
    Switched(Result<String, String>),
    /// A session's prompt was answered (what was sent), or why not.
    Answered(Result<String, String>),
}

/// I/O for the loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FleetEffect {
    /// Leave, restoring the terminal.
    Quit,
    /// Open the dashboard of the project at this root (q or Esc there comes back).
    Open(PathBuf),
    /// Hand the terminal back to the shell until `fg`.
    Suspend,
    /// Switch this tmux client to `pane` (`tmux switch-client -t`), on the server
    /// at `socket` (this client's own when `None`).
    SwitchToPane {
        /// `%N`.
        pane: String,
        /// The server's socket.
        socket: Option<String>,
    },
    /// Answer the permission prompt of a session's pane, once its screen shows it.
    Answer(AnswerRequest),
    /// Type a prompt into a session's pane, once its screen shows an empty prompt.
    Prompt(PromptRequest),
}

/// A session's pane (`%N`) and server socket, or why it cannot be answered from a
/// dashboard: it must run in tmux, and (`permission`) be waiting for a permission,
/// or (not `permission`: a prompt is typed) not be. `approve` is the key that
/// approves in that view (`y` in the fleet list, `p` in a project's sessions pane).
/// The fleet list and the project dashboard both ask this.
pub(crate) fn pane_target(
    pane: Option<&str>,
    socket: Option<&str>,
    attention: Option<crate::model::session::state::Attention>,
    permission: bool,
    approve: char,
) -> Result<(String, Option<String>), String> {
    let pane = pane.ok_or("this session does not run in tmux: answer it where it runs")?;
    let waits = attention == Some(crate::model::session::state::Attention::WaitingPermission);
    if permission && !waits {
        return Err("this session is not waiting for a permission".to_owned());
    }
    if !permission && waits {
        return Err(format!(
            "this session waits for a permission: {approve} approves, n denies"
        ));
    }
    Ok((pane.to_owned(), socket.map(str::to_owned)))
}

/// What `t` does with a session's pane (`target`: `None` when it does not run in
/// tmux) from a dashboard running in tmux on the server of `own` (`Some(None)`: its
/// socket unknown) or outside it (`None`): switch the client there, or a notice
/// (the text, whether it reports a failure). The fleet list and the project
/// dashboard both ask this.
pub(crate) fn jump(
    target: Option<(String, Option<String>)>,
    own: Option<&Option<String>>,
) -> Result<(String, Option<String>), (String, bool)> {
    match (target, own) {
        (None, _) => Err((
            "this session does not run in tmux (its hooks saw no TMUX_PANE)".to_owned(),
            true,
        )),
        // Another server than this client's: switch-client cannot reach it.
        (Some((pane, socket)), Some(own))
            if socket.is_some() && own.is_some() && socket != *own =>
        {
            Err((
                format!(
                    "its pane is on another tmux server: {}",
                    attach_command(&pane, socket.as_deref())
                ),
                false,
            ))
        }
        (Some(target), Some(_)) => Ok(target),
        (Some((pane, socket)), None) => Err((
            format!(
                "outside tmux; to get there run: {}",
                attach_command(&pane, socket.as_deref())
            ),
            false,
        )),
    }
}

/// What the list says once the tmux client switched to a session's pane (its
/// `session:window.pane`), or why not (a notice's text, whether it is a failure).
pub(crate) fn switched_words(result: Result<String, String>) -> (String, bool) {
    match result {
        Ok(name) => (format!("switched to {name}"), false),
        Err(why) => (format!("could not go there: {why}"), true),
    }
}

/// The selected session's pane and project, or why it cannot be answered from here
/// (`permission`: it must be waiting for a permission).
fn answer_target(
    m: &FleetModel,
    permission: bool,
) -> Result<(PathBuf, String, String, Option<String>), String> {
    let row = m.selected_row().ok_or("no session is selected")?;
    let s = row.session.ok_or("this project has no live session")?;
    let target = s.tmux_target();
    let (pane, socket) = pane_target(
        target.map(|t| t.0),
        target.and_then(|t| t.1),
        s.attention,
        permission,
        'y',
    )?;
    Ok((PathBuf::from(&row.project.root), s.id.clone(), pane, socket))
}

/// y, n, i and the prompt's Enter: the effect that answers the selected session's
/// pane, or a notice saying why not.
fn answer(m: &mut FleetModel, a: Action) -> Vec<FleetEffect> {
    use crate::model::agents::pane::Answer;
    let say = |m: &mut FleetModel, why: &str| {
        m.notice = Some(Notice {
            text: why.to_owned(),
            error: true,
            at: m.now,
        });
        Vec::new()
    };
    match a {
        Action::StartPrompt => match answer_target(m, false) {
            Ok(_) => {
                m.mode = Mode::Answer;
                m.prompt.clear();
                Vec::new()
            }
            Err(why) => say(m, &why),
        },
        Action::AnswerAccept => {
            let text = std::mem::take(&mut m.prompt);
            m.mode = Mode::Fleet;
            if text.trim().is_empty() {
                return say(m, "an empty prompt: nothing was sent");
            }
            match answer_target(m, false) {
                Ok((root, session, pane, socket)) => vec![FleetEffect::Prompt(PromptRequest {
                    root,
                    session,
                    pane,
                    socket,
                    text,
                })],
                Err(why) => say(m, &why),
            }
        }
        _ => {
            let answer = if a == Action::Approve {
                Answer::Approve
            } else {
                Answer::Deny
            };
            match answer_target(m, true) {
                Ok((root, session, pane, socket)) => vec![FleetEffect::Answer(AnswerRequest {
                    root,
                    session,
                    pane,
                    socket,
                    answer,
                })],
                Err(why) => say(m, &why),
            }
        }
    }
}

/// What the list sends to a session's pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PaneSend {
    /// An answer to its permission prompt.
    Answer(AnswerRequest),
    /// A prompt.
    Prompt(PromptRequest),
}

/// A prompt to type into a session's pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PromptRequest {
    /// Its project's root (where the outcome is logged).
    pub(crate) root: PathBuf,
    /// The session.
    pub(crate) session: String,
    /// Its pane, `%N`.
    pub(crate) pane: String,
    /// Its server's socket.
    pub(crate) socket: Option<String>,
    /// What to type (one line; Enter follows).
    pub(crate) text: String,
}

/// A session's prompt to answer from the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnswerRequest {
    /// Its project's root (where the outcome is logged).
    pub(crate) root: PathBuf,
    /// The session.
    pub(crate) session: String,
    /// Its pane, `%N`.
    pub(crate) pane: String,
    /// Its server's socket.
    pub(crate) socket: Option<String>,
    /// What to answer.
    pub(crate) answer: crate::model::agents::pane::Answer,
}

impl FleetModel {
    /// A list over `registry` (or the reason it could not be read).
    pub(crate) fn new(
        registry: Result<Registry, String>,
        registry_path: PathBuf,
        now: DateTime<Utc>,
    ) -> Self {
        let mut m = Self {
            registry: Registry::default(),
            registry_path,
            error: None,
            now,
            home: None,
            mode: Mode::Fleet,
            selected: 0,
            selected_key: None,
            list_rows: 10,
            help_scroll: 0,
            notice: None,
            quit: false,
            esc_armed: false,
            prompt: String::new(),
            tmux: None,
        };
        m.load(registry);
        m
    }

    /// What `t` does with the selected row, in words (the detail line says it).
    pub(crate) fn pane_hint(&self) -> Option<String> {
        let (pane, socket) = self.selected_row()?.session?.tmux_target()?;
        Some(match &self.tmux {
            Some(_) => format!("t goes to its pane {pane}"),
            None => format!("attach: {}", attach_command(pane, socket)),
        })
    }

    /// The rows, in the order shown.
    pub(crate) fn rows(&self) -> Vec<FleetRow<'_>> {
        self.registry.rows(self.now)
    }

    /// The row under the cursor.
    pub(crate) fn selected_row(&self) -> Option<FleetRow<'_>> {
        self.rows().get(self.selected).copied()
    }

    /// When the notice on screen goes, if no key is pressed first.
    pub(crate) fn notice_expires(&self) -> Option<DateTime<Utc>> {
        self.notice.as_ref().map(|n| n.at + NOTICE_TTL)
    }

    fn key_of(row: &FleetRow<'_>) -> (String, Option<String>) {
        (row.project.root.clone(), row.session.map(|s| s.id.clone()))
    }

    fn load(&mut self, registry: Result<Registry, String>) {
        match registry {
            Ok(r) => {
                self.registry = r;
                self.error = None;
            }
            Err(e) => {
                self.registry = Registry::default();
                self.error = Some(e);
            }
        }
        self.keep_cursor();
    }

    /// Puts the cursor back on the row it was on (by project and session), else
    /// keeps its index within the list.
    fn keep_cursor(&mut self) {
        let rows = self.rows();
        let found = self
            .selected_key
            .as_ref()
            .and_then(|k| rows.iter().position(|r| Self::key_of(r) == *k));
        let selected = found.unwrap_or_else(|| self.selected.min(rows.len().saturating_sub(1)));
        let key = rows.get(selected).map(Self::key_of);
        self.selected = selected;
        self.selected_key = key;
    }

    fn select(&mut self, index: usize) {
        let rows = self.rows();
        let selected = index.min(rows.len().saturating_sub(1));
        let key = rows.get(selected).map(Self::key_of);
        self.selected = selected;
        self.selected_key = key;
    }
}

/// Applies one event; returns the I/O the loop must do.
pub(crate) fn update(m: &mut FleetModel, event: FleetEvent) -> Vec<FleetEffect> {
    match event {
        FleetEvent::Tick(now) => {
            m.now = now;
            if m.notice_expires().is_some_and(|t| now >= t) {
                m.notice = None;
            }
            // Sessions fall silent as time passes: the list may be shorter now.
            m.keep_cursor();
            Vec::new()
        }
        FleetEvent::Loaded(registry) => {
            m.load(registry);
            Vec::new()
        }
        FleetEvent::OpenFailed(why) => {
            m.notice = Some(Notice {
                text: why,
                error: true,
                at: m.now,
            });
            Vec::new()
        }
        FleetEvent::Viewport(rows) => {
            m.list_rows = rows.max(1);
            Vec::new()
        }
        FleetEvent::Answered(result) => {
            let (text, error) = match result {
                Ok(what) => (what, false),
                Err(why) => (format!("nothing sent: {why}"), true),
            };
            m.notice = Some(Notice {
                text,
                error,
                at: m.now,
            });
            Vec::new()
        }
        FleetEvent::Switched(result) => {
            let (text, error) = switched_words(result);
            m.notice = Some(Notice {
                text,
                error,
                at: m.now,
            });
            Vec::new()
        }
        FleetEvent::Action(a) => {
            m.notice = None;
            let armed = std::mem::take(&mut m.esc_armed);
            if a == Action::Back && m.mode == Mode::Fleet && !armed {
                m.esc_armed = true;
                m.notice = Some(Notice {
                    text: super::ESC_AGAIN.to_owned(),
                    error: false,
                    at: m.now,
                });
                return Vec::new();
            }
            apply(m, a)
        }
    }
}

fn apply(m: &mut FleetModel, a: Action) -> Vec<FleetEffect> {
    let page = usize::from(m.list_rows.max(1));
    match a {
        Action::Up => m.select(m.selected.saturating_sub(1)),
        Action::Down => m.select(m.selected.saturating_add(1)),
        Action::Top => m.select(0),
        Action::Bottom => m.select(usize::MAX),
        Action::PageUp => m.select(m.selected.saturating_sub(page)),
        Action::PageDown => m.select(m.selected.saturating_add(page)),
        Action::OpenProject => {
            return m
                .selected_row()
                .map(|r| FleetEffect::Open(PathBuf::from(&r.project.root)))
                .into_iter()
                .collect();
        }
        Action::GoToPane => {
            let target = m
                .selected_row()
                .and_then(|r| r.session)
                .and_then(|s| s.tmux_target())
                .map(|(p, s)| (p.to_owned(), s.map(str::to_owned)));
            match jump(target, m.tmux.as_ref()) {
                Ok((pane, socket)) => return vec![FleetEffect::SwitchToPane { pane, socket }],
                Err((text, error)) => {
                    m.notice = Some(Notice {
                        text,
                        error,
                        at: m.now,
                    });
                }
            }
        }
        Action::Approve | Action::Deny | Action::StartPrompt | Action::AnswerAccept => {
            return answer(m, a);
        }
        Action::AnswerChar(c) => m.prompt.push(c),
        Action::AnswerBackspace => {
            m.prompt.pop();
        }
        Action::AnswerCancel => {
            m.mode = Mode::Fleet;
            m.prompt.clear();
        }
        Action::ToggleHelp => {
            m.mode = if m.mode == Mode::Help {
                Mode::Fleet
            } else {
                Mode::Help
            };
            m.help_scroll = 0;
        }
        Action::HelpScroll(lines) => {
            m.help_scroll = m.help_scroll.saturating_add_signed(i16::from(lines));
        }
        Action::Suspend => return vec![FleetEffect::Suspend],
        Action::Quit | Action::Back => {
            m.quit = true;
            return vec![FleetEffect::Quit];
        }
        // The project dashboard's actions mean nothing here (and are not bound).
        _ => {}
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::agents::fleet::{ProjectEntry, SessionRow};
    use crate::model::dashboard::{Key, action_for};
    use crate::model::session::state::Attention;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
    }

    fn registry(sessions: &[(&str, &str, Attention, i64)]) -> Registry {
        let mut reg = Registry::default();
        for (root, id, attention, mins) in sessions {
            let at = (now() - chrono::Duration::minutes(*mins))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            let row = SessionRow {
                id: (*id).into(),
                attention: Some(*attention),
                last_event_at: Some(at.clone()),
                ..SessionRow::default()
            };
            match reg.projects.iter_mut().find(|p| p.root == *root) {
                Some(p) => p.sessions.push(row),
                None => reg.projects.push(ProjectEntry {
                    root: (*root).into(),
                    name: root.rsplit('/').next().unwrap().into(),
                    seen_at: at,
                    sessions: vec![row],
                    ..ProjectEntry::default()
                }),
            }
        }
        reg
    }

    fn key(m: &mut FleetModel, k: Key) -> Vec<FleetEffect> {
        match action_for(m.mode, None, k) {
            Some(a) => update(m, FleetEvent::Action(a)),
            None => Vec::new(),
        }
    }

    #[test]
    fn t_goes_to_the_sessions_pane_inside_tmux_and_says_how_to_attach_outside() {
        let mut reg = registry(&[("/p/web", "w1", Attention::WaitingInput, 2)]);
        reg.projects[0].sessions[0].tmux_pane = Some("%7".into());
        reg.projects[0].sessions[0].tmux_socket = Some("/tmp/tmux-1000/default".into());
        let mut m = FleetModel::new(Ok(reg.clone()), PathBuf::from("/r"), now());
        // Outside tmux: the command, as a notice and under the list.
        assert!(key(&mut m, Key::Char('t')).is_empty());
        let n = m.notice.clone().unwrap();
        assert!(!n.error);
        assert_eq!(
            n.text,
            "outside tmux; to get there run: tmux -S /tmp/tmux-1000/default attach -t %7"
        );
        assert_eq!(
            m.pane_hint().as_deref(),
            Some("attach: tmux -S /tmp/tmux-1000/default attach -t %7")
        );
        // Inside tmux, on that server: switch the client there.
        m.tmux = Some(Some("/tmp/tmux-1000/default".into()));
        assert_eq!(
            key(&mut m, Key::Char('t')),
            vec![FleetEffect::SwitchToPane {
                pane: "%7".into(),
                socket: Some("/tmp/tmux-1000/default".into())
            }]
        );
        update(&mut m, FleetEvent::Switched(Ok("work:1.0".into())));
        assert_eq!(m.notice.as_ref().unwrap().text, "switched to work:1.0");
        // On another server: switch-client cannot reach it, the command can.
        m.tmux = Some(Some("/tmp/tmux-1000/other".into()));
        assert!(key(&mut m, Key::Char('t')).is_empty());
        assert!(
            m.notice
                .as_ref()
                .unwrap()
                .text
                .contains("another tmux server")
        );
        // A session outside tmux: said as such.
        let mut m = FleetModel::new(
            Ok(registry(&[("/p/web", "w1", Attention::WaitingInput, 2)])),
            PathBuf::from("/r"),
            now(),
        );
        assert!(key(&mut m, Key::Char('t')).is_empty());
        assert!(m.notice.as_ref().unwrap().error);
        assert_eq!(m.pane_hint(), None);
        assert_eq!(
            attach_command("%1", Some("/a b/s")),
            "tmux -S '/a b/s' attach -t %1"
        );
        assert_eq!(attach_command("%1", None), "tmux attach -t %1");
    }

    /// y and n answer the permission prompt of the selected session's pane, i types
    /// a prompt for one waiting for input; each only for a session in tmux in that
    /// state, with a notice saying why not.
    #[test]
    fn y_n_and_i_answer_the_selected_session_in_its_pane() {
        use crate::model::agents::pane::Answer;
        let mut reg = registry(&[("/p/web", "w1", Attention::WaitingPermission, 2)]);
        reg.projects[0].sessions[0].tmux_pane = Some("%7".into());
        let mut m = FleetModel::new(Ok(reg.clone()), PathBuf::from("/r"), now());
        let want = |answer| {
            vec![FleetEffect::Answer(AnswerRequest {
                root: PathBuf::from("/p/web"),
                session: "w1".into(),
                pane: "%7".into(),
                socket: None,
                answer,
            })]
        };
        assert_eq!(key(&mut m, Key::Char('y')), want(Answer::Approve));
        assert_eq!(key(&mut m, Key::Char('n')), want(Answer::Deny));
        update(
            &mut m,
            FleetEvent::Answered(Err(
                "its pane does not show a permission prompt: nothing was sent".into(),
            )),
        );
        assert!(
            m.notice
                .as_ref()
                .unwrap()
                .text
                .starts_with("nothing sent: its pane does not show")
        );
        // A permission waits: i says so and types nothing.
        assert!(key(&mut m, Key::Char('i')).is_empty());
        assert_eq!(m.mode, Mode::Fleet);
        assert!(
            m.notice
                .as_ref()
                .unwrap()
                .text
                .contains("y approves, n denies")
        );
        // Waiting for input: i opens the prompt; letters (y and n too) are text.
        reg.projects[0].sessions[0].attention = Some(Attention::WaitingInput);
        let mut m = FleetModel::new(Ok(reg.clone()), PathBuf::from("/r"), now());
        assert!(key(&mut m, Key::Char('y')).is_empty());
        assert!(
            m.notice
                .as_ref()
                .unwrap()
                .text
                .contains("not waiting for a permission")
        );
        key(&mut m, Key::Char('i'));
        assert_eq!(m.mode, Mode::Answer);
        for c in "run yn".chars() {
            key(&mut m, Key::Char(c));
        }
        key(&mut m, Key::Backspace);
        assert_eq!(
            key(&mut m, Key::Enter),
            vec![FleetEffect::Prompt(PromptRequest {
                root: PathBuf::from("/p/web"),
                session: "w1".into(),
                pane: "%7".into(),
                socket: None,
                text: "run y".into(),
            })]
        );
        assert_eq!(m.mode, Mode::Fleet);
        // Esc cancels; an empty prompt sends nothing.
        key(&mut m, Key::Char('i'));
        key(&mut m, Key::Char('x'));
        assert!(key(&mut m, Key::Esc).is_empty());
        assert_eq!(m.mode, Mode::Fleet);
        key(&mut m, Key::Char('i'));
        assert!(key(&mut m, Key::Enter).is_empty());
        // Not in tmux: nothing can be sent.
        reg.projects[0].sessions[0].tmux_pane = None;
        let mut m = FleetModel::new(Ok(reg), PathBuf::from("/r"), now());
        assert!(key(&mut m, Key::Char('i')).is_empty());
        assert!(
            m.notice
                .as_ref()
                .unwrap()
                .text
                .contains("does not run in tmux")
        );
    }

    #[test]
    fn keys_move_open_and_quit_and_the_cursor_stays_on_its_row() {
        let reg = registry(&[
            ("/p/api", "a1", Attention::Busy, 1),
            ("/p/web", "w1", Attention::WaitingInput, 2),
        ]);
        let mut m = FleetModel::new(Ok(reg), PathBuf::from("/r"), now());
        assert_eq!(m.selected_row().unwrap().project.name, "web");
        key(&mut m, Key::Down);
        assert_eq!(m.selected_row().unwrap().project.name, "api");
        key(&mut m, Key::Char('G'));
        key(&mut m, Key::Down);
        assert_eq!(m.selected, 1, "never past the last row");
        assert_eq!(
            key(&mut m, Key::Enter),
            vec![FleetEffect::Open(PathBuf::from("/p/api"))]
        );
        // A more urgent session arrives: it goes first, the cursor stays on api.
        let reg = registry(&[
            ("/p/api", "a1", Attention::Busy, 1),
            ("/p/web", "w1", Attention::WaitingInput, 2),
            ("/p/ops", "o1", Attention::WaitingPermission, 0),
        ]);
        update(&mut m, FleetEvent::Loaded(Ok(reg)));
        assert_eq!(m.selected_row().unwrap().project.name, "api");
        assert_eq!(m.selected, 2);
        // The help opens and closes from the table; q quits.
        key(&mut m, Key::Char('?'));
        assert_eq!(m.mode, Mode::Help);
        assert_eq!(
            key(&mut m, Key::Enter),
            vec![],
            "Enter does nothing in help"
        );
        key(&mut m, Key::Esc);
        assert_eq!(m.mode, Mode::Fleet);
        // Esc left the help; the next one only says how to quit, another key forgets
        // it, and two in a row quit.
        assert!(key(&mut m, Key::Esc).is_empty() && !m.quit);
        assert!(
            m.notice
                .as_ref()
                .is_some_and(|n| n.text.contains("Esc again quits"))
        );
        key(&mut m, Key::Char('j'));
        assert!(key(&mut m, Key::Esc).is_empty() && !m.quit);
        assert_eq!(key(&mut m, Key::Esc), vec![FleetEffect::Quit]);
        m.quit = false;
        assert_eq!(key(&mut m, Key::Char('q')), vec![FleetEffect::Quit]);
        assert!(m.quit);
    }

    #[test]
    fn an_unreadable_registry_is_an_empty_list_with_its_reason() {
        let mut m = FleetModel::new(
            Err("refusing to read …: a FIFO".into()),
            PathBuf::from("/r"),
            now(),
        );
        assert!(m.rows().is_empty());
        assert!(m.error.as_deref().unwrap().contains("FIFO"));
        assert_eq!(key(&mut m, Key::Enter), vec![], "nothing to open");
        update(&mut m, FleetEvent::OpenFailed("gone".into()));
        assert!(m.notice.as_ref().unwrap().error);
        // The notice goes at the next key, or after its time.
        update(&mut m, FleetEvent::Tick(now() + NOTICE_TTL));
        assert!(m.notice.is_none());
        // Time passes: a session silent for longer than stale_after leaves the list.
        let reg = registry(&[("/p/api", "a1", Attention::Busy, 1)]);
        update(&mut m, FleetEvent::Loaded(Ok(reg)));
        assert!(m.error.is_none());
        assert!(m.rows()[0].session.is_some());
        update(&mut m, FleetEvent::Tick(now() + chrono::Duration::hours(1)));
        assert!(m.rows()[0].session.is_none(), "idle now");
    }
}
