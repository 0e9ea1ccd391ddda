#!/usr/bin/env bash
# The Python package as a user installs it: a wheel built from this tree by
# the standard backend (scikit-build-core driving CMake), installed into a
# fresh venv that holds nothing else (--no-index: no dependency is pulled),
# imported there, then python/tests (pytest) run from that venv.
#
# The oracles the tests use (pytest, torch, torchvision, transformers, onnx,
# pandas) are borrowed from the development venv through a .pth file, which
# puts them after the fresh venv's own site-packages: the onnxcost imported
# is always the installed wheel's. With one of them missing the whole test is
# skipped (exit 77) before anything runs; in the run, a skipped test fails it
# (it checked nothing), and so does a run of fewer than MIN_TESTS tests.
#
# usage: package_check.sh PYTHON SOURCE_DIR ONNXCOST_CLI   (exit 77: skipped)
set -euo pipefail
py=$1 src=$2 cli=$3
if ! "$py" -c "import scikit_build_core, pytest" 2>/dev/null; then
    echo "SKIP: $py lacks scikit-build-core or pytest (bash .ci/install-deps installs them)"
    exit 77
fi
missing=$("$py" -c "import importlib.util as u
print(' '.join(m for m in ('numpy', 'onnx', 'pandas', 'torch', 'torchvision', 'transformers') if not u.find_spec(m)))")
if [ -n "$missing" ]; then
    echo "SKIP: $py lacks $missing, which python/tests use as oracles (bash .ci/install-deps installs them)"
    exit 77
fi
MIN_TESTS=90 # 92 collected on 2026-11-25
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
rc=0
ONNXCOST_SRC=$src ONNXCOST_CLI=$cli "$tmp/venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
    --junitxml="$tmp/junit.xml" "$src/python/tests" || rc=$?
# every oracle is installed (checked above): a skip is a test that checked nothing
"$py" - "$tmp/junit.xml" "$MIN_TESTS" <<'PY' || rc=1
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = list(root.iter("testcase"))
skipped = [(c.get("classname"), c.get("name"), c.find("skipped").get("message")) for c in cases
           if c.find("skipped") is not None]
for s in skipped:
    print("FAIL skipped: %s::%s (%s)" % s)
print(f"{len(cases)} tests run (at least {sys.argv[2]}), {len(skipped)} skipped (want none)")
sys.exit(1 if skipped or len(cases) < int(sys.argv[2]) else 0)
PY
exit $rc
