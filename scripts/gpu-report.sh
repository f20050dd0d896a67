#!/usr/bin/env bash
# gpu-report.sh: the evaluation report on a GPU host, one command: unpacks
# .gpu-stage/eval.tar.xz (scripts/stage-eval.sh) when it is there, then runs
# tools/eval/report.py with the host's python3 (FFmpeg comes from .gpu-runtime,
# sourced by report.py for its child processes only). Arguments go to report.py.
#
#   scripts/gpu-report.sh --out "$OUT"             # the full report (docs/EVALUATION.md: time)
#   scripts/gpu-report.sh --preset quick --out "$OUT"
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f .gpu-stage/eval.tar.xz ]; then
  if command -v xz >/dev/null; then
    tar -xJf .gpu-stage/eval.tar.xz
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' .gpu-stage/eval.tar.xz
  fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
exec python3 tools/eval/report.py "$@"
