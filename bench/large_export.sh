#!/usr/bin/env bash
# Median wall time (process start to exit, including the table) and peak RSS of analyzing a large export (VGG-16, ~550 MB), next to the
# file size, and beside `onnx.load` of the same file in the same run.
# usage: bench/large_export.sh [BUILD_DIR] [MODEL]   (needs /usr/bin/time,
# Debian python3-torch python3-torchvision python3-onnx)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
model=${2:-vgg16}
out=$here/out
mkdir -p "$out"
f=$out/$model.onnx
[ -f "$f" ] || /usr/bin/python3 "$here/export_torchvision.py" "$model" "$f"
size=$(stat -c %s "$f")
# drop nothing from the page cache: both tools read a warm file
cat "$f" >/dev/null
measure() { # label runs cmd... -> "label median_wall_ms peak_rss_kib"
    local label=$1 runs=$2
    shift 2
    local walls=() rss=0
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -f "%M" -o "$out/time.txt" "$@" >/dev/null
        t1=$(date +%s%N)
        walls+=("$(( (t1 - t0) / 1000 ))")
        local kib
        kib=$(cat "$out/time.txt")
        [ "$kib" -gt "$rss" ] && rss=$kib
    done
    local med
    med=$(printf "%s\n" "${walls[@]}" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    echo "$label $(echo "$med / 1000" | bc -l) $rss"
}
a=$(measure onnxcost 21 "$build/onnxcost" "$f" -q)
b=$(measure onnx.load 5 /usr/bin/python3 -c "import onnx,sys; onnx.load(sys.argv[1])" "$f")
printf "file: %s (%.1f MB)\n" "$f" "$(echo "$size / 1000000" | bc -l)"
printf "%-10s %16s %14s\n" tool "median wall (ms)" "peak RSS (MiB)"
for row in "$a" "$b"; do
    set -- $row
    printf "%-10s %16.1f %14.1f\n" "$1" "$2" "$(echo "$3 / 1024" | bc -l)"
done
set -- $a; wa=$2; ra=$3
set -- $b; wb=$2; rb=$3
printf "ratio onnx.load / onnxcost: wall %.1fx, peak RSS %.1fx\n" "$(echo "$wb / $wa" | bc -l)" "$(echo "$rb / $ra" | bc -l)"
