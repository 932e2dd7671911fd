//! Handoffs of sessions nobody here wrote, judged by what the next session needs:
//! the four real Claude Code sessions of `tests/fixtures/real-transcripts/` (MIT,
//! see its LICENSE) and the pinned client's own recording
//! (`tests/fixtures/transcripts/recorded-plan-question-background-compact.jsonl`,
//! recorded by `tests/it/e2e.rs::a_session_with_a_plan_a_question_a_background_command_and_a_compaction_hands_off`).
//!
//! Each transcript's labels — its task in the person's words, the client's pending
//! work and next step, the plan, the person's decisions, the files edited since the
//! compaction, the background commands still running — were written by hand from
//! reading the transcript, and are what its handoff, and the SessionStart that
//! resumes it, must carry. The transcript runs as a session of a temporary project:
//! its paths are moved from the folder it ran in to that project's.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::TestProject;
use serde_json::Value;

/// What a transcript's handoff must say, from reading the transcript.
#[derive(Default)]
struct Labels {
    /// The fixture (under `tests/fixtures/`).
    file: &'static str,
    /// The person's task, as they wrote it: the title starts with its first words.
    task: &'static str,
    /// The title's words (the task's first line, cut).
    title: &'static str,
    /// Their latest request, when it is not the task.
    latest: Option<&'static str>,
    /// What Claude Code's summary lists as pending.
    pending: &'static [&'static str],
    /// Its next step.
    next: Option<&'static str>,
    /// A line of the approved plan.
    plan: Option<&'static str>,
    /// The person's answers: (question, answer).
    decisions: &'static [(&'static str, &'static str)],
    /// Files edited since the compaction (relative to the project).
    since: &'static [&'static str],
    /// Background commands still running.
    background: &'static [&'static str],
}

/// Writes the fixture as this project's transcript, its paths moved from the folder
/// it ran in (its records' `cwd`) to this project; returns its path.
fn transcript(p: &TestProject, l: &Labels) -> PathBuf {
    let text = std::fs::read_to_string(common::fixtures().join(l.file)).unwrap();
    let ran_in = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find_map(|r| r["cwd"].as_str().map(str::to_owned))
        .expect("a record with its cwd");
    let text = text.replace(&ran_in, &p.root.display().to_string());
    let name = Path::new(l.file).file_name().unwrap();
    let path = p.home.join(".claude/projects/-project").join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

/// `forge handoff --transcript`: the document.
fn handoff(p: &TestProject, transcript: &Path) -> String {
    let out = p
        .forge()
        .args(["handoff", "--transcript"])
        .arg(transcript)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = String::from_utf8(out.stdout).unwrap();
    std::fs::read_to_string(path.trim()).unwrap()
}

/// What the next session's SessionStart gives the model, and its notice to the
/// person.
fn session_start(p: &TestProject) -> (String, String) {
    let out = p
        .forge()
        .args(["hook", "SessionStart"])
        .write_stdin(p.payload("hooks/SessionStart-startup.json"))
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(&out).expect("a notice, so JSON");
    (
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_owned(),
        v["systemMessage"].as_str().unwrap().to_owned(),
    )
}

/// The facts every reader of a handoff needs, in `text` (the document, or what
/// SessionStart injects).
fn carries(text: &str, l: &Labels, what: &str) {
    let has = |needle: &str, why: &str| {
        assert!(
            text.contains(needle),
            "{what} lacks {why}: {needle:?}\n{text}"
        );
    };
    has(&format!("> {}", l.task.lines().next().unwrap()), "the task");
    has(
        &format!("# Session handoff — {}", l.title),
        "the task as its title",
    );
    if let Some(latest) = l.latest {
        has(latest, "the latest request");
    }
    if !l.pending.is_empty() || l.next.is_some() {
        has("## Claude Code's summary\n", "the client's summary");
    }
    for p in l.pending {
        has(p, "the summary's pending work");
    }
    if let Some(n) = l.next {
        has(&format!("Next step:\n> {n}"), "the summary's next step");
    }
    if let Some(plan) = l.plan {
        has("## Plan\n", "the plan");
        has(plan, "the plan's words");
    }
    if !l.decisions.is_empty() {
        has("## Decisions\n", "the decisions");
    }
    for (q, a) in l.decisions {
        has(&format!("- {q} → {a}"), "a decision");
    }
    for f in l.background {
        has(
            &format!("not reported finished: `{f}`"),
            "a background command",
        );
    }
}

/// The handoff of `l`'s transcript, checked against its labels: the document and
/// what the next SessionStart gives the model; returns the document.
fn judged(p: &TestProject, l: &Labels) -> String {
    let t = transcript(p, l);
    let doc = handoff(p, &t);
    carries(&doc, l, "the handoff");
    assert!(
        doc.len() <= 8 * 1024,
        "{} bytes: over the 8 KiB budget",
        doc.len()
    );
    // What Claude Code inserts in the person's role is never taken for their words.
    let title = doc
        .lines()
        .find(|l| l.starts_with("# Session handoff"))
        .unwrap();
    for client in [
        "<task-notification>",
        "<command-",
        "<local-command",
        "[Request interrupted",
    ] {
        assert!(!title.contains(client), "{title}");
        assert!(!doc.contains(client), "{client} in\n{doc}");
    }
    if l.pending.is_empty() && l.next.is_none() {
        assert!(!doc.contains("## Claude Code's summary"), "{doc}");
    }
    if l.decisions.is_empty() {
        assert!(!doc.contains("## Decisions\n"), "{doc}");
    }
    if l.since.is_empty() {
        assert!(!doc.contains("Edited since the compaction"), "{doc}");
    } else {
        let files = doc
            .split("Edited since the compaction")
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap();
        for f in l.since {
            assert!(
                files.contains(&format!("- {f} (")),
                "{f} not listed as edited since:\n{files}"
            );
        }
    }
    let (context, notice) = session_start(p);
    carries(&context, l, "SessionStart's context");
    assert!(notice.starts_with("forge: resumed \""), "{notice}");
    assert!(notice.contains(l.title), "{notice}");
    assert!(
        !context.contains("forge: resumed"),
        "the notice is the person's, not the model's"
    );
    doc
}

const LONG: Labels = Labels {
    file: "real-transcripts/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
    task: "Work on bead spotter-fum. Run bd show spotter-fum to see the issue details and bd ready to find available subtasks. Start with the first ready task.",
    title: "Work on bead spotter-fum. Run bd show spotter-fum to see th…",
    latest: None,
    pending: &[
        "> - **spotter-fum.3** (IN PROGRESS): \"Integrate highlight.js for transcript code blocks in LiveView lifecycle\"",
        "spotter-fum.4",
        "Add regression coverage for renderer metadata, SessionLive UX, and JS highlighting behavior",
    ],
    next: Some(
        "Complete spotter-fum.3 by running `mix compile`, `mix test`, `mix credo`, then `bd close spotter-fum.3` and commit.",
    ),
    plan: Some("> # Plan: Enrich TranscriptRenderer with metadata (spotter-fum.1)"),
    decisions: &[],
    since: &[
        "test/spotter_web/live/session_live_test.exs",
        "mix.exs",
        "config/test.exs",
        "test/spotter/services/transcript_renderer_test.exs",
        "assets/test/highlight-integration.test.js",
    ],
    background: &[],
};

#[test]
fn the_long_worktree_session_hands_off_its_task_the_clients_pending_work_and_the_plan() {
    let p = TestProject::new();
    // One file edited since the compaction is uncommitted, another one is not.
    p.write("mix.exs", "# mix\n");
    p.write("config/test.exs", "# test\n");
    common::git(&p.root, &["add", "-A"]);
    common::git(&p.root, &["commit", "-qm", "the project as it was"]);
    p.write("mix.exs", "# mix, edited\n");
    let doc = judged(&p, &LONG);
    assert!(doc.contains("- mix.exs (uncommitted)\n"), "{doc}");
    assert!(
        doc.contains("- config/test.exs (no uncommitted change)\n"),
        "{doc}"
    );
    // The summary is the client's, dated, and what came after it is said: here the
    // session went on for 47 commands and finished, so its pending list is stale.
    assert!(
        doc.contains(
            "Written by Claude Code when it compacted the context at 2026-02-11 22:31 UTC"
        ),
        "{doc}"
    );
    assert!(
        doc.contains("Since then (so parts of it may be done or stale): 5 files edited (test/spotter_web/live/session_live_test.exs, mix.exs,"),
        "{doc}"
    );
    assert!(
        doc.contains(", 0 requests of the person, 47 shell commands.\n"),
        "{doc}"
    );
    // Its last words to the person say the work is done, which the stale summary
    // does not; what it said to the client's own notice after that comes second.
    assert!(
        doc.contains("Claude's last words (2026-02-11 22:54 UTC):\n> All done. Here's the summary:\n> ## spotter-fum Epic — Complete\n> All 4 tasks completed and pushed:\n"),
        "{doc}"
    );
    assert!(
        doc.contains("Then, answering Claude Code's own notice (a background task's end) (2026-02-11 22:54 UTC):\n> That's a notification from a background task"),
        "{doc}"
    );
    // The background test run was reported finished (its <task-notification>).
    assert!(!doc.contains("## Loose ends"), "{doc}");
}

#[test]
fn the_short_session_is_its_one_request_and_a_refused_call_is_no_failure() {
    let p = TestProject::new();
    let doc = judged(
        &p,
        &Labels {
            file: "real-transcripts/short.jsonl",
            task: "mix phx.server doesnt seem to start",
            title: "mix phx.server doesnt seem to start",
            ..Labels::default()
        },
    );
    // The person refused the tool call (the client's refusal text): not a failure.
    assert!(!doc.contains("## Loose ends"), "{doc}");
    assert!(!doc.contains("## Plan"), "{doc}");
}

#[test]
fn the_subagent_session_is_the_persons_skill_command_and_their_answers() {
    let p = TestProject::new();
    judged(
        &p,
        &Labels {
            file: "real-transcripts/subagent.jsonl",
            task: "/handgemacht:create-beads websearch to learn how to fastest setup credo, dialyzer, mix_audit (basically all supported by https://github.com/bradleygolden/claude-marketplace-elixir)",
            title: "/handgemacht:create-beads websearch to learn how to fastest…",
            latest: Some("Their latest request (2026-02-10 22:01 UTC):\n> create the beads"),
            decisions: &[
                (
                    "Which rig do these beads belong to? (This is a single-app project — should I use 'spotter'?)",
                    "No rig",
                ),
                (
                    "Which tools should we set up?",
                    "Credo + Dialyxir + mix_audit",
                ),
            ],
            ..Labels::default()
        },
    );
}

#[test]
fn the_tool_heavy_session_keeps_its_first_task_and_its_server_still_running() {
    let p = TestProject::new();
    judged(
        &p,
        &Labels {
            file: "real-transcripts/tool_heavy.jsonl",
            task: "start phoenix in background",
            title: "start phoenix in background",
            latest: Some(
                "Their latest request (2026-02-10 22:59 UTC), interrupted before Claude answered:\n> scrolling back in xterm.js still does not work",
            ),
            background: &["mix phx.server"],
            ..Labels::default()
        },
    );
}

#[test]
fn the_pinned_clients_recorded_session_hands_off_plan_decision_job_and_pending_work() {
    let p = TestProject::new();
    judged(
        &p,
        &Labels {
            file: "transcripts/recorded-plan-question-background-compact.jsonl",
            task: "ORIGINAL-TASK: build the blue widget as SPEC.md says",
            title: "ORIGINAL-TASK: build the blue widget as SPEC.md says",
            latest: Some("Their latest request (2026-12-02 03:03 UTC):\n> continue"),
            pending: &["> - PENDING-WORK: wire the blue widget into the dashboard"],
            next: Some("NEXT-STEP: run the widget tests once the long job ends."),
            plan: Some("> 1. PLAN-STEP-ONE: draw the widget"),
            decisions: &[("Which colour should the widget be?", "Blue")],
            background: &["sleep 300"],
            ..Labels::default()
        },
    );
}
