#!/usr/bin/env python3
"""ONNX Runtime as a runtime shape oracle.

Every intermediate tensor of the model is exposed as a graph output, the model
runs on random inputs under ONNX Runtime (CPU) at each binding set, and every
tensor's run-time shape must equal the shape `onnxcost --format json` infers
with the same `--dim` bindings. Tensors onnxcost leaves unknown count as
disagreements unless --allow-unknown is given (then they are only reported).

usage: ort_shapes.py --onnxcost BIN MODEL.onnx --bind batch=1,sequence=7 --bind batch=3,sequence=33
Exit 0 when all agree, 1 otherwise, 77 when onnxruntime/onnx are missing.
"""
import argparse
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401  (run_all's runtime)
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:  # appended: tests/oracle/transformers.py
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # must not shadow Hugging Face's package
from ort_figures import run_all  # noqa: E402  (every value of a model as ONNX Runtime computes it)

NP = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64, onnx.TensorProto.FLOAT16: np.float16,
      onnx.TensorProto.INT64: np.int64, onnx.TensorProto.INT32: np.int32, onnx.TensorProto.INT8: np.int8,
      onnx.TensorProto.UINT8: np.uint8, onnx.TensorProto.BOOL: np.bool_}


def random_input(vi, binds, rng):
    tt = vi.type.tensor_type
    shape = []
    for d in tt.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            shape.append(d.dim_value)
        else:
            shape.append(binds.get(d.dim_param, 1))
    dt = NP[tt.elem_type]
    name = vi.name.lower()
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(dt)
    if np.issubdtype(dt, np.integer):
        if "mask" in name:
            return np.ones(shape, dtype=dt)
        return rng.integers(0, 100, shape).astype(dt)  # ids/indices within any vocabulary
    return rng.standard_normal(shape).astype(dt)


def ort_shapes(model, binds, rng):
    """The run-time shape of every node output and graph output (ort_figures.run_all)."""
    feeds = {vi.name: random_input(vi, binds, rng) for vi in model.graph.input
             if vi.name not in {i.name for i in model.graph.initializer}}
    _, values = run_all(model, feeds)
    names = {o.name for o in model.graph.output} | {x for n in model.graph.node for x in n.output if x}
    return {n: list(np.shape(v)) for n, v in values.items() if n in names}


def onnxcost_shapes(binary, path, binds):
    args = [binary, path, "--format", "json", "-q"]
    for k, v in binds.items():
        args += ["--dim", f"{k}={v}"]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(run.stderr.strip())
    doc = json.loads(run.stdout)
    # shapes copied from the file's declarations (nodes without a rule) are not inferences
    return {o["name"]: (o["shape"] if n["status"] == "ok" else None) for n in doc["nodes"] for o in n["outputs"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--bind", action="append", required=True, help="NAME=V,NAME=V")
    ap.add_argument("--allow-unknown", action="store_true")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    passed = failed = 0
    for path in a.models:
        model = onnx.load(path)
        for spec in a.bind:
            binds = {k: int(v) for k, v in (kv.split("=") for kv in spec.split(",") if kv)}
            try:
                ours = onnxcost_shapes(a.onnxcost, path, binds)
            except RuntimeError as e:
                print(f"FAIL {path} {spec}: onnxcost: {e}")
                failed += 1
                continue
            truth = ort_shapes(model, binds, rng)
            bad, unknown = [], 0
            for name, shape in truth.items():
                got = ours.get(name)
                if got is None or any(d is None for d in got):
                    unknown += 1
                    if not a.allow_unknown:
                        bad.append(f"{name}: unknown, runtime {shape}")
                elif got != shape:
                    bad.append(f"{name}: onnxcost {got}, runtime {shape}")
            tag = f"{path} [{spec}]: {len(truth)} tensors, {len(truth) - unknown} concrete"
            if bad:
                failed += 1
                print(f"FAIL {tag}, {len(bad)} disagree")
                for b in bad[:15]:
                    print(f"    {b}")
            else:
                passed += 1
                print(f"ok   {tag}, all equal to ONNX Runtime")
            sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
