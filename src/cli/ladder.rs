//! `forge ladder` (hidden): the escalation ladder's actions for one session that
//! reached a level. The status line starts it detached, once per crossing.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::env::Env;
use crate::model::session::level::Level;

/// Run the [ladder] actions of a level for a session (started by the status line)
#[derive(clap::Args, Debug)]
pub(crate) struct LadderArgs {
    /// The session that reached the level.
    #[arg(long, value_name = "ID")]
    pub(crate) session: String,
    /// L1, L2 or L3.
    #[arg(long, value_name = "LEVEL")]
    pub(crate) level: String,
    /// The project folder.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: PathBuf,
}

/// Runs `forge ladder`: always exits 0; what happened is in `events.jsonl`.
pub(crate) fn run(args: &LadderArgs, env: &Env) -> ExitCode {
    let Some(level) = Level::parse(&args.level).filter(|l| *l != Level::L0) else {
        return ExitCode::SUCCESS;
    };
    let Ok(paths) = crate::app::project::project_for_writing(Some(&args.project), env) else {
        return ExitCode::SUCCESS;
    };
    crate::app::ladder::run_crossing(&paths, env, &args.session, level);
    ExitCode::SUCCESS
}
