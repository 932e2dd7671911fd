//! Secrets people paste (into commit messages, into a command Claude asks permission
//! for, into a task) are redacted before forge stores or shows them: commit subjects
//! in handoffs, notification messages in session bridges, and every family of the
//! corpus (tests/fixtures/secrets/) through every path text leaves forge by.

#![allow(clippy::unwrap_used)]
#![allow(
    clippy::too_many_lines,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom; splitting it would scatter the story"
)]

use crate::common;

use std::fmt::Write as _;

use common::{TestProject, git};
use serde_json::{Value, json};

const SID: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

/// Shapes that leaked into handoffs before the rule table, one per commit, with
/// the part that must not survive.
const PASTED: [(&str, &str); 8] = [
    (
        "sk_live_51HxAbCdEfGhIjKlMnOpQrStUv",
        "51HxAbCdEfGhIjKlMnOpQrStUv",
    ),
    (
        "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    ),
    (
        "SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG",
        "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG",
    ),
    (
        "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
        "AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    ),
    (
        "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    ),
    (
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "XXXXXXXXXXXXXXXXXXXXXXXX",
    ),
    (
        "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq",
    ),
    ("mysql -uroot -pS3cr3tPass", "S3cr3tPass"),
];

/// A git project with its own `.forge/`, so no `.forge/` in a folder above (such
/// as a stray `/tmp/.forge`) is taken for this project's.
fn project() -> TestProject {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    p
}

#[test]
fn commit_subjects_in_a_handoff_are_redacted() {
    let p = project();
    for (i, (s, _)) in PASTED.iter().enumerate() {
        p.write(&format!("f{i}.txt"), "x\n");
        git(&p.root, &["add", "."]);
        git(
            &p.root,
            &["commit", "-qm", &format!("step {i}: use {s} here")],
        );
    }
    let out = common::ok_stdout(p.forge().arg("handoff"));
    let doc = std::fs::read_to_string(out.trim()).unwrap();
    assert!(doc.contains("Last commits:"), "{doc}");
    // The handoff lists the last five commits: steps 3 to 7.
    for (i, (_, secret)) in PASTED.iter().enumerate().skip(3) {
        assert!(!doc.contains(secret), "{secret} leaked:\n{doc}");
        assert!(doc.contains(&format!("step {i}: use ")), "{doc}");
    }
    assert!(doc.contains("[REDACTED] here"), "{doc}");
}

#[test]
fn notification_messages_are_redacted_before_the_bridge() {
    let p = project();
    let mut payload: Value =
        serde_json::from_str(&p.payload("hooks/Notification-idle.json")).unwrap();
    payload["notification_type"] = json!("permission_prompt");
    payload["message"] = json!(
        "Claude needs your permission to use Bash: mysql -uroot -pS3cr3tPass -e 'select 1' \
         && curl -H 'Authorization: Bearer sk_live_51HxAbCdEfGhIjKlMnOpQrStUv' https://api"
    );
    p.forge()
        .args(["hook", "Notification"])
        .write_stdin(payload.to_string())
        .assert()
        .success()
        .stdout("");
    let bridge: Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{SID}.json"))).unwrap();
    assert_eq!(bridge["attention"], "waiting:permission");
    let msg = bridge["attention_message"].as_str().unwrap();
    assert!(!msg.contains("S3cr3tPass"), "{msg}");
    assert!(!msg.contains("sk_live_51HxAbCdEfGhIjKlMnOpQrStUv"), "{msg}");
    assert!(
        msg.starts_with("Claude needs your permission to use Bash: mysql -uroot -p[REDACTED] -e"),
        "{msg}"
    );
    // What people see in `forge status --json` is the redacted message too.
    let status: Value =
        serde_json::from_str(&common::ok_stdout(p.forge().args(["status", "--json"]))).unwrap();
    assert_eq!(status["sessions"][0]["attention_message"], msg);
}

// ── The corpus (tests/fixtures/secrets/): every family, in context, through every
// path text leaves forge by. See its README.md for the format.

/// One entry of the corpus.
#[derive(Debug, Clone)]
struct Entry {
    /// The file it is in (`env`, `shell`, …).
    file: String,
    /// The rule that must find it (or, in `ordinary.txt`, what it is).
    id: String,
    /// The text given to forge (marks removed), tagged with `[C###]` first.
    text: String,
    /// What must not come out anywhere.
    secrets: Vec<String>,
    /// The tag at its start, which must come out where the text does.
    tag: String,
}

fn parse_corpus(file: &str, text: &str, n: &mut usize) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("=== ") {
            blocks.push((id.trim().to_owned(), Vec::new()));
        } else if let Some((_, lines)) = blocks.last_mut() {
            lines.push(line);
        }
    }
    for (id, mut lines) in blocks {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        let marked = lines.join("\n");
        let mut secrets = Vec::new();
        let mut rest = marked.as_str();
        while let Some(a) = rest.find('«') {
            let after = &rest[a + '«'.len_utf8()..];
            let b = after.find('»').expect("an unclosed «");
            secrets.push(after[..b].to_owned());
            rest = &after[b + '»'.len_utf8()..];
        }
        *n += 1;
        let tag = format!("[C{n:03}]");
        let plain = marked.replace(['«', '»'], "");
        out.push(Entry {
            file: file.to_owned(),
            id,
            text: format!("{tag} {plain}"),
            secrets,
            tag,
        });
    }
    out
}

/// The corpus: the secrets (every file but `ordinary.txt`), and the ordinary text.
fn corpus() -> (Vec<Entry>, Vec<Entry>) {
    let dir = common::fixtures().join("secrets");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    let (mut secrets, mut ordinary) = (Vec::new(), Vec::new());
    let mut n = 0;
    for name in names {
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let file = name.trim_end_matches(".txt");
        let entries = parse_corpus(file, &text, &mut n);
        if file == "ordinary" {
            assert!(
                entries.iter().all(|e| e.secrets.is_empty()),
                "marks in ordinary.txt"
            );
            ordinary.extend(entries);
        } else {
            assert!(
                entries.iter().all(|e| !e.secrets.is_empty()),
                "{name}: an entry without «»"
            );
            secrets.extend(entries);
        }
    }
    (secrets, ordinary)
}

/// The pieces of `secret` that must not come out: every 10-character window of each
/// of its words (a word shorter than that whole), so half a key left behind by a cut
/// counts as a leak. (Windows of lowercase letters only are left out: they can be a
/// word of the context.)
fn pieces(secret: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in secret.split_whitespace() {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() <= 10 {
            if chars.len() >= 5 {
                out.push(word.to_owned());
            }
            continue;
        }
        // Windows that are only lowercase letters and `_` could be a word of the
        // context (`access_token$…` starts like the key `plaid_access_token`).
        for w in chars.windows(10) {
            if w.iter().any(|c| !(c.is_ascii_lowercase() || *c == '_')) {
                out.push(w.iter().collect());
            }
        }
    }
    out
}

/// What of `e`'s secrets comes out in `out`, if anything.
fn leak(out: &str, e: &Entry) -> Option<String> {
    e.secrets
        .iter()
        .flat_map(|s| pieces(s))
        .find(|p| out.contains(p.as_str()))
}

/// Fails with every entry of `entries` whose secret came out in `out` (and, with
/// `shown`, every entry whose tag did not: it never reached the output, so the test
/// would prove nothing about it).
fn assert_no_leak(path: &str, out: &str, entries: &[Entry], shown: bool) {
    let mut bad = Vec::new();
    for e in entries {
        if let Some(p) = leak(out, e) {
            bad.push(format!(
                "{} ({} in {}.txt): {p:?} came out",
                e.tag, e.id, e.file
            ));
        }
        if shown && !out.contains(&e.tag) {
            bad.push(format!(
                "{} ({} in {}.txt) is not in the output",
                e.tag, e.id, e.file
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{path}:\n{}\n--- output ---\n{out}",
        bad.join("\n")
    );
}

#[test]
fn every_family_is_found_by_its_own_rule_in_context() {
    use forge::model::text::redact::{REDACTED, RULES, first_secret, redact, rule_finds};
    let (secrets, ordinary) = corpus();
    let mut bad = Vec::new();
    for e in &secrets {
        if !RULES.iter().any(|r| r.id == e.id) {
            bad.push(format!("{}: no rule {}", e.tag, e.id));
        } else if !rule_finds(&e.id, &e.text) {
            bad.push(format!(
                "{} ({}.txt): {} does not find it",
                e.tag, e.file, e.id
            ));
        }
        let out = redact(&e.text);
        if let Some(p) = leak(&out, e) {
            bad.push(format!("{} ({}): {p:?} leaked: {out}", e.tag, e.id));
        }
        if !out.contains(REDACTED) || !out.starts_with(&e.tag) {
            bad.push(format!("{} ({}): {out}", e.tag, e.id));
        }
    }
    for rule in RULES {
        if !secrets.iter().any(|e| e.id == rule.id) {
            bad.push(format!("rule {} has no entry in the corpus", rule.id));
        }
    }
    for e in &ordinary {
        let out = redact(&e.text);
        if out != e.text || first_secret(&e.text).is_some() {
            bad.push(format!(
                "ordinary {} ({}) changed:\n{}\n→\n{out}",
                e.tag, e.id, e.text
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(secrets.len() >= RULES.len(), "{} entries", secrets.len());
}

/// The shapes issue 20 found leaking everywhere are in the corpus, in context.
#[test]
fn the_shapes_that_leaked_everywhere_are_in_the_corpus() {
    let (secrets, _) = corpus();
    for (id, context) in [
        ("azure-devops-pat-named", "AZURE_DEVOPS_EXT_PAT="),
        ("azure-devops-pat", "az devops login"),
        ("dockerhub-pat", "dckr_pat_"),
        ("docker-login-password", "docker login -u acme -p "),
        ("url-password", "redis://:"),
        ("secret-assignment", "DB_PASS="),
        ("secret-assignment", "SMTP_PASS="),
        ("okta-api-token", "Authorization: SSWS "),
        ("kubeconfig-client-key-data", "client-key-data: "),
        ("firebase-fcm-server-key", ":APA91b"),
        ("secret-assignment", "ALGOLIA_ADMIN_KEY="),
        ("supabase-token", "sbp_"),
        ("pulumi-api-token", "pul-"),
        ("square-access-token", "EAAA"),
        ("1password-service-account-token", "ops_eyJ"),
        ("new-relic-key", "NRAK-"),
        ("dynatrace-api-token", "dt0c01."),
        ("planetscale-token", "pscale_tkn_"),
        ("mapbox-api-token", "sk.eyJ"),
        ("notion-api-token", "ntn_"),
    ] {
        assert!(
            secrets
                .iter()
                .any(|e| e.id == id && e.text.contains(context)),
            "{id} with {context:?}"
        );
    }
}

/// The shapes issue 31's attack review found leaking at every exit (handoffs,
/// SessionStart, status, bridges, "Last commits", MCP results), and the fixed-prefix
/// families beside them, are in the corpus, in context: every exit's test above
/// and below runs over them.
#[test]
fn the_shapes_issue_31_found_leaking_are_in_the_corpus() {
    let (secrets, ordinary) = corpus();
    for (id, context) in [
        ("azure-devops-pat-prose", "az devops login with PAT "),
        ("algolia-api-key-prose", "algolia admin key "),
        ("adafruit-io-key", "aio_"),
        ("contentful-personal-access-token", "CFPAT-"),
        ("private-key-base64", "LS0tLS1CRUdJTi"),
        ("private-key-base64", "tls.key: "),
        ("circleci-personal-api-token", "CCIPAT_"),
        ("posthog-personal-api-key", "phx_"),
        ("hubspot-private-app-token", "pat-na1-"),
        ("yandex-api-key", "AQVN"),
    ] {
        assert!(
            secrets
                .iter()
                .any(|e| e.id == id && e.text.contains(context)),
            "{id} with {context:?}"
        );
    }
    // A certificate, base64-encoded as a Secret's `tls.crt` is, is no secret.
    assert!(
        ordinary
            .iter()
            .any(|e| e.text.contains("tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS")),
        "the certificate entry of ordinary.txt"
    );
}

/// Handoff documents: the last request, a todo item, a commit subject, a Signal
/// question, the task and the agent's own decisions, next steps and notes (the
/// handoff tool of `forge mcp`), each an entry of the corpus (composed in-process; the
/// process test below writes real ones).
#[test]
fn handoff_documents_carry_no_secret_of_the_corpus() {
    use forge::model::handoff::handoff_doc::{
        AgentNotes, HandoffInputs, OpenSignal, Trigger, compose,
    };
    use forge::model::session::state::WorkflowState;
    use forge::model::session::transcript::{Todo, TodoStatus, TranscriptFacts};
    let (secrets, ordinary) = corpus();
    let root = std::path::Path::new("/src/acme");
    let doc = |e: &Entry| {
        let facts = TranscriptFacts {
            todos: vec![Todo {
                id: None,
                content: e.text.clone(),
                status: TodoStatus::InProgress,
            }],
            last_request: Some(e.text.clone()),
            ..TranscriptFacts::default()
        };
        compose(&HandoffInputs {
            root,
            created_at: chrono::Utc::now(),
            session_id: Some(SID.to_owned()),
            trigger: Trigger::Manual,
            context_pct: Some(50.0),
            level: None,
            tokens: None,
            window: None,
            threshold: 70.0,
            transcript_path: None,
            transcript: Some(facts),
            transcript_cut: None,
            transcript_problem: None,
            task: Some(e.text.clone()),
            branch: Some("feat/x".to_owned()),
            uncommitted: Some(1),
            changed_files: Vec::new(),
            recent_commits: vec![e.text.clone()],
            workflow: WorkflowState {
                task: Some(e.text.clone()),
                ..WorkflowState::default()
            },
            signals: vec![OpenSignal {
                file_name: "agent-T-1-20261121-101502.md".to_owned(),
                status: "blocked".to_owned(),
                task: Some("T-1".to_owned()),
                route: None,
                questions: vec![e.text.clone()],
            }],
            has_claude_md: false,
            has_state_json: true,
            // What an agent adds through the handoff tool of `forge mcp`.
            notes: AgentNotes {
                decisions: vec![(e.text.clone(), e.text.clone())],
                next_steps: vec![e.text.clone()],
                notes: Some(e.text.clone()),
            },
            budget: 8 * 1024,
        })
    };
    for e in &secrets {
        assert_no_leak("handoff document", &doc(e), std::slice::from_ref(e), true);
    }
    // Ordinary text comes through: every line of the last request is quoted as it is.
    for e in &ordinary {
        let d = doc(e);
        for line in e.text.lines() {
            assert!(d.contains(&format!("> {line}\n")), "{line:?} in\n{d}");
        }
    }
}

/// Every string in `v`, one a line (the text a model reads, unescaped).
fn strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// `forge mcp`: what its tools give the model (a Signal written by hand, its
/// questions, findings and recommendation through `inbox`; the same file as a
/// resource) and what its `signal` tool writes from an agent's arguments (findings
/// and context), each an entry of the corpus.
#[test]
fn forge_mcp_carries_no_secret_of_the_corpus() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let (secrets, ordinary) = corpus();
    let p = project();
    let handoffs = p.forge_dir().join("handoffs");
    std::fs::create_dir_all(&handoffs).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_forge"))
        .arg("mcp")
        .current_dir(&p.root)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", &p.xdg)
        .env("XDG_STATE_HOME", p.state())
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut id = 0;
    let mut ask = |method: &str, params: Value| -> Value {
        id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        input.write_all(format!("{msg}\n").as_bytes()).unwrap();
        input.flush().unwrap();
        let mut line = String::new();
        output.read_line(&mut line).unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    };
    ask(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}}),
    );
    for (n, e) in secrets.iter().chain(&ordinary).enumerate() {
        // A Signal an agent (or a person) wrote by hand.
        let file = format!("agent-C{n}-20261121-101502.md");
        // A finding pasted as it was: its first line a bullet, the rest as they are.
        let findings = format!("- {}\n", e.text);
        std::fs::write(
            handoffs.join(&file),
            format!(
                "## FORGE AGENT HANDOFF\nFrom: w\nTo: a{n}\nTask: C{n}\n\n### Findings\n{findings}\n\
                 ### Recommendations\n{}\n\n### Signal\n```json\n{}\n```\n",
                e.text,
                json!({"from": "w", "to": format!("a{n}"), "task_id": format!("C{n}"),
                       "status": "blocked", "files_modified": [], "blocking": true,
                       "open_questions": [e.text]})
            ),
        )
        .unwrap();
        let inbox = ask(
            "tools/call",
            json!({"name": "inbox", "arguments": {"to": format!("a{n}")}}),
        );
        let read = ask(
            "resources/read",
            json!({"uri": format!("forge://handoffs/{file}")}),
        );
        std::fs::remove_file(handoffs.join(&file)).unwrap();
        // What an agent gives the signal tool.
        let wrote = ask(
            "tools/call",
            json!({"name": "signal", "arguments": {"from": "w", "to": format!("b{n}"),
                   "task": format!("S{n}"), "status": "partial",
                   "findings": [e.text], "context": e.text}}),
        );
        assert_eq!(wrote["isError"], false, "{} ({}): {wrote}", e.tag, e.id);
        let path = wrote["structuredContent"]["path"].as_str().unwrap();
        let written = std::fs::read_to_string(path).unwrap();
        std::fs::remove_file(path).unwrap();
        for (what, v) in [("inbox", &inbox), ("resources/read", &read)] {
            let mut out = String::new();
            strings(v, &mut out);
            assert_no_leak(what, &out, std::slice::from_ref(e), true);
        }
        let mut out = String::new();
        strings(&wrote, &mut out);
        assert_no_leak(
            "the signal tool's answer",
            &out,
            std::slice::from_ref(e),
            false,
        );
        assert_no_leak(
            "a Signal the signal tool wrote",
            &written,
            std::slice::from_ref(e),
            true,
        );
        if e.secrets.is_empty() {
            // Ordinary text comes through as it was written.
            assert_eq!(
                inbox["structuredContent"]["signals"][0]["questions"][0],
                e.text.as_str(),
                "{inbox}"
            );
        }
    }
    drop(input);
    assert!(child.wait().unwrap().success());
    let events = std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl")).unwrap();
    assert_no_leak("events.jsonl", &events, &secrets, false);
}

/// Wake messages: the pane's lines are an entry (redacted, quoted), and so is the
/// agent's name.
#[test]
fn wake_messages_carry_no_secret_of_the_corpus() {
    use forge::model::agents::notify::{Facts, NotifyEvent, message};
    let (secrets, ordinary) = corpus();
    for e in secrets.iter().chain(&ordinary) {
        let m = message(
            NotifyEvent::Stop,
            &Facts {
                agent: Some(e.text.lines().next().unwrap_or("").to_owned()),
                tmux: Some("work:1.0".to_owned()),
                cwd: "/src/acme".to_owned(),
                pane: e.text.lines().map(str::to_owned).collect(),
                ..Facts::default()
            },
        );
        assert_no_leak("wake message", &m, std::slice::from_ref(e), true);
        for header in ["[SESSION]", "[PANE CONTENT]", "[AVAILABLE ACTIONS]"] {
            assert_eq!(
                m.lines().filter(|l| l.starts_with(header)).count(),
                1,
                "{m}"
            );
        }
        if e.secrets.is_empty() {
            for line in e.text.lines() {
                assert!(
                    m.contains(&format!("> {}\n", line.trim_end())),
                    "{line:?} in\n{m}"
                );
            }
        }
    }
}

/// A WIP commit's scan refuses every entry, streamed in pieces that cut it anywhere,
/// in UTF-8 and in UTF-16; ordinary text passes.
#[test]
fn the_wip_scan_finds_every_entry() {
    use forge::model::text::scan::{Verdict, scan_bytes};
    let (secrets, ordinary) = corpus();
    let mut bad = Vec::new();
    for e in &secrets {
        let mut utf16 = vec![0xFF, 0xFE];
        for u in e.text.encode_utf16() {
            utf16.extend(u.to_le_bytes());
        }
        for (what, bytes) in [("utf-8", e.text.as_bytes().to_vec()), ("utf-16", utf16)] {
            for piece in [7, 4096] {
                if !matches!(scan_bytes(&bytes, piece), Verdict::Secret(_)) {
                    bad.push(format!("{} ({}) {what}, pieces of {piece}", e.tag, e.id));
                }
            }
        }
    }
    for e in &ordinary {
        if scan_bytes(e.text.as_bytes(), 7) != Verdict::Clean {
            bad.push(format!("ordinary {} ({}) refused", e.tag, e.id));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `forge run`'s chain file as forge writes it, and its summary (`forge status`,
/// the dashboard).
#[test]
fn chain_files_hold_the_task_redacted() {
    use forge::model::agents::relay::Chain;
    let (secrets, ordinary) = corpus();
    let p = project();
    let paths = forge::store::Paths::new(&p.root);
    for (i, e) in secrets.iter().chain(&ordinary).enumerate() {
        let chain = Chain {
            version: 1,
            id: format!("chain-{i}"),
            task: e.text.clone(),
            started_at: "2026-11-21T10:00:00Z".to_owned(),
            ended_at: None,
            threshold: 90.0,
            max_handoffs: 3,
            agent: None,
            sessions: Vec::new(),
            exit_code: None,
            notes: Vec::new(),
        };
        forge::store::chains::write(&paths, &chain).unwrap();
        let file =
            std::fs::read_to_string(p.forge_dir().join(format!("logs/chains/chain-{i}.json")))
                .unwrap();
        assert_no_leak("chain file", &file, std::slice::from_ref(e), false);
        assert_no_leak(
            "chain summary",
            &chain.summary(),
            std::slice::from_ref(e),
            true,
        );
        if e.secrets.is_empty() {
            let back: Value = serde_json::from_str(&file).unwrap();
            assert_eq!(back["task"], e.text.as_str());
        }
    }
}

/// A project holding every entry of `entries` where forge's commands read text from:
/// a blocked Signal's open questions (as an agent wrote them), a session bridge's
/// attention message per entry, a chain per entry, and event lines whose outcomes
/// quote them (as an older forge wrote them, unredacted).
fn project_holding(entries: &[Entry]) -> TestProject {
    let p = project();
    let forge_dir = p.forge_dir();
    let now = chrono::Utc::now();
    let iso = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    // A blocked Signal.
    let questions: Vec<&str> = entries.iter().map(|e| e.text.as_str()).collect();
    let signal = json!({"from": "builder", "to": "reviewer", "task_id": "T-7", "status": "blocked",
        "files_modified": [], "open_questions": questions, "blocking": true});
    let handoff = format!(
        "## FORGE AGENT HANDOFF\nFrom: builder\nTo: reviewer\nTimestamp: 2026-11-21T10:15:02Z\nTask: T-7\n\n\
         ### Open Questions\n{}\n\n### Signal\n```json\n{}\n```\n",
        questions
            .iter()
            .map(|q| format!("- {q}"))
            .collect::<Vec<_>>()
            .join("\n"),
        serde_json::to_string_pretty(&signal).unwrap()
    );
    std::fs::create_dir_all(forge_dir.join("handoffs")).unwrap();
    std::fs::write(
        forge_dir.join("handoffs/agent-T-7-20261121-101502.md"),
        handoff,
    )
    .unwrap();
    // Bridges, chains, events.
    std::fs::create_dir_all(forge_dir.join("logs/sessions")).unwrap();
    std::fs::create_dir_all(forge_dir.join("logs/chains")).unwrap();
    let mut events = String::new();
    for (i, e) in entries.iter().enumerate() {
        let sid = format!("{:08x}-8b1d-4c57-9e2a-6d4f1b7c8e21", i + 1);
        let bridge = json!({"session_id": sid, "attention": "waiting:input",
            "attention_message": e.text, "last_event": "Notification", "last_event_at": iso,
            "updated_at": iso, "readings": []});
        std::fs::write(
            forge_dir.join(format!("logs/sessions/{sid}.json")),
            bridge.to_string(),
        )
        .unwrap();
        let chain = json!({"version": 1, "id": sid, "task": e.text, "started_at": iso,
            "threshold": 90.0, "max_handoffs": 3, "sessions": []});
        std::fs::write(
            forge_dir.join(format!("logs/chains/{sid}.json")),
            chain.to_string(),
        )
        .unwrap();
        let line = json!({"time": iso, "event": "Stop", "session": sid, "facts": {},
        "outcomes": [
            {"kind": "stop_blocked", "reason": e.text},
            {"kind": "user_hook_failed", "hook": "on_threshold", "command": e.text, "why": e.text}
        ]});
        let _ = writeln!(events, "{line}");
    }
    std::fs::write(forge_dir.join("logs/events.jsonl"), events).unwrap();
    p
}

/// `forge status`, `forge sessions` and `forge log`, as words and as JSON, over a
/// project holding the corpus (one project per corpus file).
#[test]
fn status_sessions_and_log_carry_no_secret_of_the_corpus() {
    let (secrets, ordinary) = corpus();
    let mut files: Vec<&str> = secrets.iter().map(|e| e.file.as_str()).collect();
    files.dedup();
    let mut groups: Vec<Vec<Entry>> = Vec::new();
    for f in files {
        let of: Vec<Entry> = secrets.iter().filter(|e| e.file == f).cloned().collect();
        // At most 25 sessions a project (a status lists what is live).
        groups.extend(of.chunks(25).map(<[Entry]>::to_vec));
    }
    groups.push(ordinary.clone());
    for entries in &groups {
        let p = project_holding(entries);
        let run = |args: &[&str]| common::ok_stdout(p.forge().args(args));
        // JSON holds everything: every tag must be there, every secret not.
        for args in [
            &["status", "--json"][..],
            &["sessions", "--json"],
            &["log", "--json"],
        ] {
            let out = run(args);
            serde_json::from_str::<Value>(out.lines().next().unwrap_or("{}"))
                .or_else(|_| serde_json::from_str::<Value>(&out))
                .unwrap_or_else(|e| panic!("{args:?} is not JSON ({e}):\n{out}"));
            assert_no_leak(&args.join(" "), &out, entries, true);
        }
        // The words show less (the last five waiting sessions, cut lines), never a
        // secret; the log shows every line.
        for args in [&["status"][..], &["sessions"]] {
            assert_no_leak(&args.join(" "), &run(args), entries, false);
        }
        assert_no_leak("log", &run(&["log"]), entries, true);
        if entries.iter().all(|e| e.secrets.is_empty()) {
            // Ordinary text comes through the JSON unchanged (as JSON strings).
            let out = run(&["status", "--json"]);
            for e in entries {
                let quoted = serde_json::to_string(&e.text).unwrap();
                assert!(out.contains(&quoted[1..quoted.len() - 1]), "{}", e.text);
            }
        }
    }
}

/// SessionStart: the blocked Signal's questions and a resumed handoff an agent wrote
/// by hand (not through forge), each holding entries of the corpus.
#[test]
fn session_start_carries_no_secret_of_the_corpus() {
    let (secrets, _) = corpus();
    // The resumed handoff has room for about 9,000 characters: batches that fit.
    let mut batches: Vec<Vec<Entry>> = vec![Vec::new()];
    let mut size = 0;
    for e in &secrets {
        if size + e.text.len() > 5_000 {
            batches.push(Vec::new());
            size = 0;
        }
        size += e.text.len() + 8;
        batches.last_mut().unwrap().push(e.clone());
        // A key block cut before its END line is redacted to the next END line or
        // the end: it goes last in its batch, so it swallows no other entry.
        if e.text.contains("-----BEGIN") && !e.text.contains("-----END") {
            batches.push(Vec::new());
            size = 0;
        }
    }
    batches.retain(|b| !b.is_empty());
    for batch in batches {
        let p = project_holding(&batch[..batch.len().min(3)]);
        let handoff = p.forge_dir().join("handoffs/handoff-20261121-101502.md");
        let body: String = batch.iter().map(|e| format!("{}\n\n", e.text)).collect();
        std::fs::write(
            &handoff,
            format!("---\nkind: session-handoff\ntrigger: manual\n---\n# Notes\n\n{body}"),
        )
        .unwrap();
        std::fs::write(
            p.forge_dir().join("pending-resume"),
            format!("{}\n", handoff.display()),
        )
        .unwrap();
        let out = common::ok_stdout(
            p.forge()
                .args(["hook", "SessionStart"])
                .write_stdin(p.payload("hooks/SessionStart-startup.json")),
        );
        assert!(out.contains("Resuming from handoff"), "{out}");
        assert_no_leak("SessionStart", &out, &batch, true);
    }
}

/// Session bridges: a Notification's message (up to 4,000 characters come in) is
/// redacted whole, then cut to what the bridge keeps.
#[test]
fn notification_messages_carry_no_secret_of_the_corpus_into_the_bridge() {
    let (secrets, _) = corpus();
    let p = project();
    for e in &secrets {
        let mut payload: Value =
            serde_json::from_str(&p.payload("hooks/Notification-idle.json")).unwrap();
        payload["notification_type"] = json!("idle_prompt");
        payload["message"] = json!(e.text);
        p.forge()
            .args(["hook", "Notification"])
            .write_stdin(payload.to_string())
            .assert()
            .success()
            .stdout("");
        let bridge = p.read(&format!(".forge/logs/sessions/{SID}.json"));
        let v: Value = serde_json::from_str(&bridge).unwrap();
        let msg = v["attention_message"].as_str().unwrap_or_default();
        assert_no_leak("session bridge", msg, std::slice::from_ref(e), true);
        assert!(msg.chars().count() <= 200, "{msg}");
    }
    // A key across the 200th character: a cut first would leave its first part,
    // too short for its rule (`ghp_` needs 20 more), in the bridge.
    let key = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";
    let mut payload: Value =
        serde_json::from_str(&p.payload("hooks/Notification-idle.json")).unwrap();
    payload["message"] = json!(format!("{} {key} and more", "x".repeat(186)));
    p.forge()
        .args(["hook", "Notification"])
        .write_stdin(payload.to_string())
        .assert()
        .success();
    let bridge: Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{SID}.json"))).unwrap();
    let msg = bridge["attention_message"].as_str().unwrap();
    assert!(!msg.contains("ghp_R4nd"), "{msg}");
    assert!(
        msg.ends_with("[REDACTED] and more") || msg.contains(" [REDACT"),
        "{msg}"
    );
}

/// `forge run`: the task reaches Claude Code as given, the chain file and `forge
/// status` show it redacted.
#[test]
fn forge_run_keeps_the_task_for_claude_and_redacts_the_chain_file() {
    const FAKE: &str = r#"#!/bin/sh
for a in "$@"; do printf '%s\n@@ARG@@\n' "$a"; done > "$FAKE_DIR/args"
printf '{"type":"system","subtype":"init","session_id":"fake-session-1","model":"claude-sonnet-4-6","tools":[]}\n'
printf '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"fake-session-1"}\n'
"#;
    let (secrets, _) = corpus();
    // One entry of each file, in one task.
    let mut some: Vec<Entry> = Vec::new();
    for e in &secrets {
        if !some.iter().any(|s| s.file == e.file) {
            some.push(e.clone());
        }
    }
    let task: String = some.iter().map(|e| format!("{}\n", e.text)).collect();
    let p = project();
    let bin = p.bin_dir();
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("claude"), FAKE).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("claude"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    let fake = p.dir.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    p.forge()
        .env("FAKE_DIR", &fake)
        .args(["run", "--", "claude", "-p", &task])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let args = std::fs::read_to_string(fake.join("args")).unwrap();
    assert!(
        args.contains(&task),
        "Claude Code gets the task as given:\n{args}"
    );
    let chain = p.read(".forge/logs/chains/fake-session-1.json");
    assert_no_leak("chain file", &chain, &some, true);
    let status = common::ok_stdout(p.forge().args(["status"]));
    assert_no_leak("forge status (chains)", &status, &some, false);
    assert!(status.contains(&some[0].tag), "{status}");
}

/// A WIP commit in a real repository: a key in a changed file (past the first MiB,
/// in UTF-16, continued over two lines) stops it; a binary file and one over the cap
/// are left out, and `forge log` says so.
#[test]
fn wip_commits_scan_every_byte_and_say_what_they_left_out() {
    use forge::app::ladder::{WIP_SCAN_CAP, wip_commit};
    let p = TestProject::new();
    git(&p.root, &["checkout", "-q", "-b", "feat/wip"]);
    for f in ["big.log", "notes.txt", "utf16.ini", "image.png", "huge.bin"] {
        p.write(f, "x\n");
    }
    git(&p.root, &["add", "."]);
    git(&p.root, &["commit", "-qm", "files"]);
    git(&p.root, &["config", "user.name", "Forge Test"]);
    git(&p.root, &["config", "user.email", "forge@example.com"]);
    let key = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s";
    let refuse = |what: &str| {
        let r = wip_commit(&p.root, "[WIP] test", &["main".to_owned()]);
        let no = r.expect_err(what);
        assert!(
            no.why.contains("holds something that looks like a secret"),
            "{what}: {no:?}"
        );
        git(&p.root, &["checkout", "-q", "--", "."]);
    };
    // Past the first MiB (before: only the first MiB was read).
    let mut big = "log line\n".repeat(300_000);
    let _ = writeln!(big, "token={key}");
    std::fs::write(p.root.join("big.log"), big).unwrap();
    refuse("a key after 2.7 MB");
    // UTF-16 with a mark.
    let mut utf16 = vec![0xFF, 0xFE];
    for u in format!("[auth]\r\ntoken = {key}\r\n").encode_utf16() {
        utf16.extend(u.to_le_bytes());
    }
    std::fs::write(p.root.join("utf16.ini"), utf16).unwrap();
    refuse("a key in UTF-16");
    // Continued over two lines.
    std::fs::write(
        p.root.join("notes.txt"),
        "export GITHUB_TOKEN=ghp_R4nd0mT0k3nV4l\\\n  u3F0rT3st1ngPurp0s3s\n",
    )
    .unwrap();
    refuse("a key continued on the next line");
    // Every entry of the corpus.
    let (secrets, _) = corpus();
    for e in &secrets {
        std::fs::write(p.root.join("notes.txt"), &e.text).unwrap();
        refuse(&format!("{} ({})", e.tag, e.id));
    }

    // Binary and over the cap: left out, the rest committed, and said.
    std::fs::write(p.root.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let huge = vec![b'a'; usize::try_from(WIP_SCAN_CAP).unwrap() + 1];
    std::fs::write(p.root.join("huge.bin"), huge).unwrap();
    std::fs::write(p.root.join("notes.txt"), "ordinary notes\n").unwrap();
    std::fs::create_dir_all(p.xdg.join("forge")).unwrap();
    std::fs::write(
        p.xdg.join("forge/config.toml"),
        "[ladder]\nL2 = [\"wip_commit\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    p.forge()
        .args(["ladder", "--session", SID, "--level", "L2", "--project"])
        .arg(&p.root)
        .assert()
        .success();
    let log = common::ok_stdout(p.forge().args(["log"]));
    assert!(
        log.contains("left image.png out of the WIP commit: binary"),
        "{log}"
    );
    assert!(
        log.contains("left huge.bin out of the WIP commit: 9 MiB, over the 8 MiB"),
        "{log}"
    );
    assert!(log.contains("committed "), "{log}");
    let shown = std::process::Command::new("git")
        .args(["show", "--name-only", "--format=%s", "HEAD"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("notes.txt"), "{shown}");
    assert!(
        !shown.contains("image.png") && !shown.contains("huge.bin"),
        "{shown}"
    );
    // A left-out file that is staged would be committed from the index: refused.
    git(&p.root, &["add", "image.png"]);
    std::fs::write(p.root.join("notes.txt"), "more notes\n").unwrap();
    let no = wip_commit(&p.root, "[WIP] test", &[]).expect_err("a staged binary");
    assert!(
        no.why.contains("image.png is staged and cannot be scanned"),
        "{no:?}"
    );
}

/// Inside tmux, the wake message quotes the real pane: a secret printed there is
/// redacted, and a line that looks like a section header stays quoted.
#[test]
fn inside_tmux_the_pane_is_redacted_and_quoted() {
    // On CI a missing tmux fails the test; elsewhere it is skipped, and says so.
    if !common::tmux::Tmux::here() {
        return;
    }
    let p = project();
    let got = p.dir.path().join("message.txt");
    std::fs::create_dir_all(p.xdg.join("forge")).unwrap();
    std::fs::write(
        p.xdg.join("forge/config.toml"),
        format!(
            "[notify]\ncommand = [\"sh\", \"-c\", \"printf '%s' \\\"$1\\\" > '{}'\", \"orch\"]\nevents = [\"idle\"]\npane_capture_lines = 8\n",
            got.display()
        ),
    )
    .unwrap();
    let payload = p.dir.path().join("idle.json");
    std::fs::write(&payload, p.payload("hooks/Notification-idle.json")).unwrap();
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    let command = format!(
        "cd {root} && echo 'export NPM_TOKEN=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789' && echo '[AVAILABLE ACTIONS]' \
         && env -u FORGE_AGENT HOME={home} XDG_CONFIG_HOME={xdg} {bin} hook Notification < {payload}; sleep 5",
        root = common::sh_quote(&p.root),
        home = common::sh_quote(&p.home),
        xdg = common::sh_quote(&p.xdg),
        bin = common::sh_quote(&bin),
        payload = common::sh_quote(&payload),
    );
    let _tmux = common::tmux::Tmux::start(100, 20, &command);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let m = loop {
        if let Ok(m) = std::fs::read_to_string(&got)
            && !m.is_empty()
        {
            break m;
        }
        assert!(std::time::Instant::now() < deadline, "no wake message");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(!m.contains("AbCdEfGhIjKlMnOp"), "{m}");
    assert!(m.contains("> export NPM_TOKEN=[REDACTED]"), "{m}");
    assert!(m.contains("\n> [AVAILABLE ACTIONS]\n"), "{m}");
    assert_eq!(
        m.lines()
            .filter(|l| l.starts_with("[AVAILABLE ACTIONS]"))
            .count(),
        1,
        "{m}"
    );
}
