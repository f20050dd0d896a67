#!/usr/bin/env bash
# transcode.sh: denoise the video of an H.264 or HEVC file into a new H.264 MP4
# (or Matroska), keeping its audio.
#
# Looks at the input first (parsebin: codecs, audio streams, rotation), then
# decodes with nvh264dec/nvh265dec when registered (a usable NVIDIA GPU), else
# avdec_h264/avdec_h265; encodes with nvh264enc when registered, else x264enc
# (after cudadownload when the frames are in CUDA memory). With an NVIDIA
# decoder and nvh264enc the frames never leave the GPU. Audio streams the
# container can hold are copied (no re-encoding); others are dropped with a
# note. A rotated phone clip (image-orientation tag) is turned upright with
# videoflip, since GStreamer 1.22's mp4mux cannot store a rotation.
#
# The output is written the way cudadenoise-transcode writes it: never over the
# input (same device and inode, so symlinks and hard links count), never over
# an existing file without -y (-n refuses explicitly), into a temporary file
# beside it that is renamed only when the pipeline succeeded; on failure,
# Ctrl-C or SIGTERM the temporary file is removed and OUTPUT is left as it was.
# A symlink OUTPUT is written through (the file it names is replaced).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=common.sh
. "$HERE/common.sh"

usage() {
  cat <<EOF
Usage: $(basename "$0") -i INPUT [-o OUTPUT] [options]

Denoises an H.264 or HEVC video (mp4, mov, mkv, ts, raw .h264/.h265, ...) with
cudadenoise and writes H.264 in MP4 (or Matroska for a .mkv OUTPUT), with the
input's audio copied. Prints the gst-launch-1.0 pipeline it runs.

  -i, --input FILE       input video (H.264 or HEVC)
  -o, --output FILE      output .mp4, .m4v, .mov or .mkv (default: INPUT without
                         extension + -denoised.mp4); written to a temporary file beside
                         it and renamed at the end; never the input
  -y                     overwrite OUTPUT if it exists
  -n                     never overwrite OUTPUT (the default without -y)
  --no-audio             drop the audio instead of copying it (--num-buffers drops it too:
                         it would outlast the cut video)
  --decoder auto|nvh264dec|avdec_h264|nvh265dec|avdec_h265
                         video decoder (default: auto, the NVIDIA one when present)
  --encoder auto|nvh264enc|x264enc
                         H.264 encoder (default: auto, nvh264enc when present;
                         H100/H200 have no NVENC, so x264enc there)
  --bitrate KBPS         encoder bitrate in kbit/s (default: 8000)
$(common_help)

Exit status: 0 success, 1 the pipeline failed, 2 bad arguments or input, 5 OUTPUT
exists (without -y) or cannot be written, 130/143/129 interrupted (Ctrl-C/SIGTERM/SIGHUP).
Interlaced video is refused by cudadenoise (deinterlace it first, or use
cudadenoise-transcode, which filters its fields apart).

Example:
  $(basename "$0") -i noisy.mp4 -o clean.mp4 --mode hybrid
  $(basename "$0") -i noisy.mp4 --num-buffers 10 --sink fakesink   # CI smoke run
EOF
}

INPUT="" OUTPUT="" DECODER=auto ENCODER=auto BITRATE=8000 YES=0 NO=0 AUDIO=1
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) usage; exit 0 ;;
    -i | --input) set_once INPUT "$1" "${2:?--input needs a file}"; shift 2 ;;
    -o | --output) set_once OUTPUT "$1" "${2:?--output needs a file}"; shift 2 ;;
    -y) YES=1; shift ;;
    -n) NO=1; shift ;;
    --no-audio) AUDIO=0; shift ;;
    --decoder) DECODER="${2:?}"; shift 2 ;;
    --encoder) ENCODER="${2:?}"; shift 2 ;;
    --bitrate) BITRATE="${2:?}"; shift 2 ;;
    *) parse_common_option "$@" || die "unknown option $1 (see --help)"; shift "$SHIFT_BY" ;;
  esac
done
[ -n "$INPUT" ] || { usage >&2; exit 2; }
[ "$YES" = 1 ] && [ "$NO" = 1 ] && die "-y and -n exclude each other"
[ -r "$INPUT" ] && [ -f "$INPUT" ] || die "cannot read $INPUT"
[ -n "$OUTPUT" ] || OUTPUT="${INPUT%.*}-denoised.mp4"
TO_FILE=1
[ -n "$SINK" ] && TO_FILE=0

# ---- the output: never the input, -y/-n, the container ----------------------
if [ "$TO_FILE" = 1 ]; then
  case "${OUTPUT,,}" in
    *.mp4 | *.m4v) MUXER=mp4mux ;;
    *.mov) MUXER=qtmux ;;
    *.mkv) MUXER=matroskamux ;;
    *) die "cannot tell the container from '$OUTPUT': use .mp4, .m4v, .mov or .mkv" ;;
  esac
  if [ -e "$OUTPUT" ] && [ "$(stat -L -c %d:%i -- "$OUTPUT")" = "$(stat -L -c %d:%i -- "$INPUT")" ]; then
    die "$OUTPUT: the output is the input file"
  fi
  [ -d "$OUTPUT" ] && fail 5 "$OUTPUT: is a directory"
  if [ -e "$OUTPUT" ] && [ "$YES" = 0 ]; then
    [ "$NO" = 1 ] && fail 5 "$OUTPUT already exists; not overwriting (-n)"
    fail 5 "$OUTPUT already exists (use -y to overwrite it)"
  fi
  REAL=$(readlink -m -- "$OUTPUT")  # a symlink is written through
  OUT_DIR=$(dirname -- "$REAL")
  [ -d "$OUT_DIR" ] || fail 5 "cannot write to $OUT_DIR: No such directory"
  [ -w "$OUT_DIR" ] || fail 5 "cannot write to $OUT_DIR: Permission denied"
fi

# ---- the input: what it holds ------------------------------------------------
probe_streams "$INPUT"
if [ -z "$PROBE_VIDEO" ]; then
  die "$INPUT: no video stream found${PROBE_ERROR:+ ($PROBE_ERROR)}"
fi
case "$(caps_name "$PROBE_VIDEO")" in
  video/x-h264) CODEC=h264 ;;
  video/x-h265) CODEC=h265 ;;
  *) die "$INPUT: the video is $(caps_name "$PROBE_VIDEO"); this script decodes H.264 and HEVC only." \
    "cudadenoise-transcode takes any codec FFmpeg decodes" ;;
esac

if [ "$DECODER" = auto ]; then
  if [ "$BACKEND" != cpu ] && have "nv${CODEC}dec"; then DEC="nv${CODEC}dec"; else DEC="avdec_$CODEC"; fi
  have "$DEC" || die "no $CODEC decoder (nv${CODEC}dec or avdec_$CODEC) is available"
else
  case "$DECODER" in
    *"$CODEC"*) ;;
    *) die "--decoder $DECODER cannot decode $INPUT's video ($CODEC)" ;;
  esac
  DEC=$(pick_decoder "$DECODER")
fi
case "$ENCODER" in
  auto) if [ "$BACKEND" != cpu ] && have nvh264enc; then ENC=nvh264enc; else ENC=x264enc; fi ;;
  nvh264enc | x264enc) ENC="$ENCODER" ;;
  *) die "--encoder must be auto, nvh264enc or x264enc" ;;
esac
have "$ENC" || die "encoder $ENC is not available"

# Audio the container holds is copied; the rest is named and dropped.
AUDIO_KEPT=() AUDIO_NOTES=()
if [ "$TO_FILE" = 1 ]; then
  for caps in "${PROBE_AUDIO[@]}"; do
    name=$(caps_name "$caps")
    if [ "$AUDIO" = 0 ]; then
      AUDIO_NOTES+=("audio ($name) dropped (--no-audio)")
      continue
    fi
    # Cut after N frames, the video would end long before the audio (and qtdemux
    # takes a track under 20% of the file's length for a preview and skips it).
    if [ "$NUM_BUFFERS" -ge 0 ]; then
      AUDIO_NOTES+=("audio ($name) dropped: --num-buffers cuts the video only")
      continue
    fi
    case "$MUXER:$name" in
      *:audio/mpeg | *:audio/x-ac3 | *:audio/x-opus | mp4mux:audio/x-alac | qtmux:audio/x-alac) AUDIO_KEPT+=("$name") ;;
      matroskamux:audio/x-eac3 | matroskamux:audio/x-vorbis | matroskamux:audio/x-flac | matroskamux:audio/x-raw)
        AUDIO_KEPT+=("$name") ;;
      *) AUDIO_NOTES+=("audio ($name) cannot go into $MUXER: dropped (an .mkv OUTPUT keeps more kinds)") ;;
    esac
  done
fi
ROTATE=0
case "$PROBE_ORIENTATION" in "" | rotate-0) ;; *) ROTATE=1 ;; esac

# ---- the pipeline ------------------------------------------------------------
add filesrc "location=$INPUT" ! parsebin name=d
# The video: parsebin's pad whose caps the parser takes; a queue decouples it
# from the audio (both come from parsebin's thread; without unbounded queues on
# compressed data a window of held frames could stall the demuxer).
add d. ! "${CODEC}parse" ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! "$DEC"
add_frame_limit
if [[ "$DEC" == nv* ]]; then
  # CUDA memory from the decoder: filtered where it is.
  add !
  add_denoise
  if [ "$ROTATE" = 1 ]; then
    add ! cudadownload ! videoflip video-direction=auto
  elif [ "$ENC" = x264enc ]; then
    add ! cudadownload
  fi
else
  # System memory (avdec gives I420 for 8-bit 4:2:0; convert anything else).
  add ! videoconvert !
  add_denoise
  [ "$ROTATE" = 1 ] && add ! videoflip video-direction=auto
fi
if [ "$ENC" = nvh264enc ]; then
  add ! nvh264enc "bitrate=$BITRATE"
else
  add ! x264enc "bitrate=$BITRATE" speed-preset=veryfast
fi
add ! h264parse !
# Signals while writing a file (armed before the temporary file is made): the
# temporary file goes on any exit but success, and the script exits with 128 +
# the signal's number. The pipeline is terminated with SIGTERM (its output is
# thrown away, so it needs no orderly stop; a background job of a script
# ignores SIGINT until gst-launch has installed its handler, so an early SIGINT
# would be lost), then SIGKILL if it is still there 2 s later (a signal that
# reaches the child between fork and exec is lost with the shell's handler). A
# signal before the pipeline started stops it as soon as it has a pid.
TMP="" GST_PID="" SIGNALLED=0
cleanup() { [ -z "$TMP" ] || rm -f -- "$TMP"; }
stop() {
  SIGNALLED=$1
  [ -n "$GST_PID" ] || return 0
  kill -TERM "$GST_PID" 2>/dev/null || true
  for _ in $(seq 20); do kill -0 "$GST_PID" 2>/dev/null || return 0; sleep 0.1 || true; done
  kill -KILL "$GST_PID" 2>/dev/null || true
}
arm_signals() {
  trap cleanup EXIT
  trap 'stop 130' INT
  trap 'stop 143' TERM
  trap 'stop 129' HUP
}

if [ "$TO_FILE" = 0 ]; then
  read -ra sink_words <<<"$SINK"
  add "${sink_words[@]}"
else
  add mux.video_%u
  for name in "${AUDIO_KEPT[@]}"; do
    # Each such link takes the next audio pad of that type, as it is: no decoding.
    add d. ! "$name" ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! mux.audio_%u
  done
  # From the temporary file to the launch: no command substitution or pipe
  # (children that could take a SIGINT and exit normally, which makes bash
  # drop it), only mktemp and chmod, which a SIGINT kills.
  tmp_pattern=".$(basename -- "${REAL%.*}").partXXXXXX"
  tmp_mode=$(printf '%o' $((0666 & ~$(umask))))
  arm_signals  # before the temporary file exists: a signal from here on removes it
  TMP=$(mktemp --tmpdir="$OUT_DIR" --suffix=".${REAL##*.}" "$tmp_pattern") || {
    [ "$SIGNALLED" = 0 ] || exit "$SIGNALLED"  # mktemp killed by the signal
    fail 5 "cannot write to $OUT_DIR"
  }
  chmod "$tmp_mode" "$TMP"
  add "$MUXER" name=mux ! filesink "location=$TMP"
fi

applied=""
[ "$ROTATE" = 1 ] && applied=", $PROBE_ORIENTATION applied"
echo "# decoder: $DEC, encoder: $ENC, cudadenoise preset=$PRESET${MODE:+ mode=$MODE} backend=$BACKEND," \
  "audio: ${#AUDIO_KEPT[@]} stream(s) copied$applied" >&2
for note in "${AUDIO_NOTES[@]}"; do echo "${0##*/}: $note" >&2; done

if [ "$TO_FILE" = 0 ] || [ "$DRY_RUN" = 1 ]; then
  [ -n "${TMP:-}" ] && rm -f -- "$TMP"
  run_pipeline
  exit
fi

# Run without -e: an interrupted run keeps nothing, so it needs no EOS (which a
# slow filter would make wait); the temporary file goes on any exit but success.
cmd=(gst-launch-1.0 "${PIPE[@]}")
quote_words line "${cmd[@]}"
echo "$line"
"${cmd[@]}" &
GST_PID=$!
[ "$SIGNALLED" = 0 ] || stop "$SIGNALLED"
rc=0
wait "$GST_PID" || rc=$?
# A signal interrupts `wait`; wait for the pipeline itself to be gone.
while kill -0 "$GST_PID" 2>/dev/null; do wait "$GST_PID" || true; done
GST_PID=""  # reaped: a later signal must not kill a process that reuses its pid
if [ "$SIGNALLED" != 0 ]; then
  echo "${0##*/}: interrupted; $OUTPUT was not written" >&2 || true  # no terminal after SIGHUP
  exit "$SIGNALLED"
fi
[ "$rc" = 0 ] || fail 1 "the pipeline failed (exit $rc); $OUTPUT was not written"
[ -s "$TMP" ] || fail 1 "the pipeline wrote nothing; $OUTPUT was not written"
mv -f -- "$TMP" "$REAL" || fail 5 "cannot rename the result to $REAL"
trap - EXIT
echo "# wrote $OUTPUT" >&2
