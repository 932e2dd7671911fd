//! Stop (every turn) and SessionEnd (the last one), decided: record how the session
//! left the tree, set (or clear) the learn flag, warn about a dirty tree, and block
//! a stop once when a compacted session has not re-read anything.

use serde_json::{Value, json};

use super::bridge::{Baseline, BridgeEdit, Touch};
use super::wire::WireHookInput;
use super::{Effect, LearnFlag, Plan, Session, Settings};
use crate::model::outcome::Outcome;
use crate::model::session::dirty;
use crate::model::session::state::{Attention, GitCache, LastSession, WorkflowState};
use crate::model::session::transcript::{TailScan, infer_window, pct_of};

/// What the end of a turn knows, gathered once.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TurnFacts {
    /// The session and its bridge.
    pub(crate) session: Session,
    /// The config's say.
    pub(crate) settings: Settings,
    /// Git's facts now, else the stored cache (git took too long, or no work tree).
    pub(crate) git: Option<GitCache>,
    /// Why git would not open the repository (forge does not hand it to libgit2).
    pub(crate) git_refused: Option<String>,
    /// The facts to store in `logs/git-cache.json` (`None`: the stored ones say the
    /// same and are fresh, or git gave none).
    pub(crate) git_to_save: Option<GitCache>,
    /// `.forge/state.json`'s phase and task.
    pub(crate) workflow: WorkflowState,
    /// The end of the transcript, read only when the bridge has no reading of the
    /// status line's (print mode never runs one).
    pub(crate) transcript: Option<TailScan>,
    /// The learn flag.
    pub(crate) learn: LearnFlag,
    /// The person refused every command of the turn at the client's prompt (read
    /// from the transcript only when the tree changed since the turn's baseline):
    /// none ran, so that change is not the session's.
    pub(crate) commands_refused: bool,
    /// Stop: the files to re-read, when this call took the session's re-read marker
    /// (see [`stop_takes_marker`]).
    pub(crate) reread: Option<Vec<String>>,
}

/// Whether a Stop takes the session's re-read marker (to block once): never when the
/// turn already continues because of a Stop hook, nor when the session is re-reading
/// (a read-only tool ran since the compaction).
pub(crate) fn stop_takes_marker(stop_hook_active: bool, rereading: bool) -> bool {
    !stop_hook_active && !rereading
}

/// What the end of a transcript says of the context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TranscriptContext {
    /// Used, in percent of the window.
    pub(crate) pct: f64,
    /// Input-side tokens.
    pub(crate) tokens: u64,
    /// A compaction is newer than any usage: the figure is its estimate.
    pub(crate) estimate: bool,
}

/// The context from the end of a transcript: the last usage, or the estimate of a
/// compaction newer than any usage; the window from the bridge (`window`), else the
/// model (the transcript's, else the payload's).
pub(crate) fn transcript_context(
    scan: &TailScan,
    window: Option<u64>,
    payload_model: Option<&str>,
) -> Option<TranscriptContext> {
    let tokens = scan.tokens().filter(|t| *t > 0)?;
    let model = match scan {
        TailScan::Usage { model, .. } => model.as_deref(),
        _ => None,
    };
    let window = infer_window(window, model.or(payload_model), Some(tokens));
    Some(TranscriptContext {
        pct: pct_of(tokens, window),
        tokens,
        estimate: matches!(scan, TailScan::Compacted { .. }),
    })
}

/// Stop: the turn's record, the learn flag, the dirty-tree warning (for the person:
/// a Stop hook's plain stdout reaches no screen, docs/client-reference.md §9.1 #8),
/// and the re-read failsafe.
pub(crate) fn stop(
    f: &TurnFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let (mut plan, mut edit) = end_of_turn(f, payload, now, None);
    let git = f.git.as_ref();
    let dirty = git.map_or(0, |g| g.uncommitted_changes);
    // As `[hooks] dirty_warning` says: by default when the count grew past what the
    // session started with (or was last warned about). Without a bridge there is
    // nothing to compare with.
    let mode = f.settings.dirty_warning;
    let bridge = f.session.bridge.as_ref();
    let warn = git.is_some()
        && dirty::decide(
            mode,
            dirty,
            bridge.and_then(|b| b.dirty_at_start),
            bridge.and_then(|b| b.dirty_warned),
        )
        .warn;
    edit.touch = Some(Touch::new(
        "Stop",
        Some(Attention::WaitingInput),
        None,
        payload,
        now,
        f.session.client_pid,
    ));
    edit.dirty = git.map(|_| (mode, dirty));
    // The turn is over: the next one's first command takes a new baseline.
    edit.baseline = Baseline::Clear;
    plan.bridge = f.session.id.is_some().then_some(edit);

    let mut out = serde_json::Map::new();
    // Failsafe: a compaction happened and no tool ran since, so PreToolUse never
    // got to ask for the re-read. Block the stop once.
    if let Some(files) = &f.reread {
        let reason = stop_reason(&super::reread_or_generic(files));
        out.insert("decision".into(), json!("block"));
        out.insert("reason".into(), json!(reason));
        plan.record(Outcome::StopBlocked { reason });
    }
    if warn && let Some(text) = dirty_warning(git) {
        out.insert("systemMessage".into(), json!(text));
        plan.record(Outcome::Warned { message: text });
    }
    if !out.is_empty() {
        plan.stdout = format!("{}\n", Value::Object(out));
    }
    plan
}

/// SessionEnd only records: the client discards its output
/// (docs/client-reference.md §9.1 #8), so the next SessionStart tells the dirty tree
/// instead.
pub(crate) fn session_end(
    f: &TurnFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let (mut plan, mut edit) = end_of_turn(f, payload, now, Some(payload.reason.as_deref()));
    edit.touch = Some(Touch::new(
        "SessionEnd",
        Some(Attention::Ended),
        None,
        payload,
        now,
        f.session.client_pid,
    ));
    edit.baseline = Baseline::Clear;
    plan.bridge = f.session.id.is_some().then_some(edit);
    plan
}

/// What every end of a turn does: `logs/last-session.json`, the transcript's
/// figure in the bridge, and the learn flag. `last` is `Some(reason)` for the
/// session's final record (SessionEnd).
fn end_of_turn(
    f: &TurnFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
    last: Option<Option<&str>>,
) -> (Plan, BridgeEdit) {
    let mut plan = Plan::default();
    let mut edit = BridgeEdit::default();
    let bridge = f.session.bridge.as_ref();
    if let Some(cache) = &f.git_to_save {
        plan.then(Effect::SaveGitCache(cache.clone()));
    }
    if let Some(why) = &f.git_refused {
        plan.then(Effect::Fail {
            what: "git".to_owned(),
            message: why.clone(),
        });
    }
    // Print mode never runs the status line (docs/client-reference.md §9.1 #11):
    // without its reading, the transcript says how full the context is, and the
    // bridge keeps that figure so `status`, `context`, `sessions` and the dashboard
    // agree.
    let context = f.transcript.as_ref().and_then(|scan| {
        transcript_context(
            scan,
            bridge.and_then(|b| b.context_window_size),
            payload.model.as_deref(),
        )
    });
    edit.context = context.map(|c| (c.pct, c.tokens));
    let git = f.git.as_ref();
    plan.then(Effect::RecordSession(LastSession {
        ended_at: crate::model::time::iso(now),
        branch: git.and_then(|g| g.branch.clone()),
        uncommitted_changes: git.map_or(0, |g| g.uncommitted_changes),
        forge_phase: f.workflow.phase.clone(),
        forge_task: f.workflow.task.clone(),
        session_id: payload.session_id.clone(),
        transcript_path: payload.transcript_path.clone(),
        reason: last.flatten().map(str::to_owned),
        is_final: last.is_some(),
        context_used_pct: context
            .map(|c| c.pct)
            .or_else(|| bridge.and_then(|b| b.used_percentage)),
    }));
    // The learn flag: cleared when a `learned-*.md` is newer than it (and the
    // session's baseline moves to now), else set when this session changed files —
    // edited them, or ran a command that changed the tree in this turn.
    if f.learn.set {
        if f.learn.learned_after {
            plan.then(Effect::ClearLearnFlag {
                why: "a learned-*.md was written after it was set".to_owned(),
                report: true,
            });
            edit.rebase_learning = Some(f.git.clone());
        }
    } else if !f.commands_refused
        && let Some(why) = crate::model::session::learn::changed_files_why(bridge, git)
    {
        plan.then(Effect::SetLearnFlag {
            why: format!("{why}: the next session is reminded to run /forge-learn"),
        });
    }
    (plan, edit)
}

/// Why Stop blocks; shown to the person as "Stop hook reported a problem" and sent
/// to the model as Stop hook feedback.
fn stop_reason(files_to_read: &[String]) -> String {
    format!(
        "The context was just compacted and nothing has been re-read since. \
         Re-read {}, then carry on with the task.",
        files_to_read.join(", ")
    )
}

fn dirty_warning(git: Option<&GitCache>) -> Option<String> {
    match git {
        Some(g) if g.uncommitted_changes > 0 => Some(format!(
            "forge: {} uncommitted change{} on branch {} — commit them or note them in a handoff.",
            g.uncommitted_changes,
            if g.uncommitted_changes == 1 { "" } else { "s" },
            g.branch.as_deref().unwrap_or("(none)")
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::session::state::SessionBridge;

    fn now() -> chrono::DateTime<chrono::Utc> {
        crate::model::time::parse_iso("2026-11-21T10:00:00Z").unwrap()
    }

    fn git(n: u64) -> GitCache {
        GitCache {
            branch: Some("main".into()),
            uncommitted_changes: n,
            ..GitCache::default()
        }
    }

    fn facts(bridge: SessionBridge) -> TurnFacts {
        TurnFacts {
            session: Session {
                id: Some("s1".into()),
                bridge: Some(bridge),
                client_pid: None,
            },
            git: Some(git(2)),
            ..TurnFacts::default()
        }
    }

    #[test]
    fn a_stop_records_the_turn_and_writes_the_bridge_once() {
        let f = facts(SessionBridge {
            dirty_at_start: Some(2),
            ..SessionBridge::default()
        });
        let plan = stop(&f, &WireHookInput::default(), now());
        assert_eq!(plan.stdout, "", "nothing grew, nothing to say");
        let [Effect::RecordSession(last)] = plan.effects.as_slice() else {
            panic!("{:?}", plan.effects)
        };
        assert_eq!(
            (
                last.branch.as_deref(),
                last.uncommitted_changes,
                last.is_final
            ),
            (Some("main"), 2, false)
        );
        let edit = plan.bridge.expect("one change of the bridge");
        assert_eq!(edit.baseline, Baseline::Clear);
        assert_eq!(edit.dirty, Some((dirty::DirtyWarning::Grew, 2)));
        assert_eq!(
            edit.touch.and_then(|t| t.attention).map(|(a, _)| a),
            Some(Attention::WaitingInput)
        );
        // No session in the payload: no bridge at all.
        let mut f = f;
        f.session.id = None;
        assert_eq!(stop(&f, &WireHookInput::default(), now()).bridge, None);
    }

    #[test]
    fn a_stop_warns_when_the_tree_grew_and_blocks_once_after_a_compaction() {
        let mut f = facts(SessionBridge {
            dirty_at_start: Some(1),
            ..SessionBridge::default()
        });
        f.reread = Some(vec![]);
        let plan = stop(&f, &WireHookInput::default(), now());
        let v: Value = serde_json::from_str(plan.stdout.trim()).unwrap();
        assert_eq!(v["decision"], "block");
        assert!(
            v["reason"]
                .as_str()
                .unwrap()
                .contains("Re-read the files you were working on")
        );
        assert!(
            v["systemMessage"]
                .as_str()
                .unwrap()
                .starts_with("forge: 2 uncommitted changes on branch main")
        );
        let kinds: Vec<_> = plan.recorded().collect();
        assert!(matches!(
            kinds.as_slice(),
            [Outcome::StopBlocked { .. }, Outcome::Warned { .. }]
        ));
    }

    #[test]
    fn the_learn_flag_is_set_by_an_edit_and_cleared_by_learning() {
        let f = facts(SessionBridge {
            files_edited: true,
            ..SessionBridge::default()
        });
        let plan = session_end(&f, &WireHookInput::default(), now());
        assert!(plan.effects.iter().any(|e| matches!(
            e,
            Effect::SetLearnFlag { why } if why.starts_with("the session edited files")
        )));
        let mut f = f;
        f.learn = LearnFlag {
            set: true,
            learned_after: true,
        };
        let plan = session_end(&f, &WireHookInput::default(), now());
        assert!(
            plan.effects
                .iter()
                .any(|e| matches!(e, Effect::ClearLearnFlag { report: true, .. }))
        );
        let edit = plan.bridge.unwrap();
        assert_eq!(edit.rebase_learning, Some(Some(git(2))));
        assert_eq!(
            edit.touch.and_then(|t| t.attention).map(|(a, _)| a),
            Some(Attention::Ended)
        );
        // Set, and nothing learned yet: left as it is.
        f.learn.learned_after = false;
        let plan = session_end(&f, &WireHookInput::default(), now());
        assert_eq!(plan.effects.len(), 1, "{:?}", plan.effects);
    }

    #[test]
    fn without_a_status_line_reading_the_transcript_gives_the_figure() {
        let mut f = facts(SessionBridge {
            context_window_size: Some(200_000),
            used_percentage: Some(10.0),
            ..SessionBridge::default()
        });
        f.transcript = Some(TailScan::Compacted {
            post_tokens: Some(50_000),
        });
        let plan = stop(&f, &WireHookInput::default(), now());
        assert_eq!(plan.bridge.unwrap().context, Some((25.0, 50_000)));
        let Some(Effect::RecordSession(last)) = plan.effects.first() else {
            panic!()
        };
        assert_eq!(last.context_used_pct, Some(25.0));
        assert_eq!(
            transcript_context(&TailScan::Nothing, None, None),
            None,
            "no figure, none claimed"
        );
    }
}
