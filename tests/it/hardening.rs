//! The C code built into forge (libgit2, zlib) is compiled with the platform's usual
//! hardening (`.cargo/config.toml`): the stack protector and `_FORTIFY_SOURCE`. Both
//! leave a mark a stripped binary keeps in its dynamic symbol table: imports of
//! glibc's `__stack_chk_fail` and of fortified functions (`__memcpy_chk`,
//! `__snprintf_chk`…). Rust code imports neither, so they come from the C code.
//! The release's static binaries keep no symbols: tests/it/release.rs reads the C
//! archives they were linked from instead.

#![cfg(all(target_os = "linux", target_env = "gnu"))]
#![allow(clippy::unwrap_used)]

use std::process::Command;

#[test]
fn the_bundled_c_code_is_built_with_stack_protector_and_fortify_source() {
    // FORGE_TEST_BIN: another build to check (see tests/common).
    let bin = crate::common::forge_bin();
    let out = match Command::new("nm").arg("-D").arg(&bin).output() {
        Ok(out) => out,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: nm is not installed ({e})");
            return;
        }
        Err(e) => panic!("nm -D {}: {e}", bin.display()),
    };
    assert!(out.status.success(), "{out:?}");
    let symbols = String::from_utf8_lossy(&out.stdout);
    if symbols.trim().is_empty() && std::env::var_os("FORGE_TEST_BIN").is_some() {
        // A static binary (scripts/release.sh's): nothing to read here.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: {} has no dynamic symbols (a static binary: tests/it/release.rs checks its C archives)",
            bin.display()
        );
        eprintln!(
            "skipped: {} is static (tests/it/release.rs checks its C archives)",
            bin.display()
        );
        return;
    }
    let imported = |name: &str| {
        symbols
            .lines()
            .filter(|l| l.trim_start().starts_with("U "))
            .any(|l| l.contains(name))
    };
    let hint = "the C code was built without hardening: is CFLAGS set in your environment (it replaces .cargo/config.toml's)?";
    assert!(imported("__stack_chk_fail"), "no stack protector: {hint}");
    let fortified: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|s| s.starts_with("__") && s.contains("_chk@") && !s.starts_with("__stack_chk"))
        .collect();
    assert!(!fortified.is_empty(), "no _FORTIFY_SOURCE: {hint}");
}
