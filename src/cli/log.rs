//! `forge log`: what forge did, read back from `.forge/logs/events.jsonl`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, anyhow};
use chrono::Local;
use serde_json::Value;

use crate::app::log;
use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::activity::{self, format_row};
use crate::model::session::state::EventLine;
use crate::model::time::{Zone, parse_since};

/// How often `--follow` looks for new lines.
const POLL: Duration = Duration::from_millis(250);
/// How long `--follow` sleeps at a time while waiting (a Ctrl-C is seen this fast).
const NAP: Duration = Duration::from_millis(50);

/// Show what forge did: each hook call and what came of it, from the event log
///
/// One line per outcome (a tool call held back and why, a Stop blocked, a handoff
/// written, a resume injected, flags set or cleared, Signals surfaced, errors),
/// and one line for a call that did nothing worth a word: the local time, the
/// session (its first 8 characters), the event, and what happened. It reads
/// .forge/logs/events.jsonl and the rotated events.jsonl.1, oldest first.
///
/// -n N keeps the last N calls that match (like tail -n).
/// --session takes a session id or the start of one (like git's short hashes);
/// --since takes 30s, 10m, 1h, 2d, 1w or a date and time (2026-11-21T10:00, local
/// time unless it has an offset). --json prints the matching lines as they are in
/// the file, one JSON object a line. --follow keeps printing lines as hooks write
/// them, until Ctrl-C (or until what reads it goes away).
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge log\n  forge log -n 20\n  forge log --since 1h --session 3f0c\n  forge log -f\n  forge log --json | jq 'select(.outcomes)'"
)]
pub(crate) struct LogArgs {
    /// Keep printing new lines as they are written (Ctrl-C stops).
    #[arg(short, long)]
    pub(crate) follow: bool,
    /// Only this session (a whole id or a unique start of one).
    #[arg(
        long,
        value_name = "ID",
        add = clap_complete::engine::ArgValueCandidates::new(crate::app::complete::complete_session)
    )]
    pub(crate) session: Option<String>,
    /// Only the sessions of this `forge run` chain (its first session id, or a
    /// unique start of it), with the relay's own lines.
    #[arg(long, value_name = "ID", conflicts_with = "session")]
    pub(crate) chain: Option<String>,
    /// Only lines since then: 30s, 10m, 1h, 2d, 1w, or a date and time.
    #[arg(long, value_name = "WHEN")]
    pub(crate) since: Option<String>,
    /// Only the last N matching hook calls (each is one line of the log; with
    /// --follow, the last N, then every new one).
    #[arg(short = 'n', long = "lines", value_name = "N")]
    pub(crate) lines: Option<usize>,
    /// Print the lines as JSON (one object a line) instead of words.
    #[arg(long)]
    pub(crate) json: bool,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// The text `--json` or the words print for `line`.
fn render(value: &Value, line: &EventLine, json: bool) -> String {
    if json {
        // Lines written before their outcomes were redacted (or by an older forge)
        // are redacted as they leave (the words are, in `activity::rows`).
        let mut value = value.clone();
        crate::model::text::redact::redact_json(&mut value);
        let text = serde_json::to_string(&value).unwrap_or_default();
        return format!(
            "{}\n",
            crate::model::text::sanitize::json_for_terminal(&text)
        );
    }
    activity::rows(line)
        .iter()
        .map(|r| format!("{}\n", format_row(r, Zone::Local)))
        .collect()
}

/// Runs `forge log`.
pub(crate) fn run(args: &LogArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let since = match &args.since {
        Some(s) => Some(parse_since(s, env.now, &Local).map_err(|e| anyhow!("--since: {e}"))?),
        None => None,
    };
    let mut log = log::open(
        &paths,
        args.session.as_deref(),
        args.chain.as_deref(),
        since,
    )?;
    let mut printed = 0usize;
    let admitted: Vec<&(Value, EventLine)> = log
        .lines
        .iter()
        .filter(|(_, l)| log.select.admits(l))
        .collect();
    let skip = args.lines.map_or(0, |n| admitted.len().saturating_sub(n));
    for (value, line) in admitted.into_iter().skip(skip) {
        if super::try_print_out(&render(value, line, args.json)).is_err() {
            return Ok(ExitCode::SUCCESS);
        }
        printed += 1;
    }
    if !args.follow {
        if printed == 0 {
            super::print_err(&log::nothing_message(&paths, log.lines.is_empty()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    follow(&mut log, args.json)
}

/// Prints new lines as they come until Ctrl-C (or SIGTERM, SIGHUP), or until
/// stdout goes away (`forge log -f | head`): both end it with status 0.
fn follow(log: &mut log::Log, json: bool) -> anyhow::Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("watching for Ctrl-C")?;
    }
    loop {
        let mut slept = Duration::ZERO;
        while slept < POLL {
            if stop.load(Ordering::Relaxed) {
                return Ok(ExitCode::SUCCESS);
            }
            std::thread::sleep(NAP);
            slept += NAP;
        }
        for (value, line) in log.poll() {
            if super::try_print_out(&render(&value, &line, json)).is_err() {
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
}
