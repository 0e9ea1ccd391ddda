#!/usr/bin/env bash
# Issue #8's benchmark in one command:
#   bash bench/run.sh [BUILD_DIR] [--quick] [--timeout S] [--runs N] [--py-runs N] [--only NAME,...]
# Measures onnxcost against onnx-tool and onnx.load + onnx.shape_inference.infer_shapes on
# GPT-2 small (and a copy with external data), VGG-16, ResNet-50, DistilBERT and synthetic
# 10k/100k/1M-node graphs, then a 12-point sweep and a 4-model compare against single analyses,
# and checks the goals of docs/PERFORMANCE.md. Writes bench/out/results.json and
# bench/out/results.md (the tables to paste into docs/PERFORMANCE.md).
#
# Needs: a built onnxcost (default build/), /usr/bin/time, Debian python3-torch and
# python3-torchvision (to export the models once; they are kept in bench/out/), and PyPI
# access the first time: the Python tools run in bench/.venv, made here if missing.
# A full run takes about 14 minutes on 2 cores, 10 of them onnx-tool timing out (300 s) on
# the 100k and 1M graphs; --quick (5 onnxcost runs, 1 Python run, 60 s timeout, no onnx-tool
# on 1M) about 2.5. The first run adds about 35 s of exports/generation and 10 s for the venv.
# onnxcost is measured from a copy (bench/out/onnxcost.bench) so a rebuild mid-run cannot mix
# binaries; its sha256 is in the output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then build=$1; shift; fi

# Pinned Python side. onnx-tool 1.0.1 is the newest release; it works with onnx 1.19.1 (the
# project .venv's version) and numpy<2. System site packages stay visible (Debian torch for
# the exports), but onnx and numpy are pinned inside the venv so Debian's onnx 1.12 is not used.
ONNX_TOOL=onnx-tool==1.0.1
ONNX=onnx==1.19.1
NUMPY=numpy==1.26.4
venv=$here/.venv
pinned() { # exit 0 when the venv holds exactly the pinned versions
    "$venv/bin/python" - "$ONNX_TOOL" "$ONNX" "$NUMPY" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
sys.exit(any(version(p.split("==")[0]) != p.split("==")[1] for p in sys.argv[1:]))
PY
}
if ! pinned; then
    echo "[bench] creating $venv ($ONNX_TOOL, $ONNX, $NUMPY)" >&2
    t0=$(date +%s)
    /usr/bin/python3 -m venv --system-site-packages "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "$ONNX_TOOL" "$ONNX" "$NUMPY"
    echo "[bench] venv ready in $(( $(date +%s) - t0 )) s" >&2
fi
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
exec "$venv/bin/python" "$here/bench.py" --build "$build" --py "$venv/bin/python" "$@"
