//! The value completers of forge's dynamic completions (`COMPLETE=<shell> forge`,
//! see `cli/completions.rs`): handoff files for `forge resume`, session ids for
//! `--session`, hook event names for `forge hook`.
//!
//! The completers run on every Tab press, so they stay cheap and quiet: they list
//! one folder each (`.forge/handoffs`, `.forge/logs/sessions`; never the
//! repository), read at most a bounded number of small files, and give no
//! candidates, and print nothing, where there is no `.forge/`.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Utc};
use clap_complete::engine::{CompletionCandidate, PathCompleter, ValueCompleter};

use crate::env::Env;
use crate::model::handoff::entry::HandoffKind;
use crate::model::handoff::entry::{seq_from_file_name, stamp_from_file_name};
use crate::store::{self, Paths};

/// The project the completers look at: the one of the current folder.
fn project() -> Paths {
    let env = Env::from_process();
    Paths::new(store::resolve_root(
        env.claude_project_dir.as_deref(),
        &env.cwd,
    ))
}

/// At most this many folder entries are looked at per completion.
const MAX_ENTRIES: usize = 5000;

/// `forge resume <TAB>`: the handoff file names in `.forge/handoffs` that start with
/// what was typed, newest first (what `forge resume NAME` accepts). A word with a
/// `/` in it completes as a path instead: folders, and handoff files in them.
pub(crate) fn complete_handoff(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    if typed.contains('/') {
        return PathCompleter::any()
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(OsStr::to_str)
                        .is_some_and(|n| HandoffKind::of_file_name(n).is_some())
            })
            .complete(current);
    }
    let names = list_names(&project().handoffs());
    handoff_candidates(names, typed)
}

/// The file names in `dir` (at most [`MAX_ENTRIES`]); none when it cannot be read.
fn list_names(dir: &Path) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.take(MAX_ENTRIES)
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .collect()
}

/// The handoff names among `names` that start with `typed`, newest first by the
/// stamp in the name, each with its kind, task and time as help.
pub(crate) fn handoff_candidates(names: Vec<String>, typed: &str) -> Vec<CompletionCandidate> {
    let mut found: Vec<(Option<DateTime<Utc>>, u32, HandoffKind, String)> = names
        .into_iter()
        .filter(|n| n.starts_with(typed))
        .filter_map(|n| {
            let kind = HandoffKind::of_file_name(&n)?;
            Some((stamp_from_file_name(&n), seq_from_file_name(&n), kind, n))
        })
        .collect();
    found.sort_by(|a, b| (b.0, b.1, &b.3).cmp(&(a.0, a.1, &a.3)));
    found
        .into_iter()
        .map(|(stamp, _, kind, name)| {
            let mut help = format!("{} handoff", kind.as_str());
            if kind == HandoffKind::Agent
                && let Some(task) = agent_task(&name)
            {
                let _ = write!(help, " for {task}");
            }
            if let Some(t) = stamp {
                let _ = write!(help, ", {}", crate::model::time::Zone::Local.clock(t));
            }
            CompletionCandidate::new(name).help(Some(help.into()))
        })
        .collect()
}

/// The task of `agent-{TASK}-{YYYYMMDD-HHMMSS}.md`.
fn agent_task(name: &str) -> Option<&str> {
    let stem = name.strip_prefix("agent-")?.strip_suffix(".md")?;
    let task = stem.get(..stem.len().checked_sub(16)?)?;
    (!task.is_empty() && stem.get(task.len()..)?.starts_with('-')).then_some(task)
}

/// `--session <TAB>`: the session ids of the project's session bridges, most
/// recently updated first (at most 50 small files read), each with its model,
/// state and age as help.
pub(crate) fn complete_session() -> Vec<CompletionCandidate> {
    let now = crate::env::wall_clock();
    store::sessions::load_sessions(&project())
        .into_iter()
        .map(|b| {
            let mut help: Vec<String> = Vec::new();
            if let Some(m) = &b.model {
                help.push(crate::model::text::sanitize::single_line(m).into_owned());
            }
            if let Some(a) = b.attention {
                help.push(a.as_str().to_owned());
            }
            if let Some(p) = b.used_percentage {
                help.push(format!("{}%", p.round()));
            }
            let updated = b
                .updated_at
                .as_deref()
                .and_then(crate::model::time::parse_iso);
            if updated.is_some() {
                // "updated just now", never "updated now ago".
                help.push(format!("updated {}", crate::model::time::ago(now, updated)));
            }
            CompletionCandidate::new(b.session_id).help(Some(help.join(", ").into()))
        })
        .collect()
}

/// `forge hook <TAB>`: the events forge handles (others are accepted and logged).
pub(crate) fn complete_hook_event() -> Vec<CompletionCandidate> {
    crate::model::setup::settings::FORGE_EVENTS
        .iter()
        .map(|e| CompletionCandidate::new(*e))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(c: &[CompletionCandidate]) -> Vec<String> {
        c.iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn handoffs_complete_newest_first_and_by_prefix() {
        let names: Vec<String> = [
            "handoff-20261121-094500.md",
            "handoff-20261121-094500-2.md",
            "agent-T-012-20261121-101502.md",
            "handoff-20261120-180000.md",
            "README.md",
            ".forge-x.tmp",
            "handoff-notes.txt",
            "agent-T-7-oops.md",
        ]
        .map(str::to_owned)
        .to_vec();
        let all = handoff_candidates(names.clone(), "");
        assert_eq!(
            values(&all),
            [
                "agent-T-012-20261121-101502.md",
                "handoff-20261121-094500-2.md",
                "handoff-20261121-094500.md",
                "handoff-20261120-180000.md",
                "agent-T-7-oops.md",
            ]
        );
        let help = all[0].get_help().unwrap().to_string();
        assert!(help.starts_with("agent handoff for T-012, 11-2"), "{help}");
        assert!(
            all[1]
                .get_help()
                .unwrap()
                .to_string()
                .starts_with("session handoff, ")
        );
        assert_eq!(
            all[4].get_help().unwrap().to_string(),
            "agent handoff",
            "no stamp, no task guessed"
        );
        assert_eq!(
            values(&handoff_candidates(names.clone(), "handoff-2026112")),
            [
                "handoff-20261121-094500-2.md",
                "handoff-20261121-094500.md",
                "handoff-20261120-180000.md"
            ]
        );
        assert!(handoff_candidates(names, "zzz").is_empty());
    }

    #[test]
    fn agent_tasks_come_from_the_name() {
        assert_eq!(agent_task("agent-T-012-20261121-101502.md"), Some("T-012"));
        assert_eq!(agent_task("agent-a-b-c-20261121-101502.md"), Some("a-b-c"));
        assert_eq!(agent_task("agent-20261121-101502.md"), None);
        assert_eq!(agent_task("handoff-20261121-101502.md"), None);
    }

    #[test]
    fn hook_events_are_listed() {
        assert_eq!(
            values(&complete_hook_event()),
            crate::model::setup::settings::FORGE_EVENTS
        );
    }
}
