#!/usr/bin/env bash
# Fuzz smoke run: builds the libFuzzer target with ASan + UBSan (clang) and
# fuzzes load + analyze + every report for SECONDS (default 60), seeded with
# every fixture under 2 MB and the committed dictionary. Exit 0 when nothing
# was found; otherwise the crashing input is left in BUILD_DIR/artifacts/ —
# turn it into a regression fixture (fixtures/bad/fuzz_*.onnx) and a CLI test.
# usage: tests/fuzz/smoke.sh [SECONDS] [BUILD_DIR]   (needs clang and
#        Debian's libclang-rt-14-dev)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
build=${2:-$src/build-fuzz}
CC=clang cmake -S "$src" -B "$build" -DONNXCOST_FUZZ=ON -DONNXCOST_TESTS=OFF -DONNXCOST_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build "$build" --target fuzz_analyze -j"$(nproc)" >/dev/null
seeds=$build/seeds
work=$build/corpus
mkdir -p "$seeds" "$work" "$build/artifacts"
find "$src/fixtures" -name '*.onnx' -size -2M -exec cp {} "$seeds/" \;
echo "fuzz smoke: $(ls "$seeds" | wc -l) seeds, ${secs} s"
"$build/fuzz_analyze" -max_total_time="$secs" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -dict="$src/tests/fuzz/onnx.dict" -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
    "$work" "$seeds" 2>"$build/fuzz.log" || {
    tail -40 "$build/fuzz.log"
    echo "fuzz smoke: FOUND a failing input: $(ls "$build/artifacts")"
    exit 1
}
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' "$build/fuzz.log"
echo "fuzz smoke: no crash, leak or timeout"
