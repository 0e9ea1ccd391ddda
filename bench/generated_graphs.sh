#!/usr/bin/env bash
# The generated-model differential oracle's long run (tests/oracle/gen_graphs.py;
# docs/ROBUSTNESS.md "Generated graphs"): N random graphs (default 100,000)
# against ONNX Runtime, every mismatch kept under fixtures/generated/.
# usage: bench/generated_graphs.sh [BUILD_DIR] [N] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
py=.venv/bin/python
[ -x "$py" ] || py=python3
"$py" tests/oracle/gen_graphs.py --onnxcost "$build/onnxcost" --fold-dump "$build/tests/fold_dump" \
    --graphs "${2:-100000}" --seed "${3:-2026}" --min-graphs "${2:-100000}" --keep fixtures/generated
