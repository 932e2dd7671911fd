//! One repository, one inbox: real `git worktree add` trees of one repository, and
//! forge run in each as Claude Code and the commands run it. A Signal written in one
//! work tree reaches the others — their status line, SessionStart, `forge status
//! --json`, the MCP inbox — says where it came from, is resolved from any of them,
//! and a work tree removed with `git worktree remove` leaves no error behind
//! (docs/design.md#the-repositorys-inbox).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom"
)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{TestProject, git, ok_stdout};
use serde_json::{Value, json};

/// A repository (`main`, the test project) with two linked work trees beside it,
/// `wt-a` on branch `feat-a` and `wt-b` on branch `feat-b`.
struct Repo {
    p: TestProject,
    a: PathBuf,
    b: PathBuf,
}

impl Repo {
    fn new() -> Self {
        let p = TestProject::new();
        let parent = p.root.parent().unwrap().to_path_buf();
        let a = parent.join("wt-a");
        let b = parent.join("wt-b");
        git(
            &p.root,
            &["worktree", "add", "-q", "-b", "feat-a", a.to_str().unwrap()],
        );
        git(
            &p.root,
            &["worktree", "add", "-q", "-b", "feat-b", b.to_str().unwrap()],
        );
        Self {
            a: a.canonicalize().unwrap(),
            b: b.canonicalize().unwrap(),
            p,
        }
    }

    /// `forge` run in `dir` (a work tree), as from a shell there.
    fn forge(&self, dir: &Path) -> assert_cmd::Command {
        let mut c = self.p.forge();
        c.current_dir(dir);
        c
    }

    /// `forge status --json` in `dir` (set up or not: it prints the snapshot either
    /// way).
    fn status(&self, dir: &Path) -> Value {
        let out = self.forge(dir).args(["status", "--json"]).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// One status-line tick of session `sid` in `dir`, at 30 %.
    fn statusline(&self, dir: &Path, sid: &str) -> String {
        let payload = json!({
            "session_id": sid,
            "cwd": dir,
            "workspace": {"current_dir": dir, "project_dir": dir},
            "model": {"id": "claude-opus-4-6", "display_name": "Opus 4.6"},
            "context_window": {"context_window_size": 200000, "used_percentage": 30,
                "current_usage": {"input_tokens": 60000, "output_tokens": 10,
                    "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}},
        });
        ok_stdout(
            self.forge(dir)
                .arg("statusline")
                .env("CLAUDE_PROJECT_DIR", dir)
                .write_stdin(payload.to_string()),
        )
    }

    /// SessionStart of session `sid` in `dir`, as agent `agent`: what it tells the
    /// model.
    fn session_start(&self, dir: &Path, sid: &str, agent: &str) -> String {
        let payload = json!({
            "session_id": sid, "cwd": dir, "hook_event_name": "SessionStart",
            "source": "startup", "transcript_path": "",
        });
        ok_stdout(
            self.forge(dir)
                .args(["hook", "SessionStart"])
                .env("CLAUDE_PROJECT_DIR", dir)
                .env("FORGE_AGENT", agent)
                .write_stdin(payload.to_string()),
        )
    }

    /// `forge mcp` in `dir` as agent `agent`: calls `tool` with `args` and returns
    /// the result.
    fn mcp(&self, dir: &Path, agent: &str, tool: &str, args: Value) -> Value {
        let mut child = Command::new(crate::common::forge_bin())
            .arg("mcp")
            .current_dir(dir)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.p.home)
            .env("XDG_CONFIG_HOME", &self.p.xdg)
            .env("XDG_STATE_HOME", self.p.state())
            .env("CLAUDE_PROJECT_DIR", dir)
            .env("FORGE_AGENT", agent)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut ask = |id: u64, method: &str, params: Value| -> Value {
            let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            writeln!(input, "{msg}").unwrap();
            input.flush().unwrap();
            let mut line = String::new();
            output.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap()
        };
        ask(
            1,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}}),
        );
        let answer = ask(2, "tools/call", json!({"name": tool, "arguments": args}));
        drop(input);
        let _ = child.wait();
        answer["result"].clone()
    }

    /// The project's `errors.log` in `dir`, empty when there is none.
    fn errors(dir: &Path) -> String {
        std::fs::read_to_string(dir.join(".forge/logs/errors.log")).unwrap_or_default()
    }
}

#[test]
fn a_signal_written_in_one_worktree_reaches_the_other_and_is_resolved_from_there() {
    let r = Repo::new();
    // Both work trees have run forge before (their own .forge/).
    for (dir, sid) in [(&r.a, "sess-a"), (&r.b, "sess-b")] {
        let line = r.statusline(dir, sid);
        assert!(!line.contains('⚑'), "{line}");
    }
    // alice, in work tree A, blocks on bob.
    let out = ok_stdout(r.forge(&r.a).args([
        "signal",
        "--from",
        "alice",
        "--to",
        "bob",
        "--task",
        "T-7",
        "--status",
        "blocked",
        "--question",
        "Which pool size?",
    ]));
    let written = PathBuf::from(out.trim());
    // It goes to the repository's inbox, in the main work tree, and says where it
    // came from.
    assert_eq!(
        written.parent().unwrap(),
        r.p.root.join(".forge/handoffs"),
        "{out}"
    );
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(
        text.contains(&format!("Worktree: {}\nBranch: feat-a\n", r.a.display())),
        "{text}"
    );

    // bob, in work tree B: the status line counts it...
    let line = r.statusline(&r.b, "sess-b");
    assert!(line.contains("⚑1"), "{line}");
    // ...and so does a tick served from the cache (the folders unchanged since).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let _ = r.statusline(&r.b, "sess-b");
    let line = r.statusline(&r.b, "sess-b");
    assert!(line.contains("⚑1"), "{line}");
    // forge status --json lists it blocked, with where it came from.
    let status = r.status(&r.b);
    let name = written.file_name().unwrap().to_str().unwrap();
    assert_eq!(status["blocked"], json!([name]), "{status:#}");
    let entry = status["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["file_name"] == name)
        .unwrap();
    assert_eq!(entry["origin"]["worktree"], r.a.display().to_string());
    assert_eq!(entry["origin"]["branch"], "feat-a");
    // The text says which work tree and branch asked.
    let text = ok_stdout(r.forge(&r.b).arg("status"));
    assert!(
        text.contains(&format!("from worktree {} (branch feat-a)", r.a.display())),
        "{text}"
    );
    // The dashboard lists it blocked, and its preview says where it came from.
    let frame = ok_stdout(
        r.forge(&r.b)
            .args(["tui", "--once", "--width", "160", "--height", "40"]),
    );
    assert!(
        frame.contains("T-7") && frame.contains("blocked"),
        "{frame}"
    );
    assert!(frame.contains("⇄ from worktree"), "{frame}");
    // SessionStart tells bob's next session, with the question.
    let start = r.session_start(&r.b, "sess-b2", "bob");
    assert!(
        start.contains("Blocked agent signal: task T-7 (alice→bob)"),
        "{start}"
    );
    assert!(start.contains("Open question: Which pool size?"), "{start}");
    assert!(
        start.contains(&format!("from worktree {} (branch feat-a)", r.a.display())),
        "{start}"
    );
    // The MCP inbox of bob has it.
    let inbox = r.mcp(&r.b, "bob", "inbox", json!({}));
    let data = &inbox["structuredContent"];
    assert_eq!(data["signals"].as_array().unwrap().len(), 1, "{inbox:#}");
    assert_eq!(data["signals"][0]["task"], "T-7");
    assert_eq!(data["signals"][0]["worktree"], r.a.display().to_string());
    assert_eq!(data["signals"][0]["branch"], "feat-a");
    assert!(
        data["message"]
            .as_str()
            .unwrap()
            .contains("1 Signal for bob, 1 blocked"),
        "{inbox:#}"
    );

    // bob answers from work tree B, through the MCP tool.
    let resolved = r.mcp(
        &r.b,
        "bob",
        "resolve",
        json!({"task": "T-7", "answer": "Twenty"}),
    );
    assert_eq!(resolved["isError"], false, "{resolved:#}");
    // Resolved everywhere: both work trees' status lines and status.
    for dir in [&r.a, &r.b, &r.p.root] {
        assert_eq!(r.status(dir)["blocked"], json!([]), "{}", dir.display());
    }
    let line = r.statusline(&r.a, "sess-a");
    assert!(!line.contains('⚑'), "{line}");
    // alice's inbox has bob's answer, from work tree B.
    let inbox = r.mcp(&r.a, "alice", "inbox", json!({}));
    let data = &inbox["structuredContent"];
    assert_eq!(data["signals"][0]["from"], "bob", "{inbox:#}");
    assert_eq!(data["signals"][0]["worktree"], r.b.display().to_string());
    assert_eq!(data["signals"][0]["branch"], "feat-b");

    // A Signal written by hand into work tree B's own folder is found from A too.
    let own_b = r.b.join(".forge/handoffs/agent-T-8-20261121-101502.md");
    std::fs::write(
        &own_b,
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap()
            .replace("T-012", "T-8"),
    )
    .unwrap();
    let status = r.status(&r.a);
    assert_eq!(
        status["blocked"],
        json!(["agent-T-8-20261121-101502.md"]),
        "{status:#}"
    );
    let entry = status["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["file_name"] == "agent-T-8-20261121-101502.md")
        .unwrap();
    assert_eq!(entry["origin"]["worktree"], r.b.display().to_string());
    assert_eq!(entry["origin"]["branch"], "feat-b");
    let line = r.statusline(&r.a, "sess-a");
    assert!(line.contains("⚑1"), "{line}");

    // Work tree B removed: its hand-written Signal goes with it, and nothing errs.
    git(
        &r.p.root,
        &["worktree", "remove", "--force", r.b.to_str().unwrap()],
    );
    assert!(!r.b.exists());
    let line = r.statusline(&r.a, "sess-a");
    assert!(!line.contains('⚑'), "{line}");
    assert_eq!(r.status(&r.a)["blocked"], json!([]));
    let start = r.session_start(&r.a, "sess-a2", "alice");
    assert!(!start.contains("Blocked agent signal"), "{start}");
    // alice's next session is told of bob's answer, once.
    assert!(
        start.contains("Signal for alice: task T-7 is partial, from bob, in "),
        "{start}"
    );
    assert!(start.contains("  Answer: Twenty\n"), "{start}");
    let again = r.session_start(&r.a, "sess-a3", "alice");
    assert!(!again.contains("Signal for alice"), "{again}");
    // bob's answer, written into the main work tree, outlives work tree B.
    let inbox = r.mcp(&r.a, "alice", "inbox", json!({}));
    assert_eq!(inbox["structuredContent"]["signals"][0]["from"], "bob");
    for dir in [&r.a, &r.p.root] {
        assert_eq!(Repo::errors(dir), "", "{}", dir.display());
    }
}

#[test]
fn another_worktrees_folder_is_read_only_when_sound_and_its_links_never() {
    let r = Repo::new();
    let fixture =
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap();
    // Work tree B's .forge/ is a link to a folder elsewhere that holds a blocked
    // Signal: refused, as its own sessions refuse it, so A never reads it.
    let elsewhere = r.p.dir.path().join("elsewhere/.forge");
    std::fs::create_dir_all(elsewhere.join("handoffs")).unwrap();
    std::fs::write(
        elsewhere.join("handoffs/agent-T-1-20261121-101502.md"),
        fixture.replace("T-012", "T-1"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, r.b.join(".forge")).unwrap();
    // Work tree A's own folder holds a link named like a Signal: never followed.
    std::fs::create_dir_all(r.a.join(".forge/handoffs")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("handoffs/agent-T-1-20261121-101502.md"),
        r.a.join(".forge/handoffs/agent-T-2-20261121-101502.md"),
    )
    .unwrap();
    // The main work tree's inbox: writable from A, read from B.
    let status = r.status(&r.p.root);
    assert_eq!(status["blocked"], json!([]), "{status:#}");
    let line = r.statusline(&r.p.root, "sess-main");
    assert!(!line.contains('⚑'), "{line}");
    // A Signal written from A lands in the main work tree and is seen from there.
    ok_stdout(r.forge(&r.a).args([
        "signal",
        "--from",
        "a",
        "--to",
        "m",
        "--task",
        "T-3",
        "--status",
        "blocked",
        "--question",
        "ok?",
    ]));
    let status = r.status(&r.p.root);
    let blocked: Vec<String> = serde_json::from_value(status["blocked"].clone()).unwrap();
    assert_eq!(blocked.len(), 1, "{status:#}");
    assert!(blocked[0].starts_with("agent-T-3-"), "{status:#}");
    assert_eq!(Repo::errors(&r.p.root), "");
}

#[test]
fn a_linked_worktrees_sessions_handoffs_and_payloads_stay_its_own() {
    let r = Repo::new();
    let payload = r.p.dir.path().join("start-payload.json");
    common::user_config(
        &r.p,
        &format!(
            "[[on_session_start]]\ncommand = \"cat > '{}'\"\n",
            payload.display()
        ),
    );
    // herdctl's session_start payload: the work tree's own path.
    r.session_start(&r.a, "sess-a", "alice");
    let sent: Value = serde_json::from_str(&std::fs::read_to_string(&payload).unwrap()).unwrap();
    assert_eq!(
        sent["session"]["worktree_path"],
        r.a.display().to_string(),
        "{sent:#}"
    );
    assert_eq!(
        sent["session"]["working_directory"],
        r.a.display().to_string()
    );
    // A Signal from B, then a session handoff in A: the handoff is A's own, and its
    // open Signals say where the Signal is.
    ok_stdout(r.forge(&r.b).args([
        "signal",
        "--from",
        "bob",
        "--to",
        "alice",
        "--task",
        "T-5",
        "--status",
        "blocked",
        "--question",
        "Which?",
    ]));
    let out = ok_stdout(r.forge(&r.a).arg("handoff"));
    let handoff = PathBuf::from(out.trim());
    assert_eq!(handoff.parent().unwrap(), r.a.join(".forge/handoffs"));
    let text = std::fs::read_to_string(&handoff).unwrap();
    assert!(
        text.contains(&format!(
            "- blocked: task T-5 (bob→alice) in {}/.forge/handoffs/agent-T-5-",
            r.p.root.display()
        )),
        "{text}"
    );
    // The main work tree's .forge/ holds the repository's inbox, and no session of A.
    assert!(!r.p.root.join(".forge/logs/sessions/sess-a.json").exists());
    assert!(r.a.join(".forge/logs/sessions/sess-a.json").exists());
}

#[test]
fn pruning_the_main_worktree_keeps_the_answer_to_another_worktrees_question() {
    let r = Repo::new();
    let fixture =
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap();
    let stamp = |days: i64| {
        (chrono::Utc::now() - chrono::Duration::days(days))
            .format("%Y%m%d-%H%M%S")
            .to_string()
    };
    // A question written by hand in B's own folder, answered in the main work tree's
    // inbox; both old.
    std::fs::create_dir_all(r.b.join(".forge/handoffs")).unwrap();
    std::fs::write(
        r.b.join(format!(".forge/handoffs/agent-T-9-{}.md", stamp(60))),
        fixture.replace("T-012", "T-9"),
    )
    .unwrap();
    std::fs::create_dir_all(r.p.root.join(".forge/handoffs")).unwrap();
    let answer =
        r.p.root
            .join(format!(".forge/handoffs/agent-T-9-{}.md", stamp(50)));
    std::fs::write(
        &answer,
        fixture
            .replace("T-012", "T-9")
            .replace("\"blocked\"", "\"complete\"")
            .replace("\"blocking\": true", "\"blocking\": false"),
    )
    .unwrap();
    assert_eq!(r.status(&r.b)["blocked"], json!([]));
    let out = ok_stdout(r.forge(&r.p.root).args([
        "handoff",
        "prune",
        "--older-than",
        "30d",
        "--keep",
        "0",
    ]));
    assert!(answer.exists(), "{out}");
    assert!(
        out.contains("the answer to a blocked Signal of another work tree"),
        "{out}"
    );
    assert_eq!(r.status(&r.b)["blocked"], json!([]), "still answered");
}
