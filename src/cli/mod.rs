//! The command line: one file per subcommand, each with an `Args` struct (its doc
//! comment is the `--help`) and a `run` function.

pub mod completions;
pub mod config;
pub mod doctor;
pub mod hook;
pub mod init;
pub mod learn;
pub mod man;
pub mod resume;
pub mod signal;
pub mod status;
pub mod tui;

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

/// forge's subcommands. Their help text is the doc comment of each `Args` struct.
#[derive(Subcommand, Debug)]
pub enum Command {
    Hook(hook::HookArgs),
    Status(status::StatusArgs),
    Init(init::InitArgs),
    Doctor(doctor::DoctorArgs),
    Config(config::ConfigArgs),
    Signal(signal::SignalArgs),
    Resume(resume::ResumeArgs),
    Learn(learn::LearnArgs),
    Completions(completions::CompletionsArgs),
    Man(man::ManArgs),
    Tui(tui::TuiArgs),
}

/// Runs the parsed command.
pub fn run(cli: Cli, env: &Env) -> ExitCode {
    match cli.command {
        Command::Hook(args) => hook::run(&args, env),
        Command::Status(args) => report(status::run(&args, env)),
        Command::Init(args) => report(init::run(&args, env)),
        Command::Doctor(args) => report(doctor::run(&args, env)),
        Command::Config(args) => report(config::run(&args, env)),
        Command::Signal(args) => report(signal::run(&args, env)),
        Command::Resume(args) => report(resume::run(&args, env)),
        Command::Learn(args) => report(learn::run(&args, env)),
        Command::Completions(args) => report(completions::run(&args, env)),
        Command::Man(args) => report(man::run(&args, env)),
        Command::Tui(args) => report(tui::run(&args, env)),
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

/// `n` with the singular or plural noun: `count(1, "line", "lines")` is "1 line".
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
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
    fn counts_agree_with_their_number() {
        assert_eq!(count(1, "line", "lines"), "1 line");
        assert_eq!(count(2, "line", "lines"), "2 lines");
        assert_eq!(count(0, "line", "lines"), "0 lines");
    }

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }
}
