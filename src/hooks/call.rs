//! One hook call: where (the project's paths), who (the environment), what (the
//! payload as sent, the event's name), the config read once and what the decisions
//! need of it, and the record of what the call did — the outcomes its one line in
//! `events.jsonl` lists.

use std::cell::{OnceCell, RefCell};

use super::wire::WireHookInput;
use crate::config::{self, Config};
use crate::env::Env;
use crate::model::hook::Settings;
use crate::model::outcome::Outcome;
use crate::model::session::state::SessionBridge;
use crate::store::{self, Paths, files};

/// One hook call: the project, the environment, the payload as sent, the config
/// (read once), and the record of what the call did.
pub(super) struct Call<'a> {
    pub(super) paths: Paths,
    pub(super) env: &'a Env,
    pub(super) wire: &'a WireHookInput,
    /// The event's name, as Claude Code spells it.
    pub(super) event: String,
    /// The config, read once per call.
    pub(super) config: Config,
    /// What the decisions need of it.
    pub(super) settings: Settings,
    /// What loading it had to say (an untrusted project file's acting keys left
    /// out): the first outcome of the call's line, since it explains what the call
    /// did not do.
    config_notice: Option<Outcome>,
    /// SessionStart only: the line telling the person that the project's config waits
    /// for `forge trust`, when this content was not told yet (issue 31).
    pub(super) person_notice: Option<config::PersonNotice>,
    /// What the call did so far, in order (see [`Call::record`]): kept outside the
    /// steps so a panic loses none of it.
    outcomes: RefCell<Vec<Outcome>>,
    /// The session's bridge as the call found it, read at most once ([`Call::bridge`]).
    bridge: OnceCell<Option<SessionBridge>>,
}

impl<'a> Call<'a> {
    pub(super) fn new(paths: Paths, env: &'a Env, wire: &'a WireHookInput, event: &str) -> Self {
        let bridge = OnceCell::new();
        // Who the session runs as was fixed at its start: inside tmux, without
        // `$FORGE_AGENT`, the name its bridge recorded is taken before anything asks
        // tmux (the config's agent tables, a wake message, the fleet registry), so a
        // pane gone since is never asked about. The bridge read here is the call's
        // one read of it.
        if env.forge_agent.is_none()
            && env.tmux
            && let Some(sid) = wire.session_id.as_deref()
        {
            let read = files::read_bridge(&paths, sid);
            if let Some(agent) = read.as_ref().and_then(|b| b.agent.clone()) {
                let _ = env.tmux_session.set(Some(agent));
            }
            let _ = bridge.set(read);
        }
        let (config, config_notice, person_notice) = if event == "SessionStart" {
            config::load_noting_for_person(&paths, env)
        } else {
            let (config, notice) = config::load_noting(&paths, env);
            (config, notice, None)
        };
        Self {
            settings: settings(&config),
            paths,
            env,
            wire,
            event: event.to_owned(),
            config,
            config_notice,
            person_notice,
            outcomes: RefCell::default(),
            bridge,
        }
    }

    /// The session's bridge as the call found it (read once, however many steps ask).
    pub(super) fn bridge(&self) -> Option<SessionBridge> {
        self.bridge
            .get_or_init(|| {
                self.session_id()
                    .and_then(|s| files::read_bridge(&self.paths, s))
            })
            .clone()
    }

    /// Records what the call did (written into its event line at the end).
    pub(super) fn record(&self, outcome: Outcome) {
        self.outcomes.borrow_mut().push(outcome);
    }

    /// A failure the hook carries on after: logged to `errors.log`, and recorded as
    /// an `error` outcome of the call.
    pub(super) fn fail(&self, what: &str, message: &str) {
        store::log_error(&self.paths, what, message);
        self.record(Outcome::Error {
            what: what.to_owned(),
            message: message.to_owned(),
        });
    }

    /// The outcomes recorded so far that match `pick`, the last one first.
    pub(super) fn last_recorded<T>(&self, pick: impl Fn(&Outcome) -> Option<T>) -> Option<T> {
        self.outcomes.borrow().iter().rev().find_map(pick)
    }

    /// The payload's session id.
    pub(super) fn session_id(&self) -> Option<&str> {
        self.wire.session_id.as_deref()
    }

    /// The call's outcomes, the config's notice first.
    pub(super) fn take_outcomes(&self) -> Vec<Outcome> {
        let mut outcomes = self.outcomes.take();
        if let Some(notice) = self.config_notice.clone() {
            outcomes.insert(0, notice);
        }
        outcomes
    }
}

/// What the decisions need of the config.
fn settings(cfg: &Config) -> Settings {
    Settings {
        dirty_warning: cfg.hooks.dirty_warning,
        compaction_reread: cfg.hooks.compaction_reread,
        handoff_on_precompact: cfg.hooks.handoff_on_precompact,
        learn_nudge: cfg.learn.nudge,
        resume_auto: cfg.resume.auto,
        resume_max_age: cfg.resume.max_age.clone(),
        stale_after: cfg.attention.stale_after(),
        auto_prune: cfg
            .handoffs
            .auto_prune
            .then(|| (cfg.handoffs.older_than(), cfg.handoffs.keep)),
        resume_max_bytes: cfg.resume.max_bytes,
        zone: crate::model::time::Zone::Local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settings_defaults_are_the_configs() {
        assert_eq!(settings(&Config::default()), Settings::default());
    }
}
