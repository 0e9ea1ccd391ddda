#!/usr/bin/env python3
"""onnxcost's GPU time predictions against PyTorch's measured end-to-end
times (issue 39, item 4): tests/gpu/torch_e2e.py measures torchvision models
on a GPU (eager and CUDA graph, per batch and precision); this script exports
the same models to ONNX (opset 17, dynamic batch, random weights), predicts
each (model, batch, precision) with every spec it is given, and reports how
far each prediction is from the CUDA-graph time (the GPU's own time, without
PyTorch's host cost) and from the eager time.

  gpu_validate.py --onnxcost BIN --measured h200-torch-e2e.jsonl --models DIR \\
      --spec 'defaults=--gpu h200' --spec 'probe@bf16=--gpu-spec h200-probe-bf16.json' \\
      [--seen SPEC=a,b,...] --out PREFIX

A spec is NAME=OPTIONS, or NAME@fp16,bf16=OPTIONS to predict only the records
of those precisions (a spec whose tables hold one precision); the precision's
options are added to each: fp32
`--math fp32`, tf32 `--math tf32`, fp16 `--math fp16 --dtype fp16`, bf16
`--dtype bf16`. A spec's prediction of a record is left out, and counted, when
onnxcost fails on it. --seen SPEC=a,b names the models a spec was built or
tuned on; the summary gives that spec's figures on the others apart. Writes PREFIX.json (every
prediction) and PREFIX.md (the summary), and prints the summary.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys

MATH_OPTS = {"fp32": ["--math", "fp32"], "tf32": ["--math", "tf32"], "fp16": ["--math", "fp16", "--dtype", "fp16"],
             "bf16": ["--dtype", "bf16"]}
EXPORT = """
import sys, torch, torchvision
name, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
kw = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
m = getattr(torchvision.models, name)(**kw).eval()
torch.onnx.export(m, (torch.randn(1, 3, 224, 224),), out, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=17)
"""


def export(name, folder, python):
    out = os.path.join(folder, name + ".onnx")
    if not os.path.exists(out):
        p = subprocess.run([python, "-c", EXPORT, name, out + ".tmp"], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            return None, p.stderr.strip().splitlines()[-1:] or ["export failed"]
        os.replace(out + ".tmp", out)
    return out, None


def predict(onnxcost, model, batch, mth, opts):
    cmd = [onnxcost, model, "--batch", str(batch), "--format", "json"] + opts + MATH_OPTS[mth]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, p.stderr.strip()[-300:]
    g = json.loads(p.stdout).get("gpu", {})
    return {"latency_ms": g.get("latency_s", 0) * 1e3, "table_kernels": g.get("table_kernels"),
            "kernels": g.get("kernels"), "table_ms": (g.get("table_s") or 0) * 1e3,
            "launch_ms": g.get("launch_s", 0) * 1e3}, None


def stats(errs):
    """errs: ln(predicted / measured) values."""
    if not errs:
        return {"n": 0}
    a = [abs(e) for e in errs]
    return {"n": len(errs), "within_15": sum(x <= math.log(1.15) for x in a),
            "within_10": sum(x <= math.log(1.10) for x in a), "median_abs_ln": statistics.median(a),
            "median_ratio": math.exp(statistics.median(errs))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--measured", required=True)
    ap.add_argument("--models", required=True, help="folder of the exported models (made if missing)")
    ap.add_argument("--spec", action="append", required=True, help="NAME=OPTIONS or NAME@MATH,...=OPTIONS")
    ap.add_argument("--seen", action="append", default=[], help="SPEC=a,b,...: models SPEC was built or tuned on")
    ap.add_argument("--python", default=sys.executable, help="the Python that exports (torch, torchvision)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.models, exist_ok=True)
    specs, only = [], {}
    for s in a.spec:
        head, opts = s.split("=", 1)
        name, _, maths = head.partition("@")
        specs.append((name, opts.split()))
        if maths:
            only[name] = set(maths.split(","))
    seen = {k: set(x for x in v.split(",") if x) for k, v in (s.split("=", 1) for s in a.seen)}
    recs = [json.loads(ln) for ln in open(a.measured) if ln.strip()]
    last = {}  # a record measured twice (a later call on the same machine): the last one
    for r in recs:
        if "graph" in r and not r.get("started"):
            last[(r["model"], r["config"])] = r
    recs = list(last.values())
    paths, failed_exports = {}, {}
    for name in sorted({r["model"] for r in recs}):
        paths[name], err = export(name, a.models, a.python)
        if err:
            failed_exports[name] = err
    rows, failures = [], []
    for r in recs:
        if not paths.get(r["model"]):
            continue
        row = {"model": r["model"], "batch": r["batch"], "math": r["math"], "graph_ms": r["graph"]["median_ms"],
               "eager_ms": r["eager"]["median_ms"], "seen_by": sorted(k for k, v in seen.items() if r["model"] in v),
               "predicted": {}}
        for name, opts in specs:
            if name in only and r["math"] not in only[name]:
                continue
            pr, err = predict(a.onnxcost, paths[r["model"]], r["batch"], r["math"], opts)
            if err:
                failures.append(f"{name} {r['model']} b{r['batch']} {r['math']}: {err}")
                continue
            row["predicted"][name] = pr
        rows.append(row)
    summary = {"device": recs[0].get("device") if recs else None,
               "measured_with": {k: recs[0].get(k) for k in ("torch", "cuda", "cudnn", "torchvision")} if recs
               else {}, "specs": {n: " ".join(o) for n, o in specs}, "failed_exports": failed_exports,
               "failed_predictions": failures, "by_spec": {}}
    lines = [f"# onnxcost's GPU predictions against PyTorch on {summary['device']}", "",
             f"Measured with PyTorch {summary['measured_with'].get('torch')}, CUDA {summary['measured_with'].get('cuda')}"
             f", cuDNN {summary['measured_with'].get('cudnn')} (tests/gpu/torch_e2e.py: CUDA-graph and eager medians"
             f", cudnn.benchmark on); {len(rows)} records, {len({r['model'] for r in rows})} models. Error: "
             "ln(predicted / measured); within 15 % means |error| <= ln 1.15.", "",
             "| spec | against | records | within 10 % | within 15 % | median \\|ln\\| | median ratio |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, _ in specs:
        summary["by_spec"][name] = {}
        for against in ("graph", "eager"):
            for part, keep in (("all", lambda r: True), ("unseen", lambda r: name not in r["seen_by"])):
                if part == "unseen" and name not in seen:
                    continue
                errs = [math.log(r["predicted"][name]["latency_ms"] / r[against + "_ms"]) for r in rows
                        if keep(r) and name in r["predicted"] and r["predicted"][name]["latency_ms"] > 0]
                s = stats(errs)
                summary["by_spec"][name][f"{against}_{part}"] = s
                if s["n"]:
                    lines.append(f"| {name}{'' if part == 'all' else ' (unseen)'} | {against} | {s['n']} | "
                                 f"{s['within_10']} | {s['within_15']} | {s['median_abs_ln']:.3f} | "
                                 f"{s['median_ratio']:.2f} |")
    lines += ["", "Per precision and batch, against the CUDA graph (median ratio predicted / measured):", "",
              "| precision | batch | records | " + " | ".join(n for n, _ in specs) + " |",
              "|---|---:|---:|" + "---:|" * len(specs)]
    for mth in ("fp32", "tf32", "fp16", "bf16"):
        for b in sorted({r["batch"] for r in rows}):
            sel = [r for r in rows if r["math"] == mth and r["batch"] == b]
            if not sel:
                continue
            cells = []
            for name, _ in specs:
                e = [math.log(r["predicted"][name]["latency_ms"] / r["graph_ms"]) for r in sel if name in r["predicted"]]
                cells.append(f"{math.exp(statistics.median(e)):.2f}" if e else "-")
            lines.append(f"| {mth} | {b} | {len(sel)} | " + " | ".join(cells) + " |")
    if failed_exports:
        lines += ["", "Not exported: " + "; ".join(f"{k} ({' '.join(v)})" for k, v in failed_exports.items())]
    if failures:
        lines += ["", f"{len(failures)} predictions failed; the first: {failures[0]}"]
    json.dump({"summary": summary, "rows": rows}, open(a.out + ".json", "w"), indent=1)
    open(a.out + ".md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
