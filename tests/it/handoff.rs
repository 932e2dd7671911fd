//! Process tests for `forge handoff`, the PreCompact safety net and `forge context`.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::PathBuf;

use common::TestProject;
use serde_json::json;

const SID: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

const SECRETS: [&str; 7] = [
    "sk-ant-api03-Zq8xVv2LmN4pR7tY1uW3eK9sD6fH0jB5cA",
    "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s",
    "AKIAIOSFODNN7EXAMPLE",
    "hunter2-db-pass",
    "xoxb-2048-abcdefghijklmnop",
    "S3cretFromEnvLine",
    "bearer-token-value-9f8e7d",
];

/// Writes a transcript with secrets in the user's words, a todo item and in tool
/// inputs that carry file contents; returns its path.
fn transcript_with_secrets(p: &TestProject) -> PathBuf {
    let path = p
        .home
        .join(".claude/projects/-project")
        .join(format!("{SID}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let root = p.root.display().to_string();
    let lines = [
        json!({"type":"user","message":{"role":"user","content":"an older request"}}),
        json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m1","role":"assistant",
            "content":[{"type":"tool_use","id":"t1","name":"Edit","input":{
                "file_path": format!("{root}/src/config.rs"),
                "old_string":"let key = \"\";",
                "new_string": format!("let key = \"{}\"; // FILE-CONTENT-MARKER", SECRETS[1])}}],
            "usage":{"input_tokens":5,"cache_read_input_tokens":100_000,"output_tokens":10}}}),
        json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m2","role":"assistant",
            "content":[{"type":"tool_use","id":"t2","name":"Write","input":{
                "file_path": format!("{root}/.env.example"),
                "content": format!("AWS_KEY={}\nWRITE-CONTENT-MARKER", SECRETS[2])}}]}}),
        json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m3","role":"assistant",
            "content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path": format!("{root}/docs/SPEC.md")}}]}}),
        json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m4","role":"assistant",
            "content":[{"type":"tool_use","id":"t4","name":"TodoWrite","input":{"todos":[
                {"content":"Wire the client","status":"completed","activeForm":"Wiring"},
                {"content": format!("Rotate the token {} in CI", SECRETS[4]),"status":"in_progress","activeForm":"Rotating"},
                {"content":"Write tests","status":"pending","activeForm":"Writing"}]}}]}}),
        json!({"type":"user","message":{"role":"user","content": format!(
            "Use my key {} and connect to postgres://app:{}@db.internal/prod. Also DB_PASSWORD={} and \
             curl -H 'Authorization: Bearer {}' then finish the config loader",
            SECRETS[0], SECRETS[3], SECRETS[5], SECRETS[6])}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn bridge_for(p: &TestProject, transcript: &std::path::Path) {
    let payload = p.payload("statusline/used-42.json").replace(
        &p.home
            .join(".claude/projects/-home-alice-src-acme-api")
            .join(format!("{SID}.jsonl"))
            .display()
            .to_string(),
        &transcript.display().to_string(),
    );
    p.forge()
        .arg("statusline")
        .write_stdin(payload)
        .assert()
        .success();
}

#[test]
fn manual_handoff_redacts_secrets_and_never_copies_contents() {
    let p = TestProject::new();
    p.write("src/config.rs", "changed\n");
    let transcript = transcript_with_secrets(&p);
    bridge_for(&p, &transcript);
    let out = common::ok_stdout(p.forge().args(["handoff", "--session", SID]));
    let printed = out;
    let path = PathBuf::from(printed.trim());
    assert!(path.is_absolute() && path.is_file(), "{printed}");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("handoff-") && name.ends_with(".md"),
        "{name}"
    );
    let doc = std::fs::read_to_string(&path).unwrap();
    for s in SECRETS {
        assert!(!doc.contains(s), "secret {s} leaked:\n{doc}");
    }
    for marker in ["FILE-CONTENT-MARKER", "WRITE-CONTENT-MARKER", "let key"] {
        assert!(
            !doc.contains(marker),
            "file contents leaked ({marker}):\n{doc}"
        );
    }
    assert!(doc.contains("trigger: manual\n"), "{doc}");
    assert!(doc.contains(&format!("session_id: {SID}\n")), "{doc}");
    assert!(
        doc.contains("context_used_pct: 42\nlevel: L0\nbranch: main\nuncommitted_changes: 1\n"),
        "{doc}"
    );
    assert!(doc.contains("- .env.example\n- src/config.rs\n"), "{doc}");
    assert!(doc.contains("- docs/SPEC.md"), "{doc}");
    assert!(
        doc.contains("- [~] Rotate the token [REDACTED] in CI"),
        "{doc}"
    );
    assert!(doc.contains("then finish the config loader"), "{doc}");
    assert!(
        doc.contains("- ") && doc.contains(" initial\n"),
        "last commits listed:\n{doc}"
    );
    // A handoff a person asked for is theirs: the project's marker says "chosen".
    let chosen = format!("{}\nchosen\n", path.display());
    assert_eq!(p.read(".forge/pending-resume"), chosen);
    // The global marker holds the bare path and a newline (the seed's format), so
    // the scripts written for it still read the handoff through it.
    let global = p.home.join(".claude/pending-resume");
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        format!("{}\n", path.display())
    );
    let shown = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"cat "$(cat "$1")""#)
        .arg("sh")
        .arg(&global)
        .output()
        .unwrap();
    assert!(shown.status.success(), "{shown:?}");
    assert_eq!(String::from_utf8_lossy(&shown.stdout), doc);
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{SID}.json"))).unwrap();
    assert!(v["handoff_written_at"].is_string());

    // A second one right away never overwrites the first.
    let out = common::ok_stdout(p.forge().args(["handoff", "--session", SID]));
    let second = PathBuf::from(out.trim());
    assert_ne!(second, path);
    assert!(path.is_file() && second.is_file());
}

#[test]
fn auto_mode_is_silent_and_always_exits_zero() {
    let p = TestProject::new();
    p.forge()
        .args(["handoff", "--auto", "--trigger", "context-threshold"])
        .assert()
        .success()
        .stdout("")
        .stderr("");
    assert!(p.forge_dir().join("pending-resume").exists());
    // Even when things are wrong.
    p.forge()
        .args([
            "handoff",
            "--auto",
            "--trigger",
            "nonsense",
            "--project",
            "/no/such/dir",
        ])
        .assert()
        .success()
        .stdout("")
        .stderr("");
    // A person gets a clear error instead.
    p.forge()
        .args(["handoff", "--trigger", "nonsense"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unknown --trigger"));
}

#[test]
fn precompact_writes_a_safety_net_handoff_once() {
    let p = TestProject::new();
    let transcript = transcript_with_secrets(&p);
    let payload = p.payload("hooks/PreCompact-auto.json").replace(
        &p.home
            .join(".claude/projects/-home-alice-src-acme-api")
            .join(format!("{SID}.jsonl"))
            .display()
            .to_string(),
        &transcript.display().to_string(),
    );
    let list = |p: &TestProject| -> Vec<String> {
        p.session_handoffs()
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    p.forge()
        .args(["hook", "PreCompact"])
        .write_stdin(payload.clone())
        .assert()
        .success()
        .stdout("");
    let files = list(&p);
    assert_eq!(files.len(), 1, "{files:?}");
    let doc = p.read(&format!(".forge/handoffs/{}", files[0]));
    assert!(doc.contains("trigger: pre-compact\n"), "{doc}");
    for s in SECRETS {
        assert!(!doc.contains(s), "secret {s} leaked");
    }
    // When the compaction is proven (SessionStart compact), the re-read marker names
    // the new handoff.
    let mut start: serde_json::Value = serde_json::from_str(&payload).unwrap();
    start["hook_event_name"] = "SessionStart".into();
    start["source"] = "compact".into();
    p.forge()
        .args(["hook", "SessionStart"])
        .write_stdin(start.to_string())
        .assert()
        .success();
    let marker = p.read(&format!(".forge/logs/sessions/{SID}.compacted"));
    assert!(marker.contains(&files[0]), "{marker}");

    // Written this session and no new crossing: the next PreCompact adds none.
    p.forge()
        .args(["hook", "PreCompact"])
        .write_stdin(payload.clone())
        .assert()
        .success()
        .stdout("");
    assert_eq!(list(&p).len(), 1);

    // Switched off in config: none either, even for a new session.
    p.write(
        ".forge/config.toml",
        "[hooks]\nhandoff_on_precompact = false\n",
    );
    p.forge()
        .args(["hook", "PreCompact"])
        .write_stdin(payload.replace(SID, "another-session"))
        .assert()
        .success()
        .stdout("");
    assert_eq!(list(&p).len(), 1);
}

#[test]
fn context_reports_tokens_window_level_and_compactions() {
    let p = TestProject::new();
    let fixture = common::fixtures().join("transcripts/compact-excerpt.jsonl");
    let out = p
        .forge()
        .args(["context", "--json"])
        .arg(&fixture)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["tokens"], 24_000);
    assert_eq!(v["window"], 200_000);
    assert_eq!(v["used_percentage"], 12.0);
    assert_eq!(v["level"], "L0");
    assert_eq!(v["compactions"], 1);
    let text = common::ok_stdout(p.forge().arg("context").arg(&fixture));
    assert!(text.contains("tokens       24000"), "{text}");
    assert!(text.contains("used         12%"), "{text}");
    assert!(text.contains("compactions  1"), "{text}");

    // By session: the session's own figures, the ones `status` shows (what the
    // statusline recorded: 15% of its 1M window), whatever the transcript holds.
    let transcript = p.home.join("t.jsonl");
    std::fs::copy(&fixture, &transcript).unwrap();
    let payload = p.payload("statusline/opus-1m-15.json").replace(
        &p.home
            .join(".claude/projects/-home-alice-src-acme-api/c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354.jsonl")
            .display()
            .to_string(),
        &transcript.display().to_string(),
    );
    p.forge()
        .arg("statusline")
        .write_stdin(payload)
        .assert()
        .success();
    // A unique start of the id names the session, as everywhere.
    let out = p
        .forge()
        .args(["context", "--json", "--session", "c41d"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["window"], 1_000_000);
    assert_eq!(v["used_percentage"], 15);
    assert_eq!(v["session_id"], "c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354");
    // The compactions are the ones forge recorded for the session (none yet),
    // not the transcript's.
    assert_eq!(v["compactions"], 0);
    assert_eq!(v["compactions_source"], "forge");
    let status: serde_json::Value =
        serde_json::from_str(&common::ok_stdout(p.forge().args(["status", "--json"]))).unwrap();
    assert_eq!(status["current_session"]["used_percentage"], 15);
    assert_eq!(status["current_session"]["compactions"], 0);

    p.forge()
        .args(["context", "--session", "nope"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no session starting with \"nope\"",
        ));
}

/// Writes a transcript (one JSON record per line) under the fake home; returns it.
fn write_transcript(p: &TestProject, name: &str, lines: &[serde_json::Value]) -> PathBuf {
    let path = p.home.join(".claude/projects/-elsewhere").join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn usage_record(tokens: u64) -> serde_json::Value {
    json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m1","role":"assistant",
        "content":[{"type":"text","text":"ok"}],
        "usage":{"input_tokens":1,"cache_read_input_tokens":tokens - 1,"output_tokens":10}}})
}

fn tool(name: &str, input: serde_json::Value) -> serde_json::Value {
    json!({"type":"assistant","message":{"model":"claude-sonnet-4-6","id":"m2","role":"assistant",
        "content":[{"type":"tool_use","id":"t","name":name,"input":input}]}})
}

#[test]
fn unknown_session_is_a_clear_error_and_leaves_pending_resume_alone() {
    let p = TestProject::new();
    let unknown = "0b8f5a61-0000-4000-8000-00000000dead";
    p.forge()
        .args(["handoff", "--session", unknown])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains(format!(
            "no session {unknown} in .forge/logs/sessions; `forge status` lists sessions"
        )));
    assert!(!p.forge_dir().join("pending-resume").exists());
    assert!(!p.home.join(".claude/pending-resume").exists());
    assert_eq!(p.session_handoffs().len(), 0);
    // --auto keeps its promise: silent, exit 0.
    p.forge()
        .args(["handoff", "--auto", "--session", unknown])
        .assert()
        .success()
        .stdout("")
        .stderr("");

    // A session forge has no bridge for, but whose transcript Claude Code keeps
    // under ~/.claude/projects/, is found there.
    let t = write_transcript(&p, &format!("{SID}.jsonl"), &[usage_record(90_000)]);
    let out = common::ok_stdout(p.forge().args(["handoff", "--session", SID]));
    let doc = std::fs::read_to_string(out.trim()).unwrap();
    assert!(doc.contains(&format!("session_id: {SID}\n")), "{doc}");
    assert!(doc.contains("context_used_pct: 45\n"), "{doc}");
    assert!(doc.contains(&t.display().to_string()), "{doc}");
}

#[test]
fn transcript_can_be_given_by_path() {
    let p = TestProject::new();
    let t = write_transcript(&p, &format!("{SID}.jsonl"), &[usage_record(139_000)]);
    let out = common::ok_stdout(p.forge().args(["handoff", "--transcript"]).arg(&t));
    let doc = std::fs::read_to_string(out.trim()).unwrap();
    // The session is named by the transcript's file name; the figure is rounded as
    // the statusline rounds it.
    assert!(doc.contains(&format!("session_id: {SID}\n")), "{doc}");
    assert!(doc.contains("context_used_pct: 70\nlevel: L1\n"), "{doc}");

    // A file that names no session: written for none, not for the latest session.
    let other = write_transcript(&p, "export.jsonl", &[usage_record(20_000)]);
    let out = common::ok_stdout(p.forge().args(["handoff", "--transcript"]).arg(&other));
    let doc = std::fs::read_to_string(out.trim()).unwrap();
    assert!(doc.contains("session_id: \n"), "{doc}");
    assert!(doc.contains("context_used_pct: 10\n"), "{doc}");

    p.forge()
        .args(["handoff", "--transcript"])
        .arg(&p.home)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "is a folder, not a transcript file",
        ));
    p.forge()
        .args(["handoff", "--transcript", "no-such.jsonl"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no such transcript file"));
}

#[test]
fn front_matter_is_yaml_that_other_tools_read() {
    let p = TestProject::new();
    p.write(
        ".forge/state.json",
        r#"{"phase":"build: phase 2","task":"T-9: fix pool # urgent"}"#,
    );
    let out = common::ok_stdout(p.forge().arg("handoff"));
    let path = PathBuf::from(out.trim());
    let doc = std::fs::read_to_string(&path).unwrap();
    assert!(doc.contains("forge_phase: \"build: phase 2\"\n"), "{doc}");
    assert!(
        doc.contains("forge_task: \"T-9: fix pool # urgent\"\n"),
        "{doc}"
    );
    // forge's own reader gets the text back.
    let (fm, _) = forge::model::handoff::entry::split_front_matter(&doc);
    assert_eq!(fm["forge_phase"], "build: phase 2");
    assert_eq!(fm["forge_task"], "T-9: fix pool # urgent");
    // And so does a real YAML parser, when this machine has one.
    let script = "import sys, yaml, json\n\
                  text = open(sys.argv[1]).read()\n\
                  fm = yaml.safe_load(text.split('---\\n')[1])\n\
                  print(json.dumps(fm, default=str))";
    let has_yaml = std::process::Command::new("python3")
        .args(["-c", "import yaml"])
        .output()
        .is_ok_and(|o| o.status.success());
    if has_yaml {
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["forge_phase"], "build: phase 2");
        assert_eq!(v["forge_task"], "T-9: fix pool # urgent");
        assert_eq!(v["kind"], "session-handoff");
        assert_eq!(v["trigger"], "manual");
        assert_eq!(v["branch"], "main");
        assert_eq!(v["uncommitted_changes"], 0);
        assert!(v["context_used_pct"].is_null(), "{v}");
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 10, "{keys:?}");
    }
}

#[test]
fn only_files_inside_the_project_are_listed() {
    let p = TestProject::new();
    p.write("docs/SPEC.md", "spec\n");
    p.write("src/lib.rs", "// lib\n");
    let root = p.root.display().to_string();
    let home = p.home.display().to_string();
    let t = write_transcript(
        &p,
        &format!("{SID}.jsonl"),
        &[
            tool("Read", json!({"file_path": format!("{home}/.ssh/id_rsa")})),
            tool("Read", json!({"file_path": "/etc/hostname"})),
            tool(
                "Grep",
                json!({"pattern": "pool", "path": format!("{root}/src")}),
            ),
            tool("Glob", json!({"pattern": "**/*.rs", "path": root})),
            tool(
                "Grep",
                json!({"pattern": "x", "path": format!("{home}/secrets")}),
            ),
            tool("Read", json!({"file_path": format!("{root}/docs/SPEC.md")})),
            tool(
                "Edit",
                json!({"file_path": format!("{root}/src/lib.rs"), "old_string": "a", "new_string": "b"}),
            ),
            tool(
                "Edit",
                json!({"file_path": format!("{home}/.bashrc"), "old_string": "a", "new_string": "b"}),
            ),
            json!({"type":"user","message":{"role":"user","content":"carry on"}}),
        ],
    );
    let out = common::ok_stdout(p.forge().args(["handoff", "--transcript"]).arg(&t));
    let doc = std::fs::read_to_string(out.trim()).unwrap();
    for leak in ["id_rsa", ".ssh", "hostname", "secrets", ".bashrc"] {
        assert!(!doc.contains(leak), "{leak} listed:\n{doc}");
    }
    let reload = doc.split("## Reload\n").nth(1).unwrap();
    let reload = reload.split("\n\n").next().unwrap();
    assert_eq!(reload, "- docs/SPEC.md", "{doc}");
    assert!(doc.contains("## Files touched\n- src/lib.rs\n"), "{doc}");
}

#[test]
fn context_agrees_with_the_statusline_and_explains_itself() {
    let p = TestProject::new();
    // 139,000 of 200k: 69.5% rounds to 70, as in the status line.
    let t = write_transcript(&p, "a.jsonl", &[usage_record(139_000)]);
    let text = common::ok_stdout(p.forge().arg("context").arg(&t));
    assert!(
        text.contains("used         70%\nlevel        L1\n"),
        "{text}"
    );
    assert!(text.contains("window       200000 (from model)"), "{text}");
    // No model known: the window is the default, and it says so.
    let bare = write_transcript(
        &p,
        "b.jsonl",
        &[
            json!({"type":"assistant","message":{"id":"m","usage":{"input_tokens":50_000,"output_tokens":1}}}),
        ],
    );
    let text = p.forge().arg("context").arg(&bare).output().unwrap().stdout;
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("window       200000 (default)\n"), "{text}");
    assert!(text.contains("used         25%"), "{text}");

    // A folder is named as such.
    p.forge()
        .arg("context")
        .arg(&p.root)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "is a folder, not a transcript file",
        ));

    // The newest session's transcript is gone: what the statusline recorded.
    let payload = p
        .payload("statusline/used-74.json")
        .replace("\"used_percentage\": 74", "\"used_percentage\": null");
    let line = { common::ok_stdout(p.forge().arg("statusline").write_stdin(payload)) };
    assert!(line.contains("░░░ ⚠ CTX 74% L1"), "{line}");
    let text = common::ok_stdout(p.forge().arg("context"));
    assert!(
        text.contains("is gone; showing what the statusline recorded at"),
        "{text}"
    );
    assert!(text.contains("tokens       148000\n"), "{text}");
    assert!(
        text.contains("window       200000 (from statusline)\n"),
        "{text}"
    );
    assert!(
        text.contains("used         74%\nlevel        L1\n"),
        "{text}"
    );
    assert!(
        text.contains("compactions  0 (recorded by forge for this session)"),
        "{text}"
    );
}

/// The lines of `.forge/logs/events.jsonl`.
fn event_lines(p: &TestProject) -> Vec<serde_json::Value> {
    std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn handoff_records_what_it_did_in_the_event_log() {
    let p = TestProject::new();
    let out = common::ok_stdout(p.forge().args(["handoff"]));
    let manual = out.trim().to_owned();
    p.forge()
        .args(["handoff", "--auto", "--trigger", "context-threshold"])
        .assert()
        .success()
        .stdout("");
    let lines = event_lines(&p);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["event"], "forge handoff");
    assert_eq!(lines[0]["facts"], json!({"trigger": "manual"}));
    assert_eq!(
        lines[0]["outcomes"],
        json!([{"kind": "handoff_written", "path": manual, "trigger": "manual", "pending": true}])
    );
    // The status line's threshold handoff (an --auto child) is visible too.
    assert_eq!(
        lines[1]["facts"],
        json!({"trigger": "context-threshold", "auto": true})
    );
    assert_eq!(lines[1]["outcomes"][0]["kind"], "handoff_written");
    assert_eq!(lines[1]["outcomes"][0]["trigger"], "context-threshold");
    assert_eq!(lines[1]["outcomes"][0]["pending"], true);
    // And `forge log` says it in words.
    let log = common::ok_stdout(p.forge().args(["log"]).env("TZ", "UTC"));
    assert!(
        log.contains("forge handoff")
            && log.contains("(context-threshold), now the pending resume"),
        "{log}"
    );
}

#[test]
fn handoff_and_signal_outside_a_project_are_errors_that_say_how_to_start_one() {
    let p = TestProject::bare_folder();
    // Another project's handoff is pending globally: nothing here may replace it.
    let global = p.home.join(".claude/pending-resume");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    let theirs = "/elsewhere/.forge/handoffs/handoff-20261121-101502.md\n";
    std::fs::write(&global, theirs).unwrap();
    // A dotfiles repository does not make the home folder a project.
    common::git(&p.home, &["init", "-q"]);
    let root_forge_before = std::path::Path::new("/.forge").exists();
    let places: [(&str, PathBuf, &str); 3] = [
        (
            "a plain folder",
            p.root.clone(),
            "is not a project: it has no .forge/ folder and is not the root of a git repository",
        ),
        (
            "the home folder",
            p.home.clone(),
            "is your home folder, not a project: cd into your project first",
        ),
        (
            "/",
            PathBuf::from("/"),
            "/ is not a project: cd into your project first",
        ),
    ];
    let signal = [
        "signal",
        "--from",
        "a",
        "--to",
        "b",
        "--task",
        "T-1",
        "--status",
        "blocked",
        "--question",
        "Which?",
    ];
    for (name, dir, says) in places {
        for args in [&["handoff"][..], &signal[..]] {
            let out = p.forge().current_dir(&dir).args(args).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {stderr}");
            assert!(out.stdout.is_empty(), "{name} {args:?}");
            assert!(stderr.contains(says), "{name} {args:?}: {stderr}");
            assert!(
                stderr.contains("cd into your project") && stderr.contains("--project DIR"),
                "{name} {args:?}: {stderr}"
            );
        }
        // Unattended, it stays silent and writes nothing either.
        p.forge()
            .current_dir(&dir)
            .args(["handoff", "--auto", "--trigger", "context-threshold"])
            .assert()
            .success()
            .stdout("")
            .stderr("");
        if dir != std::path::Path::new("/") {
            assert!(!dir.join(".forge").exists(), "{name}: .forge/ was created");
        }
        assert_eq!(std::fs::read_to_string(&global).unwrap(), theirs, "{name}");
    }
    assert_eq!(std::path::Path::new("/.forge").exists(), root_forge_before);
    // The plain folder's message names the way in: `forge init` makes it a project.
    let out = p.forge().args(["handoff"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("run `forge init` here"));
    std::fs::create_dir_all(p.forge_dir()).unwrap();
    let path = common::ok_stdout(p.forge().args(["handoff"]));
    assert!(std::path::Path::new(path.trim()).is_file());
    common::ok_stdout(p.forge().args(signal));
}
