#!/usr/bin/env python3
"""onnxcost's activations saved for backward against what PyTorch's autograd
keeps, on small models written here (the oracle: every storage
torch.autograd.graph.saved_tensors_hooks sees in a training-mode forward,
each once, parameters and buffers left out):

  * an MLP (Linear, ReLU, Linear, Tanh, Linear): equal;
  * a CNN with BatchNorm, ReLU6 (not in place), ReLU (in place), MaxPool
    and a residual Add, exported in eval mode (BatchNorm folded) and analyzed
    with --folded-bn: never below, at most 2 % above (BatchNorm's statistics
    are per channel);
  * the same CNN without --folded-bn is below: the flag is what adds the
    BatchNorms back;
  * the same CNN exported in training mode (BatchNorm as training runs it,
    weights left unfolded): equal, without the flag;
  * an MLP with Dropout (p 0.5, and p 0 which keeps nothing) exported in
    training mode: equal; in eval mode the report counts no Dropout;
  * a block with LayerNorm, GELU and SiLU exported at opset 13 (all three
    written out as pointwise ops): equal with --fused-pointwise, above
    without it.

usage: training_saved_check.py ONNXCOST WORKDIR   (exit 77 without torch/onnx)
"""
import json
import os
import shutil
import subprocess
import sys

try:
    import torch
    import torch.nn as nn
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import transformers as oracle  # noqa: E402  (tests/oracle/transformers.py: onnx_export)

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def saved_bytes(model, x):
    params = {p.data_ptr() for p in model.parameters()} | {b.data_ptr() for b in model.buffers()}
    seen = {}

    def pack(t):
        st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
        if st.data_ptr() not in params and t.data_ptr() not in params:
            seen[st.data_ptr()] = st.nbytes() if hasattr(st, "nbytes") else st.size() * t.element_size()
        return t

    model.train()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(seen.values())


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU6())
        self.b = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16))
        self.relu = nn.ReLU(inplace=True)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        y = self.a(x)
        y = self.relu(self.b(y) + y)
        return self.fc(torch.flatten(self.pool(y), 1))


class Pointwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(32)
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 48)
        self.fc3 = nn.Linear(48, 8)

    def forward(self, x):
        y = nn.functional.gelu(self.fc1(self.ln(x)))
        return self.fc3(nn.functional.silu(self.fc2(y)))


def onnxcost_training(onnxcost, model, x, path, extra, training=False, opset=17):
    model.eval()
    kw = dict(input_names=["x"], output_names=["y"], opset_version=opset)
    if training:  # BatchNorm and Dropout as training runs them, nothing folded
        model.train()
        kw.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    oracle.onnx_export(model, (x,), path, **kw)
    p = subprocess.run([onnxcost, path, "--optimizer", "sgd", "--format", "json", "-q", *extra], capture_output=True,
                       text=True)
    return json.loads(p.stdout)["training"] if p.returncode == 0 else None


def onnxcost_saved(onnxcost, model, x, path, extra, training=False, opset=17):
    tr = onnxcost_training(onnxcost, model, x, path, extra, training, opset)
    return tr["saved_activation_bytes"] if tr else None


def main():
    onnxcost, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 48), nn.Tanh(), nn.Linear(48, 8))
    x = torch.randn(6, 32)
    want = saved_bytes(mlp, x)
    got = onnxcost_saved(onnxcost, mlp, x, os.path.join(work, "mlp.onnx"), [])
    check(got == want, f"MLP: onnxcost {got} B, PyTorch keeps {want} B")
    cnn = Block()
    x = torch.randn(4, 3, 16, 16)
    want = saved_bytes(cnn, x)
    got = onnxcost_saved(onnxcost, cnn, x, os.path.join(work, "cnn.onnx"), ["--folded-bn"])
    check(got is not None and want <= got <= 1.02 * want,
          f"CNN with BatchNorm, --folded-bn: onnxcost {got} B, PyTorch keeps {want} B "
          f"({got / want if got else 0:.3f}x): never below, at most 2 % above")
    got = onnxcost_saved(onnxcost, cnn, x, os.path.join(work, "cnn2.onnx"), [])
    check(got is not None and got < want, f"the same without --folded-bn: {got} B, below PyTorch's {want} B")
    got = onnxcost_saved(onnxcost, cnn, x, os.path.join(work, "cnn3.onnx"), [], training=True)
    check(got == want, f"the same CNN exported in training mode: onnxcost {got} B, PyTorch keeps {want} B")

    drop = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 48), nn.Dropout(0.0),
                         nn.Linear(48, 8))
    x = torch.randn(6, 32)
    want = saved_bytes(drop, x)
    tr = onnxcost_training(onnxcost, drop, x, os.path.join(work, "drop.onnx"), [], training=True)
    check(tr is not None and tr["saved_activation_bytes"] == want and tr["training_dropouts"] == 1,
          f"MLP with Dropout exported in training mode: onnxcost {tr and tr['saved_activation_bytes']} B "
          f"({tr and tr['training_dropouts']} dropout in training mode, want 1), PyTorch keeps {want} B")
    tr = onnxcost_training(onnxcost, drop, x, os.path.join(work, "drop_eval.onnx"), [])
    check(tr is not None and tr["training_dropouts"] == 0 and tr["saved_activation_bytes"] < want,
          f"the same in eval mode: no Dropout in training mode ({tr and tr['training_dropouts']}), "
          f"{tr and tr['saved_activation_bytes']} B below PyTorch's {want} B")

    pw = Pointwise()
    x = torch.randn(6, 32)
    want = saved_bytes(pw, x)
    got = onnxcost_saved(onnxcost, pw, x, os.path.join(work, "pw.onnx"), ["--fused-pointwise"], opset=13)
    check(got == want, f"LayerNorm, GELU and SiLU written out, --fused-pointwise: onnxcost {got} B, "
                       f"PyTorch keeps {want} B")
    got = onnxcost_saved(onnxcost, pw, x, os.path.join(work, "pw2.onnx"), [], opset=13)
    check(got is not None and got > want, f"the same without --fused-pointwise: {got} B, above PyTorch's {want} B")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
