#!/bin/bash
# ff.sh clip sigma frames s...: FFmpeg's nlmeans (patch 7, window 15, its defaults)
# at each strength s on the same noisy clip; one line per s.
clip=$1; sigma=$2; frames=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
./study clips/$clip.y 320 240 30 $sigma 1 all dump=$tmp/noisy.y
for s in "$@"; do
  ffmpeg -v error -y -filter_threads 1 -f rawvideo -pix_fmt gray -s 320x240 -i $tmp/noisy.y -vf nlmeans=s=$s \
    -f rawvideo $tmp/out.y
  echo "$clip $sigma ffmpeg s=$s $(./study clips/$clip.y 320 240 30 $sigma 1 $frames score=$tmp/out.y)"
done
