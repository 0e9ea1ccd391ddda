#!/usr/bin/env python3
"""Writes a synthetic ONNX graph of exactly N nodes for the scaling benchmark.

The graph is a chain of pre-LayerNorm residual MLP blocks, the way PyTorch
exports them (15 nodes a block):

    /layers.K/ln/ReduceMean, Sub, Mul, ReduceMean_1, Add, Sqrt, Div, Mul_1, Add_1
    /layers.K/mlp/fc1/MatMul, /layers.K/mlp/fc1/Add, /layers.K/mlp/act/Relu,
    /layers.K/mlp/fc2/MatMul, /layers.K/mlp/fc2/Add
    /layers.K/Add                         (residual: fan-in 2)

so node names carry module scopes (`--depth` grouping has work to do) and
several nodes have more than one graph input. The remainder N mod 15 is made of
`/head/Relu_J` nodes at the end. Input `x` is [batch, 16, H] with a symbolic
`batch`; every block has its own weights (gamma, beta, W1, b1, W2, b2, each of
H or HxH floats, H = 4 by default), so the 1M-node file is ~80 MB, not GBs.
Tensor names are short (`v123`) to keep the file small; node names are full.

usage: python bench/gen_synthetic.py N OUT.onnx [--hidden H] [--check]
(--check runs onnx.checker.check_model on the result; use it for small N)
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

BLOCK = 15


def build(n, hidden):
    blocks, tail = divmod(n, BLOCK)
    if blocks == 0:
        sys.exit("N must be at least %d" % BLOCK)
    g = onnx.GraphProto()
    g.name = "synthetic_%d" % n
    rng = np.random.default_rng(0)
    counter = [0]

    def val():
        counter[0] += 1
        return "v%d" % counter[0]

    def init(name, shape):
        t = g.initializer.add()
        t.name = name
        t.data_type = TensorProto.FLOAT
        t.dims.extend(shape)
        t.raw_data = (rng.standard_normal(int(np.prod(shape))).astype(np.float32) * 0.1).tobytes()
        return name

    def node(op, name, inputs, axes=None):
        nd = g.node.add()
        nd.op_type = op
        nd.name = name
        nd.input.extend(inputs)
        out = val()
        nd.output.append(out)
        if axes is not None:
            a = nd.attribute.add()
            a.name = "axes"
            a.type = onnx.AttributeProto.INTS
            a.ints.extend(axes)
        return out

    eps = g.initializer.add()
    eps.name = "eps"
    eps.data_type = TensorProto.FLOAT
    eps.raw_data = np.array(1e-5, np.float32).tobytes()

    x = "x"
    for k in range(blocks):
        p = "/layers.%d" % k
        m = node("ReduceMean", p + "/ln/ReduceMean", [x], axes=[-1])
        d = node("Sub", p + "/ln/Sub", [x, m])
        d2 = node("Mul", p + "/ln/Mul", [d, d])
        v = node("ReduceMean", p + "/ln/ReduceMean_1", [d2], axes=[-1])
        ve = node("Add", p + "/ln/Add", [v, "eps"])
        s = node("Sqrt", p + "/ln/Sqrt", [ve])
        nrm = node("Div", p + "/ln/Div", [d, s])
        sc = node("Mul", p + "/ln/Mul_1", [nrm, init("l%d.g" % k, [hidden])])
        h = node("Add", p + "/ln/Add_1", [sc, init("l%d.b" % k, [hidden])])
        h = node("MatMul", p + "/mlp/fc1/MatMul", [h, init("l%d.w1" % k, [hidden, hidden])])
        h = node("Add", p + "/mlp/fc1/Add", [h, init("l%d.b1" % k, [hidden])])
        h = node("Relu", p + "/mlp/act/Relu", [h])
        h = node("MatMul", p + "/mlp/fc2/MatMul", [h, init("l%d.w2" % k, [hidden, hidden])])
        h = node("Add", p + "/mlp/fc2/Add", [h, init("l%d.b2" % k, [hidden])])
        x = node("Add", p + "/Add", [x, h])
    for j in range(tail):
        x = node("Relu", "/head/Relu_%d" % j, [x])
    g.node[-1].output[0] = "y"
    g.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16, hidden]))
    g.output.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16, hidden]))
    assert len(g.node) == n
    model = helper.make_model(g, producer_name="onnxcost-bench-synthetic",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--hidden", type=int, default=4)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    model = build(a.n, a.hidden)
    with open(a.out, "wb") as f:
        f.write(model.SerializeToString())
    if a.check:
        onnx.checker.check_model(a.out, full_check=True)
        print("onnx.checker: ok (%d nodes)" % a.n)


if __name__ == "__main__":
    main()
