//! `forge run` (issue "11 of 11") with a fake `claude` on `PATH` that prints
//! stream-json lines with rising usage: the relay, the continuation prompt, the chain
//! file, the limit, compaction, Ctrl-C and the exit status.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(
    clippy::too_many_lines,
    clippy::cognitive_complexity,
    reason = "scenario tests: each tells one story, setup to last check, read top to bottom; splitting it would scatter the story"
)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::TestProject;
use serde_json::Value;

/// A fake `claude -p`: session N (counted in `$FAKE_DIR/count`) is `fake-session-N`;
/// it records its arguments and `FORGE_RELAY_*`, writes a small transcript, then
/// prints an init line and `$FAKE_STEPS` turns whose context grows by 20k tokens a
/// turn (10 % of a 200k window) from `$FAKE_BASE` (with `$FAKE_AUTOCOMPACT`, it
/// compacts on its own at 83.5 % as the real client does), then a result. Each turn is a reply of a sentence
/// and a Bash call, printed as the real client prints it (one line per block, one
/// message id: tests/fixtures/stream-json), then the call's result. After each call
/// it runs the `PostToolUse` hook that `--settings` names, as the client does, and
/// stops like the client when the hook answers `"continue":false` (a `result`
/// `success` after the call's result). SIGINT makes it print an interrupted result
/// and exit 0.
const FAKE: &str = r#"#!/bin/sh
d="$FAKE_DIR"
n=$(cat "$d/count" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$d/count"
sid="fake-session-$n"
for a in "$@"; do printf '%s\n@@ARG@@\n' "$a"; done > "$d/args-$n"
env | grep -E '^FORGE_(RELAY_(CHAIN|PREVIOUS|HANDOFFS)|AGENT)=' | sort > "$d/env-$n"
settings=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--settings" ]; then settings="$2"; fi
  shift
done
hook=$(printf '%s' "$settings" | sed -n 's/.*"PostToolUse":\[.*"command":"\([^"]*\)".*/\1/p')
proj=$(pwd -P | sed 's/[^A-Za-z0-9]/-/g')
mkdir -p "$HOME/.claude/projects/$proj"
printf '{"type":"user","sessionId":"%s","message":{"role":"user","content":"Work on the task %s"}}\n' "$sid" "$n" > "$HOME/.claude/projects/$proj/$sid.jsonl"
trap 'printf "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"session_id\":\"%s\"}\n" "$sid"; echo "$n" >> "$d/interrupted"; exit 0' INT
printf '{"type":"system","subtype":"init","session_id":"%s","model":"claude-sonnet-4-6","tools":[]}\n' "$sid"
i=1
base="${FAKE_BASE:-0}"
while [ "$i" -le "${FAKE_STEPS:-8}" ]; do
  t=$((base + i * 20000))
  # Claude Code compacts a 200k session on its own at 167,000 tokens (83.5 %).
  if [ -n "$FAKE_AUTOCOMPACT" ] && [ "$t" -ge 167000 ]; then
    printf '{"type":"system","subtype":"status","status":"compacting","session_id":"%s"}\n' "$sid"
    printf '{"type":"system","subtype":"compact_boundary","session_id":"%s","compact_metadata":{"trigger":"auto","pre_tokens":%s}}\n' "$sid" "$t"
    echo "$n" >> "$d/compacted"
    base=$((30000 - i * 20000))
    t=30000
  fi
  if [ -n "$FAKE_COMPACT" ] && [ "$i" -eq 2 ]; then
    printf '{"type":"system","subtype":"status","status":"compacting","session_id":"%s"}\n' "$sid"
    sleep 0.1
    printf '{"type":"system","subtype":"compact_boundary","session_id":"%s","compact_metadata":{"trigger":"auto","pre_tokens":40000}}\n' "$sid"
  fi
  usage=$(printf '{"input_tokens":3,"cache_read_input_tokens":%s,"cache_creation_input_tokens":0,"output_tokens":1}' "$((t - 3))")
  printf '{"type":"assistant","session_id":"%s","parent_tool_use_id":null,"message":{"id":"msg_%s_%s","model":"claude-sonnet-4-6","role":"assistant","content":[{"type":"text","text":"Step %s of session %s"}],"stop_reason":null,"usage":%s}}\n' "$sid" "$n" "$i" "$i" "$n" "$usage"
  sleep "${FAKE_PAUSE:-0.05}"
  printf '{"type":"assistant","session_id":"%s","parent_tool_use_id":null,"message":{"id":"msg_%s_%s","model":"claude-sonnet-4-6","role":"assistant","content":[{"type":"tool_use","id":"tu%s_%s","name":"Bash","input":{"command":"make step%s"}}],"stop_reason":null,"usage":%s}}\n' "$sid" "$n" "$i" "$n" "$i" "$i" "$usage"
  # The tool runs, then its PostToolUse hook.
  sleep "${FAKE_TOOL_TIME:-0.1}"
  said=""
  if [ -n "$hook" ] && [ -z "$FAKE_NO_HOOK" ]; then
    said=$(printf '{"session_id":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","cwd":"%s"}' "$sid" "$(pwd)" | sh -c "$hook")
  fi
  printf '{"type":"user","session_id":"%s","parent_tool_use_id":null,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu%s_%s","content":"ok"}]}}\n' "$sid" "$n" "$i"
  case "$said" in *'"continue":false'*)
    echo "$n" >> "$d/stopped"
    printf '{"type":"result","subtype":"success","is_error":false,"result":"","stop_reason":"tool_use","session_id":"%s"}\n' "$sid"
    exit 0;;
  esac
  sleep "${FAKE_PAUSE:-0.05}"
  i=$((i + 1))
done
if [ -n "$FAKE_FINAL" ]; then usage=$(printf '{"input_tokens":3,"cache_read_input_tokens":%s,"cache_creation_input_tokens":0,"output_tokens":1}' "$((FAKE_FINAL - 3))"); fi
printf '{"type":"assistant","session_id":"%s","parent_tool_use_id":null,"message":{"id":"msg_%s_end","model":"claude-sonnet-4-6","role":"assistant","content":[{"type":"text","text":"All done in session %s"}],"stop_reason":null,"usage":%s}}\n' "$sid" "$n" "$n" "$usage"
printf '{"type":"result","subtype":"success","is_error":false,"result":"All done in session %s","session_id":"%s"}\n' "$n" "$sid"
exit "${FAKE_EXIT:-0}"
"#;

struct Fake {
    p: TestProject,
    dir: PathBuf,
}

impl Fake {
    fn new() -> Self {
        let p = TestProject::new();
        let bin = p.bin_dir();
        std::fs::create_dir_all(&bin).unwrap();
        let exe = bin.join("claude");
        std::fs::write(&exe, FAKE).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let dir = p.dir.path().join("fake");
        std::fs::create_dir_all(&dir).unwrap();
        Self { p, dir }
    }

    fn run(&self, forge_args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
        let mut cmd = self.p.forge();
        cmd.arg("run").args(forge_args).env("FAKE_DIR", &self.dir);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.timeout(Duration::from_secs(60)).output().unwrap()
    }

    fn sessions(&self) -> usize {
        std::fs::read_to_string(self.dir.join("count"))
            .unwrap_or_default()
            .trim()
            .parse()
            .unwrap_or(0)
    }

    fn args(&self, n: usize) -> Vec<String> {
        std::fs::read_to_string(self.dir.join(format!("args-{n}")))
            .unwrap()
            .split("\n@@ARG@@\n")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }

    fn env_of(&self, n: usize) -> String {
        std::fs::read_to_string(self.dir.join(format!("env-{n}"))).unwrap_or_default()
    }

    fn chain(&self, id: &str) -> Value {
        let text =
            std::fs::read_to_string(self.p.forge_dir().join(format!("logs/chains/{id}.json")))
                .unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

fn events(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".forge/logs/events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_chain_relays_at_the_threshold_and_the_limit_holds() {
    let f = Fake::new();
    let hook_log = f.p.dir.path().join("threshold-hook.log");
    let cfg = f.p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        format!(
            "[[on_threshold]]\nthreshold = 40\ncommand = \"cat >> '{}'; echo >> '{}'\"\n",
            hook_log.display(),
            hook_log.display()
        ),
    )
    .unwrap();
    let out = f.run(
        &[
            "--threshold",
            "50",
            "--max-handoffs",
            "2",
            "--",
            "claude",
            "-p",
            "Build the blue widget",
            "--model",
            "claude-sonnet-4-6",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // Three sessions: two relayed, the last past the limit ran to its end.
    assert_eq!(f.sessions(), 3, "{stderr}");
    assert!(stderr.contains("--max-handoffs (2)"), "{stderr}");
    assert!(stdout.contains("Step 1 of session 1"), "{stdout}");
    assert!(stdout.contains("→ Bash: make step1"), "{stdout}");
    assert!(stdout.contains("All done in session 3"), "{stdout}");
    // Session 1 never got past turn 5 (100k = 50 %).
    assert!(!stdout.contains("Step 6 of session 1"), "{stdout}");

    // Arguments: -p, the same extra arguments and stream-json, the settings that
    // give the session forge's stop hook, then `--` and the prompt (so a prompt that
    // starts with `-` is never read as an option).
    let a1 = f.args(1);
    assert_eq!(
        a1[..7],
        [
            "-p",
            "--model",
            "claude-sonnet-4-6",
            "--output-format",
            "stream-json",
            "--verbose",
            "--settings",
        ]
    );
    assert_eq!(a1[8..], ["--", "Build the blue widget"]);
    let settings: Value = serde_json::from_str(&a1[7]).unwrap();
    let hook = settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(hook.ends_with("forge' hook PostToolUse"), "{hook}");
    // Each relayed session stopped on its own, through the hook, between replies.
    let stopped = std::fs::read_to_string(f.dir.join("stopped")).unwrap();
    assert_eq!(stopped, "1\n2\n");
    assert!(
        !f.dir.join("interrupted").exists(),
        "nothing was interrupted"
    );
    let chain = f.chain("fake-session-1");
    let sessions = chain["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 3, "{chain:#}");
    for (i, n) in [(1usize, 2usize), (2, 3)] {
        let a = f.args(n);
        assert_eq!(a[0], "-p");
        let prompt = a.last().unwrap();
        assert!(prompt.contains("Build the blue widget"), "{prompt}");
        assert!(prompt.contains(&format!("continuation {i}")), "{prompt}");
        assert!(prompt.contains("Do not repeat work"), "{prompt}");
        let handoff = sessions[i - 1]["handoff"].as_str().unwrap();
        assert!(prompt.contains(handoff), "{prompt}");
        // The handoff's text itself, read from the session's transcript.
        assert!(prompt.contains("# Session handoff"), "{prompt}");
        assert!(prompt.contains("trigger: relay"), "{prompt}");
        assert_eq!(&a[..a.len() - 1], &a1[..a1.len() - 1]);
        let env = f.env_of(n);
        assert!(env.contains("FORGE_RELAY_CHAIN=fake-session-1"), "{env}");
        assert!(
            env.contains(&format!("FORGE_RELAY_PREVIOUS=fake-session-{i}")),
            "{env}"
        );
        assert!(env.contains(&format!("FORGE_RELAY_HANDOFFS={i}")), "{env}");
    }
    assert_eq!(f.env_of(1), "");
    // The chain file.
    assert_eq!(chain["id"], "fake-session-1");
    assert_eq!(chain["task"], "Build the blue widget");
    assert_eq!(chain["exit_code"], 0);
    assert_eq!(chain["max_handoffs"], 2);
    let ends: Vec<&str> = sessions
        .iter()
        .map(|s| s["end"].as_str().unwrap())
        .collect();
    assert_eq!(ends, ["relayed", "relayed", "exited"]);
    for (i, s) in sessions.iter().enumerate() {
        assert_eq!(s["session_id"], format!("fake-session-{}", i + 1));
        assert!(s["started_at"].is_string() && s["ended_at"].is_string());
    }
    assert_eq!(sessions[0]["context_pct"], 50.0);
    assert_eq!(sessions[0]["context_tokens"], 100_000);
    assert!(sessions[2]["handoff"].is_null());
    for s in &sessions[..2] {
        let h = s["handoff"].as_str().unwrap();
        let text = std::fs::read_to_string(h).unwrap();
        assert!(text.contains("trigger: relay"), "{text}");
    }
    // The relay's handoff is carried by the prompt, not left as a pending resume.
    assert!(!f.p.forge_dir().join("pending-resume").exists());
    // The hooks saw both hand-overs.
    let hooks: Vec<Value> = std::fs::read_to_string(&hook_log)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["session"]["session_id"], "fake-session-1");
    assert_eq!(hooks[0]["context"]["usage_percent"], 0.5);
    assert_eq!(hooks[1]["session"]["session_id"], "fake-session-2");
    assert!(hooks[1]["handoff_path"].is_string());
    // The event log says what happened.
    let ev = events(&f.p.root);
    let kinds: Vec<String> = ev
        .iter()
        .filter(|e| e["event"] == "forge run")
        .flat_map(|e| e["outcomes"].as_array().cloned().unwrap_or_default())
        .map(|o| o["kind"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "relayed").count(),
        2,
        "{kinds:?}"
    );
    assert!(kinds.contains(&"chain_ended".to_owned()), "{kinds:?}");
    assert!(kinds.contains(&"handoff_written".to_owned()), "{kinds:?}");

    // forge status and forge log show the chain.
    let st = f.p.forge().args(["status", "--json"]).output().unwrap();
    let st: Value = serde_json::from_slice(&st.stdout).unwrap();
    assert_eq!(st["chains"][0]["id"], "fake-session-1");
    assert_eq!(st["chains"][0]["sessions"].as_array().unwrap().len(), 3);
    let log =
        f.p.forge()
            .args(["log", "--chain", "fake-sess"])
            .output()
            .unwrap();
    let log = String::from_utf8_lossy(&log.stdout);
    assert_eq!(
        log.matches("relayed chain fake-session-1").count(),
        2,
        "{log}"
    );
    assert!(
        log.contains("ended after 3 sessions and 2 handoffs: exit 0"),
        "{log}"
    );
    let bad =
        f.p.forge()
            .args(["log", "--chain", "nope"])
            .output()
            .unwrap();
    assert!(!bad.status.success());
}

#[test]
fn forge_status_lists_a_chain_with_its_sessions_and_handoffs() {
    let f = Fake::new();
    let init = f.p.forge().args(["init"]).output().unwrap();
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let out = f.run(
        &[
            "--threshold",
            "50",
            "--max-handoffs",
            "1",
            "--",
            "claude",
            "-p",
            "task",
        ],
        &[],
    );
    assert!(out.status.success());
    let st = f.p.forge().args(["status"]).output().unwrap();
    let text = String::from_utf8_lossy(&st.stdout);
    assert!(text.contains("Chains (forge run): 1"), "{text}");
    assert!(
        text.contains("2 sessions, 1 handoff, exit 0 — task"),
        "{text}"
    );
    assert!(text.contains("1. fake-ses"), "{text}");
    assert!(text.contains("relayed at 50% → handoff-"), "{text}");
    assert!(text.contains("2. fake-ses"), "{text}");
    assert!(text.contains("exited 0"), "{text}");
}

#[test]
fn json_passes_the_stream_through_and_the_exit_status_is_the_last_sessions() {
    let f = Fake::new();
    // A stand-in notify-send on PATH hears that the relay stopped (`[alerts]`).
    let heard = f.p.dir.path().join("notify-send.calls");
    std::fs::write(
        f.p.bin_dir().join("notify-send"),
        format!("#!/bin/sh\nprintf '%s|' \"$@\" >> '{}'\n", heard.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        f.p.bin_dir().join("notify-send"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let out = f.run(
        &["--json", "--", "claude", "-p", "small task"],
        &[("FAKE_STEPS", "2"), ("FAKE_EXIT", "3"), ("DISPLAY", ":0")],
    );
    assert_eq!(out.status.code(), Some(3));
    let said = std::fs::read_to_string(&heard).unwrap_or_default();
    assert!(
        said.contains("session fake-ses its relay stopped: exit status 3 after 1 session — see `forge log --chain`"),
        "{said}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["subtype"], "init");
    assert_eq!(lines.last().unwrap()["type"], "result");
    assert_eq!(f.sessions(), 1);
    let chain = f.chain("fake-session-1");
    assert_eq!(chain["exit_code"], 3);
    assert_eq!(chain["sessions"][0]["end"], "exited");
    assert_eq!(chain["sessions"][0]["exit_code"], 3);
}

#[test]
fn a_session_claude_code_compacted_is_not_relayed_on_top_of_it() {
    let f = Fake::new();
    let out = f.run(
        &["--threshold", "50", "--", "claude", "-p", "task"],
        &[("FAKE_COMPACT", "1")],
    );
    assert!(out.status.success());
    assert_eq!(f.sessions(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("compacted this session on its own"),
        "{stderr}"
    );
    let chain = f.chain("fake-session-1");
    assert_eq!(chain["sessions"][0]["compacted"], true);
    assert_eq!(chain["sessions"][0]["end"], "exited");
}

#[test]
fn ctrl_c_stops_the_chain_and_leaves_a_handoff() {
    let f = Fake::new();
    let mut cmd = std::process::Command::new(crate::common::forge_bin());
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", f.p.bin_dir().display());
    cmd.args(["run", "--", "claude", "-p", "long task"])
        .current_dir(&f.p.root)
        .env("PATH", path)
        .env("HOME", &f.p.home)
        .env("XDG_CONFIG_HOME", &f.p.xdg)
        .env("XDG_STATE_HOME", f.p.state())
        .env("FAKE_DIR", &f.dir)
        .env("FAKE_PAUSE", "0.5")
        .env("FAKE_STEPS", "40")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let started = Instant::now();
    while !f
        .p
        .forge_dir()
        .join("logs/chains/fake-session-1.json")
        .exists()
    {
        assert!(started.elapsed() < Duration::from_secs(20), "no chain file");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(600));
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(f.sessions(), 1);
    assert!(f.dir.join("interrupted").exists(), "the session got SIGINT");
    let chain = f.chain("fake-session-1");
    let s = &chain["sessions"][0];
    assert_eq!(s["end"], "interrupted");
    let h = s["handoff"].as_str().unwrap();
    assert!(Path::new(h).exists());
    // Left as the pending resume for whoever goes on.
    assert!(f.p.forge_dir().join("pending-resume").exists());
    assert!(stderr.contains("pending resume"), "{stderr}");
}

#[test]
fn a_task_that_starts_with_a_dash_reaches_claude_as_the_prompt() {
    let f = Fake::new();
    let out = f.run(
        &[
            "--max-handoffs",
            "0",
            "--",
            "claude",
            "-p",
            "- fix the flaky test",
            "--model",
            "m",
        ],
        &[("FAKE_STEPS", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let a = f.args(1);
    assert_eq!(
        &a[a.len() - 2..],
        ["--", "- fix the flaky test"],
        "after `--`, so claude reads it as the prompt: {a:?}"
    );
    let out = f.run(&["--", "claude", "-p", "--", "-v"], &[("FAKE_STEPS", "1")]);
    assert!(out.status.success());
    assert_eq!(f.args(2).last().unwrap(), "-v");
}

#[test]
fn a_task_too_long_for_one_argument_is_refused_before_anything_starts() {
    let f = Fake::new();
    // Written by an earlier session: must still be there afterwards.
    let handoff = f.p.forge_dir().join("handoffs/handoff-20260101-000000.md");
    std::fs::create_dir_all(handoff.parent().unwrap()).unwrap();
    std::fs::write(
        &handoff,
        "---\nkind: session-handoff\n---\n# Session handoff\n",
    )
    .unwrap();
    let marker = f.p.forge_dir().join("pending-resume");
    std::fs::write(&marker, format!("{}\nchosen\n", handoff.display())).unwrap();
    // Small enough to start forge itself, too long once a continuation adds the
    // handoff: the old forge ran session 1, then could not start session 2 (E2BIG)
    // after it had cleared the pending resume.
    let task = format!("Do this: {}", "x".repeat(127_500));
    let out = f.run(&["--threshold", "30", "--", "claude", "-p", &task], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("one argument holds at most 131071 bytes") && stderr.contains("TASK.md"),
        "{stderr}"
    );
    assert_eq!(f.sessions(), 0, "a session started");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        format!("{}\nchosen\n", handoff.display()),
        "the pending resume was touched"
    );
    assert!(!f.p.forge_dir().join("logs/chains").exists());
}

#[test]
fn a_command_without_a_task_is_refused() {
    let f = Fake::new();
    let out = f.run(&["--", "claude", "--model", "x"], &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("-p"));
    assert_eq!(f.sessions(), 0);
}

#[test]
fn an_agent_runs_with_its_own_relay_settings() {
    let f = Fake::new();
    let cfg = f.p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "[relay]\nthreshold = 95\n\n[agents.builder.relay]\nthreshold = 30\nmax_handoffs = 1\n",
    )
    .unwrap();
    let out = f.run(&["--agent", "builder", "--", "claude", "-p", "task"], &[]);
    assert!(out.status.success());
    // 30 % as the builder: relayed once at turn 3 (60k), then the limit.
    assert_eq!(f.sessions(), 2);
    assert!(
        f.env_of(1).contains("FORGE_AGENT=builder"),
        "{}",
        f.env_of(1)
    );
    let chain = f.chain("fake-session-1");
    assert_eq!(chain["agent"], "builder");
    assert_eq!(chain["threshold"], 30.0);
    assert_eq!(chain["sessions"][0]["context_pct"], 30.0);
    // Without the agent, the user's 95 % never relays this session.
    let g = Fake::new();
    std::fs::create_dir_all(g.p.xdg.join("forge")).unwrap();
    std::fs::copy(&cfg, g.p.xdg.join("forge/config.toml")).unwrap();
    assert!(g.run(&["--", "claude", "-p", "task"], &[]).status.success());
    assert_eq!(g.sessions(), 1);
}

#[test]
fn a_session_whose_hook_does_not_stop_it_is_interrupted_two_rounds_later_at_a_clean_point() {
    let f = Fake::new();
    let out = f.run(
        &[
            "--threshold",
            "50",
            "--max-handoffs",
            "1",
            "--",
            "claude",
            "-p",
            "task",
        ],
        &[("FAKE_NO_HOOK", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(f.sessions(), 2, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(f.dir.join("interrupted")).unwrap(),
        "1\n"
    );
    assert!(stderr.contains("did not stop it"), "{stderr}");
    let chain = f.chain("fake-session-1");
    assert_eq!(chain["sessions"][0]["end"], "relayed");
    // Asked at 50 % (turn 5); two rounds later, at turn 6's result.
    assert_eq!(chain["sessions"][0]["context_pct"], 60.0, "{chain:#}");
}

#[test]
fn a_threshold_claude_code_never_lets_a_session_reach_is_said_at_the_start() {
    let f = Fake::new();
    let out = f.run(
        &[
            "--threshold",
            "90",
            "--max-handoffs",
            "1",
            "--",
            "claude",
            "-p",
            "task",
            "--model",
            "claude-sonnet-4-6",
        ],
        &[("FAKE_STEPS", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("the threshold 90% is never reached").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("at about 83.5%"), "{stderr}");
    let chain = f.chain("fake-session-1");
    assert!(
        chain["notes"][0]
            .as_str()
            .unwrap()
            .contains("never reached"),
        "{chain:#}"
    );
    // Without --model, from the model the session reports.
    let g = Fake::new();
    let out = g.run(
        &["--threshold", "85", "--", "claude", "-p", "task"],
        &[("FAKE_STEPS", "1")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("never reached").count(), 1, "{stderr}");
    // The default, and a threshold below the compaction point: nothing to say.
    let h = Fake::new();
    let out = h.run(
        &["--", "claude", "-p", "task", "--model", "claude-sonnet-4-6"],
        &[("FAKE_STEPS", "1")],
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("never reached"));
    // Auto-compaction off in the environment: any threshold can be reached.
    let out = h.run(
        &[
            "--threshold",
            "95",
            "--",
            "claude",
            "-p",
            "task",
            "--model",
            "claude-sonnet-4-6",
        ],
        &[("FAKE_STEPS", "1"), ("DISABLE_AUTO_COMPACT", "1")],
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("never reached"));
}

/// The `forge run` examples of docs/relay.md (moved from the README), as written.
fn readme_examples() -> Vec<Vec<String>> {
    let readme = include_str!("../../docs/relay.md");
    let at = readme
        .find("# Relay: `forge run`")
        .expect("the Relay section");
    let block = &readme[at..];
    let start = block.find("```sh\n").expect("its examples") + 6;
    let end = start + block[start..].find("```").unwrap();
    block[start..end]
        .lines()
        .filter(|l| l.starts_with("forge run "))
        .map(|l| {
            // Words as sh splits them (double quotes only), up to a pipe.
            let mut words = Vec::new();
            let mut cur = String::new();
            let mut quoted = false;
            let mut any = false;
            for c in l.chars() {
                match c {
                    '"' => {
                        quoted = !quoted;
                        any = true;
                    }
                    '|' if !quoted => break,
                    ' ' if !quoted => {
                        if any {
                            words.push(std::mem::take(&mut cur));
                        }
                        any = false;
                    }
                    c => {
                        cur.push(c);
                        any = true;
                    }
                }
            }
            if any {
                words.push(cur);
            }
            words
        })
        .collect()
}

#[test]
fn the_readmes_forge_run_examples_relay_before_claude_code_compacts() {
    let examples = readme_examples();
    assert_eq!(examples.len(), 3, "{examples:?}");
    for words in examples {
        assert_eq!(&words[..2], ["forge", "run"], "{words:?}");
        let f = Fake::new();
        // A 200k model whose context climbs 10 points a turn from 60 %, and compacts
        // on its own at 83.5 %, as Claude Code does.
        let args: Vec<&str> = words[2..].iter().map(String::as_str).collect();
        let out = f.run(
            &args,
            &[
                ("FAKE_BASE", "120000"),
                ("FAKE_STEPS", "3"),
                ("FAKE_AUTOCOMPACT", "1"),
                ("FAKE_PAUSE", "0.01"),
            ],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{words:?}\n{stderr}");
        assert!(!stderr.contains("never reached"), "{words:?}\n{stderr}");
        let chain = f.chain("fake-session-1");
        let sessions = chain["sessions"].as_array().unwrap();
        assert!(
            sessions.len() >= 2,
            "{words:?} did not relay: {chain:#}\n{stderr}"
        );
        assert_eq!(sessions[0]["end"], "relayed", "{words:?}: {chain:#}");
        assert!(
            sessions[0]["context_pct"].as_f64().unwrap() < 83.5,
            "{words:?}: {chain:#}"
        );
        for s in sessions.iter().filter(|s| s["end"] == "relayed") {
            assert_eq!(s["compacted"], false, "{words:?}: {chain:#}");
        }
        // The first session never reached Claude Code's own compaction.
        let compacted = std::fs::read_to_string(f.dir.join("compacted")).unwrap_or_default();
        assert!(!compacted.lines().any(|l| l == "1"), "{words:?}: {chain:#}");
        if words.contains(&"--json".to_owned()) {
            assert!(
                stdout.lines().any(|l| l.contains(r#""type":"result""#)),
                "{stdout}"
            );
        }
    }
}

/// A handoff the person chose with `forge resume`, pending in `p`.
fn chosen_pending(p: &TestProject) -> PathBuf {
    let h = p.forge_dir().join("handoffs/handoff-20261120-090000.md");
    std::fs::create_dir_all(h.parent().unwrap()).unwrap();
    std::fs::write(
        &h,
        "---\nkind: session-handoff\ncreated_at: 2026-11-20T09:00:00Z\ntrigger: manual\n---\n# Session handoff — mine\n",
    )
    .unwrap();
    let out = p
        .forge()
        .args(["resume", h.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    h
}

#[test]
fn a_chain_leaves_the_resume_the_person_chose_and_its_log_says_what_is_true() {
    let f = Fake::new();
    let mine = chosen_pending(&f.p);
    let marker = std::fs::read_to_string(f.p.forge_dir().join("pending-resume")).unwrap();
    let out = f.run(
        &[
            "--threshold",
            "50",
            "--max-handoffs",
            "1",
            "--",
            "claude",
            "-p",
            "task",
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("handoff-20261120-090000.md stays the pending resume"),
        "{stderr}"
    );
    // The marker is as the person left it.
    assert_eq!(
        std::fs::read_to_string(f.p.forge_dir().join("pending-resume")).unwrap(),
        marker
    );
    assert!(mine.exists());
    // The sessions ran with FORGE_RELAY_STOP, so their SessionStart leaves it too.
    let chain = f.chain("fake-session-1");
    let relay = chain["sessions"][0]["handoff"].as_str().unwrap().to_owned();
    // forge log says of the relay's handoff what is true: it is not pending.
    let log = f.p.forge().args(["log"]).output().unwrap();
    let log = String::from_utf8_lossy(&log.stdout);
    let name = Path::new(&relay).file_name().unwrap().to_string_lossy();
    let line = log
        .lines()
        .find(|l| l.contains(&*format!("wrote {name}")))
        .unwrap_or_else(|| panic!("no line for {name}: {log}"));
    assert!(
        line.contains("not pending: the chain's next session starts from it"),
        "{line}"
    );
    assert!(!log.contains("now the pending resume"), "{log}");
    let now = std::fs::read_to_string(f.p.forge_dir().join("pending-resume")).unwrap();
    assert!(!now.contains(&*name), "{now}");
}

#[test]
fn ctrl_c_keeps_a_resume_the_person_chose() {
    let f = Fake::new();
    chosen_pending(&f.p);
    let marker = std::fs::read_to_string(f.p.forge_dir().join("pending-resume")).unwrap();
    let mut cmd = std::process::Command::new(crate::common::forge_bin());
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", f.p.bin_dir().display());
    cmd.args(["run", "--", "claude", "-p", "long task"])
        .current_dir(&f.p.root)
        .env("PATH", path)
        .env("HOME", &f.p.home)
        .env("XDG_CONFIG_HOME", &f.p.xdg)
        .env("XDG_STATE_HOME", f.p.state())
        .env("FAKE_DIR", &f.dir)
        .env("FAKE_PAUSE", "0.5")
        .env("FAKE_STEPS", "40")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let started = Instant::now();
    while !f
        .p
        .forge_dir()
        .join("logs/chains/fake-session-1.json")
        .exists()
    {
        assert!(started.elapsed() < Duration::from_secs(20), "no chain file");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(600));
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("the pending resume you chose stays"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(f.p.forge_dir().join("pending-resume")).unwrap(),
        marker
    );
}

#[test]
fn a_session_that_finishes_its_task_at_the_threshold_is_not_relayed_and_forge_says_so() {
    let f = Fake::new();
    // Two turns (40k), then a closing reply at 120k (60 %): the threshold comes with
    // a reply that makes no tool call, so the session ends on its own.
    let out = f.run(
        &["--threshold", "50", "--", "claude", "-p", "task"],
        &[("FAKE_STEPS", "2"), ("FAKE_FINAL", "120000")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(f.sessions(), 1);
    assert!(
        stderr.contains("ended on its own before it could be relayed"),
        "{stderr}"
    );
    let chain = f.chain("fake-session-1");
    assert_eq!(chain["sessions"][0]["end"], "exited", "{chain:#}");
    assert!(chain["sessions"][0]["handoff"].is_null(), "{chain:#}");
}
