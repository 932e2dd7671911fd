#!/usr/bin/env bash
# Checks that BIN is what scripts/release.sh ships: it needs no shared library (no
# program interpreter, no NEEDED entry) and is position-independent (a static PIE:
# ASLR for all of its code). Silent when it is; else says why and exits 1.
# Used by scripts/release.sh and scripts/build-static.sh.
# Usage: scripts/check-static.sh BIN
set -euo pipefail
bin=${1:?usage: scripts/check-static.sh BIN}
# Read whole first: `grep -q` stopping early would fail readelf's write (pipefail).
elf=$(readelf -hldW "$bin") || { echo "check-static: readelf $bin failed" >&2; exit 1; }
if grep -q -e INTERP -e NEEDED <<<"$elf"; then
  echo "check-static: $bin is not static (readelf -d names shared libraries; is glibc's libc.a installed? Debian: libc6-dev)" >&2
  exit 1
fi
grep -q "DYN (Position-Independent Executable" <<<"$elf" ||
  { echo "check-static: $bin is static but not a PIE" >&2; exit 1; }
