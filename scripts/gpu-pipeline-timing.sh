#!/usr/bin/env bash
# gpu-pipeline-timing.sh: wall time of decoded 1080p streams through the
# element on one GPU (issue 36 item 1's first measurement): N processes at once,
# each `filesrc ! qtdemux ! h264parse ! nvh264dec ! cudadenoise ... ! fakesink`
# over the same H.264 file (not live: as fast as they go), for several element
# settings, and decode alone for reference. Prints a markdown table: seconds
# for the slowest of the N processes (start-up included) and frames per second
# in all.
#
#   scripts/gpu-pipeline-timing.sh [BUILD_DIR] [N...]      e.g. scripts/gpu-pipeline-timing.sh build 1 8
#
# CDN_TIMING_GPUS=G places the processes round robin on GPUs 0 .. G-1 (issue 36
# item 3, per-frame modes over several GPUs): process i decodes on GPU i mod G
# (nvcodec's nvh264dec is GPU 0's decoder, nvh264deviceNdec GPU N's) and its
# cudaaddnoise and cudadenoise take cuda-device-id=N. CDN_TIMING_ROWS=REGEX keeps
# the rows whose name matches (grep -E).
#
# Needs a GPU with NVDEC, the plugin of BUILD_DIR (default build), and
# GStreamer with nvcodec and x264 (the GPU host: .gpu-runtime, sourced here
# when present). The clip (300 frames of 1920x1080 at 30 fps, moving test
# pattern with temporal noise, x264 at qp 18) is made once in
# ${CDN_TIMING_DIR:-/tmp/cdn-timing}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:-build}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 8)
if [ -f .gpu-runtime/runtime-env.sh ]; then
  # shellcheck disable=SC1091
  GPU_RT_QUIET=1 source .gpu-runtime/runtime-env.sh >/dev/null
fi
export GST_PLUGIN_PATH_1_0="$root/$build/plugin" GST_REGISTRY_1_0=/tmp/cdn-timing-registry.bin
work=${CDN_TIMING_DIR:-/tmp/cdn-timing}
mkdir -p "$work"
clip="$work/1080p30-300.mp4"
frames=300
if [ ! -s "$clip" ]; then
  gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball motion=sweep background-color=0xff406080 \
      ! video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 \
      ! x264enc pass=quant quantizer=18 speed-preset=ultrafast key-int-max=30 ! h264parse ! mp4mux \
      ! filesink location="$clip.part" && mv "$clip.part" "$clip"
fi
gst-inspect-1.0 cudadenoise >/dev/null || { echo "gpu-pipeline-timing: no cudadenoise element in $build/plugin" >&2; exit 1; }

# name|element chain after the decoder (before fakesink)
variants=(
  "decode only|"
  "cudaaddnoise sigma=15, standard, sigma=15 given|cudaaddnoise sigma=15 ! cudadenoise sigma=15 !"
  "cudaaddnoise sigma=15, standard, sigma auto (the default)|cudaaddnoise sigma=15 ! cudadenoise !"
  "cudaaddnoise sigma=15, standard, noise-model=signal (estimated)|cudaaddnoise sigma=15 ! cudadenoise noise-model=signal !"
  "cudaaddnoise sigma=15, draft, sigma auto|cudaaddnoise sigma=15 ! cudadenoise preset=draft !"
)

gpus=${CDN_TIMING_GPUS:-1}
decoder() {  # GPU -> nvcodec's H.264 decoder element on it
  if [ "$1" = 0 ]; then echo nvh264dec; else echo "nvh264device${1}dec"; fi
}
for ((g = 0; g < gpus; g++)); do
  gst-inspect-1.0 "$(decoder $g)" >/dev/null 2>&1 || { echo "gpu-pipeline-timing: no $(decoder $g): GPU $g has no NVDEC here" >&2; exit 1; }
done

run_one() {  # chain, log, GPU -> exit status of one pipeline; its messages go to the log
  local chain=${1//cudaaddnoise/cudaaddnoise cuda-device-id=$3}
  chain=${chain//cudadenoise/cudadenoise cuda-device-id=$3}
  # shellcheck disable=SC2086
  gst-launch-1.0 -q filesrc location="$clip" ! qtdemux ! h264parse ! "$(decoder "$3")" ! $chain fakesink sync=false \
      > "$2" 2>&1
}

echo "GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); CPU: $(nproc) threads"
echo "clip: $frames frames of 1920x1080 H.264; N processes at once, each the whole clip, placed round robin on $gpus GPU(s)"
echo
printf '| pipeline |'
for n in "${counts[@]}"; do printf ' N=%s: s | N=%s: fps in all |' "$n" "$n"; done
echo
printf '| --- |'
for _ in "${counts[@]}"; do printf ' --- | --- |'; done
echo
for v in "${variants[@]}"; do
  name=${v%%|*}
  chain=${v#*|}
  if [ -n "${CDN_TIMING_ROWS:-}" ] && ! grep -Eq "$CDN_TIMING_ROWS" <<<"$name"; then continue; fi
  printf '| %s |' "$name"
  for n in "${counts[@]}"; do
    start=$(date +%s.%N)
    pids=()
    rm -f "$work"/run-*.log
    for i in $(seq "$n"); do run_one "$chain" "$work/run-$i.log" $(((i - 1) % gpus)) & pids+=($!); done
    failed=0
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    end=$(date +%s.%N)
    if [ $failed = 1 ]; then
      printf ' failed (%s/run-*.log) | |' "$work"
    else
      awk -v s="$start" -v e="$end" -v n="$n" -v f="$frames" 'BEGIN { printf " %.2f | %.0f |", e - s, n * f / (e - s) }'
    fi
  done
  echo
done
