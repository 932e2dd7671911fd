//! `forge context`: the context size of a session from its transcript.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap_complete::engine::ArgValueCandidates;

use crate::env::Env;

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
    let report = crate::app::context::report(
        args.transcript.as_ref(),
        args.session.as_deref(),
        args.project.as_ref(),
        env,
    )?;
    if args.json {
        super::print_json(&report)?;
    } else {
        super::print_out(&render(&report));
    }
    Ok(ExitCode::SUCCESS)
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
