//! `forge resume`'s work: the project's handoff inbox, the pending resume (its
//! markers, `store::files`), choosing a handoff by its ID, number or file, and the
//! chosen handoff's text with drift notes against the git state now. The command
//! parses, calls here and prints; the list's text is `ui::lists`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow, bail};
use chrono::{DateTime, Utc};

use crate::env::Env;
use crate::model::handoff::entry::{Drift, HandoffEntry, HandoffKind};
use crate::model::session::state::ResumeOrigin;
use crate::store::{self, Paths, files, handoffs};

/// The project's handoffs (session and agent), as `.forge/handoffs/` holds them.
pub(crate) fn list(paths: &Paths) -> Vec<HandoffEntry> {
    handoffs::list(paths)
}

/// The pending resume of this project: its own marker, else the global one, each
/// only when it names a handoff in this project's `.forge/handoffs/` (the rule
/// SessionStart uses, so `--print` never prints what a session would not load).
pub(crate) fn pending(paths: &Paths, env: &Env) -> Option<PathBuf> {
    files::pending_resume(paths, env).map(|(_, target)| target)
}

/// Whether `h` is the pending handoff `pending` (the same file, however spelled).
pub(crate) fn is_pending(pending: Option<&Path>, h: &HandoffEntry) -> bool {
    pending.is_some_and(|p| store::same_file(p, &h.path))
}

/// Makes `target` the handoff the next session resumes from: the project's marker
/// and the global one (`~/.claude/pending-resume`) when it can be written.
pub(crate) fn choose(paths: &Paths, env: &Env, target: &Path) -> anyhow::Result<files::Markers> {
    files::write_pending_resume(paths, env, target, ResumeOrigin::Chosen)
        .context("writing the pending-resume marker .forge/pending-resume")
}

/// Removes the pending-resume markers: the ones removed.
pub(crate) fn clear(paths: &Paths, env: &Env) -> Vec<PathBuf> {
    files::clear_pending_resume(paths, env)
}

/// The newest session handoff of `list`, or why there is none.
pub(crate) fn latest_session(list: &[HandoffEntry]) -> anyhow::Result<&HandoffEntry> {
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

/// The handoff `sel` names (its ID, its number in the list, or the path or name of
/// a handoff file in this project's `.forge/handoffs/`), resolved; or why none.
pub(crate) fn select(
    sel: &str,
    list: &[HandoffEntry],
    paths: &Paths,
    env: &Env,
) -> anyhow::Result<PathBuf> {
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

/// The list of [`crate::ui::lists::render_list`] as JSON: the same rows in the same order.
pub(crate) fn list_json(
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
                "pending": is_pending(pending, h),
            })
        })
        .collect();
    serde_json::json!({ "handoffs": rows, "pending": pending })
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
