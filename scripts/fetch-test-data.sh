#!/usr/bin/env bash
# fetch-test-data.sh: puts real test photographs into <repo>/.testdata/.
#
# The images come from Debian 12's python3-skimage package (skimage/data): the
# .deb is fetched with `apt-get download` into a cache directory and unpacked
# with dpkg-deb (nothing is installed). Idempotent: does nothing when every image
# is already there. .testdata/ is in .gitignore; nothing in it is committed.
#
#   scripts/fetch-test-data.sh        # cache: ${XDG_CACHE_HOME:-~/.cache}/cudadenoise
#   CDN_CACHE_DIR=/some/dir scripts/fetch-test-data.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.testdata"
cache="${CDN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cudadenoise}"
package=python3-skimage
datadir=usr/lib/python3/dist-packages/skimage/data
# All present in bookworm's python3-skimage 0.19.3 (checked with dpkg-deb -c).
images=(camera astronaut coffee chelsea brick grass gravel moon text)

missing=0
for i in "${images[@]}"; do [ -s "$dest/$i.png" ] || missing=1; done
if [ "$missing" = 0 ]; then
  echo "test data: ${#images[@]} images already in $dest"
  exit 0
fi

mkdir -p "$dest"
# shellcheck source=cached-deb.sh
source "$root/scripts/cached-deb.sh"
deb=$(cached_deb "$package" "$cache" "test data")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp"
found=0
for i in "${images[@]}"; do
  if [ -f "$tmp/$datadir/$i.png" ]; then
    cp "$tmp/$datadir/$i.png" "$dest/$i.png.part" && mv "$dest/$i.png.part" "$dest/$i.png"
    found=$((found + 1))
  else
    echo "test data: $i.png is not in $(basename "$deb")" >&2
  fi
done
basename "$deb" > "$dest/SOURCE"
echo "test data: $found images from $(basename "$deb") in $dest"
