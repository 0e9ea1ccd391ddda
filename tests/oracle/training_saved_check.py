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
    without it;
  * InstanceNorm2d with affine weights (one InstanceNormalization node):
    equal (PyTorch keeps the weight repeated per sample with the mean and
    inverse deviation); without them onnxcost, which does not read the
    scale's values, is above by exactly that repeated weight, N x C floats;
  * GroupNorm exported at opset 17 (Reshape, InstanceNormalization,
    Reshape, Mul by the weight, Add of the bias): equal with
    --fused-pointwise, which takes the affine into the norm as PyTorch's
    group norm has it; above without it, the signs naming one
    normalization chain; and one GroupNormalization node (opset 21, written
    here): equal.

Without the flags the report must not leave the lower figure alone: the
eval-exported CNN and torchvision's MobileNetV2 and DenseNet-121 (eval
exports, batch 2; DenseNet keeps the BatchNorms that precede a Conv) name
their Convs with a bias (as many as the PyTorch model has Conv2d
modules followed by a BatchNorm) and give, beside the figure as exported,
the figure with --folded-bn, within PyTorch's saved bytes (never below but
for the classifier's dropout mask the eval export dropped, at most 2 %
above), in JSON (training.with_signs), text, Markdown and HTML, and in
--fit's second verdict; the pointwise block names its three chains (one
GELU, one LayerNorm, one SiLU) and gives PyTorch's figure; the MLP, the
training-mode exports (a Conv with a bias whose BatchNorm stays in the
graph among them) show no sign.

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


def export(model, x, path, training=False, opset=17):
    model.eval()
    kw = dict(input_names=["x"], output_names=["y"], opset_version=opset)
    if training:  # BatchNorm and Dropout as training runs them, nothing folded
        model.train()
        kw.update(training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    oracle.onnx_export(model, (x,), path, **kw)


def run_training(onnxcost, path, extra, fmt="json"):
    p = subprocess.run([onnxcost, path, "--optimizer", "sgd", "--format", fmt, "-q", *extra], capture_output=True,
                       text=True)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)["training"] if fmt == "json" else p.stdout


def onnxcost_training(onnxcost, model, x, path, extra, training=False, opset=17):
    export(model, x, path, training, opset)
    return run_training(onnxcost, path, extra)


def folded_convs(model):
    """Conv2d calls whose one reader is a BatchNorm2d, in the model's traced
    dataflow (torch.fx): the Convs an eval export folds a BatchNorm into,
    counted in PyTorch."""
    import torch.fx
    gm = torch.fx.symbolic_trace(model)
    mods = dict(gm.named_modules())

    def is_call(node, kind):
        return node.op == "call_module" and isinstance(mods[node.target], kind)

    return sum(1 for node in gm.graph.nodes
               if is_call(node, nn.Conv2d) and len(node.users) == 1 and is_call(next(iter(node.users)), nn.BatchNorm2d))


def mib(b):
    return f"{b / 2**20:.2f}"


def check_signs(onnxcost, path, want, rule, flag, low, what):
    """The analysis of path without flags: its one sign is rule, and its
    figure with it (JSON with_signs) lies in [low * want, 1.02 * want] of
    PyTorch's saved bytes; text, Markdown and HTML give that figure on a
    line that names flag; returns the JSON training object."""
    tr = run_training(onnxcost, path, [])
    if not tr:
        check(False, f"{what}: the analysis failed")
        return None
    alts = tr.get("with_signs") or []
    got = alts[0]["saved_activation_bytes"] if len(alts) == 1 else None
    check(len(alts) == 1 and alts[0]["saved_rules"] == [rule] and low * want <= got <= 1.02 * want,
          f"{what}: as exported {tr['saved_activation_bytes']} B; with the sign's rule {got} B "
          f"(rules {alts and alts[0]['saved_rules']}), PyTorch keeps {want} B")
    if got is None:
        return tr
    for fmt in ("text", "md", "html"):
        out = run_training(onnxcost, path, [], fmt) or ""
        lines = [ln for ln in out.splitlines() if flag in ln and mib(got) in ln]
        check(bool(lines), f"{what}: --format {fmt} gives {mib(got)} MiB on a line naming {flag}")
    return tr



def onnxcost_saved(onnxcost, model, x, path, extra, training=False, opset=17):
    tr = onnxcost_training(onnxcost, model, x, path, extra, training, opset)
    return tr["saved_activation_bytes"] if tr else None


def group_norm_node(onnxcost, gn, x, path):
    """gn (Conv2d, GroupNorm, ReLU) as three nodes, its GroupNorm one
    GroupNormalization (opset 21; PyTorch 1.13 cannot export it); the
    saved bytes onnxcost gives"""
    import onnx
    from onnx import TensorProto as TP, helper, numpy_helper
    conv, norm = gn[0], gn[1]
    init = [numpy_helper.from_array(t.detach().numpy(), name) for t, name in
            ((conv.weight, "w"), (norm.weight, "scale"), (norm.bias, "bias"))]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("GroupNormalization", ["c", "scale", "bias"], ["g"], num_groups=norm.num_groups,
                              epsilon=norm.eps),
             helper.make_node("Relu", ["g"], ["y"])]
    out = list(gn(x).shape)
    graph = helper.make_graph(nodes, "group_norm", [helper.make_tensor_value_info("x", TP.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TP.FLOAT, out)], init)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), path)
    tr = run_training(onnxcost, path, [])
    return tr and tr["saved_activation_bytes"]


def main():
    onnxcost, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 48), nn.Tanh(), nn.Linear(48, 8))
    x = torch.randn(6, 32)
    want = saved_bytes(mlp, x)
    tr = onnxcost_training(onnxcost, mlp, x, os.path.join(work, "mlp.onnx"), [])
    got = tr and tr["saved_activation_bytes"]
    check(got == want, f"MLP: onnxcost {got} B, PyTorch keeps {want} B")
    check(tr is not None and tr["with_signs"] == [], f"the MLP shows no sign: {tr and tr['export_signs']}")
    cnn = Block()
    x = torch.randn(4, 3, 16, 16)
    want = saved_bytes(cnn, x)
    got = onnxcost_saved(onnxcost, cnn, x, os.path.join(work, "cnn.onnx"), ["--folded-bn"])
    check(got is not None and want <= got <= 1.02 * want,
          f"CNN with BatchNorm, --folded-bn: onnxcost {got} B, PyTorch keeps {want} B "
          f"({got / want if got else 0:.3f}x): never below, at most 2 % above")
    got = onnxcost_saved(onnxcost, cnn, x, os.path.join(work, "cnn2.onnx"), [])
    check(got is not None and got < want, f"the same without --folded-bn: {got} B, below PyTorch's {want} B")
    tr = check_signs(onnxcost, os.path.join(work, "cnn2.onnx"), want, "folded_bn", "--folded-bn", 1.0,
                     "the eval-exported CNN without --folded-bn")
    n = folded_convs(cnn)
    check(tr is not None and (tr["export_signs"]["folded_bn"] or {}).get("convs_with_bias") == n
          and tr["export_signs"]["fused_pointwise"] is None,
          f"its signs: {tr and tr['export_signs']}, want {n} Convs with a bias and no chain")
    tr = onnxcost_training(onnxcost, cnn, x, os.path.join(work, "cnn3.onnx"), [], training=True)
    got = tr and tr["saved_activation_bytes"]
    check(got == want, f"the same CNN exported in training mode: onnxcost {got} B, PyTorch keeps {want} B")
    check(tr is not None and tr["with_signs"] == [] and tr["export_signs"] == {"folded_bn": None,
                                                                               "fused_pointwise": None},
          f"the training-mode export shows no sign: {tr and tr['export_signs']}")

    # a Conv with a bias whose BatchNorm stays in the graph (training-mode export): no folded BatchNorm to suggest
    biased = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=True), nn.BatchNorm2d(8), nn.ReLU())
    x = torch.randn(2, 3, 8, 8)
    want = saved_bytes(biased, x)
    tr = onnxcost_training(onnxcost, biased, x, os.path.join(work, "biased_bn.onnx"), [], training=True)
    check(tr is not None and tr["saved_activation_bytes"] == want and tr["export_signs"]["folded_bn"] is None,
          f"a Conv with a bias read by its BatchNorm (training export): {tr and tr['saved_activation_bytes']} B, "
          f"PyTorch keeps {want} B; signs {tr and tr['export_signs']} (none)")

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
    tr = check_signs(onnxcost, os.path.join(work, "pw2.onnx"), want, "fused_pointwise", "--fused-pointwise", 1.0,
                     "the written-out block without --fused-pointwise")
    pw_signs = tr and tr["export_signs"]["fused_pointwise"]
    check(pw_signs == {"chains": 3, "gelu": 1, "normalization": 1, "silu": 1},
          f"its chains: {pw_signs}, want one GELU, one LayerNorm, one SiLU")

    # normalizations with statistics per sample: InstanceNorm, GroupNorm written out and as one node
    x = torch.randn(4, 3, 12, 12)
    for affine in (True, False):
        inst = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.InstanceNorm2d(16, affine=affine), nn.ReLU())
        want = saved_bytes(inst, x) + (0 if affine else 4 * 16 * 4)  # N x C floats: the scale's repeat
        got = onnxcost_saved(onnxcost, inst, x, os.path.join(work, f"inst{int(affine)}.onnx"), [])
        check(got == want, f"InstanceNorm2d affine={affine}: onnxcost {got} B, want {want} B "
                           f"(PyTorch's {saved_bytes(inst, x)} B{'' if affine else ' + the repeated scale'})")
    gn = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.GroupNorm(4, 16), nn.ReLU())  # one sign
    want = saved_bytes(gn, x)
    got = onnxcost_saved(onnxcost, gn, x, os.path.join(work, "gn.onnx"), ["--fused-pointwise"])
    check(got == want, f"GroupNorm written out (opset 17), --fused-pointwise: onnxcost {got} B, PyTorch keeps {want} B")
    tr = check_signs(onnxcost, os.path.join(work, "gn.onnx"), want, "fused_pointwise", "--fused-pointwise", 1.0,
                     "the written-out GroupNorm without --fused-pointwise")
    gn_signs = tr and tr["export_signs"]["fused_pointwise"]
    check(gn_signs == {"chains": 1, "gelu": 0, "normalization": 1, "silu": 0},
          f"its chains: {gn_signs}, want one normalization")
    check(tr is not None and tr["saved_activation_bytes"] > want,
          f"the same without --fused-pointwise: {tr and tr['saved_activation_bytes']} B, above PyTorch's {want} B")
    got = group_norm_node(onnxcost, gn, x, os.path.join(work, "gn21.onnx"))
    check(got == want, f"one GroupNormalization node (opset 21): onnxcost {got} B, PyTorch keeps {want} B")

    try:
        import torchvision
    except ImportError:
        torchvision = None
        check(False, "torchvision is missing: MobileNetV2's signs not checked")
    # MobileNetV2: every BatchNorm follows a Conv; DenseNet-121: some come
    # before one (BN, ReLU, Conv), which the export cannot fold and keeps
    for name, drop in (("mobilenet_v2", 2 * 1280 * 4), ("densenet121", 0)):  # drop: the classifier's dropout mask
        if not torchvision:
            break
        net = getattr(torchvision.models, name)()
        x = torch.randn(2, 3, 224, 224)
        want = saved_bytes(net, x)
        path = os.path.join(work, name + ".onnx")
        export(net, x, path)
        tr = check_signs(onnxcost, path, want, "folded_bn", "--folded-bn", 1.0 - drop / want,
                         f"{name} (eval export, batch 2) without --folded-bn")
        n = folded_convs(net)
        got = tr and (tr["export_signs"]["folded_bn"] or {}).get("convs_with_bias")
        check(got == n, f"{name}'s Convs with a bias: {got}, Conv2d calls read only by a BatchNorm2d in PyTorch: {n}")
    if torchvision:
        path = os.path.join(work, "mobilenet_v2.onnx")
        p = subprocess.run([onnxcost, path, "--optimizer", "sgd", "--gpu", "h100", "--fit", "--format", "json", "-q"],
                           capture_output=True, text=True)
        q = subprocess.run([onnxcost, path, "--optimizer", "sgd", "--folded-bn", "--gpu", "h100", "--fit", "--format",
                            "json", "-q"], capture_output=True, text=True)
        fit = json.loads(p.stdout)["gpu"]["fit"] if p.returncode == 0 else {}
        fit_bn = json.loads(q.stdout)["gpu"]["fit"] if q.returncode == 0 else {}
        alt = fit.get("with_signs") or {}
        check(alt.get("added_rules") == ["folded_bn"] and alt.get("need_bytes") == fit_bn.get("need_bytes")
              and fit_bn.get("need_bytes", 0) > fit.get("need_bytes", 0),
              f"--fit gives the need with --folded-bn beside its own: {alt.get('need_bytes')} B, "
              f"the run with the flag needs {fit_bn.get('need_bytes')} B, without {fit.get('need_bytes')} B")
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
