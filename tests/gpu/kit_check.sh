#!/usr/bin/env bash
# gpu.kit — the GPU session kit rehearsed here on ocsim (no GPU): kit.sh
# gathers .gpukit, device.sh runs its steps against the simulated plugin and
# leaves what the device tool brings back: a line per step in progress.log
# as it ends, at most 8 files in $OUT, results.tgz with the data of every
# step that finished, also when a step runs out of time (it is TIMEOUT and
# the next step still runs) or fails (FAIL, the next still runs), and steps
# past the budget listed as not run. Simulated figures only: it tests the
# kit, never the GPU. Skipped (77) without the simulated plugin or onnx.
set -u
build=$1
src=$2
py=${3:-python3}
[ -f "$build/libonnxcost_gpu_sim.so" ] || { echo "skipped: no simulated plugin in $build"; exit 77; }
"$py" -c "import onnx" 2>/dev/null || { echo "skipped: $py has no onnx"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
bash "$src/tests/gpu/kit.sh" "$build" "$tmp/kit" >/dev/null
check kit_files "[ -x $tmp/kit/onnxcost ] && [ -f $tmp/kit/libonnxcost_gpu.so ]"
kit_kib=$(du -sk "$tmp/kit" | cut -f1)
check kit_small "[ $kit_kib -lt 32768 ]"
pybin=$(dirname "$(command -v "$py")")
run() { # OUT DEVICE_BUDGET_S DEVICE_STEP_TIMEOUT_S steps...
    local o=$1 b=$2 t=$3
    shift 3
    mkdir -p "$o"
    (cd "$src" && PATH=$pybin:$PATH ONNXCOST_GPU_PLUGIN=$build/libonnxcost_gpu_sim.so OUT=$o DEVICE_BUDGET_S=$b \
        DEVICE_STEP_TIMEOUT_S=$t DEVICE_WORK=$o.work HOME=$tmp bash tests/gpu/device.sh "$tmp/kit" "$@" >/dev/null 2>&1)
}
# a full pass of the steps that need no CUDA in torch and no ncu
run "$tmp/a" 300 300 env gemm bogus table collect
check progress_lines "grep -q '^.* env: ok in' $tmp/a/progress.log && grep -q ' gemm: ok in' $tmp/a/progress.log &&
    grep -q ' bogus: FAIL (exit 2)' $tmp/a/progress.log && grep -q ' table: ok in' $tmp/a/progress.log &&
    grep -q ' collect: ok in' $tmp/a/progress.log && grep -q ' done in ' $tmp/a/progress.log"
check out_files "[ \$(ls $tmp/a | wc -l) -le 8 ] && [ -f $tmp/a/summary.md ] && [ -f $tmp/a/env.txt ] &&
    [ -f $tmp/a/steps.log ] && [ -f $tmp/a/results.tgz ]"
check env_recorded "grep -q 'uname -r' $tmp/a/env.txt && grep -q 'GPU replay: fixtures/mnist/examples_net.onnx' $tmp/a/env.txt"
check gemm_figures "grep -q 'counted: FP32 1.37439e+11 (1.00000 of 2\*4096^3)' $tmp/a/summary.md"
tar -tzf "$tmp/a/results.tgz" >"$tmp/a.list"
check tgz_data "grep -q 'gemm4096_fp32.json' $tmp/a.list && grep -q 'results/h100-gemm4096-fp32.json' $tmp/a.list &&
    ! grep -q '\.onnx\$' $tmp/a.list"
check summary_head "tar -xzOf $tmp/a/results.tgz ./results/h100.md | grep -q '^| cuDNN / cuBLAS / CUPTI | 9\.' &&
    tar -xzOf $tmp/a/results.tgz ./results/h100.md | head -1 | grep -q '^# onnxcost replay on ocsim H100'"
# a step that runs out of time is TIMEOUT, what finished before it still comes
# back, the next step runs; past the budget, steps are listed as not run
run "$tmp/b" 300 3 gemm models table
check timeout_line "grep -q ' models: TIMEOUT in' $tmp/b/progress.log && grep -q ' table: ok in' $tmp/b/progress.log"
check timeout_keeps "tar -tzf $tmp/b/results.tgz | grep -q gemm4096_fp32.json"
# the device's kernel tables (probe --gpu), their spec file in the data
PROBE_ARGS="--grid quick --math fp32 --like h100" run "$tmp/d" 300 300 probe
check probe_step "grep -q ' probe: ok in' $tmp/d/progress.log &&
    tar -xzOf $tmp/d/results.tgz ./results/probe-tables.json | grep -q '\"kernel_tables\"' &&
    tar -xzOf $tmp/d/results.tgz ./results/probe-tables.txt | grep -q '^conv_depthwise  *f32  *fp32'"
# one precision at a time (probe-MATH), with the progress lines a log keeps
PROBE_ARGS="--grid quick --like h100" run "$tmp/e" 300 300 probe-fp16
check probe_math_step "grep -q ' probe-fp16: ok in' $tmp/e/progress.log &&
    tar -xzOf $tmp/e/results.tgz ./results/probe-fp16.json | grep -q '\"kernel_tables\"' &&
    grep -q '^onnxcost: probe --gpu (fp16) [0-9]*/[0-9]* at [0-9]* s' $tmp/e/steps.log"
run "$tmp/c" 10 10 gemm table
check not_run "grep -q ' gemm: not run' $tmp/c/progress.log && grep -q ' table: not run' $tmp/c/progress.log"
[ $fail = 0 ] && echo "gpu.kit: ok"
exit $fail
