//! `forge user-hook` (hidden): runs one of the user's `[[on_threshold]]` hooks for one
//! crossing of its own threshold. The status line starts it detached, as it starts
//! the threshold handoff; hooks at the handoff threshold run with that handoff.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::env::Env;
use crate::store;
use crate::store::guard::Crossing;

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
    // Exactly one run per crossing, however many ticks started one.
    match paths
        .guard(&args.session, Crossing::Hook(args.index))
        .claim()
    {
        Ok(true) => {}
        Ok(false) => return ExitCode::SUCCESS,
        Err(e) => {
            if paths.logs().is_dir() {
                store::log_error(&paths, "on_threshold claim", &e.to_string());
            }
            return ExitCode::SUCCESS;
        }
    }
    let cfg = crate::config::load_or_default(&paths, env);
    let outcomes = crate::app::user_hooks::fire_threshold(
        &paths,
        env,
        &cfg,
        &args.session,
        &[args.index],
        None,
    );
    super::handoff::record_hooks(&paths, env, &args.session, outcomes);
    ExitCode::SUCCESS
}
