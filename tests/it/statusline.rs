//! Process tests for `forge statusline`: the real binary on the payload fixtures, a
//! temporary git repo, `HOME` in a temporary folder.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::TestProject;

const S74: &str = "c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354";
const S42: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

fn tick(p: &TestProject, payload: &str) -> String {
    common::ok_stdout(p.forge().arg("statusline").write_stdin(payload.to_owned()))
}

fn wait_for(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn fixtures_render_one_line_and_exit_zero() {
    let p = TestProject::new();
    let line = tick(&p, &p.payload("statusline/used-42.json"));
    assert_eq!(line.lines().count(), 1, "{line:?}");
    assert!(line.contains("Sonnet 4.6"), "{line}");
    assert!(line.contains("⎇ main"), "{line}");
    assert!(line.contains(" 42%"), "{line}");
    assert!(!line.contains("CTX"), "{line}");
    assert!(!line.contains('\x1b'), "NO_COLOR is set: {line:?}");

    let line = tick(&p, &p.payload("statusline/session-start-nulls.json"));
    assert!(line.contains("?%"), "{line}");
    assert!(!line.contains(" 0%"), "{line}");

    let line = tick(&p, &p.payload("statusline/opus-1m-15.json"));
    assert!(line.contains("15%"), "{line}");
}

#[test]
fn garbage_empty_and_bad_flags_still_print_a_line() {
    let p = TestProject::new();
    for input in [
        "",
        "garbage",
        "{\"context_window\":{\"used_percentage\":\"x\"}}",
        "[]",
    ] {
        let line = tick(&p, input);
        assert!(!line.trim().is_empty(), "{input:?}");
        assert!(line.contains("?%"), "{input:?} → {line}");
    }
    let out = common::ok_stdout(
        p.forge()
            .args(["statusline", "--from-the-future"])
            .write_stdin("{}"),
    );
    assert!(!out.trim().is_empty());
}

#[test]
fn colours_and_width_come_from_the_environment() {
    let p = TestProject::new();
    let out = common::ok_stdout(
        p.forge()
            .arg("statusline")
            .env_remove("NO_COLOR")
            .env("COLUMNS", "30")
            .write_stdin(p.payload("statusline/used-74.json")),
    );
    let line = out;
    assert!(line.contains("\x1b["), "{line:?}");
    let mut visible = String::new();
    let mut esc = false;
    for c in line.trim_end().chars() {
        match (esc, c) {
            (false, '\x1b') => esc = true,
            (true, 'm') => esc = false,
            (false, c) => visible.push(c),
            _ => {}
        }
    }
    assert!(visible.chars().count() <= 30, "{visible}");
    assert!(visible.contains("⚠ CTX 74%"), "{visible}");
}

fn inode(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().ino()
}

#[test]
fn bridge_is_written_only_when_a_value_changes() {
    let p = TestProject::new();
    let bridge = p.forge_dir().join(format!("logs/sessions/{S42}.json"));
    tick(&p, &p.payload("statusline/used-42.json"));
    let first = inode(&bridge);
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S42}.json"))).unwrap();
    assert_eq!(v["used_percentage"], 42.0);
    assert_eq!(v["context_window_size"], 200_000);
    assert_eq!(v["tokens"], 84_000);
    assert_eq!(v["model"], "Sonnet 4.6");
    assert_eq!(v["readings"].as_array().unwrap().len(), 1);
    assert!(v["transcript_path"].as_str().unwrap().ends_with(".jsonl"));

    tick(&p, &p.payload("statusline/used-42.json"));
    assert_eq!(
        inode(&bridge),
        first,
        "same values: no write (atomic writes change the inode)"
    );

    let moved = p
        .payload("statusline/used-42.json")
        .replace("\"used_percentage\": 42", "\"used_percentage\": 43");
    tick(&p, &moved);
    assert_ne!(inode(&bridge), first);
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S42}.json"))).unwrap();
    assert_eq!(v["used_percentage"], 43.0);
    assert_eq!(v["readings"].as_array().unwrap().len(), 2);
}

#[test]
fn threshold_fires_one_detached_handoff_per_session() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-74.json");
    // A few ticks in a row, then several at once.
    for _ in 0..3 {
        assert!(tick(&p, &payload).contains("⚠ CTX 74%"));
    }
    let bin = crate::common::forge_bin();
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut c = std::process::Command::new(&bin);
            c.arg("statusline")
                .current_dir(&p.root)
                .env("HOME", &p.home)
                .env("XDG_CONFIG_HOME", &p.xdg)
                .env_remove("XDG_STATE_HOME")
                .env("NO_COLOR", "1")
                .env_remove("CLAUDE_PROJECT_DIR")
                .env_remove("CLAUDE_CONFIG_DIR")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped());
            let mut child = c.spawn().unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            child
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("⚠ CTX 74%"));
    }
    let global = p.home.join(".claude/pending-resume");
    wait_for("handoff and both markers", || {
        p.session_handoffs().len() == 1
            && global.exists()
            && p.forge_dir().join("pending-resume").exists()
    });
    // Give any wrongly spawned second handoff time to show up.
    std::thread::sleep(Duration::from_millis(1500));
    let files = p.session_handoffs();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("trigger: context-threshold\n"), "{text}");
    assert!(text.contains(&format!("session_id: {S74}\n")), "{text}");
    assert!(
        text.contains("context_used_pct: 74\nlevel: L1\nbranch: main\n"),
        "{text}"
    );
    // Both markers name the handoff; the project's says it was written
    // automatically (so the next session loads it only while it is recent), the
    // global one holds the bare path (the seed's format).
    let expected = format!("{}\nauto\n", files[0].display());
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        format!("{}\n", files[0].display())
    );
    assert_eq!(p.read(".forge/pending-resume"), expected);
    let flag = p.read(".forge/logs/context-threshold-triggered");
    assert_eq!(flag.trim(), S74);
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    assert!(v["threshold_crossed_at"].is_string());
    wait_for("handoff_written_at recorded", || {
        let v: serde_json::Value =
            serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
        v["handoff_written_at"].is_string()
    });

    // Another session in the same project fires its own.
    let other = payload.replace(S74, "0b8f5a61-0000-4000-8000-000000000001");
    tick(&p, &other);
    wait_for("second session's handoff", || {
        p.session_handoffs().len() == 2
    });

    // Hovering just under the threshold does not re-arm; falling well below it (a
    // compaction) does, and the next crossing is a new one with its own handoff.
    tick(
        &p,
        &payload.replace("\"used_percentage\": 74", "\"used_percentage\": 65"),
    );
    tick(&p, &payload);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(p.session_handoffs().len(), 2, "65% is not a new crossing");
    tick(
        &p,
        &payload.replace("\"used_percentage\": 74", "\"used_percentage\": 20"),
    );
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    assert!(v["threshold_crossed_at"].is_null(), "{v}");
    tick(&p, &payload);
    wait_for("a handoff for the new crossing", || {
        p.session_handoffs().len() == 3
    });
}

/// `--dry-run` (how to try the line by hand): the same line, and no state written —
/// no bridge, no guard, no handoff, no log line — even at the threshold; the same
/// payload without it fires, so the test can fail.
#[test]
fn a_dry_run_prints_the_line_and_writes_nothing() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-74.json");
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    // The Signal count's cache (`logs/signal-cache.txt`) is a cache, not state.
    let listing = |dir: &Path| -> Vec<PathBuf> {
        let mut all = walk(dir);
        all.retain(|p| !p.ends_with("signal-cache.txt"));
        all
    };
    let before = listing(&p.forge_dir());
    for args in [
        &["statusline", "--dry-run"][..],
        &["statusline", "--dry-run", "--wrap", "echo X"],
    ] {
        let out = common::ok_stdout(p.forge().args(args).write_stdin(payload.clone()));
        assert!(out.contains("⚠ CTX 74%"), "{out}");
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(listing(&p.forge_dir()), before);
    assert!(p.session_handoffs().is_empty());
    assert!(tick(&p, &payload).contains("⚠ CTX 74%"));
    wait_for("the threshold handoff", || !p.session_handoffs().is_empty());
    assert!(
        p.forge_dir()
            .join(format!("logs/sessions/{S74}.json"))
            .exists()
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out.sort();
    out
}

#[test]
fn below_threshold_never_fires() {
    let p = TestProject::new();
    tick(&p, &p.payload("statusline/used-42.json"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(p.session_handoffs().is_empty());
    assert!(
        !p.forge_dir()
            .join("logs/context-threshold-triggered")
            .exists()
    );
}

#[test]
fn transcript_tail_fills_in_when_the_payload_has_no_figure() {
    let p = TestProject::new();
    let payload = p.payload("statusline/session-start-nulls.json");
    let v: serde_json::Value = serde_json::from_str(&payload).unwrap();
    let transcript = PathBuf::from(v["transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    std::fs::copy(
        common::fixtures().join("transcripts/compact-excerpt.jsonl"),
        &transcript,
    )
    .unwrap();
    let line = tick(&p, &payload);
    assert!(line.contains(" 12%"), "{line}");
}

#[test]
fn zero_usage_after_compaction_shows_the_estimate_and_records_no_zero_reading() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-42.json");
    tick(&p, &payload);
    let mut v: serde_json::Value = serde_json::from_str(&payload).unwrap();
    let transcript = PathBuf::from(v["transcript_path"].as_str().unwrap());
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    // The compaction's boundary, newer than any usage: ~2% of 200k.
    std::fs::write(
        &transcript,
        r#"{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"manual","preTokens":84000,"postTokens":3258}}
"#,
    )
    .unwrap();
    v["context_window"]["used_percentage"] = serde_json::json!(0);
    v["context_window"]["current_usage"] = serde_json::json!({"input_tokens":0,
        "output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0});
    let line = tick(&p, &v.to_string());
    assert!(line.contains(" ~2%"), "{line}");
    // Without the boundary: unknown, and nothing recorded.
    std::fs::write(&transcript, "").unwrap();
    let line = tick(&p, &v.to_string());
    assert!(line.contains(" ?%") && !line.contains(" 0%"), "{line}");
    let bridge: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S42}.json"))).unwrap();
    let readings = bridge["readings"].as_array().unwrap();
    assert!(
        readings.iter().all(|r| r["tokens"] != 0 && r["pct"] != 0.0),
        "{bridge}"
    );
    assert_eq!(readings.last().unwrap()["tokens"], 3258);
    assert_eq!(bridge["used_percentage"], 2.0);
}

#[test]
fn signals_task_and_learn_segments_read_state_files() {
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    p.add_handoff_fixture("agent-T-010-20261120-170944.md");
    p.write(
        ".forge/state.json",
        r#"{"phase":"build","build":{"current_task":"T-012"}}"#,
    );
    p.write(".forge/logs/learn-pending", "");
    let line = tick(&p, &p.payload("statusline/used-42.json"));
    assert!(
        line.contains("│ build T-012 │ ⚑1 blocked │ ✎ learn"),
        "{line}"
    );
}

#[test]
fn among_many_handoffs_a_new_signal_reaches_the_status_line() {
    let p = TestProject::new();
    // More handoffs than a tick rebuilds the count from (store::handoffs'
    // TICK_REBUILD_CAP of cache bytes): the first tick has no cache and builds it.
    for i in 0..300 {
        p.write(
            &format!(".forge/handoffs/agent-Q-{i}-20261121-100000.md"),
            "no signal\n",
        );
    }
    let payload = p.payload("statusline/used-42.json");
    let line = tick(&p, &payload);
    assert!(!line.contains("blocked"), "{line}");
    // A new blocked Signal is counted: by this tick or, when the tick shows the
    // last count, by the detached recount it starts (forge statusline
    // --recount-signals), which a later tick reads.
    std::thread::sleep(Duration::from_millis(2500));
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    wait_for("a tick counts the new Signal", || {
        tick(&p, &payload).contains("⚑1 blocked")
    });
}

#[test]
fn control_characters_never_reach_the_terminal() {
    let p = TestProject::new();
    p.write(
        ".forge/state.json",
        r#"{"phase":"build\r\n","task":"T-9\nsecond line\u001b[2J\u0007"}"#,
    );
    let payload = p
        .payload("statusline/used-42.json")
        .replace("\"Sonnet 4.6\"", "\"Sonnet\\n4.6\\u001b]0;title\\u0007\"");
    let line = tick(&p, &payload);
    assert_eq!(line.matches('\n').count(), 1, "{line:?}");
    assert!(line.ends_with('\n'), "{line:?}");
    assert!(!line.contains(['\r', '\x1b', '\x07']), "{line:?}");
    // Escape sequences go whole, their payload too.
    assert!(line.starts_with("Sonnet 4.6 │ "), "{line:?}");
    assert!(line.ends_with("│ build T-9 second line\n"), "{line:?}");
}

#[test]
fn a_derived_69_5_percent_is_70_everywhere() {
    let p = TestProject::new();
    // No used_percentage: 139,000 of 200,000 tokens from current_usage.
    let payload = p
        .payload("statusline/used-74.json")
        .replace("\"used_percentage\": 74", "\"used_percentage\": null")
        .replace(
            "\"cache_read_input_tokens\": 145684",
            "\"cache_read_input_tokens\": 136684",
        );
    let line = tick(&p, &payload);
    assert!(line.contains("░░░ ⚠ CTX 70% L1"), "{line}");
    assert_eq!(line.matches("70%").count(), 1, "{line}");
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    assert_eq!(v["used_percentage"], 70.0);
    assert_eq!(v["tokens"], 139_000);
    // The threshold handoff fires, and records the same figure.
    wait_for("the threshold handoff", || p.session_handoffs().len() == 1);
    let doc = std::fs::read_to_string(&p.session_handoffs()[0]).unwrap();
    assert!(doc.contains("context_used_pct: 70\nlevel: L1\n"), "{doc}");
}

#[test]
fn optional_segments_come_from_the_config_and_the_payload() {
    let p = TestProject::new();
    // Off by default.
    let line = tick(&p, &p.payload("statusline/used-42.json"));
    assert!(!line.contains('$') && !line.contains("5h "), "{line}");
    p.write(
        ".forge/config.toml",
        "[statusline]\nsegments = [\"context\", \"cost\", \"duration\", \"lines\", \"limits\"]\n",
    );
    let soon = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3700;
    let payload = p.payload("statusline/used-42.json").replace(
        "\"resets_at\": 1795239600",
        &format!("\"resets_at\": {soon}"),
    );
    let line = tick(&p, &payload);
    assert_eq!(
        line,
        "████░░░░░░ 42% │ $1.87 │ ⏱ 45m │ +356 −41 │ 5h 24% ↻1h01m · 7d 41%\n"
    );
    // Garbage in those fields leaves the segments out, never `NaN` or `$-1`.
    let garbage = payload
        .replace("\"total_cost_usd\": 1.8734", "\"total_cost_usd\": -1")
        .replace(
            "\"total_duration_ms\": 2710345",
            "\"total_duration_ms\": \"2h\"",
        )
        .replace("\"total_lines_added\": 356", "\"total_lines_added\": null")
        .replace(
            "\"total_lines_removed\": 41",
            "\"total_lines_removed\": null",
        )
        .replace("\"rate_limits\": {", "\"rate_limits_gone\": {");
    let line = tick(&p, &garbage);
    assert_eq!(line, "████░░░░░░ 42%\n");
    // Narrow: the reset time goes first, the context stays.
    let narrow = common::ok_stdout(
        p.forge()
            .arg("statusline")
            .env("COLUMNS", "50")
            .write_stdin(payload),
    );
    assert!(!narrow.contains('↻'), "{narrow}");
    assert!(
        narrow.contains("42% │ ") && narrow.contains("5h 24%"),
        "{narrow}"
    );
}

/// A value a key does not take (a segment forge does not know): the status line is
/// drawn from the defaults and the error, which says what the key takes, goes to
/// `errors.log`; `forge config validate` says it and fails.
#[test]
fn a_segment_forge_does_not_know_leaves_the_defaults_and_says_what_it_knows() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-42.json");
    let before = tick(&p, &payload);
    assert!(p.forge_dir().join("logs").is_dir());
    p.write(
        ".forge/config.toml",
        "[statusline]\nsegments = [\"context\", \"price\"]\nbar_width = 20\n",
    );
    assert_eq!(
        tick(&p, &payload),
        before,
        "the defaults, bar width included"
    );
    let known: Vec<&str> = forge::model::segment::Segment::ALL
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(known[..3], ["model", "project", "git"]);
    let want = format!(
        "`statusline.segments` has unknown segment \"price\" (known: {})",
        known.join(", ")
    );
    let errors = p.read(".forge/logs/errors.log");
    assert!(errors.contains(&want), "{errors}");
    let out = p.forge().args(["config", "validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&want),
        "{out:?}"
    );
}

// ----- composition mode: `forge statusline --wrap '<cmd>'` -----------------------------------

fn wrapped(p: &TestProject, command: &str, payload: &str) -> String {
    common::ok_stdout(
        p.forge()
            .args(["statusline", "--wrap", command])
            .env("COLUMNS", "120")
            .write_stdin(payload.to_owned()),
    )
}

/// The other command gets the same stdin, its output comes first and forge's
/// segments follow it; at the threshold forge still says `⚠ CTX` and writes the
/// handoff.
#[test]
fn a_wrapped_status_line_shows_the_other_output_and_forge_still_fires_the_handoff() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-74.json");
    // The other command reads the payload (it echoes the session id back).
    let other = "sid=$(sed -n 's/.*\"session_id\": *\"\\([^\"]*\\)\".*/\\1/p' | head -n1); printf 'OTHER %s\\n' \"$sid\"";
    let out = wrapped(&p, other, &payload);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].starts_with(&format!("OTHER {S74} │ ")), "{out}");
    assert!(lines[0].contains("⚠ CTX 74% L1"), "{out}");
    // Only forge's own segments by default: no second model or branch.
    assert!(
        !lines[0].contains("Opus") && !lines[0].contains("⎇"),
        "{out}"
    );
    wait_for("the threshold handoff", || !p.session_handoffs().is_empty());
    // The forge-only flags (--plain) combine with --wrap, in either order.
    let out = common::ok_stdout(
        p.forge()
            .args(["statusline", "--wrap=echo X", "--plain"])
            .write_stdin(payload.clone()),
    );
    assert!(out.starts_with("X │ "), "{out}");
}

/// What the other command prints is data: colour stays, every other escape and
/// control character goes; a failing command shows nothing of its own (as Claude
/// Code would), forge's part stays; positions from the config.
#[test]
fn the_other_output_is_cleaned_and_forge_goes_where_the_config_says() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-42.json");
    let out = common::ok_stdout(
        p.forge()
            .args([
                "statusline",
                "--wrap",
                "printf '\\033[32mgreen\\033[0m \\033]0;title\\007\\033[2Jdone\\n\\n  second  \\n'",
            ])
            .env_remove("NO_COLOR")
            .env("COLUMNS", "120")
            .write_stdin(payload.clone()),
    );
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("\x1b[32mgreen\x1b[0m done\x1b[0m"),
        "{out:?}"
    );
    assert!(
        !out.contains("title") && !out.contains("\x1b[2J"),
        "{out:?}"
    );
    assert_eq!(out.lines().nth(1), Some("second"), "{out:?}");
    let out = wrapped(&p, "echo partial; exit 1", &payload);
    assert!(!out.contains("partial"), "{out}");
    assert!(out.contains("42%"), "{out}");
    p.write(
        ".forge/config.toml",
        "[statusline]\nwrap_position = \"line\"\nwrap_segments = [\"context\", \"git\"]\n",
    );
    let out = wrapped(&p, "echo OTHER", &payload);
    assert_eq!(out.lines().next(), Some("OTHER"), "{out}");
    let second = out.lines().nth(1).unwrap();
    assert!(second.contains("42%") && second.contains("⎇ main"), "{out}");
    p.write(
        ".forge/config.toml",
        "[statusline]\nwrap_position = \"before\"\n",
    );
    let out = wrapped(&p, "echo OTHER", &payload);
    assert!(out.trim_end().ends_with(" │ OTHER"), "{out}");
    assert!(out.contains("42%"), "{out}");
}

/// The other command's time is bounded: at the deadline its whole process group is
/// killed (a child it left in the background too) and forge's part is printed.
#[test]
fn a_slow_wrapped_command_is_killed_with_its_group_at_the_deadline() {
    let p = TestProject::new();
    let late = p.dir.path().join("late");
    let cmd = format!(
        "(sleep 3; touch '{}') & echo early; sleep 30",
        late.display()
    );
    let started = Instant::now();
    let out = wrapped(&p, &cmd, &p.payload("statusline/used-42.json"));
    let took = started.elapsed();
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(
        !out.contains("early"),
        "a timed-out command shows nothing: {out}"
    );
    assert!(out.contains("42%"), "{out}");
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        !late.exists(),
        "the command's background child outlived the deadline"
    );
}

/// The rule that sets the mark: a threshold handoff (the one the line starts) marks
/// the session; the rule that clears it: the next tick shows `✎ handoff` once and
/// drops it, so the tick after shows none. A handoff by hand marks nothing.
#[test]
fn the_line_marks_a_threshold_handoff_for_one_tick_then_drops_it() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-74.json");
    let bridge = p.forge_dir().join(format!("logs/sessions/{S74}.json"));
    let first = tick(&p, &payload);
    assert!(!first.contains('✎'), "{first}");
    wait_for("the threshold handoff's mark in the bridge", || {
        std::fs::read_to_string(&bridge)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v["handoff_mark"].is_string())
    });
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    let files = p.session_handoffs();
    assert_eq!(
        v["handoff_mark"],
        files[0].file_name().unwrap().to_string_lossy().as_ref()
    );
    let marked = tick(&p, &payload);
    assert!(marked.contains("⚠ CTX 74% L1 ✎ handoff"), "{marked}");
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    assert!(
        v["handoff_mark"].is_null(),
        "cleared by the tick that showed it: {v}"
    );
    let after = tick(&p, &payload);
    assert!(!after.contains('✎'), "{after}");
    // A handoff a person asks for is theirs: no mark.
    p.forge()
        .args(["handoff", "--session", S74])
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&p.read(&format!(".forge/logs/sessions/{S74}.json"))).unwrap();
    assert!(v["handoff_mark"].is_null(), "{v}");
    assert!(!tick(&p, &payload).contains('✎'));
}

/// The pace segment from the readings the line keeps in the session's bridge: a
/// first tick has no pace (no reading old enough), records its reading; with an
/// earlier reading of the same window 20 minutes back, the rise says when the
/// window runs out, before its reset.
#[test]
fn the_pace_comes_from_the_readings_kept_in_the_bridge() {
    let p = TestProject::new();
    p.write(
        ".forge/config.toml",
        "[statusline]\nsegments = [\"context\", \"pace\"]\n",
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let reset = now + 3900;
    let payload = |pct: f64| {
        serde_json::json!({
            "session_id": S42, "cwd": p.root,
            "context_window": {"used_percentage": 30, "context_window_size": 200_000},
            "rate_limits": {"five_hour": {"used_percentage": pct, "resets_at": reset},
                            "seven_day": {"used_percentage": 41.2, "resets_at": now + 86_400 * 3}}
        })
        .to_string()
    };
    let first = tick(&p, &payload(50.0));
    assert!(
        first.contains("5h 50% (resets 1h05) · 7d 41% (resets 3d00)"),
        "{first}"
    );
    let bridge = format!(".forge/logs/sessions/{S42}.json");
    let v: serde_json::Value = serde_json::from_str(&p.read(&bridge)).unwrap();
    assert_eq!(v["quota_5h"][0]["pct"], 50.0, "{v}");
    assert_eq!(v["quota_5h"][0]["resets_at"], reset);
    // Move that reading 20 minutes back: 50 → 62 % in 20 minutes is 0.6 % a
    // minute; 38 % left takes 64 minutes, before the reset.
    let mut v = v;
    v["quota_5h"][0]["at"] = serde_json::json!(now - 1200);
    p.write(&bridge, &v.to_string());
    let line = tick(&p, &payload(62.0));
    assert!(line.contains("5h 62% ↗ out in 1h04"), "{line}");
    assert!(line.contains("(resets 1h05)"), "{line}");
    let v: serde_json::Value = serde_json::from_str(&p.read(&bridge)).unwrap();
    assert_eq!(v["quota_5h"].as_array().unwrap().len(), 2, "{v}");
}

/// A wrapped status line that fails or runs past its deadline is said in the event
/// log, with its exit status or the deadline, once per change; printing again
/// clears the mark, so the next failure is said again.
#[test]
fn a_failing_or_slow_wrapped_command_is_logged_with_its_status_or_deadline() {
    let p = TestProject::new();
    let payload = p.payload("statusline/used-42.json");
    std::fs::create_dir_all(p.forge_dir().join("logs")).unwrap();
    let logged = |p: &TestProject| -> Vec<String> {
        std::fs::read_to_string(p.forge_dir().join("logs/events.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["event"] == "statusline")
            .filter_map(|v| v["outcomes"][0]["message"].as_str().map(str::to_owned))
            .collect()
    };
    for _ in 0..3 {
        let line = wrapped(&p, "echo half; exit 3", &payload);
        assert!(line.contains("42%") && !line.contains("half"), "{line}");
    }
    assert_eq!(
        logged(&p),
        [
            "your wrapped status line `echo half; exit 3` exited with status 3: forge showed only its own segments"
        ]
    );
    wrapped(&p, "sleep 5", &payload);
    assert_eq!(logged(&p).len(), 2);
    assert!(
        logged(&p)[1].ends_with("`sleep 5` did not finish within its 2 s deadline (its process group was stopped): forge showed only its own segments"),
        "{:?}",
        logged(&p)
    );
    // It prints again: the mark goes; the same failure later is said again.
    assert!(wrapped(&p, "echo fine", &payload).starts_with("fine │"));
    assert!(!p.forge_dir().join("logs/wrap-failed.txt").exists());
    wrapped(&p, "echo half; exit 3", &payload);
    assert_eq!(logged(&p).len(), 3);
    let log = common::ok_stdout(p.forge().arg("log"));
    assert!(log.contains("exited with status 3"), "{log}");
}
