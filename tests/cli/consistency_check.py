#!/usr/bin/env python3
"""cli.consistency — the tool's figures agree with each other, on every
fixture and through every command and format (issue 28, item 2):

  - totals equal the sum of their node rows and of their op-type rows
    (MACs, FLOPs), unless the report says they saturated;
  - an incomplete analysis (nodes without a cost) carries its lower-bound
    mark where the reader looks, in every format: `>=` on the text totals,
    `≥` in Markdown, the lower-bound sentence in HTML, `complete: false`
    in JSON, `>=` values and `complete` false in annotate's metadata; and
    a complete one carries none;
  - compare against the MNIST net: the same completeness, `>=` on the MACs
    cell and `macs_ratio_bound: "lower"` for an incomplete model;
  - sweep over its batch dim: each row's completeness and marks as the
    analysis at that binding;
  - llm on the decoders: the header's figures (layers x KV heads x head
    size x dtype x 2) equal the KV bytes per token; the one decoder llm
    refuses (LLM_REFUSED) is refused for its named reason, and no other;
  - the GPU model's options (runtime, layout, attention, autocast, the
    built-in fit): named in the text header and JSON's gpu.options alike.
Expectations come from the JSON document's node rows and flags, not from
the figures being checked. Files refused by the analysis (tests/refused.txt)
are left out; a minimum of files checked keeps the test from passing empty.
usage: consistency_check.py ONNXCOST FIXTURES_DIR
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import onnx
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

bin_, fx = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
refused = set()
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "refused.txt")) as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            refused.add(line.split()[0])
mnist = os.path.join(fx, "mnist", "torchsummary_net.onnx")
fails, checks = [], 0
counts = {"files": 0, "incomplete": 0, "sweeps": 0, "decoders": 0}


def run(*args, rc=(0, 1)):
    p = subprocess.run([bin_, *args], capture_output=True, text=True)
    if p.returncode not in rc:
        fails.append(f"{' '.join(args)[:120]}: exit {p.returncode}: {p.stderr.strip()[:200]}")
        return None
    return p.stdout


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fails.append(f"{what}: {str(detail)[:300]}")


def line_with(text, start):
    return next((x for x in text.splitlines() if x.startswith(start)), "")


models = sorted(glob.glob(os.path.join(fx, "**", "*.onnx"), recursive=True))
for path in models:
    rel = os.path.relpath(path, fx)
    if rel in refused:
        continue
    name = rel
    doc = run(path, "--format", "json", "-q")
    if doc is None:
        continue
    d = json.loads(doc)
    counts["files"] += 1
    t, complete = d["totals"], d["totals"]["complete"]
    counts["incomplete"] += not complete
    if not t["overflow"]:
        for key in ("macs", "flops"):
            rows = sum(n[key] or 0 for n in d["nodes"])
            ops = sum(o[key] for o in d["op_types"])
            check(f"{name}: total {key} = sum of node rows", t[key] == rows, (t[key], rows))
            check(f"{name}: total {key} = sum of op-type rows", t[key] == ops, (t[key], ops))
    check(f"{name}: complete iff no node without a cost",
          complete == (d["coverage"]["nodes_without_cost"] == 0 and not t["overflow"]) or t["overflow"],
          (complete, d["coverage"]))
    text = run(path, "-q") or ""
    macs_line, flops_line = line_with(text, "Total MACs:"), line_with(text, "Total FLOPs:")
    marked = macs_line.startswith("Total MACs: >= ") and flops_line.startswith("Total FLOPs: >= ")
    if not t["overflow"]:
        check(f"{name}: text totals marked iff incomplete", marked == (not complete), (complete, macs_line, flops_line))
    md = run(path, "-q", "--format", "md") or ""
    check(f"{name}: md totals marked iff incomplete", ("| MACs | ≥ " in md) == (not complete) or t["overflow"],
          (complete, [x for x in md.splitlines() if x.startswith("| MACs")]))
    html = run(path, "-q", "--format", "html") or ""
    check(f"{name}: html says lower bounds iff incomplete", ("are lower bounds" in html) == (not complete),
          complete)

    out = os.path.join(tmp, "a.onnx")
    if run("annotate", path, "-o", out, "-q") is not None and os.path.exists(out):
        meta = {p.key: p.value for p in onnx.load(out, load_external_data=False).metadata_props}
        check(f"{name}: annotate's completeness", meta.get("onnxcost.complete", "").startswith(
            "true" if complete else "false"), meta.get("onnxcost.complete"))
        if not t["overflow"]:
            check(f"{name}: annotate's MACs marked iff incomplete",
                  meta.get("onnxcost.macs", "").startswith(">=") == (not complete), meta.get("onnxcost.macs"))
        os.remove(out)

    c = run("compare", mnist, path, "--format", "json")
    if c is not None:
        m = json.loads(c)["models"][1]
        check(f"{name}: compare's completeness", m["complete"] == complete, m["complete"])
        if not complete and not t["overflow"]:
            check(f"{name}: compare's ratio a lower bound", m.get("macs_ratio_bound") == "lower", m)
            ct = run("compare", mnist, path) or ""
            row = next((x for x in ct.splitlines() if x.startswith(path)), "")
            check(f"{name}: compare's text row marked", ">= " in row, row)

    dims = [k for k, v in d["bindings"].items()]
    if dims and "batch" in dims:
        s = run("sweep", path, "--dim", "batch=1,2", "--format", "json")
        if s is not None:
            counts["sweeps"] += 1
            rows = json.loads(s)["rows"]
            st = run("sweep", path, "--dim", "batch=1,2") or ""
            for r in rows:
                if "error" in r:
                    continue
                at = run(path, "--batch", str(r["bindings"]["batch"]), "--format", "json", "-q")
                if at is None:
                    continue
                a = json.loads(at)["totals"]
                check(f"{name}: sweep row = analysis at batch {r['bindings']['batch']}",
                      (r["complete"], r["macs"], r["flops"]) == (a["complete"], a["macs"], a["flops"]),
                      (r, a["macs"], a["complete"]))
            check(f"{name}: sweep text marks an incomplete row",
                  all(r.get("complete", True) for r in rows) or "WARNING: incomplete" in st, st[-300:])

# sweep --fit's "Memory (MiB)" column: what inference needs at each batch,
# the file's initializers (their bytes counted by onnx here) plus the
# liveness peak at that batch (the analysis' own figure, checked against
# ONNX Runtime elsewhere), not the peak alone
cnn = os.path.join(fx, "corpus", "onnx+onnx", "examples__simple_cnn", "simple_cnn.onnx")
from onnx import numpy_helper  # noqa: E402
weights = sum(numpy_helper.to_array(t).nbytes for t in onnx.load(cnn).graph.initializer)
st = run("sweep", cnn, "--dim", "batch_size=1,64", "--gpu", "t4", "--fit") or ""
head = next((ln for ln in st.splitlines() if "Memory (MiB)" in ln), "")
for b in (1, 64):
    row = next((ln.split() for ln in st.splitlines() if ln.split()[:1] == [str(b)]), [])
    peak = json.loads(run(cnn, "--dim", f"batch_size={b}", "--format", "json", "-q") or "{}")["totals"][
        "peak_activation_bytes"]
    want = f"{(weights + peak) / 2**20:.2f}"
    check(f"simple_cnn: sweep --fit Memory (MiB) at batch {b} = initializers {weights:,} B + peak {peak:,} B",
          bool(head) and len(row) >= 2 and row[-2] == want, (row, want))

# the decoders llm refuses, each with the text its one error line holds
LLM_REFUSED = {"test__models__static-scatter-bias-decoder__model.onnx": "a KV cache of fixed length"}
for path in sorted(glob.glob(os.path.join(fx, "corpus", "microsoft+onnxruntime-genai", "**", "*.onnx"),
                          recursive=True)):
    why = LLM_REFUSED.get(os.path.basename(path))
    p = subprocess.run([bin_, "llm", path, "--prompt", "8", "--generate", "2", "--format", "json"],
                       capture_output=True, text=True)
    if why:
        errs = [ln for ln in p.stderr.splitlines() if ln.startswith("onnxcost: error:")]
        check(f"{path}: llm refuses it ({why})", p.returncode == 2 and len(errs) == 1 and why in errs[0],
              (p.returncode, p.stderr[-200:]))
        continue
    if p.returncode != 0:
        check(f"{path}: llm takes this decoder", False, (p.returncode, p.stderr[-200:]))
        continue
    counts["decoders"] += 1
    v = json.loads(p.stdout)["llm"]
    bits = {"f32": 32, "f16": 16, "bf16": 16, "f64": 64}.get(v["kv_dtype"], 0)
    header = v["layers"] * v["kv_heads"] * v["head_dim"] * 2 * bits // 8
    check(f"{path}: llm header (layers x KV heads x head size x dtype x 2) = KV bytes per token",
          header == v["kv_bytes_per_token"], (header, v["kv_bytes_per_token"], v["warnings"]))

# the GPU model's options, as the text header and JSON's gpu.options say
# them: each option asked is named in both, and the built-in fit (the RTX
# 4090's eager fp16 fits) is taken where runtime, autocast type and layout
# match it, and named; bf16 (no fit made) and --efficiency leave it out
GPU_RUNS = [
    (["--runtime", "torch-eager", "--autocast", "bf16", "--channels-last", "--unfused-attention"],
     {"runtime": "torch-eager", "autocast": "bf16", "channels_last": True, "unfused_attention": True, "fit": False},
     ["  Runtime: torch-eager", "  Layout: channels-last", "  Attention: unfused", "  Autocast: bf16"]),
    (["--runtime", "torch-eager", "--autocast", "fp16"],
     {"runtime": "torch-eager", "autocast": "fp16", "channels_last": False, "unfused_attention": False, "fit": True},
     ["  Runtime: torch-eager", "  Autocast: fp16", "  Fit: "]),
    (["--runtime", "torch-eager", "--autocast", "fp16", "--channels-last"],
     {"autocast": "fp16", "channels_last": True, "fit": True}, ["  Layout: channels-last", "  Fit: "]),
    (["--runtime", "torch-compile", "--autocast", "fp16", "--efficiency", "0.6"],
     {"runtime": "torch-compile", "autocast": "fp16", "fit": False}, ["  Runtime: torch-compile", "  Autocast: fp16"]),
]
for args, want, lines in GPU_RUNS:
    base = [mnist, "--gpu", "rtx-4090", *args]
    doc, text = run(*base, "--format", "json"), run(*base)
    if doc is None or text is None:
        continue
    opts = json.loads(doc)["gpu"]["options"]
    for k, v in want.items():
        got = (opts.get(k) is not None) if k == "fit" else opts.get(k)
        check(f"{' '.join(args)}: gpu.options.{k}", got == v, opts.get(k))
    for start in lines:
        check(f"{' '.join(args)}: the header's line '{start.strip()}'", any(x.startswith(start) for x in text.splitlines()),
              text[:400])
    check(f"{' '.join(args)}: a Fit line exactly when JSON names a fit",
          any(x.startswith("  Fit: ") for x in text.splitlines()) == (opts.get("fit") is not None), opts.get("fit"))
    if opts.get("fit"):  # an eager fit gives the fused class (torch-compile's) no factor: named nowhere
        fit_line = line_with(text, "  Fit: ")
        check(f"{' '.join(args)}: the eager fit's classes, without fused", "fused" not in fit_line and
              "fused" not in opts["fit"]["factors"] and " gemm " in fit_line and "gemm" in opts["fit"]["factors"],
              (fit_line[-200:], opts["fit"]["factors"]))

MIN = {"files": 70, "incomplete": 5, "sweeps": 3, "decoders": 3}
for k, n in MIN.items():
    if counts[k] < n:
        fails.append(f"only {counts[k]} {k} checked, want at least {n}")
print(f"checked: {counts}")
if fails:
    print("\n".join("FAIL " + f for f in fails[:60]))
    print(f"{checks - len(fails)} passed, {len(fails)} failed")
    sys.exit(1)
print(f"{checks} passed, 0 failed")
