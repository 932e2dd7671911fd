//! Delivering an alert to the person (`[alerts]`, docs/alerts.md): the debounce
//! (one per session and reason within `[alerts] debounce`, in `logs/alerts.json`),
//! the pane in view (tmux: never for the pane the person is looking at), and the
//! delivery — an escape written to the session's terminal (the controlling one, else
//! the client's own tty: hooks have no controlling terminal; through tmux's
//! passthrough inside tmux), or `notify-send` / `osascript` run through
//! `proc` with a deadline. Nothing here blocks a hook for long: every child has
//! [`CHILD_DEADLINE`], tmux [`crate::tmux::WAIT`].

use std::collections::BTreeMap;
use std::io::Write as _;
use std::time::Duration;

use crate::config::sections::AlertsConfig;
use crate::env::Env;
use crate::model::agents::alert::{
    Alert, AlertReason, AlertVia, Place, Who, applescript_string, compose, debounce_key, debounced,
    delivery, in_view, terminal_bytes,
};
use crate::model::outcome::Outcome;
use crate::proc::{Cmd, Input, Output};
use crate::store::Paths;

/// What `forge alerts` prints (and `forge doctor`'s alerts check says).
pub(crate) fn describe(cfg: &AlertsConfig, how: AlertVia) -> String {
    let on: Vec<&str> = cfg.on.iter().map(|r| r.name()).collect();
    let off: Vec<&str> = AlertReason::ALL
        .iter()
        .filter(|r| !cfg.on.contains(r))
        .map(|r| r.name())
        .collect();
    let via = if cfg.via == AlertVia::Auto {
        format!("{} (auto)", how.name())
    } else {
        how.name().to_owned()
    };
    format!(
        "Alerts on: {}\nAlerts off: {}\nDelivered by: {via}\nDebounce: one per session and reason within {}\n",
        if on.is_empty() {
            "none".to_owned()
        } else {
            on.join(", ")
        },
        if off.is_empty() {
            "none".to_owned()
        } else {
            off.join(", ")
        },
        cfg.debounce
    )
}

/// `forge alerts test`: one alert sent now, the way a session's would go (no
/// debounce, no pane check), and logged in `events.jsonl` when the project has its
/// logs folder; the outcome says how it went.
pub(crate) fn send_test(paths: &Paths, env: &Env, via: AlertVia) -> Outcome {
    let project = paths
        .root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let alert = Alert {
        title: format!("forge · {project}"),
        body: "a test alert from `forge alerts test` — nothing to do".to_owned(),
    };
    let outcome = match deliver(env, via, &alert, Reach::Controlling) {
        Ok(via) => Outcome::AlertSent {
            reason: "test".to_owned(),
            via: via.name().to_owned(),
            text: alert.body.clone(),
        },
        Err(why) => Outcome::AlertFailed {
            reason: "test".to_owned(),
            why,
        },
    };
    if paths.logs().is_dir() {
        let _ = crate::store::files::append_event(
            paths,
            &crate::model::session::state::EventLine {
                time: crate::model::time::iso(env.now),
                event: "alerts".to_owned(),
                session: None,
                facts: serde_json::Map::new(),
                outcomes: vec![outcome.clone()],
            },
        );
    }
    outcome
}

/// How long `notify-send` or `osascript` may take.
pub(crate) const CHILD_DEADLINE: Duration = Duration::from_secs(2);

/// The most entries the debounce file keeps (the newest).
const SENT_MAX: usize = 200;

/// What the environment says about the person's terminal and desktop.
pub(crate) fn place(env: &Env) -> Place {
    let t = &env.terminal;
    Place {
        term_program: t.term_program.clone(),
        term: t.term.clone(),
        lc_terminal: t.lc_terminal.clone(),
        kitty: t.kitty,
        osc_terminal: t.osc_terminal,
        tmux: env.tmux,
        macos: cfg!(target_os = "macos"),
        desktop: t.desktop,
        notify_send: env.find_program("notify-send").is_some(),
        osascript: env.find_program("osascript").is_some(),
    }
}

/// How alerts are delivered here (`[alerts] via`, `auto` resolved).
pub(crate) fn resolved(env: &Env, via: AlertVia) -> AlertVia {
    delivery(via, &place(env))
}

/// Which terminal a terminal alert (OSC 9/777, the bell) may be written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Reach {
    /// Only the terminal the client writes to (`$CLAUDE_PID`'s): a hook's. The real
    /// client gives hooks no controlling terminal, so a hook that has one was started
    /// by something else — a person by hand, a test runner — and an alert meant for
    /// the client's screen must not ring there.
    Client,
    /// The controlling terminal first, then the client's: a command the person (or
    /// an agent's tool call) ran, such as `forge alerts test` or `forge signal`.
    #[default]
    Controlling,
}

/// Sends `alert` by `via` (resolved); `Ok` with how it went, `Err` why not.
pub(crate) fn deliver(
    env: &Env,
    via: AlertVia,
    alert: &Alert,
    reach: Reach,
) -> Result<AlertVia, String> {
    let how = resolved(env, via);
    match how {
        AlertVia::NotifySend => {
            let mut cmd = Cmd::resolve(env, "notify-send").map_err(|e| e.to_string())?;
            cmd.args([
                "--app-name=forge",
                alert.title.as_str(),
                alert.body.as_str(),
            ]);
            run(cmd, "notify-send")?;
        }
        AlertVia::Osascript => {
            let mut cmd = Cmd::resolve(env, "osascript").map_err(|e| e.to_string())?;
            let script = format!(
                "display notification {} with title {}",
                applescript_string(&alert.body),
                applescript_string(&alert.title)
            );
            cmd.args(["-e", script.as_str()]);
            run(cmd, "osascript")?;
        }
        AlertVia::Auto | AlertVia::Osc9 | AlertVia::Osc777 | AlertVia::Bell => {
            let bytes = terminal_bytes(how, alert, env.tmux).unwrap_or_default();
            write_tty(env, bytes.as_bytes(), reach)?;
        }
    }
    Ok(how)
}

fn run(mut cmd: Cmd, name: &str) -> Result<(), String> {
    let done = cmd
        .stdin(Input::Null)
        .stdout(Output::Null)
        .stderr(Output::Capture(2048))
        .run_for(CHILD_DEADLINE)
        .map_err(|e| format!("cannot run {name}: {e}"))?;
    if done.timed_out() {
        return Err(format!(
            "{name} did not finish within {} s (stopped)",
            CHILD_DEADLINE.as_secs()
        ));
    }
    if !done.success() {
        return Err(format!(
            "{name} failed ({}): {}",
            done.status()
                .and_then(|s| s.code())
                .map_or_else(|| "killed".to_owned(), |c| format!("exit status {c}")),
            crate::model::text::sanitize::single_line(done.stderr.text().trim())
        ));
    }
    Ok(())
}

/// Writes `bytes` to the session's terminal, never blocking (a terminal that does
/// not take them at once loses them): the controlling terminal when there is one,
/// else the terminal the client itself writes to — Claude Code runs its hooks
/// without a controlling terminal (seen with 2.1.330: `/dev/tty` is ENXIO), so the
/// tty of `$CLAUDE_PID`'s stdout, stderr or stdin (a `/dev/pts/N` or `/dev/ttyN`,
/// the pane's inside tmux).
fn write_tty(env: &Env, bytes: &[u8], reach: Reach) -> Result<(), String> {
    let mut tried = Vec::new();
    let mut candidates = Vec::new();
    if reach == Reach::Controlling {
        candidates.push(std::path::PathBuf::from("/dev/tty"));
    }
    if let Some(pid) = env.claude_pid {
        for fd in [1, 2, 0] {
            if let Ok(target) = std::fs::read_link(format!("/proc/{pid}/fd/{fd}"))
                && is_terminal_path(&target)
            {
                candidates.push(target);
            }
        }
    }
    for path in candidates {
        match open_tty(&path) {
            Ok(mut tty) => {
                return tty
                    .write_all(bytes)
                    .map_err(|e| format!("the terminal did not take it: {e}"));
            }
            Err(e) => tried.push(format!("{}: {e}", path.display())),
        }
    }
    Err(format!("no terminal to write to ({})", tried.join("; ")))
}

/// A terminal device's path: `/dev/pts/N` or `/dev/ttyN` (never another file a
/// process has open).
fn is_terminal_path(p: &std::path::Path) -> bool {
    let s = p.to_string_lossy();
    s.starts_with("/dev/pts/") || (s.starts_with("/dev/tty") && s != "/dev/tty")
}

/// Opens a terminal device write-only, non-blocking, never as a controlling
/// terminal; anything but a character device is refused.
#[allow(clippy::disallowed_methods)] // a terminal device, not a file under `.forge/`: opened write-only, non-blocking, never as a controlling terminal, checked to be a character device.
fn open_tty(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !f.metadata()?.file_type().is_char_device() {
        return Err(std::io::Error::other("not a terminal"));
    }
    Ok(f)
}

/// Whether the session's tmux pane is the one the person looks at (`None`: it
/// cannot be known — not in tmux, or tmux did not answer).
pub(crate) fn pane_in_view(env: &Env, pane: &str, socket: Option<&str>) -> Option<bool> {
    crate::tmux::ask(
        env,
        socket,
        &[
            "display-message",
            "-p",
            "-t",
            pane,
            "#{pane_active} #{window_active} #{session_attached}",
        ],
        crate::tmux::WAIT,
    )
    .ok()
    .map(|a| in_view(&a))
}

/// Where the session runs, to be asked whether it is in view.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pane {
    /// `%N`.
    pub(crate) id: Option<String>,
    /// Its server's socket.
    pub(crate) socket: Option<String>,
    /// Which terminal a terminal alert may go to.
    pub(crate) reach: Reach,
}

/// Alerts the person for `reason` unless debounced, in view or off: the outcome
/// says which (recorded in the event log by the caller).
pub(crate) fn send(
    paths: &Paths,
    env: &Env,
    cfg: &AlertsConfig,
    reason: AlertReason,
    who: &Who,
    pane: &Pane,
    detail: Option<&str>,
) -> Option<Outcome> {
    if !cfg.on.contains(&reason) {
        return None;
    }
    let skipped = |why: String| {
        Some(Outcome::AlertSkipped {
            reason: reason.name().to_owned(),
            why,
        })
    };
    let key = debounce_key(who.session.as_deref(), reason);
    let mut sent: BTreeMap<String, String> =
        crate::store::read_json(&paths.alerts_sent()).unwrap_or_default();
    let last = sent
        .get(&key)
        .and_then(|t| crate::model::time::parse_iso(t));
    if debounced(last, env.now, cfg.debounce.get()) {
        let age = crate::model::time::age(env.now, last);
        let when = if age == "now" {
            "just now".to_owned()
        } else {
            format!("{age} ago")
        };
        return skipped(format!("one was sent {when} (debounce {})", cfg.debounce));
    }
    if let Some(id) = pane.id.as_deref()
        && pane_in_view(env, id, pane.socket.as_deref()) == Some(true)
    {
        return skipped(format!("its tmux pane {id} is the one you are looking at"));
    }
    let alert = compose(reason, who, detail);
    let outcome = match deliver(env, cfg.via, &alert, pane.reach) {
        Ok(via) => Outcome::AlertSent {
            reason: reason.name().to_owned(),
            via: via.name().to_owned(),
            text: alert.body.clone(),
        },
        Err(why) => Outcome::AlertFailed {
            reason: reason.name().to_owned(),
            why,
        },
    };
    sent.insert(key, crate::model::time::iso(env.now));
    // The newest SENT_MAX entries (ISO times sort as text).
    if sent.len() > SENT_MAX {
        let mut by_time: Vec<(String, String)> = sent.into_iter().collect();
        by_time.sort_by(|a, b| b.1.cmp(&a.1));
        by_time.truncate(SENT_MAX);
        sent = by_time.into_iter().collect();
    }
    if paths.logs().is_dir() {
        let _ = crate::store::write_json(&paths.alerts_sent(), &sent);
    }
    Some(outcome)
}

/// Forgets the session's debounce entries (its turn started again: the next
/// prompt or question is news).
pub(crate) fn forget(paths: &Paths, session: &str) {
    let file = paths.alerts_sent();
    let Some(mut sent) = crate::store::read_json::<BTreeMap<String, String>>(&file) else {
        return;
    };
    let prefix = format!("{session}:");
    let before = sent.len();
    sent.retain(|k, _| !k.starts_with(&prefix));
    if sent.len() != before {
        let _ = crate::store::write_json(&file, &sent);
    }
}
