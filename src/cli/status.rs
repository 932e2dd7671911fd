//! `forge status`: the Snapshot as text for people or JSON for scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::app::project::project_paths;
use crate::app::status::{Report, fleet_json, read_registry};
use crate::env::Env;
use crate::ui::report::{fleet_text, render_chains, render_text};

/// Show the project's forge state: last session, flags, sessions, handoffs, Signals.
///
/// In a project forge is not set up in (no .forge/ and no forge hooks in the
/// settings), it says what to run instead and exits 1; with --json it prints the
/// empty snapshot with "set_up": false and a "hint".
///
/// With --all: every project forge's hooks ran in during the last week, from the
/// fleet registry ($XDG_STATE_HOME/forge/projects.json): each live session, most
/// urgent first (waiting for permission, then for input, then busy), with its
/// project, branch, context % and level, blocked Signals and last event; then the
/// projects with no live session.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge status\n  forge status --json | jq '.blocked'\n  \
        forge status --all\n  forge status --all --json | jq '.rows[] | select(.attention == \"waiting:permission\")'"
)]
pub(crate) struct StatusArgs {
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Every registered project's live sessions (the fleet), most urgent first.
    #[arg(long, conflicts_with = "project")]
    pub(crate) all: bool,
    /// Print the snapshot as JSON (with --all, the fleet's rows).
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `forge status`.
pub(crate) fn run(args: &StatusArgs, env: &Env) -> anyhow::Result<ExitCode> {
    if args.all {
        return run_all(args.json, env);
    }
    let paths = project_paths(args.project.as_ref(), env)?;
    let set_up = crate::app::project::is_set_up(&paths, env);
    if !set_up && !args.json {
        bail!("{}", crate::app::project::not_set_up_message(&paths));
    }
    let report = Report::load(&paths, env, set_up, |e| {
        super::print_err(&format!(
            "forge: warning: {e} (using the built-in defaults; see `forge config validate`)\n"
        ));
    });
    if args.json {
        super::print_json_shown(&report.to_json())?;
    } else {
        if let Some(line) = &report.untrusted {
            super::print_out(&format!("{line}\n"));
        }
        super::print_shown(&render_text(
            &report.snapshot,
            report.stale_after,
            &report.thresholds,
            crate::model::time::Zone::Local,
        ));
        super::print_shown(&render_chains(&report.chains));
    }
    Ok(if set_up {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `forge status --all`: the fleet, from the registry alone.
fn run_all(json: bool, env: &Env) -> anyhow::Result<ExitCode> {
    let (file, reg) = read_registry(env)?;
    if json {
        super::print_json(&fleet_json(&reg, &file, env.now))?;
    } else {
        super::print_out(&fleet_text(&reg, &file, env.now, env.home.as_deref()));
    }
    Ok(ExitCode::SUCCESS)
}
