//! The trust step as a team uses it (issue "21 of 24", its second half): a project
//! config a team commits, said where the person looks while it waits for trust,
//! trusted after it was shown and confirmed, once for every worktree of the
//! repository; and the setup commands that lead there (`forge init`'s ignore rules,
//! its refusal in the home folder, doctor's advice for a double wiring).

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

use common::{TestProject, git, ok_stdout};

/// `git -C dir args`, its stdout; panics when git fails.
fn git_out(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// `forge init`'s ignore rules let `.forge/config.toml` be committed (the rest of
/// `.forge/` stays out of git), in a new project and in one an earlier version set
/// up with `.forge/` ignored whole — twice: in `.gitignore` and in `.forge/.gitignore`.
#[test]
fn a_team_can_commit_the_project_config_after_forge_init() {
    for earlier in [false, true] {
        let p = TestProject::new();
        if earlier {
            p.write(".gitignore", "target/\n.forge/\n");
            p.write(
                ".forge/.gitignore",
                "# forge state: local to this machine\n*\n",
            );
        }
        ok_stdout(p.forge().arg("init"));
        // forge's state exists and is ignored.
        p.write(".forge/logs/errors.log", "x\n");
        p.write(".forge/config.toml", "[statusline]\nbar_width = 6\n");
        git(&p.root, &["add", ".forge/config.toml"]);
        let status = git_out(&p.root, &["status", "--porcelain", "--untracked-files=all"]);
        assert!(
            status.contains("A  .forge/config.toml"),
            "{earlier}: {status}"
        );
        assert!(!status.contains(".forge/logs"), "{earlier}: {status}");
        assert!(!status.contains(".forge/.gitignore"), "{earlier}: {status}");
        let ignore = p.read(".gitignore");
        assert!(
            ignore.contains(".forge/*\n!.forge/config.toml\n") && !ignore.contains(".forge/\n"),
            "{earlier}: {ignore}"
        );
    }
}
