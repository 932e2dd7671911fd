//! The escalation ladder (issue "10 of 11", item 4): per level, a handoff, an alert
//! at the next prompt, an opt-in WIP commit; each once per level per session.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::{TestProject, git, ok_stdout, outcomes, statusline, wait_until};
use serde_json::Value;

fn sid() -> String {
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(common::fixtures().join("statusline/used-74.json")).unwrap(),
    )
    .unwrap();
    v["session_id"].as_str().unwrap().to_owned()
}

fn prompt(p: &TestProject) -> String {
    let payload = serde_json::json!({
        "session_id": sid(),
        "transcript_path": p.home.join(".claude/projects/x/t.jsonl"),
        "cwd": p.root,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "go on",
    });
    ok_stdout(
        p.forge()
            .args(["hook", "UserPromptSubmit"])
            .write_stdin(payload.to_string()),
    )
}

#[test]
fn by_default_l2_alerts_the_model_once_and_l3_hands_off_again() {
    let p = TestProject::new();
    statusline(&p, 74);
    wait_until("the L1 threshold handoff", || {
        p.session_handoffs().len() == 1
    });
    assert_eq!(prompt(&p), "", "no alert at L1");
    statusline(&p, 86);
    wait_until("the L2 alert", || {
        p.forge_dir()
            .join(format!("logs/sessions/{}.alert", sid()))
            .exists()
    });
    let text = prompt(&p);
    assert_eq!(
        text,
        "forge: context 86% (L2): finish the current step, then hand off (run `forge handoff`).\n"
    );
    assert_eq!(prompt(&p), "", "said once");
    // More ticks at L2: nothing new.
    statusline(&p, 88);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(prompt(&p), "");
    assert_eq!(p.session_handoffs().len(), 1);
    // L3: a handoff of its own and an alert.
    statusline(&p, 96);
    wait_until("the L3 handoff", || p.session_handoffs().len() == 2);
    wait_until("the L3 alert", || {
        p.forge_dir()
            .join(format!("logs/sessions/{}.alert", sid()))
            .exists()
    });
    assert!(prompt(&p).contains("(L3): stop and hand off now"));
    let o = outcomes(&p, "ladder");
    assert!(o.iter().any(|o| o["kind"] == "handoff_written"), "{o:?}");
    let log = ok_stdout(p.forge().arg("log"));
    assert!(
        log.contains("told the model: forge: context 86% (L2)"),
        "{log}"
    );
    // Down (a compaction), then up again: a new crossing alerts again.
    statusline(&p, 40);
    statusline(&p, 87);
    wait_until("the second L2 alert", || {
        p.forge_dir()
            .join(format!("logs/sessions/{}.alert", sid()))
            .exists()
    });
}

#[test]
fn wip_commits_only_tracked_changes_on_an_unprotected_branch_without_secrets() {
    let p = TestProject::new();
    git(&p.root, &["config", "user.name", "Forge Test"]);
    git(&p.root, &["config", "user.email", "forge@example.com"]);
    p.write(".forge/config.toml", "[ladder]\nL2 = [\"wip_commit\"]\n");
    // The project file's ladder acts: it applies once you trust it.
    ok_stdout(p.forge().args(["trust", "--yes"]));
    p.write(".forge/state.json", r#"{"task": "T-012"}"#);
    // On main (protected): no commit.
    std::fs::write(p.root.join("README.md"), "# changed\n").unwrap();
    statusline(&p, 86);
    wait_until("the ladder", || !outcomes(&p, "ladder").is_empty());
    let o = outcomes(&p, "ladder");
    assert_eq!(o[0]["kind"], "wip_skipped", "{o:?}");
    assert!(
        o[0]["why"]
            .as_str()
            .unwrap()
            .contains("branch main is protected")
    );

    // On a feature branch: the tracked change is committed, the untracked file not.
    git(&p.root, &["checkout", "-q", "-b", "feat/pool"]);
    std::fs::write(p.root.join("notes.txt"), "untracked\n").unwrap();
    statusline(&p, 40);
    statusline(&p, 86);
    wait_until("the second climb", || outcomes(&p, "ladder").len() == 2);
    let o = outcomes(&p, "ladder");
    assert_eq!(o[1]["kind"], "wip_committed", "{o:?}");
    assert_eq!(o[1]["message"], "[WIP] T-012 - checkpoint (L2 at 86%)");
    let out = std::process::Command::new("git")
        .args(["log", "-1", "--format=%s", "--name-only"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(
        log.starts_with("[WIP] T-012 - checkpoint (L2 at 86%)\n"),
        "{log}"
    );
    assert!(
        log.contains("README.md") && !log.contains("notes.txt"),
        "{log}"
    );

    // A tracked file that looks like a secret, or holds one: never committed.
    std::fs::write(p.root.join(".env"), "A=1\n").unwrap();
    git(&p.root, &["add", ".env"]);
    git(&p.root, &["commit", "-qm", "env"]);
    std::fs::write(p.root.join(".env"), "A=2\n").unwrap();
    statusline(&p, 40);
    statusline(&p, 86);
    wait_until("the third climb", || outcomes(&p, "ladder").len() == 3);
    let o = outcomes(&p, "ladder");
    assert_eq!(o[2]["kind"], "wip_skipped", "{o:?}");
    assert!(
        o[2]["why"]
            .as_str()
            .unwrap()
            .contains(".env looks like a secret")
    );
    git(&p.root, &["checkout", "-q", "--", ".env"]);
    std::fs::write(
        p.root.join("README.md"),
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    )
    .unwrap();
    statusline(&p, 40);
    statusline(&p, 86);
    wait_until("the fourth climb", || outcomes(&p, "ladder").len() == 4);
    let o = outcomes(&p, "ladder");
    assert!(
        o[3]["why"]
            .as_str()
            .unwrap()
            .contains("README.md holds something that looks like a secret"),
        "{o:?}"
    );
}
