//! Per-agent settings (issue "10 of 11", item 3): `[agents.<name>]` tables, the
//! agent named by `$FORGE_AGENT` (the tmux session's name is tested in tests/it/tui.rs).

#![allow(clippy::unwrap_used)]

use crate::common;

use common::{TestProject, ok_stdout};
use serde_json::Value;

const CONFIG: &str = "[context]\nhandoff_threshold = 70\n\
    [agents.reviewer.context]\nwarn = 80\ncritical = 90\nemergency = 97\nhandoff_threshold = 80\n";

#[test]
fn the_agents_table_applies_to_the_status_line_and_config_show_says_where_from() {
    let p = TestProject::new();
    p.write(".forge/config.toml", CONFIG);
    let payload = p.payload("statusline/used-74.json");
    let line = |agent: Option<&str>| {
        let mut cmd = p.forge();
        cmd.arg("statusline").write_stdin(payload.clone());
        if let Some(a) = agent {
            cmd.env("FORGE_AGENT", a);
        }
        ok_stdout(&mut cmd)
    };
    // 74%: past the project's threshold, below the reviewer's.
    assert!(line(None).contains("⚠ CTX 74%"), "{}", line(None));
    let reviewer = line(Some("reviewer"));
    assert!(!reviewer.contains("⚠"), "{reviewer}");
    assert!(
        reviewer.contains("74%") && !reviewer.contains("L1"),
        "{reviewer}"
    );
    // Another agent, or none, gets the project's values.
    assert!(line(Some("builder")).contains("⚠ CTX 74%"));

    let text = ok_stdout(
        p.forge()
            .args(["config", "show"])
            .env("FORGE_AGENT", "reviewer"),
    );
    assert!(text.starts_with("# as agent reviewer\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("context.warn = 80") && l.contains("# agent reviewer (")),
        "{text}"
    );
    let v: Value = serde_json::from_str(&ok_stdout(
        p.forge()
            .args(["config", "show", "--json", "--agent", "reviewer"]),
    ))
    .unwrap();
    assert_eq!(v["agent"], "reviewer");
    assert_eq!(v["agents"], serde_json::json!(["reviewer"]));
    let warn = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "context.warn")
        .unwrap();
    assert_eq!(warn["value"], 80.0);
    assert_eq!(warn["source"], "agent");
    // An agent no file defines: a warning, the values without a table.
    let out = p
        .forge()
        .args(["config", "show", "--agent", "nobody"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no config file has an [agents.nobody] table (agents defined: reviewer)"),
        "{out:?}"
    );
}

#[test]
fn validate_checks_every_agent_table_and_the_example_is_valid() {
    let p = TestProject::new();
    p.write(
        ".forge/config.toml",
        "[agents.builder.context]\nwarm = 60\n",
    );
    let out = p.forge().args(["config", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown key `agents.builder.context.warm`"),
        "{err}"
    );
    // Hooks never fail on it: a logged no-op.
    p.forge()
        .args(["hook", "Stop"])
        .write_stdin(p.payload("hooks/Stop.json"))
        .assert()
        .success();
    // The shipped example passes.
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/config.toml"),
    )
    .unwrap();
    p.write(".forge/config.toml", &example);
    let text = ok_stdout(p.forge().args(["config", "validate"]));
    assert!(text.starts_with("Config OK"), "{text}");
    let text = ok_stdout(p.forge().args(["config", "show", "--agent", "builder"]));
    assert!(text.contains("context.handoff_threshold = 60.0"), "{text}");
}
