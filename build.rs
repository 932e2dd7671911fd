//! Links the `forge` binary as a non-PIE executable on Linux.
//!
//! `forge statusline` runs every ~300 ms and its cost is mostly process start. A PIE
//! binary of this size carries ~13,000 relative relocations that the loader applies at
//! every start, touching (and copying) ~250 KB of `.data.rel.ro`: about 0.13 ms of a
//! ~1 ms run, measured by `scripts/bench-statusline.sh`. Non-PIE resolves them at link
//! time. Only the final link of the binaries changes; the library and tests are as
//! before. The trade-off is no ASLR for the main executable's own code.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
