"""Tiny timing harness for the scripts/bench-*.sh scripts: runs commands with stdin
from a file and reports median / p90 / min wall time in milliseconds.

`interleaved` runs several commands round-robin (forge, then its floor, then forge
again…), so a build or a burst of load elsewhere on the machine hits every command
of a table alike: the ratios stay honest on a shared machine even when the absolute
figures move. (No memory column here: wait4's max RSS of a child forked from Python
counts Python's own pages; the scripts use /usr/bin/time for that.)"""
import os, statistics, subprocess, sys, time

def once(cmd, stdin_path=None, env=None, cwd=None):
    """One run: wall time in ms (fails the benchmark on a non-zero exit)."""
    fin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, _ = os.wait4(p.pid, 0)
    dt = (time.perf_counter() - t0) * 1000
    if stdin_path:
        fin.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{cmd} exited {code}")
    return dt

def stats(times):
    times = sorted(times)
    return {
        "median": statistics.median(times),
        "p90": times[max(int(len(times) * 0.9) - 1, 0)],
        "min": times[0],
    }

def run(cmd, stdin_path=None, n=50, env=None, cwd=None, warmup=3):
    times = [once(cmd, stdin_path, env, cwd) for _ in range(n + warmup)]
    return stats(times[warmup:])

def interleaved(cases, n=50, env=None, cwd=None, warmup=3):
    """cases: {label: (cmd, stdin_path or None[, cwd])}. Runs them round-robin n times
    (after `warmup` untimed rounds) and returns {label: stats}."""
    times = {label: [] for label in cases}
    for i in range(n + warmup):
        for label, case in cases.items():
            cmd, stdin_path = case[0], case[1]
            dt = once(cmd, stdin_path, env, case[2] if len(case) > 2 else cwd)
            if i >= warmup:
                times[label].append(dt)
    return {label: stats(t) for label, t in times.items()}

def row(label, r, floor=None):
    ratio = f"{r['median'] / floor['median']:.2f}x" if floor else ""
    return f"| {label} | {r['median']:.2f} | {r['p90']:.2f} | {r['min']:.2f} | {ratio} |"

HEADER = "| command | median ms | p90 ms | min ms | vs floor |\n|---|---|---|---|---|"
