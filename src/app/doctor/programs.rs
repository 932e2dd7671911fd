//! What forge runs and redacts: every program your own config runs, every secret
//! pattern compiling, and how alerts are delivered.

use super::binary::{ProgramFile, program_file};
use super::{Check, Status};
use crate::env::Env;
use crate::model::setup::doctor::sh_program;
use crate::model::setup::settings::Expand;
use crate::model::text::count;
use crate::store::Paths;

/// Every program your own config runs resolves here, as the hooks' own commands do
/// (`binary`, `dead-hooks`): `[notify] command` (run directly), and the commands of
/// `[[on_threshold]]` and `[[on_session_start]]` (run with `sh -c`), in each agent's
/// view too. A command that does not resolve fails every time it should run, and
/// only the event log would say so.
pub(super) fn check_own_commands(paths: &Paths, env: &Env, expand: Expand<'_>) -> Check {
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
                count(bad.len(), "command", "commands")
            ),
        )
        .with(bad)
    }
}

/// Every secret shape's regex compiles in this build: one that does not would let
/// text of that shape into handoffs and state files unredacted.
pub(super) fn check_redaction() -> Check {
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

/// Which alerts are on and how they are delivered here (`[alerts]`, your own
/// config only).
pub(super) fn check_alerts(paths: &Paths, env: &Env) -> Check {
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
