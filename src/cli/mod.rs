//! The command line: one file per subcommand, each with an `Args` struct (its doc
//! comment is the `--help`) and a `run` function.

pub mod context;
pub mod handoff;
pub mod hook;
pub mod status;
pub mod statusline;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::env::Env;

/// forge keeps Claude Code sessions oriented across context limits.
///
/// It records session state in .forge/ from Claude Code hooks, shows context use in
/// the status line, writes handoff documents before the context fills, and shows it
/// all in a dashboard.
#[derive(Parser, Debug)]
#[command(name = "forge", version, propagate_version = true)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// forge's subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Handle a Claude Code hook event (JSON on stdin). Always exits 0.
    Hook(hook::HookArgs),
    /// Show the project's forge state: last session, flags, handoffs, Signals.
    Status(status::StatusArgs),
    // The `Args` structs' doc comments are the help (with examples) for these three.
    #[allow(missing_docs)]
    Statusline(statusline::StatuslineArgs),
    #[allow(missing_docs)]
    Handoff(handoff::HandoffArgs),
    #[allow(missing_docs)]
    Context(context::ContextArgs),
}

/// Runs the parsed command.
pub fn run(cli: Cli, env: &Env) -> ExitCode {
    match cli.command {
        Command::Hook(args) => hook::run(&args, env),
        Command::Status(args) => report(status::run(&args, env)),
        Command::Statusline(args) => statusline::run(&args, env),
        Command::Handoff(args) => handoff::run(&args, env),
        Command::Context(args) => report(context::run(&args, env)),
    }
}

/// Prints an error report for interactive commands and maps it to exit status 1.
pub fn report(result: color_eyre::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("forge: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// Prints to stdout; a closed pipe (`forge status | head`) is not an error.
pub fn print_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
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
