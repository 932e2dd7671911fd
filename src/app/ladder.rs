//! The escalation ladder's actions when a session first reaches a level: a handoff
//! (L2, L3; L1's is the threshold handoff), an alert for the model's next prompt,
//! and an opt-in WIP commit of tracked changes.

use std::path::Path;

use crate::config::Config;
use crate::env::Env;
use crate::model::agents::ladder::{
    LadderAction, alert_text, is_protected, looks_like_secret_file, wip_message,
};
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::level::Level;
use crate::model::session::state::EventLine;
use crate::store::guard::Crossing;
use crate::store::{self, Paths, files};

/// Carries out `level`'s actions for `session_id` at `pct`; returns what happened.
pub(crate) fn climb(
    paths: &Paths,
    env: &Env,
    cfg: &Config,
    session_id: &str,
    level: Level,
    pct: f64,
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for action in cfg.ladder.at(level) {
        match action {
            // L1's handoff is the status line's threshold handoff.
            LadderAction::Handoff if level == Level::L1 => {}
            LadderAction::Handoff => {
                let req = super::session_handoff::Request {
                    trigger: Trigger::ContextThreshold,
                    session_id: Some(session_id),
                    transcript_path: None,
                    git: super::session_handoff::GitInput::Compute,
                    task: None,
                    pending: true,
                };
                match super::session_handoff::write_detailed(paths, env, cfg, &req) {
                    Ok(w) => out.extend(w.outcomes(Trigger::ContextThreshold)),
                    Err(e) => out.push(Outcome::Error {
                        what: format!("{level} handoff"),
                        message: e.to_string(),
                    }),
                }
            }
            LadderAction::Alert => {
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
            LadderAction::WipCommit => {
                let task = files::read_workflow(paths).task;
                let message = wip_message(task.as_deref(), level, pct);
                match wip_commit(&paths.root, &message, &cfg.ladder.protected_branches) {
                    Ok(wip) => {
                        out.extend(left_out(wip.left_out));
                        out.push(Outcome::WipCommitted {
                            commit: wip.commit,
                            message,
                        });
                    }
                    Err(skip) => {
                        out.extend(left_out(skip.left_out));
                        out.push(Outcome::WipSkipped { why: skip.why });
                    }
                }
            }
        }
    }
    out
}

/// The event name of the ladder's lines in `events.jsonl`.
pub(crate) const EVENT: &str = "ladder";

/// `forge ladder`: `level`'s actions for `session`, exactly once per crossing
/// however many ticks started one (the crossing's guard is claimed first); what
/// happened goes to `events.jsonl`.
pub(crate) fn run_crossing(paths: &Paths, env: &Env, session: &str, level: Level) {
    match paths.guard(session, Crossing::Level(level)).claim() {
        Ok(true) => {}
        Ok(false) => return,
        Err(e) => {
            if paths.logs().is_dir() {
                store::log_error(paths, "ladder claim", &e.to_string());
            }
            return;
        }
    }
    let cfg = crate::config::load_or_default(paths, env);
    let pct = files::read_bridge(paths, session)
        .as_ref()
        .and_then(crate::model::session::state::SessionBridge::context_pct)
        .unwrap_or(0.0);
    let outcomes = climb(paths, env, &cfg, session, level, pct);
    if paths.logs().is_dir() && !outcomes.is_empty() {
        let mut facts = serde_json::Map::new();
        facts.insert("level".into(), level.as_str().into());
        let _ = files::append_event(
            paths,
            &EventLine {
                time: crate::model::time::iso(env.now),
                event: EVENT.to_owned(),
                session: Some(session.to_owned()),
                facts,
                outcomes,
            },
        );
    }
}

fn left_out(files: Vec<(String, String)>) -> impl Iterator<Item = Outcome> {
    files
        .into_iter()
        .map(|(path, why)| Outcome::WipLeftOut { path, why })
}

/// The most of one file a WIP commit scans for secrets: a larger changed file is
/// left out of the commit (and says so in the log), never committed unscanned.
pub const WIP_SCAN_CAP: u64 = 8 * 1024 * 1024;

/// A WIP commit made: its short id, and the changed files left out of it (each with
/// why it could not be scanned).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wip {
    /// The commit (short id).
    pub(crate) commit: String,
    /// Files left out, with why.
    pub(crate) left_out: Vec<(String, String)>,
}

/// No WIP commit, and why (with the files that were left out on the way, if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoWip {
    /// Why not.
    pub why: String,
    /// Files left out before it gave up, with why.
    pub(crate) left_out: Vec<(String, String)>,
}

impl From<String> for NoWip {
    fn from(why: String) -> Self {
        Self {
            why,
            left_out: Vec::new(),
        }
    }
}

impl From<&str> for NoWip {
    fn from(why: &str) -> Self {
        why.to_owned().into()
    }
}

/// What scanning one changed file of the work tree found.
enum FileScan {
    /// Nothing secret (or nothing to scan: a deleted file, a submodule's commit).
    Clean,
    /// Something that looks like a secret, of this kind.
    Secret(&'static str),
    /// It cannot be scanned: left out of the commit, for this reason.
    LeftOut(String),
}

/// Scans what committing `path` would put in git: every byte of a regular file
/// (streamed in pieces, UTF-16 decoded, see [`crate::model::text::scan`]), or a link's
/// target (git stores the link, not what it points at).
fn scan_worktree_file(full: &Path) -> FileScan {
    use crate::model::text::scan::{StreamScan, Verdict};
    use std::io::Read;
    let Ok(meta) = std::fs::symlink_metadata(full) else {
        return FileScan::Clean; // deleted: the commit records the deletion
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(full)
            .map(|t| t.to_string_lossy().into_owned())
            .unwrap_or_default();
        return match crate::model::text::redact::first_secret(&target) {
            Some(rule) => FileScan::Secret(rule.kind),
            None => FileScan::Clean,
        };
    }
    if meta.is_dir() {
        return FileScan::Clean; // a submodule: its commit id is what changes
    }
    if meta.len() > WIP_SCAN_CAP {
        return FileScan::LeftOut(format!(
            "{} MiB, over the {} MiB secret scan cap",
            meta.len().div_ceil(1024 * 1024),
            WIP_SCAN_CAP / (1024 * 1024)
        ));
    }
    let mut file = match store::safe::open_read_meta(full, store::safe::Follow::No) {
        Ok((f, _)) => f,
        Err(e) => return FileScan::LeftOut(format!("could not be read to scan it: {e}")),
    };
    let mut scan = StreamScan::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut total: u64 = 0;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return FileScan::LeftOut(format!("could not be read to scan it: {e}")),
        };
        total += n as u64;
        if total > WIP_SCAN_CAP {
            return FileScan::LeftOut(format!(
                "grew over the {} MiB secret scan cap while it was read",
                WIP_SCAN_CAP / (1024 * 1024)
            ));
        }
        match scan.feed(buf.get(..n).unwrap_or_default()) {
            Some(Verdict::Secret(rule)) => return FileScan::Secret(rule.kind),
            Some(Verdict::Binary) => return FileScan::LeftOut(binary_why()),
            Some(Verdict::Clean) | None => {}
        }
    }
    match scan.finish() {
        Verdict::Secret(rule) => FileScan::Secret(rule.kind),
        Verdict::Binary => FileScan::LeftOut(binary_why()),
        Verdict::Clean => FileScan::Clean,
    }
}

fn binary_why() -> String {
    "binary (a NUL byte, and no UTF-16 mark): its text cannot be scanned for secrets".to_owned()
}

/// Commits the tracked files that changed (never untracked ones) as `message`, on
/// the current branch, unless the branch is protected, a changed file looks like a
/// secret by its name or by what it holds (every byte scanned, see
/// `scan_worktree_file`), or there is nothing to commit. A changed file that
/// cannot be scanned (binary, or over [`WIP_SCAN_CAP`]) is left out and named.
pub fn wip_commit(root: &Path, message: &str, protected: &[String]) -> Result<Wip, NoWip> {
    let repo = crate::git::open_checked(root)
        .map_err(|why| why.to_string())?
        .ok_or("not a git repository")?;
    let head = repo.head().map_err(|e| format!("no HEAD: {e}"))?;
    if !head.is_branch() {
        return Err("HEAD is detached".into());
    }
    let branch = head.shorthand().unwrap_or_default().to_owned();
    if is_protected(&branch, protected) {
        return Err(format!("branch {branch} is protected ([ladder] protected_branches)").into());
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(false).include_ignored(false);
    let statuses = repo
        .statuses(Some(&mut opts))
        .map_err(|e| format!("git status: {e}"))?;
    let workdir = repo.workdir().ok_or("a bare repository")?.to_path_buf();
    let mut changed = Vec::new();
    let mut left_out = Vec::new();
    for entry in statuses.iter() {
        let Ok(path) = entry.path() else { continue };
        if entry.status().is_wt_new() || entry.status().is_ignored() {
            continue;
        }
        if looks_like_secret_file(path) {
            return Err(format!("{path} looks like a secret").into());
        }
        match scan_worktree_file(&workdir.join(path)) {
            FileScan::Clean => changed.push(path.to_owned()),
            FileScan::Secret(kind) => {
                return Err(NoWip {
                    why: format!("{path} holds something that looks like a secret ({kind})"),
                    left_out,
                });
            }
            // Left out of the commit: unless it is staged already, for the index is
            // what is committed, and its staged bytes were not scanned either.
            FileScan::LeftOut(why) => {
                let s = entry.status();
                if s.is_index_new()
                    || s.is_index_modified()
                    || s.is_index_renamed()
                    || s.is_index_typechange()
                {
                    return Err(NoWip {
                        why: format!("{path} is staged and cannot be scanned for secrets ({why})"),
                        left_out,
                    });
                }
                left_out.push((path.to_owned(), why));
            }
        }
    }
    if changed.is_empty() {
        let why = if left_out.is_empty() {
            "no tracked file changed".to_owned()
        } else {
            "no tracked file changed that could be scanned".to_owned()
        };
        return Err(NoWip { why, left_out });
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
    Ok(Wip {
        commit: id.to_string().chars().take(7).collect(),
        left_out,
    })
}
