#!/usr/bin/env bash
# gpu-noise-check.sh: the noise tracker's checks on a GPU host, from a CUDA build
# directory (staged with scripts/stage-gpu.sh): device frames against host frames
# (test_kernels_gpu_noise_tracker: the same values after every frame), the same
# under compute-sanitizer memcheck and racecheck, the CPU noise tests, and the
# cost table of cudadenoise-noise-bench on the host's CPU. Prints a short table
# at the end.
#
#   scripts/gpu-noise-check.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CDN_TEST_DATA="$root/.testdata"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
lscpu | grep -m1 'Model name' || true
results=()
run() {  # name, command...
  local name=$1
  shift
  if timeout 300 "$@" > "/tmp/noise-$name.log" 2>&1; then
    results+=("PASS $name: $(grep -E 'PASSED|ERROR SUMMARY|RACECHECK SUMMARY' "/tmp/noise-$name.log" | tail -1)")
  else
    results+=("FAIL $name")
    tail -30 "/tmp/noise-$name.log"
  fi
  if grep -q 'SKIPPED \]' "/tmp/noise-$name.log"; then results+=("  ($name skipped tests: see /tmp/noise-$name.log)"); fi
}
gpu="$build/tests/kernels/test_kernels_gpu_noise_tracker"
run gpu "$gpu" --gtest_brief=1
run memcheck compute-sanitizer --tool memcheck --error-exitcode 99 "$gpu" --gtest_brief=1
run racecheck compute-sanitizer --tool racecheck --error-exitcode 99 "$gpu" --gtest_brief=1
for t in noise_level noise_tracker noise_tracker_background noise_sample_plan noise_auto_sigma stream_noise; do run "$t" "$build/tests/kernels/test_kernels_$t" --gtest_brief=1; done
"$build/tools/bench/cudadenoise-noise-bench" --data "$CDN_TEST_DATA" --no-accuracy
printf '%s\n' "${results[@]}"
