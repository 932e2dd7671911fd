//! Claude Code's `settings.json` as forge edits it: which hook entries and which
//! `statusLine` are forge's, which hook commands point at a script that no longer
//! exists, and the pure install / uninstall transforms behind `forge init`.
//!
//! Everything here works on `serde_json::Value` (with key order preserved) so keys
//! forge does not know survive untouched. File-system questions (does this script
//! exist?) come in as a closure, so the transforms stay pure and testable.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The hook events `forge init` wires to `forge hook <Event>`.
pub const FORGE_EVENTS: [&str; 8] = [
    "SessionStart",
    "Stop",
    "SessionEnd",
    "PreCompact",
    "PreToolUse",
    "Notification",
    "PermissionRequest",
    "UserPromptSubmit",
];

/// Programs that run a script given as their next argument (`bash ~/x.sh`).
/// `env` is handled separately: it runs the program named after its assignments.
const INTERPRETERS: [&str; 12] = [
    "sh", "bash", "zsh", "dash", "fish", "python", "python3", "node", "ruby", "perl", "bun", "deno",
];

/// What `~`, `$HOME` and `$CLAUDE_PROJECT_DIR` stand for when checking scripts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expand<'a> {
    /// The home folder.
    pub home: Option<&'a Path>,
    /// The project root (`$CLAUDE_PROJECT_DIR`).
    pub project: Option<&'a Path>,
}

/// A settings file that forge will not edit, with what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// One hook entry (or the statusLine) that was removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    /// The hook event, or `statusLine`.
    pub event: String,
    /// The command that was removed.
    pub command: String,
}

/// The result of a transform.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The new settings.
    pub settings: Value,
    /// Entries removed because their script does not exist.
    pub removed_dead: Vec<Removal>,
    /// Entries whose script does not exist here but which were kept: in a shared
    /// (project) settings file, a script outside the project may exist on a
    /// teammate's machine. Listed as warnings.
    pub kept_dead: Vec<Removal>,
    /// forge's own entries removed (uninstall) or replaced duplicates (install).
    pub removed_forge: Vec<Removal>,
    /// Things the user should know (a foreign statusLine kept, …).
    pub notes: Vec<String>,
}

/// Splits a shell command into words: single quotes, double quotes and backslash
/// escapes are honoured; variables are left as written.
pub fn split_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                cur.push(n);
                            }
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Quotes a path for a shell command line when it needs it.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if safe {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The words a hook handler runs: its `command` split, then its `args` (exec form).
pub fn handler_words(handler: &Value) -> Option<Vec<String>> {
    let obj = handler.as_object()?;
    if obj
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| t != "command")
    {
        return None;
    }
    let command = obj.get("command")?.as_str()?;
    // Exec form (docs/client-reference.md §4.2): with `args`, there is no shell; `command` is the
    // program itself (spaces and all) and each arg is one word.
    if let Some(args) = obj.get("args").and_then(Value::as_array) {
        let mut words = vec![command.to_owned()];
        words.extend(args.iter().filter_map(Value::as_str).map(str::to_owned));
        return Some(words);
    }
    Some(split_words(command))
}

/// A handler's command line as a person reads it: `command`, followed by its exec-form
/// `args` (shell-quoted) when it has any.
pub fn handler_display(handler: &Value) -> String {
    let command = handler
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    match handler.get("args").and_then(Value::as_array) {
        Some(args) if !args.is_empty() => {
            let rest: Vec<String> = args
                .iter()
                .filter_map(Value::as_str)
                .map(shell_quote)
                .collect();
            format!("{command} {}", rest.join(" "))
        }
        _ => command,
    }
}

/// `Some("hook")` or `Some("statusline")` when the words run forge.
pub fn forge_role(words: &[String]) -> Option<&'static str> {
    let program = words.first()?;
    let name = Path::new(program).file_name()?.to_str()?;
    if name != "forge" && name != "forge.exe" {
        return None;
    }
    match words.get(1).map(String::as_str) {
        Some("hook") => Some("hook"),
        Some("statusline") => Some("statusline"),
        _ => None,
    }
}

/// Whether a command string runs forge (`forge hook …` / `forge statusline`).
pub fn is_forge_command(command: &str) -> bool {
    forge_role(&split_words(command)).is_some()
}

/// Expands `~`, `$HOME` and `$CLAUDE_PROJECT_DIR` at the start of a word into a path;
/// `None` for words that are not paths forge can check (bare names, other variables).
pub fn expand_path(word: &str, expand: Expand<'_>) -> Option<PathBuf> {
    let join = |base: Option<&Path>, rest: &str| base.map(|b| b.join(rest.trim_start_matches('/')));
    if word == "~" || word == "$HOME" || word == "${HOME}" {
        return expand.home.map(Path::to_path_buf);
    }
    for (prefix, base) in [
        ("~/", expand.home),
        ("$HOME/", expand.home),
        ("${HOME}/", expand.home),
        ("$CLAUDE_PROJECT_DIR/", expand.project),
        ("${CLAUDE_PROJECT_DIR}/", expand.project),
    ] {
        if let Some(rest) = word.strip_prefix(prefix) {
            return join(base, rest);
        }
    }
    if word.contains('$') {
        return None;
    }
    let p = Path::new(word);
    p.is_absolute().then(|| p.to_path_buf())
}

/// The script or program file a command runs, when it names one by path: the first
/// word, or the script after an interpreter (`bash ~/hooks/x.sh`).
pub fn script_path(words: &[String], expand: Expand<'_>) -> Option<PathBuf> {
    let first = words.first()?;
    let base = Path::new(first)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if base == "env" {
        // `env [-i] [NAME=value]… program args`: judge the program it runs.
        let at = words
            .iter()
            .skip(1)
            .position(|w| !w.starts_with('-') && !w.contains('='))?;
        return script_path(words.get(at + 1..)?, expand);
    }
    if INTERPRETERS.contains(&base) {
        let script = words.iter().skip(1).find(|w| !w.starts_with('-'))?;
        return expand_path(script, expand);
    }
    expand_path(first, expand)
}

/// The missing script a handler points at, if any.
pub fn dead_script(
    words: &[String],
    expand: Expand<'_>,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    script_path(words, expand).filter(|p| !exists(p))
}

/// One command hook found in a settings value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRef {
    /// The event it is registered for.
    pub event: String,
    /// Its command line as shown to people ([`handler_display`]).
    pub command: String,
    /// The words it runs.
    pub words: Vec<String>,
}

/// Every command hook in `settings.hooks`, in file order.
pub fn command_hooks(settings: &Value) -> Vec<HookRef> {
    let mut out = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            for h in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(words) = handler_words(h) {
                    out.push(HookRef {
                        event: event.clone(),
                        command: handler_display(h),
                        words,
                    });
                }
            }
        }
    }
    out
}

/// The `statusLine.command`, when set.
pub fn statusline_command(settings: &Value) -> Option<&str> {
    settings.get("statusLine")?.get("command")?.as_str()
}

fn matches_all(group: &Map<String, Value>) -> bool {
    match group.get("matcher") {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty() || s == "*",
        Some(_) => false,
    }
}

fn root_object(settings: &Value) -> Result<Map<String, Value>, ShapeError> {
    match settings {
        Value::Null => Ok(Map::new()),
        Value::Object(m) => Ok(m.clone()),
        _ => Err(ShapeError(
            "the settings file is not a JSON object; fix it by hand, then run `forge init` again"
                .into(),
        )),
    }
}

fn check_shape(root: &Map<String, Value>) -> Result<(), ShapeError> {
    match root.get("hooks") {
        None | Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(ShapeError(
                "`hooks` is not an object; fix it by hand, then run `forge init` again".into(),
            ));
        }
    }
    if let Some(Value::Object(hooks)) = root.get("hooks") {
        for (event, groups) in hooks {
            if !groups.is_array() {
                return Err(ShapeError(format!(
                    "`hooks.{event}` is not a list; fix it by hand, then run `forge init` again"
                )));
            }
        }
    }
    Ok(())
}

/// What to do with one handler while walking the hooks.
enum Verdict {
    Keep,
    Remove,
}

/// Walks every handler; `decide` gets (event, group matches all, handler) and may
/// edit the handler. Groups emptied by removals are dropped, and so are events
/// unless `emptied` keeps them; ones that were already empty are left alone.
fn walk_hooks(
    root: &mut Map<String, Value>,
    emptied: Emptied<'_>,
    mut decide: impl FnMut(&str, bool, &mut Value) -> Verdict,
) {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
        return;
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let before_groups = groups.len();
        groups.retain_mut(|group| {
            let Some(obj) = group.as_object_mut() else {
                return true;
            };
            let all = matches_all(obj);
            let Some(Value::Array(handlers)) = obj.get_mut("hooks") else {
                return true;
            };
            let before = handlers.len();
            handlers.retain_mut(|h| matches!(decide(event, all, h), Verdict::Keep));
            !(before > 0 && handlers.is_empty())
        });
        if before_groups > 0 && groups.is_empty() && !emptied.keeps(Some(event)) {
            emptied_events.push(event.clone());
        }
    }
    for e in emptied_events {
        hooks.shift_remove(&e);
    }
}

/// Options for [`install`].
pub struct InstallOptions<'a> {
    /// The forge program as it should appear in commands (absolute, shell-quoted).
    pub program: &'a str,
    /// Replace a statusLine that belongs to another tool.
    pub replace_statusline: bool,
    /// How to expand script paths.
    pub expand: Expand<'a>,
    /// Whether a path exists.
    pub exists: &'a dyn Fn(&Path) -> bool,
    /// `Some(project root)` for a shared, committed project settings file: only
    /// missing scripts inside the project are removed, the rest are kept and
    /// reported in [`Outcome::kept_dead`]. `None` (user settings): every hook with a
    /// missing script is removed.
    pub remove_dead_only_inside: Option<&'a Path>,
}

impl InstallOptions<'_> {
    /// Whether a hook whose script is at `missing` should be removed.
    fn removes(&self, missing: &Path) -> bool {
        self.remove_dead_only_inside
            .is_none_or(|root| missing.starts_with(root))
    }
}

/// The statusLine forge installs.
pub fn forge_statusline(program: &str) -> Value {
    json!({"type": "command", "command": format!("{program} statusline"), "padding": 0})
}

/// Wires forge into `settings`: one `forge hook <Event>` per event in
/// [`FORGE_EVENTS`], forge's statusLine, dead hook commands removed. forge entries
/// already present are updated in place (so a second run changes nothing).
pub fn install(settings: &Value, opts: &InstallOptions<'_>) -> Result<Outcome, ShapeError> {
    let mut root = root_object(settings)?;
    check_shape(&root)?;
    let mut removed_dead = Vec::new();
    let mut kept_dead = Vec::new();
    let mut removed_forge = Vec::new();
    let mut notes = Vec::new();
    let mut kept: Vec<String> = Vec::new();

    walk_hooks(&mut root, Emptied::Remove, |event, all, h| {
        let Some(words) = handler_words(h) else {
            return Verdict::Keep;
        };
        let command = handler_display(h);
        if forge_role(&words) == Some("hook") && FORGE_EVENTS.contains(&event) {
            if all && !kept.iter().any(|k| k == event) {
                kept.push(event.to_owned());
                if let Some(obj) = h.as_object_mut() {
                    let canonical = format!("{} hook {event}", opts.program);
                    if obj.get("command").and_then(Value::as_str) != Some(&canonical) {
                        obj.insert("command".into(), Value::String(canonical));
                    }
                    // shift_remove: `remove` would move the last key into its place.
                    obj.shift_remove("args");
                    if obj.get("type").is_none() {
                        obj.insert("type".into(), json!("command"));
                    }
                }
                return Verdict::Keep;
            }
            removed_forge.push(Removal {
                event: event.to_owned(),
                command,
            });
            return Verdict::Remove;
        }
        if let Some(missing) = dead_script(&words, opts.expand, opts.exists) {
            let r = Removal {
                event: event.to_owned(),
                command,
            };
            if opts.removes(&missing) {
                removed_dead.push(r);
                return Verdict::Remove;
            }
            kept_dead.push(r);
        }
        Verdict::Keep
    });

    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(hooks) = hooks {
        for event in FORGE_EVENTS {
            if kept.iter().any(|k| k == event) {
                continue;
            }
            let group = json!({"hooks": [{"type": "command", "command": format!("{} hook {event}", opts.program)}]});
            match hooks.get_mut(event) {
                Some(Value::Array(groups)) => groups.push(group),
                _ => {
                    hooks.insert(event.to_owned(), Value::Array(vec![group]));
                }
            }
        }
    }

    let wanted = forge_statusline(opts.program);
    match root.get_mut("statusLine") {
        None | Some(Value::Null) => {
            root.insert("statusLine".into(), wanted);
        }
        Some(current) => {
            let words = current
                .get("command")
                .and_then(Value::as_str)
                .map(split_words);
            let is_forge = words
                .as_deref()
                .is_some_and(|w| forge_role(w) == Some("statusline"));
            let dead = words
                .as_deref()
                .and_then(|w| dead_script(w, opts.expand, opts.exists));
            if is_forge {
                if let Value::Object(obj) = current {
                    obj.insert("type".into(), json!("command"));
                    obj.insert(
                        "command".into(),
                        json!(format!("{} statusline", opts.program)),
                    );
                    if !obj.contains_key("padding") {
                        obj.insert("padding".into(), json!(0));
                    }
                }
            } else if dead.as_deref().is_some_and(|d| !opts.removes(d)) && !opts.replace_statusline
            {
                kept_dead.push(Removal {
                    event: "statusLine".into(),
                    command: statusline_command_of(current),
                });
            } else if dead.is_some() || opts.replace_statusline {
                let command = statusline_command_of(current);
                if dead.is_some() {
                    removed_dead.push(Removal {
                        event: "statusLine".into(),
                        command,
                    });
                } else {
                    notes.push(format!("replaced the statusLine `{command}` with forge's"));
                }
                *current = wanted;
            } else {
                notes.push(format!(
                    "kept the statusLine `{}` (another tool's); run `forge init --replace-statusline` to show forge's instead",
                    statusline_command_of(current)
                ));
            }
        }
    }

    Ok(Outcome {
        settings: Value::Object(root),
        removed_dead,
        kept_dead,
        removed_forge,
        notes,
    })
}

fn statusline_command_of(v: &Value) -> String {
    v.get("command")
        .and_then(Value::as_str)
        .map_or_else(|| v.to_string(), str::to_owned)
}

/// What [`uninstall`] does with an event list, or the `hooks` object, that only
/// forge's entries filled.
#[derive(Debug, Clone, Copy)]
pub enum Emptied<'a> {
    /// Remove it, as if forge had never been there (the usual case: `forge init`
    /// created it).
    Remove,
    /// Keep the ones that are there, empty, in this earlier version of the file
    /// (forge's backup from before `forge init` filled them), so that an init and
    /// an uninstall give back the same file.
    KeepAsIn(&'a Value),
}

impl Emptied<'_> {
    /// Whether an emptied event list (`Some(event)`) or `hooks` object (`None`)
    /// stays.
    fn keeps(&self, event: Option<&str>) -> bool {
        let Self::KeepAsIn(before) = self else {
            return false;
        };
        let hooks = before.get("hooks");
        match event {
            Some(e) => hooks
                .and_then(|h| h.get(e))
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty),
            None => hooks.and_then(Value::as_object).is_some_and(Map::is_empty),
        }
    }
}

/// Removes forge's hook entries and statusLine, and nothing else.
pub fn uninstall(settings: &Value, emptied: Emptied<'_>) -> Result<Outcome, ShapeError> {
    let mut root = root_object(settings)?;
    check_shape(&root)?;
    let mut removed_forge = Vec::new();
    let had_hooks = root
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(|h| !h.is_empty());
    walk_hooks(&mut root, emptied, |event, _all, h| {
        match handler_words(h) {
            Some(words) if forge_role(&words).is_some() => {
                removed_forge.push(Removal {
                    event: event.to_owned(),
                    command: handler_display(h),
                });
                Verdict::Remove
            }
            _ => Verdict::Keep,
        }
    });
    if had_hooks
        && !emptied.keeps(None)
        && root
            .get("hooks")
            .and_then(Value::as_object)
            .is_some_and(Map::is_empty)
    {
        root.shift_remove("hooks");
    }
    if statusline_command(&Value::Object(root.clone())).is_some_and(is_forge_command)
        && let Some(v) = root.shift_remove("statusLine")
    {
        removed_forge.push(Removal {
            event: "statusLine".into(),
            command: statusline_command_of(&v),
        });
    }
    Ok(Outcome {
        settings: Value::Object(root),
        removed_dead: Vec::new(),
        kept_dead: Vec::new(),
        removed_forge,
        notes: Vec::new(),
    })
}

/// Pretty JSON with a trailing newline, the way forge writes settings files.
pub fn to_text(settings: &Value) -> String {
    let mut s = serde_json::to_string_pretty(settings).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts<'a>(exists: &'a dyn Fn(&Path) -> bool) -> InstallOptions<'a> {
        InstallOptions {
            program: "/opt/bin/forge",
            replace_statusline: false,
            expand: Expand {
                home: Some(Path::new("/home/u")),
                project: Some(Path::new("/p")),
            },
            exists,
            remove_dead_only_inside: None,
        }
    }

    #[test]
    fn words_and_quotes() {
        assert_eq!(
            split_words(r#"'/a b/forge' hook Stop"#),
            ["/a b/forge", "hook", "Stop"]
        );
        assert_eq!(
            split_words(r#""$CLAUDE_PROJECT_DIR"/.claude/x.sh --flag"#),
            ["$CLAUDE_PROJECT_DIR/.claude/x.sh", "--flag"]
        );
        assert_eq!(split_words(r"a\ b c"), ["a b", "c"]);
        assert_eq!(shell_quote("/usr/bin/forge"), "/usr/bin/forge");
        assert_eq!(shell_quote("/my apps/forge"), "'/my apps/forge'");
        assert_eq!(shell_quote("/it's/forge"), r"'/it'\''s/forge'");
        assert_eq!(
            split_words(&shell_quote("/it's here/forge")),
            ["/it's here/forge"]
        );
    }

    #[test]
    fn forge_is_recognised_by_program_name_and_verb() {
        assert!(is_forge_command("/x/y/forge hook Stop"));
        assert!(is_forge_command("'/a b/forge' statusline"));
        assert!(is_forge_command("forge hook"));
        assert!(!is_forge_command("/x/forge-old hook Stop"));
        assert!(!is_forge_command("/x/forge status"));
        assert!(!is_forge_command("ccstatusline"));
    }

    #[test]
    fn scripts_are_expanded_and_checked() {
        let e = Expand {
            home: Some(Path::new("/home/u")),
            project: Some(Path::new("/p")),
        };
        let w = |s: &str| split_words(s);
        assert_eq!(
            script_path(&w("~/.golem/hooks/stop.sh"), e),
            Some(PathBuf::from("/home/u/.golem/hooks/stop.sh"))
        );
        assert_eq!(
            script_path(&w("bash -e $HOME/h.sh arg"), e),
            Some(PathBuf::from("/home/u/h.sh"))
        );
        assert_eq!(
            script_path(&w("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/x.py"), e),
            Some(PathBuf::from("/p/.claude/hooks/x.py"))
        );
        assert_eq!(script_path(&w("npx something"), e), None);
        assert_eq!(script_path(&w("$OTHER/x.sh"), e), None);
        assert_eq!(script_path(&w("./rel.sh"), e), None);
        let user_level = Expand {
            home: Some(Path::new("/home/u")),
            project: None,
        };
        assert_eq!(
            script_path(&w("$CLAUDE_PROJECT_DIR/.claude/x.sh"), user_level),
            None,
            "without a project, project-relative scripts are not judged"
        );
        let none = |_: &Path| false;
        assert!(dead_script(&w("/gone.sh"), e, &none).is_some());
    }

    fn sample() -> Value {
        serde_json::from_str(
            r#"{
  "model": "opus",
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "~/.golem/hooks/stop.sh"}]},
      {"matcher": "", "hooks": [{"type": "command", "command": "/usr/bin/notify-send done"}]}
    ],
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "cargo fmt"}]}
    ]
  },
  "statusLine": {"type": "command", "command": "ccstatusline"},
  "permissions": {"allow": ["Bash(ls:*)"]}
}"#,
        )
        .unwrap()
    }

    #[test]
    fn install_keeps_foreign_removes_dead_and_is_idempotent() {
        let exists = |p: &Path| p == Path::new("/usr/bin/notify-send");
        let first = install(&sample(), &opts(&exists)).unwrap();
        assert_eq!(
            first.removed_dead,
            vec![Removal {
                event: "Stop".into(),
                command: "~/.golem/hooks/stop.sh".into()
            }]
        );
        let s = &first.settings;
        let keys: Vec<_> = s.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["model", "hooks", "statusLine", "permissions"]);
        let hooks = command_hooks(s);
        assert!(hooks.iter().any(|h| h.command == "cargo fmt"));
        assert!(
            hooks
                .iter()
                .any(|h| h.command == "/usr/bin/notify-send done")
        );
        for e in FORGE_EVENTS {
            let n = hooks
                .iter()
                .filter(|h| h.event == e && h.command == format!("/opt/bin/forge hook {e}"))
                .count();
            assert_eq!(n, 1, "{e}");
        }
        // Foreign, living statusLine kept with a note.
        assert_eq!(statusline_command(s), Some("ccstatusline"));
        assert_eq!(first.notes.len(), 1);
        let second = install(s, &opts(&exists)).unwrap();
        assert_eq!(to_text(&second.settings), to_text(s));
        assert!(second.removed_dead.is_empty() && second.removed_forge.is_empty());
    }

    #[test]
    fn install_moves_forge_to_new_path_in_place_and_drops_duplicates() {
        let old: Value = serde_json::from_str(
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/forge hook Stop","timeout":5}]},
            {"hooks":[{"type":"command","command":"/old/forge hook Stop"}]}]},
            "statusLine":{"type":"command","command":"/old/forge statusline","refreshInterval":5}}"#,
        )
        .unwrap();
        let exists = |_: &Path| true;
        let out = install(&old, &opts(&exists)).unwrap();
        let stop = &out.settings["hooks"]["Stop"];
        assert_eq!(stop.as_array().unwrap().len(), 1);
        assert_eq!(stop[0]["hooks"][0]["command"], "/opt/bin/forge hook Stop");
        assert_eq!(stop[0]["hooks"][0]["timeout"], 5);
        assert_eq!(out.removed_forge.len(), 1);
        assert_eq!(
            out.settings["statusLine"],
            json!({"type":"command","command":"/opt/bin/forge statusline","refreshInterval":5,"padding":0})
        );
    }

    #[test]
    fn dead_or_replaced_statusline() {
        let s = json!({"statusLine": {"type": "command", "command": "~/gone/status.sh"}});
        let exists = |_: &Path| false;
        let out = install(&s, &opts(&exists)).unwrap();
        assert_eq!(
            out.settings["statusLine"],
            forge_statusline("/opt/bin/forge")
        );
        assert_eq!(out.removed_dead[0].event, "statusLine");
        let mut o = opts(&exists);
        o.replace_statusline = true;
        let out = install(&json!({"statusLine": {"command": "ccstatusline"}}), &o).unwrap();
        assert_eq!(
            out.settings["statusLine"],
            forge_statusline("/opt/bin/forge")
        );
    }

    #[test]
    fn uninstall_removes_only_forge() {
        let exists = |p: &Path| p == Path::new("/usr/bin/notify-send");
        let installed = install(&sample(), &opts(&exists)).unwrap().settings;
        let out = uninstall(&installed, Emptied::Remove).unwrap();
        assert_eq!(out.removed_forge.len(), 8);
        let hooks = command_hooks(&out.settings);
        assert!(hooks.iter().all(|h| !is_forge_command(&h.command)));
        assert_eq!(hooks.len(), 2);
        assert_eq!(statusline_command(&out.settings), Some("ccstatusline"));
        // A file forge created alone goes back to empty.
        let fresh = install(&Value::Null, &opts(&exists)).unwrap().settings;
        assert_eq!(
            uninstall(&fresh, Emptied::Remove).unwrap().settings,
            json!({})
        );
        // Lists only forge filled are kept empty when an earlier version had them
        // empty; the others go.
        for s in [
            json!({"hooks": {"Stop": []}, "model": "opus"}),
            json!({"hooks": {}, "model": "opus"}),
            json!({"hooks": {"PostToolUse": [{"hooks": [{"type": "command", "command": "x"}]}], "Stop": []}}),
        ] {
            let installed = install(&s, &opts(&exists)).unwrap().settings;
            assert_eq!(
                uninstall(&installed, Emptied::KeepAsIn(&s))
                    .unwrap()
                    .settings,
                s,
                "kept"
            );
        }
        let s = json!({"hooks": {"Stop": []}, "model": "opus"});
        let installed = install(&s, &opts(&exists)).unwrap().settings;
        assert_eq!(
            uninstall(&installed, Emptied::Remove).unwrap().settings,
            json!({"model": "opus"})
        );
    }

    #[test]
    fn exec_form_forge_entry_is_rewritten_without_moving_keys() {
        let s = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "/old/forge", "args": ["hook", "Stop"], "timeout": 5}
        ]}]}});
        let exists = |_: &Path| true;
        let out = install(&s, &opts(&exists)).unwrap().settings;
        let h = &out["hooks"]["Stop"][0]["hooks"][0];
        let keys: Vec<_> = h.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["type", "command", "timeout"]);
        assert_eq!(h["command"], "/opt/bin/forge hook Stop");
    }

    #[test]
    fn exec_form_program_is_not_split_and_its_script_is_checked() {
        let e = Expand {
            home: Some(Path::new("/home/u")),
            project: Some(Path::new("/p")),
        };
        let h = json!({"type": "command", "command": "/opt/my tools/hook", "args": ["--x"]});
        let words = handler_words(&h).unwrap();
        assert_eq!(words, ["/opt/my tools/hook", "--x"]);
        assert_eq!(
            script_path(&words, e),
            Some(PathBuf::from("/opt/my tools/hook"))
        );
        let h = json!({"type": "command", "command": "node", "args": ["${CLAUDE_PROJECT_DIR}/.claude/h.js"]});
        assert_eq!(
            script_path(&handler_words(&h).unwrap(), e),
            Some(PathBuf::from("/p/.claude/h.js"))
        );
        assert_eq!(
            script_path(&split_words("/usr/bin/env FOO=1 python3 ~/h.py"), e),
            Some(PathBuf::from("/home/u/h.py"))
        );
        assert_eq!(script_path(&split_words("env -i npx x"), e), None);
        // forge itself in exec form is still recognised.
        let h = json!({"type": "command", "command": "/x/forge", "args": ["hook", "Stop"]});
        assert_eq!(forge_role(&handler_words(&h).unwrap()), Some("hook"));
    }

    #[test]
    fn shared_project_settings_only_lose_dead_scripts_inside_the_project() {
        let s = json!({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "~/.golem/hooks/stop.sh"},
            {"type": "command", "command": "$HOME/bin/notify.sh"},
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/gone.sh"},
            {"type": "command", "command": "bash", "args": ["/p/scripts/gone.sh"]},
            {"type": "command", "command": "/opt/tool/hook"}
        ]}]}, "statusLine": {"type": "command", "command": "~/gone/status.sh"}});
        let exists = |_: &Path| false;
        let mut o = opts(&exists);
        o.remove_dead_only_inside = Some(Path::new("/p"));
        let out = install(&s, &o).unwrap();
        let removed: Vec<_> = out
            .removed_dead
            .iter()
            .map(|r| r.command.as_str())
            .collect();
        assert_eq!(
            removed,
            [
                "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/gone.sh",
                "bash /p/scripts/gone.sh"
            ]
        );
        let kept: Vec<_> = out.kept_dead.iter().map(|r| r.command.as_str()).collect();
        assert_eq!(
            kept,
            [
                "~/.golem/hooks/stop.sh",
                "$HOME/bin/notify.sh",
                "/opt/tool/hook",
                "~/gone/status.sh"
            ]
        );
        assert_eq!(statusline_command(&out.settings), Some("~/gone/status.sh"));
        let left = command_hooks(&out.settings);
        assert!(left.iter().any(|h| h.command == "~/.golem/hooks/stop.sh"));
        assert!(!left.iter().any(|h| h.command == "bash"));
        assert_eq!(
            handler_display(&json!({"command": "node", "args": ["a b.js", "-x"]})),
            "node 'a b.js' -x"
        );
        // User settings: all of them go.
        let out = install(&s, &opts(&exists)).unwrap();
        assert_eq!(out.removed_dead.len(), 6);
        assert!(out.kept_dead.is_empty());
    }

    #[test]
    fn refuses_odd_shapes() {
        let exists = |_: &Path| true;
        assert!(install(&json!([1]), &opts(&exists)).is_err());
        let e = install(&json!({"hooks": {"Stop": {}}}), &opts(&exists)).unwrap_err();
        assert!(e.0.contains("hooks.Stop"), "{e}");
    }
}
