//! `forge man`: the manual page (roff), generated from the command definitions.

use std::process::ExitCode;

use clap::CommandFactory;
use color_eyre::eyre::{WrapErr, eyre};

use crate::env::Env;

/// Print forge's manual page (roff) to stdout.
///
/// Examples:
///   forge man | man -l -
///   forge man > ~/.local/share/man/man1/forge.1
///   forge man init | man -l -
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ManArgs {
    /// A subcommand whose page to print instead (e.g. `init`).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

/// Runs `forge man`.
pub fn run(args: &ManArgs, _env: &Env) -> color_eyre::Result<ExitCode> {
    let root = super::Cli::command();
    let (cmd, title) = match &args.subcommand {
        None => (root, "forge".to_owned()),
        Some(name) => {
            let names: Vec<String> = root
                .get_subcommands()
                .map(|c| c.get_name().to_owned())
                .collect();
            let sub = root.find_subcommand(name).cloned().ok_or_else(|| {
                eyre!("no subcommand `{name}`: choose one of {}", names.join(", "))
            })?;
            (sub, format!("forge-{name}"))
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd)
        .title(title)
        .render(&mut buf)
        .wrap_err("rendering the manual page")?;
    super::print_out(&String::from_utf8_lossy(&buf));
    Ok(ExitCode::SUCCESS)
}
