//! When a session has something worth learning: it changed files. Pure.

use super::state::{GitCache, SessionBridge};

/// The tools that change files. A call of one of them on a file of the project marks
/// the session as having changed files.
pub const EDITING_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// Why a session counts as having changed files since its baseline, or `None` when
/// it did not (or there is nothing to compare: no bridge, no baseline, no git facts
/// — then nothing is claimed).
pub fn changed_files_why(bridge: Option<&SessionBridge>, git: Option<&GitCache>) -> Option<String> {
    let b = bridge?;
    if b.files_edited {
        return Some("the session edited files".to_owned());
    }
    let (baseline, git) = (b.git_baseline.as_deref()?, git?);
    (git.fingerprint() != baseline)
        .then(|| "the work tree changed during the session (files, commits or branch)".to_owned())
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
        let bridge = SessionBridge {
            git_baseline: Some(start.fingerprint()),
            ..SessionBridge::default()
        };
        // Nothing changed: a question answered, files read.
        assert_eq!(changed_files_why(Some(&bridge), Some(&start)), None);
        // The time of the cache is not part of the state.
        let mut later = start.clone();
        later.updated_at = "2026-11-25T10:00:00Z".into();
        assert_eq!(changed_files_why(Some(&bridge), Some(&later)), None);
        // A new file, a commit, another branch: each changed the tree.
        for now in [
            git("a1", &["README.md", "src/new.rs"]),
            git("b2", &["README.md"]),
            GitCache {
                branch: Some("feat".into()),
                ..start.clone()
            },
        ] {
            assert!(changed_files_why(Some(&bridge), Some(&now)).is_some());
        }
        // An editing tool ran: changed, even when the tree looks the same.
        let edited = SessionBridge {
            files_edited: true,
            ..bridge.clone()
        };
        assert!(changed_files_why(Some(&edited), Some(&start)).is_some());
        // Nothing to compare: nothing is claimed.
        let no_baseline = SessionBridge::default();
        assert_eq!(changed_files_why(Some(&no_baseline), Some(&start)), None);
        assert_eq!(changed_files_why(None, Some(&start)), None);
        assert_eq!(changed_files_why(Some(&bridge), None), None);
    }
}
