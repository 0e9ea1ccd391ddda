#!/usr/bin/env bash
# action.sh — what the GitHub Action (action.yml) runs: build onnxcost once,
# analyze the model with the budgets, append the Markdown report and the
# verdict to the job summary, and exit with onnxcost's code (0 ok, 1 a budget
# exceeded, 2 a bad model, 4 a budget not verified on an incomplete analysis).
#
# Inputs, from the environment (action.yml sets them from its inputs):
#   ONNXCOST_MODEL            the .onnx file (required)
#   ONNXCOST_DIMS             "NAME=N NAME=N" bindings, or ranges "NAME=LO:HI"
#   ONNXCOST_BATCH            --batch N
#   ONNXCOST_MAX_PARAMS, ONNXCOST_MAX_MACS, ONNXCOST_MAX_FLOPS,
#   ONNXCOST_MAX_PARAMS_SIZE, ONNXCOST_MAX_PEAK_MEMORY   budgets (30M, 5G, 2GiB)
#   ONNXCOST_BUDGET           a budget JSON file
#   ONNXCOST_ALLOW_INCOMPLETE "true": a budget may pass on a lower bound
#   ONNXCOST_GPU              --gpu NAME (predicted time in the report)
#   ONNXCOST_LINT             a level (note, warning, error) or "never": lint's
#                             findings in the report, and the step fails (1) on
#                             one at that level or above; empty or "false": none
#   ONNXCOST_ARGS             more options, split on spaces
#   ONNXCOST_BIN              an onnxcost to use instead of building one
# and the runner's: GITHUB_STEP_SUMMARY (appended to), GITHUB_OUTPUT (gets
# report=PATH and exit-code=N), RUNNER_TEMP (the build and the report).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
model="${ONNXCOST_MODEL:-}"
if [ -z "$model" ]; then
    echo "onnxcost action: the 'model' input is required" >&2
    exit 2
fi

bin="${ONNXCOST_BIN:-}"
if [ -z "$bin" ]; then
    build="$tmp/onnxcost-build"
    if [ ! -x "$build/onnxcost" ]; then
        command -v protoc-c >/dev/null && pkg-config --exists jansson || bash "$here/.ci/install-deps" --build-only
        log="$tmp/onnxcost-build.log"
        cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONNXCOST_TESTS=OFF >"$log" 2>&1 &&
            cmake --build "$build" -j "$(nproc)" --target onnxcost >>"$log" 2>&1 || {
            tail -30 "$log" >&2
            echo "onnxcost action: the build failed (log above)" >&2
            exit 3
        }
    fi
    bin="$build/onnxcost"
fi

args=(--format md)
read -r -a dims <<<"${ONNXCOST_DIMS:-}" # split on spaces, no globbing
for d in ${dims[@]+"${dims[@]}"}; do args+=(--dim "$d"); done
[ -n "${ONNXCOST_BATCH:-}" ] && args+=(--batch "$ONNXCOST_BATCH")
for k in params macs flops params-size peak-memory; do
    var="ONNXCOST_MAX_$(echo "$k" | tr 'a-z-' 'A-Z_')"
    [ -n "${!var:-}" ] && args+=("--max-$k" "${!var}")
done
[ -n "${ONNXCOST_BUDGET:-}" ] && args+=(--budget "$ONNXCOST_BUDGET")
[ "${ONNXCOST_ALLOW_INCOMPLETE:-false}" = true ] && args+=(--allow-incomplete)
[ -n "${ONNXCOST_GPU:-}" ] && args+=(--gpu "$ONNXCOST_GPU")
# shellcheck disable=SC2206 # extra options are split on spaces on purpose
[ -n "${ONNXCOST_ARGS:-}" ] && args+=(${ONNXCOST_ARGS})

lint="${ONNXCOST_LINT:-}"
[ "$lint" = false ] && lint=""
case "$lint" in
"" | note | warning | error | never) ;;
*)
    echo "onnxcost action: the 'lint' input takes note, warning, error, never or false, got '$lint'" >&2
    exit 2
    ;;
esac
[ -n "$lint" ] && args+=(--lint)

report="$tmp/onnxcost-report.md"
"$bin" "$model" "${args[@]}" -o "$report" 2>"$tmp/onnxcost-stderr.txt"
rc=$?
cat "$tmp/onnxcost-stderr.txt" >&2
case $rc in
0) verdict="**onnxcost:** \`$model\` is within its budgets." ;;
1) verdict="**onnxcost: budget exceeded** for \`$model\`." ;;
4) verdict="**onnxcost: budget not verified** for \`$model\`: the analysis is incomplete, so what the budget limits is only a lower bound (set allow-incomplete to accept it)." ;;
*) verdict="**onnxcost could not analyze** \`$model\` (exit $rc)." ;;
esac
if [ -n "$lint" ] && [ "$rc" = 0 ]; then # the lint verdict, from the bindings the report's lint section used
    largs=()
    for d in ${dims[@]+"${dims[@]}"}; do # a range: its upper end, where the report's analysis is
        case "$d" in
        *=*:*) largs+=(--dim "${d%%=*}=${d##*:}") ;;
        *) largs+=(--dim "$d") ;;
        esac
    done
    [ -n "${ONNXCOST_BATCH:-}" ] && largs+=(--batch "$ONNXCOST_BATCH")
    [ -n "${ONNXCOST_GPU:-}" ] && largs+=(--gpu "$ONNXCOST_GPU")
    "$bin" lint "$model" ${largs[@]+"${largs[@]}"} --fail-on "$lint" -o "$tmp/onnxcost-lint.txt" \
        2>>"$tmp/onnxcost-stderr.txt"
    lrc=$?
    if [ "$lrc" = 1 ]; then
        rc=1
        verdict="**onnxcost: lint findings** at level $lint or above in \`$model\` (see Lint below)."
    elif [ "$lrc" != 0 ]; then
        rc=$lrc
        verdict="**onnxcost could not lint** \`$model\` (exit $lrc)."
    fi
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    {
        echo "$verdict"
        echo
        if [ -s "$tmp/onnxcost-stderr.txt" ]; then
            sed 's/^/> /' "$tmp/onnxcost-stderr.txt"
            echo
        fi
        [ -s "$report" ] && cat "$report"
    } >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "report=$report" >>"$GITHUB_OUTPUT"
    echo "exit-code=$rc" >>"$GITHUB_OUTPUT"
fi
exit $rc
