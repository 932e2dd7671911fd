//! The command line: one file per subcommand, each with an `Args` struct (its doc
//! comment is the `--help`) and a `run` function; [`project`] is the lookup of the
//! project they share (no command imports another one for it).

pub(crate) mod alerts;
pub mod completions;
pub(crate) mod config;
pub(crate) mod context;
pub(crate) mod doctor;
pub(crate) mod handoff;
pub mod hook;
pub mod init;
pub(crate) mod ladder;
pub(crate) mod learn;
pub(crate) mod log;
pub mod man;
pub(crate) mod mcp;
pub(crate) mod resume;
pub(crate) mod run;
pub(crate) mod sessions;
pub(crate) mod share;
pub(crate) mod signal;
pub(crate) mod status;
pub mod statusline;
pub(crate) mod trust;
pub(crate) mod tui;
pub(crate) mod user_hook;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::env::Env;

/// forge keeps Claude Code sessions oriented across context limits.
///
/// It records session state in .forge/ from Claude Code hooks, shows context use in
/// the status line, writes handoff documents before the context fills, and shows it
/// all in a dashboard.
#[derive(Parser, Debug)]
#[command(
    name = "forge",
    version,
    propagate_version = true,
    after_help = "Start here:\n  forge init --dry-run && forge init   # wire hooks and the status line\n  \
        forge doctor                         # check the setup\n  \
        forge tui --demo                     # see the dashboard on a sample project"
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// forge's subcommands. Their help text is the doc comment of each `Args` struct
/// (a doc comment on a variant would replace it, so the variants have none).
#[derive(Subcommand, Debug)]
#[allow(missing_docs)]
pub(crate) enum Command {
    // The four faces first, then the everyday commands, then setup.
    Hook(hook::HookArgs),
    Statusline(statusline::StatuslineArgs),
    Tui(tui::TuiArgs),
    Status(status::StatusArgs),
    Handoff(handoff::HandoffArgs),
    Run(run::RunArgs),
    Resume(resume::ResumeArgs),
    Signal(signal::SignalArgs),
    Context(context::ContextArgs),
    Sessions(sessions::SessionsArgs),
    Mcp(mcp::McpArgs),
    Share(share::ShareArgs),
    #[command(hide = true)]
    UserHook(user_hook::UserHookArgs),
    #[command(hide = true)]
    Ladder(ladder::LadderArgs),
    Log(log::LogArgs),
    Init(init::InitArgs),
    Doctor(doctor::DoctorArgs),
    Config(config::ConfigArgs),
    Trust(trust::TrustArgs),
    Learn(learn::LearnArgs),
    Alerts(alerts::AlertsArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
}

/// Runs the parsed command.
pub fn run(cli: Cli, env: &Env) -> ExitCode {
    match cli.command {
        Command::Hook(args) => hook::run(&args, env),
        Command::Status(args) => report(status::run(&args, env)),
        Command::Init(args) => report(init::run(&args, env)),
        Command::Doctor(args) => report(doctor::run(&args, env)),
        Command::Config(args) => report(config::run(&args, env)),
        Command::Trust(args) => report(trust::run(&args, env)),
        Command::Signal(args) => report(signal::run(&args, env)),
        Command::Resume(args) => report(resume::run(&args, env)),
        Command::Learn(args) => report(learn::run(&args, env)),
        Command::Alerts(args) => report(alerts::run(&args, env)),
        Command::Completions(args) => report(completions::run(&args, env)),
        Command::Man(args) => report(man::run(&args, env)),
        Command::Tui(args) => report(tui::run(&args, env)),
        Command::Statusline(args) => statusline::run(&args, env),
        Command::Handoff(args) => handoff::run(&args, env),
        Command::Run(args) => report(run::run(&args, env)),
        Command::Context(args) => report(context::run(&args, env)),
        Command::Log(args) => report(log::run(&args, env)),
        Command::Sessions(args) => report(sessions::run(&args, env)),
        Command::Mcp(args) => report(mcp::run(&args, env)),
        Command::Share(args) => report(share::run(&args, env)),
        Command::UserHook(args) => user_hook::run(&args, env),
        Command::Ladder(args) => ladder::run(&args, env),
    }
}

/// What to do when the command line does not parse.
///
/// clap exits 2 on bad input, and exit 2 *blocks* a PreToolUse call: the hook's
/// command line must never fail. The status line must always print a line and exit 0,
/// even when a newer settings file passes flags this version does not know. Everyone
/// else gets clap's message (and `--help`/`--version` always work).
pub fn on_parse_error(err: clap::Error, env: &Env) -> ExitCode {
    use clap::error::ErrorKind;
    let asked_for_help = matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    );
    let first = std::env::args_os().nth(1);
    if !asked_for_help && first.as_deref().is_some_and(|a| a == "hook") {
        // args_os: a non-UTF-8 argument must not panic here (outside catch_unwind).
        let event = std::env::args_os()
            .nth(2)
            .and_then(|a| a.into_string().ok())
            .filter(|a| !a.starts_with('-'));
        return hook::run_event(event.as_deref(), env);
    }
    if !asked_for_help && first.as_deref().is_some_and(|a| a == "statusline") {
        return statusline::run(&statusline::StatuslineArgs::default(), env);
    }
    err.exit()
}

/// Prints an error report for interactive commands and maps it to exit status 1.
pub(crate) fn report(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            print_err(&format!("forge: {e:#}\n"));
            ExitCode::from(1)
        }
    }
}

/// Reads stdin, keeping at most `cap` bytes, and not at all when it is a terminal (a
/// hook or status line run by hand must not wait for typing). What is past the cap
/// is read and dropped (up to 256 MiB), so the writer never gets a broken pipe.
pub(crate) fn read_stdin_capped(cap: u64) -> Vec<u8> {
    use std::io::{IsTerminal, Read};
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Vec::new();
    }
    let mut lock = stdin.lock();
    let mut buf = Vec::new();
    let _ = (&mut lock).take(cap).read_to_end(&mut buf);
    if buf.len() as u64 == cap {
        let _ = std::io::copy(&mut lock.take(256 << 20), &mut std::io::sink());
    }
    buf
}

pub(crate) use crate::model::text::count;

/// Prints text to stdout through the one sanitiser ([`crate::model::text::sanitize::clean`]):
/// whatever a file, a payload or a branch name put in it, no escape sequence, control
/// or bidi character reaches the terminal (`\n` and `\t` stay). A closed pipe
/// (`forge status | head`) is not an error.
pub(crate) fn print_out(text: &str) {
    write_raw(
        &mut std::io::stdout().lock(),
        &crate::model::text::sanitize::clean(text),
    );
}

/// [`print_out`] for text that quotes what sessions, agents and files said (tasks,
/// Signal questions, attention messages, handoffs, the event log): redacted first
/// ([`crate::model::text::redact`]), as every text that leaves forge is.
pub(crate) fn print_shown(text: &str) {
    print_out(&crate::model::text::redact::redact_cow(text));
}

/// [`print_json`] for values that quote what sessions, agents and files said: every
/// string in it redacted first ([`crate::model::text::redact::redact_json`]), still JSON.
pub(crate) fn print_json_shown<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut v = serde_json::to_value(value).context("encoding JSON")?;
    crate::model::text::redact::redact_json(&mut v);
    print_json(&v)
}

/// [`print_out`] for loops that must stop when nobody reads any more: the write's
/// error (a closed pipe) is returned instead of ignored.
pub(crate) fn try_print_out(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(crate::model::text::sanitize::clean(text).as_bytes())?;
    out.flush()
}

/// Prints a value as pretty JSON to stdout, exact for a script (serde escapes C0
/// controls; [`crate::model::text::sanitize::json_for_terminal`] escapes DEL, C1 and bidi
/// controls too, so the terminal shows them as `\uXXXX` and a reader decodes them
/// back to the same value).
pub(crate) fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    use anyhow::Context;
    let text = serde_json::to_string_pretty(value).context("encoding JSON")?;
    let mut out = std::io::stdout().lock();
    write_raw(
        &mut out,
        &crate::model::text::sanitize::json_for_terminal(&text),
    );
    write_raw(&mut out, "\n");
    Ok(())
}

/// Prints a message to stderr through the same sanitiser as [`print_out`]: error
/// messages quote paths and file contents.
pub(crate) fn print_err(text: &str) {
    write_raw(
        &mut std::io::stderr().lock(),
        &crate::model::text::sanitize::clean(text),
    );
}

/// Writes `text` as it is and flushes, ignoring a closed pipe. Only for output whose
/// every outside part is already clean (the status line: its parts went through
/// [`crate::model::text::sanitize::single_line`], the rest is forge's own colour codes).
pub(crate) fn write_raw(out: &mut impl std::io::Write, text: &str) {
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
