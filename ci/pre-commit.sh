#!/usr/bin/env bash
# pre-commit.sh — the pre-commit hook (.pre-commit-hooks.yaml): onnxcost
# options first, then the .onnx files pre-commit passes; each file is
# analyzed with those options (warnings quiet), and the hook exits with the
# worst code (0 ok, 1 a budget exceeded, 2 a bad model, 4 not verified).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
opts=() files=()
for a in "$@"; do
    case $a in
    *.onnx) files+=("$a") ;;
    *) opts+=("$a") ;;
    esac
done
bin="${ONNXCOST_BIN:-}"
if [ -z "$bin" ]; then
    build="$here/.pre-commit-build"
    if [ ! -x "$build/onnxcost" ]; then
        cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONNXCOST_TESTS=OFF >"$build.log" 2>&1 &&
            cmake --build "$build" -j "$(nproc)" --target onnxcost >>"$build.log" 2>&1 || {
            tail -30 "$build.log" >&2
            exit 3
        }
    fi
    bin="$build/onnxcost"
fi
worst=0
for f in "${files[@]}"; do
    "$bin" "$f" -q "${opts[@]}" >/dev/null
    rc=$?
    [ $rc -gt $worst ] && worst=$rc
done
exit $worst
