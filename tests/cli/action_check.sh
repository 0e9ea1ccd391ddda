#!/usr/bin/env bash
# The GitHub Action's script (ci/action.sh) and the pre-commit hook's
# (ci/pre-commit.sh) run as the runner and pre-commit run them: inputs in
# ONNXCOST_* variables, GITHUB_STEP_SUMMARY / GITHUB_OUTPUT / RUNNER_TEMP set,
# ONNXCOST_BIN the built onnxcost (the action's own build is not exercised
# here). usage: action_check.sh ONNXCOST SOURCE_DIR
bin=$1
src=$2
fx="$src/fixtures"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

run_action() { # NAME WANT_RC VAR=VALUE...: runs the action script in a clean runner environment
    local name=$1 want=$2
    shift 2
    : >"$tmp/summary.md"
    : >"$tmp/output"
    env -i PATH="$PATH" HOME="$tmp" RUNNER_TEMP="$tmp" GITHUB_STEP_SUMMARY="$tmp/summary.md" \
        GITHUB_OUTPUT="$tmp/output" GITHUB_ACTIONS=true ONNXCOST_BIN="$bin" "$@" \
        bash "$src/ci/action.sh" >"$tmp/stdout" 2>"$tmp/stderr"
    local rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit $rc (want $want): $(head -c 300 "$tmp/stderr")"
        fail=$((fail + 1))
        return 1
    fi
    if ! grep -qx "exit-code=$want" "$tmp/output" || ! grep -q '^report=' "$tmp/output"; then
        echo "FAIL $name: GITHUB_OUTPUT lacks report= or exit-code=$want: $(cat "$tmp/output")"
        fail=$((fail + 1))
        return 1
    fi
    pass=$((pass + 1))
}

action_refused() { # NAME MESSAGE VAR=VALUE...: the action fails, saying MESSAGE on stderr
    local name=$1 msg=$2
    shift 2
    if env -i PATH="$PATH" RUNNER_TEMP="$tmp" ONNXCOST_BIN="$bin" "$@" \
        bash "$src/ci/action.sh" >/dev/null 2>"$tmp/stderr"; then
        echo "FAIL $name: exit 0 (want a refusal: $msg)"
        fail=$((fail + 1))
    elif ! grep -qF -- "$msg" "$tmp/stderr"; then
        echo "FAIL $name: $(cat "$tmp/stderr")"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

summary_has() { # NAME TEXT...
    local name=$1
    shift
    for t in "$@"; do
        if ! grep -qF -- "$t" "$tmp/summary.md"; then
            echo "FAIL $name: the job summary lacks: $t"
            fail=$((fail + 1))
            return
        fi
    done
    pass=$((pass + 1))
}

M="$fx/mnist/torchsummary_net.onnx" # 21,840 params, 480,500 MACs at batch 1
run_action within 0 ONNXCOST_MODEL="$M" ONNXCOST_BATCH=1 ONNXCOST_MAX_MACS=1M ONNXCOST_MAX_PARAMS=30k
summary_has within_summary "is within its budgets" "### onnxcost: $M" "| params | 21,840 |" "| MACs | 480,500 |"
run_action exceeded 1 ONNXCOST_MODEL="$M" ONNXCOST_DIMS="batch=4" ONNXCOST_MAX_MACS=1M
summary_has exceeded_summary "budget exceeded" "> onnxcost: budget exceeded: $M: MACs 1,922,000 > 1,000,000 (--max-macs 1M), over by 92.2 %" "| MACs | 1,922,000 |"
# a budget over a range of batches holds for the largest (3,844,000 MACs at batch 8) or names the batch that breaks it
run_action range_within 0 ONNXCOST_MODEL="$M" ONNXCOST_DIMS="batch=1:8" ONNXCOST_MAX_MACS=3844000
summary_has range_within_summary "is within its budgets" "**Over the ranges** batch 1..8" "| MACs | [480,500, 3,844,000] | batch=1 | batch=8 |"
run_action range_exceeded 1 ONNXCOST_MODEL="$M" ONNXCOST_DIMS="batch=1:8" ONNXCOST_MAX_MACS=2M
summary_has range_exceeded_summary "budget exceeded" "> onnxcost: budget exceeded: $M: MACs 3,844,000 > 2,000,000 (--max-macs 2M) at batch=8, over by 92.2 %"
run_action unverified 4 ONNXCOST_MODEL="$fx/bad/unknown_op.onnx" ONNXCOST_MAX_FLOPS=1G
summary_has unverified_summary "budget not verified" "Incomplete analysis"
run_action allowed 0 ONNXCOST_MODEL="$fx/bad/unknown_op.onnx" ONNXCOST_MAX_FLOPS=1G ONNXCOST_ALLOW_INCOMPLETE=true
run_action bad_model 2 ONNXCOST_MODEL="$fx/bad/cycle.onnx"
summary_has bad_model_summary "could not analyze"
# lint: findings in the summary; the step fails on one at the level given
G="$fx/corpus/microsoft+onnxruntime-genai/test__models__hf-internal-testing__tiny-random-gpt2-fp32__past.onnx"
run_action lint_warning 1 ONNXCOST_MODEL="$G" ONNXCOST_LINT=warning
summary_has lint_warning_summary "lint findings" "### Lint" "weights/duplicate-transposed"
run_action lint_never 0 ONNXCOST_MODEL="$G" ONNXCOST_LINT=never
summary_has lint_never_summary "is within its budgets" "### Lint" "weights/duplicate-transposed"
run_action lint_range 0 ONNXCOST_MODEL="$M" ONNXCOST_DIMS="batch=1:8" ONNXCOST_LINT=warning
summary_has lint_range_summary "is within its budgets" "### Lint"
run_action lint_clean 0 ONNXCOST_MODEL="$M" ONNXCOST_BATCH=1 ONNXCOST_LINT=warning
summary_has lint_clean_summary "is within its budgets" "### Lint" "0 errors, 0 warnings"
action_refused lint_bad "the 'lint' input takes" ONNXCOST_MODEL="$M" ONNXCOST_LINT=loud
run_action gpu 0 ONNXCOST_MODEL="$M" ONNXCOST_BATCH=1 ONNXCOST_GPU=t4 ONNXCOST_ARGS="--depth 1"
summary_has gpu_summary "### GPU prediction" "| module |"
action_refused no_model "the 'model' input is required"

# pre-commit: options, then the files; the worst exit code
pc() { env -i PATH="$PATH" ONNXCOST_BIN="$bin" bash "$src/ci/pre-commit.sh" "$@" >/dev/null 2>"$tmp/stderr"; }
pc --batch 1 --max-macs 1M "$M" "$fx/mnist/examples_net.onnx"
rc=$? # examples_net: 11,992,448 MACs at batch 1
if [ $rc = 1 ] && grep -qF "examples_net.onnx: MACs 11,992,448 > 1,000,000" "$tmp/stderr"; then
    pass=$((pass + 1))
else
    echo "FAIL pre-commit exceeded: exit $rc: $(head -c 300 "$tmp/stderr")"
    fail=$((fail + 1))
fi
if pc --batch 1 --max-macs 1M "$M"; then pass=$((pass + 1)); else
    echo "FAIL pre-commit within: $(head -c 300 "$tmp/stderr")"
    fail=$((fail + 1))
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
