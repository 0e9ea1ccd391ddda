#!/usr/bin/env python3
"""`onnxcost lint` against expectations computed here, never from lint's own
figures: by hand (numpy nbytes, N*K*M MACs), from the onnx package (the
initializers compared with numpy), from ONNX Runtime's offline optimizer
(what it drops and folds), and, for a model changed here as the finding
says or as ONNX Runtime optimized it, from figures of both models computed
here: bytes moved from the tensors ONNX Runtime produces
(tests/oracle/ort_figures.py), MACs and FLOPs by docs/COSTS.md's formulas
over its shapes, weight bytes from the initializers (never onnxcost's
analysis of either model). Small models built with onnx.helper at opset 17,
fixed seeds, N bound with --dim N=4.

  * weights/duplicate: two byte-identical 64x64 initializers give exactly one
    finding naming both, saving their nbytes and element count; a third of the
    same shape and other contents is not reported;
  * the same two duplicates saved as external data beside the model are
    found too (the file read from the model's folder); pointed at
    '../outside.bin', or at a link in the folder to a file out of it,
    holding the same bytes, they are not compared;
  * weights/duplicate-transposed: a small tied-head GPT-2 (tests/oracle/
    transformers.py, 1 layer, d 64, vocab 512) exported with torch; every
    2-D initializer pair A [r, c], B [c, r] with A.T == B (found with
    onnx.numpy_helper) is a finding naming both, saving B.nbytes;
  * graph/unused-initializer: an initializer no node reads, saving its nbytes;
    ONNX Runtime's basic-level optimized model drops it, and the float
    initializers' nbytes before minus after equal the saving;
  * graph/unused-input: an input [N, 16] float nothing reads, with N=4: the
    finding saves 4*16*4 input bytes;
  * graph/dead-node: a MatMul -> Relu branch reaching no output is one finding
    of exactly those two nodes, saving N*K*M MACs and the nbytes of the
    weight only it reads; the same graph pruned here (ONNX Runtime gives the
    same output for both) differs in MACs, FLOPs (by hand) and weight bytes
    by the saving;
  * graph/constant-foldable: MatMul(x, Transpose(W)) + Add(B1, B2): the
    findings' FLOPs and weight bytes add up to those by hand before minus
    after ONNX Runtime's constant folding (ORT_ENABLE_BASIC, saved model);
  * graph/no-op: Identity, Cast to float of a float, Transpose by the
    identity, Pad by zeros (pads an initializer) and Pad by zeros computed
    from the shapes, each a finding of exactly those nodes; the chain
    rewired here without them gives ONNX Runtime's same output, and
    the bytes ONNX Runtime's tensors move before minus after equal the savings;
    ONNX Runtime's basic optimizer removes the Identity and the Cast, and
    the bytes its tensors move fall by exactly those findings' savings; the
    computed Pad is said to hold at these bindings only; a Slice of every
    element (negative axes), an Expand to ones and a Dropout without its
    mask read are findings too, a Dropout whose mask is read and a Slice
    that drops an element none, the chain without them ONNX Runtime's same
    output;
  * graph/cancelling-pair: Transpose [0, 2, 1] twice, and Cast float to
    double and back, are one finding each of exactly those nodes, and a Cast
    to float16 and back (lossy) none; ONNX Runtime gives the same output with
    the pairs rewired away here, and the bytes ONNX Runtime's tensors move before
    minus after equal the savings; ONNX Runtime's basic optimizer removes the
    same two pairs, keeps the lossy one, and its result moves exactly the
    savings less; a Reshape to [-1, 48] and back to [-1, 8, 6] is a finding
    of both; int32 to int64 and back is a finding, int64 to int32 and back
    none (ONNX Runtime's outputs the same without the first, changed
    through the second);
  * fusion/fold-into-weights: a BatchNormalization of opset 9 whose running
    mean is a graph output is no finding (folding it takes an output away),
    the same without that output is;
  * fusion/fold-into-weights: Conv -> BatchNormalization and Conv -> Mul by a
    [C, 1, 1] constant -> Add by one: ONNX Runtime's basic optimizer folds
    them into the Conv (counted here), and FLOPs, weight bytes and bytes moved (by hand)
    before minus after equal the findings' savings;
  * onnxsim's simplifier on the no-op, cancelling, foldable,
    fold-into-weights and dead-node models: the findings naming the nodes it
    removes save what their removal saves (bytes from ONNX Runtime's
    tensors, FLOPs by hand, weight bytes from the initializers);
  * fusion/unfused-attention: MatMul(q, k^T) -> Div -> Softmax -> MatMul(., v)
    of 2 heads x 8 queries x 8 keys is one finding of exactly those nodes,
    saving by hand the score tensor written, the Div and Softmax passes and
    the probabilities read (6 x 128 x 4 B, and the Div's scalar), 384 B per
    query token; on an A100, the time of the Div's and Softmax's kernels,
    as analyze --gpu predicts them; without a device no time;
  * memory/peak and memory/peak-order: two branches, each a wide MatMul then a
    narrow one, written breadth first: the peak's largest tensors are the two
    wide results; the order the finding gives, written here into the file,
    gives ONNX Runtime's same output, and onnxcost's peak of each file is
    the peak by hand (tensors live from producer to last reader), the two
    differing by the saving;
  * perf/tensor-core-alignment: with --gpu a100 --math fp16, a MatMul of
    K 30 and N 50 is a finding giving the tiles' extra work by hand
    (56 x 32 / (50 x 30) - 1 = 19.47 %), one of K 32 and N 64 none, and
    without a device no finding; a 3x3 Conv over 3 channels (K 27, N 16)
    one (16 x 32 / (16 x 27) - 1 = 18.52 %), one over 8 channels none;
  * precision/cast-weights: a float32 weight cast to float16 on every run is
    a finding naming it, saving the bytes numpy's float16 copy drops;
  * precision/narrower-weights: 1.5 MiB of float32 weights, the float16 step
    saving half their numpy nbytes;
  * model/old-opset: a model at opset 11 is a note, at 17 none;
  * coverage/no-cost: a node of a custom domain is an error finding, exit 1 by
    default, 0 with --fail-on never, and with --ignore coverage no finding and
    exit 0;
  * formats and options: SARIF 2.1.0 (every rule in the driver, each result's
    ruleId and level, the model's path as the artifact), text lines
    `PATH: level: rule: message[; saves ...]` (one per JSON finding) and a
    summary line, md with each finding's rule; --select weights and --ignore
    graph/constant-foldable; --select nosuch exits 2 with one line on stderr;
    --fail-on warning exits 1 on a warning, --fail-on error exits 0;
  * a clean model (fixtures/mnist/torchsummary_net.onnx) has no warning or
    error findings and exits 0.

usage: lint_check.py ONNXCOST WORKDIR   (exit 77 without torch/onnx/onnxruntime/numpy)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import warnings

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import TensorProto, helper as h, numpy_helper
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import transformers as oracle  # noqa: E402  (tests/oracle/transformers.py: GPT2, onnx_export)
from ort_figures import feeds_for, hand_flops, model_bytes  # noqa: E402  (figures from ONNX Runtime's tensors, by hand)

RULES = ["weights/duplicate", "weights/duplicate-transposed", "graph/unused-initializer", "graph/unused-input",
         "graph/dead-node", "graph/constant-foldable", "graph/no-op", "graph/cancelling-pair",
         "fusion/fold-into-weights", "fusion/unfused-attention", "perf/tensor-core-alignment",
         "precision/cast-weights", "precision/narrower-weights", "model/old-opset", "memory/peak", "memory/peak-order",
         "coverage/no-cost"]
N = 4
DIM = ["--dim", f"N={N}"]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(onnxcost, *args):
    return subprocess.run([onnxcost, *args], capture_output=True, text=True)


def lint(onnxcost, path, *extra):
    """(exit code, the onnxcost-lint/1 document or None, stderr)"""
    p = run(onnxcost, "lint", path, "--format", "json", *extra)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = None
    return p.returncode, doc, p.stderr


def findings(doc, rule):
    return [f for f in (doc or {}).get("findings", []) if f["rule"] == rule]


def totals(onnxcost, path, *extra):
    p = run(onnxcost, path, "--format", "json", "-q", *extra)
    if p.returncode != 0:
        print(f"     onnxcost {path}: exit {p.returncode}: {p.stderr.strip()}")
        return None
    return json.loads(p.stdout)["totals"]


def tensor(name, a):
    return numpy_helper.from_array(np.ascontiguousarray(a), name)  # raw_data, as exporters write it


def vi(name, shape, elem=TensorProto.FLOAT):
    return h.make_tensor_value_info(name, elem, shape)


def save(path, nodes, inputs, outputs, inits, domains=()):
    graph = h.make_graph(nodes, os.path.basename(path), inputs, outputs, inits)
    opsets = [h.make_opsetid("", 17)] + [h.make_opsetid(d, 1) for d in domains]
    model = h.make_model(graph, opset_imports=opsets, ir_version=8)
    if not domains:
        onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


def ort_optimize(src, dst):
    """ONNX Runtime's basic-level offline optimization (constant folding,
    unused initializers removed), the result saved to dst."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.log_severity_level = 3  # not the warning that it removes an unused initializer
    so.optimized_model_filepath = dst
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    return onnx.load(dst)


def ort_run(path, feeds):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"]).run(None, feeds)


def same_set(a, b):
    return sorted(a) == sorted(b)


# ---- figures of a model computed here, never by onnxcost ----------------------------------------------------------

def moved(path, feeds):
    """Bytes read + written by every node, from ONNX Runtime's tensors (ort_figures.py)."""
    r, w, _ = model_bytes(path, feeds)
    return r + w


def float_weights(path):
    """(bytes, elements) of the float initializers: docs/COSTS.md's params size."""
    arrays = [numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer]
    floats = [a for a in arrays if a.dtype.kind == "f"]
    return sum(a.nbytes for a in floats), sum(a.size for a in floats)


# ---- the models ---------------------------------------------------------------------------------------------------

def model_duplicate(work):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    w3 = rng.standard_normal((64, 64)).astype(np.float32)  # same shape, other contents
    nodes = [h.make_node("MatMul", ["x", "W1"], ["a"], name="mm1"),
             h.make_node("MatMul", ["x", "W2"], ["b"], name="mm2"),
             h.make_node("Add", ["a", "b"], ["s"], name="add"),
             h.make_node("MatMul", ["s", "W3"], ["y"], name="mm3")]
    path = save(os.path.join(work, "duplicate.onnx"), nodes, [vi("x", ["N", 64])], [vi("y", ["N", 64])],
                [tensor("W1", w), tensor("W2", w.copy()), tensor("W3", w3)])
    return path, w


def model_unused_initializer(work):
    rng = np.random.default_rng(2)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    u = rng.standard_normal((32, 16)).astype(np.float32)
    nodes = [h.make_node("MatMul", ["x", "W"], ["y"], name="mm")]
    path = save(os.path.join(work, "unused_init.onnx"), nodes, [vi("x", ["N", 16])], [vi("y", ["N", 8])],
                [tensor("W", w), tensor("U", u)])
    return path, u


def model_unused_input(work):
    rng = np.random.default_rng(3)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    nodes = [h.make_node("MatMul", ["x", "W"], ["y"], name="mm")]
    return save(os.path.join(work, "unused_input.onnx"), nodes, [vi("x", ["N", 16]), vi("u", ["N", 16])],
                [vi("y", ["N", 8])], [tensor("W", w)])


def model_dead(work):
    rng = np.random.default_rng(4)
    k, m_live, m_dead = 32, 16, 24
    w = rng.standard_normal((k, m_live)).astype(np.float32)
    w3 = rng.standard_normal((k, m_dead)).astype(np.float32)
    live = [h.make_node("MatMul", ["x", "W"], ["h"], name="live_mm"),
            h.make_node("Relu", ["h"], ["y"], name="live_relu")]
    dead = [h.make_node("MatMul", ["x", "W3"], ["d1"], name="dead_mm"),
            h.make_node("Relu", ["d1"], ["d2"], name="dead_relu")]
    ins, outs = [vi("x", ["N", k])], [vi("y", ["N", m_live])]
    path = save(os.path.join(work, "dead.onnx"), [live[0], dead[0], live[1], dead[1]], ins, outs,
                [tensor("W", w), tensor("W3", w3)])
    pruned = save(os.path.join(work, "dead_pruned.onnx"), live, ins, outs, [tensor("W", w)])
    return path, pruned, w3, (k, m_dead)


def model_foldable(work):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((16, 32)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    b2 = rng.standard_normal(16).astype(np.float32)
    nodes = [h.make_node("Transpose", ["W"], ["Wt"], name="transpose_w", perm=[1, 0]),
             h.make_node("MatMul", ["x", "Wt"], ["m"], name="mm"),
             h.make_node("Add", ["B1", "B2"], ["b"], name="add_bias"),
             h.make_node("Add", ["m", "b"], ["y"], name="add_out")]
    return save(os.path.join(work, "foldable.onnx"), nodes, [vi("x", ["N", 32])], [vi("y", ["N", 16])],
                [tensor("W", w), tensor("B1", b1), tensor("B2", b2)])


def model_no_op(work):
    """x -> Identity -> Cast(float) -> Transpose(identity) -> Pad(zeros) -> Relu -> Pad(zeros from the shape)
    -> y, and the same with only the Relu."""
    ins, outs = [vi("x", ["N", 8, 6])], [vi("y", ["N", 8, 6])]
    nodes = [h.make_node("Identity", ["x"], ["a"], name="idn"),
             h.make_node("Cast", ["a"], ["b"], to=TensorProto.FLOAT, name="cast"),
             h.make_node("Transpose", ["b"], ["c"], perm=[0, 1, 2], name="tr"),
             h.make_node("Pad", ["c", "pads"], ["d"], name="pad"),
             h.make_node("Relu", ["d"], ["e"], name="relu"),
             # pads = Shape(e)[2] - 6 = 0 at every binding, but computed: at these bindings only
             h.make_node("Shape", ["e"], ["sh"], name="shape", start=2, end=3),
             h.make_node("Sub", ["sh", "six"], ["p1"], name="sub"),
             h.make_node("Concat", ["zeros5", "p1"], ["pads2"], name="concat", axis=0),
             h.make_node("Pad", ["e", "pads2"], ["y"], name="pad2")]
    inits = [tensor("pads", np.zeros(6, np.int64)), tensor("six", np.array([6], np.int64)),
             tensor("zeros5", np.zeros(5, np.int64))]
    path = save(os.path.join(work, "noop.onnx"), nodes, ins, outs, inits)
    bare = save(os.path.join(work, "noop_bare.onnx"), [h.make_node("Relu", ["x"], ["y"], name="relu")], ins, outs, [])
    return path, bare


def check_no_op(onnxcost, path, bare):
    x = np.random.default_rng(5).standard_normal((N, 8, 6)).astype(np.float32)
    check(np.array_equal(ort_run(path, {"x": x})[0], ort_run(bare, {"x": x})[0]),
          "no-op: ONNX Runtime gives the same output with and without the no-op nodes")
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "graph/no-op") if doc else []
    names = {}
    for f in got:
        for n in f["nodes"]:
            names[n["name"]] = f
    check(same_set(names, ["idn", "cast", "tr", "pad", "pad2"]) and len(got) == 4,
          f"no-op: findings of exactly idn, cast, tr, pad and pad2, one per op type ({sorted(names)}, {len(got)})")
    # ONNX Runtime's basic optimizer removes the Identity and the Cast to float (not the Transpose or the Pads)
    opt = ort_optimize(path, os.path.join(os.path.dirname(path), "noop_ort.onnx"))
    kept = [n.name for n in opt.graph.node]
    removed = [nm for nm in ("idn", "cast", "tr", "pad", "pad2") if nm not in kept]
    feeds = {"x": x}
    by_ort = sum(f["saving"]["bytes_moved"] for f in got if any(n["name"] in removed for n in f["nodes"]))
    d = moved(path, feeds) - moved(os.path.join(os.path.dirname(path), "noop_ort.onnx"), feeds)
    check(set(removed) == {"idn", "cast"} and d == by_ort,
          f"no-op: ONNX Runtime removes {removed}; the bytes its tensors move fall by {d}, those findings save {by_ort}")
    pad_f = names.get("pad")
    check(pad_f is not None and "1 of them at these bindings only" in pad_f["message"],
          f"no-op: the Pad by computed zeros is said to hold at these bindings only "
          f"({pad_f['message'] if pad_f else None})")
    saved = sum(f["saving"]["bytes_moved"] for f in got)
    # the bare model has no Shape/Sub/Concat either: those feed pad2's pads and go with it
    r0, w0, per = model_bytes(path, feeds)
    d = r0 + w0 - moved(bare, feeds)
    shape_path = sum(sum(per[nm]) for nm in ("shape", "sub", "concat"))
    check(d - shape_path == saved, f"no-op: ONNX Runtime's tensors move {d} B more than the bare chain's, less the "
                                   f"pads' own computation {shape_path} = {d - shape_path}; the findings save {saved}")


def check_no_op_forms(onnxcost, work):
    """The other no-op forms: a Slice of every element (its axes negative), an Expand to a shape of ones, a
    Dropout with no mask read (inference): one finding each, exactly those nodes; a Dropout whose mask is read
    and a Slice that drops the last element are not no-ops. ONNX Runtime: the chain without the three no-ops
    gives the same output."""
    ins = [vi("x", ["N", 8, 6])]
    i64 = lambda name, v: tensor(name, np.array(v, np.int64))  # noqa: E731
    nodes = [h.make_node("Slice", ["x", "st", "en", "ax"], ["a"], name="slice_all"),
             h.make_node("Expand", ["a", "ones"], ["b"], name="expand_ones"),
             h.make_node("Dropout", ["b"], ["c"], name="dropout"),
             h.make_node("Relu", ["c"], ["d"], name="relu"),
             h.make_node("Dropout", ["d"], ["e", "mask"], name="dropout_mask"),
             h.make_node("Slice", ["e", "st", "end_short", "ax"], ["y"], name="slice_short")]
    inits = [i64("st", [0, 0]), i64("en", [2 ** 62, 2 ** 62]), i64("ax", [-1, -2]), i64("ones", [1, 1]),
             i64("end_short", [-1, 2 ** 62])]
    path = save(os.path.join(work, "noop_forms.onnx"), nodes, ins, [vi("y", ["N", 8, 5]), vi("mask", ["N", 8, 6], TensorProto.BOOL)],
                inits)
    bare_nodes = [h.make_node("Relu", ["x"], ["d"], name="relu"),
                  h.make_node("Dropout", ["d"], ["e", "mask"], name="dropout_mask"),
                  h.make_node("Slice", ["e", "st", "end_short", "ax"], ["y"], name="slice_short")]
    bare = save(os.path.join(work, "noop_forms_bare.onnx"), bare_nodes, ins,
                [vi("y", ["N", 8, 5]), vi("mask", ["N", 8, 6], TensorProto.BOOL)], inits)
    x = np.random.default_rng(6).standard_normal((N, 8, 6)).astype(np.float32)
    check(np.array_equal(ort_run(path, {"x": x})[0], ort_run(bare, {"x": x})[0]),
          "no-op forms: ONNX Runtime gives the same output with and without the Slice, Expand and Dropout")
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "graph/no-op") if doc else []
    names = sorted(n["name"] for f in got for n in f["nodes"])
    check(names == ["dropout", "expand_ones", "slice_all"] and len(got) == 3,
          f"no-op forms: findings of exactly slice_all, expand_ones and dropout, one each ({names}, {len(got)})")


def model_cancelling(work):
    ins = [vi("x", ["N", 8, 6])]
    nodes = [h.make_node("Transpose", ["x"], ["t1"], perm=[0, 2, 1], name="t1"),
             h.make_node("Transpose", ["t1"], ["t2"], perm=[0, 2, 1], name="t2"),
             h.make_node("Cast", ["t2"], ["c1"], to=TensorProto.DOUBLE, name="c1"),
             h.make_node("Cast", ["c1"], ["c2"], to=TensorProto.FLOAT, name="c2"),
             h.make_node("Cast", ["c2"], ["l1"], to=TensorProto.FLOAT16, name="lossy1"),
             h.make_node("Cast", ["l1"], ["l2"], to=TensorProto.FLOAT, name="lossy2"),
             h.make_node("Relu", ["l2"], ["y"], name="relu")]
    path = save(os.path.join(work, "cancel.onnx"), nodes, ins, [vi("y", ["N", 8, 6])], [])
    bare = save(os.path.join(work, "cancel_bare.onnx"), [nodes[4]._replace(input=["x"]) if False else
                h.make_node("Cast", ["x"], ["l1"], to=TensorProto.FLOAT16, name="lossy1"), nodes[5], nodes[6]],
                ins, [vi("y", ["N", 8, 6])], [])
    return path, bare


def check_cancelling_ort(onnxcost, path, got, work):
    """ONNX Runtime's basic optimizer removes the same pairs, and keeps the lossy round trip."""
    opt = ort_optimize(path, os.path.join(work, "cancel_ort.onnx"))
    names = [n.name for n in opt.graph.node]
    check(names == ["lossy1", "lossy2", "relu"],
          f"cancelling pairs: ONNX Runtime's basic optimizer removes t1, t2, c1, c2 and keeps the lossy pair ({names})")
    feeds = {"x": np.random.default_rng(6).standard_normal((N, 8, 6)).astype(np.float32)}
    d = moved(path, feeds) - moved(os.path.join(work, "cancel_ort.onnx"), feeds)
    saved = sum(f["saving"]["bytes_moved"] for f in got)
    check(d == saved, f"cancelling pairs: ONNX Runtime's result moves {d} B less (its own tensors), the findings "
                      f"save {saved}")


def check_reshape_pair(onnxcost, work):
    nodes = [h.make_node("Reshape", ["x", "s1"], ["r1"], name="r1"), h.make_node("Reshape", ["r1", "s2"], ["r2"], name="r2"),
             h.make_node("Relu", ["r2"], ["y"], name="relu")]
    path = save(os.path.join(work, "reshape.onnx"), nodes, [vi("x", ["N", 8, 6])], [vi("y", ["N", 8, 6])],
                [tensor("s1", np.array([-1, 48], np.int64)), tensor("s2", np.array([-1, 8, 6], np.int64))])
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "graph/cancelling-pair") if doc else []
    sets = [sorted(n["name"] for n in f["nodes"]) for f in got]
    check(sets == [["r1", "r2"]] and "Reshapes back" in got[0]["message"],
          f"cancelling pairs: a Reshape to [-1, 48] and back to [-1, 8, 6] is one finding of r1 and r2 ({sets})")


def check_cast_kinds(onnxcost, work):
    """Round trips between integer, bool and float types, lossless by hand
    where every value of the first type is one of the second's: int32
    through double (2^53 exact), int8 and uint16 through float16 and float
    (2^11 and 2^24), bool through float (0 and 1, back by != 0); lossy:
    int32 through float (2^24 + 1), int16 through float16 (2049), uint16
    through int8 (300), uint8 through bool (2), float16 through bfloat16
    (1 + 2^-10). (uint8 through int8 and back gives every value back in
    ONNX Runtime, which wraps; the rule counts only pairs whose every value
    is in the second type's range, so no finding there, on purpose.) One finding per type in between, of exactly the lossless
    pairs; ONNX Runtime gives each input back through a lossless pair, and
    changes the witness through a lossy one."""
    f16 = np.float16
    pairs = [("i32_f64", TensorProto.INT32, TensorProto.DOUBLE, [-2**31, 2**31 - 1, 0, 7], np.int32, True),
             ("i8_f16", TensorProto.INT8, TensorProto.FLOAT16, [-128, 127, 0, 3], np.int8, True),
             ("u16_f32", TensorProto.UINT16, TensorProto.FLOAT, [0, 65535, 1, 2], np.uint16, True),
             ("b_f32", TensorProto.BOOL, TensorProto.FLOAT, [True, False, True, True], np.bool_, True),
             ("i32_f32", TensorProto.INT32, TensorProto.FLOAT, [2**24 + 1, 0, 1, 2], np.int32, False),
             ("i16_f16", TensorProto.INT16, TensorProto.FLOAT16, [2049, 0, 1, 2], np.int16, False),
             ("u16_i8", TensorProto.UINT16, TensorProto.INT8, [300, 0, 1, 2], np.uint16, False),
             ("u8_bool", TensorProto.UINT8, TensorProto.BOOL, [2, 0, 1, 1], np.uint8, False),
             ("f16_bf16", TensorProto.FLOAT16, TensorProto.BFLOAT16, [1 + 2**-10, 0, 1, 2], f16, False)]
    nodes, ins, outs, feeds = [], [], [], {}
    for n, a, m, vals, dt, _ in pairs:
        nodes += [h.make_node("Cast", [n], [n + "_1"], to=m, name=n + "_1"),
                  h.make_node("Cast", [n + "_1"], [n + "_2"], to=a, name=n + "_2"),
                  h.make_node("Identity", [n + "_2"], [n + "_y"], name=n + "_id")]
        ins.append(h.make_tensor_value_info(n, a, [4]))
        outs.append(h.make_tensor_value_info(n + "_y", a, [4]))
        feeds[n] = np.array(vals, dtype=dt)
    path = save(os.path.join(work, "cast_kinds.onnx"), nodes, ins, outs, [])
    rc, doc, _ = lint(onnxcost, path)
    got = findings(doc, "graph/cancelling-pair") if doc else []
    sets = sorted(sorted(n["name"] for n in f["nodes"]) for f in got)
    want = sorted([["b_f32_1", "b_f32_2", "u16_f32_1", "u16_f32_2"], ["i32_f64_1", "i32_f64_2"], ["i8_f16_1", "i8_f16_2"]])
    check(sets == want, f"cancelling pairs: the lossless round trips, one finding per type between ({sets})")
    ys = ort_run(path, feeds)
    same = [np.array_equal(y, feeds[p[0]]) for p, y in zip(pairs, ys)]
    check(same == [p[5] for p in pairs], f"cancelling pairs: ONNX Runtime gives back the input through exactly the "
                                         f"lossless pairs ({same})")


def check_int_casts(onnxcost, work):
    """Integer round trips: int32 to int64 and back keeps every value (a
    finding), int64 to int32 and back does not (none); ONNX Runtime gives the
    same output with the lossless pair rewired away, on values at int32's
    ends, and a different one through the lossy pair for a value past them."""
    nodes = [h.make_node("Cast", ["a"], ["w1"], to=TensorProto.INT64, name="w1"),
             h.make_node("Cast", ["w1"], ["w2"], to=TensorProto.INT32, name="w2"),
             h.make_node("Neg", ["w2"], ["ya"], name="nega"),
             h.make_node("Cast", ["b"], ["n1"], to=TensorProto.INT32, name="n1"),
             h.make_node("Cast", ["n1"], ["n2"], to=TensorProto.INT64, name="n2"),
             h.make_node("Neg", ["n2"], ["yb"], name="negb")]
    ins = [h.make_tensor_value_info("a", TensorProto.INT32, ["N", 4]), h.make_tensor_value_info("b", TensorProto.INT64, ["N", 4])]
    outs = [h.make_tensor_value_info("ya", TensorProto.INT32, ["N", 4]), h.make_tensor_value_info("yb", TensorProto.INT64, ["N", 4])]
    path = save(os.path.join(work, "int_casts.onnx"), nodes, ins, outs, [])
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "graph/cancelling-pair") if doc else []
    sets = sorted(sorted(n["name"] for n in f["nodes"]) for f in got)
    check(sets == [["w1", "w2"]], f"cancelling pairs: int32 to int64 and back is one finding, int64 to int32 and "
                                  f"back none ({sets})")
    bare = save(os.path.join(work, "int_casts_bare.onnx"),
                [h.make_node("Neg", ["a"], ["ya"], name="nega"), nodes[3], nodes[4], nodes[5]], ins, outs, [])
    a = np.array([[-2**31 + 1, -1, 0, 2**31 - 1]] * N, np.int32)
    b = np.array([[2**40, -1, 0, 5]] * N, np.int64)
    full, gone = ort_run(path, {"a": a, "b": b}), ort_run(bare, {"a": a, "b": b})
    check(np.array_equal(full[0], gone[0]) and not np.array_equal(full[1], -b),
          "cancelling pairs: ONNX Runtime gives the same output without the int32 round trip, and the int64 one "
          "changes 2^40")


def check_cancelling(onnxcost, path, bare):
    x = np.random.default_rng(6).standard_normal((N, 8, 6)).astype(np.float32)
    check(np.array_equal(ort_run(path, {"x": x})[0], ort_run(bare, {"x": x})[0]),
          "cancelling pairs: ONNX Runtime gives the same output without them")
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "graph/cancelling-pair") if doc else []
    sets = sorted(sorted(n["name"] for n in f["nodes"]) for f in got)
    check(sets == [["c1", "c2"], ["t1", "t2"]], f"cancelling pairs: one finding each for t1/t2 and c1/c2, none for "
                                                f"the lossy float16 round trip ({sets})")
    d = moved(path, {"x": x}) - moved(bare, {"x": x})
    saved = sum(f["saving"]["bytes_moved"] for f in got)
    check(d == saved, f"cancelling pairs: ONNX Runtime's tensors move {d} B more than the pairs rewired away, "
                      f"the findings save {saved}")
    check_cancelling_ort(onnxcost, path, got, os.path.dirname(path))


def model_fold_into_weights(work):
    rng = np.random.default_rng(7)
    c_in, c = 3, 8
    ins = [vi("x", ["N", c_in, 10, 10])]
    w1 = rng.standard_normal((c, c_in, 3, 3)).astype(np.float32)
    w2 = rng.standard_normal((c, c, 3, 3)).astype(np.float32)
    b2 = rng.standard_normal(c).astype(np.float32)
    inits = [tensor("w1", w1), tensor("w2", w2), tensor("b2", b2),
             tensor("scale", rng.uniform(0.5, 1.5, c).astype(np.float32)),
             tensor("bias", rng.standard_normal(c).astype(np.float32)),
             tensor("mean", rng.standard_normal(c).astype(np.float32)),
             tensor("var", rng.uniform(0.5, 1.5, c).astype(np.float32)),
             tensor("m", rng.uniform(0.5, 1.5, (c, 1, 1)).astype(np.float32)),
             tensor("a", rng.standard_normal((c, 1, 1)).astype(np.float32))]
    nodes = [h.make_node("Conv", ["x", "w1"], ["y1"], pads=[1, 1, 1, 1], name="conv1"),
             h.make_node("BatchNormalization", ["y1", "scale", "bias", "mean", "var"], ["z1"], name="bn"),
             h.make_node("Relu", ["z1"], ["r1"], name="relu1"),
             h.make_node("Conv", ["r1", "w2", "b2"], ["y2"], pads=[1, 1, 1, 1], name="conv2"),
             h.make_node("Mul", ["y2", "m"], ["z2"], name="mul"),
             h.make_node("Add", ["z2", "a"], ["z3"], name="add"),
             h.make_node("Relu", ["z3"], ["y"], name="relu2")]
    return save(os.path.join(work, "fold_weights.onnx"), nodes, ins, [vi("y", ["N", c, 10, 10])], inits)


def check_fold_kept_output(onnxcost, work):
    """A BatchNormalization of opset 9 whose running mean is a graph output: folding it into the Conv would
    take an output from the model, so no finding (its other form, the output unread, is one)."""
    rng = np.random.default_rng(12)
    c = 4
    inits = [tensor("w", rng.standard_normal((c, 3, 3, 3)).astype(np.float32))]
    inits += [tensor(nm, rng.random(c).astype(np.float32) + 0.5) for nm in ("scale", "bias", "mean", "var")]
    for kept in (True, False):
        outs = ["y", "mean_out"] if kept else ["y", ""]
        nodes = [h.make_node("Conv", ["x", "w"], ["cv"], pads=[1, 1, 1, 1], name="conv"),
                 h.make_node("BatchNormalization", ["cv", "scale", "bias", "mean", "var"], outs, name="bn")]
        graph_outs = [vi("y", [N, c, 6, 6])] + ([vi("mean_out", [c])] if kept else [])
        path = os.path.join(work, f"bn_out{int(kept)}.onnx")
        onnx.save(h.make_model(h.make_graph(nodes, "bn", [vi("x", [N, 3, 6, 6])], graph_outs, inits),
                               opset_imports=[h.make_opsetid("", 9)]), path)
        rc, doc, _ = lint(onnxcost, path)
        got = [n["name"] for f in findings(doc, "fusion/fold-into-weights") for n in f["nodes"]]
        want = [] if kept else ["bn", "conv"]
        check(sorted(got) == want, f"fold into weights: a BatchNormalization whose running mean is "
                                   f"{'a graph output' if kept else 'not given'}: findings {sorted(got)}, want {want}")


def check_fold_into_weights(onnxcost, path, work):
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "fusion/fold-into-weights") if doc else []
    folded = sorted(n["name"] for f in got for n in f["nodes"] if n["op_type"] != "Conv")
    check(folded == ["add", "bn", "mul"], f"fold into weights: findings for bn, mul and add ({folded})")
    opt = ort_optimize(path, os.path.join(work, "fold_weights_ort.onnx"))
    ops = [n.op_type for n in opt.graph.node]
    check(ops.count("BatchNormalization") == 0 and "Mul" not in ops and "Add" not in ops,
          f"fold into weights: ONNX Runtime's basic optimizer folded them into the Convs ({ops})")
    feeds = {"x": np.random.default_rng(8).standard_normal((N, 3, 10, 10)).astype(np.float32)}
    after_path = os.path.join(work, "fold_weights_ort.onnx")
    before = {"flops": hand_flops(path, feeds)[1], "params_bytes": float_weights(path)[0],
              "bytes_moved": moved(path, feeds)}
    after = {"flops": hand_flops(after_path, feeds)[1], "params_bytes": float_weights(after_path)[0],
             "bytes_moved": moved(after_path, feeds)}
    for key, skey in (("flops", "flops"), ("params_bytes", "weight_bytes"), ("bytes_moved", "bytes_moved")):
        d = before[key] - after[key]
        want = sum(f["saving"][skey] for f in got)
        check(d == want, f"fold into weights: {key} by hand (formulas, initializers, ONNX Runtime's tensors) "
                         f"{before[key]} -> {after[key]}: {d} = the findings' {skey} {want}")


def check_attention(onnxcost, work):
    b, heads, t, d = 1, 2, 8, 4
    ins = [vi(nm, [b, heads, t, d]) for nm in ("q", "k", "v")]
    nodes = [h.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2], name="kt"),
             h.make_node("MatMul", ["q", "kt"], ["s"], name="qk"),
             h.make_node("Div", ["s", "scale"], ["s2"], name="scale"),
             h.make_node("Softmax", ["s2"], ["p"], axis=-1, name="softmax"),
             h.make_node("MatMul", ["p", "v"], ["y"], name="pv")]
    path = save(os.path.join(work, "attention.onnx"), nodes, ins, [vi("y", [b, heads, t, d])],
                [tensor("scale", np.array(2.0, np.float32))])
    rc, doc, _ = lint(onnxcost, path)
    got = findings(doc, "fusion/unfused-attention") if doc else []
    n = b * heads * t * t
    want = 6 * n * 4 + 4
    names = sorted(x["name"] for x in got[0]["nodes"]) if got else []
    check(len(got) == 1 and names == ["pv", "qk", "scale", "softmax"] and got[0]["saving"]["bytes_moved"] == want
          and got[0]["saving"]["flops"] == 0 and f"{want // (b * t)} B per query token" in got[0]["message"],
          f"attention: one finding of qk, scale, softmax, pv ({names}) saving {got[0]['saving']['bytes_moved'] if got else None}"
          f" B = 6 x {n} x 4 + 4 = {want} by hand, no FLOPs, {want // (b * t)} B per query token")
    # with a device, the time saved is the kernels a fused one does away with: the scale's and the Softmax's,
    # each as analyze predicts it on that device; none without one
    t_nodes = {}
    p = run(onnxcost, path, "--gpu", "a100", "--format", "json", "-q")
    if p.returncode == 0:
        t_nodes = {nd["name"]: nd["gpu"]["time_s"] for nd in json.loads(p.stdout)["nodes"]}
    rc, doc, _ = lint(onnxcost, path, "--gpu", "a100")
    got = findings(doc, "fusion/unfused-attention") if doc else []
    want_s = t_nodes.get("scale", 0) + t_nodes.get("softmax", 0)
    check(len(got) == 1 and t_nodes and abs(got[0]["saving"]["time_s"] - want_s) <= 1e-9 * want_s,
          f"attention on an A100: the time saved {got[0]['saving']['time_s'] if got else None} s, the scale's and "
          f"the Softmax's predicted times {want_s} s")
    rc, doc, _ = lint(onnxcost, path)
    got = findings(doc, "fusion/unfused-attention") if doc else []
    check(len(got) == 1 and got[0]["saving"]["time_s"] is None, "attention without a device: no time saved given")


def check_attention_layers(onnxcost, work):
    """three layers of written-out attention, one after the other: one finding naming the three places, every
    node listed, the savings summed (a transformer's twelve layers are one line, not twelve)"""
    b, heads, t, d = 1, 2, 8, 4
    nodes, x = [], "q"
    for k in range(3):
        nodes += [h.make_node("Transpose", [x], [f"kt{k}"], perm=[0, 1, 3, 2], name=f"kt{k}"),
                  h.make_node("MatMul", [x, f"kt{k}"], [f"s{k}"], name=f"qk{k}"),
                  h.make_node("Div", [f"s{k}", "scale"], [f"s2{k}"], name=f"scale{k}"),
                  h.make_node("Softmax", [f"s2{k}"], [f"p{k}"], axis=-1, name=f"softmax{k}"),
                  h.make_node("MatMul", [f"p{k}", x], [f"y{k}"], name=f"pv{k}")]
        x = f"y{k}"
    path = save(os.path.join(work, "attention3.onnx"), nodes, [vi("q", [b, heads, t, d])], [vi(x, [b, heads, t, d])],
                [tensor("scale", np.array(2.0, np.float32))])
    rc, doc, _ = lint(onnxcost, path)
    got = findings(doc, "fusion/unfused-attention") if doc else []
    want = 3 * (6 * b * heads * t * t * 4 + 4)
    names = sorted(x["name"] for x in got[0]["nodes"]) if got else []
    check(len(got) == 1 and names == sorted(f"{op}{k}" for k in range(3) for op in ("pv", "qk", "scale", "softmax"))
          and got[0]["saving"]["bytes_moved"] == want and "in 3 places (first from 'qk0' (MatMul))" in got[0]["message"]
          and f"{want // (b * t)} B per query token in all" in got[0]["message"],
          f"attention in 3 layers: one finding of the 12 nodes saving {want} B by hand, "
          f"{want // (b * t)} B per query token in all ({got[0]['message'][:120] if got else None})")


def check_peak_order(onnxcost, work):
    rng = np.random.default_rng(9)
    k, wide, narrow = 64, 4096, 8
    inits = [tensor(nm, rng.standard_normal(sh).astype(np.float32))
             for nm, sh in (("Wa", (k, wide)), ("Wb", (k, wide)), ("Va", (wide, narrow)), ("Vb", (wide, narrow)))]
    nodes = [h.make_node("MatMul", ["x", "Wa"], ["a1"], name="a1"), h.make_node("MatMul", ["x", "Wb"], ["b1"], name="b1"),
             h.make_node("MatMul", ["a1", "Va"], ["a2"], name="a2"), h.make_node("MatMul", ["b1", "Vb"], ["b2"], name="b2"),
             h.make_node("Concat", ["a2", "b2"], ["y"], axis=1, name="cat")]
    path = save(os.path.join(work, "branches.onnx"), nodes, [vi("x", ["N", k])], [vi("y", ["N", 2 * narrow])], inits)
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}", "--select", "memory")
    peak = findings(doc, "memory/peak") if doc else []
    check(len(peak) == 1 and sorted(peak[0]["tensors"][:2]) == ["a1", "b1"],
          f"peak: the largest tensors live at the peak are a1 and b1 ({peak[0]['tensors'] if peak else None})")
    got = findings(doc, "memory/peak-order") if doc else []
    if not got:
        check(False, "peak order: a memory/peak-order finding")
        return
    order = got[0]["order"]
    m = onnx.load(path)
    old = list(m.graph.node)
    del m.graph.node[:]
    m.graph.node.extend([old[i] for i in order])
    re_path = os.path.join(work, "branches_reordered.onnx")
    onnx.save(m, re_path)
    x = rng.standard_normal((N, k)).astype(np.float32)
    check(np.array_equal(ort_run(path, {"x": x})[0], ort_run(re_path, {"x": x})[0]),
          f"peak order: the file reordered as the finding says ({[old[i].name for i in order]}) gives ONNX Runtime's "
          f"same output")
    before, after = totals(onnxcost, path, "--dim", f"N={N}"), totals(onnxcost, re_path, "--dim", f"N={N}")
    s = got[0]["saving"]["peak_bytes"]
    # by hand, reordered: at a1's MatMul x and a1 are live; at b1's, x, a2 and b1: the wide result and the small ones
    wide_b, x_b, small_b = N * wide * 4, N * k * 4, N * narrow * 4
    hand = max(x_b + wide_b, x_b + small_b + wide_b, small_b + wide_b + small_b)
    # as written: at b1's MatMul x, a1 and b1 are live; at a2's a1, b1 and a2
    hand_before = max(x_b + wide_b, x_b + 2 * wide_b, 2 * wide_b + small_b, wide_b + 2 * small_b, 4 * small_b)
    check(before and after and before["peak_activation_bytes"] == hand_before and after["peak_activation_bytes"] == hand
          and hand_before - hand == s,
          f"peak order: onnxcost's peak {before and before['peak_activation_bytes']} -> "
          f"{after and after['peak_activation_bytes']} of the reordered file, by hand {hand_before} -> {hand}: "
          f"the saving {s}")


def check_tc_alignment(onnxcost, work):
    rng = np.random.default_rng(10)
    nodes = [h.make_node("MatMul", ["x", "W"], ["a"], name="odd"), h.make_node("MatMul", ["x2", "V"], ["b"], name="even")]
    path = save(os.path.join(work, "tc.onnx"), nodes, [vi("x", ["N", 30]), vi("x2", ["N", 32])],
                [vi("a", ["N", 50]), vi("b", ["N", 64])],
                [tensor("W", rng.standard_normal((30, 50)).astype(np.float32)),
                 tensor("V", rng.standard_normal((32, 64)).astype(np.float32))])
    rc, doc, _ = lint(onnxcost, path, "--dim", "N=64", "--gpu", "a100", "--math", "fp16")
    got = findings(doc, "perf/tensor-core-alignment") if doc else []
    extra = 100.0 * (56 * 32) / (50 * 30) - 100.0
    names = [n["name"] for f in got for n in f["nodes"]]
    check(names == ["odd"] and f"{extra:.2f} %" in got[0]["message"],
          f"tensor-core alignment: the K 30, N 50 MatMul alone ({names}), {extra:.2f} % more tile work by hand "
          f"({got[0]['message'][:160] if got else None})")
    rc, doc, _ = lint(onnxcost, path, "--dim", "N=64")
    check(doc is not None and not findings(doc, "perf/tensor-core-alignment"),
          "tensor-core alignment: no finding without a device")
    # convolutions as implicit GEMMs: K = C_in x kernel, N = C_out. A 3x3 over 3 channels (K 27, N 16) is a
    # finding, its K padded to 32: 16 x 32 / (16 x 27) - 1 = 18.52 %; one over 8 channels (K 72) none
    nodes = [h.make_node("Conv", ["img", "C3"], ["c3"], pads=[1, 1, 1, 1], name="rgb"),
             h.make_node("Conv", ["img8", "C8"], ["c8"], pads=[1, 1, 1, 1], name="wide")]
    path = save(os.path.join(work, "tc_conv.onnx"), nodes, [vi("img", [2, 3, 8, 8]), vi("img8", [2, 8, 8, 8])],
                [vi("c3", [2, 16, 8, 8]), vi("c8", [2, 16, 8, 8])],
                [tensor("C3", rng.standard_normal((16, 3, 3, 3)).astype(np.float32)),
                 tensor("C8", rng.standard_normal((16, 8, 3, 3)).astype(np.float32))])
    rc, doc, _ = lint(onnxcost, path, "--gpu", "a100", "--math", "fp16")
    got = findings(doc, "perf/tensor-core-alignment") if doc else []
    extra = 100.0 * (16 * 32) / (16 * 27) - 100.0
    names = [n["name"] for f in got for n in f["nodes"]]
    check(names == ["rgb"] and f"{extra:.2f} %" in got[0]["message"] and "N 16 and K 27 (M 128)" in got[0]["message"],
          f"tensor-core alignment: the 3x3 Conv over 3 channels alone ({names}), N 16, K 27, M 2 x 64 = 128, "
          f"{extra:.2f} % more tile work by hand ({got[0]['message'][:200] if got else None})")


def check_precision(onnxcost, work):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    big = rng.standard_normal((512, 768)).astype(np.float32)  # 1.5 MiB
    nodes = [h.make_node("Cast", ["W"], ["W16"], to=TensorProto.FLOAT16, name="castw"),
             h.make_node("MatMul", ["x", "W16"], ["y16"], name="mm"),
             h.make_node("Cast", ["y16"], ["y32"], to=TensorProto.FLOAT, name="casty"),
             h.make_node("MatMul", ["y32", "B"], ["y"], name="mm2")]
    path = save(os.path.join(work, "precision.onnx"), nodes, [vi("x", ["N", 64], TensorProto.FLOAT16)],
                [vi("y", ["N", 768])], [tensor("W", w), tensor("B", big[:32])])
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    got = findings(doc, "precision/cast-weights") if doc else []
    want = w.nbytes - w.astype(np.float16).nbytes
    check(not findings(doc, "graph/constant-foldable"), "cast weights: the Cast is not also a constant-foldable finding")
    check(len(got) == 1 and got[0]["tensors"] == ["W"] and got[0]["saving"]["weight_bytes"] == want,
          f"cast weights: one finding naming W, saving {got[0]['saving']['weight_bytes'] if got else None} B "
          f"= numpy's float32 minus float16 bytes {want}")
    path2 = save(os.path.join(work, "narrow.onnx"), [h.make_node("MatMul", ["x", "B"], ["y"], name="mm")],
                 [vi("x", ["N", 768])], [vi("y", ["N", 512])], [tensor("B", big.T.copy())])
    rc, doc, _ = lint(onnxcost, path2, "--dim", f"N={N}")
    got = findings(doc, "precision/narrower-weights") if doc else []
    check(len(got) == 1 and got[0]["saving"]["weight_bytes"] == big.nbytes // 2,
          f"narrower weights: {big.nbytes} B of float32, the float16 step saves "
          f"{got[0]['saving']['weight_bytes'] if got else None} (want {big.nbytes // 2})")
    # --dtype prices the weights (issue 42, D): at 16 bits only int8 is offered
    # (half of the 16-bit bytes), at 8 or 4 bits nothing narrower
    big2 = rng.standard_normal((1024, 1024)).astype(np.float32)  # 2 MiB at 16 bits
    path3 = save(os.path.join(work, "narrow2.onnx"), [h.make_node("MatMul", ["x", "B"], ["y"], name="mm")],
                 [vi("x", ["N", 1024])], [vi("y", ["N", 1024])], [tensor("B", big2)])
    for dt, want_save in (("fp16", big2.size * 2 - big2.size), ("int8", None), ("int4", None)):
        rc, doc, _ = lint(onnxcost, path3, "--dim", f"N={N}", "--dtype", dt)
        got = findings(doc, "precision/narrower-weights") if doc else []
        ok = (not got) if want_save is None else (len(got) == 1 and got[0]["saving"]["weight_bytes"] == want_save)
        check(ok, f"narrower weights at --dtype {dt}: {[f['saving']['weight_bytes'] for f in got]} "
                  f"(want {'none' if want_save is None else want_save})")
    g = h.make_graph([h.make_node("Relu", ["x"], ["y"])], "old", [vi("x", ["N", 4])], [vi("y", ["N", 4])])
    for opset, want_n in ((11, 1), (17, 0)):
        p = os.path.join(work, f"opset{opset}.onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=8), p)
        rc, doc, _ = lint(onnxcost, p, "--dim", f"N={N}")
        n = len(findings(doc, "model/old-opset")) if doc else -1
        check(n == want_n, f"old opset: opset {opset} gives {n} model/old-opset findings (want {want_n})")


def model_custom(work):
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"),
             h.make_node("Mystery", ["r"], ["y"], name="mystery", domain="com.example")]
    return save(os.path.join(work, "custom.onnx"), nodes, [vi("x", ["N", 8])], [vi("y", ["N", 8])], [],
                domains=["com.example"])


def model_gpt2(work):
    torch.manual_seed(0)
    model = oracle.GPT2(layers=1, d=64, heads=4, vocab=512, n_ctx=64).eval()
    path = os.path.join(work, "gpt2_tiny.onnx")
    ids = torch.randint(0, 512, (2, 8))
    axes = {0: "batch", 1: "sequence"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's
        oracle.onnx_export(model, (ids,), path, input_names=["input_ids"], output_names=["logits"],
                           dynamic_axes={"input_ids": axes, "logits": axes}, opset_version=17)
    return path


# ---- the checks ---------------------------------------------------------------------------------------------------

def check_duplicate_external(onnxcost, path, w, work):
    ext_dir = os.path.join(work, "ext")
    os.makedirs(ext_dir, exist_ok=True)
    m = onnx.load(path)
    ext = os.path.join(ext_dir, "duplicate_ext.onnx")
    onnx.save(m, ext, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=0)
    rc, doc, _ = lint(onnxcost, ext, "--dim", f"N={N}")
    got = findings(doc, "weights/duplicate") if doc else []
    # a location out of the model's folder is never opened: the same bytes there, and no finding
    out_model = onnx.load(path, load_external_data=False)
    with open(os.path.join(work, "outside.bin"), "wb") as fh:
        fh.write(w.tobytes())
    for t in out_model.graph.initializer:
        if t.name in ("W1", "W2"):
            t.ClearField("raw_data")
            t.data_location = TensorProto.EXTERNAL
            del t.external_data[:]
            t.external_data.add(key="location", value="../outside.bin")
    hostile = os.path.join(ext_dir, "duplicate_outside.onnx")
    onnx.save(out_model, hostile)
    rc2, doc2, _ = lint(onnxcost, hostile, "--dim", f"N={N}")
    check(doc2 is not None and not findings(doc2, "weights/duplicate") and doc2["weights_not_compared"] == 2,
          f"duplicate in external data: '../outside.bin' is never opened (no finding; "
          f"{doc2['weights_not_compared'] if doc2 else None} not compared, want 2)")
    # nor through a link in the folder that leads out of it
    link_dir = os.path.join(work, "ext_link")
    os.makedirs(link_dir, exist_ok=True)
    os.replace(os.path.join(ext_dir, "weights.bin"), os.path.join(work, "outside_weights.bin"))
    os.symlink(os.path.join("..", "outside_weights.bin"), os.path.join(link_dir, "weights.bin"))
    linked = os.path.join(link_dir, "duplicate_ext.onnx")
    shutil.copy(ext, linked)
    rc3, doc3, _ = lint(onnxcost, linked, "--dim", f"N={N}")
    check(doc3 is not None and not findings(doc3, "weights/duplicate") and doc3["weights_not_compared"] == 3,
          f"duplicate in external data: a link in the folder to a file out of it is not followed "
          f"({doc3['weights_not_compared'] if doc3 else None} of the 3 external weights not compared, want 3)")
    check(len(got) == 1 and same_set(got[0]["tensors"], ["W1", "W2"]) and got[0]["saving"]["weight_bytes"] == w.nbytes
          and doc["weights_not_compared"] == 0,
          f"duplicate in external data: one finding naming W1 and W2, saving {w.nbytes} B "
          f"({[(f['tensors'], f['saving']['weight_bytes']) for f in got]}, not compared "
          f"{doc['weights_not_compared'] if doc else None})")


def check_duplicate(onnxcost, path, w):
    rc, doc, err = lint(onnxcost, path, *DIM)
    check(doc is not None and rc == 0, f"duplicate: lint exits 0 with JSON (got {rc}; {err.strip()[:200]})")
    if doc is None:
        return
    check(doc.get("schema") == "onnxcost-lint/1", f"duplicate: schema {doc.get('schema')!r} is onnxcost-lint/1")
    dup = findings(doc, "weights/duplicate")
    check(len(dup) == 1, f"duplicate: {len(dup)} weights/duplicate findings, want 1")
    if dup:
        f = dup[0]
        check(same_set(f["tensors"], ["W1", "W2"]), f"duplicate: the finding names {f['tensors']}, want W1 and W2")
        check(f["saving"]["weight_bytes"] == w.nbytes,
              f"duplicate: saves {f['saving']['weight_bytes']} weight bytes, W.nbytes {w.nbytes}")
        check(f["saving"]["params"] == w.size, f"duplicate: saves {f['saving']['params']} params, W.size {w.size}")
        check(f["level"] == "warning", f"duplicate: level {f['level']} (warning)")
    named = [t for f in doc["findings"] if f["rule"].startswith("weights/") for t in f["tensors"]]
    check("W3" not in named, f"duplicate: W3 (same shape, other contents) is not reported (weights/* name {named})")
    # priced as --dtype prices the model: a duplicate saves its elements at 4 bits
    rc, doc4, _ = lint(onnxcost, path, *DIM, "--dtype", "int4")
    dup4 = findings(doc4, "weights/duplicate") if doc4 else []
    check(len(dup4) == 1 and dup4[0]["saving"]["weight_bytes"] == (w.size * 4 + 7) // 8,
          f"duplicate at --dtype int4: saves {dup4[0]['saving']['weight_bytes'] if dup4 else None} weight bytes, "
          f"W.size x 4 bits = {(w.size * 4 + 7) // 8}")


def check_lint_edges(onnxcost, work):
    """issue 42, D: --select "" is refused; an overridable initializer (also a
    graph input) is never a duplicate to merge; a name with a newline keeps
    the text one line per finding."""
    p = run(onnxcost, "lint", os.path.join(work, "narrow.onnx"), "--select", "", "--fail-on", "note")
    lines = p.stderr.strip().splitlines()
    check(p.returncode == 2 and len(lines) == 1 and "empty" in lines[0],
          f"--select '': exit 2, one line ({p.returncode}: {lines[:1]})")
    rng = np.random.default_rng(5)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    nodes = [h.make_node("MatMul", ["x", "W1"], ["a"], name="m1"), h.make_node("MatMul", ["a", "W2"], ["y"], name="m2")]
    path = save(os.path.join(work, "overridable.onnx"), nodes, [vi("x", ["N", 64]), vi("W1", [64, 64])],
                [vi("y", ["N", 64])], [tensor("W1", w), tensor("W2", w.copy())])
    rc, doc, _ = lint(onnxcost, path, "--dim", f"N={N}")
    dup = findings(doc, "weights/duplicate") if doc else None
    check(dup == [], f"an initializer also a graph input (overridable) is no duplicate to merge: {dup}")
    nodes = [h.make_node("MatMul", ["x", "W\nA"], ["a"], name="m1"), h.make_node("MatMul", ["a", "W\nB"], ["y"], name="m2")]
    path = save(os.path.join(work, "newline.onnx"), nodes, [vi("x", ["N", 64])], [vi("y", ["N", 64])],
                [tensor("W\nA", w), tensor("W\nB", w.copy())])
    p = run(onnxcost, "lint", path, "--dim", f"N={N}")
    out = p.stdout.strip().splitlines()
    check(len(out) >= 2 and all(l.startswith(path + ": ") for l in out) and "\\x0a" in p.stdout,
          f"a newline in a tensor name: one line per finding, written \\x0a ({out[:3]})")


def check_transposed(onnxcost, path):
    m = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    names = list(inits)
    pairs, same = [], set()
    for i, a_name in enumerate(names):
        for b_name in names[i + 1:]:
            a, b = inits[a_name], inits[b_name]
            if a.dtype != b.dtype or a.nbytes < 1024:
                continue
            if a.size == b.size and a.tobytes() == b.tobytes():
                same.update((a_name, b_name))
            elif a.ndim == 2 and b.ndim == 2 and a.shape == b.shape[::-1] and np.array_equal(a.T, b):
                pairs.append((a_name, b_name, b.nbytes))
    check(len(pairs) >= 1, f"gpt2 tiny: the export holds {len(pairs)} transposed initializer pairs "
                           f"({[(a, b) for a, b, _ in pairs]}), want the tied head")
    rc, doc, err = lint(onnxcost, path, "--dim", "batch=1", "--dim", "sequence=8")
    check(doc is not None and rc == 0, f"gpt2 tiny: lint exits 0 with JSON (got {rc}; {err.strip()[:200]})")
    if doc is None:
        return
    got = findings(doc, "weights/duplicate-transposed")
    check(len(got) == len(pairs), f"gpt2 tiny: {len(got)} weights/duplicate-transposed findings, numpy finds "
                                  f"{len(pairs)}")
    for a_name, b_name, nbytes in pairs:
        f = [f for f in got if same_set(f["tensors"], [a_name, b_name])]
        check(len(f) == 1, f"gpt2 tiny: a finding names {a_name!r} and {b_name!r}")
        if f:
            check(f[0]["saving"]["weight_bytes"] == nbytes,
                  f"gpt2 tiny: {a_name!r}/{b_name!r} saves {f[0]['saving']['weight_bytes']} bytes, B.nbytes {nbytes}")
    named = {t for f in findings(doc, "weights/duplicate") for t in f["tensors"]}
    check(named == same, f"gpt2 tiny: weights/duplicate names {sorted(named)}, numpy finds byte-identical "
                         f"{sorted(same)}")


def check_unused_initializer(onnxcost, path, u, work):
    rc, doc, err = lint(onnxcost, path, *DIM)
    got = findings(doc, "graph/unused-initializer")
    check(len(got) == 1 and got[0]["tensors"] == ["U"],
          f"unused initializer: one graph/unused-initializer finding naming U (got {[f['tensors'] for f in got]})")
    if len(got) != 1:
        return
    s = got[0]["saving"]
    check(s["weight_bytes"] == u.nbytes and s["params"] == u.size,
          f"unused initializer: saves {s['weight_bytes']} B / {s['params']} params, U is {u.nbytes} B / {u.size}")
    opt_path = os.path.join(work, "unused_init.ort.onnx")
    opt = ort_optimize(path, opt_path)
    kept = [t.name for t in opt.graph.initializer]
    if "U" in kept:
        check(s["weight_bytes"] == u.nbytes,
              f"unused initializer: ONNX Runtime kept U ({kept}), so only U.nbytes {u.nbytes} is checked")
        return
    b0, b1 = float_weights(path)[0], float_weights(opt_path)[0]
    check(b0 - b1 == s["weight_bytes"], f"unused initializer: ONNX Runtime drops U (keeps {kept}); the float "
                                        f"initializers' nbytes {b0} -> {b1}, {b0 - b1} B = lint's {s['weight_bytes']} B")


def check_unused_input(onnxcost, path):
    rc, doc, err = lint(onnxcost, path, *DIM)
    got = findings(doc, "graph/unused-input")
    check(len(got) == 1 and got[0]["tensors"] == ["u"],
          f"unused input: one graph/unused-input finding naming u (got {[f['tensors'] for f in got]})")
    if got:
        want = N * 16 * np.dtype(np.float32).itemsize
        check(got[0]["saving"]["input_bytes"] == want,
              f"unused input: saves {got[0]['saving']['input_bytes']} input bytes, want {N}*16*4 = {want}")
        check(got[0]["level"] == "note", f"unused input: level {got[0]['level']} (note)")
    others = [f["rule"] for f in (doc or {}).get("findings", []) if f["rule"] != "graph/unused-input"]
    check(not others, f"unused input: no other findings (got {others})")


def check_dead(onnxcost, path, pruned, w3, km):
    k, m = km
    rng = np.random.default_rng(6)
    x = rng.standard_normal((N, k)).astype(np.float32)
    y0, y1 = ort_run(path, {"x": x})[0], ort_run(pruned, {"x": x})[0]
    check(np.array_equal(y0, y1), "dead node: ONNX Runtime gives the same output with and without the branch")
    rc, doc, err = lint(onnxcost, path, *DIM)
    got = findings(doc, "graph/dead-node")
    check(len(got) == 1, f"dead node: {len(got)} graph/dead-node findings, want 1")
    if len(got) != 1:
        return
    f = got[0]
    names = [n["name"] for n in f["nodes"]]
    check(same_set(names, ["dead_mm", "dead_relu"]), f"dead node: the finding's nodes {names} are dead_mm, dead_relu")
    ops = sorted(n["op_type"] for n in f["nodes"])
    check(ops == ["MatMul", "Relu"], f"dead node: op types {ops}")
    s = f["saving"]
    check(s["macs"] == N * k * m, f"dead node: saves {s['macs']} MACs, N*K*M = {N}*{k}*{m} = {N * k * m}")
    check(s["weight_bytes"] == w3.nbytes and s["params"] == w3.size,
          f"dead node: saves {s['weight_bytes']} B / {s['params']} params, W3 is {w3.nbytes} B / {w3.size}")
    check("W3" in f["tensors"], f"dead node: the finding names W3 (tensors {f['tensors']})")
    feeds = {"x": x}
    before = dict(zip(("macs", "flops"), hand_flops(path, feeds)), **dict(zip(("params_bytes", "params"),
                                                                               float_weights(path))))
    after = dict(zip(("macs", "flops"), hand_flops(pruned, feeds)), **dict(zip(("params_bytes", "params"),
                                                                                float_weights(pruned))))
    for key, skey in (("macs", "macs"), ("flops", "flops"), ("params_bytes", "weight_bytes"), ("params", "params")):
        d = before[key] - after[key]
        check(d == s[skey], f"dead node: pruned here, {key} by hand {before[key]} -> {after[key]}: {d} = lint's "
                            f"saving.{skey} {s[skey]}")


def check_foldable(onnxcost, path, work):
    rc, doc, err = lint(onnxcost, path, *DIM)
    got = findings(doc, "graph/constant-foldable")
    check(len(got) >= 1, f"foldable: {len(got)} graph/constant-foldable findings (want at least one)")
    folded = sorted(n["name"] for f in got for n in f["nodes"])
    check("add_bias" in folded and "mm" not in folded and "add_out" not in folded,
          f"foldable: the findings' nodes {folded} include add_bias, not mm or add_out")
    opt_path = os.path.join(work, "foldable.ort.onnx")
    opt = ort_optimize(path, opt_path)
    src = onnx.load(path)
    ops0 = [n.op_type for n in src.graph.node]
    ops1 = [n.op_type for n in opt.graph.node]
    inits1 = [t.name for t in opt.graph.initializer]
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N, 32)).astype(np.float32)
    check(np.allclose(ort_run(path, {"x": x})[0], ort_run(opt_path, {"x": x})[0], rtol=1e-5, atol=1e-5),
          "foldable: ONNX Runtime's optimized model computes the same output")
    feeds = {"x": x}
    before = {"flops": hand_flops(path, feeds)[1], "params_bytes": float_weights(path)[0]}
    after = {"flops": hand_flops(opt_path, feeds)[1], "params_bytes": float_weights(opt_path)[0]}
    did = f"ORT_ENABLE_BASIC: nodes {ops0} -> {ops1}, initializers -> {inits1}"
    flops = sum(f["saving"]["flops"] for f in got)
    wb = sum(f["saving"]["weight_bytes"] for f in got)
    check(before["flops"] - after["flops"] == flops,
          f"foldable: {did}; FLOPs by hand {before['flops']} -> {after['flops']}: "
          f"{before['flops'] - after['flops']} = lint's {flops}")
    check(before["params_bytes"] - after["params_bytes"] == wb,
          f"foldable: float initializers' nbytes {before['params_bytes']} -> {after['params_bytes']}: "
          f"{before['params_bytes'] - after['params_bytes']} = lint's {wb}")
    return got


def check_onnxsim(onnxcost, work):
    """A second tool's optimizer: onnxsim's simplifier (constant folding,
    no-op and dead-node elimination, BatchNorm and Mul folding into a Conv)
    on the models above. Of the nodes it removes, those some finding names
    must save, together, what removing them saves: bytes moved from ONNX
    Runtime's tensors before and after (less the removed nodes no finding
    names, by their own bytes), and where every removed node is named,
    FLOPs by hand and the float initializers' bytes."""
    try:
        import onnxsim
    except ImportError as e:
        check(False, f"onnxsim: {e} (a test dependency: .ci/install-deps)")
        return
    for name in ("noop", "cancel", "foldable", "fold_weights", "dead"):
        path = os.path.join(work, name + ".onnx")
        m = onnx.load(path)
        sim, ok = onnxsim.simplify(m)
        sim_path = os.path.join(work, name + ".onnxsim.onnx")
        onnx.save(sim, sim_path)
        removed = {n.name for n in m.graph.node} - {n.name for n in sim.graph.node}
        rc, doc, _ = lint(onnxcost, path, *DIM)
        # a finding onnxsim carried out: some of its nodes removed, and every one but the Conv it folds into
        named = [f for f in (doc or {}).get("findings", []) if f["saving"]
                 and any(n["name"] in removed for n in f["nodes"])
                 and all(n["name"] in removed for n in f["nodes"] if n["op_type"] != "Conv")]
        in_findings = {n["name"] for f in named for n in f["nodes"]}
        unnamed = removed - in_findings
        feeds = feeds_for(path, {"N": N})
        r0, w0, per = model_bytes(path, feeds)
        d = r0 + w0 - moved(sim_path, feeds) - sum(sum(per[x]) for x in unnamed)
        saved = sum(f["saving"]["bytes_moved"] for f in named)
        what = f"onnxsim on {name}: removes {sorted(removed)}"
        check(ok and removed and named and d == saved,
              f"{what}; the findings naming them save {saved} B moved, ONNX Runtime's tensors move {d} B less "
              f"(less {sorted(unnamed)}, which no finding names)")
        if not unnamed:
            f0, f1 = hand_flops(path, feeds)[1], hand_flops(sim_path, feeds)[1]
            w0, w1 = float_weights(path)[0], float_weights(sim_path)[0]
            sf = sum(f["saving"]["flops"] for f in named)
            sw = sum(f["saving"]["weight_bytes"] for f in named)
            check(f0 - f1 == sf and w0 - w1 == sw, f"{what}: FLOPs by hand {f0} -> {f1} (findings {sf}), float "
                                                   f"initializers {w0} -> {w1} B (findings {sw})")


def check_custom(onnxcost, path):
    rc, doc, err = lint(onnxcost, path, *DIM)
    got = findings(doc, "coverage/no-cost")
    check(len(got) == 1 and got[0]["level"] == "error",
          f"custom op: one coverage/no-cost finding at level error (got {[(f['rule'], f['level']) for f in got]})")
    if got:
        names = [n["name"] for n in got[0]["nodes"]]
        check(names == ["mystery"], f"custom op: the finding names node {names}")
    check(rc == 1, f"custom op: exit {rc} by default (want 1)")
    rc, doc, _ = lint(onnxcost, path, *DIM, "--fail-on", "never")
    check(rc == 0 and len(findings(doc, "coverage/no-cost")) == 1, f"custom op: --fail-on never exits {rc} (want 0)")
    rc, doc, _ = lint(onnxcost, path, *DIM, "--ignore", "coverage")
    check(rc == 0 and doc is not None and not findings(doc, "coverage/no-cost"),
          f"custom op: --ignore coverage exits {rc} (want 0) with JSON on stdout ({doc is not None}) and no "
          f"coverage/no-cost finding")


def check_sarif(onnxcost, path):
    p = run(onnxcost, "lint", path, *DIM, "--format", "sarif")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        check(False, f"sarif: JSON on stdout (exit {p.returncode}; {p.stderr.strip()[:200]})")
        return
    check(doc.get("version") == "2.1.0", f"sarif: version {doc.get('version')!r}")
    r = doc["runs"][0]
    ids = [x["id"] for x in r["tool"]["driver"]["rules"]]
    check(set(RULES) <= set(ids), f"sarif: the driver's rules {ids} include every rule")
    res = r.get("results", [])
    check(len(res) >= 1, f"sarif: {len(res)} results on the duplicate model (want at least one)")
    for x in res:
        uri = x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        check(x["ruleId"] in RULES and x["level"] in ("note", "warning", "error") and uri == path,
              f"sarif: result {x['ruleId']} level {x['level']} at {uri}")
    # a URI reference (RFC 3986): a space and a '#' percent-encoded, as urllib quotes a path (issue 42, D)
    import shutil
    import urllib.parse
    odd = os.path.join(os.path.dirname(path), "a model #1.onnx")
    shutil.copy(path, odd)
    p = run(onnxcost, "lint", odd, *DIM, "--format", "sarif")
    uris = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for x in json.loads(p.stdout)["runs"][0].get("results", [])} if p.stdout else set()
    check(uris == {urllib.parse.quote(odd)}, f"sarif: the uri of '{odd}' is {uris}, want {urllib.parse.quote(odd)}")


def check_text(onnxcost, path, tag):
    _, doc, _ = lint(onnxcost, path, *DIM, "--fail-on", "never")
    p = run(onnxcost, "lint", path, *DIM, "--fail-on", "never")
    lines = p.stdout.rstrip("\n").split("\n")
    pat = re.compile(r"^" + re.escape(path) + r": (note|warning|error): [a-z]+/[a-z-]+: .*$")
    body, last = lines[:-1], lines[-1]
    bad = [x for x in body if not pat.match(x)]
    check(not bad, f"text {tag}: every finding line is `PATH: level: rule: message; saves ...` (bad: {bad[:2]})")
    n = len((doc or {}).get("findings", []))
    check(len(body) == n, f"text {tag}: {len(body)} finding lines, {n} findings in JSON")
    check(last.startswith(path + ": ") and ("errors" in last or "error," in last), f"text {tag}: summary {last!r}")
    rules = [re.match(pat, x).group(0).split(": ")[2] for x in body if pat.match(x)]
    want = [f["rule"] for f in (doc or {}).get("findings", [])]
    check(sorted(rules) == sorted(want), f"text {tag}: rules {rules} as in JSON {want}")
    p = run(onnxcost, "lint", path, *DIM, "--fail-on", "never", "--format", "md")
    check(p.returncode == 0 and all(f"`{r}`" in p.stdout for r in want),
          f"md {tag}: exit {p.returncode}, every finding's rule in the table")


def check_options(onnxcost, dup_path, fold_path):
    rc, doc, _ = lint(onnxcost, fold_path, *DIM, "--select", "weights")
    g = [f["rule"] for f in (doc or {}).get("findings", []) if f["rule"].startswith("graph/")]
    check(doc is not None and not g, f"options: --select weights on the foldable model: no graph/* findings ({g}; "
                                     f"JSON: {doc is not None}, exit {rc})")
    rc, doc, _ = lint(onnxcost, dup_path, *DIM, "--select", "weights")
    g = findings(doc, "weights/duplicate")
    check(len(g) == 1, f"options: --select weights on the duplicate model keeps its weights/duplicate ({len(g)}; "
                       f"JSON: {doc is not None}, exit {rc}, want 0 with --fail-on's default error)")
    _, full, _ = lint(onnxcost, fold_path, *DIM)
    want = len(findings(full, "graph/constant-foldable"))
    _, doc, _ = lint(onnxcost, fold_path, *DIM, "--select", "graph/constant-foldable")
    g = findings(doc, "graph/constant-foldable")
    n = len((doc or {}).get("findings", []))
    check(want >= 1 and len(g) == want and n == want,
          f"options: --select graph/constant-foldable on the foldable model: {len(g)} of them and {n} findings in "
          f"all, {want} without it (JSON: {doc is not None})")
    rc, doc, _ = lint(onnxcost, fold_path, *DIM, "--ignore", "graph/constant-foldable")
    g = findings(doc, "graph/constant-foldable")
    check(doc is not None and not g, f"options: --ignore graph/constant-foldable leaves {len(g)} of them "
                                     f"(JSON: {doc is not None}, exit {rc})")
    p = run(onnxcost, "lint", dup_path, *DIM, "--select", "nosuch")
    lines = p.stderr.strip("\n").split("\n") if p.stderr.strip() else []
    check(p.returncode == 2 and len(lines) == 1,
          f"options: --select nosuch exits {p.returncode} (want 2) with {len(lines)} line(s) on stderr (want 1)")
    rc, _, _ = lint(onnxcost, dup_path, *DIM, "--fail-on", "warning")
    check(rc == 1, f"options: --fail-on warning on the duplicate model exits {rc} (want 1)")
    rc, _, _ = lint(onnxcost, dup_path, *DIM, "--fail-on", "error")
    check(rc == 0, f"options: --fail-on error on the duplicate model exits {rc} (want 0)")


def check_clean(onnxcost):
    path = os.path.join(HERE, "..", "..", "fixtures", "mnist", "torchsummary_net.onnx")
    if not os.path.exists(path):
        print(f"skip clean model: {path} not present")
        return
    rc, doc, err = lint(onnxcost, path, "--batch", "1")
    bad = [(f["rule"], f["level"]) for f in (doc or {}).get("findings", []) if f["level"] in ("warning", "error")]
    check(doc is not None and rc == 0 and not bad,
          f"clean model torchsummary_net.onnx: exit {rc}, warnings and errors {bad}")


def main():
    onnxcost, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    dup_path, w = model_duplicate(work)
    check_duplicate(onnxcost, dup_path, w)
    check_duplicate_external(onnxcost, dup_path, w, work)
    check_transposed(onnxcost, model_gpt2(work))
    ui_path, u = model_unused_initializer(work)
    check_unused_initializer(onnxcost, ui_path, u, work)
    check_unused_input(onnxcost, model_unused_input(work))
    dead_path, pruned, w3, km = model_dead(work)
    check_dead(onnxcost, dead_path, pruned, w3, km)
    fold_path = model_foldable(work)
    check_foldable(onnxcost, fold_path, work)
    check_no_op(onnxcost, *model_no_op(work))
    check_no_op_forms(onnxcost, work)
    check_fold_kept_output(onnxcost, work)
    check_cancelling(onnxcost, *model_cancelling(work))
    check_reshape_pair(onnxcost, work)
    check_int_casts(onnxcost, work)
    check_cast_kinds(onnxcost, work)
    check_fold_into_weights(onnxcost, model_fold_into_weights(work), work)
    check_attention(onnxcost, work)
    check_attention_layers(onnxcost, work)
    check_peak_order(onnxcost, work)
    check_tc_alignment(onnxcost, work)
    check_precision(onnxcost, work)
    check_lint_edges(onnxcost, work)
    check_custom(onnxcost, model_custom(work))
    check_onnxsim(onnxcost, work)
    check_sarif(onnxcost, dup_path)
    for tag, p in (("duplicate", dup_path), ("dead", dead_path), ("foldable", fold_path)):
        check_text(onnxcost, p, tag)
    check_options(onnxcost, dup_path, fold_path)
    check_clean(onnxcost)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("all lint checks passed")


if __name__ == "__main__":
    main()
