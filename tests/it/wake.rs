//! Wake messages name the agent the session is, say when it is blocked on a Signal,
//! and give a `send-keys` line on the session's own tmux server — with a real tmux
//! server of two sessions, one of them killed (the agent of a session is fixed at
//! its start, recorded in its bridge, never asked of tmux once the pane is gone).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom"
)]

use crate::common;

use std::time::Duration;

use common::tmux::Tmux;
use common::{TestProject, ok_stdout, poll, user_config, wake_messages};
use serde_json::json;

/// The hook environment of a process in `pane` of the tmux server at `socket`.
fn in_pane(cmd: &mut assert_cmd::Command, socket: &str, pane: &str) {
    cmd.env("TMUX", format!("{socket},1,0"))
        .env("TMUX_PANE", pane)
        .env_remove("FORGE_AGENT");
}

fn hook(p: &TestProject, socket: &str, pane: &str, event: &str, extra: serde_json::Value) {
    let mut payload = json!({
        "session_id": "rev-session", "cwd": p.root, "hook_event_name": event,
        "transcript_path": "",
    });
    if let (Some(o), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    let mut cmd = p.forge();
    cmd.args(["hook", event])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .write_stdin(payload.to_string());
    in_pane(&mut cmd, socket, pane);
    ok_stdout(&mut cmd);
}

/// Waits for the `n`th wake message with `trigger: <trigger>`.
fn wake(log: &std::path::Path, trigger: &str, n: usize) -> String {
    let want = format!("trigger: {trigger}\n");
    poll(Duration::from_secs(10), || {
        wake_messages(log)
            .into_iter()
            .filter(|m| m.contains(&want))
            .nth(n - 1)
    })
    .unwrap_or_else(|| panic!("{trigger} #{n}: {:#?}", wake_messages(log)))
}

/// A tmux server of two sessions — the agent "rev" and "keep" — and a project whose
/// `[notify]` orchestrator logs each message (and the `FORGE_AGENT` it ran with);
/// the session "rev-session" started in rev's pane.
struct Fleet {
    p: TestProject,
    tmux: Tmux,
    pane: String,
    socket: String,
    log: std::path::PathBuf,
}

impl Fleet {
    fn start() -> Option<Self> {
        if !Tmux::here() {
            return None;
        }
        let p = TestProject::new();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let mut tmux = Tmux::server(
            format!("forge-wake-{}-{nanos}", std::process::id()),
            "rev",
            false,
        );
        tmux.open(80, 24, "sleep 600").unwrap();
        tmux.run(&["new-session", "-d", "-s", "keep", "sleep 600"]);
        let pane = tmux
            .run(&["display-message", "-p", "-t", "rev", "#{pane_id}"])
            .trim()
            .to_owned();
        let socket = tmux.socket_path().unwrap().display().to_string();
        let log = p.dir.path().join("wake.log");
        let script = p.dir.path().join("orchestrator.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\nfor last; do :; done\nprintf '%s\\n---\\n' \"$last\" >> '{log}'\n\
                 printf '%s\\n' \"$FORGE_AGENT\" >> '{log}.agent'\n",
                log = log.display()
            ),
        )
        .unwrap();
        user_config(
            &p,
            &format!(
                "[notify]\ncommand = [\"sh\", \"{}\"]\nevents = [\"stop\", \"session_end\"]\n",
                script.display()
            ),
        );
        let f = Self {
            p,
            tmux,
            pane,
            socket,
            log,
        };
        f.hook("SessionStart", json!({"source": "startup"}));
        Some(f)
    }

    fn hook(&self, event: &str, extra: serde_json::Value) {
        hook(&self.p, &self.socket, &self.pane, event, extra);
    }
}

#[test]
fn after_kill_session_of_one_of_two_tmux_sessions_the_message_names_the_agent_it_started_as() {
    let Some(f) = Fleet::start() else { return };
    // The session of rev is killed; the server lives on with "keep", which tmux
    // names when asked about rev's pane now.
    f.tmux.run(&["kill-session", "-t", "rev"]);
    f.hook("SessionEnd", json!({"reason": "other"}));
    let end = wake(&f.log, "session_end", 1);
    assert!(end.contains("agent: rev\n"), "{end}");
    assert!(!end.contains("keep"), "{end}");
    let agents = std::fs::read_to_string(f.log.with_extension("log.agent")).unwrap();
    assert!(agents.lines().all(|a| a == "rev"), "{agents:?}");
    // It was fixed at the start, in the bridge, with its pane and server.
    let bridge: serde_json::Value =
        serde_json::from_str(&f.p.read(".forge/logs/sessions/rev-session.json")).unwrap();
    assert_eq!(bridge["agent"], "rev", "{bridge:#}");
    assert_eq!(bridge["tmux_pane"], f.pane.as_str());
    assert_eq!(bridge["tmux_socket"], f.socket.as_str());
    // Nothing names the other session as the agent, the fleet registry neither.
    let reg = std::fs::read_to_string(f.p.registry()).unwrap();
    assert!(!reg.contains("keep"), "{reg}");
}

#[test]
fn the_message_after_an_agent_blocks_says_on_whom_and_what() {
    let Some(f) = Fleet::start() else { return };
    ok_stdout(f.p.forge().args([
        "signal",
        "--from",
        "rev",
        "--to",
        "lead",
        "--task",
        "T-3",
        "--status",
        "blocked",
        "--question",
        "Ship it behind a flag?",
    ]));
    f.hook("Stop", json!({"stop_hook_active": false}));
    let stop = wake(&f.log, "response_complete", 1);
    assert!(stop.contains("agent: rev\n"), "{stop}");
    assert!(
        stop.contains("state: idle\nblocked_on: lead (task T-3)\n"),
        "{stop}"
    );
    assert!(
        stop.contains(
            "[BLOCKED ON A SIGNAL]\n- task T-3: waiting for lead (.forge/handoffs/agent-T-3-"
        ),
        "{stop}"
    );
    assert!(
        stop.contains("  question: Ship it behind a flag?\n"),
        "{stop}"
    );
    assert!(
        stop.contains("- answer for lead: forge signal resolve T-3 --from lead --answer"),
        "{stop}"
    );
    // Answered: the next message is not blocked any more.
    ok_stdout(
        f.p.forge()
            .args(["signal", "resolve", "T-3", "--answer", "yes"]),
    );
    f.hook("Stop", json!({"stop_hook_active": false}));
    let stop = wake(&f.log, "response_complete", 2);
    assert!(!stop.contains("blocked_on"), "{stop}");
}

#[test]
fn the_send_keys_advice_names_the_sessions_own_tmux_server() {
    let Some(f) = Fleet::start() else { return };
    f.hook("Stop", json!({"stop_hook_active": false}));
    let stop = wake(&f.log, "response_complete", 1);
    assert!(stop.contains("tmux: rev:0.0\n"), "{stop}");
    assert!(
        stop.contains(&format!(
            "- type into the session: tmux -S {} send-keys -t rev:0.0 '/compact' Enter",
            f.socket
        )),
        "{stop}"
    );
    // The fleet's row says who and where, as the fleet list shows it.
    let fleet: serde_json::Value =
        serde_json::from_str(&ok_stdout(f.p.forge().args(["status", "--all", "--json"]))).unwrap();
    let row = &fleet["rows"][0];
    assert_eq!(row["agent"], "rev", "{fleet:#}");
    assert_eq!(row["tmux"]["pane"], f.pane.as_str(), "{fleet:#}");
    assert_eq!(row["tmux"]["socket"], f.socket.as_str(), "{fleet:#}");
    assert_eq!(
        row["tmux"]["attach"],
        format!("tmux -S {} attach -t {}", f.socket, f.pane),
        "{fleet:#}"
    );
    assert_eq!(row["worktree"], f.p.root.display().to_string());
    assert_eq!(row["repository"], f.p.root.display().to_string());
    assert_eq!(row["branch"], "main");
}
