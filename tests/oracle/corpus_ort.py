#!/usr/bin/env python3
"""ONNX Runtime shape oracle over every model of fixtures/: the corpus
(fixtures/corpus, real files with provenance), the MNIST and replay fixtures
and the generated ones. fixtures/bad (invalid on purpose) is left out.

Each model runs under ONNX Runtime at two binding sets of its symbolic dims,
a prefill (batch 1, sequence 5, no past) and a decode step (batch 2,
sequence 1, past 3), with every intermediate tensor exposed; every tensor
onnxcost gives a concrete shape must equal the run-time shape. Tensors onnxcost
leaves unknown are counted, not failed (the report lists them with a reason).
A model ONNX Runtime cannot run (ML ops it lacks, training graphs, inputs it
rejects) is reported and skipped. Scalar length inputs (total_sequence_length,
seqlens_k) get values consistent with the binding.

Exit 0 when no concrete shape disagrees, 1 otherwise, 77 if the corpus or
onnxruntime is missing.
"""
import argparse
import glob
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
try:
    import numpy as np
    import onnx
    import onnxruntime  # noqa: F401
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)
sys.path.insert(0, here)
import ort_shapes  # noqa: E402

SETS = [dict(batch=1, seq=5, past=0), dict(batch=2, seq=1, past=3)]


def bindings(model, s):
    total = s["seq"] + s["past"]
    out = {}
    for vi in model.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            p = d.dim_param
            if not p:
                continue
            low = p.lower()
            if "total" in low:
                out[p] = total
            elif "past" in low:
                out[p] = s["past"]
            elif "seq" in low or "len" in low or low in ("s", "t", "sequence"):
                out[p] = s["seq"]
            elif "batch" in low or low in ("n", "b"):
                out[p] = s["batch"]
            else:
                out[p] = 3
    return out, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--corpus", default=os.path.join(here, "..", "..", "fixtures"))
    a = ap.parse_args()
    files = sorted(f for f in glob.glob(os.path.join(a.corpus, "**", "*.onnx"), recursive=True)
                   if "bad" not in os.path.relpath(f, a.corpus).split(os.sep))
    if not files:
        print(f"SKIP: no corpus at {a.corpus}")
        return 77
    rng = np.random.default_rng(0)
    passed = failed = skipped = 0
    concrete_total = tensors_total = 0
    orig_random_input = ort_shapes.random_input
    for path in files:
        name = os.path.relpath(path, a.corpus)
        try:
            model = onnx.load(path)
        except Exception as e:  # noqa: BLE001
            print(f"skip {name}: onnx cannot load it ({e})")
            skipped += 1
            continue
        # fully concrete shapes the file itself declares (graph outputs, value_info)
        declared = {}
        for vi in list(model.graph.output) + list(model.graph.value_info):
            dims = vi.type.tensor_type.shape.dim if vi.type.HasField("tensor_type") else []
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape") and \
                    all(d.HasField("dim_value") for d in dims):
                declared[vi.name] = [d.dim_value for d in dims]
        done = []
        for s in SETS:
            binds, total = bindings(model, s)
            if binds in done:
                continue
            done.append(binds)

            def feed(vi, b, r, total=total, s=s):
                low = vi.name.lower()
                if "total" in low and vi.type.tensor_type.elem_type in (6, 7):
                    return np.full([d.dim_value or 1 for d in vi.type.tensor_type.shape.dim], total,
                                   dtype=np.int32 if vi.type.tensor_type.elem_type == 6 else np.int64)
                if "seqlens" in low:
                    return np.full([s["batch"]], total - 1, dtype=np.int32)
                return orig_random_input(vi, b, r)

            ort_shapes.random_input = feed
            try:
                ours = ort_shapes.onnxcost_shapes(a.onnxcost, path, binds)
            except RuntimeError as e:
                print(f"note {name} {binds}: onnxcost rejects this binding: {e}")
                continue
            try:
                truth = ort_shapes.ort_shapes(model, binds, rng)
            except Exception as e:  # noqa: BLE001
                print(f"skip {name} {binds}: ONNX Runtime cannot run it ({str(e).splitlines()[0][:120]})")
                skipped += 1
                continue
            bad, known = [], 0
            for t, shape in truth.items():
                got = ours.get(t)
                if got is None or any(d is None for d in got):
                    continue
                known += 1
                if got != shape:
                    if declared.get(t) == got:
                        # onnxcost took the file's own declared shape; the random
                        # feed (e.g. an integer `size` input) broke that contract
                        print(f"note {name} {binds}: {t}: declared {got}, runtime {shape} with random inputs")
                        continue
                    bad.append(f"{t}: onnxcost {got}, runtime {shape}")
            tensors_total += len(truth)
            concrete_total += known
            if bad:
                failed += 1
                print(f"FAIL {name} {binds}: {len(bad)} of {known} concrete shapes disagree")
                for b in bad[:10]:
                    print(f"    {b}")
            else:
                passed += 1
                print(f"ok   {name} {binds}: {known}/{len(truth)} tensors concrete, all equal to ONNX Runtime")
            sys.stdout.flush()
    print(f"concrete and equal to ONNX Runtime: {concrete_total}/{tensors_total} tensors; {skipped} runs skipped")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
