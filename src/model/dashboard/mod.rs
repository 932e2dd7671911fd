//! The dashboard's state and its `update` function (The Elm Architecture).
//!
//! [`Model`] is plain data; [`update`] applies one [`Event`] and returns the
//! [`Effect`]s (file writes, the editor, a preview read) for the loop in
//! `crate::tui` to carry out. Nothing here touches the terminal or the disk, so
//! every key and every reload is tested without either. Keys are looked up in
//! [`KEYMAP`], the one table that also draws the help and the footer.
//!
//! By concern: [`keymap`] (keys, actions, the table), [`filter`] (which handoffs
//! the inbox shows, in which order), [`update`](mod@update) (what each event does);
//! the model and its read-only views are here. [`fleet`] is the list of every
//! project's live sessions that `forge tui --all` opens on, whose Enter opens this
//! dashboard for one of them.

pub(crate) mod filter;
pub(crate) mod fleet;
pub(crate) mod keymap;
pub(crate) mod update;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::snapshot::Snapshot;
use crate::model::handoff::entry::{Drift, HandoffEntry};
use crate::model::session::level::{Level, Thresholds};
use crate::model::session::state::GitCache;
use crate::model::session::trend;

pub(crate) use filter::{Filter, KindFilter, visible_rows};
pub(crate) use keymap::{Action, action_for, bindings, footer_bindings};
pub use keymap::{Binding, KEYMAP, Key};
pub(crate) use update::update;

/// The panes that take focus (Tab cycles through them in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pane {
    /// The handoff list.
    Inbox,
    /// The selected handoff's text.
    Preview,
    /// Sessions needing attention.
    Sessions,
    /// What forge did (in place of the inbox and preview while it is shown).
    Activity,
}

impl Pane {
    /// Focus order.
    pub(crate) const ALL: [Self; 3] = [Self::Inbox, Self::Preview, Self::Sessions];
    /// Focus order while the activity view is shown.
    pub(crate) const WITH_ACTIVITY: [Self; 2] = [Self::Activity, Self::Sessions];

    fn step(self, forward: bool, order: &[Self]) -> Self {
        let i = order.iter().position(|p| *p == self).unwrap_or(0);
        let n = order.len().max(1);
        let next = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        order.get(next).copied().unwrap_or(self)
    }
}

/// What keys mean right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Browsing.
    Normal,
    /// Typing a filter after `/`.
    Filter,
    /// The `?` help is open.
    Help,
    /// Typing the answer to the selected blocked Signal after `r`, or a session's
    /// next prompt after `i`.
    Answer,
    /// The fleet list of `forge tui --all` (its own screen, see [`fleet`]).
    Fleet,
}

/// What a first Esc with nothing to leave says (the project dashboard and the
/// fleet list).
pub(crate) const ESC_AGAIN: &str = "Esc again quits (q quits at once)";

/// How long a notice stays when no key is pressed.
pub(crate) const NOTICE_TTL: chrono::Duration = chrono::Duration::seconds(10);

/// A line for the user at the bottom of the screen. It goes at the next key press,
/// or at the first tick [`NOTICE_TTL`] after it was shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Notice {
    /// The text.
    pub(crate) text: String,
    /// Whether it reports a failure.
    pub(crate) error: bool,
    /// When it was shown (the model's `now` then).
    pub(crate) at: DateTime<Utc>,
}

/// Something that happened: a user action or news from the disk or the clock.
#[derive(Debug, Clone)]
pub(crate) enum Event {
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
    /// Git facts computed while the dashboard is open (a checkout, a commit or an
    /// edit in another terminal).
    GitLoaded(GitCache),
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
    /// Text was sent to the terminal's clipboard (or why not).
    Copied(Result<String, String>),
    /// A session's pane was answered or sent a prompt (what was sent), or why not.
    PaneAnswered(Result<String, String>),
    /// The tmux client switched to a session's pane (its `session:window.pane`), or
    /// why not.
    Switched(Result<String, String>),
    /// A blocked Signal was resolved: the task, and the new Signal's path or why not.
    SignalResolved {
        /// The task.
        task: String,
        /// The superseding Signal, or the error.
        result: Result<PathBuf, String>,
    },
    /// The list and preview sizes changed (terminal resized, preview text loaded).
    /// Which handoffs' text holds `needle` (an answer to [`Effect::SearchBodies`]).
    BodyHits {
        /// What was searched for.
        needle: String,
        /// The handoffs that hold it.
        paths: std::collections::HashSet<PathBuf>,
    },
    /// The row of the preview text (as wrapped on screen) with the filter's first
    /// match, answering [`Model::seek_match`]; `None`: no match shown.
    MatchAt(Option<usize>),
    /// The screen's sizes, before each frame that changed them.
    Viewport {
        /// The panes the layout shows (Tab skips the others).
        shown: Vec<Pane>,
        /// Rows of the sessions pane's list.
        sessions_rows: u16,
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
pub(crate) enum Effect {
    /// Leave the loop and restore the terminal.
    Quit,
    /// Read this handoff for the preview.
    LoadPreview(PathBuf),
    /// Write the pending-resume markers for this handoff.
    WritePendingResume(PathBuf),
    /// Suspend the terminal and open this file in the editor.
    OpenEditor(PathBuf),
    /// Suspend the terminal and show the conversation of this session transcript,
    /// readable ([`crate::model::session::conversation`]), in `$PAGER` (else the editor).
    OpenTranscript(PathBuf),
    /// Put this text on the terminal's clipboard (OSC 52).
    Copy(String),
    /// Restore the terminal and stop (SIGTSTP) until the shell continues us.
    Suspend,
    /// Search the handoffs' text for this needle (lowercase); the answer comes back
    /// as [`Event::BodyHits`].
    SearchBodies(String),
    /// Answer the permission prompt a session's tmux pane shows (once the pane is
    /// read and shows it).
    AnswerPane(crate::model::dashboard::fleet::AnswerRequest),
    /// Type a prompt into a session's tmux pane (once the pane is read and shows
    /// the client's empty prompt).
    PromptPane(crate::model::dashboard::fleet::PromptRequest),
    /// Switch this tmux client to `pane` (`tmux switch-client -t`), on the server
    /// at `socket` (this client's own when `None`).
    SwitchToPane {
        /// `%N`.
        pane: String,
        /// The server's socket.
        socket: Option<String>,
    },
    /// Write the Signal that resolves the blocked Signal in `blocked`.
    ResolveSignal {
        /// The blocked Signal's file.
        blocked: PathBuf,
        /// The answer typed (may be empty).
        answer: String,
    },
}

/// The preview pane's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Preview {
    /// The file shown.
    pub(crate) path: Option<PathBuf>,
    /// Its text, once loaded.
    pub(crate) text: Option<String>,
    /// First line shown.
    pub(crate) scroll: u16,
}

/// The context gauge's numbers, computed before drawing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContextView {
    /// The session the numbers are from.
    pub(crate) session_id: String,
    /// Whether it was picked with `s` (else it is the most recently active one).
    pub(crate) pinned: bool,
    /// The compactions forge recorded for it.
    pub(crate) compactions: usize,
    /// Used percentage (`None`: unknown).
    pub(crate) pct: Option<f64>,
    /// Level of `pct`.
    pub(crate) level: Option<Level>,
    /// Recent readings (percent), oldest first.
    pub(crate) history: Vec<f64>,
    /// Percentage points per turn (since the last drop, if there was one).
    pub(crate) growth: Option<f64>,
    /// Readings since the context last dropped (compaction, `/clear`); `None`
    /// when it never did.
    pub(crate) since_drop: Option<usize>,
    /// The next level and the turns until it.
    pub(crate) next: Option<(Level, u64)>,
    /// The account's quota pace, from the session's `rate_limits` readings.
    pub(crate) pace: Vec<crate::model::session::pace::Pace>,
}

/// Everything the dashboard shows.
#[derive(Debug, Clone)]
pub(crate) struct Model {
    /// The project as last read.
    pub(crate) snapshot: Snapshot,
    /// Level boundaries from the config.
    pub(crate) thresholds: Thresholds,
    /// The time ages are measured from.
    pub(crate) now: DateTime<Utc>,
    /// The time zone absolute times are shown in (local; tests pin one).
    pub(crate) zone: crate::model::time::Zone,
    /// The focused pane.
    pub(crate) focus: Pane,
    /// What keys mean now.
    pub(crate) mode: Mode,
    /// The inbox filter in force.
    pub(crate) filter: Filter,
    /// The filter text before `/` was pressed (restored by Esc).
    pub(crate) filter_before: String,
    /// The answer being typed after `r`, and the blocked Signal it answers.
    pub(crate) answer: String,
    /// The blocked Signal `answer` is for.
    pub(crate) answer_for: Option<PathBuf>,
    /// Or the session whose next prompt `answer` is (`i` in the sessions pane;
    /// Enter types it into its tmux pane).
    pub(crate) prompt_for: Option<String>,
    /// Where the dashboard runs: inside tmux (on the server of this socket, when
    /// known), where `t` switches the client to a session's pane, or outside.
    pub(crate) tmux: Option<Option<String>>,
    /// Visible handoffs: indices into `snapshot.handoffs`, blocked first, then newest.
    pub(crate) rows: Vec<usize>,
    /// Index into `rows`.
    pub(crate) selected: usize,
    /// The selected file, kept across reloads so a new file does not move the cursor.
    pub(crate) selected_path: Option<PathBuf>,
    /// The preview.
    pub(crate) preview: Preview,
    /// The cursor in the sessions pane (index into [`Model::attention_rows`]).
    pub(crate) sessions_selected: usize,
    /// Sessions dismissed with `d`: the id and [`news_key`] then. A dismissed
    /// session comes back when it has news (a newer event, another state or message).
    pub(crate) dismissed: Vec<(String, String)>,
    /// A live session silent for longer than this leaves the sessions pane
    /// (`[attention] stale_after`).
    pub(crate) stale_after: chrono::Duration,
    /// How many keys of the project's `.forge/config.toml` wait for `forge trust`
    /// (0: none, or the file is trusted): the header says so while any do.
    pub(crate) untrusted_keys: usize,
    /// The session the gauge shows, picked with `s`; `None`: it follows the most
    /// recently active live session.
    pub(crate) gauge_pinned: Option<String>,
    /// The first line of the help shown (the help scrolls in a small pane).
    pub(crate) help_scroll: u16,
    /// The preview should scroll to the filter's first match once the screen has
    /// found it ([`Event::MatchAt`]): set when the filter text or the preview changes.
    pub(crate) seek_match: bool,
    /// The panes the last frame showed (`None` before the first frame: all).
    pub(crate) shown: Option<Vec<Pane>>,
    /// Rows of the sessions pane's list in the last frame.
    pub(crate) sessions_rows: u16,
    /// The activity view (what forge did) is shown in place of the inbox and preview.
    pub(crate) activity: bool,
    /// The cursor in the activity view (0: the newest row).
    pub(crate) activity_selected: usize,
    /// Rows of the inbox list (for paging).
    pub(crate) inbox_rows: u16,
    /// Rows of the preview text (for paging).
    pub(crate) preview_rows: u16,
    /// Rows the preview text takes once wrapped (scrolling stops at its last page).
    /// Until the screen says otherwise, the number of lines in the text.
    pub(crate) preview_len: usize,
    /// The last message for the user.
    pub(crate) notice: Option<Notice>,
    /// Set by Quit.
    pub(crate) quit: bool,
    /// The demo project is shown (said in the header).
    pub(crate) demo: bool,
    /// Opened from the fleet list (`forge tui --all`): q and Esc go back to it.
    pub(crate) from_fleet: bool,
    /// The last key was an Esc that had nothing to leave: another Esc quits (any
    /// other key forgets it). Esc alone only leaves a mode; `q` quits at once.
    pub(crate) esc_armed: bool,
}

impl Model {
    /// A model showing `snapshot`, focus on the inbox, first row selected.
    pub(crate) fn new(snapshot: Snapshot, thresholds: Thresholds, now: DateTime<Utc>) -> Self {
        let mut m = Self {
            snapshot,
            thresholds,
            now,
            zone: crate::model::time::Zone::Local,
            focus: Pane::Inbox,
            mode: Mode::Normal,
            filter: Filter::default(),
            filter_before: String::new(),
            answer: String::new(),
            answer_for: None,
            prompt_for: None,
            tmux: None,
            rows: Vec::new(),
            selected: 0,
            selected_path: None,
            preview: Preview::default(),
            sessions_selected: 0,
            dismissed: Vec::new(),
            gauge_pinned: None,
            help_scroll: 0,
            seek_match: false,
            shown: None,
            sessions_rows: 1,
            stale_after: chrono::Duration::minutes(30),
            untrusted_keys: 0,
            activity: false,
            activity_selected: 0,
            inbox_rows: 10,
            preview_rows: 10,
            preview_len: 0,
            notice: None,
            quit: false,
            demo: false,
            from_fleet: false,
            esc_armed: false,
        };
        m.refresh_rows();
        m
    }

    /// Whether `git` says something other than the git facts shown — only then do
    /// fresh facts need a redraw.
    pub(crate) fn git_differs(&self, git: &GitCache) -> bool {
        self.snapshot
            .git
            .as_ref()
            .is_none_or(|shown| !shown.same_facts(git))
    }

    /// The git facts to keep when `read` comes from the cache file: the ones shown
    /// when they are newer (computed after the file was written, or the file has
    /// none), else the file's.
    pub(crate) fn fresher_git(&self, read: Option<GitCache>) -> Option<GitCache> {
        match (&self.snapshot.git, read) {
            (Some(shown), Some(read)) if shown.is_newer_than(&read) => Some(shown.clone()),
            (shown, None) => shown.clone(),
            (_, read) => read,
        }
    }

    /// The effects a fresh model needs (the first preview).
    pub(crate) fn start(&mut self) -> Vec<Effect> {
        self.preview_effect()
    }

    /// The selected handoff.
    pub(crate) fn selected_entry(&self) -> Option<&HandoffEntry> {
        self.rows
            .get(self.selected)
            .and_then(|i| self.snapshot.handoffs.get(*i))
    }

    /// The visible handoffs in display order.
    pub(crate) fn visible(&self) -> impl Iterator<Item = &HandoffEntry> {
        self.rows
            .iter()
            .filter_map(|i| self.snapshot.handoffs.get(*i))
    }

    /// The session the gauge shows: the one picked with `s` while it is on record,
    /// else the most recently active live one ([`Snapshot::current_session`]).
    pub(crate) fn gauge_session(&self) -> Option<&crate::model::session::state::SessionBridge> {
        self.gauge_pinned
            .as_deref()
            .and_then(|id| self.snapshot.sessions.iter().find(|s| s.session_id == id))
            .or_else(|| self.snapshot.current_session(self.now, self.stale_after))
    }

    /// The gauge numbers of the gauge's session; `None` with no session at all.
    pub(crate) fn context(&self) -> Option<ContextView> {
        let s = self.gauge_session()?;
        let pct = s.context_pct();
        let growth = trend::growth_per_turn(&s.readings);
        Some(ContextView {
            session_id: s.session_id.clone(),
            pinned: self.gauge_pinned.as_deref() == Some(s.session_id.as_str()),
            compactions: self.snapshot.compactions_of(&s.session_id),
            pct,
            level: pct.map(|p| Level::from_pct(p, &self.thresholds)),
            history: s.readings.iter().map(|r| r.pct).collect(),
            growth,
            since_drop: trend::since_drop(&s.readings),
            next: pct
                .zip(growth)
                .and_then(|(p, g)| trend::turns_to_next(p, g, &self.thresholds)),
            pace: {
                use crate::model::session::pace::{Window, from_kept};
                let now = self.now.timestamp();
                [
                    from_kept(Window::FiveHour, &s.quota_5h, now),
                    from_kept(Window::SevenDay, &s.quota_7d, now),
                ]
                .into_iter()
                .flatten()
                .collect()
            },
        })
    }

    /// What forge did, newest first: one row per outcome of the recent event lines
    /// (the same rows `forge log` prints, newest at the top here).
    pub(crate) fn activity_rows(&self) -> Vec<crate::model::activity::Row> {
        self.snapshot
            .recent_events
            .iter()
            .rev()
            .flat_map(|l| {
                let mut rows = crate::model::activity::rows(l);
                rows.reverse();
                rows
            })
            .collect()
    }

    /// The activity row under the cursor.
    pub(crate) fn selected_activity(&self) -> Option<crate::model::activity::Row> {
        self.activity_rows().into_iter().nth(self.activity_selected)
    }

    /// Keeps the activity cursor on the row it was on when new rows arrive above it
    /// (at the top it stays at the top: the newest row).
    fn keep_activity_cursor(&mut self, before: Option<crate::model::activity::Row>) {
        if !self.activity {
            return;
        }
        let rows = self.activity_rows();
        self.activity_selected = match before {
            Some(b) if self.activity_selected > 0 => rows
                .iter()
                .position(|r| *r == b)
                .unwrap_or(self.activity_selected),
            _ => self.activity_selected,
        }
        .min(rows.len().saturating_sub(1));
    }

    /// The sessions pane: the live sessions, most urgent first (see
    /// [`Snapshot::attention`]), less the ones dismissed since their last event.
    pub(crate) fn attention_rows(&self) -> Vec<&crate::model::session::state::SessionBridge> {
        self.snapshot
            .attention(self.now, self.stale_after)
            .into_iter()
            .filter(|s| {
                !self
                    .dismissed
                    .iter()
                    .any(|(id, key)| *id == s.session_id && *key == news_key(s))
            })
            .collect()
    }

    /// The live sessions (see [`Snapshot::attention`]), dismissed or not, and how many
    /// of them are dismissed: a dismissed session is hidden from the list, not from
    /// the count — it is still live.
    pub(crate) fn live_counts(&self) -> (usize, usize) {
        let live = self.snapshot.attention(self.now, self.stale_after).len();
        (live, live.saturating_sub(self.attention_rows().len()))
    }

    /// The session under the cursor of the sessions pane.
    pub(crate) fn selected_session(&self) -> Option<&crate::model::session::state::SessionBridge> {
        let rows = self.attention_rows();
        rows.get(self.sessions_selected.min(rows.len().saturating_sub(1)))
            .copied()
    }

    /// The panes Tab moves through now.
    /// The panes Tab steps through: those of the view that the last frame showed.
    pub(crate) fn panes(&self) -> Vec<Pane> {
        let all: &[Pane] = if self.activity {
            &Pane::WITH_ACTIVITY
        } else {
            &Pane::ALL
        };
        let shown: Vec<Pane> = all
            .iter()
            .copied()
            .filter(|p| {
                // The activity view takes the list area, which the inbox always has.
                *p == Pane::Activity || self.shown.as_ref().is_none_or(|s| s.contains(p))
            })
            .collect();
        if shown.is_empty() {
            all[..1].to_vec()
        } else {
            shown
        }
    }

    /// The first session row the sessions pane shows (it keeps the cursor in view,
    /// as the renderer does).
    pub(crate) fn sessions_first(&self) -> usize {
        self.sessions_cursor()
            .saturating_sub(usize::from(self.sessions_rows.max(1)) - 1)
    }

    /// The sessions pane's cursor, within the rows there are now (the list shrinks
    /// as sessions end or go silent).
    pub(crate) fn sessions_cursor(&self) -> usize {
        self.sessions_selected
            .min(self.attention_rows().len().saturating_sub(1))
    }

    /// The first handoff row the inbox shows (the renderer keeps the selection in view).
    pub(crate) fn inbox_first(&self) -> usize {
        self.selected
            .saturating_sub(usize::from(self.inbox_rows.max(1)) - 1)
    }

    /// How far `h` has drifted from the tree now.
    pub(crate) fn drift(&self, h: &HandoffEntry) -> Drift {
        Drift::of(
            h,
            self.snapshot.branch(),
            self.snapshot.uncommitted(),
            self.now,
        )
    }

    /// After the filter text changed: the rows now, and a body search when there is
    /// a needle the last search was not for.
    fn filter_changed(&mut self) -> Vec<Effect> {
        self.refresh_rows();
        self.seek_match = self.filter.needle().is_some();
        let mut fx = self.preview_effect();
        if let Some(n) = self.filter.needle()
            && self
                .filter
                .body_hits
                .as_ref()
                .is_none_or(|(old, _)| *old != n)
        {
            fx.push(Effect::SearchBodies(n));
        }
        fx
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
                let n = self.attention_rows().len();
                self.sessions_selected = self
                    .sessions_cursor()
                    .saturating_add_signed(delta)
                    .min(n.saturating_sub(1));
                Vec::new()
            }
            Pane::Activity => {
                let n = self.activity_rows().len();
                self.activity_selected = self
                    .activity_selected
                    .saturating_add_signed(delta)
                    .min(n.saturating_sub(1));
                Vec::new()
            }
        }
    }

    /// The last useful preview scroll: the one that shows the last page, so the pane
    /// never scrolls into blank rows.
    pub(crate) fn max_scroll(&self) -> isize {
        let max = self
            .preview_len
            .saturating_sub(usize::from(self.preview_rows.max(1)));
        isize::try_from(max.min(usize::from(u16::MAX))).unwrap_or(0)
    }

    /// Whether `h` is the pending resume (`.forge/pending-resume` names it). The marker
    /// holds a canonical path, so a project reached through a symlink still matches
    /// by the file's name inside a `handoffs` folder.
    pub(crate) fn is_pending_resume(&self, h: &HandoffEntry) -> bool {
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
    pub(crate) fn notice_expires(&self) -> Option<DateTime<Utc>> {
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

#[cfg(test)]
mod tests;

/// What a dismissed session must change to come back: its last event (to the
/// second), its state and its message.
pub(crate) fn news_key(s: &crate::model::session::state::SessionBridge) -> String {
    format!(
        "{}|{:?}|{}",
        s.last_event_at.as_deref().unwrap_or(""),
        s.attention,
        s.attention_message.as_deref().unwrap_or("")
    )
}
