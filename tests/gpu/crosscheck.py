#!/usr/bin/env python3
"""The GPU checks of issue 16 and docs/REPLAY.md, as steps that device.sh runs
one after another on a GPU machine. Every step appends what it ran and saw to
--summary as soon as it has it, keeps its data in --work, and fails alone: a
step that cannot run says why, and the next one starts.

  models     ResNet-50 (torchvision), GPT-2 small and DistilBERT-base
             (tests/oracle/transformers.py) exported to ONNX, opset 17
             (LayerNormalization as one node), random weights
  gemm       MatMul 4096^3: strict FP32 and TF32; counted FP32 FLOPs against
             2*4096^3 and against Nsight Compute on the same kernel
  replay     onnxcost replay of the MNIST net, ResNet-50 at batch 1 (default
             options, wall time: the replay-speed figure) and 32, GPT-2 and
             DistilBERT at 1 x 128, strict FP32; every node accounted for
  torch      the same models in PyTorch on the same GPU, eager and CUDA
             graphs: end-to-end time against the sum of the replay's per-node
             medians; peak memory against onnxcost's inference estimate
  ncu        a Conv, a MatMul and a LayerNormalization node: onnxcost's FP32
             FLOPs against Nsight Compute's SASS counters on the same kernels
  calibrate  onnxcost calibrate fitted on each model and checked on the
             others; predicted end to end before and after, against the
             replay sum and PyTorch
  table      measured against analytic FLOPs per Conv/Gemm/MatMul node, with
             the cuDNN algorithm named
  collect    the results as they are committed: <gpu>-<model>.json, the
             calibrated spec, <gpu>.md; checked by tests/gpu/results_check.py

Needs python3 with torch, torchvision and onnx (the device image has them),
and ncu on PATH for the Nsight Compute steps.

Usage: crosscheck.py STEP ... --onnxcost BIN --src REPO --work DIR --summary FILE
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

ap = argparse.ArgumentParser()
ap.add_argument("steps", nargs="+")
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--src", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--summary", required=True)
ap.add_argument("--tag", help="torch1: the model to measure (the torch step runs one process per model)")
a = ap.parse_args()
os.makedirs(a.work, exist_ok=True)
summary = open(a.summary, "a")
sys.path.insert(0, os.path.join(a.src, "tests", "oracle"))


def say(s=""):
    print(s, flush=True)
    summary.write(s + "\n")
    summary.flush()


def sh(cmd, timeout=900, quiet=False, **kw):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if not quiet or p.returncode != 0:
        say(f"    $ {' '.join(cmd)[:300]}  -> exit {p.returncode} in {time.time() - t:.1f} s")
    if p.returncode != 0:
        say("      " + (p.stderr or p.stdout).strip().replace("\n", "\n      ")[:1500])
    return p


def path(*parts):
    return os.path.join(a.work, *parts)


def load(name, default=None):
    try:
        return json.load(open(path(name)))
    except (OSError, ValueError):
        return default


def store(name, obj):
    json.dump(obj, open(path(name), "w"), indent=1)


# models and bindings, one place: tag -> (onnx file, onnxcost bind args, torch builder key, batch, seq)
MODELS = {
    "mnist": (os.path.join(a.src, "fixtures", "mnist", "examples_net.onnx"), [], None),
    "resnet50_b1": (path("resnet50.onnx"), ["--batch", "1"], ("resnet50", 1, None)),
    "resnet50_b32": (path("resnet50.onnx"), ["--batch", "32"], ("resnet50", 32, None)),
    "gpt2_b1x128": (path("gpt2.onnx"), ["--dim", "batch=1", "--dim", "sequence=128"], ("gpt2", 1, 128)),
    "distilbert_b1x128": (path("distilbert.onnx"), ["--dim", "batch=1", "--dim", "sequence=128"],
                          ("distilbert", 1, 128)),
}
# more convolutional nets, replayed only (the convnets step): a calibration
# checked on a convolutional net it did not see
CONVNETS = ("resnet18", "mobilenet_v2")
for _k in CONVNETS:
    for _b in (1, 32):
        MODELS[f"{_k}_b{_b}"] = (path(_k + ".onnx"), ["--batch", str(_b)], None)


def torch_model(key, batch, seq):
    import torch
    torch.manual_seed(0)
    if key == "resnet50" or key in CONVNETS:
        import torchvision
        return getattr(torchvision.models, key)(), (torch.randn(batch, 3, 224, 224),)
    import transformers as oracle  # tests/oracle/transformers.py, not Hugging Face's
    ids = torch.randint(0, 1000, (batch, seq))
    if key == "gpt2":
        return oracle.GPT2(), (ids,)
    return oracle.DistilBert(), (ids, torch.ones_like(ids))


def step_models():
    import torch
    import transformers as oracle
    for key, names, outs in (("resnet50", ["x"], ["y"]), ("gpt2", ["input_ids"], ["logits"]),
                             ("distilbert", ["input_ids", "attention_mask"], ["last_hidden_state"])):
        out = path(key + ".onnx")
        if os.path.exists(out):
            say(f"- {key}: {out} already there")
            continue
        t = time.time()
        model, args = torch_model(key, 1 if key == "resnet50" else 2, None if key == "resnet50" else 8)
        dyn = {n: ({0: "batch"} if key == "resnet50" else {0: "batch", 1: "sequence"}) for n in names + outs}
        kw = dict(input_names=names, output_names=outs, dynamic_axes=dyn, opset_version=17)
        try:
            oracle.onnx_export(model.eval(), args, out, **kw)
        except Exception as e:  # a torch without the TorchScript exporter
            say(f"    TorchScript export of {key} failed ({type(e).__name__}: {str(e)[:160]}); trying dynamo")
            with torch.no_grad():
                torch.onnx.export(model.eval(), args, out, dynamo=True, **kw)
        say(f"- {key}: exported in {time.time() - t:.1f} s, {os.path.getsize(out) / 2**20:.1f} MiB")


def replay(tag, extra, timeout=900):
    model, bind, _ = MODELS[tag]
    out = path(tag + ".json")
    t = time.time()
    p = sh([a.onnxcost, "replay", model, "--format", "json", "-o", out] + bind + extra, timeout=timeout)
    wall = time.time() - t
    walls = load("walltimes.json", {})
    walls[tag] = {"wall_s": wall, "options": extra, "exit": p.returncode}
    store("walltimes.json", walls)
    return (json.load(open(out)) if p.returncode == 0 else None), wall


def describe(tag, d, wall):
    nodes = d["nodes"]
    st = {s: sum(n["status"] == s for n in nodes) for s in ("measured", "alias", "skipped", "failed")}
    meas = [n for n in nodes if n["status"] == "measured"]
    total = sum(n["time_ns"]["median"] for n in meas) * 1e-6
    counters = sum("counters" in n for n in meas)
    say(f"- {tag}: {len(nodes)} nodes: {st['measured']} measured ({counters} with counters), {st['alias']} aliases, "
        f"{st['skipped']} skipped, {st['failed']} failed; wall {wall:.1f} s; sum of medians {total:.3f} ms")
    for n in [n for n in nodes if n["status"] in ("skipped", "failed")][:8]:
        say(f"    {n['status']}: {n['name']} ({n['op']}): {n.get('reason', '')[:140]}")
    by = {}
    for n in meas:
        by[n["op"]] = by.get(n["op"], 0) + n["time_ns"]["median"] * 1e-6
    say("    by op: " + ", ".join(f"{k} {v:.3f} ms" for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:8]))
    if not d["device"].get("counters"):
        say(f"    no counters: {d['device'].get('counters_reason', '')}")


def step_gemm():
    import onnx
    from onnx import TensorProto, helper
    m = path("gemm4096.onnx")
    g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="gemm4096")], "g",
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4096, 4096]) for n in ("a", "b")],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4096, 4096])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), m)
    MODELS["gemm4096"] = (m, [], None)
    want = 2 * 4096 ** 3
    for math_ in ("fp32", "tf32"):
        d, _ = replay("gemm4096", ["--math", math_, "--reps", "50"])
        if not d:
            continue
        os.replace(path("gemm4096.json"), path(f"gemm4096_{math_}.json"))
        n = d["nodes"][0]
        t = n["time_ns"]["median"] * 1e-9
        peak = d["device"]["peak_fp32_flops"]
        c = n.get("counters", {})
        say(f"- {math_}: {n['call']} [{n['algo']}], {n['kernels_per_rep']} kernel(s) `{n['kernels'][:100]}`")
        say(f"  median {t * 1e3:.3f} ms (p10 {n['time_ns']['p10'] * 1e-6:.3f}, p90 {n['time_ns']['p90'] * 1e-6:.3f}),"
            f" {want / t / 1e12:.2f} TFLOP/s = {100 * want / t / peak:.1f} % of the FP32 peak {peak / 1e12:.1f} TFLOP/s")
        if c:
            say(f"  counted: FP32 {c['fp32_flops']:.6g} ({c['fp32_flops'] / want:.5f} of 2*4096^3), tensor "
                f"{c['tensor_flops']:.6g} ({c['tensor_flops'] / want:.5f}), DRAM read "
                f"{c['dram_read_bytes'] / 2**20:.1f} MiB, write {c['dram_write_bytes'] / 2**20:.1f} MiB")
        else:
            say(f"  no counters: {d['device'].get('counters_reason', n.get('reason', ''))}")
    rows = ncu_rows([a.onnxcost, "replay", m, "--math", "fp32", "--reps", "1", "--warmup", "0", "--no-counters",
                     "--format", "json", "-o", path("gemm4096_ncu_run.json")], "gemm4096")
    ours = (load("gemm4096_fp32.json", {}).get("nodes", [{}])[0].get("counters") or {}).get("fp32_flops")
    if rows:
        big = [r for r in rows if not r["kernel"].startswith(("k_", "void k_", "oc_"))]
        say(f"- ncu: {len(rows)} launches under ncu, {len(big)} not onnxcost's own; FP32 of the last: "
            f"{big[-1]['fp32']:.6g} ({big[-1]['fp32'] / want:.5f} of 2*4096^3)" if big else "- ncu: no GEMM kernel")
        if big and ours:
            r = ours / big[-1]["fp32"]
            say(f"  onnxcost {ours:.6g} / ncu {big[-1]['fp32']:.6g} = {r:.5f} "
                f"(within 1 %: {'yes' if abs(r - 1) <= 0.01 else 'NO'})")


SASS = ["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"]
DRAM = ["dram__bytes_read.sum", "dram__bytes_write.sum"]


def ncu_rows(cmd, tag):
    """Per-launch rows of `cmd` under ncu (no clock or cache control, as the
    replay runs), or None."""
    exe = shutil.which("ncu") or next((p for p in ("/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/ncu")
                                       if os.path.exists(p)), None)
    if not exe:
        say("    ncu not found: skipped")
        return None
    p = sh([exe, "--metrics", ",".join(SASS + DRAM), "--csv", "--page", "raw", "--print-units", "base",
            "--clock-control", "none", "--cache-control", "none", "--target-processes", "all"] + cmd, timeout=1200)
    open(path(tag + ".ncu.csv"), "w").write(p.stdout)
    if p.returncode != 0:
        return None
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith('"')]
    rows = [r for r in csv.DictReader(io.StringIO("\n".join(lines))) if r.get("Kernel Name") and r.get(SASS[2])]

    def num(r, k):
        try:
            return float(r[k].replace(",", ""))
        except (KeyError, ValueError):
            return float("nan")

    return [{"kernel": r["Kernel Name"], "fp32": num(r, SASS[0]) + num(r, SASS[1]) + 2 * num(r, SASS[2]),
             "read": num(r, DRAM[0]), "write": num(r, DRAM[1])} for r in rows]


def step_convnets():
    """ResNet-18 and MobileNetV2 (depthwise convolutions), exported as the
    models step exports ResNet-50 and replayed in strict FP32 at batch 1 and
    32: convolutional nets for the calibration to be checked on."""
    import torch
    import transformers as oracle
    for key in CONVNETS:
        out = path(key + ".onnx")
        if not os.path.exists(out):
            t = time.time()
            model, args = torch_model(key, 1, None)
            oracle.onnx_export(model.eval(), args, out, input_names=["x"], output_names=["y"],
                               dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=17)
            say(f"- {key}: exported in {time.time() - t:.1f} s, {os.path.getsize(out) / 2**20:.1f} MiB")
        for b in (1, 32):
            tag = f"{key}_b{b}"
            d, wall = replay(tag, ["--math", "fp32", "--reps", "30", "--warmup", "5"])
            if d:
                describe(tag, d, wall)
                p = sh([sys.executable, os.path.join(a.src, "tests", "gpu", "results_check.py"), path(tag + ".json")],
                       quiet=True)
                say("    " + (p.stdout.strip().splitlines() or ["?"])[-1][:300])
    del torch


def step_replay():
    # ResNet-50 at batch 1 with the default options: the replay-speed figure
    plan = [("mnist", ["--math", "fp32"]), ("resnet50_b1", ["--math", "fp32"]),
            ("gpt2_b1x128", ["--math", "fp32", "--reps", "30", "--warmup", "5"]),
            ("distilbert_b1x128", ["--math", "fp32", "--reps", "30", "--warmup", "5"]),
            ("resnet50_b32", ["--math", "fp32", "--reps", "30", "--warmup", "5"])]
    for tag, extra in plan:
        if not os.path.exists(MODELS[tag][0]):
            say(f"- {tag}: no model ({MODELS[tag][0]}): run the models step")
            continue
        d, wall = replay(tag, extra)
        if d:
            describe(tag, d, wall)
            p = sh([sys.executable, os.path.join(a.src, "tests", "gpu", "results_check.py"), path(tag + ".json")],
                   quiet=True)
            say("    " + (p.stdout.strip().splitlines() or ["?"])[-1][:300])


def cuda_time(fn, reps):
    import cuda_timing
    return cuda_timing.summary(cuda_timing.event_times_ms(fn, reps))


def torch_measure(tag):
    """One model in PyTorch, in a process of its own (a failed CUDA-graph
    capture can leave the process's CUDA state unusable): eager time, peak
    memory of one inference, then the CUDA-graph time. Prints one JSON line."""
    import torch
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    key, batch, seq = MODELS[tag][2]
    model, args = torch_model(key, batch, seq or 1)
    model = model.cuda().eval()
    args = tuple(x.cuda() for x in args)
    r = {"torch": torch.__version__, "cudnn": torch.backends.cudnn.version()}
    torch.cuda.synchronize()
    # before any forward: the weights (parameters and buffers) and the inputs
    r["weights_and_inputs_bytes"] = torch.cuda.memory_allocated()
    r["weight_bytes"] = sum(t.numel() * t.element_size() for t in list(model.parameters()) + list(model.buffers()))
    with torch.no_grad():
        for _ in range(20):
            model(*args)
        torch.cuda.synchronize()
        mem_only = os.environ.get("ONNXCOST_TORCH_MEM_ONLY") == "1"
        if not mem_only:
            r["eager"] = cuda_time(lambda: model(*args), 100)
        # peak memory of one inference: the allocator's high-water mark and the
        # device's used memory, from a state with only the weights and inputs
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
        # what the forwards left allocated with their outputs gone: the
        # libraries' persistent workspaces (cuBLAS keeps one per stream in
        # PyTorch's allocator), not the model's memory
        r["library_workspace_bytes"] = max(0, torch.cuda.memory_allocated() - r["weights_and_inputs_bytes"])
        total = torch.cuda.mem_get_info()[1]
        model(*args)
        torch.cuda.synchronize()
        r["peak_allocated_bytes"] = torch.cuda.max_memory_allocated()
        r["model_peak_bytes"] = r["peak_allocated_bytes"] - r["library_workspace_bytes"]
        r["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
        r["device_used_bytes"] = total - torch.cuda.mem_get_info()[0]
        print(json.dumps(r), flush=True)  # what is measured so far, if the capture below breaks the process
        if mem_only:
            return
        try:
            g = torch.cuda.CUDAGraph()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    model(*args)
            torch.cuda.current_stream().wait_stream(side)
            with torch.cuda.graph(g):
                model(*args)
            for _ in range(5):
                g.replay()
            torch.cuda.synchronize()
            r["graph"] = cuda_time(g.replay, 100)
        except Exception as e:
            r["graph_error"] = f"{type(e).__name__}: {str(e)[:200]}"
    print(json.dumps(r), flush=True)


def torch_env():
    """The environment for PyTorch on the GPU: without the CUDA library folders
    device.sh put first for the replay, since PyTorch refuses a cuDNN older than
    the one it bundles (seen on the H200: 9.14 on the path, 9.19 in the wheel)."""
    env = dict(os.environ)
    if "ONNXCOST_TORCH_LD_LIBRARY_PATH" in env:
        env["LD_LIBRARY_PATH"] = env["ONNXCOST_TORCH_LD_LIBRARY_PATH"]
    return env


def torch1(tag, env):
    """torch_measure(tag) in a process of its own; its JSON lines and the process."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "torch1", "--onnxcost", a.onnxcost, "--src", a.src,
                        "--work", a.work, "--summary", os.devnull, "--tag", tag],
                       capture_output=True, text=True, timeout=600, env=env)
    return [ln for ln in p.stdout.splitlines() if ln.startswith("{")], p


def step_torch():
    res = load("torch.json", {})
    for tag, (model_path, bind, tm) in MODELS.items():
        if not tm:
            continue
        lines, p = torch1(tag, torch_env())
        if not lines:
            say(f"- {tag}: PyTorch failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-600:]}")
            continue
        r = json.loads(lines[-1])
        if p.returncode != 0 and "graph" not in r:
            r.setdefault("graph_error", f"the capture ended the process (exit {p.returncode}): "
                                        f"{p.stderr.strip()[-200:]}")
        # the same inference with cuDNN's workspace capped at 0 MiB
        # (CUDNN_CONV_WSCAP_DBG, PyTorch's documented switch): its peak less
        # the transient workspaces of the convolution algorithms
        ql, _ = torch1(tag, dict(torch_env(), CUDNN_CONV_WSCAP_DBG="0", ONNXCOST_TORCH_MEM_ONLY="1"))
        if ql:
            m = json.loads(ql[-1])
            r["no_cudnn_workspace"] = {k: m.get(k) for k in ("peak_allocated_bytes", "library_workspace_bytes",
                                                             "model_peak_bytes", "weights_and_inputs_bytes")}
        # onnxcost's estimate for the same graph and batch: the inference need of --fit
        if os.path.exists(model_path):
            q = sh([a.onnxcost, model_path, "--gpu", gpu_name(), "--fit", "--format", "json"] + bind, quiet=True)
            if q.returncode == 0:
                doc = json.loads(q.stdout)
                r["onnxcost_need_bytes"] = doc.get("gpu", {}).get("fit", {}).get("need_bytes")
                r["onnxcost_reserve_bytes"] = doc.get("gpu", {}).get("fit", {}).get("reserve_bytes")
                r["onnxcost_weight_bytes"] = doc.get("totals", {}).get("params_bytes")
                r["onnxcost_peak_activation_bytes"] = doc.get("totals", {}).get("peak_activation_bytes")
                r["onnxcost_predicted_ms"] = doc.get("gpu", {}).get("latency_s", 0) * 1e3
        res[tag] = r
        store("torch.json", res)
        rep = load(tag + ".json")
        rsum = sum(n["time_ns"]["median"] for n in rep["nodes"] if n["status"] == "measured") * 1e-6 if rep else None
        line = f"- {tag}: PyTorch eager {r['eager']['median_ms']:.3f} ms (p10 {r['eager']['p10_ms']:.3f}, " \
               f"p90 {r['eager']['p90_ms']:.3f})"
        line += f", CUDA graph {r['graph']['median_ms']:.3f} ms" if "graph" in r else \
            f", no CUDA graph ({r.get('graph_error', '')})"
        if rsum:
            line += f"; replay sum {rsum:.3f} ms = {rsum / r['eager']['median_ms']:.3f} x eager"
            if "graph" in r:
                line += f", {rsum / r['graph']['median_ms']:.3f} x graph"
        say(line)
        say("    " + memory_line(r))


def memory_line(r):
    """PyTorch's memory of one inference beside onnxcost's: the model's peak
    (the allocator's high-water mark less the libraries' persistent
    workspaces) against the inference need, and the device's used memory
    against the need plus --fit's reserve (the CUDA context, libraries and
    workspaces)."""
    mib = 2 ** 20
    s = f"memory: PyTorch peak allocated {r['peak_allocated_bytes'] / mib:.1f} MiB"
    if "model_peak_bytes" not in r:  # a result from before the workspace was measured
        return s + f", device used {r['device_used_bytes'] / mib:.1f} MiB"
    s += (f" = weights + inputs {r['weights_and_inputs_bytes'] / mib:.1f} MiB (weights {r['weight_bytes'] / mib:.1f})"
          f" + library workspace {r['library_workspace_bytes'] / mib:.1f} + activations "
          f"{(r['model_peak_bytes'] - r['weights_and_inputs_bytes']) / mib:.1f}; device used "
          f"{r['device_used_bytes'] / mib:.1f} MiB")
    need, res = r.get("onnxcost_need_bytes"), r.get("onnxcost_reserve_bytes")
    if not need:
        return s + "; onnxcost: not computed"
    s += (f"; onnxcost need {need / mib:.1f} MiB (weights {(r.get('onnxcost_weight_bytes') or 0) / mib:.1f}) = "
          f"{need / r['model_peak_bytes']:.3f} x the model's peak "
          f"({'not below' if need >= r['model_peak_bytes'] else 'BELOW'})")
    if res is not None:
        s += (f"; need + reserve {(need + res) / mib:.1f} MiB vs device used: "
              f"{'covers it' if need + res >= r['device_used_bytes'] else 'BELOW'}")
    z = r.get("no_cudnn_workspace") or {}
    if z.get("model_peak_bytes"):
        s += (f"; with cuDNN's workspace capped at 0 the model's peak is {z['model_peak_bytes'] / mib:.1f} MiB, "
              f"need = {need / z['model_peak_bytes']:.3f} x it "
              f"({'not below' if need >= z['model_peak_bytes'] else 'BELOW'})")
    return s


def step_ncu():
    """Convs (ResNet-50's slowest, a Winograd one, MNIST's first, whose count
    most exceeds the estimate), one MatMul and one LayerNormalization (GPT-2):
    the replay's counted FP32 FLOPs against ncu's for the kernels of the last
    repetition, the same node run alone under ncu with profiling off. A Conv
    runs under ncu with the algorithm the replay's Find chose (--conv-algo):
    under ncu Find times differently and picks another."""
    picks = []
    for tag, ops, algo, key in (("resnet50_b1", ("Conv",), "", "time"), ("resnet50_b1", ("Conv",), "WINOGRAD", "time"),
                                ("mnist", ("Conv",), "", "ratio"), ("gpt2_b1x128", ("MatMul", "Gemm"), "", "time"),
                                ("gpt2_b1x128", ("LayerNormalization",), "", "time")):
        d = load(tag + ".json")
        if not d:
            say(f"- {tag}: no replay result: run the replay step")
            continue
        cands = [n for n in d["nodes"] if n["op"] in ops and n["status"] == "measured" and "counters" in n
                 and n["name"] and algo in n.get("algo", "") and n not in [x for _, x in picks]]
        if cands:
            picks.append((tag, max(cands, key=lambda n: n["time_ns"]["median"] if key == "time" else
                                   n["counters"]["fp32_flops"] / max(1, n["estimate"]["flops"]))))
        else:
            say(f"- {tag}: no measured {'/'.join(ops)} node{' on ' + algo if algo else ''} with counters")
    res = load("ncu.json", {})
    for tag, n in picks:
        name = n["name"]
        rx = "^" + re.escape(name) + "$"
        safe = re.sub(r"[^A-Za-z0-9]+", "_", name)[-40:]
        run_json = path(f"ncu_{safe}_run.json")
        m = re.match(r"fwd (\w+) \(", n.get("algo", ""))
        pin = ["--conv-algo", m.group(1)] if n["op"] == "Conv" and m else []
        rows = ncu_rows([a.onnxcost, "replay", MODELS[tag][0], "--nodes", rx, "--math", "fp32", "--reps", "1",
                         "--warmup", "0", "--no-counters", "--format", "json", "-o", run_json] + pin + MODELS[tag][1],
                        f"ncu_{safe}")
        if not rows:
            continue
        # under ncu CUPTI cannot trace, so that run times with CUDA events and
        # names no kernels: the kernels of a repetition are the counted run's
        try:
            x = next(x for x in json.load(open(run_json))["nodes"] if x["name"] == name)
            kn = x.get("kernels_per_rep") or n["kernels_per_rep"]
            if pin and x.get("algo", "").split(",")[0] != n["algo"].split(",")[0]:
                say(f"- {tag} {name}: under ncu it ran {x.get('algo')}, not {n['algo']}: not compared")
                continue
        except (OSError, StopIteration, KeyError, ValueError):
            kn = n["kernels_per_rep"]
        last = rows[-kn:] if kn else []
        f = sum(r["fp32"] for r in last)
        c = n["counters"]
        ratio = c["fp32_flops"] / f if f else float("nan")
        res[name] = {"model": tag, "op": n["op"], "algo": n.get("algo"), "ncu_fp32": f, "onnxcost_fp32": c["fp32_flops"],
                     "estimate": n["estimate"]["flops"], "kernels": [r["kernel"] for r in last]}
        store("ncu.json", res)
        say(f"- {tag} {name} ({n['op']}, {n.get('algo', '')}): {kn} kernel(s) {[r['kernel'][:40] for r in last]}")
        say(f"    FP32 FLOPs: ncu {f:.6g}, onnxcost {c['fp32_flops']:.6g} (ratio {ratio:.5f}, within 1 %: "
            f"{'yes' if abs(ratio - 1) <= 0.01 else 'NO'}), estimate {n['estimate']['flops']:.6g}")
        say(f"    DRAM read+write: ncu {sum(r['read'] + r['write'] for r in last) / 2**20:.2f} MiB, onnxcost "
            f"{(c['dram_read_bytes'] + c['dram_write_bytes']) / 2**20:.2f} MiB (warm L2 in both)")


def gpu_name():
    """The device the replay ran on, as --gpu takes it (the built-in rows know
    the CUDA names of the H100 and H200); h100, said once, when no built-in
    row has that name or nothing was replayed yet."""
    global GPU_NAME
    if GPU_NAME:
        return GPU_NAME
    name = next((d["device"]["name"] for d in (load(t + ".json") for t in MODELS)
                 if d and d.get("device", {}).get("name")), None)
    ok = name and subprocess.run([a.onnxcost, MODELS["mnist"][0], "--gpu", name], capture_output=True).returncode == 0
    if not ok:
        say(f"    (no built-in GPU is named {name!r}: the peaks are the H100 SXM's)")
    GPU_NAME = name if ok else "h100"
    return GPU_NAME


GPU_NAME = None


def predicted_ms(tag, spec):
    model, bind, _ = MODELS[tag]
    gpu = ["--gpu-spec", spec] if spec else ["--gpu", gpu_name()]
    p = sh([a.onnxcost, model, "--math", "fp32", "--format", "json"] + gpu + bind, quiet=True)
    return json.loads(p.stdout)["gpu"]["latency_s"] * 1e3 if p.returncode == 0 else None


def step_calibrate():
    tags = [t for t in MODELS if t != "mnist" and os.path.exists(path(t + ".json"))]
    if len(tags) < 2:
        say(f"- only {tags} replayed: calibration needs two models (run the replay step)")
        return
    tor = load("torch.json", {})
    say("| fitted on | checked on | median \\|ln p/m\\| before | after | p90 before | after | total before | after |")
    say("|---|---|---:|---:|---:|---:|---:|---:|")
    e2e = []
    # fitted on one model, then on all models but one (at every batch): the
    # model left out is one the calibration did not see
    def family(t):
        return t.split("_b")[0]
    fams = list(dict.fromkeys(family(t) for t in tags))
    fitsets = [(t, (t,)) for t in ("resnet50_b1", "gpt2_b1x128", "distilbert_b1x128") if t in tags]
    if len(fams) > 2:
        fitsets += [(f"all but {held}", tuple(x for x in tags if family(x) != held)) for held in fams]
    for fit, fitset in fitsets:
        spec = path(f"calibrated-{fit.replace(' ', '-')}.json")
        checks = [t for t in tags if t not in fitset]
        p = sh([a.onnxcost, "calibrate"] + [path(t + ".json") for t in fitset] +
               ["--gpu", gpu_name(), "--format", "json", "-o", spec]
               + sum((["--check", path(t + ".json")] for t in checks), []), quiet=True)
        if p.returncode != 0:
            say(f"- calibrate on {fit} failed: {p.stderr.strip()[:300]}")
            continue
        doc = json.loads(p.stdout)
        store(f"calibration-{fit}.json", doc)
        for f in doc["files"]:
            b, af = f["before"], f["after"]
            tag = os.path.basename(f["path"])[:-5]
            say(f"| {fit} | {tag if f['role'] == 'check' else tag + ' (fit)'} | {b['median_abs_ln']:.3f} | "
                f"{af['median_abs_ln']:.3f} | {b['p90_abs_ln']:.3f} | {af['p90_abs_ln']:.3f} | "
                f"{100 * b['total_error']:+.1f} % | {100 * af['total_error']:+.1f} % |")
        say(f"  factors fitted on {fit}: {doc['efficiency']}; worst op types after: "
            + ", ".join(f"{o['op']} {o['median_abs_ln']:.2f} ({100 * o['time_share']:.0f} %)"
                        for o in doc.get("by_op_after", [])[:4]))
        for t in tags:
            rep = load(t + ".json")
            rsum = sum(n["time_ns"]["median"] for n in rep["nodes"] if n["status"] == "measured") * 1e-6
            e2e.append((fit, t, predicted_ms(t, None), predicted_ms(t, spec), rsum,
                        tor.get(t, {}).get("eager", {}).get("median_ms"), tor.get(t, {}).get("graph", {}).get("median_ms"),
                        t in fitset))
    say("\nEnd to end, strict FP32 (predicted latency of the whole graph, one launch per kernel-bearing node):\n")
    say("| fitted on | model | predicted before (ms) | after (ms) | replay sum (ms) | PyTorch eager (ms) | CUDA graph (ms) "
        "| after vs replay sum | after vs eager | after vs graph |")
    say("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")

    def f(x):
        return f"{x:.3f}" if x else "-"

    def err(p, m):
        return f"{100 * (p / m - 1):+.1f} %" if p and m else "-"
    for fit, t, pb, pa, rs, eg, gr, seen in e2e:
        say(f"| {fit} | {t}{' (fit)' if seen else ''} | {f(pb)} | {f(pa)} | {f(rs)} | {f(eg)} | {f(gr)} | "
            f"{err(pa, rs)} | {err(pa, eg)} | {err(pa, gr)} |")
    unseen = [(fit, t, pa, rs, gr) for fit, t, pb, pa, rs, eg, gr, seen in e2e
              if fit == f"all but {family(t)}" and pa]
    if unseen:
        say("\nEach model left out of the fit (calibrated on all the others, at every batch): "
            + "; ".join(f"{t} {err(pa, rs)} against the replay sum, {err(pa, gr)} against the CUDA graph"
                        for fit, t, pa, rs, gr in unseen))
    store("e2e.json", e2e)


def step_table():
    say("| model | node | op | algorithm | estimate (FLOPs) | measured FP32 | tensor | measured / estimate |")
    say("|---|---|---|---|---:|---:|---:|---:|")
    lines = 0
    for tag in ("resnet50_b1", "resnet50_b32", "gpt2_b1x128", "distilbert_b1x128", "mnist"):
        d = load(tag + ".json")
        if not d:
            continue
        for n in d["nodes"]:
            c = n.get("counters")
            if not c or n["op"] not in ("Conv", "Gemm", "MatMul", "LayerNormalization") or not n["estimate"]["flops"]:
                continue
            say(f"| {tag} | {n['name']} | {n['op']} | {n.get('algo', '')} | {n['estimate']['flops']:,} | "
                f"{c['fp32_flops']:,.0f} | {c['tensor_flops']:,.0f} | {c['flops'] / n['estimate']['flops']:.4f} |")
            lines += 1
    if not lines:
        say("(no measured node with counters)")


def gpu_slug(name):
    s = name.lower().replace("nvidia", "")
    for k in ("h200", "h100", "a100", "l40s", "l4", "a10", "v100", "t4"):
        if k in s:
            return k
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-") or "gpu"


def results_header(slug):
    """The summary's head: the device, driver, CUDA/cuDNN/cuBLAS/CUPTI versions,
    clocks and cache settings the figures were taken with (from a replay
    result and device.sh's env.txt beside the summary)."""
    d = next((x for x in (load(t + ".json") for t in list(MODELS) + ["gemm4096_fp32"]) if x), None)
    dev = d["device"] if d else {}
    env = ""
    try:
        env = open(os.path.join(os.path.dirname(os.path.abspath(a.summary)), "env.txt")).read()
    except OSError:
        pass

    def ver(v, scale=1000):  # 13000 -> 13.0, 91900 (cuDNN) -> 9.19.0
        if not v:
            return "?"
        if scale == 10000:
            return f"{v // 10000}.{v // 100 % 100}.{v % 100}"
        return f"{v // 1000}.{v % 1000 // 10}"

    smi = [ln for ln in env.splitlines() if ln.startswith("name, driver_version")]
    row = env.splitlines()[env.splitlines().index(smi[0]) + 1] if smi else ""
    kernel = next((ln for ln in env.splitlines() if ln.startswith("uname -r")), "uname -r: ?")
    torch_line = next((ln for ln in env.splitlines() if ln.startswith("torch ")), "")
    tj = next(iter(load("torch.json", {}).values()), {})
    if not torch_line and tj.get("torch"):  # the torch step's own record of its versions
        torch_line = f"torch {tj['torch']}, its own cuDNN {ver(tj.get('cudnn'), 10000)}"
    rows = [
        ("device", f"{dev.get('name', '?')}, compute capability {dev.get('compute_capability', '?')}, "
                   f"{dev.get('sm_count', '?')} SMs, {dev.get('memory_bytes', 0) / 2**30:.1f} GiB, "
                   f"L2 {dev.get('l2_bytes', 0) / 2**20:.0f} MiB, chip {dev.get('chip', '?')}"),
        ("nvidia-smi", f"{smi[0]} / {row}" if smi else "(no env.txt)"),
        ("kernel", kernel.split(":", 1)[1].strip()),
        ("CUDA driver API / runtime", f"{ver(dev.get('driver_version'))} / {ver(dev.get('runtime_version'))}"),
        ("cuDNN / cuBLAS / CUPTI", f"{ver(dev.get('cudnn_version'), 10000)} / {dev.get('cublas_version', '?')} / "
                                   f"{dev.get('cupti_version', '?')}"),
        ("peaks from the attributes", f"FP32 {dev.get('peak_fp32_flops', 0) / 1e12:.1f} TFLOP/s, DRAM "
                                      f"{dev.get('peak_dram_bytes_per_s', 0) / 1e9:.0f} GB/s (maximum clocks)"),
        ("counters", "yes" if dev.get("counters") else f"no: {dev.get('counters_reason', '?')}"),
        ("replay settings", "strict FP32 (--math fp32) unless named; L2 warm (no --cold); clocks as the driver "
                            "sets them (no locking)"),
        ("ncu settings", "--clock-control none --cache-control none (as the replay runs)"),
        ("PyTorch", torch_line or "?"),
    ]
    head = f"# onnxcost replay on {dev.get('name', slug)} ({time.strftime('%Y-%m-%d')})\n\n| | |\n|---|---|\n"
    return head + "".join(f"| {k} | {v.replace('|', '/')} |\n" for k, v in rows)


def step_collect():
    out = path("results")
    os.makedirs(out, exist_ok=True)
    slug = None
    for tag in list(MODELS) + ["gemm4096_fp32", "gemm4096_tf32"]:
        d = load(tag + ".json")
        if not d or d.get("schema") != "onnxcost-replay/1":
            continue
        slug = slug or gpu_slug(d["device"]["name"])
        d["model"] = os.path.basename(d["model"])  # the path on the GPU machine means nothing elsewhere
        json.dump(d, open(os.path.join(out, f"{slug}-{tag.replace('_', '-')}.json"), "w"), indent=1)
    if not slug:
        say("- nothing to collect")
        return
    for spec in sorted(os.listdir(a.work)):
        if spec.startswith("calibrated-") and spec.endswith(".json"):
            # the replay files it names, as committed beside it
            d = json.load(open(path(spec)))
            cal = d.get("calibration", {})
            for k in ("fitted_on", "checked_on"):
                if isinstance(cal.get(k), list):
                    cal[k] = [f"{slug}-{os.path.basename(x)[:-5].replace('_', '-')}.json" for x in cal[k]]
            json.dump(d, open(os.path.join(out, f"{slug}-calibrated-on-{spec[len('calibrated-'):]}"), "w"), indent=2)
    with open(os.path.join(out, f"{slug}.md"), "w") as md:
        body = open(a.summary).read()
        if "\n## collect" in body:  # this step's own heading, and an earlier collect's lines
            body = body[:body.index("\n## collect")] + "\n"
        md.write(results_header(slug) + "\n" + body)
    p = sh([sys.executable, os.path.join(a.src, "tests", "gpu", "results_check.py"), out], quiet=True)
    say(f"- {out}: " + "; ".join(p.stdout.strip().splitlines()[-8:]))


STEPS = {"models": step_models, "gemm": step_gemm, "replay": step_replay, "convnets": step_convnets,
         "torch": step_torch, "ncu": step_ncu,
         "calibrate": step_calibrate, "table": step_table, "collect": step_collect}
if a.steps == ["torch1"]:  # one model's PyTorch figures, for the torch step
    torch_measure(a.tag)
    sys.exit(0)
rc = 0
for name in a.steps:
    if name not in STEPS:
        say(f"unknown step {name!r} (steps: {', '.join(STEPS)})")
        rc = 2
        continue
    say(f"\n## {name}\n")
    t = time.time()
    try:
        STEPS[name]()
    except Exception:
        say("step failed:\n```\n" + traceback.format_exc()[-3000:] + "```")
        rc = 1
    say(f"\n({name}: {time.time() - t:.1f} s)")
sys.exit(rc)
