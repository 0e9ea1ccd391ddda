#!/usr/bin/env python3
"""The invariants every replay result must hold (docs/REPLAY.md, "Results").

Run on the committed GPU results (ctest gpu.results: docs/results/*.json,
skipped while there are none) and, to prove the checker itself, on ocsim's
results in sim.replay (--allow-sim). Per file:

  * the schema, and the device named with its driver, CUDA runtime, cuDNN,
    cuBLAS and CUPTI versions and its peaks (a simulated device is refused
    unless --allow-sim: simulated figures are never results);
  * every node accounted for: measured, an alias, or skipped/failed with a
    reason; at least one node measured, and at least MIN_MEASURED of the
    nodes run (measured or failed: a run whose nodes all failed is no
    result);
  * a measured node: a median time > 0 with min <= p10 <= median <= p90,
    at least one repetition, its kernels named (when CUPTI traced them);
  * counters, where present: non-negative, FLOPs = FP32 + FP16 + FP64 +
    tensor, the derived ratio = FLOPs / estimate;
  * under strict FP32 (--math fp32), the measured FP32 FLOPs of Conv and
    Gemm/MatMul nodes over onnxcost's estimate within the bounds of
    BOUNDS for the algorithm the node names (not for a node run with
    replay overhead, whose counters include the extra work).

Usage: results_check.py [--allow-sim] FILE.json|FOLDER ...   (exit 77 when no result)
"""
import json
import math
import os
import sys

# measured FP32 FLOPs / estimated FLOPs, strict FP32, by op and algorithm,
# as the first GPU run found them (NVIDIA H200, cuDNN 9.14, cuBLAS 13;
# docs/results/h200.md), each count confirmed by Nsight Compute on the same
# kernels:
#   - the direct and GEMM-based algorithms never count fewer than the
#     multiply-adds, but their kernels run whole tiles: output pixels padded
#     to 64 (7x7 maps count 64/49 = 1.31 of the MACs, 14x14 maps 256/196),
#     and a 3x3 filter on one input channel (9 taps) counts 2.07;
#   - Winograd at batch 32 counts 0.29-0.34, but WINOGRAD_NONFUSED at batch 1
#     counts 5.4-5.5: its batched GEMM over the 36 transform positions pads
#     the few tiles of one image;
#   - FFT and FFT_TILING count 0.377-0.386 at batch 32 and 12.0-48.1 at
#     batch 1 (the transforms of one small image are padded to the tile):
#     the bound is that range widened by 1.5x either side, so an estimate
#     off by 3x (a kernel dim dropped) leaves it at one batch or the other;
#   - cuBLAS's strict FP32 GEMMs count 1.00-1.05 on transformer shapes and up
#     to 1.34 on the MNIST net's small ones.
# the least share of a file's nodes run (measured or failed) to be measured
MIN_MEASURED = 0.5

BOUNDS = [
    # (ops, algorithm substrings, low, high)
    (("Conv",), ("WINOGRAD",), 0.05, 8.0),
    (("Conv",), ("FFT",), 0.25, 72.0),
    (("Conv",), ("IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT"), 0.95, 2.5),
    (("Gemm", "MatMul"), ("COMPUTE_32F_PEDANTIC",), 0.98, 1.5),
]


def bound_for(op, algo):
    for ops, names, lo, hi in BOUNDS:
        if op in ops and any(n in algo for n in names):
            return lo, hi, next(n for n in names if n in algo)
    return None


def check(path, allow_sim):
    bad = []
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        return [f"cannot read: {e}"], {}
    if d.get("schema") != "onnxcost-replay/1":
        return [f"schema {d.get('schema')!r}, want onnxcost-replay/1"], {}
    dev = d.get("device", {})
    for k in ("name", "driver_version", "runtime_version", "cudnn_version", "cublas_version", "cupti_version",
              "sm_count", "peak_fp32_flops", "peak_dram_bytes_per_s"):
        if not dev.get(k):
            bad.append(f"device.{k} missing or 0")
    if "ocsim" in str(dev.get("name", "")) and not allow_sim:
        bad.append(f"device {dev.get('name')!r} is simulated: not a result")
    opts = d.get("options", {})
    strict = opts.get("math") == "fp32"
    nodes = d.get("nodes", [])
    if not nodes:
        bad.append("no nodes")
    stats = {"measured": 0, "alias": 0, "skipped": 0, "failed": 0, "bounded": 0, "counters": 0}
    for n in nodes:
        who = f"node {n.get('name')!r} ({n.get('op')})"
        st = n.get("status")
        if st not in stats:
            bad.append(f"{who}: status {st!r}")
            continue
        stats[st] += 1
        if st in ("skipped", "failed") and not n.get("reason"):
            bad.append(f"{who}: {st} without a reason")
        if st != "measured":
            continue
        t = n.get("time_ns", {})
        med, p10, p90, mn = (t.get(k, -1) for k in ("median", "p10", "p90", "min"))
        if not (med > 0 and 0 < mn <= p10 <= med <= p90) or t.get("reps", 0) < 1:
            bad.append(f"{who}: times {t}")
        traced = "CUDA events" not in n.get("reason", "")
        if traced and (n.get("kernels_per_rep", 0) < 1 or not n.get("kernels")):
            bad.append(f"{who}: no kernel named ({n.get('kernels_per_rep')} per repetition)")
        c = n.get("counters")
        if not c:
            continue
        stats["counters"] += 1
        parts = ("fp32_flops", "fp16_flops", "fp64_flops", "tensor_flops", "dram_read_bytes", "dram_write_bytes")
        if any(not isinstance(c.get(k), (int, float)) or c[k] < 0 for k in parts + ("flops",)):
            bad.append(f"{who}: counters {c}")
            continue
        total = c["fp32_flops"] + c["fp16_flops"] + c["fp64_flops"] + c["tensor_flops"]
        if not math.isclose(c["flops"], total, rel_tol=1e-9, abs_tol=1e-6):
            bad.append(f"{who}: flops {c['flops']} is not the sum of its parts {total}")
        # model_flops, the node's own arithmetic, leaves out the FP16
        # instructions of a node on 32-bit data (register idioms); a result
        # written before it existed (2026-11-26) has the ratio over flops
        est = n.get("estimate", {}).get("flops", 0)
        counted = c["flops"]
        if "model_flops" in c:
            half = n.get("estimate", {}).get("dtype") in ("f16", "bf16")
            own = c["fp32_flops"] + c["fp64_flops"] + c["tensor_flops"] + (c["fp16_flops"] if half else 0)
            if not isinstance(c["model_flops"], (int, float)) or \
                    not math.isclose(c["model_flops"], own, rel_tol=1e-9, abs_tol=1e-6):
                bad.append(f"{who}: model_flops {c['model_flops']} is not FP32 + FP64 + tensor"
                           f"{' + FP16' if half else ''} = {own}")
            counted = c["model_flops"]
        ratio = n.get("derived", {}).get("flops_ratio")
        if est > 0 and counted > 0 and (ratio is None or not math.isclose(ratio, counted / est, rel_tol=1e-9)):
            bad.append(f"{who}: derived flops_ratio {ratio}, counters give {counted / est}")
        # a node the replay ran with extra work (asymmetric pads computed and
        # cropped) counts that work too: no bound applies
        b = bound_for(n.get("op"), n.get("algo", "")) if strict and est > 0 and not n.get("replay_overhead") else None
        if b:
            stats["bounded"] += 1
            lo, hi, name = b
            r = c["fp32_flops"] / est
            if not lo <= r <= hi:
                bad.append(f"{who}: measured/estimated FP32 FLOPs {r:.4f} outside {lo}..{hi} for {name} "
                           f"({n.get('algo')})")
    tried = stats["measured"] + stats["failed"]
    if nodes and (stats["measured"] < 1 or stats["measured"] < MIN_MEASURED * tried):
        bad.append(f"{stats['measured']} of {tried} nodes run measured: fewer than {MIN_MEASURED:.0%} "
                   f"({stats['failed']} failed; {stats['skipped']} skipped, {stats['alias']} aliases)")
    return bad, stats


def main(argv):
    allow_sim = "--allow-sim" in argv
    files, unreadable = [], []
    for a in argv:
        if a == "--allow-sim":
            continue
        if os.path.isdir(a):  # a folder: its replay results (other JSON files, e.g. a calibration, are not)
            for f in sorted(os.listdir(a)):
                p = os.path.join(a, f)
                if not f.endswith(".json"):
                    continue
                try:  # decided by the parsed schema key, wherever it sits in the file
                    with open(p, encoding="utf-8") as fh:
                        schema = json.load(fh).get("schema")
                except (OSError, ValueError, AttributeError) as e:
                    unreadable.append(f"{p}: not a JSON object ({e})")
                    continue
                if schema == "onnxcost-replay/1":
                    files.append(p)
                else:
                    print(f"not a replay result: {p} (schema {schema!r})")
        else:
            files.append(a)
    for u in unreadable:  # a file of the folder that cannot be told apart is never skipped
        print(f"FAIL {u}")
    if not files:
        if unreadable:
            return 1
        print("skipped: no replay results to check (docs/results/ holds none yet)")
        return 77
    fails = len(unreadable)
    for f in files:
        bad, stats = check(f, allow_sim)
        if bad:
            fails += 1
            print(f"FAIL {f}: {len(bad)} problems")
            for b in bad[:20]:
                print(f"  {b}")
        else:
            print(f"ok   {f}: {stats['measured']} measured ({stats['counters']} with counters, {stats['bounded']} "
                  f"within their algorithm's FLOP bounds), {stats['alias']} aliases, {stats['skipped']} skipped, "
                  f"{stats['failed']} failed, each with its reason")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
