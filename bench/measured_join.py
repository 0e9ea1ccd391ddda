#!/usr/bin/env python3
"""--measured against a profile of many nodes the model lacks (issue 42, D:
the join was quadratic in them: 40,000 took 4.9 s, 400,000 ran past 14 min).

Writes DIR/model.onnx (100 unnamed Relu nodes, as an exporter that names
nothing writes them) and DIR/profile_N.json for each N: ONNX Runtime's
format, every Relu as Relu_<index> plus N kernels named Gemm_<i> the model
does not have. Time them with farm-bench:

    python3 bench/measured_join.py /tmp/mj 40000 400000
    farm-bench -- build/onnxcost /tmp/mj/model.onnx --measured /tmp/mj/profile_400000.json -q
"""
import json
import os
import sys

import onnx
from onnx import TensorProto, helper

out, sizes = sys.argv[1], [int(x) for x in sys.argv[2:]] or [40000]
os.makedirs(out, exist_ok=True)
K = 100
nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(K)]
g = helper.make_graph(nodes, "relus", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1, 64])],
                      [helper.make_tensor_value_info(f"t{K}", TensorProto.FLOAT, [1, 64])])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), os.path.join(out, "model.onnx"))
for n in sizes:
    ev = [{"cat": "Session", "pid": 1, "tid": 1, "dur": 100, "ts": 0, "ph": "X", "name": "model_run", "args": {}}]
    for i in range(K):
        ev.append({"cat": "Node", "pid": 1, "tid": 1, "dur": 2, "ts": i, "ph": "X", "name": f"Relu_{i}_kernel_time",
                   "args": {"op_name": "Relu", "provider": "CPUExecutionProvider"}})
    for i in range(n):
        ev.append({"cat": "Node", "pid": 1, "tid": 1, "dur": 1, "ts": K + i, "ph": "X", "name": f"Gemm_{i}_kernel_time",
                   "args": {"op_name": "Gemm", "provider": "CPUExecutionProvider"}})
    with open(os.path.join(out, f"profile_{n}.json"), "w") as f:
        json.dump(ev, f)
print(f"wrote {out}/model.onnx and profiles of {sizes} extra nodes")
