#!/usr/bin/env python3
"""The CPU time model on models beyond torchvision's classifiers, at batch 1
and 8 and at 1 and 2 threads, calibrated on a third of the models and
checked on the rest (issue 40, item 3; docs/MEASURED.md, "Beyond
torchvision").

The models (MODELS): torchvision classifiers; torchvision's segmentation
nets; a super-resolution net (the sub-pixel CNN of PyTorch's ONNX export
tutorial) and a style-transfer net (the TransformerNet of PyTorch's
fast-neural-style example), written out below; and corpus files from other
exporters: the ONNX model zoo's Caffe2 CNNs (the backend test's "light"
models), a bidirectional LSTM over bytes (tract's test case), decode steps
of two decoders with a KV cache (GPT-2 and Qwen, ONNX Runtime's fused ops)
and a BERT encoder (optimum's test asset). A corpus file whose batch is
fixed at 1 gets a batch-8 copy (the inputs' first dim set to 8, a flatten
written as a reshape to (1, N) made (0, N), the graph's inferred shapes
dropped); where ONNX Runtime cannot run that copy (a
reshape to a constant batch) the model has batch 1 only, and the results
say so.

Roles: a third of the models (FIT, chosen to span the families) is
calibrated on; the others are only checked. For each thread
count, `onnxcost calibrate` fits the spec on the fit models' records at that
thread count (both batches), and `onnxcost tables` adds the kernel tables
built from the same records; each checked record is analyzed again, from the
graph ONNX Runtime ran and its profile, with that spec: end-to-end error and
per-node |ln(predicted/measured)|.

Every record is measured in --sessions passes (default 2), each after the
whole of the one before, and the fastest session's is kept: on a shared
machine another tenant's load can slow a whole record down (one 2-thread
record here ran 1.8x its later session), and only adds time. The results
say how far apart each record's sessions were.

usage: cpu_wide.py --onnxcost BIN [--out DIR] [--results DIR] [--sessions N] [--measure-threads 1,2]
                   [--measure-only | --analyze-only] [--fit a,b --tag T]
  --out: the exports and measurements (large; default bench/out/wide)
  --results: the committed summary (docs/results: cpu-wide.json, cpu-wide.md)
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

from cpu_wide_report import session_dir  # noqa: E402 (bench/: the record's sessions)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")
if not os.path.isdir(CORPUS):
    CORPUS = os.path.join(ROOT, "fixtures", "corpus")

GPT2 = "microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx"
QWEN = "microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-qwen35-cuda__decoder.onnx"
DECODE = ["--dim", "seq_len=1", "--dim", "past_seq_len=127", "--dim", "total_seq_len=128"]
# name, source, family, bindings ({B}: the batch)
MODELS = [
    ("resnet18", "tv", "torchvision classifier", []),
    ("light_resnet50", "corpus:onnx+onnx/onnx__backend__test__data__light__light_resnet50.onnx", "Caffe2 CNN (corpus)", []),
    ("lraspp_mobilenet_v3_large", "tvseg", "segmentation", []),
    ("mobilenet_v2", "tv", "torchvision classifier", []),
    ("light_densenet121", "corpus:onnx+onnx/onnx__backend__test__data__light__light_densenet121.onnx", "Caffe2 CNN (corpus)", []),
    ("super_resolution", "sr", "super-resolution", []),
    ("shufflenet_v2_x1_0", "tv", "torchvision classifier", []),
    ("light_inception_v1", "corpus:onnx+onnx/onnx__backend__test__data__light__light_inception_v1.onnx", "Caffe2 CNN (corpus)", []),
    ("style_transfer", "style", "style transfer", []),
    ("googlenet", "tv", "torchvision classifier", []),
    ("gpt2_tiny_decode", "corpus:" + GPT2, "decoder step (corpus)", ["--dim", "batch_size={B}", *DECODE]),
    ("deeplabv3_mobilenet_v3_large", "tvseg", "segmentation", []),
    ("efficientnet_b0", "tv", "torchvision classifier", []),
    ("light_inception_v2", "corpus:onnx+onnx/onnx__backend__test__data__light__light_inception_v2.onnx", "Caffe2 CNN (corpus)", []),
    ("bert_tiny", "corpus:huggingface+optimum/tests__assets__onnx__model.onnx", "text encoder (corpus)",
     ["--dim", "batch={B}", "--dim", "sequence=128"]),
    ("regnet_y_400mf", "tv", "torchvision classifier", []),
    ("light_shufflenet", "corpus:onnx+onnx/onnx__backend__test__data__light__light_shufflenet.onnx", "Caffe2 CNN (corpus)", []),
    ("fcn_resnet50", "tvseg", "segmentation", []),
    ("mobilenet_v3_small", "tv", "torchvision classifier", []),
    ("light_squeezenet", "corpus:onnx+onnx/onnx__backend__test__data__light__light_squeezenet.onnx", "Caffe2 CNN (corpus)", []),
    ("bidi_lstm", "corpus:sonos+tract/onnx__test_cases__byte_sb_bidi_lstm__model.onnx", "LSTM over bytes (corpus)",
     ["--dim", "batch={B}", "--dim", "length=128"]),
    ("densenet121", "tv", "torchvision classifier", []),
    ("light_bvlc_alexnet", "corpus:onnx+onnx/onnx__backend__test__data__light__light_bvlc_alexnet.onnx", "Caffe2 CNN (corpus)", []),
    ("qwen_tiny_decode", "corpus:" + QWEN, "decoder step (corpus)", ["--dim", "batch_size={B}", *DECODE]),
    ("mnasnet0_5", "tv", "torchvision classifier", []),
    ("light_vgg19", "corpus:onnx+onnx/onnx__backend__test__data__light__light_vgg19.onnx", "Caffe2 CNN (corpus)", []),
    ("squeezenet1_0", "tv", "torchvision classifier", []),
    ("convnext_tiny", "tv", "torchvision classifier", []),
    ("light_zfnet512", "corpus:onnx+onnx/onnx__backend__test__data__light__light_zfnet512.onnx", "Caffe2 CNN (corpus)", []),
    ("resnet50", "tv", "torchvision classifier", []),
    ("alexnet", "tv", "torchvision classifier", []),
    ("mobilenet_v3_large", "tv", "torchvision classifier", []),
    ("swin_t", "tv", "torchvision classifier", []),
]
BATCHES = (1, 8)
THREADS = (1, 2)


# The calibration third: 12 of the 33, spread over the families (seven
# torchvision classifiers, two Caffe2 CNNs, a segmentation net, the style
# transfer net, one decoder step) and over the op kinds a CPU runs its own
# way: Inception-v1 brings LRN (ONNX Runtime's runs a scalar pow per element)
# and AlexNet a product that streams its weights from DRAM at batch 1. The
# first run fitted on Inception-v2 in their place, and no fitted model held
# either kind (docs/MEASURED.md, "Beyond torchvision"). The other 21 are
# unseen, 10 of them corpus files (seven Caffe2 CNNs, the Qwen decode step,
# the BERT encoder, the LSTM).
FIT = {"resnet18", "mobilenet_v2", "shufflenet_v2_x1_0", "googlenet", "efficientnet_b0", "convnext_tiny", "alexnet",
       "light_resnet50", "light_inception_v1", "lraspp_mobilenet_v3_large", "style_transfer", "gpt2_tiny_decode"}
# Beside them the calibration takes the machine's runs sweep (`onnxcost probe
# --sweep-model`: broadcasts of short spans, normalizations of short rows,
# chains of small ops, small products), measured like a model at each thread
# count: what fits the cost per run of a kernel's inner loop, which the
# models' own nodes, of long spans, cannot tell from their bytes, and the
# tables' samples of the small nodes and products the fit models lack. It is
# not a model, and not checked.
SWEEP = "runs_sweep"


def role(i):
    return "fit" if MODELS[i][0] in FIT else "check"


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-1500:]}")
    return p


def export(name, src, path):
    if src == "tv":  # the classifiers as the validation script exports them
        import measure_validation
        measure_validation.export(name, src, path)
        return
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    size = (1, 3, 224, 224)
    if src == "tvseg":
        import torchvision.models.segmentation as seg

        class Out(nn.Module):  # the dict's "out"
            def __init__(self, m):
                super().__init__()
                self.m = m

            def forward(self, x):
                return self.m(x)["out"]
        kw = {"weights": None, "weights_backbone": None}
        if name != "lraspp_mobilenet_v3_large":
            kw["aux_loss"] = False
        model = Out(getattr(seg, name)(**kw))
    elif src == "sr":  # PyTorch's ONNX export tutorial: 224x224 luminance, upscaled 3x by PixelShuffle
        class SuperResolutionNet(nn.Module):
            def __init__(self, upscale=3):
                super().__init__()
                self.relu = nn.ReLU()
                self.conv1 = nn.Conv2d(1, 64, 5, 1, 2)
                self.conv2 = nn.Conv2d(64, 64, 3, 1, 1)
                self.conv3 = nn.Conv2d(64, 32, 3, 1, 1)
                self.conv4 = nn.Conv2d(32, upscale ** 2, 3, 1, 1)
                self.shuffle = nn.PixelShuffle(upscale)

            def forward(self, x):
                x = self.relu(self.conv1(x))
                x = self.relu(self.conv2(x))
                x = self.relu(self.conv3(x))
                return self.shuffle(self.conv4(x))
        model, size = SuperResolutionNet(), (1, 1, 224, 224)
    elif src == "style":  # PyTorch's fast-neural-style TransformerNet, 256x256
        class ConvLayer(nn.Module):
            def __init__(self, cin, cout, k, stride):
                super().__init__()
                self.pad = nn.ReflectionPad2d(k // 2)
                self.conv = nn.Conv2d(cin, cout, k, stride)

            def forward(self, x):
                return self.conv(self.pad(x))

        class Residual(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.c1, self.n1 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
                self.c2, self.n2 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)

            def forward(self, x):
                return x + self.n2(self.c2(torch.relu(self.n1(self.c1(x)))))

        class Up(nn.Module):
            def __init__(self, cin, cout, k, up):
                super().__init__()
                self.up, self.conv = up, ConvLayer(cin, cout, k, 1)

            def forward(self, x):
                return self.conv(nn.functional.interpolate(x, mode="nearest", scale_factor=self.up) if self.up else x)

        class TransformerNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.down = nn.Sequential(ConvLayer(3, 32, 9, 1), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
                                          ConvLayer(32, 64, 3, 2), nn.InstanceNorm2d(64, affine=True), nn.ReLU(),
                                          ConvLayer(64, 128, 3, 2), nn.InstanceNorm2d(128, affine=True), nn.ReLU())
                self.res = nn.Sequential(*[Residual(128) for _ in range(5)])
                self.up = nn.Sequential(Up(128, 64, 3, 2), nn.InstanceNorm2d(64, affine=True), nn.ReLU(),
                                        Up(64, 32, 3, 2), nn.InstanceNorm2d(32, affine=True), nn.ReLU(),
                                        Up(32, 3, 9, None))

            def forward(self, x):
                return self.up(self.res(self.down(x)))
        model, size = TransformerNet(), (1, 3, 256, 256)
    else:
        raise SystemExit(f"no export for {name}")
    model.eval()
    kw = dict(input_names=["input"], output_names=["output"], opset_version=17,
              dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    torch.onnx.export(model, (torch.rand(*size),), path, **kw)


def batch_copy(src, dst, batch):
    """The model with its inputs' first dim set to batch (a fixed-batch file); None where ONNX Runtime cannot run it."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    m = onnx.load(src)
    inits = {i.name for i in m.graph.initializer}
    for i in m.graph.input:
        if i.name not in inits and i.type.tensor_type.shape.dim:
            i.type.tensor_type.shape.dim[0].dim_value = batch
    # a flatten written as a reshape to the constant (1, N): the first dim
    # copied from the input instead (0, N), as the batch-free export writes it
    from onnx import numpy_helper
    by_name = {i.name: i for i in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "Reshape" and len(n.input) > 1 and n.input[1] in by_name:
            shape = numpy_helper.to_array(by_name[n.input[1]]).copy()
            if shape.ndim == 1 and len(shape) >= 2 and shape[0] == 1:
                shape[0] = 0
                by_name[n.input[1]].CopyFrom(numpy_helper.from_array(shape, n.input[1]))
    del m.graph.value_info[:]
    for o in m.graph.output:
        if o.type.tensor_type.shape.dim:
            o.type.tensor_type.shape.dim[0].dim_param = "batch_out"
    onnx.save(m, dst)
    try:
        s = ort.InferenceSession(dst, providers=["CPUExecutionProvider"])
        feeds = {i.name: np.random.rand(*i.shape).astype(np.float32) for i in s.get_inputs()}
        s.run(None, feeds)
    except Exception as e:  # noqa: BLE001 (any refusal: the model has batch 1 only)
        os.remove(dst)
        return str(e).splitlines()[0][:200]
    return None


def prepare(a):
    """Each model's file per batch: {name: {batch: path or None}} and why a batch is missing."""
    os.makedirs(os.path.join(a.out, "models"), exist_ok=True)
    files, missing = {}, {}
    for name, src, fam, binds in MODELS:
        if src.startswith("corpus:"):
            path = os.path.join(CORPUS, src[len("corpus:"):])
        else:
            path = os.path.join(a.out, "models", name + ".onnx")
            if not os.path.exists(path):
                print(f"export {name} ...", flush=True)
                export(name, src, path)
        files[name] = {b: path for b in BATCHES}
        if not binds and src.startswith("corpus:"):  # a fixed batch of 1
            dst = os.path.join(a.out, "models", f"{name}_b8.onnx")
            if not os.path.exists(dst):
                why = batch_copy(path, dst, 8)
                if why:
                    missing[name] = why
            files[name][8] = dst if os.path.exists(dst) else None
    sweep = os.path.join(a.out, "models", SWEEP + ".onnx")
    sh([a.onnxcost, "probe", "--sweep-model", sweep])
    files[SWEEP] = {1: sweep}
    return files, missing


def binds_of(binds, batch, fixed):
    if not binds:
        return [] if fixed else ["--batch", str(batch)]
    return [b.replace("{B}", str(batch)) for b in binds]


def measure(a, files):
    env = dict(os.environ, ONNXCOST_PYTHON=os.environ.get("ONNXCOST_PYTHON", sys.executable))
    machine = os.path.join(a.out, "machine.json")
    if not os.path.exists(machine):
        print("probe ...", flush=True)
        sh([a.onnxcost, "probe", "-o", machine])
    only = {int(x) for x in a.measure_threads.split(",")}
    sweep = [(SWEEP, "", "", [])]
    for s, t, b, (name, src, fam, binds) in ((s, t, b, m) for s in range(1, a.sessions + 1) for t in THREADS
                                              if t in only for b in BATCHES for m in sweep * (b == 1) + MODELS):
        path = files[name][b]
        res = os.path.join(session_dir(a.out, "measured", s), f"t{t}", f"{name}_b{b}.json")
        if path is None or os.path.exists(res):
            continue
        os.makedirs(os.path.dirname(res), exist_ok=True)
        t0 = time.time()
        try:
            sh([a.onnxcost, "measure", path, *binds_of(binds, b, name == SWEEP or src.startswith("corpus:")),
                "--threads", str(t),
                "--max-seconds", str(a.max_seconds),
                "--save", os.path.join(session_dir(a.out, "saved", s), f"t{t}", f"{name}_b{b}"),
                "--force", "--machine", machine, "--format", "json", "-o", res, "-q"], env=env)
        except RuntimeError as e:
            print(f"measure {name} b{b} t{t}: {e}", flush=True)
            continue
        e2e = json.load(open(res))["measured"]["end_to_end_ms"]["median"]
        print(f"session {s}: measured {name} batch {b} threads {t}: {e2e:.2f} ms ({time.time() - t0:.0f} s)",
              flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "wide"))
    ap.add_argument("--results", default=os.path.join(ROOT, "docs", "results"))
    ap.add_argument("--max-seconds", type=float, default=10)
    ap.add_argument("--sessions", type=int, default=2,
                    help="measure every record this many times, each session after the whole of the one before")
    ap.add_argument("--measure-threads", default=",".join(map(str, THREADS)),
                    help="comma list: measure only these thread counts (a later session where only they were noisy)")
    ap.add_argument("--measure-only", action="store_true")
    ap.add_argument("--analyze-only", action="store_true")
    ap.add_argument("--fit", help="comma list: calibrate on these models instead of FIT (a sensitivity run)")
    ap.add_argument("--tag", default="", help="suffix of the result files (cpu-wide-TAG.json, .md); no data pack")
    a = ap.parse_args()
    a.onnxcost = os.path.abspath(a.onnxcost)
    if a.sessions < 1:
        raise SystemExit("--sessions: 1 or more")
    if a.fit:
        FIT.clear()
        FIT.update(a.fit.split(","))
        unknown = FIT - {m[0] for m in MODELS}
        if unknown:
            raise SystemExit(f"--fit: no such models: {', '.join(sorted(unknown))}")
    files, missing = prepare(a)
    json.dump(missing, open(os.path.join(a.out, "missing.json"), "w"), indent=1)
    if not a.analyze_only:
        measure(a, files)
    if not a.measure_only:
        import cpu_wide_report
        cpu_wide_report.report(a, MODELS, role, files, missing, BATCHES, THREADS, SWEEP)


if __name__ == "__main__":
    main()
