//! `forge man`: the manual page (roff), generated from the command definitions.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use clap::{ArgAction, Command, CommandFactory};
use clap_complete::engine::{ArgValueCandidates, CompletionCandidate};
use clap_mangen::roff::{Roff, bold, roman};

use crate::app::project::Paths;
use crate::env::Env;
use crate::model::dashboard::{self, Key, Mode};

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

/// A `.TP` entry: a bold term, then its description.
fn entry(roff: &mut Roff, term: &str, text: &str) {
    roff.control("TP", []);
    roff.text([bold(term)]);
    roff.text([roman(text)]);
}

/// FILES: the state and config files. Project paths come from [`Paths`], so a
/// renamed file is renamed here too.
#[allow(
    clippy::too_many_lines,
    reason = "one table row per file forge reads or writes: the manual's FILES list, read best whole"
)]
fn files_section(roff: &mut Roff) {
    let p = Paths::new("");
    let show = |path: std::path::PathBuf| path.display().to_string();
    let handoffs = p.handoffs();
    let rows: [(String, &str); 18] = [
        (
            format!("{}/", show(p.forge_dir())),
            "forge's state for the project (the nearest folder above the current one that \
             holds .forge/, else the git root). A new one holds a .gitignore of *, so it \
             never shows in git status.",
        ),
        (
            show(p.config()),
            "Project settings, over the user's (forge config show). Its keys that make \
             forge act apply only once you trusted its exact content (forge trust).",
        ),
        (
            "$XDG_CONFIG_HOME/forge/config.toml".to_owned(),
            "User settings; ~/.config/forge/config.toml when XDG_CONFIG_HOME is not set.",
        ),
        (
            "$XDG_STATE_HOME/forge/projects.json".to_owned(),
            "The fleet registry: every project forge's hooks ran in during the last 7 days, \
             with its branch, blocked Signals and live sessions (context, attention, last \
             event); read by forge status --all, forge tui --all and the elsewhere status \
             line segment. ~/.local/state/forge/projects.json when XDG_STATE_HOME is not set.",
        ),
        (
            "$XDG_STATE_HOME/forge/trust/".to_owned(),
            "What forge trust recorded: per project, the SHA-256 of the .forge/config.toml \
             content you trusted (any edit revokes it). ~/.local/state/forge/trust/ when \
             XDG_STATE_HOME is not set.",
        ),
        (
            show(handoffs.join("handoff-YYYYMMDD-HHMMSS.md")),
            "Session handoffs (forge handoff; -2, -3... within the same second).",
        ),
        (
            show(handoffs.join("agent-TASK-YYYYMMDD-HHMMSS.md")),
            "Agent handoffs with their Signal (forge signal).",
        ),
        (
            show(p.state_json()),
            "Your workflow's phase and task (phase, task or build.current_task), shown by the \
             status line.",
        ),
        (
            show(p.pending_resume()),
            "The absolute path of the handoff the next session resumes from (forge resume, \
             forge handoff, the dashboard); the SessionStart hook consumes it.",
        ),
        (
            "~/.claude/pending-resume".to_owned(),
            "The same marker for a session started in any folder; used only when it points \
             into the project. $CLAUDE_CONFIG_DIR/pending-resume when that is set.",
        ),
        (
            show(p.sessions().join("<session_id>.json")),
            "Session bridges: context readings, window, model, transcript path, attention \
             state; written by the status line and the hooks.",
        ),
        (
            show(p.last_session()),
            "Where the last session stopped (Stop, SessionEnd).",
        ),
        (
            show(p.pre_compact_state()),
            "What PreCompact captured before the last compaction.",
        ),
        (show(p.compactions()), "One line per compaction."),
        (
            show(p.events()),
            "One line per hook call; rotated to events.jsonl.1 past 1 MiB.",
        ),
        (
            show(p.errors_log()),
            "What went wrong in hooks and the status line (which never show errors).",
        ),
        (
            format!(
                "{}, {}, {}",
                show(p.learn_pending()),
                show(p.threshold_flag()),
                show(p.git_cache())
            ),
            "Flags and caches the hooks keep for the status line; safe to delete.",
        ),
        (
            ".claude/settings.json".to_owned(),
            "Where forge init wires the hooks and the status line (--local: \
             .claude/settings.local.json, personal and git-ignored; --user: \
             ~/.claude/settings.json). forge init --commands also writes \
             .claude/commands/forge-learn.md and forge-continue.md.",
        ),
    ];
    for (path, text) in rows {
        entry(roff, &path, text);
    }
    entry(
        roff,
        "~/.claude/projects/<project>/<session_id>.jsonl",
        "Claude Code's transcripts, read (from the end) for context figures and handoffs; \
         never written.",
    );
}

/// ENVIRONMENT: every variable forge reads (see `env.rs`), and PAGER, which people
/// look for.
fn environment_section(roff: &mut Roff) {
    for (name, text) in [
        (
            "NO_COLOR",
            "When set to anything but empty, the status line and the dashboard use no \
             colours (as forge statusline --plain does).",
        ),
        (
            "VISUAL, EDITOR",
            "The editor the dashboard's o key opens a handoff in (VISUAL first). It runs \
             through sh, so an editor with arguments (code -w) works.",
        ),
        (
            "PAGER",
            "Not used: forge never pages its own output. To page this manual, forge man | \
             man -l - (man uses MANPAGER, else PAGER).",
        ),
        (
            "XDG_CONFIG_HOME",
            "The user config is $XDG_CONFIG_HOME/forge/config.toml (else \
             ~/.config/forge/config.toml).",
        ),
        (
            "XDG_STATE_HOME",
            "The fleet registry is $XDG_STATE_HOME/forge/projects.json (else \
             ~/.local/state/forge/projects.json).",
        ),
        (
            "HOME",
            "Home of ~/.claude, ~/.config and ~/.local/state. forge never creates .forge/ in the home folder \
             itself or at /.",
        ),
        (
            "CLAUDE_CONFIG_DIR",
            "Claude Code's user folder in place of ~/.claude: the global pending-resume \
             marker, transcripts, learned memory, and the settings forge init --user edits.",
        ),
        (
            "CLAUDE_PROJECT_DIR",
            "Set by Claude Code for hooks and the status line: the project root. Otherwise \
             the project is the nearest folder above the current one that holds .forge/, \
             else the git root, else the current folder.",
        ),
        (
            "COLUMNS, LINES",
            "The status line fits into COLUMNS (Claude Code sets it; the line cannot ask the \
             terminal). forge tui --once draws COLUMNS by LINES cells (default 100 by 30).",
        ),
        (
            "COMPLETE",
            "COMPLETE=<shell> forge prints forge's dynamic completion script (see forge \
             completions --help).",
        ),
    ] {
        entry(roff, name, text);
    }
}

/// KEYS: the dashboard's bindings, from [`dashboard::KEYMAP`] (the table that also
/// dispatches the keys and draws the help), grouped by mode.
fn keys_section(roff: &mut Roff) {
    let mut modes: Vec<Mode> = Vec::new();
    for b in dashboard::KEYMAP {
        if !modes.contains(&b.mode) {
            modes.push(b.mode);
        }
    }
    for mode in modes {
        roff.control("PP", []);
        roff.text([roman(mode_heading(mode))]);
        for b in dashboard::KEYMAP
            .iter()
            .filter(|b| b.mode == mode && !b.keys.is_empty())
        {
            let keys: Vec<String> = b.keys.iter().map(|k| key_name(*k)).collect();
            entry(roff, &keys.join(", "), b.desc);
        }
    }
}

/// The heading of one mode's keys.
fn mode_heading(mode: Mode) -> String {
    match format!("{mode:?}").as_str() {
        "Normal" => "In the dashboard:".to_owned(),
        "Filter" => "While typing a filter (after /):".to_owned(),
        "Help" => "While the help is open:".to_owned(),
        "Fleet" => "In the fleet list (forge tui --all):".to_owned(),
        other => format!("In {} mode:", other.to_ascii_lowercase()),
    }
}

/// A key as a person writes it: `q`, `Space`, `↑`, `Shift-Tab`. Keys without a
/// name here are written from their variant (`Ctrl('z')` reads `Ctrl-z`).
pub fn key_name(key: Key) -> String {
    if let Key::Char(c) = key {
        return match c {
            ' ' => "Space".to_owned(),
            c => c.to_string(),
        };
    }
    let debug = format!("{key:?}");
    let named = match debug.as_str() {
        "Up" => "↑",
        "Down" => "↓",
        "PageUp" => "PgUp",
        "PageDown" => "PgDn",
        "BackTab" => "Shift-Tab",
        _ => "",
    };
    if !named.is_empty() {
        return named.to_owned();
    }
    match debug.split_once("('") {
        Some((head, rest)) => format!("{head}-{}", rest.trim_end_matches("')")),
        None => debug,
    }
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
