#!/usr/bin/env python3
"""ONNX backend node tests as a shape oracle.

The `onnx` package (PyPI) ships onnx/backend/test/data/node/<case>/ with a
model.onnx and the expected output tensors (test_data_set_0/output_N.pb).
For every case, onnxcost's inferred type of each graph output must equal the
expected tensor's element type and dims. Symbolic input dims are bound to the
sizes of the case's input tensors with --dim.

Many cases feed the values a shape depends on (Resize scales, Reduce axes,
TopK k, Split sizes, Slice bounds, window sizes) as graph inputs, where a
real model has constants. onnxcost reads shapes, never input data, so by
default (--fold-inputs) the harness turns each case's small integer inputs
(and float inputs of at most 16 elements: scales, roi) into initializers
holding the test's values before analysis; --no-fold-inputs measures the
files as shipped. Both figures are recorded in docs/COVERAGE.md.

Cases that do not agree must be listed in tests/node/xfail.txt with a reason;
a failure not listed, or a listed case that now passes, fails the test.
`--update-xfail` rewrites the list from the current results (review the diff).
Prints the agreement figure recorded in docs/COVERAGE.md.

Exit: 0 ok, 1 regression, 77 when the onnx package (with its test data) is missing.
"""
import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import onnx
    from onnx import TensorProto
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

DTYPE = {TensorProto.FLOAT: "f32", TensorProto.UINT8: "u8", TensorProto.INT8: "i8", TensorProto.UINT16: "u16",
         TensorProto.INT16: "i16", TensorProto.INT32: "i32", TensorProto.INT64: "i64", TensorProto.STRING: "string",
         TensorProto.BOOL: "bool", TensorProto.FLOAT16: "f16", TensorProto.DOUBLE: "f64", TensorProto.UINT32: "u32",
         TensorProto.UINT64: "u64", TensorProto.COMPLEX64: "c64", TensorProto.COMPLEX128: "c128",
         TensorProto.BFLOAT16: "bf16", 17: "f8e4m3fn", 18: "f8e4m3fnuz", 19: "f8e5m2", 20: "f8e5m2fnuz",
         21: "u4", 22: "i4", 23: "f4e2m1", 24: "f8e8m0", 25: "u2", 26: "i2"}


def read_tensor(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


INT_TYPES = {TensorProto.INT64, TensorProto.INT32, TensorProto.INT8, TensorProto.UINT8, TensorProto.INT16,
             TensorProto.UINT16, TensorProto.UINT32, TensorProto.UINT64, TensorProto.BOOL}


def fold_inputs(model, data, tmpdir):
    """Copy of the model whose small integer (and tiny float) inputs are
    initializers holding the case's input values; None when nothing folds."""
    folded = []
    for i, vi in enumerate(model.graph.input):
        p = os.path.join(data, f"input_{i}.pb")
        if not vi.type.HasField("tensor_type") or not os.path.exists(p):
            continue
        try:
            t = read_tensor(p)
        except Exception:  # noqa: BLE001 (sequence or optional input)
            continue
        n = 1
        for d in t.dims:
            n *= d
        if (t.data_type in INT_TYPES and n <= 4096) or (t.data_type == TensorProto.FLOAT and n <= 16):
            t.name = vi.name
            folded.append((vi.name, t))
    if not folded:
        return None
    m = onnx.ModelProto()
    m.CopyFrom(model)
    names = {n for n, _ in folded}
    keep = [vi for vi in m.graph.input if vi.name not in names]
    del m.graph.input[:]
    m.graph.input.extend(keep)
    m.graph.initializer.extend(t for _, t in folded)
    path = os.path.join(tmpdir, "model.onnx")
    onnx.save(m, path)
    return path


def case_result(case, onnxcost, fold, tmpdir):
    """Returns (ok, reason, op_types)."""
    model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
    ops = sorted({(n.domain + "::" if n.domain else "") + n.op_type for n in model.graph.node})
    data = os.path.join(case, "test_data_set_0")
    path = (fold_inputs(model, data, tmpdir) if fold else None) or os.path.join(case, "model.onnx")
    args = [onnxcost, path, "--format", "json", "-q"]
    bound = {}
    for i, vi in enumerate(model.graph.input):
        tt = vi.type.tensor_type
        p = os.path.join(data, f"input_{i}.pb")
        if not vi.type.HasField("tensor_type") or not os.path.exists(p):
            continue
        dims = list(read_tensor(p).dims)
        for k, d in enumerate(tt.shape.dim):
            if d.dim_param and k < len(dims) and d.dim_param not in bound:
                bound[d.dim_param] = dims[k]
    for name, v in bound.items():
        if v > 0:
            args += ["--dim", f"{name}={v}"]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        return False, "error: " + run.stderr.strip().replace(case + "/", "").replace(tmpdir + "/", ""), ops
    doc = json.loads(run.stdout)
    got = {}
    for n in doc["nodes"]:
        for o in n["outputs"]:
            got[o["name"]] = (o["dtype"], o["shape"], n["op_type"], n.get("reason"), n["status"])
    for i, out in enumerate(model.graph.output):
        if not out.type.HasField("tensor_type"):
            kind = out.type.WhichOneof("value")
            return False, f"output {i} is a {kind}, not a tensor", ops
        p = os.path.join(data, f"output_{i}.pb")
        if not os.path.exists(p):
            continue
        exp = read_tensor(p)  # expected output tensor
        want = (DTYPE.get(exp.data_type, "?"), list(exp.dims))
        g = got.get(out.name)
        if g is None:
            return False, f"output {out.name} not produced by a node", ops
        if g[4] != "ok":
            # shapes copied from the file's declarations do not count as inferred
            return False, f"{g[2]}: {g[3]}", ops
        if g[1] is None or any(d is None for d in g[1]):
            why = g[3] or "unknown"
            return False, f"{g[2]}: shape unknown ({why})", ops
        if (g[0], g[1]) != want:
            return False, f"{g[2]}: output {i} is {g[0]}{g[1]}, expected {want[0]}{want[1]}", ops
    return True, "", ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--xfail", required=True)
    ap.add_argument("--update-xfail", action="store_true")
    ap.add_argument("--report", help="write a per-op summary (markdown) here")
    ap.add_argument("--fold-inputs", dest="fold", action="store_true", default=True)
    ap.add_argument("--no-fold-inputs", dest="fold", action="store_false")
    args = ap.parse_args()
    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    cases = sorted(glob.glob(os.path.join(root, "test_*")))
    if not cases:
        print(f"SKIP: no node test data under {root} (install onnx from PyPI)")
        return 77
    xfail = {}
    if os.path.exists(args.xfail):
        for line in open(args.xfail):
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                xfail[name] = reason
    results = {}
    by_op = collections.defaultdict(lambda: [0, 0])
    tmp = tempfile.mkdtemp(prefix="oc_node_")
    for c in cases:
        name = os.path.basename(c)
        ok, reason, ops = case_result(c, args.onnxcost, args.fold, tmp)
        results[name] = (ok, reason)
        for op in ops:
            by_op[op][0 if ok else 1] += 1
    shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(1 for ok, _ in results.values() if ok)
    total = len(results)
    mode = "inputs folded" if args.fold else "as shipped"
    print(f"onnx {onnx.__version__} node tests ({mode}): {passed}/{total} agree ({100.0 * passed / total:.1f} %)")
    if args.report:
        with open(args.report, "w") as f:
            f.write(f"onnx {onnx.__version__}: {passed}/{total} cases agree ({100.0 * passed / total:.1f} %)\n\n")
            f.write("| op | cases agreeing | cases failing |\n|---|---|---|\n")
            for op in sorted(by_op):
                f.write(f"| {op} | {by_op[op][0]} | {by_op[op][1]} |\n")
    if args.update_xfail:
        with open(args.xfail, "w") as f:
            f.write(f"# ONNX {onnx.__version__} backend node tests whose output types onnxcost does not (yet)\n")
            f.write("# infer. One case per line: name, space, reason. Regenerate with node_tests.py --update-xfail.\n")
            for name in sorted(results):
                ok, reason = results[name]
                if not ok:
                    f.write(f"{name} {reason}\n")
        print(f"wrote {args.xfail}")
        return 0
    regress = [n for n, (ok, _) in results.items() if not ok and n not in xfail]
    fixed = [n for n, (ok, _) in results.items() if ok and n in xfail]
    for n in regress:
        print(f"FAIL (not in xfail) {n}: {results[n][1]}")
    for n in fixed:
        print(f"UNEXPECTED PASS {n}: remove it from {args.xfail}")
    print(f"{total - len(regress) - len(fixed)} passed, {len(regress) + len(fixed)} failed")
    return 1 if regress or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
