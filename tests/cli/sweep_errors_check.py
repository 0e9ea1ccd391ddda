#!/usr/bin/env python3
"""cli.sweep_errors — a sweep whose bindings break the model at some points:
each such row is an error in every format, with its reason where the
format has room for one, and the others are analyzed as usual.

The model, made here: x[N, 6] reshaped to [4, -1], then Relu. The reshape
holds only where 4 divides 6 N (N even). ONNX Runtime is the judge: the
rows that must be errors are the values of N at which it refuses to run
the model. The other rows' FLOPs are worked by hand: Relu's one per
element, 6 N.
  - text, Markdown, HTML: the error rows, and one line per error naming the
    binding and the Reshape (HTML had the rows but not the reasons);
  - JSON: an `error` in exactly the failing rows, figures in the others;
  - CSV: `error` in the failing rows' MACs column.

usage: sweep_errors_check.py ONNXCOST   (exit 77 without onnx/onnxruntime)
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

BIN = sys.argv[1]
fails, checks = [], 0


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fails.append(f"{what} {detail}")


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "reshape.onnx")
    g = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["r"]), helper.make_node("Relu", ["r"], ["y"])],
                          "reshape", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(np.array([4, -1], np.int64), "s")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    values = list(range(1, 7))
    so = ort.SessionOptions()
    so.log_severity_level = 4  # its refusals are the verdict, not news
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    broken = set()
    for n in values:
        try:
            sess.run(None, {"x": np.ones((n, 6), np.float32)})
        except Exception:  # noqa: BLE001 - ONNX Runtime refusing the binding is the verdict
            broken.add(n)
    check("ONNX Runtime breaks the odd N", broken == {1, 3, 5}, broken)
    dim = ["--dim", "N=" + ",".join(map(str, values))]

    def sweep(fmt):
        p = subprocess.run([BIN, "sweep", path, *dim, "--format", fmt], capture_output=True, text=True)
        check(f"sweep --format {fmt}: exit 0", p.returncode == 0, p.stderr.strip()[:200])
        return p.stdout

    for fmt in ("text", "md", "html"):
        out = sweep(fmt)
        for n in values:
            line = next((x for x in out.splitlines() if f"error at N={n}:" in x), None)
            if n in broken:
                check(f"{fmt}: the error at N={n} and its reason", line is not None and "Reshape" in line, line)
            else:
                check(f"{fmt}: no error at N={n}", line is None, line)
    j = json.loads(sweep("json"))
    for row in j["rows"]:
        n = row["bindings"]["N"]
        if n in broken:
            check(f"json: N={n} an error", "error" in row and "Reshape" in row["error"] and "flops" not in row, row)
        else:
            check(f"json: N={n} FLOPs 6 N", row.get("flops") == 6 * n and "error" not in row, row)
    rows = {int(r["N"]): r for r in csv.DictReader(io.StringIO(sweep("csv")))}
    for n in values:
        want = "error" if n in broken else "0"
        check(f"csv: N={n} MACs {want}", rows.get(n, {}).get("macs") == want, rows.get(n))
        if n not in broken:
            check(f"csv: N={n} FLOPs 6 N", rows[n].get("flops") == str(6 * n), rows[n])

if fails:
    print("\n".join("FAIL " + f for f in fails))
    print(f"{checks - len(fails)} passed, {len(fails)} failed")
    sys.exit(1)
print(f"{checks} passed, 0 failed")
