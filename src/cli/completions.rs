//! `forge completions SHELL`: shell completion scripts, generated from the command
//! definitions so they never drift from them.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::env::Env;

/// Print a shell completion script for forge
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge completions bash > ~/.local/share/bash-completion/completions/forge\n",
        "  forge completions zsh > ~/.zfunc/_forge\n",
        "  forge completions fish > ~/.config/fish/completions/forge.fish"
    )
)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Runs `forge completions`.
pub fn run(args: &CompletionsArgs, _env: &Env) -> color_eyre::Result<ExitCode> {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "forge", &mut buf);
    super::print_out(&String::from_utf8_lossy(&buf));
    Ok(ExitCode::SUCCESS)
}
