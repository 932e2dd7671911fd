#!/usr/bin/env bash
# Benchmark `forge statusline` in a repository of one work tree and in one of ten
# (the main work tree and nine `git worktree add`s, whose Signals are one inbox:
# docs/design.md#the-repositorys-inbox), paired with a floor in the same run,
# interleaved (the timer is scripts/bench_timer.rs, as for bench-statusline.sh):
#   floor - reads stdin and .git/HEAD and prints a line (the least a statusline does)
# Each repository has 2,000 committed files, the fixture handoffs and 30 agent
# Signals in its main work tree; each linked work tree has 3 agent handoffs of its
# own in its .forge/handoffs/ (written by hand, as an agent may), so the count is of
# every folder. Ticks are timed in the one-worktree repository, in the ten-worktree
# one's main work tree and in one of its linked work trees, each with its own
# payload; the folders are left alone 3 s first (SIGNAL_RACY), as a folder written
# minutes ago would be, so the ticks are answered from the Signal cache.
#
# Targets: one work tree costs what it did (forge / floor as bench-statusline.sh
# finds it: ≤ 1.5×; with BASELINE=/path/to/an/older/forge that forge is timed in
# the same run on a copy of the same repository — a copy, since the two would
# otherwise rewrite each other's Signal cache, whose format changed — for the "no
# cost" comparison), and ten work trees ≤ 1.2× one.
#
# Usage: scripts/bench-statusline-worktrees.sh [RUNS]   (default 300 runs per cell)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-300}"

# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
FORGE_BUILT=$(scripts/build-static.sh)
FIXTURES="$PWD/tests/fixtures"
WORK="$(mktemp -d)"
trap 'cd /; rm -rf "$WORK"' EXIT
# Installed copies, as bench-statusline.sh explains.
mkdir -p "$WORK/bin"
install -m755 "$FORGE_BUILT" "$WORK/bin/forge"
FORGE="$WORK/bin/forge"
cat > "$WORK/floor.rs" <<'EOF'
use std::io::Read;
fn main() {
    let mut input = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut input);
    let head = std::fs::read_to_string(".git/HEAD").unwrap_or_default();
    println!("{} bytes · {}", input.len(), head.trim());
}
EOF
rustc -O -o "$WORK/floor.built" "$WORK/floor.rs"
install -m755 "$WORK/floor.built" "$WORK/floor"
rustc -O -o "$WORK/timer" scripts/bench_timer.rs
BASE_CMD=()
if [ -n "${BASELINE:-}" ]; then
  install -m755 "$BASELINE" "$WORK/bin/forge-baseline"
fi

export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/xdg" XDG_STATE_HOME="$WORK/state"
unset CLAUDE_PROJECT_DIR
mkdir -p "$HOME" "$XDG_CONFIG_HOME"
G=(git -c user.name=bench -c user.email=b@b)

make_repo() { # $1 folder
  mkdir -p "$1"
  python3 - "$1" <<'EOF'
import os, sys
root = sys.argv[1]
for d in range(20):
    dd = os.path.join(root, "src", f"mod{d:03}")
    os.makedirs(dd, exist_ok=True)
    for f in range(100):
        with open(os.path.join(dd, f"file{f:03}.rs"), "w") as fh:
            fh.write(f"// module {d} file {f}\npub fn f{f}() -> u32 {{ {f} }}\n")
EOF
  (cd "$1" && git init -q -b main && git config gc.auto 0 && "${G[@]}" add -A &&
    "${G[@]}" commit -qm "2,000 files")
  mkdir -p "$1/.forge/handoffs"
  for f in "$FIXTURES"/handoffs/*.md; do cp "$f" "$1/.forge/handoffs/"; done
  for i in $(seq 100 129); do
    sed "s/T-012/T-$i/g" "$FIXTURES"/handoffs/agent-T-012-20261121-101502.md \
      > "$1/.forge/handoffs/agent-T-$i-20261120-1000$((i % 60 + 10)).md"
  done
}

ONE="$WORK/one"
TEN="$WORK/ten"
make_repo "$ONE"
make_repo "$TEN"
[ -n "${BASELINE:-}" ] && make_repo "$WORK/base"
for n in $(seq 1 9); do
  (cd "$TEN" && git worktree add -q -b "wt$n" "$WORK/ten-wt$n")
  mkdir -p "$WORK/ten-wt$n/.forge/handoffs"
  for i in 1 2 3; do
    sed "s/T-012/T-$n$i/g" "$FIXTURES"/handoffs/agent-T-012-20261121-101502.md \
      > "$WORK/ten-wt$n/.forge/handoffs/agent-T-$n$i-20261121-10150$i.md"
  done
done
LINKED="$WORK/ten-wt5"

payload() { # $1 project folder -> stdout
  sed -e "s#/home/alice/.claude/projects/-home-alice-src-acme-api/3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21.jsonl##" \
      -e "s#/home/alice/src/acme-api#$1#g" \
      "$FIXTURES/statusline/used-42.json"
}
payload "$ONE" > "$WORK/p-one.json"
payload "$TEN" > "$WORK/p-ten.json"
payload "$LINKED" > "$WORK/p-linked.json"
payload "$WORK/base" > "$WORK/p-base.json"
stop() { # $1 forge, $2 folder
  (cd "$2" && printf '{"session_id":"bench","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' "$2" |
    "$1" hook Stop >/dev/null)
}
for dir in "$ONE" "$TEN" "$LINKED"; do stop "$FORGE" "$dir"; done
[ -n "${BASELINE:-}" ] && stop "$WORK/bin/forge-baseline" "$WORK/base"
sleep 3
for p in one ten linked; do
  "$FORGE" statusline < "$WORK/p-$p.json" > "$WORK/line-$p.txt"
done
if [ -n "${BASELINE:-}" ]; then
  BASE_CMD=(::: "<$WORK/p-base.json" "$WORK/bin/forge-baseline" statusline)
  "$WORK/bin/forge-baseline" statusline < "$WORK/p-base.json" > /dev/null
fi

cd "$ONE"
echo "tool: rustc-built timer (spawn + wait; every command interleaved), runs per cell: $RUNS"
echo "repositories: $(git ls-files | wc -l) tracked files; main work tree: $(ls .forge/handoffs | wc -l) handoff files; ten-worktree repository: $(cd "$TEN" && git worktree list | wc -l) work trees"
echo
{
  read -r one_med one_min _; read -r ten_med ten_min _; read -r lk_med lk_min _
  read -r fl_med _ _; read -r t_med _ _
  if [ -n "${BASELINE:-}" ]; then read -r b_med b_min _; fi
} < <("$WORK/timer" "$RUNS" "$WORK/p-one.json" \
        "<$WORK/p-one.json" "$FORGE" statusline ::: \
        "<$WORK/p-ten.json" "$FORGE" statusline ::: \
        "<$WORK/p-linked.json" "$FORGE" statusline ::: \
        "$WORK/floor" ::: /bin/true "${BASE_CMD[@]}")
fail=0
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
echo "| case | forge statusline median (min) | forge / floor | / one work tree | target | ok |"
echo "|---|---|---|---|---|---|"
ok=$(python3 -c "print('yes' if $one_med <= 1.5 * $fl_med else 'NO')"); [ "$ok" = yes ] || fail=1
echo "| one work tree | ${one_med} ms (${one_min}) | $(ratio "$one_med" "$fl_med")× | 1.00× | ≤ 1.5× floor | $ok |"
for c in "ten work trees, in the main one:$ten_med:$ten_min" "ten work trees, in a linked one:$lk_med:$lk_min"; do
  IFS=: read -r label med min <<< "$c"
  ok=$(python3 -c "print('yes' if $med <= 1.2 * $one_med else 'NO')"); [ "$ok" = yes ] || fail=1
  echo "| $label | ${med} ms (${min}) | $(ratio "$med" "$fl_med")× | $(ratio "$med" "$one_med")× | ≤ 1.2× one | $ok |"
done
if [ -n "${BASELINE:-}" ]; then
  echo "| one work tree, BASELINE forge | ${b_med} ms (${b_min}) | $(ratio "$b_med" "$fl_med")× | $(ratio "$b_med" "$one_med")× | (reference) | |"
fi
echo "| floor | ${fl_med} ms | 1.00× | | | |"
echo "| /bin/true | ${t_med} ms | | | | |"
echo
for p in one ten linked; do
  echo "sample line ($p): $(sed 's/\x1b\[[0-9;]*m//g' "$WORK/line-$p.txt")"
done
exit $fail
