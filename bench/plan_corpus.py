#!/usr/bin/env python3
"""`onnxcost plan` over the corpus and the CPU validation's exports
(docs/MEMORY.md): for each model, both planners' arenas against the lower
bound (the most bytes live at one step), the time the plan took, and, for the
exported models measured in docs/results/cpu-*.json, the graph ONNX Runtime
ran (saved by `onnxcost measure --save`) planned too, beside the memory
pattern ONNX Runtime placed for it (from onnxcost's replay of its arena,
which matches the measured peak; views/ort_arena.h).

usage: plan_corpus.py --onnxcost BIN [--exports DIR] [--out docs/results/plan-corpus.json]

Models whose dims the manifest leaves symbolic are planned at 1 (the plan's
warning says so); a model onnxcost cannot plan (a tensor of unknown size) is
listed with the reason.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def plan(onnxcost, path, binds, planner):
    t = time.perf_counter()
    p = subprocess.run([onnxcost, "plan", path, *binds, "--planner", planner, "--format", "json", "-o", "/dev/stdout"],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        return None, err.replace(ROOT + os.sep, ""), dt
    return json.loads(p.stdout), None, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--exports", default=os.path.join(ROOT, "bench", "out", "measure"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "plan-corpus.json"))
    a = ap.parse_args()
    models = []
    corpus = os.path.join(ROOT, "fixtures", "corpus")
    for line in open(os.path.join(corpus, "MANIFEST.tsv"), encoding="utf-8").read().splitlines()[1:]:
        f = line.split("\t")[0]
        models.append(("corpus/" + f, os.path.join(corpus, f), [], None))
    results = os.path.join(ROOT, "docs", "results")
    for f in sorted(os.listdir(results)):
        if not (f.startswith("cpu-") and f.endswith(".json")) or f in ("cpu-validation.json", "cpu-machine.json",
                                                                           "cpu-calibrated.json",
                                                                           "cpu-calibration.json"):
            continue
        name = f[4:-5]
        path = os.path.join(a.exports, name + ".onnx")
        doc = json.load(open(os.path.join(results, f)))
        if not os.path.exists(path):
            continue
        binds = []
        for k, v in (doc.get("bindings") or {}).items():
            binds += ["--dim", f"{k}={v}"]
        ort_graph = os.path.join(a.exports, name, "pass0", name + ".ort.onnx")
        models.append(("export/" + name, path, binds or ["--batch", "1"],
                       (doc["measured"]["arena"].get("replayed"), ort_graph if os.path.exists(ort_graph) else None)))
    rows = []
    for tag, path, binds, ort in models:
        size, err, t_size = plan(a.onnxcost, path, binds, "size")
        row = {"model": tag, "error": err}
        if size:
            row.update(buffers=len(size["buffers"]), lower_bound_bytes=size["lower_bound_bytes"],
                       size_arena_bytes=size["arena_bytes"], order_arena_bytes=size["other_arena_bytes"],
                       seconds=t_size, verified=size["verified"])
            if ort and ort[0] and ort[1]:  # the graph ONNX Runtime ran, planned, beside its own memory pattern
                o, _, _ = plan(a.onnxcost, ort[1], binds or ["--batch", "1"], "size")
                row["ort_graph"] = {"pattern_bytes": ort[0]["pattern_bytes"], "lower_bound_bytes": o["lower_bound_bytes"],
                                    "size_arena_bytes": o["arena_bytes"], "order_arena_bytes": o["other_arena_bytes"]}
        rows.append(row)
        print(tag, "error: " + err if err else
              f"{row['size_arena_bytes'] / max(1, row['lower_bound_bytes']):.3f}x "
              f"(order {row['order_arena_bytes'] / max(1, row['lower_bound_bytes']):.3f}x)", flush=True)
    json.dump({"models": rows}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
