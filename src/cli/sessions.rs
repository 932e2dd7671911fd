//! `forge sessions`: the sessions forge knows in a project, with the same context %
//! and compaction count as `forge status`, `forge context` and the dashboard.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{DateTime, Utc};

use crate::app::status::{Row, Sessions};
use crate::env::Env;
use crate::model::session::level::Thresholds;
use crate::model::snapshot::Snapshot;
use crate::model::snapshot::last_heard;
use crate::model::text::sanitize::single_line;
use crate::model::time::age;

/// List the sessions of this project: id, last event, context %, compactions, state
///
/// Newest first (by their last hook event), at most the 50 most recently updated.
/// The id column is the first 8 characters: any unique start of an id works as
/// --session in every command (forge context, forge handoff, forge log). `*`
/// marks the session `forge status` and the dashboard's gauge show (the most
/// recently active live one). A session is live until it ends or is silent for
/// longer than [attention] stale_after (default 30 min); --live lists only those.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  forge sessions\n  forge sessions --live\n  forge sessions --json | jq '.[] | select(.attention == \"waiting:permission\")'"
)]
pub(crate) struct SessionsArgs {
    /// Only live sessions (not ended, heard from within [attention] stale_after).
    #[arg(long)]
    pub(crate) live: bool,
    /// Print JSON: a list of sessions with whole ids.
    #[arg(long)]
    pub(crate) json: bool,
    /// Project folder (default: found from the current folder).
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge sessions`.
pub(crate) fn run(args: &SessionsArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = crate::app::project::project_paths(args.project.as_ref(), env)?;
    let report = Sessions::load(&paths, env);
    let rows = report.rows(args.live);
    if args.json {
        super::print_json_shown(&report.to_json(&rows))?;
    } else {
        super::print_shown(&render(
            &report.snapshot,
            &rows,
            &report.thresholds,
            env.now,
            args.live,
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(
    snap: &Snapshot,
    rows: &[Row<'_>],
    thresholds: &Thresholds,
    now: DateTime<Utc>,
    live_only: bool,
) -> String {
    if rows.is_empty() {
        return if live_only {
            "No live session (none has had a hook event within [attention] stale_after). `forge sessions` lists them all.\n".to_owned()
        } else {
            "No session recorded in .forge/logs/sessions yet: they appear once Claude Code runs forge's hooks (`forge init` wires them).\n".to_owned()
        };
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<8}  {:<22}  {:<8}  {:>11}  STATE",
        "ID", "LAST EVENT", "CONTEXT", "COMPACTIONS"
    );
    for r in rows {
        let b = r.bridge;
        let last = format!(
            "{} {}",
            age(now, last_heard(b)),
            // A session only the status line has reported on has no hook event yet.
            single_line(b.last_event.as_deref().unwrap_or(if b.readings.is_empty() {
                "-"
            } else {
                "status line"
            }))
        );
        let context = b.context_pct().map_or_else(
            || "-".to_owned(),
            |p| {
                format!(
                    "{p:.0}% {}",
                    crate::model::session::level::Level::from_pct(p, thresholds)
                )
            },
        );
        let state = match (&b.attention_message, r.state) {
            (Some(m), "permission" | "input") => {
                format!(
                    "{}: {}",
                    r.state,
                    crate::model::text::sanitize::cut_chars(
                        &single_line(&crate::model::text::redact::redact(m)),
                        200
                    )
                )
            }
            _ => r.state.to_owned(),
        };
        let _ = writeln!(
            out,
            "{} {:<8}  {:<22}  {:<8}  {:>11}  {state}",
            if r.current { "*" } else { " " },
            crate::model::text::sanitize::short_id(&b.session_id),
            crate::model::text::sanitize::cut_chars(&last, 22),
            context,
            snap.compactions_of(&b.session_id),
        );
    }
    out.push_str(
        "\n* the session `forge status` and the dashboard show. Any unique start of an id works as --session.\n",
    );
    out
}
