#!/usr/bin/env python3
"""What each hook call reads and writes, measured with strace.

Runs one session's hook calls (start, prompt, tool calls, a permission prompt,
Stop, a compaction and the Stop after it, SessionEnd, a second start) through
`forge hook` under `strace -ff`, one call at a time, in a temporary git repository
(one file changed) with a temporary HOME, and prints per call the files opened for
reading (a file opened twice shows ×2), the files written (replaced, created or
appended) and the files removed. Only files under the repository and HOME are
listed, never inside `.git/`; folders listed (git's scan of the work tree among
them) are marked `(list)`. Given an older binary too, it prints per call the counts
before → after, with the system calls the call made (all its threads and the
processes it started: git's scan included).

No call runs within two seconds of a change to `.forge/handoffs/` (the Signal
count's margin for a coarse clock): in a session, the calls after a handoff is
written are seconds apart, and the counts then do not depend on the machine's speed.

Usage:
  scripts/trace-hooks.py BIN [OLD_BIN] [--files N]

N is the number of files of the generated repository (default 40; the hook
benchmark uses 40 and 20000). Needs strace and git.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
SID = "3f0c2a9e-8b1d-4c57-9e2a-6d4f1b7c8e21"
# The Signal count's cache answers alone only when handoffs/ last changed this long
# before it was built (store::handoffs::SIGNAL_RACY); calls are spaced so that none
# runs within it, as in a session, where calls after a handoff is written are
# seconds apart. Without it, how many calls rebuild the cache would depend on the
# machine's speed.
RACY = 2.1
CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\d+|\?)")


def trace(binary, nfiles=40):
    """[(label, reads, writes, removed, system calls)], one per call of the session."""
    binary = os.path.abspath(binary)
    work = tempfile.mkdtemp(prefix="forge-trace-")
    try:
        return _trace(binary, nfiles, work)
    finally:
        shutil.rmtree(work)


def _trace(binary, nfiles, work):
    repo, home = os.path.join(work, "repo"), os.path.join(work, "home")
    os.makedirs(repo)
    os.makedirs(home)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_STATE_HOME=os.path.join(home, ".local/state"),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for k in ("CLAUDE_PROJECT_DIR", "CLAUDE_CONFIG_DIR", "CLAUDE_PID", "TMUX", "TMUX_PANE",
              "FORGE_AGENT"):
        env.pop(k, None)

    def git(*args):
        subprocess.run(("git",) + args, cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for i in range(nfiles):
        d = os.path.join(repo, f"src/m{i // 500:03d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:05d}.rs"), "w") as f:
            f.write(f"// {i}\n")
    git("add", "-A")
    git("commit", "-qm", "init")
    with open(os.path.join(repo, "src/m000/f00000.rs"), "a") as f:
        f.write("dirty\n")
    with open(os.path.join(repo, ".git/info/exclude"), "w") as f:
        f.write(".forge/\n")
    tdir = os.path.join(home, ".claude/projects/-home-alice-src-acme-api")
    os.makedirs(tdir)
    shutil.copy(os.path.join(FIXTURES, "transcripts/recorded-read-compact-write.jsonl"),
                os.path.join(tdir, SID + ".jsonl"))
    os.makedirs(os.path.join(repo, ".forge/handoffs"))
    for name in os.listdir(os.path.join(FIXTURES, "handoffs")):
        shutil.copy(os.path.join(FIXTURES, "handoffs", name),
                    os.path.join(repo, ".forge/handoffs", name))

    def payload(name, **extra):
        with open(os.path.join(FIXTURES, "hooks", name)) as f:
            text = f.read()
        text = text.replace("/home/alice/src/acme-api", repo)
        text = text.replace("/home/alice/.claude", home + "/.claude")
        v = json.loads(text)
        v.update(extra)
        return v

    base = payload("Stop.json")

    def event(name, **extra):
        v = {k: base[k] for k in ("session_id", "transcript_path", "cwd", "prompt_id")}
        v["hook_event_name"] = name
        v.update(extra)
        return v

    edit = {"file_path": repo + "/src/m000/f00001.rs"}
    calls = [
        ("SessionStart startup", payload("SessionStart-startup.json")),
        ("UserPromptSubmit", event("UserPromptSubmit", prompt="hi")),
        ("PreToolUse Read", event("PreToolUse", tool_name="Read", tool_input=edit)),
        ("PreToolUse Bash (first of the turn)", payload("PreToolUse.json")),
        ("PreToolUse Bash (second)", payload("PreToolUse.json")),
        ("PreToolUse Edit (first)", event("PreToolUse", tool_name="Edit", tool_input=edit)),
        ("PreToolUse Edit (second)", event("PreToolUse", tool_name="Edit", tool_input=edit)),
        ("PermissionRequest", event("PermissionRequest", tool_name="Bash")),
        ("Notification permission_prompt", event(
            "Notification", notification_type="permission_prompt",
            message="Claude needs your permission")),
        ("PreToolUse Bash (after the prompt)", payload("PreToolUse.json")),
        ("Stop (first)", payload("Stop.json")),
        ("Stop (second)", payload("Stop.json")),
        ("Notification idle_prompt", payload("Notification-idle.json")),
        ("PreCompact", payload("PreCompact-auto.json")),
        ("SessionStart compact", payload("SessionStart-compact.json")),
        ("Stop (after the compaction: blocks)", payload("Stop.json")),
        ("SessionEnd", payload("SessionEnd.json")),
        ("SessionStart startup (next session)", dict(
            payload("SessionStart-startup.json"),
            session_id="aaaaaaaa-0000-4000-8000-000000000002")),
    ]

    def short(p):
        p = os.path.normpath(p)
        if p == repo + "/.git" or p.startswith(repo + "/.git/"):
            return None
        if p.startswith(repo):
            return "<repo>" + p[len(repo):]
        if p.startswith(home):
            return "~" + p[len(home):]
        return None

    def temp(p):
        return os.path.basename(p).startswith(".forge-") and p.endswith(".tmp")

    rows = []
    out_dir = os.path.join(work, "strace")
    handoffs = os.path.join(repo, ".forge/handoffs")
    past = time.time() - 10
    os.utime(handoffs, (past, past))
    for label, v in calls:
        age = time.time() - os.stat(handoffs).st_mtime
        if age < RACY:
            time.sleep(RACY - age)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        subprocess.run(
            ["strace", "-ff", "-qq", "-o", os.path.join(out_dir, "t"),
             binary, "hook", v["hook_event_name"]],
            input=json.dumps(v).encode(), cwd=repo, env=env, capture_output=True, check=True)
        reads, writes, removed = (collections.Counter() for _ in range(3))
        syscalls = 0
        for name in sorted(os.listdir(out_dir)):
            with open(os.path.join(out_dir, name), errors="replace") as f:
                for line in f:
                    m = CALL.match(line)
                    if not m:
                        continue
                    syscalls += 1
                    if m.group(3).startswith("-") or m.group(3) == "?":
                        continue
                    syscall, args = m.group(1), m.group(2)
                    names = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
                    if not names:
                        continue
                    if syscall == "openat":
                        p = short(names[0])
                        if p is None or temp(names[0]) or p.endswith(".lock"):
                            continue
                        if "O_DIRECTORY" in args:
                            reads[p + " (list)"] += 1
                        elif "O_WRONLY" in args or "O_RDWR" in args:
                            writes[p + (" (append)" if "O_APPEND" in args else "")] += 1
                        else:
                            reads[p] += 1
                    elif syscall.startswith("rename"):
                        p = short(names[-1])
                        if p:
                            writes[p] += 1
                    elif syscall.startswith("unlink"):
                        p = short(names[-1])
                        if p and not temp(names[-1]):
                            removed[p] += 1
        rows.append((label, reads, writes, removed, syscalls))
    return rows


def listed(c):
    return "; ".join(k + (f" ×{n}" if n > 1 else "") for k, n in sorted(c.items())) or "—"


def counts(reads, writes):
    files = {k: n for k, n in reads.items() if not k.endswith("(list)")}
    bridge = lambda c: sum(n for k, n in c.items() if "/logs/sessions/" in k and k.endswith(".json"))
    return len(files), sum(files.values()), bridge(files), bridge(writes), sum(writes.values())


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    nfiles = 40
    if "--files" in args:
        i = args.index("--files")
        nfiles = int(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    if shutil.which("strace") is None:
        print("trace-hooks: strace is not installed (apt-get install strace)", file=sys.stderr)
        return 1
    print(f"{nfiles} files in the repository")
    if len(args) == 2:
        after, before = trace(args[0], nfiles), trace(args[1], nfiles)
        print("| call | files read (opens) | bridge read | bridge written | files written | system calls |")
        print("|---|---|---|---|---|---|")
        for (label, rb, wb, _, sb), (_, ra, wa, _, sa) in zip(before, after):
            f1, o1, br1, bw1, w1 = counts(rb, wb)
            f2, o2, br2, bw2, w2 = counts(ra, wa)
            print(f"| {label} | {f1} ({o1}) → {f2} ({o2}) | {br1} → {br2} | {bw1} → {bw2} "
                  f"| {w1} → {w2} | {sb} → {sa} |")
        return 0
    print("| call | read (opens) | written | removed | system calls |")
    print("|---|---|---|---|---|")
    for label, r, w, d, n in trace(args[0], nfiles):
        print(f"| {label} | {listed(r)} | {listed(w)} | {listed(d)} | {n} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
