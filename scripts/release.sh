#!/usr/bin/env bash
# Builds forge's Linux release: for x86_64 and aarch64, a stripped, statically linked
# binary (glibc's static libc, static-pie: it needs no shared library, so it runs on
# every Linux since 3.2 whatever its glibc), packed as dist/forge-VERSION-TARGET.tar.gz
# with a .sha256 beside it, then the npm packages (npm/ccforge, the launcher, and one
# package per platform) packed with `npm pack` into dist/npm/. docs/install.md says
# how to install from them.
#
# Why static: a status-line tick is a process start, and a dynamically linked forge
# spends about a third of it in the dynamic loader (mapping libc and libgcc_s,
# binding ~190 imports at start): 1.4-1.7x its floor, where the static binary is
# 0.90-0.96x (docs/speed.md, issue 34). Why glibc and not musl: the
# C code built into forge (libgit2, zlib) keeps the hardening of `cargo build`
# (.cargo/config.toml: stack protector and _FORTIFY_SOURCE, which musl does not
# implement); the script checks the C archives it linked for both, and
# tests/it/release.rs checks them again.
#
# Needs: rustup targets x86_64-unknown-linux-gnu and aarch64-unknown-linux-gnu,
# glibc's static libraries (Debian: libc6-dev for x86_64; gcc-aarch64-linux-gnu and
# libc6-dev-arm64-cross for aarch64), binutils, npm. Built on Linux x86_64.
# Reproducible: the same commit on the same toolchain gives the same bytes (paths
# remapped, SOURCE_DATE_EPOCH from the commit, sorted tar with fixed owners and mtimes,
# gzip without a name or time).
#
# Usage: scripts/release.sh [TARGET…]   (default: both Linux targets)
#        FORGE_DIST=dir changes the output folder (default dist/), FORGE_BUILD_DIR the
#        build folder (default target/dist-build), FORGE_SKIP_NPM=1 skips the npm packages.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] || { echo "release: no version in Cargo.toml" >&2; exit 1; }
dist=${FORGE_DIST:-$root/dist}

if [ "$#" -gt 0 ]; then targets=("$@"); else
  targets=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu)
fi

need() { command -v "$1" >/dev/null 2>&1 || { echo "release: $1 is missing: $2" >&2; exit 1; }; }
need nm "apt-get install binutils"
# Each target's C compiler and glibc's static libc (`cc` compiles libgit2 and zlib;
# the same compiler links).
for t in "${targets[@]}"; do
  case $t in
    x86_64-unknown-linux-gnu)
      need cc "apt-get install gcc"
      [ -e /usr/lib/x86_64-linux-gnu/libc.a ] || { echo "release: no static glibc for $t: apt-get install libc6-dev" >&2; exit 1; } ;;
    aarch64-unknown-linux-gnu)
      need aarch64-linux-gnu-gcc "apt-get install gcc-aarch64-linux-gnu"
      [ -e /usr/aarch64-linux-gnu/lib/libc.a ] || { echo "release: no static glibc for $t: apt-get install libc6-dev-arm64-cross" >&2; exit 1; } ;;
    *) echo "release: no static build for $t" >&2; exit 1 ;;
  esac
done
need npm "install Node.js"
installed=$(rustup target list --installed)
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$installed" || { echo "release: rustup target add $t" >&2; exit 1; }
done

# Reproducibility: the commit's time for every timestamp, no build path in the binary.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
cargo_home=${CARGO_HOME:-$HOME/.cargo}
rustc_sysroot=$(rustc --print sysroot)
# crt-static: glibc's static libc, a static-pie binary. With --target, RUSTFLAGS
# reach forge and its dependencies only, not the build scripts and proc macros
# (which cannot be static).
export RUSTFLAGS="-C target-feature=+crt-static --remap-path-prefix=$root=/forge --remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$rustc_sysroot=/rustc ${FORGE_RELEASE_RUSTFLAGS:-}"
# aarch64 is cross-compiled and linked by Debian's aarch64 GCC, through a wrapper
# that makes it a static PIE as x86_64's is (scripts/aarch64-static-pie-cc says why).
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$root/scripts/aarch64-static-pie-cc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
# The hardening of .cargo/config.toml (an environment CFLAGS replaces it), with the
# build paths the C code's __FILE__ would carry mapped away.
export CFLAGS="-fstack-protector-strong -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -ffile-prefix-map=$root=/forge -ffile-prefix-map=$cargo_home=/cargo"
# A build folder of its own: the release profile with other targets does not disturb
# target/release (FORGE_BUILD_DIR changes it: a second, clean build to compare bytes).
build=${FORGE_BUILD_DIR:-$root/target/dist-build}

# The C archives linked into it (libgit2's, zlib's) were compiled with the stack
# protector and _FORTIFY_SOURCE: they import __stack_chk_fail and fortified functions.
# A static binary keeps no symbols to show it, so the archives are read: the newest
# of each crate's (the one this build linked; older builds' stay beside it).
check_hardened() {
  local file a syms
  for file in "libgit2-sys-*/out/build/libgit2.a" "libz-sys-*/out/lib/libz.a"; do
    # shellcheck disable=SC2086 # the pattern is meant to expand
    a=$(cd "$1" && ls -t $file 2>/dev/null | head -n1) || true
    [ -n "$a" ] || { echo "release: $2: no $file in $1" >&2; exit 1; }
    a=$1/$a
    # Read whole first: `grep -q` stopping early would fail nm's write (pipefail).
    syms=$(nm "$a" 2>/dev/null) || { echo "release: $2: nm $a failed" >&2; exit 1; }
    grep -q ' U __stack_chk_fail$' <<<"$syms" ||
      { echo "release: $2: $a has no stack protector (is CFLAGS replaced?)" >&2; exit 1; }
    [ "$(grep -v __stack_chk <<<"$syms" | grep -c ' U __[a-z]*_chk$')" -gt 0 ] ||
      { echo "release: $2: $a has no _FORTIFY_SOURCE (is CFLAGS replaced?)" >&2; exit 1; }
  done
}

mkdir -p "$dist"
for t in "${targets[@]}"; do
  echo "release: building $t (static)" >&2
  started=$(date +%s)
  cargo build --quiet --locked --release --target "$t" --target-dir "$build" --bin forge
  echo "release: $t built in $(( $(date +%s) - started )) s" >&2
  "$root/scripts/check-static.sh" "$build/$t/release/forge"
  check_hardened "$build/$t/release/build" "$t"
  name=forge-$version-$t
  stage=$(mktemp -d)
  mkdir "$stage/$name"
  install -m 0755 "$build/$t/release/forge" "$stage/$name/forge"
  cp README.md "$stage/$name/README.md"
  cp docs/install.md "$stage/$name/INSTALL.md"
  cp LICENSE "$stage/$name/LICENSE"
  chmod 0644 "$stage/$name/README.md" "$stage/$name/INSTALL.md" "$stage/$name/LICENSE"
  # Sorted names, fixed owner and mtime, gzip without the file's name and time.
  tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
    --format=gnu -C "$stage" -cf - "$name" | gzip -n -9 >"$dist/$name.tar.gz"
  (cd "$dist" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
  rm -rf "$stage"
  echo "release: $dist/$name.tar.gz ($(wc -c <"$dist/$name.tar.gz") bytes)" >&2
done

if [ -n "${FORGE_SKIP_NPM:-}" ]; then
  echo "release: forge $version in $dist (no npm packages: FORGE_SKIP_NPM)" >&2
  exit 0
fi

# ----- npm: the launcher and one package per platform ----------------------------------
# The launcher's package.json carries the version and its optionalDependencies'
# versions: set both to Cargo.toml's (tests/it/release.rs checks they are in step).
node - "$version" "$root/npm/ccforge/package.json" <<'EOF'
const fs = require("fs");
const [version, file] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
pkg.version = version;
for (const dep of Object.keys(pkg.optionalDependencies || {})) pkg.optionalDependencies[dep] = version;
// Written only when it changes: an unchanged file keeps its time, so the tarballs
// built above stay newer than every source (tests/it/common/dist.rs).
const text = JSON.stringify(pkg, null, 2) + "\n";
if (fs.readFileSync(file, "utf8") !== text) fs.writeFileSync(file, text);
EOF

npm_out=$dist/npm
rm -rf "$npm_out"
mkdir -p "$npm_out"
for t in "${targets[@]}"; do
  case $t in
    x86_64-unknown-linux-gnu) os=linux cpu=x64 ;;
    aarch64-unknown-linux-gnu) os=linux cpu=arm64 ;;
    *) echo "release: no npm platform for $t" >&2; exit 1 ;;
  esac
  pkg=ccforge-$os-$cpu
  dir=$(mktemp -d)/$pkg
  mkdir -p "$dir/bin"
  install -m 0755 "$build/$t/release/forge" "$dir/bin/forge"
  install -m 0644 "$root/LICENSE" "$dir/LICENSE"
  cat >"$dir/package.json" <<EOF
{
  "name": "$pkg",
  "version": "$version",
  "description": "forge's binary for $os $cpu (static, for glibc systems); installed by the ccforge package",
  "license": "MIT",
  "repository": "github:ccforge/forge",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "libc": ["glibc"],
  "files": ["bin/forge"],
  "preferUnplugged": true
}
EOF
  touch -d "@$SOURCE_DATE_EPOCH" "$dir/bin/forge" "$dir/package.json" "$dir/LICENSE"
  (cd "$npm_out" && npm pack --silent "$dir" >/dev/null)
  rm -rf "$(dirname "$dir")"
done
# The launcher is packed from a copy that carries the licence beside it (npm packs a
# package's LICENSE whatever its "files" say).
launcher=$(mktemp -d)/ccforge
cp -R "$root/npm/ccforge" "$launcher"
install -m 0644 "$root/LICENSE" "$launcher/LICENSE"
(cd "$npm_out" && npm pack --silent "$launcher" >/dev/null)
rm -rf "$(dirname "$launcher")"
(cd "$npm_out" && sha256sum ./*.tgz >SHA256SUMS)
ls -l "$npm_out" >&2
echo "release: forge $version in $dist" >&2
