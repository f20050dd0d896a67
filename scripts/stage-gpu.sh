#!/usr/bin/env bash
# stage-gpu.sh: pack what the GPU host needs from a build directory (test
# programs, tools, the plugin) into .gpu-stage/BUILD.tar.xz, small enough to
# travel with the working tree; unpack it there from the checkout root with
# `tar -xJf .gpu-stage/BUILD.tar.xz` and run scripts/gpu-suite.sh BUILD.
#
#   scripts/stage-gpu.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
mkdir -p .gpu-stage
# The test programs are not built by default (meson compile builds the product):
# build them, and everything else the tests need, before packing.
ninja -C "$build" meson-test-prereq >/dev/null
# Executables, shared objects and their version links (the plugin tests carry libgstcheck beside them).
find "$build" -path "$build/meson-private" -prune -o \( -type f -o -type l \) \( -perm -u+x -o -name '*.so*' \) -print |
  grep -v '\.p/' > .gpu-stage/files.txt
# The test programs each link the kernels library (about 14 MiB of device code):
# a 64 MiB dictionary (-9) lets xz store those copies once.
XZ_OPT="-9 -T1" tar -cJf ".gpu-stage/$build.tar.xz" -T .gpu-stage/files.txt
echo "staged $(wc -l < .gpu-stage/files.txt) files: $(du -h ".gpu-stage/$build.tar.xz" | cut -f1) in .gpu-stage/$build.tar.xz"
