#!/usr/bin/env python3
"""cli.llm_cache — onnxcost llm's KV figures have one source (the cache
inputs' declared shapes), checked against the present outputs, with every
disagreement a warning naming both figures, fixed-length presents refused,
and every figure from a lower bound marked (issue 28).

Decoders generated here with the onnx package, one layer each unless said:
  input_ids [batch, seq] -> Gather(emb[V, 8]) -> Reshape [b, s, H, 4] ->
  Transpose [b, H, s, 4] -> Cast f16 -> Concat(past, ., axis 2) -> present
for the key and the value, H = 2 KV heads, head size 4, f16: by hand
2 (k, v) x 2 x 4 x 2 bytes = 32 bytes per token and layer. ONNX Runtime runs
the plain one and the f32-present one at two past lengths: the presents'
growth it measures is what the view reports as present_growth_per_token.
usage: llm_cache_check.py ONNXCOST
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
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

bin_ = sys.argv[1]
tmp = tempfile.mkdtemp()
fails = []
checks = 0
V, E, HD = 16, 8, 4


def decoder(name, heads=(2,), present="concat", present_names=("present.{l}.key", "present.{l}.value"),
            unknown=False):
    """present: concat | cast32 | copy | tile | fixed"""
    nodes, inits, inputs, outputs = [], [], [], []
    inputs.append(helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]))
    inits.append(numpy_helper.from_array(np.random.RandomState(0).rand(V, E).astype(np.float32), "emb"))
    inits.append(numpy_helper.from_array(np.random.RandomState(1).rand(E, V).astype(np.float32), "head"))
    nodes.append(helper.make_node("Gather", ["emb", "input_ids"], ["x"], name="embed"))
    src = "x"
    if unknown:  # an op without a rule: everything after it is a lower bound
        nodes.append(helper.make_node("Frobnicate", ["x"], ["xu"], name="frob", domain="com.example"))
        src = "xu"
    nodes.append(helper.make_node("MatMul", [src, "head"], ["logits"], name="lm_head"))
    outputs.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT, None))
    for l, h in enumerate(heads):
        inits.append(numpy_helper.from_array(np.random.RandomState(2 + l).rand(E, h * HD).astype(np.float32), f"wk{l}"))
        inits.append(numpy_helper.from_array(np.array([0, 0, h, HD], np.int64), f"shape{l}"))
        for kv, pname in zip(("key", "value"), present_names):
            past = f"past_key_values.{l}.{kv}"
            inputs.append(helper.make_tensor_value_info(past, TensorProto.FLOAT16, ["batch", h, "past", HD]))
            p = f"{kv}{l}"
            nodes += [helper.make_node("MatMul", ["x", f"wk{l}"], [p + "_m"], name=p + "_proj"),
                      helper.make_node("Reshape", [p + "_m", f"shape{l}"], [p + "_r"], name=p + "_reshape"),
                      helper.make_node("Transpose", [p + "_r"], [p + "_t"], perm=[0, 2, 1, 3], name=p + "_tr"),
                      helper.make_node("Cast", [p + "_t"], [p + "_h"], to=TensorProto.FLOAT16, name=p + "_cast")]
            out = pname.format(l=l)
            if present == "concat":
                nodes.append(helper.make_node("Concat", [past, p + "_h"], [out], axis=2, name=p + "_cat"))
            elif present == "cast32":  # the cache handed back in f32
                nodes += [helper.make_node("Concat", [past, p + "_h"], [p + "_c"], axis=2, name=p + "_cat"),
                          helper.make_node("Cast", [p + "_c"], [out], to=TensorProto.FLOAT, name=p + "_up")]
            elif present == "copy":  # a present that copies the past
                nodes.append(helper.make_node("Identity", [past], [out], name=p + "_copy"))
            elif present == "tile":  # heads repeated in the present
                inits.append(numpy_helper.from_array(np.array([1, 2, 1, 1], np.int64), f"reps{l}{kv}"))
                nodes += [helper.make_node("Concat", [past, p + "_h"], [p + "_c"], axis=2, name=p + "_cat"),
                          helper.make_node("Tile", [p + "_c", f"reps{l}{kv}"], [out], name=p + "_tile")]
            elif present == "fixed":  # a fixed-length buffer, never growing
                inits.append(numpy_helper.from_array(np.zeros((1, h, 64, HD), np.float16), f"buf{l}{kv}"))
                nodes.append(helper.make_node("Identity", [f"buf{l}{kv}"], [out], name=p + "_buf"))
            outputs.append(helper.make_tensor_value_info(
                out, TensorProto.FLOAT if present == "cast32" else TensorProto.FLOAT16, None))
    g = helper.make_graph(nodes, "decoder", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)])
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(m, path)
    return path


def llm(path, *extra, rc=0, fmt="json"):
    p = subprocess.run([bin_, "llm", path, "--prompt", "8", "--generate", "4", *extra, "--format", fmt],
                       capture_output=True, text=True)
    if p.returncode != rc:
        fails.append(f"{os.path.basename(path)} {extra}: exit {p.returncode}, want {rc}: {p.stderr.strip()[:300]}")
        return None
    return json.loads(p.stdout)["llm"] if fmt == "json" and rc == 0 else (p.stdout if rc == 0 else p.stderr)


def check(what, ok, detail=""):
    global checks
    checks += 1
    if not ok:
        fails.append(f"{what}: {detail}")


def ort_growth(path):
    """bytes per new token of one sequence that ONNX Runtime's presents grow by"""
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    pasts = [i for i in s.get_inputs() if i.name.startswith("past")]
    sizes = []
    for past in (5, 9):
        feed = {"input_ids": np.array([[1]], np.int64)}
        for i in pasts:
            feed[i.name] = np.zeros((1, i.shape[1], past, HD), np.float16)
        outs = s.run(None, feed)
        sizes.append(sum(o.nbytes for o, meta in zip(outs, s.get_outputs()) if meta.name.startswith("present")))
    return (sizes[1] - sizes[0]) // 4


PER_LAYER = 2 * 2 * HD * 2  # k and v, 2 heads, head size 4, f16

plain = decoder("plain", heads=(2, 2))
v = llm(plain)
check("plain: KV per token by hand", v and v["kv_bytes_per_token"] == 2 * PER_LAYER, v and v["kv_bytes_per_token"])
check("plain: presents agree, as ONNX Runtime grows them",
      v and v["present_growth_per_token"] == ort_growth(plain) == 2 * PER_LAYER, v and v["present_growth_per_token"])
check("plain: no warning", v and v["warnings"] == [], v and v["warnings"])
t = llm(plain, fmt="text")
check("plain text: the source named", t and "KV bytes per token (all layers): 64, from the cache inputs' shapes "
      "(the present outputs agree)" in t, t)

cast = decoder("cast32", present="cast32")
v = llm(cast)
check("cast32: KV from the cache inputs", v and v["kv_bytes_per_token"] == PER_LAYER, v and v["kv_bytes_per_token"])
check("cast32: present growth as ONNX Runtime's", v and v["present_growth_per_token"] == ort_growth(cast) == 2 * PER_LAYER,
      v and v["present_growth_per_token"])
check("cast32: a warning naming both figures",
      v and len(v["warnings"]) == 1 and "grow by 64 bytes per token" in v["warnings"][0]
      and "declare 32 bytes per token" in v["warnings"][0], v and v["warnings"])
t = llm(cast, fmt="text")
check("cast32 text: WARNING beside the KV line", t and "the present outputs disagree" in t and "\nWARNING: the present "
      "outputs grow by 64" in t, t)
md = llm(cast, fmt="md")
check("cast32 md: the warning", md and "> **Warning:** the present outputs grow by 64" in md, md)

v = llm(decoder("copy", present="copy"))
check("copy: a warning (the present holds the past only)",
      v and len(v["warnings"]) == 1 and "hold 352 bytes at context 12" in v["warnings"][0]
      and "(384 at that context)" in v["warnings"][0], v and v["warnings"])

v = llm(decoder("tile", present="tile"))
check("tile: a warning", v and len(v["warnings"]) == 1 and "grow by 64 bytes per token" in v["warnings"][0],
      v and v["warnings"])

v = llm(decoder("renamed", present_names=("cache_out.{l}.key", "cache_out.{l}.value")))
check("renamed: growth not checked, said so", v and v["present_growth_per_token"] is None
      and v["warnings"] == ["no output is named present*: the cache's growth is not checked against the outputs"],
      v and v["warnings"])
check("renamed: KV still the cache inputs'", v and v["kv_bytes_per_token"] == PER_LAYER, v)

# layers of different widths: the header (first layer x layers) is not the sum
v = llm(decoder("mixed", heads=(2, 4)))
check("mixed heads: the header disagrees, said with both figures",
      v and v["kv_bytes_per_token"] == PER_LAYER * 3 and any(
          "= 64 bytes per token, the cache inputs declare 96" in w for w in v["warnings"]), v and v["warnings"])

err = llm(decoder("fixed", present="fixed"), rc=2)
check("fixed presents refused in one line",
      err and err.count("\n") == 1 and "the present outputs do not grow with the context" in err, err)

# a lower bound: every derived figure marked, the largest batch at most
lb = decoder("unknown", unknown=True)
v = llm(lb, "--gpu", "h100")
check("unknown op: KV still exact", v and v["kv_bytes_per_token"] == PER_LAYER, v)
check("unknown op: need inexact", v and v["need_exact"] is False and v["decode"]["complete"] is False, v)
t = llm(lb, "--gpu", "h100", fmt="text")
lines = t.splitlines() if t else []
check("unknown op: largest batch not exact", any("largest batch" in x and (": <= " in x or ": ~ " in x) for x in lines),
      [x for x in lines if "largest batch" in x])
check("unknown op: tokens/s an upper bound", any(x.startswith("Request") and "<= " in x for x in lines),
      [x for x in lines if x.startswith("Request")])
check("unknown op: time to first token a lower bound", any("time to first token (ms): >= " in x for x in lines), lines)

# GroupQueryAttention taking its total length from the mask's contents
# (ReduceSum of attention_mask, as onnxruntime-genai's builders do): the
# length is assumed past + new (an all-ones mask), said in a warning, and the
# presents then agree with ONNX Runtime's growth under an all-ones mask
def gqa_decoder(path, kv=2, heads=4, hd=8):  # ORT's GQA wants a head size that is a multiple of 8
    H = heads * hd
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
           helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"])]
    outs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)]
    inits = [numpy_helper.from_array(np.random.RandomState(0).rand(V, H).astype(np.float32), "emb"),
             numpy_helper.from_array(np.random.RandomState(1).rand(H, V).astype(np.float32), "head"),
             numpy_helper.from_array(np.random.RandomState(2).rand(H, kv * hd).astype(np.float32), "wk"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array([1], np.int64), "axis1")]
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["x"]),
             helper.make_node("MatMul", ["x", "wk"], ["k"]),
             helper.make_node("ReduceSum", ["attention_mask", "axis1"], ["msum"], keepdims=0),
             helper.make_node("Sub", ["msum", "one"], ["msum1"]),
             helper.make_node("Cast", ["msum1"], ["seqlens_k"], to=TensorProto.INT32),
             helper.make_node("ReduceMax", ["msum"], ["mmax"], keepdims=0),
             helper.make_node("Cast", ["mmax"], ["total_len"], to=TensorProto.INT32)]
    for l in range(2):
        for kvn in ("key", "value"):
            ins.append(helper.make_tensor_value_info(f"past_key_values.{l}.{kvn}", TensorProto.FLOAT,
                                                     ["batch", kv, "past", hd]))
            outs.append(helper.make_tensor_value_info(f"present.{l}.{kvn}", TensorProto.FLOAT, None))
        nodes.append(helper.make_node(
            "GroupQueryAttention", ["x", "k", "k", f"past_key_values.{l}.key", f"past_key_values.{l}.value",
                                    "seqlens_k", "total_len"],
            [f"attn{l}", f"present.{l}.key", f"present.{l}.value"], domain="com.microsoft",
            num_heads=heads, kv_num_heads=kv, name=f"gqa{l}"))
    nodes.append(helper.make_node("Add", ["attn0", "attn1"], ["h"]))
    nodes.append(helper.make_node("MatMul", ["h", "head"], ["logits"]))
    g = helper.make_graph(nodes, "gqa", ins, outs, inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]),
              path)
    return path


gqa = gqa_decoder(os.path.join(tmp, "gqa.onnx"))
s_ = ort.InferenceSession(gqa, providers=["CPUExecutionProvider"])
sizes = []
for past in (5, 9):
    feed = {"input_ids": np.array([[1]], np.int64), "attention_mask": np.ones((1, past + 1), np.int64)}
    for i in s_.get_inputs():
        if i.name.startswith("past"):
            feed[i.name] = np.zeros((1, 2, past, 8), np.float32)
    sizes.append(sum(o.nbytes for o, m_ in zip(s_.run(None, feed), s_.get_outputs()) if m_.name.startswith("present")))
v = llm(gqa)
GQA_KV = 2 * 2 * 2 * 8 * 4  # layers x (k, v) x 2 KV heads x head size 8 x f32
check("gqa: KV per token by hand", v and v["kv_bytes_per_token"] == GQA_KV, v and v["kv_bytes_per_token"])
check("gqa: presents agree with ONNX Runtime's under an all-ones mask",
      v and v["present_growth_per_token"] == (sizes[1] - sizes[0]) // 4 == GQA_KV, v and (v["present_growth_per_token"], sizes))
check("gqa: the assumption said", v and any("gqa0" in w and "assumed: total_sequence_length" in w and
                                             "all-ones mask" in w for w in v["warnings"]), v and v["warnings"])
check("gqa: complete", v and v["decode"]["complete"] is True, v and v["decode"])

MIN_CHECKS = 24
if checks < MIN_CHECKS:
    fails.append(f"only {checks} checks ran, want at least {MIN_CHECKS}")
if fails:
    print("\n".join("FAIL " + f for f in fails))
    print(f"{checks - len(fails)} passed, {len(fails)} failed")
    sys.exit(1)
print(f"{checks} passed, 0 failed")
