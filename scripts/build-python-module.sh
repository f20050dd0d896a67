#!/usr/bin/env bash
# build-python-module.sh: the Python module (python/) for another Python than
# the one meson built it for, from an existing build directory's core library:
# e.g. the GPU host's Python 3.12 (its torch and CuPy) when Debian's is 3.11.
# Only the module's three files are compiled, against PYTHON's headers and
# Debian's pybind11; the CUDA kernels are the build's. Writes
# BUILD_DIR/python-VERSION/cudadenoise.<PYTHON's extension suffix>.
#
#   scripts/build-python-module.sh BUILD_DIR PYTHON     (e.g. build ~/.pyenv/versions/3.12.1/bin/python3)
# then, where that Python runs: PYTHONPATH=BUILD_DIR/python-VERSION PYTHON -c 'import cudadenoise'
set -euo pipefail
build=${1:?build directory}
python=${2:?python interpreter}
cd "$(dirname "$0")/.."
core="$build/kernels/libcudadenoise-core.a"
[ -f "$core" ] || { echo "build-python-module: no $core (build first)" >&2; exit 1; }
include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
version=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
out="$build/python-$version"
mkdir -p "$out/obj"
cuda=/usr/local/cuda
flags=(-Ipython -Ikernels/include "-I$cuda/include" "-I$include" -fvisibility=hidden -DNDEBUG -std=c++17 -O2 -fPIC
       -pthread -DCDN_HAVE_CUDA=1 -Wall -Wextra)
objects=()
for f in python/*.cpp; do
  o="$out/obj/$(basename "$f" .cpp).o"
  c++ "${flags[@]}" -c "$f" -o "$o"
  objects+=("$o")
done
"$cuda/bin/nvcc" -shared -Xcompiler=-fPIC "${objects[@]}" "-Xlinker=$core" "-Xlinker=$cuda/lib64/libcudart_static.a" \
  -lrt -ldl -Xcompiler=-pthread -o "$out/cudadenoise$suffix"
echo "built $out/cudadenoise$suffix (Python $version)"
