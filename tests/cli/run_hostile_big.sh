#!/usr/bin/env bash
# The hostile inputs too big to commit (issue 9), generated into a temp dir by
# fixtures/gen/make_hostile.py (standard library only): subgraphs nested 10,000
# deep, a TypeProto nested 100,000 deep, a chain of a million nodes. Each must
# give the exact line (or a successful analysis within the limits), never a
# crash: deep nesting is refused before any recursion could exhaust the stack.
# usage: run_hostile_big.sh ONNXCOST SOURCE_DIR [PYTHON]
set -u
bin=$1
src=$2
py=${3:-python3}
gen="$src/fixtures/gen/make_hostile.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

# shellcheck source=expect.sh
. "$(dirname "$0")/expect.sh"

E="onnxcost: error:"
D="subgraphs nested deeper than 32 levels (--limit-subgraph-depth N raises the limit)"
for n in 32 33 10000; do
    "$py" "$gen" --nested-if $n "$tmp/if$n.onnx" || exit 1
done
"$py" "$gen" --nested-loop 33 "$tmp/loop33.onnx" || exit 1
"$py" "$gen" --nested-loop 100 "$tmp/loop100.onnx" || exit 1
# at the default limit (32 levels) the analysis runs; one level more is refused
# at load, naming the node whose body is one level too deep
expect if32 0 "" -- "$tmp/if32.onnx" -q
expect_out if32_totals "Total FLOPs: 4"
expect if33 2 "$E $tmp/if33.onnx: node 'if_1' (If): $D" -- "$tmp/if33.onnx"
expect if10000 2 "$E $tmp/if10000.onnx: node 'if_9968' (If): $D" -- "$tmp/if10000.onnx"
expect loop33 2 "$E $tmp/loop33.onnx: node 'loop_1' (Loop): $D" -- "$tmp/loop33.onnx"
expect loop100_raised 0 "" -- "$tmp/loop100.onnx" -q --limit-subgraph-depth 100
expect if10000_max 2 "$E $tmp/if10000.onnx: node 'if_9488' (If): subgraphs nested deeper than 512 levels (--limit-subgraph-depth N raises the limit)" -- "$tmp/if10000.onnx" --limit-subgraph-depth 512
# sequence(sequence(...)) 100,000 deep: protobuf-c would recurse once per level
# (it crashed with SIGSEGV before the wire pass bounded type nesting)
"$py" "$gen" --nested-type 100000 "$tmp/type.onnx" || exit 1
expect nested_type 2 "$E $tmp/type.onnx: not a valid ONNX protobuf: messages nested deeper than 144 levels at byte 631" -- "$tmp/type.onnx"
"$py" "$gen" --nested-type 10 "$tmp/type10.onnx" || exit 1
expect nested_type10 0 "" -- "$tmp/type10.onnx" -q
# a million-node chain is within the default limit (16,777,216): analyzed
"$py" "$gen" --chain 1000000 "$tmp/chain.onnx" || exit 1
expect chain_text 0 "" -- "$tmp/chain.onnx" --batch 1 --top 1
expect_out chain_totals "Relu     1000000" "Shapes: 1000000/1000000 nodes concrete" "Total FLOPs: 8,000,000"
expect chain_limit 2 "$E $tmp/chain.onnx: node 'r999999' (Relu): the model has more than 999999 nodes (--limit-nodes N raises the limit)" -- "$tmp/chain.onnx" --limit-nodes 999999

# 50 Unique nodes over 65,536 distinct int64 values (a 0.5 MB file): counting
# them pairwise was 2^31 comparisons per node; sorted, well under a second
"$py" "$gen" --unique 65536 "$tmp/unique.onnx" || exit 1
start=$(date +%s)
expect unique_many 0 "" -- "$tmp/unique.onnx" --batch 1
expect_out unique_rows "unique_0 (Unique)        [65536]" "concat (Concat)        [3276800]"
if [ $(($(date +%s) - start)) -gt 20 ]; then
    echo "FAIL unique_time: $(($(date +%s) - start)) s"
    fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
