//! `forge alerts`: what alerts you get and how they reach you; `forge alerts test`
//! sends one.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;

use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::agents::alert::Alert;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;

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
            let project = paths
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let alert = Alert {
                title: format!("forge · {project}"),
                body: "a test alert from `forge alerts test` — nothing to do".to_owned(),
            };
            let outcome = match crate::app::alert::deliver(
                env,
                cfg.via,
                &alert,
                crate::app::alert::Reach::Controlling,
            ) {
                Ok(via) => Outcome::AlertSent {
                    reason: "test".to_owned(),
                    via: via.name().to_owned(),
                    text: alert.body.clone(),
                },
                Err(why) => Outcome::AlertFailed {
                    reason: "test".to_owned(),
                    why,
                },
            };
            let ok = matches!(outcome, Outcome::AlertSent { .. });
            let text = outcome.describe();
            if paths.logs().is_dir() {
                let _ = crate::store::files::append_event(
                    &paths,
                    &EventLine {
                        time: crate::model::time::iso(env.now),
                        event: "alerts".to_owned(),
                        session: None,
                        facts: serde_json::Map::new(),
                        outcomes: vec![outcome],
                    },
                );
            }
            super::print_out(&format!("forge: {text}\n"));
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}
