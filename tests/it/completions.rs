//! Process tests for dynamic completion (`COMPLETE=<shell> forge -- forge …`, as
//! clap_complete's env completer is called by the shell scripts it registers) and
//! for the manual's FILES, ENVIRONMENT and KEYS sections.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::TestProject;

/// The candidates fish gets for the last word of `words` (value, help).
fn fish(p: &TestProject, words: &[&str]) -> Vec<(String, String)> {
    let out = p
        .forge()
        .env("COMPLETE", "fish")
        .arg("--")
        .arg("forge")
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{words:?}: {out:?}");
    assert!(out.stderr.is_empty(), "{words:?}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (v, h) = l.split_once('\t').unwrap_or((l, ""));
            (v.to_owned(), h.to_owned())
        })
        .collect()
}

/// Just the values, without the flags clap adds for an empty word.
fn values(p: &TestProject, words: &[&str]) -> Vec<String> {
    fish(p, words)
        .into_iter()
        .map(|(v, _)| v)
        .filter(|v| !v.starts_with('-'))
        .collect()
}

/// A project with three handoffs, a stray file and two session bridges.
fn project() -> TestProject {
    let p = TestProject::new();
    for name in [
        "handoff-20261121-094500.md",
        "agent-T-012-20261121-101502.md",
        "agent-T-010-20261120-170944.md",
    ] {
        p.add_handoff_fixture(name);
    }
    p.write(".forge/handoffs/notes.txt", "not a handoff");
    p.write(
        ".forge/logs/sessions/3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21.json",
        r#"{"session_id":"3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21","model":"Sonnet 4.6",
            "used_percentage":42,"attention":"waiting:input","updated_at":"2026-11-21T10:00:00Z"}"#,
    );
    p.write(
        ".forge/logs/sessions/c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354.json",
        r#"{"session_id":"c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354","model":"Opus 4.6",
            "used_percentage":74,"updated_at":"2026-11-21T11:00:00Z"}"#,
    );
    p
}

#[test]
fn resume_completes_handoff_file_names_newest_first() {
    let p = project();
    let got = fish(&p, &["resume", ""]);
    let handoffs: Vec<&(String, String)> =
        got.iter().filter(|(v, _)| !v.starts_with('-')).collect();
    let names: Vec<&str> = handoffs.iter().map(|(v, _)| v.as_str()).collect();
    assert_eq!(
        names,
        [
            "agent-T-012-20261121-101502.md",
            "handoff-20261121-094500.md",
            "agent-T-010-20261120-170944.md"
        ]
    );
    assert!(
        handoffs[0].1.starts_with("agent handoff for T-012, "),
        "{got:?}"
    );
    assert!(handoffs[1].1.starts_with("session handoff, "), "{got:?}");
    // The flags are still offered for an empty word.
    assert!(got.iter().any(|(v, _)| v == "--latest"), "{got:?}");
    // A prefix narrows them.
    assert_eq!(
        values(&p, &["resume", "hand"]),
        ["handoff-20261121-094500.md"]
    );
    assert_eq!(
        values(&p, &["resume", "agent-T-01"]),
        [
            "agent-T-012-20261121-101502.md",
            "agent-T-010-20261120-170944.md"
        ]
    );
    // What is completed is what resume accepts.
    let first = &names[0];
    p.forge().args(["resume", first]).assert().success();
    // A word with a `/` completes as a path: folders and handoff files only.
    assert_eq!(
        values(&p, &["resume", ".forge/handoffs/h"]),
        [".forge/handoffs/handoff-20261121-094500.md"]
    );
    assert!(values(&p, &["resume", ".forge/"]).contains(&".forge/handoffs/".to_owned()));
    assert!(values(&p, &["resume", ".forge/handoffs/n"]).is_empty());
}

#[test]
fn bash_gets_the_same_candidates_at_its_cursor_index() {
    let p = project();
    let out = p
        .forge()
        .env("COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "2")
        .env("_CLAP_IFS", "\n")
        .args(["--", "forge", "resume", "agent"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "agent-T-012-20261121-101502.md\nagent-T-010-20261120-170944.md"
    );
}

#[test]
fn session_options_complete_session_ids_most_recent_first() {
    let p = project();
    for cmd in ["handoff", "context"] {
        let got = fish(&p, &[cmd, "--session", ""]);
        assert_eq!(
            got,
            [
                (
                    "c41d7e02-5f3a-4b9e-a8c6-2e7d91f0b354".to_owned(),
                    got[0].1.clone()
                ),
                (
                    "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21".to_owned(),
                    got[1].1.clone()
                ),
            ],
            "{cmd}"
        );
        assert!(got[0].1.starts_with("Opus 4.6, 74%, updated "), "{got:?}");
        assert!(
            got[1]
                .1
                .starts_with("Sonnet 4.6, waiting:input, 42%, updated "),
            "{got:?}"
        );
    }
    assert_eq!(
        values(&p, &["context", "--session", "3f"]),
        ["3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21"]
    );
}

#[test]
fn hook_completes_event_names_and_man_command_names() {
    let p = TestProject::new();
    assert_eq!(
        values(&p, &["hook", ""]),
        [
            "SessionStart",
            "Stop",
            "SessionEnd",
            "PreCompact",
            "PostCompact",
            "PreToolUse",
            "Notification",
            "PermissionRequest",
            "UserPromptSubmit"
        ]
    );
    assert_eq!(values(&p, &["hook", "Pre"]), ["PreCompact", "PreToolUse"]);
    assert_eq!(values(&p, &["man", "st"]), ["statusline", "status"]);
}

#[test]
fn completion_is_quiet_and_empty_without_a_forge_folder() {
    let p = TestProject::bare_folder();
    for words in [
        &["resume", ""][..],
        &["resume", "handoff-"],
        &["handoff", "--session", ""],
        &["context", "--session", "x"],
    ] {
        // `fish` asserts exit 0 and an empty stderr.
        assert!(values(&p, words).is_empty(), "{words:?}");
    }
    assert!(
        !p.root.join(".forge").exists(),
        "completion created nothing"
    );
}

#[test]
fn complete_in_the_environment_never_hijacks_a_hook_or_the_status_line() {
    let p = TestProject::new();
    // The hook's output is what it always is (nothing for Stop on a clean tree).
    let out = p
        .forge()
        .env("COMPLETE", "bash")
        .args(["hook", "Stop"])
        .write_stdin(r#"{"session_id":"s1","hook_event_name":"Stop"}"#)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("complete"),
        "{out:?}"
    );
    let line = common::ok_stdout(
        p.forge()
            .env("COMPLETE", "bash")
            .arg("statusline")
            .write_stdin(p.payload("statusline/used-42.json")),
    );
    assert!(
        line.contains(" 42%") && !line.contains("complete"),
        "{line}"
    );
    // Other commands too: only `forge` alone or `forge -- …` is a completion request.
    common::ok_stdout(p.forge().env("COMPLETE", "bash").args(["config", "path"]));
    // COMPLETE=0 or empty: an ordinary run.
    let out = p.forge().env("COMPLETE", "0").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "usage error, as without COMPLETE"
    );
}

#[test]
fn the_bash_registration_completes_in_a_real_bash() {
    let p = project();
    let forge = crate::common::forge_bin();
    // Source the registration as ~/.bashrc would, then call the function bash
    // would call for `forge resume agent-T-01<TAB>` and print what it offers.
    let script = format!(
        r#"source <(COMPLETE=bash '{}')
COMP_WORDS=(forge resume agent-T-01); COMP_CWORD=2; COMP_TYPE=9
_clap_complete_forge forge agent-T-01 resume
printf '%s\n' "${{COMPREPLY[@]}}""#,
        forge.display()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(&p.root)
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", &p.xdg)
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "agent-T-012-20261121-101502.md\nagent-T-010-20261120-170944.md\n",
        "{out:?}"
    );
    // The static script is still there for those who prefer a file.
    let text = common::ok_stdout(p.forge().args(["completions", "bash"]));
    assert!(
        text.contains("_forge()") && text.contains("complete -F _forge"),
        "{text}"
    );
}

/// What clap_mangen's roff writer makes of plain text.
fn roff(text: &str) -> String {
    text.replace('\\', "\\\\").replace('-', "\\-")
}

#[test]
fn the_manual_has_files_environment_and_every_dashboard_key() {
    let p = TestProject::new();
    let page = common::ok_stdout(p.forge().arg("man"));
    for head in [".SH FILES", ".SH ENVIRONMENT", ".SS Keys"] {
        assert!(page.contains(head), "{head}");
    }
    let section = |head: &str, next: &str| {
        let start = page.find(head).unwrap();
        let end = start + page[start..].find(next).unwrap();
        page[start..end].to_owned()
    };
    let files = section(".SH FILES", ".SH ENVIRONMENT");
    for path in [
        ".forge/config.toml",
        ".forge/state.json",
        ".forge/pending-resume",
        "~/.claude/pending-resume",
        ".forge/logs/sessions/<session_id>.json",
        ".forge/logs/last-session.json",
        ".forge/handoffs/handoff-YYYYMMDD-HHMMSS.md",
        "$XDG_CONFIG_HOME/forge/config.toml",
        "$XDG_STATE_HOME/forge/projects.json",
    ] {
        assert!(files.contains(&roff(path)), "{path}:\n{files}");
    }
    let env = section(".SH ENVIRONMENT", ".SH VERSION");
    for var in [
        "NO_COLOR",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_PROJECT_DIR",
        "COLUMNS",
        "LINES",
        "COMPLETE",
    ] {
        assert!(
            env.contains(&format!("\\fB{var}")) || env.contains(&format!(", {var}")),
            "{var}:\n{env}"
        );
    }
    // Every binding of the dashboard's KEYMAP, every key of it, with its text.
    let keys = section(".SS Keys", ".SH \"FORGE STATUS\"");
    for b in forge::model::dashboard::KEYMAP {
        let names: Vec<String> = b
            .keys
            .iter()
            .map(|k| forge::cli::man::key_name(*k))
            .collect();
        let entry = format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            roff(&names.join(", ")),
            roff(b.desc)
        );
        assert!(keys.contains(&entry), "{entry}\n{keys}");
    }
    // `forge man tui` carries them as its own section.
    let tui = common::ok_stdout(p.forge().args(["man", "tui"]));
    assert!(tui.contains(".SH KEYS"), "{tui}");
    assert!(tui.contains("\\fBEsc\\fR\ntwice: quit"), "{tui}");
}

#[test]
fn completion_help_shows_local_times_and_never_now_ago() {
    let p = TestProject::new();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    // Updated in the future (a clock that ran ahead): "just now", not "now ago".
    p.write(
        ".forge/logs/sessions/3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21.json",
        r#"{"session_id":"3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21","updated_at":"2999-01-01T00:00:00Z"}"#,
    );
    let help = |words: &[&str]| {
        let out = p
            .forge()
            .env("COMPLETE", "fish")
            // UTC+9 (POSIX writes the offset west of Greenwich).
            .env("TZ", "JST-9")
            .arg("--")
            .arg("forge")
            .args(words)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let sessions = help(&["context", "--session", ""]);
    assert!(sessions.contains("\tupdated just now"), "{sessions}");
    assert!(!sessions.contains("now ago"), "{sessions}");
    // The handoff's stamp (10:15 UTC) in local time.
    let handoffs = help(&["resume", ""]);
    assert!(
        handoffs.contains("agent-T-012-20261121-101502.md\tagent handoff for T-012, 11-21 19:15"),
        "{handoffs}"
    );
}
