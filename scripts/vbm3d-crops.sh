#!/usr/bin/env bash
# vbm3d-crops.sh: cuts the small crops of docs/VBM3D.md's "Tuning the quality
# profile" table out of the ten evaluation clips (scripts/eval-clips.tsv,
# fetched by scripts/fetch-eval-data.sh) into <repo>/.testdata/vbm3d-crops/:
# a 160x120 crop at the centre of each clip (its motion in pixels unchanged),
# FRAMES frames (default 10) from a start frame past the opening (ball: past
# its burnt-in title; dog has 41 frames), 8-bit 4:2:0 .y4m (the harness takes
# the luma). Small enough for the CPU references: one setting over the ten
# crops and sigma 10, 20, 40 takes about 2 minutes of one core.
#
#   scripts/vbm3d-crops.sh
#   build/tools/vbm3d/cudadenoise-vbm3d-quality --bm3d-cache /tmp/bm3d.txt .testdata/vbm3d-crops/*.y4m
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/cut-clip.sh"
src="$root/.testdata/video"
dest="$root/.testdata/vbm3d-crops"
frames=${FRAMES:-10}
"$root/scripts/fetch-eval-data.sh" >/dev/null
mkdir -p "$dest"
# name  source  width  height  start-frame
while read -r name file width height start; do
  cut_clip "$dest/$name.y4m" "$src/$file" "$start" "160:120:$(((width - 160) / 4 * 2)):$(((height - 120) / 4 * 2))" "$frames"
done <<'LIST'
cup      cup.mp4      640  480  20
box      box.mp4      640  480  20
cockatoo cockatoo.mp4 1280 720  20
diver    diver.mov    640  480  20
dog      dog.mp4      1920 1080 10
city     city.mkv     720  405  20
vtest    vtest.avi    768  576  20
ball     ball.mp4     720  576  40
lego     lego.mp4     560  320  20
coin     coin.mov     568  320  20
LIST
ls -la "$dest"
