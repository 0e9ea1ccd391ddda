#!/usr/bin/env python3
"""Models as ONNX Runtime's CPU optimizer saves them: the com.microsoft.nchwc
domain (analyzer/ops/nchwc.c) and the fusions of its extended level
(com.microsoft FusedConv, FusedMatMul, BiasGelu, ...) against ONNX Runtime
itself.

Each model is exported from PyTorch, then opened by ONNX Runtime with
optimized_model_filepath, which writes the graph it runs: at ORT_ENABLE_ALL
on an x86 CPU with AVX2 or AVX-512 the convolutions and pools become
com.microsoft.nchwc ops on channel-padded tensors; at ORT_ENABLE_EXTENDED
convolutions fuse their activation (FusedConv) and GPT-2's and DistilBERT's
attention products fuse their transposes and scaling (FusedMatMul). Then, on
that saved file:

  * every tensor's shape from `onnxcost --format json` equals its run-time
    shape in ONNX Runtime (tests/oracle/ort_shapes.py) at two batch sizes,
    and none is unknown;
  * every nchwc Conv's and FusedConv's MACs equal numel(Y) * (C / group) *
    prod(kernel) computed here from ONNX Runtime's run-time shapes and the
    file's weight dims, and its FLOPs 2 MACs + one per output for each of
    bias, Sum and an activation; every FusedMatMul's MACs numel(Y) * K with K
    from its input's run-time shape and transA;
  * the models hold at least MIN_NCHWC nchwc nodes in all (a CPU whose ONNX
    Runtime writes none fails the test: nothing would have been checked).

And a ReorderInput whose result no nchwc Conv reads is left unknown with
the reason, not given a guessed block size.

usage: ort_optimized.py --onnxcost BIN --workdir DIR     (exit 77 without torch/onnxruntime)
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    import torchvision
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
import ort_shapes  # noqa: E402
import transformers as oracle  # noqa: E402  (tests/oracle/transformers.py)

MIN_NCHWC = 60  # the 3 models hold 11 + 23 + 54 = 88 on an AVX-512 CPU here (2026-11-26)
MIN_FUSED = 30  # 35 FusedConv + 8 others here (2026-11-26)
MIN_FUSED_MATMUL = 10  # 6 exported nodes and 2 written here, at 2 bindings each: 16 (2026-11-26)


class Small(torch.nn.Module):
    """Channel counts that are no multiple of 8 or 16 (so the NCHWc tensors
    are padded), a strided and a depthwise convolution, pools, a residual
    add and a resize."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 20, 3, padding=1)
        self.c2 = torch.nn.Conv2d(20, 36, 3, stride=2, padding=1)
        self.c3 = torch.nn.Conv2d(36, 36, 3, padding=1, groups=36)
        self.c4 = torch.nn.Conv2d(36, 12, 1)
        self.pool = torch.nn.MaxPool2d(2)
        self.avg = torch.nn.AvgPool2d(2)

    def forward(self, x):
        y = self.c2(torch.relu(self.c1(x)))
        y = self.pool(y)
        z = torch.relu(self.c3(y)) + y
        z = self.c4(self.avg(z))
        return torch.nn.functional.interpolate(z, scale_factor=2, mode="nearest"), z.mean((2, 3))


def fused_matmuls():
    """FusedMatMul with transA and transB, which the exports above never get:
    Y1 = 2 * A^T B^T over broadcast batch dims, Y2 = A'B^T with a rank-2 A';
    and with transBatchA/transBatchB (ONNX Runtime writes them for ViT's
    attention), alone and with transA/transB, at rank 4 and 3."""
    f = onnx.TensorProto.FLOAT
    mk = onnx.helper.make_node
    nodes = [mk("FusedMatMul", ["a", "b"], ["y1"], domain="com.microsoft", alpha=2.0, transA=1, transB=1),
             mk("FusedMatMul", ["c", "b"], ["y2"], domain="com.microsoft", transB=1),
             mk("FusedMatMul", ["d", "e"], ["y3"], domain="com.microsoft", transBatchA=1),
             mk("FusedMatMul", ["g", "h"], ["y4"], domain="com.microsoft", transBatchB=1, transB=1),
             mk("FusedMatMul", ["i", "e"], ["y5"], domain="com.microsoft", transBatchA=1, transA=1, alpha=0.5),
             mk("FusedMatMul", ["j", "k"], ["y6"], domain="com.microsoft", transBatchA=1, transBatchB=1)]
    ins = {"a": ["batch", 3, 5, 4], "b": [1, 3, 6, 5], "c": [7, 5], "d": [5, "batch", 3, 4], "e": [1, 3, 4, 6],
           "g": [2, 3, 5, 4], "h": [6, 2, 3, 4], "i": [4, 2, 3, 5], "j": [5, 2, 4], "k": [4, 2, 6]}
    g = onnx.helper.make_graph(nodes, "fused_matmuls",
                               [onnx.helper.make_tensor_value_info(n, f, s) for n, s in ins.items()],
                               [onnx.helper.make_tensor_value_info(f"y{k}", f, None) for k in range(1, 7)])
    return onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                    onnx.helper.make_opsetid("com.microsoft", 1)])


def lrn_pool():
    """Conv -> LRN -> MaxPool -> Conv, 32 channels (a whole number of blocks, or
    the pool stays NCHW): ONNX Runtime runs LRN on
    plain NCHW data, so a ReorderInput feeds an nchwc MaxPool and only the
    Conv after the pool shows the block size (the ONNX zoo's AlexNet and
    Inception-v1 have this pattern)."""
    f, mk = onnx.TensorProto.FLOAT, onnx.helper.make_node
    rng = np.random.default_rng(1)
    w1 = onnx.numpy_helper.from_array(rng.standard_normal((32, 3, 3, 3)).astype(np.float32), "w1")
    w2 = onnx.numpy_helper.from_array(rng.standard_normal((12, 32, 3, 3)).astype(np.float32), "w2")
    nodes = [mk("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]), mk("Relu", ["c1"], ["r1"]),
             mk("LRN", ["r1"], ["n1"], size=5), mk("MaxPool", ["n1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             mk("Conv", ["p1", "w2"], ["y"], pads=[1, 1, 1, 1])]
    g = onnx.helper.make_graph(nodes, "lrn_pool", [onnx.helper.make_tensor_value_info("x", f, ["batch", 3, 32, 32])],
                               [onnx.helper.make_tensor_value_info("y", f, None)], initializer=[w1, w2])
    return onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)])


def export(model, path):
    if isinstance(model, onnx.ModelProto):
        onnx.save(model, path)
        return
    if isinstance(model, (oracle.GPT2, oracle.DistilBert)):
        ids = torch.randint(0, 1000, (1, 8))
        names = ["input_ids"] if isinstance(model, oracle.GPT2) else ["input_ids", "attention_mask"]
        args = (ids,) if isinstance(model, oracle.GPT2) else (ids, torch.ones_like(ids))
        oracle.onnx_export(model.eval(), args, path, input_names=names, opset_version=17,
                           dynamic_axes={n: {0: "batch", 1: "sequence"} for n in names})
        return
    x = torch.randn(1, 64) if isinstance(model, torch.nn.Sequential) else torch.randn(1, 3, 64, 64)
    oracle.onnx_export(model.eval(), (x,), path, input_names=["x"], dynamic_axes={"x": {0: "batch"}},
                       opset_version=17)


def optimize(src, dst, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    so.optimized_model_filepath = dst
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    return onnx.load(dst)


class Grouped(torch.nn.Module):
    """Convolutions ONNX Runtime's NCHWc rewrite may leave out on a CPU: grouped with 8 channels a group (RegNet's;
    no multiple of an AVX-512 block of 16), depthwise on 24 channels; and ones it takes (dense, depthwise on 32)."""

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 32, 3, padding=1)
        self.c2 = torch.nn.Conv2d(32, 32, 3, padding=1, groups=4)
        self.c3 = torch.nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=32)
        self.c4 = torch.nn.Conv2d(32, 24, 1)
        self.c5 = torch.nn.Conv2d(24, 24, 3, stride=2, padding=1, groups=24)

    def forward(self, x):
        return self.c5(torch.relu(self.c4(self.c3(torch.relu(self.c2(torch.relu(self.c1(x))))))))


# a hand CPU for the im2col check: two cache levels, their memory factors in the spec
IM2COL_CPU = {"name": "hand CPU", "kind": "cpu", "fp32": 0.5, "memory_gib": 16, "bandwidth_gbs": 20,
              "caches": [{"kib": 32, "bandwidth_gbs": 800}, {"kib": 1024, "bandwidth_gbs": 200},
                         {"kib": 16384, "bandwidth_gbs": 100}],
              "efficiency": {"memory": 0.5, "memory_caches": [0.9, 0.3, 0.4], "launch_us": 0}}


def im2col_check(binary, workdir, rng, failures):
    """Each convolution of the graph ONNX Runtime ran outside the nchwc domain with group > 1 and a kernel over 1x1
    moves 8 bytes per element of its expanded input (N x C_in x taps x H_out x W_out, from ONNX Runtime's shapes), at
    the level a tensor of half those bytes sits in (the first level skipped) with that level's memory factor; every
    other convolution none. Returns the convolutions priced so."""
    src, dst = os.path.join(workdir, "ortopt_grouped.onnx"), os.path.join(workdir, "ortopt_grouped.optimized.onnx")
    export(Grouped(), src)
    m = optimize(src, dst, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    spec = os.path.join(workdir, "im2col_cpu.json")
    json.dump(IM2COL_CPU, open(spec, "w"))
    truth = ort_shapes.ort_shapes(m, {"batch": 2}, rng)
    weights = {i.name: list(i.dims) for i in m.graph.initializer}
    p = subprocess.run([binary, dst, "--dim", "batch=2", "--gpu-spec", spec, "--format", "json", "-q"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append(f"im2col: {p.stderr.strip()}")
        return 0
    doc, priced = json.loads(p.stdout), 0
    for n in doc["nodes"]:
        node = next((x for x in m.graph.node if x.output and x.output[0] == n["outputs"][0]["name"]), None)
        if node is None or node.op_type not in ("Conv", "FusedConv"):
            continue
        at = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
        xs = truth.get(node.input[0]) or [2, 3, 64, 64]
        ys, w = truth[node.output[0]], weights[node.input[1]]
        taps = int(np.prod(w[2:]))
        want = 0
        if node.domain != "com.microsoft.nchwc" and at.get("group", 1) > 1 and taps > 1:
            want = 8 * ys[0] * xs[1] * taps * int(np.prod(ys[2:]))
        g = n.get("gpu") or {}
        if g.get("im2col_bytes", 0) != want:
            failures.append(f"im2col {n['name']} ({node.domain or 'ai.onnx'}, group {at.get('group', 1)}): "
                            f"{g.get('im2col_bytes')} bytes, want {want}")
            continue
        if want:
            half = want / 2
            level = next((k for k, c in enumerate(IM2COL_CPU["caches"]) if half <= c["kib"] * 1024), None)
            level = 1 if level == 0 else level
            bw = (IM2COL_CPU["caches"][level]["bandwidth_gbs"] if level is not None else IM2COL_CPU["bandwidth_gbs"])
            eff = (IM2COL_CPU["efficiency"]["memory_caches"][level] if level is not None
                   else IM2COL_CPU["efficiency"]["memory"])
            t = want / (bw * 1e9 * eff)
            if abs(g.get("im2col_s", 0) - t) > 1e-9 * t:
                failures.append(f"im2col {n['name']}: {g.get('im2col_s')} s, want {t}")
            priced += 1
    return priced


class Recurrent(torch.nn.Module):
    """A bidirectional LSTM whose recurrence weights fit the hand CPU's second level, then a GRU whose fit its first."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(16, 96, bidirectional=True)
        self.gru = torch.nn.GRU(192, 24)

    def forward(self, x):
        return self.gru(self.lstm(x)[0])[0]


def recurrence_check(binary, workdir, rng, failures):
    """Each LSTM and GRU of the graph ONNX Runtime ran reads its recurrence weights R (one direction's: G hidden x
    hidden floats, from ONNX Runtime's initializer) at every time step and direction, from the level they fit in, and
    computes one step's product (2 x batch x G hidden x hidden FLOPs) at the unit's peak and factor: per step the larger
    of the two at batch 1, their sum above; the node's compute time counts its other FLOPs. Returns the nodes priced."""
    src, dst = os.path.join(workdir, "ortopt_recurrent.onnx"), os.path.join(workdir, "ortopt_recurrent.optimized.onnx")
    oracle.onnx_export(Recurrent().eval(), (torch.randn(5, 1, 16),), src, input_names=["x"],
                       dynamic_axes={"x": {0: "steps", 1: "batch"}}, opset_version=17)
    m = optimize(src, dst, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    spec = os.path.join(workdir, "recurrence_cpu.json")
    cpu = dict(IM2COL_CPU, efficiency=dict(IM2COL_CPU["efficiency"], fp32=0.8))
    json.dump(cpu, open(spec, "w"))
    weights, priced = {i.name: list(i.dims) for i in m.graph.initializer}, 0
    for batch in (1, 3):
        binds = {"steps": 7, "batch": batch}
        truth = ort_shapes.ort_shapes(m, binds, rng)
        p = subprocess.run([binary, dst, "--dim", f"steps=7", "--dim", f"batch={batch}", "--gpu-spec", spec,
                            "--format", "json", "-q"], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"recurrence: {p.stderr.strip()}")
            return 0
        for n in json.loads(p.stdout)["nodes"]:
            node = next((x for x in m.graph.node if x.output and x.output[0] == n["outputs"][0]["name"]), None)
            if node is None or node.op_type not in ("LSTM", "GRU"):
                continue
            xs = truth.get(node.input[0]) or [7, batch, 16]
            dirs, gh, h = weights[node.input[2]]
            steps, wb, sf = xs[0] * dirs, gh * h * 4, 2 * xs[1] * gh * h
            level = next((c for c in cpu["caches"] if wb <= c["kib"] * 1024), None)
            stream = wb / ((level or cpu)["bandwidth_gbs"] * 1e9)
            peak = cpu["fp32"] * 1e12 * cpu["efficiency"]["fp32"]
            step = max(stream, sf / peak) if xs[1] == 1 else stream + sf / peak
            g = n.get("gpu") or {}
            got = (g.get("recurrence") or {}).get("time_s", 0)
            if abs(got - steps * step) > 1e-9 * steps * step:
                failures.append(f"recurrence {n['name']} batch {batch}: {got} s, want {steps * step}")
            elif abs(g["compute_s"] - (n["flops"] - steps * sf) / peak) > 1e-9 * g["compute_s"]:
                failures.append(f"recurrence {n['name']} batch {batch}: compute {g['compute_s']} s, want "
                                f"{(n['flops'] - steps * sf) / peak} (the steps' products apart)")
            else:
                priced += 1
    if priced < 4:
        failures.append(f"recurrence: {priced} of 4 recurrent nodes priced")
    return priced


def analyze(binary, path, binds):
    p = subprocess.run([binary, path, "--format", "json", "-q"] + sum((["--dim", f"{k}={v}"] for k, v in binds.items()),
                                                                      []), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    failures, nchwc_total, fused_total, shapes, convs, mms = [], 0, 0, 0, 0, 0
    ALL, EXT = ort.GraphOptimizationLevel.ORT_ENABLE_ALL, ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    cnn = [{"batch": 1}, {"batch": 3}]
    seq = [{"batch": 1, "sequence": 7}, {"batch": 2, "sequence": 19}]
    for name, model, level, bindings in (
            ("small", Small(), ALL, cnn), ("resnet18", torchvision.models.resnet18(), ALL, cnn),
            ("mobilenet_v2", torchvision.models.mobilenet_v2(), ALL, cnn),
            ("mobilenet_v2_ext", torchvision.models.mobilenet_v2(), EXT, cnn),
            ("gpt2_2layers_ext", oracle.GPT2(layers=2), EXT, seq),
            ("distilbert_2layers_ext", oracle.DistilBert(layers=2), EXT, seq),
            ("lrn_pool", lrn_pool(), ALL, cnn),
            ("fused_matmuls", fused_matmuls(), ort.GraphOptimizationLevel.ORT_DISABLE_ALL, cnn),
            ("mlp_ext", torch.nn.Sequential(torch.nn.Linear(64, 48), torch.nn.ReLU(), torch.nn.Linear(48, 10)), EXT,
             cnn)):
        src = os.path.join(a.workdir, f"ortopt_{name}.onnx")
        dst = os.path.join(a.workdir, f"ortopt_{name}.optimized.onnx")
        export(model, src)
        m = optimize(src, dst, level)
        nchwc = [n for n in m.graph.node if n.domain == "com.microsoft.nchwc"]
        nchwc_total += len(nchwc)
        fused = [n for n in m.graph.node if n.domain == "com.microsoft"]
        fused_total += len(fused)
        weights = {i.name: list(i.dims) for i in m.graph.initializer}
        for binds in bindings:
            batch = binds["batch"]
            truth = ort_shapes.ort_shapes(m, binds, rng)
            shapes_in = {vi.name: [d.dim_value if d.HasField("dim_value") else binds.get(d.dim_param, 1)
                                   for d in vi.type.tensor_type.shape.dim] for vi in m.graph.input}  # as fed
            doc = analyze(a.onnxcost, dst, binds)
            ours = {o["name"]: (o["shape"] if n["status"] == "ok" else None) for n in doc["nodes"] for o in n["outputs"]}
            bad = [f"{t}: onnxcost {ours.get(t)}, runtime {s}" for t, s in truth.items() if ours.get(t) != s]
            shapes += len(truth) - len(bad)
            if bad:
                failures.append(f"{name} {binds}: {len(bad)} of {len(truth)} shapes differ: {bad[:4]}")
            for n in doc["nodes"]:
                node = next((x for x in m.graph.node if x.output and x.output[0] == n["outputs"][0]["name"]), None)
                if node is None:
                    continue
                at = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
                if (n["domain"], n["op_type"]) == ("com.microsoft", "FusedGemm"):
                    xa, ys = truth.get(node.input[0]) or shapes_in[node.input[0]], truth[node.output[0]]
                    k, mn = xa[0] if at.get("transA", 0) else xa[1], ys[0] * ys[1]
                    flops = 2 * mn * k + (mn if at.get("alpha", 1.0) != 1.0 else 0) + \
                        (mn * (2 if at.get("beta", 1.0) != 1.0 else 1) if len(node.input) > 2 and node.input[2] else 0) + \
                        (mn if at.get("activation") else 0)
                    mms += 1
                    if (n["macs"], n["flops"]) != (mn * k, flops):
                        failures.append(f"{name} {binds} {n['name']}: MACs/FLOPs {n['macs']}/{n['flops']}, from "
                                        f"ONNX Runtime's shapes {mn * k}/{flops}")
                    continue
                if (n["domain"], n["op_type"]) == ("com.microsoft", "FusedMatMul"):
                    xa, ys = truth.get(node.input[0]) or shapes_in[node.input[0]], truth[node.output[0]]
                    if at.get("transBatchA", 0) and len(xa) >= 3:  # [d0, d1.., dk] -> [d1.., d0, dk]
                        xa = list(xa[1:-1]) + [xa[0], xa[-1]]
                    k = xa[-2] if at.get("transA", 0) else xa[-1]
                    macs = int(np.prod(ys)) * k
                    flops = 2 * macs + (int(np.prod(ys)) if at.get("alpha", 1.0) != 1.0 else 0)
                    mms += 1
                    if (n["macs"], n["flops"]) != (macs, flops):
                        failures.append(f"{name} {binds} {n['name']}: MACs/FLOPs {n['macs']}/{n['flops']}, from "
                                        f"ONNX Runtime's shapes {macs}/{flops}")
                    continue
                if (n["domain"], n["op_type"]) not in (("com.microsoft.nchwc", "Conv"), ("com.microsoft", "FusedConv")):
                    continue
                xs, ys, w = truth.get(node.input[0]) or shapes_in[node.input[0]], truth[node.output[0]], \
                    weights[node.input[1]]
                outs = int(np.prod(ys))
                macs = outs * (xs[1] // at.get("group", 1)) * int(np.prod(w[2:]))
                extra = sum(1 for k in (2, 3) if len(node.input) > k and node.input[k]) + (1 if at.get("activation")
                                                                                            else 0)
                flops = 2 * macs + extra * outs
                convs += 1
                if (n["macs"], n["flops"]) != (macs, flops):
                    failures.append(f"{name} batch {batch} {n['name']}: MACs/FLOPs {n['macs']}/{n['flops']}, "
                                    f"from ONNX Runtime's shapes {macs}/{flops}")
        print(f"ok   {name}: {len(m.graph.node)} nodes, {len(nchwc)} nchwc "
              f"{sorted({n.op_type for n in nchwc})}, {len(fused)} com.microsoft {sorted({n.op_type for n in fused})}")
    # a ReorderInput that no nchwc Conv reads: no block size to take
    g = onnx.helper.make_graph(
        [onnx.helper.make_node("ReorderInput", ["x"], ["y"], domain="com.microsoft.nchwc"),
         onnx.helper.make_node("ReorderOutput", ["y"], ["z"], domain="com.microsoft.nchwc", channels=20)],
        "lone", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 20, 8, 8])],
        [onnx.helper.make_tensor_value_info("z", onnx.TensorProto.FLOAT, None)])
    lone = os.path.join(a.workdir, "ortopt_lone_reorder.onnx")
    onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                       onnx.helper.make_opsetid("com.microsoft.nchwc", 1)]), lone)
    doc = analyze(a.onnxcost, lone, {})
    r = doc["nodes"][0]
    if r["status"] == "ok" or "block size" not in (r.get("reason") or ""):
        failures.append(f"lone ReorderInput: status {r['status']}, reason {r.get('reason')!r}")
    im2col = im2col_check(a.onnxcost, a.workdir, rng, failures)
    print(f"ok   grouped: {im2col} convolutions priced with their im2col traffic")
    recurrent = recurrence_check(a.onnxcost, a.workdir, rng, failures)
    print(f"ok   recurrent: {recurrent} LSTM and GRU nodes priced with their steps' weight reads")
    if fused_total < MIN_FUSED or mms < MIN_FUSED_MATMUL:
        failures.append(f"only {fused_total} com.microsoft nodes, {mms} FusedMatMul costs checked (at least {MIN_FUSED}, "
                        f"{MIN_FUSED_MATMUL})")
    if nchwc_total < MIN_NCHWC:
        failures.append(f"only {nchwc_total} nchwc nodes (at least {MIN_NCHWC}): this CPU's ONNX Runtime wrote too "
                        "few for the test to check anything")
    for f in failures:
        print("FAIL " + f)
    print(f"{'FAIL' if failures else 'ok'}: {shapes} run-time shapes agree, {convs} fused Conv and {mms} FusedMatMul and FusedGemm "
          f"costs checked, {nchwc_total} nchwc and {fused_total} com.microsoft nodes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
