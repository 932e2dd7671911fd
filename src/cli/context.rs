//! `forge context`: the context size of a session from its transcript.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use color_eyre::eyre::{bail, eyre};
use serde_json::json;

use crate::config;
use crate::env::Env;
use crate::model::Level;
use crate::model::transcript::{TailScan, infer_window};
use crate::store::{files, session_handoff, transcript};

/// Show a session's context use: tokens, window, percentage, level, compactions
///
/// The size comes from the end of the transcript (the last main-chain API usage, or
/// the last compaction's estimate). The window is the one the statusline last
/// recorded for the session, else inferred from the model. Compactions are counted
/// by streaming the whole transcript, up to 1 GiB (the count says when it was capped).
///
/// Examples:
///   forge context
///   forge context ~/.claude/projects/-home-me-app/3f0c2a9e.jsonl --json
///   forge context --session 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ContextArgs {
    /// A transcript file (default: the session's, from its bridge file).
    #[arg(value_name = "TRANSCRIPT", conflicts_with = "session")]
    pub transcript: Option<PathBuf>,
    /// The session (default: the most recently updated one).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Runs `forge context`.
pub fn run(args: &ContextArgs, env: &Env) -> color_eyre::Result<ExitCode> {
    let paths = super::status::project_paths(args.project.as_ref(), env)?;
    let cfg = config::load_or_default(&paths, env);
    let bridge = match &args.session {
        Some(id) => Some(files::read_bridge(&paths, id).ok_or_else(|| {
            eyre!(
                "no session {id} in {}: run `forge status` to see known sessions",
                paths.sessions().display()
            )
        })?),
        None if args.transcript.is_none() => session_handoff::latest_bridge(&paths),
        None => None,
    };
    let path: PathBuf = match (&args.transcript, &bridge) {
        (Some(p), _) => p.clone(),
        (None, Some(b)) => match &b.transcript_path {
            Some(p) => PathBuf::from(p),
            None => bail!(
                "session {} has no transcript path recorded yet; pass the transcript file",
                b.session_id
            ),
        },
        (None, None) => bail!(
            "no session recorded in {} yet: pass a transcript file (forge context FILE)",
            paths.sessions().display()
        ),
    };
    if !path.is_file() {
        bail!("{}: no such transcript file", path.display());
    }
    let report = measure(
        &path,
        bridge.as_ref().and_then(|b| b.context_window_size),
        &cfg,
    )?;
    if args.json {
        super::print_out(&format!("{}\n", serde_json::to_string_pretty(&report)?));
    } else {
        super::print_out(&render(&report));
    }
    Ok(ExitCode::SUCCESS)
}

fn measure(
    path: &Path,
    declared_window: Option<u64>,
    cfg: &config::Config,
) -> color_eyre::Result<serde_json::Value> {
    let scan = transcript::tail_context(path);
    let tokens = scan.tokens();
    let (model, output, compacted) = match &scan {
        TailScan::Usage { usage, model, .. } => (model.clone(), Some(usage.output), false),
        TailScan::Compacted { .. } => (None, None, true),
        TailScan::Nothing => (None, None, false),
    };
    let window = infer_window(declared_window, model.as_deref(), tokens);
    let pct = tokens.map(|t| (t as f64 / window as f64 * 100.0).clamp(0.0, 100.0));
    let level = pct.map(|p| Level::from_pct(p, &cfg.context.thresholds()));
    let (compactions, capped) = transcript::count_compactions(path, transcript::COUNT_CAP)?;
    Ok(json!({
        "transcript": path.display().to_string(),
        "tokens": tokens,
        "output_tokens": output,
        "window": window,
        "window_source": if declared_window.is_some() { "statusline" } else { "model" },
        "used_percentage": pct.map(|p| (p * 10.0).round() / 10.0),
        "level": level.map(Level::as_str),
        "model": model,
        "compacted": compacted,
        "estimate": compacted && tokens.is_some(),
        "compactions": compactions,
        "compactions_capped": capped,
    }))
}

fn render(r: &serde_json::Value) -> String {
    let num = |k: &str| r.get(k).and_then(serde_json::Value::as_u64);
    let mut out = format!("transcript   {}\n", r["transcript"].as_str().unwrap_or(""));
    let tokens = num("tokens").map_or_else(|| "unknown".to_owned(), |t| t.to_string());
    let note = if r["estimate"] == true {
        " (estimate after compaction)"
    } else if r["compacted"] == true {
        " (compacted; no usage since)"
    } else {
        ""
    };
    out.push_str(&format!("tokens       {tokens}{note}\n"));
    out.push_str(&format!(
        "window       {} (from {})\n",
        num("window").unwrap_or(0),
        r["window_source"].as_str().unwrap_or("model")
    ));
    let pct = r["used_percentage"]
        .as_f64()
        .map_or_else(|| "unknown".to_owned(), |p| format!("{p}%"));
    out.push_str(&format!("used         {pct}\n"));
    out.push_str(&format!(
        "level        {}\n",
        r["level"].as_str().unwrap_or("unknown")
    ));
    out.push_str(&format!(
        "compactions  {}{}\n",
        num("compactions").unwrap_or(0),
        if r["compactions_capped"] == true {
            " (counted in the first 1 GiB only)"
        } else {
            ""
        }
    ));
    out
}
