#!/usr/bin/env python3
"""`onnxcost plan` checked against the model file, independently.

For each model, the plan (--format json) is read and, with the `onnx`
package and its shape inference (at the bound dims, with data propagation),
never with onnxcost's own figures:
  * the plan's order is a topological order of the file's nodes;
  * every graph input and every node output that is not a weight or a view
    of one is in exactly one buffer;
  * each buffer's first and last steps are those of its values (producer;
    last reader, graph outputs to the last step), its bytes the largest of
    its values' (where inference knows them), its size a multiple of the
    alignment at least that, its offset aligned;
  * values share a buffer only as an alias op's output (Reshape, Flatten,
    Squeeze, Unsqueeze, Identity, Dropout) or as an elementwise op's output
    over an input of its shape that nothing reads after that op;
  * no two buffers live at a common step overlap, and every buffer ends
    within the arena;
  * the lower bound is the largest sum of the sizes of the buffers live at
    one step, and the arena is not below it.

usage: plan_check.py ONNXCOST FIXTURES_DIR WORKDIR   (exit 77 without onnx/torch)
"""
import json
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import onnx.shape_inference
    import torch
    import torchvision.models as tvm
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

ALIAS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}
ELEMENTWISE = {"Abs", "Acos", "Acosh", "Add", "Asin", "Asinh", "Atan", "Atanh", "BiasGelu", "Ceil", "Celu", "Clip",
               "Cos", "Cosh", "Div", "Elu", "Erf", "Exp", "FastGelu", "Floor", "Gelu", "HardSigmoid", "HardSwish",
               "LeakyRelu", "Log", "Max", "Min", "Mish", "Mul", "Neg", "Not", "Pow", "PRelu", "QuickGelu",
               "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign",
               "Sqrt", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu"}
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def sizes_at(model, binds):
    """Bytes of each value ONNX's shape inference knows at the bound dims."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for i in m.graph.input:
        for d in i.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.dim_value = binds.get(d.dim_param, 1)
    del m.graph.value_info[:]
    inf = onnx.shape_inference.infer_shapes(m, data_prop=True)
    out = {}
    for vi in list(inf.graph.input) + list(inf.graph.value_info) + list(inf.graph.output):
        t = vi.type.tensor_type
        if not t.HasField("shape") or not t.elem_type:
            continue
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        if any(d is None for d in dims):
            continue
        out[vi.name] = int(np.prod(dims, dtype=np.int64)) * onnx.helper.tensor_dtype_to_np_dtype(t.elem_type).itemsize
    return out


def check_plan(onnxcost, path, binds, tag, extra=()):
    args = []
    for k, v in binds.items():
        args += ["--dim", f"{k}={v}"]
    p = subprocess.run([onnxcost, "plan", path, *args, *extra, "--format", "json"], capture_output=True, text=True)
    if p.returncode != 0:
        check(False, f"{tag}: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    plan = json.loads(p.stdout)
    model = onnx.load(path, load_external_data=False)
    g = model.graph
    inits = {i.name for i in g.initializer}
    idx = plan["order"]  # file positions of the nodes, in execution order
    order = [g.node[i] for i in idx if 0 <= i < len(g.node)]
    producer = {o: i for i, n in enumerate(g.node) for o in n.output if o}
    step = {}
    topo = len(order) == len(g.node) and sorted(idx) == list(range(len(g.node)))
    for s, i in enumerate(idx if topo else []):
        topo = topo and all(x in inits or x not in producer or producer[x] in step for x in g.node[i].input if x)
        step[i] = s
    check(topo, f"{tag}: the plan's order is a topological order of the {len(g.node)} nodes")
    if not topo:
        return None
    last_step = len(order) - 1
    consts = {o for n in g.node if n.op_type == "Constant" for o in n.output}
    first, last = {}, {}
    for i in g.input:
        if i.name not in inits:
            first[i.name] = last[i.name] = 0
    for i in idx:
        for o in g.node[i].output:
            if o and o not in consts:
                first[o] = last[o] = step[i]
    for i in idx:
        for x in g.node[i].input:
            if x in last:
                last[x] = max(last[x], step[i])
    for o in g.output:
        last[o.name] = last_step
    bufs = plan["buffers"]
    owner = {}
    for k, b in enumerate(bufs):
        for v in b["values"]:
            owner.setdefault(v, []).append(k)
    # views of weights (a Reshape of an initializer) are not in the arena
    views = set()
    for n in order:
        if n.op_type in ALIAS and n.input and (n.input[0] in inits or n.input[0] in views):
            views.add(n.output[0])
    want = set(first) - views
    check(set(owner) == want and all(len(v) == 1 for v in owner.values()),
          f"{tag}: the {len(want)} inputs and node outputs each in one buffer "
          f"(missing {sorted(want - set(owner))[:3]}, extra {sorted(set(owner) - want)[:3]})")
    size = sizes_at(model, binds)
    align = plan["alignment"]
    bad, known = [], 0
    for b in bufs:
        vs = b["values"]
        f, l = min(first[v] for v in vs), max(last[v] for v in vs)
        if (b["first"], b["last"]) != (f, l):
            bad.append(f"{b['name']}: steps {b['first']}..{b['last']}, want {f}..{l}")
        if all(v in size for v in vs):
            known += 1
            if b["bytes"] != max(size[v] for v in vs):
                bad.append(f"{b['name']}: {b['bytes']} B, inference {max(size[v] for v in vs)} B")
        if b["size"] < b["bytes"] or b["size"] % align or b["offset"] % align or b["size"] - b["bytes"] >= align:
            bad.append(f"{b['name']}: size {b['size']}, offset {b['offset']} at alignment {align}")
        # sharing: each later value by an alias, or in place over an input nothing reads later
        creator = min(vs, key=lambda v: (first[v], v not in producer))
        for v in vs:
            if v == creator:
                continue
            n = g.node[producer[v]]
            s = step[producer[v]]
            ins = [x for x in n.input if x in vs]
            legal = bool(ins) and (n.op_type in ALIAS and n.input[0] in vs or
                                   n.op_type in ELEMENTWISE and
                                   all(last[u] <= s for u in vs if first[u] < s))
            if not legal:
                bad.append(f"{b['name']}: {v} ({n.op_type}) may not share it")
    check(not bad, f"{tag}: steps, bytes ({known} of {len(bufs)} buffers sized by inference), alignment and "
                   f"sharing of every buffer" + (f": {bad[:4]}" if bad else ""))
    overlap = []
    for i, a in enumerate(bufs):
        for b in bufs[i + 1:]:
            if a["first"] <= b["last"] and b["first"] <= a["last"] and \
                    a["offset"] < b["offset"] + b["size"] and b["offset"] < a["offset"] + a["size"]:
                overlap.append((a["name"], b["name"]))
    end = max((b["offset"] + b["size"] for b in bufs), default=0)
    check(not overlap and end == plan["arena_bytes"] and plan["verified"] is True,
          f"{tag}: no two buffers live together overlap; the arena ends at the highest buffer ({end} B)"
          + (f": {overlap[:3]}" if overlap else ""))
    live = [0] * (last_step + 2)
    for b in bufs:
        live[b["first"]] += b["size"]
        live[b["last"] + 1] -= b["size"]
    lower = max(np.cumsum(live)) if bufs else 0
    check(int(lower) == plan["lower_bound_bytes"] and plan["arena_bytes"] >= lower,
          f"{tag}: lower bound {lower} B, the most bytes live at a step; arena {plan['arena_bytes']} B "
          f"({plan['arena_bytes'] / lower:.3f}x)")
    return plan


def main():
    onnxcost, fixtures, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    net = os.path.join(fixtures, "mnist", "torchsummary_net.onnx")
    check_plan(onnxcost, net, {}, "torchsummary_net")
    check_plan(onnxcost, net, {}, "torchsummary_net --planner order --align 256", ["--planner", "order", "--align",
                                                                                     "256"])
    check_plan(onnxcost, net, {}, "torchsummary_net --no-inplace", ["--no-inplace"])
    for name in ("resnet18", "mobilenet_v2"):
        torch.manual_seed(0)
        m = getattr(tvm, name)(weights=None).eval()
        path = os.path.join(work, name + ".onnx")
        kw = dict(input_names=["input"], output_names=["output"], opset_version=17,
                  dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
        torch.onnx.export(m, (torch.rand(1, 3, 224, 224),), path, **kw)
        for planner in ("size", "order"):
            check_plan(onnxcost, path, {"batch": 2}, f"{name} batch 2, planner {planner}", ["--planner", planner])
    gpt = os.path.join(fixtures, "corpus", "microsoft+onnxruntime-genai",
                       "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx")
    check_plan(onnxcost, gpt, {"batch_size": 2, "seq_len": 3, "past_seq_len": 5, "total_seq_len": 8},
               "tiny GPT-2 with a KV cache")
    # the HTML picture draws every buffer of the JSON plan, at its offset, size and steps
    rn = os.path.join(work, "resnet18.onnx")
    j = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=2", "--format", "json"], capture_output=True, text=True)
    ht = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=2", "--format", "html"], capture_output=True, text=True)
    import re
    drawn = sorted(tuple(int(x) for x in m) for m in re.findall(
        r'class="buffer"[^>]*data-offset="(\d+)" data-size="(\d+)" data-first="(\d+)" data-last="(\d+)"', ht.stdout))
    want = sorted((b["offset"], b["size"], b["first"], b["last"]) for b in json.loads(j.stdout)["buffers"]) \
        if j.returncode == 0 else None
    check(ht.returncode == 0 and ht.stdout.count("</html>") == 1 and drawn == want,
          f"--format html: one document drawing the {len(want or [])} buffers of the JSON plan ({len(drawn)} drawn)")
    # the arena beside analyze's peak activation memory: where in-place reuse makes them differ, the text says
    # why in one line, with the buffers the JSON plan lists as holding more than one value
    an = subprocess.run([onnxcost, rn, "--dim", "batch=2", "--format", "json", "-q"], capture_output=True, text=True)
    tx = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=2"], capture_output=True, text=True)
    peak = json.loads(an.stdout)["totals"]["peak_activation_bytes"] if an.returncode == 0 else None
    jp = json.loads(j.stdout) if j.returncode == 0 else {}
    shared = sum(len(b["values"]) > 1 for b in jp.get("buffers", []))
    line = [ln for ln in tx.stdout.splitlines() if ln.startswith("Against analyze's peak activation memory")]
    check(peak and jp.get("liveness_peak_bytes") == peak and jp.get("shared_buffers") == shared and shared > 0
          and jp["arena_bytes"] < 0.99 * peak and len(line) == 1 and f"{peak / 2**20:.2f} MiB" in line[0]
          and f"{shared} buffers here hold more than one value" in line[0] and "--no-inplace" in line[0],
          f"resnet18: the arena {jp.get('arena_bytes')} B against analyze's peak {peak} B, why in one line "
          f"({line[0][:150] if line else tx.stdout[:200]})")
    tn = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=2", "--no-inplace"], capture_output=True, text=True)
    check(tn.returncode == 0 and "Against analyze's peak" not in tn.stdout,
          "resnet18 --no-inplace: the arena is analyze's peak within 1 %, no line")
    # --format csv: raw integers a spreadsheet reads as numbers (issue 42, D: "3,211,264")
    import csv
    import io
    cs = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=2", "--format", "csv"], capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(cs.stdout))) if cs.returncode == 0 else []
    got = sorted((int(r["offset"]), int(r["size"]), int(r["first"]), int(r["last"])) for r in rows
                 if r["offset"].isdigit() and r["size"].isdigit())
    check(got == want and len(rows) == len(want or []),
          f"--format csv: the JSON plan's {len(want or [])} buffers as raw integers ({len(got)} of {len(rows)} rows)")

    # over a range: one plan whose every buffer holds its values at each binding of the box
    p = subprocess.run([onnxcost, "plan", rn, "--dim", "batch=1:3", "--format", "json"], capture_output=True,
                       text=True)
    plan = json.loads(p.stdout) if p.returncode == 0 else {}
    bad = []
    model = onnx.load(rn, load_external_data=False)
    for batch in (1, 2, 3):
        size = sizes_at(model, {"batch": batch})
        for b in plan.get("buffers", []):
            need = max((size[v] for v in b["values"] if v in size), default=0)
            if need > b["size"]:
                bad.append(f"{b['name']} at batch {batch}: {need} B > {b['size']} B")
    check(p.returncode == 0 and plan.get("holds_for") == {"batch": {"lo": 1, "hi": 3}} and plan["verified"]
          and not bad, f"resnet18 over batch 1..3: one plan, every buffer big enough at each batch"
          + (f": {bad[:3]}" if bad else ""))
    conv = os.path.join(work, "conv.onnx")
    g = onnx.helper.make_graph(
        [onnx.helper.make_node("Conv", ["x", "w"], ["y"], strides=[2, 2])], "conv",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 1, "H", "H"])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")])
    onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)]), conv)
    # sizes not proven to grow (floor((H - 3) / 2) + 1): each buffer at its largest over the bindings
    p = subprocess.run([onnxcost, "plan", conv, "--dim", "H=3:9", "--dim", "N=1:2", "--format", "json"],
                       capture_output=True, text=True)
    plan = json.loads(p.stdout) if p.returncode == 0 else {}
    model = onnx.load(conv)
    bad = []
    for b in plan.get("buffers", []):
        needs = [max((sizes_at(model, {"H": hh, "N": nn}).get(v, 0) for v in b["values"]), default=0)
                 for hh in range(3, 10) for nn in (1, 2)]
        if max(needs) != b["bytes"] or b["size"] < b["bytes"]:
            bad.append(f"{b['name']}: {b['bytes']} B, the largest over the box {max(needs)} B")
    check(p.returncode == 0 and plan.get("sized") == "each_binding" and plan["verified"] and not bad
          and len(plan.get("buffers", [])) == 2,
          f"a strided conv over H=3:9, N=1:2 (sizes not proven to grow): every buffer at its largest over the 14 "
          f"bindings, by ONNX shape inference" + (f": {bad[:3]} {p.stderr.strip()[:200]}" if bad or p.returncode else ""))
    p = subprocess.run([onnxcost, "plan", conv, "--dim", "H=3:3000", "--range-points", "100"], capture_output=True,
                       text=True)
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "proven" in p.stderr,
          f"the same over H=3:3000 with --range-points 100: one line, exit 2 ({p.stderr.strip()[:160]})")
    p = subprocess.run([onnxcost, "plan", net, "--align", "48"], capture_output=True, text=True)
    check(p.returncode == 2 and p.stderr.count("\n") == 1 and "power of two" in p.stderr,
          f"--align 48: one line, exit 2 ({p.stderr.strip()})")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
