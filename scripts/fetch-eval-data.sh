#!/usr/bin/env bash
# fetch-eval-data.sh: puts the real video clips of the evaluation (tools/eval/report.py)
# into <repo>/.testdata/video/, with their manifest.
#
# The clips, and where each comes from, are listed in scripts/eval-clips.tsv: files of
# Debian 12 packages (opencv-doc's OpenCV samples, and clips shipped by python3-imageio,
# pd-extendedview, python-kivy-examples, python3-mecavideo, forensics-samples-files,
# python3-hug-doc and node-opencv; about 150 MB of .debs in all, opencv-doc 96 MB of it).
# Each .deb is fetched once with `apt-get download` into a cache directory
# (scripts/cached-deb.sh) and unpacked with dpkg-deb; nothing is installed. When ffprobe
# is there, each clip is checked against the manifest (codec, size, decoded frame count); a
# mismatch is an error. The manifest is copied to .testdata/video/MANIFEST.tsv, and the
# .debs used are listed in .testdata/video/SOURCE. Idempotent: does nothing when every
# clip asked for is there and MANIFEST.tsv is up to date. .testdata/ is not committed.
#
#   scripts/fetch-eval-data.sh                   # every clip of the manifest
#   scripts/fetch-eval-data.sh vtest.avi cup.mp4 # only these
#   CDN_CACHE_DIR=/some/dir scripts/fetch-eval-data.sh   # cache: ${XDG_CACHE_HOME:-~/.cache}/cudadenoise
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.testdata/video"
cache="${CDN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cudadenoise}"
manifest="$root/scripts/eval-clips.tsv"

# name -> package, path, width x height, frames, codec (the manifest's columns 1-3, 5-7, 9)
declare -A pkg_of path_of size_of frames_of codec_of
names=()
while IFS=$'\t' read -r name package path _licence width height frames _fps codec _rest; do
  case "$name" in ''|'#'*|name) continue ;; esac
  names+=("$name")
  pkg_of[$name]=$package path_of[$name]=$path size_of[$name]=${width}x$height frames_of[$name]=$frames
  codec_of[$name]=$codec
done < "$manifest"

wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=("${names[@]}")
for n in "${wanted[@]}"; do
  [ -n "${pkg_of[$n]:-}" ] || { echo "eval data: $n is not in $manifest (clips: ${names[*]})" >&2; exit 2; }
done

missing=()
for n in "${wanted[@]}"; do [ -s "$dest/$n" ] || missing+=("$n"); done
if [ ${#missing[@]} = 0 ] && cmp -s "$manifest" "$dest/MANIFEST.tsv"; then
  echo "eval data: ${#wanted[@]} clips already in $dest"
  exit 0
fi

mkdir -p "$dest"
# shellcheck source=cached-deb.sh
source "$root/scripts/cached-deb.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One package at a time, in the manifest's order.
packages=()
for n in "${missing[@]}"; do
  case " ${packages[*]} " in *" ${pkg_of[$n]} "*) ;; *) packages+=("${pkg_of[$n]}") ;; esac
done
for package in "${packages[@]}"; do
  deb=$(cached_deb "$package" "$cache" "eval data")
  members=()
  for n in "${missing[@]}"; do [ "${pkg_of[$n]}" = "$package" ] && members+=("./${path_of[$n]}"); done
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "${members[@]}"
  for n in "${missing[@]}"; do
    [ "${pkg_of[$n]}" = "$package" ] || continue
    src="$tmp/${path_of[$n]}"
    case "$src" in
      *.gz) gzip -dc "$src" > "$tmp/unpacked" && mv "$tmp/unpacked" "${src%.gz}"; src=${src%.gz} ;;
    esac
    if [ "${src##*.}" = "${n##*.}" ]; then
      cp "$src" "$dest/$n.part"
    else
      # another container than the package's, stream copy of the video (e.g. an MPEG-PS
      # that FFmpeg's muxer cannot cut cleanly, scripts/stage-eval.sh): same frames
      case "$n" in
        *.mkv) ffmpeg -nostdin -hide_banner -loglevel error -y -i "$src" -map 0:v:0 -c copy -f matroska "$dest/$n.part" ;;
        *) echo "eval data: $n: no remux from ${src##*/} to .${n##*.}" >&2; exit 1 ;;
      esac
    fi
    if command -v ffprobe > /dev/null; then
      got=$(ffprobe -v fatal -select_streams v:0 -show_entries stream=codec_name,width,height \
              -of default=nw=1:nk=1 "$dest/$n.part" | head -n 3 | paste -sd ' ' | sed 's/ \([0-9]*\) / \1x/')
      # frames as the evaluation decodes them (-fps_mode passthrough: no frame dropped or repeated)
      count=$(ffmpeg -nostdin -v fatal -i "$dest/$n.part" -map 0:v:0 -fps_mode passthrough -f framemd5 - | grep -vc '^#' || true)
      want="${codec_of[$n]} ${size_of[$n]}"
      if [ "$got" != "$want" ] || [ "$count" != "${frames_of[$n]}" ]; then
        echo "eval data: $n from $(basename "$deb") is $got, $count frames; the manifest says $want, ${frames_of[$n]}" >&2
        rm -f "$dest/$n.part"
        exit 1
      fi
    fi
    mv "$dest/$n.part" "$dest/$n"
  done
  # SOURCE: one .deb a line, this package's replacing an older version's
  touch "$dest/SOURCE"
  { grep -v "^${package}_" "$dest/SOURCE" || true; basename "$deb"; } | sort > "$dest/SOURCE.part"
  mv "$dest/SOURCE.part" "$dest/SOURCE"
done
cp "$manifest" "$dest/MANIFEST.tsv.part" && mv "$dest/MANIFEST.tsv.part" "$dest/MANIFEST.tsv"
if [ ${#missing[@]} = 0 ]; then
  echo "eval data: ${#wanted[@]} clips already in $dest; MANIFEST.tsv updated"
else
  echo "eval data: ${#missing[@]} clips from ${#packages[@]} packages into $dest (${#wanted[@]} asked for)"
fi
