//! Sending a wake message: the `[notify]` command with the message as its last
//! argument (or on stdin), started detached (async) or waited for up to its timeout
//! (a bidirectional Stop, whose reply may keep the session working). And the tmux
//! pane's last lines, when inside tmux.

use std::io::{Seek, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::config::{NotifyConfig, UserHook};
use crate::env::Env;
use crate::model::outcome::Outcome;
use crate::model::setup::settings::shell_quote_always;

/// The command with the message (as its last argument, unless it goes on stdin), its
/// program found through the absolute folders of `$PATH` only.
fn command(env: &Env, cfg: &NotifyConfig, message: &str) -> Result<Command, String> {
    let (program, args) = cfg
        .command
        .split_first()
        .ok_or_else(|| "no [notify] command".to_owned())?;
    let mut cmd = Command::new(env.resolve_program(program)?);
    if let Some(path) = env.absolute_path_var() {
        cmd.env("PATH", path);
    }
    cmd.args(args);
    if !cfg.stdin {
        cmd.arg(message);
    }
    Ok(cmd)
}

/// Starts the command detached (its own process group, no output kept, not waited
/// for): the hook returns at once. `agent` becomes its `FORGE_AGENT`.
pub fn send_async(
    env: &Env,
    cfg: &NotifyConfig,
    message: &str,
    cwd: &std::path::Path,
    agent: Option<&str>,
) -> Outcome {
    let label = crate::model::agents::user_hooks::command_label(&cfg.command.join(" "));
    let mut cmd = match command(env, cfg, message) {
        Ok(c) => c,
        Err(why) => return failed(&label, why),
    };
    let stdin = if cfg.stdin {
        // From a file: the hook does not stay to feed a pipe.
        match tempfile::tempfile().and_then(|mut f| {
            f.write_all(message.as_bytes())?;
            f.rewind()?;
            Ok(f)
        }) {
            Ok(f) => Stdio::from(f),
            Err(e) => return failed(&label, format!("could not stage the message: {e}")),
        }
    } else {
        Stdio::null()
    };
    cmd.current_dir(cwd)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(a) = agent {
        cmd.env("FORGE_AGENT", a);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    match cmd.spawn() {
        Ok(_) => Outcome::Notified {
            event: String::new(),
            mode: "async".to_owned(),
        },
        Err(e) => failed(&label, format!("could not start it: {e}")),
    }
}

/// Runs the command and waits for its reply (stdout) up to the timeout: `(outcome,
/// reply)`, the reply only when it exited 0. `agent` becomes its `FORGE_AGENT`.
pub fn send_and_wait(
    env: &Env,
    cfg: &NotifyConfig,
    message: &str,
    cwd: &std::path::Path,
    agent: Option<&str>,
) -> (Outcome, Option<String>) {
    // The same runner as the user's context hooks, with the argv quoted for sh (the
    // program already found, as for an async message).
    let label = crate::model::agents::user_hooks::command_label(&cfg.command.join(" "));
    let program = match cfg.command.first().map(|p| env.resolve_program(p)) {
        Some(Ok(p)) => p.to_string_lossy().into_owned(),
        Some(Err(why)) => return (failed(&label, why), None),
        None => return (failed(&label, "no [notify] command".to_owned()), None),
    };
    let mut words: Vec<String> = std::iter::once(program.as_str())
        .chain(cfg.command.iter().skip(1).map(String::as_str))
        .map(shell_quote_always)
        .collect();
    if !cfg.stdin {
        words.push("\"$FORGE_MESSAGE\"".to_owned());
    }
    let hook = UserHook {
        command: words.join(" "),
        timeout_secs: cfg.timeout_secs,
        threshold: None,
        replace_handoff: false,
    };
    let mut vars = vec![("FORGE_MESSAGE", message)];
    if let Some(a) = agent {
        vars.push(("FORGE_AGENT", a));
    }
    let ran = super::user_hooks::run_with(
        env,
        "notify",
        &hook,
        if cfg.stdin { message } else { "" },
        &vars,
        cwd,
    );
    let outcome = match ran.outcome {
        Outcome::UserHookRan { exit: Some(0), .. } => Outcome::Notified {
            event: String::new(),
            mode: "bidirectional".to_owned(),
        },
        Outcome::UserHookRan { exit, .. } => failed(
            &label,
            match exit {
                Some(n) => format!("exited with {n}"),
                None => "killed by a signal".to_owned(),
            },
        ),
        Outcome::UserHookFailed { why, .. } => failed(&label, why),
        other => other,
    };
    (outcome, ran.stdout)
}

fn failed(label: &str, why: String) -> Outcome {
    Outcome::UserHookFailed {
        hook: "notify".to_owned(),
        command: label.to_owned(),
        why,
    }
}

/// The pane's name (`session:window.pane`) and its last `lines` lines, cleaned, runs
/// of blank lines squeezed, when inside tmux and the pane still exists; one `tmux`
/// call each, at most 500 ms.
///
/// tmux answers `display-message -t %N` even when pane `%N` is gone (after
/// `kill-session`, with `:.` — which as a target names whatever pane is current):
/// the answer counts only when it names the very pane asked about.
pub fn pane(env: &crate::env::Env, lines: usize) -> (Option<String>, Vec<String>) {
    let Some(target) = env.tmux_pane.as_deref().filter(|_| env.tmux) else {
        return (None, Vec::new());
    };
    let Some(name) = tmux(
        env,
        &["display-message", "-p", "-t", target, "#{pane_id} #S:#I.#P"],
    )
    .and_then(|s| pane_name(target, &s)) else {
        return (None, Vec::new());
    };
    if lines == 0 {
        return (Some(name), Vec::new());
    }
    let start = format!("-{lines}");
    let text = tmux(
        env,
        &["capture-pane", "-p", "-J", "-t", target, "-S", &start],
    )
    .unwrap_or_default();
    let rows: Vec<String> = text
        .lines()
        .map(|l| {
            crate::model::text::sanitize::single_line(l)
                .trim_end()
                .to_owned()
        })
        .collect();
    let mut rows = crate::model::agents::notify::squeeze_blank_runs(rows);
    let skip = rows.len().saturating_sub(lines);
    (Some(name), rows.split_off(skip))
}

/// The `session:window.pane` of tmux's answer `<pane id> <session>:<window>.<pane>`,
/// when it is about `pane` (`%N`) and names all three parts.
fn pane_name(pane: &str, answer: &str) -> Option<String> {
    let (id, name) = answer.trim().split_once(' ')?;
    let (session, rest) = name.rsplit_once(':')?;
    let (window, index) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (id == pane && !session.is_empty() && digits(window) && digits(index)).then(|| name.to_owned())
}

/// Runs the `tmux` found in an absolute folder of `$PATH` (never a `./tmux` of the
/// project) with `args`, for at most 500 ms.
fn tmux(env: &Env, args: &[&str]) -> Option<String> {
    let mut child = Command::new(env.resolve_program("tmux").ok()?)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_millis(500);
    loop {
        match child.try_wait() {
            Ok(Some(st)) if st.success() => break,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(child.stdout.take()?, 256 * 1024),
        &mut out,
    )
    .ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pane_name_counts_only_for_the_pane_asked_about() {
        assert_eq!(
            pane_name("%3", "%3 work:1.0\n").as_deref(),
            Some("work:1.0")
        );
        assert_eq!(
            pane_name("%3", "%3 my:session:2.1").as_deref(),
            Some("my:session:2.1")
        );
        // What tmux says about a pane that is gone.
        assert_eq!(pane_name("%3", " :."), None);
        assert_eq!(pane_name("%3", ":."), None);
        assert_eq!(pane_name("%3", "%7 other:0.0"), None);
        assert_eq!(pane_name("%3", "%3 work:x.0"), None);
        assert_eq!(pane_name("%3", ""), None);
    }
}
