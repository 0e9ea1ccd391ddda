#!/usr/bin/env python3
"""Shape coverage of three tools side by side: for each model, how many node
outputs (tensors of the main graph) each tool gives a fully concrete shape:

  onnxcost                    `onnxcost --format json` (shapes copied from the
                              file's declarations for ops without a rule are
                              not counted);
  onnx data_prop              onnx.shape_inference.infer_shapes(strict_mode
                              False, data_prop True);
  ORT symbolic_shape_infer    onnxruntime.tools.symbolic_shape_infer with
                              auto_merge (its default CLI behaviour).

Every tool sees the same file with the same concrete input shapes and no
declared output or intermediate shapes (each is counted on what it infers,
not on what the file says): symbolic
input dims are bound first (batch 1, sequence 5, past 0, total 5, an
unnamed or negative dim 5, anything else 3: close to the prefill binding of
tests/oracle/corpus_ort.py) by rewriting the graph inputs, so no tool is
asked to bind a dim.

Models: fixtures/corpus (63 real files) and exports made here with random
weights (torchvision resnet50, swin_t, swin_v2_t, maxvit_t; GPT-2 and
DistilBERT of tests/oracle/transformers.py; Hugging Face Swin when
transformers is installed).

usage: .venv/bin/python bench/shape_coverage.py build/onnxcost [--only-corpus] > table.md
Prints a Markdown table (docs/COVERAGE.md) and the per-tool totals.
"""
import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
oracle = os.path.join(root, "tests", "oracle")
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]

import onnx  # noqa: E402
import onnx.shape_inference  # noqa: E402


def load_oracle(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(oracle, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bind_inputs(model):
    """The model with every symbolic input dim replaced by a number, and the
    shapes the file declares for graph outputs and intermediate values
    dropped: each tool is counted on what it infers, not on what it reads
    (onnxcost's count already leaves declared shapes out)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.value_info[:]
    for vi in m.graph.output:
        if vi.type.HasField("tensor_type"):
            vi.type.tensor_type.ClearField("shape")
    for vi in m.graph.input:
        if not vi.type.HasField("tensor_type"):
            continue
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_value") and d.dim_value >= 0:
                continue
            low = d.dim_param.lower()  # "" also for an unnamed or a negative (unknown) dim
            v = 5 if "total" in low or not low else 0 if "past" in low else 5 if ("seq" in low or "len" in low) else \
                1 if ("batch" in low or low in ("n", "b")) else 3
            d.ClearField("dim_param")
            d.dim_value = v
    return m


def node_outputs(model):
    return [o for n in model.graph.node for o in n.output if o]


def concrete_vi(vi):
    if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") for d in vi.type.tensor_type.shape.dim)


def count_onnx(model, names):
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    vis = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    return sum(1 for n in names if n in vis and concrete_vi(vis[n]))


def count_ort(model, names):
    from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
    inferred = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
    if inferred is None:
        raise RuntimeError("gave no model")
    vis = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
    return sum(1 for n in names if n in vis and concrete_vi(vis[n]))


def count_onnxcost(binary, path, names):
    run = subprocess.run([binary, path, "--format", "json", "-q"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}")
    doc = json.loads(run.stdout)
    ok = {o["name"] for n in doc["nodes"] if n["status"] == "ok" for o in n["outputs"]
          if o.get("shape") is not None and all(d is not None for d in o["shape"])}
    return sum(1 for n in names if n in ok)


def exports(tmp):
    """(label, path) of the models exported here."""
    try:
        import torch
        import torchvision.models as tvm
    except ImportError:
        return
    tr = load_oracle("oc_export", "transformers.py")
    torch.onnx.register_custom_op_symbolic(  # swin_v2's qkv_bias[k:2k].zero_() on torch 1.13
        "aten::zero", lambda g, x: g.op("Mul", x, g.op("Constant", value_t=torch.tensor(0.0))), 14)
    for name, size in (("resnet50", 224), ("swin_t", 224), ("swin_v2_t", 256), ("maxvit_t", 224)):
        if not hasattr(tvm, name):
            continue
        torch.manual_seed(0)
        path = os.path.join(tmp, f"{name}.onnx")
        tr.onnx_export(getattr(tvm, name)(weights=None).eval(), (torch.randn(1, 3, size, size),), path,
                       opset_version=14, input_names=["x"], dynamic_axes={"x": {0: "batch"}})
        yield f"torchvision {name} (opset 14)", path
    for name in ("gpt2", "distilbert"):
        path = os.path.join(tmp, f"{name}.onnx")
        tr.export(name, path, layers=2)
        yield f"{'GPT-2' if name == 'gpt2' else 'DistilBERT'} 2 layers (tests/oracle/transformers.py)", path
    try:
        from transformers import SwinConfig, SwinModel
    except ImportError:
        return
    torch.manual_seed(0)
    path = os.path.join(tmp, "hf_swin.onnx")
    tr.onnx_export(SwinModel(SwinConfig(image_size=224)).eval(), (torch.randn(1, 3, 224, 224),), path,
                   opset_version=14, input_names=["pixel_values"], dynamic_axes={"pixel_values": {0: "batch"}})
    yield "Hugging Face SwinModel, swin-tiny config (opset 14)", path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnxcost")
    ap.add_argument("--only-corpus", action="store_true")
    a = ap.parse_args()
    rows, totals = [], {"tensors": 0, "onnxcost": 0, "onnx": 0, "ort": 0}
    with tempfile.TemporaryDirectory() as tmp:
        models = [(os.path.relpath(p, os.path.join(root, "fixtures", "corpus")), p)
                  for p in sorted(glob.glob(os.path.join(root, "fixtures", "corpus", "**", "*.onnx"), recursive=True))]
        if not a.only_corpus:
            models = list(exports(tmp)) + models
        for label, path in models:
            try:
                model = bind_inputs(onnx.load(path))
            except Exception as e:  # noqa: BLE001
                rows.append((label, 0, f"onnx cannot load it ({str(e)[:60]})", "", ""))
                continue
            bound = os.path.join(tmp, "bound.onnx")
            onnx.save(model, bound)
            names = node_outputs(model)
            cells = []
            for tool, fn in (("onnxcost", lambda: count_onnxcost(a.onnxcost, bound, names)),
                             ("onnx", lambda: count_onnx(model, names)), ("ort", lambda: count_ort(model, names))):
                t0 = time.time()
                try:
                    k = fn()
                    totals[tool] += k
                    cells.append(f"{k}")
                except Exception as e:  # noqa: BLE001
                    cells.append("error: " + str(e).replace("|", "/").splitlines()[0][:50] if str(e) else "error")
                sys.stderr.write(f"{label[:60]} {tool} {time.time() - t0:.1f}s\n")
            totals["tensors"] += len(names)
            rows.append((label, len(names), *cells))
    print("| model | tensors | onnxcost | onnx data_prop | ORT symbolic_shape_infer |")
    print("|---|---:|---:|---:|---:|")
    for label, n, *cells in rows:
        print(f"| {label} | {n} | " + " | ".join(cells) + " |")
    t = totals["tensors"]
    print(f"| **all** | **{t}** | **{totals['onnxcost']}** ({100 * totals['onnxcost'] / max(t, 1):.1f} %) | "
          f"**{totals['onnx']}** ({100 * totals['onnx'] / max(t, 1):.1f} %) | "
          f"**{totals['ort']}** ({100 * totals['ort'] / max(t, 1):.1f} %) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
