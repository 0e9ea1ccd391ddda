#!/usr/bin/env python3
"""ONNX backend node tests as an oracle for value propagation (folding).

For every backend node case whose nodes are all ops onnxcost folds (the
`fold` column of analyzer/ops.def chooses the cases; the expectations come
only from the ONNX test data), the case's input tensors are turned into
initializers, the model is analyzed by tests/oracle/fold_dump, and the
contents it propagated to each graph output must equal the expected
output_N.pb:
  integer and bool outputs: exactly;
  float outputs: to the type's precision (a relative 2^-21 for f32, about 4
    units in the last place; 2^-8 for f16, 2^-5 for bf16, 1e-12 for f64),
    NaN matching NaN and infinities their sign.
Then the forms the backend data lacks (ort_cases: integer and upper-case
Einsum, the Scatter reductions on integers, an empty Range, Pad's modes on
integers, Mod's signs, BitShift on 64 bits, integer division and
wrap-around, casts that truncate or wrap, and less-used forms of the
shape-data folds), judged by ONNX Runtime's run of the same model: equal
values and dims.
A case whose outputs are not folded at all must be listed, with its reason,
in tests/node/fold_xfail.txt; a listed case that now folds fails the test
too (remove it), as does any value that differs. A run that selects fewer
than MIN_OPS folded ops from ops.def, analyzes fewer than MIN_CASES cases or
finds fewer than MIN_VALUES values equal fails (the selection is a regex over
ops.def: a change of its format must not leave nothing checked).

Exit: 0 ok, 1 mismatch or unexpected change, 77 when onnx/numpy are missing.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper, TensorProto
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
XFAIL = os.path.join(ROOT, "tests", "node", "fold_xfail.txt")
MAX_ELEMS = 1 << 16  # what onnxcost folds per tensor (analyzer/fold.h)
# what a run must have checked (on 2026-11-25, onnx 1.19.1: 73 folded ops,
# 615 cases analyzed, 71,590 values equal)
MIN_OPS = 70
MIN_CASES = 600
MIN_VALUES = 70000
FLOAT_RTOL = {TensorProto.FLOAT: 2.0 ** -21, TensorProto.FLOAT16: 2.0 ** -8, TensorProto.BFLOAT16: 2.0 ** -5,
              TensorProto.DOUBLE: 1e-12}


def folded_ops():
    ops = set()
    for line in open(os.path.join(ROOT, "analyzer", "ops.def")):
        m = re.match(r'OC_OP\("",\s*"(\w+)",.*,\s*(\w+),\s*\w+\)\s*$', line)
        if m and m.group(2) != "oc_fold_none":
            ops.add(m.group(1))
    return ops


def read_tensor(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def as_initializers(model, data, tmp):
    """The model with every input an initializer holding the case's value;
    None when an input is not a small tensor."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    inits = []
    for i, vi in enumerate(m.graph.input):
        p = os.path.join(data, f"input_{i}.pb")
        if not vi.type.HasField("tensor_type") or not os.path.exists(p):
            return None
        try:
            t = read_tensor(p)
        except Exception:  # noqa: BLE001 (sequence or optional)
            return None
        if int(np.prod(t.dims)) > MAX_ELEMS:
            return None
        t.name = vi.name
        inits.append(t)
    del m.graph.input[:]
    m.graph.initializer.extend(inits)
    path = os.path.join(tmp, "model.onnx")
    onnx.save(m, path)
    return path


def compare(want, got, dtype, expanded):
    """None when equal, else a short reason. An expanded case (a function
    body: each step rounded to the type) is held to 2^-14 in f32, since its
    expected output comes from the fused op's reference."""
    if got is None:
        return "not folded"
    w = np.asarray(want).reshape(-1)
    if len(got) != w.size:
        return f"{len(got)} values, expected {w.size}"
    if dtype in FLOAT_RTOL:
        rtol = max(FLOAT_RTOL[dtype], 2.0 ** -14) if expanded else FLOAT_RTOL[dtype]
        for k, (a, b) in enumerate(zip(got, w.astype(np.float64))):
            a = float(a)
            if math.isnan(b) and math.isnan(a):
                continue
            if math.isinf(b) or math.isinf(a):
                if a != b:
                    return f"element {k}: {a} != {b}"
                continue
            if abs(a - b) > rtol * max(abs(b), 1e-30) and abs(a - b) > 1e-30:
                return f"element {k}: {a!r} != {b!r}"
        return None
    for k, (a, b) in enumerate(zip(got, w.astype(np.int64) if w.dtype != np.uint64 else w)):
        if int(a) != int(b):
            return f"element {k}: {a} != {b}"
    return None


def ort_cases():
    """Folds of forms the backend node data does not hold (integer Einsum,
    upper-case Einsum letters, the Scatter reductions on integers, an empty
    Range, Pad's reflect and edge modes on integers and negative pads, Mod's
    signs, BitShift on 64 bits): (name, model, output names), every input
    an initializer, ONNX Runtime the judge."""
    from onnx import helper as h

    def i64(*v, shape=None):
        a = np.array(v, dtype=np.int64)
        return a.reshape(shape) if shape else a

    def case(name, nodes, inits, outs, opset=17, otype=TensorProto.INT64):
        g = h.make_graph(nodes, name, [], [h.make_tensor_value_info(o, otype, None) for o in outs],
                         [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
        return name, h.make_model(g, opset_imports=[h.make_opsetid("", opset)]), outs

    out = [case("einsum_int_upper_case", [h.make_node("Einsum", ["a", "b"], ["y"], equation="AB,BC->AC")],
                {"a": np.arange(6, dtype=np.int64).reshape(2, 3) - 2,
                 "b": np.arange(12, dtype=np.int64).reshape(3, 4) - 5}, ["y"]),
           case("einsum_int_diagonal", [h.make_node("Einsum", ["a"], ["y"], equation="ii->i")],
                {"a": np.arange(9, dtype=np.int64).reshape(3, 3)}, ["y"]),
           case("range_empty", [h.make_node("Range", ["s", "l", "d"], ["y"])],
                {"s": np.array(5, np.int64), "l": np.array(1, np.int64), "d": np.array(1, np.int64)}, ["y"]),
           case("mod_int_signs", [h.make_node("Mod", ["a", "b"], ["y"])],
                {"a": i64(-7, 7, -7, 7, 0), "b": i64(3, -3, -3, 3, 5)}, ["y"]),
           case("bitshift_right_uint64", [h.make_node("BitShift", ["a", "b"], ["y"], direction="RIGHT")],
                {"a": np.array([16, 255, 1 << 40], np.uint64), "b": np.array([2, 4, 39], np.uint64)}, ["y"],
                otype=TensorProto.UINT64),
           case("pad_reflect_int", [h.make_node("Pad", ["x", "p"], ["y"], mode="reflect")],
                {"x": i64(1, 2, 3), "p": i64(2, 1)}, ["y"]),
           case("pad_edge_int", [h.make_node("Pad", ["x", "p"], ["y"], mode="edge")],
                {"x": i64(1, 2, 3), "p": i64(2, 1)}, ["y"]),
           case("pad_negative_begin", [h.make_node("Pad", ["x", "p"], ["y"])], {"x": i64(1, 2, 3, 4), "p": i64(-1, 1)},
                ["y"])]
    f32 = lambda *v: np.array(v, np.float32)  # noqa: E731
    node = h.make_node
    # integer arithmetic as the runtime does it: division truncating toward zero, wrap-around in the
    # type's width, casts truncating floats; the shape-data folds' less-used forms
    out += [case("div_int_toward_zero", [node("Div", ["a", "b"], ["y"])], {"a": i64(-7, 7, -7, 7), "b": i64(2, -2, -2, 2)},
                 ["y"]),
            case("cast_float_to_int64_truncates", [node("Cast", ["a"], ["y"], to=TensorProto.INT64)],
                 {"a": f32(-2.7, 2.7, -0.5, 1e10)}, ["y"]),
            case("cast_int64_to_int8_wraps", [node("Cast", ["a"], ["y"], to=TensorProto.INT8)],
                 {"a": i64(200, -200, 127, 128)}, ["y"], otype=TensorProto.INT8),
            case("cast_int_to_bool", [node("Cast", ["a"], ["y"], to=TensorProto.BOOL)], {"a": i64(0, -3, 5, 0)}, ["y"],
                 otype=TensorProto.BOOL),
            case("mul_int32_wraps", [node("Mul", ["a", "b"], ["y"])],
                 {"a": np.array([2**30, -7], np.int32), "b": np.array([4, 3], np.int32)}, ["y"], otype=TensorProto.INT32),
            case("add_uint8_wraps", [node("Add", ["a", "b"], ["y"])],
                 {"a": np.array([250, 3], np.uint8), "b": np.array([10, 4], np.uint8)}, ["y"], otype=TensorProto.UINT8),
            case("sub_uint32_wraps", [node("Sub", ["a", "b"], ["y"])],
                 {"a": np.array([1, 3], np.uint32), "b": np.array([2, 1], np.uint32)}, ["y"], otype=TensorProto.UINT32),
            case("pow_int", [node("Pow", ["a", "b"], ["y"])], {"a": i64(2, -3, 5, 0), "b": i64(10, 3, 0, 0)}, ["y"]),
            case("reduce_prod_int", [node("ReduceProd", ["a"], ["y"], axes=[1], keepdims=0)],
                 {"a": np.array([[2, 3, 4], [-1, 5, 6]], np.int64)}, ["y"]),
            # (not past 2^53: ONNX Runtime 1.31 sums int64 over all axes in double precision, 2^53 + 1 reads
            # 2^53 and 2^62 + 2 reads 2^62, where the fold is exact)
            case("reduce_sum_int", [node("ReduceSum", ["a"], ["y"], keepdims=0)],
                 {"a": np.array([[2**40, -3], [1, 1]], np.int64)}, ["y"]),
            case("cumsum_reverse_exclusive_int", [node("CumSum", ["a", "ax"], ["y"], reverse=1, exclusive=1)],
                 {"a": i64(1, 2, 3, 4), "ax": np.array(0, np.int64)}, ["y"]),
            case("range_negative_delta", [node("Range", ["s", "l", "d"], ["y"])],
                 {"s": np.array(10, np.int64), "l": np.array(3, np.int64), "d": np.array(-3, np.int64)}, ["y"]),
            case("range_float", [node("Range", ["s", "l", "d"], ["y"])],
                 {"s": np.array(0.5, np.float32), "l": np.array(2.0, np.float32), "d": np.array(0.3, np.float32)}, ["y"],
                 otype=TensorProto.FLOAT),
            case("mod_fmod_float", [node("Mod", ["a", "b"], ["y"], fmod=1)], {"a": f32(-7.5, 7.5, -7.5), "b": f32(2, -2, -2)},
                 ["y"], otype=TensorProto.FLOAT),
            case("gather_negative_indices", [node("Gather", ["a", "i"], ["y"], axis=0)],
                 {"a": i64(10, 20, 30), "i": i64(-1, 0, -3)}, ["y"]),
            case("tile_int", [node("Tile", ["a", "r"], ["y"])], {"a": np.array([[1, 2]], np.int64), "r": i64(2, 3)}, ["y"]),
            case("where_broadcast", [node("Where", ["c", "a", "b"], ["y"])],
                 {"c": np.array([[True], [False]]), "a": i64(1, 2, 3), "b": np.array(0, np.int64)}, ["y"]),
            case("slice_negative_step_fold", [node("Slice", ["a", "s", "e", "ax", "st"], ["y"])],
                 {"a": np.arange(10, dtype=np.int64), "s": i64(-1), "e": i64(-11), "ax": i64(0), "st": i64(-3)}, ["y"]),
            case("nonzero_fold", [node("NonZero", ["a"], ["y"])], {"a": np.array([[0, 1], [2, 0]], np.int64)}, ["y"]),
            case("reducemin_noop_with_empty_axes", [node("ReduceMin", ["a"], ["y"], keepdims=1, noop_with_empty_axes=1)],
                 {"a": i64(3, 1, 2)}, ["y"], 18)]
    for red in ("add", "mul", "max", "min"):
        out.append(case(f"scatter_elements_{red}_int",
                        [h.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0, reduction=red)],
                        {"x": i64(1, -2, 3, 4), "i": i64(1, 1, 3), "u": i64(5, -7, 2)}, ["y"], 18))
        out.append(case(f"scatter_nd_{red}_int", [h.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction=red)],
                        {"x": i64(1, -2, 3, 4), "i": i64(1, 1, 3, shape=(3, 1)), "u": i64(5, -7, 2)}, ["y"], 18))
    return out


def check_ort_cases(fold_dump, tmp):
    """ort_cases() folded by fold_dump against ONNX Runtime's outputs:
    (failures, values equal); 77-like skip (None) without onnxruntime."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    bad, values = [], 0
    for name, model, outs in ort_cases():
        path = os.path.join(tmp, name + ".onnx")
        onnx.save(model, path)
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(outs, {})
        run = subprocess.run([fold_dump, path], capture_output=True, text=True)
        if run.returncode != 0:
            bad.append(f"{name}: fold_dump failed: {run.stderr.strip()}")
            continue
        got = {o["name"]: o for o in json.loads(run.stdout)["outputs"]}
        types = {vi.name: vi.type.tensor_type.elem_type for vi in model.graph.output}
        for o, w in zip(outs, want):
            g = got.get(o)
            r = compare(w, g["values"] if g else None, types[o], False)
            if not r and g and list(g["dims"]) != list(w.shape):
                r = f"dims {g['dims']}, ONNX Runtime's {list(w.shape)}"
            if r:
                bad.append(f"{name} {o}: {r}")
            else:
                values += max(int(w.size), 1)
    return bad, values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fold_dump")
    ap.add_argument("--update-xfail", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    cases = sorted(glob.glob(os.path.join(root, "test_*")))
    if not cases:
        print("SKIP: the onnx package has no backend test data")
        return 77
    ops = folded_ops()
    xfail = {}
    if os.path.exists(XFAIL):
        for line in open(XFAIL):
            if line.strip() and not line.startswith("#"):
                name, _, why = line.strip().partition(" ")
                xfail[name] = why
    checked = values = 0
    bad, not_folded, fixed = [], {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            name = os.path.basename(case)
            model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
            if not model.graph.node or any(n.domain not in ("", "ai.onnx") or n.op_type not in ops
                                           for n in model.graph.node):
                continue
            data = os.path.join(case, "test_data_set_0")
            path = as_initializers(model, data, tmp)
            if not path:
                continue
            outs = []
            for i, o in enumerate(model.graph.output):
                p = os.path.join(data, f"output_{i}.pb")
                t = read_tensor(p) if os.path.exists(p) else None
                if t is None or t.data_type not in FLOAT_RTOL and t.data_type not in (
                        TensorProto.INT8, TensorProto.UINT8, TensorProto.INT16, TensorProto.UINT16,
                        TensorProto.INT32, TensorProto.UINT32, TensorProto.INT64, TensorProto.UINT64,
                        TensorProto.BOOL) or int(np.prod(t.dims)) > MAX_ELEMS:
                    outs = None
                    break
                outs.append(t)
            if not outs:
                continue
            run = subprocess.run([a.fold_dump, path], capture_output=True, text=True)
            checked += 1
            if run.returncode != 0:
                bad.append(f"{name}: fold_dump failed: {run.stderr.strip()}")
                continue
            got = {o["name"]: o for o in json.loads(run.stdout)["outputs"]}
            reasons = []
            for o, t in zip(model.graph.output, outs):
                g = got.get(o.name)
                r = compare(numpy_helper.to_array(t), g["values"] if g else None, t.data_type,
                            name.endswith("_expanded") or "_expanded_" in name)
                if r:
                    reasons.append(f"{o.name}: {r}")
                else:
                    values += int(np.prod(t.dims))
            folded_none = all(r.endswith("not folded") for r in reasons) and reasons
            if folded_none:
                not_folded[name] = "outputs not folded"
                if name not in xfail:
                    bad.append(f"{name}: not folded (list it in {os.path.relpath(XFAIL, ROOT)} with a reason)")
            elif reasons:
                bad.append(f"{name}: " + "; ".join(reasons))
            elif name in xfail:
                fixed.append(name)
            if a.verbose:
                print(name, "ok" if not reasons else reasons)
    for name in sorted(set(xfail) - set(not_folded) - set(fixed)):
        pass  # cases no longer selected are ignored
    for name in fixed:
        bad.append(f"{name}: folds now: remove it from {os.path.relpath(XFAIL, ROOT)}")
    with tempfile.TemporaryDirectory() as tmp:
        extra = check_ort_cases(a.fold_dump, tmp)
    if extra is None:
        print("FAIL onnxruntime is missing: the forms the backend data lacks are not checked")
        short_ort = ["onnxruntime missing"]
    else:
        short_ort = []
        bad += extra[0]
        print(f"{len(ort_cases())} cases of forms the backend data lacks, against ONNX Runtime: {extra[1]} values "
              f"equal, {len(extra[0])} differ")
    if a.update_xfail:
        with open(XFAIL, "w") as f:
            f.write("# ONNX backend node cases of folded ops whose outputs onnxcost does not fold.\n"
                    "# One case per line: name, space, reason. Rewritten by fold_values.py --update-xfail.\n")
            for name in sorted(not_folded):
                f.write(f"{name} {xfail.get(name, not_folded[name])}\n")
        bad = [b for b in bad if "not folded" not in b and "folds now" not in b]
    for b in bad:
        print("FAIL", b)
    print(f"onnx {onnx.__version__} node cases of folded ops: {checked} analyzed, "
          f"{checked - len(not_folded)} folded, {values} values equal to the expected outputs, "
          f"{len(not_folded)} not folded (listed)")
    short = []
    if len(ops) < MIN_OPS:
        short.append(f"only {len(ops)} folded ops read from analyzer/ops.def, want at least {MIN_OPS} "
                     "(did its format change?)")
    if checked < MIN_CASES:
        short.append(f"only {checked} cases analyzed, want at least {MIN_CASES}")
    if values < MIN_VALUES:
        short.append(f"only {values} values equal to the expected outputs, want at least {MIN_VALUES}")
    for b in short:
        print("FAIL", b)
    print(f"{len(ops)} folded ops in analyzer/ops.def (at least {MIN_OPS}), {checked} cases (at least {MIN_CASES}), "
          f"{values} values (at least {MIN_VALUES})")
    print(f"{checked - len(bad)} passed, {len(bad)} failed")
    return 1 if bad or short or short_ort else 0


if __name__ == "__main__":
    sys.exit(main())
