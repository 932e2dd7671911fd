//! Process tests for the lifecycle of forge's signals (issue "7 of 11"): Signal
//! threads and `forge signal resolve`, the learn flag, the resume policy and handoff
//! retention. The real binary, a temporary git project, `HOME` and `XDG_CONFIG_HOME`
//! in temporary folders.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{TestProject, ok_stdout};
use serde_json::Value;

fn hook(p: &TestProject, event: &str, stdin: &str) -> String {
    let out = p
        .forge()
        .args(["hook", event])
        .write_stdin(stdin.to_owned())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{event}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn session_start(p: &TestProject) -> String {
    hook(
        p,
        "SessionStart",
        &p.payload("hooks/SessionStart-startup.json"),
    )
}

fn status_json(p: &TestProject) -> Value {
    serde_json::from_str(&ok_stdout(p.forge().args(["status", "--json"]))).unwrap()
}

fn blocked_files(p: &TestProject) -> Vec<String> {
    status_json(p)["blocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn statusline(p: &TestProject) -> String {
    ok_stdout(
        p.forge()
            .arg("statusline")
            .write_stdin(p.payload("statusline/used-42.json")),
    )
}

fn signal(p: &TestProject, task: &str, status: &str, extra: &[&str]) -> PathBuf {
    let out = ok_stdout(
        p.forge()
            .args([
                "signal", "--from", "builder", "--to", "lead", "--task", task, "--status", status,
            ])
            .args(extra),
    );
    PathBuf::from(out.trim())
}

fn run(cmd: &mut assert_cmd::Command) -> Output {
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn signal_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find("```json").unwrap() + 7;
    let end = start + text[start..].find("```").unwrap();
    serde_json::from_str(&text[start..end]).unwrap()
}

#[test]
fn signal_resolve_ends_a_blocked_signal_everywhere() {
    let p = TestProject::new();
    let asked = signal(&p, "T-1", "blocked", &["--question", "Pool size?"]);
    let asked_name = asked.file_name().unwrap().to_str().unwrap().to_owned();
    assert_eq!(blocked_files(&p), std::slice::from_ref(&asked_name));
    assert!(statusline(&p).contains("⚑1 blocked"), "{}", statusline(&p));
    let start = session_start(&p);
    assert!(
        start.contains("Blocked agent signal: task T-1 (builder→lead)"),
        "{start}"
    );
    assert!(start.contains("Open question: Pool size?"), "{start}");

    // Resolve it, in the same second: the answer still sorts after the question.
    let out = ok_stdout(p.forge().args([
        "signal",
        "resolve",
        "T-1",
        "--answer",
        "20, from config.toml",
        "--from",
        "alice",
    ]));
    assert!(
        out.starts_with(&format!("Resolved T-1 ({asked_name}): ")),
        "{out}"
    );
    let answer = PathBuf::from(out.trim().rsplit(": ").next().unwrap());
    let sig = signal_json(&answer);
    assert_eq!(sig["status"], "partial");
    assert_eq!(sig["blocking"], false);
    assert_eq!(sig["from"], "alice");
    assert_eq!(sig["to"], "builder", "back to the agent that asked");
    assert_eq!(sig["task_id"], "T-1");
    let text = std::fs::read_to_string(&answer).unwrap();
    assert!(text.contains("- Answer: 20, from config.toml"), "{text}");
    assert!(
        text.contains("- Pool size?"),
        "the question is quoted: {text}"
    );

    // Nothing counts it any more; the old Signal stays on disk as history.
    assert!(blocked_files(&p).is_empty());
    assert!(asked.exists());
    assert!(!statusline(&p).contains("blocked"), "{}", statusline(&p));
    let start = session_start(&p);
    assert!(!start.contains("Blocked agent signal"), "{start}");
    let text = ok_stdout(p.forge().arg("status"));
    assert!(text.contains("(0 blocked)"), "{text}");
    assert!(text.contains("resolved"), "{text}");
    let handoff = ok_stdout(p.forge().arg("handoff"));
    let doc = std::fs::read_to_string(handoff.trim()).unwrap();
    assert!(
        !doc.contains(&asked_name),
        "a resolved Signal is not open: {doc}"
    );

    // Resolving again, or a task nobody asked about, says what is going on.
    let again = run(p.forge().args(["signal", "resolve", "T-1"]));
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).contains("task T-1 is not blocked: its newest Signal is partial"),
        "{}",
        stderr(&again)
    );
    signal(&p, "T-2", "blocked", &["--question", "Which DB?"]);
    let unknown = run(p.forge().args(["signal", "resolve", "T-9"]));
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).contains("no Signal names task T-9; blocked now: T-2"),
        "{}",
        stderr(&unknown)
    );
    // A later Signal of the task with --status complete resolves it too.
    signal(&p, "T-2", "complete", &[]);
    assert!(blocked_files(&p).is_empty());
}

#[test]
fn session_start_lists_every_unresolved_blocked_signal_within_its_budget() {
    let p = TestProject::new();
    // Older than a session handoff: listed all the same (an automatic handoff used to
    // hide them).
    for i in 0..40 {
        let task = format!("T-{i:02}");
        let q = format!("Question {i} {}", "x".repeat(60));
        signal(&p, &task, "blocked", &["--question", &q]);
    }
    ok_stdout(p.forge().arg("handoff"));
    std::fs::remove_file(p.forge_dir().join("pending-resume")).unwrap();
    let start = session_start(&p);
    let listed = start.matches("Blocked agent signal:").count();
    assert!((10..40).contains(&listed), "{listed}: {start}");
    assert!(
        start.contains(&format!(
            "… and {} more blocked Signals: run `forge status` to see them all.",
            40 - listed
        )),
        "{start}"
    );
    // Newest first.
    let first = start.find("task T-39").unwrap();
    let second = start.find("task T-38").unwrap();
    assert!(first < second);
    // `forge status` lists them all.
    let status = ok_stdout(p.forge().arg("status"));
    assert!(status.matches("blocked ").count() >= 40, "{status}");
}

// ----- resume policy -----------------------------------------------------------------

/// A session handoff written `age` ago by `trigger`, made pending by `origin`.
fn pending_handoff(p: &TestProject, age: chrono::Duration, trigger: &str, origin: &str) -> PathBuf {
    let created = chrono::Utc::now() - age;
    let name = format!("handoff-{}.md", created.format("%Y%m%d-%H%M%S"));
    let path = p.forge_dir().join("handoffs").join(&name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        format!(
            "---\nkind: session-handoff\ncreated_at: {}\nsession_id: old-session\n\
             trigger: {trigger}\nbranch: main\nuncommitted_changes: 0\n---\n\
             # Session handoff\nUNIQUE-BODY-{name}\n",
            created.format("%Y-%m-%dT%H:%M:%SZ")
        ),
    )
    .unwrap();
    let marker = format!("{}\n{origin}\n", path.canonicalize().unwrap().display());
    std::fs::write(p.forge_dir().join("pending-resume"), marker).unwrap();
    path
}

fn last_outcomes(p: &TestProject, event: &str) -> Vec<Value> {
    let log = std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl")).unwrap();
    let line = log
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["event"] == event)
        .unwrap();
    line["outcomes"].as_array().cloned().unwrap_or_default()
}

#[test]
fn an_old_automatic_handoff_is_named_not_injected_and_a_chosen_one_always_is() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let two_days = chrono::Duration::days(2) + chrono::Duration::minutes(5);

    // Automatic and two days old: one line, the marker is gone, the log says why.
    let old = pending_handoff(&p, two_days, "context-threshold", "auto");
    let name = old.file_name().unwrap().to_str().unwrap().to_owned();
    let out = session_start(&p);
    assert!(!out.contains(&format!("UNIQUE-BODY-{name}")), "{out}");
    assert!(
        out.contains(&format!(
            "An automatic handoff from 2 days ago is waiting, not loaded: `forge resume {name}`"
        )),
        "{out}"
    );
    assert!(!p.forge_dir().join("pending-resume").exists());
    let skipped = last_outcomes(&p, "SessionStart");
    assert!(
        skipped.iter().any(|o| o["kind"] == "resume_skipped"
            && o["why"]
                .as_str()
                .unwrap()
                .contains("older than [resume] max_age (12h)")),
        "{skipped:?}"
    );
    // Said once: the next session hears nothing of it.
    assert!(!session_start(&p).contains(&name));

    // The person chooses it: injected, however old.
    ok_stdout(p.forge().args(["resume", &name]));
    let out = session_start(&p);
    assert!(out.contains(&format!("UNIQUE-BODY-{name}")), "{out}");

    // Automatic and recent: injected.
    let recent = pending_handoff(&p, chrono::Duration::minutes(30), "pre-compact", "auto");
    let rname = recent.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(session_start(&p).contains(&format!("UNIQUE-BODY-{rname}")));

    // [resume] auto = "always": old automatic ones too; "never": not even recent ones.
    std::fs::write(
        p.forge_dir().join("config.toml"),
        "[resume]\nauto = \"always\"\n",
    )
    .unwrap();
    let again = pending_handoff(&p, two_days, "context-threshold", "auto");
    let again = again.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(session_start(&p).contains(&format!("UNIQUE-BODY-{again}")));
    std::fs::write(
        p.forge_dir().join("config.toml"),
        "[resume]\nauto = \"never\"\n",
    )
    .unwrap();
    pending_handoff(&p, chrono::Duration::minutes(30), "pre-compact", "auto");
    let out = session_start(&p);
    assert!(!out.contains(&format!("UNIQUE-BODY-{rname}")), "{out}");
    assert!(
        out.contains("An automatic handoff from 30 minutes ago is waiting"),
        "{out}"
    );
    // max_age is configurable.
    std::fs::write(
        p.forge_dir().join("config.toml"),
        "[resume]\nauto = \"recent\"\nmax_age = \"3d\"\n",
    )
    .unwrap();
    let again = pending_handoff(&p, two_days, "context-threshold", "auto");
    let again = again.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(session_start(&p).contains(&format!("UNIQUE-BODY-{again}")));
}

// ----- handoff retention ---------------------------------------------------------------

/// An agent handoff of `task` from `days` ago, blocked or complete.
fn old_signal(p: &TestProject, task: &str, days: i64, status: &str) -> PathBuf {
    let created = chrono::Utc::now() - chrono::Duration::days(days);
    let stamp = created.format("%Y%m%d-%H%M%S");
    let text =
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap()
            .replace("T-012", task)
            .replace(
                "2026-11-21T10:15:02Z",
                &created.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
            );
    let text = if status == "complete" {
        text.replace("\"status\": \"blocked\"", "\"status\": \"complete\"")
            .replace("\"blocking\": true", "\"blocking\": false")
    } else {
        text
    };
    let path = p
        .forge_dir()
        .join(format!("handoffs/agent-{task}-{stamp}.md"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn prune_removes_old_handoffs_but_never_an_unresolved_blocked_signal_or_the_pending_one() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let day = chrono::Duration::days;
    let fresh = pending_handoff(&p, chrono::Duration::hours(1), "manual", "chosen");
    let old40 = pending_handoff(&p, day(40), "context-threshold", "auto");
    let old50 = pending_handoff(&p, day(50), "context-threshold", "auto");
    // The pending one is 70 days old (chosen by hand).
    let pending = pending_handoff(&p, day(70), "manual", "chosen");
    let blocked = old_signal(&p, "T-7", 60, "blocked");
    // A thread: blocked 45 days ago, answered 44 days ago. Both may go.
    let answered = old_signal(&p, "T-8", 45, "blocked");
    let answer = old_signal(&p, "T-8", 44, "complete");
    assert!(blocked_files(&p).iter().any(|f| f.contains("T-7")));
    assert!(!blocked_files(&p).iter().any(|f| f.contains("T-8")));

    // --dry-run says what would go and removes nothing.
    let dry = ok_stdout(
        p.forge()
            .args(["handoff", "prune", "--keep", "0", "--dry-run"]),
    );
    assert!(
        dry.starts_with("Would remove 4 handoffs older than 30d"),
        "{dry}"
    );
    for f in [&old40, &old50, &answered, &answer] {
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(dry.contains(name), "{dry}");
        assert!(f.exists());
    }
    assert!(
        dry.contains(&format!(
            "Kept {}: an unresolved blocked Signal",
            blocked.file_name().unwrap().to_str().unwrap()
        )),
        "{dry}"
    );
    assert!(
        dry.contains(&format!(
            "Kept {}: the pending resume",
            pending.file_name().unwrap().to_str().unwrap()
        )),
        "{dry}"
    );

    // --keep: the newest N stay whatever their age.
    let kept = ok_stdout(
        p.forge()
            .args(["handoff", "prune", "--keep", "3", "--dry-run"]),
    );
    assert!(kept.starts_with("Would remove 2 handoffs"), "{kept}");

    // For real.
    let out = ok_stdout(p.forge().args(["handoff", "prune", "--keep", "0"]));
    assert!(out.starts_with("Removed 4 handoffs"), "{out}");
    for f in [&old40, &old50, &answered, &answer] {
        assert!(!f.exists(), "{}", f.display());
    }
    for f in [&fresh, &pending, &blocked] {
        assert!(f.exists(), "{}", f.display());
    }
    // The blocked count is unchanged: nothing un-resolved, nothing lost.
    assert_eq!(blocked_files(&p).len(), 1);
    let again = ok_stdout(p.forge().args(["handoff", "prune", "--keep", "0"]));
    assert!(again.starts_with("Nothing to prune"), "{again}");

    // A bad age is an error that says what to write.
    let bad = run(p
        .forge()
        .args(["handoff", "prune", "--older-than", "a month"]));
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        stderr(&bad).contains("like 30m, 12h, 14d or 2w"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn auto_prune_from_the_config_runs_when_a_session_starts() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let old = pending_handoff(&p, chrono::Duration::days(40), "context-threshold", "auto");
    std::fs::remove_file(p.forge_dir().join("pending-resume")).unwrap();
    // Off by default.
    session_start(&p);
    assert!(old.exists());
    std::fs::write(
        p.forge_dir().join("config.toml"),
        "[handoffs]\nauto_prune = true\nolder_than = \"30d\"\nkeep = 0\n",
    )
    .unwrap();
    // Deleting files is acting: a project file does it once you trust it.
    ok_stdout(p.forge().args(["trust", "--yes"]));
    session_start(&p);
    assert!(!old.exists());
    let outcomes = last_outcomes(&p, "SessionStart");
    assert!(
        outcomes
            .iter()
            .any(|o| o["kind"] == "handoffs_pruned" && o["count"] == 1),
        "{outcomes:?}"
    );
}

// ----- attention --------------------------------------------------------------------

/// The time `minutes` ago as state files write it (ISO 8601 UTC, seconds).
fn minutes_ago_utc(minutes: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::minutes(minutes))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

#[test]
fn a_silent_or_ended_session_leaves_attention_and_the_limit_is_the_configs() {
    let p = TestProject::new();
    let mut ids = Vec::new();
    for (n, minutes_ago) in [("a", 5), ("b", 45)] {
        let id = format!("{n}0000000-1111-2222-3333-444444444444");
        let at = minutes_ago_utc(minutes_ago);
        p.write(
            &format!(".forge/logs/sessions/{id}.json"),
            &serde_json::json!({
                "session_id": id,
                "attention": "waiting:permission",
                "attention_message": format!("session {n} wants Bash"),
                "last_event_at": at,
            })
            .to_string(),
        );
        ids.push(id);
    }
    let listed = |p: &TestProject| -> Vec<String> {
        status_json(p)["attention"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session_id"].as_str().unwrap().to_owned())
            .collect()
    };
    // Default 30 minutes: the one silent for 45 has left.
    assert_eq!(listed(&p), [ids[0].clone()]);
    let text = ok_stdout(p.forge().arg("status"));
    assert!(
        text.contains(
            "Attention: session a0000000 is waiting for permission: session a wants Bash"
        ),
        "{text}"
    );
    assert!(!text.contains("b0000000"), "{text}");
    // A longer limit in the config keeps it.
    p.write(".forge/config.toml", "[attention]\nstale_after = \"1h\"\n");
    // It reaches the fleet views of other projects too: it applies once trusted.
    ok_stdout(p.forge().args(["trust", "--yes"]));
    assert_eq!(listed(&p), [ids[0].clone(), ids[1].clone()]);
    // Ended: gone whatever the limit.
    let end = p
        .payload("hooks/SessionEnd.json")
        .replace("3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21", &ids[0]);
    hook(&p, "SessionEnd", &end);
    assert_eq!(listed(&p), [ids[1].clone()]);
}

// ----- one answer everywhere --------------------------------------------------------

/// A session bridge as the status line and hooks leave it.
fn write_bridge(p: &TestProject, id: &str, minutes_ago: i64, attention: &str, pct: f64) {
    let at = minutes_ago_utc(minutes_ago);
    p.write(
        &format!(".forge/logs/sessions/{id}.json"),
        &serde_json::json!({
            "session_id": id,
            "attention": attention,
            "last_event": "Stop",
            "last_event_at": at,
            "updated_at": at,
            "used_percentage": pct,
            "context_window_size": 200_000,
            "tokens": (pct * 2000.0) as u64,
            "readings": [{"at": at, "tokens": (pct * 2000.0) as u64, "pct": pct}],
        })
        .to_string(),
    );
}

#[test]
fn status_context_sessions_report_one_context_figure_and_compaction_count() {
    let p = TestProject::new();
    const A: &str = "aaaa1111-0000-4000-8000-000000000001";
    const B: &str = "bbbb2222-0000-4000-8000-000000000002";
    const C: &str = "cccc3333-0000-4000-8000-000000000003";
    // A: live, heard from 2 minutes ago; B: busy but its bridge was updated last
    // (an older forge's order) and silent for an hour; C: ended just now.
    write_bridge(&p, A, 2, "busy", 73.4);
    write_bridge(&p, B, 60, "busy", 20.0);
    write_bridge(&p, C, 0, "ended", 88.0);
    let line = |id: &str| {
        format!("{{\"compacted_at\":\"2026-11-25T10:00:00Z\",\"session_id\":\"{id}\"}}\n")
    };
    p.write(
        ".forge/logs/compactions.jsonl",
        &format!("{}{}{}", line(A), line(A), line(C)),
    );

    // The session every face follows is A: the most recently active live one.
    let status = status_json(&p);
    assert_eq!(status["current_session"]["session_id"], A);
    assert_eq!(status["current_session"]["used_percentage"], 73);
    assert_eq!(status["current_session"]["compactions"], 2);
    let text = ok_stdout(p.forge().arg("status"));
    assert!(
        text.contains("Context: 73% · L1 · 2 compactions (session aaaa1111)"),
        "{text}"
    );
    let ctx: Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["context", "--json"]))).unwrap();
    assert_eq!(ctx["session_id"], A);
    assert_eq!(ctx["used_percentage"], 73);
    assert_eq!(ctx["compactions"], 2);
    let frame = ok_stdout(
        p.forge()
            .args(["tui", "--once", "--width", "100", "--height", "30"]),
    );
    assert!(
        frame.contains("Context session aaaa1111 · 2 compactions"),
        "{frame}"
    );
    assert!(frame.contains("73% L1"), "{frame}");

    // forge sessions: newest first, * on that session, the same figures.
    let list = ok_stdout(p.forge().arg("sessions"));
    let rows: Vec<&str> = list.lines().skip(1).take(3).collect();
    assert!(
        rows[0].starts_with("  cccc3333")
            && rows[0].contains("88% L2")
            && rows[0].ends_with("ended"),
        "{list}"
    );
    assert!(
        rows[1].starts_with("* aaaa1111")
            && rows[1].contains("73% L1")
            && rows[1].contains(" 2  busy"),
        "{list}"
    );
    assert!(
        rows[2].starts_with("  bbbb2222") && rows[2].ends_with("silent"),
        "{list}"
    );
    let json: Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["sessions", "--json", "--live"]))).unwrap();
    let live = json.as_array().unwrap();
    assert_eq!(live.len(), 1, "{json}");
    assert_eq!(live[0]["session_id"], A);
    assert_eq!(live[0]["compactions"], 2);
    assert_eq!(live[0]["current"], true);

    // Every --session takes a unique start of an id, and says when it is not unique.
    let ctx: Value = serde_json::from_str(&ok_stdout(p.forge().args([
        "context",
        "--json",
        "--session",
        "ccc",
    ])))
    .unwrap();
    assert_eq!(ctx["used_percentage"], 88);
    assert_eq!(ctx["compactions"], 1);
    write_bridge(&p, "cccc4444-0000-4000-8000-000000000004", 5, "busy", 10.0);
    for args in [
        &["context", "--session", "cccc"][..],
        &["handoff", "--session", "cccc"][..],
        &["log", "--session", "cccc"][..],
    ] {
        let out = run(p.forge().args(args));
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            stderr(&out).contains("matches 2 sessions"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = run(p.forge().args(["handoff", "--session", "bbbb"]));
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read_dir(p.forge_dir().join("handoffs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let text = std::fs::read_to_string(written).unwrap();
    assert!(text.contains(&format!("session_id: {B}\n")), "{text}");
}

#[test]
fn one_handoff_order_everywhere_and_stamp_ids_that_do_not_shift() {
    let p = TestProject::new();
    p.add_handoff_fixture("handoff-20261121-094500.md");
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("agent-T-010-20261120-170944.md");
    let names = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| {
                l.split_whitespace()
                    .find(|w| w.ends_with(".md"))
                    .map(str::to_owned)
            })
            .collect()
    };
    // Blocked first, then newest: in resume's list, status and the dashboard.
    let expected = [
        "agent-T-012-20261121-101502.md",
        "handoff-20261121-094500.md",
        "agent-T-010-20261120-170944.md",
    ];
    let list = ok_stdout(p.forge().arg("resume"));
    assert_eq!(names(&list), expected, "{list}");
    assert!(list.contains("  1  20261121-101502  agent-T-012"), "{list}");
    assert_eq!(names(&ok_stdout(p.forge().arg("status"))), expected);
    let frame = ok_stdout(
        p.forge()
            .args(["tui", "--once", "--width", "120", "--height", "30"]),
    );
    let tasks: Vec<usize> = ["T-012", "T-011", "T-010"]
        .iter()
        .map(|t| frame.find(&format!("  {t} ")).unwrap_or(usize::MAX))
        .collect();
    assert!(tasks[0] < tasks[1] && tasks[1] < tasks[2], "{frame}");

    // The ID chooses the same file after a newer handoff lands (the number shifts).
    ok_stdout(p.forge().args(["resume", "20261121-094500"]));
    let marker = p.read(".forge/pending-resume");
    assert!(
        marker.starts_with(
            &p.forge_dir()
                .join("handoffs/handoff-20261121-094500.md")
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        ),
        "{marker}"
    );
    p.write(
        ".forge/handoffs/handoff-20261121-110000.md",
        &std::fs::read_to_string(common::fixtures().join("handoffs/handoff-20261121-094500.md"))
            .unwrap(),
    );
    let list = ok_stdout(p.forge().arg("resume"));
    assert!(list.contains("  2  20261121-110000"), "{list}");
    assert!(list.contains("  3  20261121-094500"), "{list}");
    ok_stdout(p.forge().args(["resume", "20261121-0945"]));
    assert!(
        p.read(".forge/pending-resume")
            .contains("handoff-20261121-094500.md")
    );
    // Numbers follow the listed order.
    ok_stdout(p.forge().args(["resume", "1"]));
    assert!(
        p.read(".forge/pending-resume")
            .contains("agent-T-012-20261121-101502.md")
    );
    // An ID that names nothing, or several, says so.
    let out = run(p.forge().args(["resume", "20991231-000000"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no handoff has the ID 20991231-000000"),
        "{}",
        stderr(&out)
    );
    let out = run(p.forge().args(["resume", "20261121-1"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("names 2 handoffs"),
        "{}",
        stderr(&out)
    );
}
