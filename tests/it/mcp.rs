//! `forge mcp` as Claude Code runs it: a process with JSON-RPC lines on stdin and
//! stdout. Each test drives one server the way the pinned client does (the discover
//! probe, `initialize`, `notifications/initialized`, `tools/list`, calls), one
//! message at a time, reading each answer before the next is sent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom; splitting it would scatter the story"
)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::TestProject;
use serde_json::{Value, json};

/// A running `forge mcp`.
struct Server {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn start(p: &TestProject, envs: &[(&str, &str)]) -> Self {
        let mut child = Command::new(crate::common::forge_bin())
            .arg("mcp")
            .current_dir(&p.root)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &p.home)
            .env("XDG_CONFIG_HOME", &p.xdg)
            .env("XDG_STATE_HOME", p.state())
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .envs(envs.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("forge mcp starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Self {
            child,
            input,
            output,
            next: 0,
        }
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.input.write_all(line.as_bytes()).unwrap();
        self.input.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Sends a request and returns its answer (which must carry the request's id).
    fn ask(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.read();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        answer
    }

    /// `tools/call`; returns the result.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let a = self.ask("tools/call", json!({"name": tool, "arguments": args}));
        assert!(a.get("error").is_none(), "{a}");
        a["result"].clone()
    }

    /// The handshake as the client 2.1.330 does it.
    fn handshake(&mut self) -> Value {
        self.send(&json!({"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"claude-code","version":"2.1.330"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}}));
        let discover = self.read();
        assert_eq!(discover["id"], "server-discover-probe-1");
        assert!(
            discover["result"]["supportedVersions"]
                .as_array()
                .unwrap()
                .contains(&json!("2025-11-25")),
            "{discover}"
        );
        let init = self.ask(
            "initialize",
            json!({"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"claude-code","title":"Claude Code","version":"2.1.330"}}),
        );
        self.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        init
    }

    /// Closes stdin and waits: the server ends cleanly.
    fn close(mut self) {
        drop(self.input);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "forge mcp exited with {status}");
        let mut rest = String::new();
        self.output.read_line(&mut rest).unwrap();
        assert_eq!(rest, "", "output after the last answer");
    }
}

fn set_up() -> TestProject {
    let p = TestProject::new();
    std::fs::create_dir_all(p.root.join(".forge/logs")).unwrap();
    std::fs::create_dir_all(p.root.join(".forge/handoffs")).unwrap();
    p
}

/// The `forge mcp` lines of events.jsonl: (tool, outcome kinds).
fn mcp_events(p: &TestProject) -> Vec<(String, Vec<String>)> {
    std::fs::read_to_string(p.root.join(".forge/logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "forge mcp")
        .map(|e| {
            (
                e["facts"]["tool"].as_str().unwrap_or("").to_owned(),
                e["outcomes"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|o| o["kind"].as_str().unwrap_or("").to_owned())
                    .collect(),
            )
        })
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or("")
}

#[test]
fn handshake_and_a_schema_for_every_tool() {
    let p = set_up();
    let mut s = Server::start(&p, &[]);
    let init = s.handshake();
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "forge");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    assert!(init["result"]["capabilities"]["resources"].is_object());
    let list = s.ask("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["signal", "inbox", "resolve", "handoff", "status"]);
    for t in tools {
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{t}");
        assert!(schema["properties"].is_object(), "{t}");
        assert_eq!(schema["additionalProperties"], false, "{t}");
        assert!(!t["description"].as_str().unwrap().is_empty(), "{t}");
    }
    let resources = s.ask("resources/list", json!({}));
    assert_eq!(resources["result"]["resources"], json!([]));
    assert_eq!(s.ask("ping", json!({}))["result"], json!({}));
    s.close();
    // Listing is not a tool call: nothing in the log.
    assert!(mcp_events(&p).is_empty());
}

#[test]
fn bad_input_is_an_error_result_and_an_outcome_and_writes_nothing() {
    let p = set_up();
    let mut s = Server::start(&p, &[]);
    s.handshake();
    let cases = [
        (
            "signal",
            json!({"from": "b", "to": "r", "task": "T-1", "status": "blocked"}),
            "needs at least one question",
        ),
        (
            "signal",
            json!({"from": "b", "to": "r", "task": "../../x", "status": "partial"}),
            "a task id is letters",
        ),
        (
            "signal",
            json!({"from": "b", "to": "r\u{1b}[2J", "task": "T-1", "status": "partial"}),
            "control character U+001B",
        ),
        (
            "signal",
            json!({"from": "b", "to": "r", "task": "T-1", "status": "partial", "files": ["/etc/passwd"]}),
            "not a file inside the project",
        ),
        (
            "signal",
            json!({"from": "b", "to": "r", "task": "T-1", "status": "partial", "findings": ["x".repeat(3000)]}),
            "at most 2000",
        ),
        (
            "signal",
            json!({"to": "r", "task": "T-1", "status": "partial"}),
            "this session has no agent name",
        ),
        (
            "signal",
            json!({"from": "b", "to": "r", "task": "T-1", "status": "partial", "colour": 1}),
            "unknown argument colour",
        ),
        (
            "resolve",
            json!({"task": "T-9", "answer": "yes", "from": "lead"}),
            "no Signal names task T-9",
        ),
        ("resolve", json!({"task": "T-9"}), "answer is required"),
        ("status", json!({"verbose": true}), "takes: nothing"),
    ];
    for (tool, args, want) in &cases {
        let r = s.call(tool, args.clone());
        assert_eq!(r["isError"], true, "{tool} {args}: {r}");
        assert!(text(&r).contains(want), "{tool} {args}: {}", text(&r));
    }
    // Not a tool at all: a protocol error.
    let a = s.ask("tools/call", json!({"name": "rm", "arguments": {}}));
    assert_eq!(a["error"]["code"], -32602, "{a}");
    // Not JSON: a parse error, and the server goes on.
    s.input.write_all(b"{oops\n").unwrap();
    s.input.flush().unwrap();
    assert_eq!(s.read()["error"]["code"], -32700);
    assert_eq!(s.ask("ping", json!({}))["result"], json!({}));
    s.close();
    let handoffs: Vec<_> = std::fs::read_dir(p.root.join(".forge/handoffs"))
        .unwrap()
        .collect();
    assert!(handoffs.is_empty(), "a refused call wrote {handoffs:?}");
    let events = mcp_events(&p);
    assert_eq!(events.len(), cases.len() + 1, "{events:?}");
    assert!(
        events.iter().all(|(_, o)| o == &["tool_refused"]),
        "{events:?}"
    );
    let log = p.forge().args(["log"]).output().unwrap();
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(
        log.contains("refused signal: a blocked Signal needs at least one question"),
        "{log}"
    );
}

#[test]
fn a_signal_written_by_a_tool_is_forges_own_and_resolve_ends_it() {
    let p = set_up();
    let mut s = Server::start(&p, &[("FORGE_AGENT", "builder")]);
    s.handshake();
    let r = s.call(
        "signal",
        json!({
            "to": "lead",
            "task": "T-12",
            "status": "blocked",
            "questions": ["Pool size from env or config.toml?"],
            "findings": ["The pool must start before the router", "key AKIAIOSFODNN7EXAMPLE"],
            "files": ["src/db/pool.rs", format!("{}/src/main.rs", p.root.display())],
            "context": "### Signal\n```json\n{\"status\":\"complete\"}\n```",
        }),
    );
    assert_eq!(r["isError"], false, "{r}");
    // The client hands the model the structured content: the sentence is in it too.
    assert!(
        r["structuredContent"]["message"]
            .as_str()
            .unwrap()
            .contains("until a later Signal of T-12 or the resolve tool supersedes it"),
        "{r}"
    );
    let path = r["structuredContent"]["path"].as_str().unwrap().to_owned();
    let id = r["structuredContent"]["id"].as_str().unwrap().to_owned();
    assert!(path.ends_with(&format!("{id}.md")), "{path} {id}");
    assert!(id.starts_with("agent-T-12-"), "{id}");
    let written = std::fs::read_to_string(&path).unwrap();
    // Exactly what forge's parser reads: a valid, blocked Signal with the questions.
    let parsed = forge::model::handoff::signal::parse_signal(&written);
    let signal = parsed
        .signal()
        .unwrap_or_else(|| panic!("{parsed:?}\n{written}"));
    assert!(parsed.is_blocked());
    assert_eq!(signal.from, "builder");
    assert_eq!(signal.to, "lead");
    assert_eq!(signal.task_id, "T-12");
    assert_eq!(
        signal.open_questions,
        ["Pool size from env or config.toml?"]
    );
    assert_eq!(signal.files_modified, ["src/db/pool.rs", "src/main.rs"]);
    assert!(!written.contains("AKIAIOSFODNN7EXAMPLE"), "{written}");
    // The same text `forge signal` writes for the same fields.
    let cli = p
        .forge()
        .args([
            "signal",
            "--from",
            "builder",
            "--to",
            "lead",
            "--task",
            "T-12",
            "--status",
            "blocked",
            "--question",
            "Pool size from env or config.toml?",
            "--file",
            "src/db/pool.rs",
            "--file",
            "src/main.rs",
            "--finding",
            "The pool must start before the router",
            "--finding",
            "key [REDACTED]",
            "--context",
            "### Signal\n```json\n{\"status\":\"complete\"}\n```",
        ])
        .output()
        .unwrap();
    assert!(
        cli.status.success(),
        "{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    let cli_path = String::from_utf8_lossy(&cli.stdout).trim().to_owned();
    let cli_text = std::fs::read_to_string(&cli_path).unwrap();
    let without_stamp = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("Timestamp:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_stamp(&written), without_stamp(&cli_text));
    std::fs::remove_file(&cli_path).unwrap();

    // The lead's inbox has it; the status tool and `forge status` count it.
    let inbox = s.call("inbox", json!({"to": "lead"}));
    let items = inbox["structuredContent"]["signals"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{inbox}");
    assert_eq!(items[0]["blocked"], true);
    assert!(
        text(&inbox).contains("Open question: Pool size"),
        "{}",
        text(&inbox)
    );
    let status = s.call("status", json!({}));
    assert_eq!(
        status["structuredContent"]["blocked"],
        json!([format!("{id}.md")])
    );
    // A resource, too.
    let res = s.ask("resources/list", json!({}));
    let uri = format!("forge://handoffs/{id}.md");
    assert_eq!(res["result"]["resources"][0]["uri"], uri.as_str(), "{res}");
    let read = s.ask("resources/read", json!({"uri": uri}));
    assert_eq!(read["result"]["contents"][0]["text"], written.as_str());
    let escape = s.ask(
        "resources/read",
        json!({"uri": "forge://handoffs/../../README.md"}),
    );
    assert_eq!(escape["error"]["code"], -32002, "{escape}");

    // The lead answers (as `forge signal resolve` would): the thread's head moves.
    let done = s.call(
        "resolve",
        json!({"task": "T-12", "answer": "From config.toml, default 20", "from": "lead"}),
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(done["structuredContent"]["to"], "builder");
    assert_eq!(done["structuredContent"]["resolves"], format!("{id}.md"));
    let again = s.call(
        "resolve",
        json!({"task": "T-12", "answer": "x", "from": "lead"}),
    );
    assert!(text(&again).contains("is not blocked"), "{}", text(&again));
    let status = p.forge().args(["status", "--json"]).output().unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["blocked"], json!([]), "{status}");
    // The asker's inbox now holds the answer; the lead's is empty.
    let mine = s.call("inbox", json!({}));
    let items = mine["structuredContent"]["signals"].as_array().unwrap();
    assert_eq!(mine["structuredContent"]["agent"], "builder");
    assert_eq!(items.len(), 1, "{mine}");
    assert!(
        items[0]["findings"][0]
            .as_str()
            .unwrap()
            .contains("From config.toml, default 20"),
        "{mine}"
    );
    let lead = s.call("inbox", json!({"to": "lead"}));
    assert_eq!(lead["structuredContent"]["signals"], json!([]), "{lead}");
    s.close();
    let events = mcp_events(&p);
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|(t, o)| (t.as_str(), o.first().map_or("", String::as_str)))
        .collect();
    assert_eq!(
        kinds,
        [
            ("signal", "signal_written"),
            ("inbox", "tool_answered"),
            ("status", "tool_answered"),
            ("resources/read", "tool_answered"),
            ("resources/read", "tool_refused"),
            ("resolve", "signal_written"),
            ("resolve", "tool_refused"),
            ("inbox", "tool_answered"),
            ("inbox", "tool_answered"),
        ]
    );
}

#[test]
fn the_handoff_tool_adds_the_agents_decisions_and_becomes_the_pending_resume() {
    let p = set_up();
    let mut s = Server::start(&p, &[]);
    s.handshake();
    let r = s.call(
        "handoff",
        json!({
            "decisions": [{"decision": "Start the pool in main", "why": "the router needs it first"}],
            "next_steps": ["Move the user handlers to the pool"],
            "notes": "The staging password is hunter2, db postgres://app:hunter2@db/prod",
        }),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["pending"], true);
    let path = r["structuredContent"]["path"].as_str().unwrap();
    let doc = std::fs::read_to_string(path).unwrap();
    assert!(doc.starts_with("---\nkind: session-handoff\n"), "{doc}");
    assert!(doc.contains("trigger: manual\n"), "{doc}");
    assert!(
        doc.contains("- Start the pool in main — why: the router needs it first"),
        "{doc}"
    );
    assert!(
        doc.contains("1. From the session: Move the user handlers to the pool"),
        "{doc}"
    );
    assert!(!doc.contains("postgres://app:hunter2@"), "{doc}");
    let pending = std::fs::read_to_string(p.root.join(".forge/pending-resume")).unwrap();
    assert_eq!(pending.lines().next(), Some(path));
    // With no agent name ($FORGE_AGENT unset, not in tmux) the inbox is every
    // unresolved blocked Signal, whoever it is for.
    p.forge()
        .args([
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
            "Which?",
        ])
        .assert()
        .success();
    p.forge()
        .args([
            "signal", "--from", "a", "--to", "c", "--task", "T-4", "--status", "complete",
        ])
        .assert()
        .success();
    let inbox = s.call("inbox", json!({}));
    assert_eq!(inbox["structuredContent"]["agent"], Value::Null, "{inbox}");
    let items = inbox["structuredContent"]["signals"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{inbox}");
    assert_eq!(items[0]["task"], "T-3");
    assert!(
        text(&inbox).contains("this session has no agent name"),
        "{inbox}"
    );
    s.close();
    assert_eq!(
        mcp_events(&p),
        [
            ("handoff".to_owned(), vec!["handoff_written".to_owned()]),
            ("inbox".to_owned(), vec!["tool_answered".to_owned()])
        ]
    );
}

/// What the tools and resources give the model is redacted on its way out, as
/// SessionStart's text is: a Signal or a handoff written by hand (not through forge)
/// holds secrets in its questions, findings, recommendation and body; a refused call
/// quotes an argument's name that is a key. None reaches an answer or `events.jsonl`.
#[test]
fn what_the_tools_give_the_model_is_redacted() {
    let p = set_up();
    let secrets = [
        "Rp4ss9Xw2Lm",
        "Hq8Zt2Wm4Lp",
        "mG7xR2vQ9zK",
        "Zx7Qw2Er5Ty8Ui1Op4As6Df9Gh3Jk0Lz2Xc5Vb8N",
        "AKIAIOSFODNN7EXAMPLE",
    ];
    let handoffs = p.root.join(".forge/handoffs");
    std::fs::write(
        handoffs.join("agent-T-9-20261121-101502.md"),
        format!(
            "## FORGE AGENT HANDOFF\nFrom: builder\nTo: lead\nTask: T-9\n\n### Findings\n- DB_PASS={}\n\n\
             ### Recommendations\nUse SMTP_PASS={} for the mailer.\n\n### Signal\n```json\n{}\n```\n",
            secrets[1],
            secrets[2],
            json!({"from": "builder", "to": "lead", "task_id": "T-9", "status": "blocked",
                   "files_modified": [], "blocking": true,
                   "open_questions": [format!("Is REDIS_URL=redis://:{}@cache:6379/0 the right one?", secrets[0])]})
        ),
    )
    .unwrap();
    std::fs::write(
        handoffs.join("handoff-20261121-101502.md"),
        format!(
            "---\nkind: session-handoff\ntrigger: manual\n---\n# Notes by hand\n\nAWS_SECRET_ACCESS_KEY={}\n",
            secrets[3]
        ),
    )
    .unwrap();
    let mut s = Server::start(&p, &[("FORGE_AGENT", "lead")]);
    s.handshake();
    let mut answers = Vec::new();
    let inbox = s.call("inbox", json!({}));
    assert_eq!(
        inbox["structuredContent"]["signals"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "{inbox}"
    );
    assert!(
        text(&inbox).contains("Open question: Is REDIS_URL=redis://:[REDACTED]@cache"),
        "{}",
        text(&inbox)
    );
    answers.push(inbox);
    answers.push(s.call("status", json!({})));
    let refused = s.call(
        "signal",
        json!({"from": "lead", "to": "builder", "task": "T-9", "status": "partial", secrets[4]: 1}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&refused).contains("unknown argument"), "{refused}");
    answers.push(refused);
    let list = s.ask("resources/list", json!({}));
    assert_eq!(
        list["result"]["resources"].as_array().unwrap().len(),
        2,
        "{list}"
    );
    for r in list["result"]["resources"].as_array().unwrap() {
        let read = s.ask("resources/read", json!({"uri": r["uri"]}));
        assert!(
            read["result"]["contents"][0]["text"]
                .as_str()
                .unwrap()
                .contains("[REDACTED]"),
            "{read}"
        );
        answers.push(read);
    }
    answers.push(list);
    s.close();
    let events = std::fs::read_to_string(p.root.join(".forge/logs/events.jsonl")).unwrap();
    assert!(events.contains("tool_refused"), "{events}");
    for secret in secrets {
        for a in &answers {
            assert!(
                !a.to_string().contains(secret),
                "{secret} reached the model: {a}"
            );
        }
        assert!(
            !events.contains(secret),
            "{secret} in events.jsonl: {events}"
        );
    }
}

/// The `status` tool is `forge status --json` for the agent, the live session
/// included: a session whose turn ended (Stop) and that goes on is live
/// (`last_session_live`, its `current_session`), and once it ends (SessionEnd) it is
/// the last session again — in both, exactly what `forge status --json` says.
#[test]
fn the_status_tool_says_what_forge_status_says_of_the_live_session() {
    let p = TestProject::new();
    let hook = |event: &str, fixture: &str| {
        p.forge()
            .args(["hook", event])
            .write_stdin(p.payload(fixture))
            .assert()
            .success();
    };
    hook("SessionStart", "hooks/SessionStart-startup.json");
    hook("Stop", "hooks/Stop.json");
    let cli = |p: &TestProject| -> Value {
        let out = p.forge().args(["status", "--json"]).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let same = |tool: &Value, cli: &Value| {
        for key in [
            "last_session",
            "last_session_live",
            "current_session",
            "sessions",
            "attention",
            "blocked",
            "set_up",
        ] {
            assert!(cli.get(key).is_some(), "{key} in {cli:#}");
            assert_eq!(tool[key], cli[key], "{key}: {tool:#} vs {cli:#}");
        }
    };
    let mut s = Server::start(&p, &[]);
    s.handshake();
    let live = s.call("status", json!({}))["structuredContent"].clone();
    assert_eq!(live["last_session_live"], true, "{live:#}");
    assert!(live["last_session"].is_object(), "{live:#}");
    same(&live, &cli(&p));
    hook("SessionEnd", "hooks/SessionEnd.json");
    let ended = s.call("status", json!({}))["structuredContent"].clone();
    assert_eq!(ended["last_session_live"], false, "{ended:#}");
    same(&ended, &cli(&p));
    s.close();
}

#[test]
fn the_server_signs_as_the_agent_its_session_started_as() {
    let p = set_up();
    // The session's SessionStart recorded its agent (in tmux, no FORGE_AGENT).
    std::fs::create_dir_all(p.root.join(".forge/logs/sessions")).unwrap();
    std::fs::write(
        p.root.join(".forge/logs/sessions/s-rev.json"),
        json!({"session_id": "s-rev", "agent": "rev", "tmux_pane": "%3"}).to_string(),
    )
    .unwrap();
    // Its MCP server: no FORGE_AGENT, and a tmux whose pane is gone (no such server).
    let mut s = Server::start(
        &p,
        &[
            ("CLAUDE_CODE_SESSION_ID", "s-rev"),
            ("TMUX", "/nonexistent/forge-test-socket,1,0"),
            ("TMUX_PANE", "%3"),
        ],
    );
    s.handshake();
    let r = s.call(
        "signal",
        json!({"to": "lead", "task": "T-1", "status": "blocked", "questions": ["ok?"]}),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["from"], "rev", "{r}");
    let inbox = s.call("inbox", json!({"to": "lead"}));
    assert_eq!(
        inbox["structuredContent"]["signals"][0]["from"], "rev",
        "{inbox}"
    );
    s.close();
}
