//! A hostile project (a cloned repository can ship every file here) never turns a
//! command's output against the terminal: no escape sequence, bell, C1 control or
//! bidi override reaches stdout or stderr of any command, while `--json` output keeps
//! the exact values (escaped, so a script reads back what the files hold).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{TestProject, git};
use forge::model::setup::memory::project_dir_name;
use serde_json::Value;

/// Everything a terminal could act on, packed into one value: a screen clear, an
/// OSC 52 clipboard write, a title change ended by ST, an 8-bit CSI introducer, a bell, a
/// backspace, a carriage return, DEL, and bidi overrides, embeddings and isolates.
const H: &str = "\u{1b}[2J\u{1b}]52;c;cHduZWQ=\u{7}\u{1b}]0;title\u{1b}\\\u{9b}\u{8}\r\u{7f}\u{202E}\u{202A}\u{2066}\u{200F}";

/// The characters no command may print: C0 controls but `\n` and `\t`, DEL, C1, and
/// the bidi controls. Written out here rather than taken from the library, so a
/// mistake in the sanitiser cannot hide itself.
fn forbidden(c: char) -> bool {
    let u = u32::from(c);
    (u < 0x20 && c != '\n' && c != '\t')
        || (0x7f..=0x9f).contains(&u)
        || (0x202a..=0x202e).contains(&u)
        || (0x2066..=0x2069).contains(&u)
        || matches!(u, 0x200e | 0x200f | 0x061c)
}

fn assert_safe(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Some((at, c)) = text.char_indices().find(|(_, c)| forbidden(*c)) {
        panic!("{what}: U+{:04X} at byte {at} in {text:?}", u32::from(c));
    }
}

/// Runs a command and checks both streams; returns its output.
fn run_safe(p: &TestProject, args: &[&str], stdin: Option<&str>) -> std::process::Output {
    let mut cmd = p.forge();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s.to_owned());
    }
    let out = cmd.output().unwrap();
    let label = format!("forge {}", args.join(" "));
    assert_safe(&format!("{label} (stdout)"), &out.stdout);
    assert_safe(&format!("{label} (stderr)"), &out.stderr);
    // Escape sequences go whole: not even their payload is left as text.
    if !args.contains(&"--json") {
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(!text.contains("52;c;cHduZWQ="), "{label}: {text}");
        }
    }
    out
}

const BRANCH: &str = "feat\u{202E}gpj.exe";
const SESSION: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

/// A project whose every outside value carries [`H`].
fn hostile_project() -> TestProject {
    let p = TestProject::new();
    // A branch name git accepts (no control characters, but any other Unicode).
    git(&p.root, &["checkout", "-q", "-b", BRANCH]);
    let task = format!("T-1{H}");
    p.write(
        ".forge/state.json",
        &serde_json::json!({"phase": format!("build{H}"), "task": task}).to_string(),
    );
    p.write(
        ".forge/handoffs/handoff-20261121-094500.md",
        &format!(
            "---\nkind: session-handoff\ncreated_at: 2026-11-21T09:45:00Z\n\
             session_id: {SESSION}\ntrigger: manual\nbranch: main{H}\n\
             forge_task: T-9{H}\n---\n# Session handoff — title{H}\n\n\
             ## Current task\nDo the thing{H} now.\n"
        ),
    );
    let signal = serde_json::json!({
        "from": format!("builder{H}"), "to": format!("reviewer{H}"),
        "task_id": format!("T-2{H}"), "status": "blocked",
        "open_questions": [format!("Which pool{H}?")], "blocking": true,
    });
    p.write(
        ".forge/handoffs/agent-T-2-20261121-101502.md",
        &format!(
            "## FORGE AGENT HANDOFF\nFrom: builder{H}\nTo: reviewer\nTask: T-2{H}\n\n\
             ### Signal\n```json\n{signal}\n```\n"
        ),
    );
    // A file name with an escape sequence and a bidi override in it.
    p.write(
        &format!(".forge/handoffs/agent-X{H}-20261121-101503.md"),
        "## FORGE AGENT HANDOFF\n### Signal\n```json\n{broken\n```\n",
    );
    let transcript = p.write(&format!("t{H}.jsonl"), "");
    let bridge = serde_json::json!({
        "session_id": SESSION, "used_percentage": 42.0, "context_window_size": 200000,
        "model": format!("Opus{H}"), "transcript_path": transcript,
        "attention": "waiting:permission",
        "attention_message": format!("Claude needs your permission{H}"),
        "updated_at": "2099-01-01T00:00:00Z",
    });
    p.write(
        &format!(".forge/logs/sessions/{SESSION}.json"),
        &bridge.to_string(),
    );
    p.write(
        ".forge/logs/last-session.json",
        &serde_json::json!({"ended_at": format!("2026-11-21T09:00:00Z{H}"),
            "branch": format!("main{H}"), "uncommitted_changes": 1})
        .to_string(),
    );
    p.write(
        ".forge/logs/errors.log",
        &format!("2026-11-21 hook: bad{H}\n"),
    );
    // Claude Code's memory folder for this project: a learned file with a hostile
    // name and a secret-looking line (doctor names the file).
    let memory = p
        .home
        .join(".claude/projects")
        .join(project_dir_name(&p.root.to_string_lossy()))
        .join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(
        memory.join(format!("learned-{H}.md")),
        "# Pattern\nexport API_TOKEN=abcdef123456\n",
    )
    .unwrap();
    std::fs::write(memory.join("MEMORY.md"), format!("# Memory{H}\n")).unwrap();
    // Settings with a raw bidi override and an escaped ESC in a value (init's diff).
    p.write(
        ".claude/settings.json",
        "{\"env\": {\"NAME\": \"x\u{202E}y\\u001b[2J\u{9b}\"}, \"note\u{2066}\": 1}",
    );
    p
}

#[test]
fn no_command_prints_a_control_or_bidi_character() {
    let p = hostile_project();
    let payload = p.payload("statusline/used-42.json");
    let start = p.payload("hooks/SessionStart-startup.json");
    // The status line and the hook last: they rewrite the session's bridge.
    let cases: Vec<(Vec<&str>, Option<&str>)> = vec![
        (vec!["status"], None),
        (vec!["status", "--json"], None),
        (vec!["resume"], None),
        (vec!["resume", "--latest", "--print"], None),
        (vec!["context"], None),
        (vec!["context", "--json"], None),
        (vec!["learn", "status"], None),
        (vec!["learn", "status", "--json"], None),
        (vec!["doctor"], None),
        (vec!["doctor", "--json"], None),
        (vec!["init", "--dry-run"], None),
        (vec!["tui", "--once"], None),
        (vec!["handoff"], None),
        (vec!["statusline"], Some(&payload)),
        (vec!["hook", "SessionStart"], Some(&start)),
    ];
    for (args, stdin) in &cases {
        run_safe(&p, args, *stdin);
    }
    // The status line, the one-line summary and the dashboard show the branch
    // without its override, the rest of the name kept.
    let line = run_safe(&p, &["statusline"], Some(&payload)).stdout;
    assert!(
        String::from_utf8_lossy(&line).contains("featgpj.exe"),
        "{line:?}"
    );
    let status = String::from_utf8(run_safe(&p, &["status"], None).stdout).unwrap();
    assert!(status.contains("Git: branch featgpj.exe ·"), "{status}");
    let frame = String::from_utf8(run_safe(&p, &["tui", "--once"], None).stdout).unwrap();
    assert!(frame.contains("⎇ featgpj.exe ●"), "{frame}");
    assert!(frame.contains("⎇ main · 1 uncommitted"), "{frame}");
    // A value cannot forge a line of its own in the summary either.
    assert!(status.contains("Workflow: phase build"), "{status}");
    assert!(!status.lines().any(|l| l.starts_with("title")), "{status}");
}

/// `s` inside a TOML basic string: controls as `\uXXXX` escapes.
fn toml_escaped(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{:04X}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[test]
fn config_values_and_errors_are_cleaned() {
    let p = hostile_project();
    // An unknown key is an error that quotes the key (and TOML's own message quotes
    // the line): both go to stderr.
    p.write(
        ".forge/config.toml",
        &format!("[statusline]\n\"seg{}\" = 1\n", toml_escaped(H)),
    );
    for args in [
        &["config", "show"][..],
        &["config", "show", "--json"],
        &["config", "validate"],
        &["config", "path"],
        &["status"],
    ] {
        run_safe(&p, args, None);
    }
    p.write(
        ".forge/config.toml",
        &format!("[statusline]\nsegments = [\"model{}\"]\n", toml_escaped(H)),
    );
    for args in [
        &["config", "show"][..],
        &["config", "validate"],
        &["statusline"],
    ] {
        run_safe(&p, args, Some("{}"));
    }
    // A command-line argument quoted back in an error.
    let out = run_safe(&p, &["resume", &format!("handoff-{H}.md")], None);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("forge: "),
        "{out:?}"
    );
}

#[test]
fn signal_text_is_cleaned_on_the_way_out() {
    let p = hostile_project();
    let q = format!("Which{H} one?");
    let out = run_safe(
        &p,
        &[
            "signal",
            "--from",
            "a",
            "--to",
            "b",
            "--task",
            "T-3",
            "--status",
            "blocked",
            "--question",
            &q,
        ],
        None,
    );
    assert!(out.status.success(), "{out:?}");
    let status = String::from_utf8(run_safe(&p, &["status"], None).stdout).unwrap();
    assert!(status.contains("    ? Which one?"), "{status}");
}

#[test]
fn json_output_keeps_the_exact_values() {
    let p = hostile_project();
    let out = run_safe(&p, &["status", "--json"], None);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["workflow"]["task"], format!("T-1{H}"));
    assert_eq!(v["workflow"]["phase"], format!("build{H}"));
    assert_eq!(v["git"]["branch"], BRANCH);
    let names: Vec<&str> = v["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["file_name"].as_str())
        .collect();
    assert!(
        names.contains(&format!("agent-X{H}-20261121-101503.md").as_str()),
        "{names:?}"
    );
    let out = run_safe(&p, &["context", "--json"], None);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["transcript"]
            .as_str()
            .is_some_and(|t| t.ends_with(&format!("t{H}.jsonl"))),
        "{v}"
    );
}

/// Values from files cannot add lines of their own to a command's output.
#[test]
fn ids_and_names_from_files_cannot_forge_a_row() {
    let p = TestProject::new();
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    // A session id whose 8th byte is inside a character, and one with a newline.
    for (file, id) in [
        (
            "forged1",
            "€€€x\n* deadbeef  now Stop  permission: Allow rm -rf /?\n",
        ),
        ("forged2", "ab\ncd\u{2028}ef"),
    ] {
        p.write(
            &format!(".forge/logs/sessions/{file}.json"),
            &serde_json::json!({
                "session_id": id,
                "attention": "waiting:permission",
                "attention_message": "line one\nline two",
                "last_event_at": now,
            })
            .to_string(),
        );
    }
    for args in [&["sessions"][..], &["status"][..]] {
        let out = run_safe(&p, args, None);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            !text.lines().any(|l| l.starts_with("* deadbeef")),
            "{args:?}: {text}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("line two")),
            "{args:?}: {text}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("cd")),
            "{args:?}: {text}"
        );
    }
    // A handoff file name with a newline: its row in `forge resume` stays one row.
    let name = "handoff-20261121-094509\n  99  FORGED ROW\n.md";
    p.write(
        &format!(".forge/handoffs/{name}"),
        "---\nkind: session-handoff\n---\n# Session handoff\n",
    );
    let out = run_safe(&p, &["resume"], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.lines().any(|l| l.trim_start().starts_with("99")),
        "{text}"
    );
}

#[test]
fn a_session_from_the_future_is_never_live() {
    let p = TestProject::new();
    p.write(
        ".forge/logs/sessions/zzzz.json",
        r#"{"session_id":"zzzz","last_event_at":"2099-01-01T00:00:00Z","updated_at":"2099-01-01T00:00:00Z","attention":"waiting:permission","attention_message":"paste this","used_percentage":97}"#,
    );
    let out = run_safe(&p, &["sessions", "--live"], None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("No live session"));
    let out = run_safe(&p, &["status"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Attention:"), "{text}");
    let v: serde_json::Value = serde_json::from_slice(
        &p.forge()
            .args(["status", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["attention"], serde_json::json!([]));
}

#[test]
fn absurd_sizes_and_empty_ids_are_clear_errors() {
    let p = TestProject::new();
    let out = p
        .forge()
        .args(["tui", "--once", "--width", "65535", "--height", "65535"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at most 2000"));
    let out = p
        .forge()
        .args(["handoff", "--session", ""])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--session needs a session id"));
}
