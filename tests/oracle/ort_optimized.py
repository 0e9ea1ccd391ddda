#!/usr/bin/env python3
"""Models as ONNX Runtime's CPU optimizer saves them: the com.microsoft.nchwc
domain (analyzer/ops/nchwc.c) against ONNX Runtime itself.

Each model is exported from PyTorch, then opened by ONNX Runtime at
ORT_ENABLE_ALL with optimized_model_filepath, which writes the graph it
runs: on an x86 CPU with AVX2 or AVX-512 its convolutions and pools become
com.microsoft.nchwc ops on channel-padded tensors. Then, on that saved file:

  * every tensor's shape from `onnxcost --format json` equals its run-time
    shape in ONNX Runtime (tests/oracle/ort_shapes.py) at two batch sizes,
    and none is unknown;
  * every nchwc Conv's MACs equal numel(Y) * (C / group) * prod(kernel)
    computed here from ONNX Runtime's run-time shapes and the file's weight
    dims, and its FLOPs 2 MACs + one per output for each of bias, Sum and an
    activation;
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

MIN_NCHWC = 60  # the 3 models hold 11 + 23 + 54 = 88 on an AVX-512 CPU here (2026-11-26)


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


def export(model, path):
    torch.onnx.export(model.eval(), (torch.randn(1, 3, 64, 64),), path, input_names=["x"],
                      dynamic_axes={"x": {0: "batch"}}, opset_version=17)


def optimize(src, dst):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.optimized_model_filepath = dst
    ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
    return onnx.load(dst)


def analyze(binary, path, batch):
    p = subprocess.run([binary, path, "--format", "json", "-q", "--dim", f"batch={batch}"], capture_output=True,
                       text=True)
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
    failures, nchwc_total, shapes, convs = [], 0, 0, 0
    for name, model in (("small", Small()), ("resnet18", torchvision.models.resnet18()),
                        ("mobilenet_v2", torchvision.models.mobilenet_v2())):
        src = os.path.join(a.workdir, f"ortopt_{name}.onnx")
        dst = os.path.join(a.workdir, f"ortopt_{name}.optimized.onnx")
        export(model, src)
        m = optimize(src, dst)
        nchwc = [n for n in m.graph.node if n.domain == "com.microsoft.nchwc"]
        nchwc_total += len(nchwc)
        weights = {i.name: list(i.dims) for i in m.graph.initializer}
        for batch in (1, 3):
            truth = ort_shapes.ort_shapes(m, {"batch": batch}, rng)
            doc = analyze(a.onnxcost, dst, batch)
            ours = {o["name"]: (o["shape"] if n["status"] == "ok" else None) for n in doc["nodes"] for o in n["outputs"]}
            bad = [f"{t}: onnxcost {ours.get(t)}, runtime {s}" for t, s in truth.items() if ours.get(t) != s]
            shapes += len(truth) - len(bad)
            if bad:
                failures.append(f"{name} batch {batch}: {len(bad)} of {len(truth)} shapes differ: {bad[:4]}")
            for n in doc["nodes"]:
                if n["domain"] != "com.microsoft.nchwc" or n["op_type"] != "Conv":
                    continue
                node = next(x for x in m.graph.node if x.output and x.output[0] == n["outputs"][0]["name"])
                at = {x.name: onnx.helper.get_attribute_value(x) for x in node.attribute}
                xs, ys, w = truth.get(node.input[0]) or [], truth[node.output[0]], weights[node.input[1]]
                if not xs:  # the graph input
                    xs = [batch] + [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim[1:]]
                outs = int(np.prod(ys))
                macs = outs * (xs[1] // at.get("group", 1)) * int(np.prod(w[2:]))
                extra = sum(1 for k in (2, 3) if len(node.input) > k and node.input[k]) + (1 if at.get("activation")
                                                                                            else 0)
                flops = 2 * macs + extra * outs
                convs += 1
                if (n["macs"], n["flops"]) != (macs, flops):
                    failures.append(f"{name} batch {batch} {n['name']}: MACs/FLOPs {n['macs']}/{n['flops']}, "
                                    f"from ONNX Runtime's shapes {macs}/{flops}")
        print(f"ok   {name}: {len(nchwc)} nchwc nodes of {len(m.graph.node)}, "
              f"{sorted({n.op_type for n in nchwc})}")
    # a ReorderInput that no nchwc Conv reads: no block size to take
    g = onnx.helper.make_graph(
        [onnx.helper.make_node("ReorderInput", ["x"], ["y"], domain="com.microsoft.nchwc"),
         onnx.helper.make_node("ReorderOutput", ["y"], ["z"], domain="com.microsoft.nchwc", channels=20)],
        "lone", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 20, 8, 8])],
        [onnx.helper.make_tensor_value_info("z", onnx.TensorProto.FLOAT, None)])
    lone = os.path.join(a.workdir, "ortopt_lone_reorder.onnx")
    onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17),
                                                       onnx.helper.make_opsetid("com.microsoft.nchwc", 1)]), lone)
    doc = analyze(a.onnxcost, lone, 1)
    r = doc["nodes"][0]
    if r["status"] == "ok" or "block size" not in (r.get("reason") or ""):
        failures.append(f"lone ReorderInput: status {r['status']}, reason {r.get('reason')!r}")
    if nchwc_total < MIN_NCHWC:
        failures.append(f"only {nchwc_total} nchwc nodes (at least {MIN_NCHWC}): this CPU's ONNX Runtime wrote too "
                        "few for the test to check anything")
    for f in failures:
        print("FAIL " + f)
    print(f"{'FAIL' if failures else 'ok'}: {shapes} run-time shapes agree, {convs} nchwc Conv costs checked, "
          f"{nchwc_total} nchwc nodes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
