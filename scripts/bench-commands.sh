#!/usr/bin/env bash
# Benchmark the setup and workflow commands against a floor measured in the same run.
#
# The floor is `forge --version`: process start plus clap, no disk work. The commands
# run in a temporary git project (HOME and XDG_CONFIG_HOME in temporary folders) that
# forge init has wired, with 60 handoffs (a third of them agent handoffs with
# Signals), 20 slash-command/agent files and 10 learned memory files, so doctor and
# resume have real work to do. Prints a markdown table of milliseconds.
#
# Uses hyperfine when installed (-N, no shell); otherwise a bash timing loop.
#
# Usage: scripts/bench-commands.sh [RUNS]   (default 30 runs per command)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-30}"

# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
FORGE_BUILT=$(scripts/build-static.sh)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# forge as installed (a copy, as `cargo install` makes): see bench-statusline.sh.
install -Dm755 "$FORGE_BUILT" "$WORK/bin/forge"
FORGE="$WORK/bin/forge"
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/xdg"
unset CLAUDE_PROJECT_DIR CLAUDE_CONFIG_DIR
P="$WORK/project"
mkdir -p "$P" "$HOME" "$XDG_CONFIG_HOME"
cd "$P"
git init -q -b main
echo "# bench" > README.md
git -c user.name=b -c user.email=b@b add -A
git -c user.name=b -c user.email=b@b commit -qm init
"$FORGE" init --commands > /dev/null
for i in $(seq -w 1 40); do
  cat > ".forge/handoffs/handoff-202611${i: -2}-0945${i: -2}.md" <<EOT
---
kind: session-handoff
created_at: 2026-11-01T09:45:00Z
trigger: context-threshold
branch: main
uncommitted_changes: 1
---
# Session handoff — T-$i

## Next steps
Carry on.
EOT
done
for i in $(seq -w 1 20); do
  "$FORGE" signal --from builder --to reviewer --task "T-$i" --status partial \
    --question "q$i" --file "src/f$i.rs" > /dev/null
done
mkdir -p .claude/agents
for i in $(seq 1 18); do
  printf -- '---\ndescription: a%s\nmodel: sonnet\n---\nbody\n' "$i" > ".claude/agents/a$i.md"
done
MEM="$HOME/.claude/projects/$(realpath "$P" | sed 's/[^a-zA-Z0-9]/-/g')/memory"
mkdir -p "$MEM"
for i in $(seq 1 10); do
  for l in $(seq 1 60); do echo "Line $l of pattern $i: run cargo test --workspace first."; done > "$MEM/learned-p$i.md"
done
seq 1 100 | sed 's/^/- note /' > "$MEM/MEMORY.md"

CMDS=(
  "--version"
  "doctor"
  "init"
  "init --dry-run"
  "resume"
  "config show"
  "learn status"
)

ms_loop() {
  local args=("$@") t0 t1 times=()
  for _ in 1 2 3; do "$FORGE" "${args[@]}" > /dev/null 2>&1; done
  for _ in $(seq 1 "$RUNS"); do
    t0=$(date +%s%N)
    "$FORGE" "${args[@]}" > /dev/null 2>&1
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1; s+=$1} END {printf "%.2f %.2f %.2f\n", a[int((NR+1)/2)]/1000, a[1]/1000, s/NR/1000}'
}

ms_hyperfine() {
  local json="$WORK/h.json"
  hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$json" "$FORGE $*" > /dev/null 2>&1
  python3 - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(f"{r['median']*1000:.2f} {r['min']*1000:.2f} {r['mean']*1000:.2f}")
PY
}

# Every command must succeed here, or its timing means nothing.
for c in "${CMDS[@]}"; do
  # shellcheck disable=SC2086
  "$FORGE" $c > /dev/null 2>&1 || { echo "forge $c failed in the bench project" >&2; exit 1; }
done

echo "| command | median ms | min ms | mean ms |"
echo "|---|---|---|---|"
for c in "${CMDS[@]}"; do
  # shellcheck disable=SC2086
  if command -v hyperfine > /dev/null; then read -r med min mean < <(ms_hyperfine $c)
  else read -r med min mean < <(ms_loop $c); fi
  label="forge $c"; [ "$c" = "--version" ] && label="forge --version (floor)"
  echo "| \`$label\` | $med | $min | $mean |"
done
