#!/usr/bin/env python3
"""Reference check of onnxcost against independent oracles on torchvision exports.

For each model (random init, no downloads), exported here with a dynamic batch
axis and analyzed with `onnxcost --batch 1 --format json`:
  - params:  unique float initializer elements, read from the file with the
             `onnx` package, must equal totals.params;
  - MACs:    PyTorch forward hooks on Conv2d (out.numel * Cin/groups * kh * kw)
             and Linear (out.numel * in_features) must equal the sum of
             onnxcost's Conv node MACs and Gemm/MatMul node MACs;
  - shapes:  every node output has concrete dims, and every dim that ONNX's own
             shape inference makes concrete agrees (the symbolic batch = 1).
Large exports are written to a temporary directory and deleted.

Exit 0 when all agree, 1 otherwise, 77 when torch/torchvision/onnx are missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

try:
    import onnx
    import onnx.shape_inference
    import torch
    import torchvision.models as tvm
except ImportError as e:  # pragma: no cover
    print(f"SKIP: {e} (install Debian python3-torch python3-torchvision python3-onnx)")
    sys.exit(77)

FLOAT_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE,
               onnx.TensorProto.BFLOAT16}

DEFAULT_MODELS = ["alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2", "googlenet",
                  "densenet121", "squeezenet1_0", "efficientnet_b0"]


def build(name):
    kwargs = {"weights": None}
    if name == "googlenet":
        kwargs.update(aux_logits=False, init_weights=True)
    torch.manual_seed(0)
    return getattr(tvm, name)(**kwargs).eval()


def hook_macs(model, x):
    conv, linear = [0], [0]

    def on_conv(m, inp, out):
        k = 1
        for s in m.kernel_size:
            k *= s
        conv[0] += out.numel() * (m.in_channels // m.groups) * k

    def on_linear(m, inp, out):
        linear[0] += out.numel() * m.in_features

    hs = []
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            hs.append(m.register_forward_hook(on_conv))
        elif isinstance(m, torch.nn.Linear):
            hs.append(m.register_forward_hook(on_linear))
    with torch.no_grad():
        model(x)
    for h in hs:
        h.remove()
    return conv[0], linear[0]


def onnx_params(path):
    m = onnx.load(path, load_external_data=False)
    total = 0
    for t in m.graph.initializer:
        if t.data_type in FLOAT_TYPES:
            n = 1
            for d in t.dims:
                n *= d
            total += n
    return m, total


def onnx_shapes(model):
    """name -> list of dims (int, or None where ONNX leaves it symbolic/unknown)."""
    for t in model.graph.initializer:  # weights are not needed for shape inference
        t.ClearField("raw_data")
    inferred = onnx.shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            continue
        dims = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            elif d.dim_param == "batch":
                dims.append(1)
            else:
                dims.append(None)
        shapes[vi.name] = dims
    return shapes


def check(name, onnxcost, workdir, opset):
    errors = []
    model = build(name)
    x = torch.rand(1, 3, 224, 224)
    ref_conv, ref_linear = hook_macs(model, x)
    path = os.path.join(workdir, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    proto, ref_params = onnx_params(path)
    size = os.path.getsize(path)
    ref_shapes = onnx_shapes(proto)
    del proto

    run = subprocess.run([onnxcost, path, "--batch", "1", "--format", "json"], capture_output=True, text=True)
    if run.returncode != 0:
        return [f"onnxcost exited {run.returncode}: {run.stderr.strip()}"], {}
    doc = json.loads(run.stdout)
    conv = sum(n["macs"] or 0 for n in doc["nodes"] if n["op_type"] == "Conv")
    linear = sum(n["macs"] or 0 for n in doc["nodes"] if n["op_type"] in ("Gemm", "MatMul"))
    params = doc["totals"]["params"]
    if params != ref_params:
        errors.append(f"params {params} != onnx initializers {ref_params}")
    if conv != ref_conv:
        errors.append(f"Conv MACs {conv} != hooks {ref_conv}")
    if linear != ref_linear:
        errors.append(f"Gemm/MatMul MACs {linear} != hooks {ref_linear}")
    compared = 0
    for n in doc["nodes"]:
        for o in n["outputs"]:
            if o["shape"] is None or any(d is None for d in o["shape"]):
                errors.append(f"node {n['name']} ({n['op_type']}) output {o['name']} has no concrete shape")
                continue
            ref = ref_shapes.get(o["name"])
            if ref is None:
                continue
            compared += 1
            if len(ref) != len(o["shape"]) or any(r is not None and r != d for r, d in zip(ref, o["shape"])):
                errors.append(f"node {n['name']} output {o['name']}: {o['shape']} != onnx {ref}")
    os.unlink(path)
    info = {"file_mb": size / 1e6, "params": params, "macs": doc["totals"]["macs"], "conv": conv,
            "linear": linear, "nodes": len(doc["nodes"]), "shapes_compared": compared}
    return errors, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--opset", type=int, default=13)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    passed = failed = 0
    with tempfile.TemporaryDirectory(dir=args.workdir) as wd:
        print(f"{'model':16} {'file MB':>8} {'nodes':>6} {'params':>12} {'total MACs':>15} {'shapes vs onnx':>15}  result")
        for name in args.models.split(","):
            errors, info = check(name, args.onnxcost, wd, args.opset)
            if errors:
                failed += 1
                print(f"{name:16} FAIL")
                for e in errors[:20]:
                    print(f"    {e}")
            else:
                passed += 1
                print(f"{name:16} {info['file_mb']:8.1f} {info['nodes']:6d} {info['params']:12,d} "
                      f"{info['macs']:15,d} {info['shapes_compared']:15d}  ok")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
