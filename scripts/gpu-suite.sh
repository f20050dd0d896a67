#!/usr/bin/env bash
# gpu-suite.sh: the whole test suite on a GPU host, GPU tests included, then the
# GPU tests again under compute-sanitizer (memcheck and racecheck), then the
# benchmark. Where a GPU exists, a GPU test program (test*gpu*) that skips a
# test fails: a skip there means the GPU path went untested (a build without
# CUDA, a missing nvcodec element, a device the test did not find). Runs the test binaries of an existing build directory directly (a
# GPU host may have no meson); GStreamer tests need the runtime bundle
# (.gpu-runtime, see ../shared/gpu/README.md), sourced here when present.
#
#   scripts/gpu-suite.sh [BUILD_DIR] [--no-tests] [--no-sanitizer] [--sanitizers=memcheck,racecheck] [--programs=GLOB] [--no-bench] [--bench-args="--no-cpu ..."]
# (--no-tests: only the sanitizer and bench parts, e.g. in a second device call;
# --sanitizers: which compute-sanitizer tools, e.g. one per device call;
# --programs: only the test programs whose name matches one of the comma-
# separated shell patterns, e.g. '*gpu*,test_kernels_frames' when CI has run
# the others)
set -u
build=${1:-build}
shift || true
sanitize=1 bench=1 plain=1
sanitizers=(memcheck racecheck)
BENCH_ARGS=()
programs='*'
for a in "$@"; do
  case "$a" in
    --no-sanitizer) sanitize=0 ;;
    --no-bench) bench=0 ;;
    --no-tests) plain=0 ;;
    --sanitizers=*) IFS=, read -r -a sanitizers <<< "${a#--sanitizers=}" ;;
    --programs=*) programs=${a#--programs=} ;;
    --bench-args=*) read -r -a BENCH_ARGS <<< "${a#--bench-args=}" ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export CDN_TEST_DATA="$root/.testdata"
export GST_PLUGIN_PATH_1_0="$root/$build/plugin" GST_REGISTRY_1_0=/tmp/cdn-registry.bin CK_FORK=no
if [ -f .gpu-runtime/runtime-env.sh ]; then
  # shellcheck disable=SC1091
  source .gpu-runtime/runtime-env.sh >/dev/null
  export GST_PLUGIN_PATH_1_0="$root/$build/plugin"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

failed=0
gpu_present=0
if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then gpu_present=1; fi
IFS=, read -r -a patterns <<< "$programs"
names=()
for p in "${patterns[@]}"; do names+=(${names[0]+-o} -name "$p"); done
mapfile -t tests < <(find "$build/tests" -type f -executable -name 'test*' \( "${names[@]}" \) | sort)
echo "== ${#tests[@]} test programs (GPU present: $gpu_present)"
[ "$plain" = 1 ] || echo "== --no-tests: the plain run is left out"
for t in "${tests[@]}"; do
  [ "$plain" = 1 ] || break
  log="/tmp/$(basename "$t").log" started=$SECONDS
  if timeout 300 "$t" --gtest_brief=1 > "$log" 2>&1; then
    # gtest's summary: "[  SKIPPED ] N test(s)".
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9][0-9]*\) tests\{0,1\}[.,].*/\1/p' "$log" | head -1)
    skipped=${skipped:-0}
    case "$(basename "$t")" in
      *gpu*)
        if [ "$gpu_present" = 1 ] && [ "$skipped" -gt 0 ]; then
          echo "FAIL $t: $skipped GPU test(s) skipped on a GPU host:"
          grep -A1 ': Skipped$' "$log" | grep -v -e ': Skipped$' -e '^--$' | sort | uniq -c
          failed=$((failed + 1))
          continue
        fi ;;
    esac
    echo "PASS $t ($skipped skipped, $((SECONDS - started)) s)"
  else
    # Every failed test by name first: the tail alone hid which of a
    # parameterized suite's instances failed (2026-11-24: GpuCudaMemory).
    echo "FAIL $t ($((SECONDS - started)) s)"; grep '^\[  FAILED  \] [^0-9]' "$log" | sort -u; tail -40 "$log"; failed=$((failed + 1))
  fi
done

if [ "$sanitize" = 1 ] && command -v compute-sanitizer >/dev/null; then
  for tool in "${sanitizers[@]}"; do
    for t in "${tests[@]}"; do
      # The kernel and element GPU tests; the transcode tool's runs in a child process.
      case "$(basename "$t")" in test_kernels_gpu_* | test_plugin_gpu_*) ;; *) continue ;; esac
      log="/tmp/$(basename "$t").$tool.log"
      # racecheck replays every shared-memory access: on the whole BM3D and NLM-3D
      # programs it runs past the timeout, so it takes the tests that cover every
      # kernel (odd sizes and depths, real photos, batches; formats, devices frames).
      filter="*"
      if [ "$tool" = racecheck ]; then
        case "$(basename "$t")" in
          test_plugin_gpu_*)
            # The element launches only kernels/'s kernels, which the kernel tests above
            # racecheck; through the element the same checks run past the timeout.
            echo "SKIP racecheck $t: its kernels are racechecked by test_kernels_gpu_*"; continue ;;
          test_kernels_gpu_bm3d) filter="GpuBm3d.RandomImagesOfOddSizesAndDepths:GpuBm3d.SmallBatchesGiveTheSameResult:GpuBm3d.RealPhotosMatchTheReference:GpuBm3d.ReferenceProfileMatchesTheCpu:GpuBm3d.FastKernelsGiveTheReferenceKernelsBytes" ;;
          test_kernels_gpu_nlm3d) filter="GpuNlm3d.MatchesTheCpuReference:GpuNlm3d.EveryFormatAndOddSizes:GpuNlm3d.DeviceFramesStayOnTheDevice:GpuNlm3d.TinyCleanFramesMatchTheCpuReference" ;;
          test_kernels_gpu_vbm3d) filter="GpuMotion.*:GpuVbm3d.TinyFramesMatchTheReference:GpuVbm3d.EveryFormatAndOddSizesMatchTheReference:GpuVbm3d.DeterministicWindowsChunksAndBatches" ;;
        esac
      fi
      # CDN_TEST_SMALL trims the largest CPU-side references; every kernel path still runs.
      # racecheck takes the listed tests one process each (each about 1 to 2 minutes
      # for BM3D on an H200; vbm3d's DeterministicWindowsChunksAndBatches 257 s with the
      # tuned quality profile), so that each stays under the timeout.
      # A test that runs the GPU out of memory on purpose: the allocation
      # failures it provokes are what it checks, not errors to report.
      api_errors=()
      case "$(basename "$t")" in test_plugin_gpu_isolation) api_errors=(--report-api-errors no) ;; esac
      parts=("$filter")
      [ "$tool" = racecheck ] && IFS=: read -r -a parts <<< "$filter"
      for part in "${parts[@]}"; do
        if CDN_TEST_SMALL=1 timeout 480 compute-sanitizer --tool "$tool" "${api_errors[@]}" --error-exitcode 99 "$t" --gtest_brief=1 \
            --gtest_filter="$part" > "$log" 2>&1; then
          echo "PASS $tool $t $part: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
        else
          echo "FAIL $tool $t $part"; tail -30 "$log"; failed=$((failed + 1))
        fi
      done
    done
  done
fi

if [ "$bench" = 1 ] && [ -x "$build/tools/bench/cudadenoise-bench" ]; then
  echo "== benchmark"
  "$build/tools/bench/cudadenoise-bench" --data "$CDN_TEST_DATA" --cpu-iterations 1 "${BENCH_ARGS[@]}"
fi
echo "== gpu-suite: $failed failure(s)"
exit $((failed > 0))
