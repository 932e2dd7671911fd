//! The user's own commands on context events (issue "10 of 11", item 1):
//! `[[on_session_start]]` and `[[on_threshold]]` from the user's config, run with a
//! JSON payload, recorded in the event log, never breaking a session; never from a
//! project's config. A fake orchestrator command records what it got.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{
    TestProject, ok_stdout, outcomes, statusline, user_config, wait_until, wake_messages,
};
use serde_json::Value;

/// A fake orchestrator: appends each payload it gets to `name` (one per line) and
/// prints `say`.
fn recorder(p: &TestProject, name: &str, say: &str) -> (String, PathBuf) {
    let log = p.dir.path().join(name);
    let cmd = format!(
        "cat >> '{}'; echo >> '{}'; printf '%s\\n' '{say}'",
        log.display(),
        log.display()
    );
    (cmd, log)
}

fn payloads(log: &PathBuf) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn session_start(p: &TestProject) -> String {
    let out = p
        .forge()
        .args(["hook", "SessionStart"])
        .write_stdin(p.payload("hooks/SessionStart-startup.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn on_session_start_output_joins_the_orientation_and_failures_never_break_it() {
    let p = TestProject::new();
    let (cmd, log) = recorder(&p, "start.jsonl", "ORCH: review PR 12 first");
    user_config(
        &p,
        &format!(
            "[[on_session_start]]\ncommand = \"{}\"\n\
             [[on_session_start]]\ncommand = \"exit 3\"\n\
             [[on_session_start]]\ncommand = \"sleep 20\"\ntimeout_secs = 1\n\
             [[on_session_start]]\ncommand = \"printf 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\\\\033[2J\\\\n'\"\n",
            cmd.replace('\\', "\\\\").replace('"', "\\\"")
        ),
    );
    let started = Instant::now();
    let text = session_start(&p);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the slow one was stopped"
    );
    assert!(text.contains("ORCH: review PR 12 first"), "{text}");
    assert!(!text.contains("sk-ant-api03"), "redacted: {text}");
    assert!(!text.contains('\u{1b}'), "no control characters: {text:?}");
    let got = payloads(&log);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["hook_event_name"], "session_start");
    assert_eq!(got[0]["session"]["source"], "startup");
    assert_eq!(got[0]["session"]["is_continuation"], false);
    assert_eq!(
        got[0]["session"]["session_id"],
        "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21"
    );
    // Each run is an outcome `forge log` shows.
    let o = outcomes(&p, "SessionStart");
    let kinds: Vec<&str> = o.iter().filter_map(|o| o["kind"].as_str()).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "user_hook_ran").count(),
        3,
        "{o:?}"
    );
    assert!(
        o.iter()
            .any(|o| o["kind"] == "user_hook_failed"
                && o["why"].as_str().unwrap().contains("after 1 s")),
        "{o:?}"
    );
    let log_text = ok_stdout(p.forge().arg("log"));
    assert!(
        log_text.contains("ran your on_session_start hook"),
        "{log_text}"
    );
    assert!(log_text.contains("failed with exit 3"), "{log_text}");
}

#[test]
fn a_project_config_never_runs_commands() {
    let p = TestProject::new();
    let marker = p.dir.path().join("pwned");
    p.write(
        ".forge/config.toml",
        &format!(
            "[[on_session_start]]\ncommand = \"touch '{}'\"\n",
            marker.display()
        ),
    );
    session_start(&p);
    assert!(!marker.exists(), "a repository's config ran a command");
    let out = p.forge().args(["config", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("runs commands, so forge takes it only from your own config"),
        "{out:?}"
    );
}

const S74: &str = "b71d04f6-2c3e-4a5b-8d9e-0f1a2b3c4d5e";

#[test]
fn on_threshold_fires_once_per_crossing_with_the_handoff_in_its_payload() {
    let p = TestProject::new();
    let (early, early_log) = recorder(&p, "early.jsonl", "");
    let (at, at_log) = recorder(&p, "at.jsonl", "");
    user_config(
        &p,
        &format!(
            "[[on_threshold]]\ncommand = \"{early}\"\nthreshold = 50\n\
             [[on_threshold]]\ncommand = \"{at}\"\n"
        ),
    );
    // 45%: nothing. 74%: past both (the second at the 70% handoff threshold).
    statusline(&p, 45);
    std::thread::sleep(Duration::from_millis(300));
    assert!(payloads(&early_log).is_empty());
    let line = statusline(&p, 74);
    assert!(line.contains("⚠ CTX 74%"), "{line}");
    wait_until("both hooks", || {
        payloads(&early_log).len() == 1 && payloads(&at_log).len() == 1
    });
    let sid = std::fs::read_to_string(common::fixtures().join("statusline/used-74.json")).unwrap();
    let sid: Value = serde_json::from_str(&sid).unwrap();
    let sid = sid["session_id"].as_str().unwrap().to_owned();
    let e = &payloads(&early_log)[0];
    assert_eq!(e["hook_event_name"], "context_threshold");
    assert_eq!(e["session"]["session_id"], sid.as_str());
    assert_eq!(e["context"]["usage_percent"], 0.74);
    assert!(e["handoff_path"].is_null());
    let a = &payloads(&at_log)[0];
    let handoff = a["handoff_path"]
        .as_str()
        .expect("the handoff of this crossing");
    assert!(std::path::Path::new(handoff).is_file(), "{handoff}");
    // More ticks above: no second run.
    statusline(&p, 76);
    statusline(&p, 80);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(payloads(&early_log).len(), 1);
    assert_eq!(payloads(&at_log).len(), 1);
    // Well below (a compaction), then above again: a new crossing, a new run.
    statusline(&p, 30);
    statusline(&p, 60);
    wait_until("the early hook again", || payloads(&early_log).len() == 2);
    let o = outcomes(&p, "on_threshold");
    assert!(
        o.iter().filter(|o| o["kind"] == "user_hook_ran").count() >= 3,
        "{o:?}"
    );
    let _ = S74;
}

#[test]
fn replace_handoff_lets_the_users_command_take_its_place() {
    let p = TestProject::new();
    let (cmd, log) = recorder(&p, "replace.jsonl", "");
    user_config(
        &p,
        &format!("[[on_threshold]]\ncommand = \"{cmd}\"\nreplace_handoff = true\n"),
    );
    statusline(&p, 74);
    wait_until("the hook", || payloads(&log).len() == 1);
    assert!(payloads(&log)[0]["handoff_path"].is_null());
    std::thread::sleep(Duration::from_millis(300));
    let handoffs = std::fs::read_dir(p.forge_dir().join("handoffs"))
        .map(|r| r.count())
        .unwrap_or(0);
    assert_eq!(handoffs, 0, "forge's own handoff was replaced");
    let o = outcomes(&p, "on_threshold");
    assert!(
        o.iter().any(|o| o["kind"] == "handoff_skipped"
            && o["why"].as_str().unwrap().contains("replace_handoff")),
        "{o:?}"
    );
}

// ----- [notify]: wake messages --------------------------------------------------------

/// A fake orchestrator program: appends its last argument (or stdin) to `log`, a
/// line of `---` after each, then prints `reply`.
fn orchestrator(p: &TestProject, reply: &str, sleep: u32) -> (PathBuf, PathBuf) {
    let script = p.dir.path().join("orch.sh");
    let log = p.dir.path().join("orch.log");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor last; do :; done\nif [ \"$1\" = --stdin ]; then cat >> '{log}'; else printf '%s' \"$last\" >> '{log}'; fi\n\
             printf '\\n---\\n' >> '{log}'\nsleep {sleep}\nprintf '%s' '{reply}'\n",
            log = log.display()
        ),
    )
    .unwrap();
    (script, log)
}

fn hook_out(p: &TestProject, event: &str, payload: String) -> String {
    let out = p
        .forge()
        .args(["hook", event])
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{event}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn async_wake_messages_go_to_the_orchestrator_for_the_chosen_events() {
    let p = TestProject::new();
    let (script, log) = orchestrator(&p, "", 0);
    user_config(
        &p,
        &format!(
            "[notify]\ncommand = [\"sh\", \"{}\", \"agent\", \"--message\"]\nevents = [\"idle\", \"session_end\"]\n",
            script.display()
        ),
    );
    // Not in `events`: nothing.
    hook_out(&p, "Stop", p.payload("hooks/Stop.json"));
    hook_out(
        &p,
        "Notification",
        p.payload("hooks/Notification-idle.json"),
    );
    wait_until("the idle message", || wake_messages(&log).len() == 1);
    let m = &wake_messages(&log)[0];
    for want in [
        "[SESSION]\n",
        "session_id: 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21\n",
        "trigger: idle_prompt\nstate: idle\n",
        "[CONTEXT PRESSURE]\ncontext: unknown\n",
        "[AVAILABLE ACTIONS]\n",
    ] {
        assert!(m.contains(want), "{want:?} in {m}");
    }
    assert!(!m.contains("[PANE CONTENT]"), "not inside tmux: {m}");
    hook_out(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    wait_until("the end message", || wake_messages(&log).len() == 2);
    assert!(wake_messages(&log)[1].contains("trigger: session_end"));
    let o = outcomes(&p, "SessionEnd");
    assert!(
        o.iter().any(|o| o["kind"] == "notified"
            && o["event"] == "session_end"
            && o["mode"] == "async"),
        "{o:?}"
    );
}

#[test]
fn a_bidirectional_reply_keeps_the_session_working_once() {
    let p = TestProject::new();
    let (script, log) = orchestrator(
        &p,
        r#"{"decision":"block","reason":"also run the integration tests"}"#,
        0,
    );
    user_config(
        &p,
        &format!(
            "[notify]\ncommand = [\"sh\", \"{}\", \"--stdin\"]\nstdin = true\nmode = \"bidirectional\"\nevents = [\"stop\"]\n",
            script.display()
        ),
    );
    let out = hook_out(&p, "Stop", p.payload("hooks/Stop.json"));
    let v: Value = serde_json::from_str(out.trim()).expect(&out);
    assert_eq!(v["decision"], "block");
    assert_eq!(v["reason"], "also run the integration tests");
    let m = &wake_messages(&log)[0];
    assert!(
        m.contains("trigger: response_complete") && m.contains("reply {\"decision\":\"block\""),
        "{m}"
    );
    // The turn that continues because of it is never blocked again by the orchestrator.
    let again = p
        .payload("hooks/Stop.json")
        .replace("\"stop_hook_active\": false", "\"stop_hook_active\": true");
    assert!(again.contains("\"stop_hook_active\": true"), "{again}");
    let out = hook_out(&p, "Stop", again);
    assert!(!out.contains("\"decision\""), "{out}");
}

#[test]
fn a_slow_or_silent_orchestrator_is_a_no_op() {
    let p = TestProject::new();
    let (script, _log) = orchestrator(&p, "keep going", 5);
    user_config(
        &p,
        &format!(
            "[notify]\ncommand = [\"sh\", \"{}\"]\nmode = \"bidirectional\"\ntimeout_secs = 1\n",
            script.display()
        ),
    );
    let started = Instant::now();
    let out = hook_out(&p, "Stop", p.payload("hooks/Stop.json"));
    assert!(started.elapsed() < Duration::from_secs(4));
    assert!(!out.contains("\"decision\""), "{out}");
    let o = outcomes(&p, "Stop");
    assert!(
        o.iter()
            .any(|o| o["kind"] == "user_hook_failed" && o["hook"] == "notify"),
        "{o:?}"
    );
    // A project's config may not set the command.
    p.write(
        ".forge/config.toml",
        "[notify]\ncommand = [\"touch\", \"x\"]\n",
    );
    let out = p.forge().args(["config", "validate"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("`notify.command` runs commands"));
}

#[test]
fn wake_messages_state_the_context_as_the_transcript_has_it_and_no_typing_into_an_ended_session() {
    let p = TestProject::new();
    let (script, log) = orchestrator(&p, "", 0);
    user_config(
        &p,
        &format!(
            "[notify]\ncommand = [\"sh\", \"{}\", \"--message\"]\n\
             events = [\"stop\", \"session_end\", \"pre_compact\", \"session_start\"]\n",
            script.display()
        ),
    );
    let payload = p.payload("hooks/Stop.json");
    let v: Value = serde_json::from_str(&payload).unwrap();
    let transcript = PathBuf::from(v["transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let usage = |tokens: u64| {
        format!(
            "{{\"type\":\"assistant\",\"isSidechain\":false,\"message\":{{\"model\":\"claude-sonnet-4-6\",\"id\":\"msg_{tokens}\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"x\"}}],\"usage\":{{\"input_tokens\":3,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":{},\"output_tokens\":5}}}}}}\n",
            tokens - 3
        )
    };
    let mut text = usage(176_000);
    std::fs::write(&transcript, &text).unwrap();
    let last = |n: usize| {
        wait_until("the message", || wake_messages(&log).len() >= n);
        wake_messages(&log)[n - 1].clone()
    };
    // The first Stop: no status-line reading yet, the turn's usage is in the
    // transcript.
    hook_out(&p, "Stop", payload.clone());
    let m = last(1);
    assert!(m.contains("context: 88% [CRITICAL]\n"), "{m}");
    // PreCompact: the figure that led to it, said as such.
    hook_out(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    let m = last(2);
    assert!(
        m.contains("context: 88% [CRITICAL] (before the compaction)\n"),
        "{m}"
    );
    // SessionStart after the compaction: the client has not written its record yet,
    // so there is no figure — not the old 88 %.
    hook_out(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    let m = last(3);
    assert!(
        m.contains("context: unknown (just compacted: the next reply tells)\n"),
        "{m}"
    );
    // Then the boundary: the compaction's estimate, while the bridge still holds 88.
    text.push_str(
        "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"isSidechain\":false,\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":176000,\"postTokens\":12000}}\n",
    );
    std::fs::write(&transcript, &text).unwrap();
    hook_out(&p, "Stop", payload.clone());
    let m = last(4);
    assert!(
        m.contains("context: ~6% [OK] (estimate after the compaction)\n"),
        "{m}"
    );
    // The next reply's usage.
    text.push_str(&usage(60_000));
    std::fs::write(&transcript, &text).unwrap();
    hook_out(&p, "Stop", payload);
    let m = last(5);
    assert!(m.contains("context: 30% [OK]\n"), "{m}");
    // The end: `state: ended`, and nothing to type into.
    hook_out(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    let m = last(6);
    assert!(m.contains("state: ended\n"), "{m}");
    assert!(!m.contains("/compact") && !m.contains("send-keys"), "{m}");
    // A headless session (claude -p) gets no typing advice either.
    let out = p
        .forge()
        .args(["hook", "Stop"])
        .env("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")
        .write_stdin(p.payload("hooks/Stop.json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let m = last(7);
    assert!(m.contains("headless") && !m.contains("/compact"), "{m}");
}
