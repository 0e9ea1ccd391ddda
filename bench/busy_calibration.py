#!/usr/bin/env python3
"""Calibrating a CPU on a busy machine, as a user would (docs/MEASURED.md,
"Busy machines"): `onnxcost probe`, `measure` of six models, `calibrate` on
them, then the calibrated spec's end-to-end predictions for six other
models, each against that model measured on a quiet machine.

Run it twice on the same machine: `--load none` first (the quiet run, whose
check models' end-to-end medians are the reference), then `--load job`,
which starts a second job beside every step: a process that keeps one core
busy in bursts (0.7 s of work, 0.3 s idle), like a build or another user's
script. Each run writes DIR/LOAD/summary.json; `--report` writes the two
side by side as Markdown.

usage: busy_calibration.py --onnxcost BIN --out DIR --load none|job [--threads N]
       busy_calibration.py --report DIR [--md FILE]
"""
import argparse
import json
import math
import multiprocessing
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure_validation as mv  # noqa: E402  (its exporter of torchvision models)

FIT = ["resnet18", "mobilenet_v2", "googlenet", "squeezenet1_0", "shufflenet_v2_x1_0", "efficientnet_b0"]
CHECK = ["resnet50", "mobilenet_v3_small", "mnasnet0_5", "densenet121", "regnet_y_400mf", "alexnet"]


def second_job(stop):
    """one core busy in bursts: 0.7 s of arithmetic, 0.3 s asleep"""
    x = 0
    while not stop.is_set():
        t = time.perf_counter()
        while time.perf_counter() - t < 0.7:
            x = (x * 1103515245 + 12345) % 2147483648
        time.sleep(0.3)


def run(a):
    out = os.path.join(a.out, a.load)
    models = os.path.join(a.out, "models")
    os.makedirs(out, exist_ok=True)
    os.makedirs(models, exist_ok=True)
    for name in FIT + CHECK:
        mv.export(name, "tv", os.path.join(models, name + ".onnx"))
    stop = multiprocessing.Event()
    job = multiprocessing.Process(target=second_job, args=(stop,)) if a.load == "job" else None
    if job:
        job.start()
    env = dict(os.environ, ONNXCOST_PYTHON=os.environ.get("ONNXCOST_PYTHON", sys.executable))
    t0 = time.time()
    try:
        machine = os.path.join(out, "machine.json")
        mv.sh([a.onnxcost, "probe", "-o", machine])
        rec = {}
        for name in FIT + CHECK:
            res = os.path.join(out, name + ".json")
            print(f"{a.load}: measure {name}", flush=True)
            mv.sh([a.onnxcost, "measure", os.path.join(models, name + ".onnx"), "--batch", "1", "--threads",
                   str(a.threads), "--save", os.path.join(out, name), "--machine", machine, "--format", "json",
                   "-o", res, "-q"], env=env)
            rec[name] = res
        spec, report = os.path.join(out, "calibrated.json"), os.path.join(out, "calibration.json")
        cmd = [a.onnxcost, "calibrate", *(rec[n] for n in FIT)]
        for n in CHECK:
            cmd += ["--check", rec[n]]
        cal = subprocess.run(cmd + ["--machine", machine, "-o", spec, "--format", "json", "--report", report],
                             capture_output=True, text=True)
    finally:
        if job:
            stop.set()
            job.join()
    rows = []
    cal_doc = json.load(open(report)) if cal.returncode == 0 else {"files": []}
    role = {os.path.basename(f["path"])[:-5]: f for f in cal_doc["files"]}
    for name in FIT + CHECK:
        m = json.load(open(rec[name]))["measured"]
        run_ = m["run"]
        row = {"model": name, "role": "fit" if name in FIT else "check", "e2e_ms": m["end_to_end_ms"]["median"],
               "all_runs_median_ms": m["end_to_end_ms"]["all_runs_median"], "runs": m["runs"],
               "quiet_runs": m["quiet_runs"], "load_ratio": m["load_ratio"], "stopped": run_["stopped"],
               "measuring_s": run_["measuring_s"], "pass_median_ratio": run_["pass_median_ratio"],
               # what calibrate did before quiet runs: such a record was left out
               "left_out_by_the_pass_rule": run_["stopped"] == "time limit" or run_["pass_median_ratio"] > 1.10,
               "calibrate_role": role.get(name, {}).get("role"), "weight": role.get(name, {}).get("weight")}
        if cal.returncode == 0:
            stem = os.path.join(out, name, name)
            after = json.loads(mv.sh([a.onnxcost, stem + ".ort.onnx", "--measured", stem + ".profile.json", "--batch",
                                      "1", "--gpu-spec", spec, "--format", "json", "-q"]).stdout)["measured"]
            row["predicted_ms"] = after["predicted_ms"]
        rows.append(row)
    summary = {"load": a.load, "threads": a.threads, "cpu": json.load(open(rec[FIT[0]]))["measured"]["run"]["cpu"],
               "seconds": round(time.time() - t0, 1), "calibrate_exit": cal.returncode,
               "calibrate_stderr": cal.stderr.strip().splitlines(), "models": rows}
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "models"}, indent=1))


def report(a):
    runs = {}
    for load in ("none", "job"):
        p = os.path.join(a.report, load, "summary.json")
        if os.path.exists(p):
            runs[load] = json.load(open(p))
    quiet = {r["model"]: r["e2e_ms"] for r in runs.get("none", {}).get("models", [])}
    lines = []
    for load, s in runs.items():
        rows = s["models"]
        lines.append(f"**{'quiet machine' if load == 'none' else 'a second job beside it'}** ({s['cpu']}, "
                     f"{s['threads']} threads, {s['seconds']:.0f} s from probe to calibration; calibrate exit "
                     f"{s['calibrate_exit']}):\n")
        lines.append("| model | role | runs | quiet | every run / quiet | stopped | old rule | calibrate | weight "
                     "| measured (ms) | quiet machine (ms) | predicted (ms) | error vs quiet machine |")
        lines.append("|---|---|---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|")
        errs = []
        for r in rows:
            ref = quiet.get(r["model"])
            pred = r.get("predicted_ms")
            err = pred / ref - 1 if pred and ref else None
            if err is not None and r["role"] == "check":
                errs.append(abs(err))
            lines.append(f"| {r['model']} | {r['role']} | {r['runs']} | {r['quiet_runs']} | {r['load_ratio']:.2f} "
                         f"| {r['stopped']} | {'left out' if r['left_out_by_the_pass_rule'] else 'fit'} "
                         f"| {r['calibrate_role']} | {'' if r['weight'] is None else format(r['weight'], '.2f')} "
                         f"| {r['e2e_ms']:.2f} | {'' if ref is None else format(ref, '.2f')} "
                         f"| {'' if pred is None else format(pred, '.2f')} | {'' if err is None else format(100 * err, '+.1f') + ' %'} |")
        if errs:
            errs.sort()
            lines.append(f"\nThe six check models: {sum(e <= 0.15 for e in errs)} of {len(errs)} within 15 % of the "
                         f"quiet machine's measurement, median |error| {100 * errs[len(errs) // 2]:.1f} %.\n")
    text = "\n".join(lines) + "\n"
    if a.md:
        open(a.md, "w").write(text)
    print(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost")
    ap.add_argument("--out")
    ap.add_argument("--load", choices=("none", "job"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--report", help="a DIR of earlier runs: write their tables")
    ap.add_argument("--md")
    a = ap.parse_args()
    if a.report:
        report(a)
    elif a.onnxcost and a.out and a.load:
        run(a)
    else:
        ap.error("give --onnxcost, --out and --load, or --report DIR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
