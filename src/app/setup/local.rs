//! `forge init --local`'s own files: the repository's excludes (never the shared
//! `.gitignore`), and after `--uninstall --local` the personal settings file forge
//! created, a `.forge/` that holds nothing and an emptied `.claude/`.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, anyhow};
use serde_json::Value;

use super::{FileChange, backup_texts, read_optional, shown};
use crate::model::setup::ignore::{LOCAL_SETTINGS, with_exclude_block, without_exclude_block};
use crate::model::setup::plan::Options;
use crate::model::setup::settings::{self, Emptied};
use crate::store::{self, Paths};

/// `--local`'s excludes: the personal settings file (and `.forge/` when it exists
/// and nothing ignores it) go into the repository's own `info/exclude`, never the
/// shared `.gitignore`; `--uninstall --local` takes forge's block out again.
/// Returns the change to make.
pub(super) fn local_excludes(
    args: &Options,
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

/// Whether forge created the personal settings file at `file`: it kept no backup of
/// it (`forge init` backs up a file it finds before it first writes it), or the
/// oldest backup held nothing but forge's entries.
pub(super) fn local_created_by_forge(file: &Path, paths: &Paths) -> bool {
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

/// After `--uninstall --local` has made its file changes: removes a `.forge/` that
/// held nothing and the `.claude/` folder the removed settings file leaves empty
/// (git's own `info/` folder stays: every repository has one), and says what it did
/// (and what it kept).
pub(super) fn tidy_after_local_uninstall(
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
pub(super) fn forge_dir_is_pristine(paths: &Paths) -> bool {
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
