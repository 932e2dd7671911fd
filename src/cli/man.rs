//! `forge man`: the manual page (roff), generated from the command definitions.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use clap::{ArgAction, Command, CommandFactory};
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_mangen::roff::{Roff, bold, roman};

pub use crate::app::manual::key_name;
use crate::app::manual::{environment_section, files_section, keys_section};
use crate::env::Env;

/// Print forge's manual page (roff) to stdout
///
/// The page covers forge and every command, so `forge man > forge.1` installs all
/// of it. `forge man <COMMAND>` prints one command's page (NAME forge-<COMMAND>).
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge man | man -l -\n",
        "  forge man > ~/.local/share/man/man1/forge.1\n",
        "  forge man init | man -l -"
    )
)]
pub(crate) struct ManArgs {
    /// A command whose page to print instead (e.g. `init`).
    #[arg(
        value_name = "COMMAND",
        add = ArgValueCandidates::new(complete_command)
    )]
    pub(crate) subcommand: Option<String>,
}

/// `forge man <TAB>`: the commands that have a page.
pub(crate) fn complete_command() -> Vec<CompletionCandidate> {
    super::Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .map(|c| CompletionCandidate::new(c.get_name().to_owned()).help(c.get_about().cloned()))
        .collect()
}

/// Runs `forge man`.
pub(crate) fn run(args: &ManArgs, _env: &Env) -> anyhow::Result<ExitCode> {
    let mut root = super::Cli::command();
    // Building gives every subcommand its bin name (`forge init`) and display name
    // (`forge-init`), which the page's SYNOPSIS and NAME use.
    root.build();
    let page = match &args.subcommand {
        None => full_page(&root),
        Some(name) => {
            let sub = visible_subcommands(&root)
                .find(|c| c.get_name() == name)
                .ok_or_else(|| {
                    let names: Vec<&str> = visible_subcommands(&root)
                        .map(clap::Command::get_name)
                        .collect();
                    anyhow!("no command `{name}`: choose one of {}", names.join(", "))
                })?;
            command_page(sub)
        }
    }
    .context("rendering the manual page")?;
    super::print_out(&page);
    Ok(ExitCode::SUCCESS)
}

/// The subcommands worth a page (not `help`, not hidden).
fn visible_subcommands(cmd: &Command) -> impl Iterator<Item = &Command> {
    cmd.get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
}

/// `forge init [--project <DIR>] [--user] …`: the synopsis with value names, which
/// clap_mangen's own synopsis leaves out.
pub(crate) fn synopsis(cmd: &Command) -> String {
    let mut out = cmd
        .get_bin_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_owned();
    for arg in cmd.get_arguments() {
        if arg.is_hide_set() || arg.is_positional() {
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        if matches!(long, "help" | "version") {
            continue;
        }
        let mut word = format!("--{long}");
        if arg.get_num_args().is_some_and(|r| r.takes_values())
            && let Some(names) = arg.get_value_names()
        {
            for n in names {
                let _ = write!(word, " <{n}>");
            }
        }
        if matches!(arg.get_action(), ArgAction::Append) {
            word.push_str("...");
        }
        out.push(' ');
        if arg.is_required_set() {
            out.push_str(&word);
        } else {
            let _ = write!(out, "[{word}]");
        }
    }
    for arg in cmd.get_positionals().filter(|a| !a.is_hide_set()) {
        let name = arg
            .get_value_names()
            .and_then(|n| n.first())
            .map_or_else(|| arg.get_id().to_string(), ToString::to_string);
        out.push(' ');
        if arg.is_required_set() {
            let _ = write!(out, "<{name}>");
        } else {
            let _ = write!(out, "[{name}]");
        }
    }
    if cmd.has_subcommands() {
        out.push_str(" <COMMAND>");
    }
    out
}

/// Renders one piece with clap_mangen, without roff's apostrophe preamble (the page
/// gets it once, at the top).
fn piece(
    cmd: &Command,
    render: fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<String> {
    let man = clap_mangen::Man::new(cmd.clone().override_usage(synopsis(cmd)))
        .source(format!("forge {}", env!("CARGO_PKG_VERSION")));
    let mut buf = Vec::new();
    render(&man, &mut buf)?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    Ok(text
        .lines()
        .filter(|l| !l.starts_with(".ie \\n(.g .ds Aq") && !l.starts_with(".el .ds Aq"))
        .map(|l| format!("{l}\n"))
        .collect())
}

/// roff's apostrophe preamble, once per page.
fn preamble() -> String {
    let mut buf = Vec::new();
    let _ = Roff::new().to_writer(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Turns `.SH NAME` headings into `.SS Name` ones, for a command inside the full page.
fn demote(text: &str) -> String {
    text.lines()
        .map(|l| match l.strip_prefix(".SH ") {
            Some(h) => {
                let h = h.trim_matches('"').to_ascii_lowercase();
                let mut c = h.chars();
                let title: String = c
                    .next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default();
                format!(".SS {title}\n")
            }
            None => format!("{l}\n"),
        })
        .collect()
}

/// SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS and EXAMPLES of one command (no title).
fn sections(cmd: &Command) -> std::io::Result<String> {
    let mut out = piece(cmd, clap_mangen::Man::render_synopsis_section)?;
    out.push_str(&piece(cmd, clap_mangen::Man::render_description_section)?);
    if cmd
        .get_arguments()
        .any(|a| !a.is_hide_set() && !a.is_positional())
    {
        out.push_str(&piece(cmd, clap_mangen::Man::render_options_section)?);
    }
    let mut roff = Roff::new();
    if visible_subcommands(cmd).next().is_some() {
        roff.control("SH", ["COMMANDS"]);
        command_list(&mut roff, cmd);
    }
    if cmd.get_name() == "tui" {
        roff.control("SH", ["KEYS"]);
        keys_section(&mut roff);
    }
    if let Some(after) = cmd.get_after_help() {
        roff.control("SH", ["EXAMPLES"]);
        let text = after.to_string();
        let mut first = true;
        for line in text.lines() {
            if line.trim() == "Examples:" {
                continue;
            }
            if line.trim().is_empty() {
                roff.control("PP", []);
                first = true;
                continue;
            }
            // An indented line starts a new output line by itself; a label line
            // needs a break so it is not run into the line before.
            if !first && !line.starts_with(' ') {
                roff.control("br", []);
            }
            roff.text([roman(line)]);
            first = false;
        }
    }
    out.push_str(&roff.to_roff());
    Ok(out)
}

/// `.TP` entries: `forge init` and its one-line summary, per subcommand.
fn command_list(roff: &mut Roff, cmd: &Command) {
    for sub in visible_subcommands(cmd) {
        roff.control("TP", []);
        roff.text([bold(sub.get_bin_name().unwrap_or_else(|| sub.get_name()))]);
        if let Some(about) = sub.get_about() {
            roff.text([roman(about.to_string())]);
        }
    }
}

/// One command's page: NAME `forge-init`, SYNOPSIS `forge init …`.
fn command_page(cmd: &Command) -> std::io::Result<String> {
    let mut out = preamble();
    out.push_str(&piece(cmd, clap_mangen::Man::render_title)?);
    out.push_str(&piece(cmd, clap_mangen::Man::render_name_section)?);
    out.push_str(&sections(cmd)?);
    // Nested commands (`forge config show`) are described on this page too.
    for sub in visible_subcommands(cmd) {
        let mut roff = Roff::new();
        roff.control(
            "SH",
            [sub.get_bin_name()
                .unwrap_or_else(|| sub.get_name())
                .to_uppercase()
                .as_str()],
        );
        out.push_str(&roff.to_roff());
        out.push_str(&demote(&sections(sub)?));
    }
    Ok(out)
}

/// The whole manual: forge, then a section per command, so one installed
/// `forge.1` documents everything and refers to no other page.
fn full_page(root: &Command) -> std::io::Result<String> {
    let mut out = preamble();
    out.push_str(&piece(root, clap_mangen::Man::render_title)?);
    out.push_str(&piece(root, clap_mangen::Man::render_name_section)?);
    out.push_str(&piece(root, clap_mangen::Man::render_synopsis_section)?);
    out.push_str(&piece(root, clap_mangen::Man::render_description_section)?);
    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    command_list(&mut roff, root);
    roff.control("PP", []);
    roff.text([roman(
        "Each command is described in its own section below; `forge <command> --help` shows the same.",
    )]);
    out.push_str(&roff.to_roff());
    for sub in visible_subcommands(root) {
        let mut roff = Roff::new();
        let heading = sub
            .get_bin_name()
            .unwrap_or_else(|| sub.get_name())
            .to_uppercase();
        roff.control("SH", [heading.as_str()]);
        out.push_str(&roff.to_roff());
        out.push_str(&demote(&sections(sub)?));
        for nested in visible_subcommands(sub) {
            let mut roff = Roff::new();
            roff.control(
                "SS",
                [nested.get_bin_name().unwrap_or_else(|| nested.get_name())],
            );
            out.push_str(&roff.to_roff());
            out.push_str(&demote(&sections(nested)?));
        }
    }
    let mut roff = Roff::new();
    roff.control("SH", ["FILES"]);
    files_section(&mut roff);
    roff.control("SH", ["ENVIRONMENT"]);
    environment_section(&mut roff);
    out.push_str(&roff.to_roff());
    out.push_str(&piece(root, clap_mangen::Man::render_version_section)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_listed() {
        let commands: Vec<String> = complete_command()
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect();
        assert!(commands.contains(&"resume".to_owned()));
        assert!(!commands.contains(&"help".to_owned()));
    }
}
