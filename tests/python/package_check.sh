#!/usr/bin/env bash
# The Python package as a user installs it: a wheel built from this tree by
# the standard backend (scikit-build-core driving CMake), installed into a
# fresh venv that holds nothing else (--no-index: no dependency is pulled),
# imported there, then python/tests (pytest) run from that venv.
#
# The oracles the tests use (pytest, torch, torchvision, transformers, onnx,
# pandas) are borrowed from the development venv through a .pth file, which
# puts them after the fresh venv's own site-packages: the onnxcost imported
# is always the installed wheel's.
#
# usage: package_check.sh PYTHON SOURCE_DIR ONNXCOST_CLI   (exit 77: skipped)
set -euo pipefail
py=$1 src=$2 cli=$3
if ! "$py" -c "import scikit_build_core, pytest" 2>/dev/null; then
    echo "SKIP: $py lacks scikit-build-core or pytest (bash .ci/install-deps installs them)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s.%N)
"$py" -m pip wheel -q --disable-pip-version-check --no-build-isolation --no-deps -w "$tmp/wheel" "$src" \
    >"$tmp/wheel.log" 2>&1 || { cat "$tmp/wheel.log"; echo "FAIL: pip wheel"; exit 1; }
built=$(date +%s.%N)
base=$("$py" -c "import sys; print(sys.base_prefix)")/bin/python3
"$base" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index "$tmp"/wheel/onnxcost-*.whl
done_at=$(date +%s.%N)
printf 'wheel built in %.1f s, installed into a fresh venv in %.1f s\n' \
    "$(echo "$built - $start" | bc)" "$(echo "$done_at - $built" | bc)"

# nothing but the wheel: import, analyze, the installed command
"$tmp/venv/bin/python" - "$src/fixtures/mnist/torchsummary_net.onnx" <<'PY'
import sys, importlib.util
import onnxcost
assert onnxcost.__file__.startswith(sys.prefix), onnxcost.__file__
for dep in ("torch", "onnx", "pandas", "numpy"):
    assert importlib.util.find_spec(dep) is None, f"{dep} importable in the fresh venv"
a = onnxcost.analyze(sys.argv[1], batch=2)
assert a.macs == 2 * 480500, a.macs
print("fresh venv:", repr(a))
PY
"$tmp/venv/bin/onnxcost" "$src/fixtures/mnist/torchsummary_net.onnx" -q | grep -q "Total MACs: 480,500"

# the oracles, after the venv's own packages
"$py" -c "import site; print('\n'.join(site.getsitepackages()))" \
    >"$("$tmp/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/oracles.pth"
cd "$tmp"
ONNXCOST_SRC=$src ONNXCOST_CLI=$cli "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
