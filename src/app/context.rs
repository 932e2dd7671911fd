//! `forge context`'s report: a session's context use, from the figures forge
//! recorded for it (its bridge) or measured from the end of a transcript.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};
use serde_json::json;

use crate::config;
use crate::env::Env;
use crate::model::session::level::Level;
use crate::model::session::state::SessionBridge;
use crate::model::session::transcript::{TailScan, infer_window_with_source, pct_of};
use crate::store::{files, sessions, transcript};

/// The report `forge context` prints (as JSON, or in words): for `transcript` when
/// given, else for the session `session` names (an id or a unique start of one),
/// else for the session `forge status` shows.
pub(crate) fn report(
    transcript: Option<&PathBuf>,
    session: Option<&str>,
    project: Option<&PathBuf>,
    env: &Env,
) -> anyhow::Result<serde_json::Value> {
    let paths = super::project::project_paths(project, env)?;
    let cfg = config::load_or_default(&paths, env);
    let bridge = match session {
        Some(given) => {
            let id = sessions::resolve(&paths, given, &[])
                .map_err(|e| anyhow!("--session: {e} (in {})", paths.sessions().display()))?;
            Some(files::read_bridge(&paths, &id).ok_or_else(|| {
                anyhow!(
                    "no session {} in {}: run `forge sessions` to see known sessions",
                    crate::model::text::sanitize::single_line(&id),
                    paths.sessions().display()
                )
            })?)
        }
        // The session `forge status` and the dashboard's gauge show.
        None if transcript.is_none() => {
            let all = sessions::load_sessions(&paths);
            crate::model::snapshot::current_of(&all, env.now, cfg.attention.stale_after()).cloned()
        }
        None => None,
    };
    let mut report = match (transcript, &bridge) {
        (Some(p), _) => {
            if p.is_dir() {
                bail!(
                    "{} is a folder, not a transcript file: pass the session's .jsonl file \
                     (in ~/.claude/projects/<project>/)",
                    p.display()
                );
            }
            if !p.is_file() {
                bail!("{}: no such transcript file", p.display());
            }
            measure(p, bridge.as_ref().and_then(|b| b.context_window_size), &cfg)?
        }
        // The session's own figure when it has one (the status line's, or the one a
        // Stop hook read from the transcript in print mode): the figure `forge
        // status`, `forge sessions` and the dashboard show.
        (None, Some(b)) if b.context_pct().is_some() => {
            let recorded = b.transcript_path.as_deref().map(PathBuf::from);
            let gone = recorded.as_deref().filter(|p| !p.is_file());
            from_bridge(b, recorded.as_deref(), gone.is_some(), &cfg)
        }
        // A path a bridge names is read only when it is a Claude Code transcript (a
        // bridge is a file a repository could ship).
        (None, Some(b)) => match b.transcript_path.as_deref().map(PathBuf::from) {
            Some(p) if p.is_file() && super::session_handoff::is_claude_transcript(env, &p) => {
                measure(&p, b.context_window_size, &cfg)?
            }
            recorded => {
                if b.used_percentage.is_none() && b.tokens.is_none() {
                    match recorded {
                        Some(p) => bail!(
                            "{}: no such transcript file (session {} recorded it, and no \
                             context figure yet); pass the transcript file",
                            p.display(),
                            b.session_id
                        ),
                        None => bail!(
                            "session {} has no transcript path recorded yet; pass the transcript file",
                            b.session_id
                        ),
                    }
                }
                from_bridge(b, recorded.as_deref(), true, &cfg)
            }
        },
        (None, None) => bail!(
            "no session recorded in {} yet: pass a transcript file (forge context FILE)",
            paths.sessions().display()
        ),
    };
    // For a session, the compactions are the ones forge recorded for it (one per
    // compaction the transcript proves): the count everything else shows.
    if let Some(b) = &bridge {
        let (_, by_session) = super::snapshot::compactions(&paths);
        report["session_id"] = json!(b.session_id);
        report["compactions"] = json!(by_session.get(&b.session_id).copied().unwrap_or(0));
        report["compactions_capped"] = json!(false);
        report["compactions_source"] = json!("forge");
    } else {
        report["compactions_source"] = json!("transcript");
    }
    Ok(report)
}

fn measure(
    path: &Path,
    declared_window: Option<u64>,
    cfg: &config::Config,
) -> anyhow::Result<serde_json::Value> {
    let scan = transcript::tail_context(path);
    let tokens = scan.tokens();
    let (model, output, compacted) = match &scan {
        TailScan::Usage { usage, model, .. } => (model.clone(), Some(usage.output), false),
        TailScan::Compacted { .. } => (None, None, true),
        TailScan::Nothing => (None, None, false),
    };
    let (window, window_source) =
        infer_window_with_source(declared_window, model.as_deref(), tokens);
    let pct = tokens.map(|t| pct_of(t, window));
    let level = pct.map(|p| Level::from_pct(p, &cfg.context.thresholds()));
    let (compactions, capped) = transcript::count_compactions(path, transcript::COUNT_CAP)?;
    Ok(json!({
        "transcript": path.display().to_string(),
        "source": "transcript",
        "note": null,
        "tokens": tokens,
        "output_tokens": output,
        "window": window,
        "window_source": window_source.as_str(),
        "used_percentage": pct.map(|p| p as u64),
        "level": level.map(Level::as_str),
        "model": model,
        "compacted": compacted,
        "estimate": compacted && tokens.is_some(),
        "compactions": compactions,
        "compactions_capped": capped,
    }))
}

/// The report from what the statusline last recorded in the session's bridge, for
/// when the transcript is gone (or was never recorded).
fn from_bridge(
    b: &SessionBridge,
    recorded: Option<&Path>,
    gone: bool,
    cfg: &config::Config,
) -> serde_json::Value {
    let (window, window_source) =
        infer_window_with_source(b.context_window_size, b.model.as_deref(), b.tokens);
    let pct = b
        .context_pct()
        .or_else(|| b.tokens.map(|t| pct_of(t, window)));
    let level = pct.map(|p| Level::from_pct(p, &cfg.context.thresholds()));
    let when = b.updated_at.as_deref().unwrap_or("an unknown time");
    let who = if b.readings.is_empty() {
        "the last Stop hook read from the transcript"
    } else {
        "the statusline recorded"
    };
    let note = match recorded {
        Some(p) if gone => format!(
            "the transcript {} is gone; showing what {who} at {when}",
            p.display()
        ),
        Some(_) => format!("what {who} at {when}"),
        None => format!("no transcript recorded; showing what {who} at {when}"),
    };
    json!({
        "transcript": recorded.map(|p| p.display().to_string()),
        "source": "bridge",
        "note": note,
        "session_id": b.session_id,
        "tokens": b.tokens,
        "output_tokens": null,
        "window": window,
        "window_source": window_source.as_str(),
        "used_percentage": pct.map(|p| p as u64),
        "level": level.map(Level::as_str),
        "model": b.model,
        "compacted": false,
        "estimate": false,
        "compactions": null,
        "compactions_capped": false,
    })
}
