#!/usr/bin/env bash
# Line coverage of the test suite (issue 58): builds the tree with gcc's
# --coverage into a build folder of its own, runs the README's suite there
# (ctest -LE full), and writes, from gcov's JSON, the lines and functions
# each source folder's tests reach and the functions of analyzer/ops/ and
# views/ no test enters (tests/coverage_report.py).
#
# usage: tests/coverage.sh [BUILD_DIR]   (default build-cov; about 15 min on 2 cores)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$src/build-cov}")
cmake -S "$src" -B "$out" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="--coverage" \
    -DCMAKE_EXE_LINKER_FLAGS="--coverage" -DCMAKE_SHARED_LINKER_FLAGS="--coverage" >/dev/null
cmake --build "$out" -j"$(nproc)" >/dev/null
find "$out" -name '*.gcda' -delete
status=0
ctest --test-dir "$out" -j"$(nproc)" -LE full --output-on-failure >"$out/coverage-ctest.log" 2>&1 || status=$?
python3 "$src/tests/coverage_report.py" "$out" "$src" >"$out/coverage.md"
echo "coverage report: $out/coverage.md (ctest exit $status, its log $out/coverage-ctest.log)"
