//! The hooks in the settings files: forge's wired for every event, how the shared
//! file behaves for a teammate without forge, the guarded form of earlier versions,
//! hook commands whose script is missing, and forge's hook wired twice.

use std::path::Path;

use super::{Check, SettingsFile, Status, shown};
use crate::model::setup::settings::{self, Expand, FORGE_EVENTS};
use crate::model::text::count;
use crate::store::Paths;

pub(super) fn check_hooks(files: &[SettingsFile], paths: &Paths) -> Check {
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

/// How forge's entries in the shared `.claude/settings.json` (committed, so every
/// clone runs them) behave for a teammate who has not installed forge: the guarded
/// ones `forge init` writes do nothing there (one line at SessionStart says how to
/// install forge, the status line stays empty); plain `forge hook <Event>` entries,
/// as older versions wrote them, fail on every event and tool call.
pub(super) fn check_teammates(files: &[SettingsFile], paths: &Paths) -> Check {
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
            count(plain.len(), "of forge's entries", "of forge's entries"),
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
pub(super) fn check_path_search(files: &[SettingsFile], paths: &Paths) -> Check {
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
            count(old.len(), "of forge's entries is", "of forge's entries are"),
            if old.len() == 1 { "it" } else { "them" },
        ),
    )
    .with(old)
}

pub(super) fn check_dead_hooks(files: &[SettingsFile], paths: &Paths, expand: Expand<'_>) -> Check {
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
                count(personal, "hook command in your own settings runs", "hook commands in your own settings run"),
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
                count(in_shared, "hook command in the shared .claude/settings.json runs", "hook commands in the shared .claude/settings.json run"),
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
pub(super) fn check_twice(files: &[SettingsFile], paths: &Paths) -> Check {
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
                count(twice.len(), "event", "events")
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
