#!/usr/bin/env bash
# vbm3d-clips.sh: cuts the small clips of docs/VBM3D.md's CPU quality tables
# out of the evaluation clips (scripts/fetch-eval-data.sh; Megamind.avi and
# tree.avi come from the same opencv-doc package) into <repo>/.testdata/vbm3d/:
# 320x240 crops at the clips' own scale (their motion in pixels unchanged),
# FRAMES frames (default 30) from a start frame past the opening, 8-bit 4:2:0
# .y4m (the harness takes the luma).
#
#   scripts/vbm3d-clips.sh            # then: build/tools/vbm3d/cudadenoise-vbm3d-quality .testdata/vbm3d/*.y4m
#   FRAMES=20 scripts/vbm3d-clips.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/cut-clip.sh"
src="$root/.testdata/video"
dest="$root/.testdata/vbm3d"
frames=${FRAMES:-30}
"$root/scripts/fetch-eval-data.sh" >/dev/null
cache="${CDN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cudadenoise}"
for extra in Megamind.avi tree.avi; do
  if [ ! -s "$src/$extra" ]; then
    deb=$(ls "$cache"/opencv-doc_*_all.deb | head -1)
    tmp=$(mktemp -d)
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./usr/share/doc/opencv-doc/examples/data/$extra"
    cp "$tmp/usr/share/doc/opencv-doc/examples/data/$extra" "$src/$extra"
    rm -rf "$tmp"
  fi
done
mkdir -p "$dest"
# name  source  start-frame  crop (w:h:x:y)
while read -r name file start crop; do
  cut_clip "$dest/$name.y4m" "$src/$file" "$start" "$crop" "$frames"
done <<'LIST'
vtest    vtest.avi     100 320:240:300:200
cup      cup.mp4       40  320:240:160:120
box      box.mp4       40  320:240:200:100
tree     tree.avi      40  320:240:0:0
megamind Megamind.avi  40  320:240:200:140
LIST
ls -la "$dest"
