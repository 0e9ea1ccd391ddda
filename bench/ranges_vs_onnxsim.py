#!/usr/bin/env python3
"""onnxcost's ranges and range plan beside onnxsim 0.8.1's shape_cost, on the
same models and boxes (docs/RANGES.md, "Beside onnxsim").

For each model and box: MACs and peak activation bytes as [lo, hi] from
both, whether each says its figures are complete, the static arena each
plans for the whole box (onnxcost: `plan` over the box; onnxsim: its
arena_bytes), and each process's wall time and peak memory (one run each,
from /usr/bin/time; quote the committed medians from a benchmark run, not
these). onnxsim comes from PyPI (`pip install onnxsim==0.8.1`); give the
Python that has it.

usage: ranges_vs_onnxsim.py --onnxcost BIN --onnxsim-python PY [--exports DIR] [--out docs/results/ranges-onnxsim.json]
"""
import argparse
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name, file (under --exports unless it starts with fixtures/), box
CASES = [
    ("torchsummary_net", "fixtures/mnist/torchsummary_net.onnx", {"batch": (1, 64)}),
    ("resnet18", "resnet18.onnx", {"batch": (1, 64)}),
    ("mobilenet_v2", "mobilenet_v2.onnx", {"batch": (1, 64)}),
    ("swin_t", "swin_t.onnx", {"batch": (1, 8)}),
    ("alexnet", "alexnet.onnx", {"batch": (1, 64)}),
    ("convnext_tiny", "convnext_tiny.onnx", {"batch": (1, 16)}),
    ("densenet121", "densenet121.onnx", {"batch": (1, 64)}),
    ("efficientnet_b0", "efficientnet_b0.onnx", {"batch": (1, 64)}),
    ("googlenet", "googlenet.onnx", {"batch": (1, 64)}),
    ("mnasnet0_5", "mnasnet0_5.onnx", {"batch": (1, 64)}),
    ("mobilenet_v3_small", "mobilenet_v3_small.onnx", {"batch": (1, 64)}),
    ("regnet_y_400mf", "regnet_y_400mf.onnx", {"batch": (1, 64)}),
    ("resnet50", "resnet50.onnx", {"batch": (1, 64)}),
    ("shufflenet_v2_x1_0", "shufflenet_v2_x1_0.onnx", {"batch": (1, 64)}),
    ("squeezenet1_0", "squeezenet1_0.onnx", {"batch": (1, 64)}),
    ("vgg16", "vgg16.onnx", {"batch": (1, 16)}),
    ("vit_b_16", "vit_b_16.onnx", {"batch": (1, 16)}),
    ("distilbert", "distilbert.onnx", {"batch": (1, 8), "sequence": (1, 512)}),
    ("gpt2", "gpt2.onnx", {"batch": (1, 64), "sequence": (1, 1024)}),
    ("tiny_gpt2_decode", "fixtures/corpus/microsoft+onnxruntime-genai/"
                         "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx",
     {"batch_size": (1, 8), "seq_len": (1, 64), "past_seq_len": (1, 512), "total_seq_len": (2, 576)}),
]


def timed(cmd):
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", tf.name, *cmd], capture_output=True, text=True)
        wall, rss = tf.read().split()[-2:]
    return p, float(wall), int(rss) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--onnxsim-python", required=True)
    ap.add_argument("--exports", default=os.path.join(ROOT, "bench", "out", "measure"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "ranges-onnxsim.json"))
    a = ap.parse_args()
    rows = []
    for name, f, box in CASES:
        path = os.path.join(ROOT, f) if f.startswith("fixtures/") else os.path.join(a.exports, f)
        if not os.path.exists(path):
            print(name, "missing", path)
            continue
        dims = [x for k, (lo, hi) in box.items() for x in ("--dim", f"{k}={lo}:{hi}")]
        row = {"model": name, "box": {k: [lo, hi] for k, (lo, hi) in box.items()}}
        p, wall, rss = timed([a.onnxcost, path, *dims, "--format", "json", "-q"])
        if p.returncode == 0:
            r = json.loads(p.stdout)["ranges"]
            t = r["totals"] or {}
            row["onnxcost"] = {"method": r["method"], "complete": r["complete"],
                               "macs": [t["macs"]["min"], t["macs"]["max"]] if t else None,
                               "peak_activation_bytes": [t["peak_activation_bytes"]["min"],
                                                         t["peak_activation_bytes"]["max"]] if t else None,
                               "seconds": wall, "peak_rss_bytes": rss}
        else:
            row["onnxcost"] = {"error": p.stderr.strip().splitlines()[-1][:300]}
        p, _, _ = timed([a.onnxcost, "plan", path, *dims, "--format", "json"])
        row["onnxcost"]["arena_bytes"] = json.loads(p.stdout)["arena_bytes"] if p.returncode == 0 else None
        p, wall, rss = timed([a.onnxsim_python, "-m", "onnxsim.shape_cost", path, *dims, "--json"])
        if p.returncode == 0:
            s = json.loads(p.stdout)
            row["onnxsim"] = {"complete": s["complete"], "macs": [s["macs"]["lo"], s["macs"]["hi"]],
                              "peak_activation_bytes": [s["peak_activation_bytes"]["lo"], s["peak_activation_bytes"]["hi"]],
                              "arena_bytes": s.get("arena_bytes"), "unbounded_tensors": len(s.get("unbounded_tensors", [])),
                              "seconds": wall, "peak_rss_bytes": rss}
        else:
            row["onnxsim"] = {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:300],
                              "seconds": wall, "peak_rss_bytes": rss}
        rows.append(row)
        print(json.dumps(row), flush=True)
    json.dump({"onnxsim": "0.8.1", "rows": rows}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
