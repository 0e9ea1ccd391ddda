#!/usr/bin/env bash
# kit.sh BUILD_DIR [KIT_DIR] — gather what a GPU machine needs to run the
# replay without building: onnxcost, the plugin, and the libraries of this
# machine that a CUDA image lacks (protobuf-c, jansson). The CUDA libraries
# come from the GPU machine itself (device.sh finds them). Default KIT_DIR:
# .gpukit in the repository (git-ignored), to be carried to the device.
set -eu
build=$1
kit=${2:-$(cd "$(dirname "$0")/../.." && pwd)/.gpukit}
rm -rf "$kit"
mkdir -p "$kit"
cp "$build/onnxcost" "$build/libonnxcost_gpu.so" "$kit/"
for l in $(ldd "$build/onnxcost" | awk '/libprotobuf-c|libjansson/ {print $3}'); do
    cp -L "$l" "$kit/"
done
du -sh "$kit"
