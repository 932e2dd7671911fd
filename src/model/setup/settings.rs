//! Claude Code's `settings.json` as forge edits it: which hook entries and which
//! `statusLine` are forge's, which hook commands point at a script that no longer
//! exists, and the pure install / uninstall transforms behind `forge init`.
//!
//! Everything here works on `serde_json::Value` (with key order preserved) so keys
//! forge does not know survive untouched. File-system questions (does this script
//! exist?) come in as a closure, so the transforms stay pure and testable.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::install;

/// The hook events `forge init` wires to `forge hook <Event>`.
pub const FORGE_EVENTS: [&str; 9] = [
    "SessionStart",
    "Stop",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
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
pub(crate) struct Expand<'a> {
    /// The home folder.
    pub(crate) home: Option<&'a Path>,
    /// The project root (`$CLAUDE_PROJECT_DIR`).
    pub(crate) project: Option<&'a Path>,
}

/// A settings file that forge will not edit, with what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ShapeError(pub String);

/// One hook entry (or the statusLine) that was removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Removal {
    /// The hook event, or `statusLine`.
    pub(crate) event: String,
    /// The command that was removed.
    pub(crate) command: String,
}

/// The result of a transform.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Outcome {
    /// The new settings.
    pub(crate) settings: Value,
    /// Entries removed because their script does not exist.
    pub(crate) removed_dead: Vec<Removal>,
    /// Entries whose script does not exist here but which were kept: in a shared
    /// (project) settings file, a script outside the project may exist on a
    /// teammate's machine. Listed as warnings.
    pub(crate) kept_dead: Vec<Removal>,
    /// forge's own entries removed (uninstall) or replaced duplicates (install).
    pub(crate) removed_forge: Vec<Removal>,
    /// Things the user should know (a foreign statusLine kept, …).
    pub(crate) notes: Vec<String>,
}

/// Splits a shell command into words: single quotes, double quotes and backslash
/// escapes are honoured; variables are left as written.
pub(crate) fn split_words(command: &str) -> Vec<String> {
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

/// Quotes a path for a shell command line when it needs it (as
/// [`shell_quote_always`] does).
pub(crate) fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if safe {
        s.to_owned()
    } else {
        shell_quote_always(s)
    }
}

/// `s` as one `sh` word, always in single quotes (a `'` inside becomes `'\''`).
pub(crate) fn shell_quote_always(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The words a hook handler runs: its `command` split, then its `args` (exec form).
pub(crate) fn handler_words(handler: &Value) -> Option<Vec<String>> {
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
pub(crate) fn handler_display(handler: &Value) -> String {
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

/// `Some("hook")` or `Some("statusline")` when the words run forge: plainly
/// (`forge hook Stop`, any path to forge) or behind the guard of [`guarded`].
pub(crate) fn forge_role(words: &[String]) -> Option<&'static str> {
    plain_role(forge_words(words)?)
}

/// The role of words that run forge plainly: `<…/forge> hook|statusline …`.
fn plain_role(words: &[String]) -> Option<&'static str> {
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

/// The words that run forge (`forge hook Stop`, `/opt/forge statusline --wrap X`):
/// all of them for a plain command, the part after `exec` for a guarded one
/// ([`guarded`]); `None` when the words do not run forge.
pub(crate) fn forge_words(words: &[String]) -> Option<&[String]> {
    let inner = unguard(words).unwrap_or(words);
    plain_role(inner).map(|_| inner)
}

/// The forge program the words run (as written: `forge`, `/opt/bin/forge`; the
/// bare name for [`guarded`]'s search of `$PATH`).
pub(crate) fn forge_program(words: &[String]) -> Option<&str> {
    let first = forge_words(words)?.first()?;
    Some(first.strip_prefix(SEARCHED).unwrap_or(first))
}

/// Whether a command string runs forge (`forge hook …` / `forge statusline`), plainly
/// or guarded.
pub fn is_forge_command(command: &str) -> bool {
    forge_role(&split_words(command)).is_some()
}

/// A command as a list of what was removed shows it: a guarded forge command as the
/// forge part and `(guarded)` (its fallback can be a long line of JSON), any other
/// as it is.
pub(crate) fn short_display(command: &str) -> String {
    let words = split_words(command);
    match unguard(&words) {
        Some(inner) if plain_role(inner).is_some() => {
            let shown: Vec<String> = inner
                .iter()
                .enumerate()
                .map(|(i, w)| match w.strip_prefix(SEARCHED) {
                    Some(name) if i == 0 => shell_quote(name),
                    _ => shell_quote(w),
                })
                .collect();
            format!("{} (guarded)", shown.join(" "))
        }
        _ => command.to_owned(),
    }
}

/// Whether the words are the guarded form earlier versions wrote for a bare program
/// name (`command -v forge … && exec forge …`), which finds a `./forge` first when
/// `$PATH` has a relative entry; [`guarded`] writes a search of the absolute folders
/// instead.
pub(crate) fn is_old_bare_guard(words: &[String]) -> bool {
    unguard_command_v(words).is_some_and(|inner| {
        plain_role(inner).is_some() && inner.first().is_some_and(|p| !p.contains('/'))
    })
}

/// Whether the words are forge's guarded form ([`guarded`]).
pub(crate) fn is_guarded(words: &[String]) -> bool {
    unguard(words).is_some_and(|inner| plain_role(inner).is_some())
}

/// The guard around every command forge writes into a settings file. For a bare
/// program name `P` (`forge`), each folder of `$PATH` in turn, the absolute ones
/// only:
///
/// ```text
/// p=$PATH:; while [ -n "$p" ]; do d=${p%%:*}; p=${p#*:}; case $d in /*) [ -f "$d/P" ] && [ -x "$d/P" ] && exec "$d/P" RUN ;; esac; done; FALLBACK
/// ```
///
/// A relative entry (a leading `:`, `.`) would name a file of whatever folder the
/// hook runs in — the project's, as Claude Code runs hooks there — so a
/// repository's own `./forge` would run on every event (`command -v forge`, which
/// the form was before, finds it). Only shell built-ins run before `exec`, in
/// `sh`, `bash` and `zsh` alike, so it costs no process more than the bare `P RUN`.
/// For a program given by its path, `command -v P >/dev/null 2>&1 && exec P RUN ||
/// FALLBACK`. Where forge is missing, the command runs `FALLBACK` and exits 0, so a
/// teammate who has not installed forge gets no failed hook on every event and tool
/// call. This is the one place the form is written: the plugin's
/// `hooks/hooks.json` and `forge init` both build it here, and [`unguard`] reads it
/// back (the older `command -v` form with a bare name too, as earlier versions
/// wrote it, so `forge init` rewrites it and `--uninstall` takes it).
pub(crate) fn guarded(program: &str, run: &str, fallback: &str) -> String {
    if program.contains('/') {
        format!("command -v {program} >/dev/null 2>&1 && exec {program} {run} || {fallback}")
    } else {
        format!(
            "p=$PATH:; while [ -n \"$p\" ]; do d=${{p%%:*}}; p=${{p#*:}}; case $d in /*) \
             [ -f \"$d/{program}\" ] && [ -x \"$d/{program}\" ] && exec \"$d/{program}\" {run} ;; \
             esac; done; {fallback}"
        )
    }
}

/// The folder variable of [`guarded`]'s search, as the program's path starts in it.
const SEARCHED: &str = "$d/";

/// `forge hook <event>` behind the guard, doing nothing where forge is missing.
pub fn guarded_hook(program: &str, event: &str) -> String {
    guarded(program, &format!("hook {event}"), "true")
}

/// `forge hook SessionStart` behind the guard; where forge is missing it prints
/// one line of hook JSON that tells the person `for_person` (as a
/// `systemMessage`, shown once under the prompt) and the model `for_model` (as
/// `additionalContext`), at most once a day per machine and never once the person
/// set `FORGE_HINT=off` ([`install::once_a_day`]), and exits 0. The texts must hold
/// no single quote (they are echoed between single quotes).
pub(crate) fn guarded_session_start(program: &str, for_person: &str, for_model: &str) -> String {
    let said = json!({
        "systemMessage": for_person,
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": for_model,
        },
    });
    guarded(
        program,
        "hook SessionStart",
        &install::once_a_day(&format!("echo '{said}'")),
    )
}

/// What the person is told at SessionStart where a project's settings run forge's
/// hooks and forge is not installed (see [`guarded_session_start`]).
pub(crate) fn missing_for_person() -> String {
    format!(
        "forge: the Claude Code settings of this project use forge (session handoffs, context \
         levels, agent Signals), but the forge program is not on PATH here, so it records nothing \
         and nothing else changes. To use it: {}, then restart Claude Code. {}",
        install::commands(),
        install::hint_off_how()
    )
}

/// What the model is told in the same case.
pub(crate) fn missing_for_model() -> String {
    format!(
        "The settings of this project run forge (session handoffs, context levels, agent \
         Signals), which is not installed on this machine, so its hooks do nothing in this \
         session. If the user asks: it installs with {}.",
        install::commands()
    )
}

/// The command of the SessionStart entry `forge init` writes.
pub(crate) fn session_start_entry(program: &str) -> String {
    guarded_session_start(program, &missing_for_person(), &missing_for_model())
}

/// The hook entry `forge init` writes for `event`.
pub fn hook_entry(program: &str, event: &str) -> String {
    if event == "SessionStart" {
        session_start_entry(program)
    } else {
        guarded_hook(program, event)
    }
}

/// `forge statusline` behind the guard: where forge is missing it prints nothing
/// (an empty status line, not an error).
pub fn guarded_statusline(program: &str) -> String {
    guarded(program, "statusline", "true")
}

/// `forge statusline --wrap '<command>'` behind the guard (composition mode: forge
/// runs the person's own status line and adds its segments). Where forge is
/// missing the shell runs `command` itself (`eval`), so the status line is the one
/// the file had before forge wrapped it.
pub fn guarded_wrapped_statusline(program: &str, command: &str) -> String {
    let quoted = shell_quote(command);
    guarded(
        program,
        &format!("statusline --wrap {quoted}"),
        &format!("eval {quoted}"),
    )
}

/// The command a forge status line wraps (`forge statusline --wrap '<command>'`,
/// plain or guarded), when it wraps one.
pub(crate) fn wrapped_statusline(command: &str) -> Option<String> {
    let words = split_words(command);
    let inner = forge_words(&words)?;
    if plain_role(inner) != Some("statusline") {
        return None;
    }
    let mut rest = inner.iter().skip(2);
    while let Some(w) = rest.next() {
        if w == "--wrap" {
            return rest.next().cloned();
        }
        if let Some(c) = w.strip_prefix("--wrap=") {
            return Some(c.to_owned());
        }
    }
    None
}

/// The part of [`guarded`]'s form that runs the program (`P RUN`), when `words` are
/// that form with one of the fallbacks forge writes (`true`, or `echo` or `eval` of
/// one word); `None` for anything else, so a wrapper of the person's own is never
/// taken for forge's.
pub(crate) fn unguard(words: &[String]) -> Option<&[String]> {
    unguard_search(words).or_else(|| unguard_command_v(words))
}

/// The fallbacks forge writes: `true`, `echo` / `eval` of one word, or the echo of
/// one word once a day ([`install::once_a_day`]).
fn known_fallback(fallback: &[String]) -> bool {
    match fallback {
        [t] => t == "true",
        [verb, _] => verb == "echo" || verb == "eval",
        _ => unwrap_once_a_day(fallback).is_some(),
    }
}

/// The word a fallback of [`install::once_a_day`] echoes (`echo 'WORD'`, the only `say`
/// forge writes), when `words` (split as [`split_words`] does) are that
/// form; `None` for anything else, so a wrapper of the person's own is never taken
/// for forge's.
fn unwrap_once_a_day(words: &[String]) -> Option<&str> {
    let template = split_words(&install::once_a_day("SAY"));
    let at = template.iter().position(|w| w == "SAY;")?;
    let (head, tail) = (&template[..at], &template[at + 1..]);
    if words.len() < head.len() + tail.len() + 1 || words.get(..head.len())? != head {
        return None;
    }
    let end = words.len() - tail.len();
    if words.get(end..)? != tail {
        return None;
    }
    // The echoed word carries the `;` before `fi`.
    match words.get(head.len()..end)? {
        [echo, said] if echo == "echo" => said.strip_suffix(';'),
        _ => None,
    }
}

/// [`unguard`] of the search of absolute `$PATH` folders [`guarded`] writes for a
/// bare name: the words from `"$d/P"` to `;;`.
fn unguard_search(words: &[String]) -> Option<&[String]> {
    let exec = words.iter().position(|w| w == "exec")?;
    let name = words.get(exec + 1)?.strip_prefix(SEARCHED)?;
    if name.is_empty() || name.contains(['/', ' ', '"', '\'', '$']) {
        return None;
    }
    let template = split_words(&guarded(name, "RUN", "FALLBACK"));
    let head = template.get(..exec + 2)?;
    if words.get(..exec + 2)? != head {
        return None;
    }
    let end = (exec + 2..words.len()).find(|i| words[*i] == ";;")?;
    if words.get(end..end + 3)? != template.get(exec + 3..exec + 6)? {
        return None;
    }
    known_fallback(words.get(end + 3..)?).then(|| words.get(exec + 1..end))?
}

/// [`unguard`] of `command -v P >/dev/null 2>&1 && exec P RUN || FALLBACK`.
fn unguard_command_v(words: &[String]) -> Option<&[String]> {
    let w = |i: usize| words.get(i).map(String::as_str);
    let program = w(2)?;
    let head = [
        Some("command"),
        Some("-v"),
        Some(program),
        Some(">/dev/null"),
        Some("2>&1"),
        Some("&&"),
        Some("exec"),
        Some(program),
    ];
    if (0..head.len()).any(|i| w(i) != head[i]) {
        return None;
    }
    let or = (8..words.len()).find(|i| w(*i) == Some("||"))?;
    known_fallback(words.get(or + 1..)?).then(|| words.get(7..or))?
}

/// Expands `~`, `$HOME` and `$CLAUDE_PROJECT_DIR` at the start of a word into a path;
/// `None` for words that are not paths forge can check (bare names, other variables).
pub(crate) fn expand_path(word: &str, expand: Expand<'_>) -> Option<PathBuf> {
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
pub(crate) fn script_path(words: &[String], expand: Expand<'_>) -> Option<PathBuf> {
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
pub(crate) fn dead_script(
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
    pub(crate) words: Vec<String>,
}

/// Every hook handler in `hooks` (a settings file's, or a plugin's `hooks.json`),
/// with its event, in file order: `{"hooks": {EVENT: [{"hooks": [HANDLER, …]}, …]}}`.
/// A part of another shape holds no handlers.
pub(crate) fn handlers(settings: &Value) -> impl Iterator<Item = (&str, &Value)> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .flat_map(|(event, groups)| {
            groups
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|group| group.get("hooks")?.as_array())
                .flatten()
                .map(move |h| (event.as_str(), h))
        })
}

/// Every command hook in `settings.hooks`, in file order.
pub fn command_hooks(settings: &Value) -> Vec<HookRef> {
    handlers(settings)
        .filter_map(|(event, h)| {
            Some(HookRef {
                event: event.to_owned(),
                command: handler_display(h),
                words: handler_words(h)?,
            })
        })
        .collect()
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
pub(crate) struct InstallOptions<'a> {
    /// The forge program as it should appear in commands (absolute, shell-quoted).
    pub(crate) program: &'a str,
    /// Replace a statusLine that belongs to another tool.
    pub(crate) replace_statusline: bool,
    /// Keep a statusLine that belongs to another tool, with forge's segments added
    /// (`forge statusline --wrap '<its command>'`).
    pub(crate) wrap_statusline: bool,
    /// How to expand script paths.
    pub(crate) expand: Expand<'a>,
    /// Whether a path exists.
    pub(crate) exists: &'a dyn Fn(&Path) -> bool,
    /// `Some(project root)` for a shared, committed project settings file: only
    /// missing scripts inside the project are removed, the rest are kept and
    /// reported in [`Outcome::kept_dead`]. `None` (user settings): every hook with a
    /// missing script is removed.
    pub(crate) remove_dead_only_inside: Option<&'a Path>,
}

impl InstallOptions<'_> {
    /// Whether a hook whose script is at `missing` should be removed.
    fn removes(&self, missing: &Path) -> bool {
        self.remove_dead_only_inside
            .is_none_or(|root| missing.starts_with(root))
    }
}

/// `statusLine.refreshInterval` (seconds) in the status line forge writes. Claude
/// Code re-runs the status line only when something it tracks changes (tokens, the
/// model, the mode, the terminal size, a new reply: docs/client-reference.md §5.3),
/// so what forge shows from its own files (a Signal resolved in another terminal, a
/// handoff written, the learn flag) would stay stale while a session idles. A tick costs
/// about a millisecond, so one every 5 s costs nothing measurable, and a change
/// shows within 5 s. A person's own value is kept.
pub(crate) const REFRESH_INTERVAL_SECS: u64 = 5;

/// The statusLine forge installs.
pub fn forge_statusline(program: &str) -> Value {
    json!({
        "type": "command",
        "command": guarded_statusline(program),
        "padding": 0,
        "refreshInterval": REFRESH_INTERVAL_SECS,
    })
}

/// Wires forge into `settings`: one `forge hook <Event>` per event in
/// [`FORGE_EVENTS`], forge's statusLine, dead hook commands removed. forge entries
/// already present are updated in place (so a second run changes nothing).
pub(crate) fn install(settings: &Value, opts: &InstallOptions<'_>) -> Result<Outcome, ShapeError> {
    let mut root = root_object(settings)?;
    check_shape(&root)?;
    let mut out = Outcome::default();
    let kept = keep_forge_hooks(&mut root, opts, &mut out);
    add_forge_hooks(&mut root, opts, &kept);
    match root.get_mut("statusLine") {
        None | Some(Value::Null) => {
            root.insert("statusLine".into(), forge_statusline(opts.program));
        }
        Some(current) => install_over_statusline(current, opts, &mut out),
    }
    out.settings = Value::Object(root);
    Ok(out)
}

/// The walk over the existing hooks: the first forge entry of each forge event is
/// kept (upgraded in place), every other forge entry is removed, and a hook whose
/// script is missing is removed where `opts` says (else listed as kept). Returns
/// the events that kept a forge entry.
fn keep_forge_hooks(
    root: &mut Map<String, Value>,
    opts: &InstallOptions<'_>,
    out: &mut Outcome,
) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    walk_hooks(root, Emptied::Remove, |event, all, h| {
        let Some(words) = handler_words(h) else {
            return Verdict::Keep;
        };
        let command = handler_display(h);
        if forge_role(&words) == Some("hook") && FORGE_EVENTS.contains(&event) {
            if all && !kept.iter().any(|k| k == event) {
                kept.push(event.to_owned());
                upgrade_in_place(h, opts.program, event);
                return Verdict::Keep;
            }
            out.removed_forge.push(Removal {
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
                out.removed_dead.push(r);
                return Verdict::Remove;
            }
            out.kept_dead.push(r);
        }
        Verdict::Keep
    });
    kept
}

/// A forge hook entry made the one `forge init` writes now: an older, unguarded
/// entry is upgraded here, in place.
fn upgrade_in_place(h: &mut Value, program: &str, event: &str) {
    let Some(obj) = h.as_object_mut() else {
        return;
    };
    let canonical = hook_entry(program, event);
    if obj.get("command").and_then(Value::as_str) != Some(&canonical) {
        obj.insert("command".into(), Value::String(canonical));
    }
    // shift_remove: `remove` would move the last key into its place.
    obj.shift_remove("args");
    if obj.get("type").is_none() {
        obj.insert("type".into(), json!("command"));
    }
}

/// A forge entry for each forge event that kept none, after the event's groups.
fn add_forge_hooks(root: &mut Map<String, Value>, opts: &InstallOptions<'_>, kept: &[String]) {
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return;
    };
    for event in FORGE_EVENTS {
        if kept.iter().any(|k| k == event) {
            continue;
        }
        let group =
            json!({"hooks": [{"type": "command", "command": hook_entry(opts.program, event)}]});
        match hooks.get_mut(event) {
            Some(Value::Array(groups)) => groups.push(group),
            _ => {
                hooks.insert(event.to_owned(), Value::Array(vec![group]));
            }
        }
    }
}

/// forge's statusLine where one is set already: forge's own is brought up to date;
/// a dead one is removed, another tool's replaced (`--replace-statusline`), wrapped
/// (`--wrap-statusline`) or kept, each with a word in `out`.
fn install_over_statusline(current: &mut Value, opts: &InstallOptions<'_>, out: &mut Outcome) {
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
        refresh_forge_statusline(current, opts);
    } else if dead.as_deref().is_some_and(|d| !opts.removes(d)) && !opts.replace_statusline {
        out.kept_dead.push(Removal {
            event: "statusLine".into(),
            command: statusline_command_of(current),
        });
    } else if dead.is_some() || opts.replace_statusline {
        let command = statusline_command_of(current);
        if dead.is_some() {
            out.removed_dead.push(Removal {
                event: "statusLine".into(),
                command,
            });
        } else {
            out.notes
                .push(format!("replaced the statusLine `{command}` with forge's"));
        }
        *current = forge_statusline(opts.program);
    } else if opts.wrap_statusline {
        let other = statusline_command_of(current);
        if let Value::Object(obj) = current {
            obj.insert(
                "command".into(),
                json!(guarded_wrapped_statusline(opts.program, &other)),
            );
            if !obj.contains_key("refreshInterval") {
                obj.insert("refreshInterval".into(), json!(REFRESH_INTERVAL_SECS));
            }
        }
        out.notes.push(format!(
            "wrapped the statusLine `{other}`: forge runs it and adds its segments (`forge statusline --wrap`); `forge init --uninstall` gives it back as it was"
        ));
    } else {
        out.notes.push(format!(
            "kept the statusLine `{}` (another tool's): `forge init --wrap-statusline` keeps it and adds forge's segments, `forge init --replace-statusline` shows forge's instead",
            statusline_command_of(current)
        ));
    }
}

/// forge's own statusLine brought up to date. A wrapped status line stays wrapped
/// (unless asked to replace it), and its object keeps the keys it had (uninstall
/// gives it back).
fn refresh_forge_statusline(current: &mut Value, opts: &InstallOptions<'_>) {
    let wraps = statusline_command_of(current);
    let wraps = wrapped_statusline(&wraps).filter(|_| !opts.replace_statusline);
    if let Value::Object(obj) = current {
        obj.insert("type".into(), json!("command"));
        let command = match wraps.as_deref() {
            Some(other) => guarded_wrapped_statusline(opts.program, other),
            None => guarded_statusline(opts.program),
        };
        obj.insert("command".into(), json!(command));
        if wraps.is_none() && !obj.contains_key("padding") {
            obj.insert("padding".into(), json!(0));
        }
        if !obj.contains_key("refreshInterval") {
            obj.insert("refreshInterval".into(), json!(REFRESH_INTERVAL_SECS));
        }
    }
}

fn statusline_command_of(v: &Value) -> String {
    v.get("command")
        .and_then(Value::as_str)
        .map_or_else(|| v.to_string(), str::to_owned)
}

/// What [`uninstall`] does with an event list, or the `hooks` object, that only
/// forge's entries filled.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Emptied<'a> {
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
pub(crate) fn uninstall(settings: &Value, emptied: Emptied<'_>) -> Result<Outcome, ShapeError> {
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
    let mut notes = Vec::new();
    let status = statusline_command(&Value::Object(root.clone())).map(str::to_owned);
    if let Some(command) = status.filter(|c| is_forge_command(c)) {
        removed_forge.push(Removal {
            event: "statusLine".into(),
            command: command.clone(),
        });
        match wrapped_statusline(&command) {
            // Composition mode: the status line it wraps comes back, and the
            // refresh interval forge added goes (one of the person's own is kept:
            // forge adds none where one is set; a backup settles the rest).
            Some(other) => {
                if let Some(Value::Object(obj)) = root.get_mut("statusLine") {
                    obj.insert("command".into(), json!(other));
                    if obj.get("refreshInterval") == Some(&json!(REFRESH_INTERVAL_SECS)) {
                        obj.shift_remove("refreshInterval");
                    }
                }
                notes.push(format!("gave back the statusLine `{other}`"));
            }
            None => {
                root.shift_remove("statusLine");
            }
        }
    }
    Ok(Outcome {
        settings: Value::Object(root),
        removed_dead: Vec::new(),
        kept_dead: Vec::new(),
        removed_forge,
        notes,
    })
}

/// `after` (an uninstall's result) with the `statusLine.refreshInterval` that
/// `before` had put back, when both have a statusLine: the other reading of an
/// uninstall that gave back a wrapped status line, for when the person had that
/// interval themselves (a backup of the file says which).
pub(crate) fn with_refresh_interval_of(after: &Value, before: &Value) -> Value {
    let mut out = after.clone();
    let interval = before
        .get("statusLine")
        .and_then(|s| s.get("refreshInterval"));
    if let (Some(Value::Object(obj)), Some(n)) = (out.get_mut("statusLine"), interval)
        && !obj.contains_key("refreshInterval")
    {
        obj.insert("refreshInterval".into(), n.clone());
    }
    out
}

/// Pretty JSON with a trailing newline, the way forge writes settings files.
#[cfg(test)]
pub(crate) fn to_text(settings: &Value) -> String {
    let mut s = serde_json::to_string_pretty(settings).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handlers_are_walked_in_file_order_and_odd_shapes_hold_none() {
        let v = json!({"hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "a"}, {"type": "prompt"}]},
                {"matcher": "x"},
                {"hooks": {"not": "a list"}},
                "not a group",
                {"hooks": [{"type": "command", "command": "b", "args": ["c d"]}]}
            ],
            "SessionStart": {"hooks": []},
            "PreCompact": [{"hooks": [{"command": "e"}]}]
        }});
        let walked: Vec<(&str, String)> = handlers(&v).map(|(e, h)| (e, h.to_string())).collect();
        assert_eq!(
            walked,
            [
                ("Stop", r#"{"type":"command","command":"a"}"#.to_owned()),
                ("Stop", r#"{"type":"prompt"}"#.to_owned()),
                (
                    "Stop",
                    r#"{"type":"command","command":"b","args":["c d"]}"#.to_owned()
                ),
                ("PreCompact", r#"{"command":"e"}"#.to_owned()),
            ]
        );
        // What doctor reads (every handler) and what init reads (command hooks).
        let commands: Vec<(String, String, Vec<String>)> = command_hooks(&v)
            .into_iter()
            .map(|h| (h.event, h.command, h.words))
            .collect();
        assert_eq!(
            commands,
            [
                ("Stop".into(), "a".into(), vec!["a".to_owned()]),
                (
                    "Stop".into(),
                    "b 'c d'".into(),
                    vec!["b".into(), "c d".into()]
                ),
                ("PreCompact".into(), "e".into(), vec!["e".to_owned()]),
            ]
        );
        for odd in [
            json!(null),
            json!([1]),
            json!({"hooks": []}),
            json!({"hooks": {"Stop": 3}}),
        ] {
            assert_eq!(handlers(&odd).count(), 0, "{odd}");
        }
    }

    fn opts<'a>(exists: &'a dyn Fn(&Path) -> bool) -> InstallOptions<'a> {
        InstallOptions {
            program: "/opt/bin/forge",
            replace_statusline: false,
            wrap_statusline: false,
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
        assert_eq!(shell_quote_always("forge"), "'forge'");
        assert_eq!(shell_quote_always(""), "''");
        assert_eq!(shell_quote_always("/it's/forge"), r"'/it'\''s/forge'");
        assert_eq!(
            split_words(&shell_quote_always("it's $HOME \"x\"")),
            ["it's $HOME \"x\""]
        );
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
                .filter(|h| h.event == e && h.command == hook_entry("/opt/bin/forge", e))
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
        assert_eq!(
            stop[0]["hooks"][0]["command"],
            guarded_hook("/opt/bin/forge", "Stop")
        );
        assert_eq!(stop[0]["hooks"][0]["timeout"], 5);
        assert_eq!(out.removed_forge.len(), 1);
        assert_eq!(
            out.settings["statusLine"],
            json!({"type":"command","command":guarded_statusline("/opt/bin/forge"),"refreshInterval":5,"padding":0})
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
        assert_eq!(out.removed_forge.len(), FORGE_EVENTS.len());
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
        assert_eq!(h["command"], guarded_hook("/opt/bin/forge", "Stop"));
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
    fn a_bare_name_is_searched_in_absolute_folders_and_the_older_form_is_still_forges() {
        let w = |s: &str| split_words(s);
        assert!(guarded_hook("forge", "Stop").starts_with("p=$PATH:; while"));
        // The form earlier versions wrote for a bare name is still forge's (so init
        // rewrites it and --uninstall takes it).
        let old = w("command -v forge >/dev/null 2>&1 && exec forge hook Stop || true");
        assert!(is_guarded(&old));
        assert!(is_old_bare_guard(&old));
        assert!(!is_old_bare_guard(&w(&guarded_hook("forge", "Stop"))));
        assert!(!is_old_bare_guard(&w(&guarded_hook(
            "/opt/bin/forge",
            "Stop"
        ))));
        assert_eq!(forge_program(&old), Some("forge"));
        assert_eq!(forge_program(&w("/x/forge hook Stop")), Some("/x/forge"));
        assert!(!is_guarded(&w("/x/forge hook Stop")));
        let search = guarded_hook("forge", "Stop");
        for not in [
            // The search with someone else's fallback, program or run.
            search.replace("; done; true", "; done; notify-send x"),
            search.replace("\"$d/forge\" hook", "\"$d/other\" hook"),
            search.replace("case $d in /*)", "case $d in *)"),
            search.replace("hook Stop", "status"),
        ] {
            assert_eq!(forge_role(&w(&not)), None, "{not}");
        }
    }

    #[test]
    fn guarded_commands_are_forges_and_wrappers_of_ones_own_are_not() {
        let w = |s: &str| split_words(s);
        for program in ["forge", "/opt/bin/forge", "'/opt/my tools/forge'"] {
            for e in FORGE_EVENTS {
                let words = w(&hook_entry(program, e));
                assert!(is_guarded(&words), "{program} {e}");
                assert_eq!(forge_role(&words), Some("hook"));
                assert_eq!(forge_words(&words).unwrap()[2], e);
                assert_eq!(
                    forge_program(&words),
                    split_words(program).first().map(String::as_str)
                );
            }
            let words = w(&guarded_statusline(program));
            assert_eq!(forge_role(&words), Some("statusline"));
            assert!(is_forge_command(&guarded_statusline(program)));
        }
        assert_eq!(
            guarded_hook("/opt/bin/forge", "Stop"),
            "command -v /opt/bin/forge >/dev/null 2>&1 && exec /opt/bin/forge hook Stop || true"
        );
        for not in [
            // Someone's own wrapper: another fallback, another program, no guard.
            "command -v forge >/dev/null 2>&1 && exec forge hook Stop || notify-send x",
            "command -v forge >/dev/null 2>&1 && exec other hook Stop || true",
            "command -v other >/dev/null 2>&1 && exec forge hook Stop || true",
            "cd /x && exec forge hook Stop",
            "echo forge hook Stop",
            "command -v forge >/dev/null 2>&1 && exec forge status || true",
        ] {
            assert_eq!(forge_role(&w(not)), None, "{not}");
        }
        // The texts are echoed between single quotes.
        for text in [missing_for_person(), missing_for_model()] {
            assert!(!text.contains('\''), "{text}");
            assert!(text.contains(&install::npm_command()), "{text}");
            assert!(text.contains(&install::cargo_command()), "{text}");
            assert!(!text.contains('<'), "a placeholder: {text}");
        }
        let start = session_start_entry("forge");
        let json = start.split_once("; then { ").unwrap().1;
        let json = json.split_once("echo '").unwrap().1;
        let v: Value = serde_json::from_str(json.strip_suffix("'; fi").unwrap()).unwrap();
        assert_eq!(v["systemMessage"], missing_for_person());
        assert!(missing_for_person().contains("FORGE_HINT=off"));
        assert_eq!(
            v["hookSpecificOutput"]["additionalContext"],
            missing_for_model()
        );
        assert_eq!(forge_role(&w(&start)), Some("hook"));
    }

    #[test]
    fn the_gate_is_recognised_around_its_say_and_nothing_else() {
        let w = split_words;
        let cmd = install::once_a_day("echo 'hello there'");
        let words = w(&cmd);
        assert_eq!(unwrap_once_a_day(&words), Some("hello there"));
        for not in [
            "echo hi",
            "true",
            &cmd.replace("forge/hint-day", "other"),
            &cmd.replace("fi", "rm -rf ~; fi"),
        ] {
            assert_eq!(unwrap_once_a_day(&w(not)), None, "{not}");
        }
    }

    #[test]
    fn old_unguarded_entries_are_upgraded_in_place_and_uninstall_takes_both_forms() {
        let old = json!({"hooks": {
            "Stop": [{"hooks": [
                {"type": "command", "command": "/bin/mine.sh"},
                {"type": "command", "command": "forge hook Stop", "timeout": 9}
            ]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": "forge hook SessionStart"}]}]
        }, "statusLine": {"type": "command", "command": "forge statusline", "padding": 0}});
        let exists = |_: &Path| true;
        let mut o = opts(&exists);
        o.program = "forge";
        let out = install(&old, &o).unwrap();
        let stop = &out.settings["hooks"]["Stop"][0]["hooks"];
        assert_eq!(stop[0]["command"], "/bin/mine.sh");
        assert_eq!(stop[1]["command"], guarded_hook("forge", "Stop"));
        assert_eq!(stop[1]["timeout"], 9);
        assert_eq!(
            out.settings["hooks"]["SessionStart"][0]["hooks"][0]["command"],
            session_start_entry("forge")
        );
        assert_eq!(
            out.settings["statusLine"]["command"],
            guarded_statusline("forge")
        );
        assert!(out.removed_forge.is_empty(), "{:?}", out.removed_forge);
        // Twice changes nothing.
        assert_eq!(install(&out.settings, &o).unwrap().settings, out.settings);
        // Uninstall takes the guarded entries and leaves the rest.
        let gone = uninstall(&out.settings, Emptied::Remove).unwrap();
        assert_eq!(
            gone.settings,
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/bin/mine.sh"}]}]}})
        );
        assert_eq!(gone.removed_forge.len(), FORGE_EVENTS.len() + 1);
    }

    #[test]
    fn the_status_line_is_refreshed_every_few_seconds_unless_the_person_chose() {
        let exists = |_: &Path| true;
        let fresh = install(&Value::Null, &opts(&exists)).unwrap().settings;
        assert_eq!(
            fresh["statusLine"]["refreshInterval"],
            REFRESH_INTERVAL_SECS
        );
        // An earlier forge's status line gets it; a person's own value stays.
        let old =
            json!({"statusLine": {"type": "command", "command": "forge statusline", "padding": 0}});
        let out = install(&old, &opts(&exists)).unwrap().settings;
        assert_eq!(out["statusLine"]["refreshInterval"], REFRESH_INTERVAL_SECS);
        let keys: Vec<&String> = out["statusLine"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "command", "padding", "refreshInterval"]);
        let own = json!({"statusLine": {"type": "command", "command": "forge statusline", "refreshInterval": 30}});
        let out = install(&own, &opts(&exists)).unwrap().settings;
        assert_eq!(out["statusLine"]["refreshInterval"], 30);
        // Another tool's status line is not forge's to change.
        let other = json!({"statusLine": {"type": "command", "command": "ccstatusline"}});
        let out = install(&other, &opts(&exists)).unwrap().settings;
        assert!(out["statusLine"].get("refreshInterval").is_none());
    }

    #[test]
    fn another_status_line_is_wrapped_on_request_and_given_back() {
        let exists = |_: &Path| true;
        let theirs = json!({"statusLine": {"type": "command", "command": "npx -y ccstatusline@latest", "padding": 1}});
        // Not asked: kept, and the note offers both ways.
        let kept = install(&theirs, &opts(&exists)).unwrap();
        assert_eq!(kept.settings["statusLine"], theirs["statusLine"]);
        assert!(
            kept.notes[0].contains("--wrap-statusline"),
            "{:?}",
            kept.notes
        );
        assert!(
            kept.notes[0].contains("--replace-statusline"),
            "{:?}",
            kept.notes
        );
        let mut o = opts(&exists);
        o.wrap_statusline = true;
        o.program = "forge";
        let out = install(&theirs, &o).unwrap();
        let line = &out.settings["statusLine"];
        assert_eq!(
            line["command"],
            "p=$PATH:; while [ -n \"$p\" ]; do d=${p%%:*}; p=${p#*:}; case $d in /*) \
             [ -f \"$d/forge\" ] && [ -x \"$d/forge\" ] && exec \"$d/forge\" statusline --wrap 'npx -y ccstatusline@latest' ;; \
             esac; done; eval 'npx -y ccstatusline@latest'"
        );
        assert_eq!(line["padding"], 1);
        assert_eq!(line["refreshInterval"], REFRESH_INTERVAL_SECS);
        let cmd = line["command"].as_str().unwrap();
        assert_eq!(forge_role(&split_words(cmd)), Some("statusline"));
        assert_eq!(
            wrapped_statusline(cmd).as_deref(),
            Some("npx -y ccstatusline@latest")
        );
        assert!(
            out.notes[0].starts_with("wrapped the statusLine"),
            "{:?}",
            out.notes
        );
        // Again: stays wrapped, unchanged (also without the flag).
        assert_eq!(install(&out.settings, &o).unwrap().settings, out.settings);
        assert_eq!(
            install(&out.settings, &opts(&exists)).unwrap().settings["statusLine"]["command"],
            guarded_wrapped_statusline("/opt/bin/forge", "npx -y ccstatusline@latest")
        );
        // Uninstall gives back the object as it was.
        let back = uninstall(&out.settings, Emptied::Remove).unwrap();
        assert_eq!(back.settings, theirs);
        assert!(back.notes[0].contains("gave back"), "{:?}", back.notes);
        // A refresh interval of the person's own is kept through both.
        let own = json!({"statusLine": {"type": "command", "command": "ccusage statusline", "refreshInterval": 10}});
        let out = install(&own, &o).unwrap();
        assert_eq!(out.settings["statusLine"]["refreshInterval"], 10);
        assert_eq!(
            uninstall(&out.settings, Emptied::Remove).unwrap().settings,
            own
        );
        // Replacing a wrapped one: forge's alone.
        let mut r = opts(&exists);
        r.replace_statusline = true;
        let wrapped = install(&theirs, &o).unwrap().settings;
        assert_eq!(
            install(&wrapped, &r).unwrap().settings["statusLine"]["command"],
            guarded_statusline("/opt/bin/forge")
        );
        // Quotes in the wrapped command survive the round trip.
        let odd =
            json!({"statusLine": {"type": "command", "command": "printf '%s' \"it's\" | cat"}});
        let out = install(&odd, &o).unwrap();
        assert_eq!(
            uninstall(&out.settings, Emptied::Remove).unwrap().settings,
            odd
        );
        assert_eq!(
            with_refresh_interval_of(
                &json!({"statusLine": {"command": "x"}}),
                &json!({"statusLine": {"refreshInterval": 5}})
            ),
            json!({"statusLine": {"command": "x", "refreshInterval": 5}})
        );
    }

    #[test]
    fn refuses_odd_shapes() {
        let exists = |_: &Path| true;
        assert!(install(&json!([1]), &opts(&exists)).is_err());
        let e = install(&json!({"hooks": {"Stop": {}}}), &opts(&exists)).unwrap_err();
        assert!(e.0.contains("hooks.Stop"), "{e}");
    }
}
