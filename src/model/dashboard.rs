//! The dashboard's state and its `update` function (The Elm Architecture).
//!
//! [`Model`] is plain data; [`update`] applies one [`Event`] and returns the
//! [`Effect`]s (file writes, the editor, a preview read) for the loop in
//! `crate::tui` to carry out. Nothing here touches the terminal or the disk, so
//! every key and every reload is tested without either. Keys are looked up in
//! [`KEYMAP`], the one table that also draws the help and the footer.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::handoff::{Drift, HandoffEntry, HandoffKind, sort_newest_first};
use super::level::{Level, Thresholds};
use super::snapshot::Snapshot;
use super::trend;

/// The panes that take focus (Tab cycles through them in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The handoff list.
    Inbox,
    /// The selected handoff's text.
    Preview,
    /// Sessions needing attention.
    Sessions,
}

impl Pane {
    /// Focus order.
    pub const ALL: [Self; 3] = [Self::Inbox, Self::Preview, Self::Sessions];

    fn step(self, forward: bool) -> Self {
        let i = Self::ALL.iter().position(|p| *p == self).unwrap_or(0);
        let n = Self::ALL.len();
        Self::ALL[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// What keys mean right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Browsing.
    Normal,
    /// Typing a filter after `/`.
    Filter,
    /// The `?` help is open.
    Help,
}

/// A key, independent of the terminal library (`crate::tui` converts crossterm's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A printable character.
    Char(char),
    /// ↑.
    Up,
    /// ↓.
    Down,
    /// Home.
    Home,
    /// End.
    End,
    /// Page Up.
    PageUp,
    /// Page Down.
    PageDown,
    /// Tab.
    Tab,
    /// Shift-Tab.
    BackTab,
    /// Enter.
    Enter,
    /// Esc.
    Esc,
    /// Backspace.
    Backspace,
}

/// Which handoffs the kind filter shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KindFilter {
    /// Sessions and agents.
    #[default]
    All,
    /// Session handoffs only.
    Session,
    /// Agent handoffs only.
    Agent,
}

impl KindFilter {
    fn next(self) -> Self {
        match self {
            Self::All => Self::Session,
            Self::Session => Self::Agent,
            Self::Agent => Self::All,
        }
    }
    fn admits(self, kind: HandoffKind) -> bool {
        match self {
            Self::All => true,
            Self::Session => kind == HandoffKind::Session,
            Self::Agent => kind == HandoffKind::Agent,
        }
    }
    /// `"all"`, `"session"` or `"agent"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Session => "session",
            Self::Agent => "agent",
        }
    }
}

/// The inbox filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Case-insensitive text matched against name, task, title, route and status.
    pub text: String,
    /// Show only blocked Signals.
    pub blocked_only: bool,
    /// Session, agent or both.
    pub kind: KindFilter,
}

impl Filter {
    /// Whether `h` passes.
    pub fn admits(&self, h: &HandoffEntry) -> bool {
        if self.blocked_only && !h.is_blocked() {
            return false;
        }
        if !self.kind.admits(h.kind) {
            return false;
        }
        let needle = self.text.trim().to_lowercase();
        if needle.is_empty() {
            return true;
        }
        let hay = [
            Some(h.file_name.as_str()),
            h.task(),
            h.title.as_deref(),
            Some(h.status_word()),
        ];
        hay.iter()
            .flatten()
            .any(|s| s.to_lowercase().contains(&needle))
            || h.route()
                .is_some_and(|r| r.to_lowercase().contains(&needle))
    }

    /// Whether any part of the filter is active.
    pub fn is_active(&self) -> bool {
        !self.text.trim().is_empty() || self.blocked_only || self.kind != KindFilter::All
    }
}

/// The user's intent, produced by key handling (and mouse scrolling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Move up one row (or scroll up one line).
    Up,
    /// Move down one row.
    Down,
    /// To the first row.
    Top,
    /// To the last row.
    Bottom,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// Focus the next pane.
    NextPane,
    /// Focus the previous pane.
    PrevPane,
    /// Start typing a filter.
    StartFilter,
    /// Toggle blocked-only.
    ToggleBlocked,
    /// Cycle all → session → agent.
    CycleKind,
    /// Clear every filter.
    ClearFilters,
    /// Make the selected handoff the pending resume.
    Resume,
    /// Open the selected handoff in `$EDITOR`.
    Open,
    /// Open or close the help.
    ToggleHelp,
    /// Leave.
    Quit,
    /// Filter mode: a typed character.
    FilterChar(char),
    /// Filter mode: delete the last character.
    FilterBackspace,
    /// Filter mode: keep the filter.
    FilterAccept,
    /// Filter mode: drop what was typed.
    FilterCancel,
    /// Mouse wheel over a pane: lines (negative is up).
    Scroll(Pane, i8),
}

/// One key binding: the keys, the mode it applies in, the action and its help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The mode the binding is active in.
    pub mode: Mode,
    /// The keys that trigger it.
    pub keys: &'static [Key],
    /// What it does.
    pub action: Action,
    /// How the keys are written in the help (`↑↓/jk`).
    pub label: &'static str,
    /// What it does, in words.
    pub desc: &'static str,
    /// Whether the footer shows it.
    pub footer: bool,
}

const fn bind(
    mode: Mode,
    keys: &'static [Key],
    action: Action,
    label: &'static str,
    desc: &'static str,
    footer: bool,
) -> Binding {
    Binding {
        mode,
        keys,
        action,
        label,
        desc,
        footer,
    }
}

use Key as K;
use Mode::{Filter as F, Help as H, Normal as N};

/// Every key binding. Key handling, the footer and the `?` help all read this table.
pub const KEYMAP: &[Binding] = &[
    bind(
        N,
        &[K::Up, K::Char('k')],
        Action::Up,
        "↑/k",
        "move up / scroll up",
        false,
    ),
    bind(
        N,
        &[K::Down, K::Char('j')],
        Action::Down,
        "↓/j",
        "move down / scroll down",
        false,
    ),
    bind(
        N,
        &[K::Home, K::Char('g')],
        Action::Top,
        "g",
        "first row",
        false,
    ),
    bind(
        N,
        &[K::End, K::Char('G')],
        Action::Bottom,
        "G",
        "last row",
        false,
    ),
    bind(N, &[K::PageUp], Action::PageUp, "PgUp", "page up", false),
    bind(
        N,
        &[K::PageDown, K::Char(' ')],
        Action::PageDown,
        "PgDn",
        "page down",
        false,
    ),
    bind(N, &[K::Char('?')], Action::ToggleHelp, "?", "help", true),
    bind(N, &[K::Char('q'), K::Esc], Action::Quit, "q", "quit", true),
    bind(N, &[K::Tab], Action::NextPane, "Tab", "next pane", true),
    bind(
        N,
        &[K::BackTab],
        Action::PrevPane,
        "S-Tab",
        "previous pane",
        false,
    ),
    bind(
        N,
        &[K::Enter],
        Action::Resume,
        "⏎",
        "make the handoff the pending resume",
        true,
    ),
    bind(
        N,
        &[K::Char('o')],
        Action::Open,
        "o",
        "open the handoff in $EDITOR",
        true,
    ),
    bind(
        N,
        &[K::Char('/')],
        Action::StartFilter,
        "/",
        "filter by text",
        true,
    ),
    bind(
        N,
        &[K::Char('b')],
        Action::ToggleBlocked,
        "b",
        "blocked only",
        true,
    ),
    bind(
        N,
        &[K::Char('t')],
        Action::CycleKind,
        "t",
        "kind: all/session/agent",
        true,
    ),
    bind(
        N,
        &[K::Char('c')],
        Action::ClearFilters,
        "c",
        "clear filters",
        false,
    ),
    bind(
        F,
        &[K::Enter],
        Action::FilterAccept,
        "⏎",
        "keep the filter",
        true,
    ),
    bind(
        F,
        &[K::Esc],
        Action::FilterCancel,
        "Esc",
        "drop the filter",
        true,
    ),
    bind(
        F,
        &[K::Backspace],
        Action::FilterBackspace,
        "⌫",
        "delete a character",
        true,
    ),
    bind(
        H,
        &[K::Char('?'), K::Esc, K::Char('q')],
        Action::ToggleHelp,
        "?/Esc",
        "close help",
        true,
    ),
];

/// The action a key means in `mode`: the table first, then (filter mode) typed text.
pub fn action_for(mode: Mode, key: Key) -> Option<Action> {
    let bound = KEYMAP
        .iter()
        .find(|b| b.mode == mode && b.keys.contains(&key))
        .map(|b| b.action);
    match (bound, mode, key) {
        (Some(a), _, _) => Some(a),
        (None, Mode::Filter, Key::Char(c)) => Some(Action::FilterChar(c)),
        _ => None,
    }
}

/// The bindings of `mode` that have help text (the table without its placeholders).
pub fn bindings(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    KEYMAP
        .iter()
        .filter(move |b| b.mode == mode && !b.keys.is_empty())
}

/// How long a notice stays when no key is pressed.
pub const NOTICE_TTL: chrono::Duration = chrono::Duration::seconds(10);

/// A line for the user at the bottom of the screen. It goes at the next key press,
/// or at the first tick [`NOTICE_TTL`] after it was shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports a failure.
    pub error: bool,
    /// When it was shown (the model's `now` then).
    pub at: DateTime<Utc>,
}

/// Something that happened: a user action or news from the disk or the clock.
#[derive(Debug, Clone)]
pub enum Event {
    /// The user did something.
    Action(Action),
    /// The clock moved (ages change).
    Tick(DateTime<Utc>),
    /// A full reload of the project.
    Loaded(Box<Snapshot>),
    /// Everything but the handoffs was re-read (the handoff list is kept).
    StateLoaded(Box<Snapshot>),
    /// Handoff files changed: the new entry, or `None` when the file is gone.
    HandoffsChanged(Vec<(PathBuf, Option<HandoffEntry>)>),
    /// The text of a handoff, for the preview.
    PreviewLoaded {
        /// Which file.
        path: PathBuf,
        /// Its text (`None` when it could not be read).
        text: Option<String>,
    },
    /// The pending-resume markers were written (or why not).
    ResumeWritten {
        /// The handoff.
        target: PathBuf,
        /// The markers written, or the error.
        result: Result<Vec<PathBuf>, String>,
    },
    /// The editor returned (or failed to start).
    EditorClosed(Result<(), String>),
    /// The list and preview sizes changed (terminal resized, preview text loaded).
    Viewport {
        /// Rows of the inbox list.
        inbox_rows: u16,
        /// Rows of the preview text.
        preview_rows: u16,
        /// Rows the preview text takes, wrapped to the pane's width.
        preview_len: usize,
    },
}

/// I/O for the loop to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Leave the loop and restore the terminal.
    Quit,
    /// Read this handoff for the preview.
    LoadPreview(PathBuf),
    /// Write the pending-resume markers for this handoff.
    WritePendingResume(PathBuf),
    /// Suspend the terminal and open this file in the editor.
    OpenEditor(PathBuf),
}

/// The preview pane's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    /// The file shown.
    pub path: Option<PathBuf>,
    /// Its text, once loaded.
    pub text: Option<String>,
    /// First line shown.
    pub scroll: u16,
}

/// The context gauge's numbers, computed before drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextView {
    /// The session the numbers are from.
    pub session_id: String,
    /// Used percentage (`None`: unknown).
    pub pct: Option<f64>,
    /// Level of `pct`.
    pub level: Option<Level>,
    /// Recent readings (percent), oldest first.
    pub history: Vec<f64>,
    /// Percentage points per turn (since the last drop, if there was one).
    pub growth: Option<f64>,
    /// Readings since the context last dropped (compaction, `/clear`); `None`
    /// when it never did.
    pub since_drop: Option<usize>,
    /// The next level and the turns until it.
    pub next: Option<(Level, u64)>,
}

/// Everything the dashboard shows.
#[derive(Debug, Clone)]
pub struct Model {
    /// The project as last read.
    pub snapshot: Snapshot,
    /// Level boundaries from the config.
    pub thresholds: Thresholds,
    /// The time ages are measured from.
    pub now: DateTime<Utc>,
    /// The focused pane.
    pub focus: Pane,
    /// What keys mean now.
    pub mode: Mode,
    /// The inbox filter in force.
    pub filter: Filter,
    /// The filter text before `/` was pressed (restored by Esc).
    pub filter_before: String,
    /// Visible handoffs: indices into `snapshot.handoffs`, blocked first, then newest.
    pub rows: Vec<usize>,
    /// Index into `rows`.
    pub selected: usize,
    /// The selected file, kept across reloads so a new file does not move the cursor.
    pub selected_path: Option<PathBuf>,
    /// The preview.
    pub preview: Preview,
    /// First row of the sessions pane.
    pub sessions_scroll: usize,
    /// Rows of the inbox list (for paging).
    pub inbox_rows: u16,
    /// Rows of the preview text (for paging).
    pub preview_rows: u16,
    /// Rows the preview text takes once wrapped (scrolling stops at its last page).
    /// Until the screen says otherwise, the number of lines in the text.
    pub preview_len: usize,
    /// The last message for the user.
    pub notice: Option<Notice>,
    /// Set by Quit.
    pub quit: bool,
    /// The demo project is shown (said in the header).
    pub demo: bool,
}

impl Model {
    /// A model showing `snapshot`, focus on the inbox, first row selected.
    pub fn new(snapshot: Snapshot, thresholds: Thresholds, now: DateTime<Utc>) -> Self {
        let mut m = Self {
            snapshot,
            thresholds,
            now,
            focus: Pane::Inbox,
            mode: Mode::Normal,
            filter: Filter::default(),
            filter_before: String::new(),
            rows: Vec::new(),
            selected: 0,
            selected_path: None,
            preview: Preview::default(),
            sessions_scroll: 0,
            inbox_rows: 10,
            preview_rows: 10,
            preview_len: 0,
            notice: None,
            quit: false,
            demo: false,
        };
        m.refresh_rows();
        m
    }

    /// The effects a fresh model needs (the first preview).
    pub fn start(&mut self) -> Vec<Effect> {
        self.preview_effect()
    }

    /// The selected handoff.
    pub fn selected_entry(&self) -> Option<&HandoffEntry> {
        self.rows
            .get(self.selected)
            .and_then(|i| self.snapshot.handoffs.get(*i))
    }

    /// The visible handoffs in display order.
    pub fn visible(&self) -> impl Iterator<Item = &HandoffEntry> {
        self.rows
            .iter()
            .filter_map(|i| self.snapshot.handoffs.get(*i))
    }

    /// The gauge numbers of the current session; `None` with no session at all.
    pub fn context(&self) -> Option<ContextView> {
        let s = self.snapshot.current_session()?;
        let pct = s
            .used_percentage
            .or_else(|| s.readings.last().map(|r| r.pct));
        let growth = trend::growth_per_turn(&s.readings);
        Some(ContextView {
            session_id: s.session_id.clone(),
            pct,
            level: pct.map(|p| Level::from_pct(p, &self.thresholds)),
            history: s.readings.iter().map(|r| r.pct).collect(),
            growth,
            since_drop: trend::since_drop(&s.readings),
            next: pct
                .zip(growth)
                .and_then(|(p, g)| trend::turns_to_next(p, g, &self.thresholds)),
        })
    }

    /// How far `h` has drifted from the tree now.
    pub fn drift(&self, h: &HandoffEntry) -> Drift {
        Drift::of(
            h,
            self.snapshot.branch(),
            self.snapshot.uncommitted(),
            self.now,
        )
    }

    fn refresh_rows(&mut self) {
        self.rows = visible_rows(&self.snapshot.handoffs, &self.filter);
        let keep = self.selected_path.as_ref().and_then(|p| {
            self.rows
                .iter()
                .position(|i| &self.snapshot.handoffs[*i].path == p)
        });
        self.selected = match keep {
            Some(i) => i,
            None => self.selected.min(self.rows.len().saturating_sub(1)),
        };
        self.selected_path = self.selected_entry().map(|h| h.path.clone());
    }

    /// Moves the selection to `index` (clamped) and asks for its preview if it changed.
    fn select(&mut self, index: usize) -> Vec<Effect> {
        self.selected = index.min(self.rows.len().saturating_sub(1));
        self.selected_path = self.selected_entry().map(|h| h.path.clone());
        self.preview_effect()
    }

    /// A preview read when the selected file is not the one shown.
    fn preview_effect(&mut self) -> Vec<Effect> {
        let want = self.selected_path.clone();
        if want == self.preview.path {
            return Vec::new();
        }
        self.preview = Preview {
            path: want.clone(),
            text: None,
            scroll: 0,
        };
        want.map(Effect::LoadPreview).into_iter().collect()
    }

    fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        match self.focus {
            Pane::Inbox => {
                let target = self.selected.saturating_add_signed(delta);
                self.select(target)
            }
            Pane::Preview => {
                let s = (self.preview.scroll as isize + delta).clamp(0, self.max_scroll());
                self.preview.scroll = s as u16;
                Vec::new()
            }
            Pane::Sessions => {
                let n = self.snapshot.needing_attention().len();
                self.sessions_scroll = self
                    .sessions_scroll
                    .saturating_add_signed(delta)
                    .min(n.saturating_sub(1));
                Vec::new()
            }
        }
    }

    /// The last useful preview scroll: the one that shows the last page, so the pane
    /// never scrolls into blank rows.
    pub fn max_scroll(&self) -> isize {
        let max = self
            .preview_len
            .saturating_sub(usize::from(self.preview_rows.max(1)));
        isize::try_from(max.min(usize::from(u16::MAX))).unwrap_or(0)
    }

    /// Whether `h` is the pending resume (`.forge/pending-resume` names it). The marker
    /// holds a canonical path, so a project reached through a symlink still matches
    /// by the file's name inside a `handoffs` folder.
    pub fn is_pending_resume(&self, h: &HandoffEntry) -> bool {
        let Some(p) = &self.snapshot.flags.pending_resume else {
            return false;
        };
        p == &h.path
            || (p.file_name().is_some_and(|n| n == h.file_name.as_str())
                && p.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|d| d == "handoffs"))
    }

    /// When the notice on screen goes, if no key is pressed first.
    pub fn notice_expires(&self) -> Option<DateTime<Utc>> {
        self.notice.as_ref().map(|n| n.at + NOTICE_TTL)
    }

    fn page(&self) -> isize {
        let rows = match self.focus {
            Pane::Preview => self.preview_rows,
            _ => self.inbox_rows,
        };
        rows.max(1) as isize
    }
}

/// A short age: `now`, `5m`, `3h`, `2d` (`?` when unknown; future times are `now`).
pub fn age(now: DateTime<Utc>, then: Option<DateTime<Utc>>) -> String {
    let Some(then) = then else {
        return "?".into();
    };
    let secs = (now - then).num_seconds().max(0);
    match secs {
        0..60 => "now".into(),
        60..3600 => format!("{}m", secs / 60),
        3600..86_400 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86_400),
    }
}

/// Parses an ISO 8601 / RFC 3339 time from a state file.
pub fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s.trim())
        .ok()
        .map(|d| d.with_timezone(&Utc))
}

/// The visible rows: handoffs `filter` admits, blocked Signals first, then newest first.
/// `handoffs` must already be newest first (as the store lists them).
pub fn visible_rows(handoffs: &[HandoffEntry], filter: &Filter) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..handoffs.len())
        .filter(|i| filter.admits(&handoffs[*i]))
        .collect();
    rows.sort_by_key(|i| !handoffs[*i].is_blocked());
    rows
}

/// Applies one event; returns the I/O the loop must do. No I/O here.
pub fn update(m: &mut Model, event: Event) -> Vec<Effect> {
    match event {
        Event::Action(a) => apply(m, a),
        Event::Tick(now) => {
            m.now = now;
            if m.notice_expires().is_some_and(|t| now >= t) {
                m.notice = None;
            }
            Vec::new()
        }
        Event::Loaded(snap) => {
            m.snapshot = *snap;
            m.refresh_rows();
            // The file may have changed: read the preview again.
            m.preview.path = None;
            m.preview_effect()
        }
        Event::StateLoaded(snap) => {
            let handoffs = std::mem::take(&mut m.snapshot.handoffs);
            m.snapshot = *snap;
            m.snapshot.handoffs = handoffs;
            m.refresh_rows();
            Vec::new()
        }
        Event::HandoffsChanged(changes) => {
            let mut reread_preview = false;
            for (path, entry) in changes {
                reread_preview |= m.preview.path.as_deref() == Some(path.as_path());
                m.snapshot.handoffs.retain(|h| h.path != path);
                m.snapshot.handoffs.extend(entry);
            }
            sort_newest_first(&mut m.snapshot.handoffs);
            m.refresh_rows();
            if reread_preview {
                m.preview.path = None;
            }
            m.preview_effect()
        }
        Event::PreviewLoaded { path, text } => {
            if m.preview.path.as_deref() == Some(path.as_path()) {
                let text = text.unwrap_or_else(|| "(could not read this file)".into());
                // A first guess; the screen sends the wrapped count before the next key.
                m.preview_len = text.lines().count();
                m.preview.text = Some(text);
            }
            Vec::new()
        }
        Event::ResumeWritten { target, result } => {
            if result.is_ok() {
                // The marker names it now; the watcher's reload will say the same.
                m.snapshot.flags.pending_resume = Some(target.clone());
            }
            let at = m.now;
            m.notice = Some(match result {
                Ok(written) => Notice {
                    at,
                    text: format!(
                        "pending resume → {} (written to {})",
                        file_name(&target),
                        written
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                    error: false,
                },
                Err(e) => Notice {
                    text: format!("could not write the pending resume: {e}"),
                    error: true,
                    at,
                },
            });
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
            inbox_rows,
            preview_rows,
            preview_len,
        } => {
            m.inbox_rows = inbox_rows;
            m.preview_rows = preview_rows;
            m.preview_len = preview_len;
            // A wider pane or a shorter text: stay on the last page, not past it.
            let max = m.max_scroll();
            if m.preview.scroll as isize > max {
                m.preview.scroll = u16::try_from(max).unwrap_or(0);
            }
            Vec::new()
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn apply(m: &mut Model, a: Action) -> Vec<Effect> {
    // A notice stays until the user does something else.
    if !matches!(a, Action::Scroll(..)) {
        m.notice = None;
    }
    match a {
        Action::Up => m.move_by(-1),
        Action::Down => m.move_by(1),
        Action::Top => m.move_by(isize::MIN / 2),
        Action::Bottom => m.move_by(isize::MAX / 2),
        Action::PageUp => m.move_by(-m.page()),
        Action::PageDown => m.move_by(m.page()),
        Action::Scroll(pane, lines) => {
            let before = m.focus;
            m.focus = pane;
            let fx = m.move_by(isize::from(lines));
            m.focus = before;
            fx
        }
        Action::NextPane => {
            m.focus = m.focus.step(true);
            Vec::new()
        }
        Action::PrevPane => {
            m.focus = m.focus.step(false);
            Vec::new()
        }
        Action::StartFilter => {
            m.mode = Mode::Filter;
            m.filter_before = m.filter.text.clone();
            m.focus = Pane::Inbox;
            Vec::new()
        }
        Action::FilterChar(c) => {
            m.filter.text.push(c);
            m.refresh_rows();
            m.preview_effect()
        }
        Action::FilterBackspace => {
            m.filter.text.pop();
            m.refresh_rows();
            m.preview_effect()
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
        Action::ClearFilters => {
            m.filter = Filter::default();
            m.refresh_rows();
            m.preview_effect()
        }
        Action::Resume => match m.selected_entry() {
            Some(h) => vec![Effect::WritePendingResume(h.path.clone())],
            None => {
                m.notice = Some(Notice {
                    text: "no handoff selected".into(),
                    error: true,
                    at: m.now,
                });
                Vec::new()
            }
        },
        Action::Open => match m.selected_entry() {
            Some(h) => vec![Effect::OpenEditor(h.path.clone())],
            None => Vec::new(),
        },
        Action::ToggleHelp => {
            m.mode = if m.mode == Mode::Help {
                Mode::Normal
            } else {
                Mode::Help
            };
            Vec::new()
        }
        Action::Quit => {
            m.quit = true;
            vec![Effect::Quit]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn entry(name: &str, text: &str) -> HandoffEntry {
        HandoffEntry::parse(
            PathBuf::from(format!("/p/.forge/handoffs/{name}")),
            text,
            None,
        )
        .unwrap()
    }

    const BLOCKED: &str =
        include_str!("../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md");
    const MALFORMED: &str =
        include_str!("../../tests/fixtures/handoffs/agent-T-011-20261121-090102.md");
    const COMPLETE: &str =
        include_str!("../../tests/fixtures/handoffs/agent-T-010-20261120-170944.md");
    const SESSION: &str = include_str!("../../tests/fixtures/handoffs/handoff-20261121-094500.md");

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
        match action_for(m.mode, key) {
            Some(a) => update(m, Event::Action(a)),
            None => Vec::new(),
        }
    }

    #[test]
    fn ages_are_short() {
        let t = |s: i64| age(now(), Some(now() - chrono::Duration::seconds(s)));
        assert_eq!(
            [
                t(-5),
                t(59),
                t(60),
                t(3599),
                t(3600),
                t(86_399),
                t(86_400 * 3)
            ],
            ["now", "now", "1m", "59m", "1h", "23h", "3d"]
        );
        assert_eq!(age(now(), None), "?");
    }

    #[test]
    fn no_two_bindings_collide() {
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in &KEYMAP[i + 1..] {
                if a.mode != b.mode {
                    continue;
                }
                for k in a.keys {
                    assert!(
                        !b.keys.contains(k),
                        "{k:?} is bound to both {:?} and {:?} in {:?}",
                        a.action,
                        b.action,
                        a.mode
                    );
                }
            }
        }
    }

    #[test]
    fn every_binding_has_help() {
        for b in bindings(Mode::Normal)
            .chain(bindings(Mode::Filter))
            .chain(bindings(Mode::Help))
        {
            assert!(!b.label.is_empty() && !b.desc.is_empty(), "{b:?}");
        }
        // Quit and help are always discoverable in the footer.
        let footer: Vec<_> = bindings(Mode::Normal)
            .filter(|b| b.footer)
            .map(|b| b.action)
            .collect();
        assert!(footer.contains(&Action::Quit) && footer.contains(&Action::ToggleHelp));
    }

    #[test]
    fn keys_map_to_actions_per_mode() {
        assert_eq!(action_for(Mode::Normal, Key::Char('j')), Some(Action::Down));
        assert_eq!(action_for(Mode::Normal, Key::Down), Some(Action::Down));
        assert_eq!(action_for(Mode::Normal, Key::Char('q')), Some(Action::Quit));
        assert_eq!(action_for(Mode::Normal, Key::Esc), Some(Action::Quit));
        assert_eq!(action_for(Mode::Normal, Key::Enter), Some(Action::Resume));
        assert_eq!(action_for(Mode::Normal, Key::Char('x')), None);
        // In filter mode letters are text, even the ones bound in normal mode.
        assert_eq!(
            action_for(Mode::Filter, Key::Char('q')),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(
            action_for(Mode::Filter, Key::Esc),
            Some(Action::FilterCancel)
        );
        assert_eq!(action_for(Mode::Help, Key::Esc), Some(Action::ToggleHelp));
        assert_eq!(action_for(Mode::Help, Key::Char('j')), None);
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
        use crate::model::state::{Reading, SessionBridge};
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
}
