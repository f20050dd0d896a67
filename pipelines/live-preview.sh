#!/usr/bin/env bash
# live-preview.sh: a camera (or a live test source with added noise), original
# and denoised side by side, in real time.
#
# With a V4L2 camera the picture is shown as it comes (cameras are noisy enough
# in low light); without one, videotestsrc (live, moving ball) plus cudaaddnoise
# stands in. Queues are leaky so that a slow denoiser drops frames instead of
# delaying the preview. cudadenoise runs the preset `live` (nlm3d, causal window:
# the current and 4 past frames, no frame of latency; docs/PRESETS.md) with
# window=auto: any temporal mode given by --mode takes its causal window for
# this live source, and the element reports that latency. --preset standard:
# BM3D per frame, also no latency, no gain from time.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"
PRESET=live

usage() {
  cat <<EOF
Usage: $(basename "$0") [options]

Live preview: original and denoised side by side. Prints the gst-launch-1.0
pipeline it runs.

  --device DEV           V4L2 camera (default: /dev/video0 when it exists, else the test source)
  --test-source          use videotestsrc with added noise even when a camera exists
  --size WxH             picture size (default: 640x480)
  --fps N                frame rate (default: 30)
  --sigma S              noise added by cudaaddnoise (default: 20 for the test source,
                         0 for a camera)
  --memory auto|cuda|system
                         memory of the denoising branch (default: auto)
$(common_help)
  (default sink: autovideosink sync=false)

Example:
  $(basename "$0") --device /dev/video2 --preset draft
  $(basename "$0") --test-source --mode nlm3d --props "window=causal"
  $(basename "$0") --test-source --sigma 35
EOF
}

DEVICE="" TEST_SOURCE=0 SIZE=640x480 FPS=30 SIGMA="" MEMORY_OPT=auto
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    --device) DEVICE="${2:?--device needs a path}"; shift 2 ;;
    --test-source) TEST_SOURCE=1; shift ;;
    --size) SIZE="${2:?}"; shift 2 ;;
    --fps) FPS="${2:?}"; shift 2 ;;
    --sigma) SIGMA="${2:?}"; shift 2 ;;
    --memory) MEMORY_OPT="${2:?}"; shift 2 ;;
    *) parse_common_option "$@" || die "unknown option $1 (see --help)"; shift "$SHIFT_BY" ;;
  esac
done
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH"
W=${BASH_REMATCH[1]} H=${BASH_REMATCH[2]}
[ -n "$SINK" ] || SINK="autovideosink sync=false"
MEMORY=$(pick_memory "$MEMORY_OPT")

if [ "$TEST_SOURCE" = 0 ] && [ -z "$DEVICE" ] && [ -e /dev/video0 ]; then DEVICE=/dev/video0; fi
[ "$TEST_SOURCE" = 1 ] && DEVICE=""
if [ -n "$DEVICE" ]; then
  [ "$DRY_RUN" = 1 ] || [ -e "$DEVICE" ] || die "no camera at $DEVICE (use --test-source)"
  have v4l2src || die "v4l2src is not available"
  [ -n "$SIGMA" ] || SIGMA=0
  add v4l2src "device=$DEVICE" "num-buffers=$NUM_BUFFERS" ! videoconvert ! videoscale ! videorate !
  add "video/x-raw,format=NV12,width=$W,height=$H,framerate=$FPS/1"
  SOURCE="camera $DEVICE"
else
  [ -n "$SIGMA" ] || SIGMA=20
  add videotestsrc is-live=true pattern=ball "num-buffers=$NUM_BUFFERS" !
  add "video/x-raw,format=NV12,width=$W,height=$H,framerate=$FPS/1"
  SOURCE="test source (no camera)"
fi
[ "$SIGMA" != 0 ] && add ! cudaaddnoise "sigma=$SIGMA"
if [ "$SIGMA" = 0 ]; then LABEL=original; else LABEL="noisy (sigma $SIGMA)"; fi
# window=auto (the element's default, said here): causal for this live source.
PROPS="window=auto $PROPS"
add_side_by_side "$W" yes "$LABEL"

echo "# $SOURCE, denoising branch in $MEMORY memory, cudadenoise preset=$PRESET${MODE:+ mode=$MODE} window=auto backend=$BACKEND" >&2
run_pipeline
