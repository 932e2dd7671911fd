//! Secrets people paste (into commit messages, into a command Claude asks permission
//! for) are redacted before forge stores them: commit subjects in handoffs,
//! notification messages in session bridges.

#![allow(clippy::unwrap_used)]

mod common;

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
