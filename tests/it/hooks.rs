//! Process tests for `forge hook`: the real binary, a temporary git repo, `HOME` in a
//! temporary folder.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::TestProject;
use serde_json::{Value, json};

const SID: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

fn json_file(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}: {text}", p.display()))
}

fn events(p: &TestProject) -> Vec<Value> {
    std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line {l:?}: {e}")))
        .collect()
}

/// Runs `forge hook <event>` with `stdin`, asserts exit 0, returns stdout.
fn hook(p: &TestProject, event: &str, stdin: impl Into<Vec<u8>>) -> String {
    let out = p
        .forge()
        .args(["hook", event])
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{event}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// What a SessionStart's stdout gives the model and the person: its plain text and
/// no notice, or its JSON's `additionalContext` and `systemMessage`.
fn start_parts(out: &str) -> (String, String) {
    match serde_json::from_str::<Value>(out) {
        Ok(v) if v.is_object() => (
            v["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            v["systemMessage"].as_str().unwrap_or_default().to_owned(),
        ),
        _ => (out.to_owned(), String::new()),
    }
}

/// Writes the session transcript where the fixtures' `transcript_path` points.
fn write_transcript(p: &TestProject, records: &[Value]) -> std::path::PathBuf {
    let v: Value = serde_json::from_str(&p.payload("hooks/Stop.json")).unwrap();
    let path = std::path::PathBuf::from(v["transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// A main-chain assistant record calling `tool` with `input`.
fn tool_call(tool: &str, input: Value) -> Value {
    json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m","role":"assistant",
        "content":[{"type":"tool_use","id":"t","name":tool,"input":input}],
        "usage":{"input_tokens":3,"cache_read_input_tokens":150_000,"output_tokens":9}}})
}

/// A PreToolUse payload for `tool`.
fn pre_tool(p: &TestProject, tool: &str) -> String {
    with(
        &p.payload("hooks/PreToolUse.json"),
        json!({"tool_name": tool}),
    )
}

/// PreCompact, then the SessionStart(compact) that proves the compaction.
fn compact(p: &TestProject) -> String {
    hook(p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    hook(
        p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    )
}

fn with(payload: &str, patch: Value) -> String {
    let mut v: Value = serde_json::from_str(payload).unwrap();
    for (k, val) in patch.as_object().unwrap() {
        v[k] = val.clone();
    }
    v.to_string()
}

// ----- every input exits 0 --------------------------------------------------------

#[test]
fn hostile_inputs_exit_zero_with_no_stdout() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let stop = p.payload("hooks/Stop.json");
    // Several megabytes with no session in the part that is read: a no-op.
    let big = format!("{{\"pad\":\"{}\"}}", "a".repeat(3 * 1024 * 1024));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("whitespace", b"  \n\t ".to_vec()),
        ("garbage", b"\x00\xff not json at all".to_vec()),
        ("truncated", stop.as_bytes()[..stop.len() / 2].to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        ("string", b"\"Stop\"".to_vec()),
        ("wrong types", br#"{"session_id":7,"cwd":["x"],"stop_hook_active":"yes","hook_event_name":"Stop"}"#.to_vec()),
        ("nulls", br#"{"session_id":null,"cwd":null,"transcript_path":null,"hook_event_name":null,"stop_hook_active":null}"#.to_vec()),
        ("multi-megabyte", big.into_bytes()),
    ];
    for event in [
        "Stop",
        "SessionStart",
        "PreToolUse",
        "PreCompact",
        "SessionEnd",
        "Notification",
    ] {
        for (name, input) in &cases {
            let out = p
                .forge()
                .args(["hook", event])
                .write_stdin(input.clone())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{event}/{name}");
            // A bad payload is a logged no-op: nothing on stdout.
            if *name != "wrong types" && *name != "nulls" {
                assert!(
                    out.stdout.is_empty(),
                    "{event}/{name}: {:?}",
                    String::from_utf8_lossy(&out.stdout)
                );
            }
        }
    }
    let errors = p.read(".forge/logs/errors.log");
    assert!(errors.contains("invalid JSON"), "{errors}");
    assert!(errors.contains("empty input"), "{errors}");
}

#[test]
fn command_line_never_fails() {
    let p = TestProject::new();
    let stop = p.payload("hooks/Stop.json");
    for args in [
        vec!["hook"],
        vec!["hook", "NoSuchEvent"],
        vec!["hook", "--unknown-flag"],
        vec!["hook", "Stop", "--unknown-flag", "extra", "args"],
        vec!["hook", "-x"],
        vec!["hook", "--help-me"],
    ] {
        let out = p
            .forge()
            .args(&args)
            .write_stdin(stop.clone())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A clean tree: Stop prints nothing, and nothing else may reach stdout.
        assert!(
            out.stdout.is_empty(),
            "{args:?}: {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    // An argument that is not UTF-8 must not panic (exit 101) either.
    let out = p
        .forge()
        .arg("hook")
        .arg(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"\xff\xfe"))
        .write_stdin(stop.clone())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // --help still helps (exit 0), it is not an error.
    let out = p.forge().args(["hook", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: forge hook"));
    // With no argument, the event comes from hook_event_name: Stop ran.
    assert!(p.forge_dir().join("logs/last-session.json").exists());
    let names: Vec<String> = events(&p)
        .iter()
        .map(|e| e["event"].as_str().unwrap().to_owned())
        .collect();
    assert!(names.contains(&"NoSuchEvent".to_owned()), "{names:?}");
}

#[test]
fn terminal_stdin_is_not_waited_for() {
    let p = TestProject::new();
    let bin = crate::common::forge_bin();
    // `script` gives the child a terminal on stdin; we keep our end open and never
    // type, so a hook that read the terminal would hang until the timeout.
    let mut child = Command::new("script")
        .args([
            "-qefc",
            &format!("{} hook Stop", bin.display()),
            "/dev/null",
        ])
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1) from util-linux");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("forge hook waited on a terminal stdin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn no_git_repo_and_missing_forge_still_work() {
    let p = TestProject::bare_folder();
    assert!(!p.forge_dir().exists());
    assert_eq!(hook(&p, "Stop", p.payload("hooks/Stop.json")), "");
    let last = json_file(&p.forge_dir().join("logs/last-session.json"));
    assert_eq!(last["branch"], Value::Null);
    assert_eq!(last["uncommitted_changes"], 0);
    // A fresh .forge/ ignores itself, so it never shows up in git status — but for
    // the project's config.toml, which a team may commit (issue 31).
    let lines: Vec<String> = p
        .read(".forge/.gitignore")
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(lines[1..], ["*", "!config.toml"]);
}

#[test]
fn payload_cwd_that_does_not_exist_writes_nothing() {
    let p = TestProject::new();
    let payload = with(
        &p.payload("hooks/Stop.json"),
        json!({"cwd": "/no/such/folder"}),
    );
    assert_eq!(hook(&p, "Stop", payload.clone()), "");
    assert!(!p.forge_dir().exists(), "state went to the process cwd");
    // With CLAUDE_PROJECT_DIR, Claude Code has said where the project is.
    let out = p
        .forge()
        .args(["hook", "Stop"])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .current_dir(p.dir.path())
        .write_stdin(payload)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(p.forge_dir().join("logs/last-session.json").exists());
}

#[test]
fn a_deleted_project_writes_nothing_anywhere() {
    // The project was removed under a running client, which then starts its hooks
    // (and status line) in another folder: CLAUDE_PROJECT_DIR and the payload's cwd
    // both name the missing folder.
    let p = TestProject::new();
    let gone = p.dir.path().join("gone");
    let elsewhere = p.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let payload = with(
        &p.payload("hooks/SessionEnd.json"),
        json!({"cwd": gone.display().to_string()}),
    );
    let status = json!({"session_id": SID, "cwd": gone.display().to_string(),
        "context_window": {"used_percentage": 80, "context_window_size": 200_000}})
    .to_string();
    for (args, stdin) in [
        (vec!["hook", "SessionEnd"], payload),
        (vec!["statusline"], status),
    ] {
        let out = p
            .forge()
            .args(&args)
            .env("CLAUDE_PROJECT_DIR", &gone)
            .current_dir(&elsewhere)
            .write_stdin(stdin)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
    assert!(
        !elsewhere.join(".forge").exists(),
        "state went to the process cwd"
    );
    assert!(!gone.exists());
}

#[test]
fn home_folder_is_not_a_project() {
    let p = TestProject::new();
    let payload = with(
        &p.payload("hooks/Stop.json"),
        json!({"cwd": p.home.display().to_string()}),
    );
    let out = p
        .forge()
        .args(["hook", "Stop"])
        .current_dir(&p.home)
        .write_stdin(payload)
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.is_empty());
    assert!(!p.home.join(".forge").exists(), "state written into HOME");
}

#[test]
fn unwritable_forge_is_a_silent_no_op() {
    let p = TestProject::new();
    // `.forge` is a file: nothing can be created under it (works even as root, where
    // permission bits do not stop writes).
    std::fs::write(p.forge_dir(), "not a folder").unwrap();
    for (event, fixture) in [
        ("Stop", "hooks/Stop.json"),
        ("PreCompact", "hooks/PreCompact-auto.json"),
        ("SessionStart", "hooks/SessionStart-startup.json"),
    ] {
        assert_eq!(hook(&p, event, p.payload(fixture)), "", "{event}");
    }
    assert_eq!(
        std::fs::read_to_string(p.forge_dir()).unwrap(),
        "not a folder"
    );

    // And a read-only .forge/logs (meaningful when not running as root).
    let q = TestProject::new();
    let logs = q.forge_dir().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(q.forge_dir().join("handoffs")).unwrap();
    let mut perm = std::fs::metadata(&logs).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o555);
    std::fs::set_permissions(&logs, perm.clone()).unwrap();
    assert_eq!(hook(&q, "Stop", q.payload("hooks/Stop.json")), "");
    assert_eq!(
        hook(&q, "PreToolUse", q.payload("hooks/PreToolUse.json")),
        ""
    );
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&logs, perm).unwrap();
}

// ----- per-event behaviour --------------------------------------------------------

#[test]
fn stop_and_session_end_record_the_session() {
    let p = TestProject::new();
    p.write(
        ".forge/state.json",
        r#"{"phase":"build","build":{"current_task":"T-012"}}"#,
    );
    assert_eq!(hook(&p, "Stop", p.payload("hooks/Stop.json")), "");
    let last = json_file(&p.forge_dir().join("logs/last-session.json"));
    assert_eq!(last["branch"], "main");
    assert_eq!(last["uncommitted_changes"], 0);
    assert_eq!(last["forge_phase"], "build");
    assert_eq!(last["forge_task"], "T-012");
    assert_eq!(last["final"], false);
    assert_eq!(last["session_id"], SID);
    let ended = last["ended_at"].as_str().unwrap();
    assert!(
        chrono::DateTime::parse_from_rfc3339(ended).is_ok() && ended.ends_with('Z'),
        "{ended}"
    );
    // Nothing changed in the turn: nothing to learn.
    assert!(!p.forge_dir().join("logs/learn-pending").exists());

    // Dirty tree: a command of the session makes two changes (one modified, one
    // untracked) → the warning with the count, for the person (systemMessage), once
    // per count.
    hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    p.write("README.md", "changed\n");
    p.write("new.txt", "new\n");
    let out = hook(&p, "Stop", p.payload("hooks/Stop.json"));
    // A command the session ran changed the tree: something to learn.
    assert!(p.forge_dir().join("logs/learn-pending").exists());
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(
        v,
        json!({"systemMessage": "forge: 2 uncommitted changes on branch main — commit them or note them in a handoff."})
    );
    assert_eq!(
        hook(&p, "Stop", p.payload("hooks/Stop.json")),
        "",
        "same count"
    );
    p.write("third.txt", "3\n");
    assert!(hook(&p, "Stop", p.payload("hooks/Stop.json")).contains("3 uncommitted changes"));
    std::fs::remove_file(p.root.join("third.txt")).unwrap();
    // SessionEnd's output reaches nobody: it only records.
    let out = hook(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    assert_eq!(out, "");
    let last = json_file(&p.forge_dir().join("logs/last-session.json"));
    assert_eq!(last["final"], true);
    assert_eq!(last["reason"], "prompt_input_exit");
    assert_eq!(last["uncommitted_changes"], 2);
    let bridge = json_file(&p.forge_dir().join(format!("logs/sessions/{SID}.json")));
    assert_eq!(bridge["attention"], "ended");
}

/// The dirty-tree warning Stop prints now, if any.
fn stop_warning(p: &TestProject) -> Option<String> {
    let out = hook(p, "Stop", p.payload("hooks/Stop.json"));
    let v: Value = serde_json::from_str(out.trim()).ok()?;
    v["systemMessage"].as_str().map(str::to_owned)
}

#[test]
fn the_dirty_tree_warning_comes_when_the_session_adds_changes_not_for_a_tree_already_dirty() {
    let p = TestProject::new();
    // The tree is dirty before the session starts (forge init's own edits, work
    // left from before).
    p.write(".gitignore", ".forge/\n");
    p.write("README.md", "edited by init\n");
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    let bridge = json_file(&p.forge_dir().join(format!("logs/sessions/{SID}.json")));
    assert_eq!(bridge["dirty_at_start"], 2);
    // A turn that changed nothing: no warning, however dirty the tree.
    assert_eq!(stop_warning(&p), None);
    assert_eq!(stop_warning(&p), None);
    // Set: the session adds a file.
    p.write("new.rs", "fn main() {}\n");
    assert_eq!(
        stop_warning(&p).as_deref(),
        Some(
            "forge: 3 uncommitted changes on branch main — commit them or note them in a handoff."
        )
    );
    // The same count again: said once.
    assert_eq!(stop_warning(&p), None);
    // Clear: a commit brings the count down, and nothing is said; new changes from
    // there warn again.
    common::git(&p.root, &["add", "-A"]);
    common::git(&p.root, &["commit", "-qm", "work"]);
    assert_eq!(stop_warning(&p), None);
    p.write("next.rs", "\n");
    assert_eq!(
        stop_warning(&p).as_deref(),
        Some("forge: 1 uncommitted change on branch main — commit them or note them in a handoff.")
    );
    // `[hooks] dirty_warning = "off"` (a display key: a project file may set it).
    p.write(".forge/config.toml", "[hooks]\ndirty_warning = \"off\"\n");
    p.write("more.rs", "\n");
    assert_eq!(stop_warning(&p), None);
    // `changed`: whenever the count differs from the last one (the old rule).
    p.write(
        ".forge/config.toml",
        "[hooks]\ndirty_warning = \"changed\"\n",
    );
    assert_eq!(
        stop_warning(&p).as_deref(),
        Some(
            "forge: 2 uncommitted changes on branch main — commit them or note them in a handoff."
        )
    );
    assert_eq!(stop_warning(&p), None);
    std::fs::remove_file(p.root.join("more.rs")).unwrap();
    assert_eq!(
        stop_warning(&p).as_deref(),
        Some("forge: 1 uncommitted change on branch main — commit them or note them in a handoff.")
    );
}

#[test]
fn the_learn_flag_is_set_by_what_the_session_changed_not_by_another_terminal() {
    let p = TestProject::new();
    let flag = p.forge_dir().join("logs/learn-pending");
    let stop = |p: &TestProject| hook(p, "Stop", p.payload("hooks/Stop.json"));
    let learned = |p: &TestProject| {
        p.forge().args(["learn", "done"]).assert().success();
    };
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    // Another terminal commits while the session answers a question: not the
    // session's change.
    p.write("theirs.txt", "theirs\n");
    common::git(&p.root, &["add", "-A"]);
    common::git(&p.root, &["commit", "-qm", "from another terminal"]);
    stop(&p);
    assert!(!flag.exists(), "another terminal's commit set the flag");
    // Between turns another commit lands; the next turn runs a command that changes
    // nothing (a test run): still not the session's change.
    p.write("theirs2.txt", "theirs\n");
    common::git(&p.root, &["add", "-A"]);
    common::git(&p.root, &["commit", "-qm", "again from another terminal"]);
    hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    stop(&p);
    assert!(
        !flag.exists(),
        "a command that changed nothing set the flag"
    );
    // An Edit of the session sets it.
    hook(
        &p,
        "PreToolUse",
        with(
            &pre_tool(&p, "Edit"),
            json!({"tool_input": {"file_path": p.root.join("README.md")}}),
        ),
    );
    stop(&p);
    assert!(flag.exists(), "an Edit did not set the flag");
    learned(&p);
    assert!(!flag.exists());
    stop(&p);
    assert!(
        !flag.exists(),
        "learning is done: the edit is not asked for again"
    );
    // A command of the session that creates a file (touch) sets it.
    hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    p.write("touched.txt", "");
    stop(&p);
    assert!(flag.exists(), "a Bash touch did not set the flag");
    learned(&p);
    // A command of the session that commits (the file it touched) sets it.
    hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    common::git(&p.root, &["add", "-A"]);
    common::git(&p.root, &["commit", "-qm", "by the session"]);
    stop(&p);
    assert!(flag.exists(), "a Bash git commit did not set the flag");
    let set = events(&p)
        .into_iter()
        .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
        .filter(|o| o["kind"] == "flag_set")
        .map(|o| o["why"].as_str().unwrap_or_default().to_owned())
        .collect::<Vec<_>>();
    assert_eq!(set.len(), 3, "{set:?}");
    assert!(set[0].starts_with("the session edited files"), "{set:?}");
    assert!(
        set[1..]
            .iter()
            .all(|w| w.starts_with("a command the session ran changed the work tree")),
        "{set:?}"
    );
}

/// A command the person refuses at the client's permission prompt never ran: when
/// another terminal commits while that session's turn ends (Stop, or SessionEnd as
/// it exits), the change is not the session's and sets no learn flag. A turn with
/// one refused and one run command still counts. The refusal is the record the
/// client writes (from a real 2.1.38 transcript, `tests/fixtures/real-transcripts/short.jsonl`).
#[test]
fn a_command_the_person_refused_is_no_change_of_the_sessions() {
    let p = TestProject::new();
    let flag = p.forge_dir().join("logs/learn-pending");
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    let bash = |id: &str| with(&pre_tool(&p, "Bash"), json!({"tool_use_id": id}));
    let refused = |id: &str| {
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result",
            "content":"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
            "is_error":true,"tool_use_id":id}]},"toolUseResult":"User rejected tool use"})
    };
    let ran = |id: &str| {
        json!({"type":"user","message":{"role":"user","content":[{"tool_use_id":id,"type":"tool_result",
            "content":"done","is_error":false}]},"toolUseResult":{"stdout":"done","stderr":"","interrupted":false}})
    };
    let commit_elsewhere = |name: &str| {
        p.write(name, "theirs\n");
        common::git(&p.root, &["add", "-A"]);
        common::git(&p.root, &["commit", "-qm", "from another terminal"]);
    };
    // The session asks to run a command; the person refuses it; another terminal
    // commits; the session exits.
    hook(&p, "PreToolUse", bash("toolu_01refused"));
    write_transcript(
        &p,
        &[
            tool_call("Bash", json!({"command": "make"})),
            refused("toolu_01refused"),
        ],
    );
    commit_elsewhere("theirs.txt");
    hook(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    assert!(
        !flag.exists(),
        "a refused command's turn took another terminal's commit"
    );
    // The same at Stop.
    hook(&p, "PreToolUse", bash("toolu_02refused"));
    write_transcript(&p, &[refused("toolu_02refused")]);
    commit_elsewhere("theirs2.txt");
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    assert!(
        !flag.exists(),
        "a refused command's turn took another terminal's commit"
    );
    // One refused, one that ran: the change counts as the session's.
    hook(&p, "PreToolUse", bash("toolu_03refused"));
    hook(&p, "PreToolUse", bash("toolu_04ran"));
    write_transcript(&p, &[refused("toolu_03refused"), ran("toolu_04ran")]);
    commit_elsewhere("theirs3.txt");
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    assert!(flag.exists(), "a command that ran did not count");
}

#[test]
fn without_a_status_line_reading_the_context_comes_from_the_transcript() {
    // Print mode (`claude -p`) never runs the status line (docs/client-reference.md §9.1 #11).
    let p = TestProject::new();
    write_transcript(&p, &[tool_call("Read", json!({"file_path": "/x"}))]);
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    let last = json_file(&p.forge_dir().join("logs/last-session.json"));
    assert_eq!(last["context_used_pct"], 75.0, "150,003 of 200,000");
    // The bridge keeps that figure, so every command reports the same one.
    let bridge = p.forge_dir().join(format!("logs/sessions/{SID}.json"));
    let b = json_file(&bridge);
    assert_eq!(b["used_percentage"], 75.0);
    assert_eq!(b["tokens"], 150_003);
    let status: Value =
        serde_json::from_str(&common::ok_stdout(p.forge().args(["status", "--json"]))).unwrap();
    assert_eq!(status["current_session"]["used_percentage"], 75);
    let ctx: Value = serde_json::from_str(&common::ok_stdout(p.forge().args([
        "context",
        "--json",
        "--session",
        &SID[..6],
    ])))
    .unwrap();
    assert_eq!(ctx["used_percentage"], 75);
    assert_eq!(ctx["tokens"], 150_003);
    // A status line reading wins.
    let mut b = json_file(&bridge);
    b["used_percentage"] = json!(41.0);
    b["readings"] = json!([{"at": "2026-11-25T10:00:00Z", "tokens": 82_000, "pct": 41.0}]);
    std::fs::write(&bridge, b.to_string()).unwrap();
    hook(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    let last = json_file(&p.forge_dir().join("logs/last-session.json"));
    assert_eq!(last["context_used_pct"], 41.0);
    assert_eq!(
        json_file(&bridge)["used_percentage"],
        41.0,
        "the reading stays"
    );
}

#[test]
fn pre_compact_captures_state_silently_and_claims_nothing() {
    let p = TestProject::new();
    p.write("src/lib.rs", "// new\n");
    assert!(!p.forge_dir().exists());
    assert_eq!(
        hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json")),
        ""
    );
    let state = json_file(&p.forge_dir().join("logs/pre-compact-state.json"));
    assert_eq!(state["branch"], "main");
    assert_eq!(state["uncommitted_changes"], 1);
    assert_eq!(state["recent_files"], json!(["src/"]));
    assert_eq!(state["trigger"], "auto");
    assert!(state["captured_at"].as_str().unwrap().ends_with('Z'));
    // The client may abandon the compaction and fire PreCompact again (or the person
    // cancels it): PreCompact alone counts nothing and arms nothing.
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    assert!(!p.forge_dir().join("logs/compactions.jsonl").exists());
    let marker = p.forge_dir().join(format!("logs/sessions/{SID}.compacted"));
    assert!(!marker.exists());
    assert_eq!(hook(&p, "PreToolUse", pre_tool(&p, "Bash")), "");
    let stop = hook(&p, "Stop", p.payload("hooks/Stop.json"));
    assert!(!stop.contains("decision"), "{stop}");
    // The proof: SessionStart(compact). One line per compaction, with the trigger.
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    let lines = p.read(".forge/logs/compactions.jsonl");
    assert_eq!(lines.lines().count(), 1);
    let line: Value = serde_json::from_str(lines.trim()).unwrap();
    assert_eq!(line["session_id"], SID);
    assert_eq!(line["trigger"], "auto");
    // The latest capture's time (the second PreCompact may fall in a later second).
    let latest = json_file(&p.forge_dir().join("logs/pre-compact-state.json"));
    assert_eq!(line["captured_at"], latest["captured_at"]);
    assert!(marker.exists());
}

#[test]
fn first_non_read_tool_after_compaction_is_denied_once_with_the_transcripts_files() {
    let p = TestProject::new();
    let root = p.root.display().to_string();
    p.write("src/db.rs", "// edited\n");
    p.write("src/pool.rs", "// edited later\n");
    p.write("SPEC.md", "# spec\n");
    p.write("docs/api.md", "# api\n");
    p.write("dirty-but-unrelated.txt", "x\n");
    p.write(".forge/state.json", r#"{"phase":"build"}"#);
    write_transcript(
        &p,
        &[
            tool_call("Read", json!({"file_path": format!("{root}/docs/api.md")})),
            tool_call("Edit", json!({"file_path": format!("{root}/src/db.rs")})),
            tool_call("Read", json!({"file_path": format!("{root}/SPEC.md")})),
            tool_call(
                "Grep",
                json!({"pattern": "fn", "path": format!("{root}/src")}),
            ),
            tool_call("Write", json!({"file_path": format!("{root}/src/pool.rs")})),
            tool_call("Read", json!({"file_path": "/no/such/file.rs"})),
        ],
    );
    compact(&p);
    // Reading is what a compacted session should do: never held back.
    for tool in ["Read", "Grep", "Glob", "LS", "NotebookRead"] {
        assert_eq!(hook(&p, "PreToolUse", pre_tool(&p, tool)), "", "{tool}");
    }
    let first = hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    let v: Value = serde_json::from_str(first.trim()).expect("JSON only on stdout");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    // Shown after the client's "PreToolUse:Bash hook error: " prefix. The session's
    // handoff (PreCompact's safety net); edited files, newest first, then files read,
    // newest first, never a folder or a missing file; nothing the transcript does not
    // show the session used (git's dirty names, the workflow state).
    let handoff = std::fs::read_dir(p.forge_dir().join("handoffs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .next()
        .unwrap();
    assert_eq!(
        reason,
        format!(
            "forge held this call back once because the context was just compacted. \
             Re-read .forge/handoffs/{handoff}, src/pool.rs, src/db.rs, SPEC.md, docs/api.md \
             first (reading is never held back), then make the call again."
        )
    );
    // The retry passes.
    assert_eq!(hook(&p, "PreToolUse", pre_tool(&p, "Bash")), "");
    // Another session is not affected by this session's marker.
    compact(&p);
    let other = with(
        &pre_tool(&p, "Write"),
        json!({"session_id": "other-session"}),
    );
    assert_eq!(hook(&p, "PreToolUse", other), "");
}

#[test]
fn a_session_that_touched_no_file_is_told_of_its_handoff_alone_never_gits_names() {
    let p = TestProject::new();
    // The tree is dirty, but not by this session (forge init's .gitignore edit,
    // another terminal's work); its transcript names no file.
    p.write(".gitignore", ".forge/\n");
    p.write("src/db.rs", "// changed\n");
    p.write(".forge/state.json", r#"{"phase":"build"}"#);
    write_transcript(&p, &[]);
    let start = start_parts(&compact(&p)).0;
    let handoff = std::fs::read_dir(p.forge_dir().join("handoffs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .next()
        .unwrap();
    assert!(
        start.contains(&format!(
            "Context was compacted. Re-read before continuing: .forge/handoffs/{handoff}.\n"
        )),
        "{start}"
    );
    let out = hook(&p, "PreToolUse", pre_tool(&p, "Edit"));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains(&format!("Re-read .forge/handoffs/{handoff} first")),
        "{reason}"
    );
    for name in [".gitignore", "src/", "db.rs", "state.json"] {
        assert!(!reason.contains(name), "{name}: {reason}");
    }
    // No handoff either (the safety net is off): nothing to re-read, so nothing is
    // armed and nothing is said.
    let q = TestProject::new();
    q.write("src/db.rs", "// changed\n");
    q.write(
        ".forge/config.toml",
        "[hooks]\nhandoff_on_precompact = false\n",
    );
    write_transcript(&q, &[]);
    let start = compact(&q);
    assert!(!start.contains("Re-read"), "{start}");
    let recorded = events(&q)
        .into_iter()
        .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
        .find(|o| o["kind"] == "compaction_recorded")
        .unwrap();
    assert_eq!(recorded["reread"], json!([]));
    assert_eq!(recorded["armed"], false);
    assert_eq!(hook(&q, "PreToolUse", pre_tool(&q, "Edit")), "");
    assert_eq!(hook(&q, "Stop", q.payload("hooks/Stop.json")), "");
}

#[test]
fn a_huge_write_after_compaction_is_still_denied_once_and_fully_read() {
    let p = TestProject::new();
    compact(&p);
    // A 3 MB Write: cut at 1 MiB, but the session and tool come first.
    let mut v: Value = serde_json::from_str(&p.payload("hooks/PreToolUse.json")).unwrap();
    v["tool_name"] = json!("Write");
    v["tool_input"] = json!({"file_path": "/x", "content": "z".repeat(3 * 1024 * 1024)});
    // Written by hand: assert_cmd ignores errors writing stdin, and a broken pipe is
    // exactly what must not happen when forge stops keeping input at the cap.
    let mut child = std::process::Command::new(crate::common::forge_bin())
        .args(["hook", "PreToolUse"])
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let payload = v.to_string();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(payload.as_bytes())
    });
    let out = child.wait_with_output().unwrap();
    writer
        .join()
        .unwrap()
        .expect("forge read the whole payload (no broken pipe)");
    let d: Value = serde_json::from_slice(&out.stdout).expect("the deny JSON");
    assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        hook(&p, "PreToolUse", p.payload("hooks/PreToolUse.json")),
        ""
    );
}

#[test]
fn a_subagents_tool_call_leaves_the_marker_for_the_main_thread() {
    let p = TestProject::new();
    compact(&p);
    let sub = with(
        &p.payload("hooks/PreToolUse.json"),
        json!({"agent_id": "a-1", "agent_type": "Explore"}),
    );
    assert_eq!(hook(&p, "PreToolUse", sub), "");
    let main = hook(&p, "PreToolUse", p.payload("hooks/PreToolUse.json"));
    assert!(main.contains("\"deny\""), "{main}");
}

#[test]
fn compaction_rearms_only_its_own_threshold() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs/sessions")).unwrap();
    std::fs::write(
        p.forge_dir().join("logs/context-threshold-triggered"),
        format!("{SID}\nother\n"),
    )
    .unwrap();
    std::fs::write(
        p.forge_dir().join(format!("logs/sessions/{SID}.threshold")),
        "",
    )
    .unwrap();
    std::fs::write(p.forge_dir().join("logs/sessions/other.threshold"), "").unwrap();
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert_eq!(p.read(".forge/logs/context-threshold-triggered"), "other\n");
    assert!(
        !p.forge_dir()
            .join(format!("logs/sessions/{SID}.threshold"))
            .exists()
    );
    assert!(p.forge_dir().join("logs/sessions/other.threshold").exists());
    // resume: nothing changes; a new session: the flag goes, guards stay.
    hook(
        &p,
        "SessionStart",
        with(
            &p.payload("hooks/SessionStart-startup.json"),
            json!({"source": "resume"}),
        ),
    );
    assert!(
        p.forge_dir()
            .join("logs/context-threshold-triggered")
            .exists()
    );
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(
        !p.forge_dir()
            .join("logs/context-threshold-triggered")
            .exists()
    );
    assert!(p.forge_dir().join("logs/sessions/other.threshold").exists());
}

#[test]
fn stop_is_the_failsafe_when_no_tool_ran() {
    let p = TestProject::new();
    compact(&p);
    // A Stop that is already continuing because of a Stop hook is never blocked.
    let active = with(
        &p.payload("hooks/Stop.json"),
        json!({"stop_hook_active": true}),
    );
    assert_eq!(hook(&p, "Stop", active), "");
    // A dirty tree too: one JSON object carries both the block and the warning.
    p.write("new.txt", "x\n");
    let out = hook(&p, "Stop", p.payload("hooks/Stop.json"));
    assert_eq!(out.lines().count(), 1, "{out}");
    let v: Value = serde_json::from_str(out.trim()).expect("JSON only on stdout");
    assert_eq!(v["decision"], "block");
    assert!(
        v["reason"].as_str().unwrap().starts_with(
            "The context was just compacted and nothing has been re-read since. Re-read "
        ),
        "{v}"
    );
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("1 uncommitted change on branch main")
    );
    // Once only; then PreToolUse passes too.
    assert_eq!(hook(&p, "Stop", p.payload("hooks/Stop.json")), "");
    assert_eq!(hook(&p, "PreToolUse", pre_tool(&p, "Bash")), "");
}

#[test]
fn stop_does_not_block_a_session_that_is_re_reading() {
    let p = TestProject::new();
    compact(&p);
    assert_eq!(hook(&p, "PreToolUse", pre_tool(&p, "Read")), "");
    assert_eq!(hook(&p, "Stop", p.payload("hooks/Stop.json")), "");
    // The first other tool is still held back once.
    assert!(hook(&p, "PreToolUse", pre_tool(&p, "Bash")).contains("\"deny\""));
    // A new compaction starts over: Stop blocks again when nothing was read.
    compact(&p);
    assert!(hook(&p, "Stop", p.payload("hooks/Stop.json")).contains("\"block\""));
}

#[test]
fn attention_states_follow_notifications() {
    let p = TestProject::new();
    let bridge = || json_file(&p.forge_dir().join(format!("logs/sessions/{SID}.json")));
    hook(
        &p,
        "UserPromptSubmit",
        with(
            &p.payload("hooks/Stop.json"),
            json!({"hook_event_name":"UserPromptSubmit","prompt":"hi"}),
        ),
    );
    assert_eq!(bridge()["attention"], "busy");
    let perm = with(
        &p.payload("hooks/Notification-idle.json"),
        json!({"notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}),
    );
    assert_eq!(hook(&p, "Notification", perm), "");
    assert_eq!(bridge()["attention"], "waiting:permission");
    hook(&p, "PreToolUse", p.payload("hooks/PreToolUse.json"));
    assert_eq!(bridge()["attention"], "busy");
    hook(
        &p,
        "Notification",
        p.payload("hooks/Notification-idle.json"),
    );
    assert_eq!(bridge()["attention"], "waiting:input");
    hook(
        &p,
        "PermissionRequest",
        with(
            &p.payload("hooks/PreToolUse.json"),
            json!({"hook_event_name":"PermissionRequest"}),
        ),
    );
    assert_eq!(bridge()["attention"], "waiting:permission");
    assert_eq!(bridge()["last_event"], "PermissionRequest");
    assert_eq!(bridge()["attention_message"], "permission to use Bash");
    // The client's permission_prompt notification comes seconds later and names no
    // tool (docs/client-reference.md §9.1 #4): the PermissionRequest's message stays.
    let later = with(
        &p.payload("hooks/Notification-idle.json"),
        json!({"notification_type":"permission_prompt","message":"Claude needs your permission"}),
    );
    hook(&p, "Notification", later);
    assert_eq!(bridge()["attention"], "waiting:permission");
    assert_eq!(bridge()["attention_message"], "permission to use Bash");
    // Every call left one event line, and no prompt text.
    let ev = events(&p);
    assert_eq!(ev.len(), 6);
    assert!(
        !std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
            .unwrap()
            .contains("\"hi\"")
    );
}

// ----- SessionStart ---------------------------------------------------------------

#[test]
fn session_start_orients_the_new_session() {
    let p = TestProject::new();
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    // The session's command dirties the tree.
    hook(&p, "PreToolUse", pre_tool(&p, "Bash"));
    p.write("README.md", "dirty\n");
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    std::fs::write(
        p.forge_dir().join("logs/context-threshold-triggered"),
        "old\n",
    )
    .unwrap();
    // Inbox: a session handoff at 09:45, a blocked Signal at 10:15 (newer), a blocked
    // one of another task that is older than the session handoff (still unresolved,
    // so still listed), a malformed one.
    p.add_handoff_fixture("handoff-20261121-094500.md");
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("agent-T-011-20261121-090102.md");
    let old_blocked =
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap()
            .replace("T-012", "T-007");
    p.write(
        ".forge/handoffs/agent-T-007-20261120-080000.md",
        &old_blocked,
    );

    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("Last session: ") && first.ends_with(" · branch main · 1 uncommitted"),
        "{out}"
    );
    // SessionEnd's warning has no audience; the next session hears of the dirty tree.
    assert_eq!(
        out.lines().nth(1),
        Some(
            "The last session ended with 1 uncommitted change on branch main: \
             commit them or note them in a handoff."
        ),
        "{out}"
    );
    assert!(out.contains("/forge-learn"), "{out}");
    assert!(
        out.contains("Blocked agent signal: task T-012 (builder→reviewer)"),
        "{out}"
    );
    assert!(
        out.contains(
            "Open question: Should the pool size come from the environment or from config.toml?"
        ),
        "{out}"
    );
    // Every unresolved blocked Signal, newest first, whatever handoffs came since.
    let newer = out.find("task T-012").unwrap();
    let older = out.find("Blocked agent signal: task T-007").expect(&out);
    assert!(newer < older, "{out}");
    assert!(!out.contains("compacted"), "{out}");
    assert!(
        !p.forge_dir()
            .join("logs/context-threshold-triggered")
            .exists()
    );
    // The learn notice lasts until learning is done, not until it was once shown.
    assert!(p.forge_dir().join("logs/learn-pending").exists());
    let again = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(again.contains("/forge-learn"), "{again}");
    p.forge().args(["learn", "done"]).assert().success();
    let done = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(!done.contains("/forge-learn"), "{done}");
}

#[test]
fn a_session_still_running_is_live_not_the_last_session() {
    let p = TestProject::new();
    // Session A ends a turn with a dirty tree and goes on (no SessionEnd).
    p.write("README.md", "dirty\n");
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    let other = "5c2e9f10-0000-4000-8000-000000000002";
    let start_b = with(
        &p.payload("hooks/SessionStart-startup.json"),
        json!({"session_id": other}),
    );
    // Session B starts beside it: A is live, not "the last session", and its
    // uncommitted changes are not B's to commit.
    let out = hook(&p, "SessionStart", start_b.clone());
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with(
            "Another session is live in this project (3f0c2a9e), its last turn ended "
        ) && first.ends_with(" · branch main · 1 uncommitted"),
        "{out}"
    );
    assert!(!out.contains("Last session:"), "{out}");
    assert!(!out.contains("commit them"), "{out}");
    assert!(out.contains("may be work in progress"), "{out}");
    // `forge status` says the same.
    let status = p.forge().arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(
        text.contains("Live session: 3f0c2a9e · last turn just now, "),
        "{text}"
    );
    assert!(!text.contains("Last session"), "{text}");
    let json_out = p.forge().args(["status", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&json_out.stdout).unwrap();
    assert_eq!(v["last_session_live"], true);
    // A ends: the next session hears of the last session, as before.
    hook(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    let out = hook(&p, "SessionStart", start_b);
    assert!(out.starts_with("Last session: "), "{out}");
    assert!(
        out.contains("The last session ended with 1 uncommitted change"),
        "{out}"
    );
    let status = p.forge().arg("status").output().unwrap();
    let text = String::from_utf8_lossy(&status.stdout);
    assert!(text.contains("Last session: ended just now, "), "{text}");
}

#[test]
fn session_start_after_compaction_says_what_to_reread() {
    let p = TestProject::new();
    p.write("src/pool.rs", "// new\n");
    write_transcript(
        &p,
        &[tool_call(
            "Edit",
            json!({"file_path": p.root.join("src/pool.rs").display().to_string()}),
        )],
    );
    let edit = with(
        &p.payload("hooks/PreToolUse.json"),
        json!({"tool_name": "Edit", "tool_input": {"file_path": p.root.join("src/pool.rs")}}),
    );
    hook(&p, "PreToolUse", edit);
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    let out = start_parts(&hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    ))
    .0;
    assert!(
        out.contains("Context was compacted. Re-read before continuing: .forge/handoffs/handoff-"),
        "{out}"
    );
    assert!(out.contains(", src/pool.rs.\n"), "{out}");
    // A compaction is not a new session: no "last session" (it is this one), and the
    // learn flag waits for the next real start.
    assert!(!out.contains("Last session"), "{out}");
    assert!(!out.contains("/forge-learn"), "{out}");
    assert!(p.forge_dir().join("logs/learn-pending").exists());
}

#[test]
fn session_start_consumes_pending_resume_with_drift_notes() {
    let p = TestProject::new();
    let h = p.add_handoff_fixture("handoff-20261121-094500.md");
    std::fs::write(
        p.forge_dir().join("pending-resume"),
        format!("{}\n", h.display()),
    )
    .unwrap();
    let global = p.home.join(".claude/pending-resume");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    std::fs::write(&global, format!("{}\n", h.display())).unwrap();
    p.write("a.txt", "1");
    p.write("b.txt", "2");
    p.write("c.txt", "3");

    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(
        out.contains(&format!("Resuming from handoff {}", h.display())),
        "{out}"
    );
    assert!(
        out.contains(
            "Drift: branch changed: the handoff was written on feat/pool, you are on main"
        ),
        "{out}"
    );
    assert!(
        out.contains("Drift: tree dirtier: 2 uncommitted changes then, 3 now"),
        "{out}"
    );
    assert!(
        out.contains("Move handlers in src/routes/orders.rs"),
        "{out}"
    );
    assert!(!p.forge_dir().join("pending-resume").exists());
    assert!(
        !global.exists(),
        "the global marker pointed at the same file"
    );
    // Consumed: the next session does not resume it again.
    let again = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(!again.contains("Resuming"), "{again}");
}

#[test]
fn a_continuing_session_never_takes_another_sessions_handoff() {
    let p = TestProject::new();
    let theirs = p.write(
        ".forge/handoffs/handoff-20261121-100000.md",
        "---\nkind: session-handoff\nsession_id: other-session\n---\n# Theirs\n",
    );
    std::fs::write(
        p.forge_dir().join("pending-resume"),
        theirs.display().to_string(),
    )
    .unwrap();
    // The compacting session (SID) goes on: Y's handoff is not for it.
    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert!(!out.contains("Resuming"), "{out}");
    assert!(
        !out.contains("handoff-20261121-100000.md"),
        "re-read names another session's handoff: {out}"
    );
    assert!(
        p.forge_dir().join("pending-resume").exists(),
        "left for its owner"
    );
    // Its own handoff is resumed.
    let mine = p.write(
        ".forge/handoffs/handoff-20261121-100001.md",
        &format!("---\nkind: session-handoff\nsession_id: {SID}\n---\n# Mine\n"),
    );
    std::fs::write(
        p.forge_dir().join("pending-resume"),
        mine.display().to_string(),
    )
    .unwrap();
    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert!(out.contains("# Mine"), "{out}");
    // A new session takes whatever is pending.
    std::fs::write(
        p.forge_dir().join("pending-resume"),
        theirs.display().to_string(),
    )
    .unwrap();
    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(out.contains("# Theirs"), "{out}");
}

#[test]
fn global_pending_resume_only_when_it_points_into_this_project() {
    let p = TestProject::new();
    let global = p.home.join(".claude/pending-resume");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    let elsewhere = p
        .dir
        .path()
        .join("other/.forge/handoffs/handoff-20261121-094500.md");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    std::fs::copy(
        common::fixtures().join("handoffs/handoff-20261121-094500.md"),
        &elsewhere,
    )
    .unwrap();
    std::fs::write(&global, format!("{}\n", elsewhere.display())).unwrap();
    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(!out.contains("Resuming"), "{out}");
    assert!(global.exists(), "another project's marker is left alone");

    let mine = p.add_handoff_fixture("handoff-20261121-094500.md");
    std::fs::write(&global, format!("{}\n", mine.display())).unwrap();
    let out = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    assert!(out.contains("Resuming from handoff"), "{out}");
    assert!(!global.exists());
}

#[test]
fn session_start_output_stays_under_ten_thousand_characters() {
    let p = TestProject::new();
    let huge = format!(
        "---\nkind: session-handoff\nbranch: main\n---\n# Huge\n{}",
        "lorem ipsum ∑ dolor\n".repeat(5000)
    );
    let h = p.write(".forge/handoffs/handoff-20261121-100000.md", &huge);
    std::fs::write(
        p.forge_dir().join("pending-resume"),
        h.display().to_string(),
    )
    .unwrap();
    for i in 0..40 {
        let blocked = std::fs::read_to_string(
            common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"),
        )
        .unwrap()
        .replace("T-012", &format!("T-{i:03}"))
        .replace(
            "Should the pool size",
            &format!(
                "Question {i}: {} should the pool size",
                "very long ".repeat(20)
            ),
        );
        p.write(
            &format!(
                ".forge/handoffs/agent-T-{i:03}-20261121-11{:02}00.md",
                i % 60
            ),
            &blocked,
        );
    }
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    // The client caps the context and the person's notice at 10,000 characters each.
    let (out, notice) = start_parts(&hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    ));
    assert!(
        out.chars().count() < 10_000,
        "{} chars",
        out.chars().count()
    );
    assert!(notice.starts_with("forge: resumed \"Huge\""), "{notice}");
    assert!(out.starts_with("Last session:"), "{}", &out[..200]);
    // Blocked Signals are cut at whole lines with a pointer to the rest…
    assert!(
        out.contains("more blocked Signals: run `forge status` to see them all."),
        "{out}"
    );
    // …and the resumed handoff still gets its room, with a complete note.
    assert!(
        out.contains(&format!("Resuming from handoff {}:", h.display())),
        "{out}"
    );
    assert!(out.contains("lorem ipsum ∑ dolor\n"), "{out}");
    let note = format!("[handoff cut to fit; read the rest in {}]\n", h.display());
    assert!(out.ends_with(&note), "{}", &out[out.len() - 300..]);
    assert!(!p.forge_dir().join("pending-resume").exists());
    for line in out.lines() {
        assert!(
            !line.ends_with("very lo"),
            "a line was cut in the middle: {line}"
        );
    }
}

// ----- concurrency and ids ---------------------------------------------------------

#[test]
fn fifty_concurrent_hooks_lose_nothing() {
    let p = TestProject::new();
    p.write("dirty.txt", "x");
    let bin = crate::common::forge_bin();
    let fixtures = [
        ("Stop", "hooks/Stop.json"),
        ("PreToolUse", "hooks/PreToolUse.json"),
        ("Notification", "hooks/Notification-idle.json"),
        ("PreCompact", "hooks/PreCompact-auto.json"),
        ("SessionStart", "hooks/SessionStart-startup.json"),
        ("SessionEnd", "hooks/SessionEnd.json"),
        ("SessionStart", "hooks/SessionStart-compact.json"),
    ];
    let mut children = Vec::new();
    for i in 0..50 {
        let (event, fixture) = fixtures[i % fixtures.len()];
        let payload = with(
            &p.payload(fixture),
            json!({"session_id": format!("s-{}", i % 7)}),
        );
        let mut child = Command::new(&bin)
            .args(["hook", event])
            .current_dir(&p.root)
            .env("HOME", &p.home)
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.as_bytes())
            .unwrap();
        children.push(child);
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let ev = events(&p);
    assert_eq!(ev.len(), 50, "every call left exactly one whole line");
    let logs = p.forge_dir().join("logs");
    for f in [
        "last-session.json",
        "pre-compact-state.json",
        "git-cache.json",
    ] {
        json_file(&logs.join(f));
    }
    for e in std::fs::read_dir(logs.join("sessions")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            !name.ends_with(".tmp") && (name == ".lock" || !name.ends_with(".lock")),
            "left behind: {name}"
        );
        if name.ends_with(".json") || name.ends_with(".compacted") {
            json_file(&path);
        }
    }
    for line in p.read(".forge/logs/compactions.jsonl").lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}

#[test]
fn hostile_session_ids_stay_inside_their_folder() {
    let p = TestProject::new();
    for sid in ["../../../escape", "/tmp/abs", "..", "a/../../b", "x\u{0}y"] {
        let payload = with(
            &p.payload("hooks/Notification-idle.json"),
            json!({"session_id": sid}),
        );
        hook(&p, "Notification", payload);
        let payload = with(
            &p.payload("hooks/PreCompact-auto.json"),
            json!({"session_id": sid}),
        );
        hook(&p, "PreCompact", payload);
    }
    let sessions = p.forge_dir().join("logs/sessions");
    let names: Vec<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.len() >= 5, "{names:?}");
    assert!(!p.dir.path().join("escape.json").exists());
    assert!(!p.root.join("escape.json").exists());
    assert!(!Path::new("/tmp/abs.json").exists());
    // Nothing outside the project folder besides what the test made and the fleet
    // registry (in $XDG_STATE_HOME/forge, where the ids are data, never names).
    let mut top: Vec<String> = std::fs::read_dir(p.dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    top.sort();
    assert_eq!(top, ["home", "project", "state", "xdg"]);
    let mut state: Vec<String> = std::fs::read_dir(p.state().join("forge"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    state.sort();
    assert_eq!(state, ["projects.json", "projects.lock"]);
    // Ids that could not name a session file are not in the registry either.
    let registry: Value =
        serde_json::from_str(&std::fs::read_to_string(p.registry()).unwrap()).unwrap();
    for s in registry["projects"][0]["sessions"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap();
        assert!(!id.contains('/') && !id.starts_with('.'), "{id}");
    }
}

// ----- status ----------------------------------------------------------------------

#[test]
fn status_prints_the_snapshot_as_text_and_json() {
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("agent-T-011-20261121-090102.md");
    p.add_handoff_fixture("handoff-20261121-094500.md");
    hook(&p, "Stop", p.payload("hooks/Stop.json"));
    p.write(".forge/logs/learn-pending", "");
    let out = p.forge().args(["status"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Handoffs: 3 (1 blocked)"), "{text}");
    assert!(
        text.contains("unknown status") || text.contains("does not parse"),
        "{text}"
    );
    assert!(text.contains("learn pending"), "{text}");

    let out = p
        .forge()
        .args(["status", "--json", "--project"])
        .arg(&p.root)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["blocked"], json!(["agent-T-012-20261121-101502.md"]));
    assert_eq!(v["flags"]["learn_pending"], true);
    assert_eq!(v["last_session"]["branch"], "main");
    assert_eq!(v["handoffs"].as_array().unwrap().len(), 3);
    assert_eq!(v["handoffs"][0]["signal"]["kind"], "valid");
    assert_eq!(v["handoffs"][2]["signal"]["kind"], "malformed");

    // Attention in words: a session waiting for a person is named with what it
    // asked; once it ends it is history, not attention. A broken config is a
    // warning, not a failure.
    hook(
        &p,
        "Notification",
        p.payload("hooks/Notification-idle.json"),
    );
    let out = p.forge().args(["status"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "Attention: session 3f0c2a9e is waiting for input: Claude is waiting for your input"
        ),
        "{text}"
    );
    let out = p.forge().args(["status", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["attention"][0]["attention"], "waiting:input", "{v}");
    hook(&p, "SessionEnd", p.payload("hooks/SessionEnd.json"));
    p.write(".forge/config.toml", "[context]\nwarm = 1\n");
    let out = p.forge().args(["status"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("Attention:"), "{text}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("warning") && err.contains("context.warm"),
        "{err}"
    );

    let out = p
        .forge()
        .args(["status", "--project", "/no/such/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such folder"));
}

// ----- PostCompact ------------------------------------------------------------------

const SUMMARY_SECRET: &str = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL";

/// A session with one request and one edit, compacted: its transcript, and the
/// PostCompact payload the pinned client sends (tests/fixtures/hooks/PostCompact-manual.json)
/// with a key in its summary.
fn compacted_session(p: &TestProject) -> String {
    let root = p.root.display().to_string();
    p.write("src/db/pool.rs", "// pool\n");
    write_transcript(
        p,
        &[
            json!({"type":"user","timestamp":"2026-11-21T09:00:00Z","message":{"role":"user",
                "content":"Refactor the connection pool and move every handler to it."}}),
            tool_call(
                "Write",
                json!({"file_path": format!("{root}/src/db/pool.rs")}),
            ),
            json!({"type":"system","subtype":"compact_boundary","timestamp":"2026-11-21T09:30:00Z",
                "compactMetadata":{"trigger":"manual","preTokens":150_000}}),
        ],
    );
    let payload = p.payload("hooks/PostCompact-manual.json");
    let summary = payload.parse::<Value>().unwrap()["compact_summary"]
        .as_str()
        .unwrap()
        .replace(
            "Run the whole test suite",
            &format!("Run the whole test suite with {SUMMARY_SECRET}"),
        );
    with(&payload, json!({ "compact_summary": summary }))
}

fn compaction_count(p: &TestProject) -> usize {
    std::fs::read_to_string(p.forge_dir().join("logs/compactions.jsonl"))
        .unwrap_or_default()
        .lines()
        .count()
}

/// The pinned client proves a compaction twice: SessionStart(compact), then
/// PostCompact a few milliseconds later (seen with 2.1.330). One compaction counts
/// once whichever comes first, and an older client's SessionStart alone counts it.
#[test]
fn post_compact_and_session_start_count_one_compaction_once() {
    let p = TestProject::new();
    let post = compacted_session(&p);
    let marker = p.forge_dir().join(format!("logs/sessions/{SID}.compacted"));
    // The client's order: SessionStart(compact), then PostCompact.
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    let start = hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert!(
        start.contains("Context was compacted. Re-read before continuing"),
        "{start}"
    );
    assert_eq!(
        hook(&p, "PostCompact", post.clone()),
        "",
        "PostCompact prints nothing"
    );
    assert_eq!(compaction_count(&p), 1, "one compaction, counted once");
    assert!(marker.exists());
    let known = common::outcomes(&p, "PostCompact");
    assert!(
        known.iter().any(|o| o["kind"] == "compaction_known"),
        "{known:?}"
    );
    assert!(
        known.iter().any(|o| o["kind"] == "summary_kept"),
        "{known:?}"
    );
    // The other order (PostCompact first) counts once too.
    std::thread::sleep(Duration::from_millis(1100));
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    hook(&p, "PostCompact", post);
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert_eq!(compaction_count(&p), 2);
    // An older client: SessionStart(compact) alone still counts.
    std::thread::sleep(Duration::from_millis(1100));
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    assert_eq!(compaction_count(&p), 3);
}

/// PostCompact's summary is kept redacted, and the next handoff quotes it, marked
/// as the client's, its pending work and next step.
#[test]
fn the_summary_post_compact_sends_reaches_the_next_handoff_redacted() {
    let p = TestProject::new();
    let post = compacted_session(&p);
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-compact.json"),
    );
    hook(&p, "PostCompact", post);
    let kept = p.read(&format!(".forge/logs/sessions/{SID}.summary.json"));
    assert!(
        kept.contains("Move the users handler to the pool"),
        "{kept}"
    );
    assert!(!kept.contains(SUMMARY_SECRET), "stored redacted: {kept}");
    let out = p
        .forge()
        .args(["handoff", "--session", SID])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = String::from_utf8(out.stdout).unwrap();
    let doc = std::fs::read_to_string(path.trim()).unwrap();
    assert!(doc.contains("## Claude Code's summary\n"), "{doc}");
    assert!(doc.contains("(sent by its PostCompact hook)"), "{doc}");
    assert!(
        doc.contains("Pending tasks:\n> - Move the users handler to the pool\n> - Run the whole test suite with [REDACTED]\n"),
        "{doc}"
    );
    assert!(
        doc.contains("Next step:\n> Finish src/routes/users.rs, then run `cargo test`.\n"),
        "{doc}"
    );
    assert!(!doc.contains(SUMMARY_SECRET), "{doc}");
    assert!(
        doc.contains(
            "# Session handoff — Refactor the connection pool and move every handler to it.\n"
        ),
        "{doc}"
    );
}

/// A threshold handoff being written when the compaction starts (the status line
/// started it a moment before): PreCompact returns only once it is on disk, and
/// writes no second one.
#[test]
fn pre_compact_waits_for_a_handoff_being_written_and_writes_no_second_one() {
    let p = TestProject::new();
    hook(
        &p,
        "SessionStart",
        p.payload("hooks/SessionStart-startup.json"),
    );
    let bridge = p.forge_dir().join(format!("logs/sessions/{SID}.json"));
    let crossed = chrono::Utc::now() - chrono::Duration::seconds(2);
    std::fs::write(
        &bridge,
        json!({"session_id": SID, "threshold_crossed_at": crossed.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)})
            .to_string(),
    )
    .unwrap();
    // The writer holds the project's handoff lock until its handoff is on disk.
    let lock = std::fs::File::create(p.forge_dir().join("logs/.handoff.lock")).unwrap();
    lock.lock().unwrap();
    let handoffs = p.forge_dir().join("handoffs");
    let writer = {
        let (bridge, handoffs) = (bridge.clone(), handoffs.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(600));
            std::fs::create_dir_all(&handoffs).unwrap();
            std::fs::write(
                handoffs.join("handoff-20261121-101502.md"),
                "---\nkind: session-handoff\ntrigger: context-threshold\n---\n# T\n",
            )
            .unwrap();
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            std::fs::write(
                &bridge,
                json!({"session_id": SID, "threshold_crossed_at": "2026-01-01T00:00:00Z",
                       "handoff_written_at": now})
                .to_string(),
            )
            .unwrap();
            lock.unlock().unwrap();
        })
    };
    let started = Instant::now();
    hook(&p, "PreCompact", p.payload("hooks/PreCompact-auto.json"));
    let took = started.elapsed();
    writer.join().unwrap();
    assert!(
        took >= Duration::from_millis(500),
        "returned before the handoff landed: {took:?}"
    );
    let said = common::outcomes(&p, "PreCompact");
    assert!(
        said.iter()
            .any(|o| o["kind"] == "handoff_awaited" && o["landed"] == true),
        "{said:?}"
    );
    assert!(
        said.iter().any(|o| o["kind"] == "handoff_skipped"
            && o["why"] == "this session wrote one since it crossed the threshold"),
        "{said:?}"
    );
    assert_eq!(p.session_handoffs().len(), 1, "no second handoff");
}
