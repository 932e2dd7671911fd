//! The `forge` binary: parse the command line and dispatch. Everything else is in the
//! library.

use std::process::ExitCode;

use clap::Parser;
use forge::cli::{self, Cli};
use forge::env::Env;

fn main() -> ExitCode {
    let env = Env::from_process();
    if let Some(code) = cli::statusline::fast_path(&env) {
        return code;
    }
    // Where git facts may find the `git` binary for a large work tree.
    forge::git::set_search_path(env.path.clone());
    if let Some(code) = cli::hook::fast_path(&env) {
        return code;
    }
    // `COMPLETE=<shell> forge …`: answer the shell and exit.
    cli::completions::complete_from_env();
    match Cli::try_parse() {
        Ok(cli) => cli::run(cli, &env),
        Err(err) => cli::on_parse_error(err, &env),
    }
}
