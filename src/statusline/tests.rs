use super::*;
use chrono::TimeZone;

fn fixture(name: &str) -> Payload {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/statusline")
        .join(name);
    Payload::parse(&std::fs::read(path).unwrap())
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 10, 15, 2).unwrap()
}

fn state() -> SessionState {
    SessionState {
        project: Some("acme-api".into()),
        branch: Some("main".into()),
        dirty: Some(3),
        git_cached_at: Some(now() - chrono::Duration::seconds(5)),
        workflow: WorkflowState {
            phase: Some("build".into()),
            task: Some("T-012".into()),
        },
        blocked_signals: 1,
        learn_pending: false,
        tail: None,
        waiting_elsewhere: 0,
        handoff_mark: false,
        quota_5h: Vec::new(),
        quota_7d: Vec::new(),
    }
}

const PLAIN: Term = Term {
    color: false,
    width: None,
};

fn render(p: &Payload, s: &SessionState) -> String {
    render_statusline(p, s, &Config::default(), &PLAIN, now())
}

#[test]
fn at_42_percent_no_warning() {
    let line = render(&fixture("used-42.json"), &state());
    assert_eq!(
        line,
        "Sonnet 4.6 │ acme-api ⎇ main ●3 │ ████░░░░░░ 42% │ build T-012 │ ⚑1 blocked"
    );
}

#[test]
fn at_74_percent_warns_with_level() {
    let line = render(&fixture("used-74.json"), &state());
    assert_eq!(
        line,
        "Opus 4.6 │ acme-api ⎇ main ●3 │ ███████░░░ ⚠ CTX 74% L1 │ build T-012 │ ⚑1 blocked"
    );
    // The figure is said once: the warning carries it.
    assert_eq!(line.matches("74%").count(), 1, "{line}");
}

#[test]
fn a_threshold_handoff_just_written_is_marked_beside_the_figure() {
    let mut s = state();
    s.handoff_mark = true;
    let line = render(&fixture("used-74.json"), &s);
    assert_eq!(
        line,
        "Opus 4.6 │ acme-api ⎇ main ●3 │ ███████░░░ ⚠ CTX 74% L1 ✎ handoff │ build T-012 │ ⚑1 blocked"
    );
    // The mark goes with the context figure, which is never dropped.
    let narrow = render_statusline(
        &fixture("used-74.json"),
        &s,
        &Config::default(),
        &Term {
            color: false,
            width: Some(24),
        },
        now(),
    );
    assert!(narrow.contains("✎ handoff"), "{narrow}");
    s.handoff_mark = false;
    assert!(!render(&fixture("used-74.json"), &s).contains('✎'));
}

#[test]
fn nulls_at_session_start_are_unknown_not_zero() {
    let p = fixture("session-start-nulls.json");
    assert!(p.needs_transcript());
    let line = render(&p, &SessionState::default());
    assert_eq!(line, "Sonnet 4.6 │ ░░░░░░░░░░ ?%");
    assert!(!line.contains("0%"));
}

#[test]
fn one_million_window_uses_its_own_size() {
    let p = fixture("opus-1m-15.json");
    let ctx = resolve_context(&p, None);
    assert_eq!(ctx.window, Some(1_000_000));
    assert_eq!(ctx.tokens, Some(148_000));
    let line = render(&p, &SessionState::default());
    assert_eq!(line, "Opus 4.6 (1M context) │ ██░░░░░░░░ 15%");
    // Without used_percentage, the 148k tokens are measured against 1M, not 200k.
    let mut p2 = p.clone();
    p2.used_percentage = None;
    let ctx = resolve_context(&p2, None);
    assert_eq!(ctx.source, ContextSource::CurrentUsage);
    // 14.8% rounds to 15, as Claude Code's own `used_percentage` would.
    assert_eq!(ctx.pct, Some(15.0));
    // And without the window size either, the `[1m]` model id still says 1M.
    p2.window_size = None;
    assert_eq!(resolve_context(&p2, None).window, Some(1_000_000));
}

#[test]
fn garbage_and_empty_input_still_give_a_line() {
    for input in [
        &b""[..],
        b"not json",
        b"[1,2,3]",
        b"{\"context_window\": \"lots\", \"model\": 7}",
        b"{\"context_window\": {\"used_percentage\": \"74\", \"current_usage\": 3}}",
        b"\xff\xfe\x00",
    ] {
        let p = Payload::parse(input);
        let line = render(&p, &SessionState::default());
        assert_eq!(line, "░░░░░░░░░░ ?%", "{input:?}");
    }
}

#[test]
fn explicit_nulls_are_missing_and_bad_numbers_are_clamped() {
    let p = Payload::parse(
        br#"{"session_id":null,"model":{"id":null,"display_name":null},
            "context_window":{"used_percentage":130,"context_window_size":null}}"#,
    );
    assert_eq!(p.session_id, None);
    assert_eq!(p.model_name, None);
    assert_eq!(p.used_percentage, Some(100.0));
    let line = render(&p, &SessionState::default());
    assert_eq!(line, "██████████ ⚠ CTX 100% L3");
}

#[test]
fn transcript_tail_is_the_last_resort() {
    let p = fixture("session-start-nulls.json");
    let mut s = SessionState {
        tail: Some(TailScan::Usage {
            usage: Usage {
                input: 3,
                cache_creation: 11_942,
                cache_read: 12_055,
                output: 97,
            },
            model: None,
            message_id: None,
        }),
        ..SessionState::default()
    };
    assert_eq!(render(&p, &s), "Sonnet 4.6 │ █░░░░░░░░░ 12%");
    s.tail = Some(TailScan::Compacted {
        post_tokens: Some(11_890),
    });
    assert_eq!(render(&p, &s), "Sonnet 4.6 │ █░░░░░░░░░ ~6%");
    s.tail = Some(TailScan::Compacted { post_tokens: None });
    assert_eq!(render(&p, &s), "Sonnet 4.6 │ ░░░░░░░░░░ ?% compacted");
    // The tail is ignored when the payload has a figure.
    assert!(render(&fixture("used-42.json"), &s).contains(" 42%"));
}

#[test]
fn all_zero_usage_after_a_compaction_is_unknown_not_zero() {
    // What the client sends after a /compact that keeps recent messages (docs/client-reference.md
    // §9.1 #1), until the next API response.
    let zeros = Payload::parse(
        br#"{"session_id":"s","model":{"id":"claude-sonnet-4-6","display_name":"Sonnet 4.6"},
            "context_window":{"total_input_tokens":0,"total_output_tokens":0,
              "context_window_size":200000,"used_percentage":0,"remaining_percentage":100,
              "current_usage":{"input_tokens":0,"output_tokens":0,
                "cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}"#,
    );
    assert_eq!((zeros.used_percentage, zeros.current_usage), (None, None));
    assert!(zeros.needs_transcript());
    let mut s = SessionState::default();
    assert_eq!(render(&zeros, &s), "Sonnet 4.6 │ ░░░░░░░░░░ ?%");
    // The transcript's boundary gives the estimate.
    s.tail = Some(TailScan::Compacted {
        post_tokens: Some(3_258),
    });
    assert_eq!(render(&zeros, &s), "Sonnet 4.6 │ ░░░░░░░░░░ ~2%");
    assert_eq!(resolve_context(&zeros, s.tail.as_ref()).tokens, Some(3_258));
    // used_percentage 0 with no usage at all is unknown too; with real tokens (a
    // tiny context in a 1M window) 0 % is a true reading.
    let no_usage = Payload::parse(br#"{"context_window":{"used_percentage":0}}"#);
    assert_eq!(no_usage.used_percentage, None);
    let tiny = Payload::parse(
        br#"{"context_window":{"used_percentage":0,"context_window_size":1000000,
            "current_usage":{"input_tokens":3,"cache_read_input_tokens":2000}}}"#,
    );
    assert_eq!(tiny.used_percentage, Some(0.0));
    assert_eq!(render(&tiny, &SessionState::default()), "░░░░░░░░░░ 0%");
}

#[test]
fn levels_and_threshold_follow_the_config() {
    let mut cfg = Config::default();
    cfg.context.handoff_threshold = 80.0;
    let mut p = fixture("used-74.json");
    let s = SessionState::default();
    let line = render_statusline(&p, &s, &cfg, &PLAIN, now());
    assert!(line.ends_with("74% L1"), "{line}");
    p.used_percentage = Some(88.0);
    let line = render_statusline(&p, &s, &cfg, &PLAIN, now());
    assert!(line.ends_with("█░ ⚠ CTX 88% L2"), "{line}");
    p.used_percentage = Some(96.0);
    cfg.statusline.bar_width = 4;
    let line = render_statusline(&p, &s, &cfg, &PLAIN, now());
    assert!(line.ends_with("████ ⚠ CTX 96% L3"), "{line}");
}

#[test]
fn segments_follow_the_config_order() {
    let mut cfg = Config::default();
    cfg.statusline.segments = vec![Segment::Context, Segment::Learn, Segment::Model];
    let mut s = state();
    s.learn_pending = true;
    let line = render_statusline(&fixture("used-42.json"), &s, &cfg, &PLAIN, now());
    assert_eq!(line, "████░░░░░░ 42% │ ✎ learn │ Sonnet 4.6");
}

#[test]
fn stale_git_cache_is_marked() {
    let mut s = state();
    s.git_cached_at = Some(now() - chrono::Duration::seconds(600));
    let line = render(&fixture("used-42.json"), &s);
    assert!(line.contains("⎇ main ●3? │"), "{line}");
    // A tree that was clean, on an idle session's aged cache: no bare `?`.
    s.dirty = Some(0);
    let line = render(&fixture("used-42.json"), &s);
    assert!(line.contains("⎇ main │"), "{line}");
    assert!(!line.contains('?'), "{line}");
    s.git_cached_at = Some(now());
    let line = render(&fixture("used-42.json"), &s);
    assert!(line.contains("⎇ main │"), "{line}");
}

#[test]
fn narrow_terminals_drop_low_priority_segments_first() {
    let p = fixture("used-74.json");
    let mut s = state();
    s.learn_pending = true;
    let full = render(&p, &s);
    let width_of = |l: &str| l.chars().count();
    let term = |w: u16| Term {
        color: false,
        width: Some(w),
    };
    let at = |w: u16| render_statusline(&p, &s, &Config::default(), &term(w), now());
    assert_eq!(at(200), full);
    let w60 = at(60);
    assert!(width_of(&w60) <= 60, "{w60}");
    assert!(w60.contains("⚠ CTX 74%"), "{w60}");
    assert!(!w60.contains("learn"), "{w60}");
    let w20 = at(20);
    assert_eq!(w20, "⚠ CTX 74% L1");
    let w8 = at(8);
    assert_eq!(width_of(&w8), 8);
    assert!(w8.starts_with("⚠ CTX"), "{w8}");
    assert!(!at(1).is_empty());
}

#[test]
fn colours_only_without_no_color() {
    let p = fixture("used-74.json");
    let colored = render_statusline(
        &p,
        &state(),
        &Config::default(),
        &Term {
            color: true,
            width: None,
        },
        now(),
    );
    assert!(colored.contains("\x1b[33m"), "{colored:?}");
    assert!(
        colored.contains("\x1b[1;33m⚠ CTX 74%\x1b[0m"),
        "{colored:?}"
    );
    let plain = render(&p, &state());
    assert!(!plain.contains('\x1b'));
    // Colour codes do not count towards the width.
    let narrow = render_statusline(
        &p,
        &state(),
        &Config::default(),
        &Term {
            color: true,
            width: Some(40),
        },
        now(),
    );
    let visible: String = {
        let mut out = String::new();
        let mut esc = false;
        for c in narrow.chars() {
            match (esc, c) {
                (false, '\x1b') => esc = true,
                (true, 'm') => esc = false,
                (false, c) => out.push(c),
                _ => {}
            }
        }
        out
    };
    assert!(visible.chars().count() <= 40, "{visible}");
}

/// A payload carrying only `current_usage` (no `used_percentage`) on a 200k window.
fn usage_only(tokens: u64) -> Payload {
    Payload {
        model_name: Some("Opus 4.6".into()),
        model_id: Some("claude-opus-4-6".into()),
        window_size: Some(200_000),
        current_usage: Some(Usage {
            input: 1,
            cache_creation: 0,
            cache_read: tokens - 1,
            output: 500,
        }),
        ..Payload::default()
    }
}

#[test]
fn derived_percentages_are_rounded_before_warning_and_levels() {
    let s = SessionState::default();
    for (tokens, pct, tail) in [
        (139_000, 70, " ⚠ CTX 70% L1"),
        (169_000, 85, " ⚠ CTX 85% L2"),
        (189_000, 95, " ⚠ CTX 95% L3"),
        (138_999, 69, " 69%"),
        (140_999, 70, " ⚠ CTX 70% L1"),
    ] {
        let derived = usage_only(tokens);
        let ctx = resolve_context(&derived, None);
        assert_eq!(ctx.pct, Some(f64::from(pct)), "{tokens}");
        let line = render(&derived, &s);
        assert!(line.ends_with(tail), "{tokens}: {line}");
        // Exactly what the same figure sent as used_percentage renders.
        let mut sent = derived.clone();
        sent.used_percentage = Some(f64::from(pct));
        assert_eq!(render(&sent, &s), line, "{tokens}");
        // The transcript tail gives the same answer.
        let mut bare = derived.clone();
        bare.current_usage = None;
        let t = SessionState {
            tail: Some(TailScan::Usage {
                usage: derived.current_usage.unwrap(),
                model: None,
                message_id: None,
            }),
            ..SessionState::default()
        };
        assert_eq!(render(&bare, &t), line, "{tokens}");
    }
    // A fractional used_percentage is rounded too, so the number and the warning
    // never disagree.
    let mut p = usage_only(100_000);
    p.used_percentage = Some(69.6);
    assert!(render(&p, &s).ends_with("░░░ ⚠ CTX 70% L1"));
}

#[test]
fn control_characters_never_break_the_line() {
    let mut p = fixture("used-42.json");
    p.model_name = Some("Sonnet\n4.6\x1b[2J".into());
    let s = SessionState {
        project: Some("acme\r\napi".into()),
        branch: Some("main\x1b]0;pwned\x07\u{202E}\u{2066}".into()),
        workflow: WorkflowState {
            phase: Some("build\n\n".into()),
            task: Some("T-012\n---\ntitle: x\t\u{85}end".into()),
        },
        ..state()
    };
    for color in [false, true] {
        let term = Term { color, width: None };
        let line = render_statusline(&p, &s, &Config::default(), &term, now());
        assert!(
            !line.contains(['\n', '\r', '\t', '\x07', '\u{85}', '\u{202E}', '\u{2066}']),
            "{line:?}"
        );
        // The only escapes left are forge's own colour codes.
        let stray = line.replace("\x1b[0m", "").replace("\x1b[", "");
        assert!(!stray.contains('\x1b'), "{line:?}");
        if !color {
            assert_eq!(
                line,
                "Sonnet 4.6 │ acme api ⎇ main ●3 │ ████░░░░░░ 42% \
                 │ build T-012 --- title: x end │ ⚑1 blocked"
            );
        }
    }
    // A value made only of control characters leaves no empty segment behind.
    let blank = SessionState {
        workflow: WorkflowState {
            phase: Some("\n".into()),
            task: None,
        },
        ..SessionState::default()
    };
    assert_eq!(
        render(&fixture("used-42.json"), &blank),
        "Sonnet 4.6 │ ████░░░░░░ 42%"
    );
}

#[test]
fn a_long_task_is_shortened_before_segments_are_dropped() {
    let p = fixture("used-42.json");
    let mut s = state();
    s.workflow.task = Some("T-012 move every handler onto the shared pool".into());
    s.learn_pending = true;
    let full = render(&p, &s);
    let term = |w: u16| Term {
        color: false,
        width: Some(w),
    };
    let at = |w: usize| render_statusline(&p, &s, &Config::default(), &term(w as u16), now());
    // Ten columns short: the task gives them up, everything else stays.
    let w = full.chars().count() - 10;
    let line = at(w);
    // (One less when the cut lands after a space: no space before the `…`.)
    assert_eq!(line.chars().count(), w - 1, "{line}");
    assert!(
        line.contains("│ build T-012 move every handler onto the… │ ⚑1 blocked │ ✎ learn"),
        "{line}"
    );
    // Narrower still: learn goes, then the task is shortened again...
    let w = full.chars().count() - 45;
    let line = at(w);
    assert!(line.chars().count() <= w, "{line}");
    assert!(!line.contains("learn"), "{line}");
    assert_eq!(
        line,
        "Sonnet 4.6 │ acme-api ⎇ main ●3 │ ████░░░░░░ 42% │ build T-012 mov… │ ⚑1 blocked"
    );
    // ...then the task goes, then the project (the model, branch and signals stay).
    let line = at(61);
    assert_eq!(
        line,
        "Sonnet 4.6 │ acme-api ⎇ main ●3 │ ████░░░░░░ 42% │ ⚑1 blocked"
    );
    let line = at(52);
    assert_eq!(line, "Sonnet 4.6 │ ⎇ main ●3 │ ████░░░░░░ 42% │ ⚑1 blocked");
}

/// A config showing `segments`, in that order.
fn with_segments(segments: &[&str]) -> Config {
    let mut cfg = Config::default();
    cfg.statusline.segments = segments
        .iter()
        .map(|s| Segment::from_name(s).unwrap())
        .collect();
    cfg
}

/// 65 minutes before the fixtures' 5-hour window resets (2026-11-21 05:40 UTC).
fn before_5h_reset() -> DateTime<Utc> {
    Utc.timestamp_opt(1_795_239_600 - 65 * 60, 0).unwrap()
}

#[test]
fn optional_segments_show_cost_time_lines_and_limits() {
    let cfg = with_segments(&["context", "cost", "duration", "lines", "limits"]);
    let s = SessionState::default();
    let line = render_statusline(
        &fixture("used-42.json"),
        &s,
        &cfg,
        &PLAIN,
        before_5h_reset(),
    );
    assert_eq!(
        line,
        "████░░░░░░ 42% │ $1.87 │ ⏱ 45m │ +356 −41 │ 5h 24% ↻1h05m · 7d 41%"
    );
    let line = render_statusline(
        &fixture("used-74.json"),
        &s,
        &cfg,
        &PLAIN,
        before_5h_reset(),
    );
    assert_eq!(
        line,
        "███████░░░ ⚠ CTX 74% L1 │ $7.41 │ ⏱ 2h32m │ +1204 −388 │ 5h 68% ↻1h05m · 7d 52%"
    );
    // After the reset time has passed (the payload is older than the clock), the
    // reset is left out rather than shown as negative.
    let line = render_statusline(&fixture("used-74.json"), &s, &cfg, &PLAIN, now());
    assert!(line.ends_with("│ 5h 68% · 7d 52%"), "{line}");
    // At the start of a session: $0.00 and seconds; no lines changed yet, no limits.
    let line = render_statusline(
        &fixture("session-start-nulls.json"),
        &s,
        &cfg,
        &PLAIN,
        now(),
    );
    assert_eq!(line, "░░░░░░░░░░ ?% │ $0.00 │ ⏱ 1s");
}

#[test]
fn tokens_show_the_window_used_over_its_size() {
    let cfg = with_segments(&["context", "tokens"]);
    let s = SessionState::default();
    let line = |p: &Payload| render_statusline(p, &s, &cfg, &PLAIN, now());
    assert_eq!(line(&fixture("used-42.json")), "████░░░░░░ 42% │ 84k/200k");
    assert_eq!(
        line(&fixture("used-74.json")),
        "███████░░░ ⚠ CTX 74% L1 │ 148k/200k"
    );
    // No usage yet: left out, never `0/200k` made up.
    assert_eq!(line(&fixture("session-start-nulls.json")), "░░░░░░░░░░ ?%");
    // A 1M window.
    let big = Payload::parse(
        br#"{"context_window":{"context_window_size":1000000,"current_usage":
            {"input_tokens":5,"cache_read_input_tokens":612000}}}"#,
    );
    assert_eq!(line(&big), "██████░░░░ 61% │ 612k/1M");
    // After a compaction, the transcript's estimate is marked as one.
    let ctx = ContextInfo {
        pct: Some(18.0),
        tokens: Some(36_200),
        window: Some(200_000),
        source: ContextSource::CompactEstimate,
        compacted: true,
    };
    let seg = build_segment(Segment::Tokens, &Payload::default(), &s, &ctx, &cfg, now());
    assert_eq!(
        seg.map(|s| s.parts[0].0.clone()).as_deref(),
        Some("~36k/200k")
    );
    // Dropped first when the line is too narrow.
    let narrow = Term {
        color: false,
        width: Some(20),
    };
    let cut = render_statusline(&fixture("used-42.json"), &s, &cfg, &narrow, now());
    assert_eq!(cut, "████░░░░░░ 42%");
}

#[test]
fn token_counts_are_short_and_rounded() {
    for (n, short) in [
        (0, "0"),
        (999, "999"),
        (1_000, "1k"),
        (1_499, "1k"),
        (1_500, "2k"),
        (148_000, "148k"),
        (999_499, "999k"),
        (999_500, "1M"),
        (1_000_000, "1M"),
        (1_250_000, "1.3M"),
        (u64::MAX, "18446744073709.5M"),
    ] {
        assert_eq!(short_count(n), short, "{n}");
    }
}

#[test]
fn optional_segments_are_off_by_default() {
    let line = render(&fixture("used-74.json"), &state());
    for absent in ["$", "⏱", "+1204", "5h", "7d"] {
        assert!(!line.contains(absent), "{absent}: {line}");
    }
    for name in ["cost", "duration", "limits", "lines", "elsewhere", "tokens"] {
        let seg = Segment::from_name(name).unwrap();
        assert!(!Config::default().statusline.segments.contains(&seg));
    }
}

#[test]
fn every_known_segment_renders_from_a_full_payload() {
    // The config's list and the renderer cannot drift apart.
    let p = fixture("used-74.json");
    let mut s = state();
    s.learn_pending = true;
    s.waiting_elsewhere = 1;
    let cfg = Config::default();
    let ctx = resolve_context(&p, None);
    for name in Segment::ALL {
        let seg = build_segment(*name, &p, &s, &ctx, &cfg, before_5h_reset());
        assert_eq!(seg.map(|s| s.key), Some(*name), "{name}");
    }
}

#[test]
fn nulls_and_garbage_in_the_payload_leave_segments_out() {
    let cfg = with_segments(&["context", "cost", "duration", "lines", "limits"]);
    let s = SessionState::default();
    for input in [
        r#"{"cost": null, "rate_limits": null}"#,
        r#"{"cost": {"total_cost_usd": null, "total_duration_ms": null,
            "total_lines_added": null, "total_lines_removed": null},
           "rate_limits": {"five_hour": null, "seven_day": {"used_percentage": null}}}"#,
        r#"{"cost": {"total_cost_usd": -1, "total_duration_ms": -5,
            "total_lines_added": -3, "total_lines_removed": "many"},
           "rate_limits": {"five_hour": {"used_percentage": -2, "resets_at": 1},
                           "seven_day": {"used_percentage": "half"}}}"#,
        r#"{"cost": {"total_cost_usd": "1.5", "total_duration_ms": 1e300,
            "total_lines_added": [1], "total_lines_removed": {}},
           "rate_limits": "lots"}"#,
        r#"{"cost": {"total_cost_usd": 1e300}, "rate_limits": {"five_hour": 7}}"#,
        r#"{"cost": 3, "rate_limits": [1, 2]}"#,
    ] {
        let p = Payload::parse(input.as_bytes());
        let line = render_statusline(&p, &s, &cfg, &PLAIN, now());
        assert_eq!(line, "░░░░░░░░░░ ?%", "{input}");
    }
    // One good field among bad ones still shows; a figure over 100% is capped.
    let p = Payload::parse(
        br#"{"cost": {"total_cost_usd": -1, "total_lines_added": 0, "total_lines_removed": 7},
             "rate_limits": {"seven_day": {"used_percentage": 140.0, "resets_at": "soon"}}}"#,
    );
    let line = render_statusline(&p, &s, &cfg, &PLAIN, now());
    assert_eq!(line, "░░░░░░░░░░ ?% │ +0 −7 │ 7d 100%");
}

#[test]
fn limits_show_resets_for_the_5h_window_and_any_window_near_full() {
    let cfg = with_segments(&["limits"]);
    let s = SessionState::default();
    let at = before_5h_reset();
    let limits = |five: Option<(f64, i64)>, seven: Option<(f64, i64)>| Payload {
        limits: RateLimits {
            five_hour: five.map(|(p, r)| LimitWindow {
                used_pct: p,
                resets_at: Some(r),
            }),
            seven_day: seven.map(|(p, r)| LimitWindow {
                used_pct: p,
                resets_at: Some(r),
            }),
        },
        ..Payload::default()
    };
    let t = at.timestamp();
    let line = |p: &Payload| render_statusline(p, &s, &cfg, &PLAIN, at);
    assert_eq!(line(&limits(Some((12.0, t + 45)), None)), "5h 12% ↻45s");
    assert_eq!(line(&limits(None, Some((52.3, t + 86_400 * 4)))), "7d 52%");
    assert_eq!(
        line(&limits(None, Some((85.0, t + 86_400 * 3 + 3600 * 4)))),
        "7d 85% ↻3d04h"
    );
    assert_eq!(
        line(&limits(Some((99.6, t + 600)), Some((90.0, t + 7200)))),
        "5h 100% ↻10m · 7d 90% ↻2h00m"
    );
    // Colours follow the use: plain below 70, yellow from 70, red from 90.
    let coloured = |pct: f64| {
        let term = Term {
            color: true,
            width: None,
        };
        render_statusline(&limits(Some((pct, t - 1)), None), &s, &cfg, &term, at)
    };
    assert_eq!(coloured(40.0), "5h 40%");
    assert_eq!(coloured(70.0), "\x1b[33m5h 70%\x1b[0m");
    assert_eq!(coloured(93.0), "\x1b[1;31m5h 93%\x1b[0m");
}

#[test]
fn money_and_time_read_the_short_way() {
    assert_eq!(usd(0.0), "$0.00");
    assert_eq!(usd(0.004), "$0.00");
    assert_eq!(usd(1.8734), "$1.87");
    assert_eq!(usd(99.994), "$99.99");
    assert_eq!(usd(123.5), "$124");
    for (secs, want) in [
        (0, "0s"),
        (59, "59s"),
        (60, "1m"),
        (45 * 60 + 10, "45m"),
        (3600, "1h00m"),
        (2 * 3600 + 5 * 60, "2h05m"),
        (86_399, "23h59m"),
        (86_400 * 3 + 3600 * 4 + 59, "3d04h"),
    ] {
        assert_eq!(span(secs), want, "{secs}");
    }
}

#[test]
fn narrow_terminals_drop_the_optional_segments_sensibly() {
    let cfg = with_segments(&[
        "model", "project", "git", "context", "task", "signals", "learn", "cost", "duration",
        "lines", "limits",
    ]);
    let p = fixture("used-74.json");
    let mut s = state();
    s.learn_pending = true;
    let at = before_5h_reset();
    let full = render_statusline(&p, &s, &cfg, &PLAIN, at);
    assert_eq!(
        full,
        "Opus 4.6 │ acme-api ⎇ main ●3 │ ███████░░░ ⚠ CTX 74% L1 │ build T-012 │ ⚑1 blocked \
         │ ✎ learn │ $7.41 │ ⏱ 2h32m │ +1204 −388 │ 5h 68% ↻1h05m · 7d 52%"
    );
    let width = |l: &str| l.chars().count();
    let at_width = |w: usize| {
        let term = Term {
            color: false,
            width: Some(w as u16),
        };
        render_statusline(&p, &s, &cfg, &term, at)
    };
    // What goes, in order, as the terminal narrows: the reset time first, then the
    // elapsed time, the edits, the learn flag, the cost, the task, the project, the
    // model, the limits; the branch, the Signals and the context stay longest.
    let mut seen: Vec<String> = Vec::new();
    for w in (1..=width(&full)).rev() {
        let line = at_width(w);
        assert!(width(&line) <= w, "{w}: {line}");
        for (gone, mark) in [
            ("reset", "↻"),
            ("duration", "⏱"),
            ("lines", "+1204"),
            ("learn", "✎"),
            ("cost", "$7.41"),
            ("task", "build"),
            ("project", "acme-api"),
            ("model", "Opus"),
            ("limits", "5h 68%"),
            ("git", "⎇"),
            ("signals", "⚑1"),
        ] {
            if !line.contains(mark) && !seen.iter().any(|s| s == gone) {
                seen.push(gone.to_owned());
            }
        }
        assert!(line.contains("⚠ CTX") || w < 12, "{w}: {line}");
    }
    assert_eq!(
        seen,
        [
            "reset", "duration", "lines", "learn", "cost", "task", "project", "model", "limits",
            "git", "signals"
        ]
    );
    // Just short of the full width, only the reset time has gone.
    assert_eq!(at_width(width(&full) - 1), full.replace(" ↻1h05m", ""));
}

#[test]
fn the_warning_says_the_figure_once_in_every_form() {
    // A post-compaction estimate over the threshold keeps its `~` inside the warning.
    let p = fixture("session-start-nulls.json");
    let s = SessionState {
        tail: Some(TailScan::Compacted {
            post_tokens: Some(150_000),
        }),
        ..SessionState::default()
    };
    assert_eq!(render(&p, &s), "Sonnet 4.6 │ ████████░░ ⚠ CTX ~75% L1");
    // Without the bar (narrow), and in colour: the same single figure.
    let p = fixture("used-74.json");
    let term = |color: bool, width: Option<u16>| Term { color, width };
    let narrow = render_statusline(
        &p,
        &state(),
        &Config::default(),
        &term(false, Some(14)),
        now(),
    );
    assert_eq!(narrow, "⚠ CTX 74% L1");
    let coloured = render_statusline(&p, &state(), &Config::default(), &term(true, None), now());
    assert_eq!(coloured.matches("74%").count(), 1, "{coloured:?}");
    assert!(
        coloured.contains("\x1b[90m░░░\x1b[0m \x1b[1;33m⚠ CTX 74%\x1b[0m\x1b[33m L1\x1b[0m"),
        "{coloured:?}"
    );
}

#[test]
fn elsewhere_counts_sessions_waiting_in_other_projects_and_is_off_by_default() {
    let mut s = state();
    s.waiting_elsewhere = 2;
    // Off by default: the default segments never show it.
    let line = render(&fixture("used-42.json"), &s);
    assert!(!line.contains("elsewhere"), "{line}");
    let mut cfg = Config::default();
    cfg.statusline.segments.push(Segment::Elsewhere);
    let line = render_statusline(&fixture("used-42.json"), &s, &cfg, &PLAIN, now());
    assert!(line.ends_with(" │ ⚑2 waiting elsewhere"), "{line}");
    // Nothing waiting: nothing shown.
    s.waiting_elsewhere = 0;
    let line = render_statusline(&fixture("used-42.json"), &s, &cfg, &PLAIN, now());
    assert!(!line.contains("elsewhere"), "{line}");
    // Narrow: it goes before the task, the project and the rest.
    s.waiting_elsewhere = 1;
    let narrow = Term {
        color: false,
        width: Some(80),
    };
    let line = render_statusline(&fixture("used-42.json"), &s, &cfg, &narrow, now());
    assert!(
        !line.contains("elsewhere") && line.contains("build T-012"),
        "{line}"
    );
}

/// The session's readings before [`before_5h_reset`]: the 5-hour window rose from
/// 56 % to the fixture's 68 % in the last 20 minutes (0.6 % a minute: 32 % left is
/// 53 minutes, before its reset in 1h05); the 7-day window has not moved in an hour.
fn pace_state() -> SessionState {
    use crate::model::session::pace::QuotaReading;
    let t = before_5h_reset().timestamp();
    let mut s = state();
    s.quota_5h = vec![
        QuotaReading {
            at: t - 1200,
            pct: 56.0,
            resets_at: Some(1_795_239_600),
        },
        QuotaReading {
            at: t - 300,
            pct: 65.0,
            resets_at: Some(1_795_239_600),
        },
    ];
    s.quota_7d = vec![QuotaReading {
        at: t - 3600,
        pct: 52.3,
        resets_at: Some(1_795_683_600),
    }];
    s
}

#[test]
fn pace_says_when_the_current_pace_runs_out_before_the_reset() {
    let cfg = with_segments(&["context", "pace"]);
    let p = fixture("used-74.json");
    let at = before_5h_reset();
    let line = render_statusline(&p, &pace_state(), &cfg, &PLAIN, at);
    assert_eq!(
        line,
        "███████░░░ ⚠ CTX 74% L1 │ 5h 68% ↗ out in 54m (resets 1h05) · 7d 52% → (resets 5d04)"
    );
    // No readings yet (the session's first tick): the use and the reset only.
    let line = render_statusline(&p, &state(), &cfg, &PLAIN, at);
    assert_eq!(
        line,
        "███████░░░ ⚠ CTX 74% L1 │ 5h 68% (resets 1h05) · 7d 52% (resets 5d04)"
    );
    // Headed out is red.
    let term = Term {
        color: true,
        width: None,
    };
    let coloured = render_statusline(&p, &pace_state(), &cfg, &term, at);
    assert!(
        coloured.contains("\x1b[1;31m5h 68% ↗ out in 54m"),
        "{coloured:?}"
    );
    // No rate_limits (an API-key account): no segment.
    let mut no_limits = fixture("used-74.json");
    no_limits.limits = RateLimits::default();
    let none = render_statusline(&no_limits, &pace_state(), &cfg, &PLAIN, at);
    assert!(!none.contains("5h") && !none.contains("7d"), "{none}");
}

/// The line with the pace at 80 and 120 columns: at 80 the resets go first, then
/// the line's other segments by their drop order.
#[test]
fn pace_fits_80_and_120_columns() {
    let mut cfg = Config::default();
    cfg.statusline.segments.push(Segment::Pace);
    let p = fixture("used-74.json");
    let at = before_5h_reset();
    for width in [80u16, 120] {
        let term = Term {
            color: false,
            width: Some(width),
        };
        let line = render_statusline(&p, &pace_state(), &cfg, &term, at);
        assert!(text_width(&line) <= usize::from(width), "{line}");
        insta::assert_snapshot!(format!("pace_{width}_columns"), line);
    }
}

fn text_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}
