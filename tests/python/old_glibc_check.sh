#!/usr/bin/env bash
# The portable wheel where the wheel says it runs: built by docs/PYTHON.md's
# portable recipe (its own lines, in a copy of the tree), then installed with
# pip into a venv inside a Debian 11 "bullseye" root filesystem (glibc 2.31,
# CPython 3.9: older than this machine's 2.36 and 3.11), made by debootstrap
# from Debian's mirror and entered with chroot in a private mount namespace.
# There, with nothing but the root's own Python and the wheel:
#   - auditwheel show names manylinux_2_17 (manylinux2014); the wheel holds
#     one compiled file, cp39-abi3;
#   - the onnxcost command and `import onnxcost` give the MNIST net's MACs
#     worked by hand (480,500 a sample: docs/COSTS.md's Conv and Gemm rules
#     over its layers, the figure python.package and cli tests also hold);
#   - ranges over batch 1..8 give 480,500 and 8 x 480,500 at its ends;
#   - analyze (JSON), lint, plan and ranges print byte for byte what this
#     tree's own build (gcc, glibc 2.36) prints for the same file: the
#     portable build is the same program. (The figures themselves are held
#     to oracles by the other tests; this one holds the build.)
# Then python.package's checks and the 124 Python tests run on the same
# wheel here (ONNXCOST_WHEEL), with the system's jansson and protobuf-c
# hidden.
#
# The root is kept in BUILD_DIR/roots/bullseye between runs (about 330 MB; a
# minute to make). Needs root (debootstrap, chroot) and debootstrap: where
# either is missing the test says so and is skipped (exit 77).
#
# usage: old_glibc_check.sh PYTHON SOURCE_DIR ONNXCOST_CLI BUILD_DIR
set -euo pipefail
py=$1 src=$2 cli=$3 build=$4
[ "$(id -u)" = 0 ] || { echo "SKIP: debootstrap and chroot need root"; exit 77; }
command -v debootstrap >/dev/null || { echo "SKIP: no debootstrap (bash .ci/install-deps installs it)"; exit 77; }
"$py" -c "import ziglang, scikit_build_core, auditwheel" 2>/dev/null ||
    { echo "SKIP: $py lacks ziglang, scikit-build-core or auditwheel (bash .ci/install-deps installs them)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# docs/PYTHON.md's portable recipe, its own lines, in a copy of the tree
recipe=$(awk '/<!-- the portable wheel recipe:/ {on = 1; next} on && /^```sh/ {inside = 1; next}
              inside && /^```/ {exit} inside {print}' "$src/docs/PYTHON.md")
[ -n "$recipe" ] || { echo "FAIL: no portable wheel recipe in docs/PYTHON.md"; exit 1; }
mkdir "$tmp/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$tmp/src" -xf -
ln -s "$(cd "$(dirname "$py")/.." && pwd)" "$tmp/src/.venv"
t0=$(date +%s)
(cd "$tmp/src" && bash -euo pipefail -c "$recipe") >"$tmp/recipe.log" 2>&1 ||
    { cat "$tmp/recipe.log"; echo "FAIL: the portable wheel recipe of docs/PYTHON.md"; exit 1; }
whl=$(ls "$tmp"/src/wheelhouse/onnxcost-*.whl)
tr '\n' ' ' <"$tmp/recipe.log" | grep -q 'consistent *with *the *following *platform *tag: *"manylinux_2_17_x86_64"' ||
    { cat "$tmp/recipe.log"; echo "FAIL: auditwheel show does not name manylinux_2_17_x86_64"; exit 1; }
case $(basename "$whl") in
    onnxcost-*-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl) ;;
    *) echo "FAIL: the wheel is $(basename "$whl"), not cp39-abi3 manylinux2014"; exit 1 ;;
esac
printf 'wheel %s, %d bytes, built by the recipe in %d s\n' "$(basename "$whl")" "$(stat -c %s "$whl")" $(($(date +%s) - t0))

# the old distribution's root
root=$build/roots/bullseye
if [ ! -e "$root/.made" ]; then
    rm -rf "$root"
    mkdir -p "$(dirname "$root")"
    t0=$(date +%s)
    debootstrap --variant=minbase --include=python3,python3-venv bullseye "$root" http://deb.debian.org/debian \
        >"$tmp/debootstrap.log" 2>&1 || { tail -20 "$tmp/debootstrap.log"; echo "FAIL: debootstrap bullseye"; exit 1; }
    touch "$root/.made"
    echo "made the bullseye root in $(($(date +%s) - t0)) s"
fi
rm -rf "$root/oc" && mkdir -p "$root/oc/out"
cp "$whl" "$src/fixtures/mnist/torchsummary_net.onnx" "$root/oc/"
cat >"$root/oc/check.sh" <<'SH'
set -eu
cd /oc
python3 -c 'import platform, sys; print("inside: Python %s, %s %s" % (platform.python_version(), *platform.libc_ver()))'
rm -rf /tmp/venv && python3 -m venv /tmp/venv
/tmp/venv/bin/pip install -q --disable-pip-version-check --no-index ./onnxcost-*.whl
m=torchsummary_net.onnx
/tmp/venv/bin/onnxcost $m --batch 2 -q >out/batch2.txt
/tmp/venv/bin/python - $m <<'PY' >out/python.txt
import sys, onnxcost
a = onnxcost.analyze(sys.argv[1], batch=2)
print(a.macs, onnxcost.__file__)
PY
/tmp/venv/bin/onnxcost $m --format json >out/analyze.json
/tmp/venv/bin/onnxcost lint $m >out/lint.txt
/tmp/venv/bin/onnxcost plan $m >out/plan.txt
/tmp/venv/bin/onnxcost $m --dim batch=1:8 >out/ranges.txt
SH
unshare -m --propagation private sh -c 'mount -t proc proc "$1/proc" && mount --rbind /dev "$1/dev" && exec chroot "$1" sh /oc/check.sh' \
    inside "$root" || { echo "FAIL: the wheel inside the bullseye root"; exit 1; }
out=$root/oc/out
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
check "the command: 2 x 480,500 MACs at batch 2" "grep -q 'Total MACs: 961,000' '$out/batch2.txt'"
check "import onnxcost: 961000 MACs, from the venv" "grep -q '^961000 /tmp/venv/lib/python3.9/site-packages/onnxcost/__init__.py' '$out/python.txt'"
check "ranges: 480,500 at batch 1, 3,844,000 at 8" "grep -q 'MACs *\[480,500, 3,844,000\]' '$out/ranges.txt'"
cd "$src/fixtures/mnist"
"$cli" torchsummary_net.onnx --format json >"$tmp/analyze.json"
"$cli" lint torchsummary_net.onnx >"$tmp/lint.txt"
"$cli" plan torchsummary_net.onnx >"$tmp/plan.txt"
"$cli" torchsummary_net.onnx --dim batch=1:8 >"$tmp/ranges.txt"
for f in analyze.json lint.txt plan.txt ranges.txt; do
    check "$f as this tree's build prints it" "cmp -s '$out/$f' '$tmp/$f' || { diff '$out/$f' '$tmp/$f' | head -5; false; }"
done
[ "$fail" = 0 ] || exit 1

# python.package's checks and the Python tests, on the same wheel
ONNXCOST_WHEEL=$whl bash "$src/tests/python/package_check.sh" "$py" "$src" "$cli"
