#!/usr/bin/env python3
"""Malformed nodes the op rules refuse, each against ONNX Runtime's verdict.

The line-coverage report (tests/coverage.sh) showed the op rules' refusals
as the largest part of analyzer/ops/ no test reached. Each case here is a
one-node model that breaks one rule of the ONNX operator's specification
(a perm that is not a permutation, a split that does not sum to its axis,
K and V whose heads do not match Q, ...). For each:

* onnxcost must refuse it as a user reads it: exit status 2, one line on
  standard error that names the file, the node and its op, and the reason
  the case is about (a substring, so that a refusal for another reason
  fails the case); no crash, nothing on standard output;
* ONNX Runtime, the independent judge, must refuse the same model too:
  creating a session or running it with inputs of the declared shapes
  fails. A case ONNX Runtime cannot judge (an op it lacks at that opset,
  such as the ai.onnx Attention of opset 23 on older builds) says so and
  keeps onnxcost's half.

Cases marked "overflow" are well formed, and a count (MACs, FLOPs) passes
64 bits: onnxcost goes on (exit 0), saturates it at 2^64 - 1 and says so
in one warning, and the totals are lower bounds (>=). A shape that passes
64 bits is refused (exit 2) as a malformed node is; ONNX Runtime is not
asked to allocate those (judge=False).

Cases marked "shape" are those where onnxcost goes on (exit 0): a value
the rule needs is not known before run time, an attribute only the cost
rule reads is malformed, or the node is past one rule's own limit (a rank
over 64 once --limit-rank lets the graph in; a type or mode it does not
model). It lists the node ("Nodes whose shapes could
not be inferred", or "Nodes without a cost") with the reason, and marks
the totals as lower bounds; ONNX Runtime is not asked.

usage: refusals.py ONNXCOST   (refusals.py --judge MODEL: ONNX Runtime's verdict alone)
Exit 0 when every case holds, 1 otherwise, 77 when onnx/onnxruntime are missing.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import onnxruntime as ort
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

F, I64 = TensorProto.FLOAT, TensorProto.INT64
NP = {F: np.float32, I64: np.int64, TensorProto.BOOL: np.bool_, TensorProto.INT32: np.int32,
      TensorProto.INT8: np.int8, TensorProto.UINT8: np.uint8, TensorProto.STRING: np.str_}


def inp(name, shape, dtype=F):
    return ("input", name, dtype, shape)


def const(name, values, dtype=I64, shape=None):
    a = np.asarray(values, dtype=NP[dtype])
    return ("init", name, a.reshape(shape) if shape is not None else a)


def body(n_in, n_out, name):
    """a subgraph of n_in float [3] inputs and n_out outputs (Identity of an input, or a constant)"""
    ins = [helper.make_tensor_value_info(f"i{k}", F, [3]) for k in range(n_in)]
    outs = [helper.make_tensor_value_info(f"o{k}", F, [3]) for k in range(n_out)]
    nodes = [helper.make_node("Identity", [f"i{k % n_in}"], [f"o{k}"]) if n_in else
             helper.make_node("Constant", [], [f"o{k}"], value=helper.make_tensor(f"c{k}", F, [3], [0, 0, 0]))
             for k in range(n_out)]
    return helper.make_graph(nodes, name, ins, outs)


def case(name, op, ins, want, text, opset=17, domain="", n_out=1, judge=True, args=(), **attrs):
    """ins: inp()/const() specs in input order; "" for an omitted input. judge=False: a size past 64 bits,
    past any machine's memory, which ONNX Runtime is not asked to allocate. args: onnxcost's options."""
    return dict(name=name, op=op, ins=ins, want=want, text=text, opset=opset, domain=domain, n_out=n_out,
                judge=judge, args=list(args), attrs=attrs)


CASES = [
    # layout
    case("transpose_perm_repeats", "Transpose", [inp("x", [2, 3, 4])], "model",
         "perm is not a permutation", perm=[0, 0, 1]),
    case("transpose_perm_short", "Transpose", [inp("x", [2, 3, 4])], "model", "perm has 2 entries for rank 3",
         perm=[1, 0]),
    case("reshape_two_minus_one", "Reshape", [inp("x", [2, 3, 4]), const("s", [-1, -1])], "model",
         "more than one -1"),
    case("reshape_minus_one_no_fit", "Reshape", [inp("x", [2, 3, 5]), const("s", [-1, 4])], "model",
         "cannot reshape 30 elements"),
    case("concat_rank_differs", "Concat", [inp("a", [2, 3]), inp("b", [2, 3, 1])], "model",
         "input 1 has rank 3, input 0 rank 2", axis=0),
    case("concat_dim_differs", "Concat", [inp("a", [2, 3]), inp("b", [2, 4])], "model",
         "input 1 dim 1 is 4, expected 3", axis=0),
    case("slice_step_zero", "Slice", [inp("x", [4, 4]), const("s", [0]), const("e", [4]), const("a", [0]),
                                      const("st", [0])], "model", "step is 0"),
    case("slice_lengths_differ", "Slice", [inp("x", [4, 4]), const("s", [0, 0]), const("e", [4]),
                                           const("a", [0])], "model", "differ in length"),
    case("slice_steps_unknown", "Slice", [inp("x", [4, 4]), const("s", [0]), const("e", [4]), const("a", [0]),
                                          inp("st", [1], I64)], "shape", "the values of input 'steps' are not known"),
    case("pad_axis_out_of_range", "Pad", [inp("x", [2, 3]), const("p", [1, 1]), "", const("ax", [2])], "model",
         "axis 2 out of range for rank 2", opset=18),
    case("pad_negative_result", "Pad", [inp("x", [2, 3]), const("p", [0, -2, 0, -2])], "model",
         "padding makes axis 1 negative"),
    case("range_delta_zero", "Range", [const("a", 0.0, F, ()), const("b", 4.0, F, ()), const("d", 0.0, F, ())],
         "model", "delta is 0"),
    # index
    case("split_sum_differs", "Split", [inp("x", [6, 2]), const("sp", [2, 3])], "model",
         "split sums to 5, the axis has 6", n_out=2),
    case("split_negative_entry", "Split", [inp("x", [6, 2]), const("sp", [7, -1])], "model",
         "negative or the sum overflows", n_out=2),
    case("split_num_outputs_mismatch", "Split", [inp("x", [6, 2])], "model",
         "num_outputs is 3, the node has 2 outputs", opset=18, n_out=2, num_outputs=3),
    case("tile_negative_repeat", "Tile", [inp("x", [2, 3]), const("r", [1, -1])], "model", "negative repeat -1"),
    case("onehot_axis_out_of_range", "OneHot", [inp("i", [3], I64), const("d", [4]),
                                                const("v", [0.0, 1.0], F)], "model",
         "axis 3 out of range for rank 2", axis=3),
    case("topk_k_negative", "TopK", [inp("x", [2, 5]), const("k", [-1])], "model", "k is negative", n_out=2),
    case("topk_k_too_large", "TopK", [inp("x", [2, 5]), const("k", [6])], "model",
         "k = 6 is larger than the axis (5)", n_out=2),
    case("gather_elements_rank", "GatherElements", [inp("x", [2, 3]), inp("i", [2], I64)], "model",
         "indices has rank 1, data rank 2"),
    case("gather_nd_batch_dims", "GatherND", [inp("x", [2, 3]), inp("i", [2, 1], I64)], "model",
         "batch_dims 2 must be below both ranks", batch_dims=2),
    case("gather_nd_batch_differs", "GatherND", [inp("x", [2, 3, 4]), inp("i", [3, 1], I64)], "model",
         "batch dim 0 differs: data 2, indices 3", batch_dims=1),
    case("depth_to_space_channels", "DepthToSpace", [inp("x", [1, 6, 2, 2])], "model",
         "6 channels are not a multiple of blocksize^2 = 4", blocksize=2),
    case("space_to_depth_dim", "SpaceToDepth", [inp("x", [1, 2, 5, 4])], "model",
         "dim 2 (5) is not a multiple of blocksize 2", blocksize=2),
    case("center_crop_pad_axis", "CenterCropPad", [inp("x", [4, 4]), const("s", [2])], "model",
         "axis 2 out of range for rank 2", opset=18, axes=[2]),
    # contractions
    case("gemm_inner_differs", "Gemm", [inp("a", [2, 3]), inp("b", [4, 5])], "model",
         "inner dimensions differ: A gives K=3, B gives K=4"),
    case("gemm_c_not_broadcast", "Gemm", [inp("a", [2, 3]), inp("b", [3, 5]), inp("c", [3, 5])], "model",
         "C cannot be broadcast to [M, N]"),
    case("matmul_batch_not_broadcast", "MatMul", [inp("a", [2, 3, 4]), inp("b", [3, 4, 5])], "model",
         "batch dimensions cannot be broadcast"),
    case("conv_weight_rank", "Conv", [inp("x", [1, 2, 5, 5]), inp("w", [4, 2, 3])], "model",
         "weight W has rank 3, input X rank 4"),
    case("conv_group_channels", "Conv", [inp("x", [1, 4, 5, 5]), inp("w", [3, 2, 3, 3])], "model",
         "3 output channels are not divisible by group 2", group=2),
    case("conv_kernel_shape_differs", "Conv", [inp("x", [1, 2, 5, 5]), inp("w", [4, 2, 3, 3])], "model",
         "kernel_shape 2 differs from weight dim 3", kernel_shape=[2, 3]),
    case("convt_output_padding_count", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])], "model",
         "output_padding has 1 entries, expected 2", strides=[2, 2], output_padding=[1]),
    case("convt_negative_output_shape", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])],
         "model", "negative output_shape entry", output_shape=[-1, 10]),
    case("convt_group_channels", "ConvTranspose", [inp("x", [1, 3, 5, 5]), inp("w", [3, 2, 3, 3])], "model",
         "3 input channels are not divisible by group 2", group=2),
    case("convt_bias_length", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3]), inp("b", [4])],
         "model", "bias B must be 1-D with 3 elements"),
    case("einsum_two_arrows", "Einsum", [inp("a", [2, 3])], "model", "has two '->'", equation="ij->ji->ij"),
    case("einsum_operand_count", "Einsum", [inp("a", [2, 3]), inp("b", [3, 4])], "model",
         "has 1 operands, the node 2 inputs", equation="ij->ji"),
    case("einsum_rank_labels", "Einsum", [inp("a", [2, 3, 4])], "model", "operand 0 has rank 3 for 2 labels",
         equation="ij->ji"),
    case("einsum_label_sizes", "Einsum", [inp("a", [2, 3]), inp("b", [4, 5])], "model",
         "label 'j' has size", equation="ij,jk->ik"),
    case("einsum_output_label_absent", "Einsum", [inp("a", [2, 3])], "model", "output label 'k' is in no input",
         equation="ij->ik"),
    case("einsum_output_repeats", "Einsum", [inp("a", [2, 3])], "model", "the output repeats a label",
         equation="ij->ii"),
    # elementwise, math, losses
    case("prelu_slope_rank", "PRelu", [inp("x", [2, 3]), inp("s", [1, 2, 3])], "model",
         "slope of rank 3 cannot be broadcast to X of rank 2"),
    case("cumsum_axis_out_of_range", "CumSum", [inp("x", [2, 3]), const("a", 2, I64, ())], "model",
         "axis 2 out of range for rank 2"),
    case("reverse_sequence_axes", "ReverseSequence", [inp("x", [3, 2, 4]), const("l", [1, 2])], "model",
         "batch_axis 0 and time_axis 0 must be 0 and 1", batch_axis=0, time_axis=0),
    case("nll_target_dim", "NegativeLogLikelihoodLoss", [inp("x", [3, 5]), inp("t", [4], I64)], "model",
         "target dim 0 is 4, input has 3"),
    case("nll_weight_length", "NegativeLogLikelihoodLoss", [inp("x", [3, 5]), inp("t", [3], I64),
                                                            inp("w", [4])], "model",
         "weight must be 1-D with C = 5 elements"),
    case("nll_reduction_name", "NegativeLogLikelihoodLoss", [inp("x", [3, 5]), inp("t", [3], I64)], "model",
         "reduction 'max' is not none, sum or mean", reduction="max"),
    # attention (ai.onnx Attention, opset 23)
    case("attention_kv_heads_not_positive", "Attention", [inp("q", [1, 4, 8]), inp("k", [1, 4, 8]),
                                                          inp("v", [1, 4, 8])], "model",
         "q_num_heads and kv_num_heads must be positive", opset=23, q_num_heads=2, kv_num_heads=-2),
    case("attention_3d_without_heads", "Attention", [inp("q", [1, 4, 8]), inp("k", [1, 4, 8]),
                                                     inp("v", [1, 4, 8])], "model",
         "3-D Q, K, V need the q_num_heads and kv_num_heads attributes", opset=23),
    case("attention_hidden_not_multiple", "Attention", [inp("q", [1, 4, 9]), inp("k", [1, 4, 9]),
                                                        inp("v", [1, 4, 9])], "model",
         "are not multiples of the head counts", opset=23, q_num_heads=2, kv_num_heads=2),
    case("attention_kv_shapes_differ", "Attention", [inp("q", [1, 2, 4, 8]), inp("k", [1, 2, 4, 6]),
                                                     inp("v", [1, 2, 4, 8])], "model",
         "K and V shapes do not match Q: 6 vs 8", opset=23),
    case("attention_head_sizes_differ", "Attention", [inp("q", [1, 4, 8]), inp("k", [1, 4, 12]),
                                                      inp("v", [1, 4, 12])], "model",
         "Q head size 4 differs from K head size 6", opset=23, q_num_heads=2, kv_num_heads=2),
    case("attention_past_alone", "Attention", [inp("q", [1, 2, 4, 8]), inp("k", [1, 2, 4, 8]),
                                               inp("v", [1, 2, 4, 8]), "", inp("pk", [1, 2, 3, 8])], "model",
         "past_key and past_value must be given together", opset=23),
    case("attention_past_rank", "Attention", [inp("q", [1, 2, 4, 8]), inp("k", [1, 2, 4, 8]),
                                              inp("v", [1, 2, 4, 8]), "", inp("pk", [2, 3, 8]),
                                              inp("pv", [2, 3, 8])], "model",
         "past_key and past_value must be 4-D", opset=23),
    case("rope_3d_without_heads", "RotaryEmbedding", [inp("x", [1, 4, 8]), inp("c", [1, 4, 4]),
                                                      inp("s", [1, 4, 4])], "model",
         "3-D input needs the num_heads attribute", opset=23),
    case("rope_hidden_not_multiple", "RotaryEmbedding", [inp("x", [1, 4, 9]), inp("c", [1, 4, 4]),
                                                         inp("s", [1, 4, 4])], "model",
         "hidden size 9 is not a multiple of num_heads 2", opset=23, num_heads=2),
    # second batch: the rest of the coverage report's refusals
    case("rope_negative_heads", "RotaryEmbedding", [inp("x", [1, 2, 4, 8]), inp("c", [1, 4, 4]),
                                                    inp("s", [1, 4, 4])], "model",
         "num_heads and rotary_embedding_dim must not be negative", opset=23, num_heads=-1),
    case("rope_cache_rank", "RotaryEmbedding", [inp("x", [1, 2, 4, 8]), inp("c", [4, 4]), inp("s", [4, 4])],
         "model", "cos/sin cache has rank 2, expected 3", opset=23),
    case("rope_cache_last_dim", "RotaryEmbedding", [inp("x", [1, 2, 4, 8]), inp("c", [1, 4, 3]),
                                                    inp("s", [1, 4, 3])], "model",
         "cos/sin cache last dim 3 is not rotary dim / 2 = 4", opset=23),
    case("attention_past_heads_differ", "Attention", [inp("q", [1, 2, 4, 8]), inp("k", [1, 2, 4, 8]),
                                                      inp("v", [1, 2, 4, 8]), "", inp("pk", [1, 2, 3, 6]),
                                                      inp("pv", [1, 2, 3, 6])], "model",
         "past_key/past_value do not match K/V heads and head sizes", opset=23),
    case("conv_group_zero", "Conv", [inp("x", [1, 2, 5, 5]), inp("w", [4, 2, 3, 3])], "model",
         "group 0 is not positive", group=0),
    case("convt_group_zero", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])], "model",
         "group 0 is not positive", group=0),
    case("convt_negative_output_padding", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])],
         "model", "negative output_padding -1", strides=[2, 2], output_padding=[-1, 0]),
    case("convt_output_shape_count", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])], "model",
         "output_shape has 1 entries, expected 2", output_shape=[10]),
    case("convt_kernel_shape_differs", "ConvTranspose", [inp("x", [1, 2, 5, 5]), inp("w", [2, 3, 3, 3])],
         "model", "kernel_shape 2 differs from weight dim 3", kernel_shape=[2, 3]),
    case("convt_no_output", "ConvTranspose", [inp("x", [1, 2, 1, 1]), inp("w", [2, 3, 1, 1])], "model",
         "the transposed window gives no output", pads=[1, 1, 1, 1]),
    case("deform_conv_offset_rank", "DeformConv", [inp("x", [1, 2, 5, 5]), inp("w", [4, 2, 3, 3]),
                                                   inp("o", [1, 18, 3])], "model",
         "offset has rank 3, input X rank 4", opset=19),
    case("maxunpool_shape_count", "MaxUnpool", [inp("x", [1, 1, 2, 2]), inp("i", [1, 1, 2, 2], I64),
                                                const("s", [1, 1, 4])], "model",
         "output_shape has 3 entries for rank 4", kernel_shape=[2, 2], strides=[2, 2]),
    case("maxunpool_negative_shape", "MaxUnpool", [inp("x", [1, 1, 2, 2]), inp("i", [1, 1, 2, 2], I64),
                                                   const("s", [1, 1, -4, 4])], "model",
         "negative output_shape entry -4", kernel_shape=[2, 2], strides=[2, 2]),
    case("col2im_shape_counts", "Col2Im", [inp("x", [1, 4, 9]), const("im", [4, 4]), const("b", [2, 2, 2])],
         "model", "image_shape has 2 entries, block_shape 3", opset=18),
    case("col2im_block_too_big", "Col2Im", [inp("x", [1, 25, 1]), const("im", [4, 4]), const("b", [5, 5])],
         "model", "block 5 does not fit image dim", opset=18),
    case("col2im_channels", "Col2Im", [inp("x", [1, 5, 9]), const("im", [4, 4]), const("b", [2, 2])], "model",
         "input dim 1 (5) is not a multiple of the block size 4", opset=18),
    case("col2im_block_count", "Col2Im", [inp("x", [1, 4, 8]), const("im", [4, 4]), const("b", [2, 2])], "model",
         "input has 8 blocks, the image and block shapes give 9", opset=18),
    case("einsum_comma_after_arrow", "Einsum", [inp("a", [2, 3])], "model", "',' after '->'",
         equation="ij->i,j"),
    case("einsum_lone_dot", "Einsum", [inp("a", [2, 3])], "model", "'.' outside '...'", equation="i.j->ij"),
    case("einsum_bad_character", "Einsum", [inp("a", [2, 3])], "model", "unexpected character '#'",
         equation="i#j->ij"),
    case("legacy_and_no_broadcast", "And", [inp("a", [2, 3], TensorProto.BOOL), inp("b", [3], TensorProto.BOOL)],
         "model", "inputs of rank 2 and 1 without broadcast = 1", opset=1),
    case("legacy_and_axis_misfit", "And", [inp("a", [2, 3], TensorProto.BOOL), inp("b", [3, 4], TensorProto.BOOL)],
         "model", "input B of rank 2 does not fit A of rank 2 at axis 1", opset=1, broadcast=1, axis=1),
    case("legacy_and_dim_differs", "And", [inp("a", [2, 3], TensorProto.BOOL), inp("b", [4], TensorProto.BOOL)],
         "model", "input B dim 0 is 4, A's dim 1 is 3", opset=1, broadcast=1),
    case("split_equal_parts_uneven", "Split", [inp("x", [5, 2])], "model",
         "axis of size 5 does not split into 2 equal parts", opset=13, n_out=2),
    case("split_num_outputs_too_many", "Split", [inp("x", [5, 2])], "model",
         "5 elements cannot be split into 4 parts of 2", opset=18, n_out=4, num_outputs=4),
    case("onehot_depth_negative", "OneHot", [inp("i", [3], I64), const("d", [-1]), const("v", [0.0, 1.0], F)],
         "model", "depth -1 is negative or too large"),
    case("center_crop_pad_negative", "CenterCropPad", [inp("x", [4, 4]), const("s", [-2])], "model",
         "negative target size -2", opset=18, axes=[0]),
    case("concat_without_axis", "Concat", [inp("a", [2, 3]), inp("b", [2, 3])], "model",
         "required attribute 'axis' is missing"),
    case("slice_attr_lengths", "Slice", [inp("x", [4, 4])], "model", "starts, ends and axes differ in length",
         opset=9, starts=[0, 0], ends=[1], axes=[0]),
    case("range_int_delta_zero", "Range", [const("a", 0, I64, ()), const("b", 4, I64, ()), const("d", 0, I64, ())],
         "model", "delta is 0"),
    case("crop_negative_border", "Crop", [inp("x", [1, 2, 6, 6])], "model", "negative border or scale",
         opset=1, border=[-1, 0, 0, 0]),
    case("crop_does_not_fit", "Crop", [inp("x", [1, 2, 6, 6])], "model", "the crop does not fit axis",
         opset=1, border=[4, 4, 4, 4]),
    case("image_scaler_bias_length", "ImageScaler", [inp("x", [1, 2, 3, 3])], "model",
         "bias has 3 values for 2 channels", opset=1, bias=[1.0, 2.0, 3.0]),
    case("layernorm_stash_type", "LayerNormalization", [inp("x", [2, 3]), inp("s", [3])], "model",
         "stash_type 7 is not a floating-point type", stash_type=7),
    case("groupnorm_zero_groups", "GroupNormalization", [inp("x", [1, 6, 2, 2]), inp("s", [6]), inp("b", [6])],
         "model", "num_groups is 0, expected > 0", opset=21, num_groups=0),
    case("groupnorm_groups_divide", "GroupNormalization", [inp("x", [1, 6, 2, 2]), inp("s", [6]),
                                                          inp("b", [6])], "model",
         "C = 6 is not divisible by num_groups = 4", opset=21, num_groups=4),
    case("lrn_size_zero", "LRN", [inp("x", [1, 3, 4, 4])], "model", "size is 0, expected > 0", size=0),
    case("lpnorm_p_three", "LpNormalization", [inp("x", [2, 3])], "model", "p is 3, only 1 and 2 are defined",
         p=3),
    case("quantize_axis_scale_length", "QuantizeLinear", [inp("x", [2, 3]), const("s", [1.0, 1.0, 1.0, 1.0], F)],
         "model", "per-axis scale has 4 elements, axis 1 has 3", axis=1),
    case("quantize_axis_out_of_range", "QuantizeLinear", [inp("x", [2, 3]), const("s", [1.0, 1.0, 1.0], F)],
         "model", "axis 2 out of range for rank 2", axis=2),
    case("quantize_output_dtype", "QuantizeLinear", [inp("x", [2, 3]), const("s", 1.0, F, ())], "model",
         "output_dtype 999 is not a data type", opset=21, output_dtype=999),
    case("dequantize_zero_point_type", "DequantizeLinear", [inp("x", [2, 3], TensorProto.UINT8),
                                                            const("s", 1.0, F, ()),
                                                            const("z", 0, TensorProto.INT8, ())], "model",
         "zero point type i8 differs from the input's type u8"),
    case("random_normal_negative_dim", "RandomNormal", [], "model", "shape dim 1 is -1", shape=[2, -1]),
    case("multinomial_sample_size_zero", "Multinomial", [inp("x", [2, 3])], "model",
         "sample_size is 0, expected > 0", sample_size=0),
    case("lstm_layout_two", "LSTM", [inp("x", [2, 1, 3]), inp("w", [1, 16, 3]), inp("r", [1, 16, 4])], "model",
         "layout 2 is not 0 or 1", hidden_size=4, layout=2),
    case("lstm_direction_name", "LSTM", [inp("x", [2, 1, 3]), inp("w", [1, 16, 3]), inp("r", [1, 16, 4])],
         "model", "direction 'sideways' is not forward, reverse or bidirectional", hidden_size=4,
         direction="sideways"),
    case("lstm_hidden_zero", "LSTM", [inp("x", [2, 1, 3]), inp("w", [1, 16, 3]), inp("r", [1, 16, 4])], "model",
         "hidden_size 0 is not positive", hidden_size=0),
    case("lstm_w_rank", "LSTM", [inp("x", [2, 1, 3]), inp("w", [16, 3]), inp("r", [1, 16, 4])], "model",
         "W has rank 2, expected 3", hidden_size=4),
    case("lstm_b_rank", "LSTM", [inp("x", [2, 1, 3]), inp("w", [1, 16, 3]), inp("r", [1, 16, 4]), inp("b", [32])],
         "model", "B has rank 1, expected 2", hidden_size=4),
    case("lstm_w_dim", "LSTM", [inp("x", [2, 1, 3]), inp("w", [1, 16, 5]), inp("r", [1, 16, 4])], "model",
         "dim 2 is 5, expected 3", hidden_size=4),
    case("resize_mode_name", "Resize", [inp("x", [1, 1, 2, 2]), "", const("sc", [1.0, 1.0, 2.0, 2.0], F)],
         "model", "mode 'area' is not nearest, linear or cubic", mode="area"),
    case("resize_scale_zero", "Resize", [inp("x", [1, 1, 2, 2]), "", const("sc", [1.0, 1.0, 0.0, 2.0], F)],
         "model", "scale 0 is not positive"),
    case("resize_negative_size", "Resize", [inp("x", [1, 1, 2, 2]), "", "", const("sz", [1, 1, -4, 4])],
         "model", "negative size -4"),
    case("resize_axes_count", "Resize", [inp("x", [1, 1, 2, 2]), "", const("sc", [1.0, 2.0, 2.0, 2.0, 2.0], F)],
         "model", "axes has 5 entries for rank 4", opset=18, axes=[0, 1, 2, 3, 3]),
    case("resize_policy_name", "Resize", [inp("x", [1, 1, 2, 2]), "", "", const("sz", [4, 4])], "model",
         "keep_aspect_ratio_policy 'fill' is not stretch", opset=18, axes=[2, 3],
         keep_aspect_ratio_policy="fill"),
    case("upsample_scale_zero", "Upsample", [inp("x", [1, 1, 2, 2]), const("sc", [1.0, 1.0, 0.0, 2.0], F)],
         "model", "scale 0 is not positive", opset=9),
    case("affine_grid_theta", "AffineGrid", [inp("t", [1, 3, 3]), const("sz", [1, 1, 4, 4])], "model",
         "theta must be [N, 2, 3]", opset=20),
    case("roi_align_pooled_zero", "RoiAlign", [inp("x", [1, 1, 4, 4]), inp("r", [2, 4]), inp("b", [2], I64)],
         "model", "the pooled size 0 x 1 is not positive", output_height=0, output_width=1),
    case("concat_from_sequence_new_axis", "ConcatFromSequence", [("seq", "s")], "model",
         "attribute 'new_axis' is 2, expected 0 or 1", axis=0, new_axis=2),
    case("dft_onesided_complex", "DFT", [inp("x", [1, 8, 2])], "model",
         "onesided output is not possible for complex input", opset=20, onesided=1),
    case("dft_length_zero", "DFT", [inp("x", [1, 8, 1]), const("n", 0, I64, ())], "model",
         "dft_length 0 is not positive", opset=20),
    case("stft_step_zero", "STFT", [inp("x", [1, 16, 1]), const("st", 0, I64, ()), inp("w", [4])], "model",
         "frame_step 0 is not positive"),
    case("stft_window_rank", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ()), inp("w", [2, 2])], "model",
         "window has rank 2, expected 1"),
    case("stft_window_length", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ()), inp("w", [4]),
                                        const("fl", 5, I64, ())], "model",
         "window length 4 differs from frame_length 5"),
    case("stft_no_window_no_length", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ())], "model",
         "neither window nor frame_length is given"),
    case("stft_frame_too_long", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ()), "",
                                         const("fl", 32, I64, ())], "model",
         "frame_length 32 exceeds the signal length 16"),
    case("hann_window_negative", "HannWindow", [const("n", -1, I64, ())], "model", "window size -1 is negative"),
    case("mel_weight_zero_bins", "MelWeightMatrix", [const("m", 0, I64, ()), const("d", 16, I64, ()),
                                                     const("r", 8000, I64, ()), const("lo", 0.0, F, ()),
                                                     const("hi", 4000.0, F, ())], "model",
         "num_mel_bins and dft_length must be positive"),
    case("string_normalizer_action", "StringNormalizer", [inp("x", [3], TensorProto.STRING)], "model",
         "attribute 'case_change_action' is 'TITLE'", case_change_action="TITLE"),
    case("tfidf_mode_name", "TfIdfVectorizer", [inp("x", [4], I64)], "model",
         "attribute 'mode' is 'BM25', expected TF, IDF or TFIDF", mode="BM25", min_gram_length=1,
         max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[0], pool_int64s=[1]),
    case("tfidf_no_indexes", "TfIdfVectorizer", [inp("x", [4], I64)], "model",
         "attribute 'ngram_indexes' is missing or empty", mode="TF", min_gram_length=1, max_gram_length=1,
         max_skip_count=0, ngram_counts=[0], pool_int64s=[1]),
    # third batch
    case("dequantize_block_negative", "DequantizeLinear", [inp("x", [2, 4], TensorProto.INT8),
                                                           const("s", [[1.0, 1.0], [1.0, 1.0]], F)], "model",
         "block_size -1 is negative", opset=21, axis=1, block_size=-1),
    case("dequantize_zero_point_shape", "DequantizeLinear", [inp("x", [2, 3], TensorProto.INT8),
                                                             const("s", [1.0, 1.0, 1.0], F),
                                                             const("z", [0, 0], TensorProto.INT8)], "model",
         "zero point and scale shapes differ", axis=1),
    case("dequantize_block_scale_rank", "DequantizeLinear", [inp("x", [2, 4], TensorProto.INT8),
                                                             const("s", [1.0, 1.0], F)], "model",
         "blocked quantization needs a scale of rank 2, got rank 1", opset=21, axis=1, block_size=2),
    case("quantize_output_dtype_zero_point", "QuantizeLinear", [inp("x", [2, 3]), const("s", 1.0, F, ()),
                                                                const("z", 0, TensorProto.UINT8, ())], "model",
         "differs from the zero point's type", opset=21, output_dtype=3),
    case("multinomial_float_dtype", "Multinomial", [inp("x", [2, 3])], "model", "expected int32 or int64",
         dtype=1),
    case("resize_axis_out_of_range", "Resize", [inp("x", [1, 1, 2, 2]), "", "", const("sz", [4])], "model",
         "axis 4 out of range for rank 4", opset=18, axes=[4]),
    case("affine_grid_negative_size", "AffineGrid", [inp("t", [1, 2, 3]), const("sz", [1, 1, -4, 4])], "model",
         "negative size -4", opset=20),
    case("maxunpool_negative_size", "MaxUnpool", [inp("x", [1, 1, 2, 2]), inp("i", [1, 1, 2, 2], I64)], "model",
         "the unpooled size is negative", kernel_shape=[2, 2], strides=[1, 1], pads=[3, 3, 3, 3]),
    case("sequence_insert_type", "SequenceInsert", [("seq", "s"), inp("t", [2, 3], I64)], "model",
         "tensor into a sequence of"),
    case("split_to_sequence_zero", "SplitToSequence", [inp("x", [4, 2]), const("sp", 0, I64, ())], "model",
         "split 0 is not positive"),
    case("concat_from_sequence_axis", "ConcatFromSequence", [("seq", "s")], "model",
         "axis 3 is out of range for rank 2", axis=3),
    case("dft_axis_re_im", "DFT", [inp("x", [1, 8, 1]), "", const("ax", 2, I64, ())], "model",
         "axis 2 is out of range for rank 3", opset=20),
    case("stft_last_dim_three", "STFT", [inp("x", [1, 16, 3]), const("st", 2, I64, ()), inp("w", [4])], "model",
         "last signal dim is 3, expected 1 (real) or 2 (complex)"),
    case("stft_onesided_complex", "STFT", [inp("x", [1, 16, 2]), const("st", 2, I64, ()), inp("w", [4])], "model",
         "onesided output is not possible for a complex signal", onesided=1),
    case("stft_frame_length_zero", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ()), "",
                                            const("fl", 0, I64, ())], "model", "frame_length 0 is not positive"),
    case("hann_window_string_type", "HannWindow", [const("n", 8, I64, ())], "model",
         "output_datatype 8 is not a numeric data type", output_datatype=8),
    case("string_normalizer_rows", "StringNormalizer", [inp("x", [2, 3], TensorProto.STRING)], "model",
         "input X must be [C] or [1, C], its first dim is 2"),
    case("string_split_maxsplit", "StringSplit", [inp("x", [3], TensorProto.STRING)], "model",
         "attribute 'maxsplit' is -1, must be >= 0", opset=20, n_out=2, maxsplit=-1),
    case("tfidf_negative_index", "TfIdfVectorizer", [inp("x", [4], I64)], "model", "ngram_indexes[0] is negative",
         mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0], ngram_indexes=[-1],
         pool_int64s=[1]),
    case("tfidf_rank_three", "TfIdfVectorizer", [inp("x", [1, 2, 3], I64)], "model",
         "input X must be 1-D or 2-D, it has rank 3", mode="TF", min_gram_length=1, max_gram_length=1,
         max_skip_count=0, ngram_counts=[0], ngram_indexes=[0], pool_int64s=[1]),
    case("ml_linear_classifier_transform", "LinearClassifier", [inp("x", [2, 3])], "model",
         "attribute 'post_transform' is 'BAD'", opset=1, domain="ai.onnx.ml", n_out=2,
         coefficients=[1.0] * 6, classlabels_ints=[0, 1], post_transform="BAD"),
    case("ml_feature_vectorizer_dims", "FeatureVectorizer", [inp("x", [2, 3])], "model",
         "inputdimensions[0] is -1", opset=1, domain="ai.onnx.ml", inputdimensions=[-1]),
    case("ml_tree_regressor_aggregate", "TreeEnsembleRegressor", [inp("x", [2, 3])], "model",
         "attribute 'aggregate_function' is 'BAD'", opset=1, domain="ai.onnx.ml", n_targets=1,
         nodes_featureids=[0], nodes_modes=["LEAF"], nodes_nodeids=[0], nodes_treeids=[0], nodes_truenodeids=[0],
         nodes_falsenodeids=[0], nodes_values=[0.0], target_ids=[0], target_nodeids=[0], target_treeids=[0],
         target_weights=[1.0], aggregate_function="BAD"),
    case("ml_tree_regressor_no_targets", "TreeEnsembleRegressor", [inp("x", [2, 3])], "model",
         "attribute 'n_targets' is 0, must be >= 1", opset=1, domain="ai.onnx.ml", n_targets=0,
         nodes_featureids=[0], nodes_modes=["LEAF"], nodes_nodeids=[0], nodes_treeids=[0], nodes_truenodeids=[0],
         nodes_falsenodeids=[0], nodes_values=[0.0], target_ids=[0], target_nodeids=[0], target_treeids=[0],
         target_weights=[1.0]),
    # legacy and ML
    case("crop_scale_count", "Crop", [inp("x", [1, 2, 6, 6])], "model", "scale has 3 values, expected 2",
         opset=1, border=[1, 1, 1, 1], scale=[2, 2, 2]),
    case("ml_normalizer_norm", "Normalizer", [inp("x", [2, 3])], "model",
         "attribute 'norm' is 'L3', expected MAX, L1 or L2", opset=1, domain="ai.onnx.ml", norm="L3"),
    case("ml_linear_regressor_targets", "LinearRegressor", [inp("x", [2, 3])], "model",
         "attribute 'targets' is 0, must be >= 1", opset=1, domain="ai.onnx.ml", targets=0,
         coefficients=[1.0, 2.0, 3.0]),
    # third batch (2026-11-29): control flow, quantization, contrib and ML refusals the report still listed
    case("compress_condition_longer", "Compress", [inp("x", [3, 2]), const("c", [1, 0, 1, 1, 0], TensorProto.BOOL)],
         "model", "condition has 5 entries, the axis 3", axis=0),
    case("dequantize_block_axis", "DequantizeLinear", [inp("x", [4, 6], TensorProto.INT8), inp("s", [4, 3])],
         "model", "axis 5 out of range for rank 2", opset=21, block_size=2, axis=5),
    case("dequantize_output_dtype", "DequantizeLinear", [inp("x", [4], TensorProto.INT8), inp("s", [])], "model",
         "output_dtype 999 is not a data type", opset=23, output_dtype=999),
    case("gelu_approximate_int", "Gelu", [inp("x", [2, 3])], "model", "attribute 'approximate' has type INT",
         opset=20, approximate=1),
    case("lrn_size_zero", "LRN", [inp("x", [1, 3, 4, 4])], "model", "size", size=0),
    case("seq_construct_types", "SequenceConstruct", [inp("a", [2]), inp("b", [2], I64)], "model",
         "a sequence has one element type"),
    case("if_branch_outputs", "If", [inp("c", [], TensorProto.BOOL)], "model",
         "the branches must have as many outputs as the node", then_branch=body(0, 2, "t"),
         else_branch=body(0, 2, "e")),
    case("scan_input_axis", "Scan", [inp("x", [2, 3])], "model", "scan input 0 has no axis 3", opset=11,
         num_scan_inputs=1, scan_input_axes=[3], body=body(1, 1, "s")),
    case("nchwc_reorder_output_channels", "ReorderOutput", [inp("x", [1, 8, 4, 4])], "model",
         "channels 16 exceed the input's 8", opset=1, domain="com.microsoft.nchwc", channels=16),
    case("gather_block_quantized_bits", "GatherBlockQuantized", [inp("d", [4, 8], TensorProto.UINT8),
                                                                 inp("i", [2], I64), inp("s", [4, 1])], "model",
         "bits must be 1 to 8", opset=1, domain="com.microsoft", bits=9, block_size=16),
    case("ml_tree_ensemble_post_transform", "TreeEnsemble", [inp("x", [2, 3])], "model",
         "attribute 'post_transform' is 9, expected 0 to 4", opset=5, domain="ai.onnx.ml", post_transform=9,
         aggregate_function=1, n_targets=1, nodes_featureids=[0],
         nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [1], [0]),
         nodes_splits=helper.make_tensor("sp", F, [1], [0.0]), nodes_truenodeids=[0], nodes_falsenodeids=[0],
         nodes_trueleafs=[1], nodes_falseleafs=[1], leaf_targetids=[0],
         leaf_weights=helper.make_tensor("w", F, [1], [1.0]), tree_roots=[0]),
    case("momentum_mode", "Momentum", [inp("r", []), inp("t", [], I64), inp("x", [3]), inp("g", [3]),
                                       inp("v", [3])], "model", "attribute 'mode' is 'fast'", opset=1,
         domain="ai.onnx.preview.training", n_out=2, mode="fast", alpha=0.9, beta=1.0, norm_coefficient=0.0),
    # counts past 64 bits: saturated, said, the totals lower bounds; shapes past 64 bits refused
    case("gemm_macs_past_64_bits", "Gemm", [inp("a", [1 << 22, 1 << 22]), inp("b", [1 << 22, 1 << 21])],
         "overflow", ""),
    case("conv_macs_past_64_bits", "Conv", [inp("x", [1, 1 << 20, 4096, 4096]), inp("w", [1 << 20, 1 << 20, 1, 1])],
         "overflow", ""),
    case("convt_macs_past_64_bits", "ConvTranspose", [inp("x", [1, 1 << 20, 4096, 4096]),
                                                      inp("w", [1 << 20, 1 << 20, 1, 1])], "overflow", ""),
    case("einsum_macs_past_64_bits", "Einsum", [inp("a", [1 << 22, 1 << 22]), inp("b", [1 << 22, 1 << 22])],
         "overflow", "", equation="ij,jk->ik"),
    case("dft_flops_past_64_bits", "DFT", [inp("x", [1 << 20, 1 << 40, 2])], "overflow", ""),
    case("tile_size_overflows", "Tile", [inp("x", [1 << 32]), const("r", [1 << 33])], "model",
         "tiled size overflows 64 bits", judge=False),
    case("concat_size_overflows", "Concat", [inp("a", [(1 << 63) - 1]), inp("b", [(1 << 63) - 1])], "model",
         "concatenated size overflows 64 bits", judge=False, axis=0),
    case("range_length_overflows", "Range", [const("a", 0.0, F, ()), const("b", 1e30, F, ()),
                                             const("d", 1e-30, F, ())], "model", "range length overflows",
         judge=False),
    # values known only at run time: the node listed with why, the totals lower bounds
    case("maxunpool_output_shape_unknown", "MaxUnpool", [inp("x", [1, 1, 2, 2]), inp("i", [1, 1, 2, 2], I64),
                                                         inp("o", [4], I64)], "shape",
         "the values of input 'output_shape' are not known", kernel_shape=[2, 2]),
    case("col2im_image_shape_unknown", "Col2Im", [inp("x", [1, 4, 9]), inp("s", [2], I64), const("b", [2, 2])],
         "shape", "the values of inputs 'image_shape'/'block_shape' are not known", opset=18),
    case("pad_axes_unknown", "Pad", [inp("x", [2, 3]), const("p", [1, 1]), "", inp("ax", [1], I64)], "shape",
         "the values of input 'axes' are not known", opset=18),
    case("slice_axes_unknown", "Slice", [inp("x", [4, 4]), const("s", [0]), const("e", [2]), inp("a", [1], I64)],
         "shape", "the values of input 'axes' are not known"),
    case("dft_length_unknown", "DFT", [inp("x", [1, 8, 1]), inp("n", [], I64)], "shape",
         "the value of dft_length is not known"),
    case("stft_frame_length_unknown", "STFT", [inp("x", [1, 16, 1]), const("st", 2, I64, ()), "",
                                               inp("fl", [], I64)], "shape", "the value of frame_length is not known"),
    # past a rule's own limits, with --limit-rank raised above them, or a type or mode it does not model: the
    # node is listed with why, the totals lower bounds
    case("global_pool_rank_limit", "GlobalAveragePool", [inp("x", [1] * 70)], "shape", "rank 70 over the limit",
         args=["--limit-rank", "100"]),
    case("matmul_rank_limit", "MatMul", [inp("a", [1] * 70), inp("b", [1] * 70)], "shape", "rank over 64",
         args=["--limit-rank", "100"]),
    case("resize_rank_limit", "Resize", [inp("x", [1] * 70), "", const("sc", [1.0] * 70, F)], "shape",
         "rank 70 over the limit 64", args=["--limit-rank", "100"]),
    case("dft_rank_limit", "DFT", [inp("x", [1] * 71)], "shape", "rank 71 over 64", args=["--limit-rank", "100"]),
    case("cast_unknown_type", "Cast", [inp("x", [2])], "shape", "cast to unknown data type 999", to=999),
    case("nchwc_upsample_mode", "Upsample", [inp("x", [1, 8, 4, 4])], "shape",
         "mode 'cubic' (nearest or linear expected)", opset=1, domain="com.microsoft.nchwc", scales=[1, 1, 2, 2],
         mode="cubic"),
    case("constant_sparse", "Constant", [], "shape", "Constant with a sparse value",
         sparse_value=helper.make_sparse_tensor(helper.make_tensor("v", F, [2], [1.0, 2.0]),
                                                helper.make_tensor("i", TensorProto.INT64, [2], [1, 4]), [6])),
    # an attribute of the wrong type that only the cost rule reads: the node is listed without a cost, and why
    case("isinf_detect_float", "IsInf", [inp("x", [2, 3])], "shape",
         "its cost rule refused it: attribute 'detect_positive' has type FLOAT, expected INT", opset=10,
         detect_positive=1.5),
]


def build(c):
    inputs, inits, names = [], [], []
    for i, s in enumerate(c["ins"]):
        if s == "":
            names.append("")
        elif s[0] == "seq":  # a sequence of float tensors
            inputs.append(helper.make_tensor_sequence_value_info(s[1], F, [2, 3]))
            names.append(s[1])
        elif s[0] == "input":
            _, n, dt, shape = s
            inputs.append(helper.make_tensor_value_info(n, dt, shape))
            names.append(n)
        else:
            _, n, a = s
            inits.append(numpy_helper.from_array(a, n))
            names.append(n)
    outs = [f"y{k}" for k in range(c["n_out"])]
    node = helper.make_node(c["op"], names, outs, name="bad_" + c["name"], domain=c["domain"], **c["attrs"])
    g = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info(o, F, None) for o in outs], inits)
    ops = [helper.make_opsetid(c["domain"], c["opset"])]
    if c["domain"]:
        ops.append(helper.make_opsetid("", 17))
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 8 if c["opset"] < 21 else 10
    return m


def judge(path):
    """ONNX Runtime on the model at path, run as this file's --judge in a
    process of its own: exit 0 it runs (on zeros of the declared shapes),
    1 it refuses, 2 it cannot judge (the op or its opset not in this build)."""
    m = onnx.load(path)
    try:
        so = ort.SessionOptions()
        so.log_severity_level = 4
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        return 2 if ("NOT_IMPLEMENTED" in msg or "not a registered function/op" in msg
                     or "Unsupported model IR" in msg or "is under development" in msg) else 1
    feeds = {}
    for v in m.graph.input:
        if v.type.HasField("sequence_type"):
            feeds[v.name] = [np.zeros((2, 3), np.float32)]
            continue
        t = v.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim]
        feeds[v.name] = np.zeros(shape).astype(NP.get(t.elem_type, np.float32))
    try:
        s.run(None, feeds)
    except Exception:  # noqa: BLE001
        return 1
    return 0


def onnx_refuses(m):
    """True when ONNX's own checker, with strict shape inference, refuses m."""
    try:
        onnx.checker.check_model(m, full_check=True)
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    except Exception:  # noqa: BLE001
        return True
    return False


def ort_verdict(path):
    """ONNX Runtime on the model, in a process of its own (a malformed node
    may crash it): "refuses", "crashes" (a signal: it does not run it
    either), "runs" or "cannot judge" (the op or its opset is not in this
    build)."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--judge", path], capture_output=True, text=True,
                       timeout=120)
    return {0: "runs", 1: "refuses", 2: "cannot judge"}.get(p.returncode, "crashes")


def main():
    binary = sys.argv[1]
    fails, unjudged, crashed = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            m = build(c)
            path = os.path.join(tmp, c["name"] + ".onnx")
            onnx.save(m, path)
            p = subprocess.run([binary, path, *c["args"]], capture_output=True, text=True, timeout=60)
            op = f"{c['domain']}::{c['op']}" if c["domain"] else c["op"]
            node = f"node 'bad_{c['name']}' ({op})"
            if c["want"] == "model":
                lines = p.stderr.strip().splitlines()
                ok = (p.returncode == 2 and len(lines) == 1 and path in lines[0] and node in lines[0]
                      and c["text"] in lines[0] and not p.stdout)
                verdict, spec = ort_verdict(path) if c["judge"] else "refuses", onnx_refuses(m)
                if verdict == "cannot judge":
                    unjudged.append(c["name"])
                if verdict == "crashes":
                    crashed.append(c["name"])
                ort_ok = verdict != "runs" or spec
            elif c["want"] == "overflow":
                lines = p.stderr.strip().splitlines()
                ok = (p.returncode == 0 and len(lines) == 1 and path in lines[0]
                      and "a count passed 64 bits and is saturated at 2^64 - 1" in lines[0]
                      and ">= 18,446,744,073,709,551,615" in p.stdout)
                ort_ok = True
            else:
                ok = (p.returncode == 0 and f"bad_{c['name']} ({op}): " in p.stdout and c["text"] in p.stdout
                      and "lower bounds" in p.stderr)
                ort_ok = True
            print(f"{'ok  ' if ok and ort_ok else 'FAIL'} {c['name']}: onnxcost exit {p.returncode}"
                  f"{'' if ok else ' ' + repr((p.stderr or p.stdout).strip()[-300:])}"
                  f"{'' if ort_ok else '; ONNX Runtime runs it and ONNX checker passes it'}")
            if not (ok and ort_ok):
                fails.append(c["name"])
    if crashed:
        print(f"ONNX Runtime {ort.__version__} crashed on {len(crashed)} (not run, so refused): {', '.join(crashed)}")
    if unjudged:
        print(f"ONNX Runtime {ort.__version__} could not judge {len(unjudged)}: {', '.join(unjudged)}")
    print(f"{len(CASES) - len(fails)} of {len(CASES)} cases hold")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(judge(sys.argv[2]) if sys.argv[1:2] == ["--judge"] else main())
