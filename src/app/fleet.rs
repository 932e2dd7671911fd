//! Keeping a project's fleet-registry entry true outside the hooks: after `forge
//! signal` (or the dashboard's `r`) writes a Signal, the project's count of
//! unresolved blocked Signals changes, and the fleet views should not wait for the
//! project's next hook call to say so.

use std::io;
use std::time::Duration;

use crate::env::Env;
use crate::store::{Paths, handoffs, registry};

/// How long a command waits for the registry's lock.
const LOCK_WAIT: Duration = Duration::from_millis(200);

/// Sets the blocked-Signal count of `paths`' entry in the fleet registry, and of the
/// entries of its repository's other work trees (they share one inbox:
/// `store::inbox`), when they are registered and the count changed (a project
/// forge's hooks never ran in is not added: the hooks register projects). Their
/// sessions and `seen_at` are left as the hooks wrote them.
pub(crate) fn refresh_blocked(paths: &Paths, env: &Env) -> io::Result<()> {
    let Some(file) = registry::path(env) else {
        return Ok(());
    };
    let roots: Vec<String> = crate::store::inbox::Inbox::of(paths)
        .folders
        .iter()
        .filter_map(|f| registry::root_key(&f.paths.root))
        .collect();
    if roots.is_empty() {
        return Ok(());
    }
    let blocked = handoffs::count_blocked(paths, std::time::SystemTime::from(env.now));
    let blocked = u32::try_from(blocked).unwrap_or(u32::MAX);
    let differs = |reg: &crate::model::agents::fleet::Registry| {
        roots
            .iter()
            .any(|root| reg.entry(root).is_some_and(|e| e.blocked != blocked))
    };
    if !differs(&registry::read(&file)?) {
        return Ok(());
    }
    registry::update(&file, LOCK_WAIT, |reg| {
        let changed = differs(reg);
        for e in reg.projects.iter_mut().filter(|p| roots.contains(&p.root)) {
            e.blocked = blocked;
        }
        changed
    })
}

/// Switches this tmux client to pane `pane` (`%N`) of the server at `socket` (the
/// client's own when `None`): `tmux switch-client -t`, with `tmux` found in an
/// absolute folder of `PATH` only. `Ok` names the pane as `session:window.pane`;
/// `Err` says why not (tmux's own words). At most a second a call.
pub(crate) fn switch_to_pane(
    env: &Env,
    pane: &str,
    socket: Option<&str>,
) -> Result<String, String> {
    let run = |args: &[&str]| -> Result<String, String> {
        let single = |t: &str| crate::model::text::sanitize::single_line(t.trim()).into_owned();
        crate::tmux::ask(env, socket, args, Duration::from_secs(1))
            .map(|out| single(&out))
            .map_err(|why| single(&why))
    };
    let name = run(&["display-message", "-p", "-t", pane, "#{pane_id} #S:#I.#P"])?;
    let Some(name) = name
        .strip_prefix(pane)
        .and_then(|r| r.strip_prefix(' '))
        .map(str::to_owned)
    else {
        return Err(format!("its pane {pane} is gone"));
    };
    run(&["switch-client", "-t", pane])?;
    Ok(name)
}

/// Sends what the fleet list asks to a session's pane ([`answer_pane`],
/// [`prompt_pane`]).
pub(crate) fn send_to_pane(
    env: &Env,
    what: &crate::model::dashboard::fleet::PaneSend,
) -> Result<String, String> {
    use crate::model::dashboard::fleet::PaneSend;
    match what {
        PaneSend::Answer(req) => answer_pane(env, req),
        PaneSend::Prompt(req) => prompt_pane(env, req),
    }
}

/// Types a prompt into a session's pane: reads the pane first and types only when
/// it shows the client's empty input prompt
/// ([`crate::model::agents::pane::waits_for_a_prompt`]); the session's project
/// logs what was sent, or why not.
pub(crate) fn prompt_pane(
    env: &Env,
    req: &crate::model::dashboard::fleet::PromptRequest,
) -> Result<String, String> {
    use crate::model::outcome::Outcome;
    let socket = req.socket.as_deref();
    let single = |t: &str| crate::model::text::sanitize::single_line(t.trim()).into_owned();
    let text = single(&req.text);
    let ask = |args: &[&str]| {
        crate::tmux::ask(env, socket, args, Duration::from_secs(1)).map_err(|why| single(&why))
    };
    let result = ask(&["capture-pane", "-p", "-t", &req.pane])
        .and_then(|screen| crate::model::agents::pane::waits_for_a_prompt(&screen))
        .and_then(|()| ask(&["send-keys", "-t", &req.pane, "-l", &text]))
        .and_then(|_| ask(&["send-keys", "-t", &req.pane, "Enter"]));
    let outcome = match &result {
        Ok(_) => Outcome::PanePrompted {
            pane: req.pane.clone(),
            chars: text.chars().count() as u64,
        },
        Err(why) => Outcome::PaneRefused {
            pane: req.pane.clone(),
            answer: "prompt".to_owned(),
            why: why.clone(),
        },
    };
    log_pane_outcome(&req.root, &req.session, outcome);
    result.map(|_| {
        format!(
            "sent the prompt to {} ({} characters)",
            req.pane,
            text.chars().count()
        )
    })
}

fn log_pane_outcome(
    root: &std::path::Path,
    session: &str,
    outcome: crate::model::outcome::Outcome,
) {
    let paths = Paths::new(root.to_path_buf());
    if paths.check().is_ok() && paths.logs().is_dir() {
        let _ = crate::store::files::append_event(
            &paths,
            &crate::model::session::state::EventLine {
                time: crate::model::time::iso(crate::env::wall_clock()),
                event: "forge tui".to_owned(),
                session: Some(session.to_owned()),
                facts: serde_json::Map::new(),
                outcomes: vec![outcome],
            },
        );
    }
}

/// Answers the permission prompt of a session's tmux pane from the fleet list:
/// reads the pane first (`capture-pane`) and sends the key only when it shows the
/// prompt ([`crate::model::agents::pane::permission_keys`]). The session's project
/// logs what was sent, or why not, as an outcome. `Ok` says what was sent.
pub(crate) fn answer_pane(
    env: &Env,
    req: &crate::model::dashboard::fleet::AnswerRequest,
) -> Result<String, String> {
    use crate::model::outcome::Outcome;
    let socket = req.socket.as_deref();
    let single = |t: &str| crate::model::text::sanitize::single_line(t.trim()).into_owned();
    let result = crate::tmux::ask(
        env,
        socket,
        &["capture-pane", "-p", "-t", &req.pane],
        Duration::from_secs(1),
    )
    .map_err(|why| single(&why))
    .and_then(|screen| crate::model::agents::pane::permission_keys(&screen, req.answer))
    .and_then(|keys| {
        let mut args = vec!["send-keys", "-t", req.pane.as_str()];
        args.extend_from_slice(keys);
        crate::tmux::ask(env, socket, &args, Duration::from_secs(1))
            .map(|_| keys.join(" "))
            .map_err(|why| single(&why))
    });
    let outcome = match &result {
        Ok(keys) => Outcome::PaneAnswered {
            pane: req.pane.clone(),
            answer: req.answer.name().to_owned(),
            keys: keys.clone(),
        },
        Err(why) => Outcome::PaneRefused {
            pane: req.pane.clone(),
            answer: req.answer.name().to_owned(),
            why: why.clone(),
        },
    };
    log_pane_outcome(&req.root, &req.session, outcome);
    result.map(|keys| {
        format!(
            "{}d the permission prompt of {} (sent {keys})",
            req.answer.name(),
            req.pane
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::agents::fleet::ProjectEntry;

    #[test]
    fn a_written_signal_updates_a_registered_projects_blocked_count_only() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("proj");
        std::fs::create_dir_all(root.join(".forge/handoffs")).unwrap();
        let root = root.canonicalize().unwrap();
        let env = Env::for_test(&t.path().join("home"), &root);
        let paths = Paths::new(&root);
        let file = registry::path(&env).unwrap();
        // Not registered: nothing is written.
        refresh_blocked(&paths, &env).unwrap();
        assert!(!file.exists());
        let seen = env.now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        registry::update(&file, LOCK_WAIT, |r| {
            r.upsert(
                ProjectEntry {
                    root: root.to_str().unwrap().into(),
                    name: "proj".into(),
                    blocked: 3,
                    seen_at: seen.clone(),
                    ..ProjectEntry::default()
                },
                env.now,
            );
            true
        })
        .unwrap();
        refresh_blocked(&paths, &env).unwrap();
        let reg = registry::read(&file).unwrap();
        let e = reg.entry(root.to_str().unwrap()).unwrap();
        assert_eq!(e.blocked, 0);
        assert_eq!(e.seen_at, seen, "the hooks' time is kept");
    }
}
