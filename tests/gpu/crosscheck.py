#!/usr/bin/env python3
"""The cross-checks of docs/REPLAY.md, run on a GPU machine in one go.

  1. GEMM M = N = K = 4096, FP32: onnxcost's counted FP32 FLOPs against
     2 * 4096^3 and against Nsight Compute's SASS counters for the same
     kernel; its time against the device's FP32 peak; the same under TF32.
  2. Conv nodes of ResNet-50: onnxcost's FP32 FLOPs and DRAM bytes against
     ncu's for the kernels of one repetition.
  3. End to end: the sum of onnxcost's per-node medians against PyTorch
     running the same module (ResNet-50 at batch 1 and 8, the GPT-2 of
     tests/oracle/transformers.py at batch 1 x 128), FP32 with TF32 off,
     exported to ONNX here so both run the same graph.

Every step writes what it ran and saw into --out (a summary.md plus the
replay JSON files); a step that cannot run says why and the rest go on.
Needs python3 with torch, torchvision and onnx (the device image has them),
and ncu on PATH for the Nsight Compute comparisons.

Usage: crosscheck.py --onnxcost BIN --src REPO --out DIR [--quick]
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
import traceback

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--summary", help="where summary.md goes (default: in --out)")
ap.add_argument("--quick", action="store_true", help="fewer repetitions, no GPT-2")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
summary = open(a.summary or os.path.join(a.out, "summary.md"), "a")


def say(s=""):
    print(s, flush=True)
    summary.write(s + "\n")
    summary.flush()


def sh(cmd, timeout=900, **kw):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    say(f"    $ {' '.join(cmd)}  -> exit {p.returncode} in {time.time() - t:.1f} s")
    if p.returncode != 0:
        say("      " + (p.stderr or p.stdout).strip().replace("\n", "\n      ")[:2000])
    return p


def replay(model, tag, args):
    out = os.path.join(a.out, tag + ".json")
    p = sh([a.onnxcost, "replay", model, "--format", "json", "-o", out] + args)
    return json.load(open(out)) if p.returncode == 0 else None


SASS = ["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]
DRAM = ["dram__bytes_read.sum", "dram__bytes_write.sum"]


def ncu(cmd, tag):
    """Per-launch metric rows of `cmd` under ncu (no clock or cache control, as
    onnxcost replays), or None."""
    exe = shutil.which("ncu")
    if not exe:
        say("    ncu not on PATH: skipped")
        return None
    p = sh([exe, "--metrics", ",".join(SASS + DRAM), "--csv", "--page", "raw", "--print-units", "base",
            "--clock-control", "none", "--cache-control", "none", "--target-processes", "all"] + cmd, timeout=1500)
    open(os.path.join(a.out, tag + ".ncu.csv"), "w").write(p.stdout)
    if p.returncode != 0:
        return None
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    rows = [r for r in rows if r.get("Kernel Name") and r.get(SASS[2]) not in (None, "")]

    def num(r, k):
        try:
            return float(r[k].replace(",", ""))
        except (KeyError, ValueError):
            return float("nan")

    return [{"kernel": r["Kernel Name"], "fp32": num(r, SASS[0]) + num(r, SASS[1]) + 2 * num(r, SASS[2]),
             "read": num(r, DRAM[0]), "write": num(r, DRAM[1])} for r in rows]


def step(title, fn):
    say(f"\n## {title}\n")
    try:
        fn()
    except Exception:
        say("    step failed:\n```\n" + traceback.format_exc() + "```")


import torch  # noqa: E402  (after the helpers: a missing torch still leaves a summary)

dev = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA device visible to torch"
say(f"# onnxcost replay cross-checks, {time.strftime('%Y-%m-%d %H:%M')}, {dev}")
say(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")


def gemm():
    import onnx
    from onnx import TensorProto, helper
    m = os.path.join(a.out, "gemm4096.onnx")
    g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="gemm4096")], "g",
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4096, 4096]) for n in ("a", "b")],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4096, 4096])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), m)
    want = 2 * 4096 ** 3
    for math in ("fp32", "tf32"):
        d = replay(m, f"gemm4096_{math}", ["--math", math, "--reps", "20" if a.quick else "100"])
        if not d:
            continue
        n = d["nodes"][0]
        t = n["time_ns"]["median"] * 1e-9
        peak = d["device"]["peak_fp32_flops"]
        c = n.get("counters", {})
        say(f"- {math}: {n['call']} [{n['algo']}], {n['kernels_per_rep']} kernel(s) `{n['kernels'][:90]}`")
        say(f"  median {t * 1e3:.3f} ms (p10 {n['time_ns']['p10'] * 1e-6:.3f}, p90 {n['time_ns']['p90'] * 1e-6:.3f}),"
            f" {want / t / 1e12:.2f} TFLOP/s = {100 * want / t / peak:.1f} % of the FP32 peak {peak / 1e12:.1f} TFLOP/s")
        if c:
            say(f"  counters: FP32 {c['fp32_flops']:.6g} ({c['fp32_flops'] / want:.5f} of 2*4096^3), tensor "
                f"{c['tensor_flops']:.6g} ({c['tensor_flops'] / want:.5f}), DRAM read {c['dram_read_bytes'] / 2**20:.1f}"
                f" MiB, write {c['dram_write_bytes'] / 2**20:.1f} MiB")
        else:
            say(f"  no counters: {d['device'].get('counters_reason', n.get('reason', ''))}")
    rows = ncu([a.onnxcost, "replay", m, "--math", "fp32", "--reps", "1", "--warmup", "0", "--no-counters",
                "--format", "json", "-o", os.path.join(a.out, "gemm4096_ncu_run.json")], "gemm4096")
    if rows:
        big = [r for r in rows if not r["kernel"].startswith(("k_", "void k_"))]
        say(f"- ncu: {len(rows)} launches, {len(big)} not ours; FP32 per GEMM launch: "
            + ", ".join(f"{r['fp32']:.6g}" for r in big[:6]))
        try:
            ours = json.load(open(os.path.join(a.out, "gemm4096_fp32.json")))["nodes"][0]["counters"]["fp32_flops"]
            if big:
                say(f"  onnxcost {ours:.6g} vs ncu {big[-1]['fp32']:.6g}: ratio {ours / big[-1]['fp32']:.5f}"
                    f" (within 1 %: {'yes' if abs(ours / big[-1]['fp32'] - 1) <= 0.01 else 'NO'})")
        except (OSError, KeyError, IndexError):
            say("  (no onnxcost counters to compare)")


def export(model, args, path, names, outs):
    sys.path.insert(0, os.path.join(a.src, "tests", "oracle"))
    import transformers as oracle  # tests/oracle/transformers.py, not Hugging Face's
    kw = dict(input_names=names, output_names=outs, opset_version=17)
    try:
        oracle.onnx_export(model.eval(), args, path, **kw)
    except Exception as e:  # a torch without the TorchScript exporter
        say(f"    TorchScript export failed ({type(e).__name__}: {str(e)[:120]}); trying dynamo")
        with torch.no_grad():
            torch.onnx.export(model.eval(), args, path, dynamo=True, **kw)


def torch_time(model, args, reps):
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    model = model.cuda().eval()
    args = tuple(x.cuda() for x in args)
    ts = []
    with torch.no_grad():
        for _ in range(20):
            model(*args)
        torch.cuda.synchronize()
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            model(*args)
            e.record()
            e.synchronize()
            ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2], ts[len(ts) // 10], ts[(9 * len(ts)) // 10]


def e2e(tag, model, args, names, outs, extra):
    path = os.path.join(a.out, tag + ".onnx")
    export(model, args, path, names, outs)
    d = replay(path, tag, ["--math", "fp32", "--reps", "20" if a.quick else "50"] + extra)
    if not d:
        return
    nodes = d["nodes"]
    meas = [n for n in nodes if n["status"] == "measured"]
    other = [n for n in nodes if n["status"] in ("skipped", "failed")]
    total = sum(n["time_ns"]["median"] for n in meas) * 1e-6
    med, p10, p90 = torch_time(model, args, 50 if a.quick else 200)
    say(f"- {tag}: {len(nodes)} nodes, {len(meas)} measured, "
        f"{sum(n['status'] == 'alias' for n in nodes)} aliases, {len(other)} skipped/failed")
    for n in other[:10]:
        say(f"    {n['status']}: {n['name']} ({n['op']}): {n.get('reason', '')[:120]}")
    say(f"  sum of per-node medians {total:.3f} ms; PyTorch forward median {med:.3f} ms "
        f"(p10 {p10:.3f}, p90 {p90:.3f}); ratio {total / med:.3f}")
    by = {}
    for n in meas:
        by[n["op"]] = by.get(n["op"], 0) + n["time_ns"]["median"] * 1e-6
    say("  by op: " + ", ".join(f"{k} {v:.3f} ms" for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:8]))
    with_c = [n for n in meas if "counters" in n]
    if with_c:
        r = [n["counters"]["fp32_flops"] / n["estimate"]["flops"] for n in with_c
             if n["op"] in ("Conv", "MatMul", "Gemm") and n["estimate"]["flops"] > 0]
        if r:
            r.sort()
            say(f"  measured/estimated FP32 FLOPs over {len(r)} Conv/MatMul/Gemm nodes: min {r[0]:.3f}, "
                f"median {r[len(r) // 2]:.3f}, max {r[-1]:.3f}")


def resnet():
    import torchvision
    torch.manual_seed(0)
    for b in (1, 8):
        e2e(f"resnet50_b{b}", torchvision.models.resnet50(), (torch.randn(b, 3, 224, 224),), ["x"], ["y"], [])


def conv_ncu():
    p = os.path.join(a.out, "resnet50_b1.onnx")
    d = json.load(open(os.path.join(a.out, "resnet50_b1.json")))
    convs = [n for n in d["nodes"] if n["op"] == "Conv" and n["status"] == "measured" and "counters" in n]
    pick = [convs[0], convs[len(convs) // 2], convs[-1]] if len(convs) >= 3 else convs
    for n in pick:
        name = n["name"]
        rx = "^" + "".join("\\" + ch if ch in ".^$*+?()[]{}|\\/" else ch for ch in name) + "$"
        tag = "conv_" + "".join(ch if ch.isalnum() else "_" for ch in name)[-40:]
        run_json = os.path.join(a.out, tag + "_ncu_run.json")
        rows = ncu([a.onnxcost, "replay", p, "--nodes", rx, "--math", "fp32", "--reps", "1", "--warmup", "0",
                    "--no-counters", "--format", "json", "-o", run_json], tag)
        if not rows:
            continue
        try:
            k = json.load(open(run_json))
            kn = next(x for x in k["nodes"] if x["name"] == name)["kernels_per_rep"]
        except (OSError, StopIteration, KeyError):
            kn = n["kernels_per_rep"]
        last = rows[-kn:] if kn else []
        f = sum(r["fp32"] for r in last)
        c = n["counters"]
        say(f"- {name}: last repetition under ncu = {kn} kernel(s) {[r['kernel'][:40] for r in last]}")
        say(f"  FP32: ncu {f:.6g}, onnxcost {c['fp32_flops']:.6g}, estimate {n['estimate']['flops']:.6g}; "
            f"ratio onnxcost/ncu {c['fp32_flops'] / f if f else float('nan'):.5f}")
        say(f"  DRAM read+write: ncu {sum(r['read'] + r['write'] for r in last) / 2**20:.2f} MiB, onnxcost "
            f"{(c['dram_read_bytes'] + c['dram_write_bytes']) / 2**20:.2f} MiB (caches not flushed in either)")


def gpt2():
    sys.path.insert(0, os.path.join(a.src, "tests", "oracle"))
    import transformers as oracle
    torch.manual_seed(0)
    e2e("gpt2_b1x128", oracle.GPT2(), (torch.randint(0, 50257, (1, 128)),), ["input_ids"], ["logits"], [])


step("GEMM 4096^3 (FP32 and TF32)", gemm)
step("End to end: ResNet-50 (torchvision), FP32", resnet)
step("Conv nodes under Nsight Compute", conv_ncu)
if not a.quick:
    step("End to end: GPT-2 (tests/oracle/transformers.py), FP32, batch 1 x 128", gpt2)
say("\ndone")
