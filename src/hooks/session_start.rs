//! SessionStart in named steps: gather → tidy → take the pending resume → whose
//! work this continues, and the user's own commands → git's answer → compose and
//! apply. The decisions are `crate::model::hook::start`'s; the steps here are what
//! only I/O can do in between: taking the pending resume exactly once however many
//! sessions start at once, and running the user's `[[on_session_start]]` commands.

use std::path::PathBuf;

use super::apply::{Applied, apply};
use super::call::Call;
use super::gather;
use crate::model::hook::start::{self, Found, Lineage, Take};
use crate::model::outcome::Outcome;
use crate::model::session::state::ResumeOrigin;
use crate::store::{self, files, handoffs};

/// How long SessionStart waits for the pending-resume lock. Only racing session
/// starts of one project hold it, each for a few reads and two unlinks.
const RESUME_LOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Orients the new (or compacted, or resumed) session in a few lines within Claude
/// Code's budget, and consumes the pending resume exactly once.
pub(super) fn run(call: &Call, source: Option<&str>) -> Applied {
    let now = call.env.now;
    // With `[share] remote` in your own config: the other machines' Signals are
    // fetched in the background (docs/share.md), for the status line now and the
    // next session's start; this one never waits on the network.
    crate::app::share::start_background(
        &call.paths,
        call.env,
        &call.config,
        crate::app::share::What::Fetch,
    );
    // 1. Gather: the bridges, the last session, the inbox, the flags; git scans
    //    meanwhile.
    let (facts, git) = gather::start(call, source);
    let mut blocked = start::blocked(&facts.handoffs, &call.paths.root);
    // 2. Tidy: a new session prunes and clears flags, a compacted one records its
    //    compaction — before the take, so the pending handoff is never pruned.
    apply(call, start::tidy(&facts, &blocked, now), None);
    // Who this session runs as, fixed now (asked of tmux at most once, about this
    // very pane): an automatic handoff is taken only by its own agent's session,
    // and what is addressed to the agent is told to it.
    let me = identity(call);
    if !facts.compacted()
        && let Some(agent) = me.agent.as_deref()
    {
        tell_addressed(call, &facts.handoffs, agent, &mut blocked);
    }
    // 3. Take the pending resume: a new session whatever is pending (an automatic
    //    handoff only when it is this session's to take), a session that goes on
    //    only its own handoff. Taken before the user's commands run, since their
    //    payload says whose work this session continues.
    let take = take_pending_resume(call, start::own_only(source), me.agent.as_deref());
    // 4. Whose work this continues, and the user's commands, which run before the
    //    resume is read so their output keeps its room whatever the handoff holds.
    let resume = start::resume(take.as_ref(), &facts.settings, now);
    let resumed = start::resumed(resume.as_ref(), take.as_ref());
    let previous_chain =
        start::previous_session(&facts, resumed.as_ref()).and_then(|id| {
            match facts.last_bridge.as_ref().filter(|b| b.session_id == id) {
                Some(b) => b.chain_handoffs,
                None => files::read_bridge(&call.paths, &id).and_then(|b| b.chain_handoffs),
            }
        });
    let lineage = start::lineage(&facts, resumed.as_ref(), previous_chain);
    let user_text = run_start_hooks(call, source, &lineage);
    // 5. Git's answer: only the resumed handoff's drift and the session's baseline
    //    need it; it scanned while the rest was read.
    let git = gather::finish_git(call, git);
    // 6. Compose the text, the outcomes and the bridge's change, and apply them.
    let found = Found {
        take,
        lineage,
        user_text,
        git: git.cache,
        git_to_save: git.to_save,
        git_refused: git.refused,
        reread: call.last_recorded(|o| match o {
            Outcome::CompactionRecorded { reread, .. } | Outcome::CompactionKnown { reread } => {
                Some(reread.clone())
            }
            _ => None,
        }),
        // Lines for the person's screen from the steps above: see ARCHITECTURE.md,
        // "A notice to the person at SessionStart".
        notices: call.person_notice.iter().map(|n| n.line.clone()).collect(),
    };
    let mut plan = start::compose(&facts, &blocked, &found, call.wire, now);
    // Who the session runs as is fixed now, while its tmux pane exists; a compacted
    // session keeps the reading it compacted from (see `SessionBridge`).
    if let Some(edit) = plan.bridge.as_mut() {
        edit.identity = Some(me);
        edit.compacted = facts.compacted();
    }
    // The steps' notices come first among at most NOTICES_MAX, so the line is in the
    // person's part of the output (a JSON object whenever there is a notice).
    let told = call
        .person_notice
        .as_ref()
        .filter(|_| plan.stdout.starts_with('{'));
    if let Some(notice) = told {
        // Said once per content; a failure here only means it is said again.
        let _ = crate::config::mark_told(call.env, notice);
    }
    apply(call, plan, facts.session.bridge).knowing_git(found.git)
}

/// Tells a new session of `agent` the Signals of the repository's inbox addressed to
/// it that no start of its told yet ([`start::addressed_to`]), with their findings
/// (where an answer is), after the blocked ones; records them as told.
fn tell_addressed(
    call: &Call,
    handoffs: &[crate::model::handoff::entry::HandoffEntry],
    agent: &str,
    out: &mut start::Blocked,
) {
    let told = store::inbox::told(&call.paths, agent);
    let items: Vec<_> = start::addressed_to(handoffs, agent, &told)
        .into_iter()
        .map(|h| {
            let text = store::safe::read_capped(&h.path, 256 * 1024, store::safe::Follow::No)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let findings = crate::model::handoff::signal::section_items(
                &crate::model::text::redact::redact_document(&text),
                "Findings",
                3,
            );
            (h, findings)
        })
        .collect();
    if items.is_empty() {
        return;
    }
    let text = start::addressed_text(&items, agent, &call.paths.root);
    if text.tasks.is_empty() {
        return;
    }
    out.text.push_str(&text.text);
    let names: Vec<String> = items
        .iter()
        .take(text.tasks.len())
        .map(|(h, _)| h.file_name.clone())
        .filter(|n| !n.contains('\n'))
        .collect();
    if let Err(e) = store::inbox::mark_told(&call.paths, agent, &names) {
        call.fail("inbox", &format!("recording what {agent} was told: {e}"));
    }
    call.record(Outcome::SignalsTold {
        agent: agent.to_owned(),
        tasks: text.tasks,
    });
}

/// The session `id` that wrote a handoff, as its bridge says now: the agent it
/// recorded, and whether it is live (its client process there).
fn writer(call: &Call, id: String) -> start::Writer {
    let bridge = files::read_bridge(&call.paths, &id).map(|mut b| {
        b.end_if_client_gone(crate::store::process::is_gone);
        b
    });
    start::Writer {
        agent: bridge.as_ref().and_then(|b| b.agent.clone()),
        live: bridge.as_ref().is_some_and(|b| {
            crate::model::snapshot::is_live(b, call.env.now, call.settings.stale_after)
        }),
        session: id,
    }
}

/// Who this session runs as and where: `$FORGE_AGENT`, else the tmux session's name
/// (the name `[agents.<name>]` tables are matched by; asked once, about this very
/// pane, or the name recorded when the session started), cut to the registry's
/// bound; its tmux pane and server socket from the hook's `TMUX_PANE` and `TMUX`.
fn identity(call: &Call) -> crate::model::session::state::Identity {
    let (tmux_pane, tmux_socket) = call.env.tmux_place();
    crate::model::session::state::Identity {
        agent: call
            .env
            .agent_name()
            .map(|a| {
                crate::model::text::sanitize::cut_chars(
                    &crate::model::text::sanitize::single_line_trimmed(&a),
                    crate::model::agents::fleet::MAX_AGENT,
                )
            })
            .filter(|a| !a.is_empty()),
        tmux_pane,
        tmux_socket,
    }
}

/// Runs the user's `[[on_session_start]]` commands (from their own config only)
/// with herdctl's session_start payload, one after the other, and returns what
/// they printed, ready for the session ([`start::user_hooks_text`]).
fn run_start_hooks(call: &Call, source: Option<&str>, lineage: &Lineage) -> String {
    let cfg = &call.config;
    if cfg.on_session_start.is_empty() {
        return String::new();
    }
    let facts = crate::model::agents::user_hooks::StartFacts {
        session_id: call.session_id().map(str::to_owned),
        agent_name: call.env.agent_name(),
        working_directory: call.paths.root.display().to_string(),
        // The project root stops at the git work tree's root (issue 6 of 11).
        worktree_path: std::fs::symlink_metadata(call.paths.root.join(".git"))
            .is_ok()
            .then(|| call.paths.root.display().to_string()),
        is_continuation: lineage.is_continuation,
        previous_session_id: lineage.previous_session_id.clone(),
        handoff_count: lineage.handoff_count,
        source: source.map(str::to_owned),
        relay_chain: call.env.relay.as_ref().map(|r| r.chain.clone()),
    };
    let payload = crate::model::agents::user_hooks::start_payload(&facts);
    let mut outputs = Vec::new();
    for hook in &cfg.on_session_start {
        let ran = crate::app::user_hooks::run(
            call.env,
            "on_session_start",
            hook,
            &payload,
            &call.paths.root,
        );
        call.record(ran.outcome);
        outputs.push(ran.stdout.unwrap_or_default());
    }
    start::user_hooks_text(&outputs)
}

/// Consumes the pending resume, exactly once however many sessions start at once:
/// the project marker first; the global one only when it names a handoff of this
/// project. Either is honoured only when it names a regular `handoff-*.md`/
/// `agent-*.md` file in this project's `.forge/handoffs/` (`files::resume_target`):
/// nothing outside the project enters the context. Markers naming the same handoff
/// are removed together. With `own_only`, a handoff written for another session is
/// left pending. An automatic handoff (the threshold's, PreCompact's) is left
/// pending and offered when it is another's ([`start::owned_elsewhere`]: its writer
/// is live, or ran as another agent than `agent`); a chosen one is taken whatever.
/// The handoff taken is read once, here.
///
/// All of it happens under one short lock (`logs/.resume.lock`): without it, a
/// session could take the global marker while another was between removing the
/// project marker and the global one, and both would resume the same handoff. A
/// session that cannot get the lock in time resumes nothing: the holder does.
///
/// `None` when nothing is pending.
fn take_pending_resume(call: &Call, own_only: bool, agent: Option<&str>) -> Option<Take> {
    let (paths, env) = (&call.paths, call.env);
    // A session of `forge run` has its task in its prompt: a pending resume is for
    // the person's next interactive session.
    if env.relay_stop.is_some() {
        let (_, target) = files::pending_resume(paths, env)?;
        return Some(Take::Left {
            target,
            why: start::LEFT_FOR_INTERACTIVE,
        });
    }
    let lock = paths.logs().join(".resume.lock");
    let Some(_lock) = store::FileLock::acquire(&lock, RESUME_LOCK_WAIT) else {
        let (_, target) = files::pending_resume(paths, env)?;
        return Some(Take::Left {
            target,
            why: start::TAKEN_BY_ANOTHER,
        });
    };
    // Each marker read once: the project's, then the global one.
    let markers: Vec<(PathBuf, Option<(PathBuf, ResumeOrigin)>)> =
        std::iter::once(paths.pending_resume())
            .chain(env.global_pending_resume())
            .map(|m| {
                let read = files::read_marker_with_origin(&m)
                    .and_then(|(p, o)| Some((files::resume_target(paths, &p)?, o)));
                (m, read)
            })
            .collect();
    let (marker, target, origin) = markers
        .iter()
        .find_map(|(m, read)| read.as_ref().map(|(t, o)| (m.clone(), t.clone(), *o)))?;
    let handoff = handoffs::load_with_text(&target);
    let owner = handoff
        .as_ref()
        .and_then(|(h, _)| h.front.get("session_id").map(str::to_owned));
    if own_only {
        if owner
            .as_ref()
            .is_some_and(|o| !o.is_empty() && Some(o.as_str()) != call.session_id())
        {
            return Some(Take::Left {
                target,
                why: start::LEFT_FOR_NEW,
            });
        }
    } else if origin == ResumeOrigin::Auto
        && let Some(whose) = start::owned_elsewhere(
            owner.map(|o| writer(call, o)).as_ref(),
            call.session_id(),
            agent,
        )
    {
        return Some(Take::Offered { target, whose });
    }
    if !store::remove_if_exists(&marker).unwrap_or(false) {
        return Some(Take::Left {
            target,
            why: start::TAKEN_BY_ANOTHER,
        });
    }
    for (other, read) in &markers {
        if *other != marker && read.as_ref().is_some_and(|(t, _)| *t == target) {
            let _ = store::remove_if_exists(other);
        }
    }
    Some(Take::Taken {
        target,
        origin,
        handoff,
    })
}
