#!/usr/bin/env bash
# Benchmarks for `forge tui`, each against a floor measured in the same run:
#   1. `forge tui --once` on a git project with 20,000 handoff files (HANDOFFS=n to
#      change): wall time of the first frame, interleaved with `cat` of the same files
#      and /bin/true (target: <= 1.2x cat), and peak memory (max RSS, /usr/bin/time;
#      target <= 20 MiB).
#   2. Live latency: a handoff file written while the dashboard runs in tmux, until
#      the frame that shows it has been drawn (target <= 300 ms). The dashboard logs
#      the time of every frame it draws (hidden flag --trace-draws); we also poll
#      `tmux capture-pane` until the new task is on the screen, as an end-to-end check.
#   3. Idle CPU of the running dashboard over 5 s (expected: near zero).
#   4. The same for the fleet list (`forge tui --all`), and how often its loop (the
#      main thread) woke up meanwhile (expected: 0; it sleeps until the 30 s tick).
# Needs tmux for 2, 3 and 4.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-20}
HANDOFFS=${HANDOFFS:-20000}
# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
FORGE_BUILT=$(scripts/build-static.sh)
T=$(mktemp -d)
# forge as installed (a copy, as `cargo install` makes): see bench-statusline.sh.
install -Dm755 "$FORGE_BUILT" "$T/bin/forge"
BIN="$T/bin/forge"
SOCK="forge-bench-$$"
cleanup() {
  tmux -L "$SOCK" kill-server 2>/dev/null || true
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
  rm -rf "$T"
}
trap cleanup EXIT

now_us() { date +%s%6N; }

# --- a project with $HANDOFFS handoffs --------------------------------------------
# A quarter each: session handoffs, complete Signals, malformed Signals, and complete
# Signals with one blocked in a hundred — the shapes of the fixtures, each its task.
P="$T/project"
H="$P/.forge/handoffs"
mkdir -p "$H" "$P/.forge/logs/sessions" "$T/home"
git -C "$P" init -q -b main
for i in $(seq 1 20); do printf 'line %s\n' "$i" > "$P/file$i.txt"; done
git -C "$P" add . && git -C "$P" -c user.name=b -c user.email=b@b commit -qm init
FIX=tests/fixtures/handoffs
blocked=$(<"$FIX/agent-T-012-20261121-101502.md")
python3 - "$H" "$FIX" "$HANDOFFS" <<'PY'
import os, sys
out, fix, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
read = lambda name: open(os.path.join(fix, name)).read()
blocked, complete = read("agent-T-012-20261121-101502.md"), read("agent-T-010-20261120-170944.md")
malformed, session = read("agent-T-011-20261121-090102.md"), read("handoff-20261121-094500.md")
for i in range(n):
    d, m = i // 1440, i % 1440
    stamp = "2026%02d%02d-%02d%02d00" % (d // 28 + 1, d % 28 + 1, m // 60, m % 60)
    kind = i % 4
    if kind == 0:
        name, text = f"handoff-{stamp}.md", session
    elif kind == 2:
        name, text = f"agent-T-{i}-{stamp}.md", malformed.replace("T-011", f"T-{i}")
    else:
        src = blocked.replace("T-012", f"T-{i}") if kind == 3 and i % 100 == 3 else complete.replace("T-010", f"T-{i}")
        name, text = f"agent-T-{i}-{stamp}.md", src
    with open(os.path.join(out, name), "w") as f:
        f.write(text + "\n")
PY
count=$(ls "$H" | wc -l)
echo "project: $count handoff files, $(du -sh "$H" | cut -f1)"

export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" NO_COLOR=1
unset CLAUDE_PROJECT_DIR CLAUDE_CONFIG_DIR || true

# --- 1. --once: first frame and peak memory ------------------------------------------
ONCE=("$BIN" tui --once --project "$P" --width 100 --height 30)
"${ONCE[@]}" > /dev/null  # warm the page cache
cat "$H"/* > /dev/null
echo
echo "== forge tui --once, $count handoffs: $RUNS runs interleaved with its floors"
python3 - "$H" "$RUNS" "${ONCE[@]}" <<'PY'
import os, subprocess, sys
sys.path.insert(0, "scripts")
from bench_lib import interleaved
h, n, once = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = sorted(os.listdir(h))
r = interleaved({
    "forge tui --once": (once, None),
    "cat of the files": (["cat"] + names, None, h),
    "/bin/true": (["/bin/true"], None),
}, n)
def rss_mib(cmd, cwd=None):
    runs = []
    for _ in range(5):
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        runs.append(int(p.stderr.strip().splitlines()[-1]) / 1024)
    return sorted(runs)[len(runs) // 2]
mem = {"forge tui --once": rss_mib(once), "cat of the files": rss_mib(["cat"] + names, h),
       "/bin/true": rss_mib(["/bin/true"])}
cat = r["cat of the files"]["median"]
print("| command | median ms | p90 ms | / cat | max RSS (median of 5) |")
print("|---|---|---|---|---|")
for label, s in r.items():
    print(f"| {label} | {s['median']:.1f} | {s['p90']:.1f} | {s['median'] / cat:.2f}× | {mem[label]:.1f} MiB |")
f = r["forge tui --once"]["median"]
print(f"\nfirst frame <= 1.2x cat: {'yes' if f <= 1.2 * cat else 'NO'} ({f / cat:.2f}x); "
      f"peak memory <= 20 MiB: {'yes' if mem['forge tui --once'] <= 20 else 'NO'} "
      f"({mem['forge tui --once']:.1f} MiB)")
PY

# --- 2. live latency -------------------------------------------------------------------
if ! command -v tmux > /dev/null 2>&1; then
  echo "== live latency: SKIPPED (tmux not installed)"
  exit 0
fi
TRACE="$T/draws.log"
tmux -L "$SOCK" -f /dev/null new-session -d -s b -x 100 -y 30 \
  "exec '$BIN' tui --project '$P' --trace-draws '$TRACE'"
PID=$(tmux -L "$SOCK" list-panes -t b -F '#{pane_pid}')
for _ in $(seq 1 200); do [ -s "$TRACE" ] && break; sleep 0.05; done
sleep 0.5
echo "== a new handoff on screen after it is written (5 files)"
lat_trace=() lat_screen=()
for k in 1 2 3 4 5; do
  task="T-NEW$k"
  file="$H/agent-$task-20991231-23595$k.md"
  before=$(wc -l < "$TRACE")
  t0=$(now_us)
  printf '%s\n' "${blocked//T-012/$task}" > "$file.part" && mv "$file.part" "$file"
  # End to end: poll the terminal until the task is drawn.
  until tmux -L "$SOCK" capture-pane -p -t b | grep -q "$task"; do
    [ $(( $(now_us) - t0 )) -gt 5000000 ] && { echo "  $task never appeared"; exit 1; }
  done
  t_screen=$(now_us)
  # The frame that drew it, from the dashboard's own log.
  drawn=$(tail -n +"$((before + 1))" "$TRACE" | awk -v c="$((count + k))" '$2 == "handoffs="c {print $1; exit}')
  lat_screen+=($(( (t_screen - t0) / 1000 )))
  lat_trace+=($(( (${drawn:-$t_screen} - t0) / 1000 )))
  sleep 0.3
done
echo "  frame drawn (trace):       ${lat_trace[*]} ms   (target <= 300 ms)"
echo "  seen by capture-pane:      ${lat_screen[*]} ms   (includes tmux polling)"
echo "  debounce window: 100 ms, debouncer tick 50 ms (the floor for any debounced watcher)"

# --- 3. idle CPU -----------------------------------------------------------------------
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
hz=$(getconf CLK_TCK)
c0=$(ticks); sleep 5; c1=$(ticks)
awk -v d="$((c1 - c0))" -v hz="$hz" 'BEGIN {printf "== idle CPU over 5 s: %d ticks = %.2f%% of one core\n", d, d / hz / 5 * 100}'
tmux -L "$SOCK" send-keys -t b q

# --- 4. the fleet list, idle ----------------------------------------------------------
export XDG_STATE_HOME="$T/state"
printf '{"session_id":"s1","cwd":"%s","hook_event_name":"Stop"}' "$P" \
  | (cd "$P" && "$BIN" hook Stop)
tmux -L "$SOCK" new-session -d -s f -x 100 -y 30 "exec '$BIN' tui --all"
PID=$(tmux -L "$SOCK" list-panes -t f -F '#{pane_pid}')
for _ in $(seq 1 200); do tmux -L "$SOCK" capture-pane -p -t f | grep -q project && break; sleep 0.05; done
sleep 0.5
woke() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$PID/task/$PID/status"; }
c0=$(ticks); w0=$(woke); sleep 5; c1=$(ticks); w1=$(woke)
awk -v d="$((c1 - c0))" -v w="$((w1 - w0))" -v hz="$hz" 'BEGIN {printf "== fleet list idle over 5 s: %d ticks = %.2f%% of one core; the loop woke %d times\n", d, d / hz / 5 * 100, w}'
tmux -L "$SOCK" send-keys -t f q
