//! `forge init`: wire Claude Code to forge in one command (and undo it).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::Value;

use super::project::project_paths;
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
pub fn is_rendered_from(installed: &str, template: &str) -> bool {
    rendered_program(installed, template).is_some()
}

/// The program `installed` was rendered for (as written, e.g. `forge` or
/// `'/opt/my tools/forge'`), when it is `template` rendered, unchanged since.
pub fn rendered_program<'a>(installed: &'a str, template: &str) -> Option<&'a str> {
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
pub struct Program {
    /// As written in commands: `forge`, or this binary's absolute path (quoted for
    /// the shell when it needs it).
    pub text: String,
    /// This binary.
    pub exe: PathBuf,
    /// What `forge` on PATH is (`None`: there is none).
    pub on_path: Option<PathBuf>,
}

impl Program {
    /// The bare `forge` when `forge` on PATH is this very binary (so the entries work
    /// on every machine that has forge installed), else this binary's absolute path.
    pub fn find(env: &Env) -> anyhow::Result<Self> {
        let exe = std::env::current_exe().context("finding this forge binary's path")?;
        let on_path = env.find_program("forge");
        let text = if on_path.as_deref().is_some_and(|p| same_file(p, &exe)) {
            "forge".to_owned()
        } else {
            settings::shell_quote(&exe.to_string_lossy())
        };
        Ok(Self { text, exe, on_path })
    }

    /// Whether the entries name `forge` alone (found on PATH).
    pub fn is_bare(&self) -> bool {
        self.text == "forge"
    }

    /// One line on which program the entries run, and why.
    pub fn explain(&self) -> String {
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

/// Whether two paths are the same file (the same inode once symlinks are followed).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The line `forge init` adds to `.gitignore`.
const IGNORE_LINE: &str = ".forge/";

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
/// .forge/handoffs and adds `.forge/` (and with --local, the local settings file) to
/// .gitignore. Running it twice changes nothing the second time.
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
        "  forge init --uninstall      # remove forge's entries, nothing else"
    )
)]
pub struct InitArgs {
    /// Project folder (default: the current folder's project). A folder inside a
    /// project means that project (nearest .forge/ above, else the git root), as when
    /// run from there.
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Edit the user settings ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json) instead
    /// of the project's .claude/settings.json.
    #[arg(long, conflicts_with = "local")]
    pub user: bool,
    /// Edit the project's .claude/settings.local.json (your own settings for this
    /// project, which are not committed) instead of the shared .claude/settings.json;
    /// it is added to .gitignore when git does not ignore it yet.
    #[arg(long)]
    pub local: bool,
    /// Print what would change (a diff) and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove forge's hook entries and statusLine, and nothing else.
    #[arg(long)]
    pub uninstall: bool,
    /// Also install the /forge-learn and /forge-continue slash commands into
    /// .claude/commands/ (removed again with --uninstall --commands).
    #[arg(long)]
    pub commands: bool,
    /// Replace a statusLine that belongs to another tool with forge's.
    #[arg(long, conflicts_with = "uninstall")]
    pub replace_statusline: bool,
    /// For a project that gets forge's hooks, slash commands and MCP server from
    /// the forge plugin (`claude plugin install forge`): write only what a plugin
    /// cannot carry, forge's statusLine, and take forge's hook entries out of the
    /// settings file (beside the plugin's they would run every event twice).
    #[arg(long, conflicts_with_all = ["uninstall", "commands"])]
    pub plugin: bool,
    /// Also remove hook commands whose script is missing from the shared
    /// .claude/settings.json when the script is outside the project (by default
    /// they are only listed: the script may exist on a teammate's machine).
    #[arg(long, conflicts_with = "uninstall")]
    pub prune_dead: bool,
}

/// One planned file change.
struct FileChange {
    path: PathBuf,
    old: Option<String>,
    /// `None` removes the file.
    new: Option<String>,
    backup: bool,
}

/// Runs `forge init`.
pub fn run(args: &InitArgs, env: &Env) -> anyhow::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
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
    // Nothing inside the project is followed out of it: every path this run may read
    // or write there is checked before anything is read or written, and one that is
    // a symbolic link (or not a regular file or real folder of yours) stops the run.
    // A repository could otherwise ship `.gitignore -> /proc/self/environ` (read
    // into a tracked file) or `.claude -> ~/elsewhere` (written through).
    if !args.user {
        for (path, want) in project_paths_touched(args, &paths, &settings_path) {
            store::safe::check_inside(&paths.root, &path, want)
                .map_err(|r| anyhow!("{r}\nforge init wrote nothing."))?;
        }
    }
    // The user's own files (--user) may be a dotfiles manager's links.
    let follow = if args.user {
        store::safe::Follow::Yes
    } else {
        store::safe::Follow::No
    };
    let read_optional = |path: &Path| read_optional(path, follow);
    let program = Program::find(env)?;
    let program_text = program.text.as_str();
    // Only the project's .claude/settings.json is meant to be shared.
    let shared = !args.user && !args.local;

    let mut changes = Vec::new();
    let mut report = String::new();

    // The settings file.
    let old_text = read_optional(&settings_path)?;
    let old_value: Value = match old_text.as_deref() {
        None => Value::Null,
        Some(t) if t.trim().is_empty() => Value::Null,
        Some(t) => serde_json::from_str(t).map_err(|e| {
            anyhow!(
                "{}: not valid JSON ({e}); fix it or move it away, then run `forge init` again",
                settings_path.display()
            )
        })?,
    };
    let home = env.home.clone();
    let exists = |p: &Path| p.exists();
    let edit = |value: &Value| json_edit::apply(old_text.as_deref().unwrap_or(""), value);
    let shape_error = |e: settings::ShapeError| anyhow!("{}: {e}", settings_path.display());
    let (outcome, new_text): (Outcome, String) = if args.uninstall {
        let outcome = settings::uninstall(&old_value, Emptied::Remove).map_err(shape_error)?;
        let mut new_text = edit(&outcome.settings);
        // An event list or `hooks` object that only forge's entries filled is
        // removed with them, unless the file had it, empty, before forge filled it:
        // a backup forge kept of the file then says so, when keeping those gives
        // back exactly that backup. So an init and an uninstall give back the same
        // bytes.
        for before in backup_texts(&settings_path, (!args.user).then_some(&paths)) {
            let Ok(before_value) = serde_json::from_str::<Value>(&before) else {
                continue;
            };
            let kept = settings::uninstall(&old_value, Emptied::KeepAsIn(&before_value))
                .map_err(shape_error)?;
            if !json_edit::same(&kept.settings, &outcome.settings) && edit(&kept.settings) == before
            {
                new_text = before;
                break;
            }
        }
        (outcome, new_text)
    } else {
        let install = if args.plugin {
            crate::model::setup::plugin::install_for_plugin
        } else {
            settings::install
        };
        let outcome = install(
            &old_value,
            &InstallOptions {
                program: program_text,
                replace_statusline: args.replace_statusline,
                expand: Expand {
                    home: home.as_deref(),
                    // A user-level hook under $CLAUDE_PROJECT_DIR may exist in other
                    // projects: only check those against this project's files.
                    project: (!args.user).then_some(paths.root.as_path()),
                },
                exists: &exists,
                // A committed project settings file is shared: a missing `~/…` or
                // `/opt/…` script may exist on a teammate's machine, so only
                // missing scripts inside the project are removed there, unless
                // --prune-dead says to remove them all.
                remove_dead_only_inside: (shared && !args.prune_dead)
                    .then_some(paths.root.as_path()),
            },
        )
        .map_err(shape_error)?;
        let new_text = edit(&outcome.settings);
        (outcome, new_text)
    };
    let settings_changes = if args.uninstall {
        !old_value.is_null() && old_text.as_deref() != Some(new_text.as_str())
    } else {
        old_text.as_deref() != Some(new_text.as_str())
    };
    let wires_forge = settings_changes && !args.uninstall;
    if settings_changes {
        changes.push(FileChange {
            path: settings_path.clone(),
            old: old_text.clone(),
            new: Some(new_text),
            backup: old_text.is_some(),
        });
    }
    if settings_changes && args.plugin {
        let _ = writeln!(
            report,
            "  forge hooks, slash commands and MCP server: from the forge plugin. A plugin cannot carry the status line, so it is set here."
        );
    }
    if wires_forge {
        if !args.plugin {
            let _ = writeln!(
                report,
                "  forge hooks: `{program_text} hook <Event>` for {}",
                settings::FORGE_EVENTS.join(", ")
            );
        }
        if settings::statusline_command(&outcome.settings).is_some_and(settings::is_forge_command) {
            let _ = writeln!(report, "  statusLine: `{program_text} statusline`");
        }
    }
    if wires_forge || (args.commands && !args.uninstall) {
        report.push_str(&program.explain());
        report.push('\n');
    }
    if args.plugin {
        plugin_notes(
            &mut report,
            &outcome,
            &settings_path,
            &paths,
            env,
            &program,
            args,
        );
    }
    describe_outcome(&mut report, &outcome, &settings_path, &paths, args);

    // .forge/ folders and .gitignore (project installs only).
    let mut make_dirs = false;
    if !args.user && !args.uninstall {
        make_dirs = !paths.logs().is_dir() || !paths.handoffs().is_dir();
        let ignore_path = paths.root.join(".gitignore");
        let ignore_old = read_optional(&ignore_path)?;
        let mut ignore_new = with_ignore_line(ignore_old.as_deref());
        if args.local {
            // Claude Code itself lists settings.local.json in the *global* git
            // excludes file when it writes the file, and only then; forge writes it
            // first, so it makes sure this repository ignores it.
            let local = settings_path.as_path();
            match (
                crate::git::is_tracked(local),
                crate::git::is_ignored(&paths.root, LOCAL_SETTINGS),
            ) {
                (Some(true), _) => {
                    let _ = writeln!(
                        report,
                        "  Warning: {LOCAL_SETTINGS} is tracked by git, so it is shared after all: run `git rm --cached {LOCAL_SETTINGS}` and commit that to keep it personal."
                    );
                }
                (_, Some(false)) => {
                    let base = ignore_new.as_deref().or(ignore_old.as_deref());
                    ignore_new = Some(with_line(base, LOCAL_SETTINGS));
                }
                _ => {}
            }
        }
        if let Some(new) = ignore_new {
            changes.push(FileChange {
                path: ignore_path,
                old: ignore_old,
                new: Some(new),
                backup: false,
            });
        }
    }

    // Slash commands.
    if args.commands {
        for (name, template) in COMMANDS {
            let text = render_command(template, program_text);
            let text = text.as_str();
            let path = claude_base.join("commands").join(name);
            let old = read_optional(&path)?;
            if args.uninstall {
                match old.as_deref() {
                    Some(o) if is_rendered_from(o, template) => changes.push(FileChange {
                        path,
                        old,
                        new: None,
                        backup: false,
                    }),
                    Some(_) => {
                        let _ = writeln!(
                            report,
                            "{} {} (you changed it; remove it by hand if you want)",
                            if args.dry_run { "Would keep" } else { "Kept" },
                            shown(&path, &paths)
                        );
                    }
                    None => {}
                }
            } else if old.as_deref() != Some(text) {
                // A copy rendered for another forge path is forge's own: no backup.
                let backup = old
                    .as_deref()
                    .is_some_and(|o| !is_rendered_from(o, template));
                changes.push(FileChange {
                    path,
                    old,
                    new: Some(text.to_owned()),
                    backup,
                });
            }
        }
    }

    // An absolute path in a file git shares breaks forge for everyone else.
    if !args.uninstall && !program.is_bare() {
        let mut files = vec![settings_path.clone()];
        if args.commands {
            files.extend(
                COMMANDS
                    .iter()
                    .map(|(n, _)| claude_base.join("commands").join(n)),
            );
        }
        let tracked: Vec<String> = files
            .iter()
            .filter(|f| crate::git::is_tracked(f) == Some(true))
            .map(|f| shown(f, &paths))
            .collect();
        if !tracked.is_empty() {
            let _ = writeln!(
                report,
                "  Warning: {} {} tracked by git, so forge's commands there run {exe} on every machine that checks {} out, and a teammate without {exe} gets an error from every hook. Install forge on PATH (see the README: `cargo install --path .`) and run `forge init` again to write the portable `forge …`, or keep forge out of shared files: `forge init --uninstall`, then `forge init --local`.",
                tracked.join(", "),
                if tracked.len() == 1 { "is" } else { "are" },
                if tracked.len() == 1 { "it" } else { "them" },
                exe = program.exe.display(),
            );
        }
    }

    // Say which project (or which user settings file) this is about, absolutely.
    let target = if args.user {
        format!(
            "the user settings {} (every project)",
            settings_path.display()
        )
    } else {
        format!(
            "the project {}{}",
            paths.root.display(),
            if args.local {
                " (your own settings, .claude/settings.local.json)"
            } else {
                ""
            }
        )
    };
    if changes.is_empty() && !make_dirs {
        report.push_str(&if args.uninstall {
            format!("forge is not wired into {target}; nothing changed.\n")
        } else {
            format!("forge is already set up in {target}; nothing changed.\n")
        });
        super::print_out(&report);
        return Ok(ExitCode::SUCCESS);
    }

    if args.dry_run {
        let mut out = format!(
            "Dry run for {target}: nothing was written. forge init{} would make these changes:\n",
            if args.uninstall { " --uninstall" } else { "" }
        );
        for c in &changes {
            let name = shown(&c.path, &paths);
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
        if make_dirs {
            out.push_str("Would create .forge/logs and .forge/handoffs\n");
        }
        out.push_str(&report);
        super::print_out(&out);
        return Ok(ExitCode::SUCCESS);
    }

    let mut done = if args.uninstall {
        format!("Removed forge from {target}\n")
    } else {
        format!("Wired forge into {target}\n")
    };
    let mut backups: Vec<String> = Vec::new();
    if make_dirs {
        paths
            .ensure_dirs()
            .with_context(|| format!("creating {}", paths.forge_dir().display()))?;
        done.push_str("Created .forge/logs and .forge/handoffs\n");
    }
    for c in &changes {
        let name = shown(&c.path, &paths);
        match (&c.new, &c.old) {
            (Some(new), old) => {
                let mut bak = None;
                if c.backup
                    && let Some(old) = old
                {
                    let path = write_backup(&c.path, old, (!args.user).then_some(&paths), env)?;
                    backups.push(shown(&path, &paths));
                    bak = Some(path);
                }
                store::write_atomic(&c.path, new.as_bytes())
                    .with_context(|| format!("writing {}", c.path.display()))?;
                let verb = if old.is_some() { "Updated" } else { "Created" };
                let _ = write!(done, "{verb} {name}");
                if let Some(bak) = bak {
                    let _ = write!(done, " (the old file is in {})", shown(&bak, &paths));
                }
                done.push('\n');
                if c.path == settings_path {
                    done.push_str(&std::mem::take(&mut report));
                }
            }
            (None, _) => {
                store::remove_if_exists(&c.path)
                    .with_context(|| format!("removing {}", c.path.display()))?;
                let _ = writeln!(done, "Removed {name}");
            }
        }
    }
    done.push_str(&report);
    if !backups.is_empty() && !args.user {
        done.push_str(
            "Backups are kept in .forge/backups/, which is git-ignored, so they are never committed.\n",
        );
    }
    super::print_out(&done);
    Ok(ExitCode::SUCCESS)
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
            let _ = writeln!(out, "    {}: {}", r.event, r.command);
        }
    }
    // The project's own files are never read through a link (a project install
    // checked them before anything was read); the user's may be a dotfiles manager's.
    let mut others = vec![
        (paths.root.join(LOCAL_SETTINGS), store::safe::Follow::No),
        (
            paths.root.join(".claude/settings.json"),
            store::safe::Follow::No,
        ),
    ];
    others.extend(
        env.claude_dir()
            .map(|d| (d.join("settings.json"), store::safe::Follow::Yes)),
    );
    let mut values: Vec<(PathBuf, Option<Value>)> = Vec::new();
    for (f, follow) in others {
        let v = if f == path {
            Some(o.settings.clone())
        } else {
            store::safe::read_to_string_whole(&f, 16 * 1024 * 1024, follow)
                .ok()
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
            "  Warning: the plugin's hooks run `forge` from PATH, and there is none: install forge on PATH (`cargo install --path . --locked` in forge's clone)."
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
            let _ = writeln!(out, "    {}: {}", r.event, r.command);
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

/// The `.gitignore` text with `.forge/` added, or `None` when it is already ignored.
pub fn with_ignore_line(old: Option<&str>) -> Option<String> {
    let listed = old.is_some_and(|t| {
        t.lines().map(str::trim).any(|l| {
            matches!(
                l,
                ".forge" | ".forge/" | "/.forge" | "/.forge/" | ".forge/*" | "/.forge/*"
            )
        })
    });
    if listed {
        return None;
    }
    let mut text = old.unwrap_or("").to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(IGNORE_LINE);
    text.push('\n');
    Some(text)
}

/// `old` (a `.gitignore`) with `line` added at the end.
fn with_line(old: Option<&str>, line: &str) -> String {
    let mut text = old.unwrap_or("").to_owned();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(line);
    text.push('\n');
    text
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
                16 * 1024 * 1024,
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
    if !args.uninstall {
        v.push((paths.root.join(".gitignore"), Want::File));
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
    match crate::store::safe::read_to_string_whole(path, 16 * 1024 * 1024, follow) {
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
    fn gitignore_line_added_once() {
        assert_eq!(with_ignore_line(None).as_deref(), Some(".forge/\n"));
        assert_eq!(
            with_ignore_line(Some("target")).as_deref(),
            Some("target\n.forge/\n")
        );
        assert_eq!(with_ignore_line(Some("target\n/.forge\n")), None);
        let once = with_ignore_line(Some("a\n")).unwrap();
        assert_eq!(with_ignore_line(Some(&once)), None);
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
