#!/usr/bin/env bash
# fuzz-seeds.sh DIR: the seed corpora of the fuzz targets (tests/fuzz/), made
# from scratch with the ffmpeg program: small valid files, one directory per
# target, a few hundred bytes to a few kB each (nothing is committed but this
# script). The seeds span what the readers must handle: every PNG colour type
# and depth the image reader expands (palette, 1-bit gray, 16-bit, alpha), PGM
# at 8 and 16 bits and with an odd maxval; y4m in the supported and some
# refused formats; media files of several containers, codecs, pixel formats,
# odd sizes, with audio and with cover art, for cudadenoise-transcode.
#
#   scripts/fuzz-seeds.sh build-fuzz/fuzz-seeds
#
# Without ffmpeg only the PGM seeds (written by printf) are made, with a note.
set -euo pipefail
out=${1:?usage: fuzz-seeds.sh DIR}
tmp="$out.tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/fuzz-image-io" "$tmp/fuzz-y4m" "$tmp/fuzz-transcode-decode"
trap 'rm -rf "$tmp"' EXIT

# PGM written by hand (the samples: bytes of this script): 8-bit, 16-bit,
# maxval 1000 (rescaled), with a comment.
pgm() { printf "$1" > "$tmp/fuzz-image-io/$2"; head -c "$3" "$0" >> "$tmp/fuzz-image-io/$2"; }
pgm 'P5\n5 3\n255\n' gray8.pgm 15
pgm 'P5\n4 2\n65535\n' gray16.pgm 16
pgm 'P5\n# comment\n3 3\n1000\n' maxval1000.pgm 18

if ! command -v ffmpeg >/dev/null; then
  echo "fuzz-seeds: no ffmpeg program: PGM seeds only (Debian: ffmpeg)" >&2
else
  ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
  src() { echo "testsrc2=size=$1:rate=10,format=yuv420p"; }

  # Images: each PNG colour type and depth the reader expands, at odd sizes.
  for f in gray gray16be rgb24 rgba ya8 rgb48be rgba64be pal8 monob ya16be; do
    ff -f lavfi -i "$(src 13x7)" -frames:v 1 -pix_fmt "$f" "$tmp/fuzz-image-io/$f.png"
  done
  ff -f lavfi -i "$(src 9x5)" -frames:v 1 -pix_fmt gray16be "$tmp/fuzz-image-io/ffmpeg16.pgm"

  # y4m: the reader's formats (mono, 4:2:0, 4:4:4), a refused one (4:2:2), and
  # headers by hand: full range, 4:2:0 of another siting, an odd size.
  for f in gray yuv420p yuv444p yuv422p; do
    ff -f lavfi -i "$(src 17x9)" -frames:v 2 -pix_fmt "$f" -strict -1 "$tmp/fuzz-y4m/$f.y4m"
  done
  ff -f lavfi -i "$(src 16x8)" -frames:v 2 -pix_fmt yuv420p -vf setfield=tff "$tmp/fuzz-y4m/interlaced.y4m"
  y4m() { { printf "YUV4MPEG2 $1\nFRAME\n"; head -c "$2" "$0"; } > "$tmp/fuzz-y4m/$3"; }
  y4m 'W4 H2 F25:1 Ip A1:1 C420paldv XCOLORRANGE=FULL' 12 paldv-full.y4m
  y4m 'W3 H3 F30000:1001 Ip Cmono XCOLORRANGE=LIMITED' 9 mono-odd.y4m
  y4m 'W5 H1 F1:1 C444' 15 yuv444-line.y4m

  # Media files for the transcode tool: 3 frames, small and odd sizes.
  d="$tmp/fuzz-transcode-decode"
  ff -f lavfi -i "$(src 24x16)" -frames:v 3 -c:v libx264 -preset ultrafast -pix_fmt yuv420p "$d/h264.mp4"
  ff -f lavfi -i "$(src 24x16)" -frames:v 3 -c:v libx264 -preset ultrafast -pix_fmt yuv420p -bsf:v h264_mp4toannexb \
     -f h264 "$d/h264.264"
  ff -f lavfi -i "$(src 17x11)" -frames:v 3 -c:v ffv1 -pix_fmt yuv420p "$d/ffv1-420.mkv"
  ff -f lavfi -i "$(src 17x11)" -frames:v 3 -c:v ffv1 -pix_fmt gray16le "$d/ffv1-gray16.mkv"
  ff -f lavfi -i "$(src 17x11)" -frames:v 3 -c:v ffv1 -pix_fmt gbrp10le "$d/ffv1-gbrp10.mkv"
  ff -f lavfi -i "$(src 17x11)" -frames:v 3 -c:v ffv1 -pix_fmt yuva420p "$d/ffv1-alpha.mkv"
  for f in nv12 p010le rgb24 pal8 yuv411p yuv440p bgr0 gray10le yuv422p10le monow; do
    ff -f lavfi -i "$(src 10x6)" -frames:v 3 -c:v rawvideo -pix_fmt "$f" "$d/raw-$f.nut"
  done
  ff -f lavfi -i "$(src 32x16)" -frames:v 3 -c:v mpeg2video "$d/mpeg2.ts"
  ff -f lavfi -i "$(src 32x16)" -frames:v 3 -c:v mpeg2video -flags +ilme+ildct -top 1 "$d/mpeg2-interlaced.mpg"
  ff -f lavfi -i "$(src 16x16)" -frames:v 3 -c:v mjpeg -pix_fmt yuvj422p "$d/mjpeg.avi"
  ff -f lavfi -i "$(src 16x16)" -frames:v 3 -c:v mpeg4 "$d/mpeg4.avi"
  ff -f lavfi -i "$(src 16x16)" -frames:v 3 -c:v png -pix_fmt rgba "$d/png.mov"
  ff -f lavfi -i "$(src 16x16)" -frames:v 3 -c:v utvideo -pix_fmt yuv422p "$d/utvideo.avi"
  ff -f lavfi -i "$(src 16x8)" -frames:v 2 -pix_fmt yuv420p "$d/video.y4m"
  # Video with audio, with an attachment (Matroska), with cover art (MP4).
  ff -f lavfi -i "$(src 16x16)" -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=0.3" -frames:v 3 \
     -c:v ffv1 -c:a pcm_s16le -shortest "$d/with-audio.mkv"
  ff -f lavfi -i "$(src 8x8)" -frames:v 1 "$tmp/.cover.png"
  ff -f lavfi -i "$(src 16x16)" -frames:v 3 -c:v ffv1 -attach "$tmp/.cover.png" -metadata:s:t mimetype=image/png \
     "$d/with-attachment.mkv"
  ff -f lavfi -i "$(src 16x16)" -i "$tmp/.cover.png" -map 0 -map 1 -frames:v 3 -c:v:0 libx264 -preset ultrafast \
     -c:v:1 png -disposition:v:1 attached_pic "$d/cover-art.mp4"
fi

rm -f "$tmp/.cover.png"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
for t in "$out"/*/; do echo "fuzz-seeds: $(ls "$t" | wc -l) seeds in $t ($(du -sk "$t" | cut -f1) kB)"; done
