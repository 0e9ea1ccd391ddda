#!/usr/bin/env python3
"""Writes a Llama-shaped decoder with a KV cache as an ONNX graph whose
weights are external references to a file that does not exist: the graph
has every node and every weight's shape and type, so onnxcost analyses it
exactly (it never reads weights), in a file of a few hundred kilobytes.

Default shape: LLaMA-7B (32 layers, hidden 4096, 32 heads of 128, MLP 11008,
vocabulary 32000, fp16; 6,738,415,616 parameters). Per layer, as Hugging Face
exports it without fusion: RMSNormalization, Q/K/V projections, the cache
(past_key_values.N.key/value concatenated with the new keys and values, the
results are the present.N.* outputs), Q·Kᵀ scaled, Softmax, ·V, the output
projection, residual; RMSNormalization, SwiGLU MLP (gate, up, SiLU, down),
residual. Rotary embeddings and the mask are left out (they add no MACs).

With --fused the attention of each layer is ONNX Runtime's
com.microsoft GroupQueryAttention (as onnxruntime-genai exports), the same
computation in one node. With --bits 4 (or 2, 8) every projection and the LM head are ONNX Runtime's
com.microsoft MatMulNBits with blockwise weights (B packed uint8 [N, K/block,
block·bits/8], fp16 scales and uint8 zero points per block), as
onnxruntime-genai builds quantized models.

usage: python bench/gen_llama.py OUT.onnx [--layers N] [--hidden H] [--heads N]
           [--kv-heads N] [--ffn F] [--vocab V] [--bits B] [--block N]
"""
import argparse

import onnx
from onnx import TensorProto, helper

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--layers", type=int, default=32)
ap.add_argument("--hidden", type=int, default=4096)
ap.add_argument("--heads", type=int, default=32)
ap.add_argument("--kv-heads", type=int, default=None)
ap.add_argument("--ffn", type=int, default=11008)
ap.add_argument("--vocab", type=int, default=32000)
ap.add_argument("--bits", type=int, default=0, help="MatMulNBits weights of this width (0: fp16 MatMul)")
ap.add_argument("--block", type=int, default=32)
ap.add_argument("--fused", action="store_true", help="attention as com.microsoft GroupQueryAttention")
a = ap.parse_args()
H, NH, L, F, V = a.hidden, a.heads, a.layers, a.ffn, a.vocab
KV = a.kv_heads or NH
D = H // NH
F16 = TensorProto.FLOAT16
B, S, P, T = "batch_size", "sequence_length", "past_sequence_length", "total_sequence_length"

nodes, inits, inputs, outputs = [], [], [], []


def weight(name, dims, dtype=F16):
    t = helper.make_tensor(name, dtype, dims, vals=[])
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "0")):
        e = t.external_data.add()
        e.key, e.value = k, v
    inits.append(t)
    return name


def const(name, vals):
    inits.append(helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals))
    return name


def node(op, ins, name, **attrs):
    nodes.append(helper.make_node(op, ins, [name], name=name, **attrs))
    return name


def project(x, w, k, n, name):
    """x · W for a [k, n] weight: a MatMul, or MatMulNBits with --bits"""
    if not a.bits:
        return node("MatMul", [x, weight(w, [k, n])], name)
    blocks = -(-k // a.block)
    b = weight(w + ".q", [n, blocks, a.block * a.bits // 8], TensorProto.UINT8)
    sc = weight(w + ".scales", [n * blocks])
    zp = weight(w + ".zero_points", [n * (-(-blocks * a.bits // 8))], TensorProto.UINT8)
    nodes.append(helper.make_node("MatMulNBits", [x, b, sc, zp], [name], name=name, domain="com.microsoft", K=k, N=n,
                                  bits=a.bits, block_size=a.block))
    return name


inputs.append(helper.make_tensor_value_info("input_ids", TensorProto.INT64, [B, S]))
inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [B, T]))
const("heads_shape", [0, 0, NH, D])
const("kv_shape", [0, 0, KV, D])
const("hidden_shape", [0, 0, H])
nodes.append(helper.make_node("Constant", [], ["scale"], name="scale",
                              value=helper.make_tensor("scale_value", F16, [], [1.0 / D ** 0.5])))
h = node("Gather", [weight("embed", [V, H]), "input_ids"], "embed_tokens")
if a.fused:  # GroupQueryAttention's lengths, from the mask as genai computes them
    const("one", [1])
    mask_len = node("Gather", [node("Shape", ["attention_mask"], "mask_shape"), "one_scalar"], "mask_len")
    inits.append(helper.make_tensor("one_scalar", TensorProto.INT64, [], [1]))
    total = node("Cast", [mask_len], "total_sequence_length", to=TensorProto.INT32)
    seqlens = node("Cast", [node("Sub", [node("ReduceSum", ["attention_mask", "one"], "mask_sum", keepdims=0), "one"],
                                 "mask_sum_1")], "seqlens_k", to=TensorProto.INT32)
for l in range(L):
    p = f"layers.{l}"
    x = node("RMSNormalization", [h, weight(f"{p}.ln1", [H])], f"{p}/ln1", axis=-1)
    q = project(x, f"{p}.q_proj", H, NH * D, f"{p}/q_proj")
    k = project(x, f"{p}.k_proj", H, KV * D, f"{p}/k_proj")
    v = project(x, f"{p}.v_proj", H, KV * D, f"{p}/v_proj")
    for kind in ("key", "value"):
        inputs.append(helper.make_tensor_value_info(f"past_key_values.{l}.{kind}", F16, [B, KV, P, D]))
        outputs.append(helper.make_tensor_value_info(f"present.{l}.{kind}", F16, [B, KV, T, D]))
    if a.fused:
        c = f"{p}/attn"
        nodes.append(helper.make_node("GroupQueryAttention", [q, k, v, f"past_key_values.{l}.key",
                                                              f"past_key_values.{l}.value", seqlens, total],
                                      [c, f"present.{l}.key", f"present.{l}.value"], name=c, domain="com.microsoft",
                                      num_heads=NH, kv_num_heads=KV))
    else:
        q = node("Transpose", [node("Reshape", [q, "heads_shape"], f"{p}/q_heads")], f"{p}/q_t", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [k, "kv_shape"], f"{p}/k_heads")], f"{p}/k_t", perm=[0, 2, 1, 3])
        v = node("Transpose", [node("Reshape", [v, "kv_shape"], f"{p}/v_heads")], f"{p}/v_t", perm=[0, 2, 1, 3])
        for kind, new in (("key", k), ("value", v)):
            nodes.append(helper.make_node("Concat", [f"past_key_values.{l}.{kind}", new], [f"present.{l}.{kind}"],
                                          name=f"{p}/cache_{kind}", axis=2))
        kk, vv = f"present.{l}.key", f"present.{l}.value"
        if KV != NH:  # grouped-query attention: each KV head serves NH / KV query heads
            rep = const(f"{p}/rep", [1, NH // KV, 1, 1])
            kk = node("Tile", [kk, rep], f"{p}/k_rep")
            vv = node("Tile", [vv, rep], f"{p}/v_rep")
        s = node("MatMul", [q, node("Transpose", [kk], f"{p}/k_tt", perm=[0, 1, 3, 2])], f"{p}/qk")
        s = node("Softmax", [node("Mul", [s, "scale"], f"{p}/qk_scaled")], f"{p}/probs", axis=-1)
        c = node("MatMul", [s, vv], f"{p}/pv")
        c = node("Reshape", [node("Transpose", [c], f"{p}/pv_t", perm=[0, 2, 1, 3]), "hidden_shape"], f"{p}/pv_merged")
    h = node("Add", [h, project(c, f"{p}.o_proj", NH * D, H, f"{p}/o_proj")], f"{p}/residual1")
    x = node("RMSNormalization", [h, weight(f"{p}.ln2", [H])], f"{p}/ln2", axis=-1)
    g = project(x, f"{p}.gate_proj", H, F, f"{p}/gate_proj")
    u = project(x, f"{p}.up_proj", H, F, f"{p}/up_proj")
    g = node("Mul", [g, node("Sigmoid", [g], f"{p}/sigmoid")], f"{p}/silu")
    d = project(node("Mul", [g, u], f"{p}/gated"), f"{p}.down_proj", F, H, f"{p}/down_proj")
    h = node("Add", [h, d], f"{p}/residual2")
h = node("RMSNormalization", [h, weight("norm.weight", [H])], "final_norm", axis=-1)
project(h, "lm_head", H, V, "logits")
outputs.insert(0, helper.make_tensor_value_info("logits", F16, [B, S, V]))
g = helper.make_graph(nodes, "llama", inputs, outputs, inits)
opsets = [helper.make_opsetid("", 23)] + ([helper.make_opsetid("com.microsoft", 1)] if a.bits or a.fused else [])
m = helper.make_model(g, opset_imports=opsets, producer_name="onnxcost bench/gen_llama.py")
m.ir_version = 10
onnx.save(m, a.out)
