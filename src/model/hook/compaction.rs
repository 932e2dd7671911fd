//! Compaction, decided: PreCompact captures state (and writes the safety-net
//! handoff), SessionStart(`compact`) records a proven compaction and arms the
//! session's one-shot re-read marker, which PreToolUse (or Stop) takes
//! ([`super::tool`], [`super::turn`]).

use super::bridge::{BridgeEdit, Touch};
use super::wire::WireHookInput;
use super::{Effect, Plan, Session, Settings};
use crate::model::handoff::entry::{HandoffEntry, HandoffKind};
use crate::model::handoff::handoff_doc::Trigger;
use crate::model::outcome::Outcome;
use crate::model::session::state::{CompactionRecord, GitCache, PreCompactState, SessionBridge};

/// How many changed names go into the pre-compact state and the re-read list.
pub(crate) const RECENT_FILES: usize = 20;

/// What a PreCompact knows, gathered once.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CompactFacts {
    /// The session and its bridge.
    pub(crate) session: Session,
    /// The config's say.
    pub(crate) settings: Settings,
    /// Git's facts now (`None`: git took too long, or no work tree).
    pub(crate) git: Option<GitCache>,
    /// Why git would not open the repository.
    pub(crate) git_refused: Option<String>,
    /// Another handoff of this project was still being written when PreCompact
    /// stopped waiting for it.
    pub(crate) handoff_in_flight: bool,
}

/// PreCompact: a compaction *may* follow (it can be cancelled, or abandoned and
/// retried: docs/client-reference.md §9.1 #2), so this only captures state while it
/// still can, and writes the safety-net handoff; what claims a compaction happened
/// waits for SessionStart(`compact`).
pub(crate) fn pre_compact(
    f: &CompactFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let mut plan = Plan::default();
    if let Some(why) = &f.git_refused {
        plan.then(Effect::Fail {
            what: "git".to_owned(),
            message: why.clone(),
        });
    }
    let git = f.git.as_ref();
    plan.then(Effect::CaptureState(PreCompactState {
        captured_at: crate::model::time::iso(now),
        branch: git.and_then(|g| g.branch.clone()),
        uncommitted_changes: git.map_or(0, |g| g.uncommitted_changes),
        recent_files: git
            .map(|g| g.changed_files.iter().take(RECENT_FILES).cloned().collect())
            .unwrap_or_default(),
        trigger: payload.trigger.clone(),
        session_id: payload.session_id.clone(),
    }));
    let skipped = |why: &str| Outcome::HandoffSkipped {
        trigger: Trigger::PreCompact.as_str().to_owned(),
        why: why.to_owned(),
    };
    if !f.settings.handoff_on_precompact {
        plan.record(skipped("[hooks] handoff_on_precompact is off"));
    } else if f.handoff_in_flight {
        plan.record(skipped(
            "another handoff of this project is still being written: the compaction goes on without a second one",
        ));
    } else if let Some(sid) = f.session.id() {
        // The safety net: a handoff when this session wrote none since it crossed the
        // threshold (or none at all).
        if needs_safety_net(f.session.bridge.as_ref()) {
            plan.then(Effect::SafetyNetHandoff {
                session: sid.to_owned(),
                git: f.git.clone(),
            });
        } else {
            plan.record(skipped(
                "this session wrote one since it crossed the threshold",
            ));
        }
    } else {
        plan.record(skipped("the payload names no session"));
    }
    if f.session.id.is_some() {
        plan.bridge = Some(BridgeEdit::touch(Touch::new(
            "PreCompact",
            None,
            None,
            payload,
            now,
            f.session.client_pid,
        )));
    }
    plan
}

/// What a PostCompact knows, gathered once.
#[derive(Debug, Clone, Default)]
pub(crate) struct PostCompactFacts {
    /// The session and its bridge.
    pub(crate) session: Session,
    /// The config's say.
    pub(crate) settings: Settings,
    /// `logs/pre-compact-state.json`.
    pub(crate) pre_compact: Option<PreCompactState>,
    /// The handoff inbox, newest first.
    pub(crate) handoffs: Vec<HandoffEntry>,
    /// The files of the transcript to re-read (edited, then read, newest first;
    /// those that exist, relative inside the project).
    pub(crate) transcript_files: Vec<String>,
}

/// PostCompact, where the client sends it (docs/client-reference.md §9.2): a proof
/// of a compaction, as SessionStart(`compact`) is (the pinned client sends both, a
/// few milliseconds apart, SessionStart first; an older one only SessionStart). It
/// keeps the client's summary (redacted) for the session's next handoff, re-arms
/// the threshold handoff, and counts the compaction and arms the re-read marker —
/// which the first of the two to arrive does, the other finding it done
/// (`crate::hooks::apply`, under a lock). It prints nothing: the client discards
/// PostCompact's output.
pub(crate) fn post_compact(
    f: &PostCompactFacts,
    payload: &WireHookInput,
    now: chrono::DateTime<chrono::Utc>,
) -> Plan {
    let mut plan = Plan::default();
    let sid = f.session.id();
    if let (Some(sid), Some(summary)) = (
        sid,
        payload
            .compact_summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty()),
    ) {
        plan.then(Effect::KeepSummary {
            session: sid.to_owned(),
            text: crate::model::text::redact::redact(summary),
            trigger: payload.trigger.clone(),
        });
    }
    if let Some(sid) = sid {
        plan.then(Effect::RearmThreshold {
            session: sid.to_owned(),
        });
    }
    let reread = reread_list(&f.handoffs, sid, f.transcript_files.clone());
    plan.then(record_compaction(
        &f.settings,
        sid,
        f.pre_compact.as_ref(),
        reread,
        now,
    ));
    if f.session.id.is_some() {
        let mut edit = BridgeEdit::touch(Touch::new(
            "PostCompact",
            None,
            None,
            payload,
            now,
            f.session.client_pid,
        ));
        edit.threshold_rearmed = true;
        plan.bridge = Some(edit);
    }
    plan
}

/// Whether PreCompact should write a handoff for a session: none was written yet, or
/// the last one is older than the session's threshold crossing.
pub(crate) fn needs_safety_net(bridge: Option<&SessionBridge>) -> bool {
    let Some(b) = bridge else { return true };
    let Some(written) = b
        .handoff_written_at
        .as_deref()
        .and_then(crate::model::time::parse_iso)
    else {
        return true;
    };
    match b
        .threshold_crossed_at
        .as_deref()
        .and_then(crate::model::time::parse_iso)
    {
        Some(crossed) => written < crossed,
        None => false,
    }
}

/// The files to re-read after a compaction, each once: this session's newest handoff
/// (never another session's; it carries the workflow's phase and task), then the
/// files of the transcript (`transcript_files`: edited, then read, newest first,
/// those that exist, named relative to the project when inside it). Nothing else:
/// git's changed names are not what the session used (forge's own `.gitignore`
/// edit, another terminal's work), so a session that touched no file is told of its
/// handoff alone — or of nothing. `handoffs` is the inbox, newest first.
pub(crate) fn reread_list(
    handoffs: &[HandoffEntry],
    session: Option<&str>,
    transcript_files: Vec<String>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(sid) = session
        && let Some(h) = handoffs
            .iter()
            .find(|h| h.kind == HandoffKind::Session && h.front.get("session_id") == Some(sid))
    {
        out.push(format!(".forge/handoffs/{}", h.file_name));
    }
    for f in transcript_files {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out.truncate(RECENT_FILES);
    out
}

/// A proven compaction (SessionStart `compact`): its record, and the one-shot
/// re-read marker armed when `[hooks] compaction_reread` is on and there is
/// something to re-read (a session with no handoff and no file in its transcript
/// has nothing: holding a call back would only say "re-read something").
pub(crate) fn record_compaction(
    settings: &Settings,
    session: Option<&str>,
    pre: Option<&PreCompactState>,
    reread: Vec<String>,
    now: chrono::DateTime<chrono::Utc>,
) -> Effect {
    let pre = pre.filter(|p| p.session_id.as_deref() == session);
    let armed = settings.compaction_reread && session.is_some() && !reread.is_empty();
    Effect::RecordCompaction {
        record: CompactionRecord {
            compacted_at: crate::model::time::iso(now),
            session_id: session.map(str::to_owned),
            trigger: pre.and_then(|p| p.trigger.clone()),
            captured_at: pre.map(|p| p.captured_at.clone()),
        },
        reread,
        armed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> chrono::DateTime<chrono::Utc> {
        crate::model::time::parse_iso("2026-11-21T10:00:00Z").unwrap()
    }

    #[test]
    fn safety_net_only_when_no_handoff_since_the_crossing() {
        assert!(needs_safety_net(None));
        let mut b = SessionBridge::default();
        assert!(needs_safety_net(Some(&b)));
        b.handoff_written_at = Some("2026-11-21T10:00:00Z".into());
        assert!(!needs_safety_net(Some(&b)), "written, never crossed");
        b.threshold_crossed_at = Some("2026-11-21T09:59:00Z".into());
        assert!(!needs_safety_net(Some(&b)), "written after the crossing");
        b.threshold_crossed_at = Some("2026-11-21T10:05:00Z".into());
        assert!(needs_safety_net(Some(&b)), "crossed again since");
        b.handoff_written_at = Some("garbage".into());
        assert!(needs_safety_net(Some(&b)));
    }

    #[test]
    fn pre_compact_captures_then_writes_the_safety_net_once() {
        let f = CompactFacts {
            session: Session {
                id: Some("s1".into()),
                ..Session::default()
            },
            git: Some(GitCache {
                branch: Some("main".into()),
                uncommitted_changes: 30,
                changed_files: (0..30).map(|i| format!("f{i}")).collect(),
                ..GitCache::default()
            }),
            ..CompactFacts::default()
        };
        let payload = WireHookInput {
            session_id: Some("s1".into()),
            trigger: Some("auto".into()),
            ..WireHookInput::default()
        };
        let plan = pre_compact(&f, &payload, now());
        let [
            Effect::CaptureState(state),
            Effect::SafetyNetHandoff { session, .. },
        ] = plan.effects.as_slice()
        else {
            panic!("{:?}", plan.effects)
        };
        assert_eq!(state.recent_files.len(), RECENT_FILES);
        assert_eq!(state.trigger.as_deref(), Some("auto"));
        assert_eq!(session, "s1");
        assert!(plan.bridge.is_some());
        // Off: captured, and said why no handoff.
        let mut off = f;
        off.settings.handoff_on_precompact = false;
        let plan = pre_compact(&off, &payload, now());
        assert!(matches!(
            plan.effects.as_slice(),
            [
                Effect::CaptureState(_),
                Effect::Record(Outcome::HandoffSkipped { .. })
            ]
        ));
    }

    #[test]
    fn post_compact_counts_the_compaction_keeps_the_summary_and_marks_the_bridge() {
        let f = PostCompactFacts {
            session: Session {
                id: Some("s1".into()),
                ..Session::default()
            },
            transcript_files: vec!["src/a.rs".into()],
            ..PostCompactFacts::default()
        };
        let payload = WireHookInput {
            session_id: Some("s1".into()),
            trigger: Some("manual".into()),
            compact_summary: Some(
                "7. Pending Tasks:\n- rotate sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
                    .into(),
            ),
            ..WireHookInput::default()
        };
        let plan = post_compact(&f, &payload, now());
        let [
            Effect::KeepSummary {
                session,
                text,
                trigger,
            },
            Effect::RearmThreshold { .. },
            Effect::RecordCompaction { reread, armed, .. },
        ] = plan.effects.as_slice()
        else {
            panic!("{:?}", plan.effects)
        };
        assert_eq!(session, "s1");
        assert!(
            text.contains("Pending Tasks") && !text.contains("sk-ant"),
            "{text}"
        );
        assert_eq!(trigger.as_deref(), Some("manual"));
        assert_eq!(reread, &["src/a.rs"]);
        assert!(armed);
        assert!(
            plan.stdout.is_empty(),
            "the client discards PostCompact's output"
        );
        assert!(plan.bridge.unwrap().threshold_rearmed);
        // No summary sent: nothing kept, the compaction still counted.
        let bare = WireHookInput {
            compact_summary: Some("  ".into()),
            ..payload
        };
        let plan = post_compact(&f, &bare, now());
        assert!(
            !plan
                .effects
                .iter()
                .any(|e| matches!(e, Effect::KeepSummary { .. }))
        );
        assert!(
            plan.effects
                .iter()
                .any(|e| matches!(e, Effect::RecordCompaction { .. }))
        );
    }

    #[test]
    fn the_marker_is_armed_only_with_something_to_reread() {
        let s = Settings::default();
        let pre = PreCompactState {
            captured_at: "2026-11-21T09:59:00Z".into(),
            trigger: Some("manual".into()),
            session_id: Some("s1".into()),
            ..PreCompactState::default()
        };
        let Effect::RecordCompaction { record, armed, .. } =
            record_compaction(&s, Some("s1"), Some(&pre), vec!["a.rs".into()], now())
        else {
            panic!()
        };
        assert!(armed);
        assert_eq!(record.trigger.as_deref(), Some("manual"));
        let Effect::RecordCompaction { record, armed, .. } =
            record_compaction(&s, Some("s2"), Some(&pre), vec![], now())
        else {
            panic!()
        };
        assert!(!armed);
        assert_eq!(record.trigger, None, "another session's capture");
        assert_eq!(
            reread_list(&[], Some("s1"), vec!["a".into(), "a".into(), "b".into()]),
            ["a", "b"]
        );
    }
}
