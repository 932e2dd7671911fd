//! `forge doctor`: checks that forge is wired up and the project's forge-related files
//! are sound, and says what to do about each problem.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;
use serde_json::Value;

use crate::app::project::locate_project;
use crate::env::Env;
use crate::model::handoff::entry::HandoffKind;
use crate::model::handoff::entry::split_front_matter;
use crate::model::handoff::signal::SignalParse;
use crate::model::setup::settings::{self, Expand, FORGE_EVENTS};
use crate::model::text::secrets::find_secrets;
use crate::store::{Paths, handoffs};

/// The model aliases Claude Code accepts in command and agent front matter (full
/// model ids such as `claude-sonnet-4-6` are accepted too, see [`model_problem`]).
pub(crate) const MODEL_ALIASES: [&str; 4] = ["opus", "sonnet", "haiku", "inherit"];

/// What is wrong with a `model:` value, or `None` when Claude Code accepts it: one of
/// [`MODEL_ALIASES`], or a full model id `claude-…` (lower-case letters, digits, `.`
/// and `-`), either optionally with the 1M-context suffix `[1m]` (docs/client-reference.md §7.2).
pub(crate) fn model_problem(value: &str) -> Option<String> {
    fn accepted(v: &str) -> bool {
        let base = v
            .strip_suffix("[1m]")
            .or_else(|| v.strip_suffix("[1M]"))
            .unwrap_or(v);
        if MODEL_ALIASES.contains(&base) {
            return base == v || base == "opus" || base == "sonnet";
        }
        base.strip_prefix("claude-").is_some_and(|rest| {
            !rest.is_empty()
                && rest.chars().any(|c| c.is_ascii_alphabetic())
                && rest
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
        })
    }
    if accepted(value) {
        return None;
    }
    let lower = value.to_ascii_lowercase();
    if lower != value && accepted(&lower) {
        let what = if lower.starts_with("claude-") {
            "model ids"
        } else {
            "aliases"
        };
        return Some(format!("{what} are lower-case: {lower}"));
    }
    Some(format!(
        "use {} or a full model id such as claude-sonnet-4-6",
        MODEL_ALIASES.join(", ")
    ))
}

/// Check forge's setup and explain what to fix
///
/// Checks: forge wired into the settings (pointing at a binary that exists, or at
/// `forge` found on PATH), how the shared .claude/settings.json behaves for a
/// teammate without forge (guarded entries do nothing there; plain `forge hook …`
/// ones fail on every event), forge's hooks wired twice with different commands (so
/// each event runs twice), the forge binary the slash commands run, the
/// statusLine, forge's Claude Code plugin (installed for this project, and not
/// wired twice with settings entries), `.forge/` git-ignored, hook commands whose
/// script is missing (a failure in your own settings, a warning in the shared
/// .claude/settings.json),
/// `model:` in .claude/commands and .claude/agents (opus, sonnet, haiku, inherit or
/// a full model id such as claude-sonnet-4-6), every agent Signal in
/// .forge/handoffs, learned-*.md memory files free of secret-looking text,
/// MEMORY.md size, the config files, every program your own config runs
/// ([notify] command, [[on_threshold]] and [[on_session_start]] commands), and
/// that every secret pattern compiles. Exits 1 when a check fails.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge doctor\n",
        "  forge doctor --json | jq '.checks[] | select(.status != \"ok\")'"
    )
)]
pub(crate) struct DoctorArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Print the checks as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Fine.
    Ok,
    /// Worth a look; not a failure.
    Warn,
    /// Something is wrong.
    Fail,
}

/// One check: what was checked, how it went, and what to do.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// Short name.
    pub(crate) name: &'static str,
    /// ok / warn / fail.
    pub(crate) status: Status,
    /// One line: the finding and what to do.
    pub(crate) summary: String,
    /// Specific items (files, entries).
    pub(crate) details: Vec<String>,
}

impl Check {
    fn new(name: &'static str, status: Status, summary: impl Into<String>) -> Self {
        Self {
            name,
            status,
            summary: summary.into(),
            details: Vec::new(),
        }
    }
    fn with(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }
}

/// A settings file that was read (or failed to parse).
struct SettingsFile {
    path: PathBuf,
    value: Result<Value, String>,
}

/// Runs `forge doctor`.
pub(crate) fn run(args: &DoctorArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = locate_project(args.project.as_ref(), env)?;
    let checks = run_checks(&paths, env);
    let failed = checks.iter().any(|c| c.status == Status::Fail);
    if args.json {
        let v = serde_json::json!({
            "project": paths.root,
            "ok": !failed,
            "checks": checks,
        });
        super::print_json(&v)?;
    } else {
        super::print_out(&render(&paths, &checks));
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every check, in a fixed order.
pub(crate) fn run_checks(paths: &Paths, env: &Env) -> Vec<Check> {
    let files = settings_files(paths, env);
    let expand = Expand {
        home: env.home.as_deref(),
        project: Some(&paths.root),
    };
    let refused = |name: &'static str| {
        Check::new(
            name,
            Status::Warn,
            "not checked: forge does not read this project's .forge/ (see state-folders)",
        )
    };
    let trusted = paths.check().is_ok();
    let plugins = plugins_of(&files, paths, env);
    let plugin = plugins
        .iter()
        .find(|p| p.wires_hooks())
        .or_else(|| plugins.first());
    let mut checks = vec![
        check_state_folders(paths),
        with_plugin_hooks(check_hooks(&files, paths), plugin, &files, paths),
        with_plugin_binary(check_binary(&files, paths, expand, env), plugin, env),
        check_teammates(&files, paths),
        check_path_search(&files, paths),
        check_twice(&files, paths),
        check_plugin(plugin, &files, paths),
        with_plugin_commands(check_commands(paths, env, expand), plugin),
        with_plugin_statusline(check_statusline(&files, paths), plugin),
        check_gitignore(paths),
        check_dead_hooks(&files, paths, expand),
        check_models(paths, env),
        if trusted {
            check_signals(paths)
        } else {
            refused("signals")
        },
        check_learned(paths, env),
        check_memory_size(paths, env),
        if trusted {
            check_config(paths, env)
        } else {
            refused("config")
        },
        if trusted {
            check_own_commands(paths, env, expand)
        } else {
            refused("own-commands")
        },
        check_share(paths, env),
        check_redaction(),
        check_alerts(paths, env),
    ];
    if let Some(home) = check_home_folder(paths, env) {
        checks.insert(0, home);
    }
    checks
}

/// In the home folder itself: a warning that it is no project (its
/// `.claude/settings.json` is the user's settings, for every project), and what
/// `forge init --user` is for; `None` elsewhere.
fn check_home_folder(paths: &Paths, env: &Env) -> Option<Check> {
    let home = env.home.as_deref()?;
    crate::store::same_file(&paths.root, home).then(|| {
        Check::new(
            "project",
            Status::Warn,
            "this is your home folder, not a project: its .claude/settings.json is your user \
             settings, which Claude Code reads for every project, so what this report says of \
             \"the project\" is of every one. Check a project from its folder; \
             `forge init --user` is the way to wire forge into every project (it edits \
             ~/.claude/settings.json only, no .forge/ or .gitignore)",
        )
    })
}

/// forge's plugins enabled for the project (see [`crate::app::plugin::detect`]).
fn plugins_of(
    files: &[SettingsFile],
    paths: &Paths,
    env: &Env,
) -> Vec<crate::app::plugin::PluginWiring> {
    let given: Vec<(&Path, Option<&Value>)> = files
        .iter()
        .map(|f| (f.path.as_path(), f.value.as_ref().ok()))
        .collect();
    crate::app::plugin::detect(env, &paths.root, &given)
}

/// The settings files that wire forge's hooks (directly, or through the guard the
/// plugin uses), with the events each wires.
fn settings_hook_files(files: &[SettingsFile]) -> Vec<(&SettingsFile, Vec<String>)> {
    files
        .iter()
        .filter_map(|f| {
            let v = f.value.as_ref().ok()?;
            let mut events: Vec<String> = settings::command_hooks(v)
                .iter()
                .filter_map(|h| crate::model::setup::plugin::hook_event_of(&h.command))
                .filter(|e| FORGE_EVENTS.contains(&e.as_str()))
                .collect();
            events.dedup();
            (!events.is_empty()).then_some((f, events))
        })
        .collect()
}

/// The plugin's id and where it is enabled, for messages.
fn plugin_words(p: &crate::app::plugin::PluginWiring, paths: &Paths) -> String {
    format!(
        "the plugin {}, enabled in {}",
        p.id,
        shown(&p.enabled_in, paths)
    )
}

/// `hooks`, counting what forge's plugin wires: a project wired by the plugin alone
/// is wired.
fn with_plugin_hooks(
    check: Check,
    plugin: Option<&crate::app::plugin::PluginWiring>,
    files: &[SettingsFile],
    paths: &Paths,
) -> Check {
    let Some(p) = plugin.filter(|p| p.wires_hooks()) else {
        return check;
    };
    if files.iter().any(|f| f.value.is_err()) {
        return check; // a settings file Claude Code ignores is still a failure
    }
    let mut covered: Vec<String> = p.events.iter().map(|e| (*e).to_owned()).collect();
    let mut sources = vec![plugin_words(p, paths)];
    for (f, events) in settings_hook_files(files) {
        covered.extend(events);
        sources.push(shown(&f.path, paths));
    }
    let missing: Vec<&str> = FORGE_EVENTS
        .iter()
        .copied()
        .filter(|e| !covered.iter().any(|c| c == e))
        .collect();
    if missing.is_empty() {
        Check::new(
            "hooks",
            Status::Ok,
            format!(
                "forge handles all {} hook events ({})",
                FORGE_EVENTS.len(),
                sources.join(" and ")
            ),
        )
    } else {
        Check::new(
            "hooks",
            Status::Fail,
            format!(
                "forge does not handle {} although {} is enabled: update it (`claude plugin update {}`), or run `forge init` to add them",
                missing.join(", "),
                p.id,
                p.id
            ),
        )
    }
}

/// `binary`, for the plugin: its hooks and MCP server run `forge` from PATH.
fn with_plugin_binary(
    check: Check,
    plugin: Option<&crate::app::plugin::PluginWiring>,
    env: &Env,
) -> Check {
    let Some(p) = plugin.filter(|p| p.wires_hooks()) else {
        return check;
    };
    match env.find_program("forge") {
        None => Check::new(
            "binary",
            Status::Fail,
            format!(
                "the plugin {}'s hooks and MCP server run `forge` from PATH, but there is no forge on PATH here, so they do nothing: install forge on PATH ({}) and start Claude Code from a shell where it is found",
                p.id,
                crate::model::setup::install::commands()
            ),
        ),
        Some(found) => {
            let line = format!(
                "the plugin {} runs `forge` from PATH: {}",
                p.id,
                found.display()
            );
            if check.status == Status::Warn && check.details.is_empty() {
                // "no forge commands in the settings to check": the plugin's are.
                Check::new("binary", Status::Ok, line)
            } else {
                let mut check = check;
                check.details.push(line);
                check
            }
        }
    }
}

/// `commands`, for the plugin: it carries /forge:forge-learn and /forge:forge-continue.
fn with_plugin_commands(check: Check, plugin: Option<&crate::app::plugin::PluginWiring>) -> Check {
    match plugin.filter(|p| p.wires_hooks() && p.install_path.is_some()) {
        Some(p) if check.status == Status::Ok && check.summary.starts_with("no forge slash") => {
            Check::new(
                "commands",
                Status::Ok,
                format!(
                    "the slash commands come from the plugin {}: /forge:forge-learn and /forge:forge-continue",
                    p.id
                ),
            )
        }
        _ => check,
    }
}

/// `statusline`, for the plugin: a plugin cannot carry the status line.
fn with_plugin_statusline(
    check: Check,
    plugin: Option<&crate::app::plugin::PluginWiring>,
) -> Check {
    if check.status != Status::Fail || plugin.is_none_or(|p| !p.wires_hooks()) {
        return check;
    }
    Check::new(
        "statusline",
        Status::Fail,
        "no statusLine is set, and a plugin cannot carry one (Claude Code reads statusLine only from settings files), so context use is not shown and the automatic handoff never fires: run `forge init --plugin`",
    )
}

/// forge's plugin: installed and on its own, enabled but not installed, or wired
/// beside settings entries that run the same hooks (Claude Code runs a plugin's
/// hooks and the settings' separately, even identical commands, seen with the
/// client 2.1.330: every event twice).
fn check_plugin(
    plugin: Option<&crate::app::plugin::PluginWiring>,
    files: &[SettingsFile],
    paths: &Paths,
) -> Check {
    let Some(p) = plugin else {
        return Check::new(
            "plugin",
            Status::Ok,
            "forge's Claude Code plugin is not enabled for this project (the other way to wire forge: `claude plugin install forge --marketplace <forge's repository>`, then `forge init --plugin`)",
        );
    };
    if p.install_path.is_none() {
        return Check::new(
            "plugin",
            Status::Warn,
            format!(
                "{} is enabled in {} but not installed here, so it does nothing: run `claude plugin install {}` (or take it out of enabledPlugins)",
                p.id,
                shown(&p.enabled_in, paths),
                p.id
            ),
        );
    }
    let twice = settings_hook_files(files);
    if !twice.is_empty() && p.wires_hooks() {
        let details: Vec<String> = twice
            .iter()
            .map(|(f, events)| format!("{}: {}", shown(&f.path, paths), events.join(", ")))
            .collect();
        let files_words = twice
            .iter()
            .map(|(f, _)| shown(&f.path, paths))
            .collect::<Vec<_>>()
            .join(" and ");
        let shared = paths.root.join(".claude/settings.json");
        let in_shared = twice.iter().any(|(f, _)| f.path == shared);
        let fixes: Vec<String> = twice
            .iter()
            .map(|(f, _)| init_plugin_fix(&f.path, paths))
            .collect();
        let summary = if in_shared && p.enabled_in != shared {
            // The shared file is the team's: teammates without the plugin run forge
            // through it. The fix that breaks nobody turns the plugin off for you here.
            format!(
                "forge's hooks are wired twice: by {} and by `forge hook` entries in {files_words}. Claude Code runs a plugin's hooks and the settings' separately, so every event runs twice. The shared .claude/settings.json is what teammates without the plugin run forge by, so keep it: `claude plugin disable {} --scope local` turns the plugin off for you in this project only. (Only if the whole team moves to the plugin: {} takes forge's hook entries out of the files and keeps the status line, and then every teammate needs the plugin.)",
                plugin_words(p, paths),
                p.id,
                fixes.join(", "),
            )
        } else {
            format!(
                "forge's hooks are wired twice: by {} and by `forge hook` entries in {files_words}. Claude Code runs a plugin's hooks and the settings' separately, so every event runs twice. Keep the plugin: {} (takes forge's hook entries out and keeps the status line); or keep the settings: `claude plugin disable {}`",
                plugin_words(p, paths),
                fixes.join(", "),
                p.id
            )
        };
        return Check::new("plugin", Status::Warn, summary).with(details);
    }
    if !p.wires_hooks() {
        return Check::new(
            "plugin",
            Status::Warn,
            format!(
                "{} is installed, but its hooks.json runs no `forge hook`: update it (`claude plugin update {}`)",
                p.id, p.id
            ),
        );
    }
    Check::new(
        "plugin",
        Status::Ok,
        format!(
            "forge's hooks, slash commands and MCP server come from {}",
            plugin_words(p, paths)
        ),
    )
}

/// The `forge init --plugin` that takes forge's hook entries out of `file`.
fn init_plugin_fix(file: &Path, paths: &Paths) -> String {
    if file == paths.root.join(".claude/settings.local.json") {
        "`forge init --plugin --local`".to_owned()
    } else if file == paths.root.join(".claude/settings.json") {
        "`forge init --plugin`".to_owned()
    } else {
        "`forge init --plugin --user`".to_owned()
    }
}

/// Shell words that are not programs on PATH: builtins and keywords (a command that
/// starts with one cannot be checked by its first word, and needs no file).
const SHELL_BUILTINS: [&str; 33] = [
    ".", ":", "[", "alias", "break", "case", "cd", "command", "continue", "echo", "eval", "exec",
    "exit", "export", "false", "for", "if", "kill", "printf", "pwd", "read", "readonly", "return",
    "set", "shift", "test", "times", "trap", "true", "umask", "unset", "wait", "while",
];

/// The program a `sh -c` command starts with: its first word after `NAME=value`
/// assignments (and after `exec`/`command`), `None` when that is a builtin or
/// keyword, a subshell or anything but a plain word (`$TOOL`, `(`, `{`).
fn sh_program(command: &str) -> Option<String> {
    let words = settings::split_words(command);
    let mut it = words.iter().skip_while(|w| {
        w.split_once('=').is_some_and(|(k, _)| {
            !k.is_empty()
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !k.as_bytes()[0].is_ascii_digit()
        })
    });
    let mut first = it.next()?.as_str();
    if first == "exec" || first == "command" {
        first = it.next()?.as_str();
    }
    let first = first.trim_end_matches(';');
    let plain = !first.is_empty()
        && !first.contains([
            '$', '`', '(', ')', '{', '}', '|', '&', '<', '>', ';', '*', '?',
        ]);
    (plain && !SHELL_BUILTINS.contains(&first)).then(|| first.to_owned())
}

/// Every program your own config runs resolves here, as the hooks' own commands do
/// (`binary`, `dead-hooks`): `[notify] command` (run directly), and the commands of
/// `[[on_threshold]]` and `[[on_session_start]]` (run with `sh -c`), in each agent's
/// view too. A command that does not resolve fails every time it should run, and
/// only the event log would say so.
fn check_own_commands(paths: &Paths, env: &Env, expand: Expand<'_>) -> Check {
    let Ok(loaded) = crate::config::load(paths, env) else {
        return Check::new(
            "own-commands",
            Status::Warn,
            "not checked: the config does not load (see `config`)",
        );
    };
    let mut views = vec![(String::new(), loaded.config.clone())];
    for a in &loaded.agents {
        if let Ok(l) = crate::config::load_as(paths, env, a) {
            views.push((format!("[agents.{a}] "), l.config));
        }
    }
    // (where, the command as written, the program to find)
    let mut programs: Vec<(String, String, String)> = Vec::new();
    let mut push = |entry: (String, String, String)| {
        if !programs.iter().any(|p| p.1 == entry.1 && p.2 == entry.2) {
            programs.push(entry);
        }
    };
    for (agent, cfg) in &views {
        if let Some(program) = cfg.notify.command.first() {
            push((
                format!("{agent}[notify] command"),
                cfg.notify.command.join(" "),
                program.clone(),
            ));
        }
        let hooks = cfg
            .on_threshold
            .iter()
            .map(|h| ("[[on_threshold]]", h))
            .chain(
                cfg.on_session_start
                    .iter()
                    .map(|h| ("[[on_session_start]]", h)),
            );
        for (table, h) in hooks {
            push((
                format!("{agent}{table}"),
                h.command.clone(),
                "sh".to_owned(),
            ));
            if let Some(program) = sh_program(&h.command) {
                push((format!("{agent}{table}"), h.command.clone(), program));
            }
        }
    }
    if programs.is_empty() {
        return Check::new("own-commands", Status::Ok, "your config runs no commands");
    }
    let mut bad = Vec::new();
    for (place, command, program) in &programs {
        let command = crate::model::agents::user_hooks::command_label(command);
        match program_file(program, expand, env) {
            ProgramFile::Missing(p) => {
                bad.push(format!(
                    "{place}: `{command}`: {} does not exist",
                    p.display()
                ));
            }
            ProgramFile::NotOnPath => {
                bad.push(format!("{place}: `{command}`: `{program}` is not on PATH"));
            }
            ProgramFile::Found | ProgramFile::OnPath(_) | ProgramFile::Unknown => {}
        }
    }
    if bad.is_empty() {
        Check::new(
            "own-commands",
            Status::Ok,
            format!(
                "every program your config runs is here ({})",
                programs
                    .iter()
                    .map(|p| p.2.as_str())
                    .filter(|p| *p != "sh")
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    } else {
        Check::new(
            "own-commands",
            Status::Fail,
            format!(
                "{} of your own config cannot be found, so it fails every time it should run (only `forge log` would say so): fix the command or install the program",
                super::count(bad.len(), "command", "commands")
            ),
        )
        .with(bad)
    }
}

/// Every secret shape's regex compiles in this build: one that does not would let
/// text of that shape into handoffs and state files unredacted.
fn check_redaction() -> Check {
    let broken = crate::model::text::redact::rules_that_do_not_compile();
    let total = crate::model::text::redact::RULES.len();
    if broken.is_empty() {
        return Check::new(
            "redaction",
            Status::Ok,
            format!("all {total} secret shapes are redacted"),
        );
    }
    Check::new(
        "redaction",
        Status::Fail,
        format!(
            "{} of {total} secret shapes do not compile in this build, so text of those \
             shapes is stored unredacted: build forge from its own Cargo.toml (regex \
             features)",
            broken.len()
        ),
    )
    .with(broken.iter().map(|id| (*id).to_owned()).collect())
}

/// The settings files Claude Code reads for this project, highest precedence first:
/// `.claude/settings.local.json`, `.claude/settings.json`, the user's settings
/// ([`crate::app::project::claude_settings_files`]: the project's never through a link).
fn settings_files(paths: &Paths, env: &Env) -> Vec<SettingsFile> {
    crate::app::project::claude_settings_files(paths, env)
        .into_iter()
        .filter_map(|(path, follow)| {
            let text = crate::app::project::read_settings(&path, follow)?;
            let value = if text.trim().is_empty() {
                Ok(Value::Null)
            } else {
                serde_json::from_str(&text).map_err(|e| e.to_string())
            };
            Some(SettingsFile { path, value })
        })
        .collect()
}

/// Which alerts are on and how they are delivered here (`[alerts]`, your own
/// config only).
fn check_alerts(paths: &Paths, env: &Env) -> Check {
    let cfg = crate::config::load_or_default(paths, env).alerts;
    let how = crate::app::alert::resolved(env, cfg.via);
    let text = crate::app::alert::describe(&cfg, how);
    let mut lines = text.lines();
    let on = lines.next().unwrap_or_default().to_owned();
    let via = lines.nth(1).unwrap_or_default().to_owned();
    Check::new(
        "alerts",
        Status::Ok,
        format!("{on}; {via} (`forge alerts test` sends one)"),
    )
}

/// The StrictModes check of `.forge/` and its folders ([`Paths::check`]).
fn check_state_folders(paths: &Paths) -> Check {
    if std::fs::symlink_metadata(paths.forge_dir()).is_err() {
        return Check::new(
            "state-folders",
            Status::Ok,
            "no .forge/ yet: the first hook call creates it (with folders only you can write)",
        );
    }
    match paths.check() {
        Ok(()) => Check::new(
            "state-folders",
            Status::Ok,
            ".forge/ and its folders are yours, real folders, and not writable by others",
        ),
        Err(refusal) => Check::new(
            "state-folders",
            Status::Fail,
            format!("forge does not read or write this project's state: {refusal}"),
        ),
    }
}

fn shown(path: &Path, paths: &Paths) -> String {
    path.strip_prefix(&paths.root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

fn check_hooks(files: &[SettingsFile], paths: &Paths) -> Check {
    let mut broken = Vec::new();
    let mut covered: Vec<&str> = Vec::new();
    let mut found_in = Vec::new();
    for f in files {
        match &f.value {
            Err(e) => broken.push(format!("{}: not valid JSON ({e})", shown(&f.path, paths))),
            Ok(v) => {
                let mut here = false;
                for h in settings::command_hooks(v) {
                    if settings::forge_role(&h.words) == Some("hook") {
                        here = true;
                        if let Some(e) = FORGE_EVENTS.iter().find(|e| **e == h.event) {
                            covered.push(e);
                        }
                    }
                }
                if here {
                    found_in.push(shown(&f.path, paths));
                }
            }
        }
    }
    if !broken.is_empty() {
        return Check::new(
            "hooks",
            Status::Fail,
            "a settings file is not valid JSON: Claude Code ignores it; fix it, then run `forge init`",
        )
        .with(broken);
    }
    let missing: Vec<&str> = FORGE_EVENTS
        .iter()
        .copied()
        .filter(|e| !covered.contains(e))
        .collect();
    if missing.len() == FORGE_EVENTS.len() {
        return Check::new(
            "hooks",
            Status::Fail,
            "forge is not wired into Claude Code: run `forge init` (this project) or `forge init --user` (all projects)",
        );
    }
    if !missing.is_empty() {
        return Check::new(
            "hooks",
            Status::Fail,
            format!(
                "forge does not handle {}: run `forge init` to add them",
                missing.join(", ")
            ),
        );
    }
    Check::new(
        "hooks",
        Status::Ok,
        format!(
            "forge handles all {} hook events ({})",
            FORGE_EVENTS.len(),
            found_in.join(", ")
        ),
    )
}

/// forge's entries in the settings files, for the `binary` check.
struct ForgeEntries {
    /// Each (file shown, program as written) once.
    programs: Vec<(String, String)>,
    /// Entries naming forge by a path in a file git shares with others.
    tracked: Vec<String>,
    /// Whether every forge entry is guarded (does nothing where forge is missing).
    all_guarded: bool,
}

/// Every forge hook and status line entry of the settings files, by the program it
/// runs.
fn forge_entries(files: &[SettingsFile], paths: &Paths) -> ForgeEntries {
    let mut programs: Vec<(String, String)> = Vec::new();
    let mut tracked = Vec::new();
    let mut all_guarded = true;
    for f in files {
        let Ok(v) = &f.value else { continue };
        let mut words_list: Vec<Vec<String>> = settings::command_hooks(v)
            .into_iter()
            .map(|h| h.words)
            .collect();
        if let Some(cmd) = settings::statusline_command(v) {
            words_list.push(settings::split_words(cmd));
        }
        for words in words_list {
            if settings::forge_role(&words).is_none() {
                continue;
            }
            all_guarded &= settings::is_guarded(&words);
            if let Some(program) = settings::forge_program(&words).map(str::to_owned) {
                let entry = (shown(&f.path, paths), program.clone());
                if !programs.contains(&entry) {
                    if program.contains('/') && crate::git::is_tracked(&f.path) == Some(true) {
                        tracked.push(format!("{}: runs {program} (tracked by git)", entry.0));
                    }
                    programs.push(entry);
                }
            }
        }
    }
    ForgeEntries {
        programs,
        tracked,
        all_guarded,
    }
}

/// Whether the program forge's entries run exists here (on PATH, or at the path
/// they name), and whether a path in a shared file breaks them for a teammate.
fn check_binary(files: &[SettingsFile], paths: &Paths, expand: Expand<'_>, env: &Env) -> Check {
    let ForgeEntries {
        programs,
        tracked,
        all_guarded,
    } = forge_entries(files, paths);
    if programs.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            "no forge commands in the settings to check (see `hooks`)",
        );
    }
    let mut missing = Vec::new();
    let mut not_found = Vec::new();
    let mut on_path = Vec::new();
    for (file, program) in &programs {
        match program_file(program, expand, env) {
            ProgramFile::Missing(p) => {
                missing.push(format!("{file}: {} does not exist", p.display()));
            }
            ProgramFile::NotOnPath => {
                not_found.push(format!("{file}: `{program}` is not on PATH"));
            }
            ProgramFile::OnPath(p) => {
                on_path.push(format!("`{program}` on PATH is {}", p.display()));
            }
            ProgramFile::Found | ProgramFile::Unknown => {}
        }
    }
    let here = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "this forge".into());
    if !missing.is_empty() {
        return Check::new(
            "binary",
            Status::Fail,
            format!(
                "forge's hooks point at a binary that does not exist: run `forge init` again to point them at {here}"
            ),
        )
        .with(missing);
    }
    if !not_found.is_empty() {
        return Check::new(
            "binary",
            Status::Fail,
            format!(
                "forge's hooks run `forge` from PATH, but there is no forge on PATH here, so {}: install forge on PATH ({install}), or run `forge init` to name this binary ({here}) by its path",
                if all_guarded {
                    "they do nothing (silently: SessionStart only says forge is missing)"
                } else {
                    "every hook fails"
                },
                install = crate::model::setup::install::commands(),
            ),
        )
        .with(not_found);
    }
    let mut distinct: Vec<&str> = Vec::new();
    for (_, p) in &programs {
        if !distinct.contains(&p.as_str()) {
            distinct.push(p);
        }
    }
    let mut files: Vec<&str> = Vec::new();
    for (f, _) in &programs {
        if !files.contains(&f.as_str()) {
            files.push(f);
        }
    }
    if !tracked.is_empty() {
        return Check::new(
            "binary",
            Status::Warn,
            format!(
                "forge's entries in a file git tracks run forge by this machine's path, so for a teammate without that file {}: install forge on PATH ({install}) and run `forge init` again to write the portable `forge hook …`",
                if all_guarded {
                    "they do nothing even where forge is installed"
                } else {
                    "every hook fails"
                },
                install = crate::model::setup::install::commands(),
            ),
        )
        .with(tracked);
    }
    on_path.dedup();
    Check::new(
        "binary",
        Status::Ok,
        format!(
            "forge's entries run {} ({})",
            distinct.join(", "),
            files.join(", ")
        ),
    )
    .with(on_path)
}

/// How forge's entries in the shared `.claude/settings.json` (committed, so every
/// clone runs them) behave for a teammate who has not installed forge: the guarded
/// ones `forge init` writes do nothing there (one line at SessionStart says how to
/// install forge, the status line stays empty); plain `forge hook <Event>` entries,
/// as older versions wrote them, fail on every event and tool call.
fn check_teammates(files: &[SettingsFile], paths: &Paths) -> Check {
    let shared = paths.root.join(".claude/settings.json");
    let mut entries: Vec<(String, String, bool)> = Vec::new();
    if let Some(v) = files
        .iter()
        .find(|f| f.path == shared)
        .and_then(|f| f.value.as_ref().ok())
    {
        for h in settings::command_hooks(v) {
            if settings::forge_role(&h.words).is_some() {
                entries.push((h.event, h.command, settings::is_guarded(&h.words)));
            }
        }
        if let Some(cmd) = settings::statusline_command(v) {
            let words = settings::split_words(cmd);
            if settings::forge_role(&words).is_some() {
                entries.push((
                    "statusLine".into(),
                    cmd.to_owned(),
                    settings::is_guarded(&words),
                ));
            }
        }
    }
    if entries.is_empty() {
        return Check::new(
            "teammates",
            Status::Ok,
            "the shared .claude/settings.json runs no forge entry, so a teammate without forge is not affected",
        );
    }
    let plain: Vec<String> = entries
        .iter()
        .filter(|(.., guarded)| !guarded)
        .map(|(event, command, _)| format!(".claude/settings.json: {event}: `{command}`"))
        .collect();
    if plain.is_empty() {
        return Check::new(
            "teammates",
            Status::Ok,
            "for a teammate without forge, forge's entries in the shared .claude/settings.json do nothing: no failed hook, an empty status line, and one line at SessionStart saying how to install forge",
        );
    }
    Check::new(
        "teammates",
        Status::Warn,
        format!(
            "{} in the shared .claude/settings.json {} forge unguarded, so a teammate without forge gets a failed hook on every event and tool call: run `forge init` to rewrite {} in place (then they do nothing where forge is missing, and SessionStart says once how to install it)",
            super::count(plain.len(), "of forge's entries", "of forge's entries"),
            if plain.len() == 1 { "runs" } else { "run" },
            if plain.len() == 1 { "it" } else { "them" },
        ),
    )
    .with(plain)
}

/// forge's entries in the guarded form earlier versions wrote (`command -v forge …
/// && exec forge …`): with a relative entry in `$PATH` (a leading `:`, a `.`) it runs
/// a `./forge` of the folder Claude Code runs the hook in — the project's own. `forge
/// init` rewrites them to the search of `$PATH`'s absolute folders.
fn check_path_search(files: &[SettingsFile], paths: &Paths) -> Check {
    let mut old = Vec::new();
    for f in files {
        let Ok(v) = &f.value else { continue };
        let mut words: Vec<(String, Vec<String>)> = settings::command_hooks(v)
            .into_iter()
            .map(|h| (h.event, h.words))
            .collect();
        if let Some(cmd) = settings::statusline_command(v) {
            words.push(("statusLine".into(), settings::split_words(cmd)));
        }
        for (event, w) in words {
            if settings::is_old_bare_guard(&w) {
                old.push(format!("{}: {event}", shown(&f.path, paths)));
            }
        }
    }
    if old.is_empty() {
        return Check::new(
            "path-search",
            Status::Ok,
            "forge's entries run only a forge found in an absolute folder of PATH (or named by its path)",
        );
    }
    Check::new(
        "path-search",
        Status::Warn,
        format!(
            "{} in the guarded form of earlier versions (`command -v forge … && exec forge`): with a relative entry in PATH it runs a ./forge of the project first. Run `forge init` (with the same options) to rewrite {} to the search of PATH's absolute folders",
            super::count(old.len(), "of forge's entries is", "of forge's entries are"),
            if old.len() == 1 { "it" } else { "them" },
        ),
    )
    .with(old)
}

/// Where a program named in a forge command is.
enum ProgramFile {
    /// A path that exists.
    Found,
    /// A path that does not exist.
    Missing(PathBuf),
    /// A bare name found on PATH, there.
    OnPath(PathBuf),
    /// A bare name that is not on PATH.
    NotOnPath,
    /// Something forge cannot check (`$OTHER/forge`).
    Unknown,
}

/// Finds the program a forge command runs: a path (`~` and `$HOME` expanded), or a
/// bare name looked up on PATH as the shell would.
fn program_file(program: &str, expand: Expand<'_>, env: &Env) -> ProgramFile {
    match settings::expand_path(program, expand) {
        Some(p) if p.is_file() => ProgramFile::Found,
        Some(p) => ProgramFile::Missing(p),
        None if !program.contains('/') => match env.find_program(program) {
            Some(p) => ProgramFile::OnPath(p),
            None => ProgramFile::NotOnPath,
        },
        None => ProgramFile::Unknown,
    }
}

fn check_statusline(files: &[SettingsFile], paths: &Paths) -> Check {
    let effective = files.iter().find_map(|f| {
        let v = f.value.as_ref().ok()?;
        v.get("statusLine")?;
        Some((f, settings::statusline_command(v).unwrap_or("").to_owned()))
    });
    match effective {
        None => Check::new(
            "statusline",
            Status::Fail,
            "no statusLine is set, so context use is not shown and the automatic handoff never fires: run `forge init`",
        ),
        Some((f, cmd)) if settings::is_forge_command(&cmd) => {
            match settings::wrapped_statusline(&cmd) {
                Some(other) => Check::new(
                    "statusline",
                    Status::Ok,
                    format!(
                        "statusLine runs forge around your own `{other}` ({}): its output with forge's segments",
                        shown(&f.path, paths)
                    ),
                ),
                None => Check::new(
                    "statusline",
                    Status::Ok,
                    format!("statusLine runs forge ({})", shown(&f.path, paths)),
                ),
            }
        }
        Some((f, cmd)) => Check::new(
            "statusline",
            Status::Warn,
            format!(
                "statusLine runs `{cmd}` ({}), not forge: the context gauge and the automatic handoff need forge's; `forge init --wrap-statusline` keeps yours and adds forge's segments, `forge init --replace-statusline` shows forge's instead",
                shown(&f.path, paths)
            ),
        ),
    }
}

fn check_gitignore(paths: &Paths) -> Check {
    if let Err(why) = crate::git::guard::check(&paths.root) {
        return Check::new(
            "gitignore",
            Status::Warn,
            format!("cannot tell whether .forge/ is git-ignored: {why}"),
        );
    }
    match crate::git::is_ignored(&paths.root, ".forge/handoffs/x.md") {
        None => Check::new(
            "gitignore",
            Status::Ok,
            "not a git repository: nothing to ignore",
        ),
        Some(true) => Check::new("gitignore", Status::Ok, ".forge/ is git-ignored"),
        Some(false) => Check::new(
            "gitignore",
            Status::Fail,
            ".forge/ is not git-ignored, so session state could be committed: run `forge init` or add `.forge/` to .gitignore",
        ),
    }
}

fn check_dead_hooks(files: &[SettingsFile], paths: &Paths, expand: Expand<'_>) -> Check {
    let exists = |p: &Path| p.exists();
    // (in the shared project file, line)
    let mut dead: Vec<(bool, String)> = Vec::new();
    for f in files {
        let Ok(v) = &f.value else { continue };
        // The project's .claude/settings.json is committed and shared: a script
        // missing here may exist on a teammate's machine.
        let shared = f.path == paths.root.join(".claude/settings.json");
        for h in settings::command_hooks(v) {
            if settings::forge_role(&h.words).is_some() {
                continue; // reported by `binary`
            }
            if let Some(p) = settings::dead_script(&h.words, expand, &exists) {
                dead.push((
                    shared,
                    format!(
                        "{}: {}: `{}` ({} does not exist)",
                        shown(&f.path, paths),
                        h.event,
                        h.command,
                        p.display()
                    ),
                ));
            }
        }
        if let Some(cmd) = settings::statusline_command(v) {
            let words = settings::split_words(cmd);
            if settings::forge_role(&words).is_none()
                && let Some(p) = settings::dead_script(&words, expand, &exists)
            {
                dead.push((
                    shared,
                    format!(
                        "{}: statusLine: `{cmd}` ({} does not exist)",
                        shown(&f.path, paths),
                        p.display()
                    ),
                ));
            }
        }
    }
    let in_shared = dead.iter().filter(|(s, _)| *s).count();
    let personal = dead.len() - in_shared;
    let shared_hint = "scripts named in the shared .claude/settings.json may exist on a teammate's machine: `forge init --prune-dead` removes those entries if nobody uses them";
    let details = dead.into_iter().map(|(_, d)| d).collect();
    if personal > 0 {
        Check::new(
            "dead-hooks",
            Status::Fail,
            format!(
                "{} a script that does not exist, and each fails on every event: remove {} from your own settings (`forge init --user` or `forge init --local` removes them when it wires forge there){}",
                super::count(personal, "hook command in your own settings runs", "hook commands in your own settings run"),
                if personal == 1 { "it" } else { "them" },
                if in_shared > 0 {
                    format!("; {shared_hint}")
                } else {
                    String::new()
                }
            ),
        )
        .with(details)
    } else if in_shared > 0 {
        Check::new(
            "dead-hooks",
            Status::Warn,
            format!(
                "{} a script that is missing here, and each fails on every event on this machine; {shared_hint}",
                super::count(in_shared, "hook command in the shared .claude/settings.json runs", "hook commands in the shared .claude/settings.json run"),
            ),
        )
        .with(details)
    } else {
        Check::new(
            "dead-hooks",
            Status::Ok,
            "every hook command's script exists",
        )
    }
}

/// Claude Code runs a handler once however many settings files define it, but only
/// when the definitions are identical (command, args, shell and `if`; seen with the
/// real client 2.1.330): `forge hook Stop` in the project file and
/// `/usr/local/bin/forge hook Stop` in the user's are two handlers, and every
/// event is handled twice.
fn check_twice(files: &[SettingsFile], paths: &Paths) -> Check {
    // (event, handler as Claude Code compares it, shown, files)
    let mut seen: Vec<(String, String, String, Vec<String>)> = Vec::new();
    for f in files {
        let Ok(v) = &f.value else { continue };
        let file = shown(&f.path, paths);
        for (event, handler) in settings::handlers(v) {
            let Some(words) = settings::handler_words(handler) else {
                continue;
            };
            if settings::forge_role(&words) != Some("hook") {
                continue;
            }
            let key = serde_json::to_string(&[
                handler.get("command"),
                handler.get("args"),
                handler.get("shell"),
                handler.get("if"),
            ])
            .unwrap_or_default();
            match seen
                .iter_mut()
                .find(|(e, k, _, _)| *e == event && *k == key)
            {
                Some((_, _, _, in_files)) => {
                    if !in_files.contains(&file) {
                        in_files.push(file.clone());
                    }
                }
                None => seen.push((
                    event.to_owned(),
                    key,
                    settings::handler_display(handler),
                    vec![file.clone()],
                )),
            }
        }
    }
    let mut events: Vec<&str> = Vec::new();
    for (e, ..) in &seen {
        if !events.contains(&e.as_str()) {
            events.push(e);
        }
    }
    let mut twice = Vec::new();
    for event in &events {
        let variants: Vec<String> = seen
            .iter()
            .filter(|(e, ..)| e == event)
            .map(|(_, _, shown, in_files)| format!("`{shown}` ({})", in_files.join(", ")))
            .collect();
        if variants.len() > 1 {
            twice.push(format!("{event}: {}", variants.join(" and ")));
        }
    }
    if !twice.is_empty() {
        return Check::new(
            "wired-twice",
            Status::Warn,
            format!(
                "forge's hook runs twice for {}: the commands differ, so Claude Code runs each (it runs identical ones once) and every event is recorded twice. Keep one: `forge init --uninstall` (this project) or `forge init --user --uninstall` (every project)",
                super::count(twice.len(), "event", "events")
            ),
        )
        .with(twice);
    }
    let mut shared_files: Vec<&str> = Vec::new();
    for (.., in_files) in &seen {
        if in_files.len() > 1 {
            for f in in_files {
                if !shared_files.contains(&f.as_str()) {
                    shared_files.push(f);
                }
            }
        }
    }
    if shared_files.is_empty() {
        Check::new("wired-twice", Status::Ok, "each forge hook is wired once")
    } else {
        Check::new(
            "wired-twice",
            Status::Ok,
            format!(
                "forge is wired in {} with identical commands, which Claude Code runs once",
                shared_files.join(" and ")
            ),
        )
    }
}

/// The /forge-learn and /forge-continue commands `forge init --commands` installed
/// run forge by the name or path it had then: check that it is still there.
fn check_commands(paths: &Paths, env: &Env, expand: Expand<'_>) -> Check {
    let mut places = vec![(paths.root.join(".claude/commands"), "forge init --commands")];
    if let Some(d) = env.claude_dir() {
        places.push((d.join("commands"), "forge init --user --commands"));
    }
    let mut installed = 0;
    let mut broken = Vec::new();
    let mut fixes: Vec<&str> = Vec::new();
    for (dir, fix) in &places {
        for (name, template) in crate::model::setup::commands::COMMANDS {
            let file = dir.join(name);
            let Some(text) = crate::store::read_text(&file) else {
                continue;
            };
            installed += 1;
            // A copy the user changed is theirs: nothing to say about it here.
            let Some(program) = crate::model::setup::commands::rendered_program(&text, template)
            else {
                continue;
            };
            let words = settings::split_words(program);
            let Some(program) = words.first() else {
                continue;
            };
            let problem = match program_file(program, expand, env) {
                ProgramFile::Found | ProgramFile::OnPath(_) | ProgramFile::Unknown => None,
                ProgramFile::Missing(p) => {
                    Some(format!("runs {}, which does not exist", p.display()))
                }
                ProgramFile::NotOnPath => {
                    Some(format!("runs `{program}` from PATH, which has none"))
                }
            };
            if let Some(problem) = problem {
                broken.push(format!("{}: {problem}", shown(&file, paths)));
                if !fixes.contains(fix) {
                    fixes.push(fix);
                }
            }
        }
    }
    if !broken.is_empty() {
        let fixes: Vec<String> = fixes.iter().map(|f| format!("`{f}`")).collect();
        return Check::new(
            "commands",
            Status::Warn,
            format!(
                "a forge slash command runs a forge binary that is not there, so it fails when used: run {} again to point it at this forge",
                fixes.join(" and ")
            ),
        )
        .with(broken);
    }
    if installed == 0 {
        Check::new(
            "commands",
            Status::Ok,
            "no forge slash commands installed (`forge init --commands` adds /forge-learn and /forge-continue)",
        )
    } else {
        Check::new(
            "commands",
            Status::Ok,
            format!(
                "{} installed; each runs a forge that exists",
                super::count(installed, "slash command", "slash commands")
            ),
        )
    }
}

/// `*.md` files under `dir`, a few levels deep, sorted.
fn markdown_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    for e in read.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() && depth > 0 {
            markdown_files(&p, depth - 1, out);
        } else if p.extension().is_some_and(|x| x == "md") && p.is_file() {
            out.push(p);
        }
    }
}

fn check_models(paths: &Paths, env: &Env) -> Check {
    let mut dirs = vec![
        paths.root.join(".claude/commands"),
        paths.root.join(".claude/agents"),
    ];
    if let Some(d) = env.claude_dir() {
        dirs.push(d.join("commands"));
        dirs.push(d.join("agents"));
    }
    let mut files = Vec::new();
    for d in &dirs {
        markdown_files(d, 3, &mut files);
    }
    files.sort();
    files.dedup();
    let mut bad = Vec::new();
    for f in &files {
        let Some(text) = crate::store::read_text_follow(f) else {
            continue;
        };
        let (fm, _) = split_front_matter(&text);
        if let Some(model) = fm.get("model")
            && !model.is_empty()
            && let Some(problem) = model_problem(model)
        {
            bad.push(format!("{}: model: {model} ({problem})", shown(f, paths)));
        }
    }
    if bad.is_empty() {
        Check::new(
            "model-aliases",
            Status::Ok,
            format!(
                "{} checked; every `model:` is an alias ({}) or a full model id",
                super::count(files.len(), "command/agent file", "command/agent files"),
                MODEL_ALIASES.join(", ")
            ),
        )
    } else {
        Check::new(
            "model-aliases",
            Status::Fail,
            "a command or agent asks for a model Claude Code does not know: change `model:` to opus, sonnet, haiku, inherit or a full id like claude-sonnet-4-6",
        )
        .with(bad)
    }
}

fn check_signals(paths: &Paths) -> Check {
    let agents: Vec<_> = handoffs::list(paths)
        .into_iter()
        .filter(|h| h.kind == HandoffKind::Agent)
        .collect();
    let bad: Vec<String> = agents
        .iter()
        .filter_map(|h| match &h.signal {
            Some(SignalParse::Malformed { reason }) => {
                Some(format!(".forge/handoffs/{}: {reason}", h.file_name))
            }
            _ => None,
        })
        .collect();
    if bad.is_empty() {
        Check::new(
            "signals",
            Status::Ok,
            format!(
                "{}, every Signal valid",
                super::count(agents.len(), "agent handoff", "agent handoffs")
            ),
        )
    } else {
        Check::new(
            "signals",
            Status::Fail,
            "an agent handoff's Signal is missing or broken, so its status is unknown: fix the fenced JSON under `### Signal` (or rewrite it with `forge signal`)",
        )
        .with(bad)
    }
}

/// `[share]`: off, or the remote answers and the refs are sound (docs/share.md).
fn check_share(paths: &Paths, env: &Env) -> Check {
    let cfg = crate::config::load_or_default(paths, env);
    if cfg.share.remote().is_none() {
        return Check::new(
            "share",
            Status::Ok,
            "off: Signals stay on this machine (`[share] remote = \"origin\"` in your own config shares them through git; docs/share.md)",
        );
    }
    match crate::app::share::doctor(paths, env, &cfg) {
        Ok(lines) => Check::new(
            "share",
            Status::Ok,
            "on: the remote answers, and this machine's ref and the fetch refspec are sound",
        )
        .with(lines),
        Err(why) => Check::new(
            "share",
            Status::Warn,
            format!(
                "on, but {}: forge goes on locally; `forge share --status` has the last error",
                crate::model::text::sanitize::single_line(&why)
            ),
        ),
    }
}

fn check_learned(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = crate::app::learn::memory_dir(paths, env) else {
        return Check::new(
            "learned-secrets",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    let files = crate::app::learn::learned_files(&dir);
    let mut found = Vec::new();
    for f in &files {
        let Some(text) = crate::store::read_text_follow(f) else {
            continue;
        };
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (line, kind) in find_secrets(&text) {
            found.push(format!(
                "{name}:{line}: looks like {}",
                crate::model::text::secrets::with_article(kind)
            ));
        }
    }
    if found.is_empty() {
        Check::new(
            "learned-secrets",
            Status::Ok,
            format!(
                "{}, nothing secret-looking",
                super::count(files.len(), "learned pattern file", "learned pattern files")
            ),
        )
    } else {
        Check::new(
            "learned-secrets",
            Status::Fail,
            format!(
                "learned pattern files in {} look like they hold secrets, which Claude Code loads into sessions: remove those lines and rotate the secret if it was real",
                dir.display()
            ),
        )
        .with(found)
    }
}

fn check_memory_size(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = crate::app::learn::memory_dir(paths, env) else {
        return Check::new(
            "memory-size",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    let limit = crate::config::load_lenient(paths, env)
        .0
        .config
        .learn
        .memory_max_lines;
    match crate::app::learn::line_count(&dir.join("MEMORY.md")) {
        None => Check::new("memory-size", Status::Ok, "no MEMORY.md yet"),
        Some(n) if n > limit => Check::new(
            "memory-size",
            Status::Warn,
            format!(
                "MEMORY.md has {} (over {limit}; Claude Code loads only the first 200): run `forge learn archive`",
                super::count(n, "line", "lines")
            ),
        ),
        Some(n) => Check::new(
            "memory-size",
            Status::Ok,
            format!("MEMORY.md has {}", super::count(n, "line", "lines")),
        ),
    }
}

fn check_config(paths: &Paths, env: &Env) -> Check {
    match crate::config::load(paths, env) {
        Ok(l) if !l.ignored.is_empty() => Check::new(
            "config",
            Status::Warn,
            l.ignored_summary(&paths.root).unwrap_or_default(),
        ),
        Ok(l) => {
            let found: Vec<String> = l
                .files
                .iter()
                .filter(|(_, exists)| *exists)
                .map(|(s, _)| s.to_string())
                .collect();
            Check::new(
                "config",
                Status::Ok,
                if found.is_empty() {
                    "no config files; defaults in use".to_owned()
                } else {
                    format!("valid: {}", found.join(", "))
                },
            )
        }
        Err(e) => {
            Check::new("config", Status::Fail, e.to_string()).with(vec![crate::config::fix_hint()])
        }
    }
}

/// The checks as text for people.
pub(crate) fn render(paths: &Paths, checks: &[Check]) -> String {
    let mut out = format!("forge doctor: {}\n", paths.root.display());
    for c in checks {
        let mark = match c.status {
            Status::Ok => "ok  ",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        };
        let _ = writeln!(out, "  {mark}  {:<16} {}", c.name, c.summary);
        for d in &c.details {
            let _ = writeln!(out, "          - {d}");
        }
    }
    let fails = checks.iter().filter(|c| c.status == Status::Fail).count();
    let warns = checks.iter().filter(|c| c.status == Status::Warn).count();
    let _ = writeln!(
        out,
        "{}",
        match (fails, warns) {
            (0, 0) => "Everything looks right.".to_owned(),
            (0, w) => format!("No problems; {}.", super::count(w, "warning", "warnings")),
            (f, w) => format!(
                "{}, {}.",
                super::count(f, "problem", "problems"),
                super::count(w, "warning", "warnings")
            ),
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_projects_settings_are_never_read_through_a_link_the_users_are() {
        let t = tempfile::tempdir().unwrap();
        let (root, home) = (t.path().join("p"), t.path().join("home"));
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let elsewhere = t.path().join("elsewhere.json");
        std::fs::write(&elsewhere, r#"{"hooks": {}}"#).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join(".claude/settings.json")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(".claude/settings.json")).unwrap();
        let env = Env::for_test(&home, &root);
        let read: Vec<PathBuf> = settings_files(&Paths::new(&root), &env)
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(read, [home.join(".claude/settings.json")]);
    }

    #[test]
    fn a_sh_command_is_checked_by_its_first_program() {
        assert_eq!(
            sh_program("openclaw brief --json").as_deref(),
            Some("openclaw")
        );
        assert_eq!(
            sh_program("FOO=1 BAR=x /opt/bin/orch wake").as_deref(),
            Some("/opt/bin/orch")
        );
        assert_eq!(sh_program("exec my-orch --x").as_deref(), Some("my-orch"));
        assert_eq!(
            sh_program("cat >> '/tmp/log'; echo").as_deref(),
            Some("cat")
        );
        assert_eq!(sh_program("echo hi"), None);
        assert_eq!(sh_program("cd /x && make"), None);
        assert_eq!(sh_program("$ORCH wake"), None);
        assert_eq!(sh_program("(cd /x; make)"), None);
        assert_eq!(sh_program(""), None);
    }

    #[test]
    fn model_values_aliases_and_full_ids() {
        for ok in [
            "opus",
            "sonnet",
            "haiku",
            "inherit",
            "claude-sonnet-4-6",
            "claude-opus-4-6[1m]",
            "claude-haiku-4-5-20251001",
            "claude-3.5-sonnet",
            "sonnet[1m]",
        ] {
            assert_eq!(model_problem(ok), None, "{ok}");
        }
        assert_eq!(
            model_problem("Opus").as_deref(),
            Some("aliases are lower-case: opus")
        );
        assert_eq!(
            model_problem("Claude-Sonnet-4-6").as_deref(),
            Some("model ids are lower-case: claude-sonnet-4-6")
        );
        for bad in [
            "gpt-4",
            "gpt-4o",
            "claude-",
            "claude",
            "opus-4",
            "claude-4 6",
            "inherit[1m]",
        ] {
            let p = model_problem(bad).unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(p.contains("opus, sonnet, haiku, inherit"), "{bad}: {p}");
        }
    }
}
