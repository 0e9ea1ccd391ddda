"""Bytes each node of a model reads and writes, from the tensors ONNX Runtime
produces when it runs the model: an oracle for onnxcost's bytes that does not
ask onnxcost.

The convention is docs/COSTS.md's ("Bytes"): a node reads every input and
writes every output, each in its own element width (sub-byte types rounded up
per tensor); views read and write nothing; a few ops read only their input's
metadata. Sizes come from the arrays ONNX Runtime returns (every node output
made a graph output, graph optimizations off so that every node runs as
written), from the feeds and from the initializers.

    from ort_bytes import model_bytes
    read, written, per_node = model_bytes("m.onnx", {"x": x})
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


def run_all(path, feeds):
    """(model, {name: numpy array}) for every value of the model at path when
    ONNX Runtime runs it on feeds: the feeds, the initializers and every node
    output (each made a graph output; graph optimizations off, so that every
    node runs as written)."""
    import onnxruntime as ort
    m = onnx.load(path)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        for x in n.output:
            if x and x not in have:
                m.graph.output.append(onnx.ValueInfoProto(name=x))
                have.add(x)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "all_outputs.onnx")
        onnx.save(m, p)
        sess = ort.InferenceSession(p, so, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        values = dict(zip(names, sess.run(names, feeds)))
    values.update(feeds)
    values.update({t.name: numpy_helper.to_array(t) for t in m.graph.initializer})
    return onnx.load(path), values


def model_bytes(path, feeds):
    """(bytes read, bytes written, {node name: (read, written)}) of every node
    of the model at path when ONNX Runtime runs it on feeds (a dict of numpy
    arrays)."""
    m, values = run_all(path, feeds)
    size = {k: array_bytes(v) for k, v in values.items()}
    size.update({t.name: tensor_bytes(t) for t in m.graph.initializer})  # sub-byte widths as stored
    per = {n.name: node_bytes(n, size) for n in m.graph.node}
    return sum(r for r, _ in per.values()), sum(w for _, w in per.values()), per
