#!/usr/bin/env bash
# Benchmark `forge context TRANSCRIPT` (the one face that reads a whole transcript: it
# counts the compactions in it) against `wc -l` of the same file, measured in the same
# run, interleaved (forge, wc, forge, wc…), on generated transcripts of 50 MB and
# 500 MB. Also the peak memory (max RSS, /usr/bin/time) of both at each size: it must
# not grow with the file.
# Targets (issue 12): median <= 2x `wc -l` at both sizes; memory flat.
# Usage: scripts/bench-context.sh [RUNS]   (default 20 runs per command and size)
#        BENCH_DIR=path keeps the generated transcripts there for repeated runs.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20}
# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
FORGE_BUILT=$(scripts/build-static.sh)
if [ -n "${BENCH_DIR:-}" ]; then
  WORK="$BENCH_DIR"; mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
# forge as installed (a copy, as `cargo install` makes): see bench-statusline.sh.
install -Dm755 "$FORGE_BUILT" "$WORK/bin/forge"
BIN=$WORK/bin/forge
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/xdg
unset CLAUDE_PROJECT_DIR CLAUDE_CONFIG_DIR
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$WORK/project/.forge"

# Transcripts shaped like Claude Code's: tool results, assistant turns with usage, the
# odd user prompt that mentions compact_boundary, and a compact_boundary record every
# ~5 MB (the only lines forge parses).
python3 - "$WORK" <<'PY'
import json, os, sys
out = sys.argv[1]
boundary = json.dumps({"parentUuid": None, "logicalParentUuid": "a1", "isSidechain": False,
    "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
    "isMeta": False, "timestamp": "2026-11-20T14:02:40.007Z", "uuid": "b2", "level": "info",
    "compactMetadata": {"trigger": "auto", "preTokens": 167412, "postTokens": 11890}})
def lines():
    n = 0
    while True:
        n += 1
        yield json.dumps({"type": "user", "isSidechain": False, "message": {"role": "user",
              "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                           "content": f"line {n}: " + "ok " * (50 + n % 400)}]}})
        yield json.dumps({"type": "assistant", "isSidechain": False, "message": {
              "model": "claude-sonnet-4-6", "id": f"msg_{n}", "role": "assistant",
              "content": [{"type": "tool_use", "id": f"toolu_{n+1}", "name": "Read",
                           "input": {"file_path": f"/repo/src/mod{n % 200:03}/file{n % 100:03}.rs"}}],
              "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1201,
                        "cache_read_input_tokens": 82796, "output_tokens": 412}}})
        if n % 5000 == 0:
            yield json.dumps({"type": "user", "message": {"role": "user",
                  "content": "why did the compact_boundary come so early?"}})
for name, size in (("50m", 50 * 1000 * 1000), ("500m", 500 * 1000 * 1000)):
    path = os.path.join(out, f"{name}.jsonl")
    if os.path.exists(path) and os.path.getsize(path) >= size:
        continue
    written, next_boundary = 0, 5 * 1000 * 1000
    with open(path, "w") as fh:
        for line in lines():
            fh.write(line + "\n")
            written += len(line) + 1
            if written >= next_boundary:
                fh.write(boundary + "\n")
                written += len(boundary) + 1
                next_boundary += 5 * 1000 * 1000
            if written >= size:
                break
PY

for t in 50m 500m; do cat "$WORK/$t.jsonl" > /dev/null; done  # warm the page cache
echo "forge context benchmark, $RUNS interleaved runs per command (wall time incl. process start)"
count() { (cd "$WORK/project" && "$BIN" context "$1" --json) |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["compactions"])'; }
echo "compactions counted: 50 MB $(count "$WORK/50m.jsonl"), 500 MB $(count "$WORK/500m.jsonl")"
echo
python3 - "$BIN" "$WORK" "$RUNS" <<'PY'
import subprocess, sys
sys.path.insert(0, "scripts")
from bench_lib import interleaved
binp, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def max_rss_mib(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, cwd=f"{work}/project", check=True)
    return int(r.stderr.strip().splitlines()[-1]) / 1024
print("| transcript | `forge context` median (p90) | `wc -l` median (p90) | forge / wc | ≤ 2× | forge max RSS | `wc -l` max RSS |")
print("|---|---|---|---|---|---|---|")
fail = False
for name, label in (("50m", "50 MB"), ("500m", "500 MB")):
    t = f"{work}/{name}.jsonl"
    r = interleaved({"forge": ([binp, "context", t], None), "wc": (["wc", "-l", t], None)},
                    n, cwd=f"{work}/project")
    f, w = r["forge"], r["wc"]
    ratio = f["median"] / w["median"]
    ok = ratio <= 2.0
    fail |= not ok
    rss_f = max(max_rss_mib([binp, "context", t]) for _ in range(3))
    rss_w = max(max_rss_mib(["wc", "-l", t]) for _ in range(3))
    print(f"| {label} | {f['median']:.1f} ms ({f['p90']:.1f}) | {w['median']:.1f} ms ({w['p90']:.1f}) "
          f"| {ratio:.2f}× | {'yes' if ok else 'NO'} | {rss_f:.1f} MiB | {rss_w:.1f} MiB |")
sys.exit(1 if fail else 0)
PY
