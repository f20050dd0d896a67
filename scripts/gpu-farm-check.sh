#!/usr/bin/env bash
# gpu-farm-check.sh: issue 18 on a GPU host: cudadenoise-farm with one worker
# on the GPU against a single cudadenoise-transcode run, every mode, on a 720p
# clip with audio made here (x264, B-frames, a keyframe a second), both lossless
# and on --backend cuda: the farm's output must decode to the single run's
# frames, timestamps and durations (ffmpeg framemd5, compared whole). Prints a
# table: mode, frames, pieces, single-run and farm seconds, equal or not.
#
#   scripts/gpu-farm-check.sh [BUILD_DIR]      (from a checkout root; carry BUILD_DIR and .gpu-runtime)
#
# The farm runs on the host's python3 (started without the runtime's library
# path; ffmpeg, ffprobe and the transcode tool get it through small wrappers):
# with python3-distributed there, a local Dask cluster of 1 worker (--local 1);
# without it (the usual GPU host), the same pieces run one after another
# (--serial: planning, --range pieces, concatenation and checks, no Dask); with
# no python3 at all, the pieces are made with the transcode tool alone and
# their manifests compared with the single run's.
#
# For a dry run without a GPU: CDN_FARM_CHECK_BACKEND=cpu CDN_FARM_CHECK_SIZE=64x48
# CDN_FARM_CHECK_MODES="pipd bm3d" (defaults: cuda, 1280x720, every mode).
set -u
build=${1:-build}
backend=${CDN_FARM_CHECK_BACKEND:-cuda}
size=${CDN_FARM_CHECK_SIZE:-1280x720}
modes=${CDN_FARM_CHECK_MODES:-pipd hybrid nlm3d bm3d vbm3d}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tool="$root/$build/tools/transcode/cudadenoise-transcode"
work=$(mktemp -d /tmp/cdn-farm-gpu.XXXXXX)
mkdir -p "$work/bin"
py=$(command -v python3 || true)  # the host's, before the runtime changes the library path
farm_mode=none
if [ -n "$py" ]; then
  if "$py" -c 'import distributed' 2>/dev/null; then farm_mode="--local 1"; else farm_mode="--serial"; fi
fi
[ -f .gpu-runtime/runtime-env.sh ] && source .gpu-runtime/runtime-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "farm: python3=${py:-none}, ${farm_mode/--local 1/Dask local cluster of 1 GPU worker}"
source "$root/scripts/lib/farm-wrappers.sh"
farm_wrappers "$work/bin" "$tool"

clip="$work/clip.mkv"
ffmpeg -v error -nostdin -y -f lavfi -i "testsrc2=size=$size:rate=25,noise=alls=12:allf=t" \
  -f lavfi -i "sine=f=440:sample_rate=48000" -t 4 -c:v libx264 -preset veryfast -g 25 -keyint_min 25 \
  -sc_threshold 0 -bf 2 -pix_fmt yuv420p -c:a aac -shortest "$clip" || { echo "FAIL: cannot make the clip"; exit 1; }

md5s() { ffmpeg -v error -nostdin -i "$1" -map 0:v:0 -f framemd5 - | grep -v '^#'; }
rows=()
status=0
for mode in $modes; do
  args=(--backend "$backend" --lossless --mode "$mode")
  # The sigma-using modes need a given sigma for pieces (the tracked one depends on every
  # earlier frame: the tool refuses --range without it); the clip's noise is about 7.
  case $mode in nlm3d | bm3d | vbm3d) args+=(--sigma 7) ;; esac
  single="$work/single-$mode.mkv" farm="$work/farm-$mode.mkv"
  t0=$(date +%s.%N)
  if ! "$tool" -i "$clip" -o "$single" -y -q --manifest "$single.json" "${args[@]}" > "$work/single-$mode.log" 2>&1; then
    rows+=("$mode: FAIL single run: $(tail -1 "$work/single-$mode.log")"); status=1; continue
  fi
  t1=$(date +%s.%N)
  pieces=4
  if [ "$farm_mode" != none ]; then
    # shellcheck disable=SC2086
    env -u LD_LIBRARY_PATH CDN_FARM_DIR="$root/tools/farm" "$py" "$root/tools/farm/cudadenoise-farm.in" \
      -i "$clip" -o "$farm" -y -q --json --piece-seconds 1 $farm_mode --transcode "$work/bin/transcode" \
      --ffmpeg "$work/bin/ffmpeg" --ffprobe "$work/bin/ffprobe" "${args[@]}" > "$work/farm-$mode.json" 2> "$work/farm-$mode.log"
    rc=$?
    pieces=$(grep -o '"pieces": [0-9]*' "$work/farm-$mode.json" | grep -o '[0-9]*$')
  else
    # No python3: the pieces by hand (a keyframe every 25 frames: 0:25 ... 75:100), their
    # manifests' frame MD5s against the single run's.
    rc=0
    : > "$work/farm-$mode.md5"
    for r in 0:25 25:50 50:75 75:100; do
      "$tool" -i "$clip" -o "$work/piece-$mode-${r%:*}.mkv" -y -q --range "$r" --manifest "$work/piece-$mode-${r%:*}.json" \
        "${args[@]}" >> "$work/farm-$mode.log" 2>&1 || rc=1
      grep -o '"frame_md5":\[[^]]*\]' "$work/piece-$mode-${r%:*}.json" | tr -d '"[]' | sed 's/frame_md5://' | tr ',' '\n' >> "$work/farm-$mode.md5"
    done
  fi
  t2=$(date +%s.%N)
  if [ "$rc" != 0 ]; then rows+=("$mode: FAIL farm: $(tail -2 "$work/farm-$mode.log" | tr '\n' ' ')"); status=1; continue; fi
  if [ "$farm_mode" != none ]; then
    if [ "$(md5s "$single")" = "$(md5s "$farm")" ]; then same=EQUAL; else same=DIFFERENT; status=1; fi
  else
    want=$(grep -o '"frame_md5":\[[^]]*\]' "$single.json" | tr -d '"[]' | sed 's/frame_md5://' | tr ',' '\n')
    if [ "$want" = "$(cat "$work/farm-$mode.md5")" ]; then same="EQUAL (pieces' manifests)"; else same=DIFFERENT; status=1; fi
  fi
  rows+=("$(printf '%-7s frames 100 pieces %-2s single %6.2f s  farm %6.2f s  %s' "$mode" "$pieces" \
    "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t1}")" "$same")")
done
echo "---- cudadenoise-farm vs one cudadenoise-transcode run ($size, 100 frames, lossless, --backend $backend)"
printf '%s\n' "${rows[@]}"
[ $status = 0 ] && echo "gpu-farm-check: PASS" || echo "gpu-farm-check: FAIL (logs in $work)"
exit $status
