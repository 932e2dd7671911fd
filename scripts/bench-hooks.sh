#!/usr/bin/env bash
# Benchmark: `forge hook Stop` and `forge hook SessionStart` against `git status
# --porcelain` (the floor: what any tool that reports a dirty tree pays) and /bin/true,
# all interleaved in one run (true, git status, Stop, SessionStart, true, …), on a
# 40-file repository and on a generated one of 20,000 files (one file changed, one
# untracked, as a used tree is).
#
# The 40-file repository is measured twice: in $TMPDIR (disk) and in /dev/shm (tmpfs,
# when there is one). Both forge and git status create a file or two per call (forge
# its state files, git status its index.lock); on ext4 without a journal a create
# scans past every inode of its group deleted in the last ~30 s, which a benchmark
# running hooks back to back piles up, so on disk the small repository's figures
# depend on which block group each folder landed in (the run prints what a create
# cost). tmpfs shows the same work without that, and so does ext4 with a journal
# (mkfs.ext4's default; the scan over recently deleted inodes happens only without
# one): give a folder on one as JOURNALED_DIR to measure the small repository there
# too, e.g.
#   truncate -s 512M /tmp/j.img && mkfs.ext4 -q /tmp/j.img && mount -o loop /tmp/j.img /mnt/j
#   JOURNALED_DIR=/mnt/j scripts/bench-hooks.sh
#
# Targets (issue 12): median <= 1.3x git status's at both sizes. It exits 1 when a
# target is missed.
#
# The guard (issues 22 and 31): Claude Code runs every hook command through `sh -c`,
# and the entries forge writes search PATH's absolute folders with shell built-ins
# and `exec` the first forge (so a teammate without forge gets no failed hook, and a
# relative PATH entry never runs a repository's ./forge). Three more rows run Stop
# that way, as the client does, with forge found on PATH: `sh -c` of the bare
# `forge hook Stop` (what the entries once were), `sh -c` of the guarded command
# (taken from plugin/hooks/hooks.json, which a unit test keeps equal to what `forge
# init` writes), and `sh -c` of the `command -v forge … && exec forge …` guard
# earlier versions wrote; the last column of those rows is the guard's cost against
# the bare entry (the search runs in the shell that was started anyway; `exec` adds
# no process). Reported, not a target.
# Against an earlier forge (issue 23: "no slower than today"): with BASE set to another
# build's binary, a row more runs that build's `forge hook Stop` interleaved with the
# rest on the same repositories (its Stop and SessionStart), and forge's rows say this
# build / that one.
# BASE is timed as given: a dynamic build of an older commit differs from the static
# forge in its linking too (scripts/build-static.sh at that commit compares code alone).
# Usage: [BASE=/path/to/old/forge] scripts/bench-hooks.sh [RUNS]   (default 60 runs per command)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-60}
# The release's static binary (scripts/build-static.sh; LINK=dynamic: cargo build's).
NEW=$(scripts/build-static.sh)
WORK=$(mktemp -d)
# forge as installed (a copy, as `cargo install` makes): see bench-statusline.sh.
install -Dm755 "$NEW" "$WORK/bin/forge"
BIN=$WORK/bin/forge
BASE_BIN=""
if [ -n "${BASE:-}" ]; then install -Dm755 "$BASE" "$WORK/base/forge"; BASE_BIN=$WORK/base/forge; fi
SHM=""
if [ -d /dev/shm ] && [ -w /dev/shm ]; then SHM=$(mktemp -d -p /dev/shm); fi
trap 'rm -rf "$WORK" ${SHM:+"$SHM"}' EXIT
export HOME=$WORK/home GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
mkdir -p "$HOME"
unset CLAUDE_PROJECT_DIR CLAUDE_CONFIG_DIR

make_repo() { # dir nfiles
  mkdir -p "$1"; (cd "$1" && git init -q -b main && python3 - "$2" <<'PY'
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = f"src/m{i // 500:03d}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i:05d}.rs", "w") as f:
        f.write(f"// file {i}\n")
PY
  git add -A && git commit -qm init && echo dirty >> src/m000/f00000.rs && echo new > untracked.txt
  sleep 1.1; git update-index -q --refresh >/dev/null || true)  # settle racy-git timestamps, as a used repo is
}
payload() { # repo fixture
  sed -e "s#/home/alice/src/acme-api#$1#g" -e "s#/home/alice/.claude#$HOME/.claude#g" "tests/fixtures/hooks/$2"
}

REPOS=("$WORK/small" "$WORK/large")
make_repo "$WORK/small" 40
make_repo "$WORK/large" 20000
if [ -n "$SHM" ]; then make_repo "$SHM/small" 40; REPOS+=("$SHM/small"); fi
JOURNALED=""
if [ -n "${JOURNALED_DIR:-}" ]; then
  JOURNALED=$(mktemp -d -p "$JOURNALED_DIR")
  trap 'rm -rf "$WORK" ${SHM:+"$SHM"} "$JOURNALED"' EXIT
  make_repo "$JOURNALED/small" 40; REPOS+=("$JOURNALED/small")
fi
for r in "${REPOS[@]}"; do
  payload "$r" Stop.json > "$r.stop.json"
  payload "$r" SessionStart-startup.json > "$r.start.json"
  mkdir -p "$r/.forge/handoffs"
  cp tests/fixtures/handoffs/*.md "$r/.forge/handoffs/"
  # .forge/ is git-ignored in a set-up project (forge init sees to it).
  echo ".forge/" > "$r/.git/info/exclude"
done

python3 - "$BIN" "$RUNS" "$BASE_BIN" "${REPOS[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, "scripts")
from bench_lib import interleaved
binp, n, base, repos = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
# The guarded Stop command exactly as forge writes it (plugin/hooks/hooks.json is
# generated from the same function as `forge init`'s entries).
with open("plugin/hooks/hooks.json") as f:
    guarded = json.load(f)["hooks"]["Stop"][0]["hooks"][0]["command"]
assert guarded.startswith("p=$PATH:; while") and 'exec "$d/forge" hook Stop' in guarded, guarded
older = "command -v forge >/dev/null 2>&1 && exec forge hook Stop || true"
# forge found on PATH, as installed: the shell's lookup is part of what is measured.
path_env = dict(os.environ, PATH=os.path.dirname(binp) + ":" + os.environ["PATH"])
print(f"forge hook benchmark, {n} interleaved runs per command (wall time incl. process start)\n")
print("| repository | command | median ms | p90 ms | / git status | ≤ 1.3× |")
print("|---|---|---|---|---|---|")
fail = False
def where(path):
    """The file system under `path`, and for ext4 whether it has a journal."""
    best = ("", "", "")
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            point = left.split()[4]
            fstype, source = right.split()[:2]
            inside = path == point or path.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best[0]):
                best = (point, fstype, source)
    _, fstype, source = best
    if fstype == "ext4":
        dev = os.path.basename(os.path.realpath(source))
        journal = any(n.startswith(dev + "-") for n in os.listdir("/proc/fs/jbd2")) \
            if os.path.isdir("/proc/fs/jbd2") else False
        return "ext4 " + ("with journal" if journal else "without journal")
    return fstype or "?"
import os
for cwd in repos:
    files = "20,000 files" if cwd.endswith("large") else "40 files"
    where_ = where(cwd)
    cmds = {
        "/bin/true": (["/bin/true"], None),
        "git status --porcelain": (["git", "status", "--porcelain"], None),
        "forge hook Stop": ([binp, "hook", "Stop"], f"{cwd}.stop.json"),
        "forge hook SessionStart": ([binp, "hook", "SessionStart"], f"{cwd}.start.json"),
        "sh -c 'forge hook Stop'": (["sh", "-c", "forge hook Stop"], f"{cwd}.stop.json"),
        "sh -c guarded Stop": (["sh", "-c", guarded], f"{cwd}.stop.json"),
        "sh -c older guard Stop": (["sh", "-c", older], f"{cwd}.stop.json"),
    }
    if base:
        cmds["BASE hook Stop"] = ([base, "hook", "Stop"], f"{cwd}.stop.json")
        cmds["BASE hook SessionStart"] = ([base, "hook", "SessionStart"], f"{cwd}.start.json")
    r = interleaved(cmds, n, env=path_env, cwd=cwd)
    floor = r["git status --porcelain"]["median"]
    bare = r["sh -c 'forge hook Stop'"]["median"]
    for label, s in r.items():
        ratio = s["median"] / floor
        verdict = ""
        if label.startswith("forge"):
            ok = ratio <= 1.3
            fail |= not ok
            verdict = "yes" if ok else "NO"
            event = label.removeprefix("forge hook ")
            if base:
                verdict += f"; {s['median'] / r['BASE hook ' + event]['median']:.2f}× BASE's {event}"
        elif label in ("sh -c guarded Stop", "sh -c older guard Stop"):
            verdict = f"guard: {s['median'] / bare:.3f}× the bare entry"
        print(f"| {files}, {where_} | `{label}` | {s['median']:.2f} | {s['p90']:.2f} | {ratio:.2f}× | {verdict} |")
# Every hook replaces a state file or two, which takes a new inode. On ext4 without a
# journal (this VM's root file system) allocating one skips every inode of the group
# deleted in the last ~30 s, so a benchmark that runs hooks back to back makes its own
# creates slower: say how slow they were here, right after the runs.
import os, time
logs = f"{repos[0]}/.forge/logs"
t = []
for i in range(50):
    t0 = time.perf_counter()
    fd = os.open(f"{logs}/.forge-bench{i}.tmp", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    t.append((time.perf_counter() - t0) * 1000)
    os.close(fd)
for i in range(50):
    os.unlink(f"{logs}/.forge-bench{i}.tmp")
t.sort()
print(f"\ncreating a file in the 40-file repository's .forge/logs right after: median {t[25]:.3f} ms "
      f"(a few µs where inodes are not churned)")
sys.exit(1 if fail else 0)
PY
