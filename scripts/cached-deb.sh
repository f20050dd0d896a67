# cached-deb.sh: sourced by the fetch-*-data.sh scripts. cached_deb PACKAGE CACHE LABEL
# prints the path of PACKAGE's newest .deb in CACHE (architecture all or this
# machine's), downloading it first with `apt-get download` when none is there
# (refreshing the package lists once, as root or through sudo, when the download
# fails). Nothing is installed.
cached_deb() {
  local package=$1 cache=$2 label=$3 f last="" arch
  arch=$(dpkg --print-architecture)
  newest() {
    last=""
    for f in "$cache/${package}"_*_{all,"$arch"}.deb; do [ -e "$f" ] && last=$f; done
  }
  mkdir -p "$cache"
  newest
  if [ -z "$last" ]; then
    echo "$label: downloading $package into $cache" >&2
    if ! (cd "$cache" && apt-get download "$package" >&2); then
      local sudo=""
      [ "$(id -u)" = 0 ] || sudo=sudo
      $sudo apt-get update -qq >&2
      (cd "$cache" && apt-get download "$package" >&2)
    fi
    newest
    [ -n "$last" ] || { echo "$label: apt-get download $package left no .deb in $cache" >&2; return 1; }
  fi
  echo "$last"
}
