#!/usr/bin/env bash
# clips.sh: the 320x240 gray crops of docs/NLM3D.md's moving-video tables, 30
# frames each, as raw 8-bit files in ./clips (from scripts/fetch-eval-data.sh's
# .testdata/video; cup, box, vtest come with the repository's fetch script, the
# others from the evaluation clip list, docs/EVALUATION.md).
set -euo pipefail
V=${1:-$(cd "$(dirname "$0")/../.." && pwd)/.testdata/video}
mkdir -p clips
g() { ffmpeg -v error -y "$@"; }
g -ss 4 -i "$V/cup.mp4" -frames:v 30 -vf "scale=320:240:flags=area,format=gray" -f rawvideo clips/cup.y
g -ss 3 -i "$V/box.mp4" -frames:v 30 -vf "scale=320:240:flags=area,format=gray" -f rawvideo clips/box.y
g -ss 20 -i "$V/vtest.avi" -frames:v 30 -vf "scale=384:288:flags=area,crop=320:240:32:24,format=gray" -f rawvideo clips/vtest.y
g -ss 2 -i "$V/cockatoo.mp4" -frames:v 30 -vf "scale=640:360:flags=area,crop=320:240,format=gray" -f rawvideo clips/cockatoo.y
g -ss 4 -i "$V/diver.mov" -frames:v 30 -vf "scale=320:240:flags=area,format=gray" -f rawvideo clips/diver.y
g -ss 1 -i "$V/city.mkv" -frames:v 30 -vf "crop=320:240,format=gray" -f rawvideo clips/city.y
g -i "$V/dog.mp4" -vf "select=gte(n\,6),scale=640:360:flags=area,crop=320:240,format=gray" -frames:v 30 -f rawvideo clips/dog.y
ls -l clips
