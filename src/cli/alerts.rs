//! `forge alerts`: what alerts you get and how they reach you; `forge alerts test`
//! sends one.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;

use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::outcome::Outcome;

/// Show how alerts reach you, or send a test one
///
/// forge alerts you when a session needs you: a permission prompt, a question, a
/// Signal blocked on you, a relay that stopped (and, when you add `turn_done` to
/// [alerts] on, a turn over while you look elsewhere). Each names the project, the
/// agent or session, the reason and the next step; one per session and reason
/// within [alerts] debounce; never for the tmux pane you are looking at. They go
/// through your terminal's notification escape (OSC 9 / OSC 777, through tmux's
/// passthrough inside tmux), notify-send, osascript, or the bell ([alerts] via).
/// Only your own config sets [alerts]. See docs/alerts.md.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge alerts\n  forge alerts test"
)]
pub(crate) struct AlertsArgs {
    /// What to do (default: show).
    #[command(subcommand)]
    pub(crate) action: Option<AlertsAction>,
    /// Project folder (default: the current folder's project).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) project: Option<PathBuf>,
}

/// `forge alerts` actions.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum AlertsAction {
    /// Send one alert now, the way a session's would go (no debounce, no pane
    /// check), and say how it went.
    Test,
}

/// Runs `forge alerts`.
pub(crate) fn run(args: &AlertsArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let cfg = crate::config::load(&paths, env)
        .map_err(|e| anyhow!("{e}\nFix the file, or check it with `forge config validate`."))?
        .config
        .alerts;
    let how = crate::app::alert::resolved(env, cfg.via);
    match args.action {
        None => {
            super::print_out(&crate::app::alert::describe(&cfg, how));
            Ok(ExitCode::SUCCESS)
        }
        Some(AlertsAction::Test) => {
            let outcome = crate::app::alert::send_test(&paths, env, cfg.via);
            let ok = matches!(outcome, Outcome::AlertSent { .. });
            let text = outcome.describe();
            super::print_out(&format!("forge: {text}\n"));
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}
