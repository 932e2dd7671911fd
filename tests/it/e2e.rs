//! End to end with the real Claude Code client (pinned: `harness::CLIENT_VERSION`)
//! talking to a mock of the Messages API on 127.0.0.1, with forge wired by
//! `forge init` in a temporary git project and a temporary `HOME`.
//!
//! Each test is one scenario of the README's *Tested against the real client* (what
//! each shows about the client: docs/client-reference.md §9). They run one at a time
//! (a lock in the harness). Without tmux, npm or the client they print `SKIPPED …`
//! and pass, except on CI (`CI` set), where that is a failure. Run them alone with
//! `cargo test --test it e2e::`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom; splitting it would scatter the story"
)]

use crate::common;
use crate::common::dist;
mod harness;
mod mock_api;

use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use common::{sh_quote, wake_messages};
use harness::{World, poll, status_line, wait_until};
use mock_api::Reply;
use serde_json::{Value, json};

/// The hook events that matter for the order checks (notifications and permission
/// requests come when the client decides, so they are left out, and so are the lines
/// of `forge handoff` runs, which are not hook calls).
fn core_events(w: &World) -> Vec<String> {
    w.event_names()
        .into_iter()
        .filter(|e| {
            !e.starts_with("Notification")
                && !e.starts_with("PermissionRequest")
                && !e.starts_with("forge ")
        })
        .collect()
}

/// The session handoffs in `.forge/handoffs/`, sorted.
fn session_handoffs(w: &World) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(w.root.join(".forge/handoffs"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("handoff-") && n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The percentage the status line shows (`75%`, `~2%`, `?%`).
fn shown_pct(line: &str) -> Option<String> {
    line.split_whitespace()
        .find(|w| w.ends_with('%') && !w.starts_with("CTX"))
        .map(|w| w.trim_start_matches(['█', '░']).to_owned())
}

/// The model turns that carry `text` anywhere in what reached the model.
fn requests_with(w: &World, text: &str) -> usize {
    w.api
        .messages()
        .iter()
        .filter(|r| r.all_text().contains(text))
        .count()
}

/// The tool results that came back to the model as a hook's denial, one per tool
/// call (each request repeats the conversation so far).
fn denials(w: &World) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for r in w.api.messages() {
        let Some(msgs) = r.body["messages"].as_array() else {
            continue;
        };
        for m in msgs {
            for b in m["content"].as_array().into_iter().flatten() {
                let id = b["tool_use_id"].as_str().unwrap_or_default().to_owned();
                if b["type"] != "tool_result" || seen.contains(&id) {
                    continue;
                }
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                if text.contains("hook error") {
                    seen.push(id);
                    out.push(text);
                }
            }
        }
    }
    out
}

fn compact_boundaries(transcript: &Path) -> usize {
    std::fs::read_to_string(transcript)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"subtype\":\"compact_boundary\""))
        .count()
}

fn compaction_lines(w: &World) -> usize {
    w.forge_text("logs/compactions.jsonl").lines().count()
}

fn marker_exists(w: &World, sid: &str) -> bool {
    w.root
        .join(format!(".forge/logs/sessions/{sid}.compacted"))
        .exists()
}

// ----- 1. print mode ----------------------------------------------------------------------

#[test]
fn print_mode_records_the_session_and_orients_the_next_one() {
    let Some(w) = World::new("print_mode_records_the_session_and_orients_the_next_one") else {
        return;
    };
    w.api.set_context(150_000);
    w.api.on(
        "LIST-FILES",
        Reply::tool(
            "Bash",
            json!({"command": "ls", "description": "List files"}),
        ),
    );
    let out = w.print("please LIST-FILES");
    assert!(
        out.status.success(),
        "claude -p: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        core_events(&w),
        [
            "SessionStart:startup",
            "UserPromptSubmit",
            "PreToolUse:Bash",
            "Stop",
            "SessionEnd:other"
        ]
    );
    let sid = w.session_of("SessionStart:startup");
    let last = w
        .forge_json("logs/last-session.json")
        .expect("last-session.json");
    assert_eq!(last["session_id"], sid.as_str());
    assert_eq!(last["final"], true);
    assert_eq!(last["reason"], "other");
    let transcript = w.transcript(&sid);
    assert_eq!(
        last["transcript_path"],
        transcript.display().to_string().as_str()
    );
    assert!(transcript.is_file(), "{}", transcript.display());
    // Print mode never runs the status line: the % comes from the transcript.
    assert_eq!(last["context_used_pct"], json!(75.0), "{last}");
    let bridge = w
        .forge_json(&format!("logs/sessions/{sid}.json"))
        .expect("the session bridge");
    assert_eq!(bridge["attention"], "ended");
    let ctx = w.forge(&["context", "--session", &sid, "--json"]);
    assert!(
        ctx.status.success(),
        "{}",
        String::from_utf8_lossy(&ctx.stderr)
    );
    let ctx: Value = serde_json::from_slice(&ctx.stdout).unwrap();
    assert_eq!(ctx["used_percentage"], 75, "{ctx}");
    assert_eq!(ctx["tokens"], 150_000);
    // Listing files changed nothing: there is nothing to learn from this session.
    assert!(
        !w.root.join(".forge/logs/learn-pending").exists(),
        "a session that changed no file set the learn flag"
    );

    // The user's own [[on_session_start]] command (an orchestrator) gets the
    // session_start payload, and what it prints reaches the model with forge's text.
    let got = w.home.join("orchestrator-got.json");
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "[[on_session_start]]\ncommand = \"cat > '{}'; echo 'ORCHESTRATOR-NOTE: review PR 12 first'\"\n",
            got.display()
        ),
    )
    .unwrap();

    // The next session's first request carries forge's orientation.
    let before = w.api.messages().len();
    let out = w.print("hello again");
    assert!(out.status.success());
    let first = &w.api.messages()[before];
    let text = first.all_text();
    assert!(
        text.contains("SessionStart:startup hook success: Last session: ")
            && text.contains(" · branch main · 0 uncommitted"),
        "{}",
        first.last_user_text()
    );
    assert!(!text.contains("/forge-learn"), "{text}");
    assert!(
        text.contains("ORCHESTRATOR-NOTE: review PR 12 first"),
        "{text}"
    );
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&got).unwrap()).unwrap();
    assert_eq!(payload["hook_event_name"], "session_start");
    assert_eq!(payload["session"]["source"], "startup");
    // A fresh session continues nothing, whatever ran here before (herdctl's
    // meaning: handoff_count is the chain's).
    assert_eq!(payload["session"]["is_continuation"], false, "{payload}");
    assert!(
        payload["session"]["previous_session_id"].is_null(),
        "{payload}"
    );
    assert_eq!(payload["session"]["handoff_count"], 0, "{payload}");

    // The session that resumes a handoff continues that handoff's session.
    let second = w.session_of("SessionStart:startup");
    let handoff = w.forge(&["handoff"]);
    assert!(
        handoff.status.success(),
        "{}",
        String::from_utf8_lossy(&handoff.stderr)
    );
    std::fs::remove_file(&got).unwrap();
    let before = w.api.messages().len();
    let out = w.print("and go on");
    assert!(out.status.success());
    let third = w.session_of("SessionStart:startup");
    assert_ne!(third, second);
    assert!(
        w.api.messages()[before]
            .all_text()
            .contains("Resuming from handoff"),
        "the premise: it resumed the handoff"
    );
    let payload: Value = serde_json::from_str(&std::fs::read_to_string(&got).unwrap()).unwrap();
    assert_eq!(
        payload["session"]["session_id"],
        third.as_str(),
        "{payload}"
    );
    assert_eq!(payload["session"]["is_continuation"], true, "{payload}");
    assert_eq!(
        payload["session"]["previous_session_id"],
        second.as_str(),
        "{payload}"
    );
    assert_eq!(payload["session"]["handoff_count"], 1, "{payload}");
}

// ----- 2. interactive: status line, threshold handoff, permission ---------------------------

#[test]
fn interactive_status_line_threshold_handoff_and_permission_prompt() {
    let Some(mut w) = World::new("interactive_status_line_threshold_handoff_and_permission_prompt")
    else {
        return;
    };
    w.api.set_context(150_000);
    // The optional `tokens` segment too: the client's own usage, in tokens.
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[statusline]\nsegments = [\"model\", \"project\", \"git\", \"context\", \"task\", \
         \"signals\", \"learn\", \"tokens\"]\n",
    )
    .unwrap();
    w.start(&["--permission-mode", "default"]);
    w.turn("hello there");
    let screen = w.wait_screen("⚠ CTX 75% in the status line", |s| {
        status_line(s).is_some_and(|l| l.contains("░ ⚠ CTX 75% L1"))
    });
    let line = status_line(&screen).unwrap();
    assert!(line.contains("⎇ main"), "{line}");
    assert!(line.contains("│ 150k/200k"), "{line}");

    // One threshold handoff, and both pending-resume markers point at it.
    let handoffs = poll(harness::WAIT, || {
        let h = session_handoffs(&w);
        // Both markers: the project's is written first, the global one just after.
        let marker = std::fs::read_to_string(w.root.join(".forge/pending-resume")).ok()?;
        let global = std::fs::read_to_string(w.home.join(".claude/pending-resume")).ok()?;
        (!h.is_empty() && !marker.is_empty() && !global.is_empty()).then_some(h)
    })
    .expect("a threshold handoff and its marker");
    assert_eq!(handoffs.len(), 1, "{handoffs:?}");
    let path = w.root.join(".forge/handoffs").join(&handoffs[0]);
    let doc = std::fs::read_to_string(&path).unwrap();
    assert!(doc.contains("trigger: context-threshold"), "{doc}");
    let project_marker = std::fs::read_to_string(w.root.join(".forge/pending-resume")).unwrap();
    let global_marker = std::fs::read_to_string(w.home.join(".claude/pending-resume")).unwrap();
    // The path, then who made it pending: the threshold, automatically. The global
    // marker holds the bare path (the seed's format; the origin stays in the project).
    let auto = format!("{}\nauto\n", path.display());
    assert_eq!(project_marker, auto);
    assert_eq!(global_marker, format!("{}\n", path.display()));
    // The status line's detached `forge handoff --auto` says what it did in the log.
    let logged = poll(harness::WAIT, || {
        w.events()
            .into_iter()
            .find(|e| e["event"] == "forge handoff")
    })
    .expect("the threshold handoff in events.jsonl");
    assert_eq!(logged["facts"]["auto"], true, "{logged}");
    assert_eq!(
        logged["outcomes"][0],
        json!({"kind": "handoff_written", "path": path.display().to_string(),
            "trigger": "context-threshold", "pending": true}),
        "{logged}"
    );

    // Another turn above the threshold: still one handoff.
    w.turn("still here");
    w.wait_screen("the status line", |s| status_line(s).is_some());
    assert_eq!(session_handoffs(&w).len(), 1);

    // A tool that needs approval: the bridge says the session waits for permission.
    w.api.on(
        "MAKE-FILE",
        Reply::tool(
            "Bash",
            json!({"command": "echo hi > made.txt", "description": "Make a file"}),
        ),
    );
    let sid = w.session_of("SessionStart:startup");
    w.type_line("please MAKE-FILE");
    w.wait_screen("the permission prompt", |s| {
        s.contains("Do you want to proceed?")
    });
    let bridge = poll(harness::WAIT, || {
        let b = w.forge_json(&format!("logs/sessions/{sid}.json"))?;
        (b["attention"] == "waiting:permission").then_some(b)
    })
    .expect("attention waiting:permission in the bridge");
    assert_eq!(bridge["attention_message"], "permission to use Bash");
    // Approve ("1. Yes" is selected); a key sent while the dialog is still being
    // drawn can be lost, so press again until it goes.
    let stops = w.count_events("Stop");
    let approved = poll(harness::WAIT, || {
        if !w.screen().contains("Do you want to proceed?") {
            return Some(());
        }
        w.keys(&["Enter"]);
        std::thread::sleep(Duration::from_secs(1));
        None
    });
    assert!(approved.is_some(), "the permission prompt did not go");
    w.wait_events("Stop", stops + 1);
    assert!(w.root.join("made.txt").is_file());
}

// ----- 3. /compact: re-read denial and Stop failsafe ------------------------------------------

#[test]
fn compact_denies_the_first_non_read_tool_once_and_stop_blocks_once() {
    let Some(mut w) =
        World::new("compact_denies_the_first_non_read_tool_once_and_stop_blocks_once")
    else {
        return;
    };
    let notes = w.root.join("notes.md");
    let spec = w.root.join("SPEC.md");
    let more = w.root.join("more.md");
    w.api.on(
        "WRITE-NOTES",
        Reply::tool("Write", json!({"file_path": notes, "content": "notes\n"})),
    );
    w.api
        .on("READ-SPEC", Reply::tool("Read", json!({"file_path": spec})));
    w.api.on(
        "WRITE-MORE",
        Reply::tool("Write", json!({"file_path": more, "content": "more\n"})),
    );
    // The model tries again after forge held its call back.
    w.api.on_tool_result(
        "hook error",
        Reply::tool("Write", json!({"file_path": more, "content": "more\n"})),
    );
    // The client loads CLAUDE.md into the context again after a compaction, which is
    // why forge's re-read list leaves it out.
    w.write("CLAUDE.md", "# Rules\nName every test FORGE-RULE-42.\n");
    w.commit_all();
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("please WRITE-NOTES");
    assert!(notes.is_file());
    w.turn("please READ-SPEC");

    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 1);
    let sid = w.session_of("SessionStart:compact");
    let names = core_events(&w);
    let pre = names.iter().position(|e| e == "PreCompact:manual").unwrap();
    let start = names
        .iter()
        .position(|e| e == "SessionStart:compact")
        .unwrap();
    assert!(pre < start, "{names:?}");
    wait_until("one proven compaction counted", || {
        compaction_lines(&w) == 1
    });

    // Reading is what the model should do now: never denied.
    let before = w.api.messages().len();
    w.turn("please READ-SPEC again");
    assert!(denials(&w).is_empty(), "{:?}", denials(&w));
    let after_compact = &w.api.messages()[before];
    assert!(after_compact.all_text().contains("FORGE-RULE-42"));
    assert!(
        !after_compact
            .all_text()
            .contains("Re-read before continuing: CLAUDE.md")
    );

    // The first other tool call is denied once, with the list to re-read; the retry
    // passes.
    w.turn("please WRITE-MORE");
    let denied = denials(&w);
    assert_eq!(denied.len(), 1, "{denied:?}");
    let reason = &denied[0];
    assert!(reason.contains("PreToolUse:Write hook error: "), "{reason}");
    let n = reason.find("notes.md").expect("the edited file");
    let s = reason.find("SPEC.md").expect("the file read");
    assert!(n < s, "edited before read: {reason}");
    assert!(reason.contains(".forge/handoffs/handoff-"), "{reason}");
    assert!(more.is_file(), "the retry passed");
    assert!(!marker_exists(&w, &sid));

    // A turn with no tool call after a compaction: Stop blocks once, then passes with
    // stop_hook_active.
    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 2);
    wait_until("two compactions counted", || compaction_lines(&w) == 2);
    let feedback_before = requests_with(&w, "Stop hook feedback");
    w.turn("just talk to me");
    w.wait_events("Stop:active", 1);
    let names = core_events(&w);
    let tail: Vec<&str> = names
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        ["UserPromptSubmit", "Stop", "Stop:active"],
        "{names:?}"
    );
    assert_eq!(requests_with(&w, "Stop hook feedback") - feedback_before, 1);
    let last = w.api.messages().pop().unwrap();
    assert!(
        last.last_user_text().contains("re-read"),
        "{}",
        last.last_user_text()
    );
    // The marker is spent: the next turn is not blocked.
    w.turn("and now?");
    assert_eq!(w.count_events("Stop:active"), 1);
}

// ----- 3b. a session that only read files is told to re-read those, nothing else ------------

#[test]
fn after_compact_a_session_that_only_read_files_rereads_only_those() {
    let Some(mut w) = World::new("after_compact_a_session_that_only_read_files_rereads_only_those")
    else {
        return;
    };
    let spec = w.root.join("SPEC.md");
    w.api
        .on("READ-SPEC", Reply::tool("Read", json!({"file_path": spec})));
    let after = w.root.join("after.md");
    w.api.on(
        "WRITE-AFTER",
        Reply::tool("Write", json!({"file_path": after, "content": "x\n"})),
    );
    // The tree is dirty, but not by the session: an uncommitted edit and a new file
    // from before it started (as forge init's own .gitignore edit was).
    w.write("README.md", "# e2e\nedited elsewhere\n");
    w.write("ELSEWHERE.md", "not the session's\n");
    // A workflow's state file the session never reads.
    w.write(".forge/state.json", r#"{"phase":"build","task":"T-1"}"#);
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("please READ-SPEC");
    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 1);
    let sid = w.session_of("SessionStart:compact");
    wait_until("the compaction counted", || compaction_lines(&w) == 1);
    // The re-read list of each proven compaction, in order.
    let reread_lists = |w: &harness::World| -> Vec<Vec<String>> {
        w.events()
            .iter()
            .filter(|e| e["event"] == "SessionStart")
            .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
            .filter(|o| o["kind"] == "compaction_recorded")
            .map(|o| {
                o["reread"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .collect()
    };
    let recorded = reread_lists(&w).remove(0);
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert!(
        recorded[0].starts_with(".forge/handoffs/handoff-") && recorded[1] == "SPEC.md",
        "{recorded:?}"
    );
    // What reaches the model after the compaction names the same, nothing else; the
    // first call that is not a read is held back once with that list alone.
    let before = w.api.messages().len();
    w.turn("please WRITE-AFTER");
    let text = w.api.messages()[before].all_text();
    assert!(
        text.contains(&format!(
            "Context was compacted. Re-read before continuing: {}, SPEC.md.",
            recorded[0]
        )),
        "{text}"
    );
    let denied = denials(&w);
    assert_eq!(denied.len(), 1, "{denied:?}");
    let reason = &denied[0];
    assert!(
        reason.contains(&format!("Re-read {}, SPEC.md first", recorded[0])),
        "{reason}"
    );
    for name in ["README.md", "ELSEWHERE.md", ".gitignore", "state.json"] {
        assert!(!reason.contains(name), "{name}: {reason}");
    }
    assert!(!marker_exists(&w, &sid));

    // A new session (/clear) that touches no file at all: after its compaction it is
    // told of its own handoff alone, never of git's changed names.
    w.type_line("/clear");
    w.wait_events("SessionStart:clear", 1);
    w.turn("just talk to me");
    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 2);
    wait_until("the second compaction counted", || {
        compaction_lines(&w) == 2
    });
    let second = reread_lists(&w).remove(1);
    assert_eq!(second.len(), 1, "{second:?}");
    assert!(
        second[0].starts_with(".forge/handoffs/handoff-") && second[0] != recorded[0],
        "{second:?}"
    );
}

// ----- 4. /compact cancelled with Esc ---------------------------------------------------------

#[test]
fn compact_cancelled_with_esc_claims_nothing() {
    let Some(mut w) = World::new("compact_cancelled_with_esc_claims_nothing") else {
        return;
    };
    let out = w.root.join("after-esc.md");
    w.api.on(
        "WRITE-AFTER",
        Reply::tool("Write", json!({"file_path": out, "content": "x\n"})),
    );
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("hello");
    w.turn("tell me more");
    w.api.set_summary_delay(Duration::from_secs(120));
    w.type_line("/compact");
    w.wait_events("PreCompact:manual", 1);
    w.wait_screen("the compaction running", |s| {
        s.contains("Compacting conversation")
    });
    w.keys(&["Escape"]);
    w.wait_screen("the compaction gone", |s| {
        !s.contains("Compacting conversation") && status_line(s).is_some()
    });
    w.api.set_summary_delay(Duration::ZERO);
    // The client may put `/compact` back into the prompt: clear it.
    w.keys(&["C-u"]);
    let sid = w.session_of("PreCompact:manual");
    assert!(
        !marker_exists(&w, &sid),
        "PreCompact alone armed the re-read marker"
    );
    w.turn("please WRITE-AFTER");
    assert!(out.is_file(), "the Write after a cancelled compaction ran");
    assert!(denials(&w).is_empty(), "{:?}", denials(&w));
    assert_eq!(w.count_events("Stop:active"), 0, "{:?}", core_events(&w));
    assert_eq!(w.count_events("SessionStart:compact"), 0);
    assert_eq!(compaction_lines(&w), 0, "no compaction is counted");
    assert_eq!(compact_boundaries(&w.transcript(&sid)), 0);
}

// ----- 5. an automatic compaction abandoned and retried -----------------------------------

#[test]
fn abandoned_auto_compaction_is_counted_once_when_it_happens() {
    let Some(mut w) = World::new("abandoned_auto_compaction_is_counted_once_when_it_happens")
    else {
        return;
    };
    // Above the auto-compact threshold (167,000 of 200,000) from the first answer on.
    w.api.set_context(170_000);
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("first");
    // The client starts an automatic compaction, finds nothing it can summarise yet
    // ("no assistant messages in summarize set, bailing") and answers anyway.
    w.turn("second");
    assert!(
        w.debug_log()
            .contains("Reactive compact: no assistant messages in summarize set, bailing"),
        "the premise: the client abandoned this compaction"
    );
    let sid = w.session_of("PreCompact:auto");
    assert_eq!(w.count_events("PreCompact:auto"), 1);
    assert_eq!(
        w.count_events("SessionStart:compact"),
        0,
        "{:?}",
        core_events(&w)
    );
    assert_eq!(compact_boundaries(&w.transcript(&sid)), 0);
    // No claim before the boundary exists: no marker, no count, no Stop block.
    assert!(
        !marker_exists(&w, &sid),
        "PreCompact alone armed the re-read marker"
    );
    assert_eq!(compaction_lines(&w), 0);
    assert_eq!(w.count_events("Stop:active"), 0, "{:?}", core_events(&w));
    assert_eq!(requests_with(&w, "Stop hook feedback"), 0);

    // The retry compacts for real.
    w.api.set_context(30_000);
    w.type_line("third");
    w.wait_events("SessionStart:compact", 1);
    // The SessionStart hook is over when the turn's Stop comes.
    w.wait_events("Stop", 3);
    assert_eq!(
        w.count_events("PreCompact:auto"),
        2,
        "{:?}",
        core_events(&w)
    );
    // The client writes the boundary after the hook.
    let transcript = w.transcript(&sid);
    wait_until("the compact_boundary in the transcript", || {
        compact_boundaries(&transcript) >= 1
    });
    assert_eq!(compact_boundaries(&transcript), 1);
    assert_eq!(compaction_lines(&w), 1, "exactly one compaction counted");
    let line: Value = serde_json::from_str(w.forge_text("logs/compactions.jsonl").trim()).unwrap();
    assert_eq!(line["session_id"], sid.as_str());
    assert_eq!(line["trigger"], "auto");
}

// ----- 6. all-zero usage after a /compact that keeps recent messages ------------------------

#[test]
fn zero_usage_after_compaction_is_unknown_not_zero_percent() {
    let Some(mut w) = World::new("zero_usage_after_compaction_is_unknown_not_zero_percent") else {
        return;
    };
    // Record what the client sends the status line, to check the premise.
    let payloads = w.home.parent().unwrap().join("statusline-payloads.jsonl");
    let settings_path = w.root.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_path).unwrap()).unwrap();
    let forge_cmd = settings["statusLine"]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    settings["statusLine"]["command"] = json!(format!(
        "tee -a '{}' | {{ {forge_cmd}; }}",
        payloads.display()
    ));
    std::fs::write(&settings_path, settings.to_string()).unwrap();

    w.api.set_context(60_000);
    w.start(&["--permission-mode", "acceptEdits"]);
    for i in 1..=4 {
        w.turn(&format!("message number {i}"));
    }
    w.wait_screen("30% in the status line", |s| {
        status_line(s).is_some_and(|l: String| shown_pct(&l).as_deref() == Some("30%"))
    });
    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 1);
    let sid = w.session_of("SessionStart:compact");
    // The premise: the client reported all-zero usage after this compaction.
    let zero = poll(harness::WAIT, || {
        let text = std::fs::read_to_string(&payloads).ok()?;
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .any(|p| {
                let u = &p["context_window"]["current_usage"];
                u.is_object()
                    && [
                        "input_tokens",
                        "cache_creation_input_tokens",
                        "cache_read_input_tokens",
                    ]
                    .iter()
                    .all(|k| u[k] == 0)
            })
            .then_some(())
    });
    assert!(
        zero.is_some(),
        "the client no longer sends all-zero usage after /compact: revisit this test"
    );
    let screen = w.wait_screen("the status line after the compaction", |s| {
        status_line(s).is_some_and(|l: String| shown_pct(&l).as_deref() != Some("30%"))
    });
    let line = status_line(&screen).unwrap();
    let pct = shown_pct(&line).unwrap();
    assert!(
        pct.starts_with('~') || pct == "?%",
        "after compaction the status line shows {pct}: {line}"
    );
    assert_ne!(pct, "0%");
    let bridge = w.forge_json(&format!("logs/sessions/{sid}.json")).unwrap();
    for r in bridge["readings"].as_array().unwrap() {
        assert_ne!(r["tokens"], 0, "a 0-token reading was recorded: {bridge}");
    }
    assert_ne!(bridge["used_percentage"], json!(0.0), "{bridge}");
}

// ----- 7. the dirty-tree warning reaches the person when the session made the tree dirtier --

#[test]
fn dirty_tree_warning_is_on_screen_and_in_the_next_session() {
    let Some(mut w) = World::new("dirty_tree_warning_is_on_screen_and_in_the_next_session") else {
        return;
    };
    let dirt = w.root.join("dirt.txt");
    w.api.on(
        "WRITE-DIRT",
        Reply::tool("Write", json!({"file_path": dirt, "content": "dirt\n"})),
    );
    // The tree is dirty before the session starts (as after `forge init`'s own
    // edits): not news, so no turn warns about it.
    w.write("README.md", "# e2e\nedited before the session\n");
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("just talk to me");
    w.turn("and once more");
    let warned = |w: &harness::World| {
        w.events()
            .iter()
            .filter(|e| e["event"] == "Stop")
            .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
            .filter(|o| o["kind"] == "warned")
            .count()
    };
    assert_eq!(warned(&w), 0, "a steady dirty tree warned");
    // The session adds a change: the count grew past what it started with.
    w.turn("please WRITE-DIRT");
    assert!(dirt.is_file());
    let screen = w.wait_screen("the dirty-tree warning", |s| {
        s.contains("2 uncommitted changes on branch main")
    });
    assert!(screen.contains("Stop says"), "{screen}");
    assert_eq!(screen.matches("Stop says").count(), 1, "{screen}");
    assert_eq!(warned(&w), 1);
    assert_eq!(
        requests_with(&w, "uncommitted changes on branch main — commit"),
        0,
        "the warning is for the person, not the model"
    );
    // A turn that adds nothing is not warned again.
    w.turn("thanks");
    assert_eq!(warned(&w), 1);
    // SessionEnd only records; the next session hears about it.
    w.type_line("/exit");
    w.wait_events("SessionEnd:prompt_input_exit", 1);
    wait_until("the final last-session.json", || {
        w.forge_json("logs/last-session.json")
            .is_some_and(|l| l["final"] == true)
    });
    let last = w.forge_json("logs/last-session.json").unwrap();
    assert_eq!(last["uncommitted_changes"], 2);
    let before = w.api.messages().len();
    let out = w.print("hello");
    assert!(out.status.success());
    let first = w.api.messages()[before].all_text();
    assert!(
        first.contains("The last session ended with 2 uncommitted changes"),
        "{first}"
    );
    // The session wrote a file: the next sessions are asked to learn from it until
    // learning is done.
    assert!(first.contains("Run /forge-learn"), "{first}");
    assert!(w.root.join(".forge/logs/learn-pending").exists());
    let done = w.forge(&["learn", "done"]);
    assert!(done.status.success(), "{done:?}");
    let before = w.api.messages().len();
    assert!(w.print("hello once more").status.success());
    let third = w.api.messages()[before].all_text();
    assert!(!third.contains("/forge-learn"), "{third}");
    assert!(!w.root.join(".forge/logs/learn-pending").exists());
}

// ----- the learn flag: what the session changed, not another terminal ------------------------

#[test]
fn the_learn_flag_follows_the_sessions_commands_not_another_terminals_commit() {
    let Some(mut w) =
        World::new("the_learn_flag_follows_the_sessions_commands_not_another_terminals_commit")
    else {
        return;
    };
    w.api.on(
        "LIST-FILES",
        Reply::tool(
            "Bash",
            json!({"command": "ls", "description": "List files"}),
        ),
    );
    w.api.on(
        "TOUCH-FILE",
        Reply::tool(
            "Bash",
            json!({"command": "touch made-by-bash.txt", "description": "Make a file"}),
        ),
    );
    let flag = w.root.join(".forge/logs/learn-pending");
    w.start(&["--allowedTools", "Bash"]);
    w.turn("hello there");
    // Another terminal commits while the session waits for its next prompt.
    w.write("theirs.txt", "from another terminal\n");
    w.commit_all();
    // The session's next turn runs a command that changes nothing.
    w.turn("please LIST-FILES");
    assert!(w.count_events("PreToolUse:Bash") >= 1);
    assert!(
        !flag.exists(),
        "another terminal's commit set the learn flag"
    );
    // A command of the session that creates a file sets it.
    w.turn("please TOUCH-FILE");
    assert!(w.root.join("made-by-bash.txt").is_file());
    assert!(
        flag.exists(),
        "the session's touch did not set the learn flag"
    );
    let why = w
        .events()
        .iter()
        .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
        .find(|o| o["kind"] == "flag_set")
        .map(|o| o["why"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    assert!(
        why.starts_with("a command the session ran changed the work tree"),
        "{why}"
    );
}

// ----- 8. /clear resumes the handoff; /exit records the end ---------------------------------

#[test]
fn clear_resumes_the_handoff_and_exit_records_the_end() {
    let Some(mut w) = World::new("clear_resumes_the_handoff_and_exit_records_the_end") else {
        return;
    };
    w.api.set_context(150_000);
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("fill the context");
    let handoff = poll(harness::WAIT, || {
        let marker = std::fs::read_to_string(w.root.join(".forge/pending-resume")).ok()?;
        let h = session_handoffs(&w);
        (!marker.is_empty() && h.len() == 1).then(|| h[0].clone())
    })
    .expect("the threshold handoff");
    let first_sid = w.session_of("SessionStart:startup");
    w.api.set_context(20_000);
    w.type_line("/clear");
    w.wait_events("SessionStart:clear", 1);
    let names = core_events(&w);
    let end = names.iter().position(|e| e == "SessionEnd:clear").unwrap();
    let start = names
        .iter()
        .position(|e| e == "SessionStart:clear")
        .unwrap();
    assert!(end < start, "{names:?}");
    let new_sid = w.session_of("SessionStart:clear");
    assert_ne!(new_sid, first_sid);
    let before = w.api.messages().len();
    w.turn("what should I do next?");
    assert!(!w.root.join(".forge/pending-resume").exists(), "consumed");
    assert!(!w.home.join(".claude/pending-resume").exists(), "consumed");
    let first = w.api.messages()[before..]
        .iter()
        .find(|r| r.last_user_text().contains("what should I do next?"))
        .cloned()
        .expect("the first request of the new session");
    let text = first.all_text();
    // A resumed handoff comes with a notice for the person, so SessionStart answers
    // in JSON: the client frames its additionalContext so.
    assert!(
        text.contains("SessionStart hook additional context:")
            && text.contains(&format!(
                "Resuming from handoff {}",
                w.root.join(".forge/handoffs").join(&handoff).display()
            )),
        "{text}"
    );

    w.type_line("/exit");
    w.wait_events("SessionEnd:prompt_input_exit", 1);
    wait_until("the final last-session.json", || {
        w.forge_json("logs/last-session.json")
            .is_some_and(|l| l["final"] == true)
    });
    let last = w.forge_json("logs/last-session.json").unwrap();
    assert_eq!(last["reason"], "prompt_input_exit");
    assert_eq!(last["session_id"], new_sid.as_str());
}

// ----- the escalation ladder: an alert reaches the model at its next prompt -----------------

#[test]
fn the_l2_alert_reaches_the_model_with_the_next_prompt() {
    let Some(mut w) = World::new("the_l2_alert_reaches_the_model_with_the_next_prompt") else {
        return;
    };
    // 172,000 of 200,000: 86%, L2.
    w.api.set_context(172_000);
    w.start(&[]);
    w.turn("hello there");
    w.wait_screen("L2 in the status line", |s| {
        status_line(s).is_some_and(|l| l.contains("86% L2"))
    });
    let sid = w.session_of("SessionStart:startup");
    let alert = w.root.join(format!(".forge/logs/sessions/{sid}.alert"));
    poll(harness::WAIT, || alert.exists().then_some(())).expect("the ladder's L2 alert");
    let before = w.api.messages().len();
    w.turn("what next?");
    let text = w
        .api
        .messages()
        .get(before)
        .map(|m| m.all_text())
        .unwrap_or_default();
    assert!(
        text.contains("forge: context 86% (L2): finish the current step, then hand off"),
        "{text}"
    );
    assert!(!alert.exists(), "said once");
    // And only once: the next prompt does not carry it again.
    let before = w.api.messages().len();
    w.turn("and then?");
    let text = w.api.messages()[before].all_text();
    assert_eq!(
        text.matches("finish the current step").count(),
        1,
        "only the earlier turn's: {text}"
    );
}

// ----- wake messages and liveness ---------------------------------------------------------

/// A fake orchestrator in the user's config: `[notify]` for `events`, each message
/// appended to the returned log (messages split by `\n---\n`).
fn wake_log(w: &World, events: &[&str]) -> std::path::PathBuf {
    let log = w.home.join("wake.log");
    let script = w.home.join("orchestrator.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor last; do :; done\nprintf '%s\\n---\\n' \"$last\" >> '{log}'\n\
             printf '%s\\n' \"$FORGE_AGENT\" >> '{log}.agent'\n",
            log = log.display()
        ),
    )
    .unwrap();
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let events: Vec<String> = events.iter().map(|e| format!("\"{e}\"")).collect();
    std::fs::write(
        &config,
        format!(
            "[notify]\ncommand = [\"sh\", \"{}\"]\nevents = [{}]\n",
            script.display(),
            events.join(", ")
        ),
    )
    .unwrap();
    log
}

/// Waits until `n` wake messages with `trigger: <trigger>` came; returns them.
fn wait_wakes(log: &Path, trigger: &str, n: usize) -> Vec<String> {
    let want = format!("trigger: {trigger}\n");
    poll(harness::WAIT, || {
        let m: Vec<String> = wake_messages(log)
            .into_iter()
            .filter(|m| m.contains(&want))
            .collect();
        (m.len() >= n).then_some(m)
    })
    .unwrap_or_else(|| panic!("waited for {n} × {trigger}; got {:#?}", wake_messages(log)))
}

#[test]
fn wake_messages_across_an_auto_compaction_and_after_exit() {
    let Some(mut w) = World::new("wake_messages_across_an_auto_compaction_and_after_exit") else {
        return;
    };
    let log = wake_log(&w, &["stop", "pre_compact", "session_start", "session_end"]);
    w.api.set_context(60_000);
    w.start_with(&["--permission-mode", "acceptEdits"], true);
    w.turn("first");
    w.turn("second");
    // The third reply reports 85 %: past the client's own compaction point (83.5 %),
    // so it compacts before the fourth prompt goes out.
    w.api.set_context(170_000);
    w.turn("third");
    w.api.set_context(30_000);
    w.type_line("fourth");
    w.wait_events("SessionStart:compact", 1);
    w.wait_events("Stop", 4);
    let stops = wait_wakes(&log, "response_complete", 4);
    // In tmux: the pane, and what to type into it.
    assert!(stops[0].contains("tmux: e2e:0.0\n"), "{}", stops[0]);
    // On the session's own server: `-S` its socket (the harness's private one).
    assert!(
        stops[0].contains(" send-keys -t e2e:0.0")
            && stops[0].contains("- type into the session: tmux -S /"),
        "{}",
        stops[0]
    );
    assert!(stops[0].contains("context: 30% [OK]\n"), "{}", stops[0]);
    assert!(
        stops[2].contains("context: 85% [CRITICAL]\n"),
        "{}",
        stops[2]
    );
    // The pane's blank rows come as one blank line at most.
    let pane = stops[2]
        .split("[PANE CONTENT]\n")
        .nth(1)
        .and_then(|p| p.split("\n[AVAILABLE ACTIONS]").next())
        .expect("the pane's lines");
    assert!(!pane.contains("\n\n\n"), "{pane}");
    let pre = wait_wakes(&log, "pre_compact", 1);
    assert!(
        pre[0].contains("context: 85% [CRITICAL] (before the compaction)\n"),
        "{}",
        pre[0]
    );
    // The compacted session starts again with no reading yet, and the next reply's
    // figure is the transcript's for that turn — never the old 85 %.
    let starts = wait_wakes(&log, "session_start", 2);
    assert!(
        starts[1].contains("context: unknown (just compacted: the next reply tells)\n"),
        "{}",
        starts[1]
    );
    assert!(stops[3].contains("context: 15% [OK]\n"), "{}", stops[3]);
    // /exit: the session has ended, and nothing is to be typed into its pane.
    w.type_line("/exit");
    w.wait_events("SessionEnd:prompt_input_exit", 1);
    let end = wait_wakes(&log, "session_end", 1);
    assert!(end[0].contains("state: ended\n"), "{}", end[0]);
    assert!(
        !end[0].contains("send-keys") && !end[0].contains("/compact"),
        "{}",
        end[0]
    );
}

#[test]
fn a_wake_message_after_kill_session_names_no_pane() {
    let Some(mut w) = World::new("a_wake_message_after_kill_session_names_no_pane") else {
        return;
    };
    let log = wake_log(&w, &["stop", "session_end"]);
    w.start_with(&["--permission-mode", "acceptEdits"], true);
    w.turn("hello");
    let stop = wait_wakes(&log, "response_complete", 1);
    assert!(stop[0].contains("tmux: e2e:0.0\n"), "{}", stop[0]);
    // The agent is the tmux session's name (no FORGE_AGENT was set): the command
    // runs as that agent.
    assert!(stop[0].contains("agent: e2e\n"), "{}", stop[0]);
    let agents = poll(harness::WAIT, || {
        std::fs::read_to_string(log.with_extension("log.agent"))
            .ok()
            .filter(|a| !a.is_empty())
    })
    .expect("the orchestrator's FORGE_AGENT");
    assert!(agents.lines().all(|a| a == "e2e"), "{agents:?}");
    // The server lives on with another session, where tmux answers a question about
    // the killed pane with ' :.' (and status 0).
    w.tmux_run(&["new-session", "-d", "-s", "keep", "sleep 600"])
        .unwrap();
    w.tmux_run(&["kill-session", "-t", "e2e"]).unwrap();
    let end = wait_wakes(&log, "session_end", 1);
    let m = &end[0];
    assert!(!m.contains("tmux:"), "{m}");
    assert!(!m.contains(":."), "{m}");
    assert!(
        !m.contains("send-keys") && !m.contains("[PANE CONTENT]"),
        "{m}"
    );
    assert!(m.contains("state: ended\n"), "{m}");
}

#[test]
fn a_client_killed_with_kill_9_leaves_every_view() {
    let Some(mut w) = World::new("a_client_killed_with_kill_9_leaves_every_view") else {
        return;
    };
    w.start(&["--permission-mode", "acceptEdits"]);
    w.turn("hello");
    let sid = w.session_of("SessionStart:startup");
    let pid = w.client_pid().expect("the client's pid");
    // The hooks recorded the client's process: CLAUDE_PID is the client itself.
    let bridge = w.forge_json(&format!("logs/sessions/{sid}.json")).unwrap();
    assert_eq!(bridge["client_pid"], pid, "{bridge}");
    assert!(bridge["client_started"].as_u64().is_some(), "{bridge}");
    let status = |w: &World| String::from_utf8_lossy(&w.forge(&["status"]).stdout).into_owned();
    let waiting = format!("session {} is waiting for input", &sid[..8]);
    let text = status(&w);
    assert!(
        text.contains(&waiting) || text.contains(&format!("session {sid} is waiting")),
        "the premise: {text}"
    );
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    // Gone, or a zombie its parent (the tmux server) has not reaped yet: both mean
    // the client no longer runs (store::process reads the state letter the same way).
    wait_until(
        "the client to be gone (no /proc entry, or a zombie)",
        || match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| {
                matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))
            }),
        },
    );
    // No SessionEnd ran: the bridge still says it waits, and every view says ended.
    assert_eq!(w.count_events("SessionEnd"), 0);
    let text = status(&w);
    assert!(!text.contains("is waiting"), "{text}");
    let sessions = String::from_utf8_lossy(&w.forge(&["sessions"]).stdout).into_owned();
    let row = sessions
        .lines()
        .find(|l| l.contains(&sid[..8]))
        .unwrap_or_else(|| panic!("{sessions}"));
    assert!(row.trim_end().ends_with("ended"), "{row}");
    let frame = String::from_utf8_lossy(
        &w.forge(&["tui", "--once", "--width", "120", "--height", "30"])
            .stdout,
    )
    .into_owned();
    assert!(
        !frame
            .lines()
            .any(|l| l.contains(&sid[..8]) && l.contains("input")),
        "{frame}"
    );
    let fleet: Value =
        serde_json::from_slice(&w.forge(&["status", "--all", "--json"]).stdout).unwrap();
    assert!(
        !fleet["rows"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["session_id"] == sid.as_str()),
        "{fleet:#}"
    );
}

// ----- relay: forge run -------------------------------------------------------------------

/// The JSON lines a user hook appended to `log`.
fn hook_payloads(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The model's answer for step `n` of a scripted task: run `echo step<n>`.
fn step(n: u32) -> Reply {
    Reply::tool(
        "Bash",
        json!({"command": format!("echo step{n}"), "description": format!("Step {n}")}),
    )
}

/// Step `n` as a real model writes it: a sentence, then the tool call (one reply,
/// two blocks), the call leaving `step<n>.txt` behind; step 1 thinks first, step 2
/// makes two calls at once.
fn said_step(n: u32) -> Reply {
    use mock_api::Block;
    let call = |c: String| Block::Tool {
        name: "Bash".into(),
        input: json!({"command": c, "description": format!("Step {n}")}),
    };
    let mut blocks = Vec::new();
    if n == 1 {
        blocks.push(Block::Thinking("Start with step 1.".into()));
    }
    blocks.push(Block::Text(format!("I'll do step {n} now.")));
    // A tool takes a moment, as real ones do.
    blocks.push(call(format!("sleep 0.1; echo step{n} | tee step{n}.txt")));
    if n == 2 {
        blocks.push(call("echo also | tee also.txt".to_owned()));
    }
    Reply::blocks(blocks)
}

#[test]
fn forge_run_carries_a_headless_task_across_three_sessions() {
    let Some(w) = World::new("forge_run_carries_a_headless_task_across_three_sessions") else {
        return;
    };
    // The context grows with the conversation: 10k + 12k a message, so the four
    // tool turns of a session report 22k, 46k, 70k and 94k (47 %), and a fresh
    // session starts low again. Each turn is a sentence and a tool call in one
    // reply (which the client prints as two lines), and the model takes a moment
    // to answer, as a real one does.
    w.api.set_context_per_message(10_000, 12_000);
    w.api.set_reply_delay(Duration::from_millis(300));
    w.api.on("WIDGET-TASK", said_step(1));
    for n in 1..4 {
        w.api.on_tool_result(&format!("step{n}"), said_step(n + 1));
    }
    w.api
        .on_tool_result("step4", Reply::text("The widget is built."));
    let threshold_log = w.home.join("on-threshold.log");
    let start_log = w.home.join("on-session-start.log");
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "[[on_threshold]]\nthreshold = 40\ncommand = \"cat >> '{t}'; echo >> '{t}'\"\n\n\
             [[on_session_start]]\ncommand = \"cat >> '{s}'; echo >> '{s}'\"\n",
            t = threshold_log.display(),
            s = start_log.display()
        ),
    )
    .unwrap();

    let client = w.client_path().display().to_string();
    let task = "Build the widget: WIDGET-TASK";
    let mut child = w
        .forge_command(&[
            "run",
            "--threshold",
            "45",
            "--max-handoffs",
            "2",
            "--",
            &client,
            "-p",
            task,
            "--model",
            harness::MODEL,
            "--allowedTools",
            "Bash",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("forge run starts");
    let status = poll(Duration::from_secs(240), || child.try_wait().ok().flatten());
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.is_some(), "forge run did not finish: {stderr}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout.matches("The widget is built.").count(),
        1,
        "{stdout}"
    );
    assert!(stderr.contains("--max-handoffs (2)"), "{stderr}");

    // The chain file.
    let chains: Vec<_> = std::fs::read_dir(w.root.join(".forge/logs/chains"))
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert_eq!(chains.len(), 1);
    let chain: Value =
        serde_json::from_str(&std::fs::read_to_string(chains[0].path()).unwrap()).unwrap();
    let sessions = chain["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{chain:#}");
    let ends: Vec<&str> = sessions
        .iter()
        .map(|s| s["end"].as_str().unwrap())
        .collect();
    assert_eq!(ends, ["relayed", "relayed", "exited"], "{chain:#}");
    let ids: Vec<String> = sessions
        .iter()
        .map(|s| s["session_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(chain["id"], ids[0].as_str());
    assert_eq!(
        chains[0].file_name().to_string_lossy(),
        format!("{}.json", ids[0])
    );
    assert_eq!(chain["task"], task);
    assert_eq!(chain["exit_code"], 0);
    // Every session started as the client's own startup, with forge's hooks.
    let started: Vec<String> = w
        .events()
        .iter()
        .filter(|e| e["event"] == "SessionStart")
        .filter_map(|e| e["session"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(started, ids, "{chain:#}");
    for s in &sessions[..2] {
        assert_eq!(s["context_pct"], 47.0, "{chain:#}");
        let h = s["handoff"].as_str().unwrap();
        let text = std::fs::read_to_string(h).unwrap();
        assert!(text.contains("trigger: relay"), "{text}");
        // Its task is the chain's, not the client's interruption marker.
        assert!(
            text.contains(&format!("# Session handoff — {task}\n")),
            "{text}"
        );
    }
    assert!(sessions[2]["handoff"].is_null());
    // The relayed sessions stopped after their reply's tool call had run (its
    // PostToolUse hook said so), and nothing was interrupted: no transcript of the
    // chain has the client's interruption marker, each relayed session's last tool
    // call has its result, and the step's file exists.
    assert!(w.root.join("step4.txt").is_file());
    for (k, id) in ids.iter().enumerate() {
        let text = std::fs::read_to_string(w.transcript(id)).unwrap();
        assert!(!text.contains("Request interrupted"), "session {k}: {id}");
        assert!(
            !text.contains("doesn't want to proceed"),
            "session {k}: {id}"
        );
        if k < 2 {
            assert!(text.contains("hook_stopped_continuation"), "session {k}");
            let last_call = text
                .lines()
                .rfind(|l| l.contains(r#""type":"tool_use""#))
                .and_then(|l| {
                    let v: Value = serde_json::from_str(l).ok()?;
                    v["message"]["content"][0]["id"].as_str().map(str::to_owned)
                })
                .expect("a tool call");
            assert!(
                text.lines()
                    .any(|l| l.contains(r#""type":"tool_result""#) && l.contains(&last_call)),
                "session {k}: no result for {last_call}"
            );
        }
    }
    let stops = w
        .events()
        .iter()
        .filter(|e| e["event"] == "PostToolUse")
        .count();
    assert_eq!(stops, 2, "one stop asked per relayed session");

    // Each continuation's first prompt carries the handoff and the task.
    for k in 1..3 {
        let first = w
            .api
            .messages()
            .into_iter()
            .find(|r| r.last_user_text().contains(&format!("continuation {k}")))
            .unwrap_or_else(|| panic!("no continuation {k}: {}", w.api.describe()));
        let prompt = first.last_user_text();
        assert!(prompt.contains(task), "{prompt}");
        assert!(prompt.contains("# Session handoff"), "{prompt}");
        assert!(
            prompt.contains(sessions[k - 1]["handoff"].as_str().unwrap()),
            "{prompt}"
        );
        assert!(prompt.contains("Do not repeat work"), "{prompt}");
    }
    // The limit held: no third continuation.
    assert_eq!(requests_with(&w, "continuation 3"), 0);

    // The user's hooks saw the hand-overs and the chain.
    let th = hook_payloads(&threshold_log);
    assert_eq!(th.len(), 2, "{th:?}");
    assert_eq!(th[0]["session"]["session_id"], ids[0].as_str());
    assert_eq!(th[0]["context"]["usage_percent"], 0.47);
    assert_eq!(th[1]["session"]["session_id"], ids[1].as_str());
    let st = hook_payloads(&start_log);
    assert_eq!(st.len(), 3, "{st:?}");
    assert_eq!(st[0]["session"]["is_continuation"], false);
    for k in 1..3 {
        let s = &st[k]["session"];
        assert_eq!(s["session_id"], ids[k].as_str(), "{s}");
        assert_eq!(s["is_continuation"], true, "{s}");
        assert_eq!(s["previous_session_id"], ids[k - 1].as_str(), "{s}");
        assert_eq!(s["handoff_count"], k, "{s}");
        assert_eq!(s["relay_chain"], ids[0].as_str(), "{s}");
    }

    // The hand-over time: from one session's end to the next one's first request.
    for (k, s) in sessions.iter().take(2).enumerate() {
        let ended = chrono::DateTime::parse_from_rfc3339(s["ended_at"].as_str().unwrap()).unwrap();
        let ended = std::time::SystemTime::from(ended);
        let next = w
            .api
            .requests()
            .into_iter()
            .map(|r| r.at)
            .find(|t| *t > ended)
            .expect("a request after the hand-over");
        let ms = next.duration_since(ended).unwrap().as_millis();
        let _ = writeln!(
            std::io::stderr(),
            "e2e: hand-over {} → {}: {ms} ms",
            k + 1,
            k + 2
        );
        assert!(ms < 30_000, "hand-over took {ms} ms");
    }
}

#[test]
fn forge_run_past_its_limit_leaves_compaction_to_claude_code() {
    let Some(w) = World::new("forge_run_past_its_limit_leaves_compaction_to_claude_code") else {
        return;
    };
    // 80 % at the first turn, 90 % at the second: past the client's own
    // auto-compact threshold (83.5 % of 200k), so it compacts before the third.
    w.api.set_context_per_message(150_000, 10_000);
    w.api.on("LIMIT-TASK", step(1));
    w.api.on_tool_result("step1", step(2));
    w.api
        .on_tool_result("step2", Reply::text("Limit task done."));
    let client = w.client_path().display().to_string();
    // A task that starts with a dash: forge gives it to the client after `--`, where
    // the client reads it as the prompt, not as an option.
    let task = "- LIMIT-TASK: a task that starts with a dash";
    let mut child = w
        .forge_command(&[
            "run",
            "--threshold",
            "50",
            "--max-handoffs",
            "0",
            "--json",
            "--",
            &client,
            "-p",
            task,
            "--model",
            harness::MODEL,
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = poll(Duration::from_secs(120), || child.try_wait().ok().flatten());
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.is_some(), "forge run did not finish: {stderr}");
    assert!(out.status.success(), "{stderr}");
    // The stream went through whole: the client's own compaction is in it.
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["type"] == "system" && l["status"] == "compacting")
    );
    assert!(lines.iter().any(|l| l["subtype"] == "compact_boundary"));
    assert!(lines.iter().any(|l| l["type"] == "result"));
    assert_eq!(stderr.matches("--max-handoffs (0)").count(), 1, "{stderr}");
    assert_eq!(
        stderr.matches("compacted this session on its own").count(),
        1,
        "{stderr}"
    );
    // One session, never relayed, compacted by the client, no relay handoff.
    let chains: Vec<_> = std::fs::read_dir(w.root.join(".forge/logs/chains"))
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    assert_eq!(chains.len(), 1);
    let chain: Value =
        serde_json::from_str(&std::fs::read_to_string(chains[0].path()).unwrap()).unwrap();
    let s = &chain["sessions"][0];
    assert_eq!(chain["sessions"].as_array().unwrap().len(), 1, "{chain:#}");
    assert_eq!(s["end"], "exited", "{chain:#}");
    assert_eq!(s["compacted"], true, "{chain:#}");
    assert!(s["handoff"].is_null(), "{chain:#}");
    assert_eq!(chain["exit_code"], 0);
    assert_eq!(chain["task"], task);
    assert!(
        w.api
            .messages()
            .iter()
            .any(|r| r.last_user_text().contains(task)),
        "the client sent the task as the prompt: {}",
        w.api.describe()
    );
    assert_eq!(requests_with(&w, "continuation 1"), 0);
}

#[test]
fn forge_run_stops_cleanly_on_ctrl_c() {
    let Some(w) = World::new("forge_run_stops_cleanly_on_ctrl_c") else {
        return;
    };
    w.api.on(
        "SLOW-TASK",
        Reply::tool(
            "Bash",
            json!({"command": "python3 -c \"import time; time.sleep(30)\"", "description": "Wait"}),
        ),
    );
    let client = w.client_path().display().to_string();
    let mut child = w
        .forge_command(&[
            "run",
            "--",
            &client,
            "-p",
            "SLOW-TASK",
            "--model",
            harness::MODEL,
            "--allowedTools",
            "Bash",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the tool call is running.
    wait_until("the sleep to start", || {
        !w.api.messages().is_empty()
            && std::fs::read_dir(w.root.join(".forge/logs/chains"))
                .is_ok_and(|mut d| d.next().is_some())
    });
    std::thread::sleep(Duration::from_millis(1500));
    // Still in the tool call (no second request yet).
    assert_eq!(w.api.messages().len(), 1, "{}", w.api.describe());
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    let sent = std::time::Instant::now();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let status = poll(Duration::from_secs(30), || child.try_wait().ok().flatten());
    if status.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(status.is_some(), "forge run did not stop: {stderr}");
    let _ = writeln!(
        std::io::stderr(),
        "e2e: Ctrl-C to the end of forge run: {} ms",
        sent.elapsed().as_millis()
    );
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    let chains: Vec<_> = std::fs::read_dir(w.root.join(".forge/logs/chains"))
        .unwrap()
        .filter_map(Result::ok)
        .collect();
    let chain: Value =
        serde_json::from_str(&std::fs::read_to_string(chains[0].path()).unwrap()).unwrap();
    let s = &chain["sessions"][0];
    assert_eq!(s["end"], "interrupted", "{chain:#}");
    let h = s["handoff"].as_str().expect("a handoff");
    let text = std::fs::read_to_string(h).unwrap();
    assert!(text.contains("trigger: relay"), "{text}");
    assert!(w.root.join(".forge/pending-resume").exists());
    assert_eq!(chain["exit_code"], 130);
}

// ----- issue 20: what the model reads at SessionStart is redacted ---------------------------

/// A handoff written by hand (not by forge) made pending, a blocked Signal an agent
/// wrote and the user's own start hook each hold a secret: the first request the real
/// client sends carries forge's SessionStart text with every one redacted.
#[test]
fn what_the_model_reads_at_session_start_is_redacted() {
    let Some(w) = World::new("what_the_model_reads_at_session_start_is_redacted") else {
        return;
    };
    let secrets = [
        "Hq8Zt2Wm4Lp",
        "R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        "Rp4ss9Xw2Lm",
        "mG7xR2vQ9zK",
    ];
    let handoffs = w.root.join(".forge/handoffs");
    std::fs::create_dir_all(&handoffs).unwrap();
    let handoff = handoffs.join("handoff-20261121-101502.md");
    std::fs::write(
        &handoff,
        format!(
            "---\nkind: session-handoff\ntrigger: manual\n---\n# Notes by hand\n\nDB_PASS={}\n\
             export GITHUB_TOKEN=ghp_{}\n\nthe deploy key, header cut:\n{}AAAAAAABAAAAMwAAAAtzc2gtZW\n",
            secrets[0], secrets[1], secrets[2]
        ),
    )
    .unwrap();
    std::fs::write(
        w.root.join(".forge/pending-resume"),
        format!("{}\n", handoff.display()),
    )
    .unwrap();
    let question = format!(
        "Is REDIS_URL=redis://:{}@cache:6379/0 the right one?",
        secrets[3]
    );
    std::fs::write(
        handoffs.join("agent-T-9-20261121-101502.md"),
        format!(
            "## FORGE AGENT HANDOFF\nFrom: builder\nTo: reviewer\nTask: T-9\n\n### Signal\n```json\n{}\n```\n",
            json!({"from": "builder", "to": "reviewer", "task_id": "T-9", "status": "blocked",
                   "files_modified": [], "open_questions": [question], "blocking": true})
        ),
    )
    .unwrap();
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "[[on_session_start]]\ncommand = \"cat > /dev/null; echo 'SMTP_PASS={}'\"\n",
            secrets[4]
        ),
    )
    .unwrap();
    let out = w.print("hello");
    assert!(
        out.status.success(),
        "claude -p: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = w
        .api
        .messages()
        .into_iter()
        .find(|r| {
            r.all_text()
                .contains("SessionStart hook additional context")
        })
        .expect("a request with forge's SessionStart text");
    let text = first.all_text();
    assert!(text.contains("Resuming from handoff"), "{text}");
    assert!(
        text.contains("Open question: Is REDIS_URL=redis://:[REDACTED]@cache"),
        "{text}"
    );
    assert!(text.contains("SMTP_PASS=[REDACTED]"), "{text}");
    assert!(text.contains("DB_PASS=[REDACTED]"), "{text}");
    for s in secrets {
        assert!(!text.contains(s), "{s} reached the model:\n{text}");
    }
}

// ----- recording the client's stream-json and transcripts as fixtures ----------------------

/// The transcript lines worth keeping in a fixture: messages and system records, and
/// the small attachments (a prompt snapshot is ~70 KB of system prompt).
fn transcript_fixture(path: &Path) -> String {
    let mut out = String::new();
    for line in std::fs::read_to_string(path).unwrap_or_default().lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let kind = v["type"].as_str().unwrap_or_default();
        let keep = matches!(kind, "user" | "assistant" | "system")
            || (kind == "attachment" && line.len() < 2_000);
        if keep {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Runs the client in print mode with stream-json output; `cut` says when to send it
/// SIGINT (a predicate on each stdout line). Returns the stream and the session id.
fn record_print(w: &World, prompt: &str, extra: &[&str], cut: impl Fn(&str) -> bool) -> String {
    use std::io::BufRead as _;
    let mut c = w.forge_command(&[]);
    let envs: Vec<(std::ffi::OsString, std::ffi::OsString)> = c
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect();
    c = std::process::Command::new(w.client_path());
    c.args(["-p", prompt, "--model", harness::MODEL])
        .args(["--output-format", "stream-json", "--verbose"])
        .args(extra)
        .current_dir(&w.root)
        .env_clear()
        .envs(envs)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().expect("the client starts");
    let out = child.stdout.take().unwrap();
    let mut lines = String::new();
    let mut sent = false;
    for l in std::io::BufReader::new(out).lines() {
        let l = l.unwrap();
        lines.push_str(&l);
        lines.push('\n');
        if !sent && cut(&l) {
            sent = true;
            let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
            rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
        }
    }
    child.wait().unwrap();
    lines
}

/// Records what `tests/fixtures/stream-json/README.md` lists: the pinned client's
/// stream-json output and the transcript lines it wrote, for replies with thinking,
/// text and tool calls, and for the ways a session can end mid-reply. Run it with
/// `FORGE_RECORD_FIXTURES=1 cargo test --test it e2e::record_stream_json_fixtures --
/// --ignored` after changing the pinned client; the stream reader's unit tests
/// (`model::agents::relay`) and the handoff's (`model::session::transcript`) read these files.
#[test]
#[ignore = "records fixtures: FORGE_RECORD_FIXTURES=1"]
fn record_stream_json_fixtures() {
    use mock_api::Block;
    if std::env::var_os("FORGE_RECORD_FIXTURES").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stream-json");
    std::fs::create_dir_all(&dir).unwrap();
    let bash = |c: &str| Block::Tool {
        name: "Bash".into(),
        input: json!({"command": c, "description": format!("Run {c}")}),
    };
    let save = |w: &World, name: &str, stream: &str| {
        std::fs::write(dir.join(format!("{name}.stream.jsonl")), stream).unwrap();
        let sid = w.session_of("SessionStart:startup");
        std::fs::write(
            dir.join(format!("{name}.transcript.jsonl")),
            transcript_fixture(&w.transcript(&sid)),
        )
        .unwrap();
    };
    // 1. thinking + text + a tool call; text + two tool calls; a closing text.
    {
        let w = World::new("record_blocks").unwrap();
        w.api.on(
            "RECORD-BLOCKS",
            Reply::blocks(vec![
                Block::Thinking("The user wants a recording. I will run one command.".into()),
                Block::Text("I'll run the first command.".into()),
                bash("echo one"),
            ]),
        );
        w.api.on_tool_result(
            "one",
            Reply::blocks(vec![
                Block::Text("Now two commands at once.".into()),
                bash("echo two"),
                bash("echo three"),
            ]),
        );
        w.api.on_tool_result("two", Reply::text("All three ran."));
        let s = record_print(
            &w,
            "RECORD-BLOCKS please",
            &["--allowedTools", "Bash"],
            |_| false,
        );
        save(&w, "blocks", &s);
    }
    // 2. SIGINT after the text line, before the tool call's result.
    {
        let w = World::new("record_cut_tool").unwrap();
        w.api.on(
            "RECORD-CUT",
            Reply::say_then_tool(
                "I'll run the tests.",
                "Bash",
                json!({"command": "echo tests", "description": "Run tests"}),
            ),
        );
        w.api.set_reply_delay(Duration::from_secs(3));
        let s = record_print(&w, "RECORD-CUT please", &["--allowedTools", "Bash"], |l| {
            l.starts_with("{\"type\":\"assistant\"") && l.contains("\"type\":\"text\"")
        });
        save(&w, "interrupted-before-tool-result", &s);
    }
    // 3. SIGINT after the tool result, while the next request is in flight.
    {
        let w = World::new("record_cut_request").unwrap();
        w.api.on(
            "RECORD-CUT",
            Reply::say_then_tool(
                "I'll run the tests.",
                "Bash",
                json!({"command": "echo tests", "description": "Run tests"}),
            ),
        );
        w.api.set_reply_delay(Duration::from_secs(3));
        let s = record_print(&w, "RECORD-CUT please", &["--allowedTools", "Bash"], |l| {
            l.starts_with("{\"type\":\"user\"")
        });
        save(&w, "interrupted-after-tool-result", &s);
    }
    // 4. A PostToolUse hook answers {"continue": false}: the client stops after the
    // tool calls of the reply have run (what `forge run` asks for at its threshold).
    {
        let w = World::new("record_hook_stop").unwrap();
        w.api.on(
            "RECORD-STOP",
            Reply::blocks(vec![
                Block::Text("Two commands at once.".into()),
                bash("echo two"),
                bash("echo three"),
            ]),
        );
        let settings = json!({"hooks": {"PostToolUse": [{"hooks": [{"type": "command",
            "command": "echo '{\"continue\":false,\"stopReason\":\"stop for the fixture\"}'"}]}]}})
        .to_string();
        let s = record_print(
            &w,
            "RECORD-STOP please",
            &["--allowedTools", "Bash", "--settings", &settings],
            |_| false,
        );
        save(&w, "stopped-by-post-tool-use", &s);
    }
}

// ----- the plugin and forge's MCP tools ---------------------------------------------------

/// The plugin's tools as the client names them: `mcp__plugin_<plugin>_<server>__<tool>`
/// (seen with 2.1.330; a server added with `claude mcp add forge` would be
/// `mcp__forge__<tool>`).
const SIGNAL_TOOL: &str = "mcp__plugin_forge_forge__signal";
const RESOLVE_TOOL: &str = "mcp__plugin_forge_forge__resolve";

/// Adds this repository as a local marketplace and installs its `forge` plugin with
/// the real client, into the test's HOME.
fn install_plugin(w: &World) {
    let repo = env!("CARGO_MANIFEST_DIR");
    for args in [
        &["plugin", "marketplace", "add", repo][..],
        &["plugin", "install", "forge@forge"][..],
    ] {
        let out = w.claude(args);
        assert!(
            out.status.success(),
            "claude {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The mock model as a real one works with deferred MCP tools: it says what it will
/// do and loads the tool with ToolSearch (the client lists MCP tools by name only),
/// then calls it with `input` once its schema is loaded, then says it is done.
fn script_tool_call(w: &World, prompt_word: &str, tool: &str, input: Value, done_word: &str) {
    w.api.on(
        prompt_word,
        Reply::say_then_tool(
            "I'll load forge's tool first.",
            "ToolSearch",
            json!({"query": format!("select:{tool}"), "max_results": 5}),
        ),
    );
    w.api
        .on_tool_result(tool, Reply::say_then_tool("Calling it now.", tool, input));
    w.api
        .on_tool_result(done_word, Reply::text(&format!("{tool} answered.")));
}

/// The texts of the tool results the model got back for `tool_name`'s calls.
fn tool_results(w: &World, tool_name: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for r in w.api.messages() {
        for m in r.body["messages"].as_array().into_iter().flatten() {
            for b in m["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_use" && b["name"] == tool_name {
                    let id = b["id"].as_str().unwrap_or_default().to_owned();
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                if b["type"] == "tool_result" {
                    let id = b["tool_use_id"].as_str().unwrap_or_default();
                    if ids.iter().any(|i| i == id) {
                        let t = b["content"].to_string();
                        if !out.contains(&t) {
                            out.push(t);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The agent handoffs in `.forge/handoffs/`, sorted.
fn agent_handoffs(w: &World) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(w.root.join(".forge/handoffs"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("agent-"))
                .collect()
        })
        .unwrap_or_default();
    // In write order, as forge orders them: by the stamp, then the `-N` a second
    // file of the same second gets (`…-144545.md` before `…-144545-2.md`, which a
    // plain sort puts first: '-' < '.').
    v.sort_by_key(|n| {
        let stem = n.trim_end_matches(".md");
        match stem.rsplit_once('-') {
            Some((head, n)) if n.len() < 6 && n.bytes().all(|b| b.is_ascii_digit()) => {
                (head.to_owned(), n.parse::<u32>().unwrap_or(0))
            }
            _ => (stem.to_owned(), 0),
        }
    });
    v
}

/// The plugin manifest's MCP entry's `args`: `/bin/sh -c` a search of `PATH`'s
/// absolute folders for `forge` (so a relative entry never starts a repository's
/// own `./forge`).
fn mcp_entry_args() -> Value {
    let manifest: Value =
        serde_json::from_str(include_str!("../../plugin/.claude-plugin/plugin.json"))
            .expect("plugin.json parses");
    let args = manifest["mcpServers"]["forge"]["args"].clone();
    assert_eq!(args[0], "-c");
    assert!(
        args[1].as_str().unwrap().contains("case $d in /*)"),
        "{args}"
    );
    args
}

#[test]
fn the_plugin_and_the_pinned_client_validate_without_a_warning() {
    let Some(w) = World::new_unwired("the_plugin_and_the_pinned_client_validate_without_a_warning")
    else {
        return;
    };
    let repo = env!("CARGO_MANIFEST_DIR");
    for (dir, kind) in [
        (repo.to_owned(), "marketplace"),
        (format!("{repo}/plugin"), "plugin"),
    ] {
        let out = w.claude(&["plugin", "validate", "--json", "--strict", &dir]);
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert!(out.status.success(), "{report:#}");
        assert_eq!(report["success"], true, "{report:#}");
        assert_eq!(report["manifest"]["type"], kind, "{report:#}");
        for key in ["errors", "warnings"] {
            assert_eq!(
                report["manifest"][key],
                json!([]),
                "{kind} {key}: {report:#}"
            );
        }
        assert_eq!(report["advice"], json!([]), "{kind}: {report:#}");
        if kind == "plugin" {
            // The directory's checks too (README, licence, icon).
            assert_eq!(report["directory"]["findings"], json!([]), "{report:#}");
            let hooks: Vec<&str> = report["provides"]["hooks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h["event"].as_str().unwrap())
                .collect();
            assert_eq!(
                hooks,
                [
                    "SessionStart",
                    "Stop",
                    "SessionEnd",
                    "PreCompact",
                    "PostCompact",
                    "PreToolUse",
                    "Notification",
                    "PermissionRequest",
                    "UserPromptSubmit"
                ]
            );
            assert_eq!(
                report["provides"]["mcpServers"][0],
                json!({
                    "name": "forge",
                    "type": "stdio",
                    "target": "/bin/sh",
                    "args": mcp_entry_args(),
                })
            );
            assert_eq!(
                report["provides"]["commands"],
                json!(["forge:forge-continue", "forge:forge-learn"])
            );
        }
    }
}

#[test]
fn without_forge_the_plugin_is_silent_and_says_how_to_install_it() {
    let Some(mut w) =
        World::new_unwired("without_forge_the_plugin_is_silent_and_says_how_to_install_it")
    else {
        return;
    };
    w.forge_not_on_path();
    install_plugin(&w);
    let out = w.print("hello");
    assert!(
        out.status.success(),
        "claude -p: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = &w.api.messages()[0];
    assert!(
        first
            .all_text()
            .contains("forge (session handoffs and agent Signals) is not installed"),
        "{}",
        first.all_text()
    );
    // Every hook ran and succeeded; none failed or blocked.
    let log = w.debug_log();
    let ran: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/forge") && l.contains(" hook ") && l.contains("with status"))
        .collect();
    assert!(
        ran.iter().any(|l| l.contains("SessionStart")) && ran.iter().any(|l| l.contains("Stop")),
        "{ran:#?}"
    );
    for l in &ran {
        assert!(l.contains("status 0"), "{l}");
    }
    assert!(
        !log.contains("hook failed") && !log.contains("Hook failed"),
        "{log}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("hook"), "{stderr}");
    // Said once today (the stamp in the teammate's cache folder); as on another day,
    // the next session says it again once the stamp is gone.
    let stamp = w.home.join(".cache/forge/hint-day");
    assert!(stamp.exists(), "the hint's stamp");
    std::fs::remove_file(&stamp).unwrap();
    // The person sees one line on how to install it, and no failed hook.
    w.start_without_status_line(&[]);
    let screen = w.wait_screen("SessionStart's message", |s| {
        s.contains("SessionStart:startup says: forge: this session runs the forge plugin")
    });
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("cargo install --locked --git"), "{screen}");
    assert!(flat.contains("npm install -g ccforge"), "{screen}");
    assert!(!screen.to_lowercase().contains("hook error"), "{screen}");
    assert!(!screen.to_lowercase().contains("failed"), "{screen}");
    // forge never ran: nothing recorded.
    assert!(!w.root.join(".forge").exists());
}

/// Issue 31, row 3: with a relative `PATH` entry first, the plugin's hooks and MCP
/// server ran the repository's own `./forge` (the client runs hooks in the project
/// folder). Now both run only a `forge` found in an absolute folder of `PATH`: the
/// planted one never runs, and the installed one records the session and answers
/// the model's tool call.
#[test]
fn the_plugin_runs_only_a_forge_from_an_absolute_path_folder() {
    let Some(mut w) =
        World::new_unwired("the_plugin_runs_only_a_forge_from_an_absolute_path_folder")
    else {
        return;
    };
    w.forge_on_path();
    w.relative_path_entry_first();
    let mark = w.root.parent().unwrap().join("planted-ran");
    let planted = w.write(
        "forge",
        &format!("#!/bin/sh\necho \"$*\" >> {}\n", sh_quote(&mark)),
    );
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.commit_all();
    install_plugin(&w);
    script_tool_call(
        &w,
        "BLOCK-ON-POOL",
        SIGNAL_TOOL,
        json!({
            "from": "builder",
            "to": "lead",
            "task": "T-7",
            "status": "blocked",
            "questions": ["Which pool size?"]
        }),
        "Wrote .forge/handoffs/agent-T-7-",
    );
    let out = w.print_with(
        &["--allowedTools", SIGNAL_TOOL, "--"],
        "please BLOCK-ON-POOL",
    );
    assert!(
        out.status.success(),
        "claude -p: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let planted_ran = std::fs::read_to_string(&mark).unwrap_or_default();
    assert_eq!(planted_ran, "", "the repository's ./forge ran");
    let names = core_events(&w);
    for e in ["SessionStart:startup", "UserPromptSubmit", "Stop"] {
        assert!(names.iter().any(|n| n == e), "{e} missing: {names:?}");
    }
    let results = tool_results(&w, SIGNAL_TOOL);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].contains("a blocked Signal of task T-7"),
        "{results:?}"
    );
}

/// The check of one name in `forge doctor --json`.
fn doctor_check(w: &World, name: &str) -> Value {
    let out = w.forge(&["doctor", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("no {name} check: {v:#}"))
}

/// Issue 31: a teammate installs the plugin for themselves in a project whose
/// committed .claude/settings.json runs forge for everyone. doctor's first fix for the
/// double wiring was `forge init --plugin`, which strips the hooks teammates without
/// the plugin rely on. Now it offers the fix that breaks nobody — the plugin off for
/// you in this project (`--scope local`) — and the real client's command does it:
/// each event runs once, and the shared file is untouched.
#[test]
fn doctors_fix_for_a_double_wiring_keeps_the_teams_shared_settings() {
    let Some(mut w) = World::new("doctors_fix_for_a_double_wiring_keeps_the_teams_shared_settings")
    else {
        return;
    };
    w.forge_on_path();
    let shared_before = std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap();
    install_plugin(&w);
    let plugin = doctor_check(&w, "plugin");
    assert_eq!(plugin["status"], "warn", "{plugin}");
    let summary = plugin["summary"].as_str().unwrap();
    let disable = summary
        .find("`claude plugin disable forge@forge --scope local`")
        .unwrap_or_else(|| panic!("no fix that keeps the shared file: {summary}"));
    if let Some(strip) = summary.find("`forge init --plugin`") {
        assert!(
            disable < strip,
            "stripping the shared file is offered first: {summary}"
        );
    }
    let out = w.claude(&["plugin", "disable", "forge@forge", "--scope", "local"]);
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap(),
        shared_before,
        "the shared settings changed"
    );
    for name in ["plugin", "wired-twice", "hooks"] {
        assert_eq!(doctor_check(&w, name)["status"], "ok", "{name}");
    }
    let out = w.print("hello");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let names = core_events(&w);
    assert_eq!(
        names
            .iter()
            .filter(|n| *n == "SessionStart:startup")
            .count(),
        1,
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| *n == "Stop").count(),
        1,
        "{names:?}"
    );
}

#[test]
fn an_agent_blocks_through_the_plugins_tool_and_the_next_session_resolves_it() {
    let Some(mut w) = World::new_unwired(
        "an_agent_blocks_through_the_plugins_tool_and_the_next_session_resolves_it",
    ) else {
        return;
    };
    w.forge_on_path();
    install_plugin(&w);
    let init = w.forge(&["init", "--plugin"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    w.commit_all();
    // doctor reads the install the real client made: wired by the plugin, once.
    let doctor = w.forge(&["doctor", "--json"]);
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    for name in ["hooks", "plugin", "statusline", "binary", "wired-twice"] {
        let c = doctor["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap();
        assert_eq!(c["status"], "ok", "{name}: {doctor:#}");
    }

    // Session 1: the builder cannot go on without an answer.
    script_tool_call(
        &w,
        "BLOCK-ON-POOL",
        SIGNAL_TOOL,
        json!({
            "from": "builder",
            "to": "lead",
            "task": "T-42",
            "status": "blocked",
            "questions": ["Should the pool size come from config.toml or the environment?"],
            "findings": ["The pool must start before the router"],
            "files": ["src/db/pool.rs"]
        }),
        "Wrote .forge/handoffs/agent-T-42-",
    );
    let out = w.print_with(
        &["--allowedTools", SIGNAL_TOOL, "--"],
        "please BLOCK-ON-POOL",
    );
    assert!(
        out.status.success(),
        "claude -p: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The plugin's hooks fired (forge recorded the session), the tool was called.
    let names = core_events(&w);
    for e in [
        "SessionStart:startup",
        "UserPromptSubmit",
        "Stop",
        "SessionEnd:other",
    ] {
        assert!(names.iter().any(|n| n == e), "{e} missing: {names:?}");
    }
    let results = tool_results(&w, SIGNAL_TOOL);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].contains("a blocked Signal of task T-42"),
        "{results:?}"
    );
    let files = agent_handoffs(&w);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = w.forge_text(&format!("handoffs/{}", files[0]));
    let parsed = forge::model::handoff::signal::parse_signal(&text);
    let s = parsed
        .signal()
        .unwrap_or_else(|| panic!("{parsed:?}\n{text}"));
    assert!(parsed.is_blocked());
    assert_eq!((s.from.as_str(), s.to.as_str()), ("builder", "lead"));
    assert_eq!(
        s.open_questions,
        ["Should the pool size come from config.toml or the environment?"]
    );
    let mcp_line = w
        .events()
        .into_iter()
        .find(|e| e["event"] == "forge mcp")
        .expect("the tool call in events.jsonl");
    assert_eq!(
        mcp_line["outcomes"][0]["kind"], "signal_written",
        "{mcp_line}"
    );
    assert_eq!(
        mcp_line["session"],
        w.session_of("SessionStart:startup").as_str()
    );
    // The dashboard shows it blocked (and nothing malformed).
    let frame = w.forge(&["tui", "--once", "--width", "140", "--height", "40"]);
    let frame = String::from_utf8_lossy(&frame.stdout);
    assert!(
        frame.contains("T-42") && frame.contains("blocked"),
        "{frame}"
    );
    assert!(!frame.contains("malformed"), "{frame}");

    // Session 2: its start shows the question; the lead answers through the tool.
    let before = w.api.messages().len();
    script_tool_call(
        &w,
        "ANSWER-POOL",
        RESOLVE_TOOL,
        json!({"task": "T-42", "answer": "From config.toml, default 20", "from": "lead"}),
        "Resolved task T-42",
    );
    let out = w.print_with(
        &["--allowedTools", RESOLVE_TOOL, "--"],
        "please ANSWER-POOL",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = w.api.messages()[before].all_text();
    assert!(
        first.contains("SessionStart:startup hook success"),
        "{first}"
    );
    assert!(first.contains("Last session:"), "{first}");
    assert!(first.contains("T-42"), "{first}");
    assert!(
        first.contains("Should the pool size come from config.toml or the environment?"),
        "{first}"
    );
    let results = tool_results(&w, RESOLVE_TOOL);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("Resolved task T-42"), "{results:?}");
    let status = w.forge(&["status", "--json"]);
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["blocked"], json!([]), "{status:#}");
    let files = agent_handoffs(&w);
    assert_eq!(files.len(), 2, "{files:?}");
    let answer = w.forge_text(&format!("handoffs/{}", files[1]));
    assert!(
        answer.contains("Answer: From config.toml, default 20"),
        "{answer}"
    );

    // Session 3: the question is answered, so its start no longer asks it.
    let before = w.api.messages().len();
    let out = w.print("hello again");
    assert!(out.status.success());
    let first = w.api.messages()[before].all_text();
    assert!(first.contains("Last session:"), "{first}");
    assert!(
        !first.contains("Should the pool size come from config.toml"),
        "{first}"
    );
}

// ----- agents in parallel: two work trees, one inbox ------------------------------------------

/// `git` in `dir` with the test's identity.
fn git_in(dir: &Path, args: &[&str]) {
    common::git(dir, args);
}

#[test]
fn two_agents_in_two_worktrees_talk_through_the_plugins_tools() {
    let Some(mut w) =
        World::new_unwired("two_agents_in_two_worktrees_talk_through_the_plugins_tools")
    else {
        return;
    };
    w.forge_on_path();
    install_plugin(&w);
    let init = w.forge(&["init", "--plugin"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    w.commit_all();
    // Two work trees of the repository, each its agent's.
    let main = w.root.clone();
    let parent = main.parent().unwrap().to_path_buf();
    let (a, b) = (parent.join("wt-a"), parent.join("wt-b"));
    git_in(
        &main,
        &["worktree", "add", "-q", "-b", "feat-a", a.to_str().unwrap()],
    );
    git_in(
        &main,
        &["worktree", "add", "-q", "-b", "feat-b", b.to_str().unwrap()],
    );
    for d in [&a, &b] {
        w.trust_folder(d);
    }

    // alice, in work tree A, cannot go on without bob's answer: the plugin's tool.
    w.root.clone_from(&a);
    w.agent = Some("alice".into());
    script_tool_call(
        &w,
        "BLOCK-ON-BOB",
        SIGNAL_TOOL,
        json!({
            "to": "bob",
            "task": "T-42",
            "status": "blocked",
            "questions": ["Should the pool size come from config.toml or the environment?"],
        }),
        "a blocked Signal of task T-42",
    );
    let out = w.print_with(
        &["--allowedTools", SIGNAL_TOOL, "--"],
        "please BLOCK-ON-BOB",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = tool_results(&w, SIGNAL_TOOL);
    assert_eq!(results.len(), 1, "{results:?}");
    // The Signal is the repository's: in the main work tree's inbox, from alice (her
    // session's agent), saying which work tree and branch asked.
    let inbox = main.join(".forge/handoffs");
    let signals: Vec<_> = std::fs::read_dir(&inbox)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-T-42-")
        })
        .collect();
    assert_eq!(signals.len(), 1, "{signals:?}");
    let text = std::fs::read_to_string(&signals[0]).unwrap();
    let parsed = forge::model::handoff::signal::parse_signal(&text);
    let s = parsed
        .signal()
        .unwrap_or_else(|| panic!("{parsed:?}\n{text}"));
    assert_eq!((s.from.as_str(), s.to.as_str()), ("alice", "bob"));
    assert!(
        text.contains(&format!("Worktree: {}\nBranch: feat-a\n", a.display())),
        "{text}"
    );

    // bob, in work tree B: his next session is told at its start, and he answers
    // through the plugin's tool.
    w.root.clone_from(&b);
    w.agent = Some("bob".into());
    let before = w.api.messages().len();
    script_tool_call(
        &w,
        "ANSWER-ALICE",
        RESOLVE_TOOL,
        json!({"task": "T-42", "answer": "From config.toml, default 20"}),
        "Resolved task T-42",
    );
    let out = w.print_with(
        &["--allowedTools", RESOLVE_TOOL, "--"],
        "please ANSWER-ALICE",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = w.api.messages()[before].all_text();
    assert!(
        first.contains("Blocked agent signal: task T-42 (alice→bob)"),
        "{first}"
    );
    assert!(
        first.contains("Should the pool size come from config.toml or the environment?"),
        "{first}"
    );
    assert!(
        first.contains(&format!("from worktree {} (branch feat-a)", a.display())),
        "{first}"
    );
    let results = tool_results(&w, RESOLVE_TOOL);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("Resolved task T-42"), "{results:?}");
    let status: Value = serde_json::from_slice(&w.forge(&["status", "--json"]).stdout).unwrap();
    assert_eq!(status["blocked"], json!([]), "{status:#}");

    // alice's next session, in work tree A, sees it resolved: told of bob's answer,
    // and no longer of a blocked question.
    w.root.clone_from(&a);
    w.agent = Some("alice".into());
    let before = w.api.messages().len();
    let out = w.print("hello again");
    assert!(out.status.success());
    let first = w.api.messages()[before].all_text();
    assert!(!first.contains("Blocked agent signal"), "{first}");
    assert!(
        first.contains("Signal for alice: task T-42 is partial, from bob"),
        "{first}"
    );
    assert!(
        first.contains("Answer: From config.toml, default 20"),
        "{first}"
    );
    assert!(
        first.contains(&format!("from worktree {} (branch feat-b)", b.display())),
        "{first}"
    );

    // alice works on, live, in work tree A, past the handoff threshold.
    w.api.set_context(150_000);
    w.start(&["--permission-mode", "default"]);
    w.turn("carry on");
    let handoffs = poll(harness::WAIT, || {
        let h = session_handoffs(&w);
        let marker = std::fs::read_to_string(a.join(".forge/pending-resume")).ok()?;
        (!h.is_empty() && !marker.is_empty()).then_some(h)
    })
    .expect("alice's threshold handoff, pending");
    let alice = w.session_of("SessionStart:startup");
    // A third session in work tree A while alice is live (carol): not handed alice's
    // handoff, only told of it.
    w.agent = Some("carol".into());
    let before = w.api.messages().len();
    let out = w.print("hello from carol");
    assert!(out.status.success());
    let first = w.api.messages()[before].all_text();
    assert!(!first.contains("Resuming from handoff"), "{first}");
    assert!(
        first.contains(&format!(
            "A pending handoff is not loaded: {} belongs to session {} (alice), still live.",
            handoffs[0],
            &alice[..8]
        )),
        "{first}"
    );
    assert!(
        a.join(".forge/pending-resume").exists(),
        "still alice's to take"
    );
}

// ----- a teammate's clone without forge -------------------------------------------------------

/// Every transcript the client wrote under the test's HOME, as one text.
fn all_transcripts(w: &World) -> String {
    let mut out = String::new();
    for project in std::fs::read_dir(w.home.join(".claude/projects"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(project.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.path().extension().is_some_and(|e| e == "jsonl") {
                out.push_str(&std::fs::read_to_string(f.path()).unwrap_or_default());
            }
        }
    }
    out
}

/// A project wired by `forge init` (with forge installed, so the entries name the bare
/// `forge`) and committed, then cloned where forge is not installed: the client shows
/// one line at SessionStart on how to install forge, and nothing on a tool call or at
/// Stop — on the screen, in the debug log and in the transcript.
#[test]
fn a_clone_of_a_wired_project_without_forge_says_one_line_and_no_hook_fails() {
    let Some(mut w) = World::new_unwired(
        "a_clone_of_a_wired_project_without_forge_says_one_line_and_no_hook_fails",
    ) else {
        return;
    };
    w.forge_on_path();
    let out = w.forge(&["init"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("For a teammate without forge these committed entries do nothing"),
        "{said}"
    );
    let shared = std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap();
    assert!(
        shared.contains(
            "case $d in /*) [ -f \\\"$d/forge\\\" ] && [ -x \\\"$d/forge\\\" ] && exec \\\"$d/forge\\\" hook Stop ;; esac; done; true"
        ),
        "{shared}"
    );
    w.commit_all();
    // The teammate's clone: what was committed, nothing of .forge/.
    let origin = w.root.with_file_name("origin");
    std::fs::rename(&w.root, &origin).unwrap();
    let cloned = std::process::Command::new("git")
        .args(["clone", "-q"])
        .arg(&origin)
        .arg(&w.root)
        .output()
        .unwrap();
    assert!(cloned.status.success(), "{cloned:?}");
    assert!(!w.root.join(".forge").exists());
    w.forge_not_on_path();

    w.api.on(
        "LIST-FILES",
        Reply::say_then_tool(
            "I will list the files.",
            "Bash",
            json!({"command": "ls", "description": "List files"}),
        ),
    );
    w.api
        .on_tool_result("README.md", Reply::text("LISTED-THEM"));
    // Print mode: every hook ran and exited 0.
    let out = w.print_with(&["--allowedTools", "Bash", "--"], "please LIST-FILES");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = w.debug_log();
    let ran: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/forge") && l.contains(" hook ") && l.contains("with status"))
        .collect();
    for event in ["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"] {
        assert!(
            ran.iter().any(|l| l.contains(&format!("hook {event}"))),
            "{event}: {ran:#?}"
        );
    }
    for l in &ran {
        assert!(l.contains("status 0"), "{l}");
    }
    let lower = log.to_lowercase();
    assert!(
        !lower.contains("hook failed") && !lower.contains("hook error"),
        "{log}"
    );
    // The hint was said (its stamp, in the teammate's own cache folder, holds
    // today), so another session today says nothing.
    let stamp = w.home.join(".cache/forge/hint-day");
    let today = std::process::Command::new("date")
        .arg("+%Y-%m-%d")
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&stamp).unwrap(),
        String::from_utf8_lossy(&today.stdout),
        "the hint's stamp"
    );
    // The off switch in the teammate's own settings (`env` of ~/.claude/settings.json,
    // which the client hands its hooks): with no stamp, the hint is still not said
    // (no stamp written), and every hook still succeeds.
    std::fs::remove_file(&stamp).unwrap();
    let user_settings = w.home.join(".claude/settings.json");
    let before = std::fs::read_to_string(&user_settings).ok();
    let mut user: Value = before
        .as_deref()
        .map_or_else(|| json!({}), |t| serde_json::from_str(t).unwrap());
    user["env"] = json!({"FORGE_HINT": "off"});
    std::fs::create_dir_all(user_settings.parent().unwrap()).unwrap();
    std::fs::write(&user_settings, user.to_string()).unwrap();
    let out = w.print_with(&["--allowedTools", "Bash", "--"], "please LIST-FILES");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stamp.exists(), "FORGE_HINT=off: the hint was said");
    match before {
        Some(t) => std::fs::write(&user_settings, t).unwrap(),
        None => std::fs::remove_file(&user_settings).unwrap(),
    }

    // Interactive: the first screen has the one line, a tool call and the end of the
    // turn add nothing, and there is no status line.
    w.start_without_status_line(&["--allowedTools", "Bash"]);
    w.wait_screen("SessionStart's one line", |s| {
        s.contains("SessionStart:startup says: forge: the Claude Code settings of this project")
    });
    w.type_line("please LIST-FILES");
    let screen = w.wait_screen("the reply after the tool call", |s| {
        s.contains("LISTED-THEM")
    });
    // Stop runs after the reply is drawn: give it time to say anything it would.
    std::thread::sleep(Duration::from_secs(3));
    let screen = format!("{screen}\n{}", w.screen());
    let flat = w.screen().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("cargo install --locked"), "{screen}");
    assert!(flat.contains("npm install -g ccforge"), "{screen}");
    assert!(stamp.exists(), "the interactive session said the hint");
    assert_eq!(
        w.screen().matches(" says: ").count(),
        1,
        "one line from the hooks, at SessionStart: {screen}"
    );
    let lower = screen.to_lowercase();
    for bad in [
        "hook failed",
        "hook error",
        "failed",
        "not found",
        "exit 127",
    ] {
        assert!(!lower.contains(bad), "{bad}: {screen}");
    }
    assert!(status_line(&w.screen()).is_none(), "{screen}");
    // The transcripts hold no failed or erroring hook either.
    let transcripts = all_transcripts(&w).to_lowercase();
    assert!(transcripts.contains("listed-them"), "no transcript read");
    for bad in [
        "hook failed",
        "hook error",
        "hook_error",
        "exit 127",
        "not found",
    ] {
        assert!(!transcripts.contains(bad), "{bad} in a transcript");
    }
    // forge never ran: nothing recorded.
    assert!(!w.root.join(".forge").exists());
}

// ----- forge installed from the npm packages ----------------------------------------------------

/// The npm packages scripts/release.sh packs, installed from their files into an
/// empty prefix with no registry: that `forge` (the Node launcher, then the
/// platform package's binary) wires a project with `forge init`, writing the bare
/// `forge` (the launcher is this forge), and the pinned client runs every hook
/// through it, each exiting 0, and forge records the session.
#[test]
fn forge_installed_from_the_npm_files_wires_a_project_and_the_client_runs_its_hooks() {
    let name = "forge_installed_from_the_npm_files_wires_a_project_and_the_client_runs_its_hooks";
    // The release files (built on demand under CI; tests/it/common/dist.rs).
    let Some(dist) = dist::dist_or_skip(name) else {
        return;
    };
    let Some(mut w) = World::new_unwired(name) else {
        return;
    };
    let prefix = w.home.parent().unwrap().join("npm-prefix");
    let files: Vec<std::path::PathBuf> = dist::npm_files()
        .iter()
        .filter(|f| !f.contains("arm64"))
        .map(|f| dist.join("npm").join(f))
        .collect();
    let out = std::process::Command::new("npm")
        .args(["install", "-g", "--prefix"])
        .arg(&prefix)
        .args(&files)
        .args([
            "--offline",
            "--no-audit",
            "--no-fund",
            "--registry",
            "http://127.0.0.1:9/",
        ])
        .env(
            "npm_config_cache",
            w.home.parent().unwrap().join("npm-cache"),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = prefix.join("bin");
    w.first_on_path(&bin);
    let forge = bin.join("forge");
    let out = w.command(&forge).arg("init").output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("forge's commands run `forge` from PATH"),
        "{said}"
    );
    let settings = std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("exec \\\"$d/forge\\\" hook Stop"),
        "{settings}"
    );
    assert!(!settings.contains("node_modules"), "{settings}");
    w.commit_all();

    w.api.on("HELLO-NPM", Reply::text("HI-FROM-NPM"));
    let out = w.print("please HELLO-NPM");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("HI-FROM-NPM"));
    let log = w.debug_log();
    let ran: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/forge") && l.contains(" hook ") && l.contains("with status"))
        .collect();
    for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
        assert!(
            ran.iter().any(|l| l.contains(&format!("hook {event}"))),
            "{event}: {ran:#?}"
        );
    }
    for l in &ran {
        assert!(l.contains("status 0"), "{l}");
    }
    // The hooks ran forge (not the guard's fallback): the session is recorded.
    let out = w
        .command(&forge)
        .args(["sessions", "--json"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{listed}");
    let sessions: Value = serde_json::from_str(&listed).unwrap();
    assert!(
        sessions.as_array().is_some_and(|a| !a.is_empty()),
        "no session recorded: {listed}"
    );
}

// ----- the status line follows forge's files while the session idles --------------------------

/// Claude Code re-runs the status line only on its own events, unless
/// `statusLine.refreshInterval` is set (docs/client-reference.md §5.3); `forge init`
/// sets it, so a Signal resolved in another terminal leaves the line within that
/// interval while the session sits idle.
#[test]
fn a_resolved_signal_leaves_the_idle_status_line_within_the_refresh_interval() {
    let Some(mut w) =
        World::new("a_resolved_signal_leaves_the_idle_status_line_within_the_refresh_interval")
    else {
        return;
    };
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let every = settings["statusLine"]["refreshInterval"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(every, 5, "{settings}");
    let out = w.forge(&[
        "signal",
        "--from",
        "builder",
        "--to",
        "lead",
        "--task",
        "T-7",
        "--status",
        "blocked",
        "--question",
        "Which pool size?",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    w.start(&[]);
    w.turn("hello there");
    w.wait_screen("⚑1 blocked in the status line", |s| {
        status_line(s).is_some_and(|l| l.contains("⚑1 blocked"))
    });
    // From here the session idles: nothing the client tracks changes.
    std::thread::sleep(Duration::from_secs(2));
    let out = w.forge(&["signal", "resolve", "T-7", "--answer", "Use 16."]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let resolved = std::time::Instant::now();
    let gone = poll(Duration::from_secs(every * 3), || {
        status_line(&w.screen())
            .filter(|l| !l.contains("blocked"))
            .map(|_| resolved.elapsed())
    });
    let took = gone.unwrap_or_else(|| {
        panic!(
            "the resolved Signal stayed on the status line for {} s: {:?}",
            every * 3,
            status_line(&w.screen())
        )
    });
    // One interval, and a second for the tick and the redraw.
    assert!(
        took <= Duration::from_secs(every + 1),
        "the status line changed after {took:?}"
    );
}

// ----- composition mode: keep the status line you have -----------------------------------------

/// Someone's own status line (here a command that reads the client's JSON, as
/// ccstatusline does) wrapped by `forge init --wrap-statusline`: the real client
/// shows its output and forge's `⚠ CTX` at the threshold, and forge's threshold
/// handoff is written.
#[test]
fn a_wrapped_status_line_shows_the_other_output_and_forge_at_the_threshold() {
    let Some(mut w) =
        World::new("a_wrapped_status_line_shows_the_other_output_and_forge_at_the_threshold")
    else {
        return;
    };
    let path = w.root.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let theirs = r#"grep -o '"session_id":"[^"]*"' | head -n 1 | sed 's/^/CCLINE /'"#;
    settings["statusLine"] = json!({"type": "command", "command": theirs});
    std::fs::write(&path, serde_json::to_string_pretty(&settings).unwrap()).unwrap();
    let out = w.forge(&["init", "--wrap-statusline"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("wrapped the statusLine"), "{said}");
    w.commit_all();

    w.api.set_context(150_000);
    w.start(&[]);
    w.turn("hello there");
    let sid = w.session_of("SessionStart:startup");
    let screen = w.wait_screen("the other line with ⚠ CTX 75%", |s| {
        status_line(s).is_some_and(|l| l.contains("CCLINE") && l.contains("⚠ CTX 75%"))
    });
    let line = status_line(&screen).unwrap();
    // The other command read the same JSON the client sent forge.
    assert!(
        line.contains(&format!("CCLINE \"session_id\":\"{sid}\"")),
        "{line}"
    );
    assert!(
        line.find("CCLINE").unwrap() < line.find("⚠ CTX").unwrap(),
        "{line}"
    );
    let handoffs = poll(harness::WAIT, || {
        let h = session_handoffs(&w);
        (!h.is_empty()).then_some(h)
    })
    .expect("the threshold handoff");
    assert_eq!(handoffs.len(), 1, "{handoffs:?}");
    let doc = std::fs::read_to_string(w.root.join(".forge/handoffs").join(&handoffs[0])).unwrap();
    assert!(doc.contains("trigger: context-threshold"), "{doc}");
    // Uninstall gives the file its own status line back.
    let out = w.forge(&["init", "--uninstall"]);
    assert!(out.status.success());
    let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        back["statusLine"],
        json!({"type": "command", "command": theirs})
    );
}

// ----- a handoff a real session continues from ------------------------------------------------

/// The summary the mock model writes when the client asks it to compact: the
/// sections the pinned client asks for, a pending task and a next step to find again.
const WIDGET_SUMMARY: &str = "<analysis>\nThe user wants the blue widget; the plan is approved, the colour chosen, a long job runs.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   The user asked: \"ORIGINAL-TASK: build the blue widget as SPEC.md says\".\n\n2. Key Technical Concepts:\n   - widgets\n\n3. Files and Code Sections:\n   - SPEC.md (read)\n\n4. Errors and fixes:\n   - none\n\n5. Problem Solving:\n   none\n\n6. All user messages:\n   - \"ORIGINAL-TASK: build the blue widget as SPEC.md says\"\n\n7. Pending Tasks:\n   - PENDING-WORK: wire the blue widget into the dashboard\n\n8. Current Work:\n   Waiting for the long job (sleep 300) started in the background.\n\n9. Optional Next Step:\n   NEXT-STEP: run the widget tests once the long job ends.\n</summary>";

/// Answers the dialogs the client shows while `done` is not on the screen: plan
/// approval, the question (its first option), a permission prompt. A key sent while
/// a dialog is still being drawn can be lost, so each is pressed until it goes.
fn answer_dialogs_until(w: &World, done: &str) -> String {
    poll(Duration::from_secs(90), || {
        let s = w.screen();
        if s.contains(done) {
            return Some(s);
        }
        if [
            "Exit plan mode?",
            "Ready to code?",
            "Which colour should",
            "Do you want to proceed?",
        ]
        .iter()
        .any(|d| s.contains(d))
        {
            std::thread::sleep(Duration::from_millis(600));
            w.keys(&["Enter"]);
        }
        std::thread::sleep(Duration::from_millis(500));
        None
    })
    .unwrap_or_else(|| panic!("waited for {done:?}: {}", w.screen()))
}

/// Presses Enter while `dialog` is on the screen (its first option).
fn answer_until_gone(w: &World, dialog: &str) {
    w.wait_screen(dialog, |s| s.contains(dialog));
    let gone = poll(harness::WAIT, || {
        if !w.screen().contains(dialog) {
            return Some(());
        }
        w.keys(&["Enter"]);
        std::thread::sleep(Duration::from_secs(1));
        None
    });
    assert!(gone.is_some(), "{dialog} did not go: {}", w.screen());
}

/// A session with an approved plan, a question the person answered, a background
/// command still running and a compaction crosses the threshold: its handoff
/// carries the person's task, the plan, the decision, the loose end and the
/// client's pending work; the status line marks it once; the next session's first
/// request carries the task and the pending work, and the person's screen says what
/// was resumed. With FORGE_RECORD_FIXTURES=1 it also records the session's
/// transcript as tests/fixtures/transcripts/recorded-plan-question-background-compact.jsonl.
#[test]
fn a_session_with_a_plan_a_question_a_background_command_and_a_compaction_hands_off() {
    let Some(mut w) = World::new(
        "a_session_with_a_plan_a_question_a_background_command_and_a_compaction_hands_off",
    ) else {
        return;
    };
    w.api.set_summary(WIDGET_SUMMARY);
    w.start(&["--permission-mode", "plan"]);
    // In plan mode the plan is a file the model writes, which plan mode's reminder
    // in the request names.
    let plan = "# Plan\n1. PLAN-STEP-ONE: draw the widget\n2. PLAN-STEP-TWO: colour it\n";
    w.api.on_with("ORIGINAL-TASK", move |r| {
        let text = r.all_text();
        let plan_file = text
            .split(|c: char| c.is_whitespace() || "\"`'()".contains(c))
            .find(|t| t.contains(".claude/plans/") && t.ends_with(".md"))
            .expect("the plan file in plan mode's reminder")
            .to_owned();
        Reply::tool("Write", json!({"file_path": plan_file, "content": plan}))
    });
    w.api.on_tool_result(
        "created successfully",
        Reply::tool("ExitPlanMode", json!({"plan": plan})),
    );
    w.api.on_tool_result(
        "approved your plan",
        Reply::tool(
            "AskUserQuestion",
            json!({"questions":[{"question":"Which colour should the widget be?","header":"Colour",
                "options":[{"label":"Blue","description":"as SPEC.md says"},{"label":"Red","description":"bold"}],
                "multiSelect":false}]}),
        ),
    );
    w.api.on_tool_result(
        "have been answered",
        Reply::tool(
            "Bash",
            json!({"command":"sleep 300","description":"LONG-JOB","run_in_background":true}),
        ),
    );
    w.api.on_tool_result(
        "running in background",
        Reply::text("Started the long job."),
    );
    w.type_line("ORIGINAL-TASK: build the blue widget as SPEC.md says");
    answer_dialogs_until(&w, "Started the long job.");
    w.wait_events("Stop", 1);

    // The compaction: both proofs come, one compaction is counted, the summary kept.
    w.type_line("/compact");
    w.wait_events("SessionStart:compact", 1);
    w.wait_events("PostCompact", 1);
    let sid = w.session_of("SessionStart:startup");
    assert_eq!(compaction_lines(&w), 1);
    wait_until("PostCompact's summary", || {
        w.root
            .join(format!(".forge/logs/sessions/{sid}.summary.json"))
            .is_file()
    });

    // Past the threshold: the status line's handoff, marked once on the line.
    w.api.set_context(150_000);
    w.turn("continue");
    w.wait_screen("✎ handoff on the status line", |s| {
        status_line(s).is_some_and(|l| l.contains("✎ handoff"))
    });
    w.wait_screen("the mark gone at the next refresh", |s| {
        status_line(s).is_some_and(|l| l.contains("CTX") && !l.contains('✎'))
    });
    let handoffs = session_handoffs(&w);
    let threshold: Vec<String> = handoffs
        .iter()
        .map(|h| w.forge_text(&format!("handoffs/{h}")))
        .filter(|d| d.contains("trigger: context-threshold"))
        .collect();
    assert_eq!(threshold.len(), 1, "{handoffs:?}");
    let doc = &threshold[0];
    for (what, text) in [
        (
            "the title is the task",
            "# Session handoff — ORIGINAL-TASK: build the blue widget as SPEC.md says\n",
        ),
        (
            "the task",
            "> ORIGINAL-TASK: build the blue widget as SPEC.md says\n",
        ),
        ("the latest request", "Their latest request"),
        ("the plan", "> 1. PLAN-STEP-ONE: draw the widget\n"),
        ("the decision", "## Decisions\n"),
        ("the answer", "- Which colour should the widget be? → Blue"),
        (
            "the background command",
            "not reported finished: `sleep 300` — LONG-JOB",
        ),
        ("the client's summary", "(sent by its PostCompact hook)"),
        (
            "its pending work",
            "> - PENDING-WORK: wire the blue widget into the dashboard\n",
        ),
        (
            "its next step",
            "> NEXT-STEP: run the widget tests once the long job ends.\n",
        ),
    ] {
        assert!(doc.contains(text), "{what}: {text:?} not in\n{doc}");
    }
    assert!(doc.len() <= 8 * 1024, "{} bytes", doc.len());
    if std::env::var_os("FORGE_RECORD_FIXTURES").is_some() {
        let out = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/transcripts/recorded-plan-question-background-compact.jsonl");
        std::fs::write(&out, transcript_fixture(&w.transcript(&sid))).unwrap();
    }

    // The next session: the model gets the task and the pending work in its first
    // request, the person sees what was resumed.
    w.type_line("/exit");
    // The client asks what becomes of the background job: it stops with the session.
    answer_until_gone(&w, "Background work is running");
    w.wait_events("SessionEnd:prompt_input_exit", 1);
    let before = w.api.messages().len();
    // The finished client's pane stays (remain-on-exit): a new one in its place.
    w.close();
    w.start(&[]);
    let screen = w.wait_screen("the resume notice", |s| {
        s.contains("SessionStart:startup says: forge: resumed")
    });
    assert!(
        screen.contains("ORIGINAL-TASK: build the blue widget"),
        "{screen}"
    );
    w.turn("hello again");
    let first = w.api.messages()[before..]
        .iter()
        .find(|r| r.last_user_text().contains("hello again"))
        .expect("the next session's first request")
        .all_text();
    assert!(
        first.contains("ORIGINAL-TASK: build the blue widget"),
        "{first}"
    );
    assert!(
        first.contains("PENDING-WORK: wire the blue widget into the dashboard"),
        "{first}"
    );
    assert!(
        !first.contains("forge: resumed"),
        "the notice is for the person, not the model"
    );
}

// ----- beyond one machine: Signals through the repository's git remote ----------------------

/// Files (by name) in `dir`, sorted; empty when it is missing.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn an_agent_on_machine_a_blocks_through_the_tool_and_machine_bs_session_is_told_with_the_origin() {
    let Some(mut w) = World::new_unwired(
        "an_agent_on_machine_a_blocks_through_the_tool_and_machine_bs_session_is_told_with_the_origin",
    ) else {
        return;
    };
    w.forge_on_path();
    install_plugin(&w);
    let init = w.forge(&["init", "--plugin"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    w.commit_all();
    // The repository's remote: a bare repository both machines clone.
    let base = w.root.parent().unwrap().to_path_buf();
    let remote = base.join("remote.git");
    std::fs::create_dir_all(&remote).unwrap();
    git_in(&remote, &["init", "-q", "--bare", "-b", "main"]);
    git_in(
        &w.root,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git_in(&w.root, &["push", "-q", "origin", "main"]);
    // Machine B: its own home (a copy of A's as it is now: the client set up, the
    // plugin installed, no forge state) and its own clone.
    let (home_a, root_a) = (w.home.clone(), w.root.clone());
    let home_b = base.join("home-b");
    let root_b = base.join("project-b");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(&home_a)
        .arg(&home_b)
        .status()
        .unwrap();
    assert!(cp.success());
    git_in(
        &base,
        &[
            "clone",
            "-q",
            remote.to_str().unwrap(),
            root_b.to_str().unwrap(),
        ],
    );
    // Sharing on, in each machine's own config.
    for home in [&home_a, &home_b] {
        std::fs::create_dir_all(home.join(".config/forge")).unwrap();
        std::fs::write(
            home.join(".config/forge/config.toml"),
            "[share]\nremote = \"origin\"\ntimeout_secs = 20\n",
        )
        .unwrap();
    }
    w.home.clone_from(&home_b);
    w.root.clone_from(&root_b);
    w.trust_folder(&root_b);

    // Machine A: the builder cannot go on; its Signal is published in the
    // background once the tool has written it.
    w.home.clone_from(&home_a);
    w.root.clone_from(&root_a);
    script_tool_call(
        &w,
        "BLOCK-ACROSS",
        SIGNAL_TOOL,
        json!({
            "from": "builder",
            "to": "lead",
            "task": "T-77",
            "status": "blocked",
            "questions": ["Which region does the staging cluster run in?"],
        }),
        "a blocked Signal of task T-77",
    );
    let out = w.print_with(
        &["--allowedTools", SIGNAL_TOOL, "--"],
        "please BLOCK-ACROSS",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let writer_a = std::fs::read_to_string(home_a.join(".local/state/forge/share-writer"))
        .map(|s| s.trim().to_owned())
        .unwrap_or_default();
    let refs = || {
        let out = std::process::Command::new("git")
            .args(["for-each-ref", "--format=%(refname)", "refs/forge/"])
            .current_dir(&remote)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    wait_until("machine A's ref on the remote", || {
        !writer_a.is_empty() && refs().contains(&format!("refs/forge/signals/{writer_a}"))
    });

    // Machine B: its first session's start fetches in the background...
    w.home.clone_from(&home_b);
    w.root.clone_from(&root_b);
    w.agent = Some("lead".into());
    let out = w.print("hello from machine B");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cache = root_b.join(".forge/share/inbox");
    wait_until("machine B's fetch", || !names_in(&cache).is_empty());
    // ...so its next session is told at its start, the origin named.
    let before = w.api.messages().len();
    let out = w.print("hello again from machine B");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = w.api.messages()[before].all_text();
    assert!(
        first.contains("SessionStart:startup hook success"),
        "{first}"
    );
    assert!(first.contains("T-77"), "{first}");
    assert!(
        first.contains("Which region does the staging cluster run in?"),
        "{first}"
    );
    assert!(
        first.contains(&format!(
            "a remote Signal, from remote writer {writer_a} on machine "
        )),
        "{first}"
    );
    assert!(first.contains("(branch main)"), "{first}");
}

// ----- alerts and answering from the dashboard -------------------------------------------------

/// A permission prompt of the real client in tmux: forge's alert reaches a stand-in
/// `notify-send` exactly once (PermissionRequest, then the client's
/// `permission_prompt` Notification for the same prompt), naming the session; the
/// fleet dashboard's `y` reads the pane, sees the prompt, approves it, and the
/// client runs the tool. The send is an outcome in the project's event log.
#[test]
fn a_permission_prompt_alerts_once_and_the_dashboard_approves_it() {
    let Some(mut w) = World::new("a_permission_prompt_alerts_once_and_the_dashboard_approves_it")
    else {
        return;
    };
    let bin = w.home.parent().unwrap().join("stand-ins");
    std::fs::create_dir_all(&bin).unwrap();
    let heard = w.home.parent().unwrap().join("notify-send.calls");
    let notifier = bin.join("notify-send");
    std::fs::write(
        &notifier,
        format!(
            "#!/bin/sh\nprintf '%s|' \"$@\" >> {}\necho >> {}\n",
            sh_quote(&heard.display().to_string()),
            sh_quote(&heard.display().to_string())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&notifier, std::fs::Permissions::from_mode(0o755)).unwrap();
    w.path_first(&bin);
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[alerts]\nvia = \"notify-send\"\n").unwrap();
    w.api.on(
        "MAKE-FILE",
        Reply::tool(
            "Bash",
            json!({"command": "echo hi > made.txt", "description": "Make a file"}),
        ),
    );
    w.start_with(&["--permission-mode", "default"], true);
    let sid = w.session_of("SessionStart:startup");
    w.type_line("please MAKE-FILE");
    let dialog = w.wait_screen("the permission prompt", |s| {
        s.contains("Do you want to proceed?")
    });
    // The client's Notification for the same prompt comes ~6 s later: still one.
    w.wait_events("Notification:permission_prompt", 1);
    let calls = std::fs::read_to_string(&heard).unwrap_or_default();
    assert_eq!(calls.lines().count(), 1, "{calls}\n{dialog}");
    assert!(
        // The agent is the tmux session's name (`e2e`), then the session's short id.
        calls.contains(&format!("e2e ({}) asks permission for Bash", &sid[..8])),
        "{calls}"
    );
    assert!(calls.contains("answer it in its pane (tmux %"), "{calls}");

    // The fleet dashboard, on the same tmux server: the session waits; y approves.
    let forge = crate::common::forge_bin().display().to_string();
    let dash = format!(
        "cd {} && env HOME={} XDG_CONFIG_HOME={} PATH={} {} tui --all",
        sh_quote(&w.root.display().to_string()),
        sh_quote(&w.home.display().to_string()),
        sh_quote(&w.home.join(".config").display().to_string()),
        sh_quote(&format!("{}:/usr/bin:/bin", bin.display())),
        sh_quote(&forge),
    );
    w.tmux_run(&[
        "new-session",
        "-d",
        "-s",
        "dash",
        "-x",
        "140",
        "-y",
        "30",
        &dash,
    ])
    .unwrap();
    let listed = poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains("permission").then_some(s)
    })
    .expect("the fleet list shows the session waiting for permission");
    assert!(listed.contains("y approve"), "{listed}");
    w.tmux_run(&["send-keys", "-t", "dash", "y"]).unwrap();
    let said = poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains("approved the permission prompt").then_some(s)
    })
    .unwrap_or_else(|| {
        panic!(
            "the dashboard said nothing: {:?}\nthe client's pane: {}",
            w.tmux_run(&["capture-pane", "-p", "-t", "dash"]),
            w.screen()
        )
    });
    assert!(said.contains("(sent Enter)"), "{said}");
    wait_until("the client runs the approved tool", || {
        w.root.join("made.txt").is_file()
    });
    let answered = w
        .events()
        .into_iter()
        .find(|e| e["event"] == "forge tui")
        .expect("the send in the event log");
    assert_eq!(answered["session"], sid.as_str());
    assert_eq!(
        answered["outcomes"][0]["kind"], "pane_answered",
        "{answered}"
    );
    assert_eq!(answered["outcomes"][0]["answer"], "approve");
    // Still one alert.
    let calls = std::fs::read_to_string(&heard).unwrap_or_default();
    assert_eq!(calls.lines().count(), 1, "{calls}");

    // The turn is over: i types the next prompt into the pane, which shows the
    // client's empty prompt; the client takes it as the person's.
    w.wait_events("Stop", 1);
    let prompts = w.count_events("UserPromptSubmit");
    poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains("input").then_some(())
    })
    .expect("the fleet list shows the session waiting for input");
    w.tmux_run(&["send-keys", "-t", "dash", "i"]).unwrap();
    w.tmux_run(&["send-keys", "-t", "dash", "-l", "from the dashboard"])
        .unwrap();
    w.tmux_run(&["send-keys", "-t", "dash", "Enter"]).unwrap();
    let said = poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        (s.contains("sent the prompt") || s.contains("nothing sent")).then_some(s)
    })
    .expect("the dashboard says what it sent");
    assert!(
        said.contains("sent the prompt to %"),
        "{said}\nthe client's pane: {}",
        w.screen()
    );
    w.wait_events("UserPromptSubmit", prompts + 1);
    let sent = w
        .events()
        .into_iter()
        .filter(|e| e["event"] == "forge tui")
        .nth(1)
        .expect("the prompt in the event log");
    assert_eq!(sent["outcomes"][0]["kind"], "pane_prompted", "{sent}");
    assert_eq!(sent["outcomes"][0]["chars"], 18);
}

/// Claude Code runs its hooks without a controlling terminal: forge writes the
/// terminal's notification escape to the client's own terminal (its stdout's tty),
/// here a tmux pane, wrapped for tmux's passthrough — what the pane's program wrote,
/// read with `pipe-pane` — once for the prompt's two hook events.
#[test]
fn a_permission_prompt_alert_reaches_the_clients_terminal_through_tmux() {
    let Some(mut w) =
        World::new("a_permission_prompt_alert_reaches_the_clients_terminal_through_tmux")
    else {
        return;
    };
    let config = w.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[alerts]\nvia = \"osc9\"\n").unwrap();
    w.api.on(
        "MAKE-FILE",
        Reply::tool(
            "Bash",
            json!({"command": "echo hi > made.txt", "description": "Make a file"}),
        ),
    );
    w.start_with(&["--permission-mode", "default"], true);
    let sid = w.session_of("SessionStart:startup");
    let piped = w.home.parent().unwrap().join("pane-output");
    w.tmux_run(&[
        "pipe-pane",
        "-o",
        "-t",
        "e2e",
        &format!("cat >> {}", sh_quote(&piped.display().to_string())),
    ])
    .unwrap();
    w.type_line("please MAKE-FILE");
    w.wait_screen("the permission prompt", |s| {
        s.contains("Do you want to proceed?")
    });
    w.wait_events("Notification:permission_prompt", 1);
    let out = String::from_utf8_lossy(&std::fs::read(&piped).unwrap_or_default()).into_owned();
    let want = format!(
        "\x1bPtmux;\x1b\x1b]9;forge · project: e2e ({}) asks permission for Bash",
        &sid[..8]
    );
    assert_eq!(out.matches(&want).count(), 1, "{out:?}");
    let sent: Vec<Value> = w
        .events()
        .iter()
        .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
        .filter(|o| o["kind"] == "alert_sent")
        .collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["via"], "osc9");
}

/// The project dashboard's sessions pane answers the same prompt: Tab to it, `p`
/// reads the client's pane, sees its permission prompt, approves it; the client runs
/// the tool. Then `i` types the next prompt once the turn is over (the client
/// submits it), and `t` switches a tmux client attached to the dashboard to the
/// session's pane — as the fleet list's y, i and t do.
#[test]
fn the_project_dashboard_approves_a_permission_prompt_from_its_sessions_pane() {
    let Some(mut w) =
        World::new("the_project_dashboard_approves_a_permission_prompt_from_its_sessions_pane")
    else {
        return;
    };
    w.api.on(
        "MAKE-FILE",
        Reply::tool(
            "Bash",
            json!({"command": "echo hi > made.txt", "description": "Make a file"}),
        ),
    );
    w.start_with(&["--permission-mode", "default"], true);
    w.type_line("please MAKE-FILE");
    w.wait_screen("the permission prompt", |s| {
        s.contains("Do you want to proceed?")
    });
    let forge = crate::common::forge_bin().display().to_string();
    let dash = format!(
        "cd {} && env HOME={} XDG_CONFIG_HOME={} PATH=/usr/bin:/bin {} tui",
        sh_quote(&w.root.display().to_string()),
        sh_quote(&w.home.display().to_string()),
        sh_quote(&w.home.join(".config").display().to_string()),
        sh_quote(&forge),
    );
    w.tmux_run(&[
        "new-session",
        "-d",
        "-s",
        "dash",
        "-x",
        "140",
        "-y",
        "40",
        &dash,
    ])
    .unwrap();
    poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains("Needs attention 1").then_some(())
    })
    .expect("the dashboard lists the session waiting for permission");
    w.tmux_run(&["send-keys", "-t", "dash", "Tab", "Tab"])
        .unwrap();
    poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains("▸ Needs attention").then_some(())
    })
    .expect("the sessions pane focused");
    // A key that reaches the dialog while the client still draws it can be lost (as
    // the other e2e tests press again): p until the dialog goes. Each p reads the
    // pane first, so none is sent once the prompt has gone.
    let mut said = String::new();
    let gone = poll(harness::WAIT, || {
        if !w.screen().contains("Do you want to proceed?") {
            return Some(());
        }
        w.tmux_run(&["send-keys", "-t", "dash", "p"]).unwrap();
        std::thread::sleep(Duration::from_secs(1));
        said = w
            .tmux_run(&["capture-pane", "-p", "-t", "dash"])
            .unwrap_or_default();
        None
    });
    assert!(
        gone.is_some(),
        "the prompt stayed: {said}\nthe client's pane: {}",
        w.screen()
    );
    assert!(
        said.contains("approved the permission prompt") && said.contains("(sent Enter)"),
        "{said}"
    );
    wait_until("the client runs the approved tool", || {
        w.root.join("made.txt").is_file()
    });
    let sid = w.session_of("SessionStart:startup");
    let logged = |kind: &str| {
        w.events()
            .into_iter()
            .filter(|e| e["event"] == "forge tui")
            .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
            .filter(|o| o["kind"] == kind)
            .count()
    };
    assert!(logged("pane_answered") >= 1);

    // The turn is over: i in the sessions pane types the next prompt into the
    // client's pane (read first: it shows the empty prompt); the client takes it as
    // the person's.
    w.wait_events("Stop", 1);
    let prompts = w.count_events("UserPromptSubmit");
    poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        (s.contains("input") && !s.contains("permission")).then_some(())
    })
    .expect("the sessions pane shows the session waiting for input");
    w.tmux_run(&["send-keys", "-t", "dash", "i"]).unwrap();
    poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        s.contains(&format!("prompt {}:", &sid[..8])).then_some(())
    })
    .expect("the footer takes the prompt");
    w.tmux_run(&[
        "send-keys",
        "-t",
        "dash",
        "-l",
        "from the project dashboard",
    ])
    .unwrap();
    w.tmux_run(&["send-keys", "-t", "dash", "Enter"]).unwrap();
    let said = poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        (s.contains("sent the prompt") || s.contains("nothing sent")).then_some(s)
    })
    .expect("the dashboard says what it sent");
    assert!(
        said.contains("sent the prompt to %") && said.contains("(26 characters)"),
        "{said}\nthe client's pane: {}",
        w.screen()
    );
    w.wait_events("UserPromptSubmit", prompts + 1);
    let sent = w
        .events()
        .into_iter()
        .filter(|e| e["event"] == "forge tui")
        .find(|e| e["outcomes"][0]["kind"] == "pane_prompted")
        .expect("the prompt in the event log");
    assert_eq!(sent["session"], sid.as_str(), "{sent}");
    assert_eq!(sent["outcomes"][0]["chars"], 26, "{sent}");
    assert_eq!(logged("pane_refused"), 0);

    // t goes to the session's pane: a tmux client attached to the dashboard's
    // session (nested in a third session) is switched to the client's.
    let socket = w
        .tmux_run(&["display-message", "-p", "#{socket_path}"])
        .unwrap();
    let viewer = format!(
        "env -u TMUX tmux -S {} attach -t dash",
        sh_quote(socket.trim())
    );
    w.tmux_run(&[
        "new-session",
        "-d",
        "-s",
        "viewer",
        "-x",
        "140",
        "-y",
        "40",
        &viewer,
    ])
    .unwrap();
    let on = |w: &World| {
        w.tmux_run(&["list-clients", "-F", "#{client_session}"])
            .unwrap_or_default()
    };
    poll(harness::WAIT, || on(&w).contains("dash").then_some(()))
        .expect("a client attached to the dashboard's session");
    w.tmux_run(&["send-keys", "-t", "dash", "t"]).unwrap();
    let said = poll(harness::WAIT, || {
        let s = w.tmux_run(&["capture-pane", "-p", "-t", "dash"]).ok()?;
        (s.contains("switched to") || s.contains("could not go there")).then_some(s)
    })
    .expect("the dashboard says where it went");
    assert!(said.contains("switched to e2e:"), "{said}");
    assert_eq!(
        on(&w).trim(),
        "e2e",
        "the client is on the client's session now"
    );
}
