#!/usr/bin/env bash
# device.sh KIT_DIR [STEP ...] — every GPU check of docs/REPLAY.md ("On a GPU
# machine") in one run, from the repository root of a GPU machine, with the
# kit that kit.sh gathered and the machine's own CUDA, cuDNN, cuBLAS and CUPTI.
#
# Steps, in this order by default (crosscheck.py says what each does):
#   env  models  gemm  replay  convnets  torch  calibrate  table  collect  ncu  collect
# and, named only: zoo (tests/gpu/zoo.py: the replay on every torchvision
# classification model, GPT-2 and DistilBERT; ZOO_ARGS passes it options,
# e.g. ZOO_ARGS="--configs b32-tf32,b32-fp16"), stopping at the budget;
# probe (onnxcost probe --gpu: the device's kernel tables, into
# results/probe-tables.json and results/probe-tables.txt; PROBE_ARGS passes
# it options, e.g. PROBE_ARGS="--math tf32,fp16"); probe-MATH (the same at
# one precision, into results/probe-MATH.json and .txt, so that a run cut
# short keeps the precisions it finished; PROBE_TIMEOUT_S caps each, and a
# sweep node stuck PROBE_NODE_TIMEOUT_S seconds, default 30, is killed and listed);
# torch-sweep (tests/gpu/torch_sweep.py: the sweep timed with PyTorch's
# kernels, results/torch-sweep/ and the tables built from them,
# results/torch-sweep-tables.json; TORCH_SWEEP_ARGS passes it options);
# torch-e2e (tests/gpu/torch_e2e.py: PyTorch's end-to-end times, eager and
# CUDA graph, into results/torch-e2e.jsonl, ending TORCH_E2E_RESERVE_S
# seconds before the step's time is up; TORCH_E2E_ARGS passes it options); and
# NAME.sh, a script carried in KIT_DIR, run with the same environment
# Each step runs alone under `timeout`, its result line goes to progress.log at
# once, and a failed or timed-out step never stops the next. The whole run
# keeps to DEVICE_BUDGET_S seconds (default 540, inside the device tool's
# 600 s per call); a step that would start too late is listed as not run.
# DEVICE_STEP_TIMEOUT_S caps each step (default: what is left of the budget);
# DEVICE_WORK is the data folder (default /tmp/onnxcost-gpu).
#
# What comes back: at most 8 files in $OUT (else /tmp/onnxcost-gpu/out):
#   progress.log  one line per step: ok / FAIL / TIMEOUT / not run, seconds
#   env.txt       machine, driver, clocks, libraries, ncu, profiling permission
#   summary.md    every figure, as each step finds it
#   steps.log     everything the steps printed
#   results.tgz   the data (replay JSON, ncu CSV, torch.json, results/ for
#                 docs/results), re-packed after every step
# A later call that runs more steps picks up an earlier call's data when
# KIT_DIR/prev.tgz is that call's results.tgz.
set -u
kit=$(cd "$1" && pwd)
shift
steps=${*:-env models gemm replay convnets torch calibrate table collect ncu collect}
start=$(date +%s)
deadline=$((start + ${DEVICE_BUDGET_S:-540}))
work=${DEVICE_WORK:-/tmp/onnxcost-gpu}
out=${OUT:-$work/out}
mkdir -p "$work" "$out"
[ -f "$kit/prev.tgz" ] && tar -C "$work" -xzf "$kit/prev.tgz" 2>/dev/null
progress=$out/progress.log
: >"$progress"
note() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$progress"; }
pack() { # results.tgz: everything but the exported models, replaced whole.
    # GNU tar exits 1 when a file changed while it read it, and the archive is
    # still whole. Call 6 of the H200 run brought back the previous call's
    # torch.json though its torch step had ended; tar's errors then went to
    # /dev/null, so they now go to steps.log
    tar -C "$work" --exclude=./out --exclude='*.onnx' --exclude='*.tmp' --exclude=results.tgz.tmp \
        -czf "$work/results.tgz.tmp" . 2>>"$out/steps.log"
    [ $? -le 1 ] && mv "$work/results.tgz.tmp" "$out/results.tgz"
}

# the machine's own CUDA libraries, found where images put them (the system
# CUDA, PyTorch's nvidia-* wheels)
dirs=""
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcupti.so.13 libcudnn.so.9; do
    p=$(find /usr/local/cuda*/ /usr/lib /opt /usr/local/lib -name "$lib" 2>/dev/null | head -1)
    if [ -z "$p" ]; then
        p=$(python3 -c "import nvidia, os, glob; r=[g for d in nvidia.__path__ for g in glob.glob(os.path.join(d, '*', 'lib', '$lib'))]; print(r[0] if r else '')" 2>/dev/null)
    fi
    if [ -z "$p" ]; then
        note "device.sh: $lib not found on this machine"
        continue
    fi
    d=$(dirname "$p")
    case ":$dirs:" in *":$d:"*) ;; *) dirs=$dirs:$d ;; esac
done
# PyTorch brings its own cuDNN and refuses an older one found first: its steps
# run with the kit and the machine's own path only (crosscheck.py torch_env)
export ONNXCOST_TORCH_LD_LIBRARY_PATH=$kit${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH=$kit$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ONNXCOST_GPU_PLUGIN=${ONNXCOST_GPU_PLUGIN:-$kit/libonnxcost_gpu.so}
export PYTHONUNBUFFERED=1
# a progress line every 5 s naming the next node: a step cut short by its
# timeout says where it was (the H200 call of 2026-11-27 lost three probes
# at 140 s each with no word of where)
export ONNXCOST_PROGRESS=lines
bin=$kit/onnxcost
command -v ncu >/dev/null || for f in $(find /usr/local /opt -maxdepth 6 -name ncu -type f 2>/dev/null | head -1); do
    export PATH=$PATH:$(dirname "$f")
done
export bin dirs

env_step() {
    echo "date: $(date -u)"
    echo "uname -r: $(uname -r)   runtime: $(cat /proc/1/cgroup 2>/dev/null | head -1)"
    echo "user: $(id)"
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,persistence_mode,compute_mode,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,clocks.applications.memory,power.limit,temperature.gpu --format=csv
    nvidia-smi -q -d PERFORMANCE,CLOCK 2>&1 | head -60
    echo "profiling restricted to admins: $(grep -h RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo unknown)"
    for l in $(echo "$dirs" | tr ':' ' '); do ls "$l" | grep -E '^lib(cudart|cublas|cublasLt|cupti|cudnn)\.so\.[0-9]+\.' ; done
    ldd "$ONNXCOST_GPU_PLUGIN"
    command -v ncu && ncu --version | tail -1
    LD_LIBRARY_PATH=$ONNXCOST_TORCH_LD_LIBRARY_PATH python3 -c "import torch, torchvision, onnx; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cudnn', torch.backends.cudnn.version(), 'torchvision', torchvision.__version__, 'onnx', onnx.__version__); p = torch.cuda.get_device_properties(0); print(p.name, p.multi_processor_count, 'SMs', p.total_memory // 2**20, 'MiB', getattr(p, 'L2_cache_size', 0) // 2**20, 'MiB L2')"
    "$bin" --version
    "$bin" replay fixtures/mnist/examples_net.onnx --reps 20
}

for s in $steps; do
    now=$(date +%s)
    left=$((deadline - now))
    if [ "$left" -lt 20 ]; then
        note "$s: not run (the run's budget is spent; run it in a later call)"
        continue
    fi
    t0=$now
    [ -n "${DEVICE_STEP_TIMEOUT_S:-}" ] && [ "$DEVICE_STEP_TIMEOUT_S" -lt "$left" ] && left=$DEVICE_STEP_TIMEOUT_S
    echo "=== $s ($(date -u +%H:%M:%S), ${left} s for it)" >>"$out/steps.log"
    if [ "$s" = env ]; then
        export -f env_step
        timeout -k 5 "$left" bash -c env_step >"$out/env.txt" 2>&1
    elif [ "${s%.sh}" != "$s" ]; then
        # a script carried in the kit (a one-off check), with this environment
        timeout -k 5 "$left" bash "$kit/$s" >>"$out/steps.log" 2>&1
    elif [ "$s" = probe ]; then
        mkdir -p "$work/results"
        # shellcheck disable=SC2086 # PROBE_ARGS is a list of options
        timeout -k 5 "$left" "$bin" probe --gpu ${PROBE_ARGS:-} -o "$work/results/probe-tables.json" \
            --report "$work/results/probe-tables.txt" >>"$out/steps.log" 2>&1
    elif [ "${s#probe-}" != "$s" ]; then
        mkdir -p "$work/results"
        [ -n "${PROBE_TIMEOUT_S:-}" ] && [ "$PROBE_TIMEOUT_S" -lt "$left" ] && left=$PROBE_TIMEOUT_S
        # shellcheck disable=SC2086 # PROBE_ARGS is a list of options
        timeout -k 5 "$left" "$bin" probe --gpu --math "${s#probe-}" --node-timeout "${PROBE_NODE_TIMEOUT_S:-30}" ${PROBE_ARGS:-} \
            -o "$work/results/$s.json" --report "$work/results/$s.txt" >>"$out/steps.log" 2>&1
    elif [ "$s" = torch-sweep ]; then
        mkdir -p "$work/results/torch-sweep"
        "$bin" probe --gpu --sweep-model "$work/torch-sweep.onnx" >>"$out/steps.log" 2>&1
        # shellcheck disable=SC2086 # TORCH_SWEEP_ARGS is a list of options
        LD_LIBRARY_PATH=$ONNXCOST_TORCH_LD_LIBRARY_PATH timeout -k 5 "$left" python3 tests/gpu/torch_sweep.py \
            --onnxcost "$bin" --sweep "$work/torch-sweep.onnx" --out "$work/results/torch-sweep" \
            --deadline $((t0 + left - 30)) --tables "$work/results/torch-sweep-tables.json" ${TORCH_SWEEP_ARGS:-} \
            >>"$out/steps.log" 2>&1
    elif [ "$s" = torch-e2e ]; then
        mkdir -p "$work/results"
        # shellcheck disable=SC2086 # TORCH_E2E_ARGS is a list of options
        LD_LIBRARY_PATH=$ONNXCOST_TORCH_LD_LIBRARY_PATH timeout -k 5 "$left" python3 tests/gpu/torch_e2e.py \
            --out "$work/results/torch-e2e.jsonl" --deadline $((t0 + left - 20 - ${TORCH_E2E_RESERVE_S:-0})) \
            ${TORCH_E2E_ARGS:-} >>"$out/steps.log" 2>&1
    elif [ "$s" = zoo ]; then
        # shellcheck disable=SC2086 # ZOO_ARGS is a list of options
        timeout -k 5 "$left" python3 tests/gpu/zoo.py --onnxcost "$bin" --src . --work "$work" \
            --deadline $((t0 + left - 15)) ${ZOO_ARGS:-} >>"$out/steps.log" 2>&1
        cp "$work/zoo.md" "$out/zoo.md" 2>/dev/null
    else
        timeout -k 5 "$left" python3 tests/gpu/crosscheck.py "$s" --onnxcost "$bin" --src . --work "$work" \
            --summary "$out/summary.md" >>"$out/steps.log" 2>&1
    fi
    rc=$?
    case $rc in
    0) what=ok ;;
    124 | 137) what=TIMEOUT ;;
    *) what="FAIL (exit $rc)" ;;
    esac
    note "$s: $what in $(($(date +%s) - t0)) s"
    pack
done
note "done in $(($(date +%s) - start)) s"
