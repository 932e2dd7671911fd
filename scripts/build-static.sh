#!/usr/bin/env bash
# Builds forge as scripts/release.sh does, for this machine: the release profile,
# static (glibc's static libc, `-C target-feature=+crt-static`, a static PIE), for
# the host's target, into target/HOST/release/forge; prints that path. The benchmark
# scripts time this binary by default, since it is the one the release ships
# (docs/install.md); LINK=dynamic makes them time `cargo build --release`'s instead.
#
# Needs glibc's static libraries (Debian: libc6-dev).
# Usage: scripts/build-static.sh      (LINK=dynamic: builds and prints target/release/forge)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${LINK:-static}" = dynamic ]; then
  cargo build --release --quiet --bin forge
  echo "$PWD/target/release/forge"
  exit 0
fi
host=$(rustc -vV | sed -n 's/^host: //p')
# --target: RUSTFLAGS then reach forge and its dependencies only, not the build
# scripts and proc macros (which cannot be static).
RUSTFLAGS="-C target-feature=+crt-static ${RUSTFLAGS:-}" \
  cargo build --release --quiet --locked --target "$host" --bin forge
bin="$PWD/target/$host/release/forge"
scripts/check-static.sh "$bin"
echo "$bin"
