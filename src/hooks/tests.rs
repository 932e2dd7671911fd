//! What each hook did, asserted on its outcomes (the values the dispatcher writes
//! into the call's `events.jsonl` line) rather than on the files alone.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::dispatch::handle;
use crate::env::Env;
use crate::model::outcome::Outcome;
use crate::model::session::state::{EventLine, ResumeOrigin};
use crate::store::{Paths, files};

/// The event name that makes the dispatcher panic (unit tests only).
pub(super) const PANIC_EVENT: &str = "ForgeTestPanic";

const SID: &str = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21";

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    env: Env,
}

impl Project {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let root = root.canonicalize().unwrap();
        let env = Env::for_test(&home, &root);
        Self {
            _dir: dir,
            root,
            env,
        }
    }

    fn paths(&self) -> Paths {
        Paths::new(&self.root)
    }

    /// Runs one hook with `extra` merged into a minimal payload of this project.
    fn hook(&self, event: &str, extra: Value) -> (String, Vec<Outcome>) {
        let mut payload = json!({
            "session_id": SID,
            "cwd": self.root,
            "hook_event_name": event,
        });
        if let (Some(p), Some(e)) = (payload.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        let h = handle(Some(event), payload.to_string().as_bytes(), &self.env);
        (h.stdout, h.outcomes)
    }

    /// The call's outcomes, its alerts left out (they depend on the machine's
    /// terminal and desktop; `tests/it/alerts.rs` tests them).
    fn outcomes(&self, event: &str, extra: Value) -> Vec<Outcome> {
        let mut all = self.hook(event, extra).1;
        all.retain(|o| {
            !matches!(
                o,
                Outcome::AlertSent { .. }
                    | Outcome::AlertSkipped { .. }
                    | Outcome::AlertFailed { .. }
            )
        });
        all
    }

    /// The last line of `events.jsonl`.
    fn last_line(&self) -> EventLine {
        let text = std::fs::read_to_string(self.paths().events()).unwrap();
        serde_json::from_str(text.lines().last().unwrap()).unwrap()
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

fn session_handoff(session: &str) -> String {
    format!(
        "---\nkind: session-handoff\ncreated_at: 2026-11-21T10:15:02Z\nsession_id: {session}\n\
         trigger: manual\nbranch: main\nuncommitted_changes: 0\n---\n# Session handoff — planted\n\
         Carry on.\n"
    )
}

fn kinds(outcomes: &[Outcome]) -> Vec<String> {
    outcomes
        .iter()
        .map(|o| {
            serde_json::to_value(o).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn stop_sets_the_learn_flag_once_and_only_after_an_edit() {
    let p = Project::new();
    p.outcomes("SessionStart", json!({"source": "startup"}));
    // A turn that changed nothing: recorded, nothing to learn.
    let first = p.outcomes("Stop", json!({}));
    assert_eq!(
        first,
        [Outcome::SessionRecorded {
            branch: None,
            uncommitted: 0,
            is_final: false
        }]
    );
    assert!(!p.paths().learn_pending().exists());
    // An edit outside the project is not this project's change.
    p.outcomes(
        "PreToolUse",
        json!({"tool_name": "Write", "tool_input": {"file_path": "/tmp/elsewhere.txt", "content": "x"}}),
    );
    p.outcomes("Stop", json!({}));
    assert!(!p.paths().learn_pending().exists());
    // A file of the project edited: the flag, once.
    let file = p.root.join("src/lib.rs").display().to_string();
    p.outcomes(
        "PreToolUse",
        json!({"tool_name": "Edit", "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"}}),
    );
    let second = p.outcomes("Stop", json!({}));
    assert_eq!(
        second[1],
        Outcome::FlagSet {
            flag: "learn-pending".into(),
            why: "the session edited files: the next session is reminded to run /forge-learn"
                .into()
        }
    );
    assert!(p.paths().learn_pending().exists());
    assert_eq!(p.outcomes("Stop", json!({})).len(), 1);
    // The call's one line carries them, after the usual facts.
    let line = p.last_line();
    assert_eq!(
        (line.event.as_str(), line.session.as_deref()),
        ("Stop", Some(SID))
    );
}

#[test]
fn a_learned_file_newer_than_the_flag_clears_it_and_the_notice_lasts_until_then() {
    let p = Project::new();
    p.outcomes("SessionStart", json!({"source": "startup"}));
    p.outcomes("PreToolUse", json!({"tool_name": "Write"}));
    p.outcomes("Stop", json!({}));
    assert!(p.paths().learn_pending().exists());
    // Every new session is reminded while the flag lasts.
    for _ in 0..2 {
        let (out, start) = p.hook("SessionStart", json!({"source": "startup"}));
        assert!(out.contains("Run /forge-learn"), "{out}");
        assert!(
            !kinds(&start).contains(&"flag_cleared".to_owned()),
            "{start:?}"
        );
    }
    // /forge-learn wrote a pattern file: the flag goes at the next hook.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let dir = crate::store::memory::memory_dir(&p.paths(), &p.env).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("learned-pool-size.md"), "# Pool size\n").unwrap();
    let stop = p.outcomes("Stop", json!({}));
    assert!(
        stop.contains(&Outcome::FlagCleared {
            flag: "learn-pending".into(),
            why: "a learned-*.md was written after it was set".into()
        }),
        "{stop:?}"
    );
    assert!(!p.paths().learn_pending().exists());
    // The session's baseline moved: the next turn does not set it again.
    p.outcomes("Stop", json!({}));
    assert!(!p.paths().learn_pending().exists());
    let (out, _) = p.hook("SessionStart", json!({"source": "startup"}));
    assert!(!out.contains("forge-learn"), "{out}");
}

#[test]
fn learn_nudge_false_keeps_the_flag_and_drops_the_notice() {
    let p = Project::new();
    p.write(".forge/config.toml", "[learn]\nnudge = false\n");
    p.outcomes("SessionStart", json!({"source": "startup"}));
    p.outcomes("PreToolUse", json!({"tool_name": "MultiEdit"}));
    p.outcomes("Stop", json!({}));
    assert!(p.paths().learn_pending().exists());
    let (out, _) = p.hook("SessionStart", json!({"source": "startup"}));
    assert!(!out.contains("forge-learn"), "{out}");
    assert!(p.paths().learn_pending().exists());
}

#[test]
fn session_start_says_what_it_resumed_surfaced_and_cleared() {
    let p = Project::new();
    p.outcomes("Stop", json!({}));
    // Older than the blocked Signal, which is then news to a new session.
    let h = p.write(
        ".forge/handoffs/handoff-20261121-090000.md",
        &session_handoff("someone-else"),
    );
    p.write(
        ".forge/handoffs/agent-T-012-20261121-101502.md",
        include_str!("../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
    );
    files::write_pending_resume(&p.paths(), &p.env, &h, ResumeOrigin::Chosen).unwrap();

    // A compacted session goes on: another session's handoff stays pending.
    let compacted = p.outcomes("SessionStart", json!({"source": "compact"}));
    let canonical = h.canonicalize().unwrap().display().to_string();
    assert!(
        compacted.contains(&Outcome::ResumeSkipped {
            path: canonical.clone(),
            why: "it was written for another session, and this one goes on (resumed or \
                  compacted): left pending for a new session"
                .into()
        }),
        "{compacted:?}"
    );

    let (out, start) = p.hook("SessionStart", json!({"source": "startup"}));
    let (out, notice) = crate::model::hook::notice::split(&out);
    assert!(out.contains("Carry on."), "{out}");
    assert!(notice.starts_with("forge: resumed "), "{notice}");
    assert!(
        start.contains(&Outcome::ResumeInjected { path: canonical }),
        "{start:?}"
    );
    assert!(
        start.contains(&Outcome::SignalsSurfaced {
            tasks: vec!["T-012".into()]
        }),
        "{start:?}"
    );
    assert!(start.contains(&Outcome::ContextAdded {
        chars: out.chars().count()
    }));
    // Taken once: the next session resumes nothing and says nothing about it.
    let next = p.outcomes("SessionStart", json!({"source": "startup"}));
    assert!(
        !next.iter().any(|o| matches!(
            o,
            Outcome::ResumeInjected { .. } | Outcome::ResumeSkipped { .. }
        )),
        "{next:?}"
    );
}

#[test]
fn a_dirty_tree_is_warned_about_once() {
    let p = Project::new();
    git2::Repository::init(&p.root).unwrap();
    // A session forge saw start on a clean tree adds a file.
    p.hook("SessionStart", json!({"source": "startup"}));
    p.write("notes.txt", "x\n");
    let (out, first) = p.hook("Stop", json!({}));
    let warned: Vec<&Outcome> = first
        .iter()
        .filter(|o| matches!(o, Outcome::Warned { .. }))
        .collect();
    assert_eq!(warned.len(), 1, "{first:?}");
    let Outcome::Warned { message } = warned[0] else {
        unreachable!()
    };
    assert!(
        out.contains("systemMessage") && out.contains(message.as_str()),
        "{out}"
    );
    assert!(message.contains("1 uncommitted change"), "{message}");
    // The same count again: no second warning.
    assert!(
        !p.outcomes("Stop", json!({}))
            .iter()
            .any(|o| matches!(o, Outcome::Warned { .. }))
    );
}

#[test]
fn attention_changes_are_outcomes() {
    let p = Project::new();
    assert_eq!(
        p.outcomes("PermissionRequest", json!({"tool_name": "Bash"})),
        [Outcome::AttentionSet {
            state: "waiting:permission".into()
        }]
    );
    // The tool then runs: busy again.
    assert_eq!(
        p.outcomes("PreToolUse", json!({"tool_name": "Bash"})),
        [Outcome::AttentionSet {
            state: "busy".into()
        }]
    );
    assert_eq!(
        p.outcomes(
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "waiting"})
        ),
        [Outcome::AttentionSet {
            state: "waiting:input".into()
        }]
    );
}

#[test]
fn a_panicking_handler_still_leaves_its_line_with_an_error() {
    let p = Project::new();
    let (out, outcomes) = p.hook(PANIC_EVENT, json!({}));
    assert_eq!(out, "");
    let [Outcome::Error { what, message }] = outcomes.as_slice() else {
        panic!("{outcomes:?}")
    };
    assert_eq!(what, "panic");
    assert!(message.contains("a test asked for it"), "{message}");
    let line = p.last_line();
    assert_eq!(line.event, PANIC_EVENT);
    assert_eq!(line.outcomes, outcomes);
    let errors = std::fs::read_to_string(p.paths().errors_log()).unwrap();
    assert!(errors.contains("panic in hook (ignored)"), "{errors}");
}

#[test]
fn bad_input_is_an_error_outcome_where_state_exists() {
    let p = Project::new();
    // No .forge/ yet: a logged no-op writes nothing at all.
    let h = handle(Some("Stop"), b"{not json", &p.env);
    assert_eq!(h, super::dispatch::Handled::default());
    assert!(!p.paths().forge_dir().exists());
    p.outcomes("Stop", json!({}));
    let h = handle(Some("Stop"), b"{not json", &p.env);
    assert!(
        matches!(h.outcomes.as_slice(), [Outcome::Error { what, .. }] if what == "input"),
        "{h:?}"
    );
    assert_eq!(p.last_line().outcomes, h.outcomes);
}

#[test]
fn hooks_keep_the_fleet_registry_and_a_refused_registry_is_an_error_outcome() {
    let p = Project::new();
    let file = crate::store::registry::path(&p.env).unwrap();
    let read = || crate::store::registry::read(&file).unwrap();
    p.outcomes("SessionStart", json!({"source": "startup"}));
    let reg = read();
    let entry = reg.entry(p.root.to_str().unwrap()).unwrap();
    assert_eq!(entry.name, "project");
    assert_eq!(entry.sessions.len(), 1);
    assert_eq!(entry.sessions[0].id, SID);
    // A permission prompt is news: written at once.
    let outcomes = p.outcomes("PermissionRequest", json!({"tool_name": "Bash"}));
    assert!(!outcomes.iter().any(Outcome::is_error), "{outcomes:?}");
    let reg = read();
    let s = &reg.entry(p.root.to_str().unwrap()).unwrap().sessions[0];
    assert_eq!(
        s.attention,
        Some(crate::model::session::state::Attention::WaitingPermission)
    );
    assert_eq!(s.last_event.as_deref(), Some("PermissionRequest"));
    // The tool runs: busy again, which is news; the next tool call changes nothing
    // and does not touch the file.
    p.outcomes("PreToolUse", json!({"tool_name": "Read"}));
    let reg = read();
    let s = &reg.entry(p.root.to_str().unwrap()).unwrap().sessions[0];
    assert_eq!(
        s.attention,
        Some(crate::model::session::state::Attention::Busy)
    );
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    p.outcomes("PreToolUse", json!({"tool_name": "Read"}));
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        before
    );
    // The session ends: it leaves the registry, the project stays.
    p.outcomes("SessionEnd", json!({"reason": "exit"}));
    let reg = read();
    assert!(
        reg.entry(p.root.to_str().unwrap())
            .unwrap()
            .sessions
            .is_empty()
    );

    // A registry replaced by a link is refused, not followed or replaced: the call
    // says so in its outcomes and goes on.
    let outside = p.root.join("outside.json");
    std::fs::write(&outside, "{}").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    let (stdout, outcomes) = p.hook("Stop", json!({}));
    assert!(!stdout.contains("registry"), "{stdout}");
    assert!(
        outcomes.iter().any(|o| matches!(o,
            Outcome::Error { what, message } if what == "fleet registry"
                && message.contains("symbolic link"))),
        "{outcomes:?}"
    );
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "{}");
    assert_eq!(p.last_line().event, "Stop");
}

#[test]
fn post_tool_use_asks_the_client_to_stop_only_when_forge_run_asked_and_writes_nothing_else() {
    let mut p = Project::new();
    // Not a forge run session: nothing, not even an event line.
    let (out, outcomes) = p.hook("PostToolUse", json!({"tool_name": "Bash"}));
    assert_eq!(out, "");
    assert!(outcomes.is_empty());
    assert!(!p.paths().events().exists());
    // A forge run session whose stop file does not exist (yet): nothing.
    let stop = p.root.parent().unwrap().join("stop-1");
    p.env.relay_stop = Some(stop.clone());
    let (out, _) = p.hook("PostToolUse", json!({"tool_name": "Bash"}));
    assert_eq!(out, "");
    assert!(!p.paths().events().exists());
    // Asked: `continue: false`, said in the log.
    std::fs::write(&stop, "relay\n").unwrap();
    let (out, outcomes) = p.hook("PostToolUse", json!({"tool_name": "Bash"}));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["continue"], false, "{out}");
    assert!(
        v["stopReason"].as_str().unwrap().contains("forge run"),
        "{out}"
    );
    assert_eq!(
        outcomes,
        [Outcome::RelayStopAsked {
            tool: "Bash".into()
        }]
    );
    let line = p.last_line();
    assert_eq!(line.event, "PostToolUse");
    assert!(
        line.outcomes[0]
            .describe()
            .contains("stop after its Bash call"),
        "{:?}",
        line.outcomes
    );
    // A subagent's tool call never stops the session (it would end the subagent).
    let (out, _) = p.hook(
        "PostToolUse",
        json!({"tool_name": "Bash", "agent_id": "a1", "agent_type": "Explore"}),
    );
    assert_eq!(out, "");
}

#[test]
fn a_forge_run_session_leaves_a_pending_resume_for_the_persons_next_session() {
    let mut p = Project::new();
    let h = p.write(
        ".forge/handoffs/handoff-20261121-090000.md",
        &session_handoff("someone-else"),
    );
    files::write_pending_resume(&p.paths(), &p.env, &h, ResumeOrigin::Chosen).unwrap();
    p.env.relay_stop = Some(p.root.parent().unwrap().join("stop-1"));
    let (out, outcomes) = p.hook("SessionStart", json!({"source": "startup"}));
    assert!(!out.contains("planted"), "{out}");
    let canonical = h.canonicalize().unwrap().display().to_string();
    assert!(
        outcomes.contains(&Outcome::ResumeSkipped {
            path: canonical,
            why: "this session is one of `forge run`'s, whose prompt carries its task: left \
                  pending for your next interactive session"
                .into()
        }),
        "{outcomes:?}"
    );
    assert_eq!(
        files::read_marker(&p.paths().pending_resume()),
        Some(h.canonicalize().unwrap())
    );
    // The person's next (interactive) session takes it.
    p.env.relay_stop = None;
    let (out, _) = p.hook("SessionStart", json!({"source": "startup"}));
    assert!(out.contains("planted"), "{out}");
}

#[test]
fn on_session_start_says_whose_work_a_session_continues() {
    let mut p = Project::new();
    let cfg_dir = p.root.parent().unwrap().join("xdg");
    let got = p.root.parent().unwrap().join("got.jsonl");
    std::fs::create_dir_all(cfg_dir.join("forge")).unwrap();
    std::fs::write(
        cfg_dir.join("forge/config.toml"),
        format!(
            "[[on_session_start]]\ncommand = \"cat >> '{}'; echo >> '{}'\"\n",
            got.display(),
            got.display()
        ),
    )
    .unwrap();
    p.env.xdg_config_home = Some(cfg_dir);
    let start = |sid: &str, source: &str| {
        let payload = json!({"session_id": sid, "cwd": p.root, "hook_event_name": "SessionStart",
            "source": source});
        handle(Some("SessionStart"), payload.to_string().as_bytes(), &p.env);
        let text = std::fs::read_to_string(&got).unwrap();
        let last: Value =
            serde_json::from_str(text.lines().rfind(|l| !l.is_empty()).unwrap()).unwrap();
        last["session"].clone()
    };
    // A fresh session: no chain behind it, whatever ran here before.
    p.write(
        ".forge/handoffs/handoff-20261121-080000.md",
        &session_handoff("old-one"),
    );
    let s = start("s1", "startup");
    assert_eq!(s["is_continuation"], false, "{s}");
    assert_eq!(s["handoff_count"], 0, "{s}");
    assert!(s["previous_session_id"].is_null(), "{s}");
    // s2 resumes the handoff s1 wrote: it continues s1's work.
    let h = p.write(
        ".forge/handoffs/handoff-20261121-090000.md",
        &session_handoff("s1"),
    );
    files::write_pending_resume(&p.paths(), &p.env, &h, ResumeOrigin::Chosen).unwrap();
    let s = start("s2", "startup");
    assert_eq!(s["is_continuation"], true, "{s}");
    assert_eq!(s["previous_session_id"], "s1", "{s}");
    assert_eq!(s["handoff_count"], 1, "{s}");
    // s3 resumes s2's handoff: the second handoff of that line.
    let h = p.write(
        ".forge/handoffs/handoff-20261121-100000.md",
        &session_handoff("s2"),
    );
    files::write_pending_resume(&p.paths(), &p.env, &h, ResumeOrigin::Chosen).unwrap();
    let s = start("s3", "clear");
    assert_eq!(s["previous_session_id"], "s2", "{s}");
    assert_eq!(s["handoff_count"], 2, "{s}");
    // s3 compacts and goes on: still its own line.
    let s = start("s3", "compact");
    assert_eq!(s["is_continuation"], true, "{s}");
    assert_eq!(s["handoff_count"], 2, "{s}");
    assert!(s["previous_session_id"].is_null(), "{s}");
}

/// What one hook call read and replaced, by file: (reads, writes).
fn traced(
    p: &Project,
    event: &str,
    extra: Value,
) -> std::collections::BTreeMap<PathBuf, (usize, usize)> {
    use crate::store::safe::trace;
    trace::start();
    p.hook(event, extra);
    let mut by_file = std::collections::BTreeMap::new();
    for (op, path) in trace::take() {
        let e: &mut (usize, usize) = by_file.entry(path).or_default();
        match op {
            trace::Op::Read => e.0 += 1,
            trace::Op::Write => e.1 += 1,
        }
    }
    by_file
}

#[test]
fn each_call_reads_each_file_once_and_writes_the_bridge_at_most_once() {
    let p = Project::new();
    git2::Repository::init(&p.root).unwrap();
    p.write("src/lib.rs", "fn main() {}\n");
    p.write(
        ".forge/handoffs/agent-T-012-20261121-101502.md",
        include_str!("../../tests/fixtures/handoffs/agent-T-012-20261121-101502.md"),
    );
    let transcript = p.root.parent().unwrap().join("transcript.jsonl");
    std::fs::write(
        &transcript,
        include_str!("../../tests/fixtures/transcripts/recorded-read-compact-write.jsonl"),
    )
    .unwrap();
    // The Signal count as the status line keeps it between calls.
    crate::store::handoffs::count_blocked(&p.paths(), std::time::SystemTime::now());
    let bridge = p.paths().session_bridge(SID);
    let registry = crate::store::registry::path(&p.env).unwrap();
    let file = p.root.join("src/lib.rs").display().to_string();
    let t = json!({"transcript_path": transcript});
    let with = |extra: Value| {
        let mut v = t.clone();
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            o.extend(e.clone());
        }
        v
    };
    let calls = [
        ("SessionStart", with(json!({"source": "startup"}))),
        ("UserPromptSubmit", with(json!({}))),
        ("PreToolUse", with(json!({"tool_name": "Read"}))),
        ("PreToolUse", with(json!({"tool_name": "Bash"}))),
        (
            "PreToolUse",
            with(json!({"tool_name": "Edit", "tool_input": {"file_path": file}})),
        ),
        ("PermissionRequest", with(json!({"tool_name": "Bash"}))),
        (
            "Notification",
            with(json!({"notification_type": "permission_prompt"})),
        ),
        ("PreToolUse", with(json!({"tool_name": "Bash"}))),
        ("Stop", with(json!({}))),
        (
            "Notification",
            with(json!({"notification_type": "idle_prompt"})),
        ),
        ("PreCompact", with(json!({"trigger": "auto"}))),
        ("SessionStart", with(json!({"source": "compact"}))),
        ("Stop", with(json!({}))),
        ("SessionEnd", with(json!({"reason": "exit"}))),
    ];
    for (event, extra) in calls {
        let by_file = traced(&p, event, extra);
        for (path, (reads, writes)) in &by_file {
            // The bridge: read when the call starts, and again under its lock when
            // it is written; so is the fleet registry. A resumed handoff is read
            // with the inbox, and whole when it is taken.
            let twice = *path == bridge
                || *path == registry
                || (event == "SessionStart" && path.starts_with(p.paths().handoffs()));
            assert!(
                *reads <= if twice { 2 } else { 1 },
                "{event} read {} {reads} times: {by_file:#?}",
                path.display()
            );
            if *path == bridge {
                assert!(*writes <= 1, "{event} wrote the bridge {writes} times");
            }
        }
    }
    // The sequence went where it should: the compaction was recorded, and the Stop
    // after it blocked once.
    assert!(p.paths().compactions().exists());
    assert_eq!(p.last_line().event, "SessionEnd");
}

#[test]
fn pre_compact_stops_waiting_for_a_handoff_past_its_deadline_and_says_so() {
    let p = Project::new();
    p.outcomes("SessionStart", json!({"source": "startup"}));
    let paths = p.paths();
    // Another process is writing a handoff: it holds the project's handoff lock.
    let held = crate::store::FileLock::acquire(&paths.handoff_lock(), std::time::Duration::ZERO)
        .expect("the lock is free");
    let wire = crate::model::hook::wire::WireHookInput {
        session_id: Some(SID.into()),
        ..Default::default()
    };
    let call = super::call::Call::new(paths.clone(), &p.env, &wire, "PreCompact");
    let started = std::time::Instant::now();
    let got = super::gather::await_handoff(&call, std::time::Duration::from_millis(300));
    assert!(got.is_none(), "it stops waiting: the compaction goes on");
    assert!(started.elapsed() >= std::time::Duration::from_millis(300));
    let said = call.take_outcomes();
    assert!(
        matches!(
            said.as_slice(),
            [Outcome::HandoffAwaited { landed: false, waited_ms }] if *waited_ms >= 300
        ),
        "{said:?}"
    );
    let log = std::fs::read_to_string(paths.logs().join("errors.log")).unwrap();
    assert!(log.contains("still being written"), "{log}");
    // Once the writer is done, the lock is had at once and nothing is recorded.
    drop(held);
    let call = super::call::Call::new(paths, &p.env, &wire, "PreCompact");
    assert!(super::gather::await_handoff(&call, std::time::Duration::from_millis(300)).is_some());
    assert!(call.take_outcomes().is_empty());
}
