//! `forge init`: wire Claude Code to forge in one command (and undo it).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::Value;

use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::setup::settings::{self, Emptied, Expand, InstallOptions, Outcome, Removal};
use crate::model::setup::{diff, json_edit};
use crate::store::{self, Paths};

/// The slash commands `--commands` installs: (file name, text).
pub const COMMANDS: [(&str, &str); 2] = [
    (
        "forge-learn.md",
        include_str!("../../assets/commands/forge-learn.md"),
    ),
    (
        "forge-continue.md",
        include_str!("../../assets/commands/forge-continue.md"),
    ),
];

/// The placeholder in the shipped slash commands for the forge program.
const PROGRAM_SLOT: &str = "{{forge}}";

/// A shipped slash command with `{{forge}}` replaced by `program` (`forge`, or this
/// binary's absolute path, shell-quoted, see [`Program`]), so its `allowed-tools`
/// rules match the commands it asks Claude to run.
pub fn render_command(template: &str, program: &str) -> String {
    template.replace(PROGRAM_SLOT, program)
}

/// Whether `installed` is `template` rendered for *some* program path (an install
/// by this or an older forge binary, unchanged since): such a file is forge's to
/// replace or remove.
pub(crate) fn is_rendered_from(installed: &str, template: &str) -> bool {
    rendered_program(installed, template).is_some()
}

/// The program `installed` was rendered for (as written, e.g. `forge` or
/// `'/opt/my tools/forge'`), when it is `template` rendered, unchanged since.
pub(crate) fn rendered_program<'a>(installed: &'a str, template: &str) -> Option<&'a str> {
    let mut parts = template.split(PROGRAM_SLOT);
    let first = parts.next()?;
    let rest = installed.strip_prefix(first)?;
    // The program runs up to the text that follows the first slot.
    let second = parts.next()?;
    let end = rest.find(second)?;
    let program = rest.get(..end)?;
    (!program.is_empty()
        && !program.contains('\n')
        && render_command(template, program) == installed)
        .then_some(program)
}

/// How forge's entries name the forge program.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    /// As written in commands: `forge`, or this binary's absolute path (quoted for
    /// the shell when it needs it).
    pub(crate) text: String,
    /// This binary.
    pub(crate) exe: PathBuf,
    /// What `forge` on PATH is (`None`: there is none).
    pub(crate) on_path: Option<PathBuf>,
}

impl Program {
    /// The bare `forge` when `forge` on PATH is this very binary, or the npm launcher
    /// that started it (`$FORGE_LAUNCHER`), so the entries work on every machine that
    /// has forge installed; else this binary's absolute path.
    pub(crate) fn find(env: &Env) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("finding this forge binary's path")?;
        let on_path = env.find_program("forge");
        let text = if on_path.as_deref().is_some_and(|p| {
            store::same_file(p, &exe)
                || env
                    .launcher
                    .as_deref()
                    .is_some_and(|l| store::same_file(p, l))
        }) {
            "forge".to_owned()
        } else {
            settings::shell_quote(&exe.to_string_lossy())
        };
        Ok(Self { text, exe, on_path })
    }

    /// Whether the entries name `forge` alone (found on PATH).
    pub(crate) fn is_bare(&self) -> bool {
        self.text == "forge"
    }

    /// One line on which program the entries run, and why.
    pub(crate) fn explain(&self) -> String {
        if self.is_bare() {
            format!(
                "  forge's commands run `forge` from PATH ({}), so they work on every machine that has forge installed.",
                self.exe.display()
            )
        } else {
            format!(
                "  forge's commands run this binary by its absolute path, because {}.",
                match &self.on_path {
                    Some(p) => format!("`forge` on PATH is another binary ({})", p.display()),
                    None => "there is no `forge` on PATH".to_owned(),
                }
            )
        }
    }
}

/// Why `forge init` (a project install) does not run in the home folder, and what
/// `--user` is for: the home folder's `.claude/settings.json` *is* your user
/// settings, which Claude Code reads for every project, and a `.forge/` and
/// `.gitignore` there would make the whole home folder one project.
fn home_refusal(args: &InitArgs, root: &Path) -> String {
    let user = if args.uninstall {
        "forge init --user --uninstall"
    } else {
        "forge init --user"
    };
    format!(
        "{} is your home folder, not a project: its .claude/settings.json is your user settings, \
         which Claude Code reads for every project, and forge init would also make a .forge/ and a \
         .gitignore here, as if your whole home folder were one project. Nothing was written.\n\
         - To wire forge into every project, run `{user}`: it edits ~/.claude/settings.json only \
         (no .forge/, no .gitignore).\n\
         - To wire one project, cd into it (or pass --project DIR) and run `forge init` there.",
        root.display()
    )
}

/// The lines `forge init` adds to `.gitignore`: everything in `.forge/` but the
/// project's config, which a team may commit (`.forge/` itself would keep git from
/// looking inside, and `!.forge/config.toml` could not bring it back).
const IGNORE_LINES: &str = ".forge/*\n!.forge/config.toml\n";

/// The line earlier versions added, which `forge init` replaces with
/// [`IGNORE_LINES`].
const OLD_IGNORE_LINE: &str = ".forge/";

/// The personal settings file (`--local`), relative to the project root.
const LOCAL_SETTINGS: &str = ".claude/settings.local.json";

/// Wire Claude Code to forge: hooks, statusline, .forge/ folders and .gitignore
///
/// Merges into .claude/settings.json (--local: .claude/settings.local.json; --user:
/// ~/.claude/settings.json) one `forge hook <Event>` entry for each of SessionStart,
/// Stop, SessionEnd, PreCompact, PreToolUse, Notification, PermissionRequest and
/// UserPromptSubmit, plus forge's statusLine. They run `forge` when `forge` on PATH
/// is this binary (so a committed file works for everyone who has forge installed),
/// else this binary by its absolute path, with a warning when the file is tracked by
/// git. Only forge's entries change: every other key and hook is kept, and so is the
/// file's formatting. Hook entries whose script no longer exists are removed and
/// listed (in the shared .claude/settings.json only those inside the project, unless
/// --prune-dead). The old file is kept in .forge/backups/ (git-ignored; with --user,
/// next to it as settings.json.forge-bak-<time>). It also creates .forge/logs and
/// .forge/handoffs and adds `.forge/` to .gitignore (with --local, nothing goes into
/// the shared .gitignore: the local settings file goes into the repository's own
/// .git/info/exclude). Every entry is guarded (`command -v forge … && exec forge
/// hook <Event> || true`), so a teammate without forge gets no failed hook. Running
/// it twice changes nothing the second time.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
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

/// One planned file change.
struct FileChange {
    path: PathBuf,
    old: Option<String>,
    /// `None` removes the file.
    new: Option<String>,
    backup: bool,
}

/// Where this run installs: the project, the settings file, how files are read and
/// which forge program the entries name.
struct Target {
    paths: Paths,
    /// The project's `.claude/`, or the user's Claude Code folder (`--user`).
    claude_base: PathBuf,
    settings_path: PathBuf,
    /// The user's own files (--user) may be a dotfiles manager's links.
    follow: store::safe::Follow,
    program: Program,
    /// Only the project's .claude/settings.json is meant to be shared.
    shared: bool,
}

impl Target {
    fn resolve(args: &InitArgs, env: &Env) -> anyhow::Result<Self> {
        let paths = project_paths(args.project.as_ref(), env)?;
        if !args.user
            && let Some(home) = env.home.as_deref()
            && store::same_file(&paths.root, home)
        {
            return Err(anyhow!("{}", home_refusal(args, &paths.root)));
        }
        let claude_base = if args.user {
            env.claude_dir().ok_or_else(|| {
                anyhow!("HOME is not set: set HOME or CLAUDE_CONFIG_DIR and try again")
            })?
        } else {
            paths.root.join(".claude")
        };
        let settings_path = claude_base.join(if args.local {
            "settings.local.json"
        } else {
            "settings.json"
        });
        // Nothing inside the project is followed out of it: every path this run may
        // read or write there is checked before anything is read or written, and one
        // that is a symbolic link (or not a regular file or real folder of yours)
        // stops the run. A repository could otherwise ship
        // `.gitignore -> /proc/self/environ` (read into a tracked file) or
        // `.claude -> ~/elsewhere` (written through).
        if !args.user {
            for (path, want) in project_paths_touched(args, &paths, &settings_path) {
                store::safe::check_inside(&paths.root, &path, want)
                    .map_err(|r| anyhow!("{r}\nforge init wrote nothing."))?;
            }
        }
        let follow = if args.user {
            store::safe::Follow::Yes
        } else {
            store::safe::Follow::No
        };
        Ok(Self {
            program: Program::find(env)?,
            shared: !args.user && !args.local,
            paths,
            claude_base,
            settings_path,
            follow,
        })
    }

    fn read(&self, path: &Path) -> anyhow::Result<Option<String>> {
        read_optional(path, self.follow)
    }

    /// Which project (or which user settings file) this run is about, absolutely.
    fn describe(&self, args: &InitArgs) -> String {
        if args.user {
            format!(
                "the user settings {} (every project)",
                self.settings_path.display()
            )
        } else {
            format!(
                "the project {}{}",
                self.paths.root.display(),
                if args.local {
                    " (your own settings, .claude/settings.local.json)"
                } else {
                    ""
                }
            )
        }
    }
}

/// The settings file as it is and as this run leaves it.
struct SettingsPlan {
    old_text: Option<String>,
    old_value: Value,
    outcome: Outcome,
    new_text: String,
}

impl SettingsPlan {
    /// Whether the file's bytes change (an uninstall where there is no file changes
    /// nothing).
    fn changes_file(&self, uninstall: bool) -> bool {
        let differs = self.old_text.as_deref() != Some(self.new_text.as_str());
        if uninstall {
            !self.old_value.is_null() && differs
        } else {
            differs
        }
    }
}

/// Everything `forge init` will do, planned before anything is written.
struct Plan {
    changes: Vec<FileChange>,
    /// What to say beside the file changes (after the settings file's line).
    report: String,
    /// `.forge/logs` and `.forge/handoffs` are to be created.
    make_dirs: bool,
    /// `--uninstall --local` also takes away a `.forge/` that holds nothing but the
    /// empty folders `forge init` made (session state there is kept).
    drop_forge_dir: bool,
}

/// Runs `forge init`: plans every change and what to say about it, then shows the
/// plan (`--dry-run`) or carries it out.
pub(crate) fn run(args: &InitArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let target = Target::resolve(args, env)?;
    let plan = plan(args, &target, env)?;
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
        dry_run_text(&plan, &target.paths, &about, args)
    } else {
        apply(plan, &target, &about, args, env)?
    };
    super::print_out(&out);
    Ok(ExitCode::SUCCESS)
}

/// The file changes and the report, in the order they are printed: the settings
/// file, `.forge/` and the ignore files, the slash commands, then a warning when
/// a shared file would name this binary by its path.
fn plan(args: &InitArgs, target: &Target, env: &Env) -> anyhow::Result<Plan> {
    let settings = plan_settings(args, target, env)?;
    let settings_changes = settings.changes_file(args.uninstall);
    let mut plan = Plan {
        changes: Vec::new(),
        report: String::new(),
        make_dirs: false,
        drop_forge_dir: false,
    };
    plan.changes
        .extend(settings_change(args, target, &settings, settings_changes));
    report_settings(
        &mut plan.report,
        args,
        target,
        &settings,
        settings_changes,
        env,
    );

    // .forge/ folders and .gitignore (project installs only); with --local, the
    // repository's own excludes instead of the shared .gitignore.
    let paths = &target.paths;
    plan.make_dirs =
        !args.user && !args.uninstall && (!paths.logs().is_dir() || !paths.handoffs().is_dir());
    if !args.user && !args.uninstall && !args.local {
        let ignore_path = paths.root.join(".gitignore");
        let ignore_old = target.read(&ignore_path)?;
        if let Some(new) = with_ignore_line(ignore_old.as_deref()) {
            plan.changes.push(FileChange {
                path: ignore_path,
                old: ignore_old,
                new: Some(new),
                backup: false,
            });
        }
        // `.forge/.gitignore` as earlier versions wrote it ignored the config too.
        let inner = paths.forge_dir().join(".gitignore");
        let inner_old = target.read(&inner)?;
        if inner_old.as_deref() == Some(store::paths::OLD_FORGE_GITIGNORE) {
            plan.changes.push(FileChange {
                path: inner,
                old: inner_old,
                new: Some(store::paths::FORGE_GITIGNORE.to_owned()),
                backup: false,
            });
        }
    }
    if args.local
        && let Some(change) = local_excludes(args, paths, &target.settings_path, &mut plan.report)?
    {
        plan.changes.push(change);
    }
    plan.drop_forge_dir = args.local && args.uninstall && forge_dir_is_pristine(paths);

    if args.commands {
        plan_commands(args, target, &mut plan)?;
    }
    if !args.uninstall && !target.program.is_bare() {
        warn_tracked_absolute_path(&mut plan.report, args, target);
    }
    Ok(plan)
}

/// Reads the settings file and computes what it becomes: forge's entries added
/// (`--plugin`: only its status line), or taken out (`--uninstall`).
fn plan_settings(args: &InitArgs, target: &Target, env: &Env) -> anyhow::Result<SettingsPlan> {
    let path = &target.settings_path;
    let old_text = target.read(path)?;
    let old_value: Value = match old_text.as_deref() {
        None => Value::Null,
        Some(t) if t.trim().is_empty() => Value::Null,
        Some(t) => serde_json::from_str(t).map_err(|e| {
            anyhow!(
                "{}: not valid JSON ({e}); fix it or move it away, then run `forge init` again",
                path.display()
            )
        })?,
    };
    let shape_error = |e: settings::ShapeError| anyhow!("{}: {e}", path.display());
    let unedited = |e: json_edit::Unedited| {
        anyhow!(
            "{}: {e}; fix it or move it away, then run `forge init` again (nothing was changed)",
            path.display()
        )
    };
    let (outcome, new_text) = if args.uninstall {
        let outcome = settings::uninstall(&old_value, Emptied::Remove).map_err(shape_error)?;
        let new_text = uninstalled_text(args, target, old_text.as_deref(), &old_value, &outcome)
            .map_err(|e| match e {
                Unkept::Shape(e) => shape_error(e),
                Unkept::Text(e) => unedited(e),
            })?;
        (outcome, new_text)
    } else {
        let outcome = install(args, target, env, &old_value).map_err(shape_error)?;
        let new_text = json_edit::apply(old_text.as_deref().unwrap_or(""), &outcome.settings)
            .map_err(unedited)?;
        (outcome, new_text)
    };
    Ok(SettingsPlan {
        old_text,
        old_value,
        outcome,
        new_text,
    })
}

/// forge's entries added to the settings (`--plugin`: the status line only).
fn install(
    args: &InitArgs,
    target: &Target,
    env: &Env,
    old_value: &Value,
) -> Result<Outcome, settings::ShapeError> {
    let install = if args.plugin {
        crate::model::setup::plugin::install_for_plugin
    } else {
        settings::install
    };
    let exists = |p: &Path| p.exists();
    let root = target.paths.root.as_path();
    install(
        old_value,
        &InstallOptions {
            program: target.program.text.as_str(),
            replace_statusline: args.replace_statusline,
            wrap_statusline: args.wrap_statusline,
            expand: Expand {
                home: env.home.as_deref(),
                // A user-level hook under $CLAUDE_PROJECT_DIR may exist in other
                // projects: only check those against this project's files.
                project: (!args.user).then_some(root),
            },
            exists: &exists,
            // A committed project settings file is shared: a missing `~/…` or
            // `/opt/…` script may exist on a teammate's machine, so only missing
            // scripts inside the project are removed there, unless --prune-dead says
            // to remove them all.
            remove_dead_only_inside: (target.shared && !args.prune_dead).then_some(root),
        },
    )
}

/// Why [`uninstalled_text`] has no text.
enum Unkept {
    /// The settings are not in the shape Claude Code reads.
    Shape(settings::ShapeError),
    /// The text cannot be edited without losing part of it.
    Text(json_edit::Unedited),
}

/// The settings text once forge's entries are out (`outcome`).
///
/// An event list or `hooks` object that only forge's entries filled is removed
/// with them, unless the file had it, empty, before forge filled it: a backup forge
/// kept of the file then says so, when keeping those gives back exactly that
/// backup. So an init and an uninstall give back the same bytes.
fn uninstalled_text(
    args: &InitArgs,
    target: &Target,
    old_text: Option<&str>,
    old_value: &Value,
    outcome: &Outcome,
) -> Result<String, Unkept> {
    let edit = |value: &Value| json_edit::apply(old_text.unwrap_or(""), value);
    let project = (!args.user).then_some(&target.paths);
    for before in backup_texts(&target.settings_path, project) {
        let Ok(before_value) = serde_json::from_str::<Value>(&before) else {
            continue;
        };
        let kept = settings::uninstall(old_value, Emptied::KeepAsIn(&before_value))
            .map_err(Unkept::Shape)?;
        // A wrapped status line given back: with or without the refresh interval it
        // has now (the person's own, or forge's).
        let with_interval = settings::with_refresh_interval_of(&kept.settings, old_value);
        if [&kept.settings, &with_interval].iter().any(|candidate| {
            !json_edit::same(candidate, &outcome.settings)
                && edit(candidate).is_ok_and(|t| t == before)
        }) {
            return Ok(before);
        }
    }
    edit(&outcome.settings).map_err(Unkept::Text)
}

/// The settings file's change, if it changes: `--uninstall --local` takes away the
/// personal file forge created, rather than leave an empty `{}` behind.
fn settings_change(
    args: &InitArgs,
    target: &Target,
    s: &SettingsPlan,
    settings_changes: bool,
) -> Option<FileChange> {
    let path = target.settings_path.clone();
    let remove_local = args.uninstall
        && args.local
        && s.old_text.is_some()
        && is_empty_object(&s.new_text)
        && local_created_by_forge(&path, &target.paths);
    if remove_local {
        Some(FileChange {
            path,
            old: s.old_text.clone(),
            new: None,
            backup: false,
        })
    } else if settings_changes {
        Some(FileChange {
            path,
            old: s.old_text.clone(),
            new: Some(s.new_text.clone()),
            backup: s.old_text.is_some(),
        })
    } else {
        None
    }
}

/// What the settings change does, for the report: what forge now runs and from
/// where, the plugin's part, each entry added, moved or removed, and a status line
/// of the person's own that hides forge's.
fn report_settings(
    report: &mut String,
    args: &InitArgs,
    target: &Target,
    s: &SettingsPlan,
    settings_changes: bool,
    env: &Env,
) {
    let wires_forge = settings_changes && !args.uninstall;
    if settings_changes && args.plugin {
        let _ = writeln!(
            report,
            "  forge hooks, slash commands and MCP server: from the forge plugin. A plugin cannot carry the status line, so it is set here."
        );
    }
    if wires_forge {
        describe_wiring(report, args, target, s);
    }
    if wires_forge || (args.commands && !args.uninstall) {
        report.push_str(&target.program.explain());
        report.push('\n');
    }
    let (paths, path) = (&target.paths, &target.settings_path);
    if args.plugin {
        plugin_notes(report, &s.outcome, path, paths, env, &target.program, args);
    }
    describe_outcome(report, &s.outcome, path, paths, args);
    if !args.user && !args.uninstall {
        users_own_statusline_note(report, &s.outcome, env);
    }
}

/// What the wired entries run: the hooks, the status line, unguarded entries
/// upgraded, and what a teammate without forge sees of a shared file.
fn describe_wiring(report: &mut String, args: &InitArgs, target: &Target, s: &SettingsPlan) {
    let program_text = target.program.text.as_str();
    if !args.plugin {
        // The guard `settings::guarded` writes: a bare name is looked for in PATH's
        // absolute folders only; a path is run when it exists.
        let guard = if program_text.contains('/') {
            format!("`command -v {program_text}`")
        } else {
            format!("a search of PATH's absolute folders for `{program_text}`")
        };
        let _ = writeln!(
            report,
            "  forge hooks: `{program_text} hook <Event>` for {}, each behind {guard}",
            settings::FORGE_EVENTS.join(", ")
        );
    }
    let statusline = statusline_line(program_text, &s.outcome.settings);
    if let Some(line) = &statusline {
        report.push_str(line);
    }
    // Those not taken out (as duplicates, or for the plugin) are upgraded.
    let taken = s
        .outcome
        .removed_forge
        .iter()
        .filter(|r| is_unguarded(&settings::split_words(&r.command)))
        .count();
    let upgraded = unguarded_entries(&s.old_value).saturating_sub(taken);
    if upgraded > 0 {
        let _ = writeln!(
            report,
            "  Upgraded {} in place: {} now {} nothing where forge is missing.",
            super::count(upgraded, "unguarded forge entry", "unguarded forge entries"),
            if upgraded == 1 { "it" } else { "they" },
            if upgraded == 1 { "does" } else { "do" },
        );
    }
    if target.shared && args.plugin {
        let _ = writeln!(
            report,
            "  For a teammate without forge the committed status line prints nothing; the plugin's hooks do nothing there either, and say once at SessionStart how to install forge."
        );
    } else if target.shared {
        let _ = writeln!(
            report,
            "  For a teammate without forge these committed entries do nothing: no failed hook, {}and one line at SessionStart saying how to install forge.",
            if statusline.is_some() {
                "an empty status line, "
            } else {
                ""
            }
        );
    }
}

/// The report's line on forge's status line (with its wrapped command and how
/// often Claude Code runs it), when the settings run forge's.
fn statusline_line(program_text: &str, settings: &Value) -> Option<String> {
    let command = settings::statusline_command(settings)?;
    if !settings::is_forge_command(command) {
        return None;
    }
    let every = settings
        .get("statusLine")
        .and_then(|s| s.get("refreshInterval"))
        .map_or_else(
            || "only on its own events".to_owned(),
            |n| format!("every {n} s (refreshInterval) and on its own events"),
        );
    let wraps = settings::wrapped_statusline(command)
        .map(|w| format!(" --wrap {}", settings::shell_quote(&w)))
        .unwrap_or_default();
    Some(format!(
        "  statusLine: `{program_text} statusline{wraps}`, behind the same guard; Claude Code runs it {every}\n"
    ))
}

/// The slash commands' changes (`--commands`): each shipped command written for
/// this program, or on `--uninstall` removed unless you changed it.
fn plan_commands(args: &InitArgs, target: &Target, plan: &mut Plan) -> anyhow::Result<()> {
    for (name, template) in COMMANDS {
        let text = render_command(template, &target.program.text);
        let path = target.claude_base.join("commands").join(name);
        let old = target.read(&path)?;
        if args.uninstall {
            match old.as_deref() {
                Some(o) if is_rendered_from(o, template) => plan.changes.push(FileChange {
                    path,
                    old,
                    new: None,
                    backup: false,
                }),
                Some(_) => {
                    let _ = writeln!(
                        plan.report,
                        "{} {} (you changed it; remove it by hand if you want)",
                        if args.dry_run { "Would keep" } else { "Kept" },
                        shown(&path, &target.paths)
                    );
                }
                None => {}
            }
        } else if old.as_deref() != Some(text.as_str()) {
            // A copy rendered for another forge path is forge's own: no backup.
            let backup = old
                .as_deref()
                .is_some_and(|o| !is_rendered_from(o, template));
            plan.changes.push(FileChange {
                path,
                old,
                new: Some(text),
                backup,
            });
        }
    }
    Ok(())
}

/// An absolute path in a file git shares breaks forge for everyone else: says so
/// when the settings file (or a slash command) this run writes is tracked.
fn warn_tracked_absolute_path(report: &mut String, args: &InitArgs, target: &Target) {
    let mut files = vec![target.settings_path.clone()];
    if args.commands {
        let commands = target.claude_base.join("commands");
        files.extend(COMMANDS.iter().map(|(n, _)| commands.join(n)));
    }
    let tracked: Vec<String> = files
        .iter()
        .filter(|f| crate::git::is_tracked(f) == Some(true))
        .map(|f| shown(f, &target.paths))
        .collect();
    if !tracked.is_empty() {
        let _ = writeln!(
            report,
            "  Warning: {} {} tracked by git, so forge's commands there run {exe} on every machine that checks {} out, and do nothing for a teammate whose forge is elsewhere. Install forge on PATH ({install}) and run `forge init` again to write the portable `forge …`, or keep forge out of shared files: `forge init --uninstall`, then `forge init --local`.",
            tracked.join(", "),
            if tracked.len() == 1 { "is" } else { "are" },
            if tracked.len() == 1 { "it" } else { "them" },
            exe = target.program.exe.display(),
            install = crate::model::setup::install::commands(),
        );
    }
}

/// `--dry-run`: the plan as unified diffs, then the report; nothing is written.
fn dry_run_text(plan: &Plan, paths: &Paths, about: &str, args: &InitArgs) -> String {
    let mut out = format!(
        "Dry run for {about}: nothing was written. forge init{} would make these changes:\n",
        if args.uninstall { " --uninstall" } else { "" }
    );
    for c in &plan.changes {
        let name = shown(&c.path, paths);
        let old_label = if c.old.is_some() {
            name.clone()
        } else {
            "/dev/null".to_owned()
        };
        let new_label = if c.new.is_some() {
            format!("{name} (after forge init)")
        } else {
            "/dev/null".to_owned()
        };
        out.push_str(&diff::unified(
            c.old.as_deref().unwrap_or(""),
            c.new.as_deref().unwrap_or(""),
            &old_label,
            &new_label,
        ));
    }
    if plan.make_dirs {
        out.push_str("Would create .forge/logs and .forge/handoffs\n");
    }
    if plan.drop_forge_dir {
        out.push_str(FORGE_DIR_GONE_DRY);
    }
    out.push_str(&plan.report);
    out
}

/// Carries the plan out (a backup of each file it replaces that was not forge's
/// own) and says what it did; the report follows the settings file's line.
fn apply(
    mut plan: Plan,
    target: &Target,
    about: &str,
    args: &InitArgs,
    env: &Env,
) -> anyhow::Result<String> {
    let paths = &target.paths;
    let mut done = if args.uninstall {
        format!("Removed forge from {about}\n")
    } else {
        format!("Wired forge into {about}\n")
    };
    let mut backups: Vec<String> = Vec::new();
    if plan.make_dirs {
        paths
            .ensure_dirs()
            .with_context(|| format!("creating {}", paths.forge_dir().display()))?;
        done.push_str("Created .forge/logs and .forge/handoffs\n");
    }
    for c in &plan.changes {
        let name = shown(&c.path, paths);
        match (&c.new, &c.old) {
            (Some(new), old) => {
                let mut bak = None;
                if c.backup
                    && let Some(old) = old
                {
                    let path = write_backup(&c.path, old, (!args.user).then_some(paths), env)?;
                    backups.push(shown(&path, paths));
                    bak = Some(path);
                }
                store::write_atomic(&c.path, new.as_bytes())
                    .with_context(|| format!("writing {}", c.path.display()))?;
                let verb = if old.is_some() { "Updated" } else { "Created" };
                let _ = write!(done, "{verb} {name}");
                if let Some(bak) = bak {
                    let _ = write!(done, " (the old file is in {})", shown(&bak, paths));
                }
                done.push('\n');
                if c.path == target.settings_path {
                    done.push_str(&std::mem::take(&mut plan.report));
                }
            }
            (None, _) => {
                store::remove_if_exists(&c.path)
                    .with_context(|| format!("removing {}", c.path.display()))?;
                let _ = writeln!(done, "Removed {name}");
            }
        }
    }
    if args.local && args.uninstall {
        tidy_after_local_uninstall(
            &mut done,
            &plan.changes,
            paths,
            &target.settings_path,
            plan.drop_forge_dir,
        )?;
    }
    done.push_str(&plan.report);
    if !backups.is_empty() && !args.user {
        done.push_str(
            "Backups are kept in .forge/backups/, which is git-ignored, so they are never committed.\n",
        );
    }
    Ok(done)
}

/// Where the previous version of `file` is kept before forge rewrites it, and
/// writes it there (with the original's permissions). A new name every time, so an
/// earlier backup is never overwritten.
///
/// Project files go to `.forge/backups/<name>.<stamp>`: `.forge/` is git-ignored, so a
/// backup of a committed, shared `.claude/settings.json` cannot be committed by
/// accident, and `.claude/` gets no stray files. User files (`--user`) are backed up
/// next to themselves as `<name>.forge-bak-<stamp>` (no `.md` ending, so Claude Code
/// never loads a backed-up command).
fn write_backup(
    file: &Path,
    old: &str,
    project: Option<&Paths>,
    env: &Env,
) -> anyhow::Result<PathBuf> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    let stamp = env.now.format("%Y%m%d-%H%M%S");
    let base = match project {
        Some(paths) => {
            // Creates .forge/.gitignore (`*`) too when .forge/ is new.
            paths
                .ensure_dirs()
                .with_context(|| format!("creating {}", paths.forge_dir().display()))?;
            paths
                .forge_dir()
                .join("backups")
                .join(format!("{name}.{stamp}"))
        }
        None => file.with_file_name(format!("{name}.forge-bak-{stamp}")),
    };
    for n in 1..=100 {
        let path = if n == 1 {
            base.clone()
        } else {
            store::sibling(&base, &format!("-{n}"))
        };
        match store::write_new_atomic_like(&path, old.as_bytes(), file) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(e).with_context(|| format!("writing the backup {}", path.display()));
            }
        }
    }
    Err(anyhow!(
        "too many backups named {}*: remove some, then run `forge init` again",
        base.display()
    ))
}

/// What `--plugin` did and what is left to do: forge's hook entries taken out (the
/// plugin runs them), other settings files that still run them, a plugin that is
/// not installed yet, a forge the plugin cannot find on PATH.
fn plugin_notes(
    out: &mut String,
    o: &Outcome,
    path: &Path,
    paths: &Paths,
    env: &Env,
    program: &Program,
    args: &InitArgs,
) {
    let name = shown(path, paths);
    if !o.removed_forge.is_empty() {
        let _ = writeln!(
            out,
            "  {} forge's hook entries from {name} (the plugin runs them; both would run every event twice):",
            if args.dry_run { "Would take" } else { "Took" }
        );
        for r in &o.removed_forge {
            let _ = writeln!(
                out,
                "    {}: {}",
                r.event,
                settings::short_display(&r.command)
            );
        }
    }
    // The project's own files are never read through a link (a project install
    // checked them before anything was read); the user's may be a dotfiles manager's.
    let mut values: Vec<(PathBuf, Option<Value>)> = Vec::new();
    for (f, follow) in crate::app::project::claude_settings_files(paths, env) {
        let v = if f == path {
            Some(o.settings.clone())
        } else {
            crate::app::project::read_settings(&f, follow)
                .and_then(|t| serde_json::from_str(&t).ok())
        };
        values.push((f, v));
    }
    for (f, v) in &values {
        let still = v.as_ref().is_some_and(|v| {
            settings::command_hooks(v)
                .iter()
                .any(|h| crate::model::setup::plugin::hook_event_of(&h.command).is_some())
        });
        if still && f != path {
            let _ = writeln!(
                out,
                "  Note: {} still runs forge's hooks, so with the plugin every event runs twice: run `forge init --plugin{}` too.",
                shown(f, paths),
                if f == &paths.root.join(LOCAL_SETTINGS) {
                    " --local"
                } else if f == &paths.root.join(".claude/settings.json") {
                    ""
                } else {
                    " --user"
                }
            );
        }
    }
    let given: Vec<(&Path, Option<&Value>)> = values
        .iter()
        .map(|(p, v)| (p.as_path(), v.as_ref()))
        .collect();
    let installed = crate::app::plugin::detect(env, &paths.root, &given)
        .iter()
        .any(crate::app::plugin::PluginWiring::wires_hooks);
    if !installed {
        let _ = writeln!(
            out,
            "  Note: the forge plugin is not installed for this project yet: `claude plugin install forge --marketplace <forge's repository, a clone or owner/repo>` (or `/plugin install …` inside Claude Code). Until then forge records nothing here."
        );
    }
    if program.on_path.is_none() {
        let _ = writeln!(
            out,
            "  Warning: the plugin's hooks run `forge` from PATH, and there is none: install forge on PATH ({}).",
            crate::model::setup::install::commands()
        );
    }
}

/// A status line of your own in your user settings gives way, in this project, to
/// the one a project install sets (Claude Code takes the most precise file's): say
/// so, and how to keep it here with forge's segments.
fn users_own_statusline_note(out: &mut String, o: &Outcome, env: &Env) {
    let sets_forge = settings::statusline_command(&o.settings).is_some_and(|c| {
        settings::is_forge_command(c) && settings::wrapped_statusline(c).is_none()
    });
    let Some(user) = env.claude_dir().map(|d| d.join("settings.json")) else {
        return;
    };
    if !sets_forge {
        return;
    }
    let theirs = store::safe::read_to_string_whole(
        &user,
        crate::app::project::SETTINGS_CAP,
        store::safe::Follow::Yes,
    )
    .ok()
    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    .and_then(|v| settings::statusline_command(&v).map(str::to_owned))
    .filter(|c| !settings::is_forge_command(c));
    if let Some(theirs) = theirs {
        let _ = writeln!(
            out,
            "  Note: your own status line `{theirs}` ({}) is not shown in this project while a project settings file sets one (Claude Code takes the project's). To keep it here with forge's segments, make the statusLine command of .claude/settings.local.json (yours alone) `forge statusline --wrap {}`.",
            user.display(),
            settings::shell_quote(&theirs)
        );
    }
}

/// What the settings transform did, in words: what was removed, and what was only
/// warned about.
fn describe_outcome(out: &mut String, o: &Outcome, path: &Path, paths: &Paths, args: &InitArgs) {
    let name = shown(path, paths);
    let (remove, keep) = if args.dry_run {
        ("Would remove", "Would keep")
    } else {
        ("Removed", "Kept")
    };
    let list = |out: &mut String, title: String, items: &[Removal]| {
        if items.is_empty() {
            return;
        }
        let _ = writeln!(out, "  {title}:");
        for r in items {
            let _ = writeln!(
                out,
                "    {}: {}",
                r.event,
                settings::short_display(&r.command)
            );
        }
    };
    if args.uninstall {
        list(out, format!("{remove} from {name}"), &o.removed_forge);
    } else {
        list(
            out,
            format!("{remove} from {name} (script not found)"),
            &o.removed_dead,
        );
        list(
            out,
            format!(
                "Warning: {} in {name} although the script is missing here (it is outside the project and may exist on a teammate's machine; `forge init --prune-dead` removes it if nobody uses it)",
                keep.to_lowercase()
            ),
            &o.kept_dead,
        );
        // With --plugin these are the hook entries the plugin replaces (said above).
        if !args.plugin {
            list(
                out,
                format!(
                    "{remove} duplicate forge {} from {name}",
                    if o.removed_forge.len() == 1 {
                        "entry"
                    } else {
                        "entries"
                    }
                ),
                &o.removed_forge,
            );
        }
    }
    for n in &o.notes {
        let _ = writeln!(out, "  Note: {n}");
    }
}

/// How many of forge's entries in `settings` (hooks and statusLine) are not
/// guarded: an older forge wrote them plain, and `forge init` upgrades them.
fn unguarded_entries(settings: &Value) -> usize {
    let hooks = settings::command_hooks(settings)
        .iter()
        .filter(|h| is_unguarded(&h.words))
        .count();
    let status = settings::statusline_command(settings)
        .is_some_and(|c| is_unguarded(&settings::split_words(c)));
    hooks + usize::from(status)
}

/// Whether the words run forge without the guard.
fn is_unguarded(words: &[String]) -> bool {
    settings::forge_role(words).is_some() && !settings::is_guarded(words)
}

/// The `.gitignore` text with [`IGNORE_LINES`] added (in place of the `.forge/`
/// line earlier versions wrote), or `None` when `.forge/` is already ignored
/// another way the person wrote, or as forge writes it now.
pub(crate) fn with_ignore_line(old: Option<&str>) -> Option<String> {
    let text = old.unwrap_or("");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    if lines.contains(&"!.forge/config.toml") {
        return None;
    }
    if lines.contains(&OLD_IGNORE_LINE) {
        // Forge's own line from before: the same rule, with the config let through.
        let mut out = String::with_capacity(text.len() + IGNORE_LINES.len());
        for line in text.split_inclusive('\n') {
            if line.trim() == OLD_IGNORE_LINE {
                out.push_str(IGNORE_LINES);
            } else {
                out.push_str(line);
            }
        }
        return Some(out);
    }
    let own = lines.iter().any(|l| {
        matches!(
            *l,
            ".forge" | "/.forge" | "/.forge/" | ".forge/*" | "/.forge/*"
        )
    });
    if own {
        return None;
    }
    let mut text = text.to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(IGNORE_LINES);
    Some(text)
}

/// The start of the line `forge init --local` writes above its entries in the
/// repository's excludes; the line ends with `)`, or says what else forge will
/// take away with them (see [`with_exclude_block`]).
const EXCLUDE_MARK: &str =
    "# forge init --local: your own entries (forge init --uninstall --local removes them";
/// The ending of [`EXCLUDE_MARK`] when forge created the file.
const MARK_FILE: &str = " and this file)";
/// The ending when forge added a line break to the file's last line.
const MARK_BREAK: &str = " and the line break before them)";

/// The excludes file `old` (`None`: there is none) with forge's block of `lines`
/// added at its end. The block's first line says what `--uninstall --local` takes
/// away, so that gives back the file byte for byte: the block, the file itself when
/// forge created it, the line break forge added after a last line that had none.
pub(crate) fn with_exclude_block(old: Option<&str>, lines: &[String]) -> String {
    let text = old.unwrap_or("");
    let no_break = !text.is_empty() && !text.ends_with('\n');
    let ending = if old.is_none() {
        MARK_FILE
    } else if no_break {
        MARK_BREAK
    } else {
        ")"
    };
    let mut out = text.to_owned();
    if no_break {
        out.push('\n');
    }
    out.push_str(EXCLUDE_MARK);
    out.push_str(ending);
    out.push('\n');
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Whether `line` is one of the patterns `forge init --local` writes: an anchored
/// `…/.claude/settings.local.json` or `…/.forge/`.
fn is_forge_exclude_line(line: &str) -> bool {
    line.starts_with('/')
        && (line.ends_with(&format!("/{LOCAL_SETTINGS}")) || line.ends_with("/.forge/"))
}

/// The excludes file `text` without forge's block: `None` when it has none,
/// `Some(None)` when the file should go (forge created it and nothing else was
/// added since), else the text as it was before the block.
pub(crate) fn without_exclude_block(text: &str) -> Option<Option<String>> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bare = |l: &str| l.trim_end_matches(['\n', '\r']).to_owned();
    let at = lines
        .iter()
        .position(|l| bare(l).starts_with(EXCLUDE_MARK))?;
    let mark = bare(lines.get(at)?);
    let mut end = at + 1;
    while lines
        .get(end)
        .is_some_and(|l| is_forge_exclude_line(&bare(l)))
    {
        end += 1;
    }
    let mut before: String = lines.get(..at)?.concat();
    let after: String = lines.get(end..)?.concat();
    if mark.ends_with(MARK_BREAK) && after.is_empty() && before.ends_with('\n') {
        before.pop();
    }
    if mark.ends_with(MARK_FILE) && before.is_empty() && after.is_empty() {
        return Some(None);
    }
    Some(Some(before + &after))
}

/// `--local`'s excludes: the personal settings file (and `.forge/` when it exists
/// and nothing ignores it) go into the repository's own `info/exclude`, never the
/// shared `.gitignore`; `--uninstall --local` takes forge's block out again.
/// Returns the change to make.
fn local_excludes(
    args: &InitArgs,
    paths: &Paths,
    settings_path: &Path,
    report: &mut String,
) -> anyhow::Result<Option<FileChange>> {
    use crate::git;
    let shown_exclude = |x: &git::ExcludeFile| {
        format!(
            "{}{}",
            shown(&x.path, paths),
            if x.linked {
                " (the main repository's, which every worktree of it reads)"
            } else {
                ""
            }
        )
    };
    if args.uninstall {
        let x = match git::exclude_file(&paths.root) {
            Ok(Some(x)) => x,
            Ok(None) => return Ok(None),
            Err(why) => {
                let _ = writeln!(
                    report,
                    "  Note: forge's lines in this repository's excludes, if any, are left: {why}"
                );
                return Ok(None);
            }
        };
        let Some(old) = read_optional(&x.path, store::safe::Follow::No)? else {
            return Ok(None);
        };
        let Some(new) = without_exclude_block(&old) else {
            return Ok(None);
        };
        return Ok(Some(FileChange {
            path: x.path,
            old: Some(old),
            new,
            backup: false,
        }));
    }
    // Claude Code itself lists settings.local.json in the *global* git excludes
    // file when it writes the file, and only then; forge writes it first, so it
    // makes sure this repository ignores it.
    let tracked = git::is_tracked(settings_path) == Some(true);
    if tracked {
        let _ = writeln!(
            report,
            "  Warning: {LOCAL_SETTINGS} is tracked by git, so it is shared after all: run `git rm --cached {LOCAL_SETTINGS}` and commit that to keep it yours alone."
        );
    }
    let want_local = !tracked && git::is_ignored(&paths.root, LOCAL_SETTINGS) == Some(false);
    let want_forge = store::safe::is_real_dir(&paths.forge_dir())
        && git::is_ignored(&paths.root, ".forge/handoffs/x.md") == Some(false);
    if !want_local && !want_forge {
        if !tracked {
            let _ = writeln!(
                report,
                "  Only for you: Claude Code reads {LOCAL_SETTINGS} for you alone, and git already ignores it."
            );
        }
        return Ok(None);
    }
    let x = match git::exclude_file(&paths.root) {
        Ok(Some(x)) => x,
        Ok(None) => return Ok(None),
        Err(why) => {
            return Err(anyhow!(
                "cannot keep {LOCAL_SETTINGS} out of git through this repository's excludes: {why}
forge init wrote nothing. Keep it out of git yourself (your global excludes file, `git config core.excludesFile`), then run `forge init --local` again; or wire forge for everyone with `forge init`."
            ));
        }
    };
    let rel = paths
        .root
        .strip_prefix(&x.work_tree)
        .unwrap_or(Path::new(""));
    let anchored = |name: &str| format!("/{}", rel.join(name).display());
    let mut lines = Vec::new();
    if want_local {
        lines.push(anchored(LOCAL_SETTINGS));
    }
    if want_forge {
        lines.push(format!("{}/", anchored(".forge")));
    }
    let old = read_optional(&x.path, store::safe::Follow::No)?;
    let new = with_exclude_block(old.as_deref(), &lines);
    let _ = writeln!(
        report,
        "  Only for you: Claude Code reads {LOCAL_SETTINGS} for you alone, and git ignores it through {}, this clone's own excludes, which are never committed (.gitignore is left alone).",
        shown_exclude(&x)
    );
    Ok(Some(FileChange {
        path: x.path,
        old,
        new: Some(new),
        backup: false,
    }))
}

/// Whether `text` (a settings file's new text) is an empty JSON object.
fn is_empty_object(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_object().map(serde_json::Map::is_empty))
        .unwrap_or(false)
}

/// Whether forge created the personal settings file at `file`: it kept no backup of
/// it (`forge init` backs up a file it finds before it first writes it), or the
/// oldest backup held nothing but forge's entries.
fn local_created_by_forge(file: &Path, paths: &Paths) -> bool {
    let texts = backup_texts(file, Some(paths));
    let Some(oldest) = texts.last() else {
        return true;
    };
    serde_json::from_str::<Value>(oldest)
        .ok()
        .and_then(|v| settings::uninstall(&v, Emptied::Remove).ok())
        .is_some_and(|o| {
            o.settings
                .as_object()
                .is_some_and(serde_json::Map::is_empty)
        })
}

/// What a dry run of `--uninstall --local` says of a `.forge/` it would remove.
const FORGE_DIR_GONE_DRY: &str =
    "Would remove .forge/ (forge init made it, and it holds nothing else)\n";

/// After `--uninstall --local` has made its file changes: removes a `.forge/` that
/// held nothing and the `.claude/` folder the removed settings file leaves empty
/// (git's own `info/` folder stays: every repository has one), and says what it did
/// (and what it kept).
fn tidy_after_local_uninstall(
    done: &mut String,
    changes: &[FileChange],
    paths: &Paths,
    settings_path: &Path,
    drop_forge_dir: bool,
) -> anyhow::Result<()> {
    for c in changes.iter().filter(|c| c.new.is_none()) {
        // Only an empty folder is removed (remove_dir refuses any other).
        if let Some(dir) = c.path.parent()
            && c.path == settings_path
            && std::fs::remove_dir(dir).is_ok()
        {
            let _ = writeln!(done, "Removed {}/ (empty)", shown(dir, paths));
        }
    }
    if drop_forge_dir {
        remove_pristine_forge_dir(paths)
            .with_context(|| format!("removing {}", paths.forge_dir().display()))?;
        done.push_str("Removed .forge/ (forge init made it, and it held nothing else)\n");
    } else if store::safe::is_real_dir(&paths.forge_dir()) {
        done.push_str(
            "Kept .forge/: it holds this project's session state (logs, handoffs, backups); remove it by hand if you want it gone.\n",
        );
    }
    Ok(())
}

/// Whether `.forge/` holds nothing but what `forge init` made there: its
/// `.gitignore` as forge wrote it, and `logs/` and `handoffs/` empty. Nothing is
/// followed: a link, or anything else, means no.
fn forge_dir_is_pristine(paths: &Paths) -> bool {
    use std::fs::symlink_metadata;
    let dir = paths.forge_dir();
    if !store::safe::is_real_dir(&dir) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return false;
    };
    for e in entries {
        let Ok(e) = e else { return false };
        let path = e.path();
        let Ok(meta) = symlink_metadata(&path) else {
            return false;
        };
        let fine = match e.file_name().to_str() {
            Some("logs" | "handoffs") if meta.is_dir() => std::fs::read_dir(&path)
                .map(|mut r| r.next().is_none())
                .unwrap_or(false),
            Some(".gitignore") if meta.is_file() => {
                let text =
                    store::safe::read_to_string_whole(&path, 4096, store::safe::Follow::No).ok();
                [
                    store::paths::FORGE_GITIGNORE,
                    store::paths::OLD_FORGE_GITIGNORE,
                ]
                .contains(&text.as_deref().unwrap_or_default())
            }
            _ => false,
        };
        if !fine {
            return false;
        }
    }
    true
}

/// Removes a `.forge/` that [`forge_dir_is_pristine`] found holding nothing.
fn remove_pristine_forge_dir(paths: &Paths) -> std::io::Result<()> {
    let dir = paths.forge_dir();
    store::remove_if_exists(&dir.join(".gitignore"))?;
    for d in ["logs", "handoffs"] {
        match std::fs::remove_dir(dir.join(d)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    std::fs::remove_dir(&dir)
}

/// The texts of forge's backups of `file` (newest first, at most 50): in
/// `.forge/backups/` for a project file, next to it for a user file.
fn backup_texts(file: &Path, project: Option<&Paths>) -> Vec<String> {
    let Some(name) = file.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let (dir, prefix) = match project {
        Some(paths) => (paths.forge_dir().join("backups"), format!("{name}.")),
        None => match file.parent() {
            Some(d) => (d.to_path_buf(), format!("{name}.forge-bak-")),
            None => return Vec::new(),
        },
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    names.sort_unstable_by(|a, b| b.cmp(a));
    names
        .iter()
        .take(50)
        .filter_map(|n| {
            crate::store::safe::read_to_string_whole(
                &dir.join(n),
                crate::app::project::SETTINGS_CAP,
                crate::store::safe::Follow::No,
            )
            .ok()
        })
        .collect()
}

/// Every path inside the project a project install (`forge init`, `--local`,
/// `--uninstall`, `--commands`, `--plugin`) may read or write, with what must be
/// there.
fn project_paths_touched(
    args: &InitArgs,
    paths: &Paths,
    settings_path: &Path,
) -> Vec<(PathBuf, store::safe::Want)> {
    use store::safe::Want;
    let claude = paths.root.join(".claude");
    let mut v = vec![
        (claude.clone(), Want::Dir),
        (settings_path.to_path_buf(), Want::File),
        (paths.forge_dir().join("backups"), Want::Dir),
    ];
    if !args.uninstall && !args.local {
        v.push((paths.root.join(".gitignore"), Want::File));
        v.push((paths.forge_dir(), Want::Dir));
        v.push((paths.forge_dir().join(".gitignore"), Want::File));
    }
    if args.plugin {
        // --plugin reads both project settings files (which still run forge's hooks).
        for f in [LOCAL_SETTINGS, ".claude/settings.json"] {
            let f = paths.root.join(f);
            if f != settings_path {
                v.push((f, Want::File));
            }
        }
    }
    if args.commands {
        v.push((claude.join("commands"), Want::Dir));
        v.extend(
            COMMANDS
                .iter()
                .map(|(name, _)| (claude.join("commands").join(name), Want::File)),
        );
    }
    v
}

fn read_optional(path: &Path, follow: store::safe::Follow) -> anyhow::Result<Option<String>> {
    match crate::store::safe::read_to_string_whole(path, crate::app::project::SETTINGS_CAP, follow)
    {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A path relative to the project root when inside it, else as is.
fn shown(path: &Path, paths: &Paths) -> String {
    path.strip_prefix(&paths.root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_lines_added_once_letting_the_config_through() {
        assert_eq!(
            with_ignore_line(None).as_deref(),
            Some(".forge/*\n!.forge/config.toml\n")
        );
        assert_eq!(
            with_ignore_line(Some("target")).as_deref(),
            Some("target\n.forge/*\n!.forge/config.toml\n")
        );
        // The person's own rule is theirs.
        assert_eq!(with_ignore_line(Some("target\n/.forge\n")), None);
        let once = with_ignore_line(Some("a\n")).unwrap();
        assert_eq!(with_ignore_line(Some(&once)), None);
        // The line earlier versions wrote becomes the pair, where it was.
        assert_eq!(
            with_ignore_line(Some("target/\n.forge/\nnode_modules/\n")).as_deref(),
            Some("target/\n.forge/*\n!.forge/config.toml\nnode_modules/\n")
        );
    }

    #[test]
    fn the_exclude_block_comes_off_byte_for_byte() {
        let lines = vec![
            "/.claude/settings.local.json".to_owned(),
            "/.forge/".to_owned(),
        ];
        for old in [
            None,
            Some(""),
            Some("# git's\n"),
            Some("# mine\n*.tmp"),
            Some("a\r\nb\r\n"),
        ] {
            let with = with_exclude_block(old, &lines);
            assert!(
                with.ends_with("/.claude/settings.local.json\n/.forge/\n"),
                "{with:?}"
            );
            let back = without_exclude_block(&with).unwrap();
            assert_eq!(back.as_deref(), old, "{old:?} → {with:?}");
            // Twice: no second block (the caller adds one only when git does not
            // ignore the file yet), and no block means nothing to take away.
            if let Some(o) = old {
                assert_eq!(without_exclude_block(o), None);
            }
        }
        // Lines the person added after forge's stay, and so does the line break
        // forge added before its block (it now ends a line of theirs).
        let with = with_exclude_block(Some("# mine\n*.tmp"), &lines[..1]);
        let later = format!("{with}*.bak\n");
        assert_eq!(
            without_exclude_block(&later),
            Some(Some("# mine\n*.tmp\n*.bak\n".to_owned()))
        );
        // A file forge created keeps what was added to it since.
        let created = with_exclude_block(None, &lines[..1]);
        assert_eq!(
            without_exclude_block(&format!("{created}*.bak\n")),
            Some(Some("*.bak\n".to_owned()))
        );
        // Only forge's own patterns go with the block.
        let odd = format!("{}/src/\n", with_exclude_block(Some(""), &lines[..1]));
        assert_eq!(
            without_exclude_block(&odd),
            Some(Some("/src/\n".to_owned()))
        );
    }

    #[test]
    fn commands_name_forge_by_the_given_path_everywhere() {
        for (name, template) in COMMANDS {
            let text = render_command(template, "'/opt/my tools/forge'");
            assert!(!text.contains(PROGRAM_SLOT), "{name}");
            // Every command Claude is told to run, and every allowed-tools rule,
            // uses the path; `forge` alone is left only in prose.
            for line in text.lines() {
                for bare in [
                    "`forge resume",
                    "`forge status",
                    "`forge learn",
                    "Bash(forge",
                ] {
                    assert!(!line.contains(bare), "{name}: {line}");
                }
            }
            let (fm, _) = crate::model::handoff::entry::split_front_matter(&text);
            let tools = fm.get("allowed-tools").unwrap();
            assert!(
                tools.contains("Bash('/opt/my tools/forge' "),
                "{name}: {tools}"
            );
            assert!(is_rendered_from(&text, template), "{name}");
            assert!(is_rendered_from(
                &render_command(template, "/usr/bin/forge"),
                template
            ));
            assert!(
                !is_rendered_from(&format!("{text}\nmine\n"), template),
                "{name}"
            );
        }
    }

    #[test]
    fn shipped_commands_have_front_matter_and_no_bad_model() {
        for (name, template) in COMMANDS {
            let text = &render_command(template, "forge");
            let (fm, body) = crate::model::handoff::entry::split_front_matter(text);
            assert!(fm.contains_key("description"), "{name}");
            assert!(!fm.contains_key("model"), "{name}");
            assert!(!body.trim().is_empty());
        }
        let learn = &render_command(COMMANDS[0].1, "forge");
        for word in [
            "Extracted",
            "Confidence",
            "Context",
            "Pattern",
            "When to Apply",
            "Steps",
            "Why This Works",
            "Source",
            "learned-<slug>.md",
            "forge learn archive",
            "credentials",
            "tokens",
            "connection strings",
            "file contents",
            "environment variable values",
        ] {
            assert!(learn.contains(word), "forge-learn.md lacks {word}");
        }
        let cont = &render_command(COMMANDS[1].1, "forge");
        for word in ["forge resume --print", "blocked", "open question", "Drift"] {
            assert!(cont.contains(word), "forge-continue.md lacks {word}");
        }
    }
}
