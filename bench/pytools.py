#!/usr/bin/env python3
"""The Python side of bench/run.sh: the two tools onnxcost is measured against,
each as one process, plus the external-data conversion. Runs in bench/.venv.

usage:
  pytools.py onnx-tool  MODEL.onnx [NAME=1x128:int64 ...]
      onnx_tool.model_profile(MODEL, dynamic_shapes={NAME: zeros(shape, dtype)}):
      load, shape inference with concrete inputs, per-node profile, table on stdout.
  pytools.py onnx-infer MODEL.onnx [NAME=1x128:int64 ...]
      onnx.load(MODEL) (external data included, as onnx.load does by default), the
      named graph inputs' dims set to the given values, then
      onnx.shape_inference.infer_shapes; prints the number of inferred value_infos.
  pytools.py external SRC.onnx DST.onnx
      saves SRC with every tensor over 1 KiB in one external file DST.data next to DST.
  pytools.py versions
      prints a JSON object with the versions of python, onnx, onnx_tool, numpy, protobuf.
"""
import json
import os
import sys


def parse_shapes(args):
    """NAME=1x128:int64 -> {NAME: (shape tuple, dtype name)}"""
    out = {}
    for a in args:
        name, spec = a.split("=", 1)
        dims, _, dtype = spec.partition(":")
        out[name] = (tuple(int(d) for d in dims.split("x")), dtype or "float32")
    return out


def onnx_tool_profile(path, shapes):
    import numpy
    import onnx_tool
    dyn = {k: numpy.zeros(s, dtype=getattr(numpy, t)) for k, (s, t) in shapes.items()}
    onnx_tool.model_profile(path, dynamic_shapes=dyn)


def onnx_infer(path, shapes):
    import onnx
    model = onnx.load(path)
    for vi in model.graph.input:
        if vi.name in shapes:
            dims = vi.type.tensor_type.shape.dim
            want = shapes[vi.name][0]
            if len(dims) != len(want):
                sys.exit("%s: input %s has rank %d, binding has %d" % (path, vi.name, len(dims), len(want)))
            for d, v in zip(dims, want):
                d.dim_value = v  # clears dim_param (oneof)
    inferred = onnx.shape_inference.infer_shapes(model)
    print("value_info: %d" % len(inferred.graph.value_info))


def external(src, dst):
    import onnx
    model = onnx.load(src)
    loc = os.path.basename(dst) + ".data"
    data = os.path.join(os.path.dirname(os.path.abspath(dst)), loc)
    if os.path.exists(data):
        os.remove(data)  # save_model appends to an existing data file
    onnx.save_model(model, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=loc, size_threshold=1024)


def versions():
    import platform
    v = {"python": platform.python_version()}
    for mod, key in (("onnx", "onnx"), ("onnx_tool", "onnx-tool"), ("numpy", "numpy"),
                     ("google.protobuf", "protobuf")):
        try:
            m = __import__(mod, fromlist=["__version__"])
            v[key] = getattr(m, "__version__", None)
        except Exception as e:  # noqa: BLE001 - report, do not fail
            v[key] = "unavailable (%s)" % e
    if v.get("onnx-tool") is None:
        try:
            from importlib.metadata import version
            v["onnx-tool"] = version("onnx-tool")
        except Exception:  # noqa: BLE001
            pass
    print(json.dumps(v))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    if cmd == "onnx-tool":
        onnx_tool_profile(sys.argv[2], parse_shapes(sys.argv[3:]))
    elif cmd == "onnx-infer":
        onnx_infer(sys.argv[2], parse_shapes(sys.argv[3:]))
    elif cmd == "external":
        external(sys.argv[2], sys.argv[3])
    elif cmd == "versions":
        versions()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
