//! `forge handoff`'s work: the project's writing lock, the status line's claim of a
//! threshold crossing, writing the handoff for the session named (or found by its
//! transcript), and recording what came of it, and of the user's `[[on_threshold]]`
//! hooks, in `events.jsonl`.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::config;
use crate::env::Env;
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::state::EventLine;
use crate::store::{self, Paths, files, transcript};

/// The `event` of the lines `forge handoff` adds to `events.jsonl` (hook lines carry
/// the hook's event name; this one is not a hook's).
pub(crate) const EVENT: &str = "forge handoff";

/// What `forge handoff` was asked for (its command line).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options<'a> {
    /// `--project`.
    pub(crate) project: Option<&'a PathBuf>,
    /// `--auto`: unattended.
    pub(crate) auto: bool,
    /// `--trigger`, as given.
    pub(crate) trigger: &'a str,
    /// `--session`, as given.
    pub(crate) session: Option<&'a str>,
    /// `--transcript`.
    pub(crate) transcript: Option<&'a PathBuf>,
    /// `--claim-threshold`.
    pub(crate) claim_threshold: bool,
}

/// `forge handoff --auto`: claims the threshold crossing when asked to, writes the
/// handoff (or lets the user's `[[on_threshold]]` hook replace it), fires those
/// hooks, and logs any problem to `.forge/logs/errors.log`; prints nothing.
pub(crate) fn auto(o: &Options<'_>, env: &Env) {
    if o.claim_threshold && !claim(o, env) {
        return;
    }
    // The user's [[on_threshold]] hooks at the handoff threshold fire with this
    // crossing, after the handoff (its path in their payload); one with
    // replace_handoff = true takes the handoff's place, and a [ladder] L1 without
    // `handoff` writes none.
    let hooks = o
        .claim_threshold
        .then(|| super::project::project_for_writing(o.project, env).ok())
        .flatten()
        .map(|paths| {
            let cfg = config::load_or_default(&paths, env);
            let (at, replace) = super::user_hooks::at_handoff_threshold(&cfg);
            let no_l1 = !cfg
                .ladder
                .l1
                .contains(&crate::model::agents::ladder::LadderAction::Handoff);
            (paths, cfg, at, replace, no_l1)
        });
    if let (Some((paths, cfg, at, replace, no_l1)), Some(sid)) = (&hooks, o.session)
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
        outcomes.extend(super::user_hooks::fire_threshold(
            paths, env, cfg, sid, at, None,
        ));
        super::user_hooks::record_hooks(paths, env, sid, outcomes);
        return;
    }
    let outcome = std::panic::catch_unwind(|| write(o, env));
    if let (Some((paths, cfg, at, _, _)), Some(sid)) = (&hooks, o.session)
        && !at.is_empty()
    {
        let written = match &outcome {
            Ok(Ok(w)) => Some(w.path.clone()),
            _ => None,
        };
        let outcomes =
            super::user_hooks::fire_threshold(paths, env, cfg, sid, at, written.as_deref());
        super::user_hooks::record_hooks(paths, env, sid, outcomes);
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
        && let Ok(paths) = super::project::project_paths(o.project, env)
        && paths.forge_dir().is_dir()
    {
        store::log_error(&paths, "handoff --auto", &problem);
    }
}

/// The message for a handoff that was written but could not be made pending.
pub(crate) fn not_pending(path: &std::path::Path, e: &std::io::Error) -> String {
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
pub(crate) fn writing_lock(o: &Options<'_>, env: &Env) -> Option<store::FileLock> {
    let paths = super::project::project_paths(o.project, env).ok()?;
    paths
        .logs()
        .is_dir()
        .then(|| store::FileLock::acquire(&paths.handoff_lock(), WRITING_WAIT))
        .flatten()
}

/// Claims the session's threshold crossing: true for the one process that wins it.
fn claim(o: &Options<'_>, env: &Env) -> bool {
    let (Ok(paths), Some(sid)) = (
        super::project::project_for_writing(o.project, env),
        o.session,
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

pub(crate) fn write(o: &Options<'_>, env: &Env) -> anyhow::Result<super::session_handoff::Written> {
    let Some(trigger) = Trigger::parse(o.trigger) else {
        bail!(
            "unknown --trigger {:?}: use one of context-threshold, pre-compact, manual, session-end, relay",
            o.trigger
        );
    };
    let paths = super::project::project_for_writing(o.project, env)?;
    let cfg = config::load_or_default(&paths, env);
    // A unique start of a known session's id names it (as every --session does); a
    // session forge has no bridge for is looked for by its whole id below.
    let resolved = match o.session.map(str::trim) {
        Some("") if !o.auto => bail!("--session needs a session id (or the start of one)"),
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
    let transcript_path = match o.transcript {
        Some(p) => Some(checked_transcript(p)?),
        None if o.auto => None,
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
    let session = match (session, o.transcript, &stem) {
        (Some(id), _, _) => Some(id),
        (None, Some(_), Some(stem)) if transcript::is_session_id(stem) => Some(stem.as_str()),
        (None, Some(_), _) => Some(""),
        (None, None, _) => None,
    };
    let transcript_text = transcript_path
        .as_ref()
        .map(|p| p.to_string_lossy().into_owned());
    let req = super::session_handoff::Request {
        git: super::session_handoff::GitInput::Compute,
        trigger,
        session_id: session,
        transcript_path: transcript_text.as_deref(),
        task: None,
        pending: true,
    };
    let result = super::session_handoff::write_detailed(&paths, env, &cfg, &req);
    record(&paths, env, o, trigger, session, &result);
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
    o: &Options<'_>,
    trigger: Trigger,
    session: Option<&str>,
    result: &std::io::Result<super::session_handoff::Written>,
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
    if o.auto {
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
