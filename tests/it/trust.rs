//! The trust step as a team uses it (issue "21 of 24", its second half): a project
//! config a team commits, said where the person looks while it waits for trust,
//! trusted after it was shown and confirmed, once for every worktree of the
//! repository; and the setup commands that lead there (`forge init`'s ignore rules,
//! its refusal in the home folder, doctor's advice for a double wiring).

#![allow(clippy::unwrap_used)]

use crate::common;

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

/// The binary under test (`FORGE_TEST_BIN` names another build).
fn forge_bin() -> std::path::PathBuf {
    std::env::var_os("FORGE_TEST_BIN").map_or_else(
        || env!("CARGO_BIN_EXE_forge").into(),
        std::path::PathBuf::from,
    )
}

fn trust_state(p: &TestProject) -> String {
    let v: serde_json::Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["trust", "--status", "--json"]))).unwrap();
    v["trust"]["state"].as_str().unwrap().to_owned()
}

/// `forge trust` shows the acting keys and their values first, then asks; it trusts
/// only on a yes typed at the terminal, or with `--yes`, never without a terminal.
/// A long value is cut so the keys after it stay on the screen.
#[test]
fn forge_trust_shows_first_then_asks_and_trusts_only_on_a_yes() {
    let p = TestProject::new();
    let branches: Vec<String> = (0..400).map(|i| format!("\"release/{i:04}\"")).collect();
    p.write(
        ".forge/config.toml",
        &format!(
            "[ladder]\nprotected_branches = [{}]\n[relay]\nmax_handoffs = 9\n",
            branches.join(", ")
        ),
    );
    // No terminal, no --yes: shown, not trusted, and told how.
    let out = p.forge().arg("trust").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        shown.contains("relay.max_handoffs = 9") && shown.contains("ladder.protected_branches"),
        "{shown}"
    );
    assert!(
        shown.lines().all(|l| l.chars().count() <= 160),
        "a long value pushed the others off the screen:\n{shown}"
    );
    assert!(shown.contains("(6400 characters)"), "{shown}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no terminal") && err.contains("--yes"),
        "{err}"
    );
    assert_eq!(trust_state(&p), "untrusted");

    // At a terminal: asked after the keys were shown; a no trusts nothing, a yes does.
    if common::tmux::Tmux::here() {
        for (answer, state) in [("n", "untrusted"), ("y", "trusted")] {
            let exit = p.dir.path().join(format!("exit-{answer}"));
            let command = format!(
                "cd {} && env -u CLAUDE_PROJECT_DIR HOME={} XDG_CONFIG_HOME={} XDG_STATE_HOME={} {} trust; echo EXIT=$? > {}",
                common::sh_quote(&p.root),
                common::sh_quote(&p.home),
                common::sh_quote(&p.xdg),
                common::sh_quote(&p.state()),
                common::sh_quote(&forge_bin()),
                common::sh_quote(&exit),
            );
            let tmux = common::tmux::Tmux::start(120, 40, &command);
            let screen = tmux.wait_for("[y/N]");
            let asked = screen.find("[y/N]").unwrap();
            let listed = screen.find("relay.max_handoffs = 9").unwrap();
            assert!(listed < asked, "asked before it showed the keys:\n{screen}");
            tmux.keys(&[answer, "Enter"]);
            common::wait_until("forge trust to end", || exit.exists());
            assert_eq!(trust_state(&p), state, "after {answer}");
        }
    }
    // --yes (scripts): shows and trusts.
    ok_stdout(p.forge().args(["trust", "--revoke"]));
    let t = ok_stdout(p.forge().args(["trust", "--yes"]));
    assert!(
        t.contains("relay.max_handoffs = 9") && t.contains("Trusted"),
        "{t}"
    );
    assert_eq!(trust_state(&p), "trusted");
}

/// `forge trust --status` on a file `forge trust` would refuse says so, with the
/// error, instead of advising a `forge trust` that then refuses.
#[test]
fn trust_status_never_advises_a_trust_that_would_be_refused() {
    let p = TestProject::new();
    p.write(".forge/config.toml", "[notify]\nmode = \"sync\"\n");
    let s = ok_stdout(p.forge().args(["trust", "--status"]));
    assert!(!s.contains("Run `forge trust`"), "{s}");
    assert!(
        s.contains("would not trust it") && s.contains("`notify.mode` must be"),
        "{s}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["trust", "--status", "--json"]))).unwrap();
    assert_eq!(v["trustable"], false, "{v}");
    assert!(v["error"].as_str().unwrap().contains("notify.mode"), "{v}");
    // Fixed, it advises the trust that then works.
    p.write(".forge/config.toml", "[notify]\nmode = \"bidirectional\"\n");
    let s = ok_stdout(p.forge().args(["trust", "--status"]));
    assert!(s.contains("Run `forge trust`"), "{s}");
    ok_stdout(p.forge().args(["trust", "--yes"]));
}

/// Trust is of the file's content for the repository, not of one folder: trusted in
/// the main work tree, the same content applies in a worktree made with `git
/// worktree add` (and trusted there, in the main one); an edit in one revokes it
/// there only; a folder whose `.git` file merely names the repository is not one of
/// its worktrees and borrows nothing.
#[test]
fn trust_given_once_covers_every_worktree_of_the_repository() {
    let p = TestProject::new();
    ok_stdout(p.forge().arg("init"));
    let config = "[relay]\nmax_handoffs = 7\n";
    p.write(".forge/config.toml", config);
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["add", "-f", ".forge/config.toml"]);
    git(&p.root, &["commit", "-qm", "the team's forge config"]);
    let wt = p.dir.path().join("wt-feature");
    git(
        &p.root,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ],
    );
    assert_eq!(
        std::fs::read_to_string(wt.join(".forge/config.toml")).unwrap(),
        config
    );
    let state_in = |dir: &std::path::Path| -> String {
        let v: serde_json::Value = serde_json::from_str(&ok_stdout(
            p.forge()
                .current_dir(dir)
                .args(["trust", "--status", "--json"]),
        ))
        .unwrap();
        v["trust"]["state"].as_str().unwrap().to_owned()
    };
    assert_eq!(state_in(&wt), "untrusted");
    ok_stdout(p.forge().args(["trust", "--yes"]));
    assert_eq!(state_in(&p.root), "trusted");
    assert_eq!(
        state_in(&wt),
        "trusted",
        "the worktree did not share the trust"
    );
    let shown: serde_json::Value = serde_json::from_str(&ok_stdout(
        p.forge()
            .current_dir(&wt)
            .args(["config", "show", "--json"]),
    ))
    .unwrap();
    assert_eq!(shown["ignored"], serde_json::json!([]), "{shown}");
    // An edit in the worktree: untrusted there, still trusted in the main one.
    std::fs::write(
        wt.join(".forge/config.toml"),
        "[relay]\nmax_handoffs = 20\n",
    )
    .unwrap();
    assert_eq!(state_in(&wt), "untrusted");
    assert_eq!(state_in(&p.root), "trusted");
    // Trusted from the worktree, for the repository: the main one follows.
    std::fs::write(wt.join(".forge/config.toml"), config).unwrap();
    ok_stdout(p.forge().args(["trust", "--revoke"]));
    ok_stdout(p.forge().current_dir(&wt).args(["trust", "--yes"]));
    assert_eq!(state_in(&p.root), "trusted");
    // A folder whose .git file names the repository's worktree folder, but which
    // that folder does not name back, is another project.
    let stray = p.dir.path().join("stray");
    std::fs::create_dir_all(stray.join(".forge")).unwrap();
    std::fs::write(stray.join(".forge/config.toml"), config).unwrap();
    let gitdir = p.root.join(".git/worktrees/wt-feature");
    std::fs::write(
        stray.join(".git"),
        format!("gitdir: {}\n", gitdir.display()),
    )
    .unwrap();
    assert_eq!(
        state_in(&stray),
        "untrusted",
        "a stray .git file borrowed the trust"
    );
}

/// An untrusted project file is said where the person looks, naming `forge trust`:
/// at the top of `forge status` (and in its JSON, which `forge mcp`'s status tool
/// gives too) and in the dashboard's header — until it is trusted.
#[test]
fn an_untrusted_file_is_said_in_forge_status_and_the_dashboard_header() {
    let p = TestProject::new();
    ok_stdout(p.forge().arg("init"));
    p.write(
        ".forge/config.toml",
        "[relay]\nthreshold = 60\n[context]\nhandoff_threshold = 60\n",
    );
    let status = ok_stdout(p.forge().arg("status"));
    let first = status.lines().next().unwrap();
    assert!(
        first.starts_with("⚠ .forge/config.toml is not trusted")
            && first.contains("context.handoff_threshold, relay.threshold")
            && first.contains("`forge trust`"),
        "{status}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["status", "--json"]))).unwrap();
    assert!(
        v["untrusted_config"]
            .as_str()
            .unwrap()
            .contains("forge trust"),
        "{v}"
    );
    let frame = ok_stdout(
        p.forge()
            .args(["tui", "--once", "--width", "120", "--height", "12"]),
    );
    assert!(
        frame.contains("⚠ .forge/config.toml untrusted: 2 keys wait · forge trust"),
        "{frame}"
    );
    // Trusted: said nowhere.
    ok_stdout(p.forge().args(["trust", "--yes"]));
    assert!(!ok_stdout(p.forge().arg("status")).contains("not trusted"));
    let v: serde_json::Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["status", "--json"]))).unwrap();
    assert_eq!(v["untrusted_config"], serde_json::Value::Null);
    let frame = ok_stdout(
        p.forge()
            .args(["tui", "--once", "--width", "120", "--height", "12"]),
    );
    assert!(!frame.contains("untrusted"), "{frame}");
}

/// SessionStart tells the person — on their screen (the JSON `systemMessage`), not
/// only in the model's context — that the project's config waits for `forge trust`,
/// once per content: a second session is not told again, an edit of the file is
/// told anew, and a trusted file is told nothing.
#[test]
fn session_start_tells_the_person_of_an_untrusted_file_once_per_content() {
    let p = TestProject::new();
    ok_stdout(p.forge().arg("init"));
    p.write(".forge/config.toml", "[relay]\nthreshold = 60\n");
    let start = || {
        let out = p
            .forge()
            .args(["hook", "SessionStart"])
            .write_stdin(p.payload("hooks/SessionStart-startup.json"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let told = |stdout: &str| -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(stdout).ok()?;
        v["systemMessage"]
            .as_str()
            .filter(|m| m.contains("is not trusted"))
            .map(str::to_owned)
    };
    let first = start();
    let line = told(&first).unwrap_or_else(|| panic!("not told: {first}"));
    assert!(
        line.contains(".forge/config.toml")
            && line.contains("relay.threshold")
            && line.contains("`forge trust`"),
        "{line}"
    );
    assert_eq!(told(&start()), None, "told twice for one content");
    p.write(".forge/config.toml", "[relay]\nthreshold = 65\n");
    let edited = start();
    assert!(told(&edited).is_some(), "an edit was not told: {edited}");
    p.write(".forge/config.toml", "[relay]\nthreshold = 70\n");
    ok_stdout(p.forge().args(["trust", "--yes"]));
    assert_eq!(told(&start()), None, "a trusted file was told");
}

/// `forge init` in the home folder wired `~/.claude/settings.json` for every project
/// and made `~/.forge` and `~/.gitignore`, without a word, and doctor there said all
/// was well. Now it refuses, writes nothing, and says what `--user` is for (which
/// works there); doctor there warns.
#[test]
fn forge_init_in_the_home_folder_refuses_and_says_what_user_is_for() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.bin_dir()).unwrap();
    for args in [
        &["init"][..],
        &["init", "--local"][..],
        &["init", "--uninstall"][..],
    ] {
        let out = p.forge().current_dir(&p.home).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("is your home folder, not a project")
                && err.contains("forge init --user")
                && err.contains("Nothing was written"),
            "{args:?}: {err}"
        );
    }
    for made in [
        ".forge",
        ".gitignore",
        ".claude/settings.json",
        ".claude/settings.local.json",
    ] {
        assert!(
            !p.home.join(made).exists(),
            "{made} was made in the home folder"
        );
    }
    let doctor = String::from_utf8(
        p.forge()
            .current_dir(&p.home)
            .arg("doctor")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        doctor.contains("warn  project") && doctor.contains("this is your home folder"),
        "{doctor}"
    );
    assert!(!doctor.contains("Everything looks right."), "{doctor}");
    // --user is the way there, and makes nothing but the user settings.
    let out = ok_stdout(p.forge().current_dir(&p.home).args(["init", "--user"]));
    assert!(p.home.join(".claude/settings.json").exists(), "{out}");
    assert!(!p.home.join(".forge").exists() && !p.home.join(".gitignore").exists());
}
