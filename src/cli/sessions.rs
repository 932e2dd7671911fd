//! `forge sessions`: the sessions forge knows in a project, with the same context %
//! and compaction count as `forge status`, `forge context` and the dashboard.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::status::Sessions;
use crate::env::Env;
use crate::ui::lists::{SessionLine, sessions_text};

/// List the sessions of this project: id, last event, context %, compactions, state
///
/// Newest first (by their last hook event), at most the 50 most recently updated.
/// The id column is the first 8 characters: any unique start of an id works as
/// --session in every command (forge context, forge handoff, forge log). `*`
/// marks the session `forge status` and the dashboard's gauge show (the most
/// recently active live one). A session is live until it ends or is silent for
/// longer than [attention] stale_after (default 30 min); --live lists only those.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge sessions\n  forge sessions --live\n  forge sessions --json | jq '.[] | select(.attention == \"waiting:permission\")'"
)]
pub(crate) struct SessionsArgs {
    /// Only live sessions (not ended, heard from within [attention] stale_after).
    #[arg(long)]
    pub(crate) live: bool,
    /// Print JSON: a list of sessions with whole ids.
    #[arg(long)]
    pub(crate) json: bool,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge sessions`.
pub(crate) fn run(args: &SessionsArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = crate::app::project::project_paths(args.project.as_ref(), env)?;
    let report = Sessions::load(&paths, env);
    let rows = report.rows(args.live);
    if args.json {
        super::print_json_shown(&report.to_json(&rows))?;
    } else {
        let lines: Vec<SessionLine<'_>> = rows
            .iter()
            .map(|r| SessionLine {
                bridge: r.bridge,
                state: r.state,
                current: r.current,
            })
            .collect();
        super::print_shown(&sessions_text(
            &report.snapshot,
            &lines,
            &report.thresholds,
            env.now,
            args.live,
        ));
    }
    Ok(ExitCode::SUCCESS)
}
