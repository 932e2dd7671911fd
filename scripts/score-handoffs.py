#!/usr/bin/env python3
"""Scores forge's session handoffs of real transcripts: per transcript, which of the
facts a continuation needs the handoff carries, and its size.

    python3 scripts/score-handoffs.py [--forge PATH] [TRANSCRIPT.jsonl ...]

Without transcripts it scores tests/fixtures/real-transcripts/*.jsonl and
tests/fixtures/transcripts/recorded-plan-question-background-compact.jsonl. Each runs
as a session of a fresh temporary git project (its paths moved there from the folder
it ran in, so the files it edited are the project's): `forge handoff --transcript`,
then the document is read.

What the handoff should carry is read from the transcript here, independently of
forge (a second reader of the same records): the person's first request (their task:
the title and a quote), the pending tasks and next step of Claude Code's latest
compaction summary, the last plan the person approved (ExitPlanMode), their answers
(AskUserQuestion), the files edited since the last compaction, background commands
not reported finished. A fact the transcript does not have is "-", not a miss.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET = 8 * 1024


def records(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict) and not r.get("isSidechain"):
                yield r


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def persons_words(r):
    """The person's request in a user record, or None (what the client wrote)."""
    if r.get("type") != "user" or r.get("isMeta") or r.get("isCompactSummary") or r.get("isVisibleInTranscriptOnly"):
        return None
    content = r.get("message", {}).get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return None
    t = text_of(content).strip()
    m = re.search(r"<command-name>/?([^<]*)</command-name>", t)
    if m:
        args = re.search(r"<command-args>(.*?)</command-args>", t, re.S)
        args = args.group(1).strip() if args else ""
        if m.group(1) in ("compact", "clear", "model", "mcp", "resume", "exit", "config", "context", "cost"):
            return None
        return f"/{m.group(1)} {args}".strip()
    if not t or t.startswith("<") or t.startswith("[Request interrupted"):
        return None
    if re.match(r"^(The user doesn't want|No response requested|Base directory for this skill|\S+ hook (feedback|error|success))", t):
        return None
    return t


def expected(path):
    """What the transcript says a handoff should carry."""
    first = None
    pending = next_step = None
    plan = None
    decisions = []
    since = []
    pending_calls = {}
    background = {}
    compacted = False
    for r in records(path):
        if r.get("type") == "system" and r.get("subtype") == "compact_boundary":
            compacted = True
            since = []
        if r.get("type") == "user" and r.get("isCompactSummary"):
            t = text_of(r["message"]["content"])
            t = t.split("\nSummary:\n", 1)[-1]
            p = re.search(r"\d\.\s+Pending Tasks:\s*\n?(.*?)(?=\n\s*\d\.\s+[A-Z][A-Za-z ]+:|\Z)", t, re.S)
            n = re.search(r"\d\.\s+(?:Optional Next Step|Context for Continuing Work):\s*\n?(.*?)(?=\n\s*\d\.\s+[A-Z][A-Za-z ]+:|\n\n|\Z)", t, re.S)
            pending = p.group(1).strip().splitlines()[0].strip() if p and p.group(1).strip() else None
            next_step = n.group(1).strip().splitlines()[0].strip() if n and n.group(1).strip() else None
        if r.get("type") == "assistant":
            for b in r.get("message", {}).get("content", []) or []:
                if not isinstance(b, dict) or b.get("type") != "tool_use":
                    continue
                name, inp = b.get("name"), b.get("input") or {}
                pending_calls[b.get("id")] = (name, inp)
                if name in ("Edit", "Write", "MultiEdit", "NotebookEdit") and compacted:
                    f = inp.get("file_path") or inp.get("notebook_path")
                    if f and f not in since:
                        since.append(f)
        if r.get("type") == "user":
            w = persons_words(r)
            if w and first is None:
                first = w
            content = r.get("message", {}).get("content")
            t = text_of(content)
            for tid in re.findall(r"<task-id>([^<]+)</task-id>", t):
                background.pop(tid.strip(), None)
            if isinstance(content, list):
                for b in content:
                    if not isinstance(b, dict) or b.get("type") != "tool_result":
                        continue
                    name, inp = pending_calls.get(b.get("tool_use_id"), (None, {}))
                    res = text_of(b.get("content")) if not isinstance(b.get("content"), str) else b.get("content")
                    extra = r.get("toolUseResult") if isinstance(r.get("toolUseResult"), dict) else {}
                    if name == "ExitPlanMode" and res.startswith("User has approved your plan"):
                        body = res.split("## Approved Plan", 1)[-1].split(":", 1)[-1].strip() if "## Approved Plan" in res else inp.get("plan", "")
                        if body.strip():
                            plan = body.strip().splitlines()[0]
                    if name == "AskUserQuestion" and isinstance(extra.get("answers"), dict):
                        decisions.extend(extra["answers"].items())
                    if name == "Bash":
                        m = re.search(r"background with ID: (\w+)", res)
                        bid = extra.get("backgroundTaskId") or (m.group(1) if m else None)
                        if bid:
                            background[bid] = inp.get("command", "")
                    if name in ("TaskStop", "KillShell", "KillBash") and not b.get("is_error"):
                        background.pop(inp.get("task_id") or inp.get("shell_id"), None)
    return {
        "task": first,
        "pending": pending,
        "next": next_step,
        "plan": plan,
        "decisions": decisions,
        "since": since,
        "background": list(background.values()),
    }


def ran_in(path):
    for r in records(path):
        if r.get("cwd"):
            return r["cwd"]
    return None


def handoff(forge, path):
    """The document `forge handoff --transcript` writes for the transcript, run as a
    session of a fresh project."""
    with tempfile.TemporaryDirectory() as tmp:
        proj, home = os.path.join(tmp, "project"), os.path.join(tmp, "home")
        os.makedirs(proj)
        os.makedirs(home)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "XDG_CONFIG_HOME": os.path.join(home, ".config"), "NO_COLOR": "1",
               "GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@example.com",
               "GIT_COMMITTER_NAME": "s", "GIT_COMMITTER_EMAIL": "s@example.com"}
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=proj, env=env, check=True)
        open(os.path.join(proj, "README.md"), "w").write("# score\n")
        subprocess.run(["git", "add", "-A"], cwd=proj, env=env, check=True)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=proj, env=env, check=True)
        os.makedirs(os.path.join(proj, ".forge"))
        text = open(path, encoding="utf-8").read()
        cwd = ran_in(path)
        if cwd:
            text = text.replace(cwd, proj)
        moved = os.path.join(tmp, os.path.basename(path))
        open(moved, "w", encoding="utf-8").write(text)
        out = subprocess.run([forge, "handoff", "--transcript", moved], cwd=proj, env=env,
                             capture_output=True, text=True)
        if out.returncode != 0:
            return None, out.stderr.strip()
        doc = open(out.stdout.strip(), encoding="utf-8").read()
        return doc, (cwd, proj)


def score(doc, exp, moved):
    cwd, proj = moved
    title = next((l for l in doc.splitlines() if l.startswith("# Session handoff")), "")
    task = (exp["task"] or "").splitlines()[0] if exp["task"] else None
    rel = lambda f: os.path.relpath(f.replace(cwd or "\0", proj), proj) if f.startswith((cwd or "\0", proj)) else None
    facts = []

    def fact(name, applies, carried):
        facts.append((name, None if not applies else bool(carried)))

    fact("title is the task", task, task and title.split("— ", 1)[-1].rstrip("…") and task.startswith(title.split("— ", 1)[-1].rstrip("…")))
    fact("task quoted", task, task and f"> {task}" in doc)
    fact("summary's pending work", exp["pending"], exp["pending"] and exp["pending"].lstrip("- ") in doc)
    fact("summary's next step", exp["next"], exp["next"] and exp["next"][:60] in doc)
    fact("approved plan", exp["plan"], exp["plan"] and "## Plan" in doc and exp["plan"] in doc)
    fact("decisions", exp["decisions"], exp["decisions"] and "## Decisions" in doc and all(str(a) in doc for _, a in exp["decisions"]))
    since = [rel(f) for f in exp["since"] if rel(f) and not rel(f).startswith("..")]
    fact("files edited since the compaction", since, since and "Edited since the compaction" in doc and all(f"- {f}" in doc for f in since))
    fact("background still running", exp["background"], exp["background"] and all(f"`{c}`" in doc for c in exp["background"]))
    fact(f"within {BUDGET // 1024} KiB", True, len(doc.encode()) <= BUDGET)
    return facts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--forge", default=os.path.join(ROOT, "target/release/forge"),
                    help="the forge binary (default: target/release/forge)")
    ap.add_argument("transcripts", nargs="*")
    args = ap.parse_args()
    paths = args.transcripts or sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/real-transcripts/*.jsonl"))) + [
        os.path.join(ROOT, "tests/fixtures/transcripts/recorded-plan-question-background-compact.jsonl")]
    if not os.access(args.forge, os.X_OK):
        sys.exit(f"{args.forge}: no forge binary (cargo build --release, or pass --forge PATH)")
    total = [0, 0]
    for p in paths:
        doc, moved = handoff(args.forge, p)
        name = os.path.basename(p)
        if doc is None:
            print(f"{name}: forge handoff failed: {moved}")
            continue
        facts = score(doc, expected(p), moved)
        have = [f for f in facts if f[1] is not None]
        got = sum(1 for f in have if f[1])
        total[0] += got
        total[1] += len(have)
        print(f"{name}: {got}/{len(have)} facts, {len(doc.encode())} bytes")
        for fname, ok in facts:
            mark = "-" if ok is None else ("yes" if ok else "NO")
            print(f"  {mark:>3}  {fname}")
    print(f"all: {total[0]}/{total[1]} facts carried")


if __name__ == "__main__":
    main()
