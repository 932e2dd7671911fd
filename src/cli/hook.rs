//! `forge hook [EVENT]`: the hook handler. Its command line cannot fail (see `main`).

use std::process::ExitCode;

use clap_complete::engine::ArgValueCandidates;

use crate::env::Env;
use crate::hooks;

/// Handle a Claude Code hook event.
///
/// Claude Code runs this with the event's JSON on stdin. The event comes from the
/// argument or from the payload's hook_event_name. It writes .forge/logs state and
/// prints only what Claude Code expects; it always exits 0, whatever the input.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example (what `forge init` puts in .claude/settings.json):\n  \
    {\"type\": \"command\", \"command\": \"/usr/local/bin/forge hook SessionStart\"}\n\n\
    Try it by hand:\n  echo '{\"session_id\":\"s1\",\"cwd\":\"'\"$PWD\"'\"}' | forge hook Stop"
)]
pub(crate) struct HookArgs {
    // Its help lists the events of the one event table (model::setup::help).
    #[arg(
        help = crate::model::setup::help::hook_event_help(),
        add = ArgValueCandidates::new(crate::app::complete::complete_hook_event)
    )]
    pub(crate) event: Option<String>,
    /// Anything else is accepted and ignored, so a newer settings file never breaks a session.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub(crate) rest: Vec<String>,
}

/// Reads stdin (at most 1 MiB; not at all when it is a terminal), handles the event,
/// prints the output. Never panics out, never exits non-zero.
pub(crate) fn run(args: &HookArgs, env: &Env) -> ExitCode {
    run_event(args.event.as_deref(), env)
}

/// Runs `forge hook [EVENT [ANYTHING…]]` without building clap's command tree (a
/// third of a millisecond; a hook runs on every tool call and every turn), as clap
/// would: the event is the first argument, the rest is ignored. A first argument that
/// starts with `-` (`--help`) or is not UTF-8 returns `None` and goes through clap.
pub fn fast_path(env: &Env) -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != "hook" {
        return None;
    }
    match args.next() {
        None => Some(run_event(None, env)),
        Some(event) => {
            let event = event.into_string().ok().filter(|e| !e.starts_with('-'))?;
            Some(run_event(Some(&event), env))
        }
    }
}

/// The hook entry point, also used when the command line itself did not parse.
pub(crate) fn run_event(event: Option<&str>, env: &Env) -> ExitCode {
    let outcome = std::panic::catch_unwind(|| {
        let input = super::read_stdin_capped(hooks::MAX_STDIN);
        hooks::handle_input(event, &input, env)
    });
    match outcome {
        Ok(out) if !out.is_empty() => super::print_out(&out),
        Ok(_) => {}
        Err(_) => {
            // Nothing reached stdout; leave a trace where the developer looks.
            crate::app::hook::log_panic(env);
        }
    }
    ExitCode::SUCCESS
}
