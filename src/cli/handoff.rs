//! `forge handoff`: write a session handoff document and make it the pending resume.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap_complete::engine::ArgValueCandidates;

use crate::app::handoff;
use crate::config;
use crate::env::Env;

/// Write a session handoff to .forge/handoffs/handoff-YYYYMMDD-HHMMSS.md
///
/// The document tells the session in the person's words (secrets redacted): their
/// task (their first request), their later requests, Claude's last words; after a
/// compaction, Claude Code's own summary (pending tasks, current work, next step) and
/// what happened since; the plan they approved, their answers to the agent's
/// questions, background commands still running, the last failing command; the todo
/// list and files touched, git state, open agent Signals, what to reload and next
/// steps — within [handoffs] max_bytes (8 KiB). Its absolute path goes to
/// .forge/pending-resume and ~/.claude/pending-resume, so the next session loads it.
///
/// The session is the one named by --session, else the most recently active one
/// (from .forge/logs/sessions/). A session forge has no record of is found by its
/// transcript under ~/.claude/projects/; or pass the transcript with --transcript.
/// With --auto (used by the statusline and hooks) it prints nothing and always exits
/// 0; errors go to .forge/logs/errors.log.
///
/// Exit status: 0 when the handoff is written and pending (if only the global
/// ~/.claude/pending-resume could not be written, a warning says so: the project's
/// marker still resumes it); 1 when the handoff could not be written, or was written
/// but could not be made pending (the message names the file).
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    after_help = "Examples:\n  forge handoff\n  forge handoff --session 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21\n  forge handoff --transcript ~/.claude/projects/-home-me-app/3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21.jsonl\n  forge handoff prune --dry-run"
)]
pub(crate) struct HandoffArgs {
    /// Something else than writing a handoff.
    #[command(subcommand)]
    pub(crate) action: Option<HandoffAction>,
    /// Run unattended: print nothing, exit 0 whatever happens.
    #[arg(long)]
    pub(crate) auto: bool,
    /// Why it is written: context-threshold, pre-compact, manual, session-end or relay.
    #[arg(long, value_name = "T", default_value = "manual")]
    pub(crate) trigger: String,
    /// The session: its id or a unique start of it (default: the most recently
    /// updated session bridge).
    #[arg(
        long,
        value_name = "ID",
        add = ArgValueCandidates::new(crate::app::complete::complete_session)
    )]
    pub(crate) session: Option<String>,
    /// The session's transcript file (default: the one its bridge file records).
    #[arg(long, value_name = "PATH")]
    pub(crate) transcript: Option<PathBuf>,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) project: Option<PathBuf>,
    /// Used by the status line: first claim this session's threshold crossing, and
    /// write nothing when another process already has.
    #[arg(long, hide = true, requires = "session")]
    pub(crate) claim_threshold: bool,
}

/// `forge handoff` actions besides writing one.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum HandoffAction {
    /// Remove old handoffs: those older than --older-than beyond the newest --keep.
    ///
    /// Never removes an unresolved blocked Signal (someone still has to answer it)
    /// or the pending resume. The defaults come from [handoffs] older_than and keep
    /// in the config (30d and 50). With [handoffs] auto_prune = true every new
    /// session does the same.
    #[command(
        after_help = "Examples:\n  forge handoff prune --dry-run\n  forge handoff prune --older-than 14d --keep 20"
    )]
    Prune(PruneArgs),
}

/// `forge handoff prune` options.
#[derive(clap::Args, Debug)]
pub(crate) struct PruneArgs {
    /// Only handoffs older than this go: 30m, 12h, 14d, 2w (default: [handoffs]
    /// older_than, 30d).
    #[arg(long, value_name = "AGE")]
    pub(crate) older_than: Option<String>,
    /// The newest this many handoffs always stay (default: [handoffs] keep, 50).
    #[arg(long, value_name = "N")]
    pub(crate) keep: Option<usize>,
    /// Say what would go, remove nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
}

fn prune(args: &PruneArgs, project: Option<&PathBuf>, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = crate::app::project::project_paths(project, env)?;
    let cfg = config::load(&paths, env)
        .map_err(|e| {
            anyhow::anyhow!("{e}\nFix the file, or check it with `forge config validate`.")
        })?
        .config;
    let older_than = match &args.older_than {
        Some(text) => crate::model::time::parse_duration(text).ok_or_else(|| {
            anyhow::anyhow!(
                "--older-than {text:?} is not an age: give a number and a unit, like 30m, 12h, 14d or 2w"
            )
        })?,
        None => cfg.handoffs.older_than(),
    };
    let keep = args.keep.unwrap_or(cfg.handoffs.keep);
    let result = crate::app::prune::prune(&paths, env, older_than, keep, args.dry_run);
    let mut out = String::new();
    let verb = if args.dry_run {
        "Would remove"
    } else {
        "Removed"
    };
    let age_text = args
        .older_than
        .clone()
        .unwrap_or_else(|| cfg.handoffs.older_than.to_string());
    if result.removed.is_empty() {
        let _ = writeln!(
            out,
            "Nothing to prune: no handoff is older than {age_text} beyond the newest {keep}."
        );
    } else {
        let _ = writeln!(
            out,
            "{verb} {} older than {age_text} (the newest {keep} stay):",
            super::count(result.removed.len(), "handoff", "handoffs")
        );
        for (path, created) in &result.removed {
            let _ = writeln!(
                out,
                "  {}  {}",
                crate::model::text::sanitize::single_line(&file_name(path)),
                created.map_or_else(
                    || "?".to_owned(),
                    |c| crate::model::time::age(env.now, Some(c))
                )
            );
        }
    }
    for (path, why) in &result.kept {
        let _ = writeln!(
            out,
            "Kept {}: {}",
            crate::model::text::sanitize::single_line(&file_name(path)),
            why.as_str()
        );
    }
    super::print_out(&out);
    if let Some((path, e)) = result.errors.first() {
        anyhow::bail!(
            "could not remove {} ({e}){}",
            path.display(),
            if result.errors.len() > 1 {
                format!(" and {} more", result.errors.len() - 1)
            } else {
                String::new()
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `forge handoff`.
pub(crate) fn run(args: &HandoffArgs, env: &Env) -> ExitCode {
    if let Some(HandoffAction::Prune(p)) = &args.action {
        return super::report(prune(p, args.project.as_ref(), env));
    }
    let o = handoff::Options {
        project: args.project.as_ref(),
        auto: args.auto,
        trigger: &args.trigger,
        session: args.session.as_deref(),
        transcript: args.transcript.as_ref(),
        claim_threshold: args.claim_threshold,
    };
    // Held from the threshold's claim until the handoff is on disk: a PreCompact
    // meanwhile waits for it rather than racing it with a second one.
    let _writing = handoff::writing_lock(&o, env);
    if args.auto {
        handoff::auto(&o, env);
        return ExitCode::SUCCESS;
    }
    super::report(handoff::write(&o, env).map(|w| {
        // The file exists whatever happens next: its path always goes to stdout.
        super::print_out(&format!("{}\n", w.path.display()));
        match w.markers {
            Ok(m) => {
                if let Some((global, e)) = m.global_error {
                    eprintln!(
                        "forge: warning: could not write {} ({e}); the handoff is pending \
                         through .forge/pending-resume, which sessions in this project read first",
                        global.display()
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("forge: {}", handoff::not_pending(&w.path, &e));
                ExitCode::from(1)
            }
        }
    }))
}
