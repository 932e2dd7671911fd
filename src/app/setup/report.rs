//! What `forge init` says about the settings change it plans: what forge now runs
//! and from where, the plugin's part, each entry added, moved or removed, a status
//! line of the person's own that hides forge's, and an absolute path in a shared
//! file. Read beside the files the plan reads (other settings files, git's index).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Program, SettingsPlan, Target, shown};
use crate::env::Env;
use crate::model::setup::commands::COMMANDS;
use crate::model::setup::ignore::LOCAL_SETTINGS;
use crate::model::setup::plan::{Options, describe_outcome, is_unguarded, unguarded_entries};
use crate::model::setup::settings::{self, Outcome};
use crate::store::{self, Paths};

/// What the settings change does, for the report: what forge now runs and from
/// where, the plugin's part, each entry added, moved or removed, and a status line
/// of the person's own that hides forge's.
pub(super) fn report_settings(
    report: &mut String,
    args: &Options,
    target: &Target,
    s: &SettingsPlan,
    settings_changes: bool,
    env: &Env,
) {
    let wires_forge = settings_changes && !args.uninstall;
    if settings_changes && args.plugin {
        let _ = writeln!(
            report,
            "  forge hooks, slash commands and MCP server: from the forge plugin. A plugin cannot carry the status line, so it is set here."
        );
    }
    if wires_forge {
        describe_wiring(report, args, target, s);
    }
    if wires_forge || (args.commands && !args.uninstall) {
        report.push_str(&target.program.explain());
        report.push('\n');
    }
    let (paths, path) = (&target.paths, &target.settings_path);
    if args.plugin {
        plugin_notes(report, &s.outcome, path, paths, env, &target.program, args);
    }
    describe_outcome(report, &s.outcome, path, &paths.root, args);
    if !args.user && !args.uninstall {
        users_own_statusline_note(report, &s.outcome, env);
    }
}

/// What the wired entries run: the hooks, the status line, unguarded entries
/// upgraded, and what a teammate without forge sees of a shared file.
fn describe_wiring(report: &mut String, args: &Options, target: &Target, s: &SettingsPlan) {
    let program_text = target.program.text.as_str();
    if !args.plugin {
        // The guard `settings::guarded` writes: a bare name is looked for in PATH's
        // absolute folders only; a path is run when it exists.
        let guard = if program_text.contains('/') {
            format!("`command -v {program_text}`")
        } else {
            format!("a search of PATH's absolute folders for `{program_text}`")
        };
        let _ = writeln!(
            report,
            "  forge hooks: `{program_text} hook <Event>` for {}, each behind {guard}",
            settings::FORGE_EVENTS.join(", ")
        );
    }
    let statusline = statusline_line(program_text, &s.outcome.settings);
    if let Some(line) = &statusline {
        report.push_str(line);
    }
    // Those not taken out (as duplicates, or for the plugin) are upgraded.
    let taken = s
        .outcome
        .removed_forge
        .iter()
        .filter(|r| is_unguarded(&settings::split_words(&r.command)))
        .count();
    let upgraded = unguarded_entries(&s.old_value).saturating_sub(taken);
    if upgraded > 0 {
        let _ = writeln!(
            report,
            "  Upgraded {} in place: {} now {} nothing where forge is missing.",
            crate::model::text::count(upgraded, "unguarded forge entry", "unguarded forge entries"),
            if upgraded == 1 { "it" } else { "they" },
            if upgraded == 1 { "does" } else { "do" },
        );
    }
    if target.shared && args.plugin {
        let _ = writeln!(
            report,
            "  For a teammate without forge the committed status line prints nothing; the plugin's hooks do nothing there either, and say once at SessionStart how to install forge."
        );
    } else if target.shared {
        let _ = writeln!(
            report,
            "  For a teammate without forge these committed entries do nothing: no failed hook, {}and one line at SessionStart saying how to install forge.",
            if statusline.is_some() {
                "an empty status line, "
            } else {
                ""
            }
        );
    }
}

/// The report's line on forge's status line (with its wrapped command and how
/// often Claude Code runs it), when the settings run forge's.
fn statusline_line(program_text: &str, settings: &Value) -> Option<String> {
    let command = settings::statusline_command(settings)?;
    if !settings::is_forge_command(command) {
        return None;
    }
    let every = settings
        .get("statusLine")
        .and_then(|s| s.get("refreshInterval"))
        .map_or_else(
            || "only on its own events".to_owned(),
            |n| format!("every {n} s (refreshInterval) and on its own events"),
        );
    let wraps = settings::wrapped_statusline(command)
        .map(|w| format!(" --wrap {}", settings::shell_quote(&w)))
        .unwrap_or_default();
    Some(format!(
        "  statusLine: `{program_text} statusline{wraps}`, behind the same guard; Claude Code runs it {every}\n"
    ))
}

/// An absolute path in a file git shares breaks forge for everyone else: says so
/// when the settings file (or a slash command) this run writes is tracked.
pub(super) fn warn_tracked_absolute_path(report: &mut String, args: &Options, target: &Target) {
    let mut files = vec![target.settings_path.clone()];
    if args.commands {
        let commands = target.claude_base.join("commands");
        files.extend(COMMANDS.iter().map(|(n, _)| commands.join(n)));
    }
    let tracked: Vec<String> = files
        .iter()
        .filter(|f| crate::git::is_tracked(f) == Some(true))
        .map(|f| shown(f, &target.paths))
        .collect();
    if !tracked.is_empty() {
        let _ = writeln!(
            report,
            "  Warning: {} {} tracked by git, so forge's commands there run {exe} on every machine that checks {} out, and do nothing for a teammate whose forge is elsewhere. Install forge on PATH ({install}) and run `forge init` again to write the portable `forge …`, or keep forge out of shared files: `forge init --uninstall`, then `forge init --local`.",
            tracked.join(", "),
            if tracked.len() == 1 { "is" } else { "are" },
            if tracked.len() == 1 { "it" } else { "them" },
            exe = target.program.exe.display(),
            install = crate::model::setup::install::commands(),
        );
    }
}

/// What `--plugin` did and what is left to do: forge's hook entries taken out (the
/// plugin runs them), other settings files that still run them, a plugin that is
/// not installed yet, a forge the plugin cannot find on PATH.
fn plugin_notes(
    out: &mut String,
    o: &Outcome,
    path: &Path,
    paths: &Paths,
    env: &Env,
    program: &Program,
    args: &Options,
) {
    let name = shown(path, paths);
    if !o.removed_forge.is_empty() {
        let _ = writeln!(
            out,
            "  {} forge's hook entries from {name} (the plugin runs them; both would run every event twice):",
            if args.dry_run { "Would take" } else { "Took" }
        );
        for r in &o.removed_forge {
            let _ = writeln!(
                out,
                "    {}: {}",
                r.event,
                settings::short_display(&r.command)
            );
        }
    }
    // The project's own files are never read through a link (a project install
    // checked them before anything was read); the user's may be a dotfiles manager's.
    let mut values: Vec<(PathBuf, Option<Value>)> = Vec::new();
    for (f, follow) in crate::app::project::claude_settings_files(paths, env) {
        let v = if f == path {
            Some(o.settings.clone())
        } else {
            crate::app::project::read_settings(&f, follow)
                .and_then(|t| serde_json::from_str(&t).ok())
        };
        values.push((f, v));
    }
    for (f, v) in &values {
        let still = v.as_ref().is_some_and(|v| {
            settings::command_hooks(v)
                .iter()
                .any(|h| crate::model::setup::plugin::hook_event_of(&h.command).is_some())
        });
        if still && f != path {
            let _ = writeln!(
                out,
                "  Note: {} still runs forge's hooks, so with the plugin every event runs twice: run `forge init --plugin{}` too.",
                shown(f, paths),
                if f == &paths.root.join(LOCAL_SETTINGS) {
                    " --local"
                } else if f == &paths.root.join(".claude/settings.json") {
                    ""
                } else {
                    " --user"
                }
            );
        }
    }
    let given: Vec<(&Path, Option<&Value>)> = values
        .iter()
        .map(|(p, v)| (p.as_path(), v.as_ref()))
        .collect();
    let installed = crate::app::plugin::detect(env, &paths.root, &given)
        .iter()
        .any(crate::app::plugin::PluginWiring::wires_hooks);
    if !installed {
        let _ = writeln!(
            out,
            "  Note: the forge plugin is not installed for this project yet: `claude plugin install forge --marketplace <forge's repository, a clone or owner/repo>` (or `/plugin install …` inside Claude Code). Until then forge records nothing here."
        );
    }
    if program.on_path.is_none() {
        let _ = writeln!(
            out,
            "  Warning: the plugin's hooks run `forge` from PATH, and there is none: install forge on PATH ({}).",
            crate::model::setup::install::commands()
        );
    }
}

/// A status line of your own in your user settings gives way, in this project, to
/// the one a project install sets (Claude Code takes the most precise file's): say
/// so, and how to keep it here with forge's segments.
fn users_own_statusline_note(out: &mut String, o: &Outcome, env: &Env) {
    let sets_forge = settings::statusline_command(&o.settings).is_some_and(|c| {
        settings::is_forge_command(c) && settings::wrapped_statusline(c).is_none()
    });
    let Some(user) = env.claude_dir().map(|d| d.join("settings.json")) else {
        return;
    };
    if !sets_forge {
        return;
    }
    let theirs = store::safe::read_to_string_whole(
        &user,
        crate::app::project::SETTINGS_CAP,
        store::safe::Follow::Yes,
    )
    .ok()
    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    .and_then(|v| settings::statusline_command(&v).map(str::to_owned))
    .filter(|c| !settings::is_forge_command(c));
    if let Some(theirs) = theirs {
        let _ = writeln!(
            out,
            "  Note: your own status line `{theirs}` ({}) is not shown in this project while a project settings file sets one (Claude Code takes the project's). To keep it here with forge's segments, make the statusLine command of .claude/settings.local.json (yours alone) `forge statusline --wrap {}`.",
            user.display(),
            settings::shell_quote(&theirs)
        );
    }
}
