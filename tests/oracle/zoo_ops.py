#!/usr/bin/env python3
"""Ops that old model zoos and converted models hold, one small model each:
the experimental ops of ONNX 1.0-1.4 (ImageScaler, Crop, Affine, ScaledTanh,
ParametricSoftplus, Scale, ThresholdedRelu-1, MeanVarianceNormalization-1,
GivenTensorFill, ConstantFill, DynamicSlice) at opset 8, and ai.onnx.ml
FeatureVectorizer fed the [1, 1, k] inputs of a CoreML-converted
OneHotEncoder:

  shapes: ONNX Runtime (which still runs the first eight) must give the
          output the shape onnxcost infers; for the fills and DynamicSlice,
          which it no longer runs, the shape is the ONNX 1.4 spec's, worked
          out here by hand;
  FLOPs:  numel(output) x the per-element rate of docs/COSTS.md, written here
          by hand from each op's formula (0 for data movement).

Exit 0 when all agree, 1 otherwise, 77 when onnx/onnxruntime are missing.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import helper, TensorProto as T
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)


def i64(name, vals):
    return helper.make_tensor(name, T.INT64, [len(vals)], vals)


# name: (node, input shape or None, initializers, expected shape when ORT cannot run it, FLOPs per element)
CASES = {
    "ImageScaler": (helper.make_node("ImageScaler", ["x"], ["y"], bias=[1.0, 2.0, 3.0], scale=0.5),
                    [2, 3, 4, 5], [], None, 2),  # scale * x + bias[c]
    "Crop": (helper.make_node("Crop", ["x"], ["y"], border=[1, 1, 2, 0]), [1, 3, 4, 5], [], None, 0),
    "Crop_scale": (helper.make_node("Crop", ["x"], ["y"], border=[1, 1, 0, 0], scale=[2, 3]), [1, 3, 4, 5], [],
                   None, 0),
    "Affine": (helper.make_node("Affine", ["x"], ["y"], alpha=2.0, beta=1.0), [2, 3], [], None, 2),
    "ScaledTanh": (helper.make_node("ScaledTanh", ["x"], ["y"], alpha=2.0, beta=1.0), [2, 3], [], None, 3),
    "ParametricSoftplus": (helper.make_node("ParametricSoftplus", ["x"], ["y"], alpha=2.0, beta=1.0), [2, 3], [],
                           None, 5),  # alpha * ln(exp(beta * x) + 1)
    "Scale": (helper.make_node("Scale", ["x"], ["y"], scale=3.0), [2, 3], [], None, 1),
    "ThresholdedRelu": (helper.make_node("ThresholdedRelu", ["x"], ["y"], alpha=0.5), [2, 3], [], None, 1),
    # MVN-1 over H, W per (N, C): 5n + 4 rows FLOPs (docs/COSTS.md), n = 60, rows = 3: 312 = 5.2 per element
    "MVN1": (helper.make_node("MeanVarianceNormalization", ["x"], ["y"], across_channels=0), [1, 3, 4, 5], [],
             None, 312 / 60),
    "MVN1_mean_only": (helper.make_node("MeanVarianceNormalization", ["x"], ["y"], normalize_variance=0),
                       [1, 3, 4, 5], [], None, 2),
    "GivenTensorFill": (helper.make_node("GivenTensorFill", [], ["y"], values=[1.0, 2, 3, 4, 5, 6], shape=[2, 3]),
                        None, [], [2, 3], 0),
    "ConstantFill": (helper.make_node("ConstantFill", [], ["y"], shape=[2, 3], extra_shape=[4], value=1.0),
                     None, [], [2, 3, 4], 0),
    "ConstantFill_as_shape": (helper.make_node("ConstantFill", ["s"], ["y"], input_as_shape=1, value=2.0),
                              None, [i64("s", [5, 7])], [5, 7], 0),
    # data[1:3, 0:-1] of a [4, 6]: [2, 5]
    "DynamicSlice": (helper.make_node("DynamicSlice", ["x", "st", "en"], ["y"]), [4, 6],
                     [i64("st", [1, 0]), i64("en", [3, -1])], [2, 5], 0),
}

# FeatureVectorizer: (input shapes, inputdimensions); shapes from ONNX Runtime
VECTORIZER = {
    "FeatureVectorizer_coreml_onehot": ([[1, 1, 50], [1, 1, 7]], [50, 7]),
    "FeatureVectorizer_2d": ([[2, 3], [2, 2]], [3, 2]),
    "FeatureVectorizer_1d": ([[3], [2]], [3, 2]),
    "FeatureVectorizer_3d_batch": ([[2, 1, 3], [2, 2]], [3, 2]),
}


def vectorizer_models():
    for name, (shapes, dims) in VECTORIZER.items():
        ins = [helper.make_tensor_value_info(f"x{i}", T.FLOAT, s) for i, s in enumerate(shapes)]
        node = helper.make_node("FeatureVectorizer", [f"x{i}" for i in range(len(shapes))], ["y"],
                                domain="ai.onnx.ml", inputdimensions=dims)
        g = helper.make_graph([node], name, ins, [helper.make_tensor_value_info("y", T.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 1)])
        yield name, m, {f"x{i}": s for i, s in enumerate(shapes)}, None, 0


def legacy_models():
    for name, (node, shape, inits, want_shape, rate) in CASES.items():
        inputs = [helper.make_tensor_value_info("x", T.FLOAT, shape)] if shape else []
        g = helper.make_graph([node], name, inputs, [helper.make_tensor_value_info("y", T.FLOAT, None)], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)])
        m.ir_version = 3
        yield name, m, ({"x": shape} if shape else {}), want_shape, rate


def main():
    onnxcost = sys.argv[1]
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, m, feeds, want_shape, rate in list(legacy_models()) + list(vectorizer_models()):
            path = os.path.join(tmp, f"{name}.onnx")
            onnx.save(m, path)
            if want_shape is None:
                sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
                want_shape = list(sess.run(None, {k: np.random.randn(*v).astype(np.float32)
                                                  for k, v in feeds.items()})[0].shape)
                source = "ONNX Runtime"
            else:
                source = "the spec"
            run = subprocess.run([onnxcost, path, "--format", "json", "-q"], capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL {name}: onnxcost exit {run.returncode}: {run.stderr.strip()}")
                failed += 1
                continue
            doc = json.loads(run.stdout)
            nd = doc["nodes"][0]
            got = nd["outputs"][0]["shape"]
            want_flops = round(int(np.prod(want_shape)) * rate)
            problems = []
            if got != want_shape:
                problems.append(f"shape {got}, {source} {want_shape}")
            if nd["flops"] != want_flops:
                problems.append(f"FLOPs {nd['flops']}, expected {want_flops}")
            if not doc["totals"]["complete"]:
                problems.append("analysis incomplete")
            if problems:
                print(f"FAIL {name}: " + "; ".join(problems))
                failed += 1
            else:
                print(f"ok   {name}: {got} = {source}, {want_flops} FLOPs")
                passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
