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

Sequence and optional outputs (expected output_N.pb a SequenceProto or an
OptionalProto) are compared with onnxcost's summary of them: the length, the
tensors' element type, and their shape where every tensor shares a dim (a dim
or rank they do not share must be reported unknown); an optional's presence,
then what it holds. With --fold-inputs a sequence or optional input is
rebuilt from its test value as SequenceConstruct / SequenceEmpty / Optional
nodes over tensor inputs of the elements' shapes (onnxcost cannot be told a
sequence's length otherwise).

Bytes: on every one-node case whose values all have a fixed width, the
node's bytes read and written must equal what the case's own tensors give
(input_N.pb, the initializers, output_N.pb) under docs/COSTS.md's
convention (tests/oracle/ort_figures.py: every input read, every output
written, views nothing, metadata ops no read); at least MIN_BYTES_CHECKED
cases are compared. MACs and FLOPs likewise, on every one-node case of an
op docs/COSTS.md gives a formula for that ort_figures.py writes out
(contractions, elementwise ops, pooling, reductions; at least
MIN_COSTS_CHECKED cases).

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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_figures import node_bytes, node_macs_flops, tensor_bytes  # noqa: E402  (docs/COSTS.md, by hand)

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


def read_value(tp, path):
    """The test value at path, parsed by the declared TypeProto's kind."""
    kind = tp.WhichOneof("value")
    msg = {"sequence_type": onnx.SequenceProto, "optional_type": onnx.OptionalProto}.get(kind, TensorProto)()
    with open(path, "rb") as f:
        msg.ParseFromString(f.read())
    return msg


def rebuild_nontensor(name, tp, value, graph):
    """Nodes (and tensor inputs of the elements' shapes) producing `name` with
    the structure of `value` (a SequenceProto or OptionalProto): what the
    harness tells onnxcost about a sequence or optional input. False when the
    value is not one onnxcost models (maps, nested sequences)."""
    from onnx import helper
    nodes, inputs = [], []

    def tensor_input(t, nm):
        inputs.append(helper.make_tensor_value_info(nm, t.data_type, list(t.dims)))
        return nm

    def seq(s, tp_seq, out):
        if s.elem_type not in (0, onnx.SequenceProto.TENSOR):
            return False
        if not s.tensor_values:
            et = tp_seq.sequence_type.elem_type.tensor_type.elem_type or TensorProto.FLOAT
            nodes.append(helper.make_node("SequenceEmpty", [], [out], dtype=et))
        else:
            ins = [tensor_input(t, f"{out}__{k}") for k, t in enumerate(s.tensor_values)]
            nodes.append(helper.make_node("SequenceConstruct", ins, [out]))
        return True

    if isinstance(value, onnx.SequenceProto):
        ok = seq(value, tp, name)
    else:
        inner = tp.optional_type.elem_type
        if value.HasField("tensor_value"):
            nodes.append(helper.make_node("Optional", [tensor_input(value.tensor_value, f"{name}__v")], [name]))
            ok = True
        elif value.HasField("sequence_value"):
            ok = seq(value.sequence_value, inner, f"{name}__v")
            nodes.append(helper.make_node("Optional", [f"{name}__v"], [name]))
        elif value.elem_type == onnx.OptionalProto.UNDEFINED or inner.WhichOneof("value") in ("tensor_type",
                                                                                            "sequence_type"):
            nodes.append(helper.make_node("Optional", [], [name], type=inner))
            ok = True
        else:
            ok = False
    if ok:
        rest = list(graph.node)
        del graph.node[:]
        graph.node.extend(nodes + rest)
        graph.input.extend(inputs)
    return ok


def fold_inputs(model, data, tmpdir):
    """Copy of the model whose small integer (and tiny float) inputs are
    initializers holding the case's input values, and whose sequence and
    optional inputs are rebuilt from their values (rebuild_nontensor); None
    when nothing folds."""
    folded, rebuilt = [], []
    for i, vi in enumerate(model.graph.input):
        p = os.path.join(data, f"input_{i}.pb")
        if vi.type.WhichOneof("value") in ("sequence_type", "optional_type") and os.path.exists(p):
            try:
                rebuilt.append((vi, read_value(vi.type, p)))
            except Exception:  # noqa: BLE001
                pass
            continue
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
    if not folded and not rebuilt:
        return None
    m = onnx.ModelProto()
    m.CopyFrom(model)
    names = {n for n, _ in folded}
    for vi, value in rebuilt:
        if rebuild_nontensor(vi.name, vi.type, value, m.graph):
            names.add(vi.name)
    if not names:
        return None
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
            got[o["name"]] = (o["dtype"], o["shape"], n["op_type"], n.get("reason"), n["status"], o)
    for i, out in enumerate(model.graph.output):
        kind = out.type.WhichOneof("value")
        if kind not in ("tensor_type", "sequence_type", "optional_type"):
            return False, f"output {i} is a {kind}, not a tensor, sequence or optional", ops
        p = os.path.join(data, f"output_{i}.pb")
        if not os.path.exists(p):
            continue
        g = got.get(out.name)
        if g is None:
            return False, f"output {out.name} not produced by a node", ops
        if g[4] != "ok":
            # shapes copied from the file's declarations do not count as inferred
            return False, f"{g[2]}: {g[3]}", ops
        if kind != "tensor_type":
            why = compare_nontensor(read_value(out.type, p), g[5])
            if why:
                return False, f"{g[2]}: output {i} {why}", ops
            continue
        exp = read_tensor(p)  # expected output tensor
        want = (DTYPE.get(exp.data_type, "?"), list(exp.dims))
        if g[1] is None or any(d is None for d in g[1]):
            why = g[3] or "unknown"
            return False, f"{g[2]}: shape unknown ({why})", ops
        if (g[0], g[1]) != want:
            return False, f"{g[2]}: output {i} is {g[0]}{g[1]}, expected {want[0]}{want[1]}", ops
    exp = expected_bytes(model, path, data)
    if exp is not None and len(doc["nodes"]) == 1:
        BYTES_CHECKED.add(os.path.basename(case))
        n = doc["nodes"][0]
        have = (n.get("bytes_read"), n.get("bytes_written"))
        if have != exp:
            return False, f"{n['op_type']}: bytes read/written {have[0]}/{have[1]}, the test tensors give " \
                          f"{exp[0]}/{exp[1]}", ops
    cost = expected_costs(model, path, data)
    if cost is not None and len(doc["nodes"]) == 1:
        COSTS_CHECKED.add(os.path.basename(case))
        n = doc["nodes"][0]
        if (n.get("macs"), n.get("flops")) != cost:
            return False, f"{n['op_type']}: MACs/FLOPs {n.get('macs')}/{n.get('flops')}, docs/COSTS.md's formulas " \
                          f"over the test tensors give {cost[0]}/{cost[1]}", ops
    return True, "", ops


BYTES_CHECKED = set()  # the cases whose bytes were compared
MIN_BYTES_CHECKED = 800
COSTS_CHECKED = set()  # the cases whose MACs and FLOPs were compared (ops with a formula in ort_figures.py)
MIN_COSTS_CHECKED = 400


def expected_bytes(model, path, data):
    """(read, written) of a one-node case from its test tensors: the node's
    inputs are graph inputs (input_N.pb) or initializers (the model's, or
    the ones fold_inputs made from input_N.pb), its outputs the expected
    output_N.pb. None when the case has another node (a rebuilt sequence),
    a non-tensor value or a tensor without a fixed width."""
    used = onnx.load(path, load_external_data=False)
    if len(model.graph.node) != 1 or len(used.graph.node) != 1:
        return None
    node = used.graph.node[0]
    size = {}
    for i, vi in enumerate(model.graph.input):
        p = os.path.join(data, f"input_{i}.pb")
        if vi.type.HasField("tensor_type") and os.path.exists(p):
            size[vi.name] = tensor_bytes(read_tensor(p))
    for t in used.graph.initializer:
        size[t.name] = tensor_bytes(t)
    for i, vi in enumerate(model.graph.output):
        p = os.path.join(data, f"output_{i}.pb")
        if vi.type.HasField("tensor_type") and os.path.exists(p):
            size[vi.name] = tensor_bytes(read_tensor(p))
    if any(size.get(x) is None for x in list(node.input) + list(node.output) if x):
        return None
    return node_bytes(node, size)


def expected_costs(model, path, data):
    """(MACs, FLOPs) of a one-node case by docs/COSTS.md's formulas
    (ort_figures.node_macs_flops) over the case's own tensors; None when the
    case has another node or its op has no formula there."""
    from onnx import numpy_helper
    used = onnx.load(path, load_external_data=False)
    if len(model.graph.node) != 1 or len(used.graph.node) != 1:
        return None
    v = {}
    try:
        for i, vi in enumerate(model.graph.input):
            p = os.path.join(data, f"input_{i}.pb")
            if vi.type.HasField("tensor_type") and os.path.exists(p):
                v[vi.name] = numpy_helper.to_array(read_tensor(p))
        for t in used.graph.initializer:
            v[t.name] = numpy_helper.to_array(t)
        for i, vi in enumerate(model.graph.output):
            p = os.path.join(data, f"output_{i}.pb")
            if vi.type.HasField("tensor_type") and os.path.exists(p):
                v[vi.name] = numpy_helper.to_array(read_tensor(p))
        node = used.graph.node[0]
        if not node.output or not node.output[0] or any(x not in v for x in list(node.input) + list(node.output) if x):
            return None  # a value the case has no tensor for (or the first output left out)
        return node_macs_flops(node, v)
    except KeyError as e:  # an op without a formula there; any other error is a bug to see
        if "no formula" not in str(e):
            raise
        return None


def shared_shape(tensors):
    """The shape a list of TensorProtos shares: None when the ranks differ,
    else the dims with None where they differ."""
    ranks = {len(t.dims) for t in tensors}
    if len(ranks) != 1:
        return None
    return [d[0] if len(set(d)) == 1 else None for d in zip(*(list(t.dims) for t in tensors))]


def compare_nontensor(exp, o):
    """'' when onnxcost's output object o describes the expected
    SequenceProto / OptionalProto exp, else why not."""
    if isinstance(exp, onnx.OptionalProto):
        if o.get("kind") != "optional":
            return f"is a {o.get('kind', 'tensor')}, expected an optional"
        if not exp.HasField("tensor_value") and not exp.HasField("sequence_value"):
            return "" if o.get("has_element") is False else f"has_element is {o.get('has_element')}, expected false"
        if o.get("has_element") is not True:
            return f"has_element is {o.get('has_element')}, expected true"
        if exp.HasField("tensor_value"):
            t = exp.tensor_value
            if o.get("elem_kind") != "tensor":
                return f"holds a {o.get('elem_kind')}, expected a tensor"
            want = (DTYPE.get(t.data_type, "?"), list(t.dims))
            have = (o["dtype"], o.get("elem_shape"))
            return "" if have == want else f"holds {have[0]}{have[1]}, expected {want[0]}{want[1]}"
        if o.get("elem_kind") != "sequence":
            return f"holds a {o.get('elem_kind')}, expected a sequence"
        return compare_sequence(exp.sequence_value, o)
    if o.get("kind") != "sequence":
        return f"is a {o.get('kind', 'tensor')}, expected a sequence"
    return compare_sequence(exp, o)


def compare_sequence(exp, o):
    ts = list(exp.tensor_values)
    if exp.elem_type not in (0, onnx.SequenceProto.TENSOR):
        return "expected a sequence of non-tensors"
    if o.get("length") != len(ts):
        return f"has length {o.get('length')}, expected {len(ts)}"
    if not ts:
        return ""
    dts = {DTYPE.get(t.data_type, "?") for t in ts}
    want = (dts.pop() if len(dts) == 1 else "?", shared_shape(ts))
    have = (o["dtype"], o.get("elem_shape"))
    return "" if have == want else f"is seq<{have[0]}{have[1]}>, expected seq<{want[0]}{want[1]}>"


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
    n_bytes = len(BYTES_CHECKED)
    bytes_ok = sum(1 for c in BYTES_CHECKED if results[c][0])
    print(f"bytes read and written against the test tensors: {bytes_ok}/{n_bytes} one-node cases agree "
          f"(the others fail above, by name)")
    n_costs = len(COSTS_CHECKED)
    costs_ok = sum(1 for c in COSTS_CHECKED if results[c][0])
    print(f"MACs and FLOPs by docs/COSTS.md's formulas over the test tensors: {costs_ok}/{n_costs} cases agree")
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
    few = (n_bytes < MIN_BYTES_CHECKED or n_costs < MIN_COSTS_CHECKED) and args.fold
    if few:
        print(f"FAIL: bytes compared on {n_bytes} cases (want at least {MIN_BYTES_CHECKED}), MACs and FLOPs on "
              f"{n_costs} (want at least {MIN_COSTS_CHECKED})")
    print(f"{total - len(regress) - len(fixed)} passed, {len(regress) + len(fixed) + few} failed")
    return 1 if regress or fixed or few else 0


if __name__ == "__main__":
    sys.exit(main())
