//! A resume belongs to someone: an automatic handoff (the threshold's, PreCompact's)
//! is for the session and agent that wrote it. Another agent's session, or any
//! session while its writer is live, is not handed it: it is offered, named, in the
//! orientation instead; a person's explicit `forge resume` still wins. And a reading
//! from before a compaction makes no second threshold handoff.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom"
)]

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::{TestProject, ok_stdout, poll};
use serde_json::json;

/// A hook call of session `sid` as agent `agent` (none: no `FORGE_AGENT`).
fn hook(
    p: &TestProject,
    event: &str,
    sid: &str,
    agent: Option<&str>,
    extra: serde_json::Value,
) -> String {
    let mut payload = json!({
        "session_id": sid, "cwd": p.root, "hook_event_name": event, "transcript_path": "",
    });
    if let (Some(o), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    let mut cmd = p.forge();
    cmd.args(["hook", event])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .write_stdin(payload.to_string());
    match agent {
        Some(a) => cmd.env("FORGE_AGENT", a),
        None => cmd.env_remove("FORGE_AGENT"),
    };
    ok_stdout(&mut cmd)
}

fn start(p: &TestProject, sid: &str, agent: Option<&str>) -> String {
    hook(p, "SessionStart", sid, agent, json!({"source": "startup"}))
}

/// A status-line tick of session `sid` at `pct` with `tokens` in context.
fn tick(p: &TestProject, sid: &str, pct: u32, tokens: u64) -> String {
    let payload = json!({
        "session_id": sid, "cwd": p.root,
        "workspace": {"current_dir": p.root, "project_dir": p.root},
        "model": {"id": "claude-opus-4-6", "display_name": "Opus 4.6"},
        "context_window": {"context_window_size": 200000, "used_percentage": pct,
            "current_usage": {"input_tokens": tokens, "output_tokens": 10,
                "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
    });
    ok_stdout(
        p.forge()
            .arg("statusline")
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .write_stdin(payload.to_string()),
    )
}

/// Waits until there are `n` session handoffs; returns them.
fn wait_handoffs(p: &TestProject, n: usize) -> Vec<PathBuf> {
    poll(Duration::from_secs(10), || {
        let h = p.session_handoffs();
        (h.len() >= n && p.forge_dir().join("pending-resume").exists()).then_some(h)
    })
    .unwrap_or_else(|| panic!("{n} handoffs: {:?}", p.session_handoffs()))
}

const RESUMING: &str = "Resuming from handoff";

#[test]
fn an_automatic_handoff_goes_to_its_own_agents_next_session_only() {
    let p = TestProject::new();
    // alice's session crosses the threshold: its handoff is the pending resume.
    start(&p, "alice-1", Some("alice"));
    tick(&p, "alice-1", 74, 148_000);
    let handoff = wait_handoffs(&p, 1).remove(0);
    let name = handoff.file_name().unwrap().to_str().unwrap().to_owned();
    let text = std::fs::read_to_string(&handoff).unwrap();
    assert!(text.contains("session_id: alice-1"), "{text}");

    // carol starts while alice is live: not handed alice's handoff, told of it.
    let out = start(&p, "carol-1", Some("carol"));
    assert!(!out.contains(RESUMING), "{out}");
    assert!(
        out.contains(&format!(
            "A pending handoff is not loaded: {name} belongs to session alice-1 (alice), still live. `forge resume {name}`"
        )),
        "{out}"
    );
    assert!(
        p.forge_dir().join("pending-resume").exists(),
        "left pending"
    );
    // Nor is another session of alice's own while the writer is live.
    let out = start(&p, "alice-2", Some("alice"));
    assert!(!out.contains(RESUMING), "{out}");
    assert!(out.contains("still live"), "{out}");
    // A session with no agent at all neither.
    assert!(!start(&p, "nobody-1", None).contains(RESUMING));

    // alice's session ends: another agent's session still does not get it...
    hook(
        &p,
        "SessionEnd",
        "alice-1",
        Some("alice"),
        json!({"reason": "exit"}),
    );
    hook(
        &p,
        "SessionEnd",
        "alice-2",
        Some("alice"),
        json!({"reason": "exit"}),
    );
    let out = start(&p, "carol-2", Some("carol"));
    assert!(!out.contains(RESUMING), "{out}");
    assert!(
        out.contains("belongs to session alice-1 (alice), and this session runs as carol"),
        "{out}"
    );
    let outcomes = common::outcomes(&p, "SessionStart");
    assert!(
        outcomes.iter().any(|o| o["kind"] == "resume_skipped"
            && o["why"].as_str().unwrap().contains("offered, not loaded")),
        "{outcomes:?}"
    );
    // ...and alice's next session does.
    let out = start(&p, "alice-3", Some("alice"));
    assert!(out.contains(&format!("{RESUMING} ")), "{out}");
    assert!(out.contains(&name), "{out}");
    assert!(!p.forge_dir().join("pending-resume").exists(), "taken once");

    // A person's explicit choice wins: carol resumes it because they said so.
    ok_stdout(p.forge().args(["resume", &name]));
    let out = start(&p, "carol-3", Some("carol"));
    assert!(out.contains(RESUMING), "{out}");
}

#[test]
fn a_reading_from_before_the_compaction_makes_no_second_threshold_handoff() {
    let p = TestProject::new();
    start(&p, "s1", None);
    tick(&p, "s1", 76, 152_000);
    wait_handoffs(&p, 1);
    // The person compacts: PreCompact (a handoff since the crossing: no safety net),
    // then the compaction is proven and the threshold re-armed.
    hook(&p, "PreCompact", "s1", None, json!({"trigger": "manual"}));
    hook(&p, "SessionStart", "s1", None, json!({"source": "compact"}));
    // The next ticks still carry the reading from before the compaction (the
    // client's payload, or the transcript before its compaction record): no handoff.
    for _ in 0..3 {
        let line = tick(&p, "s1", 76, 152_000);
        assert!(line.contains("76%"), "{line}");
    }
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(p.session_handoffs().len(), 1, "{:?}", p.session_handoffs());
    // A real reading since: below, then a new crossing, which has its handoff.
    tick(&p, "s1", 12, 24_000);
    tick(&p, "s1", 80, 160_000);
    wait_handoffs(&p, 2);
    let bridge: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(p.forge_dir().join("logs/sessions/s1.json")).unwrap(),
    )
    .unwrap();
    assert!(bridge.get("compacted_from").is_none(), "{bridge:#}");
}
