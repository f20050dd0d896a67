#!/usr/bin/env bash
# side-by-side.sh: noisy video on the left, cudadenoise's output on the right.
#
# The source is a test pattern (or an H.264 file) with Gaussian noise added by
# cudaaddnoise; a tee feeds the compositor directly (left) and through
# cudadenoise (right). With --memory cuda (the default when the nvcodec CUDA
# elements exist) the denoising branch runs in CUDA memory.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

usage() {
  cat <<EOF
Usage: $(basename "$0") [options]

Shows noisy and denoised video side by side. Prints the gst-launch-1.0 pipeline
it runs.

  -i, --input FILE       H.264 file (mp4, mov, mkv, ts, .h264) instead of a test pattern
  --pattern NAME         videotestsrc pattern without --input (default: smpte)
  --size WxH             picture size (default: 640x360)
  --sigma S              noise added by cudaaddnoise, 8-bit code values (default: 20; 0: none)
  --memory auto|cuda|system
                         memory of the denoising branch (default: auto)
$(common_help)
  (default sink: autovideosink)

Example:
  $(basename "$0") --sigma 30 --mode hybrid
  $(basename "$0") -i noisy.mp4 --sigma 0
EOF
}

INPUT="" PATTERN=smpte SIZE=640x360 SIGMA=20 MEMORY_OPT=auto
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -i | --input) set_once INPUT "$1" "${2:?--input needs a file}"; shift 2 ;;
    --pattern) PATTERN="${2:?}"; shift 2 ;;
    --size) SIZE="${2:?}"; shift 2 ;;
    --sigma) SIGMA="${2:?}"; shift 2 ;;
    --memory) MEMORY_OPT="${2:?}"; shift 2 ;;
    *) parse_common_option "$@" || die "unknown option $1 (see --help)"; shift "$SHIFT_BY" ;;
  esac
done
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH"
W=${BASH_REMATCH[1]} H=${BASH_REMATCH[2]}
[ -n "$SINK" ] || SINK=autovideosink
MEMORY=$(pick_memory "$MEMORY_OPT")

if [ -n "$INPUT" ]; then
  DEC=$(pick_decoder auto)
  add_h264_source "$INPUT" "$DEC"
  [ "$DEC" = nvh264dec ] && add ! cudadownload
  add_frame_limit
  add ! videoconvert ! videoscale ! "video/x-raw,format=NV12,width=$W,height=$H"
else
  add videotestsrc "num-buffers=$NUM_BUFFERS" "pattern=$PATTERN" ! "video/x-raw,format=NV12,width=$W,height=$H,framerate=30/1"
fi
[ "$SIGMA" != 0 ] && add ! cudaaddnoise "sigma=$SIGMA"
if [ "$SIGMA" = 0 ]; then LABEL=original; else LABEL="noisy (sigma $SIGMA)"; fi
add_side_by_side "$W" no "$LABEL"

echo "# denoising branch in $MEMORY memory, cudadenoise mode=$MODE backend=$BACKEND" >&2
run_pipeline
