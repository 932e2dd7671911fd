//! `.forge/` and what it holds: its folders, git-ignored, the agents' Signals; the
//! config files and `[share]`.

use super::{Check, Status};
use crate::env::Env;
use crate::model::handoff::entry::HandoffKind;
use crate::model::handoff::signal::SignalParse;
use crate::model::text::count;
use crate::store::{Paths, handoffs};

/// The StrictModes check of `.forge/` and its folders ([`Paths::check`]).
pub(super) fn check_state_folders(paths: &Paths) -> Check {
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

pub(super) fn check_gitignore(paths: &Paths) -> Check {
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

pub(super) fn check_signals(paths: &Paths) -> Check {
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
                count(agents.len(), "agent handoff", "agent handoffs")
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
pub(super) fn check_share(paths: &Paths, env: &Env) -> Check {
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

pub(super) fn check_config(paths: &Paths, env: &Env) -> Check {
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
