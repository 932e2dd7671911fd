//! Sending a wake message: the `[notify]` command with the message as its last
//! argument (or on stdin), started detached (async) or waited for up to its timeout
//! (a bidirectional Stop, whose reply may keep the session working). And the tmux
//! pane's last lines, when inside tmux.

use std::io::{Seek, Write};

use crate::config::{NotifyConfig, UserHook};
use crate::env::Env;
use crate::model::outcome::Outcome;
use crate::model::setup::settings::shell_quote_always;
use crate::proc::{Cmd, Input};

/// The command with the message (as its last argument, unless it goes on stdin), its
/// program found through the absolute folders of `$PATH` only.
fn command(env: &Env, cfg: &NotifyConfig, message: &str) -> Result<Cmd, String> {
    let (program, args) = cfg
        .command
        .split_first()
        .ok_or_else(|| "no [notify] command".to_owned())?;
    let mut cmd = Cmd::resolve(env, program).map_err(|e| e.to_string())?;
    cmd.absolute_path(env).args(args);
    if !cfg.stdin {
        cmd.arg(message);
    }
    Ok(cmd)
}

/// Starts the command detached (its own process group, no output kept, not waited
/// for): the hook returns at once. `agent` becomes its `FORGE_AGENT`.
pub(crate) fn send_async(
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
            Ok(f) => Input::File(f),
            Err(e) => return failed(&label, format!("could not stage the message: {e}")),
        }
    } else {
        Input::Null
    };
    cmd.current_dir(cwd).stdin(stdin);
    if let Some(a) = agent {
        cmd.env("FORGE_AGENT", a);
    }
    match cmd.detach() {
        Ok(_) => Outcome::Notified {
            event: String::new(),
            mode: "async".to_owned(),
        },
        Err(e) => failed(&label, format!("could not start it: {e}")),
    }
}

/// Runs the command and waits for its reply (stdout) up to the timeout: `(outcome,
/// reply)`, the reply only when it exited 0. `agent` becomes its `FORGE_AGENT`.
pub(crate) fn send_and_wait(
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
        "[notify] timeout_secs",
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
pub(crate) fn pane(env: &crate::env::Env, lines: usize) -> (Option<String>, Vec<String>) {
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

/// tmux's answer to `args`, within [`crate::tmux::WAIT`].
fn tmux(env: &Env, args: &[&str]) -> Option<String> {
    crate::tmux::ask(env, None, args, crate::tmux::WAIT).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_past_its_timeout_names_the_key_that_set_it() {
        let t = tempfile::tempdir().unwrap();
        let env = Env::for_test(t.path(), t.path());
        let cfg = NotifyConfig {
            command: vec!["/bin/sleep".to_owned(), "5".to_owned()],
            stdin: true,
            timeout_secs: 1,
            ..NotifyConfig::default()
        };
        let (outcome, reply) = send_and_wait(&env, &cfg, "wake", t.path(), None);
        assert_eq!(reply, None);
        let text = format!("{outcome:?}");
        assert!(
            text.contains("still running after 1 s ([notify] timeout_secs)"),
            "{text}"
        );
    }

    #[test]
    fn a_long_pane_capture_is_read_whole_never_left_on_a_full_pipe() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let bin = t.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        // About 230 KB of capture: more than a pipe holds (64 KiB), so a tmux
        // whose output is read only after it exits never exits.
        std::fs::write(
            bin.join("tmux"),
            "#!/bin/sh\ncase \"$*\" in\n*display-message*) echo '%3 work:1.0' ;;\n\
             *capture-pane*) i=0; while [ $i -lt 3000 ]; do \
             echo \"line $i ..........................................................\"; \
             i=$((i+1)); done ;;\nesac\n",
        )
        .unwrap();
        std::fs::set_permissions(bin.join("tmux"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut env = Env::for_test(t.path(), t.path());
        env.tmux = true;
        env.tmux_pane = Some("%3".into());
        env.path = Some(std::env::join_paths([bin.to_str().unwrap(), "/usr/bin", "/bin"]).unwrap());
        let (name, rows) = pane(&env, 3);
        assert_eq!(name.as_deref(), Some("work:1.0"));
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert!(rows[2].starts_with("line 2999 "), "{rows:?}");
    }

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
