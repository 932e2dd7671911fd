//! The release scripts/release.sh makes (docs/install.md): the Linux tarballs, their
//! checksums, the binaries in them (run from an empty folder; the aarch64 one under
//! `qemu-aarch64`), the `cargo binstall` metadata's URLs, and the npm packages
//! installed from their `npm pack` files with no registry. When `dist/` is missing or
//! stale the tests build it on demand or skip, by the rule of tests/it/common/dist.rs
//! (under `CI=1` they never skip).

#![cfg(all(target_os = "linux", target_arch = "x86_64"))]
#![allow(clippy::unwrap_used)]

use crate::common::dist;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dist::{TARGETS, VERSION, dist_or_skip, in_ci, root, tarball_name};

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A tool the test needs: its path, or a skip (outside CI) / failure (CI).
fn tool(name: &str, why: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(!in_ci(), "CI: {name} is missing ({why})");
        eprintln!("skipped: {name} is missing ({why})");
    }
    found
}

/// Checks the `.sha256` and unpacks the tarball into an empty folder: the folder
/// and the binary's path.
fn unpack(dist: &Path, target: &str) -> (tempfile::TempDir, PathBuf) {
    let name = tarball_name(target);
    let sums = std::fs::read_to_string(dist.join(format!("{name}.sha256"))).unwrap();
    assert!(sums.trim_end().ends_with(&format!("  {name}")), "{sums}");
    run(Command::new("sha256sum")
        .args(["-c", &format!("{name}.sha256")])
        .current_dir(dist));
    let listing = text(&run(Command::new("tar")
        .args(["-tvzf"])
        .arg(dist.join(&name))
        .arg("--numeric-owner")));
    let top = format!("forge-{VERSION}-{target}");
    let mut names = Vec::new();
    for line in listing.lines() {
        // Reproducible entries: owner 0/0, and every mtime the same (the commit's).
        assert!(line.contains(" 0/0 "), "{line}");
        names.push(line.split_whitespace().last().unwrap().to_owned());
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tar entries in name order");
    assert_eq!(
        names,
        [
            format!("{top}/"),
            format!("{top}/INSTALL.md"),
            format!("{top}/LICENSE"),
            format!("{top}/README.md"),
            format!("{top}/forge"),
        ]
    );
    let times: std::collections::BTreeSet<String> = listing
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            format!("{} {}", w[3], w[4])
        })
        .collect();
    assert_eq!(times.len(), 1, "one mtime for all: {listing}");
    let dir = tempfile::tempdir().unwrap();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(dist.join(&name))
        .current_dir(dir.path()));
    let bin = dir.path().join(&top).join("forge");
    (dir, bin)
}

/// `readelf` of the binary: ELF machine, static PIE (no program interpreter, no
/// shared library), full RELRO, no executable stack, stripped; and the C archives
/// linked into it hardened ([`check_c_archives`]).
fn check_elf(bin: &Path, machine: &str, target: &str) {
    let header = text(&run(Command::new("readelf").arg("-h").arg(bin)));
    assert!(header.contains(machine), "{header}");
    assert!(
        header.contains("DYN (Position-Independent Executable"),
        "not PIE: {header}"
    );
    let dynamic = text(&run(Command::new("readelf").arg("-d").arg(bin)));
    assert!(dynamic.contains("BIND_NOW"), "no full RELRO: {dynamic}");
    assert!(dynamic.contains("NOW PIE"), "{dynamic}");
    assert!(!dynamic.contains("NEEDED"), "not static: {dynamic}");
    let segments = text(&run(Command::new("readelf").arg("-lW").arg(bin)));
    assert!(!segments.contains("INTERP"), "not static: {segments}");
    assert!(segments.contains("GNU_RELRO"), "{segments}");
    let stack = segments.lines().find(|l| l.contains("GNU_STACK")).unwrap();
    assert!(stack.contains("RW ") && !stack.contains("RWE"), "{stack}");
    let sections = text(&run(Command::new("readelf").arg("-SW").arg(bin)));
    assert!(
        !sections.contains(".symtab") && !sections.contains(".debug_"),
        "not stripped"
    );
    check_c_archives(target);
}

/// The C code's hardening (tests/it/hardening.rs checks the same in `cargo build`'s
/// binary): a static, stripped binary keeps no symbols that show it, so the archives
/// of libgit2 and zlib in the release's build folder (`dist::build_dir`) are read,
/// the newest of each (the one the last build linked; older builds' stay beside it):
/// each imports `__stack_chk_fail` and a fortified function.
fn check_c_archives(target: &str) {
    let build = dist::build_dir(target).join("build");
    let entries: Vec<PathBuf> = std::fs::read_dir(&build)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/release.sh)", build.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    for (prefix, file) in [
        ("libgit2-sys-", "out/build/libgit2.a"),
        ("libz-sys-", "out/lib/libz.a"),
    ] {
        let a = entries
            .iter()
            .filter(|d| {
                d.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
            .map(|d| d.join(file))
            .filter_map(|a| Some((std::fs::metadata(&a).ok()?.modified().ok()?, a)))
            .max()
            .map(|(_, a)| a)
            .unwrap_or_else(|| panic!("no {file} under {}{prefix}*", build.display()));
        let symbols = text(&run(Command::new("nm").arg(&a)));
        let imported: Vec<&str> = symbols
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("U "))
            .collect();
        assert!(
            imported.contains(&"__stack_chk_fail"),
            "no stack protector: {}",
            a.display()
        );
        assert!(
            imported.iter().any(|s| s.starts_with("__")
                && s.ends_with("_chk")
                && !s.starts_with("__stack_chk")),
            "no _FORTIFY_SOURCE: {}",
            a.display()
        );
    }
}

/// A home and a git project for a binary to run in, with nothing of this machine's.
fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    run(Command::new("git").args(["init", "-q"]).current_dir(&proj));
    (dir, home, proj)
}

fn forge_cmd(prefix: &[&Path], bin: &Path, home: &Path, proj: &Path) -> Command {
    let mut c = if prefix.is_empty() {
        Command::new(bin)
    } else {
        let mut c = Command::new(prefix[0]);
        c.args(&prefix[1..]).arg(bin);
        c
    };
    c.current_dir(proj)
        .env_clear()
        .env("HOME", home)
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", bin.parent().unwrap().display()),
        )
        .env("NO_COLOR", "1");
    c
}

fn statusline(mut c: Command) -> String {
    let payload =
        std::fs::File::open(root().join("tests/fixtures/statusline/used-42.json")).unwrap();
    text(&run(c.arg("statusline").stdin(payload)))
}

#[test]
fn the_x86_64_tarball_runs_from_an_empty_folder() {
    let Some(dist) = dist_or_skip("the_x86_64_tarball_runs_from_an_empty_folder") else {
        return;
    };
    let (_dir, bin) = unpack(&dist, "x86_64-unknown-linux-gnu");
    check_elf(
        &bin,
        "Advanced Micro Devices X86-64",
        "x86_64-unknown-linux-gnu",
    );
    let file = text(&run(Command::new("file").arg(&bin)));
    assert!(file.contains("static-pie linked"), "{file}");
    let (_p, home, proj) = project();
    let forge = || forge_cmd(&[], &bin, &home, &proj);
    assert_eq!(
        text(&run(forge().arg("--version"))),
        format!("forge {VERSION}\n")
    );
    // Wired by this binary, the project checks out whole.
    run(forge().arg("init"));
    let doctor = text(&run(forge().arg("doctor")));
    assert!(doctor.contains("Everything looks right."), "{doctor}");
    assert!(doctor.contains("ok    redaction"), "{doctor}");
    let line = statusline(forge());
    assert!(
        line.contains("42%") && line.contains("Sonnet 4.6"),
        "{line}"
    );
}

#[test]
fn the_aarch64_tarball_is_an_arm64_binary_that_runs_under_qemu() {
    let Some(dist) = dist_or_skip("the_aarch64_tarball_is_an_arm64_binary_that_runs_under_qemu")
    else {
        return;
    };
    let (_dir, bin) = unpack(&dist, "aarch64-unknown-linux-gnu");
    check_elf(&bin, "AArch64", "aarch64-unknown-linux-gnu");
    let file = text(&run(Command::new("file").arg(&bin)));
    assert!(
        file.contains("ARM aarch64") && file.contains("stripped"),
        "{file}"
    );
    assert!(file.contains("static-pie linked"), "{file}");
    // Run it: qemu-user (Debian's qemu-user), with no arm64 libraries to find (no
    // `-L` root): a static binary needs none.
    if !tool("qemu-aarch64", "apt-get install qemu-user") {
        return;
    }
    let (_p, home, proj) = project();
    let qemu = Path::new("qemu-aarch64");
    let forge = || forge_cmd(&[qemu], &bin, &home, &proj);
    assert_eq!(
        text(&run(forge().arg("--version"))),
        format!("forge {VERSION}\n")
    );
    let line = statusline(forge());
    assert!(
        line.contains("42%") && line.contains("Sonnet 4.6"),
        "{line}"
    );
    let doctor = forge().arg("doctor").output().unwrap();
    assert!(
        text(&doctor).contains("ok    redaction"),
        "{}",
        text(&doctor)
    );
}

/// Renders a cargo-binstall template (`{ name }`, `{ version }`, …).
fn render(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (k, v) in vars {
        out = out.replace(&format!("{{ {k} }}"), v);
    }
    assert!(!out.contains('{'), "a variable left in {out}");
    out
}

#[test]
fn the_binstall_metadata_names_the_tarballs_the_script_makes() {
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let package = &manifest["package"];
    let repo = package["repository"].as_str().unwrap();
    assert_eq!(repo, "https://github.com/ccforge/forge");
    let meta = &package["metadata"]["binstall"];
    assert_eq!(meta["pkg-fmt"].as_str(), Some("tgz"));
    // What the script names its files, read from the script.
    let script = std::fs::read_to_string(root().join("scripts/release.sh")).unwrap();
    assert!(
        script.contains("name=forge-$version-$t\n"),
        "the script's name"
    );
    assert!(script.contains(r#""$dist/$name.tar.gz""#));
    assert!(script.contains(r#""$stage/$name/forge""#));
    let dist = dist::dist().ok();
    for target in TARGETS {
        let vars = [
            ("repo", repo),
            ("name", "forge"),
            ("version", VERSION),
            ("target", target),
            ("bin", "forge"),
            ("binary-ext", ""),
        ];
        let url = render(meta["pkg-url"].as_str().unwrap(), &vars);
        assert_eq!(
            url,
            format!(
                "{repo}/releases/download/v{VERSION}/{}",
                tarball_name(target)
            )
        );
        let bin_dir = render(meta["bin-dir"].as_str().unwrap(), &vars);
        assert_eq!(bin_dir, format!("forge-{VERSION}-{target}/forge"));
        // And the real tarball, when built, has that file.
        if let Some(d) = &dist {
            let listing = text(&run(Command::new("tar")
                .arg("-tzf")
                .arg(d.join(tarball_name(target)))));
            assert!(listing.lines().any(|l| l == bin_dir), "{listing}");
        }
    }
}

#[test]
fn the_npm_packages_are_in_step_with_cargo_toml() {
    let pkg: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("npm/ccforge/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(pkg["name"], "ccforge");
    assert_eq!(pkg["version"], VERSION, "run scripts/release.sh");
    let deps = pkg["optionalDependencies"].as_object().unwrap();
    let mut names: Vec<&String> = deps.keys().collect();
    names.sort();
    assert_eq!(names, ["ccforge-linux-arm64", "ccforge-linux-x64"]);
    for v in deps.values() {
        assert_eq!(v, VERSION);
    }
    // The launcher looks for the same packages.
    let launcher = std::fs::read_to_string(root().join("npm/ccforge/lib/platform.js")).unwrap();
    for name in names {
        assert!(launcher.contains(&format!("\"{name}\"")), "{name}");
    }
    assert_eq!(pkg["bin"]["forge"], "bin/forge.js");
}

/// The npm files installed into an empty prefix with no registry (a registry
/// address nothing answers, and `--offline`).
fn npm_offline(args: &[&str], cwd: &Path, cache: &Path) -> Output {
    Command::new("npm")
        .args(args)
        .args([
            "--offline",
            "--no-audit",
            "--no-fund",
            "--registry",
            "http://127.0.0.1:9/",
        ])
        .env("npm_config_cache", cache)
        .env("npm_config_update_notifier", "false")
        .current_dir(cwd)
        .output()
        .unwrap()
}

#[test]
fn the_npm_launcher_installs_offline_and_runs_forge() {
    if !tool("npm", "the npm packages") {
        return;
    }
    let Some(dist) = dist_or_skip("the_npm_launcher_installs_offline_and_runs_forge") else {
        return;
    };
    let npm = dist.join("npm");
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let files: Vec<String> = dist::npm_files()
        .iter()
        .filter(|f| !f.contains("arm64"))
        .map(|f| npm.join(f).display().to_string())
        .collect();
    let install = |prefix: &Path, extra: &[&str]| {
        let mut args = vec!["install", "-g", "--prefix", prefix.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.extend(files.iter().map(String::as_str));
        let out = npm_offline(&args, dir.path(), &cache);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::canonicalize(prefix.join("bin/forge")).unwrap()
    };
    // The install step put the binary itself where npm's `forge` points: no Node
    // starts for a hook or a status-line tick.
    let prefix = dir.path().join("prefix");
    let linked = install(&prefix, &[]);
    assert!(
        linked.ends_with("ccforge/bin/forge.js"),
        "{}",
        linked.display()
    );
    assert!(
        std::fs::read(&linked).unwrap().starts_with(b"\x7fELF"),
        "not the binary"
    );
    check_launched(&prefix);
    // With install scripts off, the Node launcher stays and does the same.
    let plain = dir.path().join("plain");
    let linked = install(&plain, &["--ignore-scripts"]);
    assert!(
        std::fs::read(&linked)
            .unwrap()
            .starts_with(b"#!/usr/bin/env node")
    );
    check_launched(&plain);
    // `npx ccforge init` from the packed files, offline, in a fresh project.
    npx_init(&files, dir.path());
}

/// `forge` of an npm prefix: its version, `forge init` writing the portable bare
/// `forge`, the status line, the exit status.
fn check_launched(prefix: &Path) {
    let forge = prefix.join("bin/forge");
    let (_p, home, proj) = project();
    let path = format!("{}:/usr/bin:/bin", prefix.join("bin").display());
    let cmd = || {
        let mut c = Command::new(&forge);
        c.current_dir(&proj)
            .env_clear()
            .env("HOME", &home)
            .env("PATH", &path)
            .env("NO_COLOR", "1");
        c
    };
    assert_eq!(
        text(&run(cmd().arg("--version"))),
        format!("forge {VERSION}\n")
    );
    // `forge init` through npm's `forge` writes the portable bare `forge`.
    let said = text(&run(cmd().arg("init")));
    assert!(said.contains("run `forge` from PATH"), "{said}");
    let settings = std::fs::read_to_string(proj.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("exec \\\"$d/forge\\\" hook Stop"),
        "{settings}"
    );
    assert!(!settings.contains("node_modules"), "{settings}");
    let line = statusline(cmd());
    assert!(line.contains("42%"), "{line}");
    // The exit status passes through.
    let bad = cmd().arg("no-such-command").output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// `npx ccforge init` from the packed files, offline, in a fresh project.
fn npx_init(files: &[String], dir: &Path) {
    let (_q, home, proj) = project();
    let mut args = vec![
        "--yes",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--registry",
        "http://127.0.0.1:9/",
    ];
    for f in files {
        args.push("--package");
        args.push(f);
    }
    args.extend(["--", "ccforge", "init"]);
    let out = Command::new("npx")
        .args(&args)
        .env("npm_config_cache", dir.join("cache-npx"))
        .env("HOME", &home)
        .current_dir(&proj)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        text(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(proj.join(".claude/settings.json"))
            .unwrap()
            .contains("hook SessionStart")
    );
}

#[test]
fn the_npm_launcher_without_its_platform_package_names_the_platform() {
    if !tool("npm", "the npm packages") {
        return;
    }
    let Some(dist) = dist_or_skip("the_npm_launcher_without_its_platform_package") else {
        return;
    };
    let npm = dist.join("npm");
    let dir = tempfile::tempdir().unwrap();
    // Without its platform package the launcher names the platform and the fix.
    let bare = dir.path().join("bare");
    let launcher = npm.join(&dist::npm_files()[0]);
    let out = npm_offline(
        &[
            "install",
            "-g",
            "--omit=optional",
            "--prefix",
            bare.to_str().unwrap(),
            launcher.to_str().unwrap(),
        ],
        dir.path(),
        &dir.path().join("cache3"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(bare.join("bin/forge"))
        .arg("--version")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ccforge-linux-x64 for this platform (linux x64 glibc) is not installed"),
        "{err}"
    );
    // On a platform with no package at all (macOS, as Node would report it).
    let fake = dir.path().join("darwin.js");
    std::fs::write(
        &fake,
        "Object.defineProperty(process, 'platform', {value: 'darwin'});\n",
    )
    .unwrap();
    let out = Command::new("node")
        .arg("--require")
        .arg(&fake)
        .arg(bare.join("bin/forge"))
        .arg("--version")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no forge binary for this platform (darwin x64)"),
        "{err}"
    );
    assert!(
        err.contains("cargo install --locked --git https://github.com/ccforge/forge"),
        "{err}"
    );
}
