//! Process tests for `forge hook`: the real binary, a temporary git repo, `HOME` in a
//! temporary folder.

mod common;

use common::TestProject;

#[test]
fn stop_writes_last_session_and_learn_flag() {
    let p = TestProject::new();
    p.forge()
        .args(["hook", "Stop"])
        .write_stdin(p.payload("hooks/Stop.json"))
        .assert()
        .success()
        .stdout("");
    let last: serde_json::Value =
        serde_json::from_str(&p.read(".forge/logs/last-session.json")).unwrap();
    assert_eq!(last["branch"], "main");
    assert_eq!(last["uncommitted_changes"], 0);
    assert_eq!(last["final"], false);
    assert!(p.forge_dir().join("logs/learn-pending").exists());
}
