#!/usr/bin/env python3
"""The GPU performance model (--gpu-spec, --fit, --gpus, --pipeline) against
figures computed here by hand, in analyze, and per model and per binding in
compare and sweep (--gpu shared by the three).

A three-node MLP with a free batch dim, x[N,256] -> MatMul(256x1024) -> Relu
-> MatMul(1024x10), is built with the onnx package. Its FLOPs, bytes and
memory are written out below from the shapes (not read from onnxcost), then
the roofline, all-reduce, pipeline and fit formulas of docs/MODEL.md are
applied to a made-up device with round figures. Exit 77 when onnx is missing.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
except ImportError:
    print("skipped: the onnx package is not installed")
    sys.exit(77)

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
args = ap.parse_args()

K, H, C = 256, 1024, 10
PEAK, BW, LINK = 10e12, 100e9, 10e9          # the device, SI units
EFF_C, EFF_M, EFF_COMM, LAUNCH = 0.5, 0.25, 0.5, 2e-6
GIB = 1 << 30
fails = 0


def check(name, got, want, rel=1e-9):
    global fails
    ok = (got == want) if isinstance(want, (int, str, list, tuple)) else abs(got - want) <= rel * max(abs(want), 1e-30)
    if not ok:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        fails += 1


def roof(flops, nbytes):
    tc, tm = flops / (PEAK * EFF_C), nbytes / (BW * EFF_M)
    return max(tc, tm) + LAUNCH, ("compute" if tc >= tm else "memory")


with tempfile.TemporaryDirectory() as tmp:
    w1 = numpy_helper.from_array(np.zeros((K, H), np.float32), "w1")
    w2 = numpy_helper.from_array(np.zeros((H, C), np.float32), "w2")
    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="act"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")],
        "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", C])], [w1, w2])
    model = os.path.join(tmp, "mlp.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), model)
    spec = os.path.join(tmp, "dev.json")
    with open(spec, "w") as f:
        json.dump({"name": "Round GPU", "fp32": PEAK / 1e12, "memory_gib": 1, "bandwidth_gbs": BW / 1e9,
                   "link_gbs": LINK / 1e9}, f)

    def run(*extra):
        out = subprocess.run([args.onnxcost, model, "--gpu-spec", spec, "--format", "json", "-q",
                              "--efficiency", str(EFF_C), "--mem-efficiency", str(EFF_M),
                              "--comm-efficiency", str(EFF_COMM), "--launch-us", str(LAUNCH * 1e6), *extra],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("FAIL onnxcost", extra, out.stderr)
            sys.exit(1)
        return json.loads(out.stdout)

    N = 1024
    d = run("--batch", str(N), "--gpus", "4", "--pipeline", "2")
    # by hand: FLOPs (MAC = 2 FLOPs, Relu 1 per element) and bytes (fp32)
    hand = {"fc1": (2 * N * K * H, 4 * (N * K + K * H) + 4 * N * H),
            "act": (N * H, 4 * N * H * 2),
            "fc2": (2 * N * H * C, 4 * (N * H + H * C) + 4 * N * C)}
    times = {}
    for node in d["nodes"]:
        fl, nb = hand[node["name"]]
        t, bound = roof(fl, nb)
        times[node["name"]] = t
        gp = node["gpu"]
        check(node["name"] + " time", gp["time_s"], t)
        check(node["name"] + " intensity", gp["intensity"], fl / nb)
        check(node["name"] + " attainable", gp["attainable_flops"], min(PEAK, fl / nb * BW))
        check(node["name"] + " bound", gp["bound"], bound)
    G = d["gpu"]
    latency = sum(times.values())
    check("latency", G["latency_s"], latency)
    check("samples/s", G["samples_per_s"], N / latency)
    check("ideal", G["ideal_compute_s"], sum(v[0] for v in hand.values()) / PEAK)

    # data parallel, 4 GPUs, SGD: backward 2x contractions + 1.5x the rest,
    # update streams 3 x gradient bytes, ring all-reduce 2(n-1)/n
    grad = 4 * (K * H + H * C)
    dp = G["data_parallel"]
    check("grad bytes", dp["grad_bytes"], grad)
    bwd = 2 * times["fc1"] + 1.5 * times["act"] + 2 * times["fc2"]
    upd = 3 * grad / (BW * EFF_M) + LAUNCH
    ar = 2 * 3 / 4 * grad / (LINK * EFF_COMM) + math.ceil(grad / (25 << 20)) * 2 * 3 * 10e-6
    check("backward", dp["backward_s"], bwd)
    check("update", dp["update_s"], upd)
    check("allreduce", dp["allreduce_s"], ar)
    step1 = latency + bwd + upd
    check("speedup serial", dp["speedup_serial"], 4 * step1 / (step1 + ar))
    check("speedup overlap", dp["speedup_overlap"], 4 * step1 / (latency + max(bwd, ar) + upd))

    # --optimizer with --gpu (no --gpus): the step a user training reads first,
    # forward + backward + update by hand as above (momentum streams 5 x the
    # gradient bytes: read w, g, m, write w, m), and its samples/s; the
    # latency and samples/s stay the forward pass's
    t = run("--batch", str(N), "--optimizer", "momentum")
    ts = t["gpu"]["training_step"]
    upd_m = 5 * grad / (BW * EFF_M) + LAUNCH
    check("train step optimizer", ts["optimizer"], "momentum")
    check("train step forward", ts["forward_s"], latency)
    check("train step backward", ts["backward_s"], bwd)
    check("train step update", ts["update_s"], upd_m)
    check("train step", ts["step_s"], latency + bwd + upd_m)
    check("train samples/s", ts["samples_per_s"], N / (latency + bwd + upd_m))
    check("inference samples/s beside it", t["gpu"]["samples_per_s"], N / latency)
    # --backward-ratio: a kernel class's backward over its forward instead
    # of 2 x a contraction and 1.5 x the rest; fc1 and fc2 are the gemm
    # class, the Relu eltwise; a class not named keeps the default
    b = run("--batch", str(N), "--optimizer", "momentum", "--backward-ratio", "gemm=3.25")["gpu"]["training_step"]
    bwd_g = 3.25 * (times["fc1"] + times["fc2"]) + 1.5 * times["act"]
    check("backward ratio gemm 3.25", b["backward_s"], bwd_g)
    check("backward ratio: the step", b["step_s"], latency + bwd_g + upd_m)
    check("backward ratio: gemm's backward", b["class_backward_s"]["gemm"], 3.25 * (times["fc1"] + times["fc2"]))
    check("backward ratio: the ratios", [round(b["backward_ratio"][c], 9) for c in ("gemm", "eltwise")], [3.25, 1.5])
    check("backward ratio: from the options", b["backward_from"], "options")
    b = run("--batch", str(N), "--optimizer", "momentum", "--backward-ratio", "eltwise=0.5,gemm=2.5",
            "--backward-ratio", "gemm=1")["gpu"]["training_step"]
    check("backward ratios, the later one per class", b["backward_s"],
          1 * (times["fc1"] + times["fc2"]) + 0.5 * times["act"])
    # --step-kernel-us: each kernel of the step adds X: the forward's 3 kernels, two backward kernels each,
    # and momentum's 5 per parameter tensor (w1, w2: PyTorch's per-tensor loop with zero_grad)
    k = run("--batch", str(N), "--optimizer", "momentum", "--step-kernel-us", "7.5")["gpu"]["training_step"]
    check("step kernels", k["step_kernels"], 3 + 2 * 3 + 5 * 2)
    check("step kernels' fixed cost", k["kernels_s"], 19 * 7.5e-6)
    check("step kernels: the step", k["step_s"], latency + bwd + upd_m + 19 * 7.5e-6)
    a = run("--batch", str(N), "--optimizer", "adam", "--step-kernel-us", "1")["gpu"]["training_step"]
    check("step kernels, adam's 9 per tensor", a["step_kernels"], 9 + 9 * 2)
    check("without --step-kernel-us: none", (ts["step_kernels"] > 0, ts["kernels_s"]), (True, 0.0))
    check("without --backward-ratio: the defaults", ts["backward_from"], "defaults")
    # the built-in RTX 3090's training fits (fits.def OC_TRAINING, one per layout) for eager PyTorch under
    # fp16 autocast: their kernel cost as fits.def writes it; none on a GPU without one (RTX 4090)
    defs = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "views", "perf", "fits.def")).read()
    entries = re.findall(r'OC_TRAINING\("rtx-3090", OC_RUNTIME_TORCH_EAGER, OC_DT_FLOAT16, (true|false),\s*"([^"]*)",\s*'
                         r'([0-9.]+),', defs)
    for layout, source, kus in entries:
        extra = ["--channels-last"] if layout == "true" else []

        def builtin(gpu, *more):
            out = subprocess.run([args.onnxcost, model, "--gpu", gpu, "--format", "json", "-q", "--batch", "64",
                                  "--runtime", "torch-eager", "--autocast", "fp16", "--optimizer", "momentum", *extra,
                                  *more], capture_output=True, text=True)
            return json.loads(out.stdout)["gpu"]["training_step"]
        f = builtin("rtx-3090")
        check(f"training fit {layout}: named", (f["training_fit"], f["backward_from"]), (source, "fit"))
        check(f"training fit {layout}: its kernel cost", f["kernel_s"], float(kus) * 1e-6, 1e-6)
        g = builtin("rtx-3090", "--backward-ratio", "gemm=2", "--step-kernel-us", "0")
        check(f"training fit {layout}: the options over it", (g["backward_from"], g["kernel_s"], g["training_fit"]),
              ("options", 0.0, None))
        n = builtin("rtx-4090")
        check(f"training fit {layout}: none on the RTX 4090", (n["backward_from"], n["kernel_s"], n["training_fit"]),
              ("defaults", 0.0, None))
    check("training fits: both layouts in fits.def", sorted(e[0] for e in entries), ["false", "true"])
    check("without --backward-ratio: the default ratios", [round(ts["backward_ratio"][c], 9) for c in ("gemm", "eltwise")],
          [2.0, 1.5])
    bt = subprocess.run([args.onnxcost, model, "--gpu-spec", spec, "-q", "--efficiency", str(EFF_C),
                         "--mem-efficiency", str(EFF_M), "--launch-us", str(LAUNCH * 1e6), "--batch", str(N),
                         "--optimizer", "sgd", "--backward-ratio", "gemm=3.25"], capture_output=True, text=True).stdout
    check("text: the ratios the backward took",
          "  Backward over forward per kernel class (--backward-ratio): gemm 3.25, eltwise 1.50\n"
          in bt, True)
    for bad in ("gemm", "gemm=0", "conv=2", "gemm=2,", "gemm=101"):
        q = subprocess.run([args.onnxcost, model, "--gpu-spec", spec, "--optimizer", "sgd", "--backward-ratio", bad],
                           capture_output=True, text=True)
        check(f"--backward-ratio {bad} refused", (q.returncode, len(q.stderr.strip().splitlines()), q.stdout),
              (2, 1, ""))
    text = subprocess.run([args.onnxcost, model, "--gpu-spec", spec, "-q", "--efficiency", str(EFF_C),
                           "--mem-efficiency", str(EFF_M), "--launch-us", str(LAUNCH * 1e6), "--batch", str(N),
                           "--optimizer", "momentum"], capture_output=True, text=True).stdout
    lines = text[text.index("Predicted on"):].splitlines()
    check("text: the runtime under the device", lines[1].startswith("  Runtime: nodes (one kernel per node"), True)
    first = 3  # the device, the runtime, the peaks; then the figures
    want = f"  Training step (ms, momentum): {(latency + bwd + upd_m) * 1e3:.3f} = forward {latency * 1e3:.3f}"
    check("text: the training step first", lines[first].startswith(want), True)
    check("text: training samples/s second",
          lines[first + 1] == f"  Training throughput: {N / (latency + bwd + upd_m):.1f} samples/s at batch {N}",
          True)
    check("text: inference labelled", any(line.endswith(f"samples/s at batch {N} (inference)") for line in lines), True)

    # pipeline, 2 stages by time: the better of the two cuts
    cuts = [((times["fc1"],), times["act"] + times["fc2"], 4 * N * H),
            ((times["fc1"] + times["act"]), times["fc2"], 4 * N * H)]
    best = min(cuts, key=lambda c: max(sum(c[0]) if isinstance(c[0], tuple) else c[0], c[1]))
    st = G["pipeline"]["stages"]
    first = sum(best[0]) if isinstance(best[0], tuple) else best[0]
    check("stages", len(st), 2)
    check("stage 1 time", st[0]["time_s"], first)
    check("stage 2 time", st[1]["time_s"], best[1])
    check("cut bytes", st[0]["send_bytes"], best[2])
    check("bottleneck", G["pipeline"]["bottleneck_s"],
          max(first + best[2] / (LINK * EFF_COMM), best[1]))

    # fit, inference: params + liveness peak (h and r live together at Relu)
    params = 4 * (K * H + H * C)
    reserve = 512 << 20
    f = run("--batch", "1", "--fit", "--reserve", "512MiB")["gpu"]["fit"]
    per_sample = 4 * 2 * H
    check("fit need", f["need_bytes"], params + per_sample)
    check("fit usable", f["usable_bytes"], GIB - reserve)
    check("fit max batch", f["max_batch"], (GIB - reserve - params) // per_sample)
    # fit, training with SGD: params + grads + what autograd saves: fc1's input
    # x and the Relu's output r (which fc2 keeps too); not h, not y
    f = run("--batch", "1", "--fit", "--reserve", "512MiB", "--optimizer", "sgd")["gpu"]["fit"]
    per_sample = 4 * (K + H)
    check("train need", f["need_bytes"], 2 * params + per_sample)
    check("train max batch", f["max_batch"], (GIB - reserve - 2 * params) // per_sample)

    # the same model in compare and sweep: one MLP of hidden width H and one
    # of width H2, each timed and fitted like analyze's by hand
    H2 = 512
    w1b = numpy_helper.from_array(np.zeros((K, H2), np.float32), "w1")
    w2b = numpy_helper.from_array(np.zeros((H2, C), np.float32), "w2")
    g2 = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="act"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")],
        "mlp2", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", C])], [w1b, w2b])
    model2 = os.path.join(tmp, "mlp2.onnx")
    onnx.save(helper.make_model(g2, opset_imports=[helper.make_opsetid("", 17)]), model2)

    def latency_by_hand(n, h):
        return sum(roof(fl, nb)[0] for fl, nb in (
            (2 * n * K * h, 4 * (n * K + K * h) + 4 * n * h), (n * h, 4 * n * h * 2),
            (2 * n * h * C, 4 * (n * h + h * C) + 4 * n * C)))

    def need_by_hand(n, h):  # inference: params + h and r live together at Relu
        return 4 * (K * h + h * C) + 4 * 2 * h * n

    gpu_opts = ["--gpu-spec", spec, "--efficiency", str(EFF_C), "--mem-efficiency", str(EFF_M),
                "--launch-us", str(LAUNCH * 1e6), "--reserve", "512MiB"]
    out = subprocess.run([args.onnxcost, "compare", model, model2, "--batch", "64", "--fit", "--format", "json",
                          *gpu_opts], capture_output=True, text=True)
    if out.returncode != 0:
        print("FAIL compare --gpu:", out.stderr)
        sys.exit(1)
    cmp = json.loads(out.stdout)
    check("compare device", cmp["gpu"]["device"]["name"], "Round GPU")
    check("compare usable", cmp["gpu"]["fit"]["usable_bytes"], GIB - reserve)
    for m, h in zip(cmp["models"], (H, H2)):
        lat = latency_by_hand(64, h)
        check(f"compare H={h} time", m["gpu"]["time_s"], lat)
        check(f"compare H={h} samples/s", m["gpu"]["samples_per_s"], 64 / lat)
        check(f"compare H={h} need", m["gpu"]["need_bytes"], need_by_hand(64, h))
        check(f"compare H={h} fits", m["gpu"]["fits"], True)
        check(f"compare H={h} max batch", m["gpu"]["max_batch"],
              (GIB - reserve - 4 * (K * h + h * C)) // (4 * 2 * h))
    out = subprocess.run([args.onnxcost, "compare", model, model2, "--batch", "64", "--fit", *gpu_opts],
                         capture_output=True, text=True)
    rows = {line.split()[0]: line for line in out.stdout.splitlines() if line.startswith(tmp)}
    # the narrower model is faster, lighter and fits the larger batch: all its
    # GPU columns carry the best mark, with their ratio to the first model
    lat1, lat2 = latency_by_hand(64, H), latency_by_hand(64, H2)
    check("compare text rows", len(rows), 2)
    want = f"{lat2 * 1e3:.3f} ({lat2 / lat1:.2f}x) *"
    check("compare text time of H2", want in rows.get(model2, ""), True)
    mb2 = (GIB - reserve - 4 * (K * H2 + H2 * C)) // (4 * 2 * H2)
    mb1 = (GIB - reserve - 4 * (K * H + H * C)) // (4 * 2 * H)
    check("compare text max batch of H2", f"{mb2} ({mb2 / mb1:.2f}x) *" in rows.get(model2, ""), True)

    batches = [1, 64, 1024, 200000]
    out = subprocess.run([args.onnxcost, "sweep", model, "--dim", "N=" + ",".join(map(str, batches)), "--fit",
                          "--format", "json", *gpu_opts], capture_output=True, text=True)
    if out.returncode != 0:
        print("FAIL sweep --gpu:", out.stderr)
        sys.exit(1)
    sw = json.loads(out.stdout)
    check("sweep rows", len(sw["rows"]), len(batches))
    for row, n in zip(sw["rows"], batches):
        lat = latency_by_hand(n, H)
        check(f"sweep N={n} time", row["gpu"]["time_s"], lat)
        check(f"sweep N={n} samples/s", row["gpu"]["samples_per_s"], n / lat)
        check(f"sweep N={n} need", row["gpu"]["need_bytes"], need_by_hand(n, H))
        check(f"sweep N={n} fits", row["gpu"]["fits"], need_by_hand(n, H) <= GIB - reserve)

print(f"gpu model: {'ok' if not fails else str(fails) + ' failed'}")
sys.exit(1 if fails else 0)
