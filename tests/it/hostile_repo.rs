//! A repository never decides what forge does on your behalf (issue "12 of 17"). Each
//! test builds the hostile tree of one row of that table — what a cloned
//! repository can ship — runs the real binary on it, and checks that forge did not
//! act on it: no command of the repository's ran, nothing was committed, sent or
//! waited for, nothing was read from or written outside the project, and other
//! projects' views are untouched. Each also checks that what *you* configured still
//! happens, so a test cannot pass by forge doing nothing at all.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{TestProject, git, ok_stdout, outcomes, statusline, user_config, wait_until};
use serde_json::{Value, json};

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

/// Every outcome of every event line.
fn all_outcomes(p: &TestProject) -> Vec<Value> {
    std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .flat_map(|v| v["outcomes"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn commits(p: &TestProject) -> usize {
    let out = std::process::Command::new("git")
        .args(["rev-list", "--count", "HEAD"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Row 3: a repository ships `.forge/config.toml` with `[ladder] L1 = ["wip_commit"]`
/// and `protected_branches = []`. At the first status-line tick past L1 forge
/// committed your tracked changes on `main`. Now the file's acting keys are ignored
/// (said once in the log, named by `config validate`, `config show` and `doctor`)
/// until you trust it; trusted, it does what it says; edited, it is ignored again.
#[test]
fn row3_a_shipped_ladder_never_commits_until_you_trust_that_content() {
    let p = TestProject::new();
    git(&p.root, &["config", "user.name", "You"]);
    git(&p.root, &["config", "user.email", "you@example.com"]);
    let hostile = "[ladder]\nL1 = [\"wip_commit\"]\nprotected_branches = []\n\
                   [statusline]\nbar_width = 4\n";
    p.write(".forge/config.toml", hostile);
    git(&p.root, &["add", "-f", ".forge/config.toml"]);
    git(&p.root, &["commit", "-qm", "ship a forge config"]);
    std::fs::write(p.root.join("README.md"), "# your work in progress\n").unwrap();
    let before = commits(&p);

    let line = statusline(&p, 74);
    assert!(line.contains(" ███░ "), "display keys apply: {line}");
    // The ladder runs in a detached child: give it time to commit (it would).
    let deadline = Instant::now() + Duration::from_secs(3);
    while commits(&p) == before && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(commits(&p), before, "forge committed on main");
    // Your own (default) L1 still hands off.
    wait_until("the threshold handoff", || p.session_handoffs().len() == 1);
    assert!(
        outcomes(&p, "ladder").is_empty(),
        "no ladder action ran: {:?}",
        outcomes(&p, "ladder")
    );
    // Said once, in the log.
    statusline(&p, 75);
    let said: Vec<Value> = all_outcomes(&p)
        .into_iter()
        .filter(|o| o["kind"] == "config_ignored")
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert_eq!(
        said[0]["keys"],
        json!(["ladder.L1", "ladder.protected_branches"])
    );
    let log = ok_stdout(p.forge().arg("log"));
    assert!(log.contains("ignored the acting keys ladder.L1"), "{log}");
    // validate: not an error, but said; show: listed with why; doctor: a warning
    // naming the command.
    let v = ok_stdout(p.forge().args(["config", "validate"]));
    assert!(v.contains("Config OK") && v.contains("ladder.L1"), "{v}");
    let show = ok_stdout(p.forge().args(["config", "show"]));
    assert!(show.contains("ladder.L1 = [\"handoff\"]"), "{show}");
    assert!(
        show.contains("# ignored from") && show.contains("#   ladder.L1 = [\"wip_commit\"]"),
        "{show}"
    );
    let doctor = String::from_utf8(p.forge().arg("doctor").output().unwrap().stdout).unwrap();
    assert!(
        doctor.contains("warn  config") && doctor.contains("forge trust --project"),
        "{doctor}"
    );

    // You trust it: it shows what it would do first, then it acts.
    let t = ok_stdout(p.forge().args(["trust", "--yes"]));
    assert!(
        t.contains("ladder.L1 = [\"wip_commit\"]")
            && t.contains("WIP commit")
            && t.contains("Trusted"),
        "{t}"
    );
    statusline(&p, 40);
    statusline(&p, 74);
    wait_until("the WIP commit", || commits(&p) == before + 1);
    // An edit revokes it.
    std::fs::write(
        p.root.join(".forge/config.toml"),
        format!("{hostile}# one more line\n"),
    )
    .unwrap();
    std::fs::write(p.root.join("README.md"), "# more work\n").unwrap();
    statusline(&p, 40);
    statusline(&p, 74);
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(commits(&p), before + 1, "the edited file was still trusted");
    let status = ok_stdout(p.forge().args(["trust", "--status"]));
    assert!(status.contains("changed since you trusted it"), "{status}");
}

/// Row 1: a repository ships `.gitignore`, `.claude/`, a settings file or
/// `.claude/commands/` as a symbolic link (or a FIFO). `forge init` read
/// `/proc/self/environ` into `.gitignore`, copied a JSON file of yours into the
/// repository, wrote through a linked `.claude/` outside the project. Now each
/// `forge init` (plain, `--local`, `--commands`, `--uninstall`) refuses, naming the
/// path, exits non-zero and writes nothing — and runs as before once the link is gone.
#[test]
fn row1_init_follows_no_link_out_of_the_project() {
    use std::os::unix::fs::symlink;
    let p = TestProject::new();
    let outside = p.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("settings.json");
    std::fs::write(&secret, "{\"apiKey\": \"sk-ant-api03-yours\"}\n").unwrap();
    let git_status = |p: &TestProject| {
        String::from_utf8(
            std::process::Command::new("git")
                .args(["status", "--porcelain", "--ignored"])
                .current_dir(&p.root)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
    };
    let refused = |args: &[&str], what: &Path| {
        let before = git_status(&p);
        let out = p
            .forge()
            .arg("init")
            .args(args)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(&what.display().to_string()) && err.contains("wrote nothing"),
            "{args:?} names {}: {err}",
            what.display()
        );
        assert_eq!(git_status(&p), before, "{args:?} wrote something");
        assert!(!p.forge_dir().exists(), "{args:?} created .forge/");
        assert_eq!(
            std::fs::read_dir(&outside).unwrap().count(),
            1,
            "{args:?} wrote outside the project"
        );
        err
    };
    // .gitignore -> /proc/self/environ: your environment would land in a tracked file.
    let gitignore = p.root.join(".gitignore");
    symlink("/proc/self/environ", &gitignore).unwrap();
    let err = refused(&[], &gitignore);
    assert!(
        err.contains("symbolic link (to /proc/self/environ)"),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&gitignore).unwrap().is_symlink());
    std::fs::remove_file(&gitignore).unwrap();
    // .claude/settings.json -> a file of yours outside.
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    let settings = p.root.join(".claude/settings.json");
    symlink(&secret, &settings).unwrap();
    refused(&[], &settings);
    refused(&["--uninstall"], &settings);
    std::fs::remove_file(&settings).unwrap();
    // .claude/settings.local.json as a FIFO: refused at once, nothing hangs.
    let local = p.root.join(".claude/settings.local.json");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&local)
            .status()
            .unwrap()
            .success()
    );
    let err = refused(&["--local"], &local);
    assert!(err.contains("FIFO"), "{err}");
    std::fs::remove_file(&local).unwrap();
    // .claude/commands -> outside, with --commands.
    let commands = p.root.join(".claude/commands");
    symlink(&outside, &commands).unwrap();
    refused(&["--commands"], &commands);
    std::fs::remove_file(&commands).unwrap();
    // .claude -> outside: nothing is written through it.
    std::fs::remove_dir_all(p.root.join(".claude")).unwrap();
    let claude = p.root.join(".claude");
    symlink(&outside, &claude).unwrap();
    refused(&[], &claude);
    refused(&["--local"], &claude);
    std::fs::remove_file(&claude).unwrap();
    // With the links gone, init works as before.
    let out = ok_stdout(p.forge().arg("init"));
    assert!(out.contains("Wired forge into"), "{out}");
    assert!(p.read(".gitignore").contains(".forge/"));
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "{\"apiKey\": \"sk-ant-api03-yours\"}\n"
    );
}

/// Row 2: a large repository (its index past the size from which forge asks the
/// `git` binary) whose `.git/config` includes, through `includeIf "hasconfig:…"`
/// (which libgit2 does not evaluate), a file that defines a clean filter, and whose
/// `.gitattributes` sends every file through it. A Stop hook ran `git status`, which
/// ran the filter for each changed file. Now forge asks git how it resolves the
/// configuration first, and leaves such a repository to libgit2. (Each include kind
/// has a unit test in `src/git.rs`.)
#[test]
fn row2_a_filter_behind_a_hasconfig_include_never_runs() {
    let p = TestProject::new();
    let mark = p.dir.path().join("filter-ran");
    let filter = p.dir.path().join("filter.sh");
    planted_program(&filter, "filter", &mark);
    for i in 0..2500 {
        p.write(&format!("src/m{:02}/f{i}.rs", i / 400), &format!("{i:05}"));
    }
    p.write(".gitattributes", "* filter=x\n");
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["commit", "-qm", "a large tree"]);
    let index = std::fs::metadata(p.root.join(".git/index")).unwrap().len();
    assert!(
        index > 180 * 1024,
        "past the git binary's threshold: {index}"
    );
    git(
        &p.root,
        &[
            "remote",
            "add",
            "origin",
            "https://example.com/acme/api.git",
        ],
    );
    let included = p.dir.path().join("included.cfg");
    std::fs::write(
        &included,
        format!("[filter \"x\"]\n\tclean = {}\n", filter.display()),
    )
    .unwrap();
    let config = p.root.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    let _ = writeln!(
        text,
        "[includeIf \"hasconfig:remote.*.url:https://example.com/**\"]\n\tpath = {}",
        included.display()
    );
    std::fs::write(&config, text).unwrap();
    // Edited to the same size: git must hash them, through the filter.
    for i in [0, 1, 2] {
        p.write(&format!("src/m00/f{i}.rs"), &format!("{:05}", i + 90000));
    }
    let out = p
        .forge()
        .args(["hook", "Stop"])
        .write_stdin(p.payload("hooks/Stop.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        marks(&mark),
        "",
        "forge's git status ran the repository's filter"
    );
    // The count is still right (libgit2 scanned).
    let cache: Value = serde_json::from_str(&p.read(".forge/logs/git-cache.json")).unwrap();
    assert_eq!(cache["uncommitted_changes"], 3, "{cache}");
}

/// A fake orchestrator in an absolute folder: records its last argument and its
/// stdin, then answers `ok`.
fn orchestrator(p: &TestProject) -> (PathBuf, PathBuf) {
    let script = p.dir.path().join("orch.sh");
    let log = p.dir.path().join("orch.log");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor last; do :; done\n\
             {{ printf 'ARG:%s\\n' \"$last\"; printf 'STDIN:'; cat; printf '\\n---\\n'; }} >> '{}'\n\
             echo ok\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, log)
}

/// Row 5: your own `[notify]` command, and a repository's `.forge/config.toml` that
/// turns it bidirectional with a 10-minute wait, puts the message on stdin and asks
/// for 500 lines of your screen. Your orchestrator's "ok" became a Stop block. Now
/// the wake message goes as you configured it: async, as the last argument, 40
/// lines of the pane.
#[test]
fn row5_a_shipped_notify_section_never_changes_how_your_orchestrator_is_told() {
    let p = TestProject::new();
    let (script, log) = orchestrator(&p);
    user_config(
        &p,
        &format!(
            "[notify]\ncommand = [\"{}\", \"--message\"]\n",
            script.display()
        ),
    );
    p.write(
        ".forge/config.toml",
        "[notify]\nmode = \"bidirectional\"\ntimeout_secs = 600\nstdin = true\n\
         pane_capture_lines = 500\nevents = [\"stop\"]\n",
    );
    // A tmux of the test's own (in an absolute PATH folder) records what it is asked.
    let tmux_log = p.dir.path().join("tmux.log");
    std::fs::create_dir_all(p.bin_dir()).unwrap();
    std::fs::write(
        p.bin_dir().join("tmux"),
        format!(
            // display-message answers as tmux does for the pane asked about
            // ("#{pane_id} #S:#I.#P").
            "#!/bin/sh\necho \"$*\" >> '{}'\ncase \"$1\" in display-message) echo \"%1 work:1.0\";; *) seq 1 600;; esac\n",
            tmux_log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        p.bin_dir().join("tmux"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let started = Instant::now();
    let out = p
        .forge()
        .env("TMUX", "/tmp/forge-test,1,0")
        .env("TMUX_PANE", "%1")
        .args(["hook", "Stop"])
        .write_stdin(p.payload("hooks/Stop.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("\"decision\""),
        "the reply blocked Stop: {stdout}"
    );
    assert!(started.elapsed() < Duration::from_secs(5), "Stop waited");
    wait_until("the wake message", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("---"))
    });
    let got = std::fs::read_to_string(&log).unwrap();
    assert!(
        got.starts_with("ARG:[SESSION]"),
        "the message is the last argument: {got}"
    );
    assert!(got.contains("STDIN:\n---"), "nothing on stdin: {got}");
    let pane: Vec<&str> = got
        .split("[PANE CONTENT]\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .collect();
    assert_eq!(pane.len(), 40, "{got}");
    let asked = std::fs::read_to_string(&tmux_log).unwrap();
    assert!(asked.contains("-S -40"), "{asked}");
    let o = outcomes(&p, "Stop");
    assert!(
        o.iter()
            .any(|o| o["kind"] == "notified" && o["mode"] == "async"),
        "{o:?}"
    );
    assert!(
        o.iter().any(|o| o["kind"] == "config_ignored"),
        "the log says why: {o:?}"
    );
}

/// Row 7: a repository's `[attention] stale_after = "365d"` kept its sessions
/// "waiting" in every other project's fleet view. Now its registry entry carries your
/// limit (the default 30 minutes), so a session silent for two hours leaves.
#[test]
fn row7_a_shipped_attention_age_never_reaches_other_projects_views() {
    let hostile = TestProject::named("hostile");
    let mine = TestProject::named("mine");
    std::fs::create_dir_all(mine.forge_dir()).unwrap();
    hostile.write(
        ".forge/config.toml",
        "[attention]\nstale_after = \"365d\"\n",
    );
    let stop = json!({
        "session_id": "h1",
        "cwd": hostile.root,
        "hook_event_name": "Stop",
    });
    hostile
        .forge()
        .env("XDG_STATE_HOME", mine.state())
        .args(["hook", "Stop"])
        .write_stdin(stop.to_string())
        .assert()
        .success();
    let registry = mine.registry();
    let mut reg: Value =
        serde_json::from_str(&std::fs::read_to_string(&registry).unwrap()).unwrap();
    let entry = reg["projects"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "hostile")
        .unwrap();
    assert_eq!(entry["stale_after_secs"], 1800, "{entry}");
    // Two hours pass without a word from that session.
    let two_hours_ago = (chrono::Utc::now() - chrono::Duration::hours(2))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    entry["sessions"][0]["last_event_at"] = json!(two_hours_ago);
    std::fs::write(&registry, serde_json::to_vec(&reg).unwrap()).unwrap();
    let all: Value = serde_json::from_str(&ok_stdout(
        mine.forge()
            .env("XDG_STATE_HOME", mine.state())
            .args(["status", "--all", "--json"]),
    ))
    .unwrap();
    let text = all.to_string();
    assert!(
        !text.contains("\"h1\""),
        "the hostile project's silent session is still shown elsewhere: {all:#}"
    );
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
    // `forge run -- claude …` with no claude in an absolute PATH folder: a clear
    // error, never the repository's ./claude.
    planted_program(&p.root.join("claude"), "claude", &mark);
    let out = p
        .forge()
        .env("PATH", ":/usr/bin:/bin")
        .args(["run", "--", "claude", "-p", "a task"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(marks(&mark), "", "forge run ran the repository's ./claude");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not in any absolute folder of PATH"),
        "{out:?}"
    );
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

/// `forge trust`: shows before it trusts, trusts only a file that loads, says
/// plainly when there is nothing to trust, and `--revoke` undoes it.
#[test]
fn forge_trust_shows_checks_trusts_and_revokes_one_content() {
    let p = TestProject::new();
    let status = |p: &TestProject| -> Value {
        serde_json::from_str(&ok_stdout(p.forge().args(["trust", "--status", "--json"]))).unwrap()
    };
    assert_eq!(status(&p)["trust"]["state"], "absent");
    let out = p.forge().arg("trust").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to trust"));
    // Display keys only: nothing to trust, everything applies. (The context levels
    // gate your own steps since issue 31: a status-line key stands in.)
    p.write(".forge/config.toml", "[statusline]\nbar_width = 4\n");
    assert_eq!(status(&p)["trust"]["state"], "inert");
    assert!(ok_stdout(p.forge().arg("trust")).contains("nothing to trust"));
    // A value that would break the hooks once trusted: not trusted.
    p.write(".forge/config.toml", "[notify]\nmode = \"sync\"\n");
    let out = p.forge().arg("trust").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`notify.mode` must be"),
        "{out:?}"
    );
    assert_eq!(status(&p)["trust"]["state"], "untrusted");
    // A good one: --status shows what it would do and trusts nothing; trust does.
    p.write(
        ".forge/config.toml",
        "[notify]\nmode = \"bidirectional\"\n[agents.builder.relay]\nmax_handoffs = 9\n",
    );
    let s = ok_stdout(p.forge().args(["trust", "--status"]));
    assert!(
        s.contains("notify.mode = \"bidirectional\"")
            && s.contains("Stop waits for your orchestrator")
            && s.contains("agents.builder.relay.max_handoffs = 9")
            && s.contains("how many sessions `forge run` starts"),
        "{s}"
    );
    assert_eq!(status(&p)["trust"]["state"], "untrusted");
    let t = ok_stdout(p.forge().args(["trust", "--yes"]));
    assert!(t.contains("Trusted"), "{t}");
    let v = status(&p);
    assert_eq!(v["trust"]["state"], "trusted");
    assert_eq!(v["acting"][0]["applies"], true);
    let show: Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["config", "show", "--json"]))).unwrap();
    assert_eq!(show["ignored"], json!([]));
    assert!(ok_stdout(p.forge().arg("trust")).contains("Already trusted"));
    // The record lives in your state folder, private.
    let dir = p.state().join("forge/trust");
    let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0, "{mode:o}");
    assert!(ok_stdout(p.forge().args(["trust", "--revoke"])).contains("Revoked"));
    assert_eq!(status(&p)["trust"]["state"], "untrusted");
    let show: Value =
        serde_json::from_str(&ok_stdout(p.forge().args(["config", "show", "--json"]))).unwrap();
    assert_eq!(
        show["ignored"][0]["key"],
        "agents.builder.relay.max_handoffs"
    );
    assert!(ok_stdout(p.forge().args(["trust", "--revoke"])).contains("nothing to revoke"));
}

// ---------------------------------------------------------------------------------
// A `.git/config` whose include never ends. libgit2 reads every file `.git/config`
// includes while it opens the repository, with a blocking open and no limit: an
// include of a FIFO made `forge status` and every hook wait out the whole git
// deadline, and the dashboard's git poller wait for good. (`git config --includes`,
// which forge runs for a large tree, reads an included terminal until someone types;
// `/dev/zero` stops both readers at once: libgit2 reads its size, 0 bytes, and git
// its first NUL, a bad config line.) Now forge looks at every file the configuration names before it hands the
// repository to libgit2, and leaves git alone (no git facts, one line saying why)
// when one is not a regular file. No test here ever opens a FIFO's writing end: what
// returns, returns on its own.

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

/// Appends `text` to the repository's `.git/config`.
fn add_to_git_config(p: &TestProject, text: &str) {
    let config = p.root.join(".git/config");
    let before = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{before}{text}")).unwrap();
}

/// A tree whose index is past the size from which forge asks the `git` binary (which
/// reads includes as git does, devices too) rather than libgit2.
fn large_tree(p: &TestProject) {
    for i in 0..2500 {
        p.write(&format!("src/m{:02}/f{i}.rs", i / 400), &format!("{i:05}"));
    }
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["commit", "-qm", "a large tree"]);
}

/// How long `cmd` took from start to exit; it must exit 0.
fn timed(cmd: &mut assert_cmd::Command) -> Duration {
    let started = Instant::now();
    let out = cmd.timeout(Duration::from_secs(20)).output().unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    took
}

/// `forge status` and `forge hook Stop` each exit well within a second (the git
/// deadline is 3 s), and say — in `errors.log`, and in the Stop's outcomes — that
/// they left git alone because of `culprit`.
fn assert_forge_never_waits_on(p: &TestProject, culprit: &Path) {
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let took = timed(p.forge().arg("status"));
    assert!(
        took < Duration::from_secs(1),
        "forge status took {took:?}: it waited on {}",
        culprit.display()
    );
    let took = timed(
        p.forge()
            .args(["hook", "Stop"])
            .write_stdin(p.payload("hooks/Stop.json")),
    );
    assert!(
        took < Duration::from_secs(1),
        "forge hook Stop took {took:?}: it waited on {}",
        culprit.display()
    );
    let shown = culprit.display().to_string();
    let errors = std::fs::read_to_string(p.forge_dir().join("logs/errors.log")).unwrap();
    assert!(
        errors
            .lines()
            .any(|l| l.contains(&shown) && l.contains("[git]")),
        "errors.log names {shown}: {errors}"
    );
    let said: Vec<Value> = outcomes(p, "Stop")
        .into_iter()
        .filter(|o| o["kind"] == "error" && o["what"] == "git")
        .collect();
    assert_eq!(said.len(), 1, "{:?}", outcomes(p, "Stop"));
    assert!(
        said[0]["message"].as_str().unwrap().contains(&shown),
        "{said:?}"
    );
}

/// The dashboard's git poller on `p`: it sends nothing while the repository is
/// hostile, is not stuck (once `fix` has made the repository harmless, the facts
/// arrive), and its thread never waits on the culprit.
fn assert_poller_never_stuck(p: &TestProject, fix: impl FnOnce()) {
    use forge::tui::git_poll::GitPoll;
    let paths = forge::store::Paths::new(&p.root);
    std::fs::create_dir_all(paths.logs()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let _poll = GitPoll::spawn(paths, None, move |c| tx.send(c).is_ok()).unwrap();
    assert!(
        rx.recv_timeout(Duration::from_millis(2500)).is_err(),
        "no facts from a repository forge does not open"
    );
    fix();
    let got = rx.recv_timeout(Duration::from_secs(10));
    assert!(
        got.is_ok(),
        "the poller never answered once the repository was fixed: it is stuck"
    );
    assert_eq!(got.unwrap().branch.as_deref(), Some("main"));
}

#[test]
fn a_git_include_of_a_fifo_never_blocks_forge() {
    let p = TestProject::new();
    let fifo = p.dir.path().join("endless.fifo");
    mkfifo(&fifo);
    let config = p.root.join(".git/config");
    let before = std::fs::read_to_string(&config).unwrap();
    add_to_git_config(&p, &format!("[include]\n\tpath = {}\n", fifo.display()));
    assert_forge_never_waits_on(&p, &fifo);
    // Fixed by hand: git itself would read the include too.
    assert_poller_never_stuck(&p, || std::fs::write(&config, before).unwrap());
}

#[test]
fn a_git_include_if_gitdir_of_a_fifo_never_blocks_forge() {
    let p = TestProject::new();
    // Relative to the including file's folder: `.git/hooks.cfg`.
    let fifo = p.root.join(".git/hooks.cfg");
    mkfifo(&fifo);
    add_to_git_config(
        &p,
        &format!(
            "[includeIf \"gitdir:{}/\"]\n\tpath = hooks.cfg\n",
            p.root.display()
        ),
    );
    assert_forge_never_waits_on(&p, &fifo);
    assert_poller_never_stuck(&p, || std::fs::remove_file(&fifo).unwrap());
}

#[test]
fn a_nested_git_include_of_a_fifo_never_blocks_forge() {
    let p = TestProject::new();
    // .git/config → ../team.gitconfig (in the tree) → ~/more.gitconfig → the FIFO,
    // behind an `onbranch:` condition.
    let fifo = p.dir.path().join("deep/endless.fifo");
    mkfifo(&fifo);
    add_to_git_config(&p, "[include]\n\tpath = ../team.gitconfig\n");
    p.write(
        "team.gitconfig",
        "[core]\n\tautocrlf = false\n[include]\n\tpath = ~/more.gitconfig\n",
    );
    std::fs::write(
        p.home.join("more.gitconfig"),
        format!(
            "[includeIf \"onbranch:main\"]\n\tpath = \"{}\" ; the end\n",
            fifo.display()
        ),
    )
    .unwrap();
    assert_forge_never_waits_on(&p, &fifo);
    // The poller runs in this process, whose HOME is not the project's: point the
    // tree's file at the FIFO directly, as git would read it.
    std::fs::write(
        p.root.join("team.gitconfig"),
        format!("[include]\n\tpath = {}\n", fifo.display()),
    )
    .unwrap();
    assert_poller_never_stuck(&p, || {
        std::fs::write(p.root.join("team.gitconfig"), "[core]\n").unwrap();
    });
}

/// A terminal nobody types into: the slave end of a new pseudo-terminal, whose
/// master this test holds (and never writes to). Reading it waits for a line.
fn silent_terminal() -> (rustix::fd::OwnedFd, PathBuf) {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    (master, PathBuf::from(name.to_str().unwrap()))
}

#[test]
fn a_git_include_of_a_device_never_blocks_forge() {
    let p = TestProject::new();
    large_tree(&p);
    // A link to a device: libgit2 reads its size (0 bytes), but `git config
    // --includes` reads a terminal until someone types a line.
    let (_master, tty) = silent_terminal();
    let link = p.root.join(".git/tty.cfg");
    std::os::unix::fs::symlink(&tty, &link).unwrap();
    add_to_git_config(&p, "[include]\n\tpath = tty.cfg\n");
    assert_forge_never_waits_on(&p, &link);
}

/// A FIFO among the work tree's `.gitignore` files: no check before the scan can see
/// it (that would be a walk of the whole tree), so the scan blocks on it. In a hook
/// the git deadline bounds that; the dashboard's poller used to run the scan on its
/// own thread and stopped for good. Now the scan runs on a helper waited for until
/// the deadline, and the poller goes on: once the tree is fixed (and a commit
/// changes HEAD), the facts arrive.
#[test]
fn a_fifo_gitignore_in_the_work_tree_never_stalls_the_poller() {
    use forge::tui::git_poll::GitPoll;
    let p = TestProject::new();
    p.write("src/lib.rs", "// lib\n");
    git(&p.root, &["add", "-A"]);
    git(&p.root, &["commit", "-qm", "src"]);
    let fifo = p.root.join("src/.gitignore");
    mkfifo(&fifo);
    let paths = forge::store::Paths::new(&p.root);
    std::fs::create_dir_all(paths.logs()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let _poll = GitPoll::spawn(paths, None, move |c| tx.send(c).is_ok()).unwrap();
    // The first full look (2 s in) blocks on the FIFO until its 3 s deadline.
    assert!(rx.recv_timeout(Duration::from_secs(6)).is_err());
    std::fs::remove_file(&fifo).unwrap();
    p.write("src/lib.rs", "// lib, edited\n");
    git(&p.root, &["commit", "-qam", "edit"]);
    let got = rx.recv_timeout(Duration::from_secs(10));
    assert!(got.is_ok(), "the poller stalled on the scan");
    assert_eq!(got.unwrap().branch.as_deref(), Some("main"));
}
