//! Delivering an alert to the person (`[alerts]`, docs/alerts.md): the debounce
//! (one per session and reason within `[alerts] debounce`, in `logs/alerts.json`),
//! the pane in view (tmux: never for the pane the person is looking at), and the
//! delivery — an escape written to the controlling terminal (`/dev/tty`; through
//! tmux's passthrough inside tmux), or `notify-send` / `osascript` run through
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

/// Sends `alert` by `via` (resolved); `Ok` with how it went, `Err` why not.
pub(crate) fn deliver(env: &Env, via: AlertVia, alert: &Alert) -> Result<AlertVia, String> {
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
            write_tty(bytes.as_bytes())?;
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

/// Writes `bytes` to the controlling terminal, never blocking (a terminal that
/// does not take them at once loses them).
#[allow(clippy::disallowed_methods)] // `/dev/tty` is the person's terminal, not a file under `.forge/`: opened write-only, non-blocking, never as a controlling terminal.
fn write_tty(bytes: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut tty = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/tty")
        .map_err(|e| format!("no terminal to write to (/dev/tty: {e})"))?;
    tty.write_all(bytes)
        .map_err(|e| format!("the terminal did not take it: {e}"))
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
        return skipped(format!(
            "one was sent {} ago (debounce {})",
            crate::model::time::age(env.now, last),
            cfg.debounce
        ));
    }
    if let Some(id) = pane.id.as_deref()
        && pane_in_view(env, id, pane.socket.as_deref()) == Some(true)
    {
        return skipped(format!("its tmux pane {id} is the one you are looking at"));
    }
    let alert = compose(reason, who, detail);
    let outcome = match deliver(env, cfg.via, &alert) {
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
