//! forge's integration tests, one binary (jj's, ripgrep's and bottom's form): after a
//! change cargo links this one test executable instead of one per file. Each module
//! is what was a file of its own in `tests/`; `common` holds the shared helpers
//! (a temporary project, tmux, the release files of `dist/`). Run one module with
//! `cargo test --test it e2e::` (a filter on the module's path).

mod common;

mod agents;
mod alerts;
mod commands;
mod completions;
mod e2e;
mod fleet;
mod handoff;
mod hardening;
mod hooks;
mod hostile;
mod hostile_doors;
mod hostile_output;
mod hostile_repo;
mod ladder;
mod lifecycle;
mod log;
mod mcp;
mod ownership;
mod plugin;
mod properties;
mod real_sessions;
mod redaction;
mod relay;
mod release;
mod share;
mod slash_commands;
mod statusline;
mod trust;
mod tui;
mod user_hooks;
mod wake;
mod worktrees;

/// No test file is forgotten: every `.rs` file under `tests/it/` is declared as a
/// module by its parent (`main.rs` for `tests/it/x.rs` and `tests/it/x/mod.rs`,
/// `tests/it/x.rs` or `x/mod.rs` for `tests/it/x/y.rs`), and no `.rs` file sits in
/// `tests/` itself, where cargo would build it as a binary of its own.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    use std::path::{Path, PathBuf};

    fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("readable folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                rs_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    fn declares(parent: &Path, module: &str) -> bool {
        std::fs::read_to_string(parent).is_ok_and(|text| {
            text.lines().any(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("pub ")
                    .trim_start_matches("pub(crate) ");
                l == format!("mod {module};")
            })
        })
    }
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let it = tests.join("it");
    let mut stray: Vec<String> = std::fs::read_dir(&tests)
        .expect("tests/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.display().to_string())
        .collect();
    let mut files = Vec::new();
    rs_files(&it, &mut files);
    assert!(files.len() > 30, "the walk saw {} files", files.len());
    for f in files.iter().filter(|f| **f != it.join("main.rs")) {
        let dir = f.parent().expect("in a folder");
        let stem = f.file_stem().expect("a name").to_string_lossy();
        // `x/mod.rs` is module `x` of `x/`'s parent folder.
        let (module, dir) = if stem == "mod" {
            let name = dir.file_name().expect("a folder").to_string_lossy();
            (name.into_owned(), dir.parent().expect("in tests/it"))
        } else {
            (stem.into_owned(), dir)
        };
        let parents = if dir == it {
            vec![it.join("main.rs")]
        } else {
            vec![dir.with_extension("rs"), dir.join("mod.rs")]
        };
        if !parents.iter().any(|p| declares(p, &module)) {
            stray.push(f.display().to_string());
        }
    }
    assert!(
        stray.is_empty(),
        "test files no `mod` declares (add `mod <name>;` to tests/it/main.rs or the parent module; a file in tests/ itself moves to tests/it/): {stray:?}"
    );
}
