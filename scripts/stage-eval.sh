#!/usr/bin/env bash
# stage-eval.sh: packs what the evaluation report (tools/eval/report.py) needs on
# a GPU host into .gpu-stage/eval.tar.xz, to travel with the working tree beside
# .gpu-runtime (the FFmpeg bundle, ../shared/gpu/README.md); unpack it there from
# the checkout root (scripts/gpu-report.sh does).
#
#   scripts/stage-eval.sh [BUILD_DIR]        # default: build (a CUDA build: scripts/setup.sh -Dgpu_archs=90)
#   CDN_STAGE_NO_OPENCV=1 scripts/stage-eval.sh build   # without the OpenCV helper (the gpu preset does not
#                                                        # run it): a smaller stage
#
# In it: BUILD/tools/eval/{cudadenoise-eval,cudadenoise-eval-opencv}, the shared
# libraries the OpenCV helper needs that the host and .gpu-runtime lack
# (BUILD/tools/eval/opencv-libs/: libopencv_core/imgproc/photo and their closure
# without glibc, libstdc++ and libgcc_s), a STAGE_INFO line (commit, date), the
# photos of .testdata/ and the first 80 frames of every clip of .testdata/video/
# (its MANIFEST.tsv, scripts/eval-clips.tsv), cut without re-encoding, checked to
# decode to the same frames, with MANIFEST.tsv and SOURCE, and the compressed clips of
# scripts/make-compressed-clips.sh (.testdata/video/compressed, made here when missing: the GPU
# host's FFmpeg has no libx265).
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."
root=$PWD
eval_dir="$build/tools/eval"
[ -x "$eval_dir/cudadenoise-eval" ] || { echo "stage-eval: $eval_dir/cudadenoise-eval not built" >&2; exit 1; }
[ -s .testdata/camera.png ] || { echo "stage-eval: .testdata/ is empty: scripts/fetch-test-data.sh" >&2; exit 1; }
clip_frames=80   # frames kept from the start of each clip: more than any preset's start + length
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=("$eval_dir/cudadenoise-eval")

# The OpenCV helper and the libraries it needs beyond glibc, libstdc++, libgcc_s and what
# .gpu-runtime already carries (its MANIFEST.txt).
if [ -x "$eval_dir/cudadenoise-eval-opencv" ] && [ "${CDN_STAGE_NO_OPENCV:-0}" != 1 ]; then
  files+=("$eval_dir/cudadenoise-eval-opencv")
  rm -rf "$eval_dir/opencv-libs"
  mkdir -p "$eval_dir/opencv-libs"
  bundled=""
  [ -f .gpu-runtime/MANIFEST.txt ] && bundled=$(sed -n 's#^lib/\([^ /]*\).*#\1#p' .gpu-runtime/MANIFEST.txt)
  ldd "$eval_dir/cudadenoise-eval-opencv" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | while read -r so path; do
    case "$so" in libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) continue ;; esac
    if printf '%s\n' "$bundled" | grep -qxF "$so"; then continue; fi
    cp -L "$path" "$eval_dir/opencv-libs/$so"
  done
  files+=("$eval_dir/opencv-libs")
  echo "stage-eval: OpenCV closure: $(ls "$eval_dir/opencv-libs" | wc -l) libraries, $(du -sh "$eval_dir/opencv-libs" | cut -f1) ($(ls "$eval_dir/opencv-libs" | tr '\n' ' '))"
else
  echo "stage-eval: no cudadenoise-eval-opencv in $eval_dir: the report will skip the OpenCV peers" >&2
fi

cuda=no
case "$("$eval_dir/cudadenoise-eval" info)" in *'"cuda_built":true'*) cuda=yes ;; esac
echo "$(git describe --always --dirty 2>/dev/null || echo unknown) (staged $(date -u +%F), CUDA: $cuda)" > "$eval_dir/STAGE_INFO"
files+=("$eval_dir/STAGE_INFO")
[ "$cuda" = yes ] || echo "stage-eval: warning: $eval_dir was built without CUDA: the report will have no GPU figures" >&2

files+=(.testdata/*.png .testdata/SOURCE)
if [ -d .testdata/video ]; then
  mkdir -p "$tmp/.testdata/video"
  # every clip of the manifest (scripts/eval-clips.tsv, copied there by fetch-eval-data.sh)
  clips=(vtest.avi cup.mp4)
  [ -f .testdata/video/MANIFEST.tsv ] && mapfile -t clips < <(awk -F'\t' '!/^#/ && $1 != "name" && NF > 1 {print $1}' .testdata/video/MANIFEST.tsv)
  for name in "${clips[@]}"; do
    clip=.testdata/video/$name
    [ -f "$clip" ] || { echo "stage-eval: no $clip: the report will use a pan across a photo for it" >&2; continue; }
    ffmpeg -hide_banner -loglevel error -y -i "$clip" -map 0:v:0 -c copy -frames:v "$clip_frames" "$tmp/.testdata/video/$name"
    # the cut must decode to the same first frames (stream copy cuts only at the end)
    a=$(ffmpeg -hide_banner -loglevel fatal -i "$clip" -map 0:v:0 -frames:v $((clip_frames - 16)) -f framemd5 - | grep -v '^#' | md5sum)
    b=$(ffmpeg -hide_banner -loglevel fatal -i "$tmp/.testdata/video/$name" -map 0:v:0 -frames:v $((clip_frames - 16)) -f framemd5 - | grep -v '^#' | md5sum)
    [ "$a" = "$b" ] || { echo "stage-eval: the cut of $clip does not decode to the same frames" >&2; exit 1; }
  done
  cp .testdata/video/SOURCE .testdata/video/MANIFEST.tsv "$tmp/.testdata/video/" 2>/dev/null || true
  if [ -f .testdata/video/dog.mp4 ]; then
    scripts/make-compressed-clips.sh
    cp -r .testdata/video/compressed "$tmp/.testdata/video/"
  fi
else
  echo "stage-eval: no .testdata/video (scripts/fetch-eval-data.sh): the report will use pans across photos" >&2
fi

mkdir -p .gpu-stage
tar -cJf .gpu-stage/eval.tar.xz "${files[@]}" -C "$tmp" .testdata
echo "stage-eval: $(du -h .gpu-stage/eval.tar.xz | cut -f1) in .gpu-stage/eval.tar.xz ($(cat "$eval_dir/STAGE_INFO"))"
if [ -f .gpu-runtime/gst-ffmpeg-rt.tar.xz ]; then
  total=$(( $(stat -c %s .gpu-stage/eval.tar.xz) + $(du -sb .gpu-runtime | cut -f1) ))
  echo "stage-eval: with .gpu-runtime: $((total / 1048576)) MiB to carry"
else
  echo "stage-eval: warning: no .gpu-runtime (../shared/gpu/make-runtime): the GPU host has no ffmpeg without it" >&2
fi
