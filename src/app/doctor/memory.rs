//! Claude Code's memory folder for the project: learned-*.md free of secret-looking
//! text, and MEMORY.md's size.

use super::{Check, Status};
use crate::env::Env;
use crate::model::text::count;
use crate::model::text::secrets::find_secrets;
use crate::store::Paths;

pub(super) fn check_learned(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = crate::app::learn::memory_dir(paths, env) else {
        return Check::new(
            "learned-secrets",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    let files = crate::app::learn::learned_files(&dir);
    let mut found = Vec::new();
    for f in &files {
        let Some(text) = crate::store::read_text_follow(f) else {
            continue;
        };
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        for (line, kind) in find_secrets(&text) {
            found.push(format!(
                "{name}:{line}: looks like {}",
                crate::model::text::secrets::with_article(kind)
            ));
        }
    }
    if found.is_empty() {
        Check::new(
            "learned-secrets",
            Status::Ok,
            format!(
                "{}, nothing secret-looking",
                count(files.len(), "learned pattern file", "learned pattern files")
            ),
        )
    } else {
        Check::new(
            "learned-secrets",
            Status::Fail,
            format!(
                "learned pattern files in {} look like they hold secrets, which Claude Code loads into sessions: remove those lines and rotate the secret if it was real",
                dir.display()
            ),
        )
        .with(found)
    }
}

pub(super) fn check_memory_size(paths: &Paths, env: &Env) -> Check {
    let Some(dir) = crate::app::learn::memory_dir(paths, env) else {
        return Check::new(
            "memory-size",
            Status::Warn,
            "HOME is not set: cannot find the memory folder",
        );
    };
    let limit = crate::config::load_lenient(paths, env)
        .0
        .config
        .learn
        .memory_max_lines;
    match crate::app::learn::line_count(&dir.join("MEMORY.md")) {
        None => Check::new("memory-size", Status::Ok, "no MEMORY.md yet"),
        Some(n) if n > limit => Check::new(
            "memory-size",
            Status::Warn,
            format!(
                "MEMORY.md has {} (over {limit}; Claude Code loads only the first 200): run `forge learn archive`",
                count(n, "line", "lines")
            ),
        ),
        Some(n) => Check::new(
            "memory-size",
            Status::Ok,
            format!("MEMORY.md has {}", count(n, "line", "lines")),
        ),
    }
}
