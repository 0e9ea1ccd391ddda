#!/usr/bin/env python3
"""Kernel tables against the roofline on replay results, model by model, each
predicted from the others only (leave one model out).

For every replay result (onnxcost-replay/1) of a folder, and its model in
--models, the per-node kernel times of the run are predicted three ways:
  default    the built-in device (--gpu), the roofline with the documented
             default efficiencies;
  roofline   the roofline calibrated (onnxcost calibrate) on the results of
             every other model;
  tables     the same calibrated roofline, with kernel tables (onnxcost
             tables) built from the results of every other model: a node of
             a family they cover takes its time from them.
Each prediction is compared with the measured median kernel time of every
measured node, and the sum over the nodes with the measured sum: the
roofline's node time as it is (calibrate fits its launch term to the
kernels' fixed time), a table's without the launch gap the model adds after
it (the table holds the kernels' own time). Printed
and written (--out PREFIX: PREFIX.json, PREFIX.md): per run the summed
error of each way, and over all nodes the median |ln(predicted/measured)|
and the share within 15 %, by family.

The bindings and dtype of a run come from its file (options.bindings,
options.dtype) or, for files written before those were kept, from its name:
NAME_bN-fp32.json, NAME_bN-fp16.json (batch N; fp16 runs priced at fp16).

The results may also be CPU measure results (onnxcost measure --format json
--save DIR, docs/MEASURED.md) with --machine FILE from onnxcost probe
instead of --gpu: each file's nodes are those of the graph ONNX Runtime ran,
which its saved folder keeps and the file names (model.path), and a table's
time is a whole node's (ONNX Runtime's per-node cost included).

usage: kernel_tables_loo.py --onnxcost BIN --results DIR [--models DIR] [--gpu h200 | --machine FILE] [--out PREFIX]
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])}...: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    return p.stdout


def measured_of(d):
    """A result's measured nodes: name -> seconds (a replay's kernel time, or
    a measure result's node time; one written before duration_offset_us with
    the half microsecond onnxcost now adds, docs/MEASURED.md "The profile format")."""
    if d.get("schema") == "onnxcost/1":  # measure
        late = 0.0 if "duration_offset_us" in d["measured"] else 0.5
        return {n["name"]: (n["measured"]["median_us"] + late) * 1e-6 for n in d["nodes"]
                if n.get("measured") and n["status"] == "ok" and n["measured"]["median_us"] > 0}
    return {n["name"]: n["time_ns"]["median"] * 1e-9 for n in d["nodes"]
            if n["status"] == "measured" and not n.get("replay_overhead")}


def run_facts(path):
    """(model name, batch, 'fp16'|None, math, doc, graph) of a result file."""
    d = json.load(open(path))
    if d.get("schema") == "onnxcost/1":  # a measure result: the graph ONNX Runtime ran
        name = os.path.basename(d["measured"]["run"]["model"]).rsplit(".onnx", 1)[0]
        return name, d.get("bindings") or {}, None, "fp32", d, d["model"]["path"]
    opts = d.get("options", {})
    name = os.path.basename(d["model"]).rsplit(".onnx", 1)[0]
    m = re.match(r"(.+)_b(\d+)-(fp32|fp16|tf32)\.json$", os.path.basename(path))
    binds = opts.get("bindings") or ({"batch": int(m.group(2))} if m else {})
    dtype = opts.get("dtype") or ("fp16" if m and m.group(3) == "fp16" else None)
    return name, binds, dtype, opts.get("math", "fp32"), d, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--models", help="the replayed models' folder; for measure results, where their graphs are "
                                     "(by base name; default: the path each file names)")
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--machine", help="a CPU's spec file (onnxcost probe -o): the results are measure results")
    ap.add_argument("--out")
    a = ap.parse_args()
    device = ["--machine", a.machine] if a.machine else ["--gpu", a.gpu]
    files = sorted(os.path.join(a.results, f) for f in os.listdir(a.results) if f.endswith(".json"))
    facts = {f: run_facts(f) for f in files}
    work = tempfile.mkdtemp(prefix="oc_loo_")
    # each file's samples alone (a spec file with its tables), merged below per held-out model
    single = {}
    for f, (name, binds, dtype, math_, _, graph) in facts.items():
        out = os.path.join(work, os.path.basename(f))
        args = [a.onnxcost, "tables", f, *device, "-o", out, "--format", "json"]
        if a.models:
            args += ["--models", a.models]
        for k, v in binds.items():
            args += ["--dim", f"{k}={v}"]
        if dtype:
            args += ["--dtype", dtype]
        run(*args)
        single[f] = json.load(open(out))["kernel_tables"]
    models = sorted({v[0] for v in facts.values()})
    rows, nodes = [], []
    for held in models:
        others = [f for f in files if facts[f][0] != held]
        cal = os.path.join(work, f"cal-{held}.json")
        run(a.onnxcost, "calibrate", *others, *device, "-o", cal, "--format", "json")
        spec = json.load(open(cal))
        merged = {}
        for f in others:
            for t in single[f]["tables"]:
                key = (t["family"], t["dtype"], t.get("math"))
                merged.setdefault(key, dict(t, samples=[]))["samples"] += t["samples"]
        spec["kernel_tables"] = {"source": single[others[0]]["source"], "tables": list(merged.values())}
        tab = os.path.join(work, f"tables-{held}.json")
        json.dump(spec, open(tab, "w"))
        for f in files:
            name, binds, dtype, math_, res, graph = facts[f]
            if name != held:
                continue
            measured = measured_of(res)
            preds = {}
            for way, dev in (("default", device), ("roofline", ["--gpu-spec", cal]),
                             ("tables", ["--gpu-spec", tab])):
                target = (os.path.join(a.models, os.path.basename(graph)) if a.models else graph) if graph \
                    else os.path.join(a.models, held + ".onnx")
                args = [a.onnxcost, target, *dev, "--format", "json", "-q"] + ([] if graph else ["--math", math_])
                for k, v in binds.items():
                    args += ["--dim", f"{k}={v}"]
                if dtype:
                    args += ["--dtype", dtype]
                doc = json.loads(run(*args))
                launch = 0 if a.machine else doc["gpu"]["options"]["launch_s"]  # a CPU table's time is a node's
                # a node's kernel time as each way predicts it: the roofline's max(...) + launch (calibrate fits
                # launch to the kernels' fixed time); a table's own time, without the launch gap it adds
                preds[way] = {n["name"]: (n["gpu"]["time_s"] - (launch if n["gpu"]["time_source"] == "table" else 0),
                                          n["gpu"].get("family"), n["gpu"]["time_source"])
                              for n in doc["nodes"] if n.get("gpu") and n["gpu"]["bound"]}
            common = [k for k in measured if all(k in preds[w] for w in preds)]
            row = {"file": os.path.basename(f), "model": held, "bindings": binds, "dtype": dtype or "fp32",
                   "math": math_, "nodes": len(common), "measured_s": sum(measured[k] for k in common),
                   "table_nodes": sum(1 for k in common if preds["tables"][k][2] == "table")}
            for w in preds:
                row[w + "_s"] = sum(max(preds[w][k][0], 1e-9) for k in common)
                row[w + "_ln"] = math.log(row[w + "_s"] / row["measured_s"]) if row["measured_s"] > 0 else None
            rows.append(row)
            for k in common:
                nodes.append({"run": row["file"], "family": preds["tables"][k][1] or "none",
                              "source": preds["tables"][k][2], "measured": measured[k],
                              **{w: max(preds[w][k][0], 1e-9) for w in preds}})
            print(f"{row['file']:38s} {row['nodes']:4d} nodes ({row['table_nodes']} from tables): measured "
                  f"{row['measured_s'] * 1e3:8.3f} ms; default {row['default_s'] * 1e3:8.3f}, roofline "
                  f"{row['roofline_s'] * 1e3:8.3f}, tables {row['tables_s'] * 1e3:8.3f}", flush=True)

    def summary(sel):
        out = {}
        for w in ("default", "roofline", "tables"):
            ln = [abs(math.log(n[w] / n["measured"])) for n in sel]
            out[w] = {"median_abs_ln": statistics.median(ln) if ln else None,
                      "within_15pct": sum(1 for x in ln if x <= math.log(1.15)) / len(ln) if ln else None}
        return out

    fams = sorted({n["family"] for n in nodes})
    result = {"runs": rows, "nodes": len(nodes), "all": summary(nodes),
              "by_family": {f: dict(summary([n for n in nodes if n["family"] == f]),
                                    nodes=sum(1 for n in nodes if n["family"] == f)) for f in fams},
              "runs_within_15pct": {w: sum(1 for r in rows if abs(r[w + "_ln"]) <= math.log(1.15)) for w in
                                    ("default", "roofline", "tables")},
              "runs_median_abs_ln": {w: statistics.median(abs(r[w + "_ln"]) for r in rows) for w in
                                     ("default", "roofline", "tables")}}
    print(json.dumps({k: result[k] for k in ("nodes", "all", "runs_within_15pct", "runs_median_abs_ln")}, indent=1))
    if a.out:
        json.dump(result, open(a.out + ".json", "w"), indent=1)
        with open(a.out + ".md", "w") as md:
            md.write("| run | nodes | from tables | measured (ms) | default | roofline (LOO) | tables (LOO) |\n")
            md.write("|---|---:|---:|---:|---:|---:|---:|\n")
            for r in rows:
                md.write(f"| {r['file']} | {r['nodes']} | {r['table_nodes']} | {r['measured_s'] * 1e3:.3f} | "
                         + " | ".join(f"{r[w + '_s'] * 1e3:.3f} ({math.exp(r[w + '_ln']):.2f}x)"
                                      for w in ("default", "roofline", "tables")) + " |\n")
            md.write("\n| nodes of family | count | default: median abs ln, within 15 % | roofline (LOO) | "
                     "tables (LOO) |\n|---|---:|---|---|---|\n")
            for f in fams + ["all"]:
                s = result["by_family"][f] if f != "all" else dict(result["all"], nodes=len(nodes))
                md.write(f"| {f} | {s['nodes']} | " + " | ".join(
                    f"{s[w]['median_abs_ln']:.3f}, {100 * s[w]['within_15pct']:.0f} %" for w in
                    ("default", "roofline", "tables")) + " |\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
