//! The `forge` binary: parse the command line and dispatch. Everything else is in the
//! library.

use std::process::ExitCode;

use clap::Parser;
use forge::cli::{self, Cli};
use forge::env::Env;

fn main() -> ExitCode {
    let env = Env::from_process();
    // Fast path: Claude Code runs `forge statusline` every ~300 ms while a session is
    // busy, and building clap's whole command tree costs a third of a millisecond.
    // The statusline's only flag is `--plain`; anything else goes through clap.
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|a| a == "statusline") {
        let rest: Vec<_> = args.collect();
        if rest.is_empty() || (rest.len() == 1 && rest.first().is_some_and(|a| a == "--plain")) {
            let args = cli::statusline::StatuslineArgs {
                plain: !rest.is_empty(),
            };
            return cli::statusline::run(&args, &env);
        }
    }
    match Cli::try_parse() {
        Ok(cli) => cli::run(cli, &env),
        Err(err) => {
            // clap exits 2 on bad input, and exit 2 *blocks* a PreToolUse call: the
            // hook's command line must never fail.
            let wants_help = matches!(
                err.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            );
            if !wants_help && std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
                let event = std::env::args().nth(2).filter(|a| !a.starts_with('-'));
                return cli::hook::run_event(event.as_deref(), &env);
            }
            // The status line must always print a line and exit 0, even when a newer
            // settings file passes flags this version does not know.
            let asked_for_help = matches!(
                err.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            );
            if !asked_for_help
                && std::env::args_os()
                    .nth(1)
                    .is_some_and(|a| a == "statusline")
            {
                return cli::statusline::run(&cli::statusline::StatuslineArgs::default(), &env);
            }
            err.exit()
        }
    }
}
