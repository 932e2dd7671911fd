//! `forge completions SHELL`: shell completion scripts, generated from the command
//! definitions so they never drift from them. Also the dynamic completion entry
//! point (`COMPLETE=<shell> forge`, clap_complete's env completer); the value
//! completers it calls are `app::complete`'s (handoff files for `forge resume`,
//! session ids for `--session`, hook event names for `forge hook`) and, for
//! `forge man`'s command names, `cli::man`'s `complete_command`.

use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::env::Env;

/// Print a shell completion script for forge
///
/// The script completes commands, options and fixed values. For completions that
/// look at the project too (handoff files for `forge resume`, session ids for
/// `--session`, hook event names for `forge hook`), load forge's dynamic
/// completions instead, generated afresh when the shell starts:
///
///   bash        echo 'source <(COMPLETE=bash forge)' >> ~/.bashrc
///   zsh         echo 'source <(COMPLETE=zsh forge)' >> ~/.zshrc
///   fish        echo 'COMPLETE=fish forge | source' >> ~/.config/fish/config.fish
///   elvish      echo 'eval (E:COMPLETE=elvish forge | slurp)' >> ~/.config/elvish/rc.elv
///   powershell  add to $PROFILE:
///               $env:COMPLETE = "powershell"; forge | Out-String | Invoke-Expression; Remove-Item Env:\COMPLETE
///
/// They read the project of the current folder (nearest .forge/ above it), not a
/// --project given on the same line.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge completions bash > ~/.local/share/bash-completion/completions/forge\n",
        "  forge completions zsh > ~/.zfunc/_forge\n",
        "  forge completions fish > ~/.config/fish/completions/forge.fish\n",
        "  source <(COMPLETE=bash forge)     # dynamic, in ~/.bashrc"
    )
)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_enum)]
    pub(crate) shell: Shell,
}

/// Runs `forge completions`.
pub(crate) fn run(args: &CompletionsArgs, _env: &Env) -> anyhow::Result<ExitCode> {
    let mut cmd = super::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "forge", &mut buf);
    super::print_out(&String::from_utf8_lossy(&buf));
    Ok(ExitCode::SUCCESS)
}

/// The variable that turns a run into a completion request.
pub(crate) const COMPLETE_VAR: &str = "COMPLETE";

/// Answers a dynamic completion request and exits, when this run is one:
/// `COMPLETE=<shell> forge` prints the shell's registration script, and
/// `COMPLETE=<shell> forge -- forge <words>` prints the candidates for the last word.
///
/// Any other command line returns at once, even with `COMPLETE` set in the
/// environment: a hook or the status line must never turn into a completion.
pub fn complete_from_env() {
    if std::env::var_os(COMPLETE_VAR).is_none_or(|v| v.is_empty() || v == "0") {
        return;
    }
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|first| first != "--") {
        return;
    }
    clap_complete::CompleteEnv::with_factory(super::Cli::command)
        .var(COMPLETE_VAR)
        .complete();
}
