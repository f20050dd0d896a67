#!/usr/bin/env bash
# gpu-live-run.sh: issue 16 item 3's live run on the GPU host: a live 1920x1080
# 30 fps source with a moving pattern (videotestsrc is-live=true, scrolling SMPTE
# bars and a moving ball), cudaaddnoise, cudadenoise (its default preset, window
# auto), into fpsdisplaysink over fakesink sync=true, for 10 minutes. Records the
# frames rendered and dropped (fpsdisplaysink), the QoS messages (the sink's
# late-buffer reports: fakesink drops a frame more than 20 ms late, as video
# sinks do), the average rate, the process's RSS and its GPU memory every 10 s into a
# table, and says whether it dropped nothing and held flat memory.
#
# It outlasts one device call (10 minutes at most), so it is started in the
# background in one call and collected in a later one, on the same warm host:
#
#   scripts/gpu-live-run.sh start BUILD_DIR [--minutes 10] [--props "k=v ..."] [--dir DIR]
#   scripts/gpu-live-run.sh collect [--dir DIR]      # the table; "running" until it ends
#   scripts/gpu-live-run.sh run BUILD_DIR ...         # in the foreground (what start runs)
#
# BUILD_DIR holds the plugin (BUILD_DIR/plugin, e.g. from scripts/stage-gpu.sh);
# the GStreamer runtime is $CDN_GPU_RUNTIME or ./.gpu-runtime (its
# runtime-env.sh is sourced for gst-launch only).
# DIR (default /tmp/cdn-live-run) keeps the log, the samples and the summary;
# collect copies them to $OUT when it is set (the device tool's output folder).
# Exit status of collect: 0 passed, 1 failed, 3 still running, 2 nothing there.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}; shift || true
dir=/tmp/cdn-live-run minutes=10 seconds="" props="" build="" size=1920x1080 upload=cudaupload
if [[ $cmd == start || $cmd == run ]]; then build=${1:?usage: gpu-live-run.sh $cmd BUILD_DIR [options]}; shift; fi
while [[ $# -gt 0 ]]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;   # instead of --minutes (a smoke test)
    --size) size=$2; shift 2 ;;         # WxH (default 1920x1080)
    --no-upload) upload=""; shift ;;    # system memory (a host without nvcodec: a smoke test)
    --props) props=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "gpu-live-run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

summarize() {  # the table and the verdict, from $dir
  [[ -f $dir/samples.tsv ]] || { echo "no run in $dir"; return 2; }
  echo "# live run: $(cat "$dir/what" 2>/dev/null)"
  if command -v column >/dev/null; then column -t -s $'\t' "$dir/samples.tsv"; else cat "$dir/samples.tsv"; fi
  if [[ ! -f $dir/exit ]]; then echo "running ($(($(date +%s) - $(cat "$dir/started"))) s so far)"; return 3; fi
  python3 - "$dir" <<'PY'
import sys, csv
d = sys.argv[1]
rows = list(csv.DictReader(open(d + '/samples.tsv'), delimiter='\t'))
code = int(open(d + '/exit').read().strip() or 1)
def num(r, k):
    try: return float(r[k])
    except (ValueError, KeyError): return None
last = rows[-1] if rows else {}
dropped = num(last, 'dropped') or 0
rendered = num(last, 'rendered') or 0
qos = num(last, 'qos_msgs') or 0
# Memory after the first minute (pools and caches fill first): growth to the end.
steady = [r for r in rows if (num(r, 't_s') or 0) >= 60] or rows
def growth(k):
    v = [num(r, k) for r in steady if num(r, k) is not None]
    return (v[0], v[-1], max(v)) if v else (None, None, None)
rss, gpu = growth('rss_mib'), growth('gpu_mib')
expected = float(open(d + '/frames').read())
# fpsdisplaysink reports its counters every fps-update-interval (500 ms), so its last
# report leaves out up to 15 frames at 30 fps; those frames are covered by the QoS count
# (the sink posts a QoS message for every late buffer it drops, up to EOS) and by the
# exit status (the sink rendered up to EOS).
interval_frames = 15
ok = code == 0 and dropped == 0 and qos == 0 and rendered >= expected - interval_frames
flat = lambda g: g[0] is not None and g[2] - g[0] <= max(8.0, 0.02 * g[0])
ok = ok and flat(rss) and (gpu[0] is None or flat(gpu))
print(f"gst-launch exit {code}; frames rendered {rendered:.0f} of {expected:.0f} at the sink's last report (every 0.5 s), dropped {dropped:.0f}, qos messages {qos:.0f} (through EOS)")
print(f"RSS MiB after 60 s: first {rss[0]}, last {rss[1]}, max {rss[2]}; GPU MiB: first {gpu[0]}, last {gpu[1]}, max {gpu[2]}")
print("PASS: no frame dropped, memory flat" if ok else "FAIL (see the table; log: " + d + "/log)")
sys.exit(0 if ok else 1)
PY
}

case $cmd in
  start)
    rm -rf "$dir"; mkdir -p "$dir"
    setsid nohup "$0" run "$build" --minutes "$minutes" ${seconds:+--seconds "$seconds"} --size "$size" \
      $([[ -z $upload ]] && echo --no-upload) --dir "$dir" ${props:+--props "$props"} \
      > "$dir/runner.log" 2>&1 < /dev/null &
    echo "started (pid $!): collect with scripts/gpu-live-run.sh collect --dir $dir after $minutes minutes"
    ;;
  run)
    mkdir -p "$dir"
    [[ -d $build/plugin ]] || { echo "no $build/plugin" >&2; exit 2; }
    runtime=${CDN_GPU_RUNTIME:-$PWD/.gpu-runtime}
    [[ -f $runtime/runtime-env.sh ]] || runtime=$root/.gpu-runtime
    [[ -f $runtime/runtime-env.sh ]] || { echo "no .gpu-runtime/runtime-env.sh (set CDN_GPU_RUNTIME)" >&2; exit 2; }
    plugins="$(cd "$build/plugin" && pwd)"
    frames=$((${seconds:-$((minutes * 60))} * 30))
    echo "$frames" > "$dir/frames"
    date +%s > "$dir/started"
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    pipeline=(videotestsrc is-live=true pattern=smpte horizontal-speed=4 "num-buffers=$frames" !
      "video/x-raw,format=NV12,width=${size%x*},height=${size#*x},framerate=30/1" ! ${upload:+$upload !}
      cudaaddnoise sigma=20 ! cudadenoise name=denoise $props !
      fpsdisplaysink name=fps text-overlay=false sync=true "video-sink=fakesink sync=true qos=true max-lateness=20000000")
    echo "${gpu:-no GPU}; gst-launch-1.0 -m -v ${pipeline[*]}" > "$dir/what"
    # The runtime only for gst-launch (a subshell that becomes it: $! is its pid);
    # python3 and nvidia-smi here keep the system's libraries.
    (
      # shellcheck disable=SC1091
      GPU_RT_QUIET=1 source "$runtime/runtime-env.sh" || exit 2
      export GST_PLUGIN_PATH_1_0="$plugins" GST_REGISTRY_1_0="$dir/registry.bin"
      exec gst-launch-1.0 -m -v "${pipeline[@]}"
    ) > "$dir/log" 2>&1 &
    pid=$!
    printf 't_s\trendered\tdropped\tavg_fps\tqos_msgs\trss_mib\tgpu_mib\n' > "$dir/samples.tsv"
    t0=$(date +%s)
    sample() {
      local t rss gpu_mem last rendered dropped qos fps
      t=$(($(date +%s) - t0))
      rss=$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status" 2>/dev/null)
      gpu_mem=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
        awk -F', *' -v p="$pid" '$1 == p {print $2}')
      # fpsdisplaysink: "rendered: N, dropped: M, current: X, average: Y" (or ", fps: X, drop rate: Z" once it drops)
      last=$(grep -o 'last-message = rendered: .*' "$dir/log" | tail -1)
      rendered=$(sed -n 's/.*rendered: \([0-9]*\),.*/\1/p' <<<"$last")
      dropped=$(sed -n 's/.*dropped: \([0-9]*\),.*/\1/p' <<<"$last")
      fps=$(sed -n 's/.*average: \([0-9.]*\).*/\1/p' <<<"$last")
      qos=$(grep -c 'Got message .*(qos)' "$dir/log")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "${rendered:--}" "${dropped:--}" "${fps:--}" "$qos" "${rss:--}" "${gpu_mem:--}" >> "$dir/samples.tsv"
    }
    while kill -0 "$pid" 2>/dev/null; do sample; sleep 10; done
    wait "$pid"; echo $? > "$dir/exit"
    sample
    summarize > "$dir/summary.txt" 2>&1
    ;;
  collect)
    summarize; rc=$?
    if [[ -n ${OUT:-} && -d $dir ]]; then cp "$dir"/samples.tsv "$dir"/what "$OUT"/ 2>/dev/null; tail -200 "$dir/log" > "$OUT/live-log-tail.txt" 2>/dev/null; fi
    exit $rc
    ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
