#!/usr/bin/env python3
"""`onnxcost probe --gpu` on ocsim, the simulated CUDA stack (tests/sim/).

The sweep's control flow and what the tables it writes are worth, without a
GPU:
  - the full grid at fp32 and tf32: every sweep node measured (no warning),
    a table for each of the ten kernel families at fp32, the products and
    convolutions only at tf32 (the memory-bound kinds are keyed by data type
    and measured once), the spec file read back by --gpu-spec;
  - the spec's predictions against ocsim's own replay of two models the sweep
    never saw (ResNet-50 and ShuffleNet from the ONNX backend data): ocsim
    times every kernel by its own formula (2 us + bytes / 2 TB/s + FLOPs / 50
    TFLOP/s), so a node read from the tables must land near the time the
    replay measures for it, and most nodes must be read from the tables;
  - a sweep node that crashes its worker (OCSIM_FAULT) is one warning, the
    spec is still written;
  - refusals: no -o, an unknown precision, CPU options with --gpu, GPU
    options without it, no plugin.

usage: probe_gpu_sim.py ONNXCOST PLUGIN SOURCE_DIR
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

BIN, PLUGIN, SRC = sys.argv[1:4]
CORPUS = os.path.join(SRC, "fixtures", "corpus", "onnx+onnx")
TMP = tempfile.mkdtemp(prefix="probe-gpu-sim-")
FAMILIES = {"gemm", "conv_3x3", "conv_kxk", "conv_1x1", "conv_grouped", "conv_depthwise", "eltwise", "reduce",
            "pool", "move"}
COMPUTE = {"gemm", "conv_3x3", "conv_kxk", "conv_1x1", "conv_grouped", "conv_depthwise"}
failures = []


def run(args, env_extra=None):
    env = dict(os.environ, ONNXCOST_GPU_PLUGIN=PLUGIN)
    env.update(env_extra or {})
    return subprocess.run([BIN] + args, env=env, capture_output=True, text=True, timeout=1800)


def check(tag, good, msg):
    print(f"{'ok  ' if good else 'FAIL'} {tag}: {msg}")
    if not good:
        failures.append(tag)


# ---- the full grid at fp32 and tf32 ------------------------------------------------------
spec = os.path.join(TMP, "spec.json")
rep_path = os.path.join(TMP, "report.json")
p = run(["probe", "--gpu", "--math", "fp32,tf32", "--like", "h100", "-o", spec, "--format", "json",
         "--report", rep_path])
check("sweep_runs", p.returncode == 0 and "warning" not in p.stderr, f"exit {p.returncode} {p.stderr[-400:]}")
if p.returncode != 0:
    sys.exit(1)
rep = json.load(open(rep_path))
tables = {(t["family"], t["dtype"], t.get("math")): t["samples"] for t in rep["tables"]}
fp32 = {f for f, d, m in tables if d == "f32" and m in ("fp32", None)}
tf32 = {f for f, d, m in tables if d == "f32" and m == "tf32"}
check("families_fp32", fp32 == FAMILIES, f"fp32 tables: {sorted(fp32)}")
check("families_tf32", tf32 == COMPUTE, f"tf32 tables (products and convolutions only): {sorted(tf32)}")
runs = {f["path"]: f["samples"] for f in rep["files"]}
check("memory_once", runs.get("--math tf32", 0) < runs.get("--math fp32", 0) and
      runs.get("--math tf32", 0) == sum(n for (f, d, m), n in tables.items() if m == "tf32"),
      f"samples per pass {runs}")
doc = json.load(open(spec))
check("spec_keys", doc.get("name") and "kernel_tables" in doc and doc["kernel_tables"].get("source", "").startswith(
    "ocsim"), f"name {doc.get('name')!r}, source {doc.get('kernel_tables', {}).get('source', '')[:60]!r}")

# ---- predictions against ocsim's replay of models the sweep never saw --------------------
for tag, name in (("resnet50", "light_resnet50"), ("shufflenet", "light_shufflenet")):
    model = os.path.join(CORPUS, f"onnx__backend__test__data__light__{name}.onnx")
    out = os.path.join(TMP, tag + ".json")
    r = run(["replay", model, "--reps", "3", "--warmup", "0", "--no-counters", "--math", "fp32", "--format",
             "json", "-o", out])
    a = run([model, "--gpu-spec", spec, "--math", "fp32", "--format", "json"])
    if r.returncode or a.returncode:
        check(tag, False, f"replay exit {r.returncode}, analyze exit {a.returncode}: {(r.stderr + a.stderr)[-300:]}")
        continue
    measured = {n["name"]: n["time_ns"]["median"] * 1e-9 for n in json.load(open(out))["nodes"]
                if n["status"] == "measured"}
    an = json.loads(a.stdout)
    launch = an["gpu"]["options"]["launch_s"]
    errs = [abs(math.log((n["gpu"]["time_s"] - launch) / measured[n["name"]])) for n in an["nodes"]
            if n["name"] in measured and n.get("gpu", {}).get("time_source") == "table"]
    share = len(errs) / len(measured)
    med = statistics.median(errs) if errs else math.inf
    check(tag, share >= 0.85 and med <= 0.15,
          f"{len(errs)} of {len(measured)} measured nodes read from the tables ({share:.0%}, want >= 85%), "
          f"median |ln(predicted/measured)| {med:.3f} (want <= 0.15)")

# ---- a sweep node that crashes its worker ------------------------------------------------
crash_spec = os.path.join(TMP, "crash.json")
p = run(["probe", "--gpu", "--grid", "quick", "--math", "fp32", "--like", "h100", "-o", crash_spec],
        {"OCSIM_FAULT": "segv:pooling:time",
         "ASAN_OPTIONS": ":".join(filter(None, [os.environ.get("ASAN_OPTIONS", ""), "handle_segv=0"]))})
warn = [ln for ln in p.stderr.splitlines() if "sweep nodes not measured" in ln]
check("crash_one_node", p.returncode == 0 and len(warn) == 1 and "SIGSEGV" in warn[0] and os.path.exists(crash_spec),
      f"exit {p.returncode}, {warn[0][:160] if warn else p.stderr[-300:]!r}")

# ---- refusals: one line, exit 2 ----------------------------------------------------------
for tag, args, env, want in (
        ("no_output", ["probe", "--gpu", "--like", "h100"], None, "-o SPEC.json"),
        ("bad_math", ["probe", "--gpu", "--math", "fp8", "-o", spec], None, "fp32, tf32, fp16 and bf16"),
        ("bad_grid", ["probe", "--gpu", "--grid", "huge", "-o", spec], None, "full or quick"),
        ("bad_like", ["probe", "--gpu", "--like", "epyc", "-o", spec], None, "not a built-in GPU"),
        ("cpu_options", ["probe", "--gpu", "--threads", "2", "-o", spec], None, "--threads and --seconds"),
        ("gpu_options", ["probe", "--grid", "quick"], None, "need --gpu"),
        ("no_plugin", ["probe", "--gpu", "--grid", "quick", "--like", "h100", "-o", os.path.join(TMP, "x.json")],
         {"ONNXCOST_GPU_PLUGIN": os.path.join(TMP, "missing.so")}, "error")):
    p = run(args, env)
    lines = p.stderr.strip().splitlines()
    check(tag, p.returncode == 2 and len(lines) == 1 and want in lines[0], f"exit {p.returncode}: {p.stderr.strip()[:200]}")
check("no_plugin_no_file", not os.path.exists(os.path.join(TMP, "x.json")), "no spec written without a device")

print(f"{len(failures)} failed" + (f": {', '.join(failures)}" if failures else ""))
sys.exit(1 if failures else 0)
