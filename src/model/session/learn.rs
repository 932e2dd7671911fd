//! When a session has something worth learning: it changed files. Pure.
//!
//! A session changed files when *it* did: its own edits (an editing tool on a file of
//! the project, seen at PreToolUse), or a command it ran (Bash) that changed the work
//! tree. The tree can change under a session for other reasons — a commit in another
//! terminal, a checkout, an editor — and those are not the session's, so a change of
//! the tree alone claims nothing. For commands: the first Bash call of a turn takes
//! the tree's fingerprint ([`GitCache::fingerprint`]), and the end of the turn (Stop,
//! or SessionEnd) compares its own with it. A change in that window, in a turn where
//! the session ran a command, is counted as the session's; a change between turns, or
//! before the turn's first command, is not. (A command that only changes a file that
//! was already changed leaves the fingerprint as it was, and is not seen.)

use super::state::{GitCache, SessionBridge};

/// The tools that change files. A call of one of them on a file of the project marks
/// the session as having changed files.
pub(crate) const EDITING_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The tool that runs commands: its first call in a turn takes the baseline the end
/// of the turn compares with.
pub(crate) const COMMAND_TOOL: &str = "Bash";

/// Why a session counts as having changed files in this turn (or since its learning
/// was last done), or `None` when it did not — or when there is nothing to compare:
/// no bridge, no command baseline, no git facts; then nothing is claimed.
pub(crate) fn changed_files_why(
    bridge: Option<&SessionBridge>,
    git: Option<&GitCache>,
) -> Option<String> {
    let b = bridge?;
    if b.files_edited {
        return Some("the session edited files".to_owned());
    }
    let (baseline, git) = (b.command_baseline.as_deref()?, git?);
    (git.fingerprint() != baseline).then(|| {
        "a command the session ran changed the work tree (files, commits or branch)".to_owned()
    })
}

/// Learning is done for what a session changed so far: its edits are forgotten, and
/// a turn that ran commands compares from the tree as it is now (`git`). Returns
/// whether the bridge changed.
pub(crate) fn rebase(b: &mut SessionBridge, git: Option<&GitCache>) -> bool {
    let baseline = b
        .command_baseline
        .is_some()
        .then(|| git.map(GitCache::fingerprint))
        .flatten();
    let changed = b.files_edited || b.command_baseline != baseline;
    b.files_edited = false;
    b.command_baseline = baseline;
    changed
}

/// What the client writes as the result of a tool call the person refused at its
/// permission prompt (the record's `toolUseResult`; seen in real 2.1.38 transcripts).
const REFUSED_RESULT: &str = "User rejected tool use";
/// The start of that result's text, as the model reads it.
const REFUSED_TEXT: &str = "The user doesn't want to proceed with this tool use";

/// Whether the transcript `lines` show every one of the command calls `ids` refused
/// by the person (none of them ran, so a change of the work tree in the turn is not
/// the session's). `false` when `ids` is empty or any call's result is missing or
/// is not a refusal: then the turn counts as having run a command.
pub(crate) fn every_command_refused<'a>(
    lines: impl Iterator<Item = &'a str>,
    ids: &[String],
) -> bool {
    if ids.is_empty() {
        return false;
    }
    let mut refused = vec![false; ids.len()];
    for line in lines {
        if !line.contains("tool_result") || !ids.iter().any(|id| line.contains(id.as_str())) {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(content) = v.pointer("/message/content").and_then(|c| c.as_array()) else {
            continue;
        };
        let record_refused =
            v.get("toolUseResult").and_then(|r| r.as_str()) == Some(REFUSED_RESULT);
        for block in content {
            let Some(id) = block.get("tool_use_id").and_then(|i| i.as_str()) else {
                continue;
            };
            let Some(at) = ids.iter().position(|x| x == id) else {
                continue;
            };
            let text = match block.get("content") {
                Some(serde_json::Value::String(t)) => t.as_str(),
                Some(serde_json::Value::Array(parts)) => parts
                    .first()
                    .and_then(|p| p.get("text"))
                    .and_then(|t| t.as_str())
                    .unwrap_or(""),
                _ => "",
            };
            refused[at] = record_refused || text.starts_with(REFUSED_TEXT);
        }
    }
    refused.iter().all(|r| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(head: &str, changed: &[&str]) -> GitCache {
        GitCache {
            branch: Some("main".into()),
            head: Some(head.into()),
            uncommitted_changes: changed.len() as u64,
            changed_files: changed.iter().map(|s| (*s).to_owned()).collect(),
            ..GitCache::default()
        }
    }

    #[test]
    fn only_a_session_that_changed_files_has_something_to_learn() {
        let start = git("a1", &["README.md"]);
        // No command ran this turn: however the tree changed (another terminal's
        // commit, a checkout), it was not the session.
        let idle = SessionBridge::default();
        for now in [
            start.clone(),
            git("a1", &["README.md", "src/new.rs"]),
            git("b2", &[]),
        ] {
            assert_eq!(changed_files_why(Some(&idle), Some(&now)), None);
        }
        // A command ran: the tree as it was at the turn's first command.
        let ran = SessionBridge {
            command_baseline: Some(start.fingerprint()),
            ..SessionBridge::default()
        };
        // Nothing changed: a test run, files read.
        assert_eq!(changed_files_why(Some(&ran), Some(&start)), None);
        // The time of the cache is not part of the state.
        let mut later = start.clone();
        later.updated_at = "2026-11-25T10:00:00Z".into();
        assert_eq!(changed_files_why(Some(&ran), Some(&later)), None);
        // A new file (touch), a commit, another branch: the command changed the tree.
        for now in [
            git("a1", &["README.md", "src/new.rs"]),
            git("b2", &["README.md"]),
            GitCache {
                branch: Some("feat".into()),
                ..start.clone()
            },
        ] {
            assert!(
                changed_files_why(Some(&ran), Some(&now))
                    .is_some_and(|w| w.starts_with("a command the session ran"))
            );
        }
        // An editing tool ran: changed, even when the tree looks the same.
        let edited = SessionBridge {
            files_edited: true,
            ..SessionBridge::default()
        };
        assert_eq!(
            changed_files_why(Some(&edited), Some(&start)).as_deref(),
            Some("the session edited files")
        );
        // Nothing to compare: nothing is claimed.
        assert_eq!(changed_files_why(None, Some(&start)), None);
        assert_eq!(changed_files_why(Some(&ran), None), None);
    }

    #[test]
    fn a_turn_whose_every_command_the_person_refused_ran_none() {
        // A refusal as the client writes it (a real 2.1.38 transcript's record).
        let refused = |id: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.","is_error":true,"tool_use_id":"{id}"}}]}},"toolUseResult":"User rejected tool use"}}"#
            )
        };
        let ran = |id: &str| {
            format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":"ok","is_error":false}}]}},"toolUseResult":{{"stdout":"ok","stderr":"","interrupted":false}}}}"#
            )
        };
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let one = [refused("toolu_a")].join("\n");
        assert!(every_command_refused(one.lines(), &ids(&["toolu_a"])));
        // One refused, one ran: a command ran.
        let both = [refused("toolu_a"), ran("toolu_b")].join("\n");
        assert!(!every_command_refused(
            both.lines(),
            &ids(&["toolu_a", "toolu_b"])
        ));
        // A call whose result is not in the lines read: it may have run.
        assert!(!every_command_refused(
            one.lines(),
            &ids(&["toolu_a", "toolu_c"])
        ));
        // No calls known: nothing to say.
        assert!(!every_command_refused(one.lines(), &[]));
        // Garbage lines are passed over.
        let noisy = [
            "not json tool_result toolu_a".to_owned(),
            refused("toolu_a"),
        ]
        .join("\n");
        assert!(every_command_refused(noisy.lines(), &ids(&["toolu_a"])));
    }
}
