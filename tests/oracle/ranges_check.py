#!/usr/bin/env python3
"""`onnxcost --dim NAME=LO:HI` against brute force: every binding of small
boxes analyzed on its own (`--dim NAME=N`, a point analysis), never the
range code; and each point analysis against ONNX Runtime's run at that
binding (tests/oracle/ort_figures.py: MACs and FLOPs by docs/COSTS.md's
formulas over its shapes, bytes of every output and input, float weights),
so a wrong per-op formula fails here too.

  * each total's [min, max] equals the smallest and largest over the box,
    and the binding given for each end reaches it;
  * monotone boxes (a GPT-2 decoder with a KV cache) and boxes that are not
    (a strided convolution over symbolic H and W: floor((H - 1) / 2) + 1; a
    slice that drops the last element: H - 1; a tensor of 20 - N elements,
    whose falling dim is named as the reason) all exact;
  * a box too large to enumerate without the monotone proof says it is not
    bounded, and a budget over it exits 4;
  * budgets hold for the box's maximum: a limit between min and max exits 1
    naming the binding that breaks it, one at the maximum passes;
  * --largest DIM under --max-macs, --max-flops and --max-peak-memory
    against brute force over the box, and under --max-params (a figure no
    dim moves: broken at the first binding, or kept to the range's end);
  * annotate over a box: each node's [min, max] in the file equal to brute
    force;
  * compare over a box: each model's totals as [min, max] equal to brute
    force, the columns and ratios by the maximum; a box without the proof
    and too large says "not bounded"; compare's ranges with --gpu get one
    line and exit 2;
  * hostile ranges (0:5, 5:1, 1:2^62, a dim of no input) get one line and
    exit 2.

usage: ranges_check.py ONNXCOST FIXTURES_DIR WORKDIR   (exit 77 without onnx)
"""
import itertools
import json
import re
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401  (the oracle of every point analysis: ort_figures.py)
    from onnx import helper as h
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_figures import hand_totals  # noqa: E402

FIGS = ["params", "params_bytes", "macs", "flops", "input_bytes", "activation_bytes", "peak_activation_bytes"]
KEY = {"params": "params", "params_bytes": "params_bytes", "macs": "macs", "flops": "flops",
       "input_bytes": "input_bytes", "activation_bytes": "activation_bytes",
       "peak_activation_bytes": "peak_activation_bytes"}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(onnxcost, *args):
    return subprocess.run([onnxcost, *args], capture_output=True, text=True)


NODE_CACHE = {}
# path -> [bindings ONNX Runtime ran, bindings it could not run (dims that
# contradict each other, e.g. total_seq_len != past_seq_len + seq_len)]
ORT_POINTS = {}
ORT_KEYS = ["params", "params_bytes", "input_bytes", "activation_bytes", "macs", "flops"]


def ort_agrees(path, point, fixed, totals):
    """onnxcost's point analysis against figures computed here from ONNX
    Runtime's run at the same binding (tests/oracle/ort_figures.py: MACs and
    FLOPs by docs/COSTS.md's formulas over its shapes, output and input
    bytes, float weights), so that a wrong per-op formula fails the ranges
    built on the point analyses too."""
    seen = ORT_POINTS.setdefault(path, [0, 0])
    try:
        want = hand_totals(path, dict(point, **fixed))
    except Exception as e:  # noqa: BLE001 (a binding ONNX Runtime refuses to run)
        seen[1] += 1
        return
    seen[0] += 1
    bad = [f"{k} {totals[k]} vs {want[k]}" for k in ORT_KEYS if want[k] is not None and totals[k] != want[k]]
    if want["macs"] is None:
        bad.append("an op without a formula in ort_figures.py")
    if bad:
        check(False, f"{os.path.basename(path)} at {point}: onnxcost's point analysis against ONNX Runtime's run: "
                     + "; ".join(bad))


def totals_at(onnxcost, path, point, fixed):
    args = [path, "--format", "json", "-q", "--no-symbolic"]
    for k, v in list(point.items()) + list(fixed.items()):
        args += ["--dim", f"{k}={v}"]
    p = run(onnxcost, *args)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    key = (path, tuple(sorted(point.items())))
    if key not in NODE_CACHE:
        ort_agrees(path, point, fixed, doc["totals"])
    NODE_CACHE[key] = {n["index"]: n for n in doc["nodes"]}
    return doc["totals"]


def check_box(onnxcost, path, box, tag, method, fixed=None):
    fixed = fixed or {}
    args = [path, "--format", "json", "-q"]
    for k, (lo, hi) in box.items():
        args += ["--dim", f"{k}={lo}:{hi}"]
    for k, v in fixed.items():
        args += ["--dim", f"{k}={v}"]
    p = run(onnxcost, *args)
    if p.returncode != 0:
        check(False, f"{tag}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    r = json.loads(p.stdout)["ranges"]
    names = list(box)
    seen = {}
    for vals in itertools.product(*[range(lo, hi + 1) for lo, hi in box.values()]):
        point = dict(zip(names, vals))
        seen[vals] = totals_at(onnxcost, path, point, fixed)
    bad = []
    for f in FIGS:
        vals = {k: t[KEY[f]] for k, t in seen.items()}
        got = r["totals"][f]
        lo, hi = min(vals.values()), max(vals.values())
        amin = tuple(got["argmin"][n] for n in names)
        amax = tuple(got["argmax"][n] for n in names)
        if (got["min"], got["max"]) != (lo, hi) or vals.get(amin) != lo or vals.get(amax) != hi:
            bad.append(f"{f}: [{got['min']}, {got['max']}] at {amin}/{amax}, brute force [{lo}, {hi}]")
    check(not bad and r["method"] == method and r["bindings"] == len(seen),
          f"{tag}: {len(seen)} bindings by brute force, every total's [min, max] and the bindings at each end "
          f"({r['method']})" + (f": {bad[:3]}" if bad else ""))
    # every node's MACs, FLOPs and output bytes over the box
    per = [NODE_CACHE[(path, tuple(sorted(dict(zip(names, vals)).items())))] for vals in seen]
    nbad = []
    for n in json.loads(p.stdout)["nodes"]:
        for key in ("macs", "flops", "activation_bytes"):
            vals = [q[n["index"]][key] for q in per]
            got = (n.get("range") or {}).get(key)
            if None in vals:
                if got is not None:
                    nbad.append(f"{n['name']} {key}: {got}, no cost somewhere")
            elif not got or (got["min"], got["max"]) != (min(vals), max(vals)):
                nbad.append(f"{n['name']} {key}: {got}, brute force [{min(vals)}, {max(vals)}]")
    check(not nbad, f"{tag}: every node's MACs, FLOPs and output bytes over the box" + (f": {nbad[:3]}" if nbad else ""))
    return r


def save(g, path, opset=17):
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", opset)]), path)


def main():
    onnxcost, fixtures, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    f = onnx.TensorProto.FLOAT
    # a strided convolution over symbolic H and W: not a polynomial
    w = onnx.numpy_helper.from_array(np.ones((4, 2, 3, 3), np.float32), "w")
    g = h.make_graph([h.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1]),
                      h.make_node("Relu", ["y"], ["z"])], "conv",
                     [h.make_tensor_value_info("x", f, ["N", 2, "H", "W"])],
                     [h.make_tensor_value_info("z", f, None)], initializer=[w])
    conv = os.path.join(work, "conv.onnx")
    save(g, conv)
    box = {"N": (1, 3), "H": (3, 9), "W": (4, 7)}
    r = check_box(onnxcost, conv, box, "strided conv over N, H, W", "enumerated")
    # annotate over the same box: each node's and the model's [min, max] in the file, against the brute force
    ann = os.path.join(work, "conv.annotated.onnx")
    p = run(onnxcost, "annotate", conv, "-o", ann, "-q", *[x for k, (lo, hi) in box.items()
                                                           for x in ("--dim", f"{k}={lo}:{hi}")])
    bad = []
    if p.returncode == 0:
        m = onnx.load(ann)
        pts = [v for (path, _), v in NODE_CACHE.items() if path == conv]
        for i, node in enumerate(m.graph.node):
            meta = {q.key: q.value for q in node.metadata_props}
            for key in ("macs", "flops", "activation_bytes"):
                vals = [pt[i][key] for pt in pts]
                want = f"[{min(vals)}, {max(vals)}]"
                if meta.get(f"onnxcost.{key}_range") != want:
                    bad.append(f"node {i} {key}: {meta.get(f'onnxcost.{key}_range')}, brute force {want}")
        meta = {q.key: q.value for q in m.metadata_props}
        for key in ("macs", "flops", "peak_activation_bytes"):
            want = f"[{r['totals'][key]['min']}, {r['totals'][key]['max']}]" if r else None
            if meta.get(f"onnxcost.{key}_range") != want:
                bad.append(f"model {key}: {meta.get(f'onnxcost.{key}_range')}, analyze's range {want}")
        if "every binding analyzed" not in meta.get("onnxcost.ranges", ""):
            bad.append(f"onnxcost.ranges: {meta.get('onnxcost.ranges')}")
    check(p.returncode == 0 and not bad and len(pts) == 84,
          "annotate over the box: every node's [min, max] in its metadata equals the brute force over 84 bindings, "
          "the model's equals analyze's" + (f": {bad[:3]} {p.stderr.strip()[:200]}" if bad or p.returncode else ""))
    # a dim that falls as N grows (ConstantOfShape of 20 - N, from the input's
    # shape): not monotone, and the reason names the tensor; enumerated exactly
    i64 = lambda name, v: onnx.numpy_helper.from_array(np.array(v, dtype=np.int64), name)  # noqa: E731
    g = h.make_graph([h.make_node("Shape", ["x"], ["s"]), h.make_node("Gather", ["s", "zero"], ["n"], axis=0),
                      h.make_node("Sub", ["twenty", "n"], ["m"]), h.make_node("Unsqueeze", ["m", "ax"], ["e"]),
                      h.make_node("ConstantOfShape", ["e"], ["c"], value=h.make_tensor("v", f, [1], [1.0])),
                      h.make_node("MatMul", ["x", "w"], ["y"])], "falling",
                     [h.make_tensor_value_info("x", f, ["N", 8])],
                     [h.make_tensor_value_info("y", f, None), h.make_tensor_value_info("c", f, None)],
                     initializer=[i64("zero", 0), i64("twenty", 20), i64("ax", [0]),
                                  onnx.numpy_helper.from_array(np.ones((8, 8), np.float32), "w")])
    falling = os.path.join(work, "falling.onnx")
    save(g, falling)
    r = check_box(onnxcost, falling, {"N": (1, 15)}, "a dim 20 - N (ConstantOfShape)", "enumerated")
    check(r is not None and "tensor 'c' has a dim that may fall" in (r.get("not_monotone") or ""),
          f"the falling dim named as why the box is not proven monotone: {r and r.get('not_monotone')}")
    # a slice that drops the last element: H - 1, a negative coefficient but
    # never falling as H grows: proven monotone (derive.h)
    g = h.make_graph([h.make_node("Slice", ["x", "s", "e", "a"], ["y"]), h.make_node("Relu", ["y"], ["z"])], "slice",
                     [h.make_tensor_value_info("x", f, ["N", "H"])], [h.make_tensor_value_info("z", f, None)],
                     initializer=[onnx.numpy_helper.from_array(np.array([0], np.int64), "s"),
                                  onnx.numpy_helper.from_array(np.array([-1], np.int64), "e"),
                                  onnx.numpy_helper.from_array(np.array([1], np.int64), "a")])
    sl = os.path.join(work, "slice.onnx")
    save(g, sl)
    check_box(onnxcost, sl, {"N": (1, 4), "H": (1, 6)}, "slice to H - 1", "monotone")
    gpt = os.path.join(fixtures, "corpus", "microsoft+onnxruntime-genai",
                       "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx")
    r = check_box(onnxcost, gpt, {"batch_size": (1, 2), "seq_len": (1, 3), "past_seq_len": (2, 3),
                                  "total_seq_len": (3, 4)}, "tiny GPT-2 with a KV cache", "monotone")
    if r:  # monotone: the fit's probes and the two corners, however large the box
        p = run(onnxcost, gpt, "--dim", "batch_size=1:64", "--dim", "seq_len=1:2048", "--dim", "past_seq_len=1:2048",
                "--dim", "total_seq_len=2:4096", "--format", "json", "-q")
        big = json.loads(p.stdout)["ranges"] if p.returncode == 0 else {}
        check(big.get("method") == "monotone" and big.get("analyses") == r["analyses"],
              f"tiny GPT-2 over {big.get('bindings')} bindings: {big.get('analyses')} analyses, as for 24 "
              f"({r['analyses']})")
    net = os.path.join(fixtures, "mnist", "torchsummary_net.onnx")
    check_box(onnxcost, net, {"batch": (1, 5)}, "torchsummary_net over batch", "monotone")
    # one label, one meaning (issue 42, D): the block's sum of outputs is once,
    # the totals' torchsummary "Forward/backward pass size" twice, each named so
    p = run(onnxcost, net, "--dim", "batch=1:5", "-q")
    j = json.loads(run(onnxcost, net, "--dim", "batch=1:5", "--format", "json", "-q").stdout)
    act = j["ranges"]["totals"]["activation_bytes"]["max"]
    m = re.search(r"Activations, every output once \(bytes\)\s+\[([\d,]+), ([\d,]+)\]", p.stdout)
    fb = re.search(r"Forward/backward pass size \(MiB\): ([\d.]+)", p.stdout)
    check(m and int(m.group(2).replace(",", "")) == act and "Forward/backward pass size (bytes)" not in p.stdout
          and fb and abs(float(fb.group(1)) - 2 * act / 2**20) < 0.006,
          f"the ranges block's activations are once ({m.group(2) if m else None} = {act}), the totals' "
          f"forward/backward pass size twice ({fb.group(1) if fb else None} MiB)")

    # not bounded: a box too large to enumerate, without the proof
    p = run(onnxcost, conv, "--dim", "N=1:64", "--dim", "H=3:512", "--dim", "W=3:512", "--format", "json", "-q")
    r = json.loads(p.stdout)["ranges"] if p.returncode == 0 else {}
    check(p.returncode == 0 and r.get("method") == "unbounded" and r.get("totals") is None
          and r.get("complete") is False, f"a box of {r.get('bindings')} bindings not proven monotone: not bounded")
    p = run(onnxcost, conv, "--dim", "N=1:64", "--dim", "H=3:512", "--dim", "W=3:512", "--max-macs", "1T", "-q")
    check(p.returncode == 4 and "budget not verified" in p.stderr and conv in p.stderr,
          f"a budget over a box not bounded: exit 4 ({p.returncode}: {p.stderr.strip()[:200]})")
    p = run(onnxcost, conv, "--dim", "N=1:64", "--dim", "H=3:40", "--dim", "W=3:40", "--range-points", "100000",
            "--format", "json", "-q")
    check(p.returncode == 0 and json.loads(p.stdout)["ranges"]["method"] == "enumerated",
          "--range-points raises the enumeration limit")

    # budgets over the box
    lo = totals_at(onnxcost, gpt, {"batch_size": 1, "seq_len": 1, "past_seq_len": 2, "total_seq_len": 3}, {})["macs"]
    hi = totals_at(onnxcost, gpt, {"batch_size": 2, "seq_len": 3, "past_seq_len": 3, "total_seq_len": 4}, {})["macs"]
    box = ["--dim", "batch_size=1:2", "--dim", "seq_len=1:3", "--dim", "past_seq_len=2:3", "--dim", "total_seq_len=3:4"]
    p = run(onnxcost, gpt, *box, "--max-macs", str((lo + hi) // 2), "-q")
    check(p.returncode == 1 and "budget exceeded" in p.stderr
          and "at batch_size=2, seq_len=3, past_seq_len=3, total_seq_len=4" in p.stderr,
          f"--max-macs between min and max: exit 1 naming the binding ({p.stderr.strip()[:300]})")
    p = run(onnxcost, gpt, *box, "--max-macs", str(hi), "-q")
    check(p.returncode == 0 and not p.stderr.strip(), f"--max-macs at the maximum {hi}: kept ({p.returncode})")

    # --largest: the largest value of one dim keeping the budget with every smaller one and every binding of
    # the others, by brute force over the box, monotone (tiny GPT-2) and enumerated (the strided conv)
    gpt_box = {"batch_size": (1, 2), "seq_len": (1, 6), "past_seq_len": (2, 3), "total_seq_len": (3, 4)}
    conv_box = {"N": (1, 2), "H": (3, 12), "W": (4, 6)}
    for path, box, dim, key, tag in (
            (gpt, gpt_box, "seq_len", "macs", "tiny GPT-2"), (gpt, gpt_box, "seq_len", "flops", "tiny GPT-2"),
            (conv, conv_box, "H", "peak_activation_bytes", "strided conv"),
            (conv, conv_box, "H", "flops", "strided conv")):
        names = list(box)
        pts = {vals: totals_at(onnxcost, path, dict(zip(names, vals)), {})
               for vals in itertools.product(*[range(lo, hi + 1) for lo, hi in box.values()])}
        i = names.index(dim)
        worst = {v: max(t[key] for vals, t in pts.items() if vals[i] == v) for v in range(box[dim][0], box[dim][1] + 1)}
        ordered = sorted(worst)
        limit = worst[ordered[len(ordered) // 2]]  # kept up to the middle value at least
        want = None
        for v in ordered:
            if worst[v] > limit:
                break
            want = v
        opt = {"macs": "--max-macs", "flops": "--max-flops", "peak_activation_bytes": "--max-peak-memory"}[key]
        args = [path, "--format", "json", "-q", opt, str(limit), "--largest", dim]
        for k, (lo, hi) in box.items():
            args += ["--dim", f"{k}={lo}:{hi}"]
        p = run(onnxcost, *args)
        got = json.loads(p.stdout)["ranges"]["largest"] if p.stdout else {}
        brk = next((v for v in ordered if worst[v] > limit), None)
        at = tuple((got.get("binding") or {}).get(n) for n in names)
        check(got.get("value") == want and got.get("breaks_at") == brk and at in pts and at[i] == brk
              and got.get("figure") == pts[at][key] > limit,
              f"--largest {dim} of the {tag} under {opt} {limit}: {got.get('value')} (brute force {want}), breaks at "
              f"{got.get('breaks_at')} (brute force {brk}), at {at} with {got.get('figure')} over the limit")
    # a budget on a figure no dim moves: the conv's 4 x 2 x 3 x 3 = 72 weights break --max-params 71 at the
    # box's first binding, and --max-params 72 keeps every H
    conv_dims = [x for k, (lo, hi) in conv_box.items() for x in ("--dim", f"{k}={lo}:{hi}")]
    for limit, want in ((71, (None, 3, 72)), (72, (12, None, None))):
        p = run(onnxcost, conv, *conv_dims, "--max-params", str(limit), "--largest", "H", "--format", "json", "-q")
        got = json.loads(p.stdout)["ranges"]["largest"] if p.stdout else {}
        check((got.get("value"), got.get("breaks_at"), got.get("figure")) == want,
              f"--largest H of the strided conv under --max-params {limit}: value {got.get('value')}, breaks at "
              f"{got.get('breaks_at')} with {got.get('figure')} parameters (want {want})")
    p = run(onnxcost, conv, "--dim", "N=1:4", "--largest", "N")
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "budget" in p.stderr,
          f"--largest without a budget: one line, exit 2 ({p.stderr.strip()[:160]})")

    # hostile ranges: one line, exit 2
    for args, why in ((["--dim", "N=0:5"], "LO below 1"), (["--dim", "N=5:1"], "LO above HI"),
                      (["--dim", f"N=1:{2**62}"], "HI past 2^40"), (["--dim", "Q=1:4"], "a dim of no input"),
                      (["--dim", "N=1:4", "--dim", "N=2"], "both")):
        p = run(onnxcost, conv, *args)
        check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1,
              f"{why}: one line, exit 2 ({p.returncode}: {p.stderr.strip()[:160]})")

    # compare over a box: the strided conv (enumerated) beside a stride-1 one (monotone)
    g = h.make_graph([h.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1]), h.make_node("Relu", ["y"], ["z"])],
                     "conv1", [h.make_tensor_value_info("x", f, ["N", 2, "H", "W"])],
                     [h.make_tensor_value_info("z", f, None)], initializer=[w])
    conv1 = os.path.join(work, "conv1.onnx")
    save(g, conv1)
    box = {"N": (1, 3), "H": (3, 6), "W": (4, 5)}
    dims = [x for k, (lo, hi) in box.items() for x in ("--dim", f"{k}={lo}:{hi}")]
    p = run(onnxcost, "compare", conv, conv1, *dims, "--format", "json")
    models = json.loads(p.stdout)["models"] if p.returncode == 0 else []
    bad = []
    brute = []
    for path, m in zip((conv, conv1), models):
        pts = [totals_at(onnxcost, path, dict(zip(box, vals)), {})
               for vals in itertools.product(*[range(lo, hi + 1) for lo, hi in box.values()])]
        b = {k: (min(t[k] for t in pts), max(t[k] for t in pts)) for k in ("macs", "flops", "peak_activation_bytes")}
        brute.append(b)
        for k, (lo, hi) in b.items():
            got = m["ranges"]["totals"][k]
            if (got["min"], got["max"], m[k]) != (lo, hi, hi):
                bad.append(f"{os.path.basename(path)} {k}: [{got['min']}, {got['max']}] column {m[k]}, "
                           f"brute force [{lo}, {hi}]")
    if len(models) == 2 and not bad:
        r = models[1]["macs_ratio"]
        if abs(r - brute[1]["macs"][1] / brute[0]["macs"][1]) > 1e-9:
            bad.append(f"macs_ratio {r}")
    check(p.returncode == 0 and len(models) == 2 and not bad and
          [m["ranges"]["method"] for m in models] == ["enumerated", "monotone"],
          f"compare over N, H, W: each model's [min, max] by brute force, columns and ratio by the maximum"
          + (f": {bad[:3]} {p.stderr.strip()[:200]}" if bad or p.returncode else ""))
    p = run(onnxcost, "compare", conv, conv1, *dims)
    lo, hi = brute[0]["macs"] if brute else (0, 0)
    check(p.returncode == 0 and f"[{lo:,}, {hi:,}]" in p.stdout and "Over the ranges N 1..3, H 3..6, W 4..5" in p.stdout,
          "compare's text shows [min, max] and the box")
    p = run(onnxcost, "compare", conv, conv1, "--dim", "N=1:100", "--dim", "H=3:300", "--format", "json")
    models = json.loads(p.stdout)["models"] if p.returncode == 0 else []
    check(len(models) == 2 and models[0]["macs"] is None and models[0]["complete"] is False
          and models[0]["ranges"]["method"] == "unbounded" and models[1]["macs"] is not None,
          "compare over a box too large to enumerate: the strided conv not bounded (null, complete false), "
          "the monotone one bounded")
    p = run(onnxcost, "compare", conv, conv1, "--dim", "N=1:100", "--dim", "H=3:300")
    check(p.returncode == 0 and "WARNING: not bounded: " + conv in p.stdout, "and the text says so")
    p = run(onnxcost, "compare", conv, conv1, "--dim", "N=1:4", "--gpu", "a100")
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "ranges" in p.stderr,
          f"compare's ranges with --gpu: one line, exit 2 ({p.stderr.strip()[:160]})")
    p = run(onnxcost, "annotate", conv, "-o", os.path.join(work, "x.onnx"), "--dim", "N=1:4", "--gpu", "a100")
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "ranges" in p.stderr,
          f"annotate's ranges with --gpu: one line, exit 2 ({p.stderr.strip()[:160]})")
    p = run(onnxcost, "sweep", conv, "--dim", "N=1:4")
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1,
          f"sweep with a range: one line, exit 2 ({p.stderr.strip()[:160]})")
    # every point analysis above held to ONNX Runtime's run wherever the
    # binding is one it can run: all of them but the KV-cache decoder's
    # bindings whose total_seq_len is not past_seq_len + seq_len
    for path, (ran, refused) in sorted(ORT_POINTS.items()):
        name = os.path.basename(path)
        want_all = "gpt2" not in name
        check(ran > 0 and (refused == 0 or not want_all),
              f"{name}: {ran} point analyses equal to ONNX Runtime's run (MACs, FLOPs, bytes, weights), "
              f"{refused} bindings it cannot run")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
