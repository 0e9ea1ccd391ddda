#!/usr/bin/env bash
# device.sh KIT_DIR [quick|check|cross|all] — on a GPU machine, from the
# repository root: run the replay from the kit that kit.sh gathered, against
# the machine's own CUDA, cuDNN, cuBLAS and CUPTI, and leave everything it
# printed: its text files in $OUT when set (the device tool brings back what
# is there even when the command runs out of time, at most 8 files), else in
# /tmp/onnxcost-gpu, where the JSON files go too (results.tgz in $OUT at the
# end). docs/REPLAY.md, "On a GPU machine".
#   check: nvidia-smi, a first replay (MNIST), tests/gpu/replay_check.sh
#   cross: tests/gpu/crosscheck.py (ncu, PyTorch end to end)
set -u
kit=$(cd "$1" && pwd)
what=${2:-all}
work=/tmp/onnxcost-gpu
out=${OUT:-$work}
mkdir -p "$work" "$out"
dirs=""
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 libcudnn.so.9; do
    p=$(find /usr/local/cuda*/ /usr/lib /opt /usr/local/lib -name "$lib" 2>/dev/null | head -1)
    if [ -z "$p" ]; then
        echo "device.sh: $lib not found on this machine" | tee -a "$out/env.txt"
        continue
    fi
    d=$(dirname "$p")
    case ":$dirs:" in *":$d:"*) ;; *) dirs=$dirs:$d ;; esac
done
export LD_LIBRARY_PATH=$kit$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ONNXCOST_GPU_PLUGIN=$kit/libonnxcost_gpu.so
{
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
    ldd "$ONNXCOST_GPU_PLUGIN"
    command -v ncu && ncu --version | tail -1
} >>"$out/env.txt" 2>&1
bin=$kit/onnxcost
if [ "$what" = check ] || [ "$what" = all ] || [ "$what" = quick ]; then
    "$bin" replay fixtures/mnist/examples_net.onnx --reps 20 2>&1 | tee "$out/mnist.txt"
    "$bin" replay fixtures/mnist/examples_net.onnx --reps 20 --format json -o "$work/mnist.json" 2>&1
    [ "$what" = quick ] || bash tests/gpu/replay_check.sh "$bin" . python3 2>&1 | tee "$out/replay_check.txt"
fi
if [ "$what" = cross ] || [ "$what" = all ] || [ "$what" = quick ]; then
    PYTHONUNBUFFERED=1 python3 tests/gpu/crosscheck.py --onnxcost "$bin" --src . --out "$work/cross" \
        --summary "$out/summary.md" \
        $([ "$what" = quick ] && echo --quick) 2>&1 | tail -200
fi
if [ -n "${OUT:-}" ]; then
    tar -C "$work" -czf "$OUT/results.tgz" . 2>/dev/null
fi
