#!/usr/bin/env python3
"""Formulas beside a bound analysis, side by side in one run (issue 53, item 2).

For each model: `onnxcost MODEL -q` with its dims unbound (formulas, their
proof) against `onnxcost MODEL -q --dim NAME=1 ...` with every one of them
bound to 1, the same analysis without formulas. Each pair is timed with
farm-bench (paired runs, the ratio taken pair by pair, medians); the table
gives both wall times and peak memory, the ratio, and how the formulas were
made (the analyses of the fit, whether proven) from the JSON report.

usage: symbolic_vs_bound.py --onnxcost BIN [--runs N] MODEL...
Prints a Markdown table (docs/PERFORMANCE.md keeps it).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--runs", type=int, default=5)
ap.add_argument("models", nargs="+")
a = ap.parse_args()


def median(label, text):
    m = re.search(r"^" + re.escape(label) + r"\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", text, re.M)
    return float(m.group(2)) if m else float("nan")


print("| model | nodes | unbound dims | fit: analyses, proven | formulas ms | MiB | bound ms | MiB | ratio wall (CPU) |")
print("|---|---:|---|---|---:|---:|---:|---:|---|")
for path in a.models:
    doc = json.loads(subprocess.run([a.onnxcost, path, "-q", "--format", "json"], capture_output=True,
                                    text=True).stdout)
    sym = doc.get("symbolic") or {}
    dims = list((doc.get("bindings") or {}).keys())  # the dims left unbound, taken as 1 there
    bound = [x for d in dims for x in ("--dim", f"{d}=1")]
    cmd_a = [a.onnxcost, path, "-q"]
    cmd_b = " ".join([a.onnxcost, path, "-q"] + bound)
    p = subprocess.run(["farm-bench", "-n", str(a.runs), "--timeout", "600", "--vs", cmd_b, "--"] + cmd_a,
                       capture_output=True, text=True)
    out = p.stdout + p.stderr
    how = f"{sym.get('probe_runs', '-')}, {'proven' if sym.get('proven') else 'fitted' if sym else 'none'}"
    print(f"| {os.path.basename(path)[-48:]} | {len(doc.get('nodes', [])):,} | {', '.join(dims)} | {how} | "
          f"{median('A wall s', out) * 1e3:.1f} | {median('A peak MiB', out):.1f} | "
          f"{median('B wall s', out) * 1e3:.1f} | {median('B peak MiB', out):.1f} | "
          f"{median('A/B wall', out):.2f}× ({median('A/B cpu', out):.2f}×) |", flush=True)
sys.exit(0)
