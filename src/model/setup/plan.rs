//! What `forge init` plans and says, pure: its options (the command line's, without
//! clap), the file changes it plans ([`Plan`], each a [`FileChange`]), the dry run's
//! diffs, and the words for what the settings transform did. `app::setup` reads the
//! files, builds the plan and carries it out.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::diff;
use super::settings::{self, Outcome, Removal};

/// What `forge init` was asked to do (its command line, see `cli::init::InitArgs`).
#[derive(Debug, Clone, Default)]
#[allow(clippy::struct_excessive_bools)]
pub(crate) struct Options {
    /// Project folder (`--project`).
    pub(crate) project: Option<PathBuf>,
    /// The user settings instead of the project's (`--user`).
    pub(crate) user: bool,
    /// The project's `.claude/settings.local.json` (`--local`).
    pub(crate) local: bool,
    /// Print what would change, write nothing (`--dry-run`).
    pub(crate) dry_run: bool,
    /// Remove forge's entries (`--uninstall`).
    pub(crate) uninstall: bool,
    /// Also the slash commands (`--commands`).
    pub(crate) commands: bool,
    /// Replace another tool's statusLine (`--replace-statusline`).
    pub(crate) replace_statusline: bool,
    /// Wrap another tool's statusLine (`--wrap-statusline`).
    pub(crate) wrap_statusline: bool,
    /// Only what the forge plugin cannot carry (`--plugin`).
    pub(crate) plugin: bool,
    /// Also remove dead hooks outside the project from the shared file (`--prune-dead`).
    pub(crate) prune_dead: bool,
}

/// Why `forge init` (a project install) does not run in the home folder, and what
/// `--user` is for: the home folder's `.claude/settings.json` *is* your user
/// settings, which Claude Code reads for every project, and a `.forge/` and
/// `.gitignore` there would make the whole home folder one project.
pub(crate) fn home_refusal(args: &Options, root: &Path) -> String {
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

/// One planned file change.
pub(crate) struct FileChange {
    pub(crate) path: PathBuf,
    pub(crate) old: Option<String>,
    /// `None` removes the file.
    pub(crate) new: Option<String>,
    pub(crate) backup: bool,
}

/// Everything `forge init` will do, planned before anything is written.
pub(crate) struct Plan {
    pub(crate) changes: Vec<FileChange>,
    /// What to say beside the file changes (after the settings file's line).
    pub(crate) report: String,
    /// `.forge/logs` and `.forge/handoffs` are to be created.
    pub(crate) make_dirs: bool,
    /// `--uninstall --local` also takes away a `.forge/` that holds nothing but the
    /// empty folders `forge init` made (session state there is kept).
    pub(crate) drop_forge_dir: bool,
}

/// `--dry-run`: the plan as unified diffs, then the report; nothing is written.
pub(crate) fn dry_run_text(plan: &Plan, root: &Path, about: &str, args: &Options) -> String {
    let mut out = format!(
        "Dry run for {about}: nothing was written. forge init{} would make these changes:\n",
        if args.uninstall { " --uninstall" } else { "" }
    );
    for c in &plan.changes {
        let name = shown(&c.path, root);
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

/// What the settings transform did, in words: what was removed, and what was only
/// warned about.
pub(crate) fn describe_outcome(
    out: &mut String,
    o: &Outcome,
    path: &Path,
    root: &Path,
    args: &Options,
) {
    let name = shown(path, root);
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
pub(crate) fn unguarded_entries(settings: &Value) -> usize {
    let hooks = settings::command_hooks(settings)
        .iter()
        .filter(|h| is_unguarded(&h.words))
        .count();
    let status = settings::statusline_command(settings)
        .is_some_and(|c| is_unguarded(&settings::split_words(c)));
    hooks + usize::from(status)
}

/// Whether the words run forge without the guard.
pub(crate) fn is_unguarded(words: &[String]) -> bool {
    settings::forge_role(words).is_some() && !settings::is_guarded(words)
}

/// Whether `text` (a settings file's new text) is an empty JSON object.
pub(crate) fn is_empty_object(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_object().map(serde_json::Map::is_empty))
        .unwrap_or(false)
}

/// What a dry run of `--uninstall --local` says of a `.forge/` it would remove.
pub(crate) const FORGE_DIR_GONE_DRY: &str =
    "Would remove .forge/ (forge init made it, and it holds nothing else)\n";

/// A path relative to the project root when inside it, else as is.
pub(crate) fn shown(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}
