#!/usr/bin/env bash
# sanitize.sh: the CPU path under AddressSanitizer (with LeakSanitizer) and
# UndefinedBehaviorSanitizer: a second build directory made with clang,
# meson's -Db_sanitize=address,undefined (UB aborts: -fno-sanitize-recover),
# no CUDA, then every test run there. GPU tests skip as everywhere without a
# GPU; the fuzz suite runs each libFuzzer target for 20 s (tests/fuzz/).
# CI runs it after the main build (.ci/run).
#
#   scripts/sanitize.sh [MESON_TEST_ARGS...]     e.g. scripts/sanitize.sh --suite tools
#
# CDN_SANITIZE_BUILD_DIR names the build directory (default build-sanitize).
# Needs clang (Debian: clang-14 libclang-rt-14-dev; llvm-14 symbolizes reports),
# installed by scripts/setup.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${CDN_SANITIZE_BUILD_DIR:-build-sanitize}
cc=$(command -v clang-14 || command -v clang || true)
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cc" ] || [ -z "$cxx" ]; then echo "sanitize: needs clang (scripts/setup.sh installs it)" >&2; exit 1; fi

if [ ! -f "$build/build.ninja" ]; then
  # -O2, assertions on, line tables only (-gline-tables-only after meson's -g:
  # the reports' stacks keep files, lines and inlined frames; the build takes
  # about a quarter less time than with full debug information, which CI's
  # clean build pays every run); b_lundef=false: the GStreamer element is a
  # shared module whose sanitizer runtime comes from the program that loads it.
  flags="-fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only"
  CC="$cc" CXX="$cxx" meson setup "$build" -Dcuda=disabled -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args="$flags" -Dcpp_args="$flags"
fi
meson compile -C "$build"

# The test setup of this build (tests/meson.build) gives every test the
# sanitizer options (a report fails it; the library leaks of tests/lsan.supp
# aside) and three times its timeout: the sanitized code runs 2-4x slower.
exec meson test -C "$build" --print-errorlogs "$@"
