# Shared helpers of the CLI test scripts (sourced; needs $bin, $tmp and the
# counters pass/fail set by the caller).

# expect NAME RC STDERR_LINE -- ARGS...   (STDERR_LINE "" = stderr must be empty)
expect() {
    local name=$1 rc=$2 line=$3
    shift 4
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    local err
    err=$(cat "$tmp/err")
    if [ "$got" != "$rc" ] || [ "$err" != "$line" ]; then
        echo "FAIL $name: exit $got (want $rc)"
        echo "  stderr: $(head -c 600 "$tmp/err")"
        echo "  want:   $line"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

# expect_out NAME LINE...: stdout must contain every given line (fixed strings)
expect_out() {
    local name=$1
    shift
    for want in "$@"; do
        if ! grep -qF -- "$want" "$tmp/out"; then
            echo "FAIL $name: output lacks: $want"
            fail=$((fail + 1))
            return
        fi
    done
    pass=$((pass + 1))
}
