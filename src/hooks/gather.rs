//! Gather: what each event needs, read once per call — the session's bridge, the
//! state files, the learn flag, the transcript's end, git's facts (scanned on a
//! helper thread while the rest is read) — into the facts a plain function of
//! `crate::model::hook` decides with. Nothing here writes, but for the one-shot
//! markers a call takes (the re-read marker, the ladder's alert): taking one is
//! reading it, and exactly one racing call gets it.

use std::path::Path;

use serde_json::Value;

use super::call::Call;
use crate::model::hook::compaction::{CompactFacts, PostCompactFacts, reread_list};
use crate::model::hook::start::{Relay, StartFacts};
use crate::model::hook::tool::{self, ToolFacts};
use crate::model::hook::turn::{self, TurnFacts};
use crate::model::hook::{LearnFlag, Session};
use crate::model::session::state::{GitCache, SessionBridge};
use crate::store::{self, files, handoffs, safe};

/// How long SessionEnd waits for git: it shares a 1.5 s budget with every other
/// SessionEnd hook (then the cache Stop left is used); elsewhere
/// [`crate::git::GIT_DEADLINE`].
const SESSION_END_GIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The most the first command of a turn waits for its baseline scan (a tool call is
/// waiting; the turn's end has three seconds for its own).
const COMMAND_BASELINE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// The session the payload names, with its bridge (one read).
pub(super) fn session(call: &Call) -> Session {
    Session {
        id: call.wire.session_id.clone(),
        bridge: call.bridge(),
        client_pid: call.env.claude_pid,
    }
}

/// Stop (`Some(stop_hook_active)`) or SessionEnd (`None`): git on its thread while
/// the bridge, `state.json`, the transcript's end and the learn flag are read, and
/// Stop takes the re-read marker when it is to block.
pub(super) fn turn(call: &Call, stop: Option<bool>) -> TurnFacts {
    let deadline = if stop.is_some() {
        crate::git::GIT_DEADLINE
    } else {
        SESSION_END_GIT
    };
    let pending = crate::git::start_facts(&call.paths.root, deadline);
    let session = session(call);
    let workflow = files::read_workflow(&call.paths);
    // Print mode never runs the status line: without its reading, the transcript
    // says how full the context is.
    let transcript = session
        .bridge
        .as_ref()
        .is_none_or(|b| b.readings.is_empty())
        .then(|| transcript_path(call, session.bridge.as_ref()))
        .flatten()
        .map(|p| store::transcript::tail_context(Path::new(&p)));
    let learn = learn_flag(call);
    let reread = match stop {
        Some(active) if turn::stop_takes_marker(active, rereading(call)) => {
            take_compaction_marker(call)
        }
        _ => None,
    };
    let git = finish_git(call, pending);
    let commands_refused =
        !learn.set && commands_refused(call, session.bridge.as_ref(), git.cache.as_ref());
    TurnFacts {
        commands_refused,
        session,
        settings: call.settings.clone(),
        git: git.cache,
        git_refused: git.refused,
        git_to_save: git.to_save,
        workflow,
        transcript,
        learn,
        reread,
    }
}

/// PreToolUse: the bridge (when the call may change it), whether an editing tool
/// works inside the project, the turn's first command's baseline (a git scan of at
/// most [`COMMAND_BASELINE_DEADLINE`]), and the re-read marker.
pub(super) fn tool(call: &Call) -> ToolFacts {
    let w = call.wire;
    // A subagent's read-only call changes nothing: its bridge is not read.
    let may_write =
        w.agent_id.is_none() || tool::may_mark_edit(w, None) || tool::needs_baseline(w, None);
    let session = if may_write {
        session(call)
    } else {
        Session {
            id: w.session_id.clone(),
            bridge: None,
            client_pid: call.env.claude_pid,
        }
    };
    let bridge = session.bridge.as_ref();
    let edits_project = tool::may_mark_edit(w, bridge) && inside_project(call);
    let baseline = tool::needs_baseline(w, bridge)
        .then(|| crate::git::facts_within(&call.paths.root, COMMAND_BASELINE_DEADLINE))
        .flatten()
        .map(|facts| crate::git::cache_of(facts, call.env.now).fingerprint());
    let (marker_armed, reread) = match call.session_id() {
        Some(sid) if w.agent_id.is_none() && tool::is_read_only(w.tool_name.as_deref()) => {
            (call.paths.compaction_marker(sid).exists(), None)
        }
        Some(_) if tool::takes_marker(w) => (false, take_compaction_marker(call)),
        _ => (false, None),
    };
    ToolFacts {
        session,
        edits_project,
        baseline,
        marker_armed,
        reread,
    }
}

/// How long PreCompact waits for a handoff of this project that is being written
/// (the status line's threshold handoff, started a moment before): the compaction
/// waits for it to land, never longer than this.
pub(super) const PRE_COMPACT_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// PreCompact's first step: takes the project's handoff lock, waiting up to `wait`
/// while another process holds it (a handoff being written), so the compaction
/// starts only once that handoff is on disk; the lock is then held while PreCompact
/// writes its own. Records how long it waited when it had to; past `wait`, records
/// that it stopped waiting, logs it, and returns `None`: the compaction goes on
/// (PreCompact never refuses one).
pub(super) fn await_handoff(call: &Call, wait: std::time::Duration) -> Option<store::FileLock> {
    let lock = call.paths.handoff_lock();
    if let Some(held) = store::FileLock::acquire(&lock, std::time::Duration::ZERO) {
        return Some(held);
    }
    let until = crate::env::deadline_after(wait);
    let got = store::FileLock::acquire(&lock, wait);
    let waited = wait.saturating_sub(crate::env::time_left(until));
    let waited_ms = u64::try_from(waited.as_millis()).unwrap_or(u64::MAX);
    call.record(crate::model::outcome::Outcome::HandoffAwaited {
        waited_ms,
        landed: got.is_some(),
    });
    if got.is_none() {
        store::log_error(
            &call.paths,
            "PreCompact",
            &format!(
                "a handoff of this project was still being written after {waited_ms} ms; the compaction went on"
            ),
        );
    }
    got
}

/// PreCompact: git's facts (waited for, within [`crate::git::GIT_DEADLINE`]) and
/// the bridge, read meanwhile.
pub(super) fn compact(call: &Call) -> CompactFacts {
    let pending = crate::git::start_facts(&call.paths.root, crate::git::GIT_DEADLINE);
    let session = session(call);
    let (git, git_refused) = match pending.wait_checked() {
        Ok(facts) => (facts.map(|f| crate::git::cache_of(f, call.env.now)), None),
        Err(why) => (None, Some(why.to_string())),
    };
    CompactFacts {
        session,
        settings: call.settings.clone(),
        git,
        git_refused,
        handoff_in_flight: false,
    }
}

/// PostCompact: the bridge, the pre-compact capture, the inbox and the transcript's
/// files to re-read.
pub(super) fn post_compact(call: &Call) -> PostCompactFacts {
    PostCompactFacts {
        session: session(call),
        settings: call.settings.clone(),
        pre_compact: files::read_pre_compact(&call.paths),
        handoffs: handoffs::list(&call.paths),
        transcript_files: transcript_files(call),
    }
}

/// SessionStart: the bridge, `last-session.json` (and the bridge of the session it
/// records, when that is another's, not final), the inbox, the learn flag — or,
/// after a compaction, the pre-compact capture and the transcript's files. Git's
/// facts are started first and left running: only the resumed handoff's drift and
/// the session's baseline need them, at the end.
pub(super) fn start(call: &Call, source: Option<&str>) -> (StartFacts, crate::git::PendingFacts) {
    let pending = crate::git::start_facts(&call.paths.root, crate::git::GIT_DEADLINE);
    let paths = &call.paths;
    let session = session(call);
    let compacted = source == Some("compact");
    let last = files::read_last_session(paths);
    // The record may be of a turn of another session still running here: its one
    // bridge read. A session whose client process is gone (kill -9) ran no
    // SessionEnd: it is not live, as in every other view.
    let last_bridge = last
        .as_ref()
        .filter(|_| !compacted)
        .and_then(|l| crate::model::hook::start::asks_last_bridge(session.id(), l))
        .and_then(|id| files::read_bridge(paths, &id))
        .map(|mut b| {
            b.end_if_client_gone(store::process::is_gone);
            b
        });
    let pre_compact = if compacted {
        files::read_pre_compact(paths)
    } else {
        None
    };
    // The repository's inbox: the Signals of every work tree (store::inbox).
    let handoffs = crate::store::handoffs::repository(paths);
    let learn = if compacted {
        LearnFlag::default()
    } else {
        learn_flag(call)
    };
    let transcript_files = if compacted {
        transcript_files(call)
    } else {
        Vec::new()
    };
    let facts = StartFacts {
        session,
        settings: call.settings.clone(),
        source: source.map(str::to_owned),
        last,
        last_bridge,
        pre_compact,
        handoffs,
        learn,
        transcript_files,
        relay: call.env.relay.as_ref().map(|r| Relay {
            previous_session_id: r.previous_session_id.clone(),
            handoff_count: r.handoff_count,
        }),
    };
    (facts, pending)
}

/// Git's answer for a call that started it, without writing anything: the facts
/// (else the stored cache, read once), what to store, and why a repository was
/// refused.
pub(super) struct GitAnswer {
    pub(super) cache: Option<GitCache>,
    pub(super) to_save: Option<GitCache>,
    pub(super) refused: Option<String>,
}

/// Waits for `pending` (see [`crate::git::finish_checked`]).
pub(super) fn finish_git(call: &Call, pending: crate::git::PendingFacts) -> GitAnswer {
    let done = crate::git::finish_checked(&call.paths, call.env.now, pending);
    GitAnswer {
        cache: done.cache,
        to_save: done.to_save,
        refused: done.refused.map(|why| why.to_string()),
    }
}

/// UserPromptSubmit: takes the ladder's alert (read, then removed; its text reaches
/// the model once).
pub(super) fn take_alert(call: &Call) -> Option<String> {
    let path = call.paths.alert(call.session_id()?);
    let text = store::read_text(&path)?;
    let _ = store::remove_if_exists(&path);
    Some(text)
}

/// Takes this session's re-read marker: removes it; `Some(files to re-read)` for the
/// one call that removed it (parallel tool calls race; exactly one wins), which also
/// removes the session's re-read flag. A marker without its list names the
/// session's handoff.
fn take_compaction_marker(call: &Call) -> Option<Vec<String>> {
    let sid = call.session_id()?;
    let marker = call.paths.compaction_marker(sid);
    if !marker.exists() {
        return None;
    }
    let recorded: Option<Value> = store::read_json(&marker);
    if !store::remove_if_exists(&marker).unwrap_or(false) {
        return None;
    }
    let _ = store::remove_if_exists(&call.paths.reread_started(sid));
    let list = recorded
        .as_ref()
        .and_then(|v| v.get("reread"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_else(|| reread_list(&handoffs::list(&call.paths), Some(sid), Vec::new()));
    Some(list)
}

/// Whether a read-only tool ran since this session's compaction.
fn rereading(call: &Call) -> bool {
    call.session_id()
        .is_some_and(|sid| call.paths.reread_started(sid).exists())
}

/// Whether the person refused every command of the turn at the client's prompt,
/// looked for in the transcript only when it decides something: the tree changed
/// since the turn's command baseline and that change would otherwise be the
/// session's (no edit of its own, the calls' ids known).
fn commands_refused(call: &Call, bridge: Option<&SessionBridge>, git: Option<&GitCache>) -> bool {
    let Some(b) = bridge else {
        return false;
    };
    let changed = b
        .command_baseline
        .as_deref()
        .zip(git)
        .is_some_and(|(base, git)| git.fingerprint() != base);
    if !changed || b.files_edited || b.command_calls.is_empty() {
        return false;
    }
    transcript_path(call, bridge)
        .is_some_and(|p| store::transcript::every_command_refused(Path::new(&p), &b.command_calls))
}

/// The learn flag, and whether a `learned-*.md` is newer than it.
fn learn_flag(call: &Call) -> LearnFlag {
    let set = safe::is_regular(&call.paths.learn_pending());
    LearnFlag {
        set,
        learned_after: set && crate::app::learn::learned_after_flag(&call.paths, call.env),
    }
}

/// The session's transcript: the payload's, else the bridge's when it is one of
/// Claude Code's own (a bridge is a file in the project, which a repository can
/// ship).
pub(super) fn transcript_path(call: &Call, bridge: Option<&SessionBridge>) -> Option<String> {
    call.wire.transcript_path.clone().or_else(|| {
        bridge
            .and_then(|b| b.transcript_path.clone())
            .filter(|p| crate::app::session_handoff::is_claude_transcript(call.env, Path::new(p)))
    })
}

/// The file an editing tool works on is in the project (or the payload names none).
fn inside_project(call: &Call) -> bool {
    let root = &call.paths.root;
    call.wire.tool_file.as_deref().is_none_or(|f| {
        let f = Path::new(f);
        f.is_relative()
            || f.starts_with(root)
            || std::fs::canonicalize(root).is_ok_and(|r| f.starts_with(r))
    })
}

/// A compacted session's files to re-read from its transcript: edited, then read,
/// newest first; only files that exist (never a folder); named relative to the
/// project when inside it.
fn transcript_files(call: &Call) -> Vec<String> {
    let root = &call.paths.root;
    call.wire
        .transcript_path
        .as_deref()
        .and_then(|t| store::transcript::read_facts(Path::new(t)).ok())
        .map(|(facts, _)| crate::model::session::transcript::reread_candidates(&facts))
        .unwrap_or_default()
        .into_iter()
        .filter(|f| {
            let p = Path::new(f);
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                root.join(p)
            };
            abs.is_file()
        })
        .map(|f| match Path::new(&f).strip_prefix(root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => f,
        })
        .collect()
}
