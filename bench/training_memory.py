#!/usr/bin/env python3
"""onnxcost's "activations saved for backward" against what PyTorch keeps
(docs/MEMORY.md, "Training memory").

For each model (random weights, nothing downloaded): the training-mode
forward of the PyTorch model under torch.autograd.graph.saved_tensors_hooks,
counting each storage the hooks see once, parameters and buffers left out:
the bytes autograd keeps for backward. Then the same model exported twice
and analyzed by `onnxcost --optimizer sgd --fused-pointwise` at the same
batch: in eval mode (BatchNorm folded away by the exporter, --folded-bn for
models with BatchNorm; Dropout gone), and, for the torchvision models, in
training mode (TrainingMode.TRAINING: BatchNorm and Dropout as training
runs them). Writes docs/results/training-memory.json.

usage: training_memory.py --onnxcost BIN [--out FILE] [--only NAME,...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))

import torch  # noqa: E402
import torchvision.models as tvm  # noqa: E402

# name, kind, batch (sequence for the transformers)
MODELS = [
    ("resnet18", "tv", 32), ("resnet50", "tv", 8), ("mobilenet_v2", "tv", 16), ("efficientnet_b0", "tv", 8),
    ("densenet121", "tv", 8), ("vgg16", "tv", 8), ("squeezenet1_0", "tv", 16), ("googlenet", "tv", 8),
    ("shufflenet_v2_x1_0", "tv", 16), ("convnext_tiny", "tv", 4), ("vit_b_16", "tv", 4),
    ("gpt2", "hf", (2, 128)), ("distilbert", "hf", (2, 128)),
]


def build(name, kind):
    torch.manual_seed(0)
    if kind == "tv":
        kw = {"weights": None}
        if name == "googlenet":
            kw.update(aux_logits=False, init_weights=True)
        return getattr(tvm, name)(**kw)
    import transformers as oracle  # tests/oracle/transformers.py
    return oracle.GPT2() if name == "gpt2" else oracle.DistilBert()


def inputs(kind, shape):
    if kind == "tv":
        return (torch.rand(shape, 3, 224, 224),)
    b, s = shape
    ids = torch.randint(0, 1000, (b, s))
    return (ids,)


def saved_bytes(model, args):
    """Bytes of the distinct storages autograd saves in a training forward."""
    params = {p.data_ptr() for p in model.parameters()} | {b.data_ptr() for b in model.buffers()}
    seen = {}

    def pack(t):
        try:
            st = t.untyped_storage()
        except AttributeError:  # torch < 2.0
            st = t.storage()
        ptr = st.data_ptr()
        if ptr not in params and t.data_ptr() not in params:
            seen[ptr] = st.nbytes() if hasattr(st, "nbytes") else st.size() * t.element_size()
        return t

    model.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(*args)
    del out
    return sum(seen.values())


def analyze(onnxcost, model, name, kind, shape, args, training, has_bn):
    """onnxcost's saved-activation bytes for the model's export (eval or training mode)."""
    import transformers as oracle  # tests/oracle/transformers.py
    model.train(training)
    if training:  # the exporter has no Bernoulli with out=: stochastic depth goes (it keeps B floats)
        import copy
        model = copy.deepcopy(model)
        for parent in list(model.modules()):
            for child_name, child in list(parent.named_children()):
                if type(child).__name__ == "StochasticDepth":
                    setattr(parent, child_name, torch.nn.Identity())
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".onnx")
        if kind == "tv":  # with gradients on: under no_grad, ViT's attention takes a fused path the exporter refuses
            kw = dict(input_names=["input"], output_names=["output"], opset_version=17,
                      dynamic_axes={"input": {0: "batch"}})
            if training:
                kw.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
            try:
                try:
                    torch.onnx.export(model, args, path, dynamo=False, **kw)
                except TypeError:
                    torch.onnx.export(model, args, path, **kw)
            except Exception as e:  # noqa: BLE001 -- reported, the row goes on without it
                print(name, "export failed:", str(e).splitlines()[0][:200])
                return None
            dims = ["--batch", str(shape)]
        else:
            oracle.export(name, path, opset=17)
            dims = ["--dim", f"batch={shape[0]}", "--dim", f"sequence={shape[1]}"]
        cmd = [onnxcost, path, *dims, "--optimizer", "sgd", "--fused-pointwise", "--format", "json", "-q"]
        if has_bn:
            cmd.append("--folded-bn")
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(name, "onnxcost failed:", p.stderr[-300:])
            return None
        return json.loads(p.stdout)["training"]["saved_activation_bytes"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "training-memory.json"))
    ap.add_argument("--only")
    a = ap.parse_args()
    rows = []
    for name, kind, shape in MODELS:
        if a.only and name not in a.only.split(","):
            continue
        model = build(name, kind)
        args = inputs(kind, shape)
        if kind == "hf" and name == "distilbert":
            args = (args[0], torch.ones_like(args[0]))
        measured = saved_bytes(model, args)
        has_bn = any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for m in model.modules())
        est_eval = analyze(a.onnxcost, model, name, kind, shape, args, False, has_bn)
        est_train = analyze(a.onnxcost, model, name, kind, shape, args, True, False) if kind == "tv" else None
        if est_eval is None:
            continue
        rows.append({"model": name, "shape": shape, "batchnorm": has_bn, "pytorch_saved_bytes": measured,
                     "eval_export_bytes": est_eval, "eval_ratio": est_eval / measured,
                     "training_export_bytes": est_train,
                     "training_ratio": est_train / measured if est_train else None})
        tr = f"{est_train / 2**20:9.1f} MiB {est_train / measured:5.2f}x" if est_train else "-"
        print(f"{name:20s} {str(shape):10s} pytorch {measured / 2**20:9.1f} MiB  eval export {est_eval / 2**20:9.1f} MiB "
              f"{est_eval / measured:5.2f}x  training export {tr}", flush=True)
    json.dump({"torch": torch.__version__, "models": rows}, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
