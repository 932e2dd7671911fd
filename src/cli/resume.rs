//! `forge resume`: list the handoff inbox, choose the handoff the next session loads,
//! or print it (with drift notes) for `claude "$(forge resume --print)"`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow, bail};
use chrono::{DateTime, Utc};
use clap_complete::engine::ArgValueCompleter;

use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::handoff::entry::Drift;
use crate::model::handoff::entry::{HandoffEntry, HandoffKind};
use crate::model::session::state::ResumeOrigin;
use crate::store::{self, Paths, files, handoffs};

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
    let list = handoffs::list(&paths);
    if args.json {
        super::print_json_shown(&list_json(&list, pending(&paths, env).as_deref(), env.now))?;
        return Ok(ExitCode::SUCCESS);
    }
    let chosen = if args.latest {
        Some(latest_session(&list)?.path.clone())
    } else if let Some(sel) = &args.selection {
        Some(select(sel, &list, &paths, env)?)
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
            let markers = files::write_pending_resume(&paths, env, target, ResumeOrigin::Chosen)
                .context("writing the pending-resume marker .forge/pending-resume")?;
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
        super::print_shown(&print_text(&target, &paths, env.now)?);
    }

    if args.clear {
        let removed = files::clear_pending_resume(&paths, env);
        let msg = if removed.is_empty() {
            "Nothing was pending.\n".to_owned()
        } else {
            format!("Cleared the pending resume ({})\n", join_paths(&removed))
        };
        say(args.print, &msg);
    }

    if chosen.is_none() && !args.print && !args.clear {
        super::print_shown(&render_list(
            &list,
            pending(&paths, env).as_deref(),
            env.now,
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The pending resume of this project: its own marker, else the global one, each
/// only when it names a handoff in this project's `.forge/handoffs/` (the rule
/// SessionStart uses, so `--print` never prints what a session would not load).
fn pending(paths: &Paths, env: &Env) -> Option<PathBuf> {
    files::pending_resume(paths, env).map(|(_, target)| target)
}

fn latest_session(list: &[HandoffEntry]) -> anyhow::Result<&HandoffEntry> {
    if list.is_empty() {
        bail!("no handoffs in .forge/handoffs yet: write one with `forge handoff`");
    }
    list.iter()
        .find(|h| h.kind == HandoffKind::Session)
        .ok_or_else(|| {
            anyhow!(
                "no session handoff yet (only agent handoffs): write one with `forge handoff`, or pick an agent handoff by number"
            )
        })
}

fn select(sel: &str, list: &[HandoffEntry], paths: &Paths, env: &Env) -> anyhow::Result<PathBuf> {
    let canonical =
        |h: &HandoffEntry| std::fs::canonicalize(&h.path).unwrap_or_else(|_| h.path.clone());
    // An ID: the stamp of a file name, `YYYYMMDD-HHMMSS[-N]` or a unique start of it
    // (eight digits and a dash at least, so a list number is never taken for one).
    let looks_like_id = sel.len() >= 9
        && sel.as_bytes().get(8) == Some(&b'-')
        && sel.chars().all(|c| c.is_ascii_digit() || c == '-');
    if looks_like_id {
        return match crate::model::handoff::entry::by_stamp_id(list, sel).as_slice() {
            [one] => Ok(canonical(one)),
            [] => Err(anyhow!(
                "no handoff has the ID {sel}: run `forge resume` to list them with their IDs"
            )),
            many => Err(anyhow!(
                "{sel} names {} handoffs: {}; give the file name instead",
                many.len(),
                many.iter()
                    .map(|h| crate::model::text::sanitize::single_line(&h.file_name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
    }
    if !sel.is_empty() && sel.chars().all(|c| c.is_ascii_digit()) {
        if list.is_empty() {
            bail!("no handoffs in .forge/handoffs yet: write one with `forge handoff`");
        }
        let n: usize = sel.parse().unwrap_or(0);
        let order = crate::model::handoff::entry::inbox_order(list);
        return n
            .checked_sub(1)
            .and_then(|i| order.get(i))
            .and_then(|i| list.get(*i))
            .map(|h| std::fs::canonicalize(&h.path).unwrap_or_else(|_| h.path.clone()))
            .ok_or_else(|| {
                anyhow!(
                    "there is no handoff #{sel}: the list has 1 to {} (run `forge resume` to see it)",
                    list.len()
                )
            });
    }
    let given = Path::new(sel);
    if !is_handoff_name(given) {
        bail!(
            "{sel} is not a handoff file: forge resumes from .forge/handoffs/handoff-*.md (session) or agent-*.md (agent) files; give a number from `forge resume`, or such a file"
        );
    }
    let candidates = [env.cwd.join(given), paths.handoffs().join(given)];
    let found = candidates
        .iter()
        .find(|p| std::fs::symlink_metadata(p).is_ok())
        .ok_or_else(|| {
            anyhow!(
                "no such handoff file: {sel} (give a path, a file name in .forge/handoffs, or a number from `forge resume`)"
            )
        })?;
    // SessionStart only loads a regular file in this project's .forge/handoffs/:
    // choosing anything else would leave nothing pending.
    let inside = found
        .parent()
        .and_then(|d| std::fs::canonicalize(d).ok())
        .zip(std::fs::canonicalize(paths.handoffs()).ok())
        .is_some_and(|(d, h)| d == h);
    if !inside {
        bail!(
            "{sel} is not in this project's {}: a session only resumes from a handoff there; copy it there first",
            paths.handoffs().display()
        );
    }
    let target = files::resume_target(paths, &std::path::absolute(found)?).ok_or_else(|| {
        anyhow!("{sel} is not a regular file (a link or a special file): forge only resumes from regular handoff files")
    })?;
    std::fs::canonicalize(&target).with_context(|| format!("resolving {}", target.display()))
}

/// Whether a file name is a handoff's: `handoff-*.md` or `agent-*.md`.
fn is_handoff_name(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
        n.len() > 3 && n.ends_with(".md") && (n.starts_with("handoff-") || n.starts_with("agent-"))
    })
}

/// The list of [`render_list`] as JSON: the same rows in the same order.
fn list_json(
    list: &[HandoffEntry],
    pending: Option<&Path>,
    now: DateTime<Utc>,
) -> serde_json::Value {
    let order = crate::model::handoff::entry::inbox_order(list);
    let rows: Vec<serde_json::Value> = order
        .iter()
        .map(|i| &list[*i])
        .enumerate()
        .map(|(i, h)| {
            serde_json::json!({
                "n": i + 1,
                "id": crate::model::handoff::entry::stamp_id(&h.file_name),
                "file": h.file_name,
                "path": h.path,
                "kind": h.kind.as_str(),
                "created": h.created,
                "age": crate::model::time::age(now, h.created),
                "status": h.status_word(),
                "branch": h.branch(),
                "task": h.task(),
                "route": h.route(),
                "title": h.display_title(),
                "pending": pending.is_some_and(|p| store::same_file(p, &h.path)),
            })
        })
        .collect();
    serde_json::json!({ "handoffs": rows, "pending": pending })
}

/// The numbered list in the one inbox order (blocked first, then newest), with
/// each handoff's stable ID; `→` marks the pending one.
pub(crate) fn render_list(
    list: &[HandoffEntry],
    pending: Option<&Path>,
    now: DateTime<Utc>,
) -> String {
    if list.is_empty() {
        return "No handoffs in .forge/handoffs yet. Write one with `forge handoff` (or `forge signal` for agents).\n".into();
    }
    let mut out = String::new();
    let name_w = list
        .iter()
        .map(|h| h.file_name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let id_w = list
        .iter()
        .filter_map(|h| crate::model::handoff::entry::stamp_id(&h.file_name))
        .map(str::len)
        .max()
        .unwrap_or(2)
        .max(2);
    let _ = writeln!(
        out,
        "    #  {:<id_w$}  {:<name_w$}  {:<7}  {:>4}  {:<17}  {:<12}  TITLE",
        "ID", "FILE", "KIND", "AGE", "TRIGGER/STATUS", "BRANCH"
    );
    let order = crate::model::handoff::entry::inbox_order(list);
    for (i, h) in order.iter().map(|i| &list[*i]).enumerate() {
        let mark = if pending.is_some_and(|p| store::same_file(p, &h.path)) {
            "→"
        } else {
            " "
        };
        // Values from the files stay on their row (`print_out` removes the rest).
        let one = crate::model::text::sanitize::single_line;
        let branch = one(h.branch().unwrap_or("-"));
        let title = match h.kind {
            HandoffKind::Agent => {
                let route = h.route().unwrap_or_default();
                format!("{} {}", h.task().unwrap_or("?"), route)
            }
            HandoffKind::Session => h.display_title().unwrap_or_default().to_owned(),
        };
        let title = one(&title);
        let _ = writeln!(
            out,
            "{mark} {:>3}  {:<id_w$}  {:<name_w$}  {:<7}  {:>4}  {:<17}  {:<12}  {title}",
            i + 1,
            one(crate::model::handoff::entry::stamp_id(&h.file_name).unwrap_or("-")),
            one(&h.file_name),
            h.kind.as_str(),
            crate::model::time::age(now, h.created),
            h.status_word(),
            branch,
        );
    }
    out.push_str(
        "\nChoose one with `forge resume ID` (or its number N, or --latest); print it with --print.\n",
    );
    out
}

/// The handoff text preceded by drift notes against the current git state.
pub(crate) fn print_text(
    target: &Path,
    paths: &Paths,
    now: DateTime<Utc>,
) -> anyhow::Result<String> {
    let entry = handoffs::load_one(target).ok_or_else(|| {
        anyhow!(
            "the handoff {} no longer exists or is not a handoff file: choose another with `forge resume`, or `forge resume --clear`",
            target.display()
        )
    })?;
    let text =
        store::read_text(target).ok_or_else(|| anyhow!("cannot read {}", target.display()))?;
    let git = crate::git::facts_within(&paths.root, crate::git::GIT_DEADLINE);
    let drift = Drift::of(
        &entry,
        git.as_ref().map(|g| g.branch.as_str()),
        git.as_ref().map(|g| g.uncommitted),
        now,
    );
    let mut out = format!("Resuming from handoff {}\n", target.display());
    for note in drift.notes() {
        let _ = writeln!(out, "Drift: {note}");
    }
    out.push('\n');
    out.push_str(&text);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_age_column_reads_as_everywhere_else() {
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 0).unwrap();
        // The stamp in the name is the creation time (UTC).
        let entry = |name: &str| {
            HandoffEntry::parse(
                PathBuf::from(format!("/p/.forge/handoffs/{name}")),
                "---\nkind: session-handoff\n---\n# T\n",
                None,
            )
            .unwrap()
        };
        let list = [
            entry("handoff-20261121-102930.md"), // 30 s: "now", not "0m"
            entry("handoff-20261120-043000.md"), // 30 h: "1d", as the dashboard says
        ];
        let text = render_list(&list, None, now);
        let age_of = |name: &str| {
            let line = text.lines().find(|l| l.contains(name)).unwrap();
            line.split_whitespace().nth(4).unwrap().to_owned()
        };
        assert_eq!(age_of("handoff-20261121-102930.md"), "now", "{text}");
        assert_eq!(age_of("handoff-20261120-043000.md"), "1d", "{text}");
    }
}
