#!/usr/bin/env bash
# test_pipelines.sh PIPELINES_DIR: runs every pipelines/ script for a few frames
# into fakesink (and once into a file), checks the exit status, that the script
# printed the gst-launch-1.0 pipeline it ran, and that --help works.
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
else
  echo "skipped transcode, side-by-side-input, benchmark: x264enc or mp4mux missing"
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
