#!/usr/bin/env bash
# Builds forge's Linux release: for x86_64 and aarch64, a stripped binary linked
# against glibc 2.17 (so it runs on every glibc distribution since 2014: RHEL/CentOS 7,
# Debian 8, Ubuntu 14.04 and later), packed as dist/forge-VERSION-TARGET.tar.gz with a
# .sha256 beside it, then the npm packages (npm/ccforge, the launcher, and one package
# per platform) packed with `npm pack` into dist/npm/. docs/install.md says how to
# install from them.
#
# Why glibc 2.17 and not musl: the C code built into forge (libgit2, zlib) keeps the
# hardening of `cargo build` (.cargo/config.toml: stack protector and
# _FORTIFY_SOURCE, which musl does not implement), and tests/it/hardening.rs checks the
# same symbols in the release binary (tests/it/release.rs).
#
# Needs: rustup targets x86_64-unknown-linux-gnu and aarch64-unknown-linux-gnu,
# cargo-zigbuild (`cargo install cargo-zigbuild --locked`) and zig (`pip install
# ziglang`), npm. Reproducible: the same commit gives the same bytes (paths remapped,
# SOURCE_DATE_EPOCH from the commit, sorted tar with fixed owners and mtimes, gzip
# without a name or time).
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
# The glibc the binaries are linked against (zigbuild's target suffix).
glibc=2.17

if [ "$#" -gt 0 ]; then targets=("$@"); else
  targets=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu)
fi

need() { command -v "$1" >/dev/null 2>&1 || { echo "release: $1 is missing: $2" >&2; exit 1; }; }
need cargo-zigbuild "cargo install cargo-zigbuild --locked"
if ! command -v zig >/dev/null 2>&1 && ! python3 -c 'import ziglang' 2>/dev/null; then
  echo "release: zig is missing: pip install ziglang" >&2; exit 1
fi
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
export RUSTFLAGS="--remap-path-prefix=$root=/forge --remap-path-prefix=$cargo_home=/cargo --remap-path-prefix=$rustc_sysroot=/rustc ${FORGE_RELEASE_RUSTFLAGS:-}"
# The hardening of .cargo/config.toml (an environment CFLAGS replaces it), with the
# build paths the C code's __FILE__ would carry mapped away.
export CFLAGS="-fstack-protector-strong -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -ffile-prefix-map=$root=/forge -ffile-prefix-map=$cargo_home=/cargo"
# A build folder of its own: the release profile with other targets does not disturb
# target/release (FORGE_BUILD_DIR changes it: a second, clean build to compare bytes).
build=${FORGE_BUILD_DIR:-$root/target/dist-build}

mkdir -p "$dist"
for t in "${targets[@]}"; do
  echo "release: building $t (glibc $glibc)" >&2
  started=$(date +%s)
  cargo zigbuild --quiet --locked --release --target "$t.$glibc" --target-dir "$build" --bin forge
  echo "release: $t built in $(( $(date +%s) - started )) s" >&2
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
  "description": "forge's binary for $os $cpu (glibc $glibc or later); installed by the ccforge package",
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
