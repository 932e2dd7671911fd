//! `forge handoff`: write a session handoff document and make it the pending resume.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap_complete::engine::ArgValueCandidates;

use crate::app::session_handoff;
use crate::config;
use crate::env::Env;
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;

/// The `event` of the lines `forge handoff` adds to `events.jsonl` (hook lines carry
/// the hook's event name; this one is not a hook's).
pub(crate) const EVENT: &str = "forge handoff";
use crate::store::{self, Paths, files, transcript};

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
    // Held from the threshold's claim until the handoff is on disk: a PreCompact
    // meanwhile waits for it rather than racing it with a second one.
    let _writing = writing_lock(args, env);
    if args.auto {
        if args.claim_threshold && !claim(args, env) {
            return ExitCode::SUCCESS;
        }
        // The user's [[on_threshold]] hooks at the handoff threshold fire with this
        // crossing, after the handoff (its path in their payload); one with
        // replace_handoff = true takes the handoff's place, and a [ladder] L1 without
        // `handoff` writes none.
        let hooks = args
            .claim_threshold
            .then(|| crate::app::project::project_for_writing(args.project.as_ref(), env).ok())
            .flatten()
            .map(|paths| {
                let cfg = config::load_or_default(&paths, env);
                let (at, replace) = crate::app::user_hooks::at_handoff_threshold(&cfg);
                let no_l1 = !cfg
                    .ladder
                    .l1
                    .contains(&crate::model::agents::ladder::LadderAction::Handoff);
                (paths, cfg, at, replace, no_l1)
            });
        if let (Some((paths, cfg, at, replace, no_l1)), Some(sid)) =
            (&hooks, args.session.as_deref())
            && (*replace || *no_l1)
        {
            let mut outcomes = vec![Outcome::HandoffSkipped {
                trigger: "context-threshold".to_owned(),
                why: if *replace {
                    "your [[on_threshold]] hook replaces it (replace_handoff = true)".to_owned()
                } else {
                    "[ladder] L1 has no handoff".to_owned()
                },
            }];
            outcomes.extend(crate::app::user_hooks::fire_threshold(
                paths, env, cfg, sid, at, None,
            ));
            record_hooks(paths, env, sid, outcomes);
            return ExitCode::SUCCESS;
        }
        let outcome = std::panic::catch_unwind(|| write(args, env));
        if let (Some((paths, cfg, at, _, _)), Some(sid)) = (&hooks, args.session.as_deref())
            && !at.is_empty()
        {
            let written = match &outcome {
                Ok(Ok(w)) => Some(w.path.clone()),
                _ => None,
            };
            let outcomes = crate::app::user_hooks::fire_threshold(
                paths,
                env,
                cfg,
                sid,
                at,
                written.as_deref(),
            );
            record_hooks(paths, env, sid, outcomes);
        }
        let problem = match outcome {
            Ok(Ok(w)) => match w.markers {
                Ok(m) => m
                    .global_error
                    .map(|(g, e)| format!("could not write {}: {e}", g.display())),
                Err(e) => Some(not_pending(&w.path, &e)),
            },
            Ok(Err(e)) => Some(format!("{e:#}")),
            Err(_) => Some("panic (ignored)".to_owned()),
        };
        if let Some(problem) = problem
            && let Ok(paths) = crate::app::project::project_paths(args.project.as_ref(), env)
            && paths.forge_dir().is_dir()
        {
            store::log_error(&paths, "handoff --auto", &problem);
        }
        return ExitCode::SUCCESS;
    }
    super::report(write(args, env).map(|w| {
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
                eprintln!("forge: {}", not_pending(&w.path, &e));
                ExitCode::from(1)
            }
        }
    }))
}

/// The message for a handoff that was written but could not be made pending.
fn not_pending(path: &std::path::Path, e: &std::io::Error) -> String {
    format!(
        "the handoff was written to {}, but it is not pending: writing .forge/pending-resume \
         failed ({e}); make it pending with `forge resume {}` once that is fixed",
        path.display(),
        path.display()
    )
}

/// How long `forge handoff` waits for another handoff of the project being written.
const WRITING_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The project's handoff lock ([`Paths::handoff_lock`]), when its logs folder exists
/// and the lock is had within [`WRITING_WAIT`] (else the handoff is written without
/// it: two at once only means two files).
fn writing_lock(args: &HandoffArgs, env: &Env) -> Option<store::FileLock> {
    let paths = crate::app::project::project_paths(args.project.as_ref(), env).ok()?;
    paths
        .logs()
        .is_dir()
        .then(|| store::FileLock::acquire(&paths.handoff_lock(), WRITING_WAIT))
        .flatten()
}

/// Claims the session's threshold crossing: true for the one process that wins it.
fn claim(args: &HandoffArgs, env: &Env) -> bool {
    let (Ok(paths), Some(sid)) = (
        crate::app::project::project_for_writing(args.project.as_ref(), env),
        args.session.as_deref(),
    ) else {
        return false;
    };
    match files::claim_threshold(&paths, sid, env.now) {
        Ok(won) => won,
        Err(e) => {
            if paths.logs().is_dir() {
                store::log_error(&paths, "threshold claim", &e.to_string());
            }
            false
        }
    }
}

fn write(args: &HandoffArgs, env: &Env) -> anyhow::Result<session_handoff::Written> {
    let Some(trigger) = Trigger::parse(&args.trigger) else {
        bail!(
            "unknown --trigger {:?}: use one of context-threshold, pre-compact, manual, session-end, relay",
            args.trigger
        );
    };
    let paths = crate::app::project::project_for_writing(args.project.as_ref(), env)?;
    let cfg = config::load_or_default(&paths, env);
    // A unique start of a known session's id names it (as every --session does); a
    // session forge has no bridge for is looked for by its whole id below.
    let resolved = match args.session.as_deref().map(str::trim) {
        Some("") if !args.auto => bail!("--session needs a session id (or the start of one)"),
        Some(given) if !given.is_empty() => match store::sessions::resolve(&paths, given, &[]) {
            Ok(id) => Some(id),
            Err(crate::model::session::session_id::PrefixError::NoMatch { .. }) => {
                Some(given.to_owned())
            }
            Err(e) => bail!("--session: {e}"),
        },
        _ => None,
    };
    let session = resolved.as_deref();
    let transcript_path = match &args.transcript {
        Some(p) => Some(checked_transcript(p)?),
        None if args.auto => None,
        None => match session {
            Some(id) => unknown_session_transcript(&paths, env, id)?,
            None => None,
        },
    };
    // A transcript given without --session names its session by its file name (as
    // Claude Code names them); otherwise it is written for no session, never for
    // the latest one, whose figures would not be this transcript's.
    let stem = transcript_path
        .as_ref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned());
    let session = match (session, &args.transcript, &stem) {
        (Some(id), _, _) => Some(id),
        (None, Some(_), Some(stem)) if transcript::is_session_id(stem) => Some(stem.as_str()),
        (None, Some(_), _) => Some(""),
        (None, None, _) => None,
    };
    let transcript_text = transcript_path
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    let req = session_handoff::Request {
        git: session_handoff::GitInput::Compute,
        trigger,
        session_id: session,
        transcript_path: transcript_text.as_deref(),
        task: None,
        pending: true,
    };
    let result = session_handoff::write_detailed(&paths, env, &cfg, &req);
    record(&paths, env, args, trigger, session, &result);
    result.with_context(|| {
        format!(
            "writing the handoff in {} (is the folder writable?)",
            paths.handoffs().display()
        )
    })
}

/// Records what this run did in `events.jsonl`, as a hook call does, so the
/// automatic handoffs (the status line's threshold handoff) show in `forge log` and
/// the dashboard's activity view. Only where forge's logs folder exists.
fn record(
    paths: &Paths,
    env: &Env,
    args: &HandoffArgs,
    trigger: Trigger,
    session: Option<&str>,
    result: &std::io::Result<session_handoff::Written>,
) {
    if !paths.logs().is_dir() {
        return;
    }
    let (session, outcomes) = match result {
        Ok(w) => (w.session_id.clone(), w.outcomes(trigger)),
        Err(e) => (
            session.filter(|s| !s.is_empty()).map(str::to_owned),
            vec![Outcome::Error {
                what: "handoff".to_owned(),
                message: e.to_string(),
            }],
        ),
    };
    let mut facts = serde_json::Map::new();
    facts.insert("trigger".into(), trigger.as_str().into());
    if args.auto {
        facts.insert("auto".into(), true.into());
    }
    let _ = files::append_event(
        paths,
        &EventLine {
            time: crate::model::time::iso(env.now),
            event: EVENT.to_owned(),
            session,
            facts,
            outcomes,
        },
    );
}

/// The event name of the user's `[[on_threshold]]` hooks in `events.jsonl`.
pub(crate) const HOOK_EVENT: &str = "on_threshold";

/// Records what the user's `[[on_threshold]]` hooks did, as a hook call does.
pub(crate) fn record_hooks(paths: &Paths, env: &Env, session: &str, outcomes: Vec<Outcome>) {
    if !paths.logs().is_dir() || outcomes.is_empty() {
        return;
    }
    let _ = files::append_event(
        paths,
        &EventLine {
            time: crate::model::time::iso(env.now),
            event: HOOK_EVENT.to_owned(),
            session: Some(session.to_owned()),
            facts: serde_json::Map::new(),
            outcomes,
        },
    );
}

/// `--transcript PATH`, checked: an existing file.
fn checked_transcript(p: &std::path::Path) -> anyhow::Result<PathBuf> {
    if p.is_dir() {
        bail!(
            "{} is a folder, not a transcript file: pass the session's .jsonl file",
            p.display()
        );
    }
    if !p.is_file() {
        bail!("{}: no such transcript file", p.display());
    }
    Ok(std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// For a manual `--session ID`: `Ok(None)` when forge has a bridge for it (the
/// bridge names the transcript), the transcript found under Claude Code's projects
/// folder when it has none, else an error: a handoff for a session nobody knows
/// would only mislead (and must not become the pending resume).
fn unknown_session_transcript(
    paths: &Paths,
    env: &Env,
    id: &str,
) -> anyhow::Result<Option<PathBuf>> {
    if files::read_bridge(paths, id).is_some() {
        return Ok(None);
    }
    match env
        .claude_dir()
        .and_then(|dir| transcript::find_for_session(&dir, &paths.root, id))
    {
        Some(found) => Ok(Some(found)),
        None => bail!(
            "no session {id} in .forge/logs/sessions; `forge status` lists sessions \
             (or pass its transcript with --transcript PATH)"
        ),
    }
}
