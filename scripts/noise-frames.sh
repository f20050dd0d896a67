#!/usr/bin/env bash
# noise-frames.sh: the luma of a few frames of each evaluation clip as PNG, for
# the noise estimator's accuracy table (cudadenoise-noise-bench --frames DIR,
# docs/NOISE.md). Frames 0, 60 and 120 of vtest.avi, cup.mp4 and box.mp4
# (scripts/fetch-eval-data.sh), their Y plane as it is (extractplanes: no range
# or matrix conversion), into .testdata/video/frames/. Needs ffmpeg. Idempotent.
#
#   scripts/noise-frames.sh && build/tools/bench/cudadenoise-noise-bench --frames .testdata/video/frames
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
video="$root/.testdata/video"
out="$video/frames"
"$root/scripts/fetch-eval-data.sh" >/dev/null
mkdir -p "$out"
for clip in vtest.avi cup.mp4 box.mp4; do
  name=${clip%.*}
  [ -s "$out/${name}_3.png" ] && continue
  ffmpeg -v error -y -i "$video/$clip" -vf "select='not(mod(n\,60))',extractplanes=y" -vsync 0 -frames:v 3 \
    "$out/${name}_%d.png"
done
echo "noise frames: $(ls "$out"/*.png | wc -l) frames in $out"
