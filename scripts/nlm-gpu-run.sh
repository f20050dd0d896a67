#!/usr/bin/env bash
# nlm-gpu-run.sh: the nlm engineer's GPU run (branch nlm): nlm3d's GPU tests against
# the CPU reference, compute-sanitizer memcheck + racecheck on them, the bench rows of
# the named settings, and the whole-clip quality table (first 40 frames of each real
# clip, luma, AWGN sigma 10/20/40, seed 2024 + frame) of nlm3d's defaults, the same at
# temporal radius 0, vs-nlm-cuda at its defaults (d1 a2 s4) for h = 0.6..1.0 sigma,
# and FFmpeg's nlmeans (p 7, r 15) at two strengths where time is left.
# From the checkout root (/work/main on the GPU host), carrying .gpu-stage/nlm.tar.xz,
# .gpu-stage/nlm-gpu-run.sh, .gpu-stage/vbm3d-clips, .gpu-stage/vbm3d-photos, .peers,
# .gpu-runtime. DEADLINE: seconds for the whole run.
set -u
root=$PWD
W=/tmp/w; mkdir -p $W && tar -xJf .gpu-stage/nlm.tar.xz -C $W
B=$W/build
export CDN_TEST_DATA=$root/.gpu-stage/vbm3d-photos
O=${OUT:-/tmp/out}; mkdir -p $O
DEADLINE=${DEADLINE:-330}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee $O/gpu.txt
T0=$(date +%s); el() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
left() { echo $(( DEADLINE - ($(date +%s) - T0) )); }
cap() { local want=$1 l; l=$(left); [ $l -lt $want ] && want=$l; [ $want -lt 5 ] && want=0; echo $want; }
step() { local t; t=$(cap $1); shift; if [ $t -le 0 ]; then echo "SKIPPED (deadline): $*" | tee -a $O/summary.txt; return 1; fi; timeout $t "$@"; }
PARTS=${PARTS:-tests bench quality sanitize ffmpeg}
has() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }
if has tests; then
el "gpu tests"
step 90 $B/tests/kernels/test_kernels_gpu_nlm3d > $O/gpu_nlm3d.log 2>&1; echo "gpu_nlm3d rc=$?" | tee -a $O/summary.txt
grep -aE '^\[  (FAILED|PASSED) |FAILED  \]|differ' $O/gpu_nlm3d.log | tail -40
fi
if has bench; then
el "bench"
step 60 $B/tools/bench/cudadenoise-bench --no-cpu --no-pipd --no-bm3d --no-vbm3d --nlm-frames 60 --data $CDN_TEST_DATA > $O/bench.txt 2>&1; echo "bench rc=$?" | tee -a $O/summary.txt
sed -n '/nlm3d on the GPU/,$p' $O/bench.txt | head -60
fi
el "clips"
mkdir -p /tmp/clips /tmp/noisy /tmp/peers /tmp/ff /tmp/q
( source .gpu-runtime/runtime-env.sh >/dev/null 2>&1
  for f in .gpu-stage/vbm3d-clips/*; do n=$(basename ${f%.*}); ffmpeg -v error -y -i $f -frames:v 40 -pix_fmt gray -f yuv4mpegpipe /tmp/clips/$n.y4m; done )
# cudadenoise-eval reads y4m through FFmpeg's libav*: the runtime's.
source .gpu-runtime/runtime-env.sh >/dev/null 2>&1
E=$B/tools/eval/cudadenoise-eval
SETTINGS=${SETTINGS:-video,fast,rt0}   # nlm3d's named sets (cudadenoise-eval info)
HK=${HK:-6 7 8 9 10}
clips="cup box cockatoo diver city vtest ball lego coin dog"
psnr() { python3 -c 'import json,sys; print("%.2f" % json.loads(sys.stdin.readline())["planes"][0]["psnr"])'; }
# ours CLIP: per sigma, the noisy luma (AWGN seed 2024 + frame; raw for the peers in /tmp/noisy) and
# each named set on the GPU, the luma PSNR over the clip: one line "clip sigma method psnr" each
ours() {
  local c=$1 d=/tmp/q/$1 s n; mkdir -p $d
  $E prepare --input /tmp/clips/$c.y4m --gray --clean-out $d/clean.y4m > /dev/null || return 1
  for s in 10 20 40; do
    $E prepare --input $d/clean.y4m --sigma $s --seed-base 2024 --noisy-out $d/noisy-s$s.y4m > /dev/null || return 1
    ffmpeg -v error -y -i $d/noisy-s$s.y4m -f rawvideo -pix_fmt gray /tmp/noisy/$c-s$s.y
    echo "$c $s noisy $($E measure --clean $d/clean.y4m $d/noisy-s$s.y4m | psnr)"
    for n in ${SETTINGS//,/ }; do
      $E denoise --input $d/noisy-s$s.y4m --out-dir $d --tag $n-s$s --modes nlm3d --set $n --backends cuda \
        --noise-sigma $s --warmup 0 --repeat 1 > /dev/null || return 1
      echo "$c $s $n $($E measure --clean $d/clean.y4m $d/nlm3d-$n-s$s-cuda.y4m | psnr)"
    done
  done
}
# score CLIP DIR: the PSNR of every peer output DIR/CLIP-sSIGMA-*.y against the clean luma
score() {
  local c=$1 d=/tmp/q/$1 f wh
  wh=$(head -c 200 $d/clean.y4m | head -1 | tr ' ' '\n' | sed -n 's/^W//p;s/^H//p' | tr '\n' 'x'); wh=${wh%x}
  for f in $2/$c-s*.y; do
    ffmpeg -v error -y -f rawvideo -pix_fmt gray -s $wh -i $f -f yuv4mpegpipe -pix_fmt gray $d/peer.y4m
    echo "$(basename ${f%.y}) $($E measure --clean $d/clean.y4m $d/peer.y4m | psnr)"
  done
}
export -f ours score psnr; export E SETTINGS
if has quality; then
el "quality: ours"
for c in $clips; do step 40 bash -c "ours $c" >> $O/q-ours.txt 2>&1 || echo "$c rc=$?" >> $O/summary.txt; done
cat $O/q-ours.txt | tail -95
el "quality: vs-nlm-cuda"
for c in $clips; do
  wh=$(head -c 200 /tmp/clips/$c.y4m | head -1 | tr ' ' '\n' | sed -n 's/^W//p;s/^H//p' | tr '\n' ' ')
  set -- $wh; w=$1; h=$2
  for s in 10 20 40; do
    for k in $HK; do hh=$(awk -v s=$s -v k=$k 'BEGIN{printf "%.1f", s*k/10}')
      step 20 .peers/bin/nlmcuda-run --input /tmp/noisy/$c-s$s.y --output /tmp/peers/$c-s$s-vsnlm_h0.$k.y --width $w --height $h --d 1 --a 2 --s 4 --h $hh --warmup 1 > /tmp/peers/log-$c-$s-$k.txt 2>&1 || echo "nlmcuda $c $s $k rc=$?" >> $O/summary.txt
    done
  done
  grep -h TIMING /tmp/peers/log-$c-20-7.txt | head -1 | sed "s/^/$c ${w}x$h s20 h0.7: /" >> $O/peer-timing.txt
done
el "quality: scoring"
for c in $clips; do step 30 bash -c "score $c /tmp/peers" >> $O/q-vsnlm.txt 2>&1; done
cat $O/q-vsnlm.txt | grep -v noisy | tail -160
cat $O/peer-timing.txt
fi
if has sanitize; then
el "memcheck"
CDN_TEST_SMALL=1 step 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/kernels/test_kernels_gpu_nlm3d --gtest_filter='*Planar*:*Defaults*:*Motion*:*MatchesTheCpu*' > $O/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $O/summary.txt
tail -3 $O/memcheck.log
el "racecheck"
CDN_TEST_SMALL=1 step 90 compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/kernels/test_kernels_gpu_nlm3d --gtest_filter='*DefaultsWithStream*:*PlanarPatchesMatch*' > $O/racecheck.log 2>&1; echo "racecheck rc=$?" | tee -a $O/summary.txt
tail -3 $O/racecheck.log
fi
if has ffmpeg; then
el "quality: ffmpeg nlmeans"
( source .gpu-runtime/runtime-env.sh >/dev/null 2>&1
  for c in $clips; do
    wh=$(head -c 200 /tmp/clips/$c.y4m | head -1 | tr ' ' '\n' | sed -n 's/^W//p;s/^H//p' | tr '\n' ' ')
    set -- $wh; w=$1; h=$2
    for s in 10 20 40; do
      for k in 6 8; do st=$(awk -v s=$s -v k=$k 'BEGIN{v=s*k/10; if (v>30) v=30; printf "%.1f", v}')
        step 30 ffmpeg -v error -y -filter_threads 16 -f rawvideo -pix_fmt gray -s ${w}x$h -i /tmp/noisy/$c-s$s.y -vf nlmeans=s=$st:p=7:r=15 -f rawvideo /tmp/ff/$c-s$s-ffnlm_s$st.y || echo "ffmpeg $c $s $k rc=$?" >> $O/summary.txt
      done
    done
  done )
el "quality: scoring ffmpeg"
for c in $clips; do step 30 bash -c "score $c /tmp/ff" >> $O/q-ffmpeg.txt 2>&1; done
cat $O/q-ffmpeg.txt | grep -v noisy | tail -160
cat $O/peer-timing.txt
fi
el "done"
cat $O/summary.txt
