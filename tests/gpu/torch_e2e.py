#!/usr/bin/env python3
"""End-to-end PyTorch times on a GPU, the measured side of issue 39's
validation: torchvision models at FP32 (strict), TF32, FP16 and BF16, at several
batch sizes, eager and as a CUDA graph, with cudnn.benchmark on (what a user
who times a model does). bench/gpu_validate.py sets onnxcost's predictions for
the same exported graphs beside these figures.

  torch_e2e.py --out FILE.jsonl [--models a,b,...] [--configs b32-tf32,...]
               [--deadline UNIX_SECONDS] [--reps N]

One child process per configuration runs every model at it (configurations
first, so that a deadline cuts the least useful runs: the order of --configs);
a model that ends its process is recorded as failed and the next one starts in
a new process. Each measurement is one JSON line, appended to --out at once:
model, batch, math, eager and graph medians with p10/p90 (ms, CUDA events),
the kernels one eager forward launches (at batch 1, from torch.profiler), and
the versions it ran with.
"""
import argparse
import json
import os
import subprocess
import sys
import time

MODELS = ["resnet34", "resnet101", "resnext50_32x4d", "wide_resnet50_2", "densenet121", "efficientnet_b0",
          "efficientnet_b3", "mobilenet_v3_large", "shufflenet_v2_x1_0", "mnasnet1_0", "regnet_y_400mf",
          "regnet_x_3_2gf", "convnext_tiny", "vit_b_16", "swin_t", "vgg16_bn", "googlenet", "squeezenet1_1"]
CONFIGS = ["b32-tf32", "b32-fp16", "b1-fp32", "b1-fp16", "b32-fp32", "b256-fp16", "b256-tf32", "b1-tf32",
           "b256-fp32"]


def parse_config(c):
    b, m = c.split("-")
    return int(b[1:]), m


def times(fn, reps):
    import cuda_timing
    return cuda_timing.summary(cuda_timing.event_times_ms(fn, reps))


def kernels_per_forward(model, x):
    """The CUDA kernels one eager forward launches (torch.profiler)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        model(x)
        torch.cuda.synchronize()
    return sum(1 for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA)


def child(config, models, out, reps, deadline):
    import torch
    import torchvision
    batch, math = parse_config(config)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = math == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = math == "tf32"
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(math, torch.float32)
    base = {"config": config, "batch": batch, "math": math, "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "torchvision": torchvision.__version__, "device": torch.cuda.get_device_name(0)}
    for name in models:
        if deadline and time.time() > deadline:
            print(f"{config} {name}: not run (deadline)", flush=True)
            continue
        r = dict(base, model=name)
        t0 = time.time()
        with open(out, "a") as f:  # a model that ends the process is recorded as such
            f.write(json.dumps(dict(r, started=True)) + "\n")
        try:
            torch.manual_seed(0)
            kw = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
            model = getattr(torchvision.models, name)(**kw).eval().to("cuda", dtype)
            x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=dtype)
            with torch.no_grad():
                for _ in range(5):  # cudnn.benchmark picks its algorithms here
                    model(x)
                torch.cuda.synchronize()
                r["eager"] = times(lambda: model(x), reps)
                if batch == 1:
                    try:
                        r["kernels"] = kernels_per_forward(model, x)
                    except Exception as e:
                        r["kernels_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                g = torch.cuda.CUDAGraph()
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    for _ in range(3):
                        model(x)
                torch.cuda.current_stream().wait_stream(side)
                with torch.cuda.graph(g):
                    model(x)
                for _ in range(3):
                    g.replay()
                torch.cuda.synchronize()
                r["graph"] = times(g.replay, reps)
                del g
        except Exception as e:
            r["error"] = f"{type(e).__name__}: {str(e)[:300]}"
        r["wall_s"] = round(time.time() - t0, 2)
        with open(out, "a") as f:
            f.write(json.dumps(r) + "\n")
        print(f"{config} {name}: " + (r.get("error") or
              f"eager {r['eager']['median_ms']:.3f} ms, graph {r['graph']['median_ms']:.3f} ms") +
              f" ({r['wall_s']} s)", flush=True)
        model = x = None
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    models = [m for m in a.models.split(",") if m]
    if a.child:
        child(a.child, models, a.out, a.reps, a.deadline)
        return
    for config in a.configs.split(","):
        batch, math = parse_config(config)
        left = list(models)
        while left:
            if a.deadline and time.time() > a.deadline:
                print(f"{config}: not run (deadline)", flush=True)
                break
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--out", a.out, "--child", config,
                                "--models", ",".join(left), "--deadline", str(a.deadline), "--reps", str(a.reps)])
            started, finished = set(), set()
            if os.path.exists(a.out):
                with open(a.out) as f:
                    for ln in f:
                        d = json.loads(ln)
                        if d["config"] == config:
                            (started if d.get("started") else finished).add(d["model"])
            if p.returncode == 0:
                break
            # the model that ended the process started and has no result; with
            # none started, the process failed before any model: all are lost
            lost = [m for m in left if m in started and m not in finished] or \
                ([] if any(m in started for m in left) else left)
            with open(a.out, "a") as f:
                for m in lost:
                    f.write(json.dumps({"config": config, "model": m, "batch": batch, "math": math,
                                        "error": f"the process ended (exit {p.returncode})"}) + "\n")
            left = [m for m in left if m not in started and m not in lost]

if __name__ == "__main__":
    main()
