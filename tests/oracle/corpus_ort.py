#!/usr/bin/env python3
"""ONNX Runtime shape oracle over every model of fixtures/: the corpus
(fixtures/corpus, real files with provenance), the MNIST and replay fixtures
and the generated ones. fixtures/bad (invalid on purpose) is left out.

Each model runs under ONNX Runtime at two binding sets of its symbolic dims,
a prefill (batch 1, sequence 5, no past) and a decode step (batch 2,
sequence 1, past 3), with every intermediate tensor exposed; every tensor
onnxcost gives a concrete shape must equal the run-time shape. Tensors onnxcost
leaves unknown are counted, not failed (the report lists them with a reason).
Scalar length inputs (total_sequence_length, seqlens_k) get values consistent
with the binding.

A run onnxcost refuses is allowed only where expected: the file is listed in
tests/refused.txt, or the run in REFUSED_RUNS below; a run ONNX Runtime cannot
do (ops it lacks, training graphs, inputs it rejects) only where ORT_CANNOT_RUN
lists it. Any other refusal fails, and so does a listed run that now goes
through (remove it from its list). At least MIN_CONCRETE tensors must have been
compared and MIN_AGREE of them found equal.

Exit 0 when no concrete shape disagrees and the above holds, 1 otherwise, 77 if
the corpus or onnxruntime is missing.
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

SETS = [("prefill", dict(batch=1, seq=5, past=0)), ("decode", dict(batch=2, seq=1, past=3))]
# (file under --corpus, fixtures/, binding set) -> why onnxcost refuses that run
# (a model without symbolic dims runs once, as "prefill")
REFUSED_RUNS = {
    (f"corpus/microsoft+onnxruntime-genai/{f}", "prefill"):
        "--dim takes a positive N: the empty past of the prefill (past=0) cannot be bound"
    for f in ("test__models__hf-internal-testing__tiny-qwen35-cuda__decoder.onnx",
              "test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx",
              "test__test_models__hf-internal-testing__tiny-random-LlamaForCausalLM-fp16__model/model.onnx")
}
# (file, binding set) -> why ONNX Runtime (CPU, onnxruntime 1.31.1) cannot run it
# on the random feeds of tests/oracle/ort_shapes.py, or they cannot be made
_node = "corpus/onnx+onnx/onnx__backend__test__data__"
ORT_CANNOT_RUN = {
    ("corpus/microsoft+onnxruntime-genai/test__models__static-scatter-bias-decoder__model.onnx", "prefill"):
        "TensorScatter: the random write_indices exceed the static cache of 16",
    ("corpus/microsoft+onnxruntime-genai/test__models__static-scatter-bias-decoder__model.onnx", "decode"):
        "TensorScatter: the random write_indices exceed the static cache of 16",
    (_node + "node__test_affine_grid_2d_expanded__model.onnx", "prefill"):
        "GatherElements inside an If: random inputs index out of bounds",
    (_node + "node__test_dequantizelinear_int4__model.onnx", "prefill"): "int4 inputs: no random feed for them",
    (_node + "node__test_loop13_seq__model.onnx", "prefill"): "sequence-typed input: no random feed for it",
    (_node + "node__test_loop16_seq_none__model.onnx", "prefill"): "optional sequence input: no random feed for it",
    (_node + "node__test_lstm_with_peepholes__model.onnx", "prefill"): "random sequence_lens out of range",
    (_node + "node__test_range_float_type_positive_delta_expanded__model.onnx", "prefill"):
        "opset 27: not an opset this ONNX Runtime supports",
    (_node + "node__test_rotary_embedding__model.onnx", "prefill"): "random position_ids out of range",
    (_node + "pytorch-converted__test_BatchNorm2d_eval__model.onnx", "prefill"): "no BatchNormalization(6) kernel",
    (_node + "pytorch-converted__test_Embedding__model.onnx", "prefill"): "random Gather indices out of range",
    (_node + "pytorch-converted__test_Linear__model.onnx", "prefill"): "no Gemm(6) kernel",
    (_node + "pytorch-operator__test_operator_lstm__model.onnx", "prefill"): "experimental ConstantFill not registered",
    (_node + "simple__test_gradient_of_add_and_mul__model.onnx", "prefill"): "training op Gradient not registered",
    (_node + "simple__test_sequence_model1__model.onnx", "prefill"): "a sequence-typed output: no array shape to take",
    ("corpus/sonos+tract/onnx__test_cases__gqa_prefill_rope__model.onnx", "prefill"):
        "GroupQueryAttention: total_sequence_length below the cache's kv length",
}
# what a run must have checked (5,059 tensors concrete and compared, 5,057
# equal, 2 differing from a shape the file declares, in 54 runs, on 2026-11-25)
MIN_CONCRETE = 5000
MIN_AGREE = 5000
MIN_RUNS = 50


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
    refused_files = {}
    for line in open(os.path.join(here, "..", "refused.txt")):
        if line.strip() and not line.startswith("#"):
            rel, _, why = line.strip().partition(" ")
            refused_files[rel] = why
    rng = np.random.default_rng(0)
    passed = failed = skipped = 0
    concrete_total = tensors_total = agree_total = 0
    problems = []  # refusals not expected, expected ones that did not happen
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
        for label, s in SETS:
            binds, total = bindings(model, s)
            if binds in done:
                continue
            done.append(binds)
            key = (name.replace(os.sep, "/"), label)
            why_refused = refused_files.get(key[0]) or REFUSED_RUNS.get(key)

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
                if why_refused:
                    print(f"refused {name} {binds}, as expected ({why_refused})")
                else:
                    problems.append(f"{name} {binds}: onnxcost refuses it, not an expected refusal: {e}")
                continue
            if why_refused:
                problems.append(f"{name} {binds}: listed as refused ({why_refused}), but onnxcost takes it now: "
                                "remove it from its list")
            try:
                truth = ort_shapes.ort_shapes(model, binds, rng)
            except Exception as e:  # noqa: BLE001
                why = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
                if key in ORT_CANNOT_RUN:
                    print(f"skip {name} {binds}: ONNX Runtime cannot run it, as expected ({ORT_CANNOT_RUN[key]})")
                    skipped += 1
                else:
                    problems.append(f"{name} {binds}: ONNX Runtime cannot run it ({why}), not listed in ORT_CANNOT_RUN")
                continue
            if key in ORT_CANNOT_RUN:
                problems.append(f"{name} {binds}: listed in ORT_CANNOT_RUN ({ORT_CANNOT_RUN[key]}), but it runs now: "
                                "remove it")
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
                    continue
                agree_total += 1
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
    print(f"concrete: {concrete_total}/{tensors_total} tensors (at least {MIN_CONCRETE}), equal to ONNX Runtime: "
          f"{agree_total} (at least {MIN_AGREE}); {skipped} runs ONNX Runtime cannot do, as listed")
    if concrete_total < MIN_CONCRETE:
        problems.append(f"only {concrete_total} concrete tensors compared, want at least {MIN_CONCRETE}")
    if agree_total < MIN_AGREE:
        problems.append(f"only {agree_total} tensors equal to ONNX Runtime's, want at least {MIN_AGREE}")
    if passed + failed < MIN_RUNS:
        problems.append(f"only {passed + failed} runs compared, want at least {MIN_RUNS}")
    for p in problems:
        print(f"FAIL {p}")
    print(f"{passed} passed, {failed} failed, {len(problems)} other problems")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
