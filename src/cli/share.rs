//! `forge share`: Signals through the repository's git remote (docs/share.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::app::share::{self, What};
use crate::env::Env;

/// Share Signals with your other machines through the repository's git remote
///
/// Publishes this machine's agent handoffs (Signals), redacted and capped, as
/// `refs/forge/signals/<writer>` on the remote set by `[share] remote` in your own
/// config, then fetches every other writer's into `.forge/share/`: the inbox, status
/// line, SessionStart, dashboard, `forge status` and `forge mcp` show them, marked
/// remote, never acted on. With sharing on, forge also fetches at SessionStart (at
/// most once per 30 s) and publishes after each Signal, in the background. Look at
/// what is shared with `git ls-remote <remote> 'refs/forge/*'` and
/// `git log refs/forge/signals/<writer>`;
/// docs/share.md says how to turn it off and delete the refs.
#[derive(clap::Args, Debug)]
pub(crate) struct ShareArgs {
    /// Say what was last sent and fetched, when, and the last error.
    #[arg(long, conflicts_with_all = ["publish", "fetch"])]
    pub(crate) status: bool,
    /// Publish only.
    #[arg(long, conflicts_with = "fetch")]
    pub(crate) publish: bool,
    /// Fetch only.
    #[arg(long)]
    pub(crate) fetch: bool,
    /// Both (the default; for the background runs).
    #[arg(long, hide = true)]
    pub(crate) both: bool,
    /// Started by forge itself: print nothing, exit 0.
    #[arg(long, hide = true)]
    pub(crate) background: bool,
    /// The project folder (default: the current one's project).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge share`.
pub(crate) fn run(args: &ShareArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = crate::app::project::project_for_writing(args.project.as_ref(), env);
    if args.background {
        // Nothing to say to anyone: what happened is in the status file and, once,
        // in the event log.
        if let Ok(paths) = paths {
            let cfg = crate::config::load_or_default(&paths, env);
            let _ = share::run(&paths, env, &cfg, what(args));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let paths = paths?;
    let cfg = crate::config::load_or_default(&paths, env);
    if args.status {
        print!("{}", share::status_text(&paths, env, &cfg));
        return Ok(ExitCode::SUCCESS);
    }
    let report = match share::run(&paths, env, &cfg, what(args)) {
        Ok(r) => r,
        Err(e) => bail!("{e}"),
    };
    let remote = share::remote_of(&cfg).unwrap_or("?");
    match &report.sent {
        Some((commit, n)) => println!(
            "sent {n} Signal{} to {remote} ({})",
            share::plural(*n),
            crate::model::text::sanitize::short_id(commit)
        ),
        None if what(args) != What::Fetch && report.errors.is_empty() => {
            println!("nothing new to send to {remote}");
        }
        None => {}
    }
    if let Some((writers, entries, changed)) = report.fetched {
        println!(
            "fetched {writers} other writer{} from {remote}: {entries} Signal{} in the cache, {changed} changed",
            share::plural(writers),
            share::plural(entries)
        );
    }
    for r in &report.refused {
        println!("refused: {}", crate::model::text::sanitize::single_line(r));
    }
    for e in &report.errors {
        eprintln!(
            "forge share: {}",
            crate::model::text::sanitize::single_line(e)
        );
    }
    Ok(if report.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn what(args: &ShareArgs) -> What {
    if args.publish {
        What::Publish
    } else if args.fetch {
        What::Fetch
    } else {
        What::Both
    }
}
