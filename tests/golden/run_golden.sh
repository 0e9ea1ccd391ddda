#!/usr/bin/env bash
# Golden-file tests: every report format on two fixtures, compared byte for
# byte with tests/golden/*. The numbers inside were checked independently
# (tests/cli, tests/unit, the oracles); these files pin the layout.
# ONNXCOST_UPDATE_GOLDEN=1 rewrites them (review the diff before committing)
# and exits 1: a run that rewrote the files compared nothing, never a pass.
# usage: run_golden.sh ONNXCOST SOURCE_DIR
set -u
bin=$1
src=$2
cd "$src" || exit 1
pass=0
fail=0
for fx in torchsummary_net examples_net; do
    for fmt in text json csv md html; do
        ext=$fmt
        [ "$fmt" = text ] && ext=txt
        want=tests/golden/$fx.$ext
        got=$("$bin" "fixtures/mnist/$fx.onnx" --batch 1 --format "$fmt" 2>&1; echo "exit $?")
        if [ "${ONNXCOST_UPDATE_GOLDEN:-0}" = 1 ]; then
            printf '%s\n' "$got" >"$want"
            continue
        fi
        if [ "$(printf '%s\n' "$got")" = "$(cat "$want" 2>/dev/null)" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL $want differs:"
            diff <(printf '%s\n' "$got") "$want" | head -20
            fail=$((fail + 1))
        fi
    done
done
if [ "${ONNXCOST_UPDATE_GOLDEN:-0}" = 1 ]; then
    echo "ONNXCOST_UPDATE_GOLDEN=1: tests/golden rewritten, nothing compared (exit 1); review the diff, rerun without it"
    exit 1
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" = 10 ]
