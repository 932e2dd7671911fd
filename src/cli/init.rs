//! `forge init`: wire Claude Code to forge in one command (and undo it).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use color_eyre::eyre::{WrapErr, eyre};
use serde_json::Value;

use super::status::project_paths;
use crate::env::Env;
use crate::model::diff;
use crate::model::settings::{self, Expand, InstallOptions, Outcome, Removal};
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

/// A shipped slash command with `{{forge}}` replaced by `program` (this binary's
/// absolute path, shell-quoted), so the command works when forge is not on PATH
/// and its `allowed-tools` rules match the commands it asks Claude to run.
pub fn render_command(template: &str, program: &str) -> String {
    template.replace(PROGRAM_SLOT, program)
}

/// Whether `installed` is `template` rendered for *some* program path (an install
/// by this or an older forge binary, unchanged since): such a file is forge's to
/// replace or remove.
pub fn is_rendered_from(installed: &str, template: &str) -> bool {
    let mut parts = template.split(PROGRAM_SLOT);
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(rest) = installed.strip_prefix(first) else {
        return false;
    };
    let Some(second) = parts.next() else {
        return installed == template;
    };
    // The program runs up to the text that follows the first slot.
    let Some(end) = rest.find(second) else {
        return false;
    };
    let program = &rest[..end];
    !program.is_empty() && !program.contains('\n') && render_command(template, program) == installed
}

/// The line `forge init` adds to `.gitignore`.
const IGNORE_LINE: &str = ".forge/";

/// Wire Claude Code to forge: hooks, statusline, .forge/ folders and .gitignore
///
/// Merges into .claude/settings.json (or ~/.claude/settings.json with --user) one
/// `forge hook <Event>` entry for each of SessionStart, Stop, SessionEnd, PreCompact,
/// PreToolUse, Notification, PermissionRequest and UserPromptSubmit, plus forge's
/// statusLine, all running this binary by its absolute path. Every other key and hook
/// is kept; hook entries whose script no longer exists are removed and listed. The
/// old file is kept in .forge/backups/ (git-ignored; with --user, next to it as
/// settings.json.forge-bak-<time>). It also creates .forge/logs and
/// .forge/handoffs and adds `.forge/` to .gitignore. Running it twice changes
/// nothing the second time.
#[derive(clap::Args, Debug)]
#[command(
    verbatim_doc_comment,
    after_help = concat!(
        "Examples:\n",
        "  forge init --dry-run        # show the diff, write nothing\n",
        "  forge init                  # wire this project\n",
        "  forge init --user --commands\n",
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
    #[arg(long)]
    pub user: bool,
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
pub fn run(args: &InitArgs, env: &Env) -> color_eyre::Result<ExitCode> {
    let paths = project_paths(args.project.as_ref(), env)?;
    let claude_base = if args.user {
        env.claude_dir()
            .ok_or_else(|| eyre!("HOME is not set: set HOME or CLAUDE_CONFIG_DIR and try again"))?
    } else {
        paths.root.join(".claude")
    };
    let settings_path = claude_base.join("settings.json");
    let exe = std::env::current_exe().wrap_err("finding this forge binary's path")?;
    let program = settings::shell_quote(&exe.to_string_lossy());

    let mut changes = Vec::new();
    let mut report = String::new();

    // settings.json
    let old_text = read_optional(&settings_path)?;
    let old_value: Value = match old_text.as_deref() {
        None => Value::Null,
        Some(t) if t.trim().is_empty() => Value::Null,
        Some(t) => serde_json::from_str(t).map_err(|e| {
            eyre!(
                "{}: not valid JSON ({e}); fix it or move it away, then run `forge init` again",
                settings_path.display()
            )
        })?,
    };
    let home = env.home.clone();
    let exists = |p: &Path| p.exists();
    let outcome: Outcome = if args.uninstall {
        settings::uninstall(&old_value)
    } else {
        settings::install(
            &old_value,
            &InstallOptions {
                program: &program,
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
                // missing scripts inside the project are removed there.
                remove_dead_only_inside: (!args.user).then_some(paths.root.as_path()),
            },
        )
    }
    .map_err(|e| eyre!("{}: {e}", settings_path.display()))?;
    let new_text = settings::to_text(&outcome.settings);
    let old_normal = (!old_value.is_null()).then(|| settings::to_text(&old_value));
    let settings_changes = if args.uninstall {
        old_normal.is_some() && old_normal.as_deref() != Some(new_text.as_str())
    } else {
        old_normal.as_deref() != Some(new_text.as_str())
    };
    if settings_changes {
        changes.push(FileChange {
            path: settings_path.clone(),
            old: old_text.clone(),
            new: Some(new_text),
            backup: old_text.is_some(),
        });
    }
    if settings_changes && !args.uninstall {
        let _ = writeln!(
            report,
            "  forge hooks: `{program} hook <Event>` for {}",
            settings::FORGE_EVENTS.join(", ")
        );
        if settings::statusline_command(&outcome.settings).is_some_and(settings::is_forge_command) {
            let _ = writeln!(report, "  statusLine: `{program} statusline`");
        }
    }
    describe_outcome(&mut report, &outcome, &settings_path, &paths, args);

    // .forge/ folders and .gitignore (project installs only).
    let mut make_dirs = false;
    if !args.user && !args.uninstall {
        make_dirs = !paths.logs().is_dir() || !paths.handoffs().is_dir();
        let ignore_path = paths.root.join(".gitignore");
        let ignore_old = read_optional(&ignore_path)?;
        if let Some(new) = with_ignore_line(ignore_old.as_deref()) {
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
            let text = render_command(template, &program);
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

    // Say which project (or which user settings file) this is about, absolutely.
    let target = if args.user {
        format!(
            "the user settings {} (every project)",
            settings_path.display()
        )
    } else {
        format!("the project {}", paths.root.display())
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
            .wrap_err_with(|| format!("creating {}", paths.forge_dir().display()))?;
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
                    .wrap_err_with(|| format!("writing {}", c.path.display()))?;
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
                    .wrap_err_with(|| format!("removing {}", c.path.display()))?;
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
) -> color_eyre::Result<PathBuf> {
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
                .wrap_err_with(|| format!("creating {}", paths.forge_dir().display()))?;
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
                return Err(e).wrap_err_with(|| format!("writing the backup {}", path.display()));
            }
        }
    }
    Err(eyre!(
        "too many backups named {}*: remove some, then run `forge init` again",
        base.display()
    ))
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
                "Warning: {} in {name} although the script is missing here (it is outside the project and may exist on a teammate's machine; remove it by hand if nobody uses it)",
                keep.to_lowercase()
            ),
            &o.kept_dead,
        );
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

fn read_optional(path: &Path) -> color_eyre::Result<Option<String>> {
    match crate::store::safe::read_to_string_whole(
        path,
        16 * 1024 * 1024,
        crate::store::safe::Follow::Yes,
    ) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).wrap_err_with(|| format!("reading {}", path.display())),
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
            let (fm, _) = crate::model::handoff::split_front_matter(&text);
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
            let (fm, body) = crate::model::handoff::split_front_matter(text);
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
