#!/usr/bin/env bash
# fuzz.sh: runs the libFuzzer targets of tests/fuzz/ (the image reader, the y4m
# reader, cudadenoise-transcode's demux/decode/filter path), one at a time and
# niced, each for a set time, and prints a table of what each found.
#
#   scripts/fuzz.sh [-t SECONDS] [-B BUILD_DIR] [--no-build] [TARGET...]
#
#   -t SECONDS   time per target (default 300)
#   -B DIR       build directory (default build-fuzz). Unless --no-build, it is
#                configured (if new) with clang, AddressSanitizer and UBSan,
#                coverage instrumentation on all of our code, no CUDA, no
#                GStreamer element, and the fuzz targets are built.
#   --no-build   use DIR as it is (meson's `fuzz` suite runs it so, in a clang
#                build, for 20 s a target)
#   TARGET       fuzz-image-io, fuzz-y4m, fuzz-transcode-decode (default: all built)
#
# Each target starts from DIR/fuzz-corpus/TARGET (what earlier runs found
# interesting; kept), the seeds (scripts/fuzz-seeds.sh, made once into
# DIR/fuzz-seeds) and tests/fuzz/corpus/TARGET (inputs that found bugs, kept as
# regressions). A crash, leak, timeout (60 s a unit: the runs are niced on
# shared machines) or sanitizer report stops the
# target; the input is saved under DIR/fuzz-artifacts/TARGET/ and the script
# exits 1. Needs clang and libFuzzer (Debian: clang-14 libclang-rt-14-dev,
# llvm-14 for symbolized reports).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=300 build=build-fuzz do_build=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    -t) seconds=$2; shift 2 ;;
    -B) build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
case "$build" in /*) ;; *) build="$root/$build" ;; esac
all=(fuzz-image-io fuzz-y4m fuzz-transcode-decode)

if [ "$do_build" = 1 ]; then
  cxx=$(command -v clang++-14 || command -v clang++ || true)
  cc=$(command -v clang-14 || command -v clang || true)
  if [ -z "$cxx" ] || [ -z "$cc" ]; then echo "fuzz: needs clang (Debian: clang-14 libclang-rt-14-dev)" >&2; exit 1; fi
  if [ ! -f "$build/build.ninja" ]; then
    (cd "$root" && CC="$cc" CXX="$cxx" meson setup "$build" -Dfuzz=enabled -Dcuda=disabled -Dplugin=disabled \
      -Dopencv=disabled -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
      -Dcpp_args="-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined")
  fi
  built=()
  for t in "${targets[@]:-${all[@]}}"; do
    if [ -n "$(cd "$build" && meson introspect --targets | grep -o "\"name\": \"$t\"")" ]; then built+=("$t"); fi
  done
  [ ${#built[@]} -gt 0 ] || { echo "fuzz: $build has none of: ${targets[*]:-${all[*]}}" >&2; exit 1; }
  meson compile -C "$build" "${built[@]}"
fi

if [ ${#targets[@]} = 0 ]; then
  for t in "${all[@]}"; do [ -x "$build/tests/fuzz/$t" ] && targets+=("$t"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "fuzz: no fuzz targets in $build (a clang build with -Dfuzz=enabled)" >&2; exit 1; }

# Seeds, made once per build directory (and again when the script changes).
seeds="$build/fuzz-seeds"
if [ ! -d "$seeds" ] || [ "$root/scripts/fuzz-seeds.sh" -nt "$seeds" ]; then
  "$root/scripts/fuzz-seeds.sh" "$seeds" >/dev/null
fi

symbolizer=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${symbolizer:+:external_symbolizer_path=$symbolizer}"

failed=0
rows=()
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/$t"
  [ -x "$exe" ] || { echo "fuzz: $exe is not built" >&2; exit 1; }
  corpus="$build/fuzz-corpus/$t" artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$corpus" "$artifacts" "$seeds/$t"
  kept="$root/tests/fuzz/corpus/$t"
  dirs=("$corpus" "$seeds/$t")
  [ -d "$kept" ] && dirs+=("$kept")
  log="$build/fuzz-$t.log"
  echo "== $t: $seconds s (log: $log)"
  set +e
  nice -n 19 "$exe" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${dirs[@]}" > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  found="nothing"
  if [ "$rc" != 0 ]; then
    failed=$((failed + 1))
    found="$(grep -m1 -Eo 'ERROR: [A-Za-z]+: [^ ]+.*|runtime error: .*|fuzz invariant broken: .*|==[0-9]+== ERROR: .*|Test unit written to .*' "$log" | head -1)"
    tail -60 "$log"
  fi
  rows+=("$(printf '%-24s %6s s %10s runs %6s cov %5s corpus  %s' "$t" "$seconds" "$runs" "$cov" \
    "$(ls "$corpus" | wc -l)" "$found")")
done
echo "== fuzz results ($(basename "$build"))"
printf '%s\n' "${rows[@]}"
exit $((failed > 0))
