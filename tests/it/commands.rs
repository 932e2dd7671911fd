//! Process tests for the setup and workflow commands: init, doctor, config, signal,
//! resume, learn, completions and man. Each runs the real binary in a temporary git
//! project with HOME and XDG_CONFIG_HOME in temporary folders.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::{TestProject, ok_stdout};
use forge::model::handoff::signal::{SignalStatus, parse_signal};
use forge::model::setup::memory::project_dir_name;
use forge::model::setup::settings::{
    FORGE_EVENTS, command_hooks, guarded_hook, guarded_statusline, hook_entry, is_forge_command,
    statusline_command,
};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

const FOREIGN_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(cargo test:*)"]},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "~/.golem/hooks/stop.sh"}]},
      {"hooks": [{"type": "command", "command": "bash", "args": ["${CLAUDE_PROJECT_DIR}/scripts/gone.sh"]}]},
      {"matcher": "", "hooks": [{"type": "command", "command": "/bin/sh -c true"}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]
  },
  "env": {"RUST_LOG": "info"}
}
"#;

fn settings(p: &TestProject) -> Value {
    serde_json::from_str(&p.read(".claude/settings.json")).unwrap()
}

fn forge_exe() -> PathBuf {
    crate::common::forge_bin()
}

fn memory_dir(p: &TestProject) -> PathBuf {
    p.home
        .join(".claude/projects")
        .join(project_dir_name(&p.root.to_string_lossy()))
        .join("memory")
}

/// Backups `forge init` kept of project files, sorted.
fn backups(p: &TestProject) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p.forge_dir().join("backups"))
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The mode a newly created file gets in this process: `0666 & !umask`.
#[cfg(unix)]
fn new_file_mode() -> u32 {
    let umask = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022);
    0o666 & !umask
}

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ----- init ---------------------------------------------------------------------

#[test]
fn init_dry_run_shows_diff_and_writes_nothing() {
    let p = TestProject::new();
    p.write(".claude/settings.json", FOREIGN_SETTINGS);
    let out = p.forge().args(["init", "--dry-run"]).output().unwrap();
    assert!(out.status.success());
    let text = stdout_of(&out);
    assert!(
        text.starts_with(&format!(
            "Dry run for the project {}: nothing was written.",
            p.root.display()
        )),
        "{text}"
    );
    assert!(text.contains("--- .claude/settings.json"), "{text}");
    assert!(
        text.contains("+++ .claude/settings.json (after forge init)"),
        "{text}"
    );
    assert!(text.contains("@@ "), "{text}");
    assert!(text.contains("hook SessionStart"), "{text}");
    assert!(text.contains("-      {\"hooks\": [{\"type\": \"command\", \"command\": \"bash\", \"args\": [\"${CLAUDE_PROJECT_DIR}/scripts/gone.sh\"]}]},"), "{text}");
    // A minimal diff: the kept hook is context, untouched keys are not in it, and
    // new entries are written like their neighbours (one line per hook group).
    assert!(
        text.contains(
            "\n       {\"hooks\": [{\"type\": \"command\", \"command\": \"~/.golem/hooks/stop.sh\"}]},\n"
        ),
        "kept: {text}"
    );
    assert!(!text.contains("\"command\": \"bash\"}"), "{text}");
    for line in text
        .lines()
        .filter(|l| l.starts_with('+') || l.starts_with('-'))
    {
        assert!(
            !line.contains("model") && !line.contains("permissions"),
            "{line} in {text}"
        );
    }
    assert!(
        text.contains(&format!(
            "+      {{\"hooks\": [{{\"type\": \"command\", \"command\": \"{}\"}}]}}\n",
            hook_entry(&forge_exe().display().to_string(), "PreCompact")
        )),
        "{text}"
    );
    assert!(text.contains("+.forge/"), "{text}");
    assert!(text.contains("Would remove"), "{text}");
    assert!(text.contains("Warning: would keep"), "{text}");
    assert_eq!(p.read(".claude/settings.json"), FOREIGN_SETTINGS);
    assert!(!p.root.join(".claude/settings.json.bak").exists());
    assert!(backups(&p).is_empty());
    assert!(!p.root.join(".gitignore").exists());
    assert!(!p.forge_dir().exists());
}

#[test]
fn init_keeps_foreign_removes_dead_backs_up_and_is_idempotent() {
    let p = TestProject::new();
    p.write(".claude/settings.json", FOREIGN_SETTINGS);
    p.write(".gitignore", "target");
    let out = p.forge().arg("init").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = stdout_of(&out);
    // The dead script inside the project is removed; the one under ~ may exist on a
    // teammate's machine (the project settings are shared), so it is only warned about.
    let removed_at = text.find("Removed from .claude/settings.json (script not found):");
    let warned_at = text.find("Warning: kept in .claude/settings.json");
    assert!(removed_at.is_some() && warned_at.is_some(), "{text}");
    let removed = &text[removed_at.unwrap()..warned_at.unwrap()];
    assert!(
        removed.contains("Stop: bash '${CLAUDE_PROJECT_DIR}/scripts/gone.sh'"),
        "{text}"
    );
    assert!(!removed.contains("golem"), "{text}");
    assert!(
        text[warned_at.unwrap()..].contains("Stop: ~/.golem/hooks/stop.sh"),
        "{text}"
    );

    let s = settings(&p);
    let keys: Vec<_> = s.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["model", "permissions", "hooks", "env", "statusLine"]);
    assert_eq!(s["env"]["RUST_LOG"], "info");
    assert_eq!(s["permissions"]["allow"][0], "Bash(cargo test:*)");
    let hooks = command_hooks(&s);
    assert!(
        hooks
            .iter()
            .any(|h| h.command == "/bin/sh -c true" && h.event == "Stop")
    );
    assert!(
        hooks
            .iter()
            .any(|h| h.command == "cargo fmt" && h.event == "PostToolUse")
    );
    assert!(hooks.iter().any(|h| h.command.contains("golem")));
    assert!(!hooks.iter().any(|h| h.command == "bash"));
    let exe = forge_exe();
    for event in FORGE_EVENTS {
        let want = hook_entry(&exe.display().to_string(), event);
        assert_eq!(
            hooks
                .iter()
                .filter(|h| h.event == event && h.command == want)
                .count(),
            1,
            "{event}"
        );
    }
    assert_eq!(
        s["statusLine"],
        forge::model::setup::settings::forge_statusline(&exe.display().to_string())
    );
    let baks = backups(&p);
    assert_eq!(baks.len(), 1, "{baks:?}");
    assert_eq!(std::fs::read_to_string(&baks[0]).unwrap(), FOREIGN_SETTINGS);
    assert!(text.contains(".forge/backups/settings.json."), "{text}");
    assert!(p.forge_dir().join("logs").is_dir());
    assert!(p.forge_dir().join("handoffs").is_dir());
    // (Since issue 31 the config may be tracked: `.forge/*` and its exception.)
    assert_eq!(
        p.read(".gitignore"),
        "target\n.forge/*\n!.forge/config.toml\n"
    );

    // Second run: nothing changes.
    let before = p.read(".claude/settings.json");
    p.forge()
        .arg("init")
        .assert()
        .success()
        .stdout(contains("nothing changed"));
    assert_eq!(p.read(".claude/settings.json"), before);
    assert_eq!(backups(&p), baks);
    // (Since issue 31 the config may be tracked: `.forge/*` and its exception.)
    assert_eq!(
        p.read(".gitignore"),
        "target\n.forge/*\n!.forge/config.toml\n"
    );
    // And a dry run now has nothing to show.
    p.forge()
        .args(["init", "--dry-run"])
        .assert()
        .success()
        .stdout(contains("nothing changed"));
}

#[cfg(unix)]
#[test]
fn init_keeps_modes_and_never_overwrites_a_backup() {
    use std::os::unix::fs::PermissionsExt;
    let p = TestProject::new();
    let settings_path = p.write(".claude/settings.json", FOREIGN_SETTINGS);
    std::fs::set_permissions(&settings_path, std::fs::Permissions::from_mode(0o600)).unwrap();
    p.forge().args(["init", "--commands"]).assert().success();
    assert_eq!(mode(&settings_path), 0o600, "the rewrite keeps the mode");
    let baks = backups(&p);
    assert_eq!(baks.len(), 1);
    assert_eq!(
        mode(&baks[0]),
        0o600,
        "a private file gets a private backup"
    );
    for created in [
        ".gitignore",
        ".claude/commands/forge-learn.md",
        ".claude/commands/forge-continue.md",
    ] {
        assert_eq!(mode(&p.root.join(created)), new_file_mode(), "{created}");
    }
    // A fresh settings file is an ordinary file too.
    let q = TestProject::new();
    q.forge().arg("init").assert().success();
    assert_eq!(mode(&q.root.join(".claude/settings.json")), new_file_mode());
    // Each change keeps its own backup: the first one is not overwritten.
    let wired = p.read(".claude/settings.json");
    p.forge().args(["init", "--uninstall"]).assert().success();
    let baks2 = backups(&p);
    assert_eq!(baks2.len(), 2, "{baks2:?}");
    assert!(baks2.contains(&baks[0]));
    assert_eq!(std::fs::read_to_string(&baks[0]).unwrap(), FOREIGN_SETTINGS);
    let newest = baks2.iter().find(|b| **b != baks[0]).unwrap();
    assert_eq!(std::fs::read_to_string(newest).unwrap(), wired);
    // The backups are git-ignored.
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&status.stdout).contains("backups"),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
}

#[test]
fn uninstall_removes_forge_and_nothing_else() {
    let p = TestProject::new();
    p.write(".claude/settings.json", FOREIGN_SETTINGS);
    p.forge().arg("init").assert().success();
    p.forge()
        .args(["init", "--uninstall"])
        .assert()
        .success()
        .stdout(contains("hook SessionStart"));
    let s = settings(&p);
    let hooks = command_hooks(&s);
    assert!(
        hooks.iter().all(|h| !is_forge_command(&h.command)),
        "{hooks:?}"
    );
    assert!(hooks.iter().any(|h| h.command == "/bin/sh -c true"));
    assert!(hooks.iter().any(|h| h.command == "cargo fmt"));
    assert!(statusline_command(&s).is_none());
    assert_eq!(s["model"], "opus");
    assert_eq!(s["env"]["RUST_LOG"], "info");
    // Uninstall does not touch dead hooks of other tools either.
    let p2 = TestProject::new();
    p2.write(".claude/settings.json", FOREIGN_SETTINGS);
    p2.forge()
        .args(["init", "--uninstall"])
        .assert()
        .success()
        .stdout(contains("nothing changed"));
    assert_eq!(p2.read(".claude/settings.json"), FOREIGN_SETTINGS);
}

#[test]
fn init_keeps_a_foreign_statusline_unless_asked() {
    let p = TestProject::new();
    p.write(
        ".claude/settings.json",
        r#"{"statusLine": {"type": "command", "command": "/bin/sh -c 'echo mine'"}}"#,
    );
    p.forge()
        .arg("init")
        .assert()
        .success()
        .stdout(contains("--replace-statusline"));
    assert_eq!(
        statusline_command(&settings(&p)),
        Some("/bin/sh -c 'echo mine'")
    );
    p.forge()
        .args(["init", "--replace-statusline"])
        .assert()
        .success();
    assert!(statusline_command(&settings(&p)).is_some_and(is_forge_command));
}

#[test]
fn init_user_removes_dead_home_scripts_and_backs_up_beside_the_file() {
    let p = TestProject::new();
    let user = p.home.join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, FOREIGN_SETTINGS).unwrap();
    let out = p.forge().args(["init", "--user"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = stdout_of(&out);
    assert!(text.contains("(script not found)"), "{text}");
    assert!(text.contains("Stop: ~/.golem/hooks/stop.sh"), "{text}");
    assert!(!text.contains("Warning: kept"), "{text}");
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    assert!(
        !command_hooks(&s)
            .iter()
            .any(|h| h.command.contains("golem"))
    );
    let baks: Vec<_> = std::fs::read_dir(user.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("settings.json.forge-bak-"))
        .collect();
    assert_eq!(baks.len(), 1, "{baks:?}");
    assert!(text.contains(&baks[0]), "{text}");
}

#[test]
fn init_user_and_commands() {
    let p = TestProject::new();
    p.forge()
        .args(["init", "--user", "--commands"])
        .assert()
        .success();
    let user = p.home.join(".claude/settings.json");
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&user).unwrap()).unwrap();
    assert_eq!(command_hooks(&s).len(), FORGE_EVENTS.len());
    assert!(!p.root.join(".claude/settings.json").exists());
    for name in ["forge-learn.md", "forge-continue.md"] {
        let text = std::fs::read_to_string(p.home.join(".claude/commands").join(name)).unwrap();
        assert!(text.starts_with("---\ndescription:"), "{name}");
    }
    // CLAUDE_CONFIG_DIR replaces ~/.claude.
    let alt = p.dir.path().join("alt-claude");
    p.forge()
        .args(["init", "--user"])
        .env("CLAUDE_CONFIG_DIR", &alt)
        .assert()
        .success();
    assert!(alt.join("settings.json").is_file());
    // Project commands, idempotent.
    p.forge().args(["init", "--commands"]).assert().success();
    assert!(p.root.join(".claude/commands/forge-continue.md").is_file());
    // They run forge by this binary's absolute path (forge need not be on PATH),
    // and allowed-tools allows exactly that.
    let cont = p.read(".claude/commands/forge-continue.md");
    let exe = forge_exe().display().to_string();
    assert!(
        cont.contains(&format!("Run `{exe} resume --print`")),
        "{cont}"
    );
    assert!(
        cont.contains(&format!(
            "allowed-tools: Bash({exe} resume:*), Bash({exe} status:*)"
        )),
        "{cont}"
    );
    assert!(!cont.contains("`forge resume"), "{cont}");
    let learn = p.read(".claude/commands/forge-learn.md");
    assert!(learn.contains(&format!("Bash({exe} learn:*)")), "{learn}");
    p.forge()
        .args(["init", "--commands"])
        .assert()
        .success()
        .stdout(contains("nothing changed"));
    // A copy the user changed is kept by --uninstall, and a dry run says it would be.
    p.write(".claude/commands/forge-continue.md", "my own version\n");
    p.forge()
        .args(["init", "--uninstall", "--commands", "--dry-run"])
        .assert()
        .success()
        .stdout(contains(
            "Would keep .claude/commands/forge-continue.md (you changed it",
        ));
    p.forge().args(["init", "--commands"]).assert().success();
    let baks = backups(&p);
    assert_eq!(baks.len(), 1, "a changed command is backed up: {baks:?}");
    assert_eq!(
        std::fs::read_to_string(&baks[0]).unwrap(),
        "my own version\n"
    );
    std::fs::remove_file(&baks[0]).unwrap();
    // A copy installed by a forge at another path is still forge's: re-pointed
    // without a backup, and removed by --uninstall --commands.
    p.write(
        ".claude/commands/forge-learn.md",
        &learn.replace(&exe, "/old/place/forge"),
    );
    p.forge().args(["init", "--commands"]).assert().success();
    assert_eq!(p.read(".claude/commands/forge-learn.md"), learn);
    assert!(backups(&p).is_empty(), "{:?}", backups(&p));
    p.write(
        ".claude/commands/forge-learn.md",
        &learn.replace(&exe, "/old/place/forge"),
    );
    p.forge()
        .args(["init", "--uninstall", "--commands"])
        .assert()
        .success();
    assert!(!p.root.join(".claude/commands/forge-learn.md").exists());
    assert!(!p.root.join(".claude/commands/forge-continue.md").exists());
}

#[test]
fn project_flag_is_canonical_and_a_subfolder_means_its_project() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.root.join("src/deep")).unwrap();
    // From elsewhere, through a `..` detour into a subfolder.
    let detour = p.root.join("src/../src/deep");
    let out = p
        .forge()
        .current_dir(p.dir.path())
        .arg("init")
        .arg("--project")
        .arg(&detour)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = stdout_of(&out);
    assert!(
        text.starts_with(&format!(
            "Wired forge into the project {}\n",
            p.root.display()
        )),
        "{text}"
    );
    assert!(p.root.join(".claude/settings.json").is_file());
    assert!(!p.root.join("src/deep/.claude").exists());
    assert!(p.forge_dir().join("logs").is_dir());
    // Other commands agree: the subfolder's project, named absolutely.
    let out = p
        .forge()
        .current_dir(p.dir.path())
        .args(["doctor", "--json", "--project", "project/src"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["project"], p.root.display().to_string());
    p.forge()
        .args(["init", "--project", "src"])
        .assert()
        .success()
        .stdout(contains(format!(
            "forge is already set up in the project {}; nothing changed.",
            p.root.display()
        )));
}

#[test]
fn init_refuses_broken_json_and_says_what_to_do() {
    let p = TestProject::new();
    p.write(".claude/settings.json", "{\"hooks\": [}");
    p.forge()
        .arg("init")
        .assert()
        .code(1)
        .stderr(contains("not valid JSON").and(contains("fix it or move it away")));
    assert_eq!(p.read(".claude/settings.json"), "{\"hooks\": [}");
}

// ----- doctor -------------------------------------------------------------------

#[test]
fn doctor_passes_on_a_clean_project() {
    let p = TestProject::new();
    p.forge().args(["init", "--commands"]).assert().success();
    p.add_handoff_fixture("agent-T-012-20261121-101502.md");
    let out = p.forge().arg("doctor").output().unwrap();
    assert!(out.status.success(), "{}", stdout_of(&out));
    assert!(
        stdout_of(&out).contains("Everything looks right"),
        "{}",
        stdout_of(&out)
    );
    let out = p.forge().args(["doctor", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], true);
    // Wired in the project and the user settings: the binary is named once.
    p.forge().args(["init", "--user"]).assert().success();
    let text = stdout_of(&p.forge().arg("doctor").output().unwrap());
    let line = text.lines().find(|l| l.contains("  binary ")).unwrap();
    let exe = forge_exe().display().to_string();
    assert_eq!(line.matches(&exe).count(), 1, "{line}");
    assert!(line.contains(".claude/settings.json, "), "{line}");
    assert!(v["checks"].as_array().unwrap().len() >= 9);
    // Every secret shape compiles in this build (the release keeps only some of
    // regex's Unicode tables; a rule needing another would fail here in a release).
    let redaction = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "redaction")
        .unwrap();
    assert_eq!(redaction["status"], "ok", "{redaction}");
    assert!(
        redaction["summary"].as_str().unwrap().starts_with("all "),
        "{redaction}"
    );
}

#[test]
fn doctor_names_every_problem_and_fails() {
    let p = TestProject::new();
    // Not wired, no statusLine, a dead hook.
    p.write(
        ".claude/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "~/.golem/hooks/stop.sh"}]}]}}"#,
    );
    p.write(
        ".claude/commands/review.md",
        "---\ndescription: x\nmodel: gpt-4o\n---\nbody\n",
    );
    p.write(
        ".claude/agents/planner.md",
        "---\nname: planner\nmodel: opus\n---\n",
    );
    p.write(
        ".claude/agents/builder.md",
        "---\nname: builder\nmodel: Opus\n---\n",
    );
    // Full model ids are accepted, with or without the 1M suffix.
    p.write(
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\nmodel: claude-sonnet-4-6\n---\n",
    );
    p.write(
        ".claude/commands/big.md",
        "---\ndescription: x\nmodel: claude-opus-4-6[1m]\n---\n",
    );
    p.add_handoff_fixture("agent-T-011-20261121-090102.md");
    let mem = memory_dir(&p);
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(
        mem.join("learned-deploy.md"),
        "# Deploy\n\nUse DATABASE_URL=postgres://app:hunter22@db:5432/app\n",
    )
    .unwrap();
    let long: String = (0..200).map(|i| format!("- note {i}\n")).collect();
    std::fs::write(mem.join("MEMORY.md"), long).unwrap();

    let out = p.forge().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    for want in [
        "FAIL  hooks",
        "forge init",
        "FAIL  statusline",
        "FAIL  gitignore",
        // In the shared project file: a warning (it may exist on a teammate's machine).
        "warn  dead-hooks",
        "~/.golem/hooks/stop.sh",
        "FAIL  model-aliases",
        ".claude/commands/review.md: model: gpt-4o",
        ".claude/agents/builder.md: model: Opus (aliases are lower-case: opus)",
        "FAIL  signals",
        "agent-T-011-20261121-090102.md",
        "FAIL  learned-secrets",
        "learned-deploy.md:3: looks like a password in a URL",
        "warn  memory-size",
        "forge learn archive",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(!text.contains("planner.md"), "a valid alias is not flagged");
    assert!(
        !text.contains("reviewer.md"),
        "a full model id is not flagged"
    );
    assert!(!text.contains("big.md"), "a [1m] model id is not flagged");
    assert!(!text.contains("(s)"), "no file(s)-style plurals:\n{text}");
    assert!(
        !text.contains("hunter22"),
        "the secret itself is never printed"
    );

    let out = p.forge().args(["doctor", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ok"], false);
    let status = |name: &str| {
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["status"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(status("model-aliases"), "fail");
    assert_eq!(status("memory-size"), "warn");
    assert_eq!(status("config"), "ok");
}

#[test]
fn doctor_flags_a_missing_forge_binary() {
    let p = TestProject::new();
    let mut s = String::from(r#"{"hooks": {"#);
    let entries: Vec<String> = FORGE_EVENTS
        .iter()
        .map(|e| format!(r#""{e}": [{{"hooks": [{{"type": "command", "command": "/gone/bin/forge hook {e}"}}]}}]"#))
        .collect();
    s.push_str(&entries.join(","));
    s.push_str(r#"}, "statusLine": {"type": "command", "command": "/gone/bin/forge statusline"}}"#);
    p.write(".claude/settings.json", &s);
    let out = p.forge().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout_of(&out);
    assert!(text.contains("ok    hooks"), "{text}");
    assert!(text.contains("FAIL  binary"), "{text}");
    assert!(text.contains("/gone/bin/forge does not exist"), "{text}");
    // forge init repairs it in place.
    p.forge().arg("init").assert().success();
    let s = settings(&p);
    assert_eq!(command_hooks(&s).len(), FORGE_EVENTS.len());
    p.forge().arg("doctor").assert().success();
}

// ----- init: portable commands, minimal edits, --local, --prune-dead -------------

/// Puts a `forge` in the test's own PATH folder: a symlink to this binary (`same`),
/// or a copy of it (another binary that is also called forge).
#[cfg(unix)]
fn put_forge_on_path(p: &TestProject, same: bool) {
    let bin = p.bin_dir();
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("forge");
    let _ = std::fs::remove_file(&link);
    if same {
        std::os::unix::fs::symlink(forge_exe(), &link).unwrap();
    } else {
        std::fs::copy(forge_exe(), &link).unwrap();
    }
}

/// How many of forge's hook entries run exactly `program hook <Event>`, one per event.
fn forge_hooks_run(s: &Value, program: &str) -> bool {
    let hooks = command_hooks(s);
    FORGE_EVENTS.iter().all(|e| {
        hooks
            .iter()
            .filter(|h| h.event == *e && is_forge_command(&h.command))
            .map(|h| h.command.clone())
            .collect::<Vec<_>>()
            == [hook_entry(program, e)]
    })
}

#[cfg(unix)]
#[test]
fn init_writes_bare_forge_when_forge_on_path_is_this_binary() {
    let p = TestProject::new();
    put_forge_on_path(&p, true);
    let text = ok_stdout(p.forge().args(["init", "--commands"]));
    assert!(
        text.contains("forge's commands run `forge` from PATH"),
        "{text}"
    );
    assert!(!text.contains("Warning"), "{text}");
    let s = settings(&p);
    assert!(forge_hooks_run(&s, "forge"), "{s}");
    assert_eq!(
        statusline_command(&s),
        Some(guarded_statusline("forge").as_str())
    );
    let cont = p.read(".claude/commands/forge-continue.md");
    assert!(
        cont.contains("allowed-tools: Bash(forge resume:*), Bash(forge status:*)"),
        "{cont}"
    );
    assert!(cont.contains("Run `forge resume --print`"), "{cont}");
    let out = ok_stdout(p.forge().arg("doctor"));
    assert!(out.contains("`forge` on PATH is"), "{out}");
    assert!(out.contains("ok    commands"), "{out}");

    // Without forge on PATH, a re-run moves every entry to the absolute path in
    // place (no duplicates), and back again: both forms are forge's.
    std::fs::remove_file(p.bin_dir().join("forge")).unwrap();
    let out = p.forge().arg("doctor").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = stdout_of(&out);
    assert!(out.contains("FAIL  binary"), "{out}");
    assert!(out.contains("`forge` is not on PATH"), "{out}");
    assert!(out.contains("warn  commands"), "{out}");
    let text = ok_stdout(p.forge().args(["init", "--commands"]));
    assert!(
        text.contains("because there is no `forge` on PATH"),
        "{text}"
    );
    let exe = forge_exe().display().to_string();
    let s = settings(&p);
    assert!(forge_hooks_run(&s, &exe), "{s}");
    assert!(
        p.read(".claude/commands/forge-learn.md")
            .contains(&format!("Bash({exe} learn:*)"))
    );
    assert!(
        backups(&p)
            .iter()
            .all(|b| !b.to_string_lossy().contains("forge-learn"))
    );
    put_forge_on_path(&p, true);
    p.forge().args(["init", "--commands"]).assert().success();
    assert!(forge_hooks_run(&settings(&p), "forge"));
    // --uninstall takes out the bare entries and the commands.
    p.forge()
        .args(["init", "--uninstall", "--commands"])
        .assert()
        .success();
    assert_eq!(p.read(".claude/settings.json"), "{}\n");
    assert!(!p.root.join(".claude/commands/forge-learn.md").exists());
}

/// The settings a project wired by an older forge has: plain `forge hook <Event>`
/// entries and `forge statusline`, which fail where forge is not installed.
fn wired_unguarded() -> String {
    let hooks: Vec<String> = FORGE_EVENTS
        .iter()
        .map(|e| {
            format!(
                r#"    "{e}": [{{"hooks": [{{"type": "command", "command": "forge hook {e}"}}]}}]"#
            )
        })
        .collect();
    format!(
        "{{\n  \"model\": \"opus\",\n  \"hooks\": {{\n{}\n  }},\n  \"statusLine\": {{\"type\": \"command\", \"command\": \"forge statusline\", \"padding\": 0}}\n}}\n",
        hooks.join(",\n")
    )
}

/// Runs a settings entry's command as Claude Code does (`sh -c`), with `stdin`, on a
/// PATH that holds no forge: (exit code, stdout, stderr).
fn run_without_forge(p: &TestProject, command: &str, stdin: &str) -> (i32, String, String) {
    run_without_forge_with(p, command, stdin, &[])
}

/// [`run_without_forge`] with variables of the teammate's environment set (the
/// hint's `XDG_CACHE_HOME` and `FORGE_HINT` are unset unless given).
fn run_without_forge_with(
    p: &TestProject,
    command: &str,
    stdin: &str,
    vars: &[(&str, &str)],
) -> (i32, String, String) {
    let empty = p.dir.path().join("no-forge-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let path = format!("{}:/usr/bin:/bin", empty.display());
    let probe = std::process::Command::new("sh")
        .args(["-c", "command -v forge"])
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(!probe.status.success(), "forge is on {path}");
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(&p.root)
        .env("PATH", &path)
        .env("HOME", &p.home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("FORGE_HINT")
        .envs(vars.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write as _;
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A project wired by an older forge (plain entries) is upgraded in place: every
/// committed entry then does nothing where forge is missing, but SessionStart's one
/// line on how to install it; init and doctor say so.
#[cfg(unix)]
#[test]
fn committed_entries_stay_silent_for_a_teammate_without_forge() {
    let p = TestProject::new();
    put_forge_on_path(&p, true);
    p.write(".claude/settings.json", &wired_unguarded());
    // (doctor fails here: nothing git-ignores .forge/ yet.)
    let text = stdout_of(&p.forge().arg("doctor").output().unwrap());
    assert!(
        text.contains("ok    hooks            forge handles all 9 hook events"),
        "{text}"
    );
    assert!(text.contains("warn  teammates"), "{text}");
    assert!(
        text.contains("10 of forge's entries in the shared .claude/settings.json run forge unguarded, so a teammate without forge gets a failed hook on every event and tool call: run `forge init`"),
        "{text}"
    );
    assert!(
        text.contains(".claude/settings.json: Stop: `forge hook Stop`"),
        "{text}"
    );

    let text = ok_stdout(p.forge().arg("init"));
    assert!(
        text.contains("Upgraded 10 unguarded forge entries in place: they now do nothing where forge is missing."),
        "{text}"
    );
    assert!(
        text.contains("For a teammate without forge these committed entries do nothing: no failed hook, an empty status line, and one line at SessionStart saying how to install forge."),
        "{text}"
    );
    assert!(!text.contains("duplicate"), "{text}");
    let s = settings(&p);
    assert!(forge_hooks_run(&s, "forge"), "{s}");
    // In place: the other keys and the order stay.
    let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["model", "hooks", "statusLine"]);
    let text = ok_stdout(p.forge().args(["doctor"]));
    // doctor takes both forms for forge's.
    assert!(
        text.contains("ok    hooks            forge handles all 9 hook events"),
        "{text}"
    );
    assert!(text.contains("ok    binary"), "{text}");
    assert!(
        text.contains("ok    statusline       statusLine runs forge"),
        "{text}"
    );
    assert!(
        text.contains("ok    teammates        for a teammate without forge, forge's entries in the shared .claude/settings.json do nothing"),
        "{text}"
    );

    // What a clone without forge runs: nothing fails, nothing is said but at
    // SessionStart, and the status line is empty.
    let stop = p.payload("hooks/Stop.json");
    for h in command_hooks(&s) {
        let (code, out, err) = run_without_forge(&p, &h.command, &stop);
        assert_eq!(code, 0, "{}: {err}", h.event);
        assert_eq!(err, "", "{}", h.event);
        if h.event == "SessionStart" {
            let v: Value = serde_json::from_str(out.trim()).unwrap();
            let said = v["systemMessage"].as_str().unwrap();
            assert!(said.contains("use forge"), "{said}");
            assert!(said.contains("cargo install --locked"), "{said}");
            assert!(said.contains("npm install -g ccforge"), "{said}");
            assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        } else {
            assert_eq!(out, "", "{}", h.event);
        }
    }
    let status = statusline_command(&s).unwrap().to_owned();
    let (code, out, err) = run_without_forge(&p, &status, &p.payload("statusline/used-42.json"));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    // Where forge is installed the same entries run it.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&status)
        .current_dir(&p.root)
        .env("PATH", format!("{}:/usr/bin:/bin", p.bin_dir().display()))
        .env("HOME", &p.home)
        .env("NO_COLOR", "1")
        .stdin(std::fs::File::open(common::fixtures().join("statusline/used-42.json")).unwrap())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("42%"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The teammate hint (SessionStart's fallback where forge is missing) names the
/// real install commands, is said at most once a day per machine (a stamp in the
/// teammate's cache folder; the day from the system's own `date`, never one a
/// relative PATH entry finds in the project), and never once `FORGE_HINT=off` is
/// set. The plugin's hooks carry the same gate.
#[cfg(unix)]
#[test]
fn the_teammate_hint_is_said_once_a_day_and_never_once_turned_off() {
    let p = TestProject::new();
    put_forge_on_path(&p, true);
    ok_stdout(p.forge().arg("init"));
    let s = settings(&p);
    let start = command_hooks(&s)
        .into_iter()
        .find(|h| h.event == "SessionStart")
        .unwrap()
        .command;
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin/hooks/hooks.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let plugin_start = plugin["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    // The day is the system's own `date` (found by `command -p`, never PATH): a day
    // passes by setting the stamp back. Planted `date`, `cat` and `mkdir` in the
    // project, reached through a relative PATH entry (the hook runs in the
    // project), must never run.
    let mark = p.dir.path().join("planted-ran");
    for tool in ["date", "cat", "mkdir"] {
        let planted = p.root.join(tool);
        std::fs::write(
            &planted,
            format!(
                "#!/bin/sh\necho {tool} >>'{}'\necho 1999-01-01\n",
                mark.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let today = String::from_utf8(
        std::process::Command::new("/bin/sh")
            .args(["-c", "command -p date +%Y-%m-%d"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let payload = p.payload("hooks/SessionStart-startup.json");
    let no_forge = p.dir.path().join("no-forge-bin");
    let relative_first = format!(".:{}:/usr/bin:/bin", no_forge.display());
    for (which, command) in [("settings", &start), ("plugin", &plugin_start)] {
        hint_gate_holds(&p, which, command, &payload, &relative_first, &today);
    }
    assert!(
        !mark.exists(),
        "a planted program ran: {:?}",
        std::fs::read_to_string(&mark)
    );
    // forge still takes the entry for its own (a second init changes nothing,
    // uninstall removes it).
    let again = ok_stdout(p.forge().args(["init", "--dry-run"]));
    assert!(!again.contains("+++"), "{again}");
    ok_stdout(p.forge().args(["init", "--uninstall"]));
    let gone = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap_or_default();
    assert!(!gone.contains("hint-day"), "{gone}");
}

/// One entry's gate, as [`the_teammate_hint_is_said_once_a_day_and_never_once_turned_off`]
/// runs it for the settings entry and for the plugin's.
#[cfg(unix)]
fn hint_gate_holds(
    p: &TestProject,
    which: &str,
    command: &str,
    payload: &str,
    relative_first: &str,
    today: &str,
) {
    let cache = p.dir.path().join(format!("cache-{which}"));
    let cache = cache.to_str().unwrap();
    let run = |extra: &[(&str, &str)]| {
        let mut vars = vec![("XDG_CACHE_HOME", cache), ("PATH", relative_first)];
        vars.extend_from_slice(extra);
        let (code, out, err) = run_without_forge_with(p, command, payload, &vars);
        assert_eq!((code, err.as_str()), (0, ""), "{which}: {out}");
        out
    };
    let stamp = std::path::Path::new(cache).join("forge/hint-day");
    let first = run(&[]);
    let v: Value = serde_json::from_str(first.trim()).unwrap();
    let said = v["systemMessage"].as_str().unwrap();
    for part in [
        "npm install -g ccforge",
        "cargo install --locked --git https://github.com/ccforge/forge",
        "FORGE_HINT=off",
    ] {
        assert!(said.contains(part), "{which}: {said}");
    }
    assert!(!said.contains('<'), "a placeholder: {said}");
    assert_eq!(std::fs::read_to_string(&stamp).unwrap(), today);
    // The same day: nothing, and still no failure.
    assert_eq!(run(&[]), "", "{which}");
    assert_eq!(run(&[]), "", "{which}");
    // A day later (the stamp says an earlier day): said once more.
    std::fs::write(&stamp, "2026-03-01\n").unwrap();
    assert!(run(&[]).contains("npm install -g ccforge"), "{which}");
    assert_eq!(std::fs::read_to_string(&stamp).unwrap(), today);
    assert_eq!(run(&[]), "", "{which}");
    // Turned off: never again, whatever the day, and the stamp stays as it was.
    std::fs::write(&stamp, "2026-03-02\n").unwrap();
    for _ in 0..2 {
        assert_eq!(run(&[("FORGE_HINT", "off")]), "", "{which}");
    }
    assert_eq!(std::fs::read_to_string(&stamp).unwrap(), "2026-03-02\n");
    // Any other value leaves it on.
    assert!(run(&[("FORGE_HINT", "on")]).contains("ccforge"));
    // A cache folder that cannot be written does not stop the hint or fail.
    let blocked = p.dir.path().join(format!("blocked-{which}"));
    std::fs::write(&blocked, "a file, not a folder").unwrap();
    let blocked = blocked.to_str().unwrap();
    for _ in 0..2 {
        let (code, out, err) = run_without_forge_with(
            p,
            command,
            payload,
            &[("XDG_CACHE_HOME", blocked), ("PATH", relative_first)],
        );
        assert_eq!((code, err.as_str()), (0, ""), "{which}");
        assert!(out.contains("ccforge"), "{which}: {out}");
    }
    // A relative XDG_CACHE_HOME puts no stamp in the project: ~/.cache holds it.
    let (code, _, err) = run_without_forge_with(
        p,
        command,
        payload,
        &[("XDG_CACHE_HOME", "cache"), ("PATH", relative_first)],
    );
    assert_eq!((code, err.as_str()), (0, ""), "{which}");
    assert!(
        !p.root.join("cache").exists(),
        "{which}: a stamp in the project"
    );
    assert!(p.home.join(".cache/forge/hint-day").exists(), "{which}");
    std::fs::remove_file(p.home.join(".cache/forge/hint-day")).unwrap();
}

/// `forge init` finds another status line: it keeps it and offers to wrap it;
/// `--wrap-statusline` keeps its output with forge's segments added (and, where
/// forge is missing, the file still shows the other line); `--uninstall` gives the
/// file back byte for byte.
#[cfg(unix)]
#[test]
fn init_wraps_another_status_line_on_request_and_uninstall_gives_it_back() {
    let p = TestProject::new();
    put_forge_on_path(&p, true);
    let original = "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"printf 'OTHER-LINE\\\\n'\"},\n  \"model\": \"opus\"\n}\n";
    p.write(".claude/settings.json", original);
    let theirs = statusline_command(&settings(&p)).unwrap().to_owned();
    assert_eq!(theirs, "printf 'OTHER-LINE\\n'");
    let text = ok_stdout(p.forge().arg("init"));
    assert!(
        text.contains("`forge init --wrap-statusline` keeps it and adds forge's segments"),
        "{text}"
    );
    assert_eq!(statusline_command(&settings(&p)), Some(theirs.as_str()));
    let text = ok_stdout(p.forge().args(["init", "--wrap-statusline"]));
    assert!(text.contains("wrapped the statusLine"), "{text}");
    let status = statusline_command(&settings(&p)).unwrap().to_owned();
    assert_eq!(
        status,
        forge::model::setup::settings::guarded_wrapped_statusline("forge", &theirs)
    );
    assert_eq!(settings(&p)["statusLine"]["refreshInterval"], 5);
    let out = ok_stdout(p.forge().arg("doctor"));
    assert!(
        out.contains("statusLine runs forge around your own `printf"),
        "{out}"
    );
    // As Claude Code runs it, forge installed: the other line, then forge's part.
    let payload = p.payload("statusline/used-74.json");
    let run = |path: &str| {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(&status)
            .current_dir(&p.root)
            .env("PATH", path)
            .env("HOME", &p.home)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write as _;
            // The other command may exit before it reads: a broken pipe then.
            let _ = child.stdin.take().unwrap().write_all(payload.as_bytes());
        }
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let with = run(&format!("{}:/usr/bin:/bin", p.bin_dir().display()));
    assert!(with.starts_with("OTHER-LINE │ "), "{with}");
    assert!(with.contains("⚠ CTX 74%"), "{with}");
    // A teammate without forge: the line the file had.
    let empty = p.dir.path().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(
        run(&format!("{}:/usr/bin:/bin", empty.display())),
        "OTHER-LINE\n"
    );
    let text = ok_stdout(p.forge().args(["init", "--uninstall"]));
    assert!(text.contains("gave back the statusLine"), "{text}");
    assert_eq!(p.read(".claude/settings.json"), original);

    // A status line of your own in your user settings gives way to the project's:
    // init says so, and how to keep it here.
    let q = TestProject::new();
    let user = q.home.join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        r#"{"statusLine": {"type": "command", "command": "ccstatusline"}}"#,
    )
    .unwrap();
    let text = ok_stdout(q.forge().arg("init"));
    assert!(
        text.contains("Note: your own status line `ccstatusline`")
            && text.contains("`forge statusline --wrap ccstatusline`"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn init_warns_when_an_absolute_path_goes_into_a_tracked_file() {
    let p = TestProject::new();
    put_forge_on_path(&p, false);
    let text = ok_stdout(p.forge().arg("init"));
    assert!(
        text.contains(&format!(
            "because `forge` on PATH is another binary ({})",
            p.bin_dir().join("forge").display()
        )),
        "{text}"
    );
    assert!(
        !text.contains("tracked by git"),
        "not committed yet: {text}"
    );
    common::git(&p.root, &["add", ".claude/settings.json"]);
    common::git(&p.root, &["commit", "-qm", "wire forge"]);
    // Nothing changes, but the warning stands.
    let text = ok_stdout(p.forge().arg("init"));
    assert!(text.contains("nothing changed"), "{text}");
    assert!(
        text.contains(&format!(
            "Warning: .claude/settings.json is tracked by git, so forge's commands there run {}",
            forge_exe().display()
        )),
        "{text}"
    );
    assert!(text.contains("forge init --local"), "{text}");
    let out = ok_stdout(p.forge().arg("doctor"));
    assert!(out.contains("warn  binary"), "{out}");
    assert!(
        out.contains(&format!(
            ".claude/settings.json: runs {} (tracked by git)",
            forge_exe().display()
        )),
        "{out}"
    );
    // Run by the forge on PATH, init writes the portable form and says nothing more.
    put_forge_on_path(&p, true);
    let text = ok_stdout(p.forge().arg("init"));
    assert!(!text.contains("Warning"), "{text}");
    assert!(forge_hooks_run(&settings(&p), "forge"));
    let out = ok_stdout(p.forge().arg("doctor"));
    assert!(out.contains("ok    binary"), "{out}");
}

#[test]
fn init_local_is_personal_and_git_ignored() {
    let p = TestProject::new();
    let exclude_before = p.read(".git/info/exclude");
    let text = ok_stdout(p.forge().args(["init", "--local"]));
    assert!(
        text.starts_with(&format!(
            "Wired forge into the project {} (your own settings, .claude/settings.local.json)",
            p.root.display()
        )),
        "{text}"
    );
    // It speaks of you, not of teammates.
    assert!(
        text.contains("Only for you: Claude Code reads .claude/settings.local.json for you alone, and git ignores it through .git/info/exclude"),
        "{text}"
    );
    assert!(!text.to_lowercase().contains("teammate"), "{text}");
    let local: Value = serde_json::from_str(&p.read(".claude/settings.local.json")).unwrap();
    assert!(forge_hooks_run(&local, &forge_exe().display().to_string()));
    assert!(!p.root.join(".claude/settings.json").exists());
    // The shared .gitignore is not touched; the repository's own excludes are.
    assert!(!p.root.join(".gitignore").exists());
    assert_eq!(
        p.read(".git/info/exclude"),
        format!(
            "{exclude_before}# forge init --local: your own entries (forge init --uninstall --local removes them)\n/.claude/settings.local.json\n"
        )
    );
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(&p.root)
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout);
    assert_eq!(status, "", "nothing for git to show");
    // Not a shared file: no tracking warning, and doctor is content.
    assert!(!text.contains("Warning"), "{text}");
    p.forge().arg("doctor").assert().success();
    p.forge()
        .args(["init", "--local"])
        .assert()
        .success()
        .stdout(contains("nothing changed"));

    // Already ignored (here by a pattern of the user's): nothing is added.
    let q = TestProject::new();
    q.write(".gitignore", "*.local.json\n");
    let exclude = q.read(".git/info/exclude");
    let text = ok_stdout(q.forge().args(["init", "--local"]));
    assert!(text.contains("git already ignores it"), "{text}");
    assert_eq!(q.read(".gitignore"), "*.local.json\n");
    assert_eq!(q.read(".git/info/exclude"), exclude);
    // Tracked although personal: say how to untrack it, and add no useless line.
    let r = TestProject::new();
    r.write(".claude/settings.local.json", "{}\n");
    common::git(&r.root, &["add", ".claude/settings.local.json"]);
    common::git(&r.root, &["commit", "-qm", "oops"]);
    let exclude = r.read(".git/info/exclude");
    let text = ok_stdout(r.forge().args(["init", "--local"]));
    assert!(
        text.contains("git rm --cached .claude/settings.local.json"),
        "{text}"
    );
    assert_eq!(r.read(".git/info/exclude"), exclude);
    assert!(!r.root.join(".gitignore").exists());
    // --user and --local do not go together.
    r.forge()
        .args(["init", "--user", "--local"])
        .assert()
        .code(2);
}

/// Every file under `dir` (the git folder included) with a hash of its bytes, and
/// every folder: what "the repository is byte-identical" compares.
fn tree_digest(dir: &Path) -> Vec<String> {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.push(format!("{rel}/"));
                stack.push(path);
            } else {
                let mut h = DefaultHasher::new();
                std::fs::read(&path).unwrap().hash(&mut h);
                out.push(format!("{rel} {:016x}", h.finish()));
            }
        }
    }
    out.sort();
    out
}

/// `forge init --local` then `forge init --uninstall --local` gives back the
/// repository byte for byte: the settings file forge created, its lines in
/// `.git/info/exclude` (and the line break it added, or the file when it created
/// it), `.claude/` and the `.forge/` it made are gone again.
#[test]
fn init_local_then_uninstall_local_leaves_the_repository_byte_identical() {
    for (case, exclude) in [
        ("git's own excludes file", None),
        ("no final line break", Some("# mine\n*.tmp")),
        ("no excludes file", Some("")),
    ] {
        let p = TestProject::new();
        p.write("src/lib.rs", "fn main() {}\n");
        match exclude {
            Some("") => std::fs::remove_file(p.root.join(".git/info/exclude")).unwrap(),
            Some(text) => p
                .write(".git/info/exclude", text)
                .display()
                .to_string()
                .clear(),
            None => {}
        }
        let before = tree_digest(&p.root);
        p.forge().args(["init", "--local"]).assert().success();
        assert!(
            p.root.join(".claude/settings.local.json").is_file(),
            "{case}"
        );
        assert_ne!(tree_digest(&p.root), before, "{case}");
        let text = ok_stdout(p.forge().args(["init", "--local", "--uninstall"]));
        assert!(
            text.contains("Removed .claude/settings.local.json"),
            "{case}: {text}"
        );
        assert!(
            text.contains("Removed .forge/ (forge init made it"),
            "{case}: {text}"
        );
        assert_eq!(tree_digest(&p.root), before, "{case}: {text}");
        if let Some(text) = exclude.filter(|t| !t.is_empty()) {
            assert_eq!(p.read(".git/info/exclude"), text, "{case}");
        }
    }

    // A personal file of yours is given back as it was; .forge/ keeps the backup
    // forge made of it (and says so), everything else is as before.
    let p = TestProject::new();
    let mine = "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n";
    p.write(".claude/settings.local.json", mine);
    let before = tree_digest(&p.root);
    p.forge().args(["init", "--local"]).assert().success();
    let text = ok_stdout(p.forge().args(["init", "--local", "--uninstall"]));
    assert_eq!(p.read(".claude/settings.local.json"), mine);
    assert!(text.contains("Kept .forge/"), "{text}");
    let outside: Vec<String> = tree_digest(&p.root)
        .into_iter()
        .filter(|l| !l.starts_with(".forge"))
        .collect();
    assert_eq!(outside, before);
}

/// In a linked worktree (`.git` is a file) the personal excludes are the main
/// repository's, which every worktree reads: `--local` writes them there and says
/// so. A `.git` file that only names some git folder, which does not name this work
/// tree back, is refused and nothing is written.
#[cfg(unix)]
#[test]
fn init_local_in_a_worktree_uses_the_main_repositorys_excludes_and_refuses_a_stray_git_file() {
    let p = TestProject::new();
    let wt = p.dir.path().join("wt");
    common::git(&p.root, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let wt = wt.canonicalize().unwrap();
    let before = tree_digest(&p.root);
    let before_wt = tree_digest(&wt);
    let text = ok_stdout(p.forge().args(["init", "--local", "--project"]).arg(&wt));
    let exclude = p.root.join(".git/info/exclude");
    assert!(
        text.contains(&format!(
            "git ignores it through {} (the main repository's, which every worktree of it reads)",
            exclude.display()
        )),
        "{text}"
    );
    assert!(
        std::fs::read_to_string(&exclude)
            .unwrap()
            .ends_with("removes them)\n/.claude/settings.local.json\n")
    );
    let status = std::process::Command::new("git")
        .args(["status", "--porcelain"])
        .current_dir(&wt)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
    p.forge()
        .args(["init", "--local", "--uninstall", "--project"])
        .arg(&wt)
        .assert()
        .success();
    // The worktree's git folder keeps its own files (index, HEAD): compare the rest.
    let strip = |v: Vec<String>| -> Vec<String> {
        v.into_iter()
            .filter(|l| !l.starts_with(".git/worktrees/") && !l.starts_with(".git/index"))
            .collect()
    };
    assert_eq!(strip(tree_digest(&p.root)), strip(before));
    assert_eq!(tree_digest(&wt), before_wt);

    // A `.git` file that names another repository's git folder.
    let other = TestProject::new();
    let stray = p.dir.path().join("stray");
    std::fs::create_dir_all(&stray).unwrap();
    std::fs::write(
        stray.join(".git"),
        format!("gitdir: {}\n", other.root.join(".git").display()),
    )
    .unwrap();
    let other_before = tree_digest(&other.root);
    let out = p
        .forge()
        .args(["init", "--local", "--project"])
        .arg(&stray)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not in the work tree") && err.contains("forge init wrote nothing"),
        "{err}"
    );
    assert_eq!(tree_digest(&other.root), other_before);
    assert!(!stray.join(".claude").exists() && !stray.join(".forge").exists());
}

/// `.git/info` a link out of the repository: `--local` refuses, naming it, and
/// writes nothing (the excludes file is checked like every path `forge init`
/// writes).
#[cfg(unix)]
#[test]
fn init_local_follows_no_link_in_the_git_folder() {
    let p = TestProject::new();
    let elsewhere = p.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("exclude"), "# outside\n").unwrap();
    std::fs::remove_dir_all(p.root.join(".git/info")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, p.root.join(".git/info")).unwrap();
    let out = p.forge().args(["init", "--local"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".git/info")
            && err.contains("symbolic link")
            && err.contains("forge init wrote nothing"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("exclude")).unwrap(),
        "# outside\n"
    );
    assert!(!p.root.join(".claude").exists());
}

/// Hand-formatted settings files, none holding anything forge would remove.
const HAND_FORMATTED: [&str; 8] = [
    // Two spaces, foreign hooks as one-line groups.
    "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\"matcher\": \"Edit|Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"cargo fmt\"}]}\n    ],\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"/bin/sh -c true\"}]}\n    ]\n  },\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n",
    // Four spaces, no hooks.
    "{\n    \"model\": \"sonnet\",\n    \"env\": {\n        \"RUST_LOG\": \"info\"\n    }\n}\n",
    // Tabs, pretty foreign hooks.
    "{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"type\": \"command\",\n\t\t\t\t\t\t\"command\": \"/bin/true\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t},\n\t\"model\": \"opus\"\n}\n",
    // An empty "hooks" in the middle.
    "{\n  \"hooks\": {},\n  \"model\": \"opus\"\n}\n",
    // An empty "hooks" as the only key, and an empty event list.
    "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n",
    // One line, no final newline.
    "{\"model\":\"opus\",\"env\":{\"A\":\"1\"}}",
    // No final newline, a foreign statusLine (kept), blank line between keys.
    "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"/bin/echo hi\"},\n\n  \"model\": \"opus\"\n}",
    // CRLF line ends.
    "{\r\n  \"model\": \"opus\"\r\n}\r\n",
];

#[test]
fn init_and_uninstall_change_only_forge_entries_and_give_back_the_same_bytes() {
    for original in HAND_FORMATTED {
        let p = TestProject::new();
        p.write(".claude/settings.json", original);
        p.forge().arg("init").assert().success();
        let wired = p.read(".claude/settings.json");
        assert!(
            forge_hooks_run(&settings(&p), &forge_exe().display().to_string()),
            "{wired}"
        );
        // A one-line file stays one line, with forge's entries at its end.
        if original.lines().count() == 1 {
            assert_eq!(wired.lines().count(), 1, "{wired}");
            assert!(wired.starts_with(original.trim_end_matches('}')), "{wired}");
        }
        // Every line of the original is still there (a comma may have been added
        // where an entry now follows), but for the empty lists forge fills.
        for line in original.lines().filter(|_| original.lines().count() > 1) {
            let line = line.trim_end_matches('\r');
            if line.trim_end_matches(',').ends_with("{}")
                || line.trim_end_matches(',').ends_with("[]")
            {
                continue;
            }
            assert!(
                wired
                    .lines()
                    .map(|l| l.trim_end_matches('\r'))
                    .any(|l| l == line || l == format!("{line},")),
                "lost {line:?}:\n{wired}"
            );
        }
        p.forge().args(["init", "--uninstall"]).assert().success();
        assert_eq!(p.read(".claude/settings.json"), original, "via\n{wired}");
    }
}

#[test]
fn init_prune_dead_removes_dead_hooks_from_the_shared_file() {
    let p = TestProject::new();
    p.write(".claude/settings.json", FOREIGN_SETTINGS);
    let text = ok_stdout(p.forge().args(["init", "--prune-dead"]));
    let removed = text
        .find("Removed from .claude/settings.json (script not found):")
        .map(|i| &text[i..])
        .unwrap_or_else(|| panic!("{text}"));
    assert!(removed.contains("Stop: ~/.golem/hooks/stop.sh"), "{text}");
    assert!(removed.contains("gone.sh"), "{text}");
    assert!(!text.contains("Warning"), "{text}");
    let s = settings(&p);
    assert!(
        !command_hooks(&s)
            .iter()
            .any(|h| h.command.contains("golem"))
    );
    assert!(
        command_hooks(&s)
            .iter()
            .any(|h| h.command == "/bin/sh -c true")
    );
    p.forge()
        .args(["init", "--prune-dead", "--uninstall"])
        .assert()
        .code(2);
}

#[test]
fn status_before_init_says_what_to_run() {
    let p = TestProject::new();
    let hint = format!(
        "this project ({}) is not set up for forge yet: run `forge init`",
        p.root.display()
    );
    p.forge()
        .arg("status")
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains(hint.as_str()).and(contains("forge tui --demo")));
    let out = p.forge().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["set_up"], false);
    assert!(v["hint"].as_str().unwrap().contains(&hint), "{v}");
    assert_eq!(v["blocked"], serde_json::json!([]));
    p.forge().arg("init").assert().success();
    let out = p.forge().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["set_up"], true);
    assert!(v.get("hint").is_none());
    p.forge().arg("status").assert().success();
}

#[test]
fn doctor_dead_hooks_fail_in_own_settings_and_warn_in_the_shared_file() {
    let p = TestProject::new();
    p.forge().arg("init").assert().success();
    let dead = r#"{"hooks": [{"type": "command", "command": "~/gone/notify.sh"}]}"#;
    let mut s = settings(&p);
    s["hooks"]["Stop"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::from_str(dead).unwrap());
    p.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&s).unwrap(),
    );
    let out = p.forge().arg("doctor").output().unwrap();
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("warn  dead-hooks"), "{text}");
    assert!(text.contains("forge init --prune-dead"), "{text}");
    assert!(
        text.contains(".claude/settings.json: Stop: `~/gone/notify.sh`"),
        "{text}"
    );
    // In the user's own settings the same dead hook fails.
    let user = p.home.join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, format!(r#"{{"hooks": {{"Stop": [{dead}]}}}}"#)).unwrap();
    let out = p.forge().arg("doctor").output().unwrap();
    let text = stdout_of(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FAIL  dead-hooks"), "{text}");
}

#[test]
fn doctor_checks_the_binary_the_slash_commands_run() {
    use forge::cli::init::{COMMANDS, render_command};
    let p = TestProject::new();
    p.forge().arg("init").assert().success();
    let (name, template) = COMMANDS[0];
    p.write(
        &format!(".claude/commands/{name}"),
        &render_command(template, "/gone/bin/forge"),
    );
    let out = p.forge().arg("doctor").output().unwrap();
    let text = stdout_of(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning, not a failure: {text}"
    );
    assert!(text.contains("warn  commands"), "{text}");
    assert!(
        text.contains(&format!(
            ".claude/commands/{name}: runs /gone/bin/forge, which does not exist"
        )),
        "{text}"
    );
    assert!(text.contains("run `forge init --commands` again"), "{text}");
    p.forge().args(["init", "--commands"]).assert().success();
    let text = ok_stdout(p.forge().arg("doctor"));
    assert!(text.contains("ok    commands"), "{text}");
    assert!(text.contains("2 slash commands installed"), "{text}");
}

#[cfg(unix)]
#[test]
fn doctor_warns_when_forge_runs_twice_and_not_when_claude_code_merges_it() {
    let p = TestProject::new();
    p.forge().arg("init").assert().success();
    // The user settings name forge differently: two handlers, each event twice.
    put_forge_on_path(&p, true);
    p.forge().args(["init", "--user"]).assert().success();
    let text = ok_stdout(p.forge().arg("doctor"));
    assert!(text.contains("warn  wired-twice"), "{text}");
    assert!(text.contains("runs twice for 9 events"), "{text}");
    let exe = forge_exe().display().to_string();
    let user = p.home.join(".claude/settings.json").display().to_string();
    assert!(
        text.contains(&format!(
            "Stop: `{}` (.claude/settings.json) and `{}` ({user})",
            guarded_hook(&exe, "Stop"),
            guarded_hook("forge", "Stop")
        )),
        "{text}"
    );
    // The same command in both files: Claude Code runs it once.
    std::fs::remove_file(p.bin_dir().join("forge")).unwrap();
    p.forge().args(["init", "--user"]).assert().success();
    let text = ok_stdout(p.forge().arg("doctor"));
    assert!(
        text.contains(&format!(
            "ok    wired-twice      forge is wired in .claude/settings.json and {user} with identical commands, which Claude Code runs once"
        )),
        "{text}"
    );
}

// ----- config -------------------------------------------------------------------

#[test]
fn config_show_layers_and_names_sources() {
    let p = TestProject::new();
    let user = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[context]\nwarn = 60\ncritical = 80\n").unwrap();
    p.write(
        ".forge/config.toml",
        "[context]\nwarn = 65\n[statusline]\nbar_width = 20\n",
    );
    let out = p.forge().args(["config", "show"]).output().unwrap();
    assert!(out.status.success());
    let text = stdout_of(&out);
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("{key} missing:\n{text}"))
            .to_owned()
    };
    assert!(line("context.warn").contains("65") && line("context.warn").contains("project ("));
    assert!(line("context.critical").contains("80") && line("context.critical").contains("user ("));
    assert!(
        line("context.emergency").contains("95") && line("context.emergency").contains("# default")
    );
    assert!(line("statusline.bar_width").contains("20"));
    for key in [
        "context.handoff_threshold",
        "statusline.segments",
        "git.cache_ttl_secs",
        "hooks.handoff_on_precompact",
        "hooks.compaction_reread",
    ] {
        line(key);
    }
    let out = p
        .forge()
        .args(["config", "show", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warn = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["key"] == "context.warn")
        .unwrap()
        .clone();
    assert_eq!(warn["value"], 65.0);
    assert_eq!(warn["source"], "project");
    assert!(
        warn["path"]
            .as_str()
            .unwrap()
            .ends_with(".forge/config.toml")
    );

    p.forge()
        .args(["config", "validate"])
        .assert()
        .success()
        .stdout(contains("Config OK"));
    p.forge()
        .args(["config", "path"])
        .assert()
        .success()
        .stdout(contains(user.display().to_string()).and(contains("exists")));
}

#[test]
fn config_show_lists_the_segments_one_can_add() {
    use forge::model::segment::{DEFAULT_SEGMENTS, Segment};
    // Every segment, in the order of the one list (model::segment).
    let names = |keep: &dyn Fn(&Segment) -> bool| {
        Segment::ALL
            .iter()
            .filter(|s| keep(s))
            .map(|s| s.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let p = TestProject::new();
    let text = stdout_of(&p.forge().args(["config", "show"]).output().unwrap());
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("statusline.segments = "))
        .unwrap();
    assert!(lines[at + 1].starts_with("#   available: model, project, git, context, task, signals, learn, cost, duration, limits, pace, lines, elsewhere"));
    assert_eq!(
        lines[at + 1],
        format!("#   available: {}", names(&|_| true))
    );
    assert!(
        lines[at + 2]
            .starts_with("#   not shown now: cost, duration, limits, pace, lines, elsewhere")
    );
    assert_eq!(
        lines[at + 2],
        format!(
            "#   not shown now: {}",
            names(&|s| !DEFAULT_SEGMENTS.contains(s))
        )
    );
    // Once added, a segment is no longer listed as not shown; all shown: no such line.
    p.write(
        ".forge/config.toml",
        "[statusline]\nsegments = [\"context\", \"limits\"]\n",
    );
    let text = stdout_of(&p.forge().args(["config", "show"]).output().unwrap());
    let not_shown = names(&|s| !matches!(s, Segment::Context | Segment::Limits));
    assert!(
        text.contains(&format!("#   not shown now: {not_shown}\n")),
        "{text}"
    );
    let v: Value = serde_json::from_slice(
        &p.forge()
            .args(["config", "show", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let row = v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["key"] == "statusline.segments")
        .unwrap()
        .clone();
    assert_eq!(row["value"], serde_json::json!(["context", "limits"]));
    assert_eq!(
        row["available"].as_array().unwrap().len(),
        Segment::ALL.len()
    );
    assert_eq!(row["available"][7], "cost");
    // `config validate` accepts them.
    p.forge().args(["config", "validate"]).assert().success();
}

#[test]
fn config_errors_name_key_and_file() {
    let p = TestProject::new();
    p.write(".forge/config.toml", "[context]\nwarm = 60\n");
    p.forge()
        .args(["config", "validate"])
        .assert()
        .code(1)
        .stderr(contains("context.warm").and(contains(".forge/config.toml")));
    // show still shows the defaults (and says which file it left out), and the hint
    // does not send you back to `forge config show`.
    let out = p.forge().args(["config", "show"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown key `context.warm` (valid keys in [context]: warn, critical, emergency, handoff_threshold)"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("warm").count(), 1, "{stderr}");
    assert!(!stderr.contains("config show"), "{stderr}");
    assert!(stderr.contains("forge config path"), "{stderr}");
    let stdout = stdout_of(&out);
    assert!(stdout.contains("context.warn = 70.0"), "{stdout}");
    assert!(stdout.contains("# left out"), "{stdout}");
    std::fs::remove_file(p.root.join(".forge/config.toml")).unwrap();
    let user = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[git]\ncache_ttl_secs = \"soon\"\n").unwrap();
    p.forge()
        .args(["config", "validate"])
        .assert()
        .code(1)
        .stderr(contains("cache_ttl_secs").and(contains(user.display().to_string())));
    p.forge()
        .args(["config", "path"])
        .assert()
        .success()
        .stdout(contains("not found"));
}

/// A config error says what is wrong, and lists valid keys only where a key is
/// unknown: that section's keys (an `[agents.<name>.<section>]` section's too), never
/// every key under an error they have nothing to do with or contradict.
#[test]
fn config_errors_list_the_valid_keys_only_for_an_unknown_key_of_that_section() {
    let p = TestProject::new();
    let user = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    let u = user.display().to_string();
    let hint = "Fix that file; `forge config path` lists the config files.";
    for (text, error) in [
        (
            "[[on_session_start]]\ncommand = \"true\"\nthreshold = 50\n",
            "`threshold` and `replace_handoff` belong to [[on_threshold]], not [[on_session_start]]".to_owned(),
        ),
        (
            "[context]\nwarn = \"x\"\n",
            "`context.warn` must be a number, found the text \"x\"".to_owned(),
        ),
        (
            "[context]\nwarm = 1\n",
            "unknown key `context.warm` (valid keys in [context]: warn, critical, emergency, handoff_threshold)".to_owned(),
        ),
        (
            "[agents.builder.context]\nwarm = 1\n",
            "unknown key `agents.builder.context.warm` (valid keys in [context]: warn, critical, emergency, handoff_threshold)".to_owned(),
        ),
        (
            "[[on_session_start]]\ncommand = \"true\"\ncolour = 1\n",
            "unknown key `on_session_start.colour` (valid keys in [[on_session_start]]: command, timeout_secs)".to_owned(),
        ),
        (
            "[[on_threshold]]\ncommand = \"true\"\ncolour = 1\n",
            "unknown key `on_threshold.colour` (valid keys in [[on_threshold]]: command, timeout_secs, threshold, replace_handoff)".to_owned(),
        ),
        (
            "colour = 1\n",
            "unknown key `colour` (valid sections: [context], [statusline], [git], [hooks], [learn], [resume], [attention], [handoffs], [notify], [alerts], [ladder], [relay], [share], [[on_threshold]], [[on_session_start]], [agents.<name>.<section>])".to_owned(),
        ),
        (
            "[agents.builder.colour]\nx = 1\n",
            "unknown key `agents.builder.colour` (valid sections in [agents.builder]: [context], [statusline], [git], [hooks], [learn], [resume], [attention], [handoffs], [notify], [alerts], [ladder], [relay], [share], [[on_threshold]], [[on_session_start]])".to_owned(),
        ),
    ] {
        std::fs::write(&user, text).unwrap();
        let out = p.forge().args(["config", "validate"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("forge: config is invalid: {u}: {error}\n{hint}\n"),
            "{text}"
        );
        // doctor says the same, with the same hint.
        let out = p.forge().args(["doctor", "--json"]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let check = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "config")
            .unwrap();
        assert_eq!(check["summary"], format!("{u}: {error}"), "{text}");
        assert_eq!(check["details"], serde_json::json!([hint]), "{text}");
    }
}

// ----- signal -------------------------------------------------------------------

#[test]
fn signal_round_trips_through_the_signal_parser() {
    let p = TestProject::new();
    let out = p
        .forge()
        .args([
            "signal",
            "--from",
            "builder",
            "--to",
            "reviewer",
            "--task",
            "T-042",
            "--status",
            "blocked",
            "--question",
            "Pool size from env or config?",
            "--question",
            "Keep the old handler?",
            "--file",
            "src/db/pool.rs",
            "--finding",
            "Pool must start first",
            "--recommendation",
            "Decide, then migrate",
            "--context",
            "Moved to a pool",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let path = PathBuf::from(stdout_of(&out).trim());
    assert_eq!(path.parent().unwrap(), p.forge_dir().join("handoffs"));
    let name = path.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("agent-T-042-") && name.ends_with(".md"),
        "{name}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    for section in [
        "From: builder",
        "To: reviewer",
        "Timestamp: ",
        "Task: T-042",
        "### Context",
        "### Findings",
        "- Pool must start first",
        "### Files Modified",
        "### Open Questions",
        "### Recommendations",
        "### Signal",
    ] {
        assert!(text.contains(section), "{section}:\n{text}");
    }
    let sig = parse_signal(&text);
    let s = sig.signal().expect("valid Signal");
    assert_eq!(
        (s.from.as_str(), s.to.as_str(), s.task_id.as_str()),
        ("builder", "reviewer", "T-042")
    );
    assert_eq!(s.status, SignalStatus::Blocked);
    assert!(s.blocking);
    assert_eq!(s.files_modified, ["src/db/pool.rs"]);
    assert_eq!(
        s.open_questions,
        ["Pool size from env or config?", "Keep the old handler?"]
    );
    // The rest of forge sees it as blocked.
    p.forge()
        .arg("status")
        .assert()
        .success()
        .stdout(contains("blocked").and(contains("Keep the old handler?")));
    // A second signal in the same second gets its own file.
    let again = p
        .forge()
        .args([
            "signal", "--from", "a", "--to", "b", "--task", "T-042", "--status", "complete",
        ])
        .output()
        .unwrap();
    let second = PathBuf::from(stdout_of(&again).trim());
    assert_ne!(second, path);
    let s2 = parse_signal(&std::fs::read_to_string(&second).unwrap());
    assert!(!s2.is_blocked());
    assert_eq!(s2.signal().unwrap().status, SignalStatus::Complete);
}

#[test]
fn signal_makes_absolute_files_repo_relative_and_warns_on_a_blocked_without_question() {
    let p = TestProject::new();
    let file = p.write("src/db/pool.rs", "");
    let out = p
        .forge()
        .args([
            "signal", "--from", "a", "--to", "b", "--task", "T-5", "--status", "blocked",
        ])
        .arg("--file")
        .arg(&file)
        .args(["--file", "docs/x.md", "--file", "/etc/hosts"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: --status blocked without --question"),
        "{stderr}"
    );
    let path = PathBuf::from(stdout_of(&out).trim());
    let sig = parse_signal(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(
        sig.signal().unwrap().files_modified,
        ["src/db/pool.rs", "docs/x.md", "/etc/hosts"]
    );
    // With a question there is nothing to warn about.
    p.forge()
        .args([
            "signal",
            "--from",
            "a",
            "--to",
            "b",
            "--task",
            "T-6",
            "--status",
            "blocked",
            "--question",
            "Which pool size?",
        ])
        .assert()
        .success()
        .stderr(predicates::str::is_empty());
}

#[test]
fn signal_rejects_unknown_status_listing_valid_ones() {
    let p = TestProject::new();
    p.forge()
        .args([
            "signal", "--from", "a", "--to", "b", "--task", "T-1", "--status", "done",
        ])
        .assert()
        .code(2)
        .stderr(
            contains("complete")
                .and(contains("partial"))
                .and(contains("blocked")),
        );
    assert!(!p.forge_dir().join("handoffs").exists());
}

#[test]
fn signal_task_id_cannot_escape_the_handoffs_folder() {
    let p = TestProject::new();
    let out = p
        .forge()
        .args([
            "signal",
            "--from",
            "a",
            "--to",
            "b",
            "--task",
            "../../../outside/x",
            "--status",
            "partial",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let path = PathBuf::from(stdout_of(&out).trim());
    assert_eq!(path.parent().unwrap(), p.forge_dir().join("handoffs"));
    assert!(!p.dir.path().join("outside").exists());
    let s = parse_signal(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(s.signal().unwrap().task_id, "../../../outside/x");
}

// ----- resume -------------------------------------------------------------------

fn inbox(p: &TestProject) {
    for f in [
        "agent-T-010-20261120-170944.md",
        "agent-T-011-20261121-090102.md",
        "agent-T-012-20261121-101502.md",
        "handoff-20261121-094500.md",
    ] {
        p.add_handoff_fixture(f);
    }
}

/// A marker's path (its first line), after checking that a person chose it: the
/// project's marker says so on its second line; the global one holds the bare path.
fn marker(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    if path.ends_with(".claude/pending-resume") {
        assert_eq!(text.lines().count(), 1, "{text}");
        return text.trim_end().to_owned();
    }
    let (first, origin) = text.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(origin, "chosen", "{text}");
    first.to_owned()
}

#[test]
fn resume_lists_blocked_first_then_newest_with_details() {
    let p = TestProject::new();
    inbox(&p);
    let out = p.forge().arg("resume").output().unwrap();
    assert!(out.status.success());
    let text = stdout_of(&out);
    let pos = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s} missing:\n{text}"))
    };
    assert!(pos("agent-T-012-20261121-101502.md") < pos("handoff-20261121-094500.md"));
    assert!(pos("handoff-20261121-094500.md") < pos("agent-T-011-20261121-090102.md"));
    let session_line = text
        .lines()
        .find(|l| l.contains("handoff-20261121-094500.md"))
        .unwrap();
    for want in [
        "  2  ",
        "session",
        "context-threshold",
        "feat/pool",
        "T-011",
        "20261121-094500",
    ] {
        assert!(session_line.contains(want), "{want}: {session_line}");
    }
    let blocked_line = text.lines().find(|l| l.contains("agent-T-012")).unwrap();
    assert!(blocked_line.contains("blocked") && blocked_line.contains("builder→reviewer"));
    assert!(
        text.lines()
            .any(|l| l.contains("agent-T-011") && l.contains("malformed"))
    );

    // --json: the same list in the same order, one object each, for scripts.
    let out = p.forge().args(["resume", "--json"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["handoffs"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        text.lines().filter(|l| l.contains(".md")).count()
    );
    assert_eq!(rows[0]["file"], "agent-T-012-20261121-101502.md");
    assert_eq!(rows[0]["n"], 1);
    assert_eq!(rows[0]["status"], "blocked");
    let session = &rows[1];
    assert_eq!(session["id"], "20261121-094500");
    assert_eq!(session["kind"], "session");
    assert_eq!(session["status"], "context-threshold");
    assert_eq!(session["branch"], "feat/pool");
    assert_eq!(session["pending"], false);
    assert!(v["pending"].is_null(), "{v}");
    p.forge().args(["resume", "2"]).assert().success();
    let out = p.forge().args(["resume", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["handoffs"][1]["pending"], true, "{v}");
    assert!(
        v["pending"]
            .as_str()
            .unwrap()
            .ends_with("handoff-20261121-094500.md")
    );
    // --json lists: it does not go with choosing, printing or clearing.
    assert!(
        !p.forge()
            .args(["resume", "--json", "--print"])
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn resume_selects_prints_with_drift_and_clears() {
    let p = TestProject::new();
    inbox(&p);
    let project_marker = p.forge_dir().join("pending-resume");
    let global_marker = p.home.join(".claude/pending-resume");
    let session = p.forge_dir().join("handoffs/handoff-20261121-094500.md");

    p.forge().args(["resume", "1"]).assert().success();
    let first = p
        .forge_dir()
        .join("handoffs/agent-T-012-20261121-101502.md");
    assert_eq!(marker(&project_marker), first.display().to_string());
    assert_eq!(marker(&global_marker), first.display().to_string());

    p.forge()
        .args(["resume", "--latest"])
        .assert()
        .success()
        .stdout(contains("handoff-20261121-094500.md"));
    assert_eq!(marker(&project_marker), session.display().to_string());

    // --print: the pending one, drift first (the fixture was written on feat/pool).
    let out = p.forge().args(["resume", "--print"]).output().unwrap();
    assert!(out.status.success());
    let text = stdout_of(&out);
    assert!(text.starts_with("Resuming from handoff "), "{text}");
    let drift = text.find("Drift: branch changed").expect("drift note");
    let body = text
        .find("# Session handoff — T-011")
        .expect("handoff text");
    assert!(drift < body);
    assert!(text.contains("feat/pool") && text.contains("main"));

    // By path, printed at once; stdout carries only the handoff.
    let out = p
        .forge()
        .args([
            "resume",
            ".forge/handoffs/agent-T-010-20261120-170944.md",
            "--print",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(stdout_of(&out).starts_with("Resuming from handoff "));
    assert!(stdout_of(&out).contains("Task: T-010"));
    assert!(!stdout_of(&out).contains("next session"));
    assert!(marker(&project_marker).ends_with("agent-T-010-20261120-170944.md"));

    p.forge()
        .args(["resume", "--clear"])
        .assert()
        .success()
        .stdout(contains("Cleared"));
    assert!(!project_marker.exists());
    assert!(!global_marker.exists());
    p.forge()
        .args(["resume", "--print"])
        .assert()
        .code(1)
        .stderr(contains("nothing is pending").and(contains("forge resume --latest")));
}

#[test]
fn resume_errors_say_what_to_do() {
    let p = TestProject::new();
    p.forge()
        .args(["resume", "--latest"])
        .assert()
        .code(1)
        .stderr(contains("no handoffs").and(contains("forge handoff")));
    p.forge()
        .args(["resume", "1"])
        .assert()
        .code(1)
        .stderr(contains("no handoffs"));
    p.forge()
        .arg("resume")
        .assert()
        .success()
        .stdout(contains("No handoffs"));
    inbox(&p);
    p.forge()
        .args(["resume", "9"])
        .assert()
        .code(1)
        .stderr(contains("no handoff #9").and(contains("1 to 4")));
    p.forge()
        .args(["resume", "0"])
        .assert()
        .code(1)
        .stderr(contains("no handoff #0"));
    p.forge()
        .args(["resume", "handoff-missing.md"])
        .assert()
        .code(1)
        .stderr(contains("no such handoff file: handoff-missing.md"));
    assert!(!p.forge_dir().join("pending-resume").exists());
}

#[test]
fn resume_by_path_takes_only_handoff_files_and_clears_every_marker_it_wrote() {
    let p = TestProject::new();
    inbox(&p);
    let project_marker = p.forge_dir().join("pending-resume");
    let global_marker = p.home.join(".claude/pending-resume");
    for not_a_handoff in ["README.md", ".forge/handoffs", "notes.txt"] {
        p.forge()
            .args(["resume", not_a_handoff])
            .assert()
            .code(1)
            .stderr(contains("not a handoff file").and(contains("handoff-*.md")));
    }
    p.forge()
        .args(["resume", "handoff-20990101-000000.md"])
        .assert()
        .code(1)
        .stderr(contains("no such handoff file"));
    assert!(!project_marker.exists());

    // A detour through `..` is stored as the canonical path.
    p.forge()
        .args([
            "resume",
            ".forge/handoffs/../handoffs/handoff-20261121-094500.md",
        ])
        .assert()
        .success();
    let canonical = p
        .forge_dir()
        .join("handoffs/handoff-20261121-094500.md")
        .canonicalize()
        .unwrap();
    assert_eq!(marker(&project_marker), canonical.display().to_string());

    // A handoff of another project is refused: a session only resumes from this
    // project's .forge/handoffs/, so the choice would leave nothing pending.
    let other = TestProject::new();
    let theirs = other.add_handoff_fixture("handoff-20261121-094500.md");
    p.forge()
        .arg("resume")
        .arg(&theirs)
        .assert()
        .code(1)
        .stderr(contains("not in this project's"));
    assert_eq!(marker(&project_marker), canonical.display().to_string());
    // Markers an older forge (or a script) wrote for it: --clear removes the global
    // one too, as it names the same file as the project's.
    std::fs::write(&project_marker, format!("{}\n", theirs.display())).unwrap();
    std::fs::write(&global_marker, format!("{}\n", theirs.display())).unwrap();
    p.forge()
        .args(["resume", "--clear"])
        .assert()
        .success()
        .stdout(contains(global_marker.display().to_string()));
    assert!(!project_marker.exists());
    assert!(!global_marker.exists());
}

// ----- learn --------------------------------------------------------------------

#[test]
fn learn_status_reports_flag_folder_and_files() {
    let p = TestProject::new();
    let mem = memory_dir(&p);
    p.forge()
        .args(["learn", "status"])
        .assert()
        .success()
        .stdout(
            contains(mem.display().to_string())
                .and(contains("Learn pending: no"))
                .and(contains("MEMORY.md: none")),
        );
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::write(mem.join("MEMORY.md"), "# m\n- a\n- b\n").unwrap();
    std::fs::write(mem.join("learned-retry.md"), "# Retry\nx\n").unwrap();
    std::fs::write(mem.join("learned-one.md"), "# One\n").unwrap();
    std::fs::write(mem.join("other.md"), "x").unwrap();
    p.write(".forge/logs/learn-pending", "");
    let out = p.forge().args(["learn", "status"]).output().unwrap();
    let text = stdout_of(&out);
    assert!(text.contains("Learn pending: yes"), "{text}");
    assert!(text.contains("MEMORY.md: 3 lines"), "{text}");
    assert!(text.contains("learned-retry.md (2 lines)"), "{text}");
    assert!(text.contains("learned-one.md (1 line)\n"), "{text}");
    assert!(!text.contains("other.md"), "{text}");
    // `forge learn` alone is `forge learn status`.
    let bare = p.forge().arg("learn").output().unwrap();
    assert!(bare.status.success(), "{bare:?}");
    assert_eq!(stdout_of(&bare), text);
    let out = p
        .forge()
        .args(["learn", "status", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["learn_pending"], true);
    assert_eq!(v["memory_md_lines"], 3);
}

#[test]
fn learn_archive_keeps_the_newest_lines_within_the_limit() {
    let p = TestProject::new();
    let mem = memory_dir(&p);
    std::fs::create_dir_all(&mem).unwrap();
    let long: String = std::iter::once("# Project memory\n".to_owned())
        .chain((1..=199).map(|i| format!("- note {i}: keep me\n")))
        .collect();
    std::fs::write(mem.join("MEMORY.md"), &long).unwrap();
    p.forge()
        .args(["learn", "archive"])
        .assert()
        .success()
        .stdout(contains("Moved the oldest 22 lines"));
    let archives: Vec<_> = std::fs::read_dir(&mem)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("archive-"))
        .collect();
    assert_eq!(archives.len(), 1, "{archives:?}");
    let archive = std::fs::read_to_string(mem.join(&archives[0])).unwrap();
    let memory = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    assert_eq!(memory.lines().count(), 180, "{memory}");
    assert!(memory.starts_with("# Project memory\n"), "{memory}");
    assert!(memory.contains(&archives[0]), "{memory}");
    // The newest notes stay; the oldest moved; every note is in exactly one place.
    assert!(memory.ends_with("- note 199: keep me\n"), "{memory}");
    assert!(archive.contains("- note 1: keep me\n") && !memory.contains("- note 1: keep me\n"));
    for i in 1..=199 {
        let line = format!("- note {i}: keep me\n");
        assert_eq!(
            archive.matches(&line).count() + memory.matches(&line).count(),
            1,
            "{line}"
        );
    }
    // Within the limit now: nothing to do.
    p.forge()
        .args(["learn", "archive"])
        .assert()
        .success()
        .stdout(contains("nothing to archive"));
    // A smaller limit from the config: the same day's archive grows, nothing lost.
    std::fs::create_dir_all(p.forge_dir()).unwrap();
    std::fs::write(
        p.forge_dir().join("config.toml"),
        "[learn]\nmemory_max_lines = 50\n",
    )
    .unwrap();
    p.forge().args(["learn", "archive"]).assert().success();
    let archive2 = std::fs::read_to_string(mem.join(&archives[0])).unwrap();
    assert!(archive2.starts_with(&archive));
    let memory2 = std::fs::read_to_string(mem.join("MEMORY.md")).unwrap();
    assert_eq!(memory2.lines().count(), 50, "{memory2}");
    assert!(memory2.ends_with("- note 199: keep me\n"));
    assert!(archive2.contains("- note 100: keep me\n"));
}

#[test]
fn learn_done_clears_the_reminder_until_a_session_changes_files_again() {
    let p = TestProject::new();
    let hook = |event: &str, extra: serde_json::Value| {
        let mut payload = serde_json::json!({
            "session_id": "s-learn", "cwd": p.root, "hook_event_name": event,
        });
        payload
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let out = p
            .forge()
            .args(["hook", event])
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert!(out.status.success());
        stdout_of(&out)
    };
    hook("SessionStart", serde_json::json!({"source": "startup"}));
    hook("Stop", serde_json::json!({}));
    let flag = p.forge_dir().join("logs/learn-pending");
    assert!(
        !flag.exists(),
        "a turn that changed nothing sets no reminder"
    );
    hook(
        "PreToolUse",
        serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": p.root.join("a.txt")}}),
    );
    hook("Stop", serde_json::json!({}));
    assert!(flag.exists());
    p.forge()
        .args(["learn", "status"])
        .assert()
        .success()
        .stdout(contains("Learn pending: yes"));
    p.forge()
        .args(["learn", "done"])
        .assert()
        .success()
        .stdout(contains(
            "Learn reminder cleared. Changes count from now on in 1 live session.",
        ));
    assert!(!flag.exists());
    // The same session goes on without changing anything: no reminder again.
    hook("Stop", serde_json::json!({}));
    assert!(!flag.exists());
    p.forge()
        .args(["learn", "done"])
        .assert()
        .success()
        .stdout(contains("No learn reminder was pending."));
    // It edits again: the reminder is back.
    hook("PreToolUse", serde_json::json!({"tool_name": "Edit"}));
    hook("Stop", serde_json::json!({}));
    assert!(flag.exists());
}

// ----- completions, man, help ---------------------------------------------------

#[test]
fn completions_and_man_produce_output() {
    let p = TestProject::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = p.forge().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let text = stdout_of(&out);
        assert!(text.contains("forge") && text.contains("resume"), "{shell}");
    }
    p.forge().args(["completions", "tcsh"]).assert().code(2);
    let out = p.forge().arg("man").output().unwrap();
    let page = stdout_of(&out);
    assert!(
        page.starts_with(".ie") || page.contains(".TH forge"),
        "{page}"
    );
    assert!(page.contains("doctor"));
    p.forge()
        .args(["man", "init"])
        .assert()
        .success()
        .stdout(contains(".TH forge-init").and(contains("dry")));
    p.forge()
        .args(["man", "nope"])
        .assert()
        .code(1)
        .stderr(contains("choose one of"));
}

#[test]
fn man_pages_name_commands_as_typed_and_refer_to_no_missing_page() {
    let p = TestProject::new();
    let page = stdout_of(&p.forge().args(["man", "init"]).output().unwrap());
    let after = |head: &str| {
        let at = page.find(head).unwrap_or_else(|| panic!("{head}:\n{page}"));
        page[at + head.len()..].lines().nth(1).unwrap().to_owned()
    };
    assert!(
        after(".SH NAME").starts_with("forge\\-init \\- Wire Claude Code"),
        "{page}"
    );
    assert!(
        after(".SH SYNOPSIS").starts_with("\\fBforge init\\fR [\\-\\-project <DIR>] [\\-\\-user]"),
        "{page}"
    );
    assert!(page.contains(".SH EXAMPLES"), "{page}");
    // The whole manual: every command in one page, and no `forge-x(1)` references
    // to pages that `forge man > forge.1` does not install.
    let full = stdout_of(&p.forge().arg("man").output().unwrap());
    assert!(!full.contains("(1)"), "{full}");
    for cmd in [
        "init", "doctor", "config", "signal", "resume", "learn", "man",
    ] {
        assert!(
            full.contains(&format!(".SH \"FORGE {}\"", cmd.to_uppercase())),
            "{cmd}"
        );
    }
    assert!(full.contains("forge config show"));
    assert!(full.contains("[\\-\\-question <Q>...]"), "{full}");
    assert_eq!(full.matches(".ds Aq").count(), 2, "one preamble");
    let config_page = stdout_of(&p.forge().args(["man", "config"]).output().unwrap());
    assert!(!config_page.contains("(1)"), "{config_page}");
    assert!(
        config_page.contains("\\fBforge config show\\fR"),
        "{config_page}"
    );
}

#[test]
fn help_lists_options_before_examples_and_summaries_without_periods() {
    let p = TestProject::new();
    let top = stdout_of(&p.forge().arg("--help").output().unwrap());
    let list = &top[top.find("Commands:").unwrap()..top.find("Options:").unwrap()];
    for cmd in [
        "init",
        "doctor",
        "config",
        "signal",
        "resume",
        "learn",
        "completions",
        "man",
    ] {
        let line = list
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{cmd} ")))
            .unwrap();
        assert!(!line.ends_with('.'), "{line}");
        let help = stdout_of(&p.forge().args([cmd, "--help"]).output().unwrap());
        let usage = help.find("Usage:").unwrap();
        let examples = help
            .find("Examples:")
            .unwrap_or_else(|| panic!("{cmd}: {help}"));
        let options = help.find("Options:").unwrap();
        assert!(usage < options && options < examples, "{cmd}:\n{help}");
        assert!(
            help[examples..].contains(&format!("  forge {cmd}")),
            "{cmd}:\n{help}"
        );
    }
}

#[test]
fn every_new_command_has_help_with_an_example() {
    let p = TestProject::new();
    for cmd in [
        "init",
        "doctor",
        "config",
        "signal",
        "resume",
        "learn",
        "completions",
        "man",
    ] {
        p.forge()
            .args([cmd, "--help"])
            .assert()
            .success()
            .stdout(contains("Examples:").and(contains(format!("forge {cmd}"))));
    }
}

#[test]
fn doctor_fails_when_a_command_of_your_own_config_does_not_resolve() {
    let p = TestProject::new();
    p.forge().args(["init", "--commands"]).assert().success();
    let cfg = p.xdg.join("forge/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "[notify]\ncommand = [\"no-such-orchestrator-forge-test\", \"--message\"]\n\n\
         [[on_session_start]]\ncommand = \"BRIEF=1 no-such-brief-forge-test --json\"\n\n\
         [[on_threshold]]\ncommand = \"cat > /dev/null\"\n\n\
         [agents.builder.notify]\ncommand = [\"/nonexistent/forge-test/orch\"]\n",
    )
    .unwrap();
    let out = p.forge().arg("doctor").output().unwrap();
    let text = stdout_of(&out);
    assert!(!out.status.success(), "{text}");
    assert!(!text.contains("Everything looks right"), "{text}");
    let line = text.lines().find(|l| l.contains("own-commands")).unwrap();
    assert!(
        line.contains("FAIL") && line.contains("3 commands"),
        "{line}"
    );
    for want in [
        "[notify] command: `no-such-orchestrator-forge-test --message`: `no-such-orchestrator-forge-test` is not on PATH",
        "[[on_session_start]]: `BRIEF=1 no-such-brief-forge-test --json`: `no-such-brief-forge-test` is not on PATH",
        "[agents.builder] [notify] command: `/nonexistent/forge-test/orch`: /nonexistent/forge-test/orch does not exist",
    ] {
        assert!(text.contains(want), "{want} in {text}");
    }
    assert!(!text.contains("`cat > /dev/null`"), "cat resolves: {text}");
    // Fixed: every program is there.
    std::fs::write(
        &cfg,
        "[notify]\ncommand = [\"cat\"]\n\n[[on_session_start]]\ncommand = \"echo hi; true\"\n",
    )
    .unwrap();
    let out = p.forge().arg("doctor").output().unwrap();
    let text = stdout_of(&out);
    assert!(out.status.success(), "{text}");
    let line = text.lines().find(|l| l.contains("own-commands")).unwrap();
    assert!(line.contains("ok") && line.contains("(cat)"), "{line}");
}
