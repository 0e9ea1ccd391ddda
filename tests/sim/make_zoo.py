#!/usr/bin/env python3
"""make_zoo.py OUT_DIR — two small ONNX models for the ocsim replay test
(tests/sim/replay_sim.py) covering what the corpus models do not reach:
strided, pointer-array, folded and vector MatMuls; a transposed Gemm with a
row bias; grouped, dilated and asymmetric convolutions and transposed
convolutions; 1-D convolution; ceil-mode, 3-D and global pooling; 5-D
BatchNormalization; LRN outside cuDNN's limits; rank-6 and scalar
broadcasts; empty tensors; int8 arithmetic; reductions over nothing; ONNX
Runtime's fused GELUs and SkipLayerNormalization; and
opset-13 reductions with the axes attribute (zoo13.onnx).

Written for this project; the expected outcome of each node is in
replay_sim.py.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h

out_dir = sys.argv[1]
nodes, inputs, outputs, inits = [], [], [], []


def inp(name, shape, dt=T.FLOAT):
    inputs.append(h.make_tensor_value_info(name, dt, shape))


def init(name, arr):
    inits.append(onnx.numpy_helper.from_array(np.asarray(arr), name))


def node(op, ins, o, dt=T.FLOAT, **kw):
    nodes.append(h.make_node(op, ins, [o], name=o, **kw))
    outputs.append(h.make_tensor_value_info(o, dt, None))


# batched MatMuls
inp("a4", [2, 3, 4, 5]); inp("b4", [2, 3, 5, 6]); node("MatMul", ["a4", "b4"], "mm_strided")
inp("a4b", [2, 1, 4, 5]); inp("b4b", [1, 3, 5, 6]); node("MatMul", ["a4b", "b4b"], "mm_pointers")
inp("a3", [3, 4, 5]); inp("b2", [5, 6]); node("MatMul", ["a3", "b2"], "mm_folded")
inp("a2", [4, 5]); inp("b3", [3, 5, 6]); node("MatMul", ["a2", "b3"], "mm_shared_a")
inp("v5", [5]); node("MatMul", ["v5", "b3"], "mm_vec")
# Gemm with transposes and a row bias
inp("ga", [5, 4]); inp("gb", [6, 5]); inp("gc", [6]); node("Gemm", ["ga", "gb", "gc"], "gemm_tt", transA=1, transB=1, alpha=0.5, beta=2.0)
# reductions
inp("r", [3, 1, 4]); init("ax1", np.array([1], dtype=np.int64))
node("ReduceSum", ["r", "ax1"], "reduce_size1_axis", keepdims=1)
node("ReduceMean", ["r"], "reduce_all", keepdims=1)
inp("r2", [2, 3, 4, 5]); node("ReduceL2", ["r2"], "reduce_l2", axes=[1, 3], keepdims=0)
# convs
inp("cx", [1, 4, 9, 9]); init("cw", np.ones((6, 2, 3, 3), np.float32)); node("Conv", ["cx", "cw"], "conv_grp_dil_asym", group=2, dilations=[2, 2], pads=[1, 0, 2, 1], strides=[2, 1])
init("ctw", np.ones((4, 3, 3, 3), np.float32)); node("ConvTranspose", ["cx", "ctw"], "convt_grp", group=2, strides=[2, 2], output_padding=[1, 1], pads=[1, 1, 1, 1])
node("ConvTranspose", ["cx", "ctw"], "convt_asym", group=2, strides=[2, 2], pads=[0, 1, 2, 0])
inp("c1", [2, 3, 10]); init("c1w", np.ones((5, 3, 3), np.float32)); init("c1b", np.ones((5,), np.float32)); node("Conv", ["c1", "c1w", "c1b"], "conv1d", pads=[1, 1])
# pools
node("AveragePool", ["cx"], "avgpool_ceil", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1, count_include_pad=1, pads=[1, 1, 1, 1])
inp("p3", [1, 2, 6, 6, 6]); node("MaxPool", ["p3"], "maxpool3d", kernel_shape=[2, 2, 2], strides=[2, 2, 2])
node("GlobalAveragePool", ["p3"], "gap3d")
# LRN with a tiny bias (below cuDNN's CUDNN_LRN_MIN_K)
node("LRN", ["cx"], "lrn_small_bias", size=3, bias=1e-6)
node("LRN", ["cx"], "lrn_small_beta", size=3, beta=0.001)
# activations, softmax, BN
node("Elu", ["cx"], "elu", alpha=0.7); node("Tanh", ["cx"], "tanh"); node("Sigmoid", ["cx"], "sigmoid")
inp("s", [2, 3, 4, 5]); node("Softmax", ["s"], "softmax_axis1", axis=1)
inp("bx", [2, 3, 4, 5, 6]); init("bs", np.ones(3, np.float32)); init("bb", np.zeros(3, np.float32)); init("bm", np.zeros(3, np.float32)); init("bv", np.ones(3, np.float32))
node("BatchNormalization", ["bx", "bs", "bb", "bm", "bv"], "bn5d", epsilon=1e-5)
# binary broadcast, rank 6 merge
inp("e6", [2, 3, 2, 3, 2, 3]); inp("e6b", [1, 3, 1, 3, 1, 3]); node("Add", ["e6", "e6b"], "add_rank6_alt")
inp("e4", [2, 3, 4, 5]); inp("e4b", [3, 1, 1]); node("Sub", ["e4", "e4b"], "sub_bcast")
node("Mul", ["e4", "e4"], "mul_same")
inp("sc", []); node("Add", ["e4", "sc"], "add_scalar")
# empty tensor
inp("z", [0, 3]); node("Relu", ["z"], "relu_empty")
inp("z2", [2, 0, 4, 5]); node("Add", ["z2", "z2"], "add_empty")
# int8 arithmetic (refused: the kernel's integer arithmetic is int32/int64) and an int32 one (run)
inp("i8", [4, 5], T.INT8); node("Add", ["i8", "i8"], "add_int8", T.INT8)
inp("i32", [4, 5], T.INT32); node("Mul", ["i32", "i32"], "mul_int32", T.INT32)
# reductions over nothing: a copy, |x|
node("ReduceMax", ["r", "ax1"], "reduce_max_size1_axis", keepdims=1)
node("ReduceL1", ["r", "ax_none"], "reduce_l1_noop", noop_with_empty_axes=1)
init("ax_none", np.array([], dtype=np.int64))
# ONNX Runtime's fused ops (com.microsoft)
inp("t", [2, 5, 8]); inp("tb", [8])
node("Gelu", ["t"], "ms_gelu", domain="com.microsoft")
node("BiasGelu", ["t", "tb"], "ms_bias_gelu", domain="com.microsoft")
node("FastGelu", ["t"], "ms_fast_gelu_no_bias", domain="com.microsoft")
node("QuickGelu", ["t"], "ms_quick_gelu", domain="com.microsoft", alpha=1.5)
init("tg", np.ones(8, np.float32))
node("SkipLayerNormalization", ["t", "t", "tg"], "ms_skip_ln_plain", domain="com.microsoft")
g = h.make_graph(nodes, "zoo", inputs, outputs, inits)
m = h.make_model(g, opset_imports=[h.make_opsetid("", 18), h.make_opsetid("com.microsoft", 1)])
m.ir_version = 8
onnx.save(m, os.path.join(out_dir, "zoo.onnx"))

# opset 13: reductions take axes as an attribute (ReduceSum as an input)
r = [h.make_node("ReduceL2", ["r2"], ["reduce_l2"], name="reduce_l2", axes=[1, 3], keepdims=0),
     h.make_node("ReduceMax", ["r2"], ["reduce_max"], name="reduce_max", axes=[0], keepdims=1),
     h.make_node("ReduceProd", ["r2"], ["reduce_prod"], name="reduce_prod", axes=[2, 3], keepdims=0),
     h.make_node("ReduceMean", ["r2"], ["reduce_mean_all"], name="reduce_mean_all", keepdims=0)]
g = h.make_graph(r, "r", [h.make_tensor_value_info("r2", T.FLOAT, [2, 3, 4, 5])],
                 [h.make_tensor_value_info(n.output[0], T.FLOAT, None) for n in r])
m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
m.ir_version = 8
onnx.save(m, os.path.join(out_dir, "zoo13.onnx"))
