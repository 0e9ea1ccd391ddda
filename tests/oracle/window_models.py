#!/usr/bin/env python3
"""Models whose shapes go through value arithmetic: window attention pads
each feature map to a multiple of the window, with the pads computed from
the shape (Shape -> Gather -> Mod -> Concat -> Reshape -> Slice -> Cast ->
Pad). Every node must be shaped and costed, and the result must agree with
two independent oracles at each binding:

  MACs:   a PyTorch count of the same model at the same input size: a
          TorchDispatchMode that sees every aten matmul/linear/convolution
          (so attention's q @ k^T and attn @ v too), MACs = m * n * k of each
          product and out.numel * C_in/groups * prod(kernel) of each
          convolution; must equal onnxcost's total MACs exactly;
  shapes: ONNX Runtime (graph optimizations off, every intermediate tensor
          exposed) must give every tensor the shape onnxcost gives it.

Models (random weights, nothing downloaded), exported with the TorchScript
exporter at opset 14 with dynamic batch, height and width where the model
allows it:
  torchvision swin_t at 224 (pads 0) and 240 (pads 3, 5, 6, 6), batch 1, 2;
  torchvision swin_v2_t at 256 and 288;
  Hugging Face transformers SwinModel (swin-tiny config) at 224, batch 1, 3
    (its export fixes height and width: the trace computes its pads in Python);
  torchvision maxvit_t at 224.

Every case is checked at each of its bindings, 8 runs in all (fewer with
--only): a run short of that fails.
Exit 0 when all agree, 1 otherwise, 77 (before any case runs) when
torch/onnx/onnxruntime/transformers or a torchvision model of CASES is missing.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
# `transformers` must be Hugging Face's, not tests/oracle/transformers.py: this
# folder (Python puts it first) goes after site-packages
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here] + [here]
try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401
    import torch
    import torchvision.models as tvm
    from torch.utils._python_dispatch import TorchDispatchMode
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
import importlib.util  # noqa: E402

import ort_shapes  # noqa: E402

_spec = importlib.util.spec_from_file_location("oc_export", os.path.join(here, "transformers.py"))
_oc_export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_oc_export)
onnx_export = _oc_export.onnx_export

aten = torch.ops.aten


def prod(xs):
    p = 1
    for x in xs:
        p *= int(x)
    return p


class MacCounter(TorchDispatchMode):
    """Multiply-accumulates of every matrix product and convolution."""

    def __init__(self):
        super().__init__()
        self.macs = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        p = func.overloadpacket
        if p in (aten.mm, aten.bmm):
            a, b = args[0], args[1]
            self.macs += prod(a.shape) * b.shape[-1]
        elif p in (aten.addmm, aten.baddbmm):
            a, b = args[1], args[2]
            self.macs += prod(a.shape) * b.shape[-1]
        elif p is aten.convolution:
            w, transposed, groups = args[1], args[6], args[8]
            if transposed:  # every input element times its kernel slice
                self.macs += prod(args[0].shape) * prod(w.shape[1:])
            else:
                self.macs += prod(out.shape) * (w.shape[1]) * prod(w.shape[2:])
        return out


def torch_macs(model, x):
    with torch.no_grad(), MacCounter() as mc:
        model(x)
    return mc.macs


def build(spec):
    torch.manual_seed(0)
    kind, name = spec
    if kind == "tv":
        return getattr(tvm, name)(weights=None).eval()
    from transformers import SwinConfig, SwinModel
    return SwinModel(SwinConfig(image_size=224)).eval()


def zero_symbolic():
    # torch 1.13 cannot export aten::zero (swin_v2's qkv_bias[k:2k].zero_()): x * 0
    from torch.onnx import register_custom_op_symbolic
    register_custom_op_symbolic(
        "aten::zero", lambda g, x: g.op("Mul", x, g.op("Constant", value_t=torch.tensor(0.0))), 14)


CASES = [
    # (label, spec, export size, dynamic hw, [(batch, h, w), ...])
    ("swin_t", ("tv", "swin_t"), 224, True, [(1, 224, 224), (2, 240, 240)]),
    ("swin_v2_t", ("tv", "swin_v2_t"), 256, True, [(1, 256, 256), (2, 288, 288)]),
    ("hf_swin_tiny", ("hf", "swin"), 224, False, [(1, 224, 224), (3, 224, 224)]),
    ("maxvit_t", ("tv", "maxvit_t"), 224, False, [(1, 224, 224), (2, 224, 224)]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--only", help="one case label")
    a = ap.parse_args()
    cases = [c for c in CASES if not a.only or c[0] == a.only]
    if not cases:
        print(f"FAIL: no case named {a.only!r}")
        return 1
    # what the cases need, before any runs: a missing one skips the whole test
    missing = [f"{label}: torchvision {__import__('torchvision').__version__} has no {spec[1]}"
               for label, spec, *_ in cases if spec[0] == "tv" and not hasattr(tvm, spec[1])]
    if any(spec[0] == "hf" for _, spec, *_ in cases):
        try:
            import transformers  # noqa: F401
        except ImportError as e:
            missing.append(f"transformers: {e}")
    if missing:
        print("SKIP: " + "; ".join(missing))
        return 77
    want_runs = sum(len(c[4]) for c in cases)
    zero_symbolic()
    rng = np.random.default_rng(0)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, spec, size, dyn_hw, binds in cases:
            model = build(spec)
            path = os.path.join(tmp, f"{label}.onnx")
            in_name = "pixel_values" if spec[0] == "hf" else "x"
            axes = {0: "batch", 2: "height", 3: "width"} if dyn_hw else {0: "batch"}
            onnx_export(model, (torch.randn(1, 3, size, size),), path, opset_version=14, input_names=[in_name],
                        dynamic_axes={in_name: axes})
            om = onnx.load(path)
            for b, h, w in binds:
                dims = {"batch": b}
                if dyn_hw:
                    dims.update(height=h, width=w)
                args = [a.onnxcost, path, "--format", "json", "-q"]
                for k, v in dims.items():
                    args += ["--dim", f"{k}={v}"]
                run = subprocess.run(args, capture_output=True, text=True)
                tag = f"{label} batch {b} {h}x{w}"
                if run.returncode != 0:
                    print(f"FAIL {tag}: onnxcost: {run.stderr.strip()}")
                    failed += 1
                    continue
                doc = json.loads(run.stdout)
                t, cov = doc["totals"], doc["coverage"]
                want = torch_macs(model, torch.randn(b, 3, h, w))
                problems = []
                if cov["shaped_nodes"] != cov["nodes"] or cov["nodes_without_cost"]:
                    problems.append(f"{cov['shaped_nodes']}/{cov['nodes']} nodes shaped, "
                                    f"{cov['nodes_without_cost']} without a cost")
                if t["macs"] != want:
                    problems.append(f"MACs {t['macs']:,}, PyTorch {want:,}")
                ours = ort_shapes.onnxcost_shapes(a.onnxcost, path, dims)
                truth = ort_shapes.ort_shapes(om, dims, rng)
                bad = [f"{n}: onnxcost {ours.get(n)}, runtime {s}" for n, s in truth.items() if ours.get(n) != s]
                if bad:
                    problems.append(f"{len(bad)} of {len(truth)} tensors differ from ONNX Runtime: " + "; ".join(bad[:5]))
                if problems:
                    failed += 1
                    print(f"FAIL {tag}: " + " | ".join(problems))
                else:
                    passed += 1
                    print(f"ok   {tag}: {cov['nodes']} nodes all shaped and costed, MACs {t['macs']:,} = PyTorch, "
                          f"{len(truth)} tensors = ONNX Runtime")
                sys.stdout.flush()
    print(f"{passed} passed, {failed} failed, of the {want_runs} runs every case at each binding makes")
    if passed + failed < want_runs:
        print(f"FAIL: {passed + failed} runs checked, want {want_runs}")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
