#!/usr/bin/env python3
"""GPT-2 small and DistilBERT-base (tests/oracle/transformers.py, exported here
with dynamic batch and sequence) against ONNX Runtime:
  - with --dim batch=2 --dim sequence=128 every tensor has a concrete shape;
  - at batch=1,sequence=7 and batch=3,sequence=33 every tensor's shape equals
    the shape ONNX Runtime produces when the model runs;
  - with batch and sequence unbound, the MACs and FLOPs formulas onnxcost
    prints equal its concrete totals at three bindings the fit did not use
    (its probes are 2, 3, 5, 7 and the checks 11..37), and the MACs formula
    equals the reference of issue #4 (GPT-2: 123,532,032*b*s + 18,432*b*s^2).
Exit 0 / 1, or 77 when torch, onnx or onnxruntime is missing.
"""
import argparse
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
try:
    import onnx  # noqa: F401
    import onnxruntime  # noqa: F401
    import torch  # noqa: F401
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
sys.path.insert(0, here)
import json  # noqa: E402

import ort_shapes  # noqa: E402
import transformers as tfm  # noqa: E402

# MatMul MACs per token: 12 layers x (4d^2 + 2*d*4d) + LM head d*V, and attention 2*L*d*s
LAYERS = {"gpt2": 12, "distilbert": 6}
REFERENCE_MACS = {"gpt2": "123532032*batch*sequence + 18432*batch*sequence^2",
                  "distilbert": "42467328*batch*sequence + 9216*batch*sequence^2"}


def formula_value(expr, binds):
    if isinstance(expr, int):
        return expr
    return eval(expr.replace("^", "**"), {"__builtins__": {}}, dict(binds))  # noqa: S307 (digits, names, + * ^)


def check_formulas(onnxcost, path, name):
    run = subprocess.run([onnxcost, path, "--format", "json", "-q"], capture_output=True, text=True)
    doc = json.loads(run.stdout)
    sym = doc.get("symbolic")
    if not sym:
        return [f"no symbolic section ({run.stderr.strip()})"]
    errors = []
    if sym["totals"]["macs"] != REFERENCE_MACS[name]:
        errors.append(f"MACs formula {sym['totals']['macs']} != {REFERENCE_MACS[name]}")
    # attention alone (QK^T and AV: MatMuls with no weight) = 2 * L * T^2 * d, at two lengths
    for s in (128, 512):
        doc1 = json.loads(subprocess.run([onnxcost, path, "--format", "json", "-q", "--dim", "batch=1", "--dim",
                                          f"sequence={s}"], capture_output=True, text=True).stdout)
        att = sum(n["macs"] for n in doc1["nodes"]
                  if n["op_type"] == "MatMul" and n["params"] == 0 and not n["shares_params"])
        if att != 2 * LAYERS[name] * s * s * 768:
            errors.append(f"attention MACs at sequence {s}: {att} != {2 * LAYERS[name] * s * s * 768}")
    for b, s in ((1, 64), (4, 9), (2, 128)):
        binds = {"batch": b, "sequence": s}
        concrete = json.loads(subprocess.run([onnxcost, path, "--format", "json", "-q", "--dim", f"batch={b}",
                                              "--dim", f"sequence={s}"], capture_output=True, text=True).stdout)
        for key in ("macs", "flops"):
            want, got = concrete["totals"][key], formula_value(sym["totals"][key], binds)
            if want != got:
                errors.append(f"{key} at batch={b}, sequence={s}: formula {got}, analysis {want}")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--workdir")
    ap.add_argument("--models", default="gpt2,distilbert")
    a = ap.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory(dir=a.workdir) as wd:
        for name in a.models.split(","):
            path = os.path.join(wd, name + ".onnx")
            tfm.export(name, path)
            shapes = ort_shapes.onnxcost_shapes(a.onnxcost, path, {"batch": 2, "sequence": 128})
            unknown = [n for n, s in shapes.items() if s is None or any(d is None for d in s)]
            if unknown:
                failed += 1
                print(f"FAIL {name}: {len(unknown)}/{len(shapes)} tensors not concrete at batch=2, sequence=128, "
                      f"e.g. {unknown[:5]}")
            else:
                passed += 1
                print(f"ok   {name}: {len(shapes)}/{len(shapes)} tensors concrete at batch=2, sequence=128")
            sys.stdout.flush()
            ferr = check_formulas(a.onnxcost, path, name)
            if ferr:
                failed += 1
                print(f"FAIL {name} formulas: " + "; ".join(ferr))
            else:
                passed += 1
                print(f"ok   {name}: MACs = {REFERENCE_MACS[name]}, formulas equal the analysis at 3 unseen bindings, "
                      f"attention = 2*L*T^2*d at T = 128 and 512")
            run = subprocess.run([sys.executable, os.path.join(here, "ort_shapes.py"), "--onnxcost", a.onnxcost,
                                  "--bind", "batch=1,sequence=7", "--bind", "batch=3,sequence=33", path],
                                 capture_output=True, text=True)
            lines = [ln for ln in run.stdout.splitlines() if not ln.endswith("failed")]
            print("\n".join(lines))
            if run.returncode == 0:
                passed += 1
            else:
                failed += 1
                print(run.stderr[-2000:])
            os.unlink(path)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
