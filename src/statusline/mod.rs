//! The statusline as pure functions: Claude Code's statusline JSON in, one line out.
//!
//! [`Payload`] mirrors the wire JSON leniently (explicit `null`s and wrong types are
//! "missing", never an error). [`resolve_context`] picks the context size in the order
//! of docs/design.md#the-context-figure. [`render_statusline`] formats the line from
//! the payload and a [`SessionState`] the caller gathered from small state files; it
//! does no I/O, so it is tested directly over the payload fixtures.
//!
//! Line format (segments from `[statusline] segments`, joined by ` │ `; `project`
//! and `git` side by side are joined by a space):
//!
//! `Opus 4.6 │ acme-api ⎇ main ●3 │ ███████░░░ ⚠ CTX 74% L1 │ build T-012 │ ⚑1 blocked │ ✎ learn`
//!
//! and, with the optional segments `cost`, `duration`, `lines`, `limits` and
//! `elsewhere` added:
//!
//! `… │ $7.41 │ ⏱ 2h32m │ +1204 −388 │ 5h 68% ↻1h05m · 7d 52% │ ⚑2 waiting elsewhere`

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::config::Config;
use crate::model::lenient::{text_at, value_at};
use crate::model::segment::{DROP_ORDER, Segment};
use crate::model::session::level::Level;
use crate::model::session::state::WorkflowState;
use crate::model::session::transcript::{self, TailScan, Usage, as_u64, pct_of, round_pct};
use crate::model::text::sanitize::single_line;

/// The statusline JSON, as far as forge reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload {
    /// `session_id`.
    pub(crate) session_id: Option<String>,
    /// `transcript_path` (empty means none).
    pub(crate) transcript_path: Option<String>,
    /// `cwd`, else `workspace.current_dir`.
    pub(crate) cwd: Option<String>,
    /// `workspace.project_dir`.
    pub(crate) project_dir: Option<String>,
    /// `model.id`.
    pub(crate) model_id: Option<String>,
    /// `model.display_name`.
    pub(crate) model_name: Option<String>,
    /// `context_window.context_window_size`.
    pub(crate) window_size: Option<u64>,
    /// `context_window.used_percentage`, clamped to 0..=100.
    pub(crate) used_percentage: Option<f64>,
    /// `context_window.current_usage`.
    pub(crate) current_usage: Option<Usage>,
    /// `cost.*`: spend, time and edits of the session.
    pub(crate) spend: Spend,
    /// `rate_limits.*`: the account's 5-hour and 7-day use.
    pub(crate) limits: RateLimits,
}

/// `cost.*` of the statusline JSON (Claude Code's client-side figures). Each field is
/// `None` when missing, `null`, not a number, negative or absurdly large, so the line
/// never shows `NaN` or `$-1`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Spend {
    /// `cost.total_cost_usd`.
    pub(crate) usd: Option<f64>,
    /// `cost.total_duration_ms`: wall time since the session started.
    pub(crate) duration_ms: Option<u64>,
    /// `cost.total_lines_added`.
    pub(crate) lines_added: Option<u64>,
    /// `cost.total_lines_removed`.
    pub(crate) lines_removed: Option<u64>,
}

/// One `rate_limits` window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LimitWindow {
    /// `used_percentage`, clamped to 0..=100.
    pub(crate) used_pct: f64,
    /// `resets_at` (unix seconds), when given.
    pub(crate) resets_at: Option<i64>,
}

/// `rate_limits` (Pro/Max accounts, after the first response); absent otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct RateLimits {
    /// `rate_limits.five_hour`.
    pub(crate) five_hour: Option<LimitWindow>,
    /// `rate_limits.seven_day`.
    pub(crate) seven_day: Option<LimitWindow>,
}

/// A finite, non-negative number below `max`.
fn number_at(v: &Value, path: &[&str], max: f64) -> Option<f64> {
    value_at(v, path)
        .and_then(Value::as_f64)
        .filter(|f| f.is_finite() && (0.0..max).contains(f))
}

impl Spend {
    fn from_value(v: &Value) -> Self {
        // Bounds far above any real session: past them the value is garbage.
        let count = |key: &str| number_at(v, &["cost", key], 1e12).map(|f| f as u64);
        Self {
            usd: number_at(v, &["cost", "total_cost_usd"], 1e7),
            duration_ms: count("total_duration_ms"),
            lines_added: count("total_lines_added"),
            lines_removed: count("total_lines_removed"),
        }
    }
}

impl RateLimits {
    fn from_value(v: &Value) -> Self {
        let window = |key: &str| {
            let used_pct = value_at(v, &["rate_limits", key, "used_percentage"])
                .and_then(Value::as_f64)
                .filter(|p| p.is_finite() && *p >= 0.0)?
                .min(100.0);
            let resets_at = number_at(v, &["rate_limits", key, "resets_at"], 1e11)
                .filter(|t| *t > 0.0)
                .map(|t| t as i64);
            Some(LimitWindow {
                used_pct,
                resets_at,
            })
        };
        Self {
            five_hour: window("five_hour"),
            seven_day: window("seven_day"),
        }
    }
}

impl Payload {
    /// Parses stdin bytes; anything that is not a JSON object gives an empty payload.
    pub(crate) fn parse(bytes: &[u8]) -> Self {
        serde_json::from_slice::<Value>(bytes)
            .map(|v| Self::from_value(&v))
            .unwrap_or_default()
    }

    /// Reads the fields forge uses from any JSON value.
    ///
    /// An all-zero `current_usage`, and a `used_percentage` of 0 with no tokens, mean
    /// "unknown", not 0 %: the client sends them right after a compaction that keeps
    /// recent messages, until the next API response (docs/client-reference.md §9.1 #1). No real
    /// API response has an empty context.
    pub fn from_value(v: &Value) -> Self {
        if !v.is_object() {
            return Self::default();
        }
        let model_plain = v.get("model").and_then(Value::as_str).map(str::to_owned);
        let mut p = Self::from_value_raw(v, model_plain);
        if p.current_usage.is_some_and(|u| u.context_in() == 0) {
            p.current_usage = None;
        }
        if p.used_percentage.is_some_and(|pct| pct <= 0.0) && p.current_usage.is_none() {
            p.used_percentage = None;
        }
        p
    }

    fn from_value_raw(v: &Value, model_plain: Option<String>) -> Self {
        Self {
            session_id: text_at(v, &["session_id"]),
            transcript_path: text_at(v, &["transcript_path"]),
            cwd: text_at(v, &["cwd"]).or_else(|| text_at(v, &["workspace", "current_dir"])),
            project_dir: text_at(v, &["workspace", "project_dir"]),
            model_id: text_at(v, &["model", "id"]).or_else(|| model_plain.clone()),
            model_name: text_at(v, &["model", "display_name"]).or(model_plain),
            window_size: value_at(v, &["context_window", "context_window_size"])
                .and_then(as_u64)
                .filter(|w| *w > 0),
            used_percentage: value_at(v, &["context_window", "used_percentage"])
                .and_then(Value::as_f64)
                .filter(|p| p.is_finite())
                .map(|p| p.clamp(0.0, 100.0)),
            current_usage: value_at(v, &["context_window", "current_usage"])
                .and_then(Usage::from_value),
            spend: Spend::from_value(v),
            limits: RateLimits::from_value(v),
        }
    }

    /// Whether the payload carries no context figure, so the transcript tail is the
    /// only source left.
    pub(crate) fn needs_transcript(&self) -> bool {
        self.used_percentage.is_none() && self.current_usage.is_none()
    }
}

/// Where the context figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ContextSource {
    /// `context_window.used_percentage`.
    UsedPercentage,
    /// `context_window.current_usage` over the window.
    CurrentUsage,
    /// The transcript's last usage record.
    Transcript,
    /// The transcript's last `compact_boundary` (`postTokens`, an estimate).
    CompactEstimate,
    /// Nothing known yet.
    Unknown,
}

/// The context figure the line shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ContextInfo {
    /// Used percentage when known: a whole number in 0..=100, rounded the way
    /// Claude Code rounds `used_percentage`, so the figure shown, the bar, the
    /// warning, the level and the session bridge all use the same value.
    pub(crate) pct: Option<f64>,
    /// Input-side tokens when known.
    pub(crate) tokens: Option<u64>,
    /// The window size used (declared, else inferred).
    pub(crate) window: Option<u64>,
    /// Where it came from.
    pub(crate) source: ContextSource,
    /// The session was just compacted and no fresh usage exists yet.
    pub(crate) compacted: bool,
}

/// The context figure, in the order of docs/design.md#the-context-figure:
/// `used_percentage`; else `current_usage` over the window; else the transcript tail
/// (window from the payload, else from the model id); else unknown.
pub(crate) fn resolve_context(p: &Payload, tail: Option<&TailScan>) -> ContextInfo {
    let model = p.model_id.as_deref();
    if let Some(pct) = p.used_percentage {
        let tokens = p.current_usage.map(|u| u.context_in());
        return ContextInfo {
            pct: Some(round_pct(pct)),
            tokens,
            window: Some(transcript::infer_window(p.window_size, model, tokens)),
            source: ContextSource::UsedPercentage,
            compacted: false,
        };
    }
    if let Some(u) = p.current_usage {
        let tokens = u.context_in();
        let window = transcript::infer_window(p.window_size, model, Some(tokens));
        return ContextInfo {
            pct: Some(pct_of(tokens, window)),
            tokens: Some(tokens),
            window: Some(window),
            source: ContextSource::CurrentUsage,
            compacted: false,
        };
    }
    let unknown = ContextInfo {
        pct: None,
        tokens: None,
        window: p.window_size,
        source: ContextSource::Unknown,
        compacted: false,
    };
    match tail {
        Some(TailScan::Usage { usage, .. }) => {
            let tokens = usage.context_in();
            let window = transcript::infer_window(p.window_size, model, Some(tokens));
            ContextInfo {
                pct: Some(pct_of(tokens, window)),
                tokens: Some(tokens),
                window: Some(window),
                source: ContextSource::Transcript,
                compacted: false,
            }
        }
        Some(TailScan::Compacted {
            post_tokens: Some(t),
        }) => {
            let window = transcript::infer_window(p.window_size, model, Some(*t));
            ContextInfo {
                pct: Some(pct_of(*t, window)),
                tokens: Some(*t),
                window: Some(window),
                source: ContextSource::CompactEstimate,
                compacted: true,
            }
        }
        Some(TailScan::Compacted { post_tokens: None }) => ContextInfo {
            compacted: true,
            ..unknown
        },
        Some(TailScan::Nothing) | None => unknown,
    }
}

/// What the caller read from `.forge/` and `.git/HEAD` for this tick.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionState {
    /// The project's folder name.
    pub project: Option<String>,
    /// The branch (from `.git/HEAD`, else the git cache).
    pub branch: Option<String>,
    /// Uncommitted changes from `logs/git-cache.json`.
    pub dirty: Option<u64>,
    /// When that cache was written.
    pub git_cached_at: Option<DateTime<Utc>>,
    /// `state.json` phase and task.
    pub workflow: WorkflowState,
    /// Blocked agent Signals.
    pub blocked_signals: usize,
    /// `logs/learn-pending` exists.
    pub learn_pending: bool,
    /// The transcript tail, when the payload had no context figure.
    pub tail: Option<TailScan>,
    /// Live sessions of other projects waiting for a person (from the fleet
    /// registry; read only when the `elsewhere` segment is on).
    pub waiting_elsewhere: usize,
    /// A threshold handoff was written and no tick has marked it yet: this one shows
    /// `✎ handoff` beside the context figure (and the tick's record clears it).
    pub handoff_mark: bool,
    /// The session's earlier readings of the 5-hour window (its bridge's
    /// `quota_5h`), for the `pace` segment.
    pub quota_5h: Vec<crate::model::session::pace::QuotaReading>,
    /// The same for the 7-day window.
    pub quota_7d: Vec<crate::model::session::pace::QuotaReading>,
}

/// The terminal the line is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term {
    /// Emit ANSI colours (false under `NO_COLOR` or `--plain`).
    pub color: bool,
    /// `$COLUMNS`: the line is cut to fit.
    pub width: Option<u16>,
}

/// One piece of text with an SGR colour code (`""` = none).
type Part = (String, &'static str);

/// A segment as drawn: which one, and its text in coloured parts.
struct Shown {
    key: Segment,
    parts: Vec<Part>,
}

impl Shown {
    fn width(&self) -> usize {
        self.parts.iter().map(|(t, _)| t.chars().count()).sum()
    }

    /// The segment with every part kept on one line (see [`single_line`]): values
    /// from `state.json`, the payload, folder and branch names can hold newlines or
    /// escape sequences. Clean parts are left alone (no allocation); parts that clean
    /// to nothing are dropped, and so is a segment left with no text.
    fn sanitized(mut self) -> Option<Self> {
        for part in &mut self.parts {
            if let std::borrow::Cow::Owned(clean) = single_line(&part.0) {
                part.0 = clean;
            }
        }
        self.parts.retain(|(t, _)| !t.is_empty());
        (!self.parts.is_empty()).then_some(self)
    }
}

const SEP: &str = " │ ";
/// The task is never shortened below this many characters (`…` included).
const TASK_MIN: usize = 8;

fn level_color(level: Level) -> &'static str {
    match level {
        Level::L0 => "32",
        Level::L1 => "33",
        Level::L2 => "31",
        Level::L3 => "1;31",
    }
}

/// The context segment, with `✎ handoff` after the figure for the one tick that
/// marks a threshold handoff just written.
fn marked_context(ctx: &ContextInfo, cfg: &Config, with_bar: bool, s: &SessionState) -> Shown {
    let mut shown = context_segment(ctx, cfg, with_bar);
    if s.handoff_mark {
        shown.parts.push((" ✎ handoff".to_owned(), "1;36"));
    }
    shown
}

fn context_segment(ctx: &ContextInfo, cfg: &Config, with_bar: bool) -> Shown {
    let width = usize::from(cfg.statusline.bar_width);
    let mut parts: Vec<Part> = Vec::new();
    let Some(pct) = ctx.pct else {
        if with_bar && width > 0 {
            parts.push(("░".repeat(width), "90"));
            parts.push((" ".to_owned(), ""));
        }
        let text = if ctx.compacted { "?% compacted" } else { "?%" };
        parts.push((text.to_owned(), "90"));
        return Shown {
            key: Segment::Context,
            parts,
        };
    };
    let level = Level::from_pct(pct, &cfg.context.thresholds());
    let color = level_color(level);
    if with_bar && width > 0 {
        let filled = ((pct / 100.0) * width as f64)
            .round()
            .clamp(0.0, width as f64) as usize;
        parts.push(("█".repeat(filled), color));
        parts.push(("░".repeat(width - filled), "90"));
        parts.push((" ".to_owned(), ""));
    }
    let shown = pct.round() as i64;
    let approx = if ctx.source == ContextSource::CompactEstimate {
        "~"
    } else {
        ""
    };
    if pct >= cfg.context.handoff_threshold {
        // The warning carries the figure: it is not repeated before it.
        let warn = if level >= Level::L2 { "1;31" } else { "1;33" };
        parts.push((format!("⚠ CTX {approx}{shown}%"), warn));
    } else {
        parts.push((format!("{approx}{shown}%"), color));
    }
    if level > Level::L0 {
        parts.push((format!(" {level}"), color));
    }
    Shown {
        key: Segment::Context,
        parts,
    }
}

fn build_segment(
    key: Segment,
    p: &Payload,
    s: &SessionState,
    ctx: &ContextInfo,
    cfg: &Config,
    now: DateTime<Utc>,
) -> Option<Shown> {
    let seg = |parts: Vec<Part>| Some(Shown { key, parts });
    match key {
        Segment::Model => {
            let name = p.model_name.clone().or_else(|| p.model_id.clone())?;
            seg(vec![(name, "36")])
        }
        Segment::Project => seg(vec![(s.project.clone()?, "1;37")]),
        Segment::Git => {
            let branch = s.branch.clone()?;
            let mut parts = vec![(format!("⎇ {branch}"), "35")];
            let stale = s.git_cached_at.is_none_or(|t| {
                (now - t).num_seconds() > i64::try_from(cfg.git.cache_ttl_secs).unwrap_or(i64::MAX)
            });
            match s.dirty {
                Some(n) if n > 0 => {
                    parts.push((format!(" ●{n}"), "33"));
                    if stale {
                        parts.push(("?".to_owned(), "90"));
                    }
                }
                // A clean tree last time, and no hook since (an idle session): the
                // branch is `.git/HEAD`'s, live; a bare `?` would say nothing.
                _ => {}
            }
            seg(parts)
        }
        Segment::Context => Some(marked_context(ctx, cfg, true, s)),
        Segment::Task => {
            let text = match (&s.workflow.phase, &s.workflow.task) {
                (Some(ph), Some(t)) => format!("{ph} {t}"),
                (Some(x), None) | (None, Some(x)) => x.clone(),
                (None, None) => return None,
            };
            seg(vec![(text, "34")])
        }
        Segment::Signals if s.blocked_signals > 0 => {
            seg(vec![(format!("⚑{} blocked", s.blocked_signals), "1;31")])
        }
        Segment::Elsewhere if s.waiting_elsewhere > 0 => seg(vec![(
            format!("⚑{} waiting elsewhere", s.waiting_elsewhere),
            "33",
        )]),
        Segment::Learn if s.learn_pending => seg(vec![("✎ learn".to_owned(), "35")]),
        Segment::Signals | Segment::Elsewhere | Segment::Learn => None,
        Segment::Cost => seg(vec![(usd(p.spend.usd?), "33")]),
        Segment::Duration => seg(vec![(
            format!("⏱ {}", span(p.spend.duration_ms? / 1000)),
            "36",
        )]),
        Segment::Lines => {
            let (added, removed) = (p.spend.lines_added, p.spend.lines_removed);
            if added.unwrap_or(0) == 0 && removed.unwrap_or(0) == 0 {
                return None;
            }
            let mut parts = Vec::new();
            if let Some(n) = added {
                parts.push((format!("+{n}"), "32"));
            }
            if let Some(n) = removed {
                if !parts.is_empty() {
                    parts.push((" ".to_owned(), ""));
                }
                parts.push((format!("−{n}"), "31"));
            }
            seg(parts)
        }
        Segment::Limits => limits_segment(&p.limits, now, true),
        Segment::Pace => pace_segment(p, s, now, PaceForm::Full),
        Segment::Tokens => {
            // `~` as the figure has it after a compaction: an estimate.
            let approx = if ctx.compacted { "~" } else { "" };
            let used = short_count(ctx.tokens?);
            let text = match ctx.window.filter(|&w| w > 0) {
                Some(w) => format!("{approx}{used}/{}", short_count(w)),
                None => format!("{approx}{used}"),
            };
            seg(vec![(text, "36")])
        }
    }
}

/// A token count the short way: `850`, `148k`, `1M`, `1.2M` (rounded to the
/// nearest).
fn short_count(n: u64) -> String {
    if n < 1000 {
        return n.to_string();
    }
    let k = n.saturating_add(500) / 1000;
    if k < 1000 {
        return format!("{k}k");
    }
    let tenths = n.saturating_add(50_000) / 100_000;
    match tenths % 10 {
        0 => format!("{}M", tenths / 10),
        t => format!("{}.{t}M", tenths / 10),
    }
}

/// `$1.87`; whole dollars from $100 up.
fn usd(v: f64) -> String {
    if v < 100.0 {
        format!("${v:.2}")
    } else {
        format!("${v:.0}")
    }
}

/// A length of time the short way: `45s`, `45m`, `2h05m`, `3d04h`.
fn span(secs: u64) -> String {
    let (m, h, d) = (secs / 60, secs / 3600, secs / 86_400);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{m}m"),
        s if s < 86_400 => format!("{h}h{:02}m", m % 60),
        _ => format!("{d}d{:02}h", h % 24),
    }
}

/// At or above this use of a rate-limit window, its reset time is shown (the
/// 5-hour window's always is, when it fits).
const LIMIT_RESET_FROM: u8 = 80;

/// `5h 68% ↻1h05m · 7d 52%`: each window the payload carries, coloured by use;
/// `↻` is the time until the window resets (the 5-hour window's, and any window's
/// at or above [`LIMIT_RESET_FROM`]), left out when `with_resets` is false or the
/// reset is not in the future. `None` without `rate_limits`.
fn limits_segment(l: &RateLimits, now: DateTime<Utc>, with_resets: bool) -> Option<Shown> {
    let mut parts: Vec<Part> = Vec::new();
    for (label, window) in [("5h", l.five_hour), ("7d", l.seven_day)] {
        let Some(w) = window else { continue };
        if !parts.is_empty() {
            parts.push((" · ".to_owned(), "90"));
        }
        let pct = w.used_pct.round() as u8;
        let color = match pct {
            90.. => "1;31",
            70.. => "33",
            _ => "",
        };
        parts.push((format!("{label} {pct}%"), color));
        let wanted = label == "5h" || pct >= LIMIT_RESET_FROM;
        if let Some(at) = w.resets_at.filter(|_| with_resets && wanted) {
            let left = at - now.timestamp();
            if left > 0 {
                parts.push((format!(" ↻{}", span(left.unsigned_abs())), "90"));
            }
        }
    }
    (!parts.is_empty()).then_some(Shown {
        key: Segment::Limits,
        parts,
    })
}

/// The pace of each window the payload carries (`p.limits`), from the session's
/// readings before this tick (`state.quota_*`).
pub(crate) fn paces(
    p: &Payload,
    state: &SessionState,
    now: DateTime<Utc>,
) -> Vec<crate::model::session::pace::Pace> {
    use crate::model::session::pace::{QuotaReading, Window, pace};
    [
        (Window::FiveHour, p.limits.five_hour, &state.quota_5h),
        (Window::SevenDay, p.limits.seven_day, &state.quota_7d),
    ]
    .into_iter()
    .filter_map(|(window, current, kept)| {
        let w = current?;
        let current = QuotaReading {
            at: now.timestamp(),
            pct: w.used_pct,
            resets_at: w.resets_at,
        };
        Some(pace(window, kept, current))
    })
    .collect()
}

/// How much of the pace a line has room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PaceForm {
    /// Each window with its reset.
    Full,
    /// Each window, no reset.
    NoResets,
    /// One window, no reset: the first that runs out, else the 5-hour one.
    One,
}

/// `5h 62% ↗ out in 1h10 (resets 2h05) · 7d 41% →`: each window's use, where its
/// pace takes it ([`crate::model::session::pace`]) and the time to its reset, as
/// much as `form` says. A window headed out is red, one at 70 % or more yellow.
/// `None` without `rate_limits`.
fn pace_segment(
    p: &Payload,
    state: &SessionState,
    now: DateTime<Utc>,
    form: PaceForm,
) -> Option<Shown> {
    let mut parts: Vec<Part> = Vec::new();
    let mut all = paces(p, state, now);
    if form == PaceForm::One {
        let first = all.iter().position(|p| p.runs_out()).unwrap_or(0);
        all = all.into_iter().skip(first).take(1).collect();
    }
    let with_resets = form == PaceForm::Full;
    for pace in all {
        if !parts.is_empty() {
            parts.push((" · ".to_owned(), "90"));
        }
        let color = if pace.runs_out() {
            "1;31"
        } else if pace.used_pct >= 70.0 {
            "33"
        } else {
            ""
        };
        parts.push((pace.words(with_resets), color));
    }
    (!parts.is_empty()).then_some(Shown {
        key: Segment::Pace,
        parts,
    })
}

fn joiner(prev: Segment, next: Segment) -> &'static str {
    if prev == Segment::Project && next == Segment::Git {
        " "
    } else {
        SEP
    }
}

fn line_width(segs: &[Shown]) -> usize {
    let mut w = 0;
    for (i, s) in segs.iter().enumerate() {
        if i > 0 {
            w += joiner(segs[i - 1].key, s.key).chars().count();
        }
        w += s.width();
    }
    w
}

/// Writes the segments, with colours when `color`. A line wider than `max` is cut
/// so that it ends with `…` at exactly `max` columns.
fn paint(segs: &[Shown], color: bool, max: Option<usize>) -> String {
    let mut out = String::new();
    // Room for the text before the `…`, when there is cutting to do.
    let mut left = match max {
        Some(m) if line_width(segs) > m => m.saturating_sub(1),
        _ => usize::MAX,
    };
    let mut push = |out: &mut String, text: &str, code: &str| -> bool {
        let n = text.chars().count();
        let (text, cut) = if n > left {
            let keep: String = text.chars().take(left).collect();
            (format!("{keep}…"), true)
        } else {
            (text.to_owned(), false)
        };
        left = left.saturating_sub(n);
        if color && !code.is_empty() {
            let _ = write!(out, "\x1b[{code}m{text}\x1b[0m");
        } else {
            out.push_str(&text);
        }
        !cut
    };
    for (i, s) in segs.iter().enumerate() {
        if i > 0 && !push(&mut out, joiner(segs[i - 1].key, s.key), "90") {
            return out;
        }
        for (text, code) in &s.parts {
            if !push(&mut out, text, code) {
                return out;
            }
        }
    }
    out
}

/// Shortens the task segment (ending it with `…`, keeping at least [`TASK_MIN`]
/// characters) so the line fits `max`; returns whether it now fits. Leaves the
/// segments alone when shortening the task is not enough.
fn shorten_task(segs: &mut [Shown], max: usize) -> bool {
    let over = line_width(segs).saturating_sub(max);
    let Some(task) = segs.iter_mut().find(|s| s.key == Segment::Task) else {
        return false;
    };
    let [(text, _)] = task.parts.as_mut_slice() else {
        return false;
    };
    let keep = text.chars().count().saturating_sub(over);
    if over == 0 || keep < TASK_MIN {
        return false;
    }
    let mut short: String = text.chars().take(keep - 1).collect();
    short.truncate(short.trim_end().len());
    short.push('…');
    *text = short;
    true
}

/// Renders the statusline. Always returns a non-empty line: with nothing else to
/// show, the context segment (`?%` when unknown) is still there.
pub fn render_statusline(
    payload: &Payload,
    state: &SessionState,
    cfg: &Config,
    term: &Term,
    now: DateTime<Utc>,
) -> String {
    let ctx = resolve_context(payload, state.tail.as_ref());
    let mut segs: Vec<Shown> = cfg
        .statusline
        .segments
        .iter()
        .filter_map(|k| build_segment(*k, payload, state, &ctx, cfg, now))
        .filter_map(Shown::sanitized)
        .collect();
    if segs.is_empty() {
        segs.push(marked_context(&ctx, cfg, true, state));
    }
    if let Some(max) = term.width.map(usize::from) {
        if line_width(&segs) > max {
            for s in &mut segs {
                if s.key == Segment::Limits
                    && let Some(short) = limits_segment(&payload.limits, now, false)
                {
                    *s = short;
                }
                if s.key == Segment::Pace
                    && let Some(short) = pace_segment(payload, state, now, PaceForm::NoResets)
                {
                    *s = short;
                }
            }
        }
        for key in DROP_ORDER {
            if line_width(&segs) <= max || shorten_task(&mut segs, max) {
                break;
            }
            // The pace keeps its most pressing window before it goes.
            if key == Segment::Pace
                && let Some(pos) = segs.iter().position(|s| s.key == Segment::Pace)
                && let Some(one) = pace_segment(payload, state, now, PaceForm::One)
                && one.width() < segs[pos].width()
            {
                segs[pos] = one;
                if line_width(&segs) <= max {
                    break;
                }
            }
            if segs.len() > 1 {
                segs.retain(|s| s.key != key);
            }
        }
        if line_width(&segs) > max {
            for s in &mut segs {
                if s.key == Segment::Context {
                    *s = marked_context(&ctx, cfg, false, state);
                }
            }
        }
        return paint(&segs, term.color, Some(max.max(1)));
    }
    paint(&segs, term.color, None)
}

pub(crate) mod compose;

#[cfg(test)]
mod tests;
