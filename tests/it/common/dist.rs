//! The release tarballs and npm packages scripts/release.sh makes, for the tests
//! that unpack and install them (tests/it/release.rs, and tests/it/e2e.rs's npm install).
//!
//! The rule: the tests use `dist/` when it holds this version's files, newer than
//! every source file (`src/`, `Cargo.toml`, `Cargo.lock`, `npm/`, the script). When
//! they are missing or stale, the script is run (a build on demand: about 6 minutes
//! for both targets on this machine) under `CI=1` or with `FORGE_RELEASE_BUILD=1`;
//! otherwise the test says it skipped and why. Under `CI=1` a script that cannot run
//! (no rustup target, cross compiler or static glibc) fails the test.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const TARGETS: [&str; 2] = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// The tarball's file name for `target`, as the script names it.
pub fn tarball_name(target: &str) -> String {
    format!("forge-{VERSION}-{target}.tar.gz")
}

/// The npm package files `npm pack` makes.
pub fn npm_files() -> Vec<String> {
    ["ccforge", "ccforge-linux-x64", "ccforge-linux-arm64"]
        .iter()
        .map(|p| format!("{p}-{VERSION}.tgz"))
        .collect()
}

fn newest(dir: &Path, newest_seen: &mut SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            newest(&p, newest_seen);
        } else if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
            *newest_seen = (*newest_seen).max(m);
        }
    }
}

/// The newest modification time of the files a release is built from.
fn sources_time() -> SystemTime {
    let root = root();
    let mut t = SystemTime::UNIX_EPOCH;
    newest(&root.join("src"), &mut t);
    newest(&root.join("npm"), &mut t);
    for f in [
        "Cargo.toml",
        "Cargo.lock",
        "scripts/release.sh",
        "build.rs",
        "LICENSE",
        "scripts/aarch64-static-pie-cc",
    ] {
        if let Ok(m) = std::fs::metadata(root.join(f)).and_then(|m| m.modified()) {
            t = t.max(m);
        }
    }
    t
}

/// The files of `dist/` the tests need, missing or older than the sources.
fn stale(dist: &Path) -> Vec<String> {
    let since = sources_time();
    let mut wanted: Vec<PathBuf> = TARGETS
        .iter()
        .flat_map(|t| {
            let n = tarball_name(t);
            [dist.join(&n), dist.join(format!("{n}.sha256"))]
        })
        .collect();
    wanted.extend(npm_files().iter().map(|f| dist.join("npm").join(f)));
    let mut stale: Vec<String> = wanted
        .into_iter()
        .filter(|p| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .map_or(true, |m| m < since)
        })
        .map(|p| p.display().to_string())
        .collect();
    // The build folder the tarballs came from, whose C archives tests/it/release.rs
    // reads (a static binary keeps no symbols): it must be there (after `cargo clean`
    // it is not), whatever its age (cargo leaves an up-to-date binary untouched).
    stale.extend(
        TARGETS
            .iter()
            .map(|t| build_dir(t).join("forge"))
            .filter(|p| !p.is_file())
            .map(|p| p.display().to_string()),
    );
    stale
}

/// scripts/release.sh's build folder for `target` (`FORGE_BUILD_DIR`, default
/// target/dist-build), where cargo put its release build.
pub fn build_dir(target: &str) -> PathBuf {
    std::env::var_os("FORGE_BUILD_DIR")
        .map_or_else(|| root().join("target/dist-build"), PathBuf::from)
        .join(target)
        .join("release")
}

static BUILT: Mutex<Option<Result<PathBuf, String>>> = Mutex::new(None);

/// `dist/`, fresh (built on demand, once per test process, by the rule above), or
/// why not (`Err`: the test skips with it outside CI; under CI it has panicked).
pub fn dist() -> Result<PathBuf, String> {
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(r) = built.as_ref() {
        return r.clone();
    }
    let dist = root().join("dist");
    let missing = stale(&dist);
    let r = if missing.is_empty() {
        Ok(dist)
    } else if in_ci() || std::env::var_os("FORGE_RELEASE_BUILD").is_some() {
        let started = std::time::Instant::now();
        let out = std::process::Command::new("bash")
            .arg(root().join("scripts/release.sh"))
            .current_dir(root())
            .output();
        match out {
            Ok(o) if o.status.success() => {
                eprintln!(
                    "scripts/release.sh built the release in {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                let left = stale(&dist);
                if left.is_empty() {
                    Ok(dist)
                } else {
                    Err(format!("scripts/release.sh did not make {left:?}"))
                }
            }
            Ok(o) => Err(format!(
                "scripts/release.sh failed: {}",
                String::from_utf8_lossy(&o.stderr)
            )),
            Err(e) => Err(format!("scripts/release.sh did not start: {e}")),
        }
    } else {
        Err(format!(
            "the release files are missing or older than the sources ({}): run scripts/release.sh, or set FORGE_RELEASE_BUILD=1 to build them in the test",
            missing.join(", ")
        ))
    };
    if let Err(e) = &r {
        assert!(!in_ci(), "CI: {e}");
    }
    *built = Some(r.clone());
    r
}

/// `dist()`, or a skip message and `None` (outside CI only).
pub fn dist_or_skip(test: &str) -> Option<PathBuf> {
    match dist() {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("{test}: skipped: {e}");
            None
        }
    }
}
