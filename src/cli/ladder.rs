//! `forge ladder` (hidden): the escalation ladder's actions for one session that
//! reached a level. The status line starts it detached, once per crossing.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::env::Env;
use crate::model::session::level::Level;
use crate::model::session::state::EventLine;
use crate::store::guard::Crossing;
use crate::store::{self, files};

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

/// The event name of the ladder's lines in `events.jsonl`.
pub(crate) const EVENT: &str = "ladder";

/// Runs `forge ladder`: always exits 0; what happened is in `events.jsonl`.
pub(crate) fn run(args: &LadderArgs, env: &Env) -> ExitCode {
    let Some(level) = Level::parse(&args.level).filter(|l| *l != Level::L0) else {
        return ExitCode::SUCCESS;
    };
    let Ok(paths) = crate::app::project::project_for_writing(Some(&args.project), env) else {
        return ExitCode::SUCCESS;
    };
    // Exactly one run per crossing, however many ticks started one.
    match paths.guard(&args.session, Crossing::Level(level)).claim() {
        Ok(true) => {}
        Ok(false) => return ExitCode::SUCCESS,
        Err(e) => {
            if paths.logs().is_dir() {
                store::log_error(&paths, "ladder claim", &e.to_string());
            }
            return ExitCode::SUCCESS;
        }
    }
    let cfg = crate::config::load_or_default(&paths, env);
    let pct = files::read_bridge(&paths, &args.session)
        .as_ref()
        .and_then(crate::model::session::state::SessionBridge::context_pct)
        .unwrap_or(0.0);
    let outcomes = crate::app::ladder::climb(&paths, env, &cfg, &args.session, level, pct);
    if paths.logs().is_dir() && !outcomes.is_empty() {
        let mut facts = serde_json::Map::new();
        facts.insert("level".into(), level.as_str().into());
        let _ = files::append_event(
            &paths,
            &EventLine {
                time: crate::model::time::iso(env.now),
                event: EVENT.to_owned(),
                session: Some(args.session.clone()),
                facts,
                outcomes,
            },
        );
    }
    ExitCode::SUCCESS
}
