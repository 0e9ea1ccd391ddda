#!/usr/bin/env python3
"""Generated-model differential oracle (issue 28, item 1; in the spirit of
NNSmith, ASPLOS'23): random valid ONNX graphs, each run in ONNX Runtime with
every intermediate tensor exposed, against onnxcost.

A graph is a chain over one input x[batch, C, H, W] (batch symbolic, the
rest drawn), each step an op drawn from: unary and broadcasting binary
elementwise ops (initializers of every broadcastable shape), Where on a
comparison, MatMul, Gemm, Conv (kernel, stride, pads, dilation, group,
bias drawn), Max/AveragePool, Transpose, Reshape and Flatten whose target
shape is computed by the integer shape arithmetic exporters emit
(Shape -> Slice/Gather -> Unsqueeze -> Concat), Slice (negative starts,
steps of -1 and 2), Pad, Gather with constant indices, Concat, ReduceSum
(axes as an input) and ReduceMean, Softmax, Unsqueeze and Squeeze,
LayerNormalization, If (branches reading the outer graph), and the
com.microsoft ops ONNX Runtime's fusions emit (Gelu, FastGelu, QuickGelu,
BiasGelu, SkipLayerNormalization). The batch dim stays at axis 0, so every
graph is valid at any batch.

For each graph and each of two batches, required:
  - every concrete tensor shape onnxcost infers equals ONNX Runtime's;
  - every value onnxcost folds (the integer shape arithmetic) equals ONNX
    Runtime's (tests/oracle/fold_dump over the graph with every
    intermediate an output);
  - the analysis is complete and its MACs equal the count the generator
    makes on its own (Conv: N·Cout·Ho·Wo·Cin/g·kh·kw; MatMul and Gemm:
    M·K·N, from ONNX Runtime's shapes).
One graph in ten is instead a decoder with a KV cache of random layout
(layers, KV heads, head size, f16/f32, the past on axis 1 or 2; or through
com.microsoft GroupQueryAttention, its total length from the mask's shape or
from its contents): onnxcost llm's KV bytes per token must equal the growth
per token of the presents ONNX Runtime returns (an all-ones mask) and the
count by hand, the decode step complete, with no warning but the stated
assumption of a length taken from the mask's contents.
A mismatch writes the graph to --keep DIR (to become a fixture) and fails.

usage: gen_graphs.py --onnxcost BIN --fold-dump BIN [--seed S] [--seconds T | --graphs N]
                     [--min-graphs N] [--keep DIR]
Exit 0 when all agree and at least --min-graphs ran, 1 otherwise, 77 when
onnx/onnxruntime are missing.
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

ort.set_default_logger_severity(3)


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.nodes, self.inits = [], []
        self.k = 0
        self.macs = []  # (kind, node output, extra): counted after ONNX Runtime gives the shapes
        self.ops = collections.Counter()

    def name(self, p):
        self.k += 1
        return f"{p}{self.k}"

    def const(self, arr, p="c"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def node(self, op, ins, n_out=1, **attrs):
        outs = [self.name(op.lower() + "_") for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name=outs[0] + "_n", **attrs))
        self.ops[op] += 1
        return outs[0] if n_out == 1 else outs

    # -- the shape arithmetic of exporters: batch from Shape(x), the rest constant
    def target_shape(self, x, dims):
        r = self.r
        if r.random() < 0.5:
            b = self.node("Slice", [self.node("Shape", [x]), self.const(np.array([0], np.int64)),
                                    self.const(np.array([1], np.int64))])
        else:
            g = self.node("Gather", [self.node("Shape", [x]), self.const(np.array(0, np.int64))], axis=0)
            b = self.node("Unsqueeze", [g, self.const(np.array([0], np.int64))])
        return self.node("Concat", [b, self.const(np.array(dims, np.int64))], axis=0)

    def step(self, x, s):
        """one op on x of shape s (s[0] the batch, symbolic); returns (y, shape)"""
        r = self.r
        rank = len(s)
        choices = ["unary", "binary", "where", "matmul", "transpose", "reshape", "slice", "pad", "gather",
                   "concat", "reduce", "softmax", "unsqueeze", "flatten", "layernorm", "contrib", "if", "loop"]
        if rank == 3:
            choices += ["skiplayernorm"]
        if rank == 4:
            choices += ["conv", "conv", "pool"]
        if rank == 2:
            choices += ["gemm"]
        if 1 in s[1:] and rank >= 3:
            choices += ["squeeze"]
        if rank >= 6 or max(s[1:] or [1]) > 64 or int(np.prod(s[1:])) > 4096:
            choices = ["reduce", "slice", "flatten", "gather"] if rank > 1 else ["unary"]
        op = r.choice(choices)
        if op == "layernorm":
            ax = r.choice([-1] + list(range(1, rank)))
            norm = s[ax:] if ax != -1 else s[-1:]
            ins = [x, self.const(np.ones(norm, np.float32), "g")]
            if r.random() < 0.5:
                ins.append(self.const(np.zeros(norm, np.float32), "b"))
            return self.node("LayerNormalization", ins, axis=ax), s
        if op == "contrib":  # what ONNX Runtime's fusions emit
            kind = r.choice(["Gelu", "FastGelu", "QuickGelu", "BiasGelu"])
            if kind == "BiasGelu":
                return self.node(kind, [x, self.const(np.zeros(s[-1], np.float32), "b")], domain="com.microsoft"), s
            return self.node(kind, [x], domain="com.microsoft"), s
        if op == "skiplayernorm":
            ins = [x, self.node("Relu", [x]), self.const(np.ones(s[-1], np.float32), "g"),
                   self.const(np.zeros(s[-1], np.float32), "b")]
            return self.node("SkipLayerNormalization", ins, domain="com.microsoft"), s
        if op == "if":  # control flow: the branches read x from the outer graph
            total = self.node("ReduceSum", [x], keepdims=0)
            cond = self.node("Greater", [total, self.const(np.array(0.0, np.float32))])
            branches = []
            for br in ("then", "else"):
                out = self.name(br + "_")
                op_ = r.choice(["Relu", "Sigmoid", "Neg", "Tanh"])
                branches.append(helper.make_graph([helper.make_node(op_, [x], [out])], br, [],
                                                  [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)]))
            return self.node("If", [cond], then_branch=branches[0], else_branch=branches[1]), s
        if op == "loop":  # a counted Loop: x carried through an op, and a scan output of every iteration
            m = r.randint(1, 3)
            body_op = r.choice(["Relu", "Sigmoid", "Neg", "Tanh"])
            b_in = [helper.make_tensor_value_info("it", TensorProto.INT64, []),
                    helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
                    helper.make_tensor_value_info("x_in", TensorProto.FLOAT, None)]
            b_out = [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
                     helper.make_tensor_value_info("x_out", TensorProto.FLOAT, None),
                     helper.make_tensor_value_info("scan", TensorProto.FLOAT, None)]
            body = helper.make_graph([helper.make_node("Identity", ["c_in"], ["c_out"]),
                                      helper.make_node(body_op, ["x_in"], ["x_out"]),
                                      helper.make_node("Relu", ["x_in"], ["scan"])], "body", b_in, b_out)
            outs = [self.name("loop_"), self.name("scan_")]
            self.nodes.append(helper.make_node("Loop", [self.const(np.array(m, np.int64)), self.const(np.array(True)), x],
                                               outs, name=outs[0] + "_n", body=body))
            self.ops["Loop"] += 1
            return outs[0], s
        if op == "unary":
            return self.node(r.choice(["Relu", "Sigmoid", "Tanh", "Neg", "Abs"]), [x]), s
        if op in ("binary", "where"):
            n = r.randint(0, rank - 1)  # a suffix of s, each dim kept or 1
            bs = [d if r.random() < 0.6 else 1 for d in s[rank - n:]]
            other = self.const(np.asarray(np.random.RandomState(r.randint(0, 1 << 30)).rand(*bs), np.float32), "w")
            if op == "where":
                cond = self.node("Greater", [x, self.const(np.array(0.0, np.float32))])
                return self.node("Where", [cond, x, other]), s
            return self.node(r.choice(["Add", "Mul", "Sub", "Max", "Min"]), [x, other]), s
        if op == "matmul":
            k = r.randint(1, 16)
            w = self.const(np.zeros((s[-1], k), np.float32), "w")
            y = self.node("MatMul", [x, w])
            self.macs.append(("matmul", y, s[-1]))
            return y, s[:-1] + [k]
        if op == "gemm":
            k = r.randint(1, 16)
            tb = r.random() < 0.5
            w = self.const(np.zeros((k, s[1]) if tb else (s[1], k), np.float32), "w")
            ins = [x, w] + ([self.const(np.zeros(k, np.float32), "b")] if r.random() < 0.5 else [])
            y = self.node("Gemm", ins, transB=int(tb))
            self.macs.append(("matmul", y, s[1]))
            return y, [s[0], k]
        if op == "conv":
            cin, h, w_ = s[1], s[2], s[3]
            g = r.choice([d for d in range(1, cin + 1) if cin % d == 0])
            cout = g * r.randint(1, 3)
            k = r.randint(1, 3)
            st, dl = r.randint(1, 2), r.randint(1, 2)
            pads = [r.randint(0, k - 1) for _ in range(4)]
            ho = (h + pads[0] + pads[2] - dl * (k - 1) - 1) // st + 1
            wo = (w_ + pads[1] + pads[3] - dl * (k - 1) - 1) // st + 1
            if ho < 1 or wo < 1:
                return self.node("Relu", [x]), s
            ins = [x, self.const(np.zeros((cout, cin // g, k, k), np.float32), "w")]
            if r.random() < 0.5:
                ins.append(self.const(np.zeros(cout, np.float32), "b"))
            y = self.node("Conv", ins, kernel_shape=[k, k], strides=[st, st], dilations=[dl, dl], pads=pads, group=g)
            self.macs.append(("conv", y, (cin // g) * k * k))
            return y, [s[0], cout, ho, wo]
        if op == "pool":
            k, st = r.randint(1, 3), r.randint(1, 2)
            pads = [r.randint(0, k - 1) for _ in range(4)]
            ho = (s[2] + pads[0] + pads[2] - k) // st + 1
            wo = (s[3] + pads[1] + pads[3] - k) // st + 1
            if ho < 1 or wo < 1:
                return self.node("Relu", [x]), s
            p = r.choice(["MaxPool", "AveragePool"])
            return self.node(p, [x], kernel_shape=[k, k], strides=[st, st], pads=pads), [s[0], s[1], ho, wo]
        if op == "transpose":
            perm = [0] + r.sample(range(1, rank), rank - 1)
            return self.node("Transpose", [x], perm=perm), [s[p] for p in perm]
        if op == "reshape":
            total = int(np.prod(s[1:]))
            dims = []
            while total > 1 and len(dims) < 3 and r.random() < 0.7:
                f = r.choice([d for d in range(1, total + 1) if total % d == 0])
                dims.append(f)
                total //= f
            dims.append(total)
            if r.random() < 0.3:  # -1 for one dim
                i = r.randrange(len(dims))
                shape_dims = dims[:i] + [-1] + dims[i + 1:]
            else:
                shape_dims = dims
            return self.node("Reshape", [x, self.target_shape(x, shape_dims)]), [s[0]] + dims
        if op == "flatten":
            return self.node("Flatten", [x], axis=1), [s[0], int(np.prod(s[1:]))]
        if op == "slice":
            if rank < 2:
                return self.node("Relu", [x]), s
            a = r.randint(1, rank - 1)
            d = s[a]
            step = r.choice([1, 1, 2, -1])
            if step > 0:
                st_, en = r.randint(-d, d - 1), r.choice([d, d + 5, -1, r.randint(1, d)])
            else:
                st_, en = r.choice([-1, d - 1, d + 3]), r.choice([-d - 1, 0, -2])
            out = len(range(*slice(st_, en, step).indices(d)))
            if out < 1:
                return self.node("Relu", [x]), s
            axes = [a] if r.random() < 0.5 else [a - rank]
            y = self.node("Slice", [x, self.const(np.array([st_], np.int64)), self.const(np.array([en], np.int64)),
                                    self.const(np.array(axes, np.int64)), self.const(np.array([step], np.int64))])
            return y, s[:a] + [out] + s[a + 1:]
        if op == "pad":
            p = [0] * (2 * rank)
            for a in range(1, rank):
                p[a], p[a + rank] = r.randint(0, 2), r.randint(0, 2)
            y = self.node("Pad", [x, self.const(np.array(p, np.int64))], mode="constant")
            return y, [s[a] + p[a] + p[a + rank] for a in range(rank)]
        if op == "gather":
            if rank < 2:
                return self.node("Relu", [x]), s
            a = r.randint(1, rank - 1)
            if rank >= 3 and r.random() < 0.3:  # a scalar index drops the axis
                idx = np.array(r.randint(-s[a], s[a] - 1), np.int64)
                return self.node("Gather", [x, self.const(idx)], axis=a), s[:a] + s[a + 1:]
            n = r.randint(1, 4)
            idx = np.array([r.randint(-s[a], s[a] - 1) for _ in range(n)], np.int64)
            return self.node("Gather", [x, self.const(idx)], axis=a), s[:a] + [n] + s[a + 1:]
        if op == "concat":
            if rank < 2:
                return self.node("Relu", [x]), s
            a = r.randint(1, rank - 1)
            return self.node("Concat", [x, self.node("Relu", [x])], axis=a), s[:a] + [2 * s[a]] + s[a + 1:]
        if op == "reduce":
            if rank < 2:
                return self.node("Relu", [x]), s
            keep = rank == 2 or r.random() < 0.5  # never below rank 2: the batch and one more
            axes = sorted(r.sample(range(1, rank), r.randint(1, rank - 1 if keep else rank - 2)))
            if r.random() < 0.5:
                y = self.node("ReduceSum", [x, self.const(np.array(axes, np.int64))], keepdims=int(keep))
            else:
                y = self.node("ReduceMean", [x], axes=axes, keepdims=int(keep))
            return y, [1 if a in axes else d for a, d in enumerate(s)] if keep else \
                [d for a, d in enumerate(s) if a not in axes]
        if op == "softmax":
            return self.node("Softmax", [x], axis=r.choice([-1] + list(range(1, rank)))), s
        if op == "unsqueeze":
            a = r.randint(1, rank)
            return self.node("Unsqueeze", [x, self.const(np.array([a], np.int64))]), s[:a] + [1] + s[a:]
        if op == "squeeze":
            a = r.choice([i for i in range(1, rank) if s[i] == 1])
            return self.node("Squeeze", [x, self.const(np.array([a], np.int64))]), s[:a] + s[a + 1:]
        raise AssertionError(op)

    def graph(self):
        r = self.r
        s = ["batch"] + [r.randint(1, 6), r.randint(2, 9), r.randint(2, 9)]
        x = "x"
        shape = [0] + s[1:]
        for _ in range(r.randint(2, 10)):
            x, shape = self.step(x, shape)
        g = helper.make_graph(self.nodes, "gen", [helper.make_tensor_value_info("x", TensorProto.FLOAT, s)],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], self.inits)
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                                 ir_version=8)


def decoder(rng):
    """A decoder with a KV cache of random layout: layers, KV heads, head size,
    dtype, the past axis (1 or 2 of [batch, ., ., head]); its KV bytes per
    token by hand: layers x 2 x heads x head size x dtype bytes."""
    r = rng
    if r.random() < 0.4:
        return gqa_decoder(r)
    L, H, D = r.randint(1, 3), r.randint(1, 4), r.choice([2, 4, 8])
    dt, nbytes = r.choice([(TensorProto.FLOAT, 4), (TensorProto.FLOAT16, 2)])
    past_axis = r.choice([1, 2])
    E, V = 8, 16
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])]
    outs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)]
    inits = [numpy_helper.from_array(np.zeros((V, E), np.float32), "emb"),
             numpy_helper.from_array(np.zeros((E, V), np.float32), "head")]
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["x"]), helper.make_node("MatMul", ["x", "head"], ["logits"])]
    for l in range(L):
        inits += [numpy_helper.from_array(np.zeros((E, H * D), np.float32), f"w{l}"),
                  numpy_helper.from_array(np.array([0, 0, H, D], np.int64), f"s{l}")]
        for kv in ("key", "value"):
            p = f"{kv}{l}"
            shape = ["batch", H, "past", D] if past_axis == 2 else ["batch", "past", H, D]
            ins.append(helper.make_tensor_value_info(f"past_key_values.{l}.{kv}", dt, shape))
            outs.append(helper.make_tensor_value_info(f"present.{l}.{kv}", dt, None))
            nodes += [helper.make_node("MatMul", ["x", f"w{l}"], [p + "m"]),
                      helper.make_node("Reshape", [p + "m", f"s{l}"], [p + "r"])]
            last = p + "r"
            if past_axis == 2:
                nodes.append(helper.make_node("Transpose", [last], [p + "t"], perm=[0, 2, 1, 3]))
                last = p + "t"
            nodes += [helper.make_node("Cast", [last], [p + "c"], to=dt),
                      helper.make_node("Concat", [f"past_key_values.{l}.{kv}", p + "c"], [f"present.{l}.{kv}"],
                                       axis=past_axis)]
    g = helper.make_graph(nodes, "decoder", ins, outs, inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), \
        L * 2 * H * D * nbytes, (H, D, past_axis, dt)


def gqa_decoder(r):
    """The same through com.microsoft GroupQueryAttention (f32, head size a
    multiple of 8 as ONNX Runtime's CPU kernel wants), its total length from
    the mask's shape or, as onnxruntime-genai's builders emit it, from a
    ReduceSum of the mask's contents (then assumed past + new: a warning)."""
    L, KV, D = r.randint(1, 3), r.randint(1, 2), r.choice([8, 16])
    NH = KV * r.randint(1, 2)
    from_data = r.random() < 0.5
    E, V = NH * D, 16
    ins = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
           helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"])]
    outs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)]
    inits = [numpy_helper.from_array(np.zeros((V, E), np.float32), "emb"),
             numpy_helper.from_array(np.zeros((E, V), np.float32), "head"),
             numpy_helper.from_array(np.zeros((E, KV * D), np.float32), "wk"),
             numpy_helper.from_array(np.array([1], np.int64), "one"),
             numpy_helper.from_array(np.array(1, np.int64), "one_s")]
    nodes = [helper.make_node("Gather", ["emb", "input_ids"], ["x"]), helper.make_node("MatMul", ["x", "wk"], ["k"]),
             helper.make_node("ReduceSum", ["attention_mask", "one"], ["msum"], keepdims=0),
             helper.make_node("Sub", ["msum", "one"], ["msum1"]),
             helper.make_node("Cast", ["msum1"], ["seqlens_k"], to=TensorProto.INT32)]
    if from_data:
        nodes += [helper.make_node("ReduceMax", ["msum"], ["tlen"], keepdims=0)]
    else:
        nodes += [helper.make_node("Shape", ["attention_mask"], ["mshape"]),
                  helper.make_node("Gather", ["mshape", "one_s"], ["tlen"], axis=0)]
    nodes.append(helper.make_node("Cast", ["tlen"], ["total_len"], to=TensorProto.INT32))
    last = "x"
    for l in range(L):
        for kvn in ("key", "value"):
            ins.append(helper.make_tensor_value_info(f"past_key_values.{l}.{kvn}", TensorProto.FLOAT,
                                                     ["batch", KV, "past", D]))
            outs.append(helper.make_tensor_value_info(f"present.{l}.{kvn}", TensorProto.FLOAT, None))
        nodes.append(helper.make_node(
            "GroupQueryAttention", [last, "k", "k", f"past_key_values.{l}.key", f"past_key_values.{l}.value",
                                    "seqlens_k", "total_len"],
            [f"attn{l}", f"present.{l}.key", f"present.{l}.value"], domain="com.microsoft",
            num_heads=NH, kv_num_heads=KV))
        last = f"attn{l}"
    nodes.append(helper.make_node("MatMul", [last, "head"], ["logits"]))
    g = helper.make_graph(nodes, "gqa_decoder", ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
                          ir_version=8)
    return m, L * 2 * KV * D * 4, (KV, D, 2, TensorProto.FLOAT)


def check_decoder(args, model, path, kv, layout, stats):
    """'' when onnxcost llm's KV bytes per token equal the growth of ONNX
    Runtime's presents and the hand count, with no warning"""
    H, D, past_axis, dt = layout
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    npdt = np.float32 if dt == TensorProto.FLOAT else np.float16
    sizes = []
    for past in (3, 7):
        feed = {"input_ids": np.ones((1, 1), np.int64)}
        if any(i.name == "attention_mask" for i in sess.get_inputs()):  # all ones, as generation runtimes feed it
            feed["attention_mask"] = np.ones((1, past + 1), np.int64)
        for i in sess.get_inputs():
            if i.name.startswith("past"):
                feed[i.name] = np.zeros((1, H, past, D) if past_axis == 2 else (1, past, H, D), npdt)
        sizes.append(sum(o.nbytes for o, m in zip(sess.run(None, feed), sess.get_outputs())
                         if m.name.startswith("present")))
    growth = (sizes[1] - sizes[0]) // 4
    run = subprocess.run([args.onnxcost, "llm", path, "--prompt", "4", "--generate", "2", "--format", "json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        return f"llm exit {run.returncode}: {run.stderr.strip()[:200]}"
    v = json.loads(run.stdout)["llm"]
    stats["decoders"] += 1
    # the one warning allowed: the length a GroupQueryAttention takes from the mask's contents, assumed
    warnings = [w for w in v["warnings"] if "assumed: total_sequence_length" not in w]
    stats["assumed_lengths"] += len(v["warnings"]) - len(warnings)
    if not v["kv_bytes_per_token"] == growth == kv or warnings or not v["decode"]["complete"]:
        return f"llm KV bytes per token {v['kv_bytes_per_token']}, ORT's presents grow by {growth}, by hand {kv}; " \
               f"warnings {v['warnings']}"
    return ""


def expose_all(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for o in n.output:
            if o not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    return m


def check_graph(args, gen, model, path, all_path, stats):
    """'' when everything agrees, else what differs"""
    sess = ort.InferenceSession(all_path, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    for batch in (2, 3):
        feed = {"x": np.random.RandomState(batch).standard_normal(
            [batch] + [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:]]).astype(np.float32)}
        got = dict(zip(names, sess.run(names, feed)))
        run = subprocess.run([args.onnxcost, path, "--dim", f"batch={batch}", "--format", "json", "-q"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            return f"batch {batch}: onnxcost exit {run.returncode}: {run.stderr.strip()[:200]}"
        doc = json.loads(run.stdout)
        if not doc["totals"]["complete"]:
            return f"batch {batch}: incomplete analysis: {doc['coverage']}"
        for n in doc["nodes"]:
            for o in n["outputs"]:
                want = list(np.shape(got[o["name"]]))
                stats["tensors"] += 1
                if o["shape"] != want:
                    return f"batch {batch}: node {n['name']} ({n['op_type']}) output {o['name']}: {o['shape']} != ORT {want}"
        macs = 0
        for kind, out, k in gen.macs:
            macs += int(np.prod(np.shape(got[out]))) * k
        if doc["totals"]["macs"] != macs:
            return f"batch {batch}: MACs {doc['totals']['macs']} != generator's {macs}"
        stats["macs_checked"] += 1
    # folded values, at fold_dump's binding (an unbound dim is 1, as onnxcost binds it by default)
    fd = subprocess.run([args.fold_dump, all_path], capture_output=True, text=True)
    if fd.returncode != 0:
        return f"fold_dump exit {fd.returncode}: {fd.stderr.strip()[:200]}"
    feed = {"x": np.zeros([1] + [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim[1:]],
                          np.float32)}
    got = dict(zip(names, sess.run(names, feed)))
    for o in json.loads(fd.stdout)["outputs"]:
        if o["values"] is None or got[o["name"]].dtype.kind not in "iu":
            continue
        stats["folded"] += 1
        if [int(v) for v in o["values"]] != got[o["name"]].reshape(-1).tolist():
            return f"folded {o['name']}: {o['values']} != ORT {got[o['name']].reshape(-1).tolist()}"
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnxcost", required=True)
    ap.add_argument("--fold-dump", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0)
    ap.add_argument("--graphs", type=int, default=0)
    ap.add_argument("--min-graphs", type=int, default=1)
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp()
    stats = collections.Counter()
    ops = collections.Counter()
    mismatches = []
    t0 = time.time()
    i = 0
    while (args.graphs and i < args.graphs) or (args.seconds and time.time() - t0 < args.seconds):
        seed = args.seed * 1_000_003 + i
        i += 1
        gen = Gen(random.Random(seed))
        path, all_path = os.path.join(tmp, "g.onnx"), os.path.join(tmp, "g_all.onnx")
        is_decoder = i % 10 == 0  # one graph in ten: a decoder with a KV cache, through onnxcost llm
        if is_decoder:
            model, kv, layout = decoder(gen.r)
            gen.ops["(decoder)"] += 1
        else:
            model = gen.graph()
            onnx.save(expose_all(model), all_path)
        onnx.save(model, path)
        try:
            why = check_decoder(args, model, path, kv, layout, stats) if is_decoder else \
                check_graph(args, gen, model, path, all_path, stats)
        except Exception as e:  # ONNX Runtime refused the graph: the generator's bug, not the tool's
            print(f"FAIL seed {seed}: generated a graph ONNX Runtime does not run: {str(e)[:300]}")
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                onnx.save(model, os.path.join(args.keep, f"invalid_{seed}.onnx"))
            return 1
        stats["graphs"] += 1
        ops.update(gen.ops)
        if why:
            mismatches.append((seed, why))
            print(f"MISMATCH seed {seed}: {why}")
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                onnx.save(model, os.path.join(args.keep, f"gen_{seed}.onnx"))
    dt = time.time() - t0
    print(f"{stats['graphs']} graphs in {dt:.0f} s (seed {args.seed}), {len(ops)} op types, {sum(ops.values())} nodes, "
          f"{stats['tensors']} tensor shapes, {stats['folded']} folded values, {stats['macs_checked']} MAC totals "
          f"compared, {stats['decoders']} decoders' KV bytes per token ({stats['assumed_lengths']} with a length assumed); "
          f"{len(mismatches)} mismatches")
    print("ops: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    if stats["graphs"] < args.min_graphs:
        print(f"FAIL only {stats['graphs']} graphs, want at least {args.min_graphs}")
        return 1
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
