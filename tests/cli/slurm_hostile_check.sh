#!/usr/bin/env bash
# cli.slurm_hostile — `onnxcost slurm` with hostile values, no cluster
# needed: the scripts it writes are run here under bash, with a stand-in
# onnxcost (records its arguments, writes the file -o names) and a stand-in
# sbatch (checks that every #SBATCH line comes before the first command, as
# sbatch stops reading them there, and prints a job id).
#   * a working folder and -o holding a space, $(...), ` and ': the task and
#     merge scripts run, nothing in the names runs, the stand-in gets the
#     model's path whole and writes where the merge job looks;
#   * a newline in --partition, --account or --time, a quote or backslash
#     there, a control character in -o or the model's path, % in -o: one
#     line naming the option, exit 2, nothing written;
#   * a script path that is a symlink to the model, and a model named
#     merge.sbatch in -o: one line, exit 2, the model unchanged.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
model_src=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
root=$(mktemp -d /tmp/onnxcost-slurm-hostile.XXXXXX)
trap 'rm -rf "$root"' EXIT
cd "$root" || exit 1
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

# the folder a user runs in: every character a shell would act on
work="$root/w \$(touch INJ1) \`touch INJ2\` it's"
mkdir -p "$work/stub"
cp "$model_src" "$work/m o\$(touch INJ3).onnx"
model="$work/m o\$(touch INJ3).onnx"
cat >"$work/stub/onnxcost" <<'EOF'
#!/bin/bash
# stand-in: the arguments one per line, then the file -o names
log=${STUB_LOG:?}
[ -n "${STUB_FAIL:-}" ] && exit 1  # a task that fails: no result
printf '%s\n' "$@" >>"$log"
printf -- '--\n' >>"$log"
out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
[ -n "$out" ] && echo '{"stub": true}' >"$out"
exit 0
EOF
cat >"$work/stub/sbatch" <<'EOF'
#!/bin/bash
# stand-in: every #SBATCH line before the first command, then a job id
script=${@: -1}
seen_cmd=0
while IFS= read -r line; do
    case "$line" in
    '#SBATCH'*) [ $seen_cmd = 1 ] && { echo "sbatch: #SBATCH after a command: $line" >&2; exit 1; } ;;
    '#'* | '') ;;
    *) seen_cmd=1 ;;
    esac
done <"$script"
echo "$script" >>"${STUB_SBATCH:?}"
echo 4242
EOF
chmod +x "$work/stub/onnxcost" "$work/stub/sbatch"
export STUB_LOG="$root/stub.log" STUB_SBATCH="$root/sbatch.log"

# written and submitted (the stand-in sbatch), from the hostile folder, with
# a relative model and -o
(cd "$work" && PATH="$work/stub:$PATH" "$bin" slurm "m o\$(touch INJ3).onnx" --gpus a100,h100 --batch 1,8 \
    --partition 'gpu,debug' --account 'proj-1' --time '01:00:00' --onnxcost "$work/stub/onnxcost" \
    -o "out \$(touch INJ4)" -- --math tf32 >"$root/submit.out" 2>&1)
rc=$?
out="$work/out \$(touch INJ4)"
check submitted "[ $rc = 0 ] && [ \$(wc -l <\"\$STUB_SBATCH\") = 3 ]"
check sbatch_lines_first "! grep -q 'after a command' \"\$root/submit.out\""
check quoted_directives "grep -qx '#SBATCH --partition=\"gpu,debug\"' \"\$out/a100.sbatch\" &&
    grep -qx '#SBATCH --output=\"'\"\$out\"'/logs/h100-%a.out\"' \"\$out/h100.sbatch\""
# the array tasks and the merge job, run as Slurm would (the task id set)
for kind in a100 h100; do
    for t in 0 1; do
        SLURM_ARRAY_TASK_ID=$t bash "$out/$kind.sbatch" >>"$root/tasks.out" 2>&1 || echo "task $kind $t: exit $?" >>"$root/tasks.out"
    done
done
bash "$out/merge.sbatch" >"$root/merge.out" 2>&1
check tasks_ran "[ ! -s \"\$root/tasks.out\" ] && [ -s \"\$out/results/a100-b1.json\" ] && [ -s \"\$out/results/h100-b8.json\" ]"
check model_whole "grep -qxF \"\$model\" \"\$STUB_LOG\" && grep -qx 'tf32' \"\$STUB_LOG\""
check merged "grep -q '4 of 4 task results merged' \"\$root/merge.out\" && [ -s \"\$out/merged-b8.json\" ]"
check nothing_injected "[ -z \"\$(find \"\$root\" -name 'INJ*')\" ] && [ -z \"\$(find / -maxdepth 1 -name 'INJ*')\" ]"
# a rerun into the same -o: a task that fails this time leaves no result of the first run to be merged, and
# failed.txt holds this submission's failures only (the first run's merge left one there, planted)
echo 'failed: from an earlier submission' >"$out/failed.txt"
for kind in a100 h100; do
    for t in 0 1; do
        if [ $kind$t = h1001 ]; then
            SLURM_ARRAY_TASK_ID=$t STUB_FAIL=1 bash "$out/$kind.sbatch" >/dev/null 2>&1
        else
            SLURM_ARRAY_TASK_ID=$t bash "$out/$kind.sbatch" >/dev/null 2>&1
        fi
    done
done
bash "$out/merge.sbatch" >"$root/merge2.out" 2>&1
check rerun_stale_result_not_merged "[ ! -e \"\$out/results/h100-b8.json\" ] &&
    grep -q '3 of 4 task results merged' \"\$root/merge2.out\" && [ \$(wc -l <\"\$out/failed.txt\") = 1 ] &&
    grep -q 'h100 batch 8' \"\$out/failed.txt\""

# hostile values: one line naming the option, exit 2, no script written
nl=$'\n'
opts=(--partition --account --time --partition --account --time -o -o)
vals=("gpu${nl}touch $root/INJ5" "a${nl}#SBATCH --exclusive" "1:00${nl}id" 'g"p' 'a\b' $'1:00\r' "$root/x${nl}y"
    "$root/a%j")
for n in "${!opts[@]}"; do
    opt=${opts[$n]}
    val=${vals[$n]}
    dir="$root/h$n"
    if [ "$opt" = -o ]; then
        "$bin" slurm "$model" --cpu --dry-run -o "$val" >"$root/u.out" 2>&1
    else
        "$bin" slurm "$model" --cpu --dry-run -o "$dir" "$opt" "$val" >"$root/u.out" 2>&1
    fi
    rc=$?
    check "refused: $opt $(printf %q "$val")" "[ $rc = 2 ] && [ \$(wc -l <\"\$root/u.out\") = 1 ] &&
        grep -q -- '$opt ' \"\$root/u.out\" && [ ! -e \"\$root/h$n/cpu.sbatch\" ] && [ ! -e \"\$root/x\" ]"
done
cp "$model_src" "$root/ctl"$'\t'".onnx"
"$bin" slurm "$root/ctl"$'\t'".onnx" --cpu --dry-run -o "$root/h9" >"$root/u.out" 2>&1
rc=$?
check "refused: a tab in the model's path" "[ $rc = 2 ] && [ \$(wc -l <\"\$root/u.out\") = 1 ] && [ ! -e \"\$root/h9\" ]"

# the scripts never go over an input, nor through a symlink
mkdir -p "$root/d"
cp "$model_src" "$root/d/model.onnx"
sum=$(cksum <"$root/d/model.onnx")
ln -s model.onnx "$root/d/cpu.sbatch"
"$bin" slurm "$root/d/model.onnx" --cpu --dry-run -o "$root/d" >"$root/u.out" 2>&1
rc=$?
check symlink_refused "[ $rc = 2 ] && [ \$(wc -l <\"\$root/u.out\") = 1 ] && [ \"\$(cksum <\"\$root/d/model.onnx\")\" = '$sum' ]"
rm "$root/d/cpu.sbatch"
cp "$model_src" "$root/d/merge.sbatch"
sum=$(cksum <"$root/d/merge.sbatch")
"$bin" slurm "$root/d/merge.sbatch" --cpu --dry-run -o "$root/d" >"$root/u.out" 2>&1
rc=$?
check model_named_merge "[ $rc = 2 ] && grep -q 'which this run reads' \"\$root/u.out\" &&
    [ \"\$(cksum <\"\$root/d/merge.sbatch\")\" = '$sum' ]"
ln "$root/d/model.onnx" "$root/d/h100.sbatch"
sum=$(cksum <"$root/d/model.onnx")
"$bin" slurm "$root/d/model.onnx" --gpus h100 --dry-run -o "$root/d" >"$root/u.out" 2>&1
rc=$?
check hard_link_refused "[ $rc = 2 ] && [ \"\$(cksum <\"\$root/d/model.onnx\")\" = '$sum' ]"

[ $fail = 0 ] && echo "cli.slurm_hostile: ok"
exit $fail
