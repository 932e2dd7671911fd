//! Typed readers and writers for the state files of docs/design.md#state-files.
//!
//! Readers return `None`/defaults for missing or unparsable files. Writers are atomic.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::guard::Crossing;
use super::paths::{canonical, same_file};
use super::{Paths, read_json, read_text, safe, write_atomic, write_json};
use crate::env::Env;
use crate::model::handoff::entry::HandoffKind;
use crate::model::outcome::Outcome;
use crate::model::session::state::{
    EventLine, GitCache, LastSession, PreCompactState, ResumeOrigin, SessionBridge, WorkflowState,
};
use crate::model::time::iso;

/// `logs/last-session.json`.
pub(crate) fn read_last_session(paths: &Paths) -> Option<LastSession> {
    read_json(&paths.last_session())
}

/// Writes `logs/last-session.json`: synced when it is SessionEnd's final record,
/// not for the copy Stop rewrites every turn (the atomic replacement alone keeps it
/// whole for every reader; a power cut can only leave the previous turn's copy, none
/// or an empty one, which readers treat as no data — and an `fsync` was a tenth of a
/// small repository's Stop hook).
pub(crate) fn write_last_session(paths: &Paths, s: &LastSession) -> io::Result<()> {
    if s.is_final {
        super::write_json_synced(&paths.last_session(), s)
    } else {
        super::write_json(&paths.last_session(), s)
    }
}

/// `logs/pre-compact-state.json`.
pub(crate) fn read_pre_compact(paths: &Paths) -> Option<PreCompactState> {
    read_json(&paths.pre_compact_state())
}

/// `.forge/state.json`'s phase and task (defaults when missing or unparsable).
pub(crate) fn read_workflow(paths: &Paths) -> WorkflowState {
    read_json::<serde_json::Value>(&paths.state_json())
        .map(|v| WorkflowState::from_value(&v))
        .unwrap_or_default()
}

/// `logs/git-cache.json`.
pub(crate) fn read_git_cache(paths: &Paths) -> Option<GitCache> {
    read_json(&paths.git_cache())
}

/// Writes `logs/git-cache.json`.
pub(crate) fn write_git_cache(paths: &Paths, cache: &GitCache) -> io::Result<()> {
    write_json(&paths.git_cache(), cache)
}

/// A session's bridge file.
pub(crate) fn read_bridge(paths: &Paths, session_id: &str) -> Option<SessionBridge> {
    read_json(&paths.session_bridge(session_id))
}

/// Read-modify-writes a session's bridge under a short lock. `change` returns whether
/// it changed anything; the file is only written when it did. Returns the bridge.
pub(crate) fn update_bridge(
    paths: &Paths,
    session_id: &str,
    now: DateTime<Utc>,
    change: impl FnOnce(&mut SessionBridge) -> bool,
) -> io::Result<SessionBridge> {
    update_bridge_within(paths, session_id, now, Duration::from_millis(100), change)
}

/// [`update_bridge`], waiting at most `wait` for the lock (`WouldBlock` after that).
pub(crate) fn update_bridge_within(
    paths: &Paths,
    session_id: &str,
    now: DateTime<Utc>,
    wait: Duration,
    change: impl FnOnce(&mut SessionBridge) -> bool,
) -> io::Result<SessionBridge> {
    let path = paths.session_bridge(session_id);
    // One persistent lock for all bridges: critical sections are a read and a write.
    // Without it, a stale read could overwrite another writer's fields: give up
    // instead (the caller logs; the status line retries on its next tick).
    let Some(_lock) = super::FileLock::acquire(&paths.sessions().join(".lock"), wait) else {
        return Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "session bridge is locked",
        ));
    };
    let mut bridge: SessionBridge = read_json(&path).unwrap_or_default();
    let fresh = bridge.session_id.is_empty();
    if fresh {
        bridge.session_id = session_id.to_owned();
    }
    if change(&mut bridge) || fresh {
        bridge.updated_at = Some(iso(now));
        write_json(&path, &bridge)?;
    }
    Ok(bridge)
}

/// Appends one line to `logs/events.jsonl` (capped, rotated).
/// Outcomes that carry text from outside forge are redacted first
/// ([`crate::model::outcome::Outcome::redacted`]); a call whose outcomes are forge's
/// own words (every `PreToolUse`, most calls) is written without a look.
pub(crate) fn append_event(paths: &Paths, line: &EventLine) -> io::Result<()> {
    let redacted;
    let line = if line.outcomes.iter().any(Outcome::carries_outside_text) {
        redacted = EventLine {
            outcomes: line
                .outcomes
                .iter()
                .cloned()
                .map(Outcome::redacted)
                .collect(),
            ..line.clone()
        };
        &redacted
    } else {
        line
    };
    let text = serde_json::to_string(line).map_err(io::Error::other)?;
    super::append_line_capped(&paths.events(), &text, super::EVENTS_CAP)
}

/// The most of a pending-resume marker that is read (a path is at most 4 KiB).
const MARKER_CAP: u64 = 64 * 1024;

/// Reads a pending-resume marker: the absolute path it holds. See
/// [`read_marker_with_origin`].
pub(crate) fn read_marker(path: &Path) -> Option<PathBuf> {
    read_marker_with_origin(path).map(|(p, _)| p)
}

/// Reads a pending-resume marker: the absolute path of the handoff, then (in the
/// project's marker) a second line `chosen` or `auto` (who made it pending). The path's
/// bytes are kept exactly — only the last line is the origin — so any path, one with a
/// newline or trailing spaces in a folder name, or not UTF-8, reads back as it was
/// written. A marker of an older forge (the path and one newline) reads as chosen.
pub(crate) fn read_marker_with_origin(path: &Path) -> Option<(PathBuf, ResumeOrigin)> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = super::read_capped(path, MARKER_CAP)?;
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let (bytes, origin) = if let Some(p) = bytes.strip_suffix(b"\nauto") {
        (p, ResumeOrigin::Auto)
    } else if let Some(p) = bytes.strip_suffix(b"\nchosen") {
        (p, ResumeOrigin::Chosen)
    } else {
        (bytes, ResumeOrigin::Chosen)
    };
    if bytes.is_empty() || bytes.contains(&0) {
        return None;
    }
    let p = PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
    p.is_absolute().then_some((p, origin))
}

/// The project marker's content for `target`: its bytes, a newline, the origin and a
/// newline (see [`read_marker_with_origin`]).
fn marker_bytes(target: &Path, origin: ResumeOrigin) -> Vec<u8> {
    let mut bytes = global_marker_bytes(target);
    bytes.extend_from_slice(origin.as_str().as_bytes());
    bytes.push(b'\n');
    bytes
}

/// The global marker's content for `target`: its bytes and a newline, nothing more —
/// scripts written for the seed's format run `cat "$(cat ~/.claude/pending-resume)"`
/// (docs/design.md#pending-resume). Who made it pending lives in the project's marker
/// only; a global marker alone reads as chosen.
fn global_marker_bytes(target: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = target.as_os_str().as_bytes().to_vec();
    bytes.push(b'\n');
    bytes
}

/// The handoff a pending-resume marker may name in this project: `Some` only when
/// the marker names a `handoff-*.md` or `agent-*.md` file directly in this
/// project's `.forge/handoffs/`, and that entry is a regular file (not a link).
/// Anything else — a file elsewhere, a link planted in the folder, another
/// project's handoff — is never read, so it can never reach Claude's context.
///
/// The path returned is built from this project's folder and the file name, never
/// taken from the marker, so what is read is what was checked (and it is read
/// without following a link).
pub(crate) fn resume_target(paths: &Paths, marker: &Path) -> Option<PathBuf> {
    let name = marker.file_name()?;
    HandoffKind::of_file_name(name.to_str()?)?;
    let parent = marker.parent()?;
    let handoffs = paths.handoffs();
    if parent != handoffs && canonical(parent) != canonical(&handoffs) {
        return None;
    }
    let target = handoffs.join(name);
    safe::is_regular(&target).then_some(target)
}

/// The pending resume of this project, checked with [`resume_target`]: the
/// project's marker, else the global one when it names a handoff of this project.
/// Returns the marker it came from and the handoff.
pub(crate) fn pending_resume(paths: &Paths, env: &Env) -> Option<(PathBuf, PathBuf)> {
    let project = paths.pending_resume();
    if let Some(t) = read_marker(&project).and_then(|m| resume_target(paths, &m)) {
        return Some((project, t));
    }
    let global = env.global_pending_resume()?;
    let t = read_marker(&global).and_then(|m| resume_target(paths, &m))?;
    Some((global, t))
}

/// What [`write_pending_resume`] did.
#[derive(Debug)]
pub(crate) struct Markers {
    /// The markers written: the project's, and the global one when it could be.
    pub(crate) written: Vec<PathBuf>,
    /// The global marker could not be written (a full or read-only home folder):
    /// where, and why. The project's marker is what SessionStart reads first, so the
    /// project still resumes; a stale global marker for this project was removed.
    pub(crate) global_error: Option<(PathBuf, io::Error)>,
}

/// Makes `target` the pending resume: writes its canonical path (symlinks and `..`
/// resolved, so markers written from different folders compare equal) to
/// `.forge/pending-resume` with its origin, and to `~/.claude/pending-resume` bare.
///
/// `Err` when the project's marker cannot be written (then nothing is pending). A
/// failure of the global marker is reported in [`Markers::global_error`], and an
/// older global marker that names a handoff of this project is removed, so it cannot
/// resume a stale handoff later.
pub(crate) fn write_pending_resume(
    paths: &Paths,
    env: &Env,
    target: &Path,
    origin: ResumeOrigin,
) -> io::Result<Markers> {
    let abs = std::fs::canonicalize(target).or_else(|_| std::path::absolute(target))?;
    if super::share::is_cached(&abs) {
        // A Signal from another machine is shown, never acted on (docs/share.md).
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a remote Signal (fetched through the git remote) is shown, never resumed",
        ));
    }
    let mut written = Vec::new();
    write_atomic(&paths.pending_resume(), &marker_bytes(&abs, origin))?;
    written.push(paths.pending_resume());
    let mut global_error = None;
    if let Some(global) = env.global_pending_resume() {
        match write_atomic(&global, &global_marker_bytes(&abs)) {
            Ok(()) => written.push(global),
            Err(e) => {
                if read_marker(&global).is_some_and(|m| resume_target(paths, &m).is_some()) {
                    let _ = super::remove_if_exists(&global);
                }
                global_error = Some((global, e));
            }
        }
    }
    Ok(Markers {
        written,
        global_error,
    })
}

/// Removes the pending resume of this project (`forge resume --clear`): the project
/// marker, and the global one when it points inside this project *or* at the same
/// file as the project marker (a handoff chosen by path may lie elsewhere). Returns
/// the markers removed.
///
/// SessionStart does not use this: it consumes the global marker only when it
/// points into the project (see `hooks::session_start`).
pub(crate) fn clear_pending_resume(paths: &Paths, env: &Env) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let project = read_marker(&paths.pending_resume());
    if super::remove_if_exists(&paths.pending_resume()).unwrap_or(false) {
        removed.push(paths.pending_resume());
    }
    if let Some(global) = env.global_pending_resume()
        && read_marker(&global).is_some_and(|g| {
            points_inside(&g, &paths.root) || project.as_deref().is_some_and(|p| same_file(p, &g))
        })
        && super::remove_if_exists(&global).unwrap_or(false)
    {
        removed.push(global);
    }
    removed
}

/// Whether `path` lies inside `root` (comparing canonical paths when they exist).
pub(crate) fn points_inside(path: &Path, root: &Path) -> bool {
    canonical(path).starts_with(canonical(root))
}

/// The sessions listed in `logs/context-threshold-triggered`.
pub(crate) fn threshold_sessions(paths: &Paths) -> Vec<String> {
    read_text(&paths.threshold_flag())
        .map(|t| {
            t.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Records that `session_id` crossed the handoff threshold. Exactly one caller per
/// session (per crossing) gets `Ok(true)`: the guard file is created with
/// `create_new`, so a second or racing tick gets `Ok(false)`. The session is also
/// listed in `logs/context-threshold-triggered` for other tools.
pub(crate) fn claim_threshold(
    paths: &Paths,
    session_id: &str,
    now: DateTime<Utc>,
) -> io::Result<bool> {
    if !paths.guard(session_id, Crossing::Threshold).claim()? {
        return Ok(false);
    }
    // The guard above decided; the list is for other tools. Never rewrite it unlocked.
    let lock = super::sibling(&paths.threshold_flag(), ".lock");
    if let Some(_lock) = super::FileLock::acquire(&lock, Duration::from_millis(100)) {
        let mut sessions = threshold_sessions(paths);
        if !sessions.iter().any(|s| s == session_id) {
            sessions.push(session_id.to_owned());
        }
        let mut text = sessions.join("\n");
        text.push('\n');
        super::write_state(&paths.threshold_flag(), text.as_bytes())?;
    }
    let _ = update_bridge(paths, session_id, now, |b| {
        b.threshold_crossed_at = Some(iso(now));
        true
    });
    Ok(true)
}

/// Removes the per-session files (bridge, threshold guard, compaction marker) of
/// sessions whose bridge nobody has touched for longer than `max_age` — all of a
/// session's files together, judged by its bridge, and never `keep`'s (the session
/// starting now) — and temp files (`.forge-*.tmp`) a killed writer left behind more
/// than an hour ago in `.forge/` and its folders. Returns how many files were
/// removed.
pub(crate) fn prune_sessions(paths: &Paths, max_age: Duration, keep: Option<&str>) -> usize {
    let now = std::time::SystemTime::from(crate::env::wall_clock());
    let keep = keep.map(super::sanitize_id);
    let mut removed = prune_temp_files(&paths.forge_dir());
    for dir in [paths.sessions(), paths.logs(), paths.handoffs()] {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in read.filter_map(Result::ok) {
            let name = e.file_name();
            let Some(n) = name.to_str() else { continue };
            let session = (dir == paths.sessions() && !n.starts_with('.'))
                .then(|| {
                    [
                        ".summary.json",
                        ".json",
                        ".compacted",
                        ".counted",
                        ".reread",
                        ".alert",
                    ]
                    .iter()
                    .find_map(|ext| n.strip_suffix(ext))
                    .or_else(|| {
                        // `<id>.threshold`, `<id>.hook<N>`, `<id>.L1`…: its guards.
                        let (id, ext) = n.rsplit_once('.')?;
                        Crossing::is_extension(ext).then_some(id)
                    })
                })
                .flatten();
            let stale = match session {
                // The bridge decides for all of its session's files; a guard or marker
                // without a bridge goes by its own age.
                Some(id) if keep.as_deref() != Some(id) => {
                    let bridge = paths.sessions().join(format!("{id}.json"));
                    let judge = if safe::is_regular(&bridge) {
                        bridge
                    } else {
                        e.path()
                    };
                    age_of(&judge, now).is_some_and(|a| a > max_age)
                }
                Some(_) => false,
                None => is_stale_temp(n, &e.path(), now),
            };
            if stale && std::fs::remove_file(e.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// How old a temp file must be before it counts as left behind by a killed writer
/// (a live writer holds one for milliseconds).
const TEMP_MAX_AGE: Duration = Duration::from_secs(3600);

/// How long ago `p` itself (not a link's target) was modified.
fn age_of(p: &Path, now: std::time::SystemTime) -> Option<Duration> {
    std::fs::symlink_metadata(p)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| now.duration_since(t).ok())
}

/// Whether `name` is one of forge's temp files (`.forge-*.tmp`) older than an hour.
fn is_stale_temp(name: &str, path: &Path, now: std::time::SystemTime) -> bool {
    name.starts_with(super::TEMP_PREFIX)
        && name.ends_with(super::TEMP_SUFFIX)
        && age_of(path, now).is_some_and(|a| a > TEMP_MAX_AGE)
}

/// Removes forge's temp files (`.forge-*.tmp`) older than an hour directly in `dir`:
/// what a writer killed between creating its temp file and renaming it leaves
/// behind (in `.forge/`, or in `~/.claude/` for the global pending-resume marker).
/// Nothing else in `dir` is touched. Returns how many were removed.
pub(crate) fn prune_temp_files(dir: &Path) -> usize {
    let now = std::time::SystemTime::from(crate::env::wall_clock());
    let Ok(read) = std::fs::read_dir(dir) else {
        return 0;
    };
    read.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| is_stale_temp(n, &e.path(), now))
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Re-arms one session's threshold handoff (its context fell well below the
/// threshold, or it was compacted): removes its guard, its line in
/// `context-threshold-triggered` (the file goes when it empties) and its
/// `threshold_crossed_at`.
/// Waits at most `wait` for each lock (the status line cannot wait long).
pub(crate) fn rearm_threshold(
    paths: &Paths,
    session_id: &str,
    now: DateTime<Utc>,
    wait: Duration,
) -> io::Result<()> {
    rearm_threshold_files(paths, session_id, wait)?;
    if safe::is_regular(&paths.session_bridge(session_id)) {
        update_bridge_within(paths, session_id, now, wait, |b| {
            b.threshold_crossed_at.take().is_some()
        })?;
    }
    Ok(())
}

/// [`rearm_threshold`] but the bridge: the guard and the flag's line. For a caller
/// that clears `threshold_crossed_at` in its own write of the bridge (SessionStart
/// after a compaction).
pub(crate) fn rearm_threshold_files(
    paths: &Paths,
    session_id: &str,
    wait: Duration,
) -> io::Result<()> {
    paths.guard(session_id, Crossing::Threshold).rearm()?;
    let lock = super::sibling(&paths.threshold_flag(), ".lock");
    if let Some(_lock) = super::FileLock::acquire(&lock, wait) {
        let before = threshold_sessions(paths);
        let after: Vec<String> = before
            .iter()
            .filter(|s| *s != session_id)
            .cloned()
            .collect();
        if after.is_empty() {
            super::remove_if_exists(&paths.threshold_flag())?;
        } else if after.len() != before.len() {
            super::write_state(
                &paths.threshold_flag(),
                format!("{}\n", after.join("\n")).as_bytes(),
            )?;
        }
    }
    Ok(())
}

/// A new session starts: `context-threshold-triggered` is removed
/// (docs/design.md#the-threshold-handoff); the guards of sessions still running stay,
/// so they do not fire twice. Returns whether there was a flag to remove.
pub(crate) fn clear_threshold_flag(paths: &Paths) -> bool {
    super::remove_if_exists(&paths.threshold_flag()).unwrap_or(false)
}

/// How far apart the two proofs of one compaction (SessionStart(`compact`) and
/// PostCompact) may come and still be taken for one.
const PROOFS_APART: Duration = Duration::from_secs(120);

/// Whether `record`, proved by the hook event `by`, is the first proof of its
/// compaction: the pinned client sends two (SessionStart(`compact`) and
/// PostCompact, near the same moment), an older one only SessionStart. The first
/// writes `logs/sessions/<id>.counted` (its event, the compaction's PreCompact
/// capture time, when it was seen); the second — the other event, the same
/// capture, within [`PROOFS_APART`] — finds it and removes it, so one compaction
/// counts once whichever comes first, and a client that sends one event a
/// compaction counts each. Checked and written under the sessions' lock. A record
/// without a session, or a lock not had in time, counts (once too many beats never).
pub(crate) fn first_proof(
    paths: &Paths,
    record: &crate::model::session::state::CompactionRecord,
    by: &str,
) -> bool {
    let Some(sid) = record.session_id.as_deref() else {
        return true;
    };
    let file = paths.compaction_claim(sid);
    let lock = paths.sessions().join(".lock");
    let Some(_lock) = super::FileLock::acquire(&lock, Duration::from_millis(500)) else {
        return true;
    };
    let seen: Option<serde_json::Value> = super::read_json(&file);
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let same = seen.as_ref().is_some_and(|v| {
        let near = match (
            field(v, "seen_at")
                .as_deref()
                .and_then(crate::model::time::parse_iso),
            crate::model::time::parse_iso(&record.compacted_at),
        ) {
            (Some(a), Some(b)) => (b - a).abs().to_std().is_ok_and(|d| d <= PROOFS_APART),
            _ => false,
        };
        near && field(v, "captured_at") == record.captured_at
            && field(v, "by").is_some_and(|b| b != by)
    });
    if same {
        let _ = super::remove_if_exists(&file);
        return false;
    }
    let _ = super::write_json(
        &file,
        &serde_json::json!({"by": by, "captured_at": record.captured_at, "seen_at": record.compacted_at}),
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_lines_are_stored_with_outside_text_redacted() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.logs()).unwrap();
        let key = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";
        let line = EventLine {
            time: "2026-11-21T10:00:00Z".into(),
            event: "Stop".into(),
            session: Some("s1".into()),
            facts: serde_json::Map::new(),
            outcomes: vec![
                Outcome::StopBlocked {
                    reason: format!("push with {key}"),
                },
                Outcome::UserHookFailed {
                    hook: "on_threshold".into(),
                    command: format!("curl -H 'Authorization: Bearer {key}' https://x"),
                    why: "exited with 7".into(),
                },
                Outcome::FlagSet {
                    flag: "learn-pending".into(),
                    why: String::new(),
                },
            ],
        };
        append_event(&p, &line).unwrap();
        let text = std::fs::read_to_string(p.events()).unwrap();
        assert!(!text.contains("R4nd0mT0k3n"), "{text}");
        assert!(text.contains("push with [REDACTED]"), "{text}");
        assert!(text.contains("\"flag\":\"learn-pending\""), "{text}");
    }

    #[test]
    fn old_session_files_are_pruned() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        std::fs::create_dir_all(p.sessions()).unwrap();
        let old = p.session_bridge("old");
        let fresh = p.session_bridge("fresh");
        let mine = p.session_bridge("mine");
        let tmp = p.logs().join(".forge-abc123.tmp");
        let fresh_tmp = p.logs().join(".forge-def456.tmp");
        let threshold_guard = |id: &str| p.guard(id, Crossing::Threshold).path().to_path_buf();
        let files = [
            &old,
            &fresh,
            &mine,
            &threshold_guard("old"),
            &threshold_guard("fresh"),
            &threshold_guard("mine"),
            &p.sessions().join(".lock"),
            &tmp,
            &fresh_tmp,
        ];
        for f in files {
            std::fs::write(f, "{}").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(30 * 86_400);
        let age = |f: &Path| {
            std::fs::File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        };
        // A running session that crossed long ago: old guard, fresh bridge — kept.
        age(&threshold_guard("fresh"));
        for f in [
            &old,
            &threshold_guard("old"),
            &p.sessions().join(".lock"),
            &tmp,
            &mine,
        ] {
            age(f);
        }
        assert_eq!(
            prune_sessions(&p, Duration::from_secs(7 * 86_400), Some("mine")),
            3
        );
        assert!(!old.exists() && !threshold_guard("old").exists());
        assert!(
            fresh.exists() && threshold_guard("fresh").exists(),
            "judged by its bridge"
        );
        assert!(mine.exists(), "the session starting now keeps its files");
        assert!(p.sessions().join(".lock").exists());
        assert!(
            !tmp.exists() && fresh_tmp.exists(),
            "a writer may still be using a fresh temp file"
        );
    }

    #[test]
    fn every_guard_of_an_old_session_is_pruned_with_it() {
        use crate::model::session::level::Level;
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        let crossings = [
            Crossing::Threshold,
            Crossing::Hook(0),
            Crossing::Hook(3),
            Crossing::Level(Level::L1),
            Crossing::Level(Level::L2),
            Crossing::Level(Level::L3),
        ];
        for id in ["old", "live"] {
            for c in crossings {
                assert!(p.guard(id, c).claim().unwrap());
            }
        }
        let keep = [
            // Not guards: `.hook` with no number, a level forge never guards.
            p.sessions().join("old.hook"),
            p.sessions().join("old.L0"),
            p.sessions().join("old.hookx"),
        ];
        for f in &keep {
            std::fs::write(f, "").unwrap();
        }
        std::fs::write(p.session_bridge("live"), "{}").unwrap();
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(30 * 86_400);
        let read = std::fs::read_dir(p.sessions()).unwrap();
        for e in read.filter_map(Result::ok) {
            std::fs::File::options()
                .write(true)
                .open(e.path())
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        // The live session's bridge is fresh: its guards stay with it.
        std::fs::write(p.session_bridge("live"), "{}").unwrap();
        assert_eq!(
            prune_sessions(&p, Duration::from_secs(7 * 86_400), None),
            crossings.len()
        );
        for c in crossings {
            assert!(p.guard("old", c).is_armed(), "{c:?}");
            assert!(!p.guard("live", c).is_armed(), "{c:?}");
        }
        assert!(keep.iter().all(|f| f.exists()));
    }

    #[test]
    fn threshold_fires_once_per_session() {
        let t = tempfile::tempdir().unwrap();
        let p = Paths::new(t.path());
        let now = Utc::now();
        assert!(claim_threshold(&p, "a", now).unwrap());
        assert!(!claim_threshold(&p, "a", now).unwrap());
        assert!(claim_threshold(&p, "b", now).unwrap());
        assert_eq!(threshold_sessions(&p), vec!["a", "b"]);
        // A compaction re-arms only that session.
        rearm_threshold(&p, "a", now, Duration::from_millis(100)).unwrap();
        assert_eq!(threshold_sessions(&p), vec!["b"]);
        assert!(!claim_threshold(&p, "b", now).unwrap());
        assert!(claim_threshold(&p, "a", now).unwrap());
        // A new session clears the flag file; running sessions keep their guards.
        clear_threshold_flag(&p);
        assert!(!p.threshold_flag().exists());
        assert!(!claim_threshold(&p, "a", now).unwrap());
    }

    #[test]
    fn a_remote_signal_is_never_made_the_pending_resume() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        let cached = root.join(".forge/share/inbox/agent-r0badcafe-T-1-20261121-101502.md");
        std::fs::create_dir_all(cached.parent().unwrap()).unwrap();
        std::fs::write(&cached, "x").unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let p = Paths::new(&root);
        let e = write_pending_resume(&p, &env, &cached, ResumeOrigin::Chosen).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(!p.pending_resume().exists());
    }

    #[test]
    fn pending_resume_global_only_cleared_when_it_points_here() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".forge/handoffs")).unwrap();
        let env = Env::for_test(&home, &root);
        let p = Paths::new(&root);
        let h = root.join(".forge/handoffs/handoff-20261121-094500.md");
        std::fs::write(&h, "x").unwrap();
        let written = write_pending_resume(&p, &env, &h, ResumeOrigin::Chosen).unwrap();
        assert_eq!(written.written.len(), 2);
        assert!(written.global_error.is_none());
        assert_eq!(read_marker(&p.pending_resume()).unwrap(), h);
        assert_eq!(clear_pending_resume(&p, &env).len(), 2);
        // A global marker for another project is left alone.
        let global = env.global_pending_resume().unwrap();
        std::fs::write(&global, "/elsewhere/handoff-1.md\n").unwrap();
        assert!(clear_pending_resume(&p, &env).is_empty());
        assert!(global.exists());
    }

    #[test]
    fn markers_round_trip_any_path_and_name_only_this_projects_handoffs() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("a\nb  ").join("proj");
        let paths = Paths::new(&root);
        std::fs::create_dir_all(paths.handoffs()).unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let h = paths.handoffs().join("handoff-20261121-094500.md");
        std::fs::write(&h, "x").unwrap();
        write_pending_resume(&paths, &env, &h, ResumeOrigin::Chosen).unwrap();
        let marker = read_marker(&paths.pending_resume()).unwrap();
        assert_eq!(marker, h.canonicalize().unwrap());
        // The origin is the last line; the path keeps its newline and spaces.
        for origin in [ResumeOrigin::Auto, ResumeOrigin::Chosen] {
            write_pending_resume(&paths, &env, &h, origin).unwrap();
            assert_eq!(
                read_marker_with_origin(&paths.pending_resume()),
                Some((h.canonicalize().unwrap(), origin))
            );
        }
        // The global marker holds the bare path and a newline, whatever the origin
        // (the project's marker keeps it).
        {
            use std::os::unix::ffi::OsStrExt;
            write_pending_resume(&paths, &env, &h, ResumeOrigin::Auto).unwrap();
            let global = env.global_pending_resume().unwrap();
            let mut bare = h.canonicalize().unwrap().as_os_str().as_bytes().to_vec();
            bare.push(b'\n');
            assert_eq!(std::fs::read(&global).unwrap(), bare);
            assert_eq!(read_marker(&global), Some(h.canonicalize().unwrap()));
            // The two-line form the previous version wrote there still reads.
            let mut two = bare.clone();
            two.extend_from_slice(b"auto\n");
            std::fs::write(&global, two).unwrap();
            assert_eq!(
                read_marker_with_origin(&global),
                Some((h.canonicalize().unwrap(), ResumeOrigin::Auto))
            );
        }
        // A marker of an older forge (the path alone) reads as chosen.
        {
            use std::os::unix::ffi::OsStrExt;
            let mut old = h.canonicalize().unwrap().as_os_str().as_bytes().to_vec();
            old.push(b'\n');
            std::fs::write(paths.pending_resume(), old).unwrap();
            assert_eq!(
                read_marker_with_origin(&paths.pending_resume()),
                Some((h.canonicalize().unwrap(), ResumeOrigin::Chosen))
            );
        }
        assert_eq!(resume_target(&paths, &marker), Some(h.clone()));
        assert_eq!(pending_resume(&paths, &env).map(|p| p.1), Some(h.clone()));
        // Anything but a regular handoff file in this project's handoffs/ is refused.
        let outside = t.path().join("handoff-20261121-094500.md");
        std::fs::write(&outside, "x").unwrap();
        let link = paths.handoffs().join("handoff-20991231-000000.md");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let other_name = paths.handoffs().join("notes.md");
        std::fs::write(&other_name, "x").unwrap();
        for bad in [&outside, &link, &other_name, &root.join("handoff-1.md")] {
            assert_eq!(resume_target(&paths, bad), None, "{}", bad.display());
        }
        assert!(
            resume_target(
                &paths,
                &paths
                    .handoffs()
                    .join("../handoffs/handoff-20261121-094500.md")
            )
            .is_some()
        );
        // Not absolute, empty or with a NUL: no marker.
        for junk in [&b"relative/handoff-1.md\n"[..], b"\n", b"", b"/a\0b\n"] {
            std::fs::write(paths.pending_resume(), junk).unwrap();
            assert_eq!(read_marker(&paths.pending_resume()), None);
        }
    }

    #[test]
    fn clearing_removes_a_global_marker_for_the_same_file_outside_the_project() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".forge")).unwrap();
        let elsewhere = t.path().join("other/.forge/handoffs");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let h = elsewhere.join("handoff-20261121-094500.md");
        std::fs::write(&h, "x").unwrap();
        let env = Env::for_test(&home, &root);
        let p = Paths::new(&root);
        // Written through a `..` path: stored canonical.
        let detour = t
            .path()
            .join("proj/../other/.forge/handoffs/handoff-20261121-094500.md");
        write_pending_resume(&p, &env, &detour, ResumeOrigin::Chosen).unwrap();
        assert_eq!(
            read_marker(&p.pending_resume()),
            Some(h.canonicalize().unwrap())
        );
        let global = env.global_pending_resume().unwrap();
        assert_eq!(clear_pending_resume(&p, &env).len(), 2);
        assert!(!global.exists());
    }
}
