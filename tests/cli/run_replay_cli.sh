#!/usr/bin/env bash
# cli.replay — `onnxcost replay` and `onnxcost merge` on a machine without a
# GPU (CI): the plan of each node, the one-line refusal when there is no GPU
# or no plugin, usage errors, and merge of hand-written result files
# (fixtures/replay, ratios worked out by hand below).
set -u
bin=$1
src=$2
fx=$src/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
. "$src/tests/cli/expect.sh"
M=$fx/mnist/examples_net.onnx

# the plan: 2 Conv, 3 Relu, MaxPool, 2 Gemm, LogSoftmax run; Flatten is a view
expect plan_text 0 "" -- replay "$M" --plan
expect_out plan_rows "/conv1/Conv  Conv        cudnnConvolutionForward" "/MaxPool     MaxPool     cudnnPoolingForward" \
    "/fc1/Gemm    Gemm        cublasGemmEx" "/LogSoftmax  LogSoftmax  cudnnSoftmaxForward" \
    "/Flatten     Flatten     (alias)" "10 nodes: 9 replayed, 1 aliases (no kernel), 0 not replayed (reason listed)"
# --nodes keeps the Gemms (by op type) and lists the rest with the reason
expect plan_nodes 0 "" -- replay "$M" --plan --nodes '^Gemm$'
expect_out plan_nodes_rows "left out by --nodes '^Gemm\$'" "10 nodes: 2 replayed, 0 aliases (no kernel), 8 not replayed"
expect plan_json 0 "" -- replay "$M" --plan --format json
if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "onnxcost-replay-plan/1"
calls = [n["call"] for n in d["nodes"]]
assert calls.count("cudnnConvolutionForward") == 2 and calls.count("cublasGemmEx") == 2, calls
assert d["nodes"][0]["estimate"]["flops"] == 411008, d["nodes"][0]
PY
then pass=$((pass + 1)); else echo "FAIL plan_json_fields"; fail=$((fail + 1)); fi

# no GPU here: one line naming the file, exit 2 (a machine with a GPU runs it)
"$bin" replay "$M" --reps 3 --warmup 1 >/dev/null 2>"$tmp/err"
rc=$?
lines=$(wc -l <"$tmp/err")
if [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -qE "^onnxcost: error: $M: (no usable NVIDIA GPU|this onnxcost has no GPU replay plugin)" "$tmp/err"; }; then
    pass=$((pass + 1))
else
    echo "FAIL replay_no_gpu: exit $rc, stderr: $(cat "$tmp/err")"
    fail=$((fail + 1))
fi
# where no NVIDIA kernel module is loaded, the line says there is no driver,
# not CUDA's "driver version is insufficient"
if [ "$rc" = 2 ] && [ ! -e /proc/driver/nvidia/version ] && grep -q "no usable NVIDIA GPU" "$tmp/err"; then
    if grep -q "no NVIDIA driver on this machine" "$tmp/err" && ! grep -q "insufficient" "$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL replay_no_driver: $(cat "$tmp/err")"
        fail=$((fail + 1))
    fi
fi
ONNXCOST_GPU_PLUGIN=$tmp/none.so expect no_plugin 2 \
    "onnxcost: error: $M: cannot load the GPU replay plugin: $tmp/none.so: cannot open shared object file: No such file or directory (are the CUDA, cuDNN and CUPTI libraries on LD_LIBRARY_PATH?)" \
    -- replay "$M"
echo "not a library" >"$tmp/fake.so"
ONNXCOST_GPU_PLUGIN=$tmp/fake.so "$bin" replay "$M" >/dev/null 2>"$tmp/err"
if [ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF "cannot load the GPU replay plugin: $tmp/fake.so" "$tmp/err"; then
    pass=$((pass + 1)); else echo "FAIL fake_plugin: $(cat "$tmp/err")"; fail=$((fail + 1)); fi

# usage and bad input
expect bad_math 2 "onnxcost: error: replay: --math takes fp32, tf32 or fp16, got 'fp8'" -- replay "$M" --math fp8
expect bad_format 2 "onnxcost: error: replay: --format takes text, md, json or html, got 'csv'" -- replay "$M" --format csv
expect plan_html 2 "onnxcost: error: replay: --plan prints as text, md or json (html shows measurements)" -- replay "$M" --plan --format html
expect bad_regex 2 "onnxcost: error: replay: --nodes '(': Unmatched ( or \\(" -- replay "$M" --nodes '('
expect bad_reps 2 "onnxcost: error: replay: --reps takes an integer from 1 to 100000, got '0'" -- replay "$M" --reps 0
expect no_model 2 "onnxcost: error: replay: no model given (try 'onnxcost replay --help')" -- replay
expect broken_model 2 "onnxcost: error: $fx/bad/cycle.onnx: $("$bin" "$fx/bad/cycle.onnx" 2>&1 >/dev/null | sed "s|^onnxcost: error: $fx/bad/cycle.onnx: ||")" \
    -- replay "$fx/bad/cycle.onnx" --plan
expect help 0 "" -- replay --help
expect_out help_lines "--plan            print what each node would run and stop (no GPU needed)" "onnxcost merge a100.json v100.json"

# merge: conv 4.00 vs 8.00 us -> 0.50; Relu 2.00 vs 2.50 -> 0.80; fc1 failed on
# [2] and fc2 missing from [1] stay out of the totals: 6.00 vs 10.50 -> 0.57
R=$fx/replay
expect merge_text 0 "" -- merge "$R/a100.json" "$R/v100.json"
expect_out merge_rows "[1] NVIDIA A100-SXM4-40GB: $R/a100.json" "[2] Tesla V100-SXM2-32GB: $R/v100.json" \
    "/conv1/Conv                      Conv        411,008    4.00    8.00     0.50" \
    "/Relu                            Relu         21,632    2.00    2.50     0.80" \
    "/fc1/Gemm                        Gemm      2,359,424    6.00       -        -" \
    "Total (2 nodes measured on all)                         6.00   10.50     0.57"
expect merge_json 0 "" -- merge "$R/a100.json" "$R/v100.json" --format json
if python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "onnxcost-merge/1" and d["nodes_in_totals"] == 2
assert [f["total_time_ns"] for f in d["files"]] == [6000, 10500]
gemm = [n for n in d["nodes"] if n["name"] == "/fc2/Gemm"][0]
assert gemm["devices"][0] is None and gemm["devices"][1]["time_ns"] == 3000
PY
then pass=$((pass + 1)); else echo "FAIL merge_json_fields"; fail=$((fail + 1)); fi
"$bin" "$M" --format json -o "$tmp/analysis.json"
expect merge_not_replay 2 "onnxcost: error: $tmp/analysis.json: an analysis without measured times: not a replay result (schema \"onnxcost-replay/1\") nor a measured one (onnxcost measure --format json, or --measured PROFILE.json)" \
    -- merge "$R/a100.json" "$tmp/analysis.json"
expect merge_missing 2 "onnxcost: error: $tmp/nope.json: cannot read: No such file or directory" -- merge "$tmp/nope.json"
expect merge_none 2 "onnxcost: error: merge: no result files given (try 'onnxcost merge --help')" -- merge

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
