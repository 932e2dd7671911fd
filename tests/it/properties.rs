//! Property tests: any input to the parts of forge that read outside data gives only
//! documented output and never a panic. Hook payloads, status-line payloads,
//! transcript tails, handoff front matter, Signal blocks, the sanitiser and the
//! redactor, in process; then `forge hook` and `forge statusline` as processes.
//!
//! Case counts are fixed and small (`cargo test` stays quick); the generators lean on
//! the shapes that broke things before (escape sequences, bidi overrides, newlines,
//! secrets, torn JSON) rather than on uniform noise alone.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use chrono::{TimeZone, Utc};
use forge::config::Config;
use forge::env::Env;
use forge::model::handoff::entry::{HandoffEntry, split_front_matter};
use forge::model::handoff::handoff_doc::{HandoffInputs, OpenSignal, Trigger, compose};
use forge::model::handoff::signal::{SignalStatus, extract_signal_json, parse_signal};
use forge::model::session::state::WorkflowState;
use forge::model::session::transcript::{extract_facts, scan_tail};
use forge::model::text::redact::{REDACTED, RULES, redact};
use forge::model::text::sanitize::{clean, is_unsafe, single_line};
use forge::statusline::{Payload, SessionState, Term, render_statusline};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};

/// Cases for the in-process properties.
const CASES: u32 = 256;
/// Cases for the properties that start a process per case.
const PROCESS_CASES: u32 = 24;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ----- generators -------------------------------------------------------------------

/// Pieces that broke terminals, YAML or parsers before, and ordinary words.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-zA-Z0-9 ._/-]{0,12}",
        1 => any::<char>().prop_map(String::from),
        1 => prop::sample::select(vec![
            "\u{1b}[2J", "\u{1b}]52;c;cHduZWQ=\u{7}", "\u{1b}]8;;http://x\u{1b}\\", "\u{1b}P", "\u{1b}",
            "\u{9b}31m", "\u{7}", "\u{8}", "\r", "\n", "\t", "\r\n", "\u{7f}", "\u{85}",
            "\u{202E}", "\u{2066}", "\u{200F}", "\u{2028}", "\0", "---", ": ", "#", "\"", "'",
            "\\", "{", "}", "[", "]", "```json", "### Signal", "sk_live_51HxAbCdEfGhIjKlMn",
            "password=hunter2", "Bearer abc.def-ghi_jkl", "[REDACTED]", "é", "👩‍💻", "~",
        ])
        .prop_map(str::to_owned),
    ]
}

/// Text made of [`piece`]s.
fn hostile(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max).prop_map(|v| v.concat())
}

/// A JSON value of any type, strings hostile.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1e12f64..1e12).prop_map(|f| json!(f)),
        hostile(6).prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,8}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A number the way payloads send them, or something else in its place.
fn number_ish() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0u64..400_000).prop_map(|n| json!(n)),
        2 => (-50.0f64..150.0).prop_map(|f| json!(f)),
        1 => Just(Value::Null),
        1 => any_json(),
    ]
}

/// A statusline payload: the real shape with every field possibly wrong, missing or
/// hostile; sometimes not an object at all.
fn statusline_payload(cwd: String) -> impl Strategy<Value = Value> {
    let fields = (
        hostile(6),
        hostile(6),
        prop::option::of(number_ish()),
        prop::option::of(number_ish()),
        prop::option::of(number_ish()),
        prop::option::of(number_ish()),
        any::<bool>(),
        prop::option::of(hostile(6)),
    );
    prop_oneof![
        6 => fields.prop_map(move |(name, id, used, size, input, cache, with_cwd, sid)| {
            let mut v = json!({
                "model": {"id": id, "display_name": name},
                "context_window": {
                    "used_percentage": used,
                    "context_window_size": size,
                    "current_usage": {"input_tokens": input, "cache_read_input_tokens": cache},
                },
                "workspace": {"current_dir": cwd.clone()},
            });
            if with_cwd {
                v["cwd"] = json!(cwd.clone());
            }
            if let Some(s) = sid {
                v["session_id"] = json!(s);
            }
            v
        }),
        1 => any_json(),
    ]
}

const EVENTS: [&str; 10] = [
    "SessionStart",
    "Stop",
    "SessionEnd",
    "PreCompact",
    "PreToolUse",
    "Notification",
    "PermissionRequest",
    "UserPromptSubmit",
    "SubagentStop",
    "Nonsense\u{1b}[2J",
];

/// A hook payload: the fields hooks read, each possibly wrong or hostile.
fn hook_payload(cwd: String) -> impl Strategy<Value = Value> {
    let fields = (
        prop::sample::select(EVENTS.to_vec()),
        prop::option::of(hostile(4)),
        prop::option::of(prop::sample::select(vec![
            "startup", "resume", "clear", "compact", "manual", "auto", "other",
        ])),
        prop::option::of(hostile(8)),
        prop::option::of(prop::sample::select(vec![
            "Read", "Edit", "Bash", "Write", "Glob",
        ])),
        prop::option::of(any::<bool>()),
        prop::option::of(any_json()),
    );
    prop_oneof![
        8 => fields.prop_map(move |(event, sid, source, message, tool, active, extra)| {
            let mut v = json!({"hook_event_name": event, "cwd": cwd.clone()});
            let mut put = |k: &str, x: Option<Value>| {
                if let Some(x) = x {
                    v[k] = x;
                }
            };
            put("session_id", sid.map(Value::String));
            put("source", source.map(|s| json!(s)));
            put("trigger", Some(json!("auto")));
            put("message", message.map(Value::String));
            put("notification_type", Some(json!("permission_prompt")));
            put("tool_name", tool.map(|t| json!(t)));
            put("stop_hook_active", active.map(Value::Bool));
            put("extra", extra);
            v
        }),
        1 => any_json(),
    ]
}

/// A transcript line: a main-chain usage, a compaction, a sidechain, or noise.
fn transcript_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0u64..300_000, 0u64..300_000, any::<bool>(), hostile(4)).prop_map(
            |(input, cache, side, model)| json!({
                "type": "assistant", "isSidechain": side,
                "message": {"model": model, "id": "m", "role": "assistant",
                    "usage": {"input_tokens": input, "cache_read_input_tokens": cache,
                        "output_tokens": 1}}}).to_string()
        ),
        1 => prop::option::of(0u64..300_000).prop_map(|post| json!({
            "type": "system", "subtype": "compact_boundary",
            "compactMetadata": {"postTokens": post}}).to_string()),
        1 => hostile(8).prop_map(|t| json!({"type": "user", "message": {"role": "user",
            "content": t}}).to_string()),
        1 => hostile(10),
        1 => any_json().prop_map(|v| v.to_string()),
    ]
}

// ----- the sanitiser and the redactor ---------------------------------------------------

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn cleaned_text_is_terminal_safe_and_stable(s in hostile(24)) {
        let multi = clean(&s);
        prop_assert!(!multi.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'), "{multi:?}");
        prop_assert_eq!(clean(&multi), multi.clone());
        let one = single_line(&s);
        prop_assert!(!one.chars().any(|c| is_unsafe(c) || c == '\u{2028}' || c == '\u{2029}'), "{one:?}");
        prop_assert_eq!(single_line(&one), one.clone());
        // Text that needs nothing is returned as it is.
        if !s.chars().any(is_unsafe) && !s.contains(['\u{2028}', '\u{2029}']) {
            prop_assert_eq!(&*multi, &s);
        }
    }

    #[test]
    fn redaction_is_idempotent(s in hostile(24)) {
        let once = redact(&s);
        prop_assert_eq!(redact(&once), once.clone(), "from {:?}", s);
    }

    /// Ordinary sentences of a coding session, in any order and number, come through
    /// unchanged: redaction never lengthens (or touches) secret-free text.
    #[test]
    fn secret_free_prose_is_never_changed(sentences in prop::collection::vec(prop::sample::select(vec![
        "Refactor the pool in src/db/pool.rs and run cargo test.",
        "The token bucket refills every second.",
        "The secret is out, the token is expired and the password was wrong.",
        "Commit 3f2c9a1b7d4e8f0a6c5b2d1e9f8a7b6c5d4e3f2a fixed the retry loop.",
        "abc1234 Add pool",
        "Session 3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21 ended at 10:15.",
        "See https://github.com/acme/api/pull/482 for the review.",
        "Request id dGhpcyBpcyBub3QgYSBzZWNyZXQ was logged.",
        "Set max_tokens: 4096 and token_url=https://x/token in the config.",
        "author: Alice",
        "Run mysql -h db -u root -p app and type the password.",
        "The aws CLI reads ~/.aws/config first.",
        "Use sk-learn for the model and hf_hub_download for the weights.",
        "The bearer certificate expires soon; basic functionality works.",
        "Move handlers (3 of 5).",
        "Read /home/alice/.ssh/id_ed25519.pub and src/auth/token_store.rs.",
        "curl -u myname https://x asks for the password.",
    ]), 0..12), sep in prop::sample::select(vec![" ", "\n", "\n\n"])) {
        let text = sentences.join(sep);
        prop_assert_eq!(redact(&text), text);
    }
}

/// Every vendor token shape, generated from its own regex, is redacted wherever it
/// appears in prose.
#[test]
fn generated_tokens_of_every_shape_are_redacted() {
    let mut runner = TestRunner::new(config(24));
    let mut tried = 0;
    for rule in RULES.iter().filter(|r| r.token) {
        let pattern = rule.regex.replace(r"\b", "");
        let Ok(strategy) = proptest::string::string_regex(&pattern) else {
            continue;
        };
        tried += 1;
        let whole = !rule.regex.contains("(?P<s");
        runner
            .run(&strategy, |tok| {
                let out = redact(&format!("see {tok} now"));
                prop_assert!(out.contains(REDACTED), "{}: {tok:?} → {out:?}", rule.id);
                if whole {
                    prop_assert!(!out.contains(&tok), "{}: {tok:?} → {out:?}", rule.id);
                }
                Ok(())
            })
            .unwrap();
    }
    assert!(tried >= 40, "only {tried} shapes could be generated");
}

// ----- Signals, front matter, transcripts ------------------------------------------

fn signal_doc(json_text: &str) -> String {
    format!(
        "## FORGE AGENT HANDOFF\nFrom: a\nTo: b\nTask: T-1\n\n### Signal\n```json\n{json_text}\n```\n"
    )
}

proptest! {
    #![proptest_config(config(CASES))]

    /// A Signal read as complete always has a JSON object whose status says so.
    #[test]
    fn a_signal_is_complete_only_when_its_json_says_so(text in hostile(30)) {
        let parsed = parse_signal(&text);
        if parsed.signal().is_some_and(|s| s.status == SignalStatus::Complete) {
            let v: Value = serde_json::from_str(&extract_signal_json(&text).unwrap()).unwrap();
            prop_assert_eq!(&v["status"], "complete");
        }
    }

    /// A torn Signal block (cut anywhere before its end) is never complete.
    #[test]
    fn a_torn_signal_is_never_complete(
        task in hostile(4), q in hostile(4), cut in 0.0f64..1.0,
    ) {
        let full = serde_json::to_string_pretty(&json!({
            "from": "builder", "to": "reviewer", "task_id": task, "status": "complete",
            "open_questions": [q], "blocking": false,
        })).unwrap();
        prop_assert_eq!(parse_signal(&signal_doc(&full)).status_word(), "complete");
        let mut at = ((full.len() - 1) as f64 * cut) as usize;
        while !full.is_char_boundary(at) {
            at -= 1;
        }
        let torn = full.get(..at).unwrap();
        let parsed = parse_signal(&signal_doc(torn));
        prop_assert_ne!(parsed.status_word(), "complete", "{}", torn);
    }

    /// Any text: front matter values stay on one line, and listing never panics.
    #[test]
    fn front_matter_parsing_takes_any_text(text in hostile(40), opener in any::<bool>()) {
        let text = if opener { format!("---\n{text}\n---\nbody") } else { text };
        let (fm, _) = split_front_matter(&text);
        for (k, v) in &fm {
            prop_assert!(!k.contains('\n') && !v.contains('\n'), "{k:?}: {v:?}");
        }
        let _ = HandoffEntry::parse("/p/.forge/handoffs/handoff-20261121-101502.md".into(), &text, None);
        let _ = HandoffEntry::parse("/p/.forge/handoffs/agent-T-1-20261121-101502.md".into(), &text, None);
    }

    /// A handoff written from hostile values has exactly the design's front matter,
    /// every value on one line with no control or bidi character, and reads back.
    #[test]
    fn composed_front_matter_holds_for_any_values(
        branch in prop::option::of(hostile(10)),
        phase in prop::option::of(hostile(6)),
        task in prop::option::of(hostile(10)),
        sid in prop::option::of(hostile(6)),
        commit in hostile(10),
        question in hostile(10),
    ) {
        let root = Path::new("/repo");
        let inputs = HandoffInputs {
            root,
            created_at: Utc.with_ymd_and_hms(2026, 11, 21, 10, 15, 2).unwrap(),
            session_id: sid,
            trigger: Trigger::Manual,
            context_pct: Some(74.0),
            level: None,
            tokens: None,
            window: None,
            threshold: 70.0,
            transcript_path: None,
            transcript: None,
            transcript_cut: None,
            transcript_problem: None,
            branch,
            uncommitted: Some(1),
            changed_files: vec![],
            recent_commits: vec![format!("abc1234 {commit}")],
            workflow: WorkflowState { phase, task },
            signals: vec![OpenSignal {
                file_name: "agent-T-1-20261121-101502.md".into(),
                status: "blocked".into(),
                task: Some("T-1".into()),
                route: None,
                questions: vec![question],
            }],
            has_claude_md: false,
            has_state_json: false,
            notes: Default::default(),
            task: None,
            budget: 8 * 1024,
        };
        let doc = compose(&inputs);
        prop_assert!(doc.len() <= 8 * 1024, "{} bytes", doc.len());
        let head: Vec<&str> = doc.lines().collect();
        let end = head.iter().skip(1).position(|l| *l == "---").unwrap() + 1;
        let keys: Vec<&str> = head[1..end].iter().map(|l| l.split(':').next().unwrap()).collect();
        prop_assert_eq!(keys, vec!["kind", "created_at", "session_id", "trigger",
            "context_used_pct", "level", "branch", "uncommitted_changes", "forge_phase",
            "forge_task"]);
        for line in &head[..=end] {
            prop_assert!(!line.chars().any(is_unsafe), "{line:?}");
        }
        let (fm, _) = split_front_matter(&doc);
        prop_assert_eq!(fm.get("kind").map(String::as_str), Some("session-handoff"));
        prop_assert_eq!(fm.get("trigger").map(String::as_str), Some("manual"));
        // Redacted before it was written: nothing changes when read and redacted again.
        for v in fm.values() {
            prop_assert_eq!(&redact(v), v);
        }
        let entry = HandoffEntry::parse(root.join(".forge/handoffs/handoff-20261121-101502.md"), &doc, None);
        prop_assert!(entry.is_some());
    }

    /// A torn last line (a write in progress) never changes what the tail says.
    #[test]
    fn a_torn_last_line_does_not_change_the_tail(
        lines in prop::collection::vec(transcript_line(), 0..12),
        next in transcript_line(),
        cut in 0.0f64..1.0,
    ) {
        let before = scan_tail(lines.iter().map(String::as_str));
        let mut at = (next.len() as f64 * cut) as usize;
        while !next.is_char_boundary(at) {
            at -= 1;
        }
        let torn = next.get(..at).unwrap().to_owned();
        // Cut before its last character, a JSON object never parses.
        if next.starts_with('{') && at < next.len() {
            let mut with = lines.clone();
            with.push(torn);
            prop_assert_eq!(scan_tail(with.iter().map(String::as_str)), before);
        }
        let facts = extract_facts(lines.iter().map(String::as_str));
        prop_assert!(facts.lines <= lines.len());
    }
}

// ----- the status line and hooks, in process -------------------------------------------

/// Strips forge's own SGR colour codes (`ESC [ digits ; m`).
fn strip_sgr(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let n = tail
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(tail.len());
        if tail[n..].starts_with('m') {
            rest = &tail[n + 1..];
        } else {
            // Not an SGR code: keep the ESC so the check below sees it.
            out.push('\u{1b}');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

proptest! {
    #![proptest_config(config(CASES))]

    /// Any payload and any state: one non-empty line, no control character but
    /// forge's own colour codes.
    #[test]
    fn the_status_line_is_always_one_clean_line(
        payload in statusline_payload("/repo".into()),
        project in prop::option::of(hostile(6)),
        branch in prop::option::of(hostile(6)),
        phase in prop::option::of(hostile(4)),
        task in prop::option::of(hostile(8)),
        tail in prop::collection::vec(transcript_line(), 0..4),
        color in any::<bool>(),
        width in prop::option::of(0u16..200),
    ) {
        let p = Payload::from_value(&payload);
        let state = SessionState {
            project,
            branch,
            workflow: WorkflowState { phase, task },
            blocked_signals: 1,
            tail: Some(scan_tail(tail.iter().map(String::as_str))),
            ..SessionState::default()
        };
        let term = Term { color, width };
        let now = Utc.with_ymd_and_hms(2026, 11, 21, 10, 30, 0).unwrap();
        let line = render_statusline(&p, &state, &Config::default(), &term, now);
        prop_assert!(!line.trim().is_empty());
        let plain = strip_sgr(&line);
        prop_assert!(!plain.chars().any(|c| is_unsafe(c) || c == '\u{2028}' || c == '\u{2029}'),
            "{line:?}");
        if !color {
            prop_assert_eq!(plain, line);
        }
    }
}

/// What a hook may print: nothing, one JSON object of a documented shape, or (for
/// SessionStart) text under Claude Code's 10,000-character cap.
fn assert_documented_hook_output(event: &str, out: &str) -> Result<(), TestCaseError> {
    if out.is_empty() {
        return Ok(());
    }
    if let Ok(v) = serde_json::from_str::<Value>(out) {
        prop_assert!(
            out.ends_with('\n') && out.trim_end().lines().count() == 1,
            "{out:?}"
        );
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        let context_ok = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .is_some_and(|c| c.encode_utf16().count() < 10_000);
        let shape_ok = keys == ["systemMessage"]
            || keys == ["decision", "reason"]
            // SessionStart's notice to the person with its text for the model.
            || (keys == ["systemMessage", "hookSpecificOutput"]
                && event.eq_ignore_ascii_case("SessionStart")
                && v["hookSpecificOutput"]["hookEventName"] == "SessionStart"
                && context_ok)
            || (keys == ["hookSpecificOutput"]
                && v["hookSpecificOutput"]["permissionDecision"] == "deny"
                && v["hookSpecificOutput"]["hookEventName"] == "PreToolUse");
        prop_assert!(shape_ok, "{event}: {out}");
        return Ok(());
    }
    prop_assert!(
        event.eq_ignore_ascii_case("SessionStart"),
        "{event}: {out:?}"
    );
    prop_assert!(
        out.chars().count() < 10_000,
        "{} chars",
        out.chars().count()
    );
    Ok(())
}

/// `hooks::handle_input` over one project, one payload after another, so state
/// builds up (bridges, markers, safety-net handoffs) as in a real session.
#[test]
fn hook_handling_gives_only_documented_output() {
    let p = common::TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let root = p.root.display().to_string();
    let env = Env::for_test(&p.home, &p.root);
    let strategy = (
        prop::option::of(prop::sample::select(EVENTS.to_vec())),
        hook_payload(root),
        any::<bool>(),
    );
    let mut runner = TestRunner::new(config(96));
    runner
        .run(&strategy, |(arg, payload, raw)| {
            let bytes = if raw {
                // Torn or garbage stdin.
                let s = payload.to_string();
                s.get(..s.len() / 2).unwrap_or("").as_bytes().to_vec()
            } else {
                payload.to_string().into_bytes()
            };
            let out = forge::hooks::handle_input(arg, &bytes, &env);
            let event = arg
                .map(str::to_owned)
                .or_else(|| payload["hook_event_name"].as_str().map(str::to_owned))
                .unwrap_or_default();
            assert_documented_hook_output(&event, &out)
        })
        .unwrap();
}

// ----- the processes --------------------------------------------------------------------

/// `forge statusline` with any stdin: exit 0 and exactly one non-empty, clean line.
#[test]
fn forge_statusline_process_always_prints_one_line() {
    let p = common::TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let root = p.root.display().to_string();
    let strategy = prop_oneof![
        4 => statusline_payload(root).prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ];
    let mut runner = TestRunner::new(config(PROCESS_CASES));
    runner
        .run(&strategy, |stdin| {
            let out = p
                .forge()
                .arg("statusline")
                .write_stdin(stdin)
                .output()
                .unwrap();
            prop_assert!(out.status.success());
            let text = String::from_utf8(out.stdout).unwrap();
            prop_assert!(
                text.ends_with('\n') && text.matches('\n').count() == 1,
                "{text:?}"
            );
            prop_assert!(!text.trim().is_empty());
            prop_assert!(!text.trim_end().chars().any(is_unsafe), "{text:?}");
            Ok(())
        })
        .unwrap();
}

/// `forge hook` with any event and stdin: exit 0, documented output only.
#[test]
fn forge_hook_process_exits_zero_with_documented_output() {
    let p = common::TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let root = p.root.display().to_string();
    let strategy = (
        prop::sample::select(EVENTS.to_vec()),
        prop_oneof![
            4 => hook_payload(root).prop_map(|v| v.to_string().into_bytes()),
            1 => prop::collection::vec(any::<u8>(), 0..64),
        ],
    );
    let mut runner = TestRunner::new(config(PROCESS_CASES));
    runner
        .run(&strategy, |(event, stdin)| {
            let out = p
                .forge()
                .args(["hook", event])
                .write_stdin(stdin)
                .output()
                .unwrap();
            prop_assert!(out.status.success(), "{out:?}");
            prop_assert!(out.stderr.is_empty(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            prop_assert!(!text.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'));
            assert_documented_hook_output(event, &text)
        })
        .unwrap();
}
