//! `forge learn status|done|archive`: the learn flag and the project's Claude Code
//! memory folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::json;

use crate::app::learn::Archived;
use crate::app::project::{Paths, project_paths};
use crate::env::Env;

/// The learn reminder and the project's Claude Code memory (the /forge-learn output)
///
/// A session that changed files sets the learn flag when it stops; the next sessions
/// are reminded to run /forge-learn until `forge learn done` (which /forge-learn runs
/// last) or a learned-*.md newer than the flag clears it. `[learn] nudge = false`
/// keeps the flag but drops the reminder.
///
/// The memory folder is <claude dir>/projects/<name>/memory/, where <name> is the
/// project's real path with every character that is not a letter or digit replaced
/// by `-`, as Claude Code names it.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge learn             # the same as `forge learn status`\n",
        "  forge learn status\n",
        "  forge learn done        # learning is done: clear the reminder\n",
        "  forge learn archive     # when MEMORY.md is over [learn] memory_max_lines (180)"
    )
)]
pub(crate) struct LearnArgs {
    /// What to do (default: status).
    #[command(subcommand)]
    pub(crate) action: Option<LearnAction>,
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR", global = true)]
    pub(crate) project: Option<PathBuf>,
}

/// `forge learn` actions.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum LearnAction {
    /// Show whether learning is pending, the memory folder, MEMORY.md's size and the
    /// learned-*.md files.
    Status {
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Clear the learn flag: what the sessions so far changed has been learned from.
    /// Live sessions start counting changes again from now.
    Done,
    /// Keep MEMORY.md's newest lines within [learn] memory_max_lines (default 180)
    /// and move the older ones to memory/archive-YYYY-MM-DD.md, with a pointer.
    Archive,
}

/// Runs `forge learn`.
pub(crate) fn run(args: &LearnArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let dir = crate::app::learn::memory_dir(&paths, env)
        .ok_or_else(|| anyhow!("HOME is not set: set HOME or CLAUDE_CONFIG_DIR and try again"))?;
    let limit = crate::config::load(&paths, env)
        .map_err(|e| anyhow!("{e}\nFix the file, or check it with `forge config validate`."))?
        .config
        .learn
        .memory_max_lines;
    match args
        .action
        .as_ref()
        .unwrap_or(&LearnAction::Status { json: false })
    {
        &LearnAction::Status { json } => status(&paths, env, &dir, json, limit),
        LearnAction::Done => done(&paths, env),
        LearnAction::Archive => archive(&dir, env, limit),
    }
}

fn done(paths: &Paths, env: &Env) -> anyhow::Result<ExitCode> {
    let d = crate::app::learn::done(paths, env)
        .with_context(|| format!("clearing {}", paths.learn_pending().display()))?;
    let mut out = if d.cleared {
        "Learn reminder cleared.".to_owned()
    } else {
        "No learn reminder was pending.".to_owned()
    };
    if d.sessions > 0 {
        let _ = write!(
            out,
            " Changes count from now on in {}.",
            super::count(d.sessions, "live session", "live sessions")
        );
    }
    out.push('\n');
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}

fn status(
    paths: &Paths,
    env: &Env,
    dir: &Path,
    as_json: bool,
    limit: usize,
) -> anyhow::Result<ExitCode> {
    let crate::app::learn::Status {
        pending,
        dir_exists,
        lines,
        learned,
    } = crate::app::learn::status(paths, env, dir);
    if as_json {
        let v = json!({
            "learn_pending": pending,
            "memory_dir": dir,
            "memory_dir_exists": dir_exists,
            "memory_md_lines": lines,
            "memory_md_limit": limit,
            "learned": learned.iter().map(|(n, l)| json!({"file": n, "lines": l})).collect::<Vec<_>>(),
        });
        super::print_json(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Learn pending: {}",
        if pending {
            "yes (a session changed files; run /forge-learn in Claude Code, or `forge learn done`)"
        } else {
            "no"
        }
    );
    let _ = writeln!(
        out,
        "Memory folder: {}{}",
        dir.display(),
        if dir_exists { "" } else { " (not created yet)" }
    );
    match lines {
        Some(n) if n > limit => {
            let _ = writeln!(
                out,
                "MEMORY.md: {} (over {limit}: run `forge learn archive`)",
                super::count(n, "line", "lines")
            );
        }
        Some(n) => {
            let _ = writeln!(out, "MEMORY.md: {}", super::count(n, "line", "lines"));
        }
        None => out.push_str("MEMORY.md: none\n"),
    }
    if learned.is_empty() {
        out.push_str("Learned patterns: none (run /forge-learn in Claude Code to extract some)\n");
    } else {
        let _ = writeln!(out, "Learned patterns: {}", learned.len());
        for (name, n) in &learned {
            let _ = writeln!(out, "  {name} ({})", super::count(*n, "line", "lines"));
        }
    }
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}

fn archive(dir: &Path, env: &Env, limit: usize) -> anyhow::Result<ExitCode> {
    let text = match crate::app::learn::archive(dir, env, limit)? {
        Archived::NoMemory => format!("No MEMORY.md in {}: nothing to archive.\n", dir.display()),
        Archived::Within(lines) => format!(
            "MEMORY.md has {} (limit {limit}): nothing to archive.\n",
            super::count(lines, "line", "lines")
        ),
        Archived::Moved {
            moved,
            archive,
            kept,
        } => format!(
            "Moved the oldest {} of MEMORY.md to {}\nMEMORY.md keeps the newest, and points at the archive ({}).\n",
            super::count(moved, "line", "lines"),
            archive.display(),
            super::count(kept, "line", "lines")
        ),
    };
    super::print_out(&text);
    Ok(ExitCode::SUCCESS)
}
