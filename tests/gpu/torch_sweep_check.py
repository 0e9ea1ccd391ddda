#!/usr/bin/env python3
"""gpu.torch_sweep — tests/gpu/torch_sweep.py's control flow on the CPU (no
GPU): `probe --gpu --sweep-model` writes the quick sweep, torch_sweep.py runs
every node with its PyTorch op, and `onnxcost tables` builds a table for each
family the sweep's node names give (gemm/..., conv_3x3/..., reduce/...). The
CPU's figures are never reported. Skipped (77) without torch or onnx.

  torch_sweep_check.py ONNXCOST SRC_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

bin_, src = sys.argv[1], sys.argv[2]
try:
    import onnx  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    sweep = os.path.join(tmp, "sweep.onnx")
    p = subprocess.run([bin_, "probe", "--gpu", "--grid", "quick", "--sweep-model", sweep], capture_output=True,
                       text=True)
    check(p.returncode == 0 and os.path.getsize(sweep) > 0, f"--sweep-model writes the sweep ({p.stderr.strip()})")
    m = onnx.load(sweep)
    families = {n.name.split("/")[0] for n in m.graph.node}
    check(len(m.graph.node) > 50 and len(families) == 10, f"the quick sweep: {len(m.graph.node)} nodes, "
          f"families {sorted(families)}")
    out = os.path.join(tmp, "out")
    p = subprocess.run([sys.executable, os.path.join(src, "tests", "gpu", "torch_sweep.py"), "--onnxcost", bin_,
                        "--sweep", sweep, "--out", out, "--device", "cpu", "--math", "fp32,bf16", "--calls", "1",
                        "--reps", "1", "--tables", os.path.join(tmp, "spec.json"), "--like", "h100"],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"torch_sweep.py runs on the CPU ({p.stderr.strip()[-300:]})")
    lc = json.load(open(os.path.join(out, "launch.json")))
    check(lc.get("eager_us_per_op", 0) > 0, f"launch.json has the eager time per op ({lc})")
    for mth, dt in (("fp32", "f32"), ("bf16", "bf16")):
        d = json.load(open(os.path.join(out, f"torch-sweep-{mth}.json")))
        bad = [(n["name"], n.get("reason")) for n in d["nodes"] if n["status"] != "measured"]
        check(len(d["nodes"]) == len(m.graph.node) and not bad, f"{mth}: every node measured (not: {bad[:3]})")
        check(all(n["estimate"]["dtype"] == dt for n in d["nodes"]), f"{mth}: every estimate is {dt}")
    spec = os.path.join(tmp, "spec.json")
    sp = json.load(open(spec)) if os.path.exists(spec) else {}
    tables = sp.get("kernel_tables", {}).get("tables", [])
    check(sp.get("efficiency", {}).get("launch_us") == 0, "--tables: the spec's launch term is 0 (the graph's gap "
          "is in every sample)")
    # the spec predicts: a BF16 3x3 convolution on a grid point of the quick sweep takes its time from the
    # tables, with no launch added
    conv = os.path.join(tmp, "conv.onnx")
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 256, 56, 56]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, [256, 256, 3, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8, 256, 56, 56])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), conv)
    p = subprocess.run([bin_, conv, "--gpu-spec", spec, "--dtype", "bf16", "--format", "json", "-q"],
                       capture_output=True, text=True)
    gd = json.loads(p.stdout)["gpu"] if p.returncode == 0 else {}
    check(gd.get("table_kernels") == 1 and gd.get("launch_s") == 0, f"a convolution timed from the tables, "
          f"no launch added ({gd.get('table_kernels')}, {gd.get('launch_s')})")
    for dt in ("f32", "bf16"):
        got = {t["family"] for t in tables if t["dtype"] == dt}
        check(got == families, f"{dt}: a table per family of the sweep (missing {sorted(families - got)})")
print("gpu.torch_sweep: " + ("ok" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
