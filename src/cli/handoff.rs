//! `forge handoff`: write a session handoff document and make it the pending resume.

use std::process::ExitCode;

use color_eyre::eyre::{WrapErr, bail};

use crate::config;
use crate::env::Env;
use crate::model::handoff_doc::Trigger;
use crate::store::{self, session_handoff};

/// Write a session handoff to .forge/handoffs/handoff-YYYYMMDD-HHMMSS.md
///
/// The document holds the context level, the current task and last request (secrets
/// redacted), the todo list and files touched from the session transcript, git state,
/// open agent Signals, what to reload and next steps. Its absolute path goes to
/// .forge/pending-resume and ~/.claude/pending-resume, so the next session loads it.
///
/// The session is the one named by --session, else the most recently active one
/// (from .forge/logs/sessions/). With --auto (used by the statusline and hooks) it
/// prints nothing and always exits 0; errors go to .forge/logs/errors.log.
///
/// Examples:
///   forge handoff
///   forge handoff --session 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct HandoffArgs {
    /// Run unattended: print nothing, exit 0 whatever happens.
    #[arg(long)]
    pub auto: bool,
    /// Why it is written: context-threshold, pre-compact, manual or session-end.
    #[arg(long, value_name = "T", default_value = "manual")]
    pub trigger: String,
    /// The session (default: the most recently updated session bridge).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub project: Option<std::path::PathBuf>,
}

/// Runs `forge handoff`.
pub fn run(args: &HandoffArgs, env: &Env) -> ExitCode {
    if args.auto {
        let outcome = std::panic::catch_unwind(|| write(args, env));
        if let Ok(Err(e)) = outcome
            && let Ok(paths) = super::status::project_paths(args.project.as_ref(), env)
            && paths.forge_dir().is_dir()
        {
            store::log_error(&paths, "handoff --auto", &format!("{e:#}"));
        }
        return ExitCode::SUCCESS;
    }
    super::report(write(args, env).map(|path| {
        super::print_out(&format!("{}\n", path.display()));
        ExitCode::SUCCESS
    }))
}

fn write(args: &HandoffArgs, env: &Env) -> color_eyre::Result<std::path::PathBuf> {
    let Some(trigger) = Trigger::parse(&args.trigger) else {
        bail!(
            "unknown --trigger {:?}: use one of context-threshold, pre-compact, manual, session-end",
            args.trigger
        );
    };
    let paths = super::status::project_paths(args.project.as_ref(), env)?;
    let cfg = config::load_or_default(&paths, env);
    let req = session_handoff::Request {
        trigger,
        session_id: args.session.as_deref().filter(|s| !s.trim().is_empty()),
        transcript_path: None,
    };
    session_handoff::write(&paths, env, &cfg, &req).wrap_err_with(|| {
        format!(
            "writing the handoff in {} (is the folder writable?)",
            paths.handoffs().display()
        )
    })
}
