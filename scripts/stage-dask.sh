#!/usr/bin/env bash
# stage-dask.sh: pack Debian 12's Dask (python3-dask, python3-distributed and
# the pure-Python packages they need that a GPU host's Python lacks: tornado,
# zict, tblib, partd, locket, heapdict) into .gpu-stage/dask.tar.xz, for the farm's GPU
# scripts (scripts/gpu-farm-scaling.sh) on a host whose python3 has no Dask and
# cannot install it (no network). These are the versions CI tests the farm
# with; their compiled parts (tornado's speedups) are left out: tornado falls
# back to pure Python on the host's interpreter.
#
#   scripts/stage-dask.sh      (from anywhere; needs the Debian packages installed here)
set -euo pipefail
cd "$(dirname "$0")/.."
site=/usr/lib/python3/dist-packages
names=(dask distributed tornado zict tblib partd locket heapdict)
packages=()
for p in "${names[@]}"; do
  # the package (or module) and its metadata (distributed asks importlib.metadata for versions)
  found=$(cd "$site" && ls -d "$p" "$p.py" "${p}"-*.egg-info "${p^}"-*.egg-info "${p,,}"-*.egg-info 2>/dev/null | sort -u || true)
  [ -n "$found" ] || { echo "stage-dask: no $p in $site (apt install python3-distributed)" >&2; exit 1; }
  packages+=($found)
done
mkdir -p .gpu-stage
(cd "$site" && find "${packages[@]}" -type f ! -name '*.pyc' ! -name '*.so' | grep -v -e '/tests/' -e '/test/' |
  XZ_OPT="-9 -T1" tar -cJf "$OLDPWD/.gpu-stage/dask.tar.xz" -T -)
echo "staged $(dpkg-query -W -f='${Package} ${Version}, ' python3-dask python3-distributed python3-tornado)in .gpu-stage/dask.tar.xz ($(du -h .gpu-stage/dask.tar.xz | cut -f1))"
