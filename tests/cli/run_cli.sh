#!/usr/bin/env bash
# CLI tests: exit codes and the exact one-line errors for bad input, plus the
# seed-000 table of the torchsummary MNIST net. Expected text is written here
# by hand; it is never produced by onnxcost itself.
# usage: run_cli.sh ONNXCOST SOURCE_DIR
set -u
bin=$1
src=$2
fx=$src/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

B=$fx/bad
E="onnxcost: error:"
expect missing_file 2 "$E $tmp/nope.onnx: cannot open: No such file or directory" -- "$tmp/nope.onnx"
expect directory 2 "$E $tmp: not a regular file" -- "$tmp"
: >"$tmp/empty.onnx"
expect empty 2 "$E $tmp/empty.onnx: empty file, not an ONNX model" -- "$tmp/empty.onnx"
printf 'hello, this is not an onnx file\n' >"$tmp/text.onnx"
expect not_protobuf 2 "$E $tmp/text.onnx: not a valid ONNX protobuf: unsupported wire type 4 at byte 2" -- "$tmp/text.onnx"
head -c 5000 "$fx/mnist/torchsummary_net.onnx" >"$tmp/trunc.onnx"
expect truncated 2 "$E $tmp/trunc.onnx: not a valid ONNX protobuf: length at byte 20 runs past the end (truncated file?)" -- "$tmp/trunc.onnx"
# every truncation point of the small fixture: exit 2 with one line, never a crash
size=$(stat -c %s "$fx/mnist/torchsummary_net.onnx")
bad=0
for cut in 1 2 3 7 19 20 21 100 1000 10000 50000 88000 $((size - 200)) $((size - 20)) $((size - 1)); do
    head -c "$cut" "$fx/mnist/torchsummary_net.onnx" >"$tmp/cut.onnx"
    "$bin" "$tmp/cut.onnx" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ "$rc" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ]; then
        echo "FAIL truncated at $cut: exit $rc, stderr: $(cat "$tmp/err")"
        bad=1
    fi
done
if [ $bad = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

expect cycle 2 "$E $B/cycle.onnx: cycle in graph: node 'add_a' (Add) depends on its own output" -- "$B/cycle.onnx"
expect dangling 2 "$E $B/dangling_input.onnx: node 'add' (Add): input 'missing' is not produced by any node, graph input or initializer" -- "$B/dangling_input.onnx"
expect duplicate 2 "$E $B/duplicate_output.onnx: node 'sig2' (Sigmoid): output 'y' is also produced by node 'relu1' (Relu)" -- "$B/duplicate_output.onnx"
expect negative_dim 2 "$E $B/negative_dim.onnx: initializer 'w' has negative dim -2 at axis 1" -- "$B/negative_dim.onnx"
expect negative_input_dim 2 "$E $B/negative_input_dim.onnx: graph input 'x' has negative dim -5 at axis 1" -- "$B/negative_input_dim.onnx"
expect wrong_attr 2 "$E $B/wrong_attribute_type.onnx: node 'conv1' (Conv): attribute 'group' has type FLOAT, expected INT" -- "$B/wrong_attribute_type.onnx"
expect channels 2 "$E $B/channel_mismatch.onnx: node 'conv1' (Conv): input has 3 channels but weight expects 2 x group 1" -- "$B/channel_mismatch.onnx"

# an unknown op is reported, never fatal; the totals are said to be lower bounds
W="onnxcost: warning:"
expect unknown_op 0 "$W $B/unknown_op.onnx: incomplete analysis: 2 of 3 nodes have no cost (1 without a shape or rule, 1 downstream of them); MACs, FLOPs and activation memory are lower bounds" -- "$B/unknown_op.onnx"
expect_out unknown_op_report "Ops without a shape rule (1 node): com.example::Frobnicate x1" \
    "1 more node downstream of these has unknown shapes" "Shapes: 1/3 nodes concrete" \
    "WARNING: incomplete analysis: 2 of 3 nodes have no cost (1 without a shape or rule, 1 downstream of them)." \
    "Total MACs: >= 0 (0.000 GMACs; a lower bound)" "Total FLOPs: >= 4 (0.000 GFLOPs; a lower bound)"
# the warning comes before the table
if [ "$(head -c 8 "$tmp/out")" != "WARNING:" ]; then
    echo "FAIL unknown_op_first_line: the report does not start with the warning"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
# a budget on a lower bound does not pass (exit 4) unless asked; one over its lower bound is exceeded (exit 1)
expect incomplete_budget 4 "onnxcost: budget not verified: $B/unknown_op.onnx: MACs >= 0, within --max-macs 1k, but only a lower bound (2 of 3 nodes without a cost); --allow-incomplete accepts it" -- "$B/unknown_op.onnx" -q --max-macs 1k
expect incomplete_budget_allowed 0 "" -- "$B/unknown_op.onnx" -q --max-macs 1k --allow-incomplete
expect incomplete_budget_params 0 "" -- "$B/unknown_op.onnx" -q --max-params 10
# a count saturated at 2^64 - 1 over a box to 2^40: a lower bound, said so
# in the budget line and the block, never "exact"
G=$fx/corpus/microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx
expect budget_saturated 1 "onnxcost: budget exceeded: $G: MACs >= 18,446,744,073,709,551,615 (a count saturated at 2^64 - 1) > 5,000,000,000 (--max-macs 5G) at batch_size=1099511627776, seq_len=1024, past_seq_len=1099511627776, total_seq_len=1024, over by 368934881374.2 %" -- "$G" -q --dim batch_size=1:1099511627776 --dim seq_len=1:1024 --dim past_seq_len=1:1099511627776 --dim total_seq_len=2:1024 --max-macs 5G
expect_out budget_saturated_block "  proven monotone: every shape derived" "  LOWER BOUNDS: a count passed 64 bits and is saturated at 2^64 - 1"
expect incomplete_budget_exceeded 1 "onnxcost: budget exceeded: $B/unknown_op.onnx: FLOPs >= 4 (a lower bound) > 2 (--max-flops 2), over by 100.0 %" -- "$B/unknown_op.onnx" -q --max-flops 2
for fmt in md html; do
    "$bin" "$B/unknown_op.onnx" -q --format $fmt >"$tmp/out"
    expect_out incomplete_$fmt "Incomplete analysis:" "2 of 3 nodes have no cost" "≥ 0" "≥ 4"
done
"$bin" "$B/unknown_op.onnx" -q --format json >"$tmp/out"
expect_out incomplete_json '"complete":false' '"uncosted_nodes":[{"index":1,"name":"frob"' \
    '"warnings": ["incomplete analysis: 2 of 3 nodes have no cost'
"$bin" compare "$B/unknown_op.onnx" "$fx/mnist/torchsummary_net.onnx" >"$tmp/out" 2>/dev/null
expect_out incomplete_compare "WARNING: incomplete: $B/unknown_op.onnx: 2 of 3 nodes have no cost" ">= 0"
"$bin" sweep "$B/unknown_op.onnx" --dim N=1,2 >"$tmp/out" 2>/dev/null
expect_out incomplete_sweep "WARNING: incomplete at" ">= 4"
# a baseline diff between lower bounds gives no change
"$bin" "$B/unknown_op.onnx" -q --format json -o "$tmp/base.json"
"$bin" "$B/unknown_op.onnx" -q --baseline "$tmp/base.json" >"$tmp/out"
expect_out incomplete_baseline "  flops                  >= 4 -> >= 4  (a lower bound: the change is not known)" \
    "  params                 0 -> 0  unchanged"

# usage errors
expect no_args 2 "$E no model given (try 'onnxcost --help')" --
expect bad_option 2 "$E unknown option '--frobnicate' (try 'onnxcost analyze --help')" -- "$fx/mnist/torchsummary_net.onnx" --frobnicate
expect bad_batch 2 "$E --batch takes a positive integer, got '0'" -- "$fx/mnist/torchsummary_net.onnx" --batch 0
expect bad_batch2 2 "$E --batch takes a positive integer, got '12x'" -- "$fx/mnist/torchsummary_net.onnx" --batch=12x
expect bad_dim 2 "$E --dim takes NAME=N with a positive integer N, got 'batch'" -- "$fx/mnist/torchsummary_net.onnx" --dim batch
expect dup_dim 2 "$E --dim batch given twice" -- "$fx/mnist/torchsummary_net.onnx" --dim batch=1 --dim batch=2
expect bad_format 2 "$E --format takes text, json, csv, md or html, got 'xml'" -- "$fx/mnist/torchsummary_net.onnx" --format xml
expect bad_sort 2 "$E --sort takes macs, flops, params or bytes, got 'size'" -- "$fx/mnist/torchsummary_net.onnx" --sort size
expect bad_top 2 "$E --top takes a positive integer, got '0'" -- "$fx/mnist/torchsummary_net.onnx" --top 0
expect top_sorted 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --sort macs --top 2
expect_out top_sorted_rows "/conv2/Conv (Conv)" "/conv1/Conv (Conv)" "(2 of 12 nodes, largest MACs first)"
if grep -q "/fc1/Gemm" "$tmp/out"; then
    echo "FAIL top_sorted: --top 2 printed a third node"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
expect bad_depth 2 "$E --depth takes an integer from 1 to 64, got '0'" -- "$fx/mnist/torchsummary_net.onnx" --depth 0
expect depth1 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --depth 1
expect_out depth1_rows "Module" "conv1" "conv2" "fc1" "fc2" "(top level)"
expect bad_optimizer 2 "$E --optimizer takes sgd, momentum or adam, got 'rmsprop'" -- "$fx/mnist/torchsummary_net.onnx" --optimizer rmsprop
expect bad_dtype 2 "$E --dtype takes fp64, fp32, fp16, bf16, fp8, int8 or int4, got 'fp12'" -- "$fx/mnist/torchsummary_net.onnx" --dtype fp12
expect training 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 64 --optimizer momentum --train-samples 60000 --dtype fp16
expect_out training_lines "Training step (optimizer momentum, batch 64):" "FLOPs per epoch (60,000 samples, 938 steps)" \
    "Params size (MiB): 0.04" "(sizes with every float tensor priced as fp16)"
expect two_models 2 "$E more than one model given ('a.onnx' and 'b.onnx')" -- a.onnx b.onnx

# output that cannot be written
expect full_output_file 3 "$E /dev/full: cannot write the report" -- "$fx/mnist/torchsummary_net.onnx" -q --output /dev/full
"$bin" "$fx/mnist/torchsummary_net.onnx" -q >/dev/full 2>"$tmp/err"
rc=$?
if [ "$rc" = 3 ] && [ "$(cat "$tmp/err")" = "$E standard output: cannot write the report" ]; then
    pass=$((pass + 1))
else
    echo "FAIL full_stdout: exit $rc, stderr: $(cat "$tmp/err")"
    fail=$((fail + 1))
fi

# annotate's copy that cannot be written: one line naming the file and the
# byte it stopped at (where a write first failed: the buffer's, not fixed)
"$bin" annotate "$fx/mnist/torchsummary_net.onnx" -o /dev/full >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 3 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq "^$E /dev/full: cannot write the output at byte [0-9]+\$" "$tmp/err"; then
    pass=$((pass + 1))
else
    echo "FAIL annotate_full_output: exit $rc, stderr: $(cat "$tmp/err")"
    fail=$((fail + 1))
fi

# unbound dims: formulas by default, 1 with a warning under --no-symbolic
expect mnist_symbolic 0 "" -- "$fx/mnist/torchsummary_net.onnx"
expect_out mnist_formulas "[batch, 10, 24, 24]" "144,000·batch" "Total MACs: 480,500·batch" \
    "(sizes at batch=1; shapes and costs above are exact formulas in the unbound dims, derived through the ops)"
expect fixed_batch_warned 0 "onnxcost: warning: $fx/mnist/examples_net.onnx: --batch 4: the model's batch is fixed at 1 (input 'input' declares it); the figures are at 1" -- "$fx/mnist/examples_net.onnx" --batch 4
expect mnist_no_symbolic 0 "onnxcost: warning: $fx/mnist/torchsummary_net.onnx: symbolic dim 'batch' is unbound; using 1 (bind it with --dim batch=N)" -- "$fx/mnist/torchsummary_net.onnx" --no-symbolic
# seed 000: torchsummary's MNIST Net at batch 1
expect mnist_batch1 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1
expect_out mnist_table "Total params: 21,840" "Trainable params: 21,840" "Non-trainable params: 0" \
    "/conv1/Conv (Conv)        [1, 10, 24, 24]      260" "/conv2/Conv (Conv)          [1, 20, 8, 8]    5,020" \
    "/fc1/Gemm (Gemm)                  [1, 50]   16,050" "/fc2/Gemm (Gemm)                  [1, 10]      510" \
    "Params size (MiB): 0.08"
expect mnist_batch 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 64
expect_out mnist_batch_rows "[64, 10, 24, 24]" "[64, 20, 8, 8]" "[64, 50]" "[64, 10]"
# peak activation memory of the seed-000 net at batch 1, by hand: conv1 reads x (1*28*28*4 = 3,136 B)
# and writes 10*24*24*4 = 23,040 B; x is then dead. MaxPool reads that 23,040 and writes
# 10*12*12*4 = 5,760: 28,800 B live, the most at any step (every later step holds less).
expect mnist_peak 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --format json
if python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; assert t["peak_activation_bytes"]==28800, t; assert t["peak_node"]=="/MaxPool", t' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL mnist_peak: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"])' "$tmp/out")"
    fail=$((fail + 1))
fi
expect mnist_dim 0 "" -- "$fx/mnist/torchsummary_net.onnx" --dim batch=3 --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="onnxcost/1"; assert d["bindings"]=={"batch":3}; assert d["totals"]["params"]==21840; assert d["nodes"][0]["outputs"][0]["shape"]==[3,10,24,24]' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL mnist_json: $(head -c 400 "$tmp/out")"
    fail=$((fail + 1))
fi
# sweep: MACs are 480,500 per sample (seed 000 net), so 1, 2, 4 give x1, x2, x4
expect sweep 0 "" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1,2,4
expect_out sweep_rows "    1    480,500    975,241" "    2    961,000  1,950,482" "    4  1,922,000  3,900,964"
expect sweep_json 0 "" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=3,5 --format json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="onnxcost-sweep/1"; assert [r["macs"] for r in d["rows"]]==[3*480500, 5*480500]; assert [r["bindings"]["batch"] for r in d["rows"]]==[3,5]' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL sweep_json: $(head -c 300 "$tmp/out")"
    fail=$((fail + 1))
fi
# a swept dim that no input has gives equal rows: a warning names it
expect sweep_no_such_dim 0 "onnxcost: warning: $fx/mnist/torchsummary_net.onnx: --dim seq: the model's inputs have no symbolic dim named 'seq' (its values change nothing)" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim seq=1,2
expect sweep_bad 2 "$E sweep: --dim takes NAME=V1,V2,... with positive integers, got 'batch=1,,2'" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1,,2
# budgets: the seed-000 net has 21,840 params and 480,500 MACs at batch 1
expect budget_ok 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --max-params 30k --max-macs 0.5M
expect budget_over 1 "onnxcost: budget exceeded: $fx/mnist/torchsummary_net.onnx: MACs 480,500 > 400,000 (--max-macs 400K), over by 20.1 %" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --max-macs 400K
printf '{"max_params": "20k"}' >"$tmp/budget.json"
expect budget_file 1 "onnxcost: budget exceeded: $fx/mnist/torchsummary_net.onnx: params 21,840 > 20,000 (--max-params), over by 9.2 %" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --budget "$tmp/budget.json"
expect budget_bad 2 "$E --max-macs takes a number with an optional SI or IEC suffix (30M, 5G, 2GiB), got '5X'" -- "$fx/mnist/torchsummary_net.onnx" --max-macs 5X
expect csv 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --format csv
expect_out csv_rows "index,name,op_type,domain,output_shapes" "0,/conv1/Conv,Conv,,1x10x24x24,f32,260,144000,293760,23040"
expect md 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --format md
expect_out md_rows "| params | 21,840 |" "| Conv | 2 | 464,000 | 96.6 |" "| /conv1/Conv | Conv | [1, 10, 24, 24] | 260 | 144,000 |"
expect compare 0 "" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --batch 1
expect_out compare_rows "Model" "1,199,882" "21,840 (0.02x) *" "11,992,448" "480,500 (0.04x) *" "ratio to the first model"
# -o without a file is refused by every command (compare once took it as stdout)
expect compare_o_missing 2 "$E compare: --output takes a file name, got ''" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" -o
expect compare_fit_nogpu 2 "$E compare: --fit needs --gpu NAME or --gpu-spec FILE" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --fit
expect sweep_fit_nogpu 2 "$E sweep: --fit needs --gpu NAME or --gpu-spec FILE" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1 --fit
expect sweep_gpu_unknown 2 "$E sweep: --gpu: unknown GPU 'z80' (onnxcost gpus lists them; --gpu-spec FILE for others)" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1 --gpu z80
# sweep as CSV and Markdown: 480,500 MACs and 975,241 FLOPs per sample, 21,840 params
expect sweep_csv 0 "" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1,2 --format csv
expect_out sweep_csv_rows "batch,macs,flops,params,activation_bytes,peak_activation_bytes,input_bytes,complete" "1,480500,975241,21840," "2,961000,1950482,21840,"
expect sweep_md 0 "" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=2 --format md
expect_out sweep_md_rows "| batch | MACs | FLOPs | Params |" "|---:|---:|" "| 2 | 961,000 | 1,950,482 | 21,840 |"
# with --gpu, compare and sweep print the device line and the predicted columns
expect compare_gpu 0 "" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --batch 1 --gpu t4
expect_out compare_gpu_rows "Predicted on NVIDIA T4" "Time (ms)" "Samples/s" "* = best in its column"
expect sweep_gpu 0 "" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1,2 --gpu t4 --fit
expect_out sweep_gpu_rows "Predicted on NVIDIA T4" "Fit (inference): against 15.00 GiB usable" "Time (ms)" "Samples/s" "Memory (MiB)" "Fits"
# --fit counts every initializer: MatMulNBits' packed 2-bit weights B (uint8
# [64, 2, 32] = 4,096 bytes), zero points (uint8 [64] = 64) and scales
# (float [128] = 512): 4,672 bytes, though only the scales are float parameters
NB="$(ls "$fx"/corpus/sonos+tract/*matmulnbits_2bit*.onnx)"
expect fit_quantized 0 "" -- "$NB" --gpu a100 --fit --format json -q
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["gpu"]["fit"]; t=d["totals"]; assert t["params"]==128, t["params"]; assert f["need_bytes"]==4672+t["peak_activation_bytes"], (f["need_bytes"], t["peak_activation_bytes"])' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL fit_quantized: $(head -c 300 "$tmp/out")"
    fail=$((fail + 1))
fi
# llm refuses a graph without a KV cache in one line, and reads the corpus decoders
expect llm_not_decoder 2 "$E $fx/mnist/torchsummary_net.onnx: not a decoder with a KV cache: no input is named like a cache (past_key_values.N.key, past_N, past_key_N, key_cache.N); export it with past key values (docs/LLM.md)" -- llm "$fx/mnist/torchsummary_net.onnx"
expect llm_fixed_cache 2 "$E $(ls "$fx"/corpus/microsoft+onnxruntime-genai/*static-scatter*.onnx): a KV cache of fixed length (key_cache.N/value_cache.N) is not modelled yet: the generation view needs a cache that grows with a symbolic past dim" -- llm "$(ls "$fx"/corpus/microsoft+onnxruntime-genai/*static-scatter*.onnx)"
expect llm_bad_prompt 2 "$E llm: --prompt takes an integer from 1 to 16777216, got '0'" -- llm "$fx/mnist/torchsummary_net.onnx" --prompt 0
expect llm_gpt2 0 "" -- llm "$(ls "$fx"/corpus/microsoft+onnxruntime-genai/*gpt2-fp32__past.onnx)" --prompt 16 --generate 4 --gpu a100
expect_out llm_gpt2_text "Decoder with a KV cache (past_N (key and value stacked))" "5 layers, 4 KV heads x 8 (head size), KV cache f32" "time to first token (ms)" "KV bytes per token (all layers): 1,280"
# per token is the step over its batch's tokens; the time is the step's, each sequence's per output token
expect llm_gpt2_b4 0 "" -- llm "$(ls "$fx"/corpus/microsoft+onnxruntime-genai/*gpt2-fp32__past.onnx)" --batch 4 --gpu a100
expect_out llm_gpt2_per_token_words "the step: each of the 4 sequences' next token" "/token: the step's figures over its tokens, one per sequence of the batch; ms/step: the step's time, each sequence's time per output token" "FLOPs/token  Bytes/token  ms/step  Bound"
# the README's "Ranges" is a command as well; a word that is neither a command nor a file says so
gpt2=$(ls "$fx"/corpus/microsoft+onnxruntime-genai/*gpt2-fp32__past.onnx)
expect ranges_needs_a_range 2 "$E ranges: give a range to bound every figure over, --dim NAME=LO:HI (--dim batch=1:64); docs/RANGES.md" -- ranges "$gpt2"
expect ranges_command 0 "" -- ranges "$gpt2" --dim batch_size=1:8 --dim seq_len=1 --dim past_seq_len=4 --dim total_seq_len=5
expect_out ranges_command_box "batch_size 1..8"
expect not_a_command 2 "$E 'rangez' is neither a command nor a model file (the commands: 'onnxcost --help')" -- rangez "$gpt2"
expect compare_one 2 "$E compare: give at least two models" -- compare "$fx/mnist/examples_net.onnx"
# --dim/--batch parsed as analyze and replay parse them (cli/limits.c)
expect compare_dim_twice 2 "$E compare: --dim batch given twice" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --dim batch=1 --dim batch=2
expect compare_dim_bad 2 "$E compare: --dim takes NAME=N with a positive integer N, got 'batch=0'" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --dim batch=0
# --baseline: the seed-000 net against itself, then the examples net against it
"$bin" "$fx/mnist/torchsummary_net.onnx" --batch 1 --format json -q -o "$tmp/base.json"
expect baseline_same 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --baseline "$tmp/base.json"
expect_out baseline_same_rows "params                 21,840 -> 21,840  unchanged" "nodes added: 0" "nodes removed: 0"
expect baseline_diff 0 "" -- "$fx/mnist/examples_net.onnx" --baseline "$tmp/base.json"
expect_out baseline_diff_rows "params                 21,840 -> 1,199,882  +1,178,042 (+5394.0 %)" \
    "macs                   480,500 -> 11,992,448  +11,511,948 (+2395.8 %)"
expect baseline_bad 2 "$E $tmp/text.onnx: not an onnxcost/1 JSON report: '[' or '{' expected near 'hello'" -- "$fx/mnist/examples_net.onnx" --baseline "$tmp/text.onnx"
# on a terminal: rows fit its width, the header is bold unless NO_COLOR is set
if command -v script >/dev/null; then
    script -qc "stty cols 60; '$bin' '$fx/mnist/torchsummary_net.onnx' --batch 1" /dev/null >"$tmp/tty.txt" 2>&1
    script -qc "stty cols 60; NO_COLOR=1 '$bin' '$fx/mnist/torchsummary_net.onnx' --batch 1" /dev/null >"$tmp/tty_nc.txt" 2>&1
    widest=$(python3 -c 'import re,sys; t=open(sys.argv[1],encoding="utf-8").read().replace("\r",""); print(max(len(re.sub(r"\x1b\[[0-9;]*m","",l)) for l in t.splitlines()[:16]))' "$tmp/tty.txt")
    if [ "$widest" -le 60 ] && grep -q $'\x1b\[1m' "$tmp/tty.txt" && ! grep -q $'\x1b' "$tmp/tty_nc.txt"; then
        pass=$((pass + 1))
    else
        echo "FAIL tty: widest row $widest (want <= 60), bold header $(grep -c $'\x1b' "$tmp/tty.txt"), NO_COLOR escapes $(grep -c $'\x1b' "$tmp/tty_nc.txt")"
        fail=$((fail + 1))
    fi
fi
# found by the fuzzer: an LRN after a Conv claiming 1.08e12 channels once hung the cost loop
expect fuzz_lrn 2 "$E $fx/bad/fuzz_lrn_huge_channels.onnx: node 'n4' (Conv): input has 1078036791392 channels but weight expects 96 x group 1" -- "$fx/bad/fuzz_lrn_huge_channels.onnx"
# found by the fuzzer: a SequenceInsert whose required 'tensor' input is empty once crashed the analysis
expect fuzz_seqinsert 2 "$E $fx/bad/fuzz_seqinsert_empty_tensor.onnx: node #3 (SequenceInsert): input 'tensor' is required but empty" -- "$fx/bad/fuzz_seqinsert_empty_tensor.onnx"
# --gpu: unknown names, missing device, bad spec files, bad factors
expect gpu_unknown 2 "$E --gpu: unknown GPU 'z200' (onnxcost gpus lists them; --gpu-spec FILE for others)" -- "$fx/mnist/examples_net.onnx" --gpu z200
expect gpu_fit_alone 2 "$E --fit, --gpus and --pipeline need --gpu NAME or --gpu-spec FILE" -- "$fx/mnist/examples_net.onnx" --fit
echo '{"name": "x"}' >"$tmp/gpu1.json"
expect gpu_spec_short 2 "$E $tmp/gpu1.json: needs \"name\", and \"fp32\", \"memory_gib\", \"bandwidth_gbs\" > 0" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu1.json"
echo '{"name": "x", "fp32": 1, "memory_gib": 1, "bandwidth_gbs": 1, "tflops": 3}' >"$tmp/gpu2.json"
expect gpu_spec_key 2 "$E $tmp/gpu2.json: bad key 'tflops' (unknown key; see docs/GPUS.md)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu2.json"
echo '{"name": "x", "fp32": "fast", "memory_gib": 1, "bandwidth_gbs": 1}' >"$tmp/gpu3.json"
expect gpu_spec_type 2 "$E $tmp/gpu3.json: bad key 'fp32' (TFLOP/s: 0, or from 1e-6 to 1,000,000 expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu3.json"
# each key within its range, said in the refusal (1e300 GiB is a number >= 0, yet no device)
echo '{"name": "x", "fp32": 1, "memory_gib": 1e300, "bandwidth_gbs": 1}' >"$tmp/gpu4.json"
expect gpu_spec_range 2 "$E $tmp/gpu4.json: bad key 'memory_gib' (GiB: 0, or from 1e-6 to 1,048,576 expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu4.json"
# a subnormal rate: no machine's, and a latency of inf (it was taken, exit 0)
echo '{"name": "x", "fp32": 1e-320, "memory_gib": 1, "bandwidth_gbs": 1}' >"$tmp/gpu7.json"
expect gpu_spec_subnormal 2 "$E $tmp/gpu7.json: bad key 'fp32' (TFLOP/s: 0, or from 1e-6 to 1,000,000 expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu7.json"
echo '{"name": "x", "fp32": 1, "memory_gib": 1, "bandwidth_gbs": 1e-320}' >"$tmp/gpu8.json"
expect gpu_spec_subnormal_bw 2 "$E $tmp/gpu8.json: bad key 'bandwidth_gbs' (GB/s: 0, or from 1e-6 to 1,000,000 expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu8.json"
echo '{"name": "x", "fp32": 1, "memory_gib": 1, "bandwidth_gbs": 1, "sms": 1.5}' >"$tmp/gpu5.json"
expect gpu_spec_whole 2 "$E $tmp/gpu5.json: bad key 'sms' (a whole number from 0 to 1,000,000 expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu5.json"
printf '{"name": "%0200d", "fp32": 1, "memory_gib": 1, "bandwidth_gbs": 1}' 0 >"$tmp/gpu6.json"
expect gpu_spec_name 2 "$E $tmp/gpu6.json: bad key 'name' (at most 96 bytes expected)" -- "$fx/mnist/examples_net.onnx" --gpu-spec "$tmp/gpu6.json"
expect gpu_eff 2 "$E --efficiency takes a fraction 0 < X <= 1, got '0'" -- "$fx/mnist/examples_net.onnx" --gpu t4 --efficiency 0
expect gpu_math 2 "$E --math takes auto, fp32, tf32 or fp16, got 'int3'" -- "$fx/mnist/examples_net.onnx" --gpu t4 --math int3
# the seed-003 question on the MNIST net: the table has the roofline columns
expect gpu_table 0 "" -- "$fx/mnist/examples_net.onnx" --gpu K80 --dtype fp64
expect_out gpu_table_text "FLOP/B" "Bound" "Time (us)" "Predicted on NVIDIA Tesla K80 (board: 2x GK210)" "Peaks: FP32 8.73 TFLOPS, DRAM 480 GB/s (ridge 18.2 FLOP/B), FP64 2.91"
expect gpu_html 0 "" -- "$fx/mnist/examples_net.onnx" --gpu t4 --format html
expect_out gpu_html_text "<h2>Roofline on NVIDIA T4" "FP32 8.1 TFLOPS, ridge 25.3 FLOP/B" "predicted latency (ms)"
expect gpus_list 0 "" -- gpus
expect_out gpus_text "h100-sxm" "989.4" "k80-gk210"
expect help 0 "" -- --help
expect_out help_text "usage: onnxcost MODEL.onnx [options]" "exit codes: 0 ok"
expect version 0 "" -- --version
expect_out version_text "onnxcost "

# ---- hostile and broken inputs (issue 9; fixtures/gen/make_hostile.py) ----------
P="not a valid ONNX protobuf"
expect wrong_wire_type 2 "$E $B/wrong_wire_type.onnx: $P: field 7 of ModelProto at byte 2 has wire type 0, not a length-delimited message" -- "$B/wrong_wire_type.onnx"
expect wrong_wire_type_name 2 "$E $B/wrong_wire_type_name.onnx: $P: a field has the wrong type or an invalid value" -- "$B/wrong_wire_type_name.onnx"
expect huge_length 2 "$E $B/huge_length.onnx: $P: length at byte 3 runs past the end (truncated file?)" -- "$B/huge_length.onnx"
expect huge_length_max 2 "$E $B/huge_length_max.onnx: $P: length at byte 3 runs past the end (truncated file?)" -- "$B/huge_length_max.onnx"
expect varint_overlong 2 "$E $B/varint_overlong.onnx: $P: varint longer than 10 bytes at byte 1" -- "$B/varint_overlong.onnx"
expect varint_overflow 2 "$E $B/varint_overflow.onnx: $P: varint over 64 bits at byte 1" -- "$B/varint_overflow.onnx"
expect no_graph 2 "$E $B/no_graph.onnx: the model has no graph (not an ONNX model?)" -- "$B/no_graph.onnx"
expect self_loop 2 "$E $B/self_loop.onnx: cycle in graph: node 'add_self' (Add) reads its own output 'b'" -- "$B/self_loop.onnx"
expect duplicate_initializer 2 "$E $B/duplicate_initializer.onnx: duplicate initializer name 'w'" -- "$B/duplicate_initializer.onnx"
expect duplicate_input 2 "$E $B/duplicate_input.onnx: duplicate graph input 'x'" -- "$B/duplicate_input.onnx"
expect output_is_input 2 "$E $B/output_is_input.onnx: node 'relu' (Relu): output 'x' is also a graph input" -- "$B/output_is_input.onnx"
expect no_op_type 2 "$E $B/no_op_type.onnx: node 'nameless_op' () has no op_type" -- "$B/no_op_type.onnx"
expect overflow_dims 2 "$E $B/overflow_dims.onnx: graph input 'x': element count overflows 64 bits" -- "$B/overflow_dims.onnx"
expect overflow_init_dims 2 "$E $B/overflow_init_dims.onnx: initializer 'w': element count overflows 64 bits" -- "$B/overflow_init_dims.onnx"
expect negative_value_info_dim 2 "$E $B/negative_value_info_dim.onnx: graph output 'y' has negative dim -7 at axis 1" -- "$B/negative_value_info_dim.onnx"
expect rank65 2 "$E $B/rank65.onnx: graph input 'x' has rank 65 (limit 64; --limit-rank N raises it)" -- "$B/rank65.onnx"
expect rank65_init 2 "$E $B/rank65_init.onnx: initializer 'w' has rank 65 (limit 64; --limit-rank N raises it)" -- "$B/rank65_init.onnx"
expect rank65_reshape 2 "$E $B/rank65_reshape.onnx: node 'reshape' (Reshape): output 0 would have rank 65 (limit 64; --limit-rank N raises it)" -- "$B/rank65_reshape.onnx"
expect rank65_raised 0 "" -- "$B/rank65.onnx" --limit-rank 65
expect rank65_reshape_raised 0 "" -- "$B/rank65_reshape.onnx" --limit-rank=65
expect missing_attribute 2 "$E $B/missing_attribute.onnx: node 'cast' (Cast): required attribute 'to' is missing" -- "$B/missing_attribute.onnx"
expect wrong_attribute_type_graph 2 "$E $B/wrong_attribute_type_graph.onnx: node 'if' (If): attribute 'then_branch' has type INT, expected GRAPH" -- "$B/wrong_attribute_type_graph.onnx"
expect attribute_type_mismatch 2 "$E $B/attribute_type_mismatch.onnx: node 'softmax' (Softmax): attribute 'axis' has type INT but holds a FLOAT value" -- "$B/attribute_type_mismatch.onnx"
expect no_opset 2 "$E $B/no_opset.onnx: opset_import is empty: the model imports no operator set (required from IR version 3; this file says 8)" -- "$B/no_opset.onnx"
expect opset_absurd 2 "$E $B/opset_absurd.onnx: opset_import: domain 'ai.onnx' has version 4611686018427387904, not a real opset version" -- "$B/opset_absurd.onnx"
expect opset_duplicate 2 "$E $B/opset_duplicate.onnx: opset_import lists domain 'ai.onnx' twice (versions 13 and 17)" -- "$B/opset_duplicate.onnx"
# the same version twice is accepted, with a warning (a tract test file; ONNX Runtime runs it)
C=$fx/corpus/sonos+tract/onnx__test_cases__linear_classifier__model.onnx
expect opset_same_twice 0 "onnxcost: warning: $C: opset_import lists domain 'ai.onnx' version 21 twice" -- "$C" --batch 1
W="onnxcost: warning:"
# legal but suspicious: the analysis runs, with one warning line
expect opset_future 0 "$W $B/opset_future.onnx: opset_import: ai.onnx version 99 is newer than onnxcost's rules (opset 24); ops are analyzed with their latest rules" -- "$B/opset_future.onnx"
expect empty_graph 0 "$W $B/empty_graph.onnx: the graph has no nodes: every count is 0" -- "$B/empty_graph.onnx"
expect_out empty_graph_totals "Total params: 0" "Total MACs: 0 (0.000 GMACs)"
expect zero_dim 0 "$W $B/zero_dim.onnx: graph input 'x' has size 0 at axis 0: an empty tensor, so what depends on it costs nothing (some exporters write 0 for an unknown size)" -- "$B/zero_dim.onnx"
expect_out zero_dim_shape "relu (Relu)" "[0, 4]" "Total FLOPs: 0 (0.000 GFLOPs)"
# 2^60 elements: sizes in MiB are exact (n x 32 bits once overflowed and printed 0)
expect huge_dim 0 "" -- "$B/huge_dim.onnx"
expect_out huge_dim_sizes "[1099511627776, 1048576]" "Total FLOPs: 1,152,921,504,606,846,976" "Input size (MiB): 4398046511104.00"
# external data outside the model's folder: reported, never opened
expect external_dotdot 0 "$W $B/external_dotdot.onnx: initializer 'w': external data location '../../outside/weights.bin' is outside the model's folder ('..'); it is not opened (onnxcost never reads weights)" -- "$B/external_dotdot.onnx"
expect external_absolute 0 "$W $B/external_absolute.onnx: initializer 'w': external data location '/etc/passwd' is an absolute path; it is not opened (onnxcost never reads weights)" -- "$B/external_absolute.onnx"
expect external_inside 0 "" -- "$B/external_inside.onnx"
expect_out external_params "Total params: 16"
expect external_json 0 "" -- "$B/external_dotdot.onnx" --format json -q
if python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["warnings"]; assert any("../../outside/weights.bin" in x for x in w), w' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL external_json: no warning in the JSON report"
    fail=$((fail + 1))
fi
# prove it: the files the locations name exist, and the tool opens only the model
if command -v strace >/dev/null && strace -o /dev/null true 2>/dev/null; then
    mkdir -p "$tmp/ext/a/b" "$tmp/ext/outside"
    echo secret >"$tmp/ext/outside/weights.bin"
    echo secret >"$tmp/ext/a/b/weights.bin"
    bad=0
    for f in external_dotdot external_absolute external_inside; do
        cp "$B/$f.onnx" "$tmp/ext/a/b/$f.onnx"
        (cd "$tmp/ext/a/b" && ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=%file,read -o "$tmp/trace" \
            "$bin" "$f.onnx" -q --format json >/dev/null)
        if grep -q 'weights.bin\|/etc/passwd\|outside' "$tmp/trace" ||
            [ "$(grep -c "open.*\"$f.onnx\"" "$tmp/trace")" != 1 ]; then
            echo "FAIL external_never_opened $f: $(grep 'weights\|passwd\|outside\|onnx' "$tmp/trace" | head -3)"
            bad=1
        fi
    done
    if [ $bad = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
else
    echo "SKIP external_never_opened: strace is not available"
fi
# names with control characters and invalid UTF-8, safe in every format
expect evil_error 2 "$E $B/evil_error.onnx: node 'add\\x1b[2J' (Add): input 'miss\\x1b]0;pwned\\x07\\xff' is not produced by any node, graph input or initializer" -- "$B/evil_error.onnx"
for fmt in text json csv md html; do
    expect "evil_$fmt" 0 "" -- "$B/evil_names.onnx" --batch 1 --dim "$(printf 'b\033t\351ch')=1" --format "$fmt"
    # no control byte but LF (and TAB/CR outside text), valid UTF-8, no C1 controls
    if ! python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")  # raises on invalid UTF-8
allowed = "\n" if sys.argv[2] == "text" else "\n\t\r"
bad = [c for c in t if (ord(c) < 32 and c not in allowed) or 0x7f <= ord(c) < 0xa0]
assert not bad, bad
' "$tmp/out" "$fmt"; then
        echo "FAIL evil_${fmt}_bytes: unsafe bytes in the $fmt report"
        fail=$((fail + 1))
        continue
    fi
    pass=$((pass + 1))
done
expect evil_text 0 "" -- "$B/evil_names.onnx" --batch 1
expect_out evil_text_rows 'n\x1b[31mred\x1b[0m|<b>&'"'"'",x (Relu)' 'bad\xc3(utf8\x7f (Relu)' '[1, b\x1bt\xe9ch]'
expect evil_json 0 "" -- "$B/evil_names.onnx" --batch 1 --format json
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = [n["name"] for n in d["nodes"]]
assert names == ["n\x1b[31mred\x1b[0m|<b>&'"'"'\",x", "bad\ufffd(utf8\x7f"], names
assert d["nodes"][0]["outputs"][0]["name"] == "out\nline2\t\ufffd", d["nodes"][0]["outputs"]
' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL evil_json_names: $(head -c 600 "$tmp/out")"
    fail=$((fail + 1))
fi
expect evil_csv 0 "" -- "$B/evil_names.onnx" --batch 1 --format csv
if python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert [r[1] for r in rows[1:]] == ["n\ufffd[31mred\ufffd[0m|<b>&'"'"'\",x", "bad\ufffd(utf8\ufffd"], rows
assert all(len(r) == len(rows[0]) for r in rows), rows
' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL evil_csv_rows: $(cat "$tmp/out")"
    fail=$((fail + 1))
fi
expect csv_quotes 0 "" -- "$B/csv_quotes.onnx" --format csv
if python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
assert [r[1] for r in rows[1:]] == ["\"lead", "mid\"dle\tx;y"], rows
assert all(len(r) == len(rows[0]) for r in rows), rows
' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL csv_quotes_rows: a quote without a comma must be quoted: $(cat "$tmp/out")"
    fail=$((fail + 1))
fi
# a node without a cost (a custom op, and the Relu after it) has empty MACs and
# FLOPs cells, never 0, which a spreadsheet would sum as known; the first
# Relu on [1, 4]: 0 MACs, 4 FLOPs
expect csv_unknown_cost 0 "$W $B/unknown_op.onnx: incomplete analysis: 2 of 3 nodes have no cost (1 without a shape or rule, 1 downstream of them); MACs, FLOPs and activation memory are lower bounds" -- "$B/unknown_op.onnx" --format csv
if python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))
h = rows[0]
cells = {r[h.index("name")]: (r[h.index("macs")], r[h.index("flops")]) for r in rows[1:]}
assert cells == {"relu": ("0", "4"), "frob": ("", ""), "relu_after": ("", "")}, cells
' "$tmp/out"; then
    pass=$((pass + 1))
else
    echo "FAIL csv_unknown_cost_rows: a node without a cost must have empty MACs and FLOPs: $(cat "$tmp/out")"
    fail=$((fail + 1))
fi
# every node costed, the peak not (an input of unknown size): the peak alone is marked a lower bound
for fmt in text md html json; do
    expect "peak_only_incomplete_$fmt" 0 "" -- "$B/unsized_unused_input.onnx" -q --format "$fmt"
    case $fmt in
    text) want='Peak activation memory (MiB): >= ' ;;
    md) want='| peak activation memory (MiB) | ≥ ' ;;
    html) want='<tr><th>peak activation memory (MiB)</th><td class="n">≥ ' ;;
    json) want='"peak_complete":false' ;;
    esac
    if grep -qF "$want" "$tmp/out" && ! grep -qF "MACs | ≥" "$tmp/out"; then
        pass=$((pass + 1))
    else
        echo "FAIL peak_only_incomplete_${fmt}_mark: want '$want' beside the peak alone: $(grep -i peak "$tmp/out" | head -2)"
        fail=$((fail + 1))
    fi
done
expect evil_md 0 "" -- "$B/evil_names.onnx" --batch 1 --format md
expect_out evil_md_rows '| n?[31mred?[0m\|<b>&'"'"'",x | Relu |'
expect evil_html 0 "" -- "$B/evil_names.onnx" --batch 1 --format html
expect_out evil_html_rows '<td>n?[31mred?[0m|&lt;b&gt;&amp;&#39;&quot;,x</td>'
if grep -q '<b>' "$tmp/out"; then
    echo "FAIL evil_html_tag: a name's <b> reached the HTML unescaped"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
# with --gpu the page adds a roofline whose points carry each node's name
# in a <title>: escaped there too
expect evil_html_gpu 0 "" -- "$B/evil_names.onnx" --batch 1 --gpu a100 --format html
expect_out evil_html_gpu_title '<title>n?[31mred?[0m|&lt;b&gt;&amp;&#39;&quot;,x: '
if grep -q '<b>' "$tmp/out"; then
    echo "FAIL evil_html_gpu_tag: a name's <b> reached the roofline unescaped"
    fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
# limits: the flags and their ranges
expect limit_nodes_bad 2 "$E --limit-nodes takes an integer from 1 to 134217728, got '0'" -- "$fx/mnist/torchsummary_net.onnx" --limit-nodes 0
expect limit_depth_bad 2 "$E --limit-subgraph-depth takes an integer from 1 to 512, got '513'" -- "$fx/mnist/torchsummary_net.onnx" --limit-subgraph-depth 513
expect limit_rank_bad 2 "$E --limit-rank takes an integer from 1 to 65536, got 'x'" -- "$fx/mnist/torchsummary_net.onnx" --limit-rank x
expect limit_nodes 2 "$E $fx/mnist/torchsummary_net.onnx: node '/Relu_2' (Relu): the model has more than 9 nodes (--limit-nodes N raises the limit)" -- "$fx/mnist/torchsummary_net.onnx" --limit-nodes 9
expect limit_nodes_ok 0 "" -- "$fx/mnist/torchsummary_net.onnx" --batch 1 --limit-nodes 12
expect limit_rank_low 2 "$E $fx/mnist/torchsummary_net.onnx: initializer 'conv1.weight' has rank 4 (limit 3; --limit-rank N raises it)" -- "$fx/mnist/torchsummary_net.onnx" --limit-rank 3
# sweep and compare take the same flags, with the same ranges and lines (cli/limits.c)
R65="$E $B/rank65.onnx: graph input 'x' has rank 65 (limit 64; --limit-rank N raises it)"
expect sweep_rank65 2 "$R65" -- sweep "$B/rank65.onnx" --dim batch=1,2
expect sweep_rank65_ok 0 "onnxcost: warning: $B/rank65.onnx: --dim batch: the model's inputs have no symbolic dim named 'batch' (its values change nothing)" -- sweep "$B/rank65.onnx" --dim batch=1,2 --limit-rank 65
expect_out sweep_rank65_rows "    1     0      1       0" "    2     0      1       0"
expect compare_rank65 2 "$R65" -- compare "$B/rank65.onnx" "$fx/mnist/torchsummary_net.onnx" --batch 1
expect compare_rank65_ok 0 "" -- compare "$B/rank65.onnx" "$fx/mnist/torchsummary_net.onnx" --batch 1 --limit-rank=65
expect_out compare_rank65_rows "$B/rank65.onnx" "21,840"
expect sweep_limit_bad 2 "$E sweep: --limit-rank takes an integer from 1 to 65536, got '0'" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1 --limit-rank 0
expect compare_limit_bad 2 "$E compare: --limit-subgraph-depth takes an integer from 1 to 512, got '513'" -- compare "$fx/mnist/examples_net.onnx" "$fx/mnist/torchsummary_net.onnx" --limit-subgraph-depth 513
expect sweep_limit_nodes 2 "$E $fx/mnist/torchsummary_net.onnx: node '/Relu_2' (Relu): the model has more than 9 nodes (--limit-nodes N raises the limit)" -- sweep "$fx/mnist/torchsummary_net.onnx" --dim batch=1,2 --limit-nodes 9
# a graph invalid at every binding is refused by sweep like analyze refuses it, not a table of errors
expect sweep_cycle 2 "$E $B/cycle.onnx: cycle in graph: node 'add_a' (Add) depends on its own output" -- sweep "$B/cycle.onnx" --dim batch=1,2
# compare's warnings are escaped like analyze's: names from the file reach stderr as \xNN
"$bin" compare "$B/evil_names.onnx" "$fx/mnist/torchsummary_net.onnx" --batch 1 >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -qF "onnxcost: warning: $B/evil_names.onnx: symbolic dim 'b\x1bt\xe9ch' is unbound" "$tmp/err" &&
    ! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$tmp/err" &&
    python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$tmp/err"; then
    pass=$((pass + 1))
else
    echo "FAIL compare_evil_warnings: exit $rc, stderr: $(cat -v "$tmp/err")"
    fail=$((fail + 1))
fi
# truncation at the first 64 offsets and every 97th byte: exit 0 or 2, at most one
# stderr line and it names the file; never a signal
size=$(stat -c %s "$fx/mnist/torchsummary_net.onnx")
bad=0
n=0
for cut in $(seq 1 64) $(seq 97 97 "$size"); do
    head -c "$cut" "$fx/mnist/torchsummary_net.onnx" >"$tmp/cut.onnx"
    "$bin" "$tmp/cut.onnx" -q >/dev/null 2>"$tmp/err"
    rc=$?
    n=$((n + 1))
    lines=$(wc -l <"$tmp/err")
    if { [ "$rc" != 0 ] && [ "$rc" != 2 ]; } || [ "$lines" -gt 1 ] || { [ "$lines" = 1 ] && ! grep -qF "$tmp/cut.onnx" "$tmp/err"; }; then
        echo "FAIL truncated_sweep at $cut: exit $rc, stderr: $(head -2 "$tmp/err")"
        bad=1
    fi
done
if [ $bad = 0 ] && [ $n -gt 900 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
