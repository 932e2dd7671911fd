//! `forge init`: wire Claude Code to forge in one command (and undo it).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::app::setup::{self, Options, Target};
use crate::env::Env;
use crate::model::setup::help;

/// `forge init`'s one-line help.
const ABOUT: &str = "Wire Claude Code to forge: hooks, statusline, .forge/ folders and .gitignore";

/// The shipped slash commands (the tests install them by these names).
pub use crate::model::setup::commands::{COMMANDS, render_command};

// The about text: its first line, and its wiring paragraph built from the event
// table (model::setup::help), so `--help` never lists the events by hand.
#[derive(clap::Args, Debug)]
#[command(
    about = ABOUT,
    long_about = format!("{ABOUT}\n\n{}", help::init_wiring_paragraph()),
    after_help = concat!(
        "Examples:\n",
        "  forge init --dry-run        # show the diff, write nothing\n",
        "  forge init                  # wire this project\n",
        "  forge init --local          # only for you: .claude/settings.local.json\n",
        "  forge init --user --commands\n",
        "  forge init --prune-dead     # also drop dead hooks from the shared file\n",
        "  forge init --plugin         # with the forge plugin: only the status line\n",
        "  forge init --wrap-statusline  # keep your ccstatusline/ccusage line, add forge's segments\n",
        "  forge init --uninstall      # remove forge's entries, nothing else"
    )
)]
pub(crate) struct InitArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Edit the user settings ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json) instead
    /// of the project's .claude/settings.json: forge's hooks then run in every
    /// project you open with Claude Code, and nothing is written into any project
    /// (no .forge/, no .gitignore). The way to wire forge from the home folder, where
    /// a plain `forge init` refuses (the home folder is not a project).
    #[arg(long, conflicts_with = "local")]
    pub(crate) user: bool,
    /// Edit the project's .claude/settings.local.json (your own settings for this
    /// project, which are not committed) instead of the shared .claude/settings.json;
    /// when git does not ignore it yet it is added to .git/info/exclude (this clone's
    /// own excludes), never to the shared .gitignore. `--uninstall --local` takes
    /// away what it added: the file when forge created it, its exclude lines, a
    /// .forge/ that holds nothing.
    #[arg(long)]
    pub(crate) local: bool,
    /// Print what would change (a diff) and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Remove forge's hook entries and statusLine, and nothing else.
    #[arg(long)]
    pub(crate) uninstall: bool,
    /// Also install the /forge-learn and /forge-continue slash commands into
    /// .claude/commands/ (removed again with --uninstall --commands).
    #[arg(long)]
    pub(crate) commands: bool,
    /// Replace a statusLine that belongs to another tool with forge's.
    #[arg(long, conflicts_with = "uninstall")]
    pub(crate) replace_statusline: bool,
    /// Keep a statusLine that belongs to another tool (ccstatusline, ccusage,
    /// CCometixLine…) and add forge's segments to it: its command becomes `forge
    /// statusline --wrap '<its command>'` in the same file (which still runs it
    /// where forge is missing). `--uninstall` gives it back as it was.
    #[arg(long, conflicts_with_all = ["uninstall", "replace_statusline"])]
    pub(crate) wrap_statusline: bool,
    /// For a project that gets forge's hooks, slash commands and MCP server from
    /// the forge plugin (`claude plugin install forge`): write only what a plugin
    /// cannot carry, forge's statusLine, and take forge's hook entries out of the
    /// settings file (beside the plugin's they would run every event twice).
    #[arg(long, conflicts_with_all = ["uninstall", "commands"])]
    pub(crate) plugin: bool,
    /// Also remove hook commands whose script is missing from the shared
    /// .claude/settings.json when the script is outside the project (by default
    /// they are only listed: the script may exist on a teammate's machine).
    #[arg(long, conflicts_with = "uninstall")]
    pub(crate) prune_dead: bool,
}

impl InitArgs {
    /// The options without clap, as `app::setup` takes them.
    fn options(&self) -> Options {
        Options {
            project: self.project.clone(),
            user: self.user,
            local: self.local,
            dry_run: self.dry_run,
            uninstall: self.uninstall,
            commands: self.commands,
            replace_statusline: self.replace_statusline,
            wrap_statusline: self.wrap_statusline,
            plugin: self.plugin,
            prune_dead: self.prune_dead,
        }
    }
}

/// Runs `forge init`: plans every change and what to say about it, then shows the
/// plan (`--dry-run`) or carries it out.
pub(crate) fn run(args: &InitArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let args = &args.options();
    let target = Target::resolve(args, env)?;
    let plan = setup::plan(args, &target, env)?;
    let about = target.describe(args);
    let out = if plan.changes.is_empty() && !plan.make_dirs && !plan.drop_forge_dir {
        let mut out = plan.report;
        let _ = if args.uninstall {
            writeln!(out, "forge is not wired into {about}; nothing changed.")
        } else {
            writeln!(out, "forge is already set up in {about}; nothing changed.")
        };
        out
    } else if args.dry_run {
        setup::dry_run_text(&plan, &target.paths.root, &about, args)
    } else {
        setup::apply(plan, &target, &about, args, env)?
    };
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}
