#!/usr/bin/env bash
# transcode.sh: denoise an H.264 file into a new H.264 MP4.
#
# Decodes with nvh264dec when it is registered (a usable NVIDIA GPU), else
# avdec_h264; encodes with nvh264enc when it is registered, else x264enc (after
# cudadownload when the frames are in CUDA memory). With nvh264dec and
# nvh264enc the frames never leave the GPU.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

usage() {
  cat <<EOF
Usage: $(basename "$0") -i INPUT [-o OUTPUT] [options]

Denoises an H.264 video (mp4, mov, mkv, ts or raw .h264) with cudadenoise and
writes H.264 in MP4. Prints the gst-launch-1.0 pipeline it runs.

  -i, --input FILE       input video (H.264)
  -o, --output FILE      output .mp4 (default: INPUT without extension + -denoised.mp4)
  --decoder auto|nvh264dec|avdec_h264
                         H.264 decoder (default: auto, nvh264dec when present)
  --encoder auto|nvh264enc|x264enc
                         H.264 encoder (default: auto, nvh264enc when present;
                         H100/H200 have no NVENC, so x264enc there)
  --bitrate KBPS         encoder bitrate in kbit/s (default: 8000)
$COMMON_HELP

Example:
  $(basename "$0") -i noisy.mp4 -o clean.mp4 --mode hybrid
  $(basename "$0") -i noisy.mp4 --num-buffers 10 --sink fakesink   # CI smoke run
EOF
}

INPUT="" OUTPUT="" DECODER=auto ENCODER=auto BITRATE=8000
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -i | --input) INPUT="${2:?--input needs a file}"; shift 2 ;;
    -o | --output) OUTPUT="${2:?--output needs a file}"; shift 2 ;;
    --decoder) DECODER="${2:?}"; shift 2 ;;
    --encoder) ENCODER="${2:?}"; shift 2 ;;
    --bitrate) BITRATE="${2:?}"; shift 2 ;;
    *) parse_common_option "$@" || die "unknown option $1 (see --help)"; shift "$SHIFT_BY" ;;
  esac
done
[ -n "$INPUT" ] || { usage >&2; exit 2; }
[ -n "$OUTPUT" ] || OUTPUT="${INPUT%.*}-denoised.mp4"

DEC=$(pick_decoder "$DECODER")
case "$ENCODER" in
  auto) if [ "$BACKEND" != cpu ] && have nvh264enc; then ENC=nvh264enc; else ENC=x264enc; fi ;;
  nvh264enc | x264enc) ENC="$ENCODER" ;;
  *) die "--encoder must be auto, nvh264enc or x264enc" ;;
esac
have "$ENC" || die "encoder $ENC is not available"

add_h264_source "$INPUT" "$DEC"
add_frame_limit
if [ "$DEC" = nvh264dec ]; then
  # CUDA memory from the decoder: filtered where it is.
  add !
  add_denoise
  [ "$ENC" = x264enc ] && add ! cudadownload
else
  # System memory (avdec_h264 gives I420 for 8-bit 4:2:0; convert anything else).
  add ! videoconvert !
  add_denoise
fi
if [ "$ENC" = nvh264enc ]; then
  add ! nvh264enc "bitrate=$BITRATE"
else
  add ! x264enc "bitrate=$BITRATE" speed-preset=veryfast
fi
add ! h264parse !
if [ -n "$SINK" ]; then
  read -ra sink_words <<<"$SINK"
  add "${sink_words[@]}"
else
  add mp4mux ! filesink "location=$OUTPUT"
fi

echo "# decoder: $DEC, encoder: $ENC, cudadenoise mode=$MODE backend=$BACKEND" >&2
run_pipeline
