#!/usr/bin/env bash
# gpu-report.sh: the evaluation report on a GPU host, one command (issues 7, 15, 16, 17):
# unpacks .gpu-stage/eval.tar.xz (scripts/stage-eval.sh) when it is there, then runs
# tools/eval/report.py with the host's python3 (FFmpeg from .gpu-runtime, sourced by report.py
# for its child processes only), with the GPU peers of .peers/bin when that is there, and packs
# what it wrote for the trip back.
#
#   scripts/gpu-report.sh --out "$OUT"            # preset gpu: about 870 s on an H200, more than one call:
#   scripts/gpu-report.sh --out "$OUT" --resume part1.json   # ... the rest in a second (docs/EVALUATION.md)
#   scripts/gpu-report.sh --smoke --out "$OUT"    # preset gpu-smoke: about a minute, the same code paths
#   scripts/gpu-report.sh --out "$OUT" --preset full --skip ffmpeg-bm3d   # other report.py arguments
#
# Preset gpu (tools/eval/harness/config.py): the ten real clips of scripts/eval-clips.tsv cut to
# 544x320 4:2:0, 16 frames each (the middle 4 measured), at sigma 10, 20, 40, and 2, 5 for the
# defaults table; dog.mp4 as it is at 1920x1080 luma, for times per 1080p frame; two photos; the
# six x264/x265 crf 18/23/28 clips of dog.mp4; every mode at its defaults and every row of
# config.ROWS (bm3d profiles, pipd/hybrid quality, and what a merge adds), on the GPU; BM3DCUDA and
# vs-nlm-cuda at issue 17's profiles; FFmpeg's hqdn3d and nlmeans. The cudadenoise CPU backend,
# FFmpeg's bm3d and atadenoise and the OpenCV peers are left out (time).
#
# Writes into OUT: RESULTS.md, results.json, report.log and report.tar.gz (RESULTS.md and results/
# with the figures: `tar -xzf report.tar.gz -C docs` puts them in place). The host's python3
# draws the figures if it has matplotlib; otherwise `tools/eval/report.py --draw-only
# docs/results/results.json --out docs` draws the plots here. A time limit (CDN_REPORT_TIME_LIMIT,
# default 530 s) stops the report early rather than lose it: RESULTS.md then says it is incomplete.
set -uo pipefail
cd "$(dirname "$0")/.."
out="" preset=gpu args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --smoke) preset=gpu-smoke; shift ;;
    --preset) preset=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || { echo "gpu-report: --out DIR is required" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -f .gpu-stage/eval.tar.xz ]; then
  if command -v xz >/dev/null; then
    tar -xJf .gpu-stage/eval.tar.xz
  else
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".")' .gpu-stage/eval.tar.xz
  fi
fi
build=build
[ -x build/tools/eval/cudadenoise-eval ] || build=$(ls -d build*/tools/eval/cudadenoise-eval 2>/dev/null | head -1 | sed 's#/tools/eval/cudadenoise-eval##')
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no GPU')
echo "gpu-report: GPU: $gpu; preset $preset; build $build"
peers=()
# The peers' drivers packed (about 0.9 MB instead of 5.8, for when the tree, the stage and the runtime
# near the 64 MiB a call carries): tar -cJf .gpu-stage/peers.tar.xz -C ../shared/peers bin
if [ ! -x .peers/bin/bm3dcuda-run ] && [ -f .gpu-stage/peers.tar.xz ]; then
  mkdir -p .peers && tar -xJf .gpu-stage/peers.tar.xz -C .peers bin
fi
if [ -x .peers/bin/bm3dcuda-run ] && [ -x .peers/bin/nlmcuda-run ]; then
  peers=(--gpu-peers .peers/bin)
else
  echo "gpu-report: no .peers/bin (carry .peers or .gpu-stage/peers.tar.xz): the GPU peers are left out"
fi
if python3 -c 'import matplotlib, numpy' 2>/dev/null; then
  echo "gpu-report: the host's python3 has matplotlib: figures drawn here"
else
  echo "gpu-report: the host's python3 has no matplotlib: results.json only; draw with report.py --draw-only"
fi
work=$(mktemp -d)
report=$work/report
t0=$(date +%s)
timeout --signal=INT --kill-after=20 "${CDN_REPORT_TIME_LIMIT:-530}" \
  python3 tools/eval/report.py --preset "$preset" --build "$build" --out "$report" --work "$work/w" \
  "${peers[@]}" "${args[@]}" 2>&1 | tee "$out/report.log"
rc=${PIPESTATUS[0]}
echo "gpu-report: report.py exit $rc after $(( $(date +%s) - t0 )) s" | tee -a "$out/report.log"
if [ "$rc" = 124 ]; then   # timeout's status: not the device tool's own time limit
  echo "gpu-report: stopped at the time limit (CDN_REPORT_TIME_LIMIT): RESULTS.md holds the inputs it finished" | tee -a "$out/report.log"
  rc=3
fi
if [ -f "$report/RESULTS.md" ]; then
  cp "$report/RESULTS.md" "$out/RESULTS.md"
  cp "$report/results/results.json" "$out/results.json"
  tar -czf "$out/report.tar.gz" -C "$report" RESULTS.md results
  echo "gpu-report: $out: RESULTS.md, results.json, report.log, report.tar.gz ($(du -h "$out/report.tar.gz" | cut -f1))"
  tail -n +1 "$out/RESULTS.md" | sed -n '/^## Video/,/^## Defaults/p' | head -40
fi
rm -rf "$work"
exit "$rc"
