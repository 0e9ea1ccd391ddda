#!/usr/bin/env python3
"""Exports a torchvision model (random init, no download) to ONNX for benchmarks.

usage: /usr/bin/python3 bench/export_torchvision.py NAME OUT.onnx [--batch-dynamic]
"""
import sys

import torch
import torchvision.models as tvm

name, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
model = getattr(tvm, name)(weights=None).eval()
kw = {}
if "--batch-dynamic" in sys.argv:
    kw["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
torch.onnx.export(model, torch.rand(1, 3, 224, 224), out, opset_version=13, input_names=["input"],
                  output_names=["output"], **kw)
