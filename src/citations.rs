//! Every "see …" resolves: a test that reads the comments of `src/` and `tests/`, the
//! README, the docs and the manifests for citations of the project's documents, and
//! fails on one that names no file or no section in it.
//!
//! - `docs/NAME.md` must exist; `docs/NAME.md#anchor` must be a heading of it (the
//!   anchor as GitHub makes it: lower case, spaces as `-`, punctuation dropped).
//! - `docs/client-reference.md §N` (or `§N.M`, and `§N.M #K` for row K of a
//!   section's table) must be a numbered section of that file (in the docs,
//!   `client-reference.md §N`; in that file itself, `§N`).
//! - A Markdown link in the README or the docs must reach a file (and heading).
//! - `DESIGN.md`, `STYLE.md` or a bare "reference §…" is a citation of a document
//!   the repository does not hold, and fails.
//!
//! Only comments are read in Rust files: a path in a string literal is data (a test
//! project's `docs/SPEC.md`), not a citation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;

/// A heading's anchor as GitHub makes it.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The headings of a Markdown text, outside fenced code: (level, text).
fn headings(md: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = t.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&level) && t[level..].starts_with(' ') {
            out.push((level, t[level..].trim().to_owned()));
        }
    }
    out
}

/// The text of the section numbered `number` (`"6"` is `## 6. …`, `"6.4"` is
/// `### 6.4 …`), up to the next heading of its level or above.
fn section(md: &str, number: &str) -> Option<String> {
    let mut fenced = false;
    let mut found: Option<(usize, String)> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if t.starts_with("```") {
            fenced = !fenced;
        }
        let level = t.chars().take_while(|&c| c == '#').count();
        let heading = !fenced && (1..=6).contains(&level) && t[level..].starts_with(' ');
        if let Some((at, text)) = found.as_mut() {
            if heading && level <= *at {
                break;
            }
            text.push_str(line);
            text.push('\n');
        } else if heading {
            let title = t[level..].trim();
            let rest = title.strip_prefix(number);
            if rest.is_some_and(|r| r.starts_with(". ") || r.starts_with(' ')) {
                found = Some((level, String::new()));
            }
        }
    }
    found.map(|(_, text)| text)
}

/// The citations in `text` that do not resolve. `doc` gives the text of a file
/// under the repository (`docs/design.md`), `None` when there is none; `here` is
/// the file `text` is from, for its relative Markdown links.
fn unresolved(text: &str, here: &str, doc: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    // The gap a citation may have between its file and its section: spaces, a
    // comment's line break, Markdown code quotes.
    const GAP: &str = r"(?:\s|//[/!]?|`)*";
    let path = Regex::new(r"docs/([A-Za-z0-9_.-]+\.md)(#[A-Za-z0-9_-]+)?").expect("regex");
    // In client-reference.md itself a bare `§N` is one of its own sections.
    let prefix = if here == "docs/client-reference.md" {
        ""
    } else {
        r"(?:docs/)?client-reference\.md"
    };
    let section_ref = Regex::new(&format!(
        r"{prefix}{GAP}§\s*([0-9]+(?:\.[0-9]+)?)(?:{GAP}#([0-9]+))?"
    ))
    .expect("regex");
    let link = Regex::new(r"\]\(([^)\s]+)\)").expect("regex");
    let gone =
        Regex::new(r"(?:^|[^A-Za-z0-9_])(DESIGN|STYLE\.md)(?:[^A-Za-z0-9_]|$)").expect("regex");
    let mut out = Vec::new();
    let check_anchor =
        |file: &str, anchor: Option<&str>, out: &mut Vec<String>, shown: &str| match doc(file) {
            None => out.push(format!("{shown}: no file {file}")),
            Some(md) => {
                if let Some(a) = anchor
                    && !headings(&md).iter().any(|(_, h)| slug(h) == a)
                {
                    out.push(format!("{shown}: no heading #{a} in {file}"));
                }
            }
        };
    for m in path.captures_iter(text) {
        let file = format!("docs/{}", &m[1]);
        let anchor = m.get(2).map(|a| &a.as_str()[1..]);
        check_anchor(&file, anchor, &mut out, &m[0]);
    }
    let mut covered = Vec::new();
    for m in section_ref.captures_iter(text) {
        let whole = m.get(0).expect("match");
        covered.push(whole.range());
        let shown = whole
            .as_str()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        match doc("docs/client-reference.md").and_then(|md| section(&md, &m[1])) {
            None => out.push(format!("{shown}: no section §{}", &m[1])),
            Some(body) => {
                if let Some(row) = m.get(2)
                    && !body
                        .lines()
                        .any(|l| l.starts_with(&format!("| {} |", row.as_str())))
                {
                    out.push(format!("{shown}: no row #{} in §{}", row.as_str(), &m[1]));
                }
            }
        }
    }
    for (at, _) in text.match_indices('§') {
        if !covered.iter().any(|r| r.contains(&at)) {
            let line = text[..at].lines().count().max(1);
            out.push(format!(
                "line {line}: a § that cites no docs/client-reference.md section"
            ));
        }
    }
    for m in gone.captures_iter(text) {
        out.push(format!("{}: not a document of this repository", &m[1]));
    }
    if here.ends_with(".md") {
        let dir = Path::new(here).parent().unwrap_or(Path::new(""));
        for m in link.captures_iter(text) {
            let target = &m[1];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target, None),
            };
            let file = if file.is_empty() {
                here.to_owned()
            } else {
                normalize(&dir.join(file))
            };
            check_anchor(&file, anchor, &mut out, &format!("[…]({target})"));
        }
    }
    out
}

/// `a/b/../c` as `a/c`.
fn normalize(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The repository's files a citation may name, by path from the root (`None` for a
/// file that is not there). A folder or a file that is not text (a Markdown link to
/// `plugin/` or to an image) is there with no headings: an empty text.
fn repo_doc(rel: &str) -> Option<String> {
    let path = root().join(rel);
    if rel.is_empty() || rel.starts_with("..") {
        return None;
    }
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) if path.exists() => Some(String::new()),
        Err(_) => None,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn headings_become_anchors_and_sections_are_found_by_number() {
    assert_eq!(
        slug("Agent handoffs and Signals"),
        "agent-handoffs-and-signals"
    );
    assert_eq!(slug("The context figure"), "the-context-figure");
    assert_eq!(slug("9.1 What the client does"), "91-what-the-client-does");
    let md = "# T\n## 6. Transcripts\ntext\n### 6.4 Size\n| 1 | one |\n### 6.5 Next\n```\n## 7. not a heading\n```\n## 7. Windows\n";
    assert!(section(md, "6.4").is_some_and(|s| s.contains("| 1 | one |")));
    assert!(section(md, "6").is_some_and(|s| s.contains("### 6.5 Next")));
    assert!(section(md, "7").is_some());
    assert!(section(md, "6.6").is_none() && section(md, "4").is_none());
}

#[test]
fn a_citation_that_names_nothing_is_caught() {
    let docs: BTreeMap<&str, &str> = [
        ("docs/design.md", "# D\n## State files\n## Times\n"),
        (
            "docs/client-reference.md",
            "# R\n## 6. Transcripts\n### 6.4 Size\n## 9. Seen\n### 9.1 What\n| 1 | a |\n| 2 | b |\n",
        ),
    ]
    .into_iter()
    .collect();
    let doc = |p: &str| docs.get(p).map(|s| (*s).to_owned());
    let fine = "// docs/design.md#state-files, docs/design.md#times\n\
                /// the size (docs/client-reference.md §6.4), as read (docs/client-reference.md\n\
                /// §9.1 #2), and `docs/client-reference.md` §6";
    assert_eq!(unresolved(fine, "src/x.rs", &doc), Vec::<String>::new());
    let broken = [
        "// see docs/design.md#hook-events",
        "// see docs/nothing.md",
        "// docs/client-reference.md §6.5",
        "// docs/client-reference.md §9.1 #3",
        "// (reference §5.5)",
        "// the bands DESIGN.md names",
        "// in DESIGN's order",
        "# Whole-program LTO (STYLE.md 7)",
    ];
    for text in broken {
        assert!(
            !unresolved(text, "src/x.rs", &doc).is_empty(),
            "not caught: {text}"
        );
    }
    // The README's links, from the root: a page, a heading of it, a folder.
    assert!(
        unresolved(
            "[t](docs/design.md#times) [r](docs/client-reference.md)",
            "README.md",
            &doc
        )
        .is_empty()
    );
    for broken in [
        "[x](docs/gone.md)",
        "[x](docs/design.md#gone)",
        "[x](design.md)",
    ] {
        assert!(
            !unresolved(broken, "README.md", &doc).is_empty(),
            "not caught: {broken}"
        );
    }
    // Links in Markdown: relative to the file, with their anchors.
    let md_ok = "[times](design.md#times) and [here](#state-files)";
    assert!(unresolved(md_ok, "docs/design.md", &doc).is_empty());
    assert!(!unresolved("[x](design.md#nope)", "docs/design.md", &doc).is_empty());
    assert!(!unresolved("[x](../docs/gone.md)", "docs/design.md", &doc).is_empty());
    // In the docs: `client-reference.md §N` from a sibling, a bare `§N` inside it.
    assert!(unresolved("see client-reference.md §9.1 #2", "docs/design.md", &doc).is_empty());
    assert!(unresolved("(§6.4, §9.1 #1)", "docs/client-reference.md", &doc).is_empty());
    assert!(!unresolved("(§6.5)", "docs/client-reference.md", &doc).is_empty());
    assert!(!unresolved("(§6.4)", "docs/design.md", &doc).is_empty());
    // An identifier is not a citation.
    assert!(unresolved("const DESIGN_KEYS: [&str; 10]", "src/x.rs", &doc).is_empty());
}

#[test]
fn every_citation_in_the_repository_resolves() {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    // This file's own comments and cases cite what does not exist on purpose.
    files.retain(|p| !p.ends_with("src/citations.rs"));
    assert!(files.len() > 100, "the walk saw {} files", files.len());
    let mut texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .expect("under root")
                .display()
                .to_string();
            let text = std::fs::read_to_string(p).expect("readable");
            (rel, crate::layers::split_source(&text).1)
        })
        .collect();
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| format!("docs/{}", e.expect("entry").file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    docs.sort();
    assert!(docs.iter().any(|d| d == "docs/design.md"), "{docs:?}");
    assert!(
        docs.iter().any(|d| d == "docs/client-reference.md"),
        "{docs:?}"
    );
    for rel in docs.iter().map(String::as_str).chain([
        "README.md",
        "ARCHITECTURE.md",
        "Cargo.toml",
        "clippy.toml",
    ]) {
        texts.push((rel.to_owned(), repo_doc(rel).expect("readable")));
    }
    let cited = texts
        .iter()
        .filter(|(_, t)| t.contains("docs/client-reference.md") || t.contains("docs/design.md"))
        .count();
    assert!(cited >= 20, "only {cited} files cite the docs");
    let found: Vec<String> = texts
        .iter()
        .flat_map(|(rel, text)| {
            unresolved(text, rel, &repo_doc)
                .into_iter()
                .map(move |e| format!("{rel}: {e}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "citations that do not resolve:\n{}",
        found.join("\n")
    );
}

/// ARCHITECTURE.md's checklists name the files a change touches: each path it names
/// (`src/…`, `tests/…`, `plugin/…`, `scripts/…`) is there, so a checklist cannot
/// outlive a move.
#[test]
fn every_file_architecture_names_exists() {
    let root = root();
    let text = repo_doc("ARCHITECTURE.md").expect("ARCHITECTURE.md");
    let path =
        Regex::new(r"`((?:src|tests|plugin|scripts|docs)/[A-Za-z0-9_./-]+?)(?:::[A-Za-z_:]+)?`")
            .expect("regex");
    let named: Vec<&str> = path
        .captures_iter(&text)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().trim_end_matches('/'))
        .filter(|p| !p.contains('<'))
        .collect();
    assert!(named.len() > 30, "only {} paths named", named.len());
    let missing: Vec<&&str> = named
        .iter()
        .filter(|p| !root.join(p.split('#').next().unwrap_or(p)).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what is not there: {missing:?}"
    );
}
