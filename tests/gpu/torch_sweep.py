#!/usr/bin/env python3
"""The kernel sweep of `onnxcost probe --gpu` timed in PyTorch: each node of
the sweep's ONNX model (`onnxcost probe --gpu --sweep-model FILE`) run with
the PyTorch op a torchvision model runs for it (F.conv2d, torch.matmul,
softmax, layer_norm, the pools, ...), cudnn.benchmark on, as a CUDA graph of
--calls calls, replayed and timed with CUDA events. Written as one
onnxcost-replay/1 result per precision, which `onnxcost tables` turns into a
--gpu-spec file: kernel tables of the kernels PyTorch picks (cuDNN's graph
API, cuBLASLt), where `probe --gpu` measures those of cuDNN's legacy API and
onnxcost's own memory kernels (docs/MODEL.md, "Against PyTorch").

  torch_sweep.py --onnxcost BIN --sweep SWEEP.onnx --out DIR [--math fp32,tf32,fp16,bf16]
                 [--device cuda|cpu] [--calls N] [--reps N] [--deadline UNIX_SECONDS]
                 [--tables SPEC.json [--like GPU]]
  (--tables runs: onnxcost tables DIR/torch-sweep-*.json --models DIR -o SPEC.json)

A time read from these tables is a call's share of a CUDA graph's replay, its
launch gap included, so the spec --tables writes sets the launch term to 0
(efficiency.launch_us); the same tables built by hand keep the device's
default launch, which a prediction then adds on top (--launch-us 0 takes it
off).

It also writes DIR/launch.json: the launch gap per kernel of a CUDA graph of
one-element adds, and PyTorch's eager time per such op (its host time).
--device cpu runs the same control flow on the CPU (wall-clock timing) for
tests; its figures describe no GPU. Each node's estimate (MACs, FLOPs,
bytes) is onnxcost's own analysis of the sweep at the precision's width, as
in a replay result. A node PyTorch cannot run is "failed" with the reason.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import cuda_timing

MATHS = {"fp32": ("fp32", "float32", None), "tf32": ("tf32", "float32", None), "fp16": ("fp16", "float16", "fp16"),
         "bf16": ("fp16", "bfloat16", "bf16")}  # name -> (replay math, torch dtype, --dtype)
EST_DTYPE = {"float32": "f32", "float16": "f16", "bfloat16": "bf16"}


def attrs(node):
    import onnx
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def torch_op(node, F, torch):
    """A function of the node's input tensors running the op PyTorch runs for it."""
    at, op = attrs(node), node.op_type
    if op == "MatMul":
        return lambda a, b: torch.matmul(a, b)
    if op == "Conv":
        pads = list(at.get("pads", [0, 0, 0, 0]))
        if pads[:2] != pads[2:]:
            raise ValueError(f"asymmetric pads {pads}")
        kw = dict(stride=tuple(at.get("strides", [1, 1])), padding=tuple(pads[:2]),
                  dilation=tuple(at.get("dilations", [1, 1])), groups=at.get("group", 1))
        return lambda x, w, b=None: F.conv2d(x, w, b, **kw)
    if op == "Softmax":
        return lambda x: torch.softmax(x, at.get("axis", -1))
    if op == "ReduceMean":
        axes, keep = tuple(at["axes"]), bool(at.get("keepdims", 1))
        return lambda x: x.mean(axes, keepdim=keep)
    if op == "LayerNormalization":
        axis, eps = at.get("axis", -1), at.get("epsilon", 1e-5)
        return lambda x, s, b=None: F.layer_norm(x, x.shape[axis:], s, b, eps)
    if op == "Relu":
        return lambda x: torch.relu(x)
    if op == "Sigmoid":
        return lambda x: torch.sigmoid(x)
    if op == "Add":
        return lambda a, b: a + b
    if op == "Transpose":
        perm = tuple(at["perm"])
        return lambda x: x.permute(perm).contiguous()
    if op == "Concat":
        axis = at["axis"]
        return lambda *xs: torch.cat(xs, axis)
    if op in ("MaxPool", "AveragePool"):
        pads = list(at.get("pads", [0, 0, 0, 0]))
        if pads[:2] != pads[2:]:
            raise ValueError(f"asymmetric pads {pads}")
        k, s, c = tuple(at["kernel_shape"]), tuple(at.get("strides", [1, 1])), bool(at.get("ceil_mode", 0))
        if op == "MaxPool":
            return lambda x: F.max_pool2d(x, k, s, tuple(pads[:2]), ceil_mode=c)
        inc = bool(at.get("count_include_pad", 0))
        return lambda x: F.avg_pool2d(x, k, s, tuple(pads[:2]), ceil_mode=c, count_include_pad=inc)
    if op == "GlobalAveragePool":
        return lambda x: F.adaptive_avg_pool2d(x, 1)
    raise ValueError(f"no PyTorch op for {op}")


def time_node(fn, args, torch, device, calls, reps):
    """ns per call: a CUDA graph of `calls` calls replayed `reps` times (median), or wall clock on the CPU."""
    with torch.no_grad():
        for _ in range(3):
            fn(*args)
        if device == "cpu":
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                for _ in range(calls):
                    fn(*args)
                ts.append((time.perf_counter() - t0) / calls * 1e9)
            return ts
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn(*args)
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn(*args)
        g.replay()
        torch.cuda.synchronize()
        return [t * 1e6 / calls for t in cuda_timing.event_times_ms(g.replay, reps)]


def launch_costs(torch, device, n=2000):
    """Per kernel: a CUDA graph of n one-element adds replayed (the graph's
    launch gap), and the same adds launched eagerly (PyTorch's host time per
    op); the floor each runtime puts under a node (docs/MODEL.md)."""
    x = torch.zeros(1, device=device)
    if device == "cpu":
        t0 = time.perf_counter()
        for _ in range(n):
            x.add_(1)
        return {"eager_us_per_op": (time.perf_counter() - t0) / n * 1e6}
    for _ in range(100):
        x.add_(1)
    torch.cuda.synchronize()

    def eager():
        for _ in range(n):
            x.add_(1)
    out = {"eager_us_per_op": statistics.median(cuda_timing.event_times_ms(eager, 5)) * 1e3 / n}
    g = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        x.add_(1)
    torch.cuda.current_stream().wait_stream(side)
    with torch.cuda.graph(g):
        for _ in range(n):
            x.add_(1)
    g.replay()
    torch.cuda.synchronize()
    out["graph_us_per_kernel"] = statistics.median(cuda_timing.event_times_ms(g.replay, 5)) * 1e3 / n
    return out


def device_record(torch, device):
    if device == "cpu":
        return {"name": "CPU (torch_sweep.py --device cpu: no GPU figures)"}
    p = torch.cuda.get_device_properties(0)
    drv = ""
    if shutil.which("nvidia-smi"):
        q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True)
        drv = q.stdout.strip().splitlines()[0] if q.returncode == 0 and q.stdout.strip() else ""
    major, minor = (int(x) for x in (torch.version.cuda or "0.0").split(".")[:2])
    return {"name": torch.cuda.get_device_name(0), "compute_capability": f"{p.major}.{p.minor}",
            "sm_count": p.multi_processor_count, "memory_bytes": p.total_memory,
            "runtime_version": major * 1000 + minor * 10, "cudnn_version": torch.backends.cudnn.version(),
            "driver": drv, "torch": torch.__version__}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--sweep", required=True, help="onnxcost probe --gpu --sweep-model FILE")
    ap.add_argument("--out", required=True)
    ap.add_argument("--math", default="fp32,tf32,fp16,bf16")
    ap.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--tables", help="build the --gpu-spec file from the results")
    ap.add_argument("--like", help="the built-in GPU for the spec's roofs (default: the device's name)")
    a = ap.parse_args()
    import onnx
    import torch
    import torch.nn.functional as F
    os.makedirs(a.out, exist_ok=True)
    model = onnx.load(a.sweep)
    shutil.copy(a.sweep, os.path.join(a.out, os.path.basename(a.sweep)))
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    torch.backends.cudnn.benchmark = True
    dev = device_record(torch, a.device)
    launch = launch_costs(torch, a.device)
    json.dump(dict(launch, device=dev["name"], torch=torch.__version__), open(os.path.join(a.out, "launch.json"), "w"))
    print("launch: " + ", ".join(f"{k} {v:.2f}" for k, v in launch.items()), flush=True)
    for mth in a.math.split(","):
        rp_math, tdt, price = MATHS[mth]
        torch.backends.cudnn.allow_tf32 = mth == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = mth == "tf32"
        dtype = getattr(torch, tdt)
        cmd = [a.onnxcost, a.sweep, "--format", "json", "-q"] + (["--dtype", price] if price else [])
        est = {n["name"]: n for n in json.loads(subprocess.run(cmd, capture_output=True, text=True,
                                                                  check=True).stdout)["nodes"]}
        nodes, t0 = [], time.time()
        for node in model.graph.node:
            e = est[node.name]
            rec = {"name": node.name, "op": node.op_type, "kind": node.op_type.lower(), "call": "torch",
                   "estimate": {"macs": e.get("macs", 0), "flops": e.get("flops", 0),
                                "bytes_read": e.get("bytes_read", 0), "bytes_written": e.get("bytes_written", 0),
                                "dtype": EST_DTYPE[tdt]}}
            if a.deadline and time.time() > a.deadline:
                rec.update(status="skipped", reason="not run: the deadline passed")
                nodes.append(rec)
                continue
            try:
                fn = torch_op(node, F, torch)
                gen = torch.Generator(device=a.device).manual_seed(1)
                args = [torch.rand(shapes[i], device=a.device, generator=gen).to(dtype) for i in node.input if i]
                ts = sorted(time_node(fn, args, torch, a.device, a.calls, a.reps))
                rec.update(status="measured", replay_overhead=False, kernels_per_rep=1,
                           time_ns={"median": statistics.median(ts), "p10": ts[0], "p90": ts[-1],
                                    "min": ts[0], "reps": len(ts)})
            except Exception as ex:  # one node PyTorch cannot run costs its samples only
                rec.update(status="failed", reason=f"{type(ex).__name__}: {str(ex)[:200]}")
            nodes.append(rec)
            args = None
        doc = {"schema": "onnxcost-replay/1", "model": os.path.join(a.out, os.path.basename(a.sweep)),
               "device": dev, "plugin": f"PyTorch {torch.__version__} (tests/gpu/torch_sweep.py, "
                                         f"{'CUDA graph' if a.device == 'cuda' else 'wall clock'}, "
                                         f"{a.calls} calls per timing)",
               "options": {"math": rp_math, "dtype": price, "reps": a.reps, "counters": False}, "nodes": nodes}
        out = os.path.join(a.out, f"torch-sweep-{mth}.json")
        json.dump(doc, open(out, "w"), indent=0)
        ok = sum(n["status"] == "measured" for n in nodes)
        print(f"{mth}: {ok} of {len(nodes)} nodes measured in {time.time() - t0:.1f} s -> {out}", flush=True)
    if a.tables:
        results = [os.path.join(a.out, f"torch-sweep-{m}.json") for m in a.math.split(",")]
        p = subprocess.run([a.onnxcost, "tables"] + results + ["--models", a.out, "-o", a.tables] +
                           (["--gpu", a.like] if a.like else []), capture_output=True, text=True)
        print(p.stdout + p.stderr, end="", flush=True)
        if p.returncode != 0:
            sys.exit(p.returncode)
        spec = json.load(open(a.tables))
        spec.setdefault("efficiency", {})["launch_us"] = 0.0  # each table time holds its CUDA graph's gap
        json.dump(spec, open(a.tables, "w"), indent=1)


if __name__ == "__main__":
    main()
