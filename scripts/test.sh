#!/usr/bin/env bash
# test.sh: runs the whole test suite of build/ (meson rebuilds what changed
# first). GPU tests skip, saying why, where no CUDA device is usable. Extra
# arguments go to `meson test` (e.g. --suite tools). CDN_BUILD_DIR: see setup.sh.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${CDN_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  echo "test: $build/ is not configured; run scripts/setup.sh first" >&2
  exit 1
fi
if [ -d /usr/local/cuda/bin ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
exec meson test -C "$build" --print-errorlogs "$@"
