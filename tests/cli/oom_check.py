#!/usr/bin/env python3
"""cli.out_of_memory — every allocation of a run made to fail in turn.

tests/fault/failalloc.c, preloaded, makes the Nth malloc, calloc, realloc or
aligned_alloc return NULL. For each command below, a first run counts its
allocations; then the command runs once per allocation N, that one failing.
Each run must:
  * end by itself: no signal, no crash;
  * on failure (exit 3), say so in one line on stderr that names out of
    memory (warnings before it allowed), and nothing else;
  * on success (exit 0), write exactly what the run without a failure
    writes: an allocation failure never leaves a report with a part
    missing, a figure marked as a lower bound for the wrong reason, or an
    annotated file cut short.
No other exit status. The commands cover the analysis and every format,
training and the fit, sweeps, comparison, annotate, the memory plan, lint
and the LLM view.

usage: oom_check.py ONNXCOST FAILALLOC_SO FIXTURES_DIR
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

BIN, SO, FIX = sys.argv[1], sys.argv[2], sys.argv[3]
M = os.path.join(FIX, "mnist", "examples_net.onnx")
LLM = sorted(glob.glob(os.path.join(FIX, "corpus", "microsoft+onnxruntime-genai", "*", "*.onnx")))
COMMANDS = [
    [M, "--format", "json", "-q"],
    [M, "--format", "md", "-q"],
    [M, "--format", "csv", "-q"],
    [M, "--format", "html", "-q"],
    [M, "-q", "--optimizer", "adam", "--gpu", "h100", "--fit"],
    [M, "-q", "--optimizer", "sgd", "--folded-bn", "--gpu", "h100", "--fit", "--format", "json"],
    ["sweep", M, "--dim", "batch=1,2", "--gpu", "h100", "--fit", "--format", "json"],
    ["compare", M, M, "--format", "md"],
    ["annotate", M, "-o", "/dev/stdout", "-q"],
    ["plan", M, "--format", "json"],
    ["lint", M, "--format", "json"],
]
if LLM:
    COMMANDS.append(["llm", LLM[0], "--gpu", "a100", "--format", "json"])
MIN_RUNS = 5000  # the runs on 2026-11-29: 7,879 over 12 commands

fails, runs = [], 0


def run(args, env):
    return subprocess.run([BIN, *args], capture_output=True, env=dict(os.environ, LD_PRELOAD=SO, **env))


for args in COMMANDS:
    what = " ".join(args)
    ref = run(args, {"FAIL_COUNT": "1"})
    m = re.search(rb"ALLOCS (\d+)\n", ref.stderr)
    if ref.returncode != 0 or not m:
        fails.append(f"{what}: the counting run: exit {ref.returncode}: {ref.stderr[-300:]!r}")
        continue
    total, bad = int(m.group(1)), []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda n: run(args, {"FAIL_AT": str(n)}), range(1, total + 1)))
    for n, p in enumerate(done, 1):
        runs += 1
        err = p.stderr.decode(errors="replace").strip().splitlines()
        if p.returncode == 0:
            if p.stdout != ref.stdout:
                bad.append(f"allocation {n}: exit 0 with a different report")
        elif p.returncode == 3:
            last = [ln for ln in err if not ln.startswith("onnxcost: warning:")]
            if len(last) != 1 or "out of memory" not in last[0]:
                bad.append(f"allocation {n}: exit 3 with {err[-3:]}")
        else:
            bad.append(f"allocation {n}: exit {p.returncode} ({err[-2:]})")
    print(f"{'FAIL' if bad else 'ok  '} {what}: {total} allocations, each made to fail" +
          (f": {len(bad)} bad, {bad[:3]}" if bad else ""))
    fails += [f"{what}: {b}" for b in bad]

if runs < MIN_RUNS:
    fails.append(f"only {runs} runs, want at least {MIN_RUNS} (does the preload library intercept malloc?)")
print(f"{runs} runs, {len(fails)} failed")
sys.exit(1 if fails else 0)
