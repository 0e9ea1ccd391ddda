#!/usr/bin/env python3
"""GPT-2 small and DistilBERT-base (tests/oracle/transformers.py, exported here
with dynamic batch and sequence) against ONNX Runtime:
  - with --dim batch=2 --dim sequence=128 every tensor has a concrete shape;
  - at batch=1,sequence=7 and batch=3,sequence=33 every tensor's shape equals
    the shape ONNX Runtime produces when the model runs.
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
import ort_shapes  # noqa: E402
import transformers as tfm  # noqa: E402


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
