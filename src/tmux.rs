//! Asking the tmux server, through the `proc` room: one runner for every question
//! forge asks it (the agent's name, a pane's name and last lines, switching the
//! client to a pane). `tmux` is found in an absolute folder of `$PATH` only, never
//! as a `./tmux` of the project.

use std::time::Duration;

use crate::env::Env;
use crate::proc::{Cmd, Error, Output};

/// The most of tmux's answer that is read.
const ANSWER_CAP: usize = 256 * 1024;

/// How long forge waits for tmux when asking about its own pane.
pub(crate) const WAIT: Duration = Duration::from_millis(500);

/// Runs `tmux [-S SOCKET] ARGS` for at most `timeout`: `Ok` with its stdout (lossy
/// UTF-8, at most 256 KiB) when it exits 0, else `Err` saying why (tmux's own
/// words on stderr when it failed).
pub(crate) fn ask(
    env: &Env,
    socket: Option<&str>,
    args: &[&str],
    timeout: Duration,
) -> Result<String, String> {
    let mut cmd = Cmd::resolve(env, "tmux").map_err(|e| e.to_string())?;
    if let Some(s) = socket {
        cmd.args(["-S", s]);
    }
    let done = cmd
        .args(args)
        .stdout(Output::Capture(ANSWER_CAP))
        .stderr(Output::Capture(4096))
        .run_for(timeout)
        .map_err(|e| match e {
            Error::Wait { .. } => e.to_string(),
            _ => format!("cannot run tmux: {e}"),
        })?;
    if done.timed_out() {
        return Err(format!(
            "tmux did not answer within {}",
            match timeout.as_millis() {
                1000 => "a second".to_owned(),
                ms => format!("{ms} ms"),
            }
        ));
    }
    if done.success() {
        Ok(done.stdout.text())
    } else {
        Err(format!("tmux: {}", done.stderr.text().trim()))
    }
}

impl Env {
    /// Where this process runs in tmux, from its environment alone: its pane (`%N`,
    /// `$TMUX_PANE`) and the server's socket (the first part of `$TMUX`); both
    /// `None` outside tmux.
    pub(crate) fn tmux_place(&self) -> (Option<String>, Option<String>) {
        if !self.tmux {
            return (None, None);
        }
        (
            self.tmux_pane
                .clone()
                .filter(|p| crate::model::agents::fleet::is_pane_id(p)),
            self.tmux_socket
                .as_ref()
                .and_then(|p| p.to_str().map(str::to_owned)),
        )
    }

    /// The agent this process runs as, for `[agents.<name>]` settings: `$FORGE_AGENT`,
    /// else the name of the tmux session this process's pane (`$TMUX_PANE`) is in
    /// (inside tmux; one `tmux display-message`, at most 500 ms, once per process —
    /// or the name a hook call found recorded in its session's bridge, see
    /// `hooks::call`), else none.
    ///
    /// The question names the pane, and the answer counts only when it is about that
    /// very pane: once the pane is gone (`tmux kill-session`) tmux answers about
    /// whatever pane is current on the server, another session's.
    ///
    /// (A method of [`Env`] kept here, above `proc`: `env` is the floor `proc` stands
    /// on, so it runs no child itself.)
    pub(crate) fn agent_name(&self) -> Option<String> {
        if let Some(a) = &self.forge_agent {
            return Some(a.clone());
        }
        if !self.tmux {
            return None;
        }
        self.tmux_session
            .get_or_init(|| {
                let pane = self
                    .tmux_pane
                    .as_deref()
                    .filter(|p| crate::model::agents::fleet::is_pane_id(p))?;
                let out = ask(
                    self,
                    None,
                    &["display-message", "-p", "-t", pane, "#{pane_id} #S"],
                    WAIT,
                )
                .ok()?;
                let (id, name) = out.trim().split_once(' ')?;
                (id == pane && !name.is_empty() && name.len() <= 200).then(|| name.to_owned())
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// An environment inside tmux whose `tmux` is the script `body` (PATH: the fake
    /// first, then the system's folders for `sh` and friends).
    fn fake_tmux(dir: &Path, body: &str) -> Env {
        use std::os::unix::fs::PermissionsExt;
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let tmux = bin.join("tmux");
        std::fs::write(
            &tmux,
            format!("#!/bin/sh\n[ \"$1\" = --probe ] && exit 0\n{body}\n"),
        )
        .unwrap();
        std::fs::set_permissions(&tmux, std::fs::Permissions::from_mode(0o755)).unwrap();
        // A script just written can fail to start for a moment ("text file busy")
        // while a child forked by another test thread still holds the writer's fd:
        // wait until it runs, so the test measures tmux's answer and not that race.
        for _ in 0..200 {
            if std::process::Command::new(&tmux)
                .arg("--probe")
                .status()
                .is_ok_and(|s| s.success())
            {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut env = Env::for_test(dir, dir);
        env.tmux = true;
        env.path = Some(
            std::env::join_paths([bin.as_path(), Path::new("/usr/bin"), Path::new("/bin")])
                .unwrap(),
        );
        env
    }

    #[test]
    fn the_agent_is_forge_agent_else_the_tmux_sessions_name() {
        let t = tempfile::tempdir().unwrap();
        let mut env = fake_tmux(
            t.path(),
            r#"[ "$*" = "display-message -p -t %3 #{pane_id} #S" ] && echo '%3 builder'"#,
        );
        env.tmux_pane = Some("%3".into());
        assert_eq!(env.agent_name().as_deref(), Some("builder"));
        env.forge_agent = Some("reviewer".into());
        assert_eq!(env.agent_name().as_deref(), Some("reviewer"));
        env.forge_agent = None;
        env.tmux = false;
        assert_eq!(env.agent_name(), None, "outside tmux nothing is asked");
    }

    #[test]
    fn the_session_name_is_asked_once_per_process() {
        let t = tempfile::tempdir().unwrap();
        let asked = t.path().join("asked");
        let mut env = fake_tmux(
            t.path(),
            &format!("echo x >> '{}'; echo '%3 builder'", asked.display()),
        );
        env.tmux_pane = Some("%3".into());
        assert_eq!(env.agent_name().as_deref(), Some("builder"));
        assert_eq!(env.agent_name().as_deref(), Some("builder"));
        assert_eq!(std::fs::read_to_string(&asked).unwrap(), "x\n");
    }

    #[test]
    fn a_gone_pane_names_no_agent_though_tmux_answers_about_another() {
        let t = tempfile::tempdir().unwrap();
        // After `tmux kill-session` of the session that held %3, tmux answers a
        // question about %3 with whatever pane is current: another session's.
        let mut env = fake_tmux(t.path(), "echo '%9 keep'");
        env.tmux_pane = Some("%3".into());
        assert_eq!(env.agent_name(), None);
        // Without a pane of its own to ask about, nothing is asked.
        let mut env = fake_tmux(t.path(), "echo '%3 builder'");
        env.tmux_pane = None;
        assert_eq!(env.agent_name(), None);
    }

    #[test]
    fn a_failing_or_silent_tmux_is_an_answer_in_words_within_the_wait() {
        let t = tempfile::tempdir().unwrap();
        let env = fake_tmux(t.path(), "echo 'no server running' >&2; exit 1");
        assert_eq!(
            ask(&env, None, &["list-sessions"], WAIT),
            Err("tmux: no server running".to_owned())
        );
        assert_eq!(env.agent_name(), None);
        let env = fake_tmux(t.path(), "exec sleep 30");
        let started = std::time::Instant::now();
        assert_eq!(
            ask(&env, None, &["x"], Duration::from_secs(1)),
            Err("tmux did not answer within a second".to_owned())
        );
        assert_eq!(env.agent_name(), None);
        assert!(started.elapsed() < Duration::from_secs(5));
        // The socket goes first; tmux is never taken from a relative PATH entry.
        let mut env = fake_tmux(t.path(), r#"echo "$*""#);
        assert_eq!(
            ask(&env, Some("/tmp/s"), &["a", "b"], WAIT).as_deref(),
            Ok("-S /tmp/s a b\n")
        );
        env.path = Some("bin".into());
        let why = ask(&env, None, &["a"], WAIT).unwrap_err();
        assert!(why.contains("absolute folder"), "{why}");
    }
}
