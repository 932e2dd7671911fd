"""Tiny timing harness for scripts/bench-hooks.sh: runs a command N times with stdin
from a file and reports median / p90 / min wall time in milliseconds. (No memory
column: wait4's max RSS of a child forked from Python counts Python's own pages.)"""
import os, statistics, subprocess, sys, time

def run(cmd, stdin_path=None, n=50, env=None, cwd=None, warmup=3):
    times = []
    for i in range(n + warmup):
        fin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=fin, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, _ = os.wait4(p.pid, 0)
        dt = (time.perf_counter() - t0) * 1000
        p.returncode = os.waitstatus_to_exitcode(status)
        if stdin_path:
            fin.close()
        if p.returncode != 0:
            sys.exit(f"{cmd} exited {p.returncode}")
        if i >= warmup:
            times.append(dt)
    times.sort()
    return {
        "median": statistics.median(times),
        "p90": times[int(len(times) * 0.9) - 1],
        "min": times[0],
    }

def row(label, r, floor=None):
    ratio = f"{r['median'] / floor['median']:.2f}x" if floor else ""
    return f"| {label} | {r['median']:.2f} | {r['p90']:.2f} | {r['min']:.2f} | {ratio} |"

HEADER = "| command | median ms | p90 ms | min ms | vs floor |\n|---|---|---|---|---|"
