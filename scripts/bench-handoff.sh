#!/usr/bin/env bash
# Benchmark `forge handoff --transcript T` against a baseline forge (another build:
# the main branch, a release), measured in the same run, interleaved (base, forge,
# base, forge…), on two transcripts: the 3 MB real session of
# tests/fixtures/real-transcripts/ (a compaction, a plan, background commands) and a
# generated 50 MB one that ends like a real session: a todo list and a last request
# that hold secrets to redact, so the redaction of what the handoff copies is part
# of what is measured.
# Target (issues 20 and 28): median <= 1.2x the baseline's on each.
# BASE is timed as given: a dynamic build of an older commit differs from the static
# forge in its linking too (scripts/build-static.sh at that commit compares code alone).
# Usage: BASE=/path/to/old/forge scripts/bench-handoff.sh [RUNS]   (default 20)
#        BENCH_DIR=path keeps the generated transcript there for repeated runs;
#        NEW=/path/to/forge compares that binary instead of a fresh release build
#        (static, as the release ships it: scripts/build-static.sh; LINK=dynamic for
#        `cargo build --release`'s).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-20}
: "${BASE:?set BASE to the forge binary to compare with (e.g. a build of main)}"
# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
[ -n "${NEW:-}" ] || NEW=$(scripts/build-static.sh)
if [ -n "${BENCH_DIR:-}" ]; then
  WORK="$BENCH_DIR"; mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
install -Dm755 "$NEW" "$WORK/bin/forge"
install -Dm755 "$BASE" "$WORK/base/forge"
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/xdg
unset CLAUDE_PROJECT_DIR CLAUDE_CONFIG_DIR
mkdir -p "$HOME" "$XDG_CONFIG_HOME"
for who in base bin; do
  r="$WORK/project-$who"
  if [ ! -d "$r/.git" ]; then
    mkdir -p "$r/src" "$r/.forge/handoffs" "$r/.forge/logs"
    (cd "$r" && git init -q && for i in $(seq 1 50); do echo "fn f$i() {}" > "src/m$i.rs"; done &&
      git add . && git -c user.name=b -c user.email=b@x commit -qm "init with token=ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3s" &&
      echo "// changed" >> src/m1.rs)
  fi
done

python3 - "$WORK" <<'PY'
import json, os, sys
out = sys.argv[1]
path = os.path.join(out, "50m.jsonl")
size = 50 * 1000 * 1000
if not (os.path.exists(path) and os.path.getsize(path) >= size):
    with open(path, "w") as fh:
        written, n = 0, 0
        while written < size:
            n += 1
            for rec in (
                {"type": "user", "isSidechain": False, "message": {"role": "user",
                 "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                              "content": f"line {n}: " + "ok " * (50 + n % 400)}]}},
                {"type": "assistant", "isSidechain": False, "message": {
                 "model": "claude-sonnet-4-6", "id": f"msg_{n}", "role": "assistant",
                 "content": [{"type": "tool_use", "id": f"toolu_{n+1}", "name": "Edit",
                              "input": {"file_path": f"/repo/src/mod{n % 200:03}/file{n % 100:03}.rs",
                                        "old_string": "a", "new_string": "b"}}],
                 "usage": {"input_tokens": 3, "cache_creation_input_tokens": 1201,
                           "cache_read_input_tokens": 82796, "output_tokens": 412}}}):
                line = json.dumps(rec)
                fh.write(line + "\n")
                written += len(line) + 1
        todos = [{"content": f"step {i}: rotate DB_PASSWORD=S3cretFromEnvLine{i} and the token sk-ant-api03-Zq8xVv2LmN4pR7tY1uW3eK9sD6fH0jB5cA",
                  "status": "pending" if i % 3 else "in_progress", "activeForm": "Working"} for i in range(30)]
        fh.write(json.dumps({"type": "assistant", "message": {"model": "claude-sonnet-4-6", "id": "m_todo",
            "role": "assistant", "content": [{"type": "tool_use", "id": "t_todo", "name": "TodoWrite",
            "input": {"todos": todos}}]}}) + "\n")
        fh.write(json.dumps({"type": "user", "message": {"role": "user", "content":
            "Use postgres://app:hunter2-db-pass@db.internal/prod and curl -H 'Authorization: Bearer abc.def-ghi_jkl' "
            "then finish the config loader; the staging password is Stg-2025!kq. " * 10}}) + "\n")
PY

REAL="$PWD/tests/fixtures/real-transcripts/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
status=0
for T in "$REAL" "$WORK/50m.jsonl"; do
cat "$T" > /dev/null  # warm the page cache
echo "forge handoff benchmark ($(basename "$T"), $(awk "BEGIN{printf \"%.1f\", $(wc -c < "$T")/1e6}") MB), $RUNS interleaved runs per binary (wall time incl. process start)"
python3 - "$WORK" "$RUNS" "$T" <<'PY' || status=1
import sys
sys.path.insert(0, "scripts")
from bench_lib import interleaved
work, n, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def cmd(who):
    # The handoffs folder is emptied first (the same for both), so names never run out.
    return (["sh", "-c", f'rm -f .forge/handoffs/handoff-*.md; exec "{work}/{who}/forge" handoff --transcript "$0" > /dev/null', t],
            None, f"{work}/project-{who}")
r = interleaved({"base": cmd("base"), "forge": cmd("bin")}, n)
b, f = r["base"], r["forge"]
ratio = f["median"] / b["median"]
print("| | median ms | p90 ms | min ms |")
print("|---|---|---|---|")
print(f"| base | {b['median']:.1f} | {b['p90']:.1f} | {b['min']:.1f} |")
print(f"| forge | {f['median']:.1f} | {f['p90']:.1f} | {f['min']:.1f} |")
print(f"forge / base: {ratio:.2f}x ({'ok' if ratio <= 1.2 else 'OVER 1.2x'})")
sys.exit(0 if ratio <= 1.2 else 1)
PY
done
exit $status
