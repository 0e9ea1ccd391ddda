#!/usr/bin/env python3
"""One CPU calibration, predictions at each thread count (docs/MEASURED.md,
"Threads").

Given measure results of the same models at several thread counts
(`onnxcost measure MODEL --threads T --save DIR/NAME --format json -o
DIR/NAME.json`, one folder per thread count) and the machine probed on all
its threads (`onnxcost probe -o machine.json`):
  1. calibrate on a third of the models (every third by name) at the
     calibration's thread count (--fit-threads);
  2. predict every model at every thread count from that one spec
     (`--gpu-spec calibrated.json --threads T`: each rate between the
     probed one-thread and all-thread figures), and from the probed machine
     uncalibrated;
  3. compare with ONNX Runtime's end-to-end median and, per node, with its
     node medians (nodes with 1 % of the time or more).
Writes PREFIX.json and PREFIX.md.

usage: cpu_threads.py --onnxcost BIN --machine machine.json --runs T=DIR [T=DIR ...] --fit-threads T --out PREFIX
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import tempfile


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])}...: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    return p.stdout


def predict(a, res, dev, threads):
    """(predicted end to end ms, measured ms, per-node |ln| median) of one result, the device options dev."""
    doc = json.load(open(res))
    graph = doc["model"]["path"]
    prof = os.path.join(os.path.dirname(graph), os.path.basename(graph)[:-len(".ort.onnx")] + ".profile.json")
    binds = [f"--dim={k}={v}" for k, v in (doc.get("bindings") or {}).items()]
    out = json.loads(run(a.onnxcost, graph, "--measured", prof, *binds, *dev, "--threads", str(threads), "--format",
                         "json", "-q"))
    m = out["measured"]
    total = sum(n["measured"]["median_us"] for n in out["nodes"] if n.get("measured"))
    ln = [abs(math.log(n["measured"]["predicted_over_measured"])) for n in out["nodes"]
          if n.get("measured") and n["measured"].get("predicted_over_measured")
          and n["measured"]["median_us"] >= 0.01 * total]
    return m["predicted_ms"], m["end_to_end_ms"]["median"], statistics.median(ln) if ln else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--machine", required=True)
    ap.add_argument("--runs", nargs="+", required=True, help="T=DIR: the measure results at T threads")
    ap.add_argument("--fit-threads", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    dirs = {int(r.split("=", 1)[0]): r.split("=", 1)[1] for r in a.runs}
    names = sorted(f[:-5] for f in os.listdir(dirs[a.fit_threads]) if f.endswith(".json"))
    fit = names[::3]
    cal = os.path.join(tempfile.mkdtemp(prefix="oc_threads_"), "calibrated.json")
    run(a.onnxcost, "calibrate", *[os.path.join(dirs[a.fit_threads], n + ".json") for n in fit], "--machine",
        a.machine, "-o", cal, "--format", "json")
    rows = []
    for t, d in sorted(dirs.items()):
        for n in names:
            res = os.path.join(d, n + ".json")
            if not os.path.exists(res):
                continue
            row = {"model": n, "threads": t, "role": "fit" if n in fit and t == a.fit_threads else "check"}
            for way, dev in (("probed", ["--machine", a.machine]), ("calibrated", ["--gpu-spec", cal])):
                p, e2e, node_ln = predict(a, res, dev, t)
                row["measured_ms"] = e2e
                row[way + "_ms"] = p
                row[way + "_node_ln"] = node_ln
            rows.append(row)
            print(f"{n:22s} {t} threads {row['role']:5s}: measured {row['measured_ms']:8.3f} ms; probed "
                  f"{row['probed_ms']:8.3f}, calibrated {row['calibrated_ms']:8.3f}", flush=True)
    summary = {}
    for t in sorted(dirs):
        for way in ("probed", "calibrated"):
            g = [r for r in rows if r["threads"] == t and r["role"] == "check"]
            err = [abs(r[way + "_ms"] / r["measured_ms"] - 1) for r in g]
            summary[f"{way}@{t}"] = {
                "models": len(g), "within_10pct": sum(e <= 0.10 for e in err), "within_15pct": sum(e <= 0.15 for e in err),
                "median_abs_error": statistics.median(err),
                "median_node_ln": statistics.median(r[way + "_node_ln"] for r in g if r[way + "_node_ln"] is not None)}
    json.dump({"fit_threads": a.fit_threads, "fit": fit, "rows": rows, "summary": summary},
              open(a.out + ".json", "w"), indent=1)
    with open(a.out + ".md", "w") as md:
        md.write(f"Calibrated at {a.fit_threads} threads on {len(fit)} models ({', '.join(fit)}); every other "
                 "(model, threads) is unseen.\n\n")
        md.write("| threads | prediction | unseen models | end to end within 10 % | within 15 % | median error | "
                 "median per-node \\|ln\\| |\n|---:|---|---:|---:|---:|---:|---:|\n")
        for k, s in summary.items():
            way, t = k.split("@")
            md.write(f"| {t} | {way} | {s['models']} | {s['within_10pct']} | {s['within_15pct']} | "
                     f"{100 * s['median_abs_error']:.1f} % | {s['median_node_ln']:.3f} |\n")
        md.write("\n| model | threads | role | measured (ms) | probed (ms) | calibrated (ms) |\n"
                 "|---|---:|---|---:|---:|---:|\n")
        for r in rows:
            md.write(f"| {r['model']} | {r['threads']} | {r['role']} | {r['measured_ms']:.3f} | {r['probed_ms']:.3f} "
                     f"({r['probed_ms'] / r['measured_ms']:.2f}x) | {r['calibrated_ms']:.3f} "
                     f"({r['calibrated_ms'] / r['measured_ms']:.2f}x) |\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
