//! forge installed as a Claude Code plugin: what `forge doctor` says about it, and
//! `forge init --plugin`. The install is laid out on disk the way the pinned client
//! 2.1.330 lays it out (`claude plugin install forge@forge`, seen in docs/plugin.md;
//! the end-to-end suite installs it with the real client): `enabledPlugins` in the
//! settings of the install's scope, `~/.claude/plugins/installed_plugins.json`, and
//! the plugin copied under `~/.claude/plugins/cache/forge/forge/<version>/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::path::{Path, PathBuf};

use common::{TestProject, ok_stdout};
use forge::model::setup::settings::{forge_statusline, guarded_statusline};
use serde_json::{Value, json};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn read_json(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(json!({}))
}

fn write_json(path: &Path, v: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// Installs this repository's plugin as `claude plugin install forge@forge
/// [--scope project]` does; returns the install path.
fn install_plugin(p: &TestProject, project_scope: bool) -> PathBuf {
    let claude = p.home.join(".claude");
    let cache = claude.join("plugins/cache/forge/forge/0.1.0");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin"),
        &cache,
    );
    let settings = if project_scope {
        p.root.join(".claude/settings.json")
    } else {
        claude.join("settings.json")
    };
    let mut s = read_json(&settings);
    s["enabledPlugins"] = json!({"forge@forge": true});
    write_json(&settings, &s);
    let mut install = json!({
        "scope": if project_scope { "project" } else { "user" },
        "installPath": cache,
        "version": "0.1.0",
        "installedAt": "2026-11-26T13:00:30.054Z",
        "lastUpdated": "2026-11-26T13:00:30.054Z"
    });
    if project_scope {
        install["projectPath"] = json!(p.root);
    }
    write_json(
        &claude.join("plugins/installed_plugins.json"),
        &json!({"version": 2, "plugins": {"forge@forge": [install]}}),
    );
    cache
}

/// Puts a `forge` on the test's PATH (a link to the binary under test).
fn forge_on_path(p: &TestProject) {
    std::fs::create_dir_all(p.bin_dir()).unwrap();
    std::os::unix::fs::symlink(crate::common::forge_bin(), p.bin_dir().join("forge")).unwrap();
}

fn doctor(p: &TestProject) -> (bool, Value) {
    let out = p.forge().args(["doctor", "--json"]).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.success(), v)
}

fn check<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {v}"))
}

#[test]
fn a_plugin_install_with_the_status_line_is_wired_and_not_a_false_alarm() {
    let p = TestProject::new();
    forge_on_path(&p);
    install_plugin(&p, false);
    let out = ok_stdout(p.forge().args(["init", "--plugin"]));
    assert!(
        out.contains("A plugin cannot carry the status line"),
        "{out}"
    );
    assert!(!out.contains("not installed for this project"), "{out}");
    let settings = read_json(&p.root.join(".claude/settings.json"));
    assert_eq!(settings, json!({"statusLine": forge_statusline("forge")}));
    let (ok, v) = doctor(&p);
    assert!(ok, "{v:#}");
    let hooks = check(&v, "hooks");
    assert_eq!(hooks["status"], "ok", "{hooks}");
    assert!(
        hooks["summary"]
            .as_str()
            .unwrap()
            .contains("the plugin forge@forge"),
        "{hooks}"
    );
    assert_eq!(check(&v, "plugin")["status"], "ok");
    assert_eq!(check(&v, "binary")["status"], "ok", "{v:#}");
    assert_eq!(check(&v, "statusline")["status"], "ok");
    assert!(
        check(&v, "commands")["summary"]
            .as_str()
            .unwrap()
            .contains("/forge:forge-learn"),
        "{v:#}"
    );
    // A second init changes nothing.
    let again = ok_stdout(p.forge().args(["init", "--plugin"]));
    assert!(again.contains("nothing changed"), "{again}");
}

#[test]
fn a_project_install_counts_only_for_its_project() {
    let p = TestProject::new();
    forge_on_path(&p);
    install_plugin(&p, true);
    ok_stdout(p.forge().args(["init", "--plugin"]));
    let settings = read_json(&p.root.join(".claude/settings.json"));
    assert_eq!(
        settings["enabledPlugins"],
        json!({"forge@forge": true}),
        "{settings}"
    );
    let (ok, v) = doctor(&p);
    assert!(ok, "{v:#}");
    // The same install seen from another project: not installed there.
    let mut installed = read_json(&p.home.join(".claude/plugins/installed_plugins.json"));
    installed["plugins"]["forge@forge"][0]["projectPath"] = json!("/somewhere/else");
    write_json(
        &p.home.join(".claude/plugins/installed_plugins.json"),
        &installed,
    );
    let (ok, v) = doctor(&p);
    assert!(!ok, "{v:#}");
    let plugin = check(&v, "plugin");
    assert_eq!(plugin["status"], "warn");
    assert!(
        plugin["summary"]
            .as_str()
            .unwrap()
            .contains("not installed here"),
        "{plugin}"
    );
    assert_eq!(check(&v, "hooks")["status"], "fail");
}

#[test]
fn settings_entries_beside_the_plugin_are_wired_twice_and_init_plugin_fixes_it() {
    let p = TestProject::new();
    forge_on_path(&p);
    ok_stdout(p.forge().args(["init"]));
    install_plugin(&p, false);
    let (_, v) = doctor(&p);
    let plugin = check(&v, "plugin");
    assert_eq!(plugin["status"], "warn", "{v:#}");
    let summary = plugin["summary"].as_str().unwrap();
    assert!(summary.contains("wired twice"), "{summary}");
    assert!(summary.contains("`forge init --plugin`"), "{summary}");
    assert!(
        summary.contains("claude plugin disable forge@forge"),
        "{summary}"
    );
    assert!(
        plugin["details"][0]
            .as_str()
            .unwrap()
            .starts_with(".claude/settings.json: SessionStart"),
        "{plugin}"
    );
    // The same entries in the committed form (guarded for machines without forge),
    // and in the guarded form earlier versions wrote, are the same double wiring.
    let mut guarded = read_json(&p.root.join(".claude/settings.json"));
    guarded["hooks"]["Stop"][0]["hooks"][0]["command"] =
        json!("command -v forge >/dev/null 2>&1 && exec forge hook Stop || true");
    write_json(&p.root.join(".claude/settings.json"), &guarded);
    let out = ok_stdout(p.forge().args(["init", "--plugin"]));
    assert!(
        out.contains("Took forge's hook entries from .claude/settings.json"),
        "{out}"
    );
    assert!(out.contains("Stop: forge hook Stop (guarded)"), "{out}");
    let (ok, v) = doctor(&p);
    assert!(ok, "{v:#}");
    assert_eq!(check(&v, "plugin")["status"], "ok", "{v:#}");
    assert_eq!(check(&v, "hooks")["status"], "ok");
    let settings = read_json(&p.root.join(".claude/settings.json"));
    assert!(settings.get("hooks").is_none(), "{settings}");
    assert!(settings.get("statusLine").is_some(), "{settings}");
}

#[test]
fn the_plugin_without_forge_on_path_or_without_the_status_line_says_what_to_do() {
    let p = TestProject::new();
    install_plugin(&p, false);
    let (ok, v) = doctor(&p);
    assert!(!ok);
    let binary = check(&v, "binary");
    assert_eq!(binary["status"], "fail", "{v:#}");
    assert!(
        binary["summary"]
            .as_str()
            .unwrap()
            .contains("no forge on PATH"),
        "{binary}"
    );
    let statusline = check(&v, "statusline");
    assert_eq!(statusline["status"], "fail");
    assert!(
        statusline["summary"]
            .as_str()
            .unwrap()
            .contains("a plugin cannot carry one")
            && statusline["summary"]
                .as_str()
                .unwrap()
                .contains("forge init --plugin"),
        "{statusline}"
    );
    // The hooks are wired all the same (by the plugin): no "not wired" alarm.
    assert_eq!(check(&v, "hooks")["status"], "ok", "{v:#}");
}

#[test]
fn init_plugin_refuses_what_the_plugin_carries_and_says_when_the_plugin_is_missing() {
    let p = TestProject::new();
    forge_on_path(&p);
    p.forge()
        .args(["init", "--plugin", "--commands"])
        .assert()
        .failure();
    p.forge()
        .args(["init", "--plugin", "--uninstall"])
        .assert()
        .failure();
    let out = ok_stdout(p.forge().args(["init", "--plugin", "--local"]));
    assert!(
        out.contains("the forge plugin is not installed for this project yet"),
        "{out}"
    );
    let local = read_json(&p.root.join(".claude/settings.local.json"));
    assert!(local.get("hooks").is_none(), "{local}");
    assert_eq!(local["statusLine"]["command"], guarded_statusline("forge"));
}

/// `forge init --plugin` also reads the project's other settings file (does it still
/// run forge's hooks?). A repository that ships it as a link to a file outside (here
/// a file of yours that runs forge's hooks) has it refused, as `forge init` refuses
/// every linked path it reads: a project install stops, naming it, and writes
/// nothing; a `--user` install does not read it through the link.
#[test]
fn init_plugin_reads_no_settings_file_through_a_link() {
    use std::os::unix::fs::symlink;
    let p = TestProject::new();
    forge_on_path(&p);
    install_plugin(&p, false);
    let outside = p.dir.path().join("outside.json");
    std::fs::write(
        &outside,
        serde_json::to_string(&json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "forge hook Stop"}]}]}}))
        .unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(p.root.join(".claude")).unwrap();
    let shared = p.root.join(".claude/settings.json");
    symlink(&outside, &shared).unwrap();
    let out = p
        .forge()
        .args(["init", "--plugin", "--local"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&shared.display().to_string()) && err.contains("wrote nothing"),
        "{err}"
    );
    assert!(!p.root.join(".claude/settings.local.json").exists());
    assert!(!p.root.join(".forge").exists());
    // The user's own settings: written; the linked project file is not read.
    let out = ok_stdout(p.forge().args(["init", "--plugin", "--user"]));
    assert!(!out.contains(".claude/settings.json still runs"), "{out}");
    assert!(std::fs::symlink_metadata(&shared).unwrap().is_symlink());
}
