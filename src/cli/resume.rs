//! `forge resume`: list the handoff inbox, choose the handoff the next session loads,
//! or print it (with drift notes) for `claude "$(forge resume --print)"`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap_complete::engine::ArgValueCompleter;

use crate::app::project::project_paths;
use crate::app::resume::{self as app, pending};
use crate::env::Env;

/// List handoffs, choose the one the next session resumes from, or print it
///
/// With no arguments, lists session and agent handoffs in the order `forge status`
/// and the dashboard use: unresolved blocked Signals first, then newest first.
/// Choosing one writes .forge/pending-resume and ~/.claude/pending-resume; the next
/// session's SessionStart hook loads it. A handoff is named by its ID (the stamp
/// in its file name, e.g. 20261121-094500; a unique start of one works too), which
/// never changes, by its number in the list (a convenience: numbers shift when a
/// handoff lands), by the path or name of a handoff-*.md or agent-*.md file, or
/// with --latest. --print writes the chosen (or pending) handoff with drift notes
/// to stdout.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge resume                 # list\n",
        "  forge resume --json | jq -r '.handoffs[0].id'\n",
        "  forge resume 20261121-094500 # the next session resumes from that handoff\n",
        "  forge resume 2               # ... from #2 in the list\n",
        "  forge resume --latest        # ... from the newest session handoff\n",
        "  claude \"$(forge resume --latest --print --clear)\"\n",
        "  forge resume --clear         # nothing pending"
    )
)]
pub(crate) struct ResumeArgs {
    /// A handoff's ID (its file stamp, or a unique start of it), its number in the
    /// list, or the path of a handoff-*.md / agent-*.md file.
    #[arg(
        value_name = "ID|N|PATH",
        conflicts_with = "latest",
        add = ArgValueCompleter::new(crate::app::complete::complete_handoff)
    )]
    pub(crate) selection: Option<String>,
    /// Choose the newest session handoff.
    #[arg(long)]
    pub(crate) latest: bool,
    /// Print the chosen (or pending) handoff with drift notes.
    #[arg(long)]
    pub(crate) print: bool,
    /// Remove the pending-resume markers (after printing, with --print).
    #[arg(long)]
    pub(crate) clear: bool,
    /// Print the list as JSON (in the list's order, with each handoff's number, ID,
    /// file, kind, status, branch and title, and which one is pending).
    #[arg(long, conflicts_with_all = ["selection", "latest", "print", "clear"])]
    pub(crate) json: bool,
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge resume`.
pub(crate) fn run(args: &ResumeArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let list = app::list(&paths);
    if args.json {
        super::print_json_shown(&app::list_json(
            &list,
            pending(&paths, env).as_deref(),
            env.now,
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    let chosen = if args.latest {
        Some(app::latest_session(&list)?.path.clone())
    } else if let Some(sel) = &args.selection {
        Some(app::select(sel, &list, &paths, env)?)
    } else {
        None
    };

    if let Some(target) = &chosen {
        if args.clear && !args.print {
            bail!(
                "choose a handoff or --clear, not both (--clear with --print prints it, then clears)"
            );
        }
        if !args.clear {
            let markers = app::choose(&paths, env, target)?;
            say(
                args.print,
                &format!(
                    "The next session will resume from {}\n(markers: {})\n",
                    crate::model::text::sanitize::single_line(&target.display().to_string()),
                    crate::model::text::sanitize::single_line(&join_paths(&markers.written))
                ),
            );
            if let Some((global, e)) = &markers.global_error {
                eprintln!(
                    "forge: warning: could not write {} ({e}); sessions in this project still \
                     resume from .forge/pending-resume",
                    global.display()
                );
            }
        }
    }

    if args.print {
        let target = match chosen.clone() {
            Some(t) => t,
            None => pending(&paths, env).ok_or_else(|| {
                anyhow!(
                    "nothing is pending: choose a handoff with `forge resume N` or `forge resume --latest` (run `forge resume` to list them)"
                )
            })?,
        };
        super::print_shown(&app::print_text(&target, &paths, env.now)?);
    }

    if args.clear {
        let removed = app::clear(&paths, env);
        let msg = if removed.is_empty() {
            "Nothing was pending.\n".to_owned()
        } else {
            format!("Cleared the pending resume ({})\n", join_paths(&removed))
        };
        say(args.print, &msg);
    }

    if chosen.is_none() && !args.print && !args.clear {
        let pending = pending(&paths, env);
        super::print_shown(&crate::ui::lists::render_list(
            &list,
            |h| app::is_pending(pending.as_deref(), h),
            env.now,
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// A message for the person: on stdout, or on stderr with `--print` (then stdout
/// carries only the handoff, for `claude "$(forge resume --print)"`).
fn say(print: bool, msg: &str) {
    if print {
        super::print_err(msg);
    } else {
        super::print_out(msg);
    }
}

fn join_paths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
