//! Beyond one machine: Signals travel through the repository's own git remote
//! (docs/share.md). A bare repository is the remote; clones of it, each with its own
//! `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME`, stand for machines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom"
)]

use crate::common;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{git, ok_stdout, wait_until};
use serde_json::{Value, json};

/// The remote and the folder the machines live in.
struct World {
    dir: tempfile::TempDir,
    remote: PathBuf,
}

/// One machine: a clone of the remote with a home of its own.
struct Machine {
    root: PathBuf,
    home: PathBuf,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let remote = base.join("remote.git");
        std::fs::create_dir_all(&remote).unwrap();
        git(&remote, &["init", "-q", "--bare", "-b", "main"]);
        let seed = base.join("seed");
        std::fs::create_dir_all(&seed).unwrap();
        git(&seed, &["init", "-q", "-b", "main"]);
        std::fs::write(seed.join(".gitignore"), ".forge/\n").unwrap();
        git(&seed, &["add", ".gitignore"]);
        git(&seed, &["commit", "-qm", "initial"]);
        git(&seed, &["push", "-q", remote.to_str().unwrap(), "main"]);
        Self { dir, remote }
    }

    /// A machine named `name`, sharing through `origin` (the remote) when `share`.
    fn machine(&self, name: &str, share: bool) -> Machine {
        let base = self.dir.path().canonicalize().unwrap();
        let root = base.join(name);
        let home = base.join(format!("home-{name}"));
        std::fs::create_dir_all(home.join("xdg/forge")).unwrap();
        git(
            &base,
            &[
                "clone",
                "-q",
                self.remote.to_str().unwrap(),
                root.to_str().unwrap(),
            ],
        );
        let m = Machine { root, home };
        if share {
            m.config("[share]\nremote = \"origin\"\ntimeout_secs = 20\n");
        }
        m
    }
}

impl Machine {
    fn config(&self, text: &str) {
        std::fs::write(self.home.join("xdg/forge/config.toml"), text).unwrap();
    }

    fn env(&self, cmd: &mut Command) {
        cmd.current_dir(&self.root)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("xdg"))
            .env("XDG_STATE_HOME", self.home.join("state"))
            .env("NO_COLOR", "1");
    }

    fn forge(&self) -> assert_cmd::Command {
        let mut std = Command::new(env!("CARGO_BIN_EXE_forge"));
        self.env(&mut std);
        assert_cmd::Command::from_std(std)
    }

    fn std_forge(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_forge"));
        self.env(&mut c);
        c
    }

    fn signal(&self, from: &str, to: &str, task: &str, question: &str) -> PathBuf {
        let out = ok_stdout(self.forge().args([
            "signal",
            "--from",
            from,
            "--to",
            to,
            "--task",
            task,
            "--status",
            "blocked",
            "--question",
            question,
        ]));
        PathBuf::from(out.trim())
    }

    fn statusline(&self, sid: &str) -> String {
        let payload = json!({
            "session_id": sid, "cwd": self.root,
            "workspace": {"current_dir": self.root, "project_dir": self.root},
            "model": {"id": "claude-opus-4-6", "display_name": "Opus 4.6"},
        });
        ok_stdout(
            self.forge()
                .arg("statusline")
                .env("CLAUDE_PROJECT_DIR", &self.root)
                .write_stdin(payload.to_string()),
        )
    }

    /// SessionStart as agent `agent`, and how long the hook took.
    fn session_start(&self, sid: &str, agent: &str) -> (String, Duration) {
        let payload = json!({
            "session_id": sid, "cwd": self.root, "hook_event_name": "SessionStart",
            "source": "startup", "transcript_path": "",
        });
        let started = Instant::now();
        let out = ok_stdout(
            self.forge()
                .args(["hook", "SessionStart"])
                .env("CLAUDE_PROJECT_DIR", &self.root)
                .env("FORGE_AGENT", agent)
                .write_stdin(payload.to_string()),
        );
        (out, started.elapsed())
    }

    fn mcp_inbox(&self, agent: &str) -> Value {
        let mut c = self.std_forge();
        c.arg("mcp")
            .env("CLAUDE_PROJECT_DIR", &self.root)
            .env("FORGE_AGENT", agent)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = c.spawn().unwrap();
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
        let answer = ask(2, "tools/call", json!({"name": "inbox", "arguments": {}}));
        drop(input);
        let _ = child.wait();
        answer["result"].clone()
    }

    fn status(&self) -> Value {
        let out = self.forge().args(["status", "--json"]).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// This machine's writer id, as `forge share --status` names it once a share
    /// (the one a Signal starts in the background, or a `forge share`) has made it:
    /// `--status` itself makes none.
    fn writer(&self) -> String {
        let named = || {
            let text = ok_stdout(self.forge().args(["share", "--status"]));
            text.lines()
                .find_map(|l| l.strip_prefix("this machine: writer "))
                .and_then(|l| l.split(' ').next())
                .map(str::to_owned)
        };
        wait_until("a writer id", || named().is_some());
        named().unwrap()
    }

    /// The `share` lines of the event log, as outcomes.
    fn share_outcomes(&self) -> Vec<Value> {
        std::fs::read_to_string(self.root.join(".forge/logs/events.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["event"] == "share")
            .flat_map(|v| v["outcomes"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    fn cached(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(self.root.join(".forge/share/inbox"))
            .map(|r| {
                r.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("agent-"))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    }
}

/// The refs of the remote under `refs/forge/`.
fn remote_refs(remote: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args(["for-each-ref", "--format=%(refname)", "refs/forge/"])
        .current_dir(remote)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_signal_on_machine_a_reaches_machine_b_which_resolves_it_and_a_sees_it_resolved() {
    let w = World::new();
    let a = w.machine("a", true);
    let b = w.machine("b", true);
    // alice, on machine A, blocks on bob: published in the background.
    let written = a.signal(
        "alice",
        "bob",
        "T-9",
        "Which pool size, api_key=sk-live-abcdef0123456789abcdef?",
    );
    let a_ref = format!("refs/forge/signals/{}", a.writer());
    wait_until("A's ref on the remote", || {
        remote_refs(&w.remote).contains(&a_ref)
    });
    // What was sent is redacted, as plain git shows it.
    let name = written.file_name().unwrap().to_str().unwrap().to_owned();
    let shown = Command::new("git")
        .args(["show", &format!("{a_ref}:{name}")])
        .current_dir(&w.remote)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("Which pool size"), "{shown}");
    assert!(!shown.contains("sk-live-abcdef0123456789abcdef"), "{shown}");
    // Before B fetches, B knows nothing.
    assert!(!b.statusline("sess-b").contains('⚑'));
    // B's next fetch (what SessionStart starts in the background; here in the
    // foreground).
    let out = ok_stdout(b.forge().args(["share"]));
    assert!(out.contains("fetched 1 other writer"), "{out}");
    // B's status line counts it...
    let line = b.statusline("sess-b");
    assert!(line.contains("⚑1"), "{line}");
    // ...SessionStart tells bob, marked remote, with its origin...
    let (start, _) = b.session_start("sess-b", "bob");
    assert!(start.contains("Which pool size"), "{start}");
    assert!(
        start.contains("a remote Signal, from remote writer"),
        "{start}"
    );
    assert!(start.contains("(branch main)"), "{start}");
    // ...and the MCP inbox lists it with writer, machine and branch.
    let inbox = b.mcp_inbox("bob");
    let text = inbox["content"][0]["text"].as_str().unwrap_or_default();
    let items: Value = serde_json::from_str(text)
        .ok()
        .or_else(|| inbox.get("structuredContent").cloned())
        .unwrap_or(Value::Null);
    let all = items.to_string();
    assert!(
        all.contains(&format!("\"writer\":\"{}\"", a.writer())),
        "{inbox:#}"
    );
    assert!(all.contains("\"branch\":\"main\""), "{inbox:#}");
    // forge status --json: blocked, with its remote origin.
    let status = b.status();
    let remote_entry = status["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["origin"]["remote"].is_object())
        .cloned()
        .unwrap_or_else(|| panic!("{status:#}"));
    assert_eq!(
        remote_entry["origin"]["remote"]["writer"],
        json!(a.writer())
    );
    assert_eq!(status["blocked"].as_array().unwrap().len(), 1, "{status:#}");
    // The dashboard shows it (selected first: blocked), saying where it came from.
    let frame = b
        .forge()
        .args(["tui", "--once", "--width", "160", "--height", "40"])
        .output()
        .unwrap();
    let frame = String::from_utf8_lossy(&frame.stdout);
    assert!(
        frame.contains(&format!("⇄ from remote writer {} on machine", a.writer())),
        "{frame}"
    );
    // A remote Signal is shown, never resumed.
    let cached = b.root.join(".forge/share/inbox").join(&b.cached()[0]);
    let resumed = b
        .forge()
        .args(["resume", cached.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!resumed.status.success());
    assert!(!b.root.join(".forge/pending-resume").exists());
    assert!(cached.exists());

    // bob resolves it on B: a new entry in B's own ref, in the background.
    ok_stdout(b.forge().args([
        "signal", "resolve", "T-9", "--answer", "use 20", "--from", "bob",
    ]));
    let b_ref = format!("refs/forge/signals/{}", b.writer());
    wait_until("B's ref on the remote", || {
        remote_refs(&w.remote).contains(&b_ref)
    });
    // A's next fetch: resolved there too.
    ok_stdout(a.forge().args(["share", "--fetch"]));
    let status = a.status();
    assert_eq!(status["blocked"], json!([]), "{status:#}");
    assert!(!a.statusline("sess-a").contains('⚑'));
    let resolution = status["handoffs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["origin"]["remote"]["writer"] == json!(b.writer()))
        .cloned()
        .unwrap_or_else(|| panic!("{status:#}"));
    assert_eq!(
        resolution["signal"]["status"],
        json!("partial"),
        "{resolution:#}"
    );
    // doctor checks the remote and the refspec.
    let doctor: Value = serde_json::from_slice(
        &a.forge()
            .args(["doctor", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let check = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "share")
        .cloned()
        .unwrap();
    assert_eq!(check["status"], "ok", "{check:#}");
    assert!(
        check["details"]
            .to_string()
            .contains("+refs/forge/signals/*:refs/forge/fetched/*")
    );
    assert!(
        check["details"]
            .to_string()
            .contains("2 writer refs on the remote"),
        "{check:#}"
    );
}

#[test]
fn ten_writers_publishing_at_once_lose_nothing() {
    let w = World::new();
    let machines: Vec<Machine> = (0..10).map(|i| w.machine(&format!("m{i}"), true)).collect();
    // Each machine's Signal written by hand, so the ten pushes below are the only
    // ones, all at once.
    for (i, m) in machines.iter().enumerate() {
        let dir = m.root.join(".forge/handoffs");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("agent-T-{i}-20261121-101502.md")),
            format!(
                "## FORGE AGENT HANDOFF\nTask: T-{i}\n### Signal\n```json\n\
                 {{\"from\":\"w{i}\",\"to\":\"lead\",\"task_id\":\"T-{i}\",\"status\":\"blocked\",\"blocking\":true}}\n```\n"
            ),
        )
        .unwrap();
    }
    let children: Vec<_> = machines
        .iter()
        .map(|m| {
            m.std_forge()
                .args(["share", "--publish"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let refs = remote_refs(&w.remote);
    assert_eq!(refs.len(), 10, "{refs:?}");
    let lead = w.machine("lead", true);
    ok_stdout(lead.forge().args(["share", "--fetch"]));
    assert_eq!(lead.cached().len(), 10, "{:?}", lead.cached());
    assert!(lead.statusline("sess").contains("⚑10"));
}

#[test]
fn an_unreachable_or_hanging_remote_costs_a_hook_nothing_and_is_said_once() {
    let w = World::new();
    let a = w.machine("a", true);
    let off = w.machine("off", false);
    a.signal("alice", "bob", "T-1", "q?");
    // Sent (the foreground run waits for the background one's lock).
    ok_stdout(a.forge().args(["share"]));
    // The remote is gone (a path that does not exist).
    git(
        &a.root,
        &["remote", "set-url", "origin", "/nonexistent/remote.git"],
    );
    let out = a.forge().args(["share"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("forge share: ") && err.contains("/nonexistent/remote.git"),
        "{err}"
    );
    let failed = |m: &Machine| {
        m.share_outcomes()
            .into_iter()
            .filter(|o| o["kind"] == "share_failed")
            .count()
    };
    // Said once in the event log, however many runs fail the same way.
    wait_until("the failure logged", || failed(&a) >= 1);
    let _ = a.forge().args(["share"]).output().unwrap();
    let _ = a.forge().args(["share"]).output().unwrap();
    assert_eq!(failed(&a), 1, "{:#?}", a.share_outcomes());
    let status = ok_stdout(a.forge().args(["share", "--status"]));
    assert!(status.contains("last error: at"), "{status}");
    // A hook pays nothing for it: SessionStart with sharing on against one off.
    let (_, on) = a.session_start("s1", "alice");
    let (_, plain) = off.session_start("s2", "alice");
    assert!(
        on < plain + Duration::from_millis(500),
        "{on:?} vs {plain:?}"
    );
    // A remote that hangs (an ssh that never answers): the hook returns at once,
    // a foreground run stops at its deadline and says so.
    let hang = a.home.join("hang.sh");
    std::fs::write(&hang, "#!/bin/sh\nexec sleep 60\n").unwrap();
    Command::new("chmod")
        .arg("755")
        .arg(&hang)
        .status()
        .unwrap();
    git(
        &a.root,
        &["remote", "set-url", "origin", "ssh://nowhere.invalid/x.git"],
    );
    a.config("[share]\nremote = \"origin\"\ntimeout_secs = 2\n");
    // (One background fetch per 30 s: the earlier SessionStart started one.)
    let stamp = a.root.join(".forge/share/fetch-started");
    std::fs::remove_file(&stamp).unwrap();
    let started = Instant::now();
    let payload = json!({
        "session_id": "s3", "cwd": a.root, "hook_event_name": "SessionStart",
        "source": "startup", "transcript_path": "",
    });
    ok_stdout(
        a.forge()
            .args(["hook", "SessionStart"])
            .env("CLAUDE_PROJECT_DIR", &a.root)
            .env("GIT_SSH_COMMAND", &hang)
            .write_stdin(payload.to_string()),
    );
    let hook = started.elapsed();
    assert!(hook < Duration::from_secs(2), "{hook:?}");
    assert!(stamp.exists(), "the hook started a fetch");
    let started = Instant::now();
    let out = a
        .forge()
        .args(["share", "--fetch"])
        .env("GIT_SSH_COMMAND", &hang)
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(!out.status.success());
    assert!(took < Duration::from_secs(10), "{took:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did not finish before the deadline"), "{err}");
    // Back to a remote that works: the error is cleared, the Signal sent.
    git(
        &a.root,
        &["remote", "set-url", "origin", w.remote.to_str().unwrap()],
    );
    ok_stdout(a.forge().args(["share"]));
    let status = ok_stdout(a.forge().args(["share", "--status"]));
    assert!(status.contains("last error: none"), "{status}");
    assert!(status.contains("last sent: 1 Signal"), "{status}");
}

/// Writes `stream` into the bare `remote` with `git fast-import`.
fn fast_import(remote: &Path, stream: &[u8]) {
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet", "--force"])
        .current_dir(remote)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stream).unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_hostile_ref_is_refused_or_capped_and_logged_once() {
    let w = World::new();
    let b = w.machine("b", true);
    let signal = "## FORGE AGENT HANDOFF\nTask: T-1\n### Signal\n```json\n\
                  {\"from\":\"x\",\"to\":\"bob\",\"task_id\":\"T-1\",\"status\":\"blocked\",\"blocking\":true}\n```\n\
                  Hello \u{1b}[2J\u{7}there\n";
    // One writer's tree: a good Signal (with control characters in its text), a
    // symbolic link, a name with a control character, a sub-tree, a blob larger
    // than the cap.
    let big = "x".repeat(70_000);
    let mut s = String::new();
    s.push_str("commit refs/forge/signals/evil-1\ncommitter e <e@e> 1700000000 +0000\ndata 1\nx\n");
    let _ = writeln!(
        s,
        "M 100644 inline agent-T-1-20261121-101502.md\ndata {}\n{signal}",
        signal.len()
    );
    s.push_str("M 120000 inline agent-link-20261121-101502.md\ndata 11\n/etc/passwd\n");
    s.push_str("M 100644 inline \"agent-\\033[2J-20261121-101502.md\"\ndata 2\nhi\n");
    s.push_str("M 100644 inline agent-dir-20261121-101502.md/inner.md\ndata 2\nhi\n");
    let _ = writeln!(
        s,
        "M 100644 inline agent-big-20261121-101502.md\ndata {}\n{big}",
        big.len()
    );
    // Another writer's tree of 100,000 entries (one blob, many names).
    s.push_str("blob\nmark :1\ndata 2\nhi\n");
    s.push_str("commit refs/forge/signals/evil-2\ncommitter e <e@e> 1700000000 +0000\ndata 1\nx\n");
    for i in 0..100_000 {
        let _ = writeln!(s, "M 100644 :1 agent-T-{i}-20261121-101502.md");
    }
    fast_import(&w.remote, s.as_bytes());
    let out = ok_stdout(b.forge().args(["share", "--fetch"]));
    assert!(
        out.contains("refused: evil-2: more than 2000 entries"),
        "{out}"
    );
    assert!(out.contains("symbolic link"), "{out}");
    assert!(out.contains("a tree is not a Signal"), "{out}");
    assert!(
        out.contains("70000 bytes, more than the 65536 taken"),
        "{out}"
    );
    assert!(out.contains("not an agent handoff's name"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    // Only the good entry is in the cache, its control characters gone.
    let cached = b.cached();
    assert_eq!(cached.len(), 1, "{cached:?}");
    let text = std::fs::read_to_string(b.root.join(".forge/share/inbox").join(&cached[0])).unwrap();
    assert!(text.contains("Hello there"), "{text:?}");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'));
    assert!(b.statusline("s").contains("⚑1"));
    // Logged once: a second fetch of the same refs adds no refusal.
    let refused = |m: &Machine| {
        m.share_outcomes()
            .into_iter()
            .filter(|o| o["kind"] == "share_refused")
            .count()
    };
    let first = refused(&b);
    assert!(first >= 5, "{:#?}", b.share_outcomes());
    ok_stdout(b.forge().args(["share", "--fetch"]));
    assert_eq!(refused(&b), first);
    // The writer's ref deleted on the remote: its Signals leave the cache.
    git(
        &w.remote,
        &["update-ref", "-d", "refs/forge/signals/evil-1"],
    );
    ok_stdout(b.forge().args(["share", "--fetch"]));
    assert!(b.cached().is_empty(), "{:?}", b.cached());
}

#[test]
fn a_project_file_cannot_turn_sharing_on() {
    let w = World::new();
    let a = w.machine("a", false);
    std::fs::create_dir_all(a.root.join(".forge")).unwrap();
    std::fs::write(
        a.root.join(".forge/config.toml"),
        "[share]\nremote = \"origin\"\n",
    )
    .unwrap();
    a.signal("alice", "bob", "T-1", "q?");
    std::thread::sleep(Duration::from_millis(500));
    let out = a.forge().args(["share"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("sharing is off"));
    assert!(remote_refs(&w.remote).is_empty());
}

#[test]
fn a_one_gib_blob_is_refused_by_its_declared_size_never_read() {
    let w = World::new();
    let b = w.machine("b", true);
    b.config("[share]\nremote = \"origin\"\ntimeout_secs = 120\n");
    // A writer's tree holding one good Signal and a 1 GiB blob (zeros: a few MB in
    // the pack, streamed into fast-import a MiB at a time).
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet", "--force"])
        .current_dir(&w.remote)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let good = "## FORGE AGENT HANDOFF\nTask: T-1\n### Signal\n```json\n\
                {\"from\":\"x\",\"to\":\"bob\",\"task_id\":\"T-1\",\"status\":\"blocked\",\"blocking\":true}\n```\n";
    write!(
        input,
        "commit refs/forge/signals/huge-1\ncommitter e <e@e> 1700000000 +0000\ndata 1\nx\n\
         M 100644 inline agent-T-1-20261121-101502.md\ndata {}\n{good}\n\
         M 100644 inline agent-huge-20261121-101502.md\ndata {}\n",
        good.len(),
        1u64 << 30
    )
    .unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        input.write_all(&chunk).unwrap();
    }
    input.write_all(b"\n").unwrap();
    drop(input);
    assert!(child.wait().unwrap().success());
    let out = ok_stdout(b.forge().args(["share", "--fetch"]));
    assert!(
        out.contains(
            "huge-1: agent-huge-20261121-101502.md: 1073741824 bytes, more than the 65536 taken"
        ),
        "{out}"
    );
    assert_eq!(b.cached().len(), 1, "the good one only: {:?}", b.cached());
    let refused = b
        .share_outcomes()
        .into_iter()
        .filter(|o| o["kind"] == "share_refused")
        .count();
    assert_eq!(refused, 1, "{:#?}", b.share_outcomes());
}

#[test]
fn share_status_only_reads_it_makes_no_writer_id() {
    let w = World::new();
    let a = w.machine("a", true);
    let kept = a.home.join("state/forge/share-writer");
    let text = ok_stdout(a.forge().args(["share", "--status"]));
    assert!(
        text.contains("this machine: no writer id yet (the first `forge share` makes one)"),
        "{text}"
    );
    assert!(!kept.exists(), "--status made {}", kept.display());
    // The first run makes it, and --status names it from then on.
    a.signal("alice", "bob", "T-1", "q?");
    a.forge().args(["share"]).assert().success();
    let id = std::fs::read_to_string(&kept).unwrap();
    assert_eq!(a.writer(), id.trim());
}
