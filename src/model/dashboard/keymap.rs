//! Keys and what they mean: [`KEYMAP`] is the one table that key handling, the
//! footer and the `?` help all read, so they can never drift apart. A binding may
//! hold in some panes only (Enter makes a handoff the pending resume in the inbox,
//! and opens the conversation in the sessions pane): the footer then shows, for the
//! focused pane, the keys that work there and what they do there.

use super::{Mode, Pane};

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
    /// Ctrl-Z.
    Suspend,
}

/// The user's intent, produced by key handling (and mouse scrolling).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
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
    /// Sessions pane: read the selected session's conversation in the pager.
    OpenConversation,
    /// Esc: clear the filter when one is active, else quit.
    Back,
    /// Open the selected handoff in `$EDITOR`.
    Open,
    /// Start answering the selected blocked Signal.
    StartResolve,
    /// Sessions pane: hide the selected session until it has news.
    Dismiss,
    /// Sessions pane: copy the selected session's id.
    CopyId,
    /// The context gauge: the next live session (after the last: follow the most
    /// recently active one again).
    NextGaugeSession,
    /// Answer mode: a typed character.
    AnswerChar(char),
    /// Answer mode: delete the last character.
    AnswerBackspace,
    /// Answer mode: write the resolving Signal.
    AnswerAccept,
    /// Answer mode: drop the answer, resolve nothing.
    AnswerCancel,
    /// Show or hide the activity view (what forge did).
    ToggleActivity,
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
    /// A left click in a pane: focus it and select the `n`th row shown (`None`: the
    /// pane's title row).
    Click(Pane, Option<u16>),
    /// Scroll the help by lines (negative is up).
    HelpScroll(i8),
    /// Ctrl-Z: hand the terminal back to the shell until `fg`.
    Suspend,
    /// The fleet list: open the selected project's dashboard.
    OpenProject,
    /// The fleet list and the sessions pane: go to the selected session's tmux pane
    /// (inside tmux), or say the command that attaches to it (outside).
    GoToPane,
    /// The fleet list and the sessions pane: approve the permission prompt the
    /// selected session's pane shows.
    Approve,
    /// The fleet list and the sessions pane: deny it.
    Deny,
    /// The fleet list and the sessions pane: type a prompt for the selected session
    /// (Enter sends it to its pane).
    StartPrompt,
}

/// One key binding: the keys, the mode (and panes) it applies in, the action and its
/// help text.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The mode the binding is active in.
    pub(crate) mode: Mode,
    /// The focused panes it applies in; empty: every pane.
    pub(crate) panes: &'static [Pane],
    /// The keys that trigger it.
    pub keys: &'static [Key],
    /// What it does.
    pub(crate) action: Action,
    /// How the keys are written in the help (`↑↓/jk`).
    pub(crate) label: &'static str,
    /// What it does, in words.
    pub desc: &'static str,
    /// Whether the footer shows it.
    pub(crate) footer: bool,
}

impl Binding {
    /// Whether it applies with `focus` focused (`None`: a screen without panes).
    pub(crate) fn applies_in(&self, focus: Option<Pane>) -> bool {
        self.panes.is_empty() || focus.is_some_and(|f| self.panes.contains(&f))
    }
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
        panes: &[],
        keys,
        action,
        label,
        desc,
        footer,
    }
}

/// [`bind`], for the focused `panes` only.
const fn bind_in(panes: &'static [Pane], b: Binding) -> Binding {
    Binding { panes, ..b }
}

use Key as K;
use Mode::{Answer as A, Filter as F, Fleet as L, Help as H, Normal as N};
/// The panes that show handoffs (the list and the selected one's text).
const HANDOFFS: &[Pane] = &[Pane::Inbox, Pane::Preview];
/// The sessions pane.
const SESSIONS: &[Pane] = &[Pane::Sessions];
/// Every pane but the sessions pane (where `t` goes to the session's tmux pane).
const NOT_SESSIONS: &[Pane] = &[Pane::Inbox, Pane::Preview, Pane::Activity];

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
    bind(N, &[K::Char('q')], Action::Quit, "q", "quit", true),
    bind(
        N,
        &[K::Esc],
        Action::Back,
        "Esc",
        "clear the filter; with none, twice quits",
        false,
    ),
    bind(N, &[K::Tab], Action::NextPane, "Tab", "next pane", true),
    bind(
        N,
        &[K::BackTab],
        Action::PrevPane,
        "S-Tab",
        "previous pane",
        false,
    ),
    bind_in(
        HANDOFFS,
        bind(
            N,
            &[K::Enter],
            Action::Resume,
            "⏎",
            "make the handoff the pending resume",
            true,
        ),
    ),
    bind_in(
        HANDOFFS,
        bind(
            N,
            &[K::Char('o')],
            Action::Open,
            "o",
            "open the handoff in $EDITOR",
            true,
        ),
    ),
    bind_in(
        HANDOFFS,
        bind(
            N,
            &[K::Char('r')],
            Action::StartResolve,
            "r",
            "answer the selected blocked Signal (resolves it)",
            true,
        ),
    ),
    bind_in(
        HANDOFFS,
        bind(
            N,
            &[K::Char('y')],
            Action::CopyId,
            "y",
            "copy the handoff's path",
            false,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Enter, K::Char('o')],
            Action::OpenConversation,
            "⏎/o",
            "sessions: read the conversation in the pager",
            true,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('d')],
            Action::Dismiss,
            "d",
            "sessions: dismiss until it has news",
            true,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('y')],
            Action::CopyId,
            "y",
            "sessions: copy the session id",
            true,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('p')],
            Action::Approve,
            "p",
            "sessions: approve its tmux pane's permission prompt",
            true,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('n')],
            Action::Deny,
            "n",
            "sessions: deny its tmux pane's permission prompt",
            false,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('i')],
            Action::StartPrompt,
            "i",
            "sessions: type its next prompt (Enter sends it)",
            true,
        ),
    ),
    bind_in(
        SESSIONS,
        bind(
            N,
            &[K::Char('t')],
            Action::GoToPane,
            "t",
            "sessions: go to its tmux pane (or say how to attach)",
            true,
        ),
    ),
    bind(
        N,
        &[K::Char('s')],
        Action::NextGaugeSession,
        "s",
        "gauge: the next live session, then the latest",
        false,
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
    bind_in(
        NOT_SESSIONS,
        bind(
            N,
            &[K::Char('t')],
            Action::CycleKind,
            "t",
            "kind: all/session/agent (not in the sessions pane)",
            true,
        ),
    ),
    bind(
        N,
        &[K::Char('a')],
        Action::ToggleActivity,
        "a",
        "activity: what forge did (a again: handoffs)",
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
        A,
        &[K::Enter],
        Action::AnswerAccept,
        "⏎",
        "write the answer (resolves the task)",
        true,
    ),
    bind(
        A,
        &[K::Esc],
        Action::AnswerCancel,
        "Esc",
        "cancel (nothing is written)",
        true,
    ),
    bind(
        A,
        &[K::Backspace],
        Action::AnswerBackspace,
        "⌫",
        "delete a character",
        true,
    ),
    bind(
        N,
        &[K::Suspend],
        Action::Suspend,
        "^Z",
        "suspend (fg brings it back)",
        false,
    ),
    bind(
        H,
        &[K::Char('?'), K::Esc, K::Char('q')],
        Action::ToggleHelp,
        "?/Esc",
        "close help",
        true,
    ),
    bind(
        H,
        &[K::Up, K::Char('k')],
        Action::HelpScroll(-1),
        "↑/k",
        "scroll up",
        true,
    ),
    bind(
        H,
        &[K::Down, K::Char('j')],
        Action::HelpScroll(1),
        "↓/j",
        "scroll down",
        true,
    ),
    bind(
        H,
        &[K::PageUp],
        Action::HelpScroll(-10),
        "PgUp",
        "page up",
        false,
    ),
    bind(
        H,
        &[K::PageDown, K::Char(' ')],
        Action::HelpScroll(10),
        "PgDn",
        "page down",
        false,
    ),
    bind(H, &[K::Suspend], Action::Suspend, "^Z", "suspend", false),
    // The fleet list (`forge tui --all`).
    bind(
        L,
        &[K::Up, K::Char('k')],
        Action::Up,
        "↑/k",
        "move up",
        false,
    ),
    bind(
        L,
        &[K::Down, K::Char('j')],
        Action::Down,
        "↓/j",
        "move down",
        false,
    ),
    bind(
        L,
        &[K::Home, K::Char('g')],
        Action::Top,
        "g",
        "first row",
        false,
    ),
    bind(
        L,
        &[K::End, K::Char('G')],
        Action::Bottom,
        "G",
        "last row",
        false,
    ),
    bind(L, &[K::PageUp], Action::PageUp, "PgUp", "page up", false),
    bind(
        L,
        &[K::PageDown, K::Char(' ')],
        Action::PageDown,
        "PgDn",
        "page down",
        false,
    ),
    bind(
        L,
        &[K::Enter],
        Action::OpenProject,
        "⏎",
        "open the project's dashboard; q there comes back",
        true,
    ),
    bind(
        L,
        &[K::Char('t')],
        Action::GoToPane,
        "t",
        "go to the session's tmux pane (or say how to attach)",
        true,
    ),
    bind(
        L,
        &[K::Char('y')],
        Action::Approve,
        "y",
        "approve the permission prompt its pane shows",
        true,
    ),
    bind(
        L,
        &[K::Char('n')],
        Action::Deny,
        "n",
        "deny the permission prompt its pane shows",
        false,
    ),
    bind(
        L,
        &[K::Char('i')],
        Action::StartPrompt,
        "i",
        "type a prompt for the selected session (Enter sends it to its pane)",
        false,
    ),
    bind(L, &[K::Char('?')], Action::ToggleHelp, "?", "help", true),
    bind(L, &[K::Char('q')], Action::Quit, "q", "quit", true),
    bind(L, &[K::Esc], Action::Back, "Esc", "twice: quit", false),
    bind(
        L,
        &[K::Suspend],
        Action::Suspend,
        "^Z",
        "suspend (fg brings it back)",
        false,
    ),
];

/// The action a key means in `mode` with `focus` focused (`None`: a screen without
/// panes, like the fleet list): the table first, then (filter and answer modes)
/// typed text.
pub(crate) fn action_for(mode: Mode, focus: Option<Pane>, key: Key) -> Option<Action> {
    let bound = KEYMAP
        .iter()
        .find(|b| b.mode == mode && b.applies_in(focus) && b.keys.contains(&key))
        .map(|b| b.action);
    match (bound, mode, key) {
        (Some(a), _, _) => Some(a),
        (None, Mode::Filter, Key::Char(c)) => Some(Action::FilterChar(c)),
        (None, Mode::Answer, Key::Char(c)) => Some(Action::AnswerChar(c)),
        _ => None,
    }
}

/// The bindings of `mode` that have help text (the table without its placeholders).
pub(crate) fn bindings(mode: Mode) -> impl Iterator<Item = &'static Binding> {
    KEYMAP
        .iter()
        .filter(move |b| b.mode == mode && !b.keys.is_empty())
}

/// The bindings the footer shows in `mode` with `focus` focused: those marked for it
/// that work in that pane, in the table's order.
pub(crate) fn footer_bindings(
    mode: Mode,
    focus: Option<Pane>,
) -> impl Iterator<Item = &'static Binding> {
    bindings(mode).filter(move |b| b.footer && b.applies_in(focus))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_bindings_collide() {
        // Two bindings of a mode may share a key only in panes they do not share.
        let overlap = |a: &Binding, b: &Binding| {
            a.panes.is_empty() || b.panes.is_empty() || a.panes.iter().any(|p| b.panes.contains(p))
        };
        for (i, a) in KEYMAP.iter().enumerate() {
            for b in &KEYMAP[i + 1..] {
                if a.mode != b.mode || !overlap(a, b) {
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
            .chain(bindings(Mode::Answer))
            .chain(bindings(Mode::Help))
            .chain(bindings(Mode::Fleet))
        {
            assert!(!b.label.is_empty() && !b.desc.is_empty(), "{b:?}");
        }
        // Quit and help are always discoverable in the footer, in every pane.
        for pane in [Pane::Inbox, Pane::Preview, Pane::Sessions, Pane::Activity] {
            let footer: Vec<_> = footer_bindings(Mode::Normal, Some(pane))
                .map(|b| b.action)
                .collect();
            assert!(
                footer.contains(&Action::Quit) && footer.contains(&Action::ToggleHelp),
                "{pane:?}"
            );
        }
        let fleet: Vec<_> = footer_bindings(Mode::Fleet, None)
            .map(|b| b.action)
            .collect();
        assert!(
            fleet.contains(&Action::Quit)
                && fleet.contains(&Action::ToggleHelp)
                && fleet.contains(&Action::OpenProject)
        );
    }

    #[test]
    #[allow(
        clippy::cognitive_complexity,
        reason = "a table of keys and the actions they give, one assert per key"
    )]
    fn keys_map_to_actions_per_mode_and_pane() {
        let inbox = Some(Pane::Inbox);
        let n = |key| action_for(Mode::Normal, inbox, key);
        assert_eq!(n(Key::Char('j')), Some(Action::Down));
        assert_eq!(n(Key::Down), Some(Action::Down));
        assert_eq!(n(Key::Char('q')), Some(Action::Quit));
        // Esc clears a filter first (the model decides), q always quits.
        assert_eq!(n(Key::Esc), Some(Action::Back));
        assert_eq!(n(Key::Enter), Some(Action::Resume));
        assert_eq!(n(Key::Char('x')), None);
        // Enter and o mean what the focused pane does with them.
        for key in [Key::Enter, Key::Char('o')] {
            assert_eq!(
                action_for(Mode::Normal, Some(Pane::Sessions), key),
                Some(Action::OpenConversation)
            );
        }
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Preview), Key::Enter),
            Some(Action::Resume)
        );
        // Nothing to resume in the activity view; d only dismisses a session row.
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Activity), Key::Enter),
            None
        );
        assert_eq!(n(Key::Char('d')), None);
        // t: the kind filter, but in the sessions pane the session's tmux pane; i
        // types a session's prompt there only.
        assert_eq!(n(Key::Char('t')), Some(Action::CycleKind));
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Activity), Key::Char('t')),
            Some(Action::CycleKind)
        );
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Sessions), Key::Char('t')),
            Some(Action::GoToPane)
        );
        assert_eq!(n(Key::Char('i')), None);
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Sessions), Key::Char('i')),
            Some(Action::StartPrompt)
        );
        assert_eq!(
            action_for(Mode::Normal, Some(Pane::Sessions), Key::Char('d')),
            Some(Action::Dismiss)
        );
        // In filter mode letters are text, even the ones bound in normal mode.
        assert_eq!(
            action_for(Mode::Filter, inbox, Key::Char('q')),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(
            action_for(Mode::Filter, inbox, Key::Esc),
            Some(Action::FilterCancel)
        );
        assert_eq!(
            action_for(Mode::Help, inbox, Key::Esc),
            Some(Action::ToggleHelp)
        );
        // Answering: every letter is text, Enter writes, Esc cancels.
        assert_eq!(n(Key::Char('r')), Some(Action::StartResolve));
        assert_eq!(
            action_for(Mode::Answer, inbox, Key::Char('q')),
            Some(Action::AnswerChar('q'))
        );
        assert_eq!(
            action_for(Mode::Answer, inbox, Key::Enter),
            Some(Action::AnswerAccept)
        );
        assert_eq!(
            action_for(Mode::Answer, inbox, Key::Esc),
            Some(Action::AnswerCancel)
        );
        // The help scrolls; other keys do nothing there.
        assert_eq!(
            action_for(Mode::Help, inbox, Key::Char('j')),
            Some(Action::HelpScroll(1))
        );
        assert_eq!(action_for(Mode::Help, inbox, Key::Char('r')), None);
        assert_eq!(n(Key::Suspend), Some(Action::Suspend));
        // The fleet list: Enter opens a project, q quits (Esc twice), letters are not text.
        let f = |key| action_for(Mode::Fleet, None, key);
        assert_eq!(f(Key::Enter), Some(Action::OpenProject));
        assert_eq!(f(Key::Esc), Some(Action::Back));
        assert_eq!(f(Key::Char('q')), Some(Action::Quit));
        assert_eq!(f(Key::Char('j')), Some(Action::Down));
        assert_eq!(f(Key::Char('r')), None);
    }

    #[test]
    fn the_footer_offers_what_the_focused_pane_does() {
        let words = |pane| -> Vec<Action> {
            footer_bindings(Mode::Normal, Some(pane))
                .map(|b| b.action)
                .collect()
        };
        let inbox = words(Pane::Inbox);
        assert!(inbox.contains(&Action::Resume) && inbox.contains(&Action::Open));
        assert!(!inbox.contains(&Action::OpenConversation));
        // The sessions pane, where Enter does something else: no "resume" there.
        let sessions = words(Pane::Sessions);
        assert!(!sessions.contains(&Action::Resume) && !sessions.contains(&Action::Open));
        assert!(
            sessions.contains(&Action::OpenConversation)
                && sessions.contains(&Action::Dismiss)
                && sessions.contains(&Action::CopyId)
        );
        // The activity view: nothing to resume or answer there.
        let activity = words(Pane::Activity);
        assert!(!activity.contains(&Action::Resume) && !activity.contains(&Action::StartResolve));
    }
}
