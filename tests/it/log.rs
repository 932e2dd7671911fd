//! Process tests for `forge log`: what forge did, read back from the event log, in
//! words or as JSON, filtered by session and time, and followed as it grows.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{TestProject, ok_stdout};
use serde_json::{Value, json};

const A: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";
const B: &str = "3f0d7b10-0000-4000-8000-000000000002";

/// Runs `forge hook <event>` for session `sid` with `extra` in the payload.
fn hook(p: &TestProject, event: &str, sid: &str, extra: Value) {
    let mut payload = json!({"session_id": sid, "cwd": p.root, "hook_event_name": event});
    payload
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    p.forge()
        .args(["hook", event])
        .write_stdin(payload.to_string())
        .assert()
        .success();
}

fn log(p: &TestProject, args: &[&str]) -> std::process::Output {
    p.forge()
        .arg("log")
        .args(args)
        .env("TZ", "UTC")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn log_says_what_each_call_did_in_words_or_json() {
    let p = TestProject::new();
    // The session started on a clean tree (recorded in its bridge: a dirty-tree
    // warning is for what it adds).
    std::fs::create_dir_all(p.forge_dir().join("logs/sessions")).unwrap();
    p.write(
        &format!(".forge/logs/sessions/{A}.json"),
        &json!({"session_id": A, "dirty_at_start": 0}).to_string(),
    );
    hook(&p, "UserPromptSubmit", A, json!({}));
    hook(
        &p,
        "PreToolUse",
        A,
        json!({"tool_name": "Write", "tool_input": {"file_path": p.root.join("notes.txt")}}),
    );
    p.write("notes.txt", "dirty\n");
    hook(&p, "Stop", A, json!({}));
    hook(&p, "PreToolUse", B, json!({"tool_name": "Bash"}));
    // A tool name holding a terminal escape: data, never a command to the terminal.
    hook(
        &p,
        "PreToolUse",
        B,
        json!({"tool_name": "\u{1b}]0;pwned\u{7}Evil"}),
    );

    let out = ok_stdout(p.forge().arg("log").env("TZ", "UTC"));
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 7, "{out}");
    // Time (local: TZ=UTC here), short session, event, what happened.
    let today = chrono::Utc::now().format("%m-%d").to_string();
    assert!(rows[0].starts_with(&today), "{out}");
    assert!(
        rows[0].ends_with("3f0c2a9e  UserPromptSubmit     session is busy"),
        "{out}"
    );
    assert!(
        rows[1].contains("3f0c2a9e  PreToolUse Write     let the tool run"),
        "{out}"
    );
    assert!(
        rows[2].contains("Stop")
            && rows[2].contains("recorded the turn: branch main, 1 uncommitted")
    );
    assert!(rows[3].contains("set learn-pending"), "{out}");
    assert!(
        rows[4].contains("warned: forge: 1 uncommitted change on branch main"),
        "{out}"
    );
    assert!(
        rows[5].contains("3f0d7b10  PreToolUse Bash      let the tool run"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");

    // --json: the lines as they are in the file (one object a line).
    let json_out = text(&log(&p, &["--json"]).stdout);
    let file = p.read(".forge/logs/events.jsonl");
    let parsed = |s: &str| -> Vec<Value> {
        s.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    assert_eq!(parsed(&json_out), parsed(&file));
    assert!(
        !json_out.contains('\u{1b}'),
        "escaped, not raw: {json_out:?}"
    );

    // --session takes a unique start of an id; an ambiguous one lists the candidates.
    let only_b = text(&log(&p, &["--session", "3f0d"]).stdout);
    assert_eq!(only_b.lines().count(), 2, "{only_b}");
    assert!(only_b.lines().all(|l| l.contains("3f0d7b10")));
    let amb = log(&p, &["--session", "3f0"]);
    assert_eq!(amb.status.code(), Some(1));
    let err = text(&amb.stderr);
    assert!(
        err.contains("matches 2 sessions") && err.contains(A) && err.contains(B),
        "{err}"
    );
    let none = log(&p, &["--session", "ffff"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(text(&none.stderr).contains("no session starting with \"ffff\""));

    // --since: a duration or a time; nothing after a time in the future.
    assert_eq!(text(&log(&p, &["--since", "1h"]).stdout), out);
    let future = log(&p, &["--since", "2999-01-01T00:00:00Z"]);
    assert_eq!(future.status.code(), Some(0));
    assert!(future.stdout.is_empty());
    assert!(text(&future.stderr).contains("no events match"));
    last_n(&p, &only_b, &file);
    let bad = log(&p, &["--since", "yesterday"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("30s, 10m, 1h, 2d"),
        "{}",
        text(&bad.stderr)
    );
}

/// -n N: the last N calls (B's two), composed with the other filters; -n 0 none.
fn last_n(p: &TestProject, only_b: &str, file: &str) {
    let parsed = |s: &str| -> Vec<Value> {
        s.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let last2 = text(&log(p, &["-n", "2"]).stdout);
    assert_eq!(last2, only_b, "{last2}");
    let last_a = text(&log(p, &["-n", "1", "--session", "3f0c"]).stdout);
    assert!(
        last_a.contains("Stop") && !last_a.contains("UserPromptSubmit"),
        "{last_a}"
    );
    let last_json = text(&log(p, &["--lines", "1", "--json"]).stdout);
    assert_eq!(parsed(&last_json), parsed(file)[parsed(file).len() - 1..]);
    assert!(log(p, &["-n", "0"]).stdout.is_empty());
}

#[test]
fn log_reads_the_rotated_file_and_says_when_there_is_nothing() {
    let p = TestProject::new();
    let empty = log(&p, &[]);
    assert_eq!(empty.status.code(), Some(0));
    assert!(empty.stdout.is_empty());
    assert!(
        text(&empty.stderr).contains("no events yet"),
        "{}",
        text(&empty.stderr)
    );
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let old = json!({"time": "2026-11-21T09:00:00Z", "event": "SessionEnd", "session": A,
        "facts": {"reason": "clear"}});
    // A line from a forge before outcomes, and one from a newer forge.
    let newer = json!({"time": "2026-11-21T10:00:00Z", "event": "Stop", "session": A,
        "outcomes": [{"kind": "teleported"}, {"kind": "flag_set", "flag": "learn-pending"}]});
    p.write(".forge/logs/events.jsonl.1", &format!("{old}\nnot json\n"));
    p.write(".forge/logs/events.jsonl", &format!("{newer}\n"));
    let out = text(&log(&p, &[]).stdout);
    assert_eq!(
        out,
        "11-21 09:00:00  3f0c2a9e  SessionEnd clear     nothing to do\n\
         11-21 10:00:00  3f0c2a9e  Stop                 (an outcome this forge version does not know)\n\
         11-21 10:00:00  3f0c2a9e  Stop                 set learn-pending\n"
    );
}

/// `forge log -f` with its stdout piped; lines arrive on the channel.
fn follow(p: &TestProject) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_forge"))
        .args(["log", "-f"])
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", &p.xdg)
        .env_remove("XDG_STATE_HOME")
        .env("TZ", "UTC")
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// Waits (at most 10 s) for `child` to end; its exit code.
fn wait_exit(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("forge log -f did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn log_follow_prints_new_lines_and_ends_cleanly_on_ctrl_c() {
    let p = TestProject::new();
    hook(&p, "UserPromptSubmit", A, json!({}));
    let (mut child, rx) = follow(&p);
    let first = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(first.contains("session is busy"), "{first}");
    // A hook writes while it follows: the new line arrives.
    hook(&p, "PermissionRequest", A, json!({"tool_name": "Bash"}));
    let next = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(
        next.contains("PermissionRequest") && next.contains("waiting:permission"),
        "{next}"
    );
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        wait_exit(&mut child),
        Some(0),
        "Ctrl-C ends it with status 0"
    );
}

#[test]
fn log_follow_ends_when_nobody_reads() {
    let p = TestProject::new();
    hook(&p, "UserPromptSubmit", A, json!({}));
    let mut child = Command::new(env!("CARGO_BIN_EXE_forge"))
        .args(["log", "-f"])
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", &p.xdg)
        .env_remove("XDG_STATE_HOME")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // It is following once the history is out; then the reader goes away (as
    // `head -1` does) and new lines are written.
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(first.contains("session is busy"), "{first}");
    drop(reader);
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        hook(&p, "UserPromptSubmit", A, json!({}));
        std::thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(
        wait_exit(&mut child),
        Some(0),
        "a closed pipe ends it with status 0"
    );
}
