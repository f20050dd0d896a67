#!/usr/bin/env bash
# fetch-eval-data.sh: puts the real video clips of the evaluation report
# (tools/eval/report.py) into <repo>/.testdata/video/.
#
# The clips come from Debian 12's opencv-doc package (OpenCV's samples and
# tutorials): vtest.avi (768x576, a fixed camera over a courtyard), cup.mp4 and
# box.mp4 (640x480, hand-held). The .deb (about 96 MB) is fetched with
# `apt-get download` into a cache directory and unpacked with dpkg-deb; nothing
# is installed. Idempotent. .testdata/ is not committed.
#
#   scripts/fetch-eval-data.sh        # cache: ${XDG_CACHE_HOME:-~/.cache}/cudadenoise
#   CDN_CACHE_DIR=/some/dir scripts/fetch-eval-data.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.testdata/video"
cache="${CDN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cudadenoise}"
package=opencv-doc
doc=usr/share/doc/opencv-doc
# path in the package -> file name (.gz files are unpacked)
clips=("$doc/examples/data/vtest.avi" "$doc/opencv4/html/cup.mp4.gz" "$doc/opencv4/html/box.mp4.gz")

missing=0
for c in "${clips[@]}"; do n=$(basename "$c" .gz); [ -s "$dest/$n" ] || missing=1; done
if [ "$missing" = 0 ]; then
  echo "eval data: ${#clips[@]} clips already in $dest"
  exit 0
fi

mkdir -p "$dest"
# shellcheck source=cached-deb.sh
source "$root/scripts/cached-deb.sh"
deb=$(cached_deb "$package" "$cache" "eval data")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "${clips[@]/#/./}"
for c in "${clips[@]}"; do
  n=$(basename "$c" .gz)
  case "$c" in
    *.gz) gzip -dc "$tmp/$c" > "$dest/$n.part" ;;
    *) cp "$tmp/$c" "$dest/$n.part" ;;
  esac
  mv "$dest/$n.part" "$dest/$n"
done
basename "$deb" > "$dest/SOURCE"
echo "eval data: ${#clips[@]} clips from $(basename "$deb") in $dest"
