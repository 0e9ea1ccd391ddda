#!/usr/bin/env bash
# gpu.replay — `onnxcost replay` on a GPU, end to end (docs/REPLAY.md).
# Without a GPU (or without the plugin) this exits 77: ctest reports the test
# as skipped, not passed; with both, a replay that cannot start fails. With one, it replays the MNIST net, ResNet-50
# (light_resnet50 from the corpus) and, when the Python oracles can export
# it, GPT-2 at batch 1 x 128, and checks that every node is measured, an
# alias, or listed with a reason, and that each JSON result reads back
# through `onnxcost merge`.
set -u
bin=$1
src=$2
py=${3:-python3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mnist=$src/fixtures/mnist/examples_net.onnx
err=$("$bin" replay "$mnist" --reps 10 --warmup 5 --format json -o "$out/mnist.json" 2>&1 >/dev/null)
rc=$?
# A host with a GPU (nvidia-smi lists one) and a plugin that exists must
# replay: a plugin that cannot load, or a GPU the plugin cannot use, is a
# failure there, never a skip.
gpu_listed() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
plugin=${ONNXCOST_GPU_PLUGIN:-$(dirname "$bin")/libonnxcost_gpu.so}
if [ $rc -ne 0 ]; then
    case "$err" in
    *"no usable NVIDIA GPU"*|*"no GPU replay plugin"*|*"cannot load the GPU replay plugin"*)
        if gpu_listed && [ -e "$plugin" ]; then
            echo "FAIL: this host lists a GPU and the plugin $plugin exists, yet: $err"
            exit 1
        fi
        echo "skipped: $err"
        exit 77 ;;
    esac
    echo "FAIL: replay of $mnist exited $rc: $err"
    exit 1
fi
check() { # every node measured, alias, or skipped/failed with a reason
    "$py" - "$1" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "onnxcost-replay/1", doc["schema"]
bad = [n["name"] for n in doc["nodes"]
       if n["status"] not in ("measured", "alias") and not n.get("reason")]
assert not bad, f"nodes without result or reason: {bad[:5]}"
meas = [n for n in doc["nodes"] if n["status"] == "measured"]
assert meas, "nothing measured"
for n in meas:
    assert n["time_ns"]["median"] > 0, n["name"]
print(f'{sys.argv[1]}: {len(meas)} measured, '
      f'{sum(n["status"] == "alias" for n in doc["nodes"])} aliases, '
      f'{sum(n["status"] in ("skipped", "failed") for n in doc["nodes"])} listed with a reason')
PY
}
check "$out/mnist.json"
resnet=$(ls "$src"/fixtures/corpus/*/*light_resnet50*.onnx | head -1)
"$bin" replay "$resnet" --reps 20 --format json -o "$out/resnet50.json" || exit 1
check "$out/resnet50.json"
if "$py" -c "import sys; sys.path.insert(0, '$src/tests/oracle'); import transformers as t; t.export('gpt2', '$out/gpt2.onnx')" \
        >/dev/null 2>&1; then
    "$bin" replay "$out/gpt2.onnx" --dim batch=1 --dim sequence=128 --reps 20 --format json -o "$out/gpt2.json" ||
        exit 1
    check "$out/gpt2.json"
else
    echo "note: GPT-2 not replayed (the torch exporter of tests/oracle/transformers.py is unavailable)"
fi
# a known GEMM: M = N = K = 4096 in strict FP32 counts 2 * 4096^3 FP32 FLOPs
# (within 1 %) when the profiler is available, and its time is reported
if "$py" - "$out/gemm.onnx" <<'PY'
import sys
from onnx import TensorProto, helper, save
g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="gemm4096")], "g",
                      [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4096, 4096]) for n in ("a", "b")],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4096, 4096])])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
then
    "$bin" replay "$out/gemm.onnx" --math fp32 --reps 20 --format json -o "$out/gemm.json" || exit 1
    "$py" - "$out/gemm.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
n = d["nodes"][0]
assert n["status"] == "measured", n
want = 2 * 4096 ** 3
t = n["time_ns"]["median"] * 1e-9
peak = d["device"]["peak_fp32_flops"]
msg = f'GEMM 4096^3 FP32 on {d["device"]["name"]}: {t * 1e3:.3f} ms, {want / t / 1e12:.2f} TFLOP/s = {100 * want / t / peak:.1f} % of the FP32 peak'
if "counters" in n:
    got = n["counters"]["fp32_flops"]
    assert abs(got - want) <= 0.01 * want, f"FP32 FLOPs {got:.6g}, want {want} within 1 %"
    msg += f', counted {got:.6g} FP32 FLOPs ({got / want:.4f} of 2*4096^3)'
else:
    msg += f' (no counters: {d["device"].get("counters_reason", "")})'
print(msg)
PY
fi
"$bin" merge "$out/mnist.json" "$out/mnist.json" >/dev/null || exit 1
echo ok
