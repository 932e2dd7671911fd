//! `forge statusline`: Claude Code's status line. Runs every ~300 ms while a session
//! is busy, so it stays cheap: its command line is read without clap
//! ([`fast_path`]), and the tick itself (what it reads, renders and records) is
//! [`crate::app::statusline`].

use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::statusline::{self as tick, Options};
use crate::env::Env;

/// Printed when something went badly wrong: the line must never be empty.
const FALLBACK: &str = "forge ?%";

/// Print Claude Code's status line (reads the statusline JSON on stdin)
///
/// Shows the model, project, branch and uncommitted count (from the hooks' git
/// cache), context use with a bar and level (L1 from [context] warn, 70% by default;
/// L2 from critical, 85%; L3 from emergency, 95%; `⚠ CTX <pct>%` in place of the
/// plain percentage at or above the handoff threshold), workflow phase/task, blocked agent
/// Signals and the learn flag; optionally (add them to `[statusline] segments`) the
/// session's cost, duration, lines added/removed, the 5-hour/7-day usage limits and
/// their pace (`pace`: whether the current pace runs out before the reset), and
/// how many sessions of other projects wait for you (`elsewhere`, from the fleet
/// registry).
/// The first time a session reaches the threshold it starts `forge handoff --auto` in
/// the background. Respects NO_COLOR and COLUMNS; always prints one line and exits 0.
///
/// With --wrap, forge keeps the status line you have (ccstatusline, ccusage,
/// CCometixLine…): it runs that command with the same stdin (sh -c, at most 2 s,
/// then its process group is killed; its output capped and stripped of every
/// control character but colour), prints its output with forge's segments
/// ([statusline] wrap_segments) after its first line, before it, or on a line of
/// their own ([statusline] wrap_position), and still fires the threshold handoff.
/// `forge init --wrap-statusline` writes it around the statusLine a settings file
/// has; `forge init --uninstall` gives that back as it was.
///
/// To try it by hand, pipe a payload to `forge statusline --dry-run`: it prints the
/// line and records nothing (no session bridge, no threshold handoff, no ladder
/// step, no event-log line). Without --dry-run a hand-piped payload at the
/// threshold writes a real handoff for its session_id, as a client's would.
#[derive(clap::Args, Debug, Default)]
#[command(
    verbatim_doc_comment,
    after_help = "Try it safely (prints the line, writes nothing):\n  echo '{\"session_id\":\"try\",\"context_window\":{\"used_percentage\":74}}' | forge statusline --dry-run\nExample ~/.claude/settings.json entries:\n  \"statusLine\": {\"type\": \"command\", \"command\": \"forge statusline\", \"refreshInterval\": 5}\n  \"statusLine\": {\"type\": \"command\", \"command\": \"forge statusline --wrap 'npx -y ccstatusline@latest'\"}"
)]
pub(crate) struct StatuslineArgs {
    /// Render without colours (as NO_COLOR does).
    #[arg(long)]
    pub(crate) plain: bool,
    /// Keep another status-line command: run it (sh -c) with the same stdin and
    /// print its output with forge's segments added.
    #[arg(long, value_name = "COMMAND")]
    pub(crate) wrap: Option<String>,
    /// Print the line only: write no session state, start no handoff, log nothing
    /// (to try the status line by hand).
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Count the blocked Signals again into the status line's cache, print nothing
    /// (a tick starts this detached when a large inbox changed, and shows the last
    /// count meanwhile).
    #[arg(long, hide = true)]
    pub(crate) recount_signals: bool,
    /// The project folder (with --recount-signals).
    #[arg(long, hide = true, value_name = "DIR", requires = "recount_signals")]
    pub(crate) project: Option<PathBuf>,
}

/// Runs `forge statusline` without building clap's command tree (a third of a
/// millisecond, and this runs every ~300 ms while a session is busy). Its flags are
/// `--plain`, `--dry-run` and `--wrap COMMAND` (or `--wrap=COMMAND`); any other command line
/// returns `None` and goes through clap.
pub fn fast_path(env: &Env) -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != "statusline" {
        return None;
    }
    let mut parsed = StatuslineArgs::default();
    while let Some(a) = args.next() {
        let a = a.into_string().ok()?;
        if a == "--plain" && !parsed.plain {
            parsed.plain = true;
        } else if a == "--dry-run" && !parsed.dry_run {
            parsed.dry_run = true;
        } else if a == "--wrap" && parsed.wrap.is_none() {
            parsed.wrap = Some(args.next()?.into_string().ok()?);
        } else if let Some(cmd) = a.strip_prefix("--wrap=")
            && parsed.wrap.is_none()
        {
            parsed.wrap = Some(cmd.to_owned());
        } else if a == "--recount-signals" && !parsed.recount_signals {
            parsed.recount_signals = true;
        } else if let Some(dir) = a.strip_prefix("--project=")
            && parsed.project.is_none()
        {
            parsed.project = Some(PathBuf::from(dir));
        } else {
            return None;
        }
    }
    Some(run(&parsed, env))
}

/// Runs one statusline tick. Always prints a non-empty line and exits 0.
pub(crate) fn run(args: &StatuslineArgs, env: &Env) -> ExitCode {
    if args.recount_signals {
        if let Some(project) = args.project.as_deref() {
            tick::recount_signals(project);
        }
        return ExitCode::SUCCESS;
    }
    let input = super::read_stdin_capped(crate::hooks::MAX_STDIN);
    let opts = Options {
        plain: args.plain,
        dry_run: args.dry_run,
    };
    let line = std::panic::catch_unwind(|| match args.wrap.as_deref() {
        Some(command) => tick::tick_wrapped(&opts, env, &input, command),
        None => tick::tick(&opts, env, &input),
    })
    .ok()
    .filter(|l| !l.trim().is_empty())
    .unwrap_or_else(|| FALLBACK.to_owned());
    // Raw: every outside part of the line went through `text::single_line` when it
    // was rendered, and the rest is forge's own colour codes (which `print_out`
    // would remove).
    super::write_raw(&mut std::io::stdout().lock(), &format!("{line}\n"));
    ExitCode::SUCCESS
}
