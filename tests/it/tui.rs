//! `forge tui` as a whole process: `--once` frames through assert_cmd, and the live
//! dashboard driven in a real terminal through tmux (send-keys, capture-pane).

#![allow(clippy::unwrap_used)]
#![allow(
    clippy::too_many_lines,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom; splitting it would scatter the story"
)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::Tmux;
use common::{TestProject, sh_quote};
use predicates::prelude::*;

#[test]
fn once_prints_a_plain_frame_of_the_project() {
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("agent-T-011-20261121-090102.md");
    let out = common::ok_stdout(
        p.forge()
            .args(["tui", "--once", "--width", "72", "--height", "20"]),
    );
    let text = out;
    assert_eq!(text.lines().count(), 20, "{text}");
    assert!(text.lines().all(|l| l.chars().count() <= 72));
    assert!(!text.contains('\u{1b}'), "escape codes in --once output");
    assert!(text.contains("⎇ main"), "{text}");
    assert!(text.contains("blocked    T-012"), "{text}");
    assert!(text.contains("⚠malformed"), "{text}");
}

#[test]
fn once_size_comes_from_columns_and_lines() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.forge_dir()).unwrap();
    let out = common::ok_stdout(
        p.forge()
            .args(["tui", "--once"])
            .env("COLUMNS", "50")
            .env("LINES", "9"),
    );
    let text = out;
    assert_eq!(text.lines().count(), 9, "{text}");
}

#[test]
fn demo_works_from_any_folder() {
    let p = TestProject::bare_folder();
    p.forge()
        .current_dir(&p.home)
        .args(["tui", "--demo", "--once", "--width", "90", "--height", "30"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("DEMO")
                .and(predicate::str::contains("blocked"))
                .and(predicate::str::contains("⚠malformed"))
                .and(predicate::str::contains("learn pending"))
                .and(predicate::str::contains("% L1")),
        );
    assert!(!p.root.join(".forge").exists());
}

#[test]
fn before_init_it_says_what_to_run() {
    let p = TestProject::new();
    for args in [&["tui", "--once"][..], &["tui"][..]] {
        p.forge().args(args).assert().code(1).stdout("").stderr(
            predicate::str::contains(format!(
                "this project ({}) is not set up for forge yet: run `forge init`",
                p.root.display()
            ))
            .and(predicate::str::contains("forge tui --demo")),
        );
    }
    // Wired at user level (the hooks create .forge/ on the first event): the
    // dashboard opens on the still empty project.
    p.forge().args(["init", "--user"]).assert().success();
    common::ok_stdout(p.forge().args(["tui", "--once"]));
    assert!(!p.forge_dir().exists());
}

#[test]
fn errors_say_what_to_do() {
    let p = TestProject::new();
    p.forge()
        .args(["tui", "--project", "/no/such/folder"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no such folder"));
    // Not a terminal (assert_cmd pipes stdout): point at --once.
    std::fs::create_dir_all(p.forge_dir()).unwrap();
    p.forge()
        .args(["tui"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--once"));
    p.forge().args(["tui", "--width", "10"]).assert().code(2);
}

/// The shell command that runs `forge tui` in `p` with its own `HOME` and
/// `XDG_CONFIG_HOME`, no state home, no colour and no inherited Claude Code
/// variables, plus `env_extra` (`-u NAME` options first, then `NAME=value`), and
/// writes `EXIT=<status>` to `exit_file` when it ends.
fn dashboard_command(p: &TestProject, env_extra: &str, exit_file: &Path) -> String {
    format!(
        "cd {root} && env -u CLAUDE_PROJECT_DIR -u CLAUDE_CONFIG_DIR {env_extra} HOME={home} \
         XDG_CONFIG_HOME={xdg} XDG_STATE_HOME= NO_COLOR=1 {bin} tui; echo EXIT=$? > {exit}",
        root = sh_quote(&p.root),
        home = sh_quote(&p.home),
        xdg = sh_quote(&p.xdg),
        bin = sh_quote(Path::new(env!("CARGO_BIN_EXE_forge"))),
        exit = sh_quote(exit_file),
    )
}

/// q quits the dashboard, and it exits with status 0.
fn quit_with_status_0(tmux: &Tmux, exit_file: &Path) {
    tmux.keys(&["q"]);
    let status = wait_file(exit_file);
    assert_eq!(status.trim(), "EXIT=0");
}

fn wait_file(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(s) = std::fs::read_to_string(path)
            && !s.is_empty()
        {
            return s;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn live_dashboard_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("handoff-20261121-094500.md");
    let exit_file = p.dir.path().join("exit-status");
    let opened = p.dir.path().join("opened");
    let editor = p.dir.path().join("fake-editor.sh");
    std::fs::write(
        &editor,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > {}\n", sh_quote(&opened)),
    )
    .unwrap();
    let command = dashboard_command(
        &p,
        &format!("-u VISUAL EDITOR='sh {}'", editor.display()),
        &exit_file,
    );
    let tmux = Tmux::start(100, 30, &command);

    // Start: the blocked Signal is first, and selected.
    let screen = tmux.wait_for("blocked    T-012");
    assert!(screen.contains("▶A"), "{screen}");
    assert!(screen.contains("⚑ 1 blocked"), "{screen}");

    // A new handoff appears without a key press.
    let fresh = p
        .forge_dir()
        .join("handoffs/agent-T-099-20991231-235959.md");
    std::fs::write(
        &fresh,
        std::fs::read_to_string(common::fixtures().join("handoffs/agent-T-010-20261120-170944.md"))
            .unwrap()
            .replace("T-010", "T-099"),
    )
    .unwrap();
    tmux.wait_for("T-099");

    // Enter makes the selected (blocked) handoff the pending resume, and says so.
    tmux.keys(&["Enter"]);
    tmux.wait_for("pending resume → agent-T-012");
    let marker = std::fs::read_to_string(p.forge_dir().join("pending-resume")).unwrap();
    assert!(
        marker
            .lines()
            .next()
            .unwrap()
            .ends_with("agent-T-012-20261121-101502.md"),
        "{marker}"
    );
    assert_eq!(marker.lines().nth(1), Some("chosen"), "{marker}");
    let global = std::fs::read_to_string(p.home.join(".claude/pending-resume")).unwrap();
    assert_eq!(global, format!("{}\n", marker.lines().next().unwrap()));
    tmux.wait_for("↻ resume agent-T-012");

    // o hands the terminal to $EDITOR and takes it back.
    tmux.keys(&["o"]);
    let opened_path = wait_file(&opened);
    assert!(
        opened_path.ends_with("agent-T-012-20261121-101502.md"),
        "{opened_path}"
    );
    tmux.wait_for("Handoffs 3");

    // Filter, help, and a tiny pane do not break it.
    tmux.keys(&["/", "T", "-", "0", "9", "9", "Enter"]);
    tmux.wait_for("Handoffs 1 of 3");
    tmux.keys(&["?"]);
    tmux.wait_for("? or Esc closes");
    // The help scrolls in a pane shorter than it.
    tmux.keys(&["PageDown", "PageDown"]);
    tmux.wait_for("Words");
    tmux.keys(&["Escape"]);
    tmux.run(&["resize-window", "-t", "t", "-x", "12", "-y", "4"]);
    // The one-line summary leads with what is blocked, in words.
    tmux.wait_for("⚑1 blocked");
    tmux.run(&["resize-window", "-t", "t", "-x", "100", "-y", "30"]);
    tmux.wait_for("Handoffs 1 of 3");

    // The filter also searches the handoffs' text ("orders.rs" is only in the body
    // of the session handoff), read from disk as it is typed.
    tmux.keys(&["c", "/"]);
    tmux.keys(&["-l", "ORDERS.rs"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Handoffs 1 of 3 · /ORDERS.rs");
    tmux.wait_for("Preview handoff-20261121-094500.md");
    tmux.keys(&["c"]);
    tmux.wait_for("Handoffs 3");

    quit_with_status_0(&tmux, &exit_file);
}

#[test]
fn esc_clears_the_filter_first_then_quits_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("handoff-20261121-094500.md");
    let exit_file = p.dir.path().join("exit-status");
    let command = dashboard_command(&p, "", &exit_file);
    let tmux = Tmux::start(120, 30, &command);
    tmux.wait_for("Handoffs 2");
    // A filter kept with Enter, and b (blocked only) on top of it.
    tmux.keys(&["/", "T", "-", "0", "1", "2", "Enter", "b"]);
    tmux.wait_for("Handoffs 1 of 2 · /T-012 · blocked only");
    // The footer says what Esc does now.
    tmux.wait_for("Esc clear filter  ? help  q quit");
    // Esc clears the filter; the dashboard stays.
    tmux.keys(&["Escape"]);
    tmux.wait_for("Handoffs 2");
    // The footer starts with the usual hints again (drawn after the list).
    let deadline = Instant::now() + Duration::from_secs(10);
    let screen = loop {
        let s = tmux.screen();
        if s.lines().any(|l| l.starts_with(" ? help  q quit")) || Instant::now() > deadline {
            break s;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!screen.contains("/T-012"), "{screen}");
    assert!(!screen.contains("Esc clear filter"), "{screen}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!exit_file.exists(), "Esc with a filter quit");
    // Esc again, with no filter: it says how to quit and stays; a third quits,
    // with status 0.
    tmux.keys(&["Escape"]);
    tmux.wait_for("Esc again quits (q quits at once)");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!exit_file.exists(), "one Esc with nothing to leave quit");
    tmux.keys(&["Escape"]);
    assert_eq!(wait_file(&exit_file).trim(), "EXIT=0");
}

#[test]
fn r_answers_the_selected_blocked_signal_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("handoff-20261121-094500.md");
    let exit_file = p.dir.path().join("exit-status");
    let command = dashboard_command(&p, "USER=lead", &exit_file);
    let tmux = Tmux::start(100, 30, &command);
    tmux.wait_for("blocked    T-012");
    tmux.wait_for("⚑ 1 blocked");

    // r asks for the answer inline; Esc cancels and writes nothing.
    tmux.keys(&["r"]);
    tmux.wait_for("answer T-012:");
    tmux.keys(&["-l", "no"]);
    tmux.keys(&["Escape"]);
    std::thread::sleep(Duration::from_millis(300));
    let agents = |p: &TestProject| {
        std::fs::read_dir(p.forge_dir().join("handoffs"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("agent-"))
            .count()
    };
    assert_eq!(agents(&p), 1, "Esc wrote a Signal");

    // r, the answer, Enter: a superseding Signal, and the count goes to none.
    tmux.keys(&["r"]);
    tmux.wait_for("answer T-012:");
    tmux.keys(&["-l", "Read it from DATABASE_POOL_SIZE"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("resolved T-012");
    let screen = tmux.wait_for("Thread T-012");
    assert!(!screen.contains("⚑ 1 blocked"), "{screen}");
    assert_eq!(agents(&p), 2);
    let answer = std::fs::read_dir(p.forge_dir().join("handoffs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|f| {
            f.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("agent-T-012-")
                && !f.ends_with("agent-T-012-20261121-101502.md")
        })
        .unwrap();
    let text = std::fs::read_to_string(answer).unwrap();
    assert!(text.contains("Read it from DATABASE_POOL_SIZE"), "{text}");
    assert!(text.contains("\"blocking\": false"), "{text}");
    assert!(text.contains("From: lead"), "{text}");

    quit_with_status_0(&tmux, &exit_file);
}

#[test]
fn the_sessions_pane_opens_a_transcript_and_dismisses_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("handoff-20261121-094500.md");
    // One session waiting for input (through the real hook), one that has ended.
    let notify = p.payload("hooks/Notification-idle.json");
    let transcript: serde_json::Value = serde_json::from_str(&notify).unwrap();
    let transcript = PathBuf::from(transcript["transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    // A transcript recorded from the real client (a read, /compact, a write held
    // back), plus a line holding a key and a terminal escape.
    let mut records = std::fs::read_to_string(
        common::fixtures().join("transcripts/recorded-read-compact-write.jsonl"),
    )
    .unwrap();
    records.push_str(
        &serde_json::json!({"type": "user", "message": {"role": "user",
            "content": "deploy with sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL \u{1b}]0;pwned\u{7}now"}})
        .to_string(),
    );
    records.push('\n');
    std::fs::write(&transcript, records).unwrap();
    for (event, payload) in [
        ("Notification", notify.clone()),
        (
            "Notification",
            notify.replace("3f0c2a9e-8b1d", "0dead000-8b1d"),
        ),
        (
            "SessionEnd",
            p.payload("hooks/SessionEnd.json")
                .replace("3f0c2a9e-8b1d", "0dead000-8b1d"),
        ),
    ] {
        p.forge()
            .args(["hook", event])
            .write_stdin(payload)
            .assert()
            .success();
    }
    let exit_file = p.dir.path().join("exit-status");
    let opened = p.dir.path().join("opened");
    let pager = p.dir.path().join("fake-pager.sh");
    // The pager keeps a copy of what it was given to show.
    std::fs::write(
        &pager,
        format!("#!/bin/sh\ncat \"$1\" > {}\n", sh_quote(&opened)),
    )
    .unwrap();
    let command = dashboard_command(
        &p,
        &format!("-u EDITOR -u VISUAL PAGER='sh {}'", pager.display()),
        &exit_file,
    );
    let tmux = Tmux::start(100, 30, &command);
    // The waiting session is listed with its whole message; the ended one is not.
    let screen = tmux.wait_for("Needs attention 1 · 1 live");
    assert!(
        screen.contains("input      3f0c2a9e")
            && screen.contains("Claude is waiting for your input"),
        "{screen}"
    );
    let pane = screen.split("Needs attention").nth(1).unwrap();
    let pane = pane.split("Handoffs").next().unwrap();
    assert!(!pane.contains("0dead000"), "{screen}");

    // The footer offers what the inbox does with Enter…
    assert!(screen.contains("⏎ resume"), "{screen}");
    // Tab to the sessions pane (its cursor shows): the footer offers what Enter does
    // there, and Enter shows the conversation in $PAGER, readable, never the .jsonl.
    tmux.keys(&["Tab", "Tab"]);
    let screen = tmux.wait_for("▶ input");
    assert!(
        screen.contains("⏎/o conversation") && screen.contains("d dismiss"),
        "{screen}"
    );
    assert!(!screen.contains("⏎ resume"), "{screen}");
    tmux.keys(&["Enter"]);
    let shown = wait_file(&opened);
    assert!(
        shown.contains("you · ") && shown.contains("  please READ-SPEC\n"),
        "{shown}"
    );
    assert!(
        shown.contains("  ⚙ Read /home/alice/src/acme-api/SPEC.md\n"),
        "{shown}"
    );
    assert!(shown.contains("──── compacted · manual"), "{shown}");
    assert!(shown.contains("you ran /compact"), "{shown}");
    assert!(shown.contains("deploy with [REDACTED]"), "{shown}");
    assert!(!shown.contains("sk-ant-api03"), "{shown}");
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
        "{shown:?}"
    );
    assert!(!shown.contains("\"type\":"), "the raw .jsonl: {shown}");
    tmux.wait_for("Needs attention 1");

    // d dismisses the row until the session has news.
    tmux.keys(&["d"]);
    tmux.wait_for("dismissed session 3f0c2a9e");
    // Hidden, not ended: the pane still counts it as live and says it is dismissed.
    let screen = tmux.wait_for("1 live session dismissed: back with its next event");
    assert!(
        screen.contains("Needs attention 0 · 1 live · 1 dismissed"),
        "{screen}"
    );
    assert!(!screen.contains("no live session"), "{screen}");
    p.forge()
        .args(["hook", "Notification"])
        .write_stdin(
            notify
                .replace(
                    "waiting for your input",
                    "needs your permission to use Bash",
                )
                .replace("idle_prompt", "permission_prompt"),
        )
        .assert()
        .success();
    tmux.wait_for("needs your permission to use Bash");

    quit_with_status_0(&tmux, &exit_file);
}

#[test]
fn a_click_selects_and_ctrl_z_suspends_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("handoff-20261121-094500.md");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    // An interactive shell with job control, as a person has.
    let tmux = Tmux::start(
        100,
        30,
        "env -i TERM=screen PATH=/usr/bin:/bin bash --norc --noprofile -i",
    );
    tmux.keys(&[
        "-l",
        &format!(
            "cd {root} && HOME={home} XDG_CONFIG_HOME={xdg} XDG_STATE_HOME= NO_COLOR=1 {bin} tui",
            root = sh_quote(&p.root),
            home = sh_quote(&p.home),
            xdg = sh_quote(&p.xdg),
            bin = sh_quote(&bin),
        ),
    ]);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("blocked    T-012");
    assert!(screen.contains("Preview agent-T-012"), "{screen}");

    // A left click (SGR mouse report, as the terminal sends it) on the T-011 row
    // selects it and focuses the inbox.
    let row = screen
        .lines()
        .position(|l| l.contains("threshold  T-011"))
        .expect("the T-011 row");
    let (col, row) = (10, row + 1);
    tmux.keys(&["-l", &format!("\x1b[<0;{col};{row}M\x1b[<0;{col};{row}m")]);
    let screen = tmux.wait_for("Preview handoff-20261121-094500.md");
    let line = screen.lines().nth(row - 1).unwrap();
    assert!(line.starts_with("▶"), "{screen}");

    // Ctrl-Z hands the terminal back to the shell; fg brings the dashboard back.
    tmux.keys(&["C-z"]);
    tmux.wait_for("Stopped");
    tmux.keys(&["-l", "fg"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("Preview handoff-20261121-094500.md");
    tmux.keys(&["q"]);
    tmux.wait_for("bash");
    tmux.keys(&["-l", "echo EXIT=$?"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("EXIT=0");
}

#[test]
fn the_git_header_follows_a_checkout_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.add_handoff_fixture("handoff-20261121-094500.md");
    // With logs/, the dashboard also keeps the hooks' git cache in step.
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let exit_file = p.dir.path().join("exit-status");
    let command = dashboard_command(&p, "", &exit_file);
    let tmux = Tmux::start(100, 30, &command);
    let screen = tmux.wait_for("⎇ main");
    let header = screen.lines().next().unwrap_or_default();
    assert!(!header.contains('●'), "a clean tree: {header}");

    // The requirement is 2 s; 5 s leaves room on a busy machine. The times seen are
    // printed (cargo test -- --nocapture).
    let within = |what: &str, limit: Duration, change: &dyn Fn()| {
        let start = Instant::now();
        change();
        tmux.wait_for(what);
        let took = start.elapsed();
        eprintln!("{what:?} on screen after {} ms", took.as_millis());
        assert!(took < limit, "{what:?} took {took:?}");
    };
    let fast = Duration::from_secs(5);
    // No key is pressed and no hook runs: only git changes.
    within("⎇ feat/x", fast, &|| {
        common::git(&p.root, &["checkout", "-q", "-b", "feat/x"]);
    });
    within("⎇ feat/x ●1", fast, &|| {
        p.write("staged.txt", "s\n");
        common::git(&p.root, &["add", "staged.txt"]);
    });
    // An untracked file changes neither HEAD nor the index: the periodic full look
    // (every 2 s on a small tree) finds it.
    within("⎇ feat/x ●2", fast + Duration::from_secs(2), &|| {
        p.write("untracked.txt", "u\n");
    });
    within("⎇ main ●2", fast, &|| {
        common::git(&p.root, &["checkout", "-q", "main"]);
    });
    // The hooks' cache (the status line reads it) says the same.
    let cache = p.read(".forge/logs/git-cache.json");
    assert!(cache.contains("\"branch\": \"main\""), "{cache}");
    assert!(cache.contains("\"uncommitted_changes\": 2"), "{cache}");

    quit_with_status_0(&tmux, &exit_file);
}

#[test]
fn inside_tmux_the_session_name_names_the_agent() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    p.write(
        ".forge/config.toml",
        "[agents.t.context]\nhandoff_threshold = 42\n[agents.other.context]\nhandoff_threshold = 43\n",
    );
    let out = p.dir.path().join("shown.json");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    // The helper's tmux session is named "t": without $FORGE_AGENT that names the agent.
    let command = format!(
        "cd {root} && env -u FORGE_AGENT HOME={home} XDG_CONFIG_HOME={xdg} {bin} config show --json > {out}",
        root = sh_quote(&p.root),
        home = sh_quote(&p.home),
        xdg = sh_quote(&p.xdg),
        bin = sh_quote(&bin),
        out = sh_quote(&out),
    );
    let _tmux = Tmux::start(80, 20, &command);
    let text = wait_file(&out);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["agent"], "t", "{v}");
    let threshold = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "context.handoff_threshold")
        .unwrap();
    assert_eq!(threshold["value"], 42.0);
}

#[test]
fn inside_tmux_a_wake_message_carries_the_pane() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    let got = p.dir.path().join("message.txt");
    let config = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        format!(
            "[notify]\ncommand = [\"sh\", \"-c\", \"printf '%s' \\\"$1\\\" > '{}'\", \"orch\"]\nevents = [\"idle\"]\npane_capture_lines = 5\n",
            got.display()
        ),
    )
    .unwrap();
    let payload = p.dir.path().join("idle.json");
    std::fs::write(&payload, p.payload("hooks/Notification-idle.json")).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    let command = format!(
        "cd {root} && echo PANE-MARKER-123 && env -u FORGE_AGENT HOME={home} XDG_CONFIG_HOME={xdg} \
         {bin} hook Notification < {payload}; sleep 5",
        root = sh_quote(&p.root),
        home = sh_quote(&p.home),
        xdg = sh_quote(&p.xdg),
        bin = sh_quote(&bin),
        payload = sh_quote(&payload),
    );
    let tmux = Tmux::start(80, 20, &command);
    let m = wait_file(&got);
    assert!(m.contains("tmux: t:0.0"), "{m}");
    assert!(
        m.contains("agent: t\n"),
        "the tmux session names the agent: {m}"
    );
    assert!(m.contains("[PANE CONTENT]\n> PANE-MARKER-123"), "{m}");
    // On the session's own server (its socket from $TMUX).
    assert!(
        m.contains(&format!(
            "tmux -S {} send-keys -t t:0.0",
            tmux.socket_path().unwrap().display()
        )),
        "{m}"
    );
}

/// Runs hook `event` for session `sid` in `p`, with the home, config and state folders
/// of `fleet` (one user, several projects).
fn fleet_hook(p: &TestProject, fleet: &TestProject, event: &str, sid: &str, extra: &str) {
    let payload = format!(
        "{{\"session_id\": \"{sid}\", \"cwd\": {cwd}, \"hook_event_name\": \"{event}\"{extra}}}",
        cwd = serde_json::to_string(&p.root).unwrap(),
    );
    p.forge()
        .env("HOME", &fleet.home)
        .env("XDG_CONFIG_HOME", &fleet.xdg)
        .env("XDG_STATE_HOME", fleet.state())
        .args(["hook", event])
        .write_stdin(payload)
        .assert()
        .success();
}

#[test]
fn all_once_prints_the_fleet() {
    let api = TestProject::named("api");
    let web = TestProject::named("web");
    fleet_hook(
        &api,
        &api,
        "PermissionRequest",
        "a1",
        ", \"tool_name\": \"Bash\"",
    );
    fleet_hook(&web, &api, "Stop", "w1", "");
    let out = common::ok_stdout(
        api.forge()
            .args(["tui", "--all", "--once", "--width", "90", "--height", "10"]),
    );
    assert_eq!(out.lines().count(), 10, "{out}");
    assert!(
        out.contains("fleet · 2 waiting · 2 live · 2 projects"),
        "{out}"
    );
    assert!(out.contains("▶ permission api"), "{out}");
    assert!(out.contains("  input      web"), "{out}");
    assert!(!out.contains('\u{1b}'));
    api.forge()
        .args(["tui", "--all", "--project", "."])
        .assert()
        .code(2);
}

#[test]
fn the_fleet_list_opens_a_project_and_comes_back_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let api = TestProject::named("api");
    let web = TestProject::named("web");
    let gone = TestProject::named("gone");
    web.add_handoff_fixture("agent-T-012-20261121-101502.md");
    fleet_hook(
        &api,
        &api,
        "PermissionRequest",
        "a1",
        ", \"tool_name\": \"Bash\"",
    );
    fleet_hook(&web, &api, "Stop", "w1", "");
    fleet_hook(&gone, &api, "SessionEnd", "g1", "");
    std::fs::remove_dir_all(&gone.root).unwrap();

    let exit_file = api.dir.path().join("exit-status");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    let command = format!(
        "cd {home} && env -u CLAUDE_PROJECT_DIR -u CLAUDE_CONFIG_DIR HOME={home} \
         XDG_CONFIG_HOME={xdg} XDG_STATE_HOME={state} NO_COLOR=1 {bin} tui --all; \
         echo EXIT=$? > {exit}",
        home = sh_quote(&api.home),
        xdg = sh_quote(&api.xdg),
        state = sh_quote(&api.state()),
        bin = sh_quote(&bin),
        exit = sh_quote(&exit_file),
    );
    let tmux = Tmux::start(100, 24, &command);

    // Most urgent first: the permission prompt, then the session waiting for input,
    // then the project with no live session; blocked Signals counted per project.
    let screen = tmux.wait_for("▶ permission api");
    assert!(
        screen.contains("fleet · 2 waiting · 2 live · 3 projects"),
        "{screen}"
    );
    assert!(screen.contains("  input      web"), "{screen}");
    assert!(screen.contains("  idle       gone"), "{screen}");

    // A hook in another project reaches the list without a key press.
    fleet_hook(&web, &api, "UserPromptSubmit", "w2", ", \"prompt\": \"go\"");
    tmux.wait_for("  busy       web");

    // Enter on web opens web's own dashboard; Esc comes back to the list.
    tmux.keys(&["Down"]);
    tmux.wait_for("▶ input      web");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("q back");
    assert!(screen.contains("blocked    T-012"), "{screen}");
    assert!(screen.contains("⚑ 1 blocked"), "{screen}");
    tmux.keys(&["Escape"]);
    tmux.wait_for("▶ input      web");

    // A project whose folder is gone says so, and the list stays.
    tmux.keys(&["G", "Enter"]);
    tmux.wait_for("is gone");
    tmux.wait_for("▶ idle       gone");

    // q in the list quits with status 0.
    quit_with_status_0(&tmux, &exit_file);
}

#[test]
fn the_fleet_list_takes_the_tmux_client_to_a_sessions_pane_or_says_how_to_attach() {
    if !Tmux::here() || Command::new("script").arg("-V").output().is_err() {
        eprintln!("SKIPPED: needs tmux and script(1)");
        return;
    }
    let api = TestProject::named("api");
    let exit_file = api.dir.path().join("exit-status");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_forge"));
    let command = format!(
        "cd {home} && env -u CLAUDE_PROJECT_DIR -u CLAUDE_CONFIG_DIR -u FORGE_AGENT HOME={home} \
         XDG_CONFIG_HOME={xdg} XDG_STATE_HOME={state} NO_COLOR=1 {bin} tui --all; \
         echo EXIT=$? > {exit}",
        home = sh_quote(&api.home),
        xdg = sh_quote(&api.xdg),
        state = sh_quote(&api.state()),
        bin = sh_quote(&bin),
        exit = sh_quote(&exit_file),
    );
    // The session's pane, in its own tmux session `work` on the same server.
    let tmux = Tmux::start(120, 24, "sleep 600");
    tmux.run(&["new-session", "-d", "-s", "work", "sleep 600"]);
    let pane = tmux
        .run(&["display-message", "-p", "-t", "work", "#{pane_id}"])
        .trim()
        .to_owned();
    let socket = tmux.socket_path().unwrap().to_path_buf();
    // Its hooks ran there (tmux gives a pane's processes TMUX and TMUX_PANE).
    api.forge()
        .env("HOME", &api.home)
        .env("XDG_CONFIG_HOME", &api.xdg)
        .env("XDG_STATE_HOME", api.state())
        .env("TMUX", format!("{},1,1", socket.display()))
        .env("TMUX_PANE", &pane)
        .env("FORGE_AGENT", "builder")
        .args(["hook", "Stop"])
        .write_stdin(format!(
            "{{\"session_id\": \"s1\", \"cwd\": {}, \"hook_event_name\": \"Stop\"}}",
            serde_json::to_string(&api.root).unwrap()
        ))
        .assert()
        .success();

    // Outside tmux, the line under the list says how to attach.
    let out = common::ok_stdout(
        api.forge()
            .env_remove("TMUX")
            .args(["tui", "--all", "--once", "--width", "120", "--height", "10"]),
    );
    assert!(out.contains(" builder "), "{out}");
    assert!(out.contains(&format!(" {pane} ")), "{out}");
    assert!(
        out.contains(&format!(
            "attach: tmux -S {} attach -t {pane}",
            socket.display()
        )),
        "{out}"
    );

    // Inside tmux, with a terminal attached to the list's session, t takes that
    // client to the session's pane.
    tmux.run(&["respawn-pane", "-k", "-t", "t", &command]);
    let mut client = Command::new("script")
        .args([
            "-qfc",
            &format!("tmux -L {} attach -t t", tmux.socket()),
            "/dev/null",
        ])
        .env("TERM", "xterm-256color")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let on = |session: &str| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            let clients = tmux.run(&["list-clients", "-F", "#{client_session}"]);
            if clients.lines().any(|l| l == session) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    assert!(on("t"), "the client attached");
    let screen = tmux.wait_for("builder");
    assert!(
        screen.contains(&format!("t goes to its pane {pane}")),
        "{screen}"
    );
    tmux.keys(&["t"]);
    let moved = on("work");
    let _ = client.kill();
    let _ = client.wait();
    assert!(moved, "the client is not on `work`: {}", tmux.screen());
}

/// The clock ticks (user + system) process `pid` has used, and how many times its
/// main thread — the dashboard's loop — has gone to sleep and woken up since it
/// started (`voluntary_ctxt_switches`).
fn cpu_and_wakeups(pid: u32) -> (u64, u64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command name: state is field 3, utime 14, stime 15.
    let rest: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks = rest[11].parse::<u64>().unwrap() + rest[12].parse::<u64>().unwrap();
    let status = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/status")).unwrap();
    let woke = status
        .lines()
        .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    (ticks, woke)
}

#[test]
fn the_fleet_list_sleeps_until_a_registration_arrives_in_a_real_terminal() {
    if !Tmux::here() {
        return;
    }
    let api = TestProject::named("api");
    let web = TestProject::named("web");
    fleet_hook(&api, &api, "Stop", "a1", "");
    // `exec`: the pane's process is forge itself.
    let command = format!(
        "cd {home} && exec env -u CLAUDE_PROJECT_DIR -u CLAUDE_CONFIG_DIR HOME={home} \
         XDG_CONFIG_HOME={xdg} XDG_STATE_HOME={state} NO_COLOR=1 {bin} tui --all",
        home = sh_quote(&api.home),
        xdg = sh_quote(&api.xdg),
        state = sh_quote(&api.state()),
        bin = sh_quote(Path::new(env!("CARGO_BIN_EXE_forge"))),
    );
    let tmux = Tmux::start(100, 24, &command);
    tmux.wait_for("▶ input      api");
    let pid: u32 = tmux
        .run(&["display-message", "-p", "-t", "t", "#{pane_pid}"])
        .trim()
        .parse()
        .unwrap();

    // Idle: the loop sleeps on its channel (no polling) until the 30 s tick, and
    // the whole process uses next to no CPU. (The bound leaves room for a debug
    // build on a busy machine, where the input and debouncer threads' short
    // wake-ups can be charged a tick or two; a loop that polled would use hundreds.
    // scripts/bench-tui.sh measures the release build.)
    std::thread::sleep(Duration::from_millis(500));
    let (cpu0, woke0) = cpu_and_wakeups(pid);
    std::thread::sleep(Duration::from_secs(5));
    let (cpu1, woke1) = cpu_and_wakeups(pid);
    assert_eq!(woke1 - woke0, 0, "the loop woke up while nothing happened");
    assert!(
        cpu1 - cpu0 <= 5,
        "{} clock ticks of CPU in 5 s idle",
        cpu1 - cpu0
    );

    // A hook in another project registers while the registry's lock is busy: its
    // registration waits aside in projects.pending/, and the list shows it at once
    // (the registry file itself did not change).
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(api.state().join("forge/projects.lock"))
        .unwrap();
    lock.lock().unwrap();
    fleet_hook(&web, &api, "Stop", "w1", "");
    let t0 = Instant::now();
    let pending = api.state().join("forge/projects.pending");
    assert_eq!(std::fs::read_dir(&pending).unwrap().count(), 1);
    tmux.wait_for("  input      web");
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(3), "shown after {took:?}");
    drop(lock);
    tmux.keys(&["q"]);
}

#[test]
fn the_fleet_once_frame_has_the_same_size_cap() {
    let api = TestProject::named("api");
    let out = api
        .forge()
        .env("XDG_STATE_HOME", api.state())
        .args([
            "tui", "--all", "--once", "--width", "65535", "--height", "30",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--once draws at most 2000×2000 cells"),
        "{err}"
    );
    // Within the cap, $COLUMNS and $LINES size it, as for one project.
    let out = common::ok_stdout(
        api.forge()
            .env("XDG_STATE_HOME", api.state())
            .env("COLUMNS", "70")
            .env("LINES", "7")
            .args(["tui", "--all", "--once"]),
    );
    assert_eq!(out.lines().count(), 7, "{out}");
}
