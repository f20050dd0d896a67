#!/usr/bin/env bash
# make-compressed-clips.sh: the compressed clips of the evaluation report (issue 16: "clean or
# compressed clips, x264/x265 at crf 18 to 28 of a clean source"; tools/eval/harness/config.py
# COMPRESSED): a 960x540 centre crop of the cleanest clip, dog.mp4 (41 frames), kept losslessly as
# FFV1 (the source the report measures against), and encoded from that with libx264 and libx265 at
# crf 18, 23 and 28 (preset medium, 4:2:0 8-bit), into .testdata/video/compressed/. Each encode is
# checked to decode to as many frames as the source. Runs here (Debian's FFmpeg has libx265; the GPU
# host's runtime does not): scripts/stage-eval.sh calls it and carries the files.
#
#   scripts/make-compressed-clips.sh [DATA_DIR]      # default .testdata
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-.testdata}
src=$data/video/dog.mp4
out=$data/video/compressed
[ -f "$src" ] || { echo "make-compressed-clips: no $src (scripts/fetch-eval-data.sh)" >&2; exit 1; }
mkdir -p "$out"
frames() { ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$1"; }
ref=$out/dog-960x540-ffv1.mkv
if [ ! -s "$ref" ]; then
  ffmpeg -hide_banner -loglevel error -nostdin -y -i "$src" -an -sn -map 0:v:0 -fps_mode passthrough \
    -vf 'crop=960:540:480:270' -pix_fmt yuv420p -c:v ffv1 -level 3 "$ref.part.mkv"
  mv "$ref.part.mkv" "$ref"
fi
n=$(frames "$ref")
for enc in x264 x265; do
  for crf in 18 23 28; do
    f=$out/dog-960x540-$enc-crf$crf.mp4
    [ -s "$f" ] && continue
    extra=()
    [ $enc = x265 ] && extra=(-x265-params log-level=error -tag:v hvc1)
    ffmpeg -hide_banner -loglevel error -nostdin -y -i "$ref" -fps_mode passthrough -c:v lib$enc -preset medium \
      -crf $crf -pix_fmt yuv420p "${extra[@]}" "$f.part.mp4"
    m=$(frames "$f.part.mp4")
    [ "$m" = "$n" ] || { echo "make-compressed-clips: $f has $m frames, the source $n" >&2; exit 1; }
    mv "$f.part.mp4" "$f"
  done
done
echo "make-compressed-clips: $(ls "$out" | wc -l) files in $out ($n frames each, $(du -sh "$out" | cut -f1))"
