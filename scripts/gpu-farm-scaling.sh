#!/usr/bin/env bash
# gpu-farm-scaling.sh: issue 36 item 4 on a host with several GPUs:
# cudadenoise-farm with one Dask worker per GPU against one worker on one GPU,
# on a 1080p clip of a few minutes, and a worker lost mid-job.
#
#   scripts/gpu-farm-scaling.sh [BUILD_DIR]     (from a checkout root; carry BUILD_DIR's transcode
#                                               tool, .gpu-runtime and, where the host's python3 has
#                                               no Dask, .gpu-stage/dask.tar.xz: scripts/stage-dask.sh)
#
# 1. makes a clip here: testsrc2 with temporal noise, SECONDS long, H.264 with a
#    keyframe a second and B-frames, AAC audio;
# 2. one cudadenoise-transcode run on GPU 0 (the reference frames: its manifest);
# 3. the farm with a local cluster of 1 worker on GPU 0, then of G workers, one
#    per GPU (--local G --local-gpus 0,...,G-1; two on GPU 0 where the host has
#    one GPU, CDN_FARM_SCALING_WORKERS another count): their times, the speed-up, and
#    whether every piece's frames equal the single run's (the pieces' manifests'
#    frame MD5s, in order, against the single run's: the output is lossless);
# 4. a scheduler and the same workers started by hand (`dask worker`), each with
#    CUDA_VISIBLE_DEVICES=its GPU and --resources GPU=1 and no nanny, as docs/FARM.md
#    tells a cluster to; once some pieces are done the last worker is killed
#    (SIGKILL, its piece in flight): the farm must finish on the others, run
#    again at most that piece, and give the same frames. (The killed worker's
#    transcode process is not killed with it: where it finishes its piece
#    before the piece is given to another worker, that worker finds the piece
#    complete and takes it as it is: no piece is run again.)
# Prints a table. The filter must be what bounds a piece for the speed-up to
# say anything about the GPUs: the default ARGS (V-BM3D's static-video preset,
# lossless x264 ultrafast on the CPU: H200s have no NVENC) keep the GPU the
# slowest stage at 1080p.
#
# A clip of a few minutes takes longer than one device call (600 s): CDN_FARM_SCALING_WORK=DIR
# keeps the clip, the single run and each farm run's row in DIR (relative to the checkout root;
# kept after the script, reused by the next call with the same clip settings), and
# CDN_FARM_SCALING_RUNS picks the farm runs of this call (local-1, local-n, killed; all by
# default): e.g. a first call with RUNS=local-1 (the clip and the single run come first), a
# second with RUNS=local-n,killed; each call prints every row DIR holds.
#
# Environment: CDN_FARM_SCALING_SECONDS (120), CDN_FARM_SCALING_SIZE (1920x1080),
# CDN_FARM_SCALING_PIECE (piece seconds, 10), CDN_FARM_SCALING_GPUS (all the host has),
# CDN_FARM_SCALING_ARGS ("--preset static-video --sigma 10"), CDN_FARM_SCALING_BACKEND
# (cuda; cpu for a dry run without a GPU, with a small size), CDN_FARM_SCALING_PYTHON (python3).
set -u
build=${1:-build}
seconds=${CDN_FARM_SCALING_SECONDS:-120}
size=${CDN_FARM_SCALING_SIZE:-1920x1080}
piece_s=${CDN_FARM_SCALING_PIECE:-10}
backend=${CDN_FARM_SCALING_BACKEND:-cuda}
read -r -a filter_args <<< "${CDN_FARM_SCALING_ARGS:---preset static-video --sigma 10}"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
case $build in /*) ;; *) build="$root/$build" ;; esac
tool="$build/tools/transcode/cudadenoise-transcode"
[ -x "$tool" ] || { echo "gpu-farm-scaling: $tool missing" >&2; exit 1; }
runs=",${CDN_FARM_SCALING_RUNS:-local-1,local-n,killed},"
if [ -n "${CDN_FARM_SCALING_WORK:-}" ]; then
  work=$root/$CDN_FARM_SCALING_WORK
  case $CDN_FARM_SCALING_WORK in /*) work=$CDN_FARM_SCALING_WORK ;; esac
  mkdir -p "$work"
  keep=1
else
  work=$(mktemp -d /tmp/cdn-farm-scaling.XXXXXX)
  keep=
fi
py=$(command -v "${CDN_FARM_SCALING_PYTHON:-python3}") || { echo "gpu-farm-scaling: no python3" >&2; exit 1; }
if ! "$py" -c 'import distributed' 2>/dev/null; then
  [ -f .gpu-stage/dask.tar.xz ] || { echo "gpu-farm-scaling: $py has no Dask and .gpu-stage/dask.tar.xz is missing (scripts/stage-dask.sh)" >&2; exit 1; }
  mkdir -p "$work/dask" && tar -xJf .gpu-stage/dask.tar.xz -C "$work/dask"
  export PYTHONPATH="$work/dask${PYTHONPATH:+:$PYTHONPATH}"
  "$py" -c 'import distributed' || { echo "gpu-farm-scaling: the staged Dask does not import" >&2; exit 1; }
fi
dask_version=$("$py" -c 'import sys, dask, distributed; print(f"Python {sys.version.split()[0]}, Dask {dask.__version__}, distributed {distributed.__version__}")')
[ -f .gpu-runtime/runtime-env.sh ] && GPU_RT_QUIET=1 source .gpu-runtime/runtime-env.sh
if [ "$backend" = cuda ]; then
  gpus=${CDN_FARM_SCALING_GPUS:-$(nvidia-smi -L | grep -c '^GPU')}
  gpu_names=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd ';')
else
  gpus=${CDN_FARM_SCALING_GPUS:-2}
  gpu_names="none (--backend cpu dry run)"
fi
# One worker per GPU; on a host of one GPU two workers share it (the lost-worker check needs a second).
n_workers=${CDN_FARM_SCALING_WORKERS:-$((gpus > 1 ? gpus : 2))}
source "$root/scripts/lib/farm-wrappers.sh"
farm_wrappers "$work/bin" "$tool"
args=(--backend "$backend" --lossless --encoder-preset ultrafast "${filter_args[@]}")
echo "host: $(nproc) CPU threads; GPUs: $gpu_names; $dask_version"
echo "clip: $size 30 fps, $seconds s; pieces of $piece_s s; transcode args: ${args[*]}"

now() { date +%s.%N; }
elapsed() { awk "BEGIN{printf \"%.1f\", $2 - $1}"; }
clip="$work/clip.mkv"
settings="$size $seconds $piece_s ${args[*]}"
# A kept work directory of other settings starts again.
if [ "$(cat "$work/settings" 2>/dev/null)" != "$settings" ]; then
  rm -rf "$work/clip.mkv" "$work"/single.* "$work"/*.row "$work"/*.time "$work"/*.bad "$work"/*.farm
  echo "$settings" > "$work/settings"
fi
if [ ! -f "$clip" ]; then
  t=$(now)
  ffmpeg -v error -nostdin -y -f lavfi -i "testsrc2=size=$size:rate=30,noise=alls=12:allf=t" \
    -f lavfi -i "sine=f=440:sample_rate=48000" -t "$seconds" -c:v libx264 -preset ultrafast -g 30 -keyint_min 30 \
    -sc_threshold 0 -bf 2 -pix_fmt yuv420p -c:a aac -shortest -f matroska "$clip.part" && mv "$clip.part" "$clip" ||
    { echo "FAIL: cannot make the clip"; exit 1; }
  echo "clip made in $(elapsed "$t" "$(now)") s"
fi

if [ ! -f "$work/single.time" ]; then
  t=$(now)
  if ! "$work/bin/transcode" -i "$clip" -o "$work/single.mkv" -y -q --manifest "$work/single.json" --gpu 0 "${args[@]}" \
      > "$work/single.log" 2>&1; then
    echo "FAIL: single run: $(tail -2 "$work/single.log")"; exit 1
  fi
  elapsed "$t" "$(now)" > "$work/single.time"
  rm -f "$work/single.mkv"
fi
single_s=$(cat "$work/single.time")
echo "single run on GPU 0: $single_s s"

# Whether the pieces kept in work dir $1 hold the single run's frames, and the farm's JSON summary $2's fields.
check() {
  env -u LD_LIBRARY_PATH "$py" - "$work/single.json" "$1" "$2" <<'EOF'
import glob, json, os, sys
single = json.load(open(sys.argv[1]))["frame_md5"]
pieces = sorted(glob.glob(os.path.join(sys.argv[2], "piece-*.json")))
joined = [m for p in pieces for m in json.load(open(p))["frame_md5"]]
summary = json.load(open(sys.argv[3]))
starts = sum(sum(1 for _ in open(p[:-len(".json")] + ".log")) for p in pieces)
same = "EQUAL" if joined == single else f"DIFFERENT ({len(joined)} frames against {len(single)})"
t = summary["stages"]
stages = "/".join(f"{t[k]:.1f}" for k in ("cluster", "pieces", "join", "verify"))
print(f"{summary['pieces']} {summary['retried']} {starts} {summary['verified']} {stages} {same}")
EOF
}

farm() {  # name, then the farm's own options; runs the farm, prints its check
  local name=$1
  shift
  env -u LD_LIBRARY_PATH CDN_FARM_DIR="$root/tools/farm" "$py" "$root/tools/farm/cudadenoise-farm.in" \
    -i "$clip" -o "$work/$name.mkv" -y -q --json --keep-work --work-dir "$work/$name.farm" \
    --piece-seconds "$piece_s" --transcode "$work/bin/transcode" --ffmpeg "$work/bin/ffmpeg" \
    --ffprobe "$work/bin/ffprobe" "$@" "${args[@]}" > "$work/$name.json" 2> "$work/$name.log"
}

status=0
row() {  # name, workers, seconds, rc: the run's row, in $work/$name.row (printed at the end, kept with the work)
  local name=$1 workers=$2 secs=$3 rc=$4 c
  if [ "$rc" != 0 ]; then
    echo "| $name | $workers | $secs | | | | | FAIL exit $rc: $(tail -2 "$work/$name.log" | tr '\n' ' ' | cut -c1-200) |" > "$work/$name.row"
    cat "$work/$name.row"
    touch "$work/$name.bad"
    return
  fi
  read -r pieces retried starts verified stages same <<< "$(check "$work/$name.farm" "$work/$name.json")"
  [ "$same" = EQUAL ] && [ "$verified" = True ] || touch "$work/$name.bad"
  last_pieces=$pieces last_starts=$starts
  echo "| $name | $workers | $secs | $(awk "BEGIN{printf \"%.1f\", $frames / $secs}") | $pieces | $starts ($retried run again) | $stages | $same$( [ "$verified" = True ] || echo ', output not verified') |" > "$work/$name.row"
  echo "$secs" > "$work/$name.time"
  cat "$work/$name.row"
  rm -f "$work/$name.mkv"
  if [ -n "$keep" ]; then rm -rf "$work/$name.farm"; fi  # the pieces are checked; a kept work directory keeps the rows
}
wants() { [[ $runs == *,$1,* ]]; }
frames=$(env -u LD_LIBRARY_PATH "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$work/single.json")

if wants local-1; then
  rm -rf "$work/local-1.farm" "$work/local-1.bad" "$work/local-1.time"
  t=$(now); farm local-1 --local 1 --local-gpus 0; rc=$?
  row local-1 "1 (GPU 0)" "$(elapsed "$t" "$(now)")" $rc
fi
gpu_of() { echo $(($1 % gpus)); }
all=$(for k in $(seq 0 $((n_workers - 1))); do gpu_of "$k"; done | paste -sd,)
if wants local-n; then
  rm -rf "$work/local-$n_workers.farm" "$work/local-$n_workers.bad" "$work/local-$n_workers.time"
  t=$(now); farm "local-$n_workers" --local "$n_workers" --local-gpus "$all"; rc=$?
  row "local-$n_workers" "$n_workers (GPUs $all)" "$(elapsed "$t" "$(now)")" $rc
fi
if wants killed; then
  # A cluster started by hand, one worker per GPU; the last one is killed mid-job.
  port=$((20000 + RANDOM % 20000))
  # Dask's GPU diagnostics off, as the farm sets them for its local clusters (docs/FARM.md: Debian 12's
  # distributed fails to start beside pip's nvidia-ml-py).
  export DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=3 DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False
  env -u LD_LIBRARY_PATH "$py" -m distributed.cli.dask_scheduler --port "$port" --no-dashboard > "$work/scheduler.log" 2>&1 &
  scheduler=$!
  workers=()
  for k in $(seq 0 $((n_workers - 1))); do
    g=$(gpu_of "$k") visible=$(gpu_of "$k")
    [ "$backend" = cuda ] || visible=
    env -u LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES=$visible "$py" -m distributed.cli.dask_worker "tcp://127.0.0.1:$port" \
      --nthreads 1 --no-nanny --resources GPU=1 --name "worker$k-gpu$g" --no-dashboard > "$work/worker-$k.log" 2>&1 &
    workers+=($!)
  done
  sleep 5
  rm -rf "$work/killed.farm" "$work/killed.bad"
  t=$(now)
  farm killed --scheduler "tcp://127.0.0.1:$port" &
  job=$!
  # Kill the last worker once a few pieces are done (it is then in the middle of one).
  victim=${workers[$((n_workers - 1))]}
  killed_at=
  while kill -0 $job 2>/dev/null; do
    done_pieces=$(ls "$work/killed.farm"/piece-*.json 2>/dev/null | wc -l)
    if [ -z "$killed_at" ] && [ "$done_pieces" -ge $((n_workers + 1)) ]; then
      kill -9 "$victim" && killed_at=$(elapsed "$t" "$(now)")
      wait "$victim" 2>/dev/null  # reaped here: the shell says nothing of it
    fi
    sleep 0.5
  done
  wait $job; rc=$?; killed_s=$(elapsed "$t" "$(now)")
  row killed "$n_workers (GPUs $all), the last killed at ${killed_at:-never} s" "$killed_s" $rc
  # A worker whose scheduler is gone keeps trying to reach it: end the workers first, then SIGKILL what is left.
  kill "${workers[@]}" 2>/dev/null
  sleep 2
  kill "$scheduler" 2>/dev/null
  sleep 1
  kill -9 "${workers[@]}" "$scheduler" 2>/dev/null
  wait "${workers[@]}" "$scheduler" 2>/dev/null
  if [ -z "$killed_at" ]; then
    echo "| killed | the worker was never killed: the check did not run |" >> "$work/killed.row"; touch "$work/killed.bad"
  elif [ "$rc" = 0 ] && [ "${last_starts:-0}" -gt $((last_pieces + 1)) ]; then
    echo "| killed | the lost worker cost $((last_starts - last_pieces)) piece runs, not 1 |" >> "$work/killed.row"; touch "$work/killed.bad"
  fi
fi

echo
echo "---- cudadenoise-farm: one Dask worker per GPU ($size, $frames frames, pieces of $piece_s s, ${args[*]})"
echo "single cudadenoise-transcode run on GPU 0: $single_s s ($(awk "BEGIN{printf \"%.1f\", $frames / $single_s}") fps)"
echo
echo "| run | workers | s | fps | pieces | piece starts | cluster / pieces / join / check s | frames against the single run |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for name in local-1 "local-$n_workers" killed; do
  [ -f "$work/$name.row" ] && cat "$work/$name.row"
  if [ -f "$work/$name.bad" ]; then status=1; fi
done
echo
if [ -f "$work/local-1.time" ] && [ -f "$work/local-$n_workers.time" ]; then
  echo "speed-up of $n_workers workers on GPUs $all over 1 worker on GPU 0:" \
    "$(awk "BEGIN{printf \"%.2fx\", $(cat "$work/local-1.time") / $(cat "$work/local-$n_workers.time")}")"
fi
if [ $status = 0 ]; then
  echo "gpu-farm-scaling: PASS"
  [ -n "$keep" ] || rm -rf "$work"
else
  echo "gpu-farm-scaling: FAIL (logs in $work)"
fi
exit $status
