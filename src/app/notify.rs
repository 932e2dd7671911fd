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
/// for): the hook returns at once.
pub fn send_async(env: &Env, cfg: &NotifyConfig, message: &str, cwd: &std::path::Path) -> Outcome {
    let label = crate::model::user_hooks::command_label(&cfg.command.join(" "));
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
/// reply)`, the reply only when it exited 0.
pub fn send_and_wait(
    env: &Env,
    cfg: &NotifyConfig,
    message: &str,
    cwd: &std::path::Path,
) -> (Outcome, Option<String>) {
    // The same runner as the user's context hooks, with the argv quoted for sh (the
    // program already found, as for an async message).
    let label = crate::model::user_hooks::command_label(&cfg.command.join(" "));
    let program = match cfg.command.first().map(|p| env.resolve_program(p)) {
        Some(Ok(p)) => p.to_string_lossy().into_owned(),
        Some(Err(why)) => return (failed(&label, why), None),
        None => return (failed(&label, "no [notify] command".to_owned()), None),
    };
    let mut words: Vec<String> = std::iter::once(program.as_str())
        .chain(cfg.command.iter().skip(1).map(String::as_str))
        .map(sh_quote)
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
    let ran = super::user_hooks::run_with(
        env,
        "notify",
        &hook,
        if cfg.stdin { message } else { "" },
        &[("FORGE_MESSAGE", message)],
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

/// `word` quoted for `sh`.
fn sh_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The pane's name (`session:window.pane`) and its last `lines` lines, cleaned, when
/// inside tmux; one `tmux` call each, at most 500 ms.
pub fn pane(env: &crate::env::Env, lines: usize) -> (Option<String>, Vec<String>) {
    let Some(target) = env.tmux_pane.as_deref().filter(|_| env.tmux) else {
        return (None, Vec::new());
    };
    let name = tmux(env, &["display-message", "-p", "-t", target, "#S:#I.#P"])
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    if lines == 0 {
        return (name, Vec::new());
    }
    let start = format!("-{lines}");
    let text = tmux(
        env,
        &["capture-pane", "-p", "-J", "-t", target, "-S", &start],
    )
    .unwrap_or_default();
    let mut rows: Vec<String> = text
        .lines()
        .map(|l| crate::model::text::single_line(l).trim_end().to_owned())
        .collect();
    while rows.last().is_some_and(String::is_empty) {
        rows.pop();
    }
    let skip = rows.len().saturating_sub(lines);
    (name, rows.split_off(skip))
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
