#!/usr/bin/env bash
# benchmark.sh: what cudadenoise adds to decoding, in one run.
#
# Makes an H.264 clip (x264enc, noisy test pattern) unless one is given, then
# times, alternately and --repeat times each:
#   A: filesrc ! demux ! h264parse ! DEC ! fakesink
#   B: filesrc ! demux ! h264parse ! DEC ! cudadenoise mode=MODE ! fakesink
#   C: filesrc ! demux ! h264parse ! DEC ! queue ! cudadenoise mode=MODE ! fakesink
# (with nvh264dec, a CUDA-memory caps filter after DEC in all three) and prints
# the median running time (gst-launch's "Execution ended after", from PLAYING to
# EOS), frames per second and the overhead of B and C over A.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

usage() {
  cat <<EOF
Usage: $(basename "$0") [options]

Decode-only against decode + cudadenoise on the same H.264 clip, in one run.
Prints each pipeline it runs and a summary line per pipeline.

  -i, --input FILE       H.264 clip (default: one made with x264enc in a temp dir)
  --size WxH             size of the made clip (default: 1920x1080; with -i, the clip's own)
  --frames N             frames of the made clip (default: 600)
  --decoder auto|nvh264dec|avdec_h264
                         (default: auto, nvh264dec when present)
  --repeat N             runs of each pipeline, median reported (default: 3)
  --keep                 keep the made clip
$(common_help)
  (--sink is ignored: every pipeline ends in fakesink)

Example:
  $(basename "$0") --size 3840x2160 --frames 300
EOF
}

MODE=hybrid INPUT="" SIZE="" FRAMES=600 DECODER=auto REPEAT=3 KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -i | --input) set_once INPUT "$1" "${2:?--input needs a file}"; shift 2 ;;
    --size) set_once SIZE "$1" "${2:?}"; shift 2 ;;
    --frames) FRAMES="${2:?}"; shift 2 ;;
    --decoder) DECODER="${2:?}"; shift 2 ;;
    --repeat) REPEAT="${2:?}"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    *) parse_common_option "$@" || die "unknown option $1 (see --help)"; shift "$SHIFT_BY" ;;
  esac
done
if [ -n "$INPUT" ]; then
  # The clip's own size and codec, for the summary and the decoder.
  [ -z "$SIZE" ] || die "--size is for the made clip: $INPUT has its own size"
  [ -r "$INPUT" ] || die "cannot read $INPUT"
  probe_streams "$INPUT"
  [ "$(caps_name "$PROBE_VIDEO")" = video/x-h264 ] ||
    die "$INPUT: benchmark.sh takes H.264 clips; its video is ${PROBE_VIDEO:+$(caps_name "$PROBE_VIDEO")}${PROBE_VIDEO:-missing${PROBE_ERROR:+ ($PROBE_ERROR)}}"
  SIZE="${PROBE_WIDTH}x${PROBE_HEIGHT}"
fi
[ -n "$SIZE" ] || SIZE=1920x1080
[[ "$SIZE" =~ ^([0-9]+)x([0-9]+)$ ]] || die "--size must be WxH"
if [ "$NUM_BUFFERS" -ge 0 ]; then FRAMES="$NUM_BUFFERS"; fi
DEC=$(pick_decoder "$DECODER")

if [ -z "$INPUT" ]; then
  have x264enc || die "x264enc is needed to make the clip (or give --input)"
  TMP=$(mktemp -d)
  [ "$KEEP" = 1 ] || trap 'rm -rf "$TMP"' EXIT
  INPUT="$TMP/clip-$SIZE.mp4"
  PIPE=()
  add videotestsrc "num-buffers=$FRAMES" pattern=smpte !
  add "video/x-raw,format=I420,width=${BASH_REMATCH[1]},height=${BASH_REMATCH[2]},framerate=30/1"
  add ! cudaaddnoise sigma=15 ! x264enc speed-preset=ultrafast key-int-max=30 ! h264parse ! mp4mux
  add ! filesink "location=$INPUT"
  echo "# making the clip ($FRAMES frames, $SIZE)" >&2
  run_pipeline >&2
fi

# With a given clip: count its frames (access units after h264parse, no decoding).
if [ -z "${TMP:-}" ]; then
  PIPE=()
  add_h264_source "$INPUT" fakesink
  PIPE=("${PIPE[@]:0:${#PIPE[@]}-1}" fakesink silent=false)
  FRAMES=$(gst-launch-1.0 -v "${PIPE[@]}" 2>&1 | grep -c "last-message = chain" || true)
  [ "$FRAMES" -gt 0 ] || die "could not count the frames of $INPUT"
  if [ "$NUM_BUFFERS" -ge 0 ] && [ "$NUM_BUFFERS" -lt "$FRAMES" ]; then FRAMES="$NUM_BUFFERS"; fi
fi

# seconds from gst-launch's "Execution ended after H:MM:SS.NNNNNNNNN"
run_timed() {
  local out
  out=$(run_pipeline 2>&1) || { echo "$out" >&2; die "pipeline failed"; }
  echo "$out" | head -n 1 >&2
  echo "$out" | sed -n 's/.*Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\).*/\1 \2 \3/p' |
    awk '{ printf "%.6f\n", $1 * 3600 + $2 * 60 + $3 }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# The decoder's output in the memory the denoiser will use: CUDA memory after
# nvh264dec in every variant, so that decode-only is not slowed by a download.
add_decoded() {
  add_h264_source "$INPUT" "$DEC"
  add_frame_limit
  if [ "$DEC" = nvh264dec ]; then add ! "video/x-raw(memory:CUDAMemory)"; else add ! videoconvert; fi
}

# A: decode only; B: decode ! cudadenoise (one streaming thread: decode and
# denoise take turns); C: decode ! queue ! cudadenoise (two threads: they overlap).
A_TIMES=() B_TIMES=() C_TIMES=()
for ((r = 0; r < REPEAT; r++)); do
  PIPE=()
  add_decoded
  add ! fakesink sync=false
  A_TIMES+=("$(run_timed)")
  for v in B C; do
    PIPE=()
    add_decoded
    [ "$v" = C ] && add ! queue
    add !
    add_denoise
    add ! fakesink sync=false
    if [ "$v" = B ]; then B_TIMES+=("$(run_timed)"); else C_TIMES+=("$(run_timed)"); fi
  done
done

A=$(printf '%s\n' "${A_TIMES[@]}" | median)
B=$(printf '%s\n' "${B_TIMES[@]}" | median)
C=$(printf '%s\n' "${C_TIMES[@]}" | median)
awk -v a="$A" -v b="$B" -v c="$C" -v n="$FRAMES" -v dec="$DEC" -v mode="$MODE" -v size="$SIZE" -v r="$REPEAT" 'BEGIN {
  printf "%-44s %9.3f s %9.1f fps\n", "A decode only (" dec "):", a, n / a
  printf "%-44s %9.3f s %9.1f fps  overhead %+.1f %%\n", "B decode ! cudadenoise mode=" mode ":", b, n / b, (b - a) / a * 100
  printf "%-44s %9.3f s %9.1f fps  overhead %+.1f %%\n", "C decode ! queue ! cudadenoise mode=" mode ":", c, n / c, (c - a) / a * 100
  printf "(%s, %d frames, median of %d runs each; running time from PLAYING to EOS)\n", size, n, r
}'
