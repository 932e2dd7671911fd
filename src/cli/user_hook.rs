//! `forge user-hook` (hidden): runs one of the user's `[[on_threshold]]` hooks for one
//! crossing of its own threshold. The status line starts it detached, as it starts
//! the threshold handoff; hooks at the handoff threshold run with that handoff.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::env::Env;

/// Run one [[on_threshold]] hook for a crossing (started by the status line)
#[derive(clap::Args, Debug)]
pub(crate) struct UserHookArgs {
    /// The session that crossed the hook's threshold.
    #[arg(long, value_name = "ID")]
    pub(crate) session: String,
    /// The hook's place in [[on_threshold]] (from 0).
    #[arg(long, value_name = "N")]
    pub(crate) index: usize,
    /// The project folder.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: PathBuf,
}

/// Runs `forge user-hook`: always exits 0 (nobody reads it); what happened is in
/// `events.jsonl`.
pub(crate) fn run(args: &UserHookArgs, env: &Env) -> ExitCode {
    let Ok(paths) = crate::app::project::project_for_writing(Some(&args.project), env) else {
        return ExitCode::SUCCESS;
    };
    crate::app::user_hooks::fire_one(&paths, env, &args.session, args.index);
    ExitCode::SUCCESS
}
