# pipelines/common.sh: shared by the pipeline scripts (sourced, not run).
#
# Pipelines are built as bash arrays of gst-launch-1.0 arguments (no eval), printed
# in a form that can be pasted back into a shell, then run.

# gst-launch-1.0 arguments of the pipeline being built.
PIPE=()
# Common options, set by parse_common_option.
NUM_BUFFERS=-1
SINK=""
MODE=""          # empty: the preset's mode
PRESET=standard  # cudadenoise's default preset (docs/PRESETS.md)
BACKEND=auto
PROPS=""
DRY_RUN=0

die() {
  echo "$(basename "$0"): $*" >&2
  exit 2
}

# fail CODE MESSAGE: like die, with another exit status (5: an output that
# cannot be written, as for cudadenoise-transcode).
fail() {
  local code="$1"
  shift
  echo "$(basename "$0"): $*" >&2
  exit "$code"
}

# set_once NAME FLAG VALUE: sets the variable NAME to VALUE, refusing a second
# value (a second -i used to replace the first without a word).
set_once() {
  local -n var="$1"
  [ -z "$var" ] || die "$2 given twice ('$var' and '$3'): give it once"
  var="$3"
}

# --atleast-version: without it --exists also demands a plugin version >= the
# GStreamer core version, which our 0.x plugin does not have.
have() { gst-inspect-1.0 --exists --atleast-version=0.0.0 "$1" 2>/dev/null; }

# add ARG...: appends pipeline words; add "!" between elements.
add() { PIPE+=("$@"); }

# Parses one common option; sets SHIFT_BY (how many words it used), returns 1 if
# the option is not a common one.
parse_common_option() {
  SHIFT_BY=2
  case "$1" in
    --num-buffers) NUM_BUFFERS="${2:?--num-buffers needs a number}" ;;
    --sink) SINK="${2:?--sink needs an element}" ;;
    --mode) MODE="${2:?--mode needs a mode (gst-inspect-1.0 cudadenoise lists them)}" ;;
    --preset) PRESET="${2:?--preset needs a preset name (gst-inspect-1.0 cudadenoise)}" ;;
    --backend) BACKEND="${2:?--backend needs auto, cuda or cpu}" ;;
    --props) PROPS="${2?--props needs a string}" ;;
    --dry-run) DRY_RUN=1; SHIFT_BY=1 ;;
    *) return 1 ;;
  esac
  return 0
}

# The nicks of one of cudadenoise's enum properties (mode, preset), as
# gst-inspect-1.0 lists them: the library's own list, joined by "|"; empty
# where the element is not found.
cudadenoise_choices() {
  gst-inspect-1.0 cudadenoise 2>/dev/null | awk -v prop="$1" '
    /^  [a-z0-9-]+ +: / { inside = ($1 == prop); next }
    inside && match($0, /^ +\([0-9]+\): [^ ]+/) { split(substr($0, RSTART, RLENGTH), w, ": "); out = out (out ? "|" : "") w[2] }
    END { print out }'
}

# The options every script takes, for its --help; the default preset and mode
# are the script's own ($PRESET, $MODE when it is called). The modes and
# presets come from the element (gst-inspect-1.0 cudadenoise describes each).
common_help() {
  local modes presets
  modes=$(cudadenoise_choices mode)
  presets=$(cudadenoise_choices preset)
  cat <<EOF
  --preset ${presets:-NAME}
                         cudadenoise preset (default: $PRESET); explicit --mode and
                         --props override it (gst-inspect-1.0 cudadenoise, docs/PRESETS.md)
  --mode ${modes:-MODE}
                         denoising algorithm (default: ${MODE:-from the preset}); a temporal
                         mode holds a window of frames, and the element reports its latency
                         (--props "window=causal" for live sources: latency 0, only past
                         frames)
  --backend auto|cuda|cpu
                         where cudadenoise filters (default: auto)
  --props "k=v ..."      more cudadenoise properties (e.g. "tmax=1.5 planes=luma"; PI-PD's
                         quality settings: "direction-prefilter=1 thickness=3 t2max=1")
  --num-buffers N        stop after N frames (default: until the end)
  --sink ELEMENT         sink to use instead of the default (e.g. fakesink)
  --dry-run              print the pipeline without running it
  -h, --help             this help
EOF
}

# cudadenoise with the chosen preset, mode (when given), backend and extra properties.
add_denoise() {
  local name="${1:-denoise}"
  add cudadenoise "name=$name" "preset=$PRESET"
  [ -z "$MODE" ] || add "mode=$MODE"
  add "backend=$BACKEND"
  local p
  # shellcheck disable=SC2086
  for p in $PROPS; do add "$p"; done
}

# Where frames can live: "cuda" when the nvcodec CUDA memory elements exist, a
# CUDA device is usable and the backend is not the CPU one, else "system".
pick_memory() {
  local want="$1"
  case "$want" in
    system) echo system ;;
    cuda)
      [ "$BACKEND" != cpu ] || die "--memory cuda needs a CUDA backend, not --backend cpu"
      [ "$DRY_RUN" = 1 ] || { have cudaupload && have cudadownload; } ||
        die "--memory cuda needs a usable NVIDIA GPU: GStreamer's nvcodec plugin registers cudaupload and" \
          "cudadownload only when the CUDA driver loads and finds a device, and here it did not" \
          "(see nvidia-smi; without a GPU use --memory system)"
      echo cuda ;;
    auto)
      if [ "$BACKEND" != cpu ] && have cudaupload && have cudadownload; then echo cuda; else echo system; fi ;;
    *) die "--memory must be auto, cuda or system" ;;
  esac
}

# H.264 decoder: nvh264dec when registered (it only registers with a usable GPU),
# else avdec_h264.
pick_decoder() {
  local want="$1"
  if [ "$want" != auto ]; then
    case "$want" in
      nv*) have "$want" || die "decoder $want is not available: nvcodec registers it only with a usable NVIDIA" \
        "GPU and driver (use --decoder auto or an avdec_* decoder)" ;;
      *) have "$want" || die "decoder $want is not available" ;;
    esac
    echo "$want"
  elif [ "$BACKEND" != cpu ] && have nvh264dec; then
    echo nvh264dec
  elif have avdec_h264; then
    echo avdec_h264
  else
    die "no H.264 decoder (nvh264dec or avdec_h264) is available"
  fi
}

# add_h264_source FILE DECODER: filesrc ! demuxer ! h264parse ! DECODER
add_h264_source() {
  local file="$1" dec="$2" demux=""
  [ -r "$file" ] || die "cannot read $file"
  case "${file,,}" in
    *.mp4 | *.mov | *.m4v | *.3gp) demux=qtdemux ;;
    *.mkv | *.webm) demux=matroskademux ;;
    *.ts | *.m2ts | *.mts) demux=tsdemux ;;
    *.h264 | *.264) demux="" ;;
    *) die "unknown container for $file (mp4, mov, mkv, ts or raw .h264)" ;;
  esac
  add filesrc "location=$file"
  [ -n "$demux" ] && add ! "$demux"
  add ! h264parse ! "$dec"
}

# probe_streams FILE: what FILE holds, from parsebin (typefind, demuxer and
# parsers, no decoding) on its first packets. Sets PROBE_VIDEO (the first video
# stream's caps, "" for none), PROBE_AUDIO (an array: each audio stream's caps),
# PROBE_WIDTH and PROBE_HEIGHT (of the video), PROBE_ORIENTATION (its
# image-orientation tag, e.g. rotate-90; "" for none) and PROBE_ERROR (what
# GStreamer said when it could not read FILE). Every stream goes into one funnel
# and a fakesink that stops after 100 packets, so it ends quickly whatever the
# number of streams.
probe_streams() {
  local file="$1" out caps branches=() i
  PROBE_VIDEO="" PROBE_AUDIO=() PROBE_WIDTH="" PROBE_HEIGHT="" PROBE_ORIENTATION="" PROBE_ERROR=""
  for ((i = 0; i < 8; i++)); do branches+=(d. ! f.); done
  out=$(timeout --foreground 60 gst-launch-1.0 -v -t filesrc "location=$file" ! parsebin name=d "${branches[@]}" \
    funnel name=f ! fakesink num-buffers=100 2>&1) || true
  while IFS= read -r caps; do
    case "$caps" in
      video/*) if [ -z "$PROBE_VIDEO" ]; then PROBE_VIDEO="$caps"; fi ;;
      audio/*) PROBE_AUDIO+=("$caps") ;;
    esac
  done < <(awk -F': caps = ' '/GstFunnelPad:funnelpad[0-9]+: caps = / {
             split($1, a, "GstFunnelPad:"); if (!seen[a[2]]++) print $2 }' <<<"$out")
  [[ "$PROBE_VIDEO" =~ width=\(int\)([0-9]+) ]] && PROBE_WIDTH="${BASH_REMATCH[1]}"
  [[ "$PROBE_VIDEO" =~ height=\(int\)([0-9]+) ]] && PROBE_HEIGHT="${BASH_REMATCH[1]}"
  PROBE_ORIENTATION=$(sed -n 's/^ *image orientation: *\([a-z0-9-]*\).*/\1/p' <<<"$out" | head -n 1)
  PROBE_ERROR=$(sed -n 's/^ERROR: from element [^ ]*: //p' <<<"$out" | head -n 1)
}

# The caps' media type: "video/x-h264" of "video/x-h264, stream-format=...".
caps_name() { echo "${1%%,*}"; }

# After the source: stop after NUM_BUFFERS frames (sources without num-buffers).
# identity eos-after=N ends the stream on the N-th buffer, passing N-1 of them.
add_frame_limit() {
  if [ "$NUM_BUFFERS" -ge 0 ]; then add ! identity "eos-after=$((NUM_BUFFERS + 1))"; fi
}

# add_side_by_side W [LEAKY] [LABEL]: the current branch ends in raw video; tee it
# into the original view (left, labelled LABEL) and the denoised view (right) of
# a compositor. LEAKY=yes: leaky queues (live sources). MEMORY=cuda denoises in
# CUDA memory (upload, cudadenoise, download); the rest runs in system memory.
add_side_by_side() {
  local width="$1" leaky="${2:-no}" left="${3:-noisy}" qopts=()
  [ "$leaky" = yes ] && qopts=("leaky=downstream" "max-size-buffers=2")
  add ! tee name=t
  add t. ! queue "${qopts[@]}"
  if have textoverlay; then add ! textoverlay "text=$left" valignment=top halignment=left; fi
  add ! comp.sink_0
  add t. ! queue "${qopts[@]}"
  [ "$MEMORY" = cuda ] && add ! cudaupload
  add !
  add_denoise
  [ "$MEMORY" = cuda ] && add ! cudadownload
  if have textoverlay; then add ! textoverlay "text=denoised (${MODE:-$PRESET})" valignment=top halignment=left; fi
  add ! comp.sink_1
  local sink_words
  read -ra sink_words <<<"$SINK"
  add compositor name=comp "sink_1::xpos=$width" ! videoconvert ! "${sink_words[@]}"
}

# The words as the shell needs them, space-separated, into the variable named
# $1: each bare when safe ("!" included: only "!x" expands in an interactive
# shell), else in single quotes. No subshell (printf -v): a script that traps
# signals must not wait for children that could swallow a SIGINT.
quote_words() {
  local -n quoted_out=$1
  local w q
  shift
  quoted_out=""
  for w in "$@"; do
    if [[ "$w" =~ ^[A-Za-z0-9_./:=,@%+!-]+$ ]]; then
      q=$w
    elif [[ "$w" != *"'"* ]]; then
      q="'$w'"
    else
      printf -v q '%q' "$w"
    fi
    quoted_out+="${quoted_out:+ }$q"
  done
}

# Prints the pipeline as a runnable command, then runs it (unless --dry-run).
run_pipeline() {
  local cmd=(gst-launch-1.0 -e "${PIPE[@]}") line
  quote_words line "${cmd[@]}"
  echo "$line"
  [ "$DRY_RUN" = 1 ] && return 0
  # -e: Ctrl-C sends EOS, which drains the filter's temporal window: the held
  # frames are still filtered (on a CPU, seconds each at 640x480 for nlm3d or
  # vbm3d, so it can look stuck); a second Ctrl-C makes gst-launch quit at once.
  echo "# Ctrl-C ends the stream after the frames cudadenoise holds; Ctrl-C twice quits at once" >&2
  "${cmd[@]}"
}
