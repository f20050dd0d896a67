#!/usr/bin/env bash
# test_pipelines.sh PIPELINES_DIR: runs every pipelines/ script for a few frames
# into fakesink (and once into a file), checks the exit status, that the script
# printed the gst-launch-1.0 pipeline it ran, and that --help works; then what
# issue 13 found in transcode.sh (outputs, audio, interruptions, codecs,
# rotation) and the other scripts (sizes, defaults, repeated flags, CUDA memory).
# meson runs it with GST_PLUGIN_PATH_1_0 pointing at the built plugin.
set -uo pipefail
DIR="${1:?usage: test_pipelines.sh PIPELINES_DIR}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

check() {
  local name="$1" out
  shift
  if out=$("$@" 2>&1) && grep -q '^gst-launch-1.0 ' <<<"$out"; then
    echo "ok      $name"
  else
    echo "FAILED  $name: $*"
    tail -n 25 <<<"$out" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

# Frames in an H.264 file, counted after h264parse.
count_frames() {
  gst-launch-1.0 -v filesrc location="$1" ! qtdemux ! h264parse ! fakesink silent=false 2>&1 |
    grep -c "last-message = chain"
}

# expect NAME COMMAND...: COMMAND succeeds.
expect() {
  local name="$1"
  shift
  if "$@"; then echo "ok      $name"; else echo "FAILED  $name"; failures=$((failures + 1)); fi
}

# expect_failure NAME CODE PATTERN COMMAND...: COMMAND exits with CODE and says PATTERN on stderr.
expect_failure() {
  local name="$1" code="$2" pattern="$3" err rc=0
  shift 3
  err=$("$@" 2>&1 >/dev/null) || rc=$?
  if [ "$rc" = "$code" ] && grep -q -- "$pattern" <<<"$err"; then
    echo "ok      $name"
  else
    echo "FAILED  $name: exit $rc (want $code), stderr:"
    tail -n 5 <<<"$err" | sed 's/^/    /'
    failures=$((failures + 1))
  fi
}

# AAC frames in an MP4 or Matroska file, counted after aacparse.
count_audio() {
  gst-launch-1.0 -v filesrc location="$1" ! parsebin ! aacparse ! fakesink silent=false 2>&1 | grep -c "last-message = chain"
}

# Width x height of a file's video, as the scripts' probe (common.sh) sees it.
video_size() {
  (
    # shellcheck source=../../pipelines/common.sh
    . "$DIR/common.sh"
    probe_streams "$1"
    echo "${PROBE_WIDTH}x$PROBE_HEIGHT"
  )
}

no_temporaries() { ! ls -a "$1" | grep -q '\.part'; }

# transcode.sh as issue 13 found it: never over the input or an existing file,
# audio kept, a temporary file renamed only on success, interruptions, HEVC,
# other codecs, rotation.
transcode_tests() {
  local av="$TMP/av.mp4" out="$TMP/t/out.mp4" sum n
  mkdir -p "$TMP/t"
  gst-launch-1.0 -q -e videotestsrc num-buffers=24 ! video/x-raw,format=I420,width=160,height=96,framerate=24/1 ! \
    cudaaddnoise sigma=15 ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux name=m ! filesink location="$av" \
    audiotestsrc num-buffers=48 ! avenc_aac ! aacparse ! m.audio_0 || { echo "FAILED  could not make a clip with audio"; failures=$((failures + 1)); return; }
  sum=$(md5sum <"$av")
  expect_failure "transcode.sh refuses -o equal to -i" 2 "the output is the input file" "$DIR/transcode.sh" -i "$av" -o "$av" -y
  ln -s "$av" "$TMP/t/sym.mp4"
  ln "$av" "$TMP/t/hard.mp4"
  expect_failure "transcode.sh refuses a symlink to the input" 2 "the output is the input file" "$DIR/transcode.sh" -i "$av" -o "$TMP/t/sym.mp4" -y
  expect_failure "transcode.sh refuses a hard link to the input" 2 "the output is the input file" "$DIR/transcode.sh" -i "$av" -o "$TMP/t/hard.mp4" -y
  expect "the input is untouched" test "$(md5sum <"$av")" = "$sum"
  rm -f "$TMP/t/sym.mp4" "$TMP/t/hard.mp4"
  echo precious >"$out"
  expect_failure "transcode.sh refuses an existing output" 5 "already exists (use -y" "$DIR/transcode.sh" -i "$av" -o "$out"
  expect_failure "transcode.sh -n refuses an existing output" 5 "not overwriting (-n)" "$DIR/transcode.sh" -i "$av" -o "$out" -n
  expect "the existing output is untouched" test "$(cat "$out")" = precious
  # -y: written whole, audio copied packet for packet.
  check transcode-audio "$DIR/transcode.sh" -i "$av" -o "$out" -y --mode hybrid
  n=$(count_frames "$out")
  expect "transcode -y wrote 24 frames (got $n)" test "$n" = 24
  n=$(count_audio "$out")
  expect "transcode kept the audio: $(count_audio "$av") AAC frames in, $n out" test "$n" = "$(count_audio "$av")"
  # The temporal mode holds a window while the audio flows on: no stall.
  check transcode-nlm3d-audio timeout 300 "$DIR/transcode.sh" -i "$av" -o "$TMP/t/nlm.mkv" \
    --mode nlm3d --props "search-radius=2 temporal-radius=2 chunk-size=4"
  n=$(count_audio "$TMP/t/nlm.mkv")
  expect "transcode nlm3d into Matroska kept the audio ($n AAC frames)" test "$n" = "$(count_audio "$av")"
  # A symlink output is written through.
  mkdir -p "$TMP/t/real"
  ln -s real/target.mp4 "$TMP/t/link.mp4"
  check transcode-through-symlink "$DIR/transcode.sh" -i "$av" -o "$TMP/t/link.mp4" --num-buffers 5
  expect "the symlink stays a symlink" test -L "$TMP/t/link.mp4"
  n=$(count_frames "$TMP/t/real/target.mp4")
  expect "the symlink's target has 5 frames (got $n)" test "$n" = 5
  # A failing run leaves nothing.
  expect_failure "transcode.sh: an unknown container" 2 "cannot tell the container" "$DIR/transcode.sh" -i "$av" -o "$TMP/t/x.xyz"
  expect_failure "transcode.sh: a second -o" 2 "-o given twice" "$DIR/transcode.sh" -i "$av" -o "$TMP/t/a.mp4" -o "$TMP/t/b.mp4"
  # Interrupted (SIGTERM, and SIGINT as from a terminal): exit 143/130, no
  # temporary file, no output. bm3d takes a while at 640x480 (about 20 s for
  # these frames on a CPU) and stops at once.
  local long="$TMP/long.mp4" sig pid rc
  gst-launch-1.0 -q videotestsrc num-buffers=240 ! video/x-raw,format=I420,width=640,height=480,framerate=24/1 ! \
    x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location="$long"
  # A signal at once (the temporary file just made, the pipeline starting: a
  # signal there once let the whole job run, and left the temporary file) and
  # 0.5 s later; the script must be gone within 5 s either way. SIGINT goes to
  # the script's process group, as a terminal's Ctrl-C does (bash drops a
  # SIGINT sent to itself alone while a foreground child runs and exits
  # normally: it takes the child to have handled it); SIGTERM to the script.
  for sig in TERM INT; do
    for delay in 0 0.5; do
      rm -f "$TMP/t/int.mp4"
      setsid env --default-signal=INT "$DIR/transcode.sh" -i "$long" -o "$TMP/t/int.mp4" --mode bm3d >/dev/null 2>&1 &
      pid=$!
      # The probe runs first (several gst-launch-1.0 and gst-inspect-1.0, slow
      # under the sanitizer's preload on a loaded machine): up to 60 s.
      for _ in $(seq 3000); do ls -a "$TMP/t" | grep -q '\.int\.part' && break; sleep 0.02; done
      expect "transcode.sh made its temporary file (SIG$sig after $delay s)" eval "ls -a '$TMP/t' | grep -q '\.int\.part'"
      sleep "$delay"
      if [ "$sig" = INT ]; then kill -INT -- "-$pid"; else kill -TERM "$pid"; fi
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      expect "transcode.sh SIG$sig after $delay s: gone within 5 s" eval "! kill -0 $pid 2>/dev/null"
      kill -KILL -- "-$pid" 2>/dev/null || true  # its whole session: the pipeline too
      rc=0
      wait "$pid" || rc=$?
      expect "transcode.sh SIG$sig after $delay s: exit $rc" test "$rc" = "$([ $sig = TERM ] && echo 143 || echo 130)"
      expect "transcode.sh SIG$sig after $delay s left no output" test ! -e "$TMP/t/int.mp4"
      expect "transcode.sh SIG$sig after $delay s left no temporary file" no_temporaries "$TMP/t"
    done
  done
  expect "no temporary files left" no_temporaries "$TMP/t"
  # HEVC input is decoded (avdec_h265 or nvh265dec); other codecs are named.
  if gst-inspect-1.0 --exists x265enc; then
    gst-launch-1.0 -q videotestsrc num-buffers=12 ! video/x-raw,format=I420,width=160,height=96 ! \
      x265enc speed-preset=ultrafast ! h265parse ! matroskamux ! filesink location="$TMP/hevc.mkv"
    check transcode-hevc "$DIR/transcode.sh" -i "$TMP/hevc.mkv" -o "$TMP/t/hevc.mp4"
    n=$(count_frames "$TMP/t/hevc.mp4")
    expect "transcode of HEVC wrote 12 frames (got $n)" test "$n" = 12
  fi
  if gst-inspect-1.0 --exists vp8enc && gst-inspect-1.0 --exists webmmux; then
    gst-launch-1.0 -q videotestsrc num-buffers=3 ! video/x-raw,width=64,height=48 ! vp8enc ! webmmux ! \
      filesink location="$TMP/vp8.webm"
    expect_failure "transcode.sh names an unsupported codec" 2 "the video is video/x-vp8; this script decodes H.264 and HEVC" \
      "$DIR/transcode.sh" -i "$TMP/vp8.webm" -o "$TMP/t/vp8.mp4"
  fi
  # A rotated phone clip (tkhd matrix: rotate-90) comes out upright: 96x160.
  python3 - "$av" "$TMP/rot.mp4" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
m = d.find(b'tkhd') + 4 + 40  # version 0: the matrix follows 40 bytes of fields
d[m:m + 36] = struct.pack('>9I', 0, 0x10000, 0, 0xFFFF0000, 0, 0, 0, 0, 0x40000000)
open(sys.argv[2], 'wb').write(d)
PY
  check transcode-rotated "$DIR/transcode.sh" -i "$TMP/rot.mp4" -o "$TMP/t/rot-out.mp4"
  expect "the rotated clip comes out upright ($(video_size "$TMP/t/rot-out.mp4"), input $(video_size "$TMP/rot.mp4"))" \
    test "$(video_size "$TMP/t/rot-out.mp4")" = 96x160
}

gst-inspect-1.0 --exists --atleast-version=0.0.0 cudadenoise || { echo "cudadenoise not found (GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-})"; exit 1; }

for s in transcode side-by-side live-preview benchmark; do
  if "$DIR/$s.sh" --help | grep -q '^Usage:'; then echo "ok      $s --help"; else echo "FAILED  $s --help"; failures=$((failures + 1)); fi
done

check side-by-side "$DIR/side-by-side.sh" --num-buffers 5 --sink fakesink --size 160x96
check side-by-side-hybrid "$DIR/side-by-side.sh" --num-buffers 3 --sink fakesink --size 96x64 --mode hybrid --props "planes=luma tmax=1.5"
check side-by-side-nlm3d "$DIR/side-by-side.sh" --num-buffers 7 --sink fakesink --size 64x48 --mode nlm3d --props "search-radius=2 temporal-radius=2 chunk-size=4"
check live-preview-test-source "$DIR/live-preview.sh" --test-source --num-buffers 5 --sink fakesink --size 160x120
check live-preview-nlm3d "$DIR/live-preview.sh" --test-source --num-buffers 7 --sink fakesink --size 64x48 --mode nlm3d --props "search-radius=2 temporal-radius=1 patch-radius=0 chunk-size=2"
check live-preview-camera-dry-run "$DIR/live-preview.sh" --dry-run --device /dev/video0

if gst-inspect-1.0 --exists x264enc && gst-inspect-1.0 --exists mp4mux; then
  clip="$TMP/clip.mp4"
  gst-launch-1.0 -q videotestsrc num-buffers=12 ! video/x-raw,format=I420,width=160,height=96 ! \
    cudaaddnoise sigma=15 ! x264enc speed-preset=ultrafast ! h264parse ! mp4mux ! filesink location="$clip" ||
    { echo "FAILED  could not make a test clip"; exit 1; }
  check transcode-fakesink "$DIR/transcode.sh" -i "$clip" --num-buffers 5 --sink fakesink
  check transcode-file "$DIR/transcode.sh" -i "$clip" -o "$TMP/out.mp4" --num-buffers 5 --mode hybrid
  n=$(count_frames "$TMP/out.mp4")
  if [ "$n" = 5 ]; then echo "ok      transcode-file has 5 frames"; else echo "FAILED  transcode-file has $n frames, want 5"; failures=$((failures + 1)); fi
  # The temporal mode drains its window at EOS: every frame reaches the file.
  check transcode-nlm3d "$DIR/transcode.sh" -i "$clip" -o "$TMP/out-nlm3d.mp4" --mode nlm3d --props "search-radius=2 temporal-radius=2 chunk-size=4"
  n=$(count_frames "$TMP/out-nlm3d.mp4")
  if [ "$n" = 12 ]; then echo "ok      transcode-nlm3d has 12 frames"; else echo "FAILED  transcode-nlm3d has $n frames, want 12"; failures=$((failures + 1)); fi
  check side-by-side-input "$DIR/side-by-side.sh" -i "$clip" --sigma 0 --num-buffers 5 --sink fakesink --size 160x96
  check benchmark "$DIR/benchmark.sh" -i "$clip" --num-buffers 5 --repeat 1
  # The summary names the clip's size, not the default of a made clip.
  expect "benchmark reports the clip's size" grep -q "(160x96, 5 frames" <<<"$("$DIR/benchmark.sh" -i "$clip" --num-buffers 5 --repeat 1 2>/dev/null)"
  transcode_tests
else
  echo "skipped transcode, side-by-side-input, benchmark: x264enc or mp4mux missing"
fi

# Help texts name each script's own default mode and every mode.
expect "benchmark --help: default mode hybrid" grep -q "(default: hybrid)" <<<"$("$DIR/benchmark.sh" --help)"
expect "transcode --help: default preset standard" grep -q "(default: standard)" <<<"$("$DIR/transcode.sh" --help)"
# Every mode and preset the element lists (the library's) is on the --mode and
# --preset lines: vbm3d and the video presets were missing from a hand-made list.
help=$("$DIR/side-by-side.sh" --help)
for prop in mode preset; do
  nicks=$(gst-inspect-1.0 cudadenoise | sed -n "/^  $prop  *: /,/^  [a-z]/p" | grep -o '([0-9]*): [a-z0-9-]*' | cut -d' ' -f2)
  expect "gst-inspect lists the ${prop}s" test "$(wc -w <<<"$nicks")" -ge 5
  line=$(grep -- "^  --$prop " <<<"$help")
  for n in $nicks; do
    expect "--help names $prop $n" grep -qE "(^| |\|)$n(\||$)" <<<"$line"
  done
done
expect_failure "a second -i is refused" 2 "-i given twice" "$DIR/benchmark.sh" -i a.mp4 -i b.mp4
# CUDA memory asked for without a GPU: said why, not a bare not-negotiated.
if ! gst-inspect-1.0 --exists cudaupload; then
  expect_failure "--memory cuda without a GPU" 2 "needs a usable NVIDIA GPU" \
    "$DIR/side-by-side.sh" --memory cuda --num-buffers 2 --sink fakesink --size 64x48
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
