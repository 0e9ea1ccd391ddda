#!/usr/bin/env python3
"""cli.bounds — a comparison or a fit against a lower bound never ranks or
claims, in any format (issue 28).

Models made here with the onnx package, their MACs worked out by hand:
  small.onnx   x[batch, 64] @ W[64, 32]                      MACs 2,048 per sample, exact
  big.onnx     x[batch, 64] @ W[64, 128]                     MACs 8,192 per sample, exact
  lb.onnx      x[batch, 64] @ W[64, 64] -> an unknown op -> @ W2[64, 64]
               MACs >= 4,096 per sample (the second MatMul has no shape: a lower bound)
  lb2.onnx     the same with W[64, 96]: MACs >= 6,144 per sample
What must hold:
  - a best value (*) only where no bound leaves room to beat it;
  - a ratio against or of a bound is marked as the bound it is (>= / <=),
    two lower bounds give no ratio; JSON likewise (`*_ratio_bound`, null);
  - a need that is a lower bound "maybe" fits, in every format: text and
    Markdown say maybe, JSON says null (never true), the analyze report
    says MAY NOT FIT, and the largest batch is marked as an upper bound.
  - the saved activations over tensors of unknown size (a Resize by scales
    given at run time, then Conv, MaxPool and a training Dropout) are a
    lower bound in text, Markdown and JSON, with and without --folded-bn;
  - the training step's FLOPs (per step, per epoch) over an analysis with a
    node without a cost are marked lower bounds in text, Markdown and HTML,
    and JSON's training block says complete false; exact ones carry no mark.
usage: bounds_check.py ONNXCOST
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

bin_ = sys.argv[1]
tmp = tempfile.mkdtemp()
fails = []
checks = 0


def model(path, k, unknown):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(np.zeros((64, k), np.float32), "W")]
    nodes = [helper.make_node("MatMul", ["x", "W"], ["h" if unknown else "y"], name="mm1")]
    if unknown:
        inits.append(numpy_helper.from_array(np.zeros((64, 64), np.float32), "W2"))
        nodes += [helper.make_node("Frobnicate", ["h"], ["u"], name="frob", domain="com.example"),
                  helper.make_node("MatMul", ["u", "W2"], ["y"], name="mm2")]
    g = helper.make_graph(nodes, "g", [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    onnx.save(m, path)
    return path


small = model(os.path.join(tmp, "small.onnx"), 32, False)
big = model(os.path.join(tmp, "big.onnx"), 128, False)
lb = model(os.path.join(tmp, "lb.onnx"), 64, True)
lb2 = model(os.path.join(tmp, "lb2.onnx"), 96, True)


def run(*args, rc=0):
    p = subprocess.run([bin_, *args], capture_output=True, text=True)
    if p.returncode != rc:
        fails.append(f"{' '.join(args)}: exit {p.returncode}, want {rc}: {p.stderr.strip()[:300]}")
    return p.stdout


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fails.append(f"{what} {detail}")


def row(text, path):
    return next((line for line in text.splitlines() if path in line), "")


def cell(line, k, sep=None):
    """the k-th column of a text row (two or more spaces apart) or a Markdown row"""
    if sep:
        return [c.strip() for c in line.strip().strip("|").split("|")][k]
    import re
    return re.split(r"\s{2,}", line.strip())[k]


MACS = 2  # Model, Params, MACs, ...

# small (2,048, exact) against lb (>= 4,096): small is proven smallest, lb's ratio is at least 2x
t = run("compare", small, lb, "--batch", "1")
check("small < lb: small starred", cell(row(t, small), MACS).endswith("*"), row(t, small))
check("small < lb: lb's ratio a lower bound", cell(row(t, lb), MACS) == ">= 4,096 (>= 2.00x)", row(t, lb))
md = run("compare", small, lb, "--batch", "1", "--format", "md")
check("md: lb's ratio a lower bound", "≥ 4,096 (≥ 2.00x)" in row(md, "lb.onnx"), row(md, "lb.onnx"))

# big (8,192, exact) against lb (>= 4,096): lb may be smaller, so no best in that column
t = run("compare", big, lb, "--batch", "1")
check("big vs lb: nobody starred for MACs", "*" not in cell(row(t, big), MACS) and "*" not in cell(row(t, lb), MACS),
      f"{row(t, big)} / {row(t, lb)}")
check("big vs lb: ratio a lower bound", cell(row(t, lb), MACS) == ">= 4,096 (>= 0.50x)", row(t, lb))
# the bound first: the exact model's ratio is an upper bound
t = run("compare", lb, big, "--batch", "1")
check("lb first: ratio an upper bound", cell(row(t, big), MACS) == "8,192 (<= 2.00x)", row(t, big))
# two lower bounds: no ratio, no best
t = run("compare", lb, lb2, "--batch", "1")
check("two bounds: no ratio", cell(row(t, lb2), MACS) == ">= 6,144 (?x)", row(t, lb2))
j = json.loads(run("compare", lb, lb2, big, "--batch", "1", "--format", "json"))
m = {os.path.basename(e["path"]): e for e in j["models"]}
check("json: two lower bounds give no ratio", m["lb2.onnx"]["macs_ratio"] is None, m["lb2.onnx"])
check("json: exact over a lower bound is an upper bound",
      m["big.onnx"]["macs_ratio"] == 2.0 and m["big.onnx"].get("macs_ratio_bound") == "upper", m["big.onnx"])
check("json: exact ratios carry no bound", "params_ratio_bound" not in m["big.onnx"], m["big.onnx"])

# fit: a need that is a lower bound maybe fits, in every format
for fmt in ("text", "md", "csv"):
    t = run("compare", small, lb, "--batch", "1", "--gpu", "h100", "--fit", "--format", fmt)
    cells = {p: set(row(t, p).replace("|", " ").replace(",", " ").split()) for p in ("lb.onnx", "small.onnx")}
    check(f"compare {fmt}: lb maybe fits", "maybe" in cells["lb.onnx"] and "yes" not in cells["lb.onnx"], row(t, "lb.onnx"))
    check(f"compare {fmt}: small fits", "yes" in cells["small.onnx"], row(t, "small.onnx"))
j = json.loads(run("compare", small, lb, "--batch", "1", "--gpu", "h100", "--fit", "--format", "json"))
m = {os.path.basename(e["path"]): e for e in j["models"]}
check("compare json: lb fits null", m["lb.onnx"]["gpu"]["fits"] is None and m["lb.onnx"]["gpu"].get("need_exact") is False,
      m["lb.onnx"]["gpu"])
check("compare json: small fits true", m["small.onnx"]["gpu"]["fits"] is True, m["small.onnx"]["gpu"])
# the largest batch of a lower-bound need is an upper bound (or neither, when the search is capped)
t = run("compare", small, lb, "--gpu", "h100", "--fit")
check("compare: lb's max batch not exact", cell(row(t, lb), 8).startswith(("<=", "~")), row(t, lb))

for fmt in ("text", "md", "csv"):
    t = run("sweep", lb, "--dim", "batch=1,2", "--gpu", "h100", "--fit", "--format", fmt)
    rows = [line for line in t.splitlines() if "maybe" in line]
    check(f"sweep {fmt}: both rows maybe", len(rows) == 2, t)
    check(f"sweep {fmt}: no row says yes", "yes" not in t, t)
j = json.loads(run("sweep", lb, "--dim", "batch=1,2", "--gpu", "h100", "--fit", "--format", "json"))
check("sweep json: fits null on incomplete rows",
      [(r["complete"], r["gpu"]["fits"]) for r in j["rows"]] == [(False, None), (False, None)], j["rows"])
j = json.loads(run("sweep", small, "--dim", "batch=1,2", "--gpu", "h100", "--fit", "--format", "json"))
check("sweep json: fits true on complete rows", [r["gpu"]["fits"] for r in j["rows"]] == [True, True], j["rows"])

t = run("analyze", lb, "--batch", "1", "--gpu", "h100", "--fit")
check("analyze: lower-bound need may not fit", "needs >= " in t and "MAY NOT FIT" in t and ": fits" not in t,
      [line for line in t.splitlines() if line.startswith("Fit")])
check("analyze: largest batch an upper bound", "largest batch that fits: <= " in t or "largest batch that fits: ~ " in t,
      [line for line in t.splitlines() if "largest batch" in line])
j = json.loads(run("analyze", lb, "--batch", "1", "--gpu", "h100", "--fit", "--format", "json"))
check("analyze json: fits null", j["gpu"]["fit"]["fits"] is None and j["gpu"]["fit"].get("need_exact") is False,
      j["gpu"]["fit"])
j = json.loads(run("analyze", small, "--batch", "1", "--gpu", "h100", "--fit", "--format", "json"))
check("analyze json: exact fits true", j["gpu"]["fit"]["fits"] is True and j["gpu"]["fit"].get("need_exact") is True,
      j["gpu"]["fit"])

# the training step's FLOPs over an analysis with a node without a cost: a
# lower bound in every format (mm1's 2 x 4,096 forward FLOPs x 3 with
# backward = 24,576 per sample at least; the epoch of 10 samples at batch 2,
# 5 steps: 245,760 at least); over an exact one, no mark
want_step, want_epoch = 3 * 2 * 2 * 64 * 64, 5 * 3 * 2 * 2 * 64 * 64
for path, ge in ((lb, True), (small, False)):
    steps = 3 * 2 * 2 * 64 * 32 if not ge else want_step
    epoch = 5 * steps
    t = run("analyze", path, "--batch", "2", "--optimizer", "sgd", "--train-samples", "10")
    line = next((x for x in t.splitlines() if "FLOPs per step" in x), "")
    check(f"text: training FLOPs per step of {os.path.basename(path)}", line.split(":", 1)[-1].strip().startswith(
        (">= " if ge else "") + f"{steps:,} "), line)
    line = next((x for x in t.splitlines() if "FLOPs per epoch" in x), "")
    check(f"text: training FLOPs per epoch of {os.path.basename(path)}",
          line.rstrip().endswith(": " + (">= " if ge else "") + f"{epoch:,}"), line)
    md = run("analyze", path, "--batch", "2", "--optimizer", "sgd", "--train-samples", "10", "--format", "md")
    line = next((x for x in md.splitlines() if "FLOPs per step" in x), "")
    check(f"md: training FLOPs per step of {os.path.basename(path)}",
          ((">= " if ge else ": ") + f"{steps:,} ") in line, line)
    html = run("analyze", path, "--batch", "2", "--optimizer", "sgd", "--train-samples", "10", "--format", "html")
    for what, n in (("per step", steps), ("per epoch", epoch)):
        cellv = html.split(f"training FLOPs {what}", 1)[-1].split('<td class="n">', 1)[-1].split("<", 1)[0]
        check(f"html: training FLOPs {what} of {os.path.basename(path)}", cellv == ("≥ " if ge else "") + f"{n:,}",
              cellv)
    j = json.loads(run("analyze", path, "--batch", "2", "--optimizer", "sgd", "--train-samples", "10", "--format",
                       "json"))
    check(f"json: training of {os.path.basename(path)} complete {not ge}",
          (j["training"]["step_flops"], j["training"]["complete"]) == (steps, not ge), j["training"])

# the saved activations over tensors of unknown size: a Resize by scales given at run time makes every size
# after it unknown; the MaxPool's indices, the Dropout's mask and (with --folded-bn) the folded BatchNorm's
# input are then not counted, and the figure is a lower bound in every format
unk = os.path.join(tmp, "unknown_sizes.onnx")
g = helper.make_graph(
    [helper.make_node("Resize", ["x", "", "s"], ["r"], mode="nearest"),
     helper.make_node("Conv", ["r", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
     helper.make_node("MaxPool", ["c"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
     helper.make_node("Dropout", ["p", "ratio", "train"], ["y", "mask"])], "unk",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8]),
     helper.make_tensor_value_info("s", TensorProto.FLOAT, [4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [numpy_helper.from_array(np.zeros((4, 3, 3, 3), np.float32), "w"),
     numpy_helper.from_array(np.zeros(4, np.float32), "b"),
     numpy_helper.from_array(np.array(0.5, np.float32), "ratio"), numpy_helper.from_array(np.array(True), "train")])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), unk)
for extra in ((), ("--folded-bn",)):
    j = json.loads(run(unk, "--optimizer", "sgd", "--format", "json", "-q", *extra))
    check(f"json: saved activations over unknown sizes {extra} a lower bound",
          j["training"]["complete"] is False and j["training"]["training_dropouts"] == 1, j["training"])
    t = run(unk, "--optimizer", "sgd", "-q", *extra)
    line = next((x for x in t.splitlines() if "Activations saved for backward" in x), "")
    check(f"text: saved activations over unknown sizes {extra} marked", ": >= " in line, line)
    md = run(unk, "--optimizer", "sgd", "-q", "--format", "md", *extra)
    line = next((x for x in md.splitlines() if "saved for backward" in x.lower()), "")
    check(f"md: saved activations over unknown sizes {extra} marked", "≥" in line or ">=" in line, line)

MIN_CHECKS = 46
if checks < MIN_CHECKS:
    fails.append(f"only {checks} checks ran, want at least {MIN_CHECKS}")
if fails:
    print("\n".join("FAIL " + f for f in fails))
    print(f"{checks - len(fails)} passed, {len(fails)} failed")
    sys.exit(1)
print(f"{checks} passed, 0 failed")
