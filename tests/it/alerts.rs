//! Process tests for alerts (`[alerts]`, docs/alerts.md): each delivery path —
//! a `notify-send` and an `osascript` stand-in on PATH, OSC 9 written to the
//! controlling terminal (a pty from script(1)), OSC through tmux's passthrough
//! (the pane's output read with `pipe-pane`) —, the debounce, the pane in view,
//! `forge alerts test`, and doctor's line.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use common::TestProject;
use common::tmux::Tmux;
use serde_json::{Value, json};

const SID: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

/// A stand-in program in the project's bin folder (first on PATH).
fn stand_in(p: &TestProject, name: &str, script: &str) {
    let dir = p.bin_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A stand-in that appends its arguments, one a line, then `--`, to `out`.
fn recorder(p: &TestProject, name: &str) -> std::path::PathBuf {
    let out = p.dir.path().join(format!("{name}.calls"));
    stand_in(
        p,
        name,
        &format!(
            "for a in \"$@\"; do printf '%s\\n' \"$a\"; done >> '{o}'; echo -- >> '{o}'",
            o = out.display()
        ),
    );
    out
}

fn hook(p: &TestProject, event: &str, extra: Value, envs: &[(&str, &str)]) {
    let mut payload = json!({"session_id": SID, "cwd": p.root, "hook_event_name": event});
    payload
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let mut cmd = p.forge();
    cmd.args(["hook", event])
        .env_remove("TMUX")
        .env_remove("TMUX_PANE");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd.write_stdin(payload.to_string()).assert().success();
}

/// The alert outcomes of the event log, in order.
fn alert_outcomes(p: &TestProject) -> Vec<Value> {
    p.read(".forge/logs/events.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .flat_map(|v| v["outcomes"].as_array().cloned().unwrap_or_default())
        .filter(|o| o["kind"].as_str().is_some_and(|k| k.starts_with("alert_")))
        .collect()
}

fn calls(file: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .split("--\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().map(str::to_owned).collect())
        .collect()
}

#[test]
fn a_permission_prompt_alerts_once_through_notify_send_naming_the_session() {
    let p = TestProject::new();
    let out = recorder(&p, "notify-send");
    let desktop = [("DISPLAY", ":0")];
    hook(
        &p,
        "PermissionRequest",
        json!({"tool_name": "Bash"}),
        &desktop,
    );
    let got = calls(&out);
    assert_eq!(got.len(), 1, "{got:?}");
    let project = p.root.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(got[0][0], "--app-name=forge");
    assert_eq!(got[0][1], format!("forge · {project}"));
    assert_eq!(
        got[0][2],
        "session 3f0c2a9e asks permission for Bash — answer it in its pane or from forge tui"
    );
    // The Notification the client sends ~6 s later for the same prompt: debounced.
    hook(
        &p,
        "Notification",
        json!({"notification_type": "permission_prompt", "message": "Claude needs your permission to use Bash"}),
        &desktop,
    );
    assert_eq!(calls(&out).len(), 1);
    let o = alert_outcomes(&p);
    assert_eq!(o[0]["kind"], "alert_sent");
    assert_eq!(o[0]["via"], "notify-send");
    assert_eq!(o[0]["reason"], "permission");
    assert_eq!(o[1]["kind"], "alert_skipped");
    assert!(
        o[1]["why"].as_str().unwrap().contains("debounce 2m"),
        "{o:?}"
    );
    // The rule that clears the debounce: the session moves on (its next tool call),
    // so the next prompt alerts again.
    hook(&p, "PreToolUse", json!({"tool_name": "Bash"}), &desktop);
    hook(
        &p,
        "PermissionRequest",
        json!({"tool_name": "Write"}),
        &desktop,
    );
    assert_eq!(calls(&out).len(), 2);
    assert!(calls(&out)[1][2].contains("permission for Write"));
    // `forge log` says it in words.
    let log = common::ok_stdout(p.forge().arg("log"));
    assert!(
        log.contains("alerted you (permission, by notify-send)"),
        "{log}"
    );
    assert!(log.contains("no permission alert: one was sent"), "{log}");
    // A turn that ends alerts nobody by default (turn_done is off).
    hook(&p, "Stop", json!({"stop_hook_active": false}), &desktop);
    assert_eq!(calls(&out).len(), 2);
}

#[test]
fn your_config_chooses_osascript_and_what_alerts_and_a_project_file_cannot() {
    let p = TestProject::new();
    let out = recorder(&p, "osascript");
    let notify = recorder(&p, "notify-send");
    std::fs::create_dir_all(p.xdg.join("forge")).unwrap();
    std::fs::write(
        p.xdg.join("forge/config.toml"),
        "[alerts]\nvia = \"osascript\"\non = [\"turn_done\"]\n",
    )
    .unwrap();
    // A project's file cannot turn alerts on or choose how they go (yours-only):
    // the file is refused, naming the key.
    p.write(
        ".forge/config.toml",
        "[alerts]\non = [\"permission\"]\nvia = \"notify-send\"\n",
    );
    let refused = p.forge().args(["config", "validate"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("`alerts.on`"),
        "{refused:?}"
    );
    std::fs::remove_file(p.root.join(".forge/config.toml")).unwrap();
    hook(
        &p,
        "PermissionRequest",
        json!({"tool_name": "Bash"}),
        &[("DISPLAY", ":0")],
    );
    assert!(
        calls(&out).is_empty() && calls(&notify).is_empty(),
        "permission is off in your config"
    );
    hook(&p, "Stop", json!({"stop_hook_active": false}), &[]);
    let got = calls(&out);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0][0], "-e");
    assert!(
        got[0][1].starts_with(
            "display notification \"session 3f0c2a9e finished its turn — give it the next prompt\" with title \"forge · "
        ),
        "{got:?}"
    );
}

#[test]
fn a_failing_notifier_is_a_logged_failure_and_the_hook_still_succeeds() {
    let p = TestProject::new();
    stand_in(&p, "notify-send", "echo 'no bus' >&2; exit 3");
    hook(
        &p,
        "PermissionRequest",
        json!({"tool_name": "Bash"}),
        &[("DISPLAY", ":0")],
    );
    let o = alert_outcomes(&p);
    assert_eq!(o[0]["kind"], "alert_failed", "{o:?}");
    assert_eq!(o[0]["why"], "notify-send failed (exit status 3): no bus");
    // A notifier that hangs is stopped at the deadline; the hook returns.
    let p = TestProject::new();
    stand_in(&p, "notify-send", "sleep 30");
    let start = Instant::now();
    hook(
        &p,
        "PermissionRequest",
        json!({"tool_name": "Bash"}),
        &[("DISPLAY", ":0")],
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let o = alert_outcomes(&p);
    assert!(
        o[0]["why"]
            .as_str()
            .unwrap()
            .contains("did not finish within 2 s"),
        "{o:?}"
    );
}

/// The active-pane rule, with a tmux stand-in that answers for the session's pane:
/// the active pane of the active window of an attached session is in view (no
/// alert, said in the log); detached, it alerts.
#[test]
fn never_for_the_pane_the_person_is_looking_at() {
    let p = TestProject::new();
    let out = recorder(&p, "notify-send");
    let answer = p.dir.path().join("answer");
    std::fs::write(&answer, "1 1 1\n").unwrap();
    let asked = p.dir.path().join("asked");
    stand_in(
        &p,
        "tmux",
        &format!(
            "echo \"$*\" >> '{q}'; case \"$*\" in *display-message*pane_active*) cat '{a}';; esac",
            q = asked.display(),
            a = answer.display()
        ),
    );
    let sock = p.dir.path().join("sock");
    let tmux_env = format!("{},123,0", sock.display());
    let in_tmux = |p: &TestProject, event: &str, extra: Value| {
        let mut payload = json!({"session_id": SID, "cwd": p.root, "hook_event_name": event});
        payload
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p.forge()
            .args(["hook", event])
            .env("TMUX", &tmux_env)
            .env("TMUX_PANE", "%7")
            .env("FORGE_AGENT", "builder")
            .env("DISPLAY", ":0")
            .write_stdin(payload.to_string())
            .assert()
            .success();
    };
    in_tmux(&p, "PermissionRequest", json!({"tool_name": "Bash"}));
    assert!(calls(&out).is_empty(), "in view: no alert");
    let q = std::fs::read_to_string(&asked).unwrap();
    assert!(q.contains("display-message -p -t %7"), "{q}");
    let o = alert_outcomes(&p);
    assert_eq!(o[0]["kind"], "alert_skipped");
    assert_eq!(
        o[0]["why"],
        "its tmux pane %7 is the one you are looking at"
    );
    // Nobody attached to its session: it alerts, naming the agent and the pane.
    std::fs::write(&answer, "1 1 0\n").unwrap();
    in_tmux(&p, "PermissionRequest", json!({"tool_name": "Bash"}));
    let got = calls(&out);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0][2],
        "builder (3f0c2a9e) asks permission for Bash — answer it in its pane (tmux %7) or from forge tui"
    );
}

/// OSC 9 to the client's terminal: the hook runs on a pty (script(1)), whose
/// typescript holds every byte written to it, as the client's own process
/// (`CLAUDE_PID`, whose stderr is the pty). The same hook without `CLAUDE_PID` has
/// only a controlling terminal — a person's or a test runner's, never the client's
/// (the real client gives hooks none) — and writes nothing to it.
#[test]
fn osc_9_goes_to_the_clients_terminal_and_never_to_a_hooks_controlling_one() {
    if std::process::Command::new("script")
        .arg("-V")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "script(1) is missing on CI"
        );
        eprintln!("SKIPPED: needs script(1)");
        return;
    }
    let p = TestProject::new();
    let payload = p.dir.path().join("payload.json");
    std::fs::write(
        &payload,
        json!({"session_id": SID, "cwd": p.root, "hook_event_name": "PermissionRequest", "tool_name": "Bash"})
            .to_string(),
    )
    .unwrap();
    let bin = crate::common::forge_bin();
    let on_a_pty = |client: bool, typescript: &Path| {
        let pid = if client { "CLAUDE_PID=$$ " } else { "" };
        let out = std::process::Command::new("script")
            .args(["-qec"])
            .arg(format!(
                "{pid}exec {} hook PermissionRequest < {} > /dev/null",
                bin.display(),
                payload.display()
            ))
            .arg(typescript)
            .current_dir(&p.root)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &p.home)
            .env("XDG_CONFIG_HOME", &p.xdg)
            .env("XDG_STATE_HOME", p.state())
            .env("TERM_PROGRAM", "iTerm.app")
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&std::fs::read(typescript).unwrap()).into_owned()
    };
    // Without CLAUDE_PID: no terminal of the client's, nothing on the pty.
    let text = on_a_pty(false, &p.dir.path().join("typescript-none"));
    assert!(!text.contains("\x1b]9;"), "{text:?}");
    let o = alert_outcomes(&p);
    assert_eq!(o[0]["kind"], "alert_failed", "{o:?}");
    assert!(
        o[0]["why"].as_str().unwrap().contains("no terminal"),
        "{o:?}"
    );
    // A new prompt forgets the debounce, as the client's next tool call would.
    hook(&p, "PreToolUse", json!({"tool_name": "Read"}), &[]);
    let text = on_a_pty(true, &p.dir.path().join("typescript"));
    let project = p.root.file_name().unwrap().to_string_lossy().into_owned();
    let want = format!(
        "\x1b]9;forge · {project}: session 3f0c2a9e asks permission for Bash — answer it in its pane or from forge tui\x07"
    );
    assert!(text.contains(&want), "{text:?}");
    let o = alert_outcomes(&p);
    assert_eq!(o.last().unwrap()["via"], "osc9", "{o:?}");
}

/// Inside tmux the escape goes through tmux's passthrough (`\ePtmux;…\e\\`, ESC
/// doubled): what the pane's program wrote, read with `pipe-pane`; the pane's shell
/// stands for the client (`CLAUDE_PID`). foot's OSC 777
/// (`TERM=foot` is the terminal outside; here `[alerts] via = "osc777"`).
#[test]
fn osc_777_goes_through_tmux_passthrough() {
    if !Tmux::here() {
        return;
    }
    let p = TestProject::new();
    std::fs::create_dir_all(p.xdg.join("forge")).unwrap();
    std::fs::write(
        p.xdg.join("forge/config.toml"),
        "[alerts]\nvia = \"osc777\"\n",
    )
    .unwrap();
    let payload = p.dir.path().join("payload.json");
    std::fs::write(
        &payload,
        json!({"session_id": SID, "cwd": p.root, "hook_event_name": "PermissionRequest", "tool_name": "Bash"})
            .to_string(),
    )
    .unwrap();
    let piped = p.dir.path().join("piped");
    let go = p.dir.path().join("go");
    let bin = crate::common::forge_bin();
    let command = format!(
        "cd {root} && while [ ! -e {go} ]; do sleep 0.05; done; env CLAUDE_PID=$$ HOME={home} XDG_CONFIG_HOME={xdg} \
         XDG_STATE_HOME={state} NO_COLOR=1 {bin} hook PermissionRequest < {payload} > /dev/null; sleep 30",
        root = p.root.display(),
        go = go.display(),
        home = p.home.display(),
        xdg = p.xdg.display(),
        state = p.state().display(),
        bin = bin.display(),
        payload = payload.display(),
    );
    let tmux = Tmux::start(100, 20, &command);
    tmux.run(&["pipe-pane", "-o", &format!("cat >> {}", piped.display())]);
    std::fs::write(&go, "").unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let project = p.root.file_name().unwrap().to_string_lossy().into_owned();
    let want = format!(
        "\x1bPtmux;\x1b\x1b]777;notify;forge · {project};session 3f0c2a9e asks permission for Bash — answer it in its pane (tmux %"
    );
    loop {
        let got = String::from_utf8_lossy(&std::fs::read(&piped).unwrap_or_default()).into_owned();
        if got.contains(&want) {
            assert!(got.contains("or from forge tui\x07\x1b\\"), "{got:?}");
            break;
        }
        assert!(Instant::now() < deadline, "no passthrough escape: {got:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn alerts_test_sends_one_and_doctor_says_how() {
    let p = TestProject::new();
    let out = recorder(&p, "notify-send");
    p.forge().arg("init").assert().success();
    let said = common::ok_stdout(p.forge().args(["alerts", "test"]).env("DISPLAY", ":0"));
    assert!(
        said.contains("alerted you (test, by notify-send)"),
        "{said}"
    );
    assert_eq!(calls(&out).len(), 1);
    assert!(calls(&out)[0][2].contains("a test alert"));
    let shown = common::ok_stdout(p.forge().arg("alerts").env("DISPLAY", ":0"));
    assert!(
        shown.contains("Alerts on: permission, question, blocked, relay_stopped\n")
            && shown.contains("Alerts off: turn_done\n")
            && shown.contains("Delivered by: notify-send (auto)\n"),
        "{shown}"
    );
    let doctor = String::from_utf8(
        p.forge()
            .arg("doctor")
            .env("DISPLAY", ":0")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(
        doctor.contains("Delivered by: notify-send (auto) (`forge alerts test` sends one)"),
        "{doctor}"
    );
    // No desktop and no terminal: the bell, which fails without a terminal, said so.
    let failed = p.forge().args(["alerts", "test"]).output().unwrap();
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&failed.stdout).contains("the test alert failed: no terminal"),
        "{failed:?}"
    );
    let o = alert_outcomes(&p);
    assert_eq!(o.len(), 2, "{o:?}");
}

/// A blocked Signal waits for an answer: one alert per task, naming the agent, what
/// it waits for, and how to answer; a complete one alerts nobody.
#[test]
fn a_blocked_signal_alerts_once_per_task() {
    let p = TestProject::new();
    let out = recorder(&p, "notify-send");
    p.forge().arg("init").assert().success();
    let signal = |task: &str, status: &str| {
        p.forge()
            .args([
                "signal",
                "--from",
                "builder",
                "--to",
                "reviewer",
                "--task",
                task,
                "--status",
                status,
                "--question",
                "Which pool size?",
            ])
            .env("DISPLAY", ":0")
            .assert()
            .success();
    };
    signal("T-5", "complete");
    assert!(calls(&out).is_empty());
    signal("T-6", "blocked");
    signal("T-6", "blocked");
    let got = calls(&out);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(
        got[0][2],
        "builder (T-6) is blocked on you (waits for reviewer: Which pool size?) — answer with `forge signal resolve` or r in forge tui"
    );
    let o = alert_outcomes(&p);
    assert_eq!(o[0]["reason"], "blocked");
    assert_eq!(o[1]["kind"], "alert_skipped", "{o:?}");
}

/// Doctor in a project forge has not touched yet: no `.forge/` is not "yours, real
/// folders"; it says the first hook call creates it. Once there, the usual line.
#[test]
fn doctor_says_when_there_is_no_forge_folder_yet() {
    let p = TestProject::new();
    assert!(!p.root.join(".forge").exists());
    let out = p.forge().args(["doctor", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let check = |v: &Value| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "state-folders")
            .cloned()
            .unwrap()
    };
    let c = check(&v);
    assert!(
        c["summary"]
            .as_str()
            .unwrap_or_default()
            .starts_with("no .forge/ yet")
            || c.to_string().contains("no .forge/ yet"),
        "{c}"
    );
    std::fs::create_dir_all(p.root.join(".forge/logs")).unwrap();
    let out = p.forge().args(["doctor", "--json"]).output().unwrap();
    let c = check(&serde_json::from_slice(&out.stdout).unwrap());
    assert!(c.to_string().contains("are yours, real folders"), "{c}");
}
