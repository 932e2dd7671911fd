//! The manual's long tables (`forge man`): FILES, every file forge reads or writes;
//! ENVIRONMENT, every variable it reads; KEYS, the dashboard's bindings. They come
//! from the project's [`Paths`] and the dashboard's [`dashboard::KEYMAP`], so a
//! renamed file or a new key shows in the page by itself; `cli/man.rs` renders the
//! rest of the page from the command definitions.

use clap_mangen::roff::{Roff, bold, roman};

use crate::model::dashboard::{self, Key, Mode};
use crate::store::Paths;

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
pub(crate) fn files_section(roff: &mut Roff) {
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
pub(crate) fn environment_section(roff: &mut Roff) {
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
pub(crate) fn keys_section(roff: &mut Roff) {
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
