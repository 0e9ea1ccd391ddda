#!/usr/bin/env python3
"""The CPU time model against ONNX Runtime on this machine, on models the
calibration never saw (docs/MEASURED.md, "Validation").

1. `onnxcost probe` measures the machine's roofs (the spec file);
2. `onnxcost measure` runs each model (torchvision CNNs with depthwise and
   grouped convolutions, ViT, Swin, DistilBERT and GPT-2 small at 1x128, a
   decode step of a decoder with a KV cache, corpus models) in ONNX Runtime
   with the prediction from the probed machine beside it;
3. `onnxcost calibrate` fits the model's factors on one half and checks them
   on the other;
4. each model's saved graph and profile are analyzed again with the
   calibrated spec: the end-to-end prediction after calibration.
It writes docs/results/cpu-*.json (the measure results, the machine, the
calibrated spec and the calibration report) and cpu-validation.md, the
tables docs/MEASURED.md shows. Run it on an idle machine.

Every measurement runs `--reps auto` by default (passes until the median is
stable, docs/MEASURED.md "Noisy machines"), and each model's record of its
passes (how far apart, stable or not) is kept beside its figures: the
machine's noise, in cpu-validation.json ("noise") and the page. Calibrate
leaves the noisy records out of the fit and says which.

usage: measure_validation.py --onnxcost BIN [--out DIR] [--results DIR] [--threads N] [--reps auto|N] [--reanalyze]
"""
import argparse
import json
import math
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))

# name, source, bindings, role (fit or check)
MODELS = [
    ("resnet18", "tv", [], "fit"),
    ("resnet50", "tv", [], "check"),
    ("mobilenet_v2", "tv", [], "fit"),
    ("mobilenet_v3_small", "tv", [], "check"),
    ("efficientnet_b0", "tv", [], "check"),
    ("shufflenet_v2_x1_0", "tv", [], "fit"),
    ("squeezenet1_0", "tv", [], "check"),
    ("googlenet", "tv", [], "fit"),
    ("densenet121", "tv", [], "check"),
    ("alexnet", "tv", [], "fit"),
    ("regnet_y_400mf", "tv", [], "fit"),
    ("mnasnet0_5", "tv", [], "check"),
    ("convnext_tiny", "tv", [], "fit"),
    ("vgg16", "tv", [], "check"),
    ("vit_b_16", "tv", [], "fit"),
    ("swin_t", "tv", [], "check"),
    ("distilbert", "hf", ["--dim", "batch=1", "--dim", "sequence=128"], "fit"),
    ("gpt2", "hf", ["--dim", "batch=1", "--dim", "sequence=128"], "check"),
    ("gpt2_tiny_decode", "corpus:microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx",
     ["--dim", "batch_size=1", "--dim", "seq_len=1", "--dim", "past_seq_len=127", "--dim", "total_seq_len=128"], "check"),
    ("inception_v2_light", "corpus:onnx+onnx/onnx__backend__test__data__light__light_inception_v2.onnx", [], "fit"),
]


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return p


def export(name, src, path):
    if os.path.exists(path):
        return
    import torch
    import transformers as oracle  # tests/oracle/transformers.py
    if src == "tv":
        import torchvision.models as tvm
        torch.manual_seed(0)
        kw = {"weights": None} if name != "googlenet" else {"weights": None, "aux_logits": False, "init_weights": True}
        model = getattr(tvm, name)(**kw).eval()
        kw = dict(input_names=["input"], output_names=["output"], opset_version=17,
                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        # with gradients on: in eval mode under no_grad, nn.MultiheadAttention (ViT) takes
        # its fused fast path, which the TorchScript exporter cannot write
        try:
            torch.onnx.export(model, (torch.rand(1, 3, 224, 224),), path, dynamo=False, **kw)
        except TypeError:  # a torch before the dynamo argument (Debian's 1.13)
            torch.onnx.export(model, (torch.rand(1, 3, 224, 224),), path, **kw)
    elif src == "hf":
        oracle.export(name, path, opset=17)
    else:
        raise SystemExit(f"no export for {name}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "measure"))
    ap.add_argument("--results", default=os.path.join(ROOT, "docs", "results"))
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", default="auto", help="auto (default) or a number of runs")
    ap.add_argument("--only", help="comma list of model names (the default: all)")
    ap.add_argument("--passes", type=int, default=2, help="measurement passes; each model keeps its fastest")
    ap.add_argument("--reanalyze", action="store_true",
                    help="measure nothing: analyze the graphs and profiles an earlier run saved in --out again, "
                         "on its machine file (after a change to the analysis or the model)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.results, exist_ok=True)
    env = dict(os.environ, ONNXCOST_PYTHON=os.environ.get("ONNXCOST_PYTHON", sys.executable))
    machine = os.path.join(a.results, "cpu-machine.json")
    if not a.reanalyze:
        print("probe ...", flush=True)
        sh([a.onnxcost, "probe", "-o", machine])
    models = [m for m in MODELS if not a.only or m[0] in a.only.split(",")]
    # two passes over all the models, interleaved in time; each model keeps the
    # pass with the lower end-to-end median (the one another process on this
    # shared machine disturbed less); both passes' figures are kept
    rows = []
    for name, src, binds, role in models:
        if src.startswith("corpus:"):
            path = os.path.join(ROOT, "fixtures", "corpus", src[len("corpus:"):])
        else:
            path = os.path.join(a.out, name + ".onnx")
            export(name, src, path)
        if not any(b.startswith("batch") or b == "--dim" for b in binds):
            binds = ["--batch", "1"]
        rows.append({"name": name, "role": role, "binds": binds, "path": path,
                     "stem": os.path.basename(path)[:-5], "passes": []})
    for k in range(a.passes):
        for r in rows:
            res = os.path.join(a.out, f"cpu-{r['name']}.pass{k}.json")
            save = os.path.join(a.out, r["name"], f"pass{k}")
            if a.reanalyze:  # the saved graph and profile of an earlier run, analyzed again
                stem = os.path.join(save, r["stem"])
                sh([a.onnxcost, stem + ".ort.onnx", "--measured", stem + ".profile.json", *r["binds"], "--machine",
                    machine, "--format", "json", "-o", res, "-q"])
            else:
                print(f"measure {r['name']} (pass {k + 1} of {a.passes}) ...", flush=True)
                sh([a.onnxcost, "measure", r["path"], *r["binds"], "--threads", str(a.threads), "--reps", str(a.reps),
                    "--save", save, "--machine", machine, "--format", "json", "-o", res, "-q"], env=env)
            r["passes"].append((json.load(open(res))["measured"]["end_to_end_ms"]["median"], res, save))
    for r in rows:
        e2e, res, save = min(r["passes"])
        r["result"] = os.path.join(a.results, f"cpu-{r['name']}.json")
        r["save"] = save
        with open(res) as f, open(r["result"], "w") as g:
            g.write(f.read())
    fit = [r["result"] for r in rows if r["role"] == "fit"]
    check = [r["result"] for r in rows if r["role"] == "check"]
    spec = os.path.join(a.results, "cpu-calibrated.json")
    report = os.path.join(a.results, "cpu-calibration.json")
    cmd = [a.onnxcost, "calibrate", *fit]
    for c in check:
        cmd += ["--check", c]
    sh(cmd + ["--machine", machine, "-o", spec, "--format", "json", "--report", report])
    cal = json.load(open(report))
    per_file = {f["path"]: f for f in cal["files"]}
    out = []
    for r in rows:
        doc = json.load(open(r["result"]))
        m = doc["measured"]
        e2e = m["end_to_end_ms"]["median"]
        opt = os.path.join(r["save"], r["stem"] + ".ort.onnx")
        prof = os.path.join(r["save"], r["stem"] + ".profile.json")
        after = json.loads(sh([a.onnxcost, opt, "--measured", prof, *r["binds"], "--gpu-spec", spec, "--format",
                               "json", "-q"]).stdout)["measured"]
        f = per_file[r["result"]]
        arena = m["arena"]
        run = m.get("run") or {}
        out.append({
            "model": r["name"], "role": "noisy" if f["role"] == "noisy" else r["role"], "nodes": m["nodes"],
            "end_to_end_ms": e2e, "runs": m["runs"], "passes": run.get("passes"), "pass_ratio": run.get("pass_ratio"),
            "pass_median_ratio": run.get("pass_median_ratio"),
            "stopped": run.get("stopped"), "measuring_s": run.get("measuring_s"),
            "sum_of_nodes_ms": m["sum_of_node_medians_ms"],
            "predicted_before_ms": m["predicted_ms"], "predicted_after_ms": after["predicted_ms"],
            "e2e_error_before": m["predicted_ms"] / e2e - 1, "e2e_error_after": after["predicted_ms"] / e2e - 1,
            "node_median_abs_ln_before": f["before"]["median_abs_ln"], "node_p90_abs_ln_before": f["before"]["p90_abs_ln"],
            "node_median_abs_ln_after": f["after"]["median_abs_ln"], "node_p90_abs_ln_after": f["after"]["p90_abs_ln"],
            "major_nodes": f["major_nodes"],
            "end_to_end_ms_passes": [p[0] for p in r["passes"]],
            "arena_peak_bytes": arena["in_use_peak_bytes"], "estimated_peak_bytes": arena["estimated_peak_activation_bytes"],
            "replayed": arena["replayed"],
        })
    run = json.load(open(rows[0]["result"]))["measured"]["run"]
    ratios = sorted(m["pass_median_ratio"] for m in out if m["pass_median_ratio"])
    noise = {"median_pass_median_ratio": ratios[len(ratios) // 2] if ratios else None,
             "max_pass_median_ratio": ratios[-1] if ratios else None,
             "not_stable": sum(m["stopped"] == "time limit" for m in out),
             "left_out_noisy": sum(m["role"] == "noisy" for m in out)}
    summary = {"cpu": run["cpu"], "onnxruntime": run["version"], "threads": a.threads, "reps": a.reps, "noise": noise,
               "python": platform.python_version(), "models": out, "by_op_after": cal.get("by_op_after", []), "by_op_over": cal.get("by_op_over")}
    json.dump(summary, open(os.path.join(a.results, "cpu-validation.json"), "w"), indent=1)
    write_md(summary, os.path.join(a.results, "cpu-validation.md"))
    for f in os.listdir(a.results):
        if f.startswith("cpu-") and f.endswith(".json"):
            relativize(os.path.join(a.results, f))
    print(open(os.path.join(a.results, "cpu-validation.md")).read())


def relativize(path):
    """The file's strings without this checkout's absolute prefix (committed data names no machine's paths)."""
    def walk(x):
        if isinstance(x, str):
            return x.replace(ROOT + os.sep, "")
        if isinstance(x, list):
            return [walk(v) for v in x]
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        return x
    with open(path) as f:
        doc = json.load(f)
    with open(path, "w") as f:
        json.dump(walk(doc), f, indent=1 if path.endswith("validation.json") else None)


def pct(x):
    return f"{100 * x:+.1f} %"


def write_md(s, path):
    ms = s["models"]
    nz = s.get("noise") or {}
    reps = "runs until the median was stable (--reps auto)" if s["reps"] == "auto" else f"{s['reps']} runs"
    lines = [f"CPU: {s['cpu']}, {s['threads']} intra-op threads; ONNX Runtime {s['onnxruntime']}, optimization level "
             f"all, batch 1, median of the {reps} after 3 warm-up runs; of two passes over all the models, each "
             "model's faster (both end-to-end medians in the column 'over the models').", "",
             f"The machine's noise: within a measurement the median pass over the fastest was "
             f"{nz.get('median_pass_median_ratio') or 0:.2f}x at the median model, {nz.get('max_pass_median_ratio') or 0:.2f}x at "
             f"most; {nz.get('not_stable', 0)} measurements not stable in time; {nz.get('left_out_noisy', 0)} left "
             "out of the calibration as noisy (role 'noisy').", "",
             "| model | role | end to end (ms) | predicted before (ms) | error before | predicted after (ms) | "
             "error after | node median / p90 \\|ln\\| before | after | over the models (ms) | passes |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for m in ms:
        lines.append(f"| {m['model']} | {m['role']} | {m['end_to_end_ms']:.2f} | {m['predicted_before_ms']:.2f} | "
                     f"{pct(m['e2e_error_before'])} | {m['predicted_after_ms']:.2f} | {pct(m['e2e_error_after'])} | "
                     f"{m['node_median_abs_ln_before']:.2f} / {m['node_p90_abs_ln_before']:.2f} | "
                     f"{m['node_median_abs_ln_after']:.2f} / {m['node_p90_abs_ln_after']:.2f} | "
                     + " / ".join(f"{x:.2f}" for x in m["end_to_end_ms_passes"]) + " | "
                     + (f"{m['passes']}, {m['pass_median_ratio']:.2f}x / {m['pass_ratio']:.2f}x, {m['stopped']}"
                        if m.get("passes") else "") + " |")
    for role in ("fit", "check"):
        g = [m for m in ms if m["role"] == role]
        if not g:
            continue
        within = sum(abs(m["e2e_error_after"]) <= 0.15 for m in g)
        within_b = sum(abs(m["e2e_error_before"]) <= 0.15 for m in g)
        med = sorted(m["node_median_abs_ln_after"] for m in g)[len(g) // 2]
        lines.append("")
        lines.append(f"{role}: {len(g)} models; end to end within 15 %: {within_b} before, {within} after; "
                     f"median over the models of the per-node median |ln|: {med:.2f} after")
    ops = s.get("by_op_after") or []
    if ops:
        lines += ["", f"Worst op types after calibration, over the {s.get('by_op_over') or 'check'} files "
                      "(time share x median error):", "",
                  "| op | nodes | time share | median \\|ln\\| | total error |", "|---|---:|---:|---:|---:|"]
        for o in ops[:8]:
            lines.append(f"| {o['op']} | {o['nodes']} | {100 * o['time_share']:.1f} % | {o['median_abs_ln']:.2f} | "
                         f"{pct(o['total_error'])} |")
    lines += ["", "Memory: ONNX Runtime's arena (the largest mem_in_use_peak of the node events) against onnxcost's "
                  "replay of it (views/ort_arena.h; with its 4 KiB allowance for small reservations it does not "
                  "model), and onnxcost's liveness peak of the activations, which is not the same quantity.", "",
              "| model | arena peak (MiB) | replayed (MiB) | replayed - measured (bytes) | pre-packed weights (MiB) | "
              "pattern block (MiB) | peak in run | activations (MiB) |", "|---|---:|---:|---:|---:|---:|---|---:|"]
    for m in ms:
        ap, ep, r = m["arena_peak_bytes"], m["estimated_peak_bytes"], m["replayed"]
        run = "first" if r["first_run_peak_bytes"] >= r["later_run_peak_bytes"] else "later"
        lines.append(f"| {m['model']} | {ap / 2**20:.2f} | {r['peak_bytes'] / 2**20:.2f} | {r['peak_bytes'] - ap:+,} | "
                     f"{r['prepacked_weight_bytes'] / 2**20:.2f} | {r['pattern_bytes'] / 2**20:.2f} | {run} | "
                     f"{ep / 2**20:.2f} |")
    over = [m["replayed"]["peak_bytes"] / m["arena_peak_bytes"] - 1 for m in ms]
    lines += ["", f"Replayed against measured: {sum(o >= 0 for o in over)} of {len(over)} models not below; "
                  f"above by {100 * min(over):.3f} % to {100 * max(over):.3f} %."]
    open(path, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
