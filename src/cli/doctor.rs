//! `forge doctor`: checks that forge is wired up and the project's forge-related files
//! are sound, and says what to do about each problem. The checks are
//! [`crate::app::doctor`]'s; this file parses, runs them and prints.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::doctor::{Check, Status, run_checks};
use crate::app::project::{Paths, locate_project};
use crate::env::Env;
use crate::model::text::count;

/// Check forge's setup and explain what to fix
///
/// Checks: forge wired into the settings (pointing at a binary that exists, or at
/// `forge` found on PATH), how the shared .claude/settings.json behaves for a
/// teammate without forge (guarded entries do nothing there; plain `forge hook …`
/// ones fail on every event), forge's hooks wired twice with different commands (so
/// each event runs twice), the forge binary the slash commands run, the
/// statusLine, forge's Claude Code plugin (installed for this project, and not
/// wired twice with settings entries), `.forge/` git-ignored, hook commands whose
/// script is missing (a failure in your own settings, a warning in the shared
/// .claude/settings.json),
/// `model:` in .claude/commands and .claude/agents (opus, sonnet, haiku, inherit or
/// a full model id such as claude-sonnet-4-6), every agent Signal in
/// .forge/handoffs, learned-*.md memory files free of secret-looking text,
/// MEMORY.md size, the config files, every program your own config runs
/// ([notify] command, [[on_threshold]] and [[on_session_start]] commands), and
/// that every secret pattern compiles. Exits 1 when a check fails.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge doctor\n",
        "  forge doctor --json | jq '.checks[] | select(.status != \"ok\")'"
    )
)]
pub(crate) struct DoctorArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Print the checks as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs `forge doctor`.
pub(crate) fn run(args: &DoctorArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = locate_project(args.project.as_ref(), env)?;
    let checks = run_checks(&paths, env);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    if args.json {
        let v = serde_json::json!({
            "project": paths.root,
            "ok": !failed,
            "checks": checks,
        });
        super::print_json(&v)?;
    } else {
        super::print_out(&render(&paths, &checks));
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The checks as text for people.
pub(crate) fn render(paths: &Paths, checks: &[Check]) -> String {
    let mut out = format!("forge doctor: {}\n", paths.root.display());
    for c in checks {
        let mark = match c.status {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        };
        let _ = writeln!(out, "  {mark}  {:<16} {}", c.name, c.summary);
        for d in &c.details {
            let _ = writeln!(out, "          - {d}");
        }
    }
    let fails = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warns = checks.iter().filter(|c| c.status == Status::Warn).count();
    let _ = writeln!(
        out,
        "{}",
        match (fails, warns) {
            (0, 0) => "Everything looks right.".to_owned(),
            (0, w) => format!("No problems; {}.", count(w, "warning", "warnings")),
            (f, w) => format!(
                "{}, {}.",
                count(f, "problem", "problems"),
                count(w, "warning", "warnings")
            ),
        }
    );
    out
}
