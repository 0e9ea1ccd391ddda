#!/usr/bin/env bash
# Every model under fixtures/ (the MNIST nets, the broken and hostile files,
# the 63 real models of fixtures/corpus) through every report format and the
# heavier options: each run must end with exit 0 (or 1 for the budget run, or 4
# when the budget meets only a lower bound)
# or with exit 2 and exactly one stderr line naming the file; never a signal.
# Exit 2 only where expected: the files tests/refused.txt lists (each with its
# reason), for every command; for `onnxcost plan` also those of
# tests/refused_plan.txt, each for the reason given there; and for
# `onnxcost llm` every file but the decoders listed below; a listed file that is not refused fails too. Never a
# sanitizer report (run this under the -DONNXCOST_SANITIZE=ON
# build to check memory and undefined behaviour) or a valgrind error (set
# ONNXCOST_VALGRIND=1 to run each command under memcheck).
# JSON output must parse; HTML must be one document.
# usage: all_fixtures.sh ONNXCOST SOURCE_DIR [PYTHON]
set -u
bin=$1
src=$2
py=${3:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
runs=0
wrap=()
if [ "${ONNXCOST_VALGRIND:-0}" = 1 ]; then
    wrap=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
fi

# the files refused (path under fixtures/, reason): tests/refused.txt
declare -A refused=()
while read -r path _; do
    case $path in '' | '#'*) continue ;; esac
    refused[$path]=1
    if [ ! -e "$src/fixtures/$path" ]; then
        echo "FAIL tests/refused.txt lists $path, which is not under fixtures/"
        fail=1
    fi
done <"$src/tests/refused.txt"
# the files `onnxcost plan` refuses besides those (path, the text its error
# line holds): tests/refused_plan.txt
declare -A plan_refused=()
while read -r path why; do
    case $path in '' | '#'*) continue ;; esac
    plan_refused[$path]=$why
    if [ ! -e "$src/fixtures/$path" ]; then
        echo "FAIL tests/refused_plan.txt lists $path, which is not under fixtures/"
        fail=1
    fi
done <"$src/tests/refused_plan.txt"
# the decoders `onnxcost llm` takes (a KV cache that grows with a symbolic past
# dim); it refuses every other file: not a decoder, or (the static-scatter
# decoder) a KV cache of fixed length, which it does not model yet
declare -A decoders=(
    [corpus/microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-qwen35-cuda__decoder.onnx]=1
    [corpus/microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx]=1
    [corpus/microsoft+onnxruntime-genai/test__test_models__hf-internal-testing__tiny-random-LlamaForCausalLM-fp16__model/model.onnx]=1
)
refusals=0

cmd=() # the command before the file: analyze by default
check() { # file label args...
    local f=$1 label=$2
    shift 2
    runs=$((runs + 1))
    "${wrap[@]}" "$bin" "${cmd[@]}" "$f" "$@" -o "$tmp/out" 2>"$tmp/err"
    local rc=$?
    if grep -q 'runtime error:\|AddressSanitizer\|LeakSanitizer\|ERROR SUMMARY: [1-9]' "$tmp/err"; then
        echo "FAIL $f [$label]: sanitizer or valgrind report (exit $rc):"
        grep -m3 'runtime error:\|Sanitizer\|ERROR SUMMARY' "$tmp/err"
        fail=1
        return
    fi
    local lines
    lines=$(grep -vc '^onnxcost: warning\|^onnxcost: budget exceeded\|^onnxcost: budget not verified' "$tmp/err")
    local rel=${f#"$src/fixtures/"} expect=0
    if [ -n "${refused[$rel]:-}" ] || { [ "${cmd[0]:-}" = llm ] && [ -z "${decoders[$rel]:-}" ]; }; then
        expect=1
    fi
    local why=""
    if [ "${cmd[0]:-}" = plan ] && [ -n "${plan_refused[$rel]:-}" ]; then
        expect=1 # a plan needs every tensor's size: these files lack one, as listed
        why=${plan_refused[$rel]}
    fi
    if [ "$rc" = 2 ] && [ -n "$why" ] && ! grep -qF "$f: $why" "$tmp/err"; then
        echo "FAIL $f [$label]: refused, but not for the reason tests/refused_plan.txt gives ($why):"
        grep -v '^onnxcost: warning' "$tmp/err" | head -1
        fail=1
    fi
    if [ "$rc" = 2 ] && [ "$expect" = 0 ]; then
        echo "FAIL $f [$label]: refused (exit 2), but not an expected refusal (tests/refused.txt):"
        head -1 "$tmp/err"
        fail=1
    elif [ "$rc" != 2 ] && [ "$expect" = 1 ]; then
        echo "FAIL $f [$label]: exit $rc, but expected a refusal (listed in tests/refused.txt or, for plan, tests/refused_plan.txt; or llm on a non-decoder)"
        fail=1
    fi
    if [ "$rc" = 2 ] && [ "$expect" = 1 ]; then refusals=$((refusals + 1)); fi
    case $rc in
    0 | 1) ;;
    4) # a budget kept only by a lower bound: says which, naming the file
        if [ "$label" != budget ] || ! grep -qF "onnxcost: budget not verified: $f: " "$tmp/err"; then
            echo "FAIL $f [$label]: exit 4 without its 'budget not verified' line"
            head -3 "$tmp/err"
            fail=1
        fi
        ;;
    2)
        if [ "$lines" != 1 ] || ! grep -qF "$f" "$tmp/err"; then
            echo "FAIL $f [$label]: exit 2 with $lines error lines (want one naming the file):"
            head -3 "$tmp/err"
            fail=1
        fi
        return
        ;;
    *)
        echo "FAIL $f [$label]: exit $rc"
        head -5 "$tmp/err"
        fail=1
        return
        ;;
    esac
    if [ "$lines" != 0 ]; then
        echo "FAIL $f [$label]: exit $rc but stderr has non-warning lines:"
        grep -v '^onnxcost: warning\|^onnxcost: budget exceeded\|^onnxcost: budget not verified' "$tmp/err" | head -3
        fail=1
    fi
    case $label in
    json*)
        # valid JSON, and never complete with a node without a cost or a saturated count
        if ! "$py" -c 'import json,sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
t, c = d["totals"], d["coverage"]
exact = c["nodes_without_cost"] == 0 and not t["overflow"]
assert t["complete"] == exact and len(c["uncosted_nodes"]) == c["nodes_without_cost"], "complete flag wrong"
assert exact or any("incomplete analysis" in w or "64 bits" in w for w in d["warnings"]), "no warning"' \
            "$tmp/out" 2>"$tmp/jerr"; then
            echo "FAIL $f [$label]: output is not JSON or misstates completeness: $(tail -1 "$tmp/jerr")"
            fail=1
        fi
        ;;
    plan)
        if ! "$py" -c 'import json,sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["schema"] == "onnxcost-plan/1" and d["verified"] is True and d["arena_bytes"] >= d["lower_bound_bytes"]' \
            "$tmp/out" 2>"$tmp/jerr"; then
            echo "FAIL $f [$label]: not a verified plan: $(tail -1 "$tmp/jerr")"
            fail=1
        fi
        ;;
    html)
        if [ "$(grep -c '</html>' "$tmp/out")" != 1 ]; then
            echo "FAIL $f [$label]: HTML output is not one document"
            fail=1
        fi
        ;;
    esac
}

min_runs=800
if [ ${#wrap[@]} -gt 0 ]; then min_runs=200; fi
while IFS= read -r -d '' f; do
    check "$f" text -q
    check "$f" json-gpu --format json --batch 3 --gpu a100 --optimizer adam --gpus 4 --pipeline 2 --fit --depth 2 -q
    if [ ${#wrap[@]} -gt 0 ]; then continue; fi # under valgrind: the symbolic and the heaviest path only
    check "$f" json --format json -q
    check "$f" csv --format csv -q
    check "$f" md --format md -q
    check "$f" html --format html -q
    check "$f" budget --no-symbolic --sort bytes --top 5 --dtype fp16 --max-macs 1 -q
    cmd=(llm) # a decoder's view, or one line refusing the file
    check "$f" html --format html --prompt 8 --generate 2 --gpu h100
    cmd=(plan) # a verified plan, or one line saying which tensor has no size
    check "$f" plan --format json --batch 2
    cmd=()
done < <(find "$src/fixtures" -name '*.onnx' -print0 | sort -z)

echo "$runs runs, $refusals refused as expected (${#refused[@]} files in tests/refused.txt, plan: ${#plan_refused[@]} more in tests/refused_plan.txt, llm: ${#decoders[@]} decoders taken)"
if [ "$runs" -lt "$min_runs" ]; then
    echo "FAIL: expected the fixtures and the corpus (at least $min_runs runs), found $runs"
    fail=1
fi
exit $fail
