#!/usr/bin/env python3
"""`onnxcost llm` against ONNX Runtime and closed forms, on the decoders of
fixtures/corpus (GPT-2 with ORT's fused Attention, Llama as exported by
optimum, Qwen with GroupQueryAttention):

- layers, KV heads and head size read from the file itself (the declared
  shapes of its cache inputs, past_key_values.N.key/value [batch, KV heads,
  past, head size] or ORT's past_N [2, batch, heads, past, head size]), and
  onnxcost's own figures for them must equal those;
- the KV cache bytes per token against the present.* tensors ONNX Runtime
  returns (batch 2, past 5, one new token), divided by batch x (past + new);
- the MACs of a decode step at two contexts against the closed form
  W + 2 x layers x query heads x head size x context, where W is the
  number of weight elements the contractions read (MatMul/Gemm/Attention
  weights found in the file, through Transpose/Cast) and the query heads
  come from the attention nodes' num_heads (fused) or q_proj's width;
- the prefill's MACs at S tokens against W x S + 2 x layers x heads x head
  size x S^2 (attention counted in full, the default convention), and with
  --causal half against S(S+1)/2 pairs instead of S^2;
- every (batch, context) of the decode table: the step's MACs, analyzed at
  that batch and context, against batch x (W + 2 x layers x heads x head size
  x context), and the table's FLOPs against that analysis' FLOPs;
- the largest batch on an A100 80GB by brute force: the step's need at that
  batch within 79 GiB, at one batch more beyond it.

Then Llama-shaped graphs of bench/gen_llama.py and a GPT-2 exported here
from transformers, against the closed forms of their known configurations.
At least MIN_CHECKS comparisons must have been made.
Exit 77, before anything runs, when onnx, onnxruntime, torch or transformers
is missing.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))  # holds a transformers.py of its own
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != here]
try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from onnx import TensorProto, numpy_helper  # noqa: F401
    from onnxruntime.transformers import optimizer
    from transformers import GPT2Config, GPT2LMHeadModel
except ImportError as e:
    print(f"SKIP: {e} (needs onnx, onnxruntime, numpy, torch and transformers)")
    sys.exit(77)

ap = argparse.ArgumentParser()
ap.add_argument("--onnxcost", required=True)
ap.add_argument("--fixtures", required=True)
args = ap.parse_args()
fails = checks = 0
# comparisons a run must make (164 on 2026-11-25: 3 corpus decoders with 18
# rows of decode table each, 2 generated Llamas, the GPT-2 export; 173 with
# the largest batch's three checks per corpus decoder; 176 with the three
# graphs refused; 179 with LLaMA-7B's crossover, three)
MIN_CHECKS = 175


def check(name, got, want):
    global fails, checks
    checks += 1
    if got != want:
        print(f"FAIL {name}: got {got!r}, want {want!r}")
        fails += 1


def llm(path, *extra):
    out = subprocess.run([args.onnxcost, "llm", path, "--format", "json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"FAIL onnxcost llm {path} {extra}: {out.stderr.strip()}")
        sys.exit(1)
    return json.loads(out.stdout)["llm"]


def weights_read(m):
    """Elements of the initializers the contractions read (weights, not activations)."""
    inits = {t.name: t for t in m.graph.initializer}
    producer = {o: n for n in m.graph.node for o in n.output}

    def source(name):  # through Transpose / Cast / Identity of an initializer
        while name not in inits and name in producer and producer[name].op_type in ("Transpose", "Cast", "Identity"):
            name = producer[name].input[0]
        return inits.get(name)

    total = 0
    for n in m.graph.node:
        if n.op_type in ("MatMul", "Gemm") or (n.op_type == "Attention" and n.domain == "com.microsoft"):
            t = source(n.input[1])
            if t is not None:
                total += int(np.prod(t.dims))
    return total


def heads(m, head_dim):
    """Query heads: the fused attention's num_heads, else q_proj's output
    width / head size (Hugging Face names)."""
    for n in m.graph.node:
        if n.op_type in ("Attention", "GroupQueryAttention", "MultiHeadAttention"):
            for a in n.attribute:
                if a.name == "num_heads":
                    return a.i
    inits = {t.name: t for t in m.graph.initializer}
    for n in m.graph.node:
        if n.op_type == "MatMul" and "q_proj" in n.name and n.input[1] in inits:
            return inits[n.input[1]].dims[-1] // head_dim
    return None


def kv_config(m):
    """(layers, KV heads, head size) from the declared shapes of the cache
    inputs; None when they are not of a known form or differ between layers."""
    def dims(vi):
        return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]

    fused = [dims(i) for i in m.graph.input if re.fullmatch(r"past_\d+", i.name)]
    if fused:  # ORT's fused Attention: [2 (key, value), batch, heads, past, head size]
        per_layer = {(d[2], d[4]) for d in fused if len(d) == 5 and d[0] == 2}
        layers = len(fused)
    else:  # past_key_values.N.key / .value: [batch, KV heads, past, head size]
        caches = {(int(k.group(1)), k.group(2)): dims(i) for i in m.graph.input
                  for k in [re.fullmatch(r"past_key_values\.(\d+)\.(key|value)", i.name)] if k}
        layers = len({n for n, _ in caches})
        if sorted(caches) != sorted((n, kv) for n in range(layers) for kv in ("key", "value")):
            return None
        per_layer = {(d[1], d[3]) for d in caches.values() if len(d) == 4}
    if layers == 0 or len(per_layer) != 1:
        return None
    kv, d = per_layer.pop()
    return (layers, kv, d) if isinstance(kv, int) and isinstance(d, int) else None


def feeds(sess, b, past, new):
    out = {}
    ids = sess.get_inputs()[0]
    batch_sym = ids.shape[0]
    for i in sess.get_inputs():
        dt = {"tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(float)": np.float32,
              "tensor(float16)": np.float16}[i.type]
        if i.name in ("input_ids",):
            out[i.name] = np.ones((b, new), dt)
        elif i.name == "position_ids":
            out[i.name] = np.tile(np.arange(past, past + new, dtype=dt), (b, 1))
        elif i.name == "attention_mask":
            out[i.name] = np.ones((b, past + new), dt)
        else:  # a cache input: the batch symbol, the past symbol, static dims
            shape = [b if d == batch_sym else d if isinstance(d, int) else past for d in i.shape]
            out[i.name] = np.zeros(shape, dt)
    return out


models = sorted(glob.glob(os.path.join(args.fixtures, "corpus", "microsoft+onnxruntime-genai", "**", "*.onnx"),
                      recursive=True))
decoders = [p for p in models if any(k in p for k in ("gpt2-fp32__past", "LlamaForCausalLM", "qwen35"))]
check("decoders found", len(decoders), 3)
for path in decoders:
    name = os.path.basename(os.path.dirname(path)) if path.endswith("model.onnx") else os.path.basename(path)
    m = onnx.load(path, load_external_data=False)
    B, P, S = 2, 5, 1  # GQA takes several new tokens over a past only at batch 1
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    res = sess.run(None, feeds(sess, B, P, S))
    present = sum(r.nbytes for o, r in zip(sess.get_outputs(), res) if o.name.startswith("present"))
    v = llm(path, "--batch", str(B), "--prompt", "1", "--generate", "1", "--context", str(P + S))
    check(f"{name}: KV bytes per token (ORT present tensors)", v["kv_bytes_per_token"], present // (B * (P + S)))
    check(f"{name}: present bytes divide evenly", present % (B * (P + S)), 0)

    cfg = kv_config(m)
    if cfg is None:
        check(f"{name}: layers, KV heads and head size readable from the cache inputs", None, "(L, KV, D)")
        continue
    L, KV, D = cfg
    check(f"{name}: layers, KV heads, head size (the cache inputs' shapes)", (v["layers"], v["kv_heads"],
                                                                             v["head_dim"]), (L, KV, D))
    W = weights_read(m)
    c1, c2 = 40, 104
    d1 = llm(path, "--context", str(c1), "--prompt", "1", "--generate", "1")["decode"]["macs"]
    d2 = llm(path, "--context", str(c2), "--prompt", "1", "--generate", "1")["decode"]["macs"]
    slope = (d2 - d1) // (c2 - c1)
    H = heads(m, D)
    if H is None:
        check(f"{name}: query heads found in the file", None, "num_heads or q_proj")
        continue
    check(f"{name}: decode MACs per context step = 2 x layers x heads x head size", slope, 2 * L * H * D)
    check(f"{name}: decode MACs at context {c1} = W + slope x context", d1, W + 2 * L * H * D * c1)
    St = 9
    pf = llm(path, "--prompt", str(St), "--generate", "1")["prefill"]["macs"]
    check(f"{name}: prefill MACs at {St} tokens = W x S + 2 x layers x heads x head size x S^2", pf,
          W * St + 2 * L * H * D * St * St)
    pf = llm(path, "--prompt", str(St), "--generate", "1", "--causal", "half")["prefill"]
    check(f"{name}: causal-half prefill MACs = W x S + 2 x layers x heads x head size x S(S+1)/2", pf["macs"],
          W * St + 2 * L * H * D * St * (St + 1) // 2)
    check(f"{name}: causal-half prefill says so", pf["attention"], "causal_half")
    # the decode table (other batches and contexts than the fit's): each row's
    # MACs, analyzed at its batch and context, on the closed form, and the
    # row's FLOPs equal to that analysis'; the fitted MACs formula is the
    # closed form's
    t = llm(path, "--batch", "3", "--context", "200", "--prompt", "1", "--generate", "1")
    check(f"{name}: decode MACs formula = batch x W + batch x context x 2 x layers x heads x head size",
          t["decode"]["macs_formula"], {"constant": 0, "batch": W, "context": 0, "batch_context": 2 * L * H * D,
                                        "method": "fitted"})
    check(f"{name}: a decode table", len(t["decode_table"]) >= 10, True)
    for r in t["decode_table"]:
        b, c = r["batch"], r["context"]
        at = llm(path, "--batch", str(b), "--context", str(c), "--prompt", "1", "--generate", "1")["decode"]
        check(f"{name}: decode MACs at batch {b}, context {c} = batch x (W + 2 x layers x heads x head size x "
              "context)", at["macs"], b * (W + 2 * L * H * D * c))
        check(f"{name}: table FLOPs at batch {b}, context {c} = the step analyzed there", r["flops"], at["flops"])
    # the largest batch that fits an A100 80GB (80 GiB, less the 1 GiB
    # reserve) at context 640, by brute force around the search's answer:
    # the step's need at that batch within the memory, one more beyond it
    usable = (80 - 1) << 30
    mb = llm(path, "--gpu", "a100", "--context", "640", "--prompt", "1", "--generate", "1")["max_batch"]
    fits = llm(path, "--batch", str(mb), "--context", "640", "--prompt", "1", "--generate", "1")["decode"]
    over = llm(path, "--batch", str(mb + 1), "--context", "640", "--prompt", "1", "--generate", "1")["decode"]
    check(f"{name}: largest batch {mb} at context 640 fits 79 GiB", fits["need_bytes"] <= usable, True)
    check(f"{name}: batch {mb + 1} does not", over["need_bytes"] > usable, True)
    check(f"{name}: the need exact", (fits["need_exact"], over["need_exact"]), (True, True))
    print(f"{name}: {L} layers, {H} heads x {D} ({KV} KV heads), W = {W}; KV {v['kv_bytes_per_token']} B/token; "
          f"{len(t['decode_table'])} table rows")

# Llama-shaped graphs from bench/gen_llama.py (weights external, never read):
# LLaMA-7B and a small grouped-query one, against the closed forms
# params = V·H (embedding) + L·(2·H·NH·D + 2·H·KV·D + 3·H·F + 2·H) + H + H·V,
# decode MACs = params - V·H - (2L + 1)·H (what the contractions read)
#               + 2·L·NH·D·context,
# KV bytes per token = 2·L·KV·D·2 (fp16).
import tempfile  # noqa: E402

gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gen_llama.py")
for shape in ((32, 4096, 32, 32, 11008, 32000), (3, 256, 8, 2, 688, 1000)):
    L, H, NH, KV, F, V = shape
    D = H // NH
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "llama.onnx")
        subprocess.run([sys.executable, gen, path, "--layers", str(L), "--hidden", str(H), "--heads", str(NH),
                        "--kv-heads", str(KV), "--ffn", str(F), "--vocab", str(V)], check=True)
        params = V * H + L * (2 * H * NH * D + 2 * H * KV * D + 3 * H * F + 2 * H) + H + H * V
        W = params - V * H - (2 * L + 1) * H
        name = f"llama L={L} H={H} heads={NH}/{KV}"
        for c in (256, 4096):
            v = llm(path, "--context", str(c), "--prompt", "1", "--generate", "1")
            check(f"{name}: decode MACs at context {c}", v["decode"]["macs"], W + 2 * L * NH * D * c)
        check(f"{name}: KV bytes per token", v["kv_bytes_per_token"], 2 * L * KV * D * 2)
        shapes = sum(8 * int(np.prod(t.dims)) for t in onnx.load(path, load_external_data=False).graph.initializer
                     if t.data_type == TensorProto.INT64)  # the Reshape/Tile constants
        check(f"{name}: weight bytes (fp16, and the int64 shape constants)", v["weight_bytes"], 2 * params + shapes)
        check(f"{name}: layers, KV heads, head size", (v["layers"], v["kv_heads"], v["head_dim"]), (L, KV, D))
        print(f"{name}: {params:,} parameters, KV {2 * L * KV * D * 2} B/token")
        if L > 3:
            # the crossover against brute force: on an A100 at context 16 the
            # weights dominate, and the decode step turns compute-bound at a
            # batch: memory-bound one batch before it, compute-bound at it
            # (each analyzed at that batch); at context 4096 the cache it
            # reads grows with the batch as fast as the FLOPs, and no batch up
            # to the largest is compute-bound
            a100 = ("--gpu", "a100", "--prompt", "1", "--generate", "1")
            cb = llm(path, *a100, "--context", "16")["crossover_batch"]
            check(f"{name}: a crossover batch on an A100 at context 16", isinstance(cb, int) and cb > 1, True)
            if isinstance(cb, int) and cb > 1:
                bounds = [llm(path, *a100, "--context", "16", "--batch", str(b))["decode"]["bound"] for b in (cb - 1, cb)]
                check(f"{name}: decode at context 16 memory-bound at batch {cb - 1}, compute-bound at {cb}", bounds,
                      ["memory", "compute"])
            far = llm(path, *a100, "--context", "4096")
            top = llm(path, *a100, "--context", "4096", "--batch", str(far["max_batch"]))["decode"]["bound"]
            check(f"{name}: at context 4096 no crossover, memory-bound at the largest batch {far['max_batch']}",
                  (far["crossover_batch"], top), (None, "memory"))
            continue
        # the same model with ONNX Runtime's GroupQueryAttention fused in (as
        # onnxruntime-genai exports it): the same MACs, prefill and decode
        plain_v = {c: llm(path, "--context", str(c), "--prompt", "9", "--generate", "1") for c in (100, 300)}
        subprocess.run([sys.executable, gen, path, "--layers", str(L), "--hidden", str(H), "--heads", str(NH),
                        "--kv-heads", str(KV), "--ffn", str(F), "--vocab", str(V), "--fused"], check=True)
        for c in (100, 300):
            fv = llm(path, "--context", str(c), "--prompt", "9", "--generate", "1")
            check(f"{name} GQA-fused: decode MACs at context {c} as the plain graph's", fv["decode"]["macs"],
                  plain_v[c]["decode"]["macs"])
        check(f"{name} GQA-fused: prefill MACs as the plain graph's", fv["prefill"]["macs"],
              plain_v[100]["prefill"]["macs"])
        check(f"{name} GQA-fused: KV bytes per token", fv["kv_bytes_per_token"], plain_v[100]["kv_bytes_per_token"])
        # the same with 4-bit MatMulNBits projections (blocks of 32): the same
        # MACs, and weights counted packed, with their scales and zero points
        subprocess.run([sys.executable, gen, path, "--layers", str(L), "--hidden", str(H), "--heads", str(NH),
                        "--kv-heads", str(KV), "--ffn", str(F), "--vocab", str(V), "--bits", "4"], check=True)
        projections = [(H, NH * D), (H, KV * D), (H, KV * D), (NH * D, H), (H, F), (H, F), (F, H)] * L + [(H, V)]
        quant = 0
        for k, n in projections:
            blocks = -(-k // 32)
            quant += n * blocks * 16 + 2 * n * blocks + n * (-(-blocks * 4 // 8))
        shapes = sum(8 * int(np.prod(t.dims)) for t in onnx.load(path, load_external_data=False).graph.initializer
                     if t.data_type == TensorProto.INT64)
        q = llm(path, "--context", "256", "--prompt", "1", "--generate", "1")
        check(f"{name} 4-bit: weight bytes (packed + scales + zero points + fp16 embedding and norms)",
              q["weight_bytes"], 2 * (V * H + (2 * L + 1) * H) + quant + shapes)
        check(f"{name} 4-bit: decode MACs as the fp16 graph's", q["decode"]["macs"], W + 2 * L * NH * D * 256)
        check(f"{name} 4-bit: weight bits recognised", q["weight_bits"], 4)

# A GPT-2 exported here from PyTorch (transformers, with its KV cache) and the
# same file fused by ONNX Runtime's transformer optimizer (SkipLayerNorm,
# FastGelu, ...): MACs and KV bytes must agree between the two, and match the
# closed form; FLOPs may differ by the elementwise conventions of the fused ops.
L, NH, H, V = 2, 4, 64, 500
D = H // NH
model = GPT2LMHeadModel(GPT2Config(n_layer=L, n_head=NH, n_embd=H, vocab_size=V, n_positions=256)).eval()


class WithCache(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask, *flat):
        pkv = tuple((flat[2 * i], flat[2 * i + 1]) for i in range(len(flat) // 2))
        o = self.m(input_ids=input_ids, attention_mask=attention_mask, past_key_values=pkv, use_cache=True)
        return (o.logits, *[t for kv in o.past_key_values for t in kv])


names = [f"past_key_values.{i}.{k}" for i in range(L) for k in ("key", "value")]
outs = ["logits"] + [f"present.{i}.{k}" for i in range(L) for k in ("key", "value")]
dyn = {"input_ids": {0: "batch_size", 1: "sequence_length"},
       "attention_mask": {0: "batch_size", 1: "total_sequence_length"},
       "logits": {0: "batch_size", 1: "sequence_length"}}
dyn.update({n: {0: "batch_size", 2: "past_sequence_length"} for n in names})
dyn.update({n: {0: "batch_size", 2: "total_sequence_length"} for n in outs[1:]})
with tempfile.TemporaryDirectory() as tmp:
    plain, fused = os.path.join(tmp, "gpt2.onnx"), os.path.join(tmp, "gpt2_fused.onnx")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(WithCache(model), (torch.ones(1, 2, dtype=torch.long), torch.ones(1, 5, dtype=torch.long),
                                             *[torch.zeros(1, NH, 3, D) for _ in names]),
                          plain, input_names=["input_ids", "attention_mask"] + names, output_names=outs,
                          dynamic_axes=dyn, opset_version=14)
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        optimizer.optimize_model(plain, model_type="gpt2", num_heads=NH, hidden_size=H,
                                 opt_level=0).save_model_to_file(fused)
    m = onnx.load(plain)
    fused_ops = {n.op_type for n in onnx.load(fused).graph.node}
    check("gpt2 export: the optimizer fused something", bool(fused_ops & {"SkipLayerNormalization", "FastGelu",
                                                                       "BiasGelu", "Attention"}), True)
    W = weights_read(m)
    for c in (12, 100):
        a = llm(plain, "--context", str(c), "--prompt", "7", "--generate", "1")
        b = llm(fused, "--context", str(c), "--prompt", "7", "--generate", "1")
        check(f"gpt2 export: decode MACs at context {c}", a["decode"]["macs"], W + 2 * L * NH * D * c)
        check(f"gpt2 export: fused decode MACs at context {c}", b["decode"]["macs"], a["decode"]["macs"])
    check("gpt2 export: prefill MACs at 7 tokens", a["prefill"]["macs"], W * 7 + 2 * L * NH * D * 49)
    check("gpt2 export: fused prefill MACs", b["prefill"]["macs"], a["prefill"]["macs"])
    check("gpt2 export: KV bytes per token", (a["kv_bytes_per_token"], b["kv_bytes_per_token"]),
          (2 * L * NH * D * 4,) * 2)
    print(f"gpt2 export: W = {W}, fused ops {sorted(fused_ops & {'SkipLayerNormalization', 'FastGelu', 'Attention'})}")

# graphs the view cannot read as a decoder with a growing cache: one line naming the file and why, exit 2
# (the cache-input names are the view's own signs of a decoder, docs/LLM.md)
with tempfile.TemporaryDirectory() as tmp:
    h = onnx.helper

    def decoder(name, ids_shape, cache_shape, ids="input_ids"):
        ins = [h.make_tensor_value_info(ids, TensorProto.INT64, ids_shape),
               h.make_tensor_value_info("past_key_values.0.key", TensorProto.FLOAT, cache_shape)]
        g = h.make_graph([h.make_node("Identity", ["past_key_values.0.key"], ["present.0.key"])], name, ins,
                         [h.make_tensor_value_info("present.0.key", TensorProto.FLOAT, None)])
        path = os.path.join(tmp, name + ".onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
        return path

    for name, ids_shape, cache_shape, ids, why in (
            ("no_input_ids", ["batch", "seq"], ["batch", 2, "past", 4], "tokens",
             "not a decoder: no input_ids (or inputs_embeds) of rank >= 2"),
            ("fixed_ids", [1, 8], ["batch", 2, "past", 4], "input_ids",
             "input 'input_ids' has no symbolic batch and sequence dims"),
            ("fixed_past", ["batch", "seq"], ["batch", 2, 16, 4], "input_ids",
             "cache input 'past_key_values.0.key' has no symbolic past dim")):
        path = decoder(name, ids_shape, cache_shape, ids)
        p = subprocess.run([args.onnxcost, "llm", path], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        check(f"refused: {name}", (p.returncode, len(lines), bool(lines) and path in lines[0] and why in lines[0]),
              (2, 1, True))

# decoders the view reads but cannot check against their outputs: each says so in a warning where the
# reader looks (the report's head; JSON llm.warnings). One cache input (a key, no value) of 2 heads x 4
# fp32: 32 bytes per token declared, where the header's layers x heads x size x 2 says 64; a present whose
# length comes from data (a Slice ending at the largest input id); an output not named present*
with tempfile.TemporaryDirectory() as tmp:
    h = onnx.helper

    def cache_decoder(name, present, from_data):
        ins = [h.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
               h.make_tensor_value_info("past_key_values.0.key", TensorProto.FLOAT, ["batch", 2, "past", 4])]
        pk = "past_key_values.0.key"
        nodes = [h.make_node("Concat", [pk, pk], [present], axis=2)]
        if from_data:
            nodes = [h.make_node("ReduceMax", ["input_ids"], ["mx"], keepdims=1),
                     h.make_node("Reshape", ["mx", "one"], ["end"]),
                     h.make_node("Slice", [pk, "zero", "end", "two"], ["part"]),
                     h.make_node("Concat", [pk, "part"], [present], axis=2)]
        inits = [onnx.numpy_helper.from_array(np.array(v, np.int64), n) for n, v in (("one", [1]), ("zero", [0]),
                                                                                   ("two", [2]))]
        g = h.make_graph(nodes, name, ins, [h.make_tensor_value_info(present, TensorProto.FLOAT, None)], inits)
        path = os.path.join(tmp, name + ".onnx")
        onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
        return path

    header = "the header's 1 layers x 2 KV heads x 4 x f32 x 2 = 64 bytes per token, the cache inputs declare 32"
    for name, present, from_data, want in (
            ("present_from_data", "present.0.key", True, "the present outputs have no known size"),
            ("no_present_name", "cache_out", False, "no output is named present*")):
        w = llm(cache_decoder(name, present, from_data), "--context", "32")["warnings"]
        check(f"warned: {name}", (any(x.startswith(header) for x in w), any(x.startswith(want) for x in w), len(w)),
              (True, True, 2))
        text = subprocess.run([args.onnxcost, "llm", os.path.join(tmp, name + ".onnx"), "--context", "32"],
                              capture_output=True, text=True).stdout
        check(f"warned in the text: {name}", ("WARNING: " + header in text, "WARNING: " + want in text), (True, True))

print(f"{checks} comparisons (at least {MIN_CHECKS})")
if checks < MIN_CHECKS:
    print(f"FAIL: {checks} comparisons made, want at least {MIN_CHECKS}")
    fails += 1
print(f"llm view: {'ok' if not fails else str(fails) + ' failed'}")
sys.exit(1 if fails else 0)
