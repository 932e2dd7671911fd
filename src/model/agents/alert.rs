//! Alerts to the person (`[alerts]`, docs/alerts.md): when a session needs them —
//! a permission prompt, a question, a turn over while they look elsewhere, a
//! Signal blocked on them, a relay that stopped — one notification naming the
//! project, the agent or session, the reason and the next step. This file decides
//! (which reason an event is, how it is delivered, whether it is debounced or in
//! view) and builds the bytes; `crate::app::alert` delivers them through `proc` or
//! the terminal.

use chrono::{DateTime, Duration, Utc};

use crate::model::hook::event::HookEvent;
use crate::model::named::named;

named! {
    /// Why a session needs the person (its name is the one in `[alerts] on`).
    pub enum AlertReason in lists as "alert" {
        /// A permission prompt is open (PermissionRequest, Notification
        /// `permission_prompt`).
        Permission = "permission",
        /// The session asks a question (AskUserQuestion, an MCP elicitation).
        Question = "question",
        /// The turn is over and the person is elsewhere (Stop, Notification
        /// `idle_prompt`). Off by default: it comes after every turn.
        TurnDone = "turn_done",
        /// An agent wrote a Signal blocked on the person.
        Blocked = "blocked",
        /// A `forge run` relay stopped before its task was done.
        RelayStopped = "relay_stopped",
    }
}

named! {
    /// `[alerts] via`: how an alert reaches the person.
    pub(crate) enum AlertVia {
        /// The first that works here: the terminal's own notification escape when
        /// the terminal is known to draw it, else `osascript` (macOS) or
        /// `notify-send` (a Linux desktop), else the bell.
        Auto = "auto",
        /// OSC 9 (iTerm2, WezTerm, Ghostty, kitty, Windows Terminal).
        Osc9 = "osc9",
        /// OSC 777 (foot, rxvt-unicode, WezTerm, Ghostty).
        Osc777 = "osc777",
        /// `notify-send` (libnotify).
        NotifySend = "notify-send",
        /// `osascript -e 'display notification …'` (macOS).
        Osascript = "osascript",
        /// The terminal bell (BEL).
        Bell = "bell",
    }
}

/// The reasons on by default: each stops a session's work until the person acts,
/// so a notification is what they would ask for. `turn_done` is off: it comes after
/// every turn.
pub(crate) const DEFAULT_ON: [AlertReason; 4] = [
    AlertReason::Permission,
    AlertReason::Question,
    AlertReason::Blocked,
    AlertReason::RelayStopped,
];

/// The reason a hook event is, if any. A permission prompt fires PermissionRequest
/// at once and Notification(`permission_prompt`) ~6 s later: both are
/// `permission`, and the debounce makes them one alert.
pub(crate) fn reason_of(
    event: &HookEvent,
    notification_type: Option<&str>,
    tool_name: Option<&str>,
) -> Option<AlertReason> {
    match event {
        HookEvent::PermissionRequest { .. } => Some(AlertReason::Permission),
        HookEvent::Notification { .. } => match notification_type? {
            "permission_prompt" => Some(AlertReason::Permission),
            "elicitation_dialog" | "elicitation_url_dialog" => Some(AlertReason::Question),
            "idle_prompt" => Some(AlertReason::TurnDone),
            _ => None,
        },
        HookEvent::PreToolUse if tool_name == Some("AskUserQuestion") => {
            Some(AlertReason::Question)
        }
        HookEvent::Stop {
            stop_hook_active: false,
        } => Some(AlertReason::TurnDone),
        _ => None,
    }
}

/// What an alert says: a title and one line of body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Alert {
    /// `forge · acme-api`.
    pub(crate) title: String,
    /// `builder (3f0c2a9e): permission to run Bash — answer in its pane (tmux %3)`.
    pub(crate) body: String,
}

/// Who needs the person: the agent's name, the session's short id, its tmux pane.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Who {
    /// The project's folder name.
    pub(crate) project: String,
    /// The agent (`$FORGE_AGENT`, the tmux session's name).
    pub(crate) agent: Option<String>,
    /// The session id.
    pub(crate) session: Option<String>,
    /// Its tmux pane, `%N`.
    pub(crate) pane: Option<String>,
}

/// The most characters of a value an alert quotes.
const DETAIL_MAX: usize = 80;

fn clean(s: &str, max: usize) -> String {
    let one = crate::model::text::redact::redact(&crate::model::text::sanitize::single_line(s));
    crate::model::text::sanitize::cut_chars(&one, max)
}

/// The alert for `reason`; `detail` is the tool asked for, the question, the task.
pub(crate) fn compose(reason: AlertReason, who: &Who, detail: Option<&str>) -> Alert {
    let short = who
        .session
        .as_deref()
        .map(|s| s.chars().take(8).collect::<String>());
    let name = match (&who.agent, &short) {
        (Some(a), Some(s)) => format!("{} ({s})", clean(a, 40)),
        (Some(a), None) => clean(a, 40),
        (None, Some(s)) => format!("session {s}"),
        (None, None) => "a session".to_owned(),
    };
    let detail = detail
        .map(|d| clean(d, DETAIL_MAX))
        .filter(|d| !d.is_empty());
    let place = who
        .pane
        .as_deref()
        .map(|p| format!(" (tmux {})", clean(p, 12)))
        .unwrap_or_default();
    let (what, next) = match reason {
        AlertReason::Permission => (
            detail.map_or_else(
                || "waits for a permission".to_owned(),
                |t| format!("asks permission for {t}"),
            ),
            format!("answer it in its pane{place} or from forge tui"),
        ),
        AlertReason::Question => (
            detail.map_or_else(
                || "asks you a question".to_owned(),
                |q| format!("asks: {q}"),
            ),
            format!("answer it in its pane{place}"),
        ),
        AlertReason::TurnDone => (
            "finished its turn".to_owned(),
            format!("give it the next prompt{place}"),
        ),
        AlertReason::Blocked => (
            detail.map_or_else(
                || "is blocked on you".to_owned(),
                |t| format!("is blocked on you ({t})"),
            ),
            "answer with `forge signal resolve` or r in forge tui".to_owned(),
        ),
        AlertReason::RelayStopped => (
            detail.map_or_else(
                || "its relay stopped".to_owned(),
                |d| format!("its relay stopped: {d}"),
            ),
            "see `forge log --chain` and start it again with `forge run`".to_owned(),
        ),
    };
    Alert {
        title: format!("forge · {}", clean(&who.project, 40)),
        body: format!("{name} {what} — {next}"),
    }
}

/// What the environment says about where the person is: the terminal, the
/// desktop, what is installed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Place {
    /// `$TERM_PROGRAM`.
    pub(crate) term_program: Option<String>,
    /// `$TERM`.
    pub(crate) term: Option<String>,
    /// `$LC_TERMINAL` (iTerm2 sets it, and it crosses ssh and tmux).
    pub(crate) lc_terminal: Option<String>,
    /// `$KITTY_WINDOW_ID` is set.
    pub(crate) kitty: bool,
    /// `$WEZTERM_PANE` or `$GHOSTTY_RESOURCES_DIR` is set (they survive tmux).
    pub(crate) osc_terminal: bool,
    /// Inside tmux.
    pub(crate) tmux: bool,
    /// macOS.
    pub(crate) macos: bool,
    /// `$DISPLAY` or `$WAYLAND_DISPLAY` is set.
    pub(crate) desktop: bool,
    /// `notify-send` is on `$PATH`.
    pub(crate) notify_send: bool,
    /// `osascript` is on `$PATH`.
    pub(crate) osascript: bool,
}

/// How `via` delivers here: `auto` resolved by what [`Place`] says, the others as
/// they are.
pub(crate) fn delivery(via: AlertVia, place: &Place) -> AlertVia {
    if via != AlertVia::Auto {
        return via;
    }
    let is = |v: &Option<String>, names: &[&str]| {
        v.as_deref()
            .is_some_and(|t| names.iter().any(|n| t.eq_ignore_ascii_case(n)))
    };
    let term_has = |word: &str| place.term.as_deref().is_some_and(|t| t.contains(word));
    if is(&place.term_program, &["iTerm.app", "WezTerm", "ghostty"])
        || is(&place.lc_terminal, &["iTerm2"])
        || place.kitty
        || place.osc_terminal
        || term_has("kitty")
        || term_has("ghostty")
        || term_has("wezterm")
    {
        return AlertVia::Osc9;
    }
    if term_has("foot") || term_has("rxvt") {
        return AlertVia::Osc777;
    }
    if place.macos && place.osascript {
        return AlertVia::Osascript;
    }
    if place.desktop && place.notify_send {
        return AlertVia::NotifySend;
    }
    AlertVia::Bell
}

/// The bytes written to the terminal for `via` (an escape, or the bell), wrapped
/// for tmux's passthrough (`\ePtmux;…\e\\`, each ESC doubled) when inside tmux;
/// `None` for the deliveries that run a program. Text is cleaned: no control
/// character, no `;` in OSC 777's title (its field separator).
pub(crate) fn terminal_bytes(via: AlertVia, alert: &Alert, tmux: bool) -> Option<String> {
    let strip = |s: &str| -> String { s.chars().filter(|c| !c.is_control()).collect() };
    let seq = match via {
        AlertVia::Osc9 => format!("\x1b]9;{}: {}\x07", strip(&alert.title), strip(&alert.body)),
        AlertVia::Osc777 => format!(
            "\x1b]777;notify;{};{}\x07",
            strip(&alert.title).replace(';', ","),
            strip(&alert.body)
        ),
        AlertVia::Bell => "\x07".to_owned(),
        AlertVia::Auto | AlertVia::NotifySend | AlertVia::Osascript => return None,
    };
    if tmux && via != AlertVia::Bell {
        return Some(format!(
            "\x1bPtmux;{}\x1b\\",
            seq.replace('\x1b', "\x1b\x1b")
        ));
    }
    Some(seq)
}

/// The AppleScript string literal of `s`.
pub(crate) fn applescript_string(s: &str) -> String {
    let clean: String = s.chars().filter(|c| !c.is_control()).collect();
    format!("\"{}\"", clean.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Whether an alert for this session and reason was sent within `span` before
/// `now` (then this one is not sent).
pub(crate) fn debounced(last: Option<DateTime<Utc>>, now: DateTime<Utc>, span: Duration) -> bool {
    last.is_some_and(|t| now >= t && now - t < span)
}

/// Whether the pane is what the person looks at: the active pane of the active
/// window of a tmux session some client is attached to (`#{pane_active}
/// #{window_active} #{session_attached}`, as tmux prints them).
pub(crate) fn in_view(answer: &str) -> bool {
    let mut it = answer.split_whitespace();
    let flag = |v: Option<&str>| v.and_then(|s| s.parse::<u32>().ok()).unwrap_or(0);
    let (pane, window, attached) = (flag(it.next()), flag(it.next()), flag(it.next()));
    pane == 1 && window == 1 && attached > 0
}

/// The key of a session and reason in the debounce file.
pub(crate) fn debounce_key(session: Option<&str>, reason: AlertReason) -> String {
    format!("{}:{}", session.unwrap_or("-"), reason.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who() -> Who {
        Who {
            project: "acme-api".into(),
            agent: Some("builder".into()),
            session: Some("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21".into()),
            pane: Some("%3".into()),
        }
    }

    #[test]
    fn an_alert_names_the_project_the_session_the_reason_and_the_next_step() {
        let a = compose(AlertReason::Permission, &who(), Some("Bash"));
        assert_eq!(a.title, "forge · acme-api");
        assert_eq!(
            a.body,
            "builder (3f0c2a9e) asks permission for Bash — answer it in its pane (tmux %3) or from forge tui"
        );
        let bare = Who {
            project: "web".into(),
            session: Some("b71d04f6-0000".into()),
            ..Who::default()
        };
        assert_eq!(
            compose(AlertReason::TurnDone, &bare, None).body,
            "session b71d04f6 finished its turn — give it the next prompt"
        );
        // What a file or session said is cleaned and redacted.
        let a = compose(
            AlertReason::Question,
            &bare,
            Some("\x1b]0;x\x07pick one\nsk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"),
        );
        assert!(!a.body.contains('\x1b') && !a.body.contains('\n'), "{a:?}");
        assert!(!a.body.contains("AAAAAAAAAAAAAAAA"), "{a:?}");
    }

    #[test]
    fn events_map_to_reasons() {
        let n = HookEvent::Notification {
            kind: None,
            message: None,
        };
        assert_eq!(
            reason_of(&n, Some("permission_prompt"), None),
            Some(AlertReason::Permission)
        );
        assert_eq!(
            reason_of(&n, Some("elicitation_dialog"), None),
            Some(AlertReason::Question)
        );
        assert_eq!(
            reason_of(&n, Some("idle_prompt"), None),
            Some(AlertReason::TurnDone)
        );
        assert_eq!(reason_of(&n, Some("auth_success"), None), None);
        assert_eq!(
            reason_of(&HookEvent::PreToolUse, None, Some("AskUserQuestion")),
            Some(AlertReason::Question)
        );
        assert_eq!(reason_of(&HookEvent::PreToolUse, None, Some("Bash")), None);
        assert_eq!(
            reason_of(
                &HookEvent::Stop {
                    stop_hook_active: true
                },
                None,
                None
            ),
            None,
            "a turn a Stop hook continues is not over"
        );
    }

    #[test]
    fn auto_picks_the_terminal_escape_then_the_desktop_then_the_bell() {
        let p = |f: &dyn Fn(&mut Place)| {
            let mut place = Place::default();
            f(&mut place);
            delivery(AlertVia::Auto, &place)
        };
        assert_eq!(
            p(&|x| x.term_program = Some("iTerm.app".into())),
            AlertVia::Osc9
        );
        assert_eq!(p(&|x| x.kitty = true), AlertVia::Osc9);
        assert_eq!(p(&|x| x.term = Some("foot".into())), AlertVia::Osc777);
        assert_eq!(
            p(&|x| {
                x.macos = true;
                x.osascript = true;
            }),
            AlertVia::Osascript
        );
        assert_eq!(
            p(&|x| {
                x.desktop = true;
                x.notify_send = true;
            }),
            AlertVia::NotifySend
        );
        assert_eq!(
            p(&|x| x.notify_send = true),
            AlertVia::Bell,
            "no desktop to show it"
        );
        assert_eq!(p(&|_| {}), AlertVia::Bell);
        assert_eq!(
            delivery(AlertVia::NotifySend, &Place::default()),
            AlertVia::NotifySend
        );
    }

    #[test]
    fn escapes_are_clean_and_wrapped_for_tmux() {
        let a = Alert {
            title: "forge · a;b".into(),
            body: "x\x07y".into(),
        };
        assert_eq!(
            terminal_bytes(AlertVia::Osc9, &a, false).unwrap(),
            "\x1b]9;forge · a;b: xy\x07"
        );
        assert_eq!(
            terminal_bytes(AlertVia::Osc777, &a, false).unwrap(),
            "\x1b]777;notify;forge · a,b;xy\x07"
        );
        assert_eq!(
            terminal_bytes(AlertVia::Osc9, &a, true).unwrap(),
            "\x1bPtmux;\x1b\x1b]9;forge · a;b: xy\x07\x1b\\"
        );
        assert_eq!(terminal_bytes(AlertVia::Bell, &a, true).unwrap(), "\x07");
        assert_eq!(terminal_bytes(AlertVia::NotifySend, &a, false), None);
        assert_eq!(
            applescript_string("say \"hi\" \\ ok\n"),
            "\"say \\\"hi\\\" \\\\ ok\""
        );
    }

    #[test]
    fn debounce_and_the_pane_in_view() {
        let t = DateTime::parse_from_rfc3339("2026-11-21T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let span = Duration::seconds(60);
        assert!(!debounced(None, t, span));
        assert!(debounced(Some(t - Duration::seconds(59)), t, span));
        assert!(!debounced(Some(t - Duration::seconds(60)), t, span));
        // A time in the future (a clock set back) does not silence alerts.
        assert!(!debounced(Some(t + Duration::seconds(5)), t, span));
        assert!(in_view("1 1 1\n"));
        assert!(in_view("1 1 2"));
        assert!(!in_view("1 1 0"), "nobody attached");
        assert!(!in_view("0 1 1"), "another pane of the window");
        assert!(!in_view("1 0 1"), "another window");
        assert!(!in_view(""));
    }
}
