"""Figures of a model computed without onnxcost, from the tensors ONNX
Runtime produces when it runs it: bytes each node reads and writes, MACs and
FLOPs by docs/COSTS.md's formulas over those shapes, output and input bytes,
float weights.

The convention is docs/COSTS.md's ("Bytes"): a node reads every input and
writes every output, each in its own element width (sub-byte types rounded up
per tensor); views read and write nothing; a few ops read only their input's
metadata. Sizes come from the arrays ONNX Runtime returns (every node output
made a graph output, graph optimizations off so that every node runs as
written), from the feeds and from the initializers.

    from ort_figures import model_bytes, hand_flops, hand_totals
    read, written, per_node = model_bytes("m.onnx", {"x": x})
    macs, flops = hand_flops("m.onnx", {"x": x})
    totals = hand_totals("m.onnx", {"N": 4})   # inputs made for the binding
"""
import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Optional", "OptionalGetElement"}
META_OPS = {"Shape", "Size", "EyeLike", "RandomNormalLike", "RandomUniformLike", "OptionalHasElement", "SequenceAt",
            "SequenceLength"}
BITS = {TensorProto.FLOAT: 32, TensorProto.UINT8: 8, TensorProto.INT8: 8, TensorProto.UINT16: 16,
        TensorProto.INT16: 16, TensorProto.INT32: 32, TensorProto.INT64: 64, TensorProto.BOOL: 8,
        TensorProto.FLOAT16: 16, TensorProto.DOUBLE: 64, TensorProto.UINT32: 32, TensorProto.UINT64: 64,
        TensorProto.COMPLEX64: 64, TensorProto.COMPLEX128: 128, TensorProto.BFLOAT16: 16, 17: 8, 18: 8, 19: 8,
        20: 8, 21: 4, 22: 4, 23: 4, 24: 8, 25: 2, 26: 2}


def width_bytes(n, bits):
    return (n * bits + 7) // 8


def tensor_bytes(t):
    """Bytes of a TensorProto from its dims and element type; None for a type
    without a fixed width (strings)."""
    bits = BITS.get(t.data_type)
    if bits is None:
        return None
    n = 1
    for d in t.dims:
        n *= d
    return width_bytes(n, bits)


def array_bytes(a):
    """Bytes of a numpy array as ONNX stores its dtype; None for strings."""
    a = np.asarray(a)
    if a.dtype.kind in "OUS":
        return None
    return int(a.size) * a.dtype.itemsize


def node_bytes(node, size):
    """(read, written) of one node, size[name] the bytes of each value."""
    ins = [x for x in node.input if x]
    outs = [x for x in node.output if x]
    if not node.domain or node.domain == "ai.onnx":
        if node.op_type in VIEW_OPS:
            return 0, 0
        if node.op_type in META_OPS:
            return 0, sum(size[x] for x in outs)
    return sum(size[x] for x in ins), sum(size[x] for x in outs)


def run_all(model, feeds):
    """(model, {name: numpy array}) for every value of the model (a path or
    a ModelProto, left as it is) when ONNX Runtime runs it on feeds: the
    feeds, the initializers and every node output (each made a graph output;
    graph optimizations off, so that every node runs as written)."""
    import onnxruntime as ort
    if isinstance(model, onnx.ModelProto):
        m = onnx.ModelProto()
        m.CopyFrom(model)
    else:
        m = onnx.load(model)
    have = {o.name for o in m.graph.output}
    n_outputs = len(m.graph.output)
    for n in m.graph.node:
        for x in n.output:
            if x and x not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=x))
                have.add(x)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 4  # a binding it cannot run is the caller's to count, not a log line
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "all_outputs.onnx")
        onnx.save(m, p)
        sess = ort.InferenceSession(p, so, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        values = dict(zip(names, sess.run(names, feeds)))
    values.update(feeds)
    values.update({t.name: numpy_helper.to_array(t) for t in m.graph.initializer})
    del m.graph.output[n_outputs:]  # the model as given: the other outputs were only added for the run
    return m, values


def model_bytes(path, feeds):
    """(bytes read, bytes written, {node name: (read, written)}) of every node
    of the model at path when ONNX Runtime runs it on feeds (a dict of numpy
    arrays)."""
    m, values = run_all(path, feeds)
    size = {k: array_bytes(v) for k, v in values.items()}
    size.update({t.name: tensor_bytes(t) for t in m.graph.initializer})  # sub-byte widths as stored
    per = {n.name: node_bytes(n, size) for n in m.graph.node}
    return sum(r for r, _ in per.values()), sum(w for _, w in per.values()), per


# ---- MACs and FLOPs by docs/COSTS.md's formulas, over ONNX Runtime's shapes ------------------------------------

# no arithmetic: movement, views, shapes, casts
NO_FLOPS = {"Transpose", "Cast", "Identity", "Pad", "Reshape", "Shape", "Concat", "Unsqueeze", "Squeeze", "Flatten",
            "Constant", "ConstantOfShape", "Gather", "Slice", "Expand"}
# FLOPs per output element (docs/COSTS.md, "FLOPs")
ELEMENTWISE = {"Add": 1, "Sub": 1, "Mul": 1, "Div": 1, "Pow": 1, "Equal": 1, "Less": 1, "Greater": 1, "Relu": 1,
               "Abs": 1, "Neg": 1, "Exp": 1, "Log": 1, "Sqrt": 1, "Erf": 1, "Tanh": 1, "Reciprocal": 1, "Floor": 1,
               "Ceil": 1, "LeakyRelu": 2, "Clip": 2, "Sigmoid": 4, "HardSigmoid": 4, "HardSwish": 5, "Where": 1,
               "BatchNormalization": 2, "Softmax": 5,
               "Acos": 1, "Acosh": 1, "Asin": 1, "Asinh": 1, "Atan": 1, "Atanh": 1, "Cos": 1, "Cosh": 1, "Sin": 1,
               "Sinh": 1, "Tan": 1, "Sign": 1, "Round": 1, "BitwiseNot": 1, "Not": 1, "IsNaN": 1, "Softplus": 3,
               "Softsign": 3, "Shrink": 3, "Elu": 4, "Selu": 5, "Mish": 5, "Celu": 7, "PRelu": 2, "And": 1, "Or": 1,
               "Xor": 1, "LessOrEqual": 1, "GreaterOrEqual": 1, "BitShift": 1, "BitwiseAnd": 1, "BitwiseOr": 1,
               "BitwiseXor": 1, "Mod": 1, "QuantizeLinear": 2, "DequantizeLinear": 2}
# FLOPs per element of the input (ReduceMean, GlobalAveragePool), or per
# element folded away (the others: numel(X) - numel(Y))
REDUCE_ALL = {"ReduceMean", "GlobalAveragePool"}
REDUCE_FOLDED = {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "GlobalMaxPool"}


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def node_macs_flops(n, v):
    """(MACs, FLOPs) of node n, v the values by name (numpy arrays); KeyError
    for an op this table has no formula for."""
    y = v[n.output[0]]
    at = attrs(n)
    ms = n.domain == "com.microsoft"
    if not n.domain or n.domain == "ai.onnx":
        if n.op_type == "MatMul":
            mm = y.size * v[n.input[0]].shape[-1]
            return mm, 2 * mm
        if n.op_type == "Gemm":  # 2 x MACs, then M.N for alpha != 1, for C, and for beta != 1 with C
            a = v[n.input[0]]
            mm = y.size * (a.shape[0] if at.get("transA", 0) else a.shape[1])
            has_c = len(n.input) > 2 and bool(n.input[2])
            extra = (at.get("alpha", 1.0) != 1.0) + has_c + (has_c and at.get("beta", 1.0) != 1.0)
            return mm, 2 * mm + extra * y.size
        if n.op_type == "Conv":  # numel(Y) x C_in/groups x kernel; one add per output for a bias
            mm = y.size * v[n.input[1]][0].size
            return mm, 2 * mm + (y.size if len(n.input) > 2 and n.input[2] else 0)
        if n.op_type in ELEMENTWISE:
            return 0, ELEMENTWISE[n.op_type] * y.size
        if n.op_type == "MaxPool":  # comparisons per window
            return 0, y.size * (int(np.prod(at["kernel_shape"])) - 1)
        if n.op_type == "AveragePool":  # adds and one divide per window
            return 0, y.size * int(np.prod(at["kernel_shape"]))
        if n.op_type in REDUCE_ALL:
            return 0, v[n.input[0]].size
        if n.op_type in REDUCE_FOLDED:  # none when nothing is folded (an empty set fills Y with the identity)
            return 0, max(0, v[n.input[0]].size - y.size)
        if n.op_type == "LogSoftmax":  # softmax's 5 per element and one log per row (one axis, opset 13 on)
            axis = at.get("axis", -1)
            return 0, 5 * y.size + y.size // y.shape[axis]
        if n.op_type in NO_FLOPS:
            return 0, 0
        x = v[n.input[0]] if n.input and n.input[0] else None
        if n.op_type == "Gelu":  # erf form 5, tanh form 8 per element
            return 0, (8 if at.get("approximate", b"none") in (b"tanh", "tanh") else 5) * y.size
        if n.op_type in ("Max", "Min", "Sum"):  # k inputs: k - 1 per output element
            return 0, (len([i for i in n.input if i]) - 1) * y.size
        if n.op_type == "Mean":
            return 0, len([i for i in n.input if i]) * y.size
        if n.op_type == "IsInf":  # one comparison per detected sign
            return 0, (at.get("detect_positive", 1) + at.get("detect_negative", 1)) * y.size
        if n.op_type in ("LayerNormalization", "RMSNormalization"):  # rows = prod(X.shape[:axis])
            axis = at.get("axis", -1) % x.ndim
            rows = int(np.prod(x.shape[:axis]))
            if n.op_type == "RMSNormalization":
                return 0, 4 * x.size + 2 * rows
            return 0, 6 * x.size + 3 * rows + (x.size if len(n.input) > 2 and n.input[2] else 0)
        if n.op_type == "GroupNormalization":
            return 0, 7 * x.size + 2 * x.shape[0] * at["num_groups"]
        if n.op_type == "InstanceNormalization":
            return 0, 7 * x.size + 2 * x.shape[0] * x.shape[1]
        if n.op_type == "Hardmax":  # n - rows, one axis (opset 13 on)
            return 0, x.size - x.size // x.shape[at.get("axis", -1)]
        if n.op_type == "CumSum":  # rows (L - 1), (L - 2) exclusive
            L = x.shape[int(v[n.input[1]])]
            rows = x.size // L
            return 0, rows * max(0, L - (2 if at.get("exclusive", 0) else 1))
        if n.op_type == "LpNormalization":  # p = 2: 3n; p = 1: 3n - rows
            rows = x.size // x.shape[at.get("axis", -1)]
            return 0, 3 * x.size - (rows if at.get("p", 2) == 1 else 0)
    if ms and n.op_type == "Attention":  # fused QKV projection, then QK^T and AV over all heads, past included
        x, w = v[n.input[0]], v[n.input[1]]
        b, s, d_in = x.shape
        sizes = at.get("qkv_hidden_sizes") or [w.shape[1] // 3] * 3
        past = v[n.input[4]] if len(n.input) > 4 and n.input[4] else None
        t = s + (past.shape[3] if past is not None else 0)
        heads = at["num_heads"]
        mm = b * s * d_in * sum(sizes) + b * s * t * (sizes[0] + sizes[2])
        bias = b * s * sum(sizes) if len(n.input) > 2 and n.input[2] else 0
        return mm, 2 * mm + 6 * b * heads * s * t + bias
    if ms and n.op_type == "SkipLayerNormalization":  # skip add, bias add, LayerNorm with its shift
        rows = y.size // y.shape[-1]
        biased = len(n.input) > 4 and bool(n.input[4])
        return 0, y.size + (y.size if biased else 0) + 7 * y.size + 3 * rows
    if ms and n.op_type == "EmbedLayerNormalization":  # word + position (+ segment) embeddings, then LayerNorm
        rows = y.size // y.shape[-1]
        adds = 2 if len(n.input) > 1 and n.input[1] and len(n.input) > 4 and n.input[4] else 1
        return 0, adds * y.size + 7 * y.size + 3 * rows
    if ms and n.op_type in ("DynamicQuantizeMatMul", "MatMulIntegerToFloat"):
        # 2 x MACs; A quantized first (4 per element + 8: DynamicQuantizeLinear) and its zero point
        # subtracted per element (always where A is quantized here, else where given), B's where given;
        # one multiply per output to scale the integer sums, one add per output for a bias
        dyn = n.op_type == "DynamicQuantizeMatMul"
        given = [bool(x) for x in n.input] + [False] * 7
        a, b = v[n.input[0]], v[n.input[1]]
        mm = y.size * a.shape[-1]
        zp_a = (4 * a.size + 8 + a.size) if dyn else (a.size if given[4] else 0)
        zp_b = b.size if given[3 if dyn else 5] else 0
        return mm, 2 * mm + zp_a + zp_b + y.size * (2 if given[4 if dyn else 6] else 1)
    if ms and n.op_type == "FastGelu":
        return 0, 9 * y.size + (y.size if len(n.input) > 1 and n.input[1] else 0)
    raise KeyError(f"no formula here for {n.domain + '::' if n.domain else ''}{n.op_type}")


def hand_flops(path, feeds):
    """(MACs, FLOPs) of the model at path by docs/COSTS.md's formulas, over
    the values ONNX Runtime's run on feeds gives."""
    m, v = run_all(path, feeds)
    macs = flops = 0
    for n in m.graph.node:
        a, f = node_macs_flops(n, v)
        macs, flops = macs + a, flops + f
    return macs, flops


def feeds_for(path, dims, seed=0):
    """Inputs for every graph input of the model at path, its symbolic dims
    bound by dims (name -> size): floats random, integers zero (a valid
    index, an attention mask of zeros)."""
    rng = np.random.default_rng(seed)
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    feeds = {}
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else dims[d.dim_param] for d in tt.shape.dim]
        dt = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        feeds[vi.name] = (rng.standard_normal(shape).astype(dt) if dt.kind == "f" else np.zeros(shape, dt))
    return feeds


def hand_totals(path, dims):
    """The model's totals at binding dims, none from onnxcost: MACs and FLOPs
    by the formulas above (None for a model with an op they lack), the bytes
    of every node output (activation_bytes), of the graph inputs
    (input_bytes; each None where a tensor holds strings), and the float initializers' elements and bytes (params,
    params_bytes), all over what ONNX Runtime computes."""
    feeds = feeds_for(path, dims)
    m, v = run_all(path, feeds)
    def total(sizes):  # None when a tensor holds strings (no fixed bytes)
        sizes = list(sizes)
        return None if None in sizes else sum(sizes)

    out = {"input_bytes": total(array_bytes(a) for a in feeds.values())}
    floats = [numpy_helper.to_array(t) for t in m.graph.initializer]
    floats = [a for a in floats if a.dtype.kind == "f"]
    out["params"], out["params_bytes"] = sum(a.size for a in floats), sum(a.nbytes for a in floats)
    out["activation_bytes"] = total(array_bytes(v[x]) for n in m.graph.node for x in n.output if x)
    try:
        mf = [node_macs_flops(n, v) for n in m.graph.node]
        out["macs"], out["flops"] = sum(a for a, _ in mf), sum(f for _, f in mf)
    except KeyError:
        out["macs"] = out["flops"] = None
    return out
