//! `forge init`'s work on disk: where it installs ([`Target`]: the project, the
//! settings file, the forge program the entries name), the plan of every change read
//! from the files before anything is written, and carrying it out — backups, the
//! settings file, `.forge/`, `.gitignore`, the repository's excludes, the slash
//! commands. The edits themselves are pure, in `model::setup` ([`settings`],
//! [`json_edit`], `ignore`, `commands`, `plan`); what to say about them is
//! [`report`]; `--local`'s excludes and tidying are [`local`].

mod local;
mod report;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, anyhow};
use serde_json::Value;

use crate::app::project::project_paths;
use crate::env::Env;
use crate::model::setup::commands::{COMMANDS, is_rendered_from, render_command};
use crate::model::setup::ignore::{LOCAL_SETTINGS, with_ignore_line};
use crate::model::setup::json_edit;
pub(crate) use crate::model::setup::plan::{FileChange, Options, Plan, dry_run_text};
use crate::model::setup::plan::{home_refusal, is_empty_object};
use crate::model::setup::settings::{self, Emptied, Expand, InstallOptions, Outcome};
use crate::store::{self, Paths};

use local::{
    forge_dir_is_pristine, local_created_by_forge, local_excludes, tidy_after_local_uninstall,
};
use report::{report_settings, warn_tracked_absolute_path};

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

/// Where this run installs: the project, the settings file, how files are read and
/// which forge program the entries name.
pub(crate) struct Target {
    /// The project.
    pub(crate) paths: Paths,
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
    /// Where this run installs, every path inside the project checked first.
    pub(crate) fn resolve(args: &Options, env: &Env) -> anyhow::Result<Self> {
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
    pub(crate) fn describe(&self, args: &Options) -> String {
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

/// The file changes and the report, in the order they are printed: the settings
/// file, `.forge/` and the ignore files, the slash commands, then a warning when
/// a shared file would name this binary by its path.
pub(crate) fn plan(args: &Options, target: &Target, env: &Env) -> anyhow::Result<Plan> {
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
fn plan_settings(args: &Options, target: &Target, env: &Env) -> anyhow::Result<SettingsPlan> {
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
    args: &Options,
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
    args: &Options,
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
    args: &Options,
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

/// The slash commands' changes (`--commands`): each shipped command written for
/// this program, or on `--uninstall` removed unless you changed it.
fn plan_commands(args: &Options, target: &Target, plan: &mut Plan) -> anyhow::Result<()> {
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

/// Carries the plan out (a backup of each file it replaces that was not forge's
/// own) and says what it did; the report follows the settings file's line.
pub(crate) fn apply(
    mut plan: Plan,
    target: &Target,
    about: &str,
    args: &Options,
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

/// The texts of forge's backups of `file` (newest first, at most 50): in
/// `.forge/backups/` for a project file, next to it for a user file.
pub(super) fn backup_texts(file: &Path, project: Option<&Paths>) -> Vec<String> {
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
    args: &Options,
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

pub(super) fn read_optional(
    path: &Path,
    follow: store::safe::Follow,
) -> anyhow::Result<Option<String>> {
    match crate::store::safe::read_to_string_whole(path, crate::app::project::SETTINGS_CAP, follow)
    {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// A path relative to the project root when inside it, else as is.
fn shown(path: &Path, paths: &Paths) -> String {
    crate::model::setup::plan::shown(path, &paths.root)
}
