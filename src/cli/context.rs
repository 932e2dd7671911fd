//! `forge context`: the context size of a session from its transcript.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap_complete::engine::ArgValueCandidates;
use serde_json::json;

use crate::config;
use crate::env::Env;
use crate::model::session::level::Level;
use crate::model::session::state::SessionBridge;
use crate::model::session::transcript::{TailScan, infer_window_with_source, pct_of};
use crate::store::{files, sessions, transcript};

/// Show a session's context use: tokens, window, percentage, level, compactions
///
/// For a session (--session, or by default the one `forge status` shows: the most
/// recently active live session) the figures are the session's own, the ones
/// `forge status`, `forge sessions` and the dashboard show: what the status line
/// last reported (or, in print mode, what the last Stop hook read from the
/// transcript), and the compactions forge recorded for it. Until there is such a
/// figure, and for a TRANSCRIPT file given directly, the size comes from the end of
/// the transcript (the last main-chain API usage, or the last compaction's
/// estimate), the window from the statusline, else the model, else the 200000
/// default (it says which), and the compactions are counted in the transcript (up
/// to 1 GiB). Percentages are rounded as Claude Code rounds them.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge context\n  forge context ~/.claude/projects/-home-me-app/3f0c2a9e.jsonl --json\n  forge context --session 3f0c2a9e"
)]
pub(crate) struct ContextArgs {
    /// A transcript file (default: the session's, from its bridge file).
    #[arg(value_name = "TRANSCRIPT", conflicts_with = "session")]
    pub(crate) transcript: Option<PathBuf>,
    /// The session: its id or a unique start of it (default: the most recently
    /// active live session).
    #[arg(
        long,
        value_name = "ID",
        add = ArgValueCandidates::new(crate::app::complete::complete_session)
    )]
    pub(crate) session: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge context`.
pub(crate) fn run(args: &ContextArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = crate::app::project::project_paths(args.project.as_ref(), env)?;
    let cfg = config::load_or_default(&paths, env);
    let bridge = match &args.session {
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
        None if args.transcript.is_none() => {
            let all = sessions::load_sessions(&paths);
            crate::model::snapshot::current_of(&all, env.now, cfg.attention.stale_after()).cloned()
        }
        None => None,
    };
    let mut report = match (&args.transcript, &bridge) {
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
            Some(p)
                if p.is_file() && crate::app::session_handoff::is_claude_transcript(env, &p) =>
            {
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
        let (_, by_session) = crate::app::snapshot::compactions(&paths);
        report["session_id"] = json!(b.session_id);
        report["compactions"] = json!(by_session.get(&b.session_id).copied().unwrap_or(0));
        report["compactions_capped"] = json!(false);
        report["compactions_source"] = json!("forge");
    } else {
        report["compactions_source"] = json!("transcript");
    }
    if args.json {
        super::print_json(&report)?;
    } else {
        super::print_out(&render(&report));
    }
    Ok(ExitCode::SUCCESS)
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

fn render(r: &serde_json::Value) -> String {
    let num = |k: &str| r.get(k).and_then(serde_json::Value::as_u64);
    let mut out = format!(
        "transcript   {}\n",
        r["transcript"].as_str().unwrap_or("(none recorded)")
    );
    if let Some(note) = r["note"].as_str() {
        let _ = writeln!(out, "note         {note}");
    }
    let tokens = num("tokens").map_or_else(|| "unknown".to_owned(), |t| t.to_string());
    let note = if r["estimate"] == true {
        " (estimate after compaction)"
    } else if r["compacted"] == true {
        " (compacted; no usage since)"
    } else {
        ""
    };
    let _ = writeln!(out, "tokens       {tokens}{note}");
    let window_note = match r["window_source"].as_str().unwrap_or("default") {
        "default" => "(default)".to_owned(),
        "tokens" => "(inferred: more than 200000 tokens in context)".to_owned(),
        other => format!("(from {other})"),
    };
    let _ = writeln!(
        out,
        "window       {} {window_note}",
        num("window").unwrap_or(0),
    );
    let pct = num("used_percentage").map_or_else(|| "unknown".to_owned(), |p| format!("{p}%"));
    let _ = writeln!(out, "used         {pct}");
    let _ = writeln!(
        out,
        "level        {}",
        r["level"].as_str().unwrap_or("unknown")
    );
    let _ = writeln!(
        out,
        "compactions  {}{}",
        num("compactions").map_or_else(|| "unknown".to_owned(), |n| n.to_string()),
        if r["compactions_capped"] == true {
            " (counted in the first 1 GiB only)"
        } else if r["compactions_source"] == "forge" {
            " (recorded by forge for this session)"
        } else {
            ""
        }
    );
    out
}
