#!/usr/bin/env bash
# `cmake --install` into a scratch prefix gives the binary, the man page and a
# usable library: a small C program built with `pkg-config --cflags --libs
# onnxcost` analyzes the seed-000 fixture and prints its parameter count.
# usage: install_check.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null || { echo "FAIL cmake --install"; exit 1; }
for f in bin/onnxcost share/man/man1/onnxcost.1 include/onnxcost/analyzer/analyze.h include/onnxcost/views/perf/perf.h \
    share/doc/onnxcost/LICENSE share/doc/onnxcost/NOTICE; do
    [ -e "$tmp/prefix/$f" ] || { echo "FAIL missing $f"; fail=$((fail + 1)); }
done
# the licence is Apache-2.0's text, and the notices name what the binary links
grep -q "Apache License" "$tmp/prefix/share/doc/onnxcost/LICENSE" 2>/dev/null &&
    grep -q "Version 2.0, January 2004" "$tmp/prefix/share/doc/onnxcost/LICENSE" ||
    { echo "FAIL the installed LICENSE is not the Apache License 2.0"; fail=$((fail + 1)); }
for lib in Jansson protobuf-c ONNX; do
    grep -q "^$lib (" "$tmp/prefix/share/doc/onnxcost/NOTICE" 2>/dev/null ||
        { echo "FAIL the installed NOTICE lacks $lib's notice"; fail=$((fail + 1)); }
done
pc=$(find "$tmp/prefix" -name onnxcost.pc | head -1)
[ -n "$pc" ] || { echo "FAIL no onnxcost.pc"; exit 1; }
cat >"$tmp/use.c" <<'C'
#include <analyze.h>
#include <perf/perf.h>
#include <model.h>
#include <stdio.h>
int main(int argc, char **argv) {
    struct oc_diag d = {0};
    struct oc_model *m;
    struct oc_analysis *an;
    struct oc_analyze_opts o = {.batch = 1};
    if (argc < 2 || oc_model_load(argv[1], NULL, &m, &d) != OC_OK || oc_analyze(m, &o, &an, &d) != OC_OK)
        return 1;
    const struct oc_gpu *g = oc_gpu_find("h100"); /* a view, from the views library */
    printf("%llu %d\n", (unsigned long long)an->totals.params, g ? g->sms : -1);
    oc_analysis_free(an);
    oc_model_free(m);
    return 0;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs --static onnxcost) || { echo "FAIL pkg-config"; exit 1; }
# shellcheck disable=SC2086
cc -o "$tmp/use" "$tmp/use.c" $flags || { echo "FAIL building against the library"; exit 1; }
got=$("$tmp/use" "$src/fixtures/mnist/torchsummary_net.onnx")
[ "$got" = "21840 132" ] || { echo "FAIL library gives '$got', want '21840 132' (params, H100 SXM SMs)"; fail=$((fail + 1)); }
# the installed binary finds the installed GPU plugin (lib/onnxcost/), when built:
# without a GPU its probe refuses with the driver's message, not "no plugin"
if [ -e "$build/libonnxcost_gpu.so" ]; then
    ls "$tmp"/prefix/lib*/onnxcost/libonnxcost_gpu.so >/dev/null 2>&1 || { echo "FAIL plugin not installed"; fail=$((fail + 1)); }
    err=$("$tmp/prefix/bin/onnxcost" replay "$src/fixtures/mnist/torchsummary_net.onnx" 2>&1 >/dev/null)
    case "$err" in
    *"no GPU replay plugin"*|*"cannot load the GPU replay plugin"*)
        echo "FAIL installed onnxcost does not load its plugin: $err"; fail=$((fail + 1)) ;;
    esac
fi
echo "$((4 - fail)) passed, $fail failed"
[ "$fail" = 0 ]
