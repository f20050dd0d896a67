#!/usr/bin/env bash
# setup.sh: everything needed to build and test cudadenoise on Debian 12, GPU or
# not: installs the packages (as root or through sudo; skipped when all are
# installed already), fetches the test images, configures build/ and builds the
# product: the library, the tools, the plugin, the Python module (scripts/test.sh
# builds the test programs before it runs them).
#
#   scripts/setup.sh [MESON_OPTIONS...]     e.g. scripts/setup.sh -Dgpu_archs=90
#
# The options go to `meson setup` for a new build directory, or to `meson
# configure` for an existing one. CUDA is used when /usr/local/cuda/bin/nvcc (or
# an nvcc on PATH) exists; -Dcuda=disabled builds the CPU backend only.
# CDN_BUILD_DIR names another build directory (default: build).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${CDN_BUILD_DIR:-build}

packages=(
  # build and tests
  meson ninja-build pkg-config g++ libgtest-dev libpng-dev
  # the tools' JSON output
  nlohmann-json3-dev
  # the noise estimator's linear algebra (header-only)
  libeigen3-dev
  # GStreamer 1.22: the cudadenoise element and its tests
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev libgl-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav
  # FFmpeg 5.1: cudadenoise-transcode
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libffmpeg-nvenc-dev ffmpeg
  # the evaluation report (tools/eval): its OpenCV peers, and Python with matplotlib for report.py
  libopencv-photo-dev python3 python3-matplotlib
  # cudadenoise-farm (tools/farm): Dask distributed
  python3-distributed
  # the Python module (python/) and its tests
  pybind11-dev python3-dev python3-numpy python3-pytest
  # clang: the sanitizer build and the libFuzzer targets (scripts/sanitize.sh, scripts/fuzz.sh);
  # libclang-rt-14-dev holds the sanitizer and libFuzzer runtimes, llvm-14 the symbolizer
  clang-14 libclang-rt-14-dev llvm-14
)

missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages are installed"
fi

if [ -d /usr/local/cuda/bin ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
# nvcc through a wrapper that writes header dependencies (meson 1.0 does not ask
# nvcc for them; see scripts/nvcc-deps), given to meson as a native file.
native=()
if command -v nvcc >/dev/null 2>&1; then
  native_file="$(mktemp -d)/nvcc-deps.ini"
  printf "[binaries]\ncuda = '%s'\n" "$root/scripts/nvcc-deps" > "$native_file"
  native=(--native-file "$native_file")
fi

scripts/fetch-test-data.sh

if [ -f "$build/build.ninja" ]; then
  if [ $# -gt 0 ]; then meson configure "$build" "$@"; fi
else
  meson setup "$build" "${native[@]}" "$@"
fi
# The product only (the library, the tools, the plugin, the Python module): the
# targets built by default. Meson 1.0's default target also builds every test
# program (its "all" depends on meson-test-prereq), which scripts/test.sh builds
# when it runs them; so the default targets are named here, from meson's own list.
mapfile -t product < <(meson introspect "$build" --targets | /usr/bin/python3 -c '
import json, os, sys
build = sys.argv[1]
for t in json.load(sys.stdin):
    if t["build_by_default"]:
        for f in t["filename"]:
            print(os.path.relpath(f, build))' "$build")
ninja -C "$build" "${product[@]}"
