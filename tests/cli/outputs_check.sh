#!/usr/bin/env bash
# cli.outputs — every -o of every command (and annotate's OUT, calibrate's
# --report) writes as docs/ROBUSTNESS.md "Output files" says: a regular file
# replaced whole with its owner, group and mode kept, a symlink kept, a
# device or FIFO written through (never replaced), a directory refused in one
# line, a failed run leaving the old file as it was, and nothing but the
# named path touched. Expected contents come from the same command writing
# to standard output.
# usage: outputs_check.sh ONNXCOST SOURCE_DIR
set -u
bin=$1
src=$2
fx=$src/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

mnist=$fx/mnist/torchsummary_net.onnx
gpt2=$(ls "$fx"/corpus/microsoft+onnxruntime-genai/*gpt2-fp32__past.onnx)
R=$fx/replay
root=0
[ "$(id -u)" = 0 ] && root=1

# name | the option that names the output | the rest of the command line
cases=(
    "analyze|-o|$mnist --batch 2"
    "analyze_json|-o|$mnist --batch 2 --format json"
    "llm|-o|llm $gpt2 --prompt 8 --generate 2"
    "compare|-o|compare $mnist $fx/mnist/examples_net.onnx"
    "sweep|-o|sweep $mnist --dim batch=1,2"
    "replay_plan|-o|replay $mnist --plan"
    "merge|-o|merge $R/a100.json $R/v100.json"
    "calibrate_report|--report|calibrate $R/a100.json --gpu a100"
    "calibrate_spec|-o|calibrate $R/a100.json --gpu a100 --report $tmp/report"
)

for c in "${cases[@]}"; do
    IFS='|' read -r name opt args <<<"$c"
    # shellcheck disable=SC2086
    "$bin" $args >"$tmp/want" 2>/dev/null
    if [ "$name" = calibrate_spec ]; then # the spec, not the report: compare through a plain file
        # shellcheck disable=SC2086
        "$bin" $args -o "$tmp/want" >/dev/null 2>&1
    fi
    if [ ! -s "$tmp/want" ]; then
        bad "$name: the command gives no output to compare with"
        continue
    fi
    d=$tmp/$name
    mkdir "$d"

    # a regular file: replaced whole, owner, group and mode kept (another
    # user's file when running as root), through a symlink the link kept
    echo old >"$d/out"
    chmod 640 "$d/out"
    [ $root = 1 ] && chown 1234:5678 "$d/out"
    before=$(stat -c '%u:%g %a' "$d/out")
    ln -s out "$d/link"
    # shellcheck disable=SC2086
    "$bin" $args "$opt" "$d/link" >/dev/null 2>"$tmp/err"
    rc=$?
    after=$(stat -c '%u:%g %a' "$d/out")
    if [ $rc != 0 ] || ! cmp -s "$d/out" "$tmp/want"; then
        bad "$name regular: exit $rc, contents differ from standard output's ($(head -c 200 "$tmp/err"))"
    elif [ "$before" != "$after" ]; then
        bad "$name regular: owner/mode $before became $after"
    elif [ ! -L "$d/link" ] || [ "$(readlink "$d/link")" != out ]; then
        bad "$name regular: the symlink was replaced"
    else ok; fi

    # nothing else in the directory: no temporary file left
    if [ "$(cd "$d" && ls -A | tr '\n' ' ')" != "link out " ]; then
        bad "$name: files left beside the output: $(cd "$d" && ls -A | tr '\n' ' ')"
    else ok; fi

    # a FIFO: written through, still a FIFO, the reader gets the report
    mkfifo "$d/fifo"
    timeout 60 cat "$d/fifo" >"$d/read" &
    reader=$!
    # shellcheck disable=SC2086
    timeout 60 "$bin" $args "$opt" "$d/fifo" >/dev/null 2>"$tmp/err"
    rc=$?
    wait $reader
    if [ $rc != 0 ] || [ ! -p "$d/fifo" ] || ! cmp -s "$d/read" "$tmp/want"; then
        bad "$name fifo: exit $rc, fifo kept: $([ -p "$d/fifo" ] && echo yes || echo no), $(head -c 200 "$tmp/err")"
    else ok; fi

    # a character device: written through, never replaced (as root, a node of
    # our own for the null device, so that a regression cannot replace
    # /dev/null itself; anyone else gets /dev/null, which they cannot replace)
    null=/dev/null
    if [ $root = 1 ] && mknod "$d/null" c 1 3; then null=$d/null; fi
    # shellcheck disable=SC2086
    "$bin" $args "$opt" "$null" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc != 0 ] || [ ! -c "$null" ]; then
        bad "$name $null: exit $rc, still a character device: $([ -c "$null" ] && echo yes || echo no)"
    else ok; fi
    rm -f "$d/null"

    # a directory: one line, exit 3, the directory untouched
    mkdir "$d/dir"
    # shellcheck disable=SC2086
    "$bin" $args "$opt" "$d/dir" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc != 3 ] || [ "$(tail -n 1 "$tmp/err")" != "onnxcost: error: $d/dir: cannot write: is a directory" ] ||
        [ -n "$(ls -A "$d/dir")" ]; then
        bad "$name directory: exit $rc, stderr: $(head -c 200 "$tmp/err")"
    else ok; fi
done

# a run that fails after the output is named leaves the old file as it was
# (analyze: a --baseline that is not JSON is read after the output is opened)
echo old >"$tmp/keep"
echo 'not json' >"$tmp/baseline.json"
"$bin" "$mnist" --baseline "$tmp/baseline.json" -o "$tmp/keep" >/dev/null 2>&1
rc=$?
if [ $rc != 2 ] || [ "$(cat "$tmp/keep")" != old ] || ls -A "$tmp" | grep -q '^\.onnxcost'; then
    bad "failed run: exit $rc, the old file now: $(head -c 40 "$tmp/keep")"
else ok; fi

# as another user (when root can become one): a file they may not write is
# refused, not replaced; another user's file they may write is rewritten in
# place, its owner kept (they cannot give a new file away)
if [ $root = 1 ] && command -v setpriv >/dev/null; then
    d=$tmp/nobody
    mkdir "$d"
    chmod 777 "$tmp" "$d"
    echo old >"$d/ro.txt"
    chmod 444 "$d/ro.txt"
    echo old >"$d/theirs.txt"
    chmod 666 "$d/theirs.txt"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" "$@"; }
    as_nobody "$mnist" -o "$d/ro.txt" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc != 3 ] || [ "$(cat "$d/ro.txt")" != old ] ||
        [ "$(cat "$tmp/err")" != "onnxcost: error: $d/ro.txt: cannot write: Permission denied" ]; then
        bad "read-only file: exit $rc, $(head -c 200 "$tmp/err")"
    else ok; fi
    as_nobody "$mnist" -o "$d/theirs.txt" >/dev/null 2>&1
    rc=$?
    if [ $rc != 0 ] || [ "$(stat -c %u "$d/theirs.txt")" != 0 ] || ! grep -q "Total params" "$d/theirs.txt"; then
        bad "another user's writable file: exit $rc, owner $(stat -c %u "$d/theirs.txt")"
    else ok; fi
    if [ "$(cd "$d" && ls -A | tr '\n' ' ')" != "ro.txt theirs.txt " ]; then
        bad "as another user: files left: $(cd "$d" && ls -A | tr '\n' ' ')"
    else ok; fi
fi

# annotate: the same for OUT, and in place on the input
d=$tmp/annotate
mkdir "$d"
cp "$mnist" "$d/m.onnx"
"$bin" annotate "$mnist" -o "$d/want.onnx" -q
chmod 604 "$d/m.onnx"
[ $root = 1 ] && chown 1234:5678 "$d/m.onnx"
before=$(stat -c '%u:%g %a' "$d/m.onnx")
"$bin" annotate "$d/m.onnx" -o "$d/m.onnx" -q
rc=$?
if [ $rc != 0 ] || ! cmp -s "$d/m.onnx" "$d/want.onnx" || [ "$(stat -c '%u:%g %a' "$d/m.onnx")" != "$before" ]; then
    bad "annotate in place: exit $rc, owner/mode $before -> $(stat -c '%u:%g %a' "$d/m.onnx")"
else ok; fi
mkfifo "$d/fifo"
timeout 60 cat "$d/fifo" >"$d/read" &
reader=$!
timeout 60 "$bin" annotate "$mnist" -o "$d/fifo" -q 2>"$tmp/err"
rc=$?
wait $reader
if [ $rc != 0 ] || [ ! -p "$d/fifo" ] || ! cmp -s "$d/read" "$d/want.onnx"; then
    bad "annotate fifo: exit $rc, $(head -c 200 "$tmp/err")"
else ok; fi
null=/dev/null
if [ $root = 1 ] && mknod "$d/null" c 1 3; then null=$d/null; fi
"$bin" annotate "$mnist" -o "$null" -q
rc=$?
if [ $rc != 0 ] || [ ! -c "$null" ]; then bad "annotate $null: exit $rc"; else ok; fi
rm -f "$d/null"
if [ "$(cd "$d" && ls -A | tr '\n' ' ')" != "fifo m.onnx read want.onnx " ]; then
    bad "annotate: files left beside the output: $(cd "$d" && ls -A | tr '\n' ' ')"
else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
