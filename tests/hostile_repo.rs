//! A repository never decides what forge does on your behalf (issue "12 of 17"). Each
//! test builds the hostile tree of one row of that table — what a cloned
//! repository can ship — runs the real binary on it, and checks that forge did not
//! act on it: no command of the repository's ran, nothing was committed, sent or
//! waited for, nothing was read from or written outside the project, and other
//! projects' views are untouched. Each also checks that what *you* configured still
//! happens, so a test cannot pass by forge doing nothing at all.

#![allow(clippy::unwrap_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::TestProject;

/// Writes the user config (`$XDG_CONFIG_HOME/forge/config.toml`).
fn user_config(p: &TestProject, text: &str) {
    let path = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An executable shell script at `path` that appends `name` to `mark` (and, for a
/// filter, passes its input through).
fn planted_program(path: &Path, name: &str, mark: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\necho {name} >> '{}'\ncat\n", mark.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn marks(mark: &Path) -> String {
    std::fs::read_to_string(mark).unwrap_or_default()
}

fn session_start(cmd: &mut assert_cmd::Command, p: &TestProject) -> String {
    let out = cmd
        .args(["hook", "SessionStart"])
        .write_stdin(p.payload("hooks/SessionStart-startup.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stdout).unwrap()
}

/// Row 4: an executable `./sh` and `./tmux` in the repository, and a relative entry
/// in `PATH` (a leading `:`). forge must run the system's `sh` for your own hook and
/// the system's `tmux` (asked for the agent's name because the project config has an
/// agent table), never the repository's.
#[test]
fn row4_a_relative_path_entry_never_runs_the_repositorys_sh_or_tmux() {
    let p = TestProject::new();
    let mark = p.dir.path().join("ran");
    // `uname` stands for any word of your hook's command that the shell looks up in
    // PATH: it is found in the absolute folders only.
    for name in ["sh", "tmux", "uname"] {
        planted_program(&p.root.join(name), name, &mark);
    }
    user_config(
        &p,
        "[[on_session_start]]\ncommand = \"uname >/dev/null; echo from-your-own-hook\"\n",
    );
    p.write(
        ".forge/config.toml",
        "[agents.builder.context]\nwarn = 60\n",
    );
    let text = session_start(
        p.forge()
            .env("PATH", ":/usr/local/bin:/usr/bin:/bin")
            .env("TMUX", "/tmp/forge-test-no-tmux,1,0")
            .env("TMUX_PANE", "%0"),
        &p,
    );
    assert_eq!(marks(&mark), "", "forge ran the repository's program");
    assert!(text.contains("from-your-own-hook"), "your hook ran: {text}");
}

/// Row 6: a relative `XDG_CONFIG_HOME` (`.`). The XDG spec says to ignore it; else a
/// file of the repository (`./forge/config.toml`) would be "your own config" and its
/// `[[on_session_start]]` would run.
#[test]
fn row6_a_relative_xdg_config_home_never_makes_a_repository_file_your_config() {
    let p = TestProject::new();
    let mark = p.dir.path().join("pwned");
    p.write(
        "forge/config.toml",
        &format!(
            "[[on_session_start]]\ncommand = \"touch '{}'\"\n",
            mark.display()
        ),
    );
    // Your real config (under HOME) still counts.
    let own = p.home.join(".config/forge/config.toml");
    std::fs::create_dir_all(own.parent().unwrap()).unwrap();
    std::fs::write(&own, "[[on_session_start]]\ncommand = \"echo from-home\"\n").unwrap();
    let text = session_start(p.forge().env("XDG_CONFIG_HOME", "."), &p);
    assert!(!mark.exists(), "the repository's file ran as your config");
    assert!(text.contains("from-home"), "{text}");
    // The same for the other XDG folders forge reads: a relative XDG_STATE_HOME puts
    // no fleet registry into the project.
    session_start(p.forge().env("XDG_STATE_HOME", "state-here"), &p);
    assert!(!p.root.join("state-here").exists());
}
