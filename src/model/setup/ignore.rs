//! The ignore files `forge init` edits, as text: the lines it adds to the project's
//! `.gitignore` (everything in `.forge/` but the config), and the block `--local`
//! adds to the repository's own `info/exclude` and `--uninstall --local` takes out
//! byte for byte. Pure: the caller reads and writes the files.

/// The lines `forge init` adds to `.gitignore`: everything in `.forge/` but the
/// project's config, which a team may commit (`.forge/` itself would keep git from
/// looking inside, and `!.forge/config.toml` could not bring it back).
const IGNORE_LINES: &str = ".forge/*\n!.forge/config.toml\n";

/// The line earlier versions added, which `forge init` replaces with
/// [`IGNORE_LINES`].
const OLD_IGNORE_LINE: &str = ".forge/";

/// The personal settings file (`--local`), relative to the project root.
pub(crate) const LOCAL_SETTINGS: &str = ".claude/settings.local.json";

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
}
