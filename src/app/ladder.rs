//! The escalation ladder's actions when a session first reaches a level: a handoff
//! (L2, L3; L1's is the threshold handoff), an alert for the model's next prompt,
//! and an opt-in WIP commit of tracked changes.

use std::path::Path;

use crate::config::Config;
use crate::env::Env;
use crate::model::Level;
use crate::model::handoff_doc::Trigger;
use crate::model::ladder::{alert_text, is_protected, looks_like_secret_file, wip_message};
use crate::model::outcome::Outcome;
use crate::store::{self, Paths, files};

/// Carries out `level`'s actions for `session_id` at `pct`; returns what happened.
pub fn climb(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    session_id: &str,
    level: Level,
    pct: f64,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for action in cfg.ladder.at(level) {
        match action.as_str() {
            // L1's handoff is the status line's threshold handoff.
            "handoff" if level != Level::L1 => {
                let req = super::session_handoff::Request {
                    trigger: Trigger::ContextThreshold,
                    session_id: Some(session_id),
                    transcript_path: None,
                    git: super::session_handoff::GitInput::Compute,
                };
                match super::session_handoff::write_detailed(paths, env, cfg, &req) {
                    Ok(w) => out.extend(w.outcomes(Trigger::ContextThreshold)),
                    Err(e) => out.push(Outcome::Error {
                        what: format!("{level} handoff"),
                        message: e.to_string(),
                    }),
                }
            }
            "alert" => {
                let text = alert_text(level, pct);
                match store::write_state(&paths.alert(session_id), text.as_bytes()) {
                    Ok(()) => out.push(Outcome::FlagSet {
                        flag: "alert".to_owned(),
                        why: format!("{level}: the model is told at its next prompt"),
                    }),
                    Err(e) => out.push(Outcome::Error {
                        what: "alert".to_owned(),
                        message: e.to_string(),
                    }),
                }
            }
            "wip_commit" => {
                let task = files::read_workflow(paths).task;
                let message = wip_message(task.as_deref(), level, pct);
                out.push(
                    match wip_commit(&paths.root, &message, &cfg.ladder.protected_branches) {
                        Ok(commit) => Outcome::WipCommitted { commit, message },
                        Err(why) => Outcome::WipSkipped { why },
                    },
                );
            }
            _ => {}
        }
    }
    out
}

/// Commits the tracked files that changed (never untracked ones) as `message`, on
/// the current branch, unless the branch is protected, a changed file looks like a
/// secret by its name or its text, or there is nothing to commit. Returns the short
/// commit id.
pub fn wip_commit(root: &Path, message: &str, protected: &[String]) -> Result<String, String> {
    let repo = crate::git::open_checked(root)
        .map_err(|why| why.to_string())?
        .ok_or("not a git repository")?;
    let head = repo.head().map_err(|e| format!("no HEAD: {e}"))?;
    if !head.is_branch() {
        return Err("HEAD is detached".to_owned());
    }
    let branch = head.shorthand().unwrap_or_default().to_owned();
    if is_protected(&branch, protected) {
        return Err(format!(
            "branch {branch} is protected ([ladder] protected_branches)"
        ));
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(false).include_ignored(false);
    let statuses = repo
        .statuses(Some(&mut opts))
        .map_err(|e| format!("git status: {e}"))?;
    let workdir = repo.workdir().ok_or("a bare repository")?.to_path_buf();
    let mut changed = Vec::new();
    for entry in statuses.iter() {
        let Ok(path) = entry.path() else { continue };
        if entry.status().is_wt_new() || entry.status().is_ignored() {
            continue;
        }
        if looks_like_secret_file(path) {
            return Err(format!("{path} looks like a secret"));
        }
        if let Some(bytes) = store::read_text(&workdir.join(path))
            && crate::model::redact::redact(&bytes) != bytes
        {
            return Err(format!("{path} holds something that looks like a secret"));
        }
        changed.push(path.to_owned());
    }
    if changed.is_empty() {
        return Err("no tracked file changed".to_owned());
    }
    let mut index = repo.index().map_err(|e| format!("git index: {e}"))?;
    index
        .update_all(changed.iter(), None)
        .map_err(|e| format!("staging: {e}"))?;
    index
        .write()
        .map_err(|e| format!("writing the index: {e}"))?;
    let tree_id = index.write_tree().map_err(|e| format!("git tree: {e}"))?;
    let tree = repo.find_tree(tree_id).map_err(|e| e.to_string())?;
    let sig = repo
        .signature()
        .map_err(|e| format!("no git identity (user.name, user.email): {e}"))?;
    let parent = head.peel_to_commit().map_err(|e| e.to_string())?;
    let id = repo
        .commit(Some("HEAD"), &sig, &sig, message, &tree, &[&parent])
        .map_err(|e| format!("commit: {e}"))?;
    Ok(id.to_string().chars().take(7).collect())
}
