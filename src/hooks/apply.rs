//! Apply: a decided [`Plan`] carried out. Its effects run in order, each recording
//! its outcome (or error) in the call; then the session bridge is written once,
//! under its lock, with the plan's change merged into the bridge as it is on disk
//! then (others write it too: the status line, a parallel tool call's hook). What
//! did not change is not written.

use serde_json::json;

use super::call::Call;
use crate::model::hook::start::SESSION_RETENTION;
use crate::model::hook::{BridgeEdit, Effect, Plan};
use crate::model::outcome::Outcome;
use crate::model::session::state::{CompactionRecord, GitCache, SessionBridge};
use crate::store::{self, files};

/// What carrying out a plan left.
#[derive(Debug, Default)]
pub(super) struct Applied {
    /// What to print.
    pub(super) stdout: String,
    /// The session's bridge as this call left it (the one written under the lock),
    /// else as the call read it: what the wake message and the fleet registry use.
    pub(super) bridge: Option<SessionBridge>,
    /// Git's facts, when the call asked git (`Some(None)`: it asked and got none).
    pub(super) git: Option<Option<GitCache>>,
    /// The plan ran to its end (no effect stopped the call).
    pub(super) completed: bool,
}

impl Applied {
    /// The same, with the git facts the call gathered.
    pub(super) fn knowing_git(mut self, git: Option<GitCache>) -> Self {
        self.git = Some(git);
        self
    }
}

/// Carries out `plan`; `gathered` is the bridge as the call read it.
pub(super) fn apply(call: &Call, plan: Plan, gathered: Option<SessionBridge>) -> Applied {
    let Plan {
        stdout,
        effects,
        bridge,
    } = plan;
    let mut edit = bridge;
    for effect in effects {
        if let Err(e) = carry_out(call, effect, &mut edit, gathered.as_ref()) {
            // Only the pre-compact capture stops a call: nothing after it is done,
            // and the hook says nothing.
            call.fail(&format!("hook {}", call.event), &e.to_string());
            return Applied {
                bridge: gathered,
                ..Applied::default()
            };
        }
    }
    let bridge = match (edit, call.session_id()) {
        (Some(edit), Some(sid)) if !edit.is_empty() => {
            match files::update_bridge(&call.paths, sid, call.env.now, |b| {
                edit.apply(b, store::process::start_time)
            }) {
                Ok(b) => Some(b),
                Err(e) => {
                    let what = edit.touch.as_ref().map_or("bridge", |t| t.event.as_str());
                    call.fail(what, &format!("bridge: {e}"));
                    gathered
                }
            }
        }
        _ => gathered,
    };
    Applied {
        stdout,
        bridge,
        git: None,
        completed: true,
    }
}

/// One effect. `Err` stops the call (the pre-compact capture only).
fn carry_out(
    call: &Call,
    effect: Effect,
    edit: &mut Option<BridgeEdit>,
    gathered: Option<&SessionBridge>,
) -> std::io::Result<()> {
    let paths = &call.paths;
    match effect {
        Effect::Record(outcome) => call.record(outcome),
        Effect::Fail { what, message } => call.fail(&what, &message),
        Effect::SaveGitCache(cache) => {
            let _ = files::write_git_cache(paths, &cache);
        }
        Effect::RecordSession(last) => match files::write_last_session(paths, &last) {
            Ok(()) => call.record(Outcome::SessionRecorded {
                branch: last.branch,
                uncommitted: last.uncommitted_changes,
                is_final: last.is_final,
            }),
            Err(e) => call.fail("last-session", &e.to_string()),
        },
        Effect::CaptureState(state) => {
            store::write_json_synced(&paths.pre_compact_state(), &state)?;
            call.record(Outcome::StateCaptured {
                branch: state.branch,
                uncommitted: state.uncommitted_changes,
            });
        }
        Effect::SetLearnFlag { why } => match store::touch_flag(&paths.learn_pending()) {
            Ok(()) => call.record(Outcome::FlagSet {
                flag: "learn-pending".to_owned(),
                why,
            }),
            Err(e) => call.fail("learn-pending", &e.to_string()),
        },
        Effect::ClearLearnFlag { why, report } => {
            let cleared = Outcome::FlagCleared {
                flag: "learn-pending".to_owned(),
                why,
            };
            match store::remove_if_exists(&paths.learn_pending()) {
                Ok(true) => call.record(cleared),
                Ok(false) if report => call.record(cleared),
                Err(e) if report => call.fail("learn-pending", &e.to_string()),
                _ => {}
            }
        }
        Effect::MarkRereading { session } => {
            let _ = store::touch_flag(&paths.reread_started(&session));
        }
        Effect::PruneSessions { keep } => {
            let count = files::prune_sessions(paths, SESSION_RETENTION, keep.as_deref());
            if count > 0 {
                call.record(Outcome::Pruned { count });
            }
        }
        Effect::PruneHandoffs { older_than, keep } => {
            let r = crate::app::prune::prune(paths, call.env, older_than, keep, false);
            if !r.removed.is_empty() {
                call.record(Outcome::HandoffsPruned {
                    count: r.removed.len(),
                });
            }
            for (path, e) in r.errors {
                call.fail("handoff prune", &format!("{}: {e}", path.display()));
            }
        }
        Effect::PruneClaudeTemp => {
            if let Some(dir) = call.env.claude_dir() {
                let _ = files::prune_temp_files(&dir);
            }
        }
        Effect::RearmThreshold { session } => {
            let _ = files::rearm_threshold_files(
                paths,
                &session,
                std::time::Duration::from_millis(100),
            );
        }
        Effect::ClearThresholdFlag { why } => {
            if files::clear_threshold_flag(paths) {
                call.record(Outcome::FlagCleared {
                    flag: "context-threshold-triggered".to_owned(),
                    why,
                });
            }
        }
        Effect::RecordCompaction {
            record,
            reread,
            armed,
        } => count_compaction(call, &record, reread, armed),
        Effect::KeepSummary {
            session,
            text,
            trigger,
        } => keep_summary(call, &session, &text, trigger),
        Effect::SafetyNetHandoff { session, git } => {
            safety_net(call, &session, git.as_ref(), edit, gathered);
        }
    }
    Ok(())
}

/// A proof of a compaction: counted, unless its other proof came first
/// (SessionStart(compact) and PostCompact both prove one).
fn count_compaction(call: &Call, record: &CompactionRecord, reread: Vec<String>, armed: bool) {
    if !files::first_proof(&call.paths, record, &call.event) {
        call.record(Outcome::CompactionKnown { reread });
        return;
    }
    match record_compaction(call, record, &reread, armed) {
        Ok(()) => call.record(Outcome::CompactionRecorded { reread, armed }),
        Err(e) => call.fail(&format!("{} compaction", call.event), &e.to_string()),
    }
}

/// PostCompact's summary (redacted already), kept for the session's next handoff.
fn keep_summary(call: &Call, session: &str, text: &str, trigger: Option<String>) {
    let kept = json!({
        "received_at": crate::model::time::iso(call.env.now),
        "trigger": trigger,
        "summary": text,
    });
    match store::write_json(&call.paths.compact_summary(session), &kept) {
        Ok(()) => call.record(Outcome::SummaryKept {
            chars: text.chars().count(),
        }),
        Err(e) => call.fail("PostCompact summary", &e.to_string()),
    }
}

/// Counts a proven compaction in `compactions.jsonl`, and arms the session's
/// one-shot re-read marker (its re-read flag from before removed).
fn record_compaction(
    call: &Call,
    record: &CompactionRecord,
    reread: &[String],
    armed: bool,
) -> std::io::Result<()> {
    let paths = &call.paths;
    let line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    store::append_line_capped(&paths.compactions(), &line, store::COMPACTIONS_CAP)?;
    if armed && let Some(sid) = record.session_id.as_deref() {
        let _ = store::remove_if_exists(&paths.reread_started(sid));
        store::write_json(
            &paths.compaction_marker(sid),
            &json!({"armed_at": record.compacted_at, "reread": reread}),
        )?;
    }
    Ok(())
}

/// PreCompact's safety net: a session handoff made the pending resume. Inline and
/// bounded; failures are logged and recorded, never surfaced. The handoff is
/// recorded in the bridge with the call's one write.
fn safety_net(
    call: &Call,
    session: &str,
    git: Option<&GitCache>,
    edit: &mut Option<BridgeEdit>,
    gathered: Option<&SessionBridge>,
) {
    use crate::app::session_handoff::{GitInput, Request, write_with_bridge};
    use crate::model::handoff::handoff_doc::Trigger;
    let facts = git.map(crate::git::facts_of);
    let req = Request {
        trigger: Trigger::PreCompact,
        session_id: Some(session),
        transcript_path: call.wire.transcript_path.as_deref(),
        git: GitInput::Known(facts.as_ref()),
        task: None,
        pending: true,
    };
    match write_with_bridge(&call.paths, call.env, &call.config, &req, gathered) {
        Ok(w) => {
            edit.get_or_insert_with(BridgeEdit::default)
                .handoff_written_at = Some(crate::model::time::iso(call.env.now));
            for o in w.outcomes(Trigger::PreCompact) {
                match o {
                    Outcome::Error { what, message } => call.fail(&what, &message),
                    o => call.record(o),
                }
            }
        }
        Err(e) => call.fail("PreCompact handoff", &e.to_string()),
    }
}
