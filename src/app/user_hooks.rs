//! Running the user's own commands on context events: `sh -c COMMAND` in the project
//! folder, the payload on stdin, stdout kept (capped), killed with its process group
//! at the timeout. A command that cannot start, fails or is slow is an outcome in
//! the event log; it never breaks a session.

use std::path::Path;
use std::time::Duration;

use crate::config::UserHook;
use crate::model::agents::user_hooks::command_label;
use crate::model::outcome::Outcome;
use crate::proc::{Cmd, Input, Output};
use crate::store::guard::Crossing;

/// How much of a command's stdout is kept.
pub(crate) const STDOUT_CAP: usize = 64 * 1024;

/// What a run left: the outcome for the event log, and stdout when it exited 0.
#[derive(Debug)]
pub(crate) struct Ran {
    /// For `events.jsonl`.
    pub(crate) outcome: Outcome,
    /// Its stdout (lossy UTF-8, at most [`STDOUT_CAP`] bytes) when it exited 0.
    pub(crate) stdout: Option<String>,
}

/// Runs `hook` (named `name`: `on_threshold`, `on_session_start`) with `payload` on
/// stdin, in `cwd`, for at most its `timeout_secs`. The payload's agent, when it
/// names one, is also `FORGE_AGENT` in the command's environment (so a script's own
/// `forge` calls run as that agent).
pub(crate) fn run(
    env: &crate::env::Env,
    name: &str,
    hook: &UserHook,
    payload: &serde_json::Value,
    cwd: &Path,
) -> Ran {
    let agent = payload
        .pointer("/session/agent_name")
        .and_then(serde_json::Value::as_str);
    let vars: Vec<(&str, &str)> = agent.map(|a| ("FORGE_AGENT", a)).into_iter().collect();
    let setting = format!("[[{name}]] timeout_secs");
    run_with(env, name, &setting, hook, &payload.to_string(), &vars, cwd)
}

/// [`run`] with `stdin` as the text on stdin and `vars` added to the environment;
/// `setting` is the key that set the timeout, as a message names it.
/// `sh` is found through the absolute folders of `$PATH` only
/// ([`crate::env::Env::resolve_program`]): never a `./sh` of the project.
pub(crate) fn run_with(
    env: &crate::env::Env,
    name: &str,
    setting: &str,
    hook: &UserHook,
    stdin: &str,
    vars: &[(&str, &str)],
    cwd: &Path,
) -> Ran {
    let label = command_label(&hook.command);
    let failed = |why: String| Ran {
        outcome: Outcome::UserHookFailed {
            hook: name.to_owned(),
            command: label.clone(),
            why,
        },
        stdout: None,
    };
    // The shell looks the command's words up in PATH: never in a relative folder.
    let mut cmd = match Cmd::shell(env, &hook.command) {
        Ok(c) => c,
        Err(why) => return failed(format!("could not start sh: {why}")),
    };
    // Its own process group, killed whole at the timeout; a background process it
    // left holding stdout gets what is left of the timeout.
    let ran = cmd
        .current_dir(cwd)
        .env("FORGE_HOOK", name)
        .envs(vars.iter().copied())
        .stdin(Input::Bytes(stdin.as_bytes().to_vec()))
        .stdout(Output::Capture(STDOUT_CAP))
        .run_for(Duration::from_secs(hook.timeout_secs));
    let done = match ran {
        Ok(done) => done,
        Err(e @ crate::proc::Error::Wait { .. }) => return failed(e.to_string()),
        Err(e) => return failed(format!("could not start sh: {e}")),
    };
    let Some(status) = done.status() else {
        return failed(format!(
            "still running after {} s ({setting}): stopped",
            hook.timeout_secs
        ));
    };
    let ms = u64::try_from(done.elapsed.as_millis()).unwrap_or(u64::MAX);
    Ran {
        outcome: Outcome::UserHookRan {
            hook: name.to_owned(),
            command: label,
            exit: status.code(),
            ms,
        },
        stdout: status.success().then(|| done.stdout.text()),
    }
}

/// The facts of `session_id` at a crossing, from its bridge.
pub(crate) fn threshold_facts(
    paths: &crate::store::Paths,
    env: &crate::env::Env,
    session_id: &str,
    handoff_path: Option<&Path>,
) -> crate::model::agents::user_hooks::ThresholdFacts {
    let b = crate::store::files::read_bridge(paths, session_id);
    crate::model::agents::user_hooks::ThresholdFacts {
        session_id: session_id.to_owned(),
        agent_name: env.agent_name(),
        working_directory: paths.root.display().to_string(),
        worktree_path: std::fs::symlink_metadata(paths.root.join(".git"))
            .is_ok()
            .then(|| paths.root.display().to_string()),
        transcript_path: b.as_ref().and_then(|b| b.transcript_path.clone()),
        input_tokens: b.as_ref().and_then(|b| b.tokens),
        context_window: b.as_ref().and_then(|b| b.context_window_size),
        used_pct: b
            .as_ref()
            .and_then(crate::model::session::state::SessionBridge::context_pct),
        model_name: b.as_ref().and_then(|b| b.model.clone()),
        handoff_path: handoff_path.map(|p| p.display().to_string()),
    }
}

/// Runs the `[[on_threshold]]` hooks `which` (indices) for one crossing of
/// `session_id`, and returns their outcomes (for the caller's event line).
pub(crate) fn fire_threshold(
    paths: &crate::store::Paths,
    env: &crate::env::Env,
    cfg: &crate::config::Config,
    session_id: &str,
    which: &[usize],
    handoff_path: Option<&Path>,
) -> Vec<Outcome> {
    if which.is_empty() {
        return Vec::new();
    }
    let payload = crate::model::agents::user_hooks::threshold_payload(&threshold_facts(
        paths,
        env,
        session_id,
        handoff_path,
    ));
    which
        .iter()
        .filter_map(|i| cfg.on_threshold.get(*i))
        .map(|h| run(env, "on_threshold", h, &payload, &paths.root).outcome)
        .collect()
}

/// The `[[on_threshold]]` hooks that fire with forge's own threshold handoff (their
/// threshold is the handoff threshold), and whether one of them replaces it.
pub(crate) fn at_handoff_threshold(cfg: &crate::config::Config) -> (Vec<usize>, bool) {
    let at: Vec<usize> = cfg
        .threshold_hooks()
        .filter(|(_, _, t)| (*t - cfg.acting_context().handoff_threshold).abs() < 1e-9)
        .map(|(i, _, _)| i)
        .collect();
    let replace = at.iter().any(|i| cfg.on_threshold[*i].replace_handoff);
    (at, replace)
}

/// The event name of the user's `[[on_threshold]]` hooks in `events.jsonl`.
pub(crate) const HOOK_EVENT: &str = "on_threshold";

/// Records what the user's `[[on_threshold]]` hooks did, as a hook call does.
pub(crate) fn record_hooks(
    paths: &crate::store::Paths,
    env: &crate::env::Env,
    session: &str,
    outcomes: Vec<Outcome>,
) {
    if !paths.logs().is_dir() || outcomes.is_empty() {
        return;
    }
    let _ = crate::store::files::append_event(
        paths,
        &crate::model::session::state::EventLine {
            time: crate::model::time::iso(env.now),
            event: HOOK_EVENT.to_owned(),
            session: Some(session.to_owned()),
            facts: serde_json::Map::new(),
            outcomes,
        },
    );
}

/// `forge user-hook`: runs the `[[on_threshold]]` hook at `index` for the session's
/// crossing of its threshold, once per crossing however many ticks started it, and
/// records what it did.
pub(crate) fn fire_one(
    paths: &crate::store::Paths,
    env: &crate::env::Env,
    session: &str,
    index: usize,
) {
    // Exactly one run per crossing, however many ticks started one.
    match paths.guard(session, Crossing::Hook(index)).claim() {
        Ok(true) => {}
        Ok(false) => return,
        Err(e) => {
            if paths.logs().is_dir() {
                crate::store::log_error(paths, "on_threshold claim", &e.to_string());
            }
            return;
        }
    }
    let cfg = crate::config::load_or_default(paths, env);
    let outcomes = fire_threshold(paths, env, &cfg, session, &[index], None);
    record_hooks(paths, env, session, outcomes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// An environment with this process's PATH (where the tests find `sh`).
    fn env(dir: &Path) -> crate::env::Env {
        let mut env = crate::env::Env::for_test(dir, dir);
        env.path = std::env::var_os("PATH");
        env
    }

    fn hook(command: &str, timeout_secs: u64) -> UserHook {
        UserHook {
            command: command.into(),
            timeout_secs,
            threshold: None,
            replace_handoff: false,
        }
    }

    #[test]
    fn a_command_gets_the_payload_and_its_output_is_kept() {
        let t = tempfile::tempdir().unwrap();
        let r = run(
            &env(t.path()),
            "on_session_start",
            &hook("cat > got.json; echo \"hello from $FORGE_HOOK\"", 5),
            &serde_json::json!({"a": 1}),
            t.path(),
        );
        assert_eq!(r.stdout.as_deref(), Some("hello from on_session_start\n"));
        // The payload's agent is the command's FORGE_AGENT too.
        let r = run(
            &env(t.path()),
            "on_session_start",
            &hook("cat > /dev/null; echo \"agent=$FORGE_AGENT\"", 5),
            &serde_json::json!({"session": {"agent_name": "builder"}}),
            t.path(),
        );
        assert_eq!(r.stdout.as_deref(), Some("agent=builder\n"));
        assert!(
            matches!(r.outcome, Outcome::UserHookRan { exit: Some(0), .. }),
            "{:?}",
            r.outcome
        );
        let got = std::fs::read_to_string(t.path().join("got.json")).unwrap();
        assert_eq!(got, r#"{"a":1}"#);
    }

    #[test]
    fn failing_slow_and_chatty_commands_are_outcomes_not_problems() {
        let t = tempfile::tempdir().unwrap();
        let p = serde_json::json!({});
        let r = run(
            &env(t.path()),
            "on_threshold",
            &hook("exit 3", 5),
            &p,
            t.path(),
        );
        assert!(matches!(
            r.outcome,
            Outcome::UserHookRan { exit: Some(3), .. }
        ));
        assert!(r.stdout.is_none());
        assert!(r.outcome.is_error());
        let started = Instant::now();
        let r = run(
            &env(t.path()),
            "on_threshold",
            &hook("sleep 30", 1),
            &p,
            t.path(),
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        match r.outcome {
            Outcome::UserHookFailed { why, .. } => assert!(why.contains("after 1 s"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A background child holding stdout does not hold forge past the timeout.
        let started = Instant::now();
        let r = run(
            &env(t.path()),
            "on_session_start",
            &hook("sleep 30 & echo hi", 1),
            &p,
            t.path(),
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(matches!(
            r.outcome,
            Outcome::UserHookRan { exit: Some(0), .. }
        ));
        // Output past the cap is read and dropped, never kept.
        let r = run(
            &env(t.path()),
            "on_session_start",
            &hook("head -c 200000 /dev/zero | tr '\\0' x", 5),
            &p,
            t.path(),
        );
        assert_eq!(r.stdout.unwrap().len(), STDOUT_CAP);
        // A command that does not exist: sh says so with 127.
        let r = run(
            &env(t.path()),
            "on_threshold",
            &hook("no-such-command-forge-test", 5),
            &p,
            t.path(),
        );
        assert!(matches!(
            r.outcome,
            Outcome::UserHookRan {
                exit: Some(127),
                ..
            }
        ));
    }
}
