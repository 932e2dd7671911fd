//! The rooms' rules, checked over the source text (a unit test, so `cargo test` runs
//! it in CI):
//!
//! - `model/` names no other room of the crate (only `crate::model`, and no
//!   `super::` path that climbs out of it) and touches no disk, process, environment
//!   or clock: no `std::fs`, `std::process`, `std::env`, `std::net`, and no
//!   `SystemTime::now`, `Utc::now`, `Local::now` or `Instant::now`.
//! - `store/` names only `env` and `model` (and itself).
//! - `ui/` is pure: it names only `model` (and itself), and touches no disk, process,
//!   environment or clock either.
//! - `env` and `proc` are the ground floor: `env` names nothing of the crate, `proc`
//!   only `env`.
//! - Only `proc` spawns: no other file names `std::process::Command` (or
//!   `CommandExt`) or calls `Command::new`.
//! - Only `env`, `proc` and the dashboard loop (`tui/`) read the clock
//!   (`SystemTime::now`, `Utc::now`, `Local::now`, `Instant::now`); the others take
//!   `Env::now`, a passed-in instant, or go through `env`'s doors.
//! - `cli/` names no `store`: a command parses, calls `app`, prints (the project's
//!   paths come from `app::project`); a command (`cli/<name>.rs`) names no other
//!   command; `mcp/` names no `cli`.
//! - No import circle between file modules. A parent and its own child files are
//!   one unit and may use each other, but a circle that runs through a parent and
//!   its child and out of their family is one (`cli` → `cli::mcp` →
//!   `mcp::project` → `cli`).
//!
//! Test code is left out: an item under `#[cfg(test)]` (an inline `mod tests { … }`
//! or a `mod tests;` file) may build fixtures on disk and time itself. Comments and
//! string literals are blanked before the paths are read, so a doc comment that
//! names `crate::store` is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path from the crate root: `["model", "session", "state"]`.
type ModPath = Vec<String>;

/// `text` with every comment and the inside of every string and character literal
/// replaced by spaces (newlines kept), so what is left is code.
fn code_only(text: &str) -> String {
    split_source(text).0
}

/// `text` as its code (see [`code_only`]) and its comments: the text of every `//`
/// and `/* */` comment with everything else replaced by spaces (newlines kept), so
/// a path in a string literal is not read as a citation.
pub(crate) fn split_source(text: &str) -> (String, String) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut comments = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let start = i;
        let in_comment = c == '/' && matches!(next, Some('/' | '*'));
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && is_raw_string_start(&chars, i)) {
            i = skip_string(&chars, i, &mut out);
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1b}', '"'), or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 3..chars.len()).find(|&j| chars[j] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push('\'');
                    for &ch in &chars[i + 1..end] {
                        blank(&mut out, ch);
                    }
                    out.push('\'');
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
        for &ch in &chars[start..i] {
            if in_comment {
                comments.push(ch);
            } else {
                blank(&mut comments, ch);
            }
        }
    }
    (out, comments)
}

/// Whether a raw or byte string starts at `i` (`r"`, `r#"`, `b"`, `br"`, `br#"`),
/// and not in the middle of an identifier (`for"` cannot occur, `bar"` could).
fn is_raw_string_start(chars: &[char], i: usize) -> bool {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return false;
    }
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) == Some(&'r') {
        j += 1;
        while chars.get(j) == Some(&'#') {
            j += 1;
        }
    }
    j > i && chars.get(j) == Some(&'"')
}

/// Copies the quotes of the string literal at `i` and blanks its inside; returns the
/// index after it.
fn skip_string(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let mut hashes = 0;
    let mut raw = false;
    while chars[i] != '"' {
        raw |= chars[i] == 'r';
        hashes += usize::from(chars[i] == '#');
        out.push(chars[i]);
        i += 1;
    }
    out.push('"');
    i += 1;
    while i < chars.len() {
        let c = chars[i];
        if !raw && c == '\\' {
            out.push_str("  ");
            i += 2;
            continue;
        }
        if c == '"' && (0..hashes).all(|k| chars.get(i + 1 + k) == Some(&'#')) {
            out.push('"');
            out.push_str(&"#".repeat(hashes));
            return i + 1 + hashes;
        }
        out.push(if c == '\n' { '\n' } else { ' ' });
        i += 1;
    }
    i
}

/// `code` (from [`code_only`]) with every `#[cfg(test)]` item blanked, and the names
/// of the test modules it declares as files (`#[cfg(test)] mod tests;`). The item
/// ends at its `;` or `,` (a field, a variant, a match arm), or with its `{ … }`
/// block.
fn without_tests(code: &str) -> (String, Vec<String>) {
    const ATTR: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut files = Vec::new();
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find(ATTR).map(|p| p + from) {
        let start = at + ATTR.len();
        let mut depth = 0usize;
        let mut end = code.len();
        for (i, &b) in bytes.iter().enumerate().skip(start) {
            match b {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' if depth == 0 => {
                    end = i;
                    break;
                }
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 && b == b'}' {
                        end = i + 1;
                        break;
                    }
                }
                b';' | b',' if depth == 0 => {
                    end = i + 1;
                    if let Some(name) = code[start..i]
                        .trim()
                        .strip_prefix("mod ")
                        .or_else(|| code[start..i].trim().strip_prefix("pub mod "))
                        .map(str::trim)
                        .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    {
                        files.push(name.to_owned());
                    }
                    break;
                }
                _ => {}
            }
        }
        out.push_str(&code[from..at]);
        out.extend(
            code[at..end]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        from = end;
    }
    out.push_str(&code[from..]);
    (out, files)
}

/// Every path in `code` (from [`code_only`]), with `use` groups expanded:
/// `use crate::{a, b::{c, d}}` gives `crate::a`, `crate::b::c`, `crate::b::d`.
fn paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_ident_start(chars[i]) && (i == 0 || !is_ident(chars[i - 1])) {
            let (_, after) = ident(&chars, i);
            if colons_at(&chars, after).is_some() {
                i = path_from(&chars, i, Vec::new(), &mut found);
            } else {
                i = after;
            }
        } else {
            i += 1;
        }
    }
    found
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The identifier at `i` and the index after it.
fn ident(chars: &[char], i: usize) -> (String, usize) {
    let end = (i..chars.len())
        .find(|&j| !is_ident(chars[j]))
        .unwrap_or(chars.len());
    (chars[i..end].iter().collect(), end)
}

/// The index after `::` (spaces allowed around it) when it starts at `i`.
fn colons_at(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    while chars.get(j).is_some_and(|c| c.is_whitespace()) {
        j += 1;
    }
    (chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':')).then(|| {
        let mut k = j + 2;
        while chars.get(k).is_some_and(|c| c.is_whitespace()) {
            k += 1;
        }
        k
    })
}

/// Reads the path (or `use` tree) starting at `i` under `prefix` into `found`;
/// returns the index after it.
fn path_from(
    chars: &[char],
    mut i: usize,
    mut prefix: Vec<String>,
    found: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match chars.get(i) {
            Some(&c) if is_ident_start(c) => {
                let (word, after) = ident(chars, i);
                prefix.push(word);
                match colons_at(chars, after) {
                    Some(next) => i = next,
                    None => {
                        found.push(prefix);
                        return after;
                    }
                }
            }
            Some('{') => {
                i += 1;
                loop {
                    while chars.get(i).is_some_and(|c| c.is_whitespace() || *c == ',') {
                        i += 1;
                    }
                    match chars.get(i) {
                        Some('}') => return i + 1,
                        Some(&c) if is_ident_start(c) || c == '{' => {
                            i = path_from(chars, i, prefix.clone(), found);
                            // `x as y`: the alias is not a path.
                            while chars.get(i).is_some_and(|c| *c != ',' && *c != '}') {
                                i += 1;
                            }
                        }
                        Some(_) => i += 1, // `*`
                        None => return i,
                    }
                }
            }
            _ => {
                // `*`, a turbofish, or the end: the path so far.
                if !prefix.is_empty() {
                    found.push(prefix);
                }
                return i;
            }
        }
    }
}

/// The module path of the file at `rel` (relative to `src/`): `model/session/mod.rs`
/// is `model::session`, `lib.rs` is the crate root.
fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

/// A path as seen from `module`, made absolute (from the crate root): `crate::a::b`
/// is `a::b`; `super::x` in `a::b` is `a::x`. `None` for paths that do not start in
/// the crate (`std::…`, a local name) or that climb above the root.
fn absolute(module: &[String], path: &[String]) -> Option<ModPath> {
    match path.first().map(String::as_str) {
        Some("crate") => Some(path[1..].to_vec()),
        Some("super" | "self") => {
            let mut base = module.to_vec();
            let mut rest = path;
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        base.pop()?;
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

/// What a room may name and call.
struct Rule {
    /// The room (the first segment of a module path).
    room: &'static str,
    /// The top-level modules it may name besides itself.
    may_name: &'static [&'static str],
    /// Whether it must touch no disk, process, environment or clock.
    pure: bool,
}

const RULES: [Rule; 5] = [
    Rule {
        room: "model",
        may_name: &[],
        pure: true,
    },
    Rule {
        room: "store",
        may_name: &["env", "model"],
        pure: false,
    },
    Rule {
        room: "ui",
        may_name: &["model"],
        pure: true,
    },
    Rule {
        room: "env",
        may_name: &[],
        pure: false,
    },
    Rule {
        room: "proc",
        may_name: &["env"],
        pure: false,
    },
];

/// The one room that spawns children.
const SPAWNS: &str = "proc";

/// The rooms that read the clock.
const CLOCKS: [&str; 3] = ["env", "proc", "tui"];

/// Whether `path` starts a child process the way only `proc` may.
fn spawns(path: &[&str]) -> bool {
    path.windows(2)
        .any(|w| matches!(w, ["process", "Command" | "CommandExt"]))
        || matches!(path, ["Command", "new"] | [.., "process", "Command", "new"])
}

/// Whether `path` reads the clock.
fn reads_clock(path: &[&str]) -> bool {
    path.windows(2)
        .any(|w| matches!(w[0], "SystemTime" | "Utc" | "Local" | "Instant") && w[1] == "now")
}

/// The breaks of its room's rule in one file's code (tests left out).
fn breaks(module: &[String], code: &str) -> Vec<String> {
    let room = module.first().map_or("", String::as_str);
    let mut out = Vec::new();
    for path in paths(code) {
        let s: Vec<&str> = path.iter().map(String::as_str).collect();
        let shown = path.join("::");
        if room != SPAWNS && spawns(&s) {
            out.push(format!("spawns outside proc (`{shown}`)"));
        }
        if !CLOCKS.contains(&room) && reads_clock(&s) {
            out.push(format!("reads the clock (`{shown}`)"));
        }
    }
    let Some(rule) = RULES.iter().find(|r| r.room == room) else {
        return out;
    };
    for path in paths(code) {
        let shown = path.join("::");
        if let Some(abs) = absolute(module, &path)
            && let Some(top) = abs.first()
            && top != rule.room
            && !rule.may_name.contains(&top.as_str())
        {
            out.push(format!("names crate::{top} (`{shown}`)"));
        }
        if rule.pure {
            let s: Vec<&str> = path.iter().map(String::as_str).collect();
            if let ["std", "fs" | "process" | "env" | "net", ..] = s.as_slice() {
                out.push(format!("touches the world (`{shown}`)"));
            }
        }
    }
    out
}

/// The breaks of the house's rules for the commands and the MCP server in one file's
/// code (tests left out): every file of `cli/` names no `store` (a command reaches
/// the project through `app`), a command (`cli::<name>`, one of `modules`) names no
/// other command, and `mcp/` names no `cli`.
fn house_breaks(module: &[String], code: &str, modules: &BTreeSet<ModPath>) -> Vec<String> {
    let room = module.first().map_or("", String::as_str);
    let mut out = Vec::new();
    for path in paths(code) {
        let Some(abs) = absolute(module, &path) else {
            continue;
        };
        let shown = path.join("::");
        match (room, abs.first().map(String::as_str)) {
            ("cli", Some("store")) => out.push(format!("a command names crate::store (`{shown}`)")),
            ("mcp", Some("cli")) => {
                out.push(format!("the MCP server names crate::cli (`{shown}`)"));
            }
            ("cli", Some("cli")) if module.len() >= 2 && abs.len() >= 2 => {
                let other = abs[..2].to_vec();
                if other[1] != module[1] && modules.contains(&other) {
                    out.push(format!(
                        "a command names another command, {} (`{shown}`)",
                        other.join("::")
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// The modules each file module names (absolute paths resolved to the file module
/// that holds them). With `family` false a module's own parents and children are
/// left out (the graph of [`circles`] between unrelated modules); with it true they
/// are in, so a circle that runs through a parent and out of its family is seen.
fn graph(files: &[(ModPath, String)], family: bool) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let modules: BTreeSet<&ModPath> = files.iter().map(|(m, _)| m).collect();
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (module, code) in files {
        let entry = edges.entry(module.clone()).or_default();
        for path in paths(code) {
            // A relative path that starts with a child module (`mcp::run` in
            // `cli/mod.rs`) names that child.
            let child = || {
                let mut abs = module.clone();
                abs.extend(path.iter().cloned());
                modules
                    .contains(&abs[..=module.len()].to_vec())
                    .then_some(abs)
            };
            let Some(abs) = absolute(module, &path).or_else(child) else {
                continue;
            };
            let Some(target) = (0..=abs.len())
                .rev()
                .map(|k| abs[..k].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            if target == *module
                || (!family && (module.starts_with(&target) || target.starts_with(module)))
            {
                continue;
            }
            entry.insert(target);
        }
    }
    edges
}

/// The import circles of `edges`: each strongly connected set of two or more
/// modules (Tarjan's algorithm).
fn circles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut set = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                set.push(w.clone());
                if w == v {
                    break;
                }
            }
            if set.len() > 1 {
                set.sort();
                s.found.push(set);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The import circles of the crate's files: every circle between modules that are
/// not parent and child ([`graph`] without family edges), and every circle that runs
/// through a parent and its child and leaves their family (a parent's `cli` calling
/// its child `cli::mcp`, which names `mcp::project`, which names `cli` again). A
/// parent and its own children alone (`mod.rs` naming its files, they naming
/// `super::`) are one unit, not a circle.
fn import_circles(files: &[(ModPath, String)]) -> Vec<Vec<ModPath>> {
    let mut found = circles(&graph(files, false));
    for set in circles(&graph(files, true)) {
        let one_family = set
            .iter()
            .any(|root| set.iter().all(|m| m.starts_with(root)));
        let seen = found.iter().any(|f| f == &set);
        if !one_family && !seen {
            found.push(set);
        }
    }
    found
}

/// Every non-test file module under `src/` with its code (comments, strings and
/// `#[cfg(test)]` items blanked). Files declared as test modules are left out.
fn crate_files() -> Vec<(ModPath, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ readable") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                all.push(p);
            }
        }
    }
    let mut files = Vec::new();
    let mut test_modules: BTreeSet<ModPath> = BTreeSet::new();
    for p in &all {
        let rel: PathBuf = p.strip_prefix(&src).expect("under src").to_path_buf();
        if rel == Path::new("main.rs") {
            continue;
        }
        let module = module_of(&rel);
        let text = std::fs::read_to_string(p).expect("readable source");
        let (code, tests) = without_tests(&code_only(&text));
        for t in tests {
            let mut m = module.clone();
            m.push(t);
            test_modules.insert(m);
        }
        files.push((module, code));
    }
    files.retain(|(m, _)| !test_modules.iter().any(|t| m.starts_with(t)));
    files.sort();
    files
}

fn module(s: &str) -> ModPath {
    s.split("::")
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn comments_strings_and_test_items_are_not_code() {
    let text = r##"
//! Pure: `crate::store::registry` reads the file.
use crate::model::time::iso; // not crate::app
/* crate::git, /* nested */ crate::hooks */
const A: &str = "std::fs::read and \" crate::cli";
const B: &str = r#"Utc::now() "quoted" crate::tui"#;
const C: char = '"';
fn f<'a>(x: &'a str) -> &'a str { x }
#[cfg(test)]
mod tests {
    use crate::store::Paths;
    fn g() { let _ = std::fs::read("x"); }
}
#[cfg(test)]
mod more;
"##;
    let (code, test_files) = without_tests(&code_only(text));
    assert_eq!(test_files, ["more"]);
    assert_eq!(code.lines().count(), text.lines().count());
    assert_eq!(
        paths(&code),
        [module("crate::model::time::iso")]
            .into_iter()
            .collect::<Vec<_>>()
    );
}

#[test]
fn use_groups_are_expanded() {
    let code = "use crate::{app::snapshot, store::{self, Paths as P}};\nuse std::{fs, io::Read};\nlet t = chrono::Utc::now();";
    let got: Vec<String> = paths(code).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        got,
        [
            "crate::app::snapshot",
            "crate::store::self",
            "crate::store::Paths",
            "std::fs",
            "std::io::Read",
            "chrono::Utc::now"
        ]
    );
}

#[test]
fn each_break_of_a_room_rule_is_found() {
    let state = module("model::session::state");
    let tripping = [
        "use crate::store::Paths;",
        "fn f() -> bool { crate::config::Config::default().x }",
        "use crate::{model::time, app::snapshot};",
        "use super::super::super::store::files;",
        "use super::super::super::git::head;",
        "fn f() { let _ = std::fs::read(\"x\"); }",
        "use std::{io, fs::File};",
        "use std::process::Command;",
        "fn f() -> String { std::env::var(\"HOME\").unwrap_or_default() }",
        "fn f() { let t = chrono::Utc::now(); }",
        "use std::time::Instant;\nfn f() { let t = Instant::now(); }",
        "fn f() { let t = std::time::SystemTime::now(); }",
        "fn f() { let t = chrono::Local::now(); }",
    ];
    for code in tripping {
        let code = without_tests(&code_only(code)).0;
        assert!(!breaks(&state, &code).is_empty(), "not caught: {code}");
    }
    let fine = [
        "use crate::model::time::{iso, parse_iso};",
        "use super::level::Level;",
        "use super::super::text::redact::redact;",
        "use std::io::Read;\nuse std::path::{Path, PathBuf};",
        "fn f(now: DateTime<Utc>) -> String { crate::model::time::iso(now) }",
        "// crate::store::files reads it\nfn f() {}",
        "#[cfg(test)]\nmod tests { use crate::store::Paths; fn t() { std::fs::read(\"x\"); } }",
    ];
    for code in fine {
        let code = without_tests(&code_only(code)).0;
        assert_eq!(breaks(&state, &code), Vec::<String>::new(), "{code}");
    }
    // From a wing's mod.rs, two steps climb out of model.
    let wing = module("model::session");
    assert!(!breaks(&wing, "use super::super::config::Config;").is_empty());
    assert!(breaks(&wing, "use super::text::redact::redact;").is_empty());
    // store/: env and model only.
    let files = module("store::files");
    assert!(breaks(&files, "use crate::env::Env;\nuse crate::model::time::iso;").is_empty());
    assert!(!breaks(&files, "use crate::app::snapshot::load;").is_empty());
    assert!(!breaks(&files, "use super::super::config::Config;").is_empty());
    assert!(
        breaks(&files, "use std::fs;").is_empty(),
        "the store may use the disk"
    );
    // ui/: model only, and pure.
    let ui = module("ui::fleet");
    assert!(breaks(&ui, "use crate::model::text::sanitize::single_line;").is_empty());
    assert!(!breaks(&ui, "use crate::store::Paths;").is_empty());
    assert!(!breaks(&ui, "let t = chrono::Utc::now();").is_empty());
    // Other rooms have no rule here.
    assert!(breaks(&module("cli::status"), "use crate::store::Paths;").is_empty());
}

#[test]
fn only_proc_spawns_and_only_env_proc_and_the_dashboard_read_the_clock() {
    let status = module("cli::statusline");
    let spawning = [
        "fn f() { std::process::Command::new(\"x\").spawn(); }",
        "use std::process::{Command, Stdio};",
        "use std::process::Command;\nfn f() { Command::new(p).status(); }",
        "use std::os::unix::process::CommandExt;",
        "fn f() -> std::process::Command { todo!() }",
    ];
    for code in spawning {
        let code = without_tests(&code_only(code)).0;
        assert!(!breaks(&status, &code).is_empty(), "not caught: {code}");
        assert!(
            breaks(&module("store::files"), &code)
                .iter()
                .any(|b| b.contains("spawns"))
        );
        assert!(breaks(&module("proc"), &code).is_empty(), "{code}");
    }
    let fine = [
        "fn f() { crate::proc::Cmd::new(p).detach(); }",
        "use std::process::ExitCode;",
        "fn f(c: &relay::Command) -> &str { &c.program }",
        "fn f() -> clap::Command { clap::Command::new(\"forge\") }",
        "// std::process::Command::new is banned\nfn f() {}",
        "#[cfg(test)]\nmod tests { fn t() { std::process::Command::new(\"git\"); } }",
    ];
    for code in fine {
        let code = without_tests(&code_only(code)).0;
        assert_eq!(breaks(&status, &code), Vec::<String>::new(), "{code}");
    }
    let clocks = [
        "fn f() { let t = chrono::Utc::now(); }",
        "use std::time::Instant;\nfn f() { let t = Instant::now(); }",
        "fn f() { let t = std::time::SystemTime::now(); }",
        "fn f() { let t = chrono::Local::now(); }",
    ];
    for code in clocks {
        for room in [
            "cli::status",
            "store::files",
            "git",
            "app::relay",
            "hooks::notify",
        ] {
            assert!(!breaks(&module(room), code).is_empty(), "{room}: {code}");
        }
        for room in ["env", "proc", "tui::fleet", "tui"] {
            assert_eq!(breaks(&module(room), code), Vec::<String>::new(), "{room}");
        }
    }
    let fine = "fn f(env: &Env) -> String { iso(env.now) }\nfn g() { let d = crate::env::deadline_after(d); }";
    assert_eq!(breaks(&status, fine), Vec::<String>::new());
    // The ground floor: env names nothing of the crate, proc only env.
    assert!(!breaks(&module("env"), "use crate::proc::Cmd;").is_empty());
    assert!(breaks(&module("proc"), "use crate::env::Env;").is_empty());
    assert!(!breaks(&module("proc"), "use crate::store::Paths;").is_empty());
}

#[test]
fn clippy_bans_spawning_and_the_clock_in_the_library_outside_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toml = std::fs::read_to_string(root.join("clippy.toml")).expect("clippy.toml");
    for path in [
        "std::process::Command::new",
        "std::time::Instant::now",
        "std::time::SystemTime::now",
        "chrono::Utc::now",
        "chrono::Local::now",
    ] {
        assert!(
            toml.contains(&format!("path = \"{path}\"")),
            "clippy.toml does not ban {path}"
        );
    }
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("src/lib.rs");
    assert!(lib.contains("#![cfg_attr(not(test), deny(clippy::disallowed_methods))]"));
}

#[test]
fn an_import_circle_is_found_and_a_parent_with_its_child_is_not_one() {
    let files = [
        (
            module("cli::init"),
            "use super::status::project_paths;".to_owned(),
        ),
        (
            module("cli::status"),
            "use crate::cli::init::is_set_up;".to_owned(),
        ),
        (module("cli"), "pub mod init; pub mod status;".to_owned()),
        (
            module("model::dashboard"),
            "use self::update::update;".to_owned(),
        ),
        (
            module("model::dashboard::update"),
            "use super::Model;".to_owned(),
        ),
    ];
    let found = import_circles(&files);
    assert_eq!(found, [vec![module("cli::init"), module("cli::status")]]);
}

#[test]
fn a_circle_through_a_parent_and_out_of_its_family_is_found() {
    // The circle issue 34's review found: `cli` runs its child `cli::mcp`, which
    // names `mcp::project`, which borrowed `cli::count` from `cli` itself.
    let mut files = vec![
        (
            module("cli"),
            "pub mod mcp; pub mod status;\nfn count() {}\nfn run() { mcp::run(); status::run(); }"
                .to_owned(),
        ),
        (
            module("cli::mcp"),
            "fn run() { crate::mcp::project::serve(); }".to_owned(),
        ),
        (
            module("cli::status"),
            "fn run() { super::count(); }".to_owned(),
        ),
        (module("mcp"), "pub mod project;".to_owned()),
        (
            module("mcp::project"),
            "pub fn serve() { crate::cli::count(); }".to_owned(),
        ),
    ];
    assert!(
        circles(&graph(&files, false)).is_empty(),
        "without the family's edges the circle is not seen"
    );
    let found = import_circles(&files);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains(&module("mcp::project")) && found[0].contains(&module("cli")));
    // With the MCP server naming the model's count instead, only the family is left:
    // `cli` and its children naming each other is one unit.
    files[4].1 = "pub fn serve() { crate::model::text::count(); }".to_owned();
    files.push((module("model::text"), "pub fn count() {}".to_owned()));
    assert_eq!(import_circles(&files), Vec::<Vec<ModPath>>::new());
}

#[test]
fn a_command_names_no_store_and_no_other_command_and_mcp_no_cli() {
    let modules: BTreeSet<ModPath> = [
        "cli",
        "cli::status",
        "cli::sessions",
        "cli::init",
        "app::status",
        "mcp::project",
    ]
    .into_iter()
    .map(module)
    .collect();
    let sessions = module("cli::sessions");
    let tripping = [
        "use crate::store::Paths;",
        "use crate::{app, store::{self, files}};",
        "fn f() { crate::store::log_error(p, e); }",
        "use super::status::render_text;",
        "fn f() { crate::cli::init::run(a, env); }",
        "use super::super::store::files;",
    ];
    for code in tripping {
        let code = without_tests(&code_only(code)).0;
        assert!(
            !house_breaks(&sessions, &code, &modules).is_empty(),
            "not caught: {code}"
        );
    }
    let fine = [
        "use crate::app::status::Report;",
        "use super::print_out;",
        "fn f() { super::count(1, \"a\", \"b\"); }",
        "use super::sessions::Row;",
        "// crate::store::files does it\nfn f() {}",
        "#[cfg(test)]\nmod tests { use crate::store::Paths; }",
    ];
    for code in fine {
        let code = without_tests(&code_only(code)).0;
        assert_eq!(
            house_breaks(&sessions, &code, &modules),
            Vec::<String>::new(),
            "{code}"
        );
    }
    // The dispatcher (cli/mod.rs) runs every command; it names no store either.
    assert!(
        house_breaks(
            &module("cli"),
            "fn f() { status::run(); init::run(); }",
            &modules
        )
        .is_empty()
    );
    assert!(!house_breaks(&module("cli"), "use crate::store::Paths;", &modules).is_empty());
    // The MCP server names no command.
    let mcp = module("mcp::project");
    assert!(
        !house_breaks(
            &mcp,
            "fn f() { crate::cli::status::project_json(); }",
            &modules
        )
        .is_empty()
    );
    assert!(!house_breaks(&mcp, "fn f() { crate::cli::count(1, a, b); }", &modules).is_empty());
    assert!(house_breaks(&mcp, "fn f() { crate::app::status::report(); }", &modules).is_empty());
    // Other rooms may name the store.
    assert!(house_breaks(&module("app::status"), "use crate::store::Paths;", &modules).is_empty());
}

#[test]
fn the_rooms_keep_their_rules() {
    let files = crate_files();
    let in_room = |room: &str| {
        files
            .iter()
            .filter(|(m, _)| m.first().is_some_and(|r| r == room))
            .count()
    };
    // The walk saw the crate (a walk of nothing would pass).
    assert!(in_room("model") >= 30, "{}", in_room("model"));
    assert!(in_room("store") >= 10 && in_room("ui") >= 5);
    let modules: BTreeSet<ModPath> = files.iter().map(|(m, _)| m.clone()).collect();
    let found: Vec<String> = files
        .iter()
        .flat_map(|(m, code)| {
            let mut all = breaks(m, code);
            all.extend(house_breaks(m, code, &modules));
            all.into_iter()
                .map(move |b| format!("src/{}: {b}", m.join("/")))
        })
        .collect();
    assert!(
        found.is_empty(),
        "the rooms' rules are broken:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_import_circle_between_modules() {
    let files = crate_files();
    let edges = graph(&files, false);
    // The graph is real: a known edge is in it.
    assert!(
        edges[&module("cli::hook")].contains(&module("hooks")),
        "{:?}",
        edges.get(&module("cli::hook"))
    );
    let found: Vec<String> = import_circles(&files)
        .iter()
        .map(|c| {
            c.iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" ↔ ")
        })
        .collect();
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}
