#!/usr/bin/env python3
"""gpu-live-streams.py: how many live 1080p30 pipelines one GPU carries (issue 36 item 1).

Each pipeline is a live source, the noise element, the denoiser and a sink that
syncs to the clock:

    videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! NV12 WxH 30/1 ! cudaupload
      ! cudaaddnoise sigma=S seed=i ! cudadenoise preset=P ! fakesink sync=true qos=true max-lateness=20 ms

N of them run at once, either as N chains of one gst-launch-1.0 process ("one process") or as
N gst-launch-1.0 processes ("N processes"). A run passes when every pipeline reaches EOS after
SECONDS of frames with exit status 0 and no QoS message was posted: the sink posts one for each
frame it drops for being more than 20 ms late (as video sinks do), and the element one for each
frame it skips under QoS. For each preset and layout the script searches the largest N that
passes: short probes (--probe-seconds) bracket and bisect it from --guess, and the largest
passing N is then confirmed with a full run (--seconds, 60 by default); a confirmation that
fails steps N down.

Each run counts the CUDA contexts its pipelines made (GstCudaContext's log, GST_DEBUG=
cudacontext:4): one per GPU and process is what the elements aim at (gstcdnsharedcontext.h),
a context per chain time-slices the GPU.

While a run goes it samples the GPU's utilisation (nvidia-smi) and the host's CPU use
(/proc/stat), which say what bounds N: a busy GPU (kernels), or busy host cores (the source,
uploads, the streaming threads). Threads that start and end between two samples (a CPU
path's worker threads) are missing from the thread table, though not from the host's CPU
use: a busy host that the table does not explain points there. With --harness-rows, the
rows "source only" and "source + noise" (no denoiser) measure the harness itself at the
largest N tried, so a limit of the harness is not taken for the denoiser's.

    scripts/gpu-live-streams.py --build build --presets standard,draft --layouts one-process \\
        --guess standard=16,draft=40 [--size 1920x1080] [--seconds 60] [--probe-seconds 20]
    scripts/gpu-live-streams.py --build build --fixed standard=1:2:3 --size 3840x2160  # given N only

With --gpus G the pipelines are placed on the host's first G GPUs, pipeline i on GPU i mod G
(cuda-device-id on cudaupload, cudaaddnoise and cudadenoise), as an application spreads its
streams (issue 36 item 3: streams per host); the GPU column then lists each GPU's utilisation.

The sources capture at the same instants (genlocked cameras: every stream's frame reaches the
GPU at once, the worst case); --spread spreads their capture times evenly over a frame period
(videotestsrc timestamp-offset), as independent cameras would.

Needs a GPU, BUILD/plugin with the elements, and GStreamer with nvcodec (cudaupload): on the
GPU host, .gpu-runtime (its runtime-env.sh is applied to gst-launch only; --runtime DIR).
Prints markdown tables (every run, then the largest N per preset and layout); --json FILE
writes the same as JSON.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESETS = ("standard", "draft", "live", "video")
# A QoS message as gst-launch -m prints it: the element, the late frame's running time and
# how late it was (the jitter, ns).
QOS_LINE = re.compile(r'Got message #\d+ from element "([^"]+)" \(qos\)(?:.*?running-time=\(guint64\)(\d+))?'
                      r'(?:.*?jitter=\(gint64\)(-?\d+))?')
SINK_INDEX = re.compile(r"sink(\d+)$")
WARM_UP_S = 2.0  # QoS messages of late frames in a run's first seconds: start-up, counted apart
ERROR_LINE = re.compile(r"^ERROR: from element (.*)$", re.M)
# GstCudaContext's log line for each CUcontext it makes (GST_DEBUG=cudacontext:4): how many
# contexts the pipelines made (gstcdnsharedcontext.h: one per device is the aim).
CONTEXT_LINE = re.compile(r"Created CUDA context")


def runtime_env(runtime, plugins, registry):
    """The environment gst-launch runs in: the runtime's, with our plugins."""
    env = dict(os.environ)
    script = os.path.join(runtime, "runtime-env.sh")
    if os.path.isfile(script):
        out = subprocess.run(["bash", "-c", 'GPU_RT_QUIET=1 source "$1" >/dev/null && env -0', "_", script],
                             check=True, capture_output=True).stdout
        env = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    env["GST_PLUGIN_PATH_1_0"] = plugins
    env["GST_REGISTRY_1_0"] = registry
    return env


def chain(i, preset, size, frames, sigma, upload=True, props=(), deadline_ms=20, offset_ns=0, gpus=1):
    """One pipeline's elements, as gst-launch arguments; preset None: no denoiser, '' no noise either.
    offset_ns: the source's timestamp-offset (a live source captures at its timestamps); gpus: the
    pipeline runs on GPU i mod gpus (every CUDA element's cuda-device-id)."""
    device = [f"cuda-device-id={i % gpus}"] if gpus > 1 else []
    w, h = size.split("x")
    out = ["videotestsrc", "is-live=true", "pattern=smpte", "horizontal-speed=4", f"num-buffers={frames}",
           f"timestamp-offset={offset_ns}", "!",
           f"video/x-raw,format=NV12,width={w},height={h},framerate=30/1", "!"] + (["cudaupload", *device, "!"] if upload else [])
    if preset != "":
        out += ["cudaaddnoise", *device, f"sigma={sigma}", f"seed={1000 * i}", "!"]
    if preset:
        out += ["cudadenoise", *device, f"name=denoise{i}", f"preset={preset}", *props, "!"]
    out += ["fakesink", f"name=sink{i}", "sync=true", "qos=true", "max-lateness=20000000",
            f"processing-deadline={deadline_ms * 1000000}"]
    return out


class Sampler:
    """GPU utilisation, host CPU use and the CPU time of the pipelines' threads by name
    (digits left out: videotestsrc3:src counts as videotestsrc:src), sampled once a second;
    the utilisation of GPUs 0 to gpus - 1."""

    def __init__(self, gpus=1):
        self.gpus, self.gpu, self.cpu, self._stop = gpus, [], [], threading.Event()
        self.pids, self._threads = [], {}  # (pid, tid) -> (name, CPU ticks)

    @staticmethod
    def _cpu_times():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + v[4]
        return sum(v), idle

    def _sample_threads(self):
        for pid in list(self.pids):
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    with open(f"/proc/{pid}/task/{tid}/stat") as f:
                        stat = f.read()
                except OSError:
                    continue
                name = stat[stat.index("(") + 1:stat.rindex(")")]
                fields = stat[stat.rindex(")") + 2:].split()
                self._threads[(pid, tid)] = (re.sub(r"\d+", "", name), int(fields[11]) + int(fields[12]))

    def threads(self, wall, top=6):
        """The busiest thread names: 'name cores' over the run's wall time."""
        by_name = {}
        for name, ticks in self._threads.values():
            by_name[name] = by_name.get(name, 0) + ticks
        hz = os.sysconf("SC_CLK_TCK")
        busiest = sorted(by_name.items(), key=lambda kv: -kv[1])[:top]
        return ", ".join(f"{name} {ticks / hz / wall:.2f}" for name, ticks in busiest)

    def _loop(self):
        last = self._cpu_times()
        while not self._stop.wait(1.0):
            self._sample_threads()
            now = self._cpu_times()
            total, idle = now[0] - last[0], now[1] - last[1]
            if total > 0:
                self.cpu.append(100.0 * (total - idle) / total)
            last = now
            try:
                q = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                                    "-i", ",".join(str(g) for g in range(self.gpus))],
                                   capture_output=True, text=True, timeout=5)
                self.gpu.append([float(x) for x in q.stdout.strip().splitlines()[:self.gpus]])
            except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
                pass

    def __enter__(self):
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def summary(self):
        # The first and last seconds are start-up and EOS: the middle says what bounds the run.
        def mid(v):
            v = v[2:-2] if len(v) > 6 else v
            return round(sum(v) / len(v)) if v else None
        gpu = [mid([s[g] for s in self.gpu if len(s) > g]) for g in range(self.gpus)]
        return (gpu[0] if self.gpus == 1 else "/".join(str(g) for g in gpu)), mid(self.cpu)


def run(args, env, preset, n, layout, seconds):
    """One run of n pipelines: a dict with the verdict and what was measured."""
    frames = 30 * seconds

    def offset(i, n):  # --spread: capture phases spread evenly over a frame period
        return i * (1000000000 // 30) // n if args.spread else 0

    if layout == "one-process":
        cmds = [["gst-launch-1.0", "-m"] + sum((chain(i, preset, args.size, frames, args.sigma, args.upload, args.props.split(), args.deadline_ms, offset(i, n), args.gpus) for i in range(n)), [])]
    else:
        cmds = [["gst-launch-1.0", "-m"] + chain(i, preset, args.size, frames, args.sigma, args.upload, args.props.split(), args.deadline_ms, offset(i, n), args.gpus) for i in range(n)]
    env = dict(env)
    env["GST_DEBUG"] = ",".join(x for x in (env.get("GST_DEBUG", ""), "cudacontext:4") if x)
    env["GST_DEBUG_NO_COLOR"] = "1"
    t0 = time.monotonic()
    with Sampler(args.gpus) as sampler:
        procs = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for c in cmds]
        sampler.pids = [p.pid for p in procs]
        try:
            outputs = [p.communicate(timeout=seconds * 3 + 120)[0] for p in procs]
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            outputs = [p.communicate()[0] for p in procs]
    wall = time.monotonic() - t0
    codes = [p.returncode for p in procs]
    found = [(k, name, t, j) for k, o in enumerate(outputs) for name, t, j in QOS_LINE.findall(o)]
    qos = len(found)
    late_streams = len({(k, name) for k, name, _, _ in found})
    errors = [m for o in outputs for m in ERROR_LINE.findall(o)]
    contexts = sum(len(CONTEXT_LINE.findall(o)) for o in outputs)
    late_at = sorted(int(t) / 1e9 for _, _, t, _ in found if t)  # the late frames' running times
    jitter = [int(j) / 1e6 for _, _, _, j in found if j]
    gpu, cpu = sampler.summary()
    ok = all(c == 0 for c in codes) and qos == 0 and not errors
    row = {"preset": preset if preset else ("source + noise" if preset is None else "source only"),
           "size": args.size, "gpus": args.gpus, "layout": layout, "n": n, "seconds": seconds, "deadline_ms": args.deadline_ms, "pass": ok, "qos": qos,
           "late_streams": late_streams,
           "qos_after_start": sum(t >= WARM_UP_S for t in late_at),
           "late_from_s": round(late_at[0], 2) if late_at else None, "late_to_s": round(late_at[-1], 2) if late_at else None,
           "late_max_ms": round(max(jitter), 1) if jitter else None, "late_by_gpu": late_per_gpu(found, args.gpus),
           "failed": sum(c != 0 for c in codes), "wall_s": round(wall, 1), "cuda_contexts": contexts,
           "gpu_util": gpu, "cpu_busy": cpu, "threads": sampler.threads(wall),
           "error": errors[0][:160] if errors else ""}
    print(f"  {row['preset']:>14} {layout:>11} N={n:<3} {seconds:>3} s: {'pass' if ok else 'FAIL'}"
          f" qos {qos} ({late_streams} streams; {row['qos_after_start']} after {WARM_UP_S:g} s;"
          f" late frames at {row['late_from_s']}..{row['late_to_s']} s, at most {row['late_max_ms']} ms late;"
          f" QoS messages (streams) by GPU {'; '.join(f'{g}: {n} ({m})' for g, (n, m) in enumerate(row['late_by_gpu']))}),"
          f" exit!=0 {row['failed']}, wall {wall:.0f} s,"
          f" CUDA contexts made {contexts},"
          f" GPU {gpu}%, CPU {cpu}% {row['error']}\n    cores by thread: {row['threads']}", file=sys.stderr, flush=True)
    return row


def search(args, env, preset, layout, guess, rows):
    """The largest N that passes a full run, from short probes around guess."""
    lo, hi, n, probes = 0, None, guess, 0
    while probes < args.max_probes and (hi is None or hi - lo > 1):
        r = run(args, env, preset, n, layout, args.probe_seconds)
        rows.append(r)
        probes += 1
        if r["pass"]:
            lo = n
            n = n + max(1, n // 4) if hi is None else (lo + hi) // 2
        else:
            hi = n
            n = max(1, n - max(1, n // 4)) if lo == 0 else (lo + hi) // 2
            if hi == 1:
                break
    best = None
    for _ in range(args.max_confirm):
        if lo < 1:
            break
        r = run(args, env, preset, lo, layout, args.seconds)
        rows.append(r)
        if r["pass"]:
            best = lo
            break
        hi, lo = lo, lo - 1
    return {"preset": preset, "size": args.size, "gpus": args.gpus, "layout": layout, "best": best, "first_fail": hi,
            "seconds": args.seconds}


def late_per_gpu(found, gpus):
    """[[QoS messages, late streams], ...] for each GPU, from the QoS messages found as
    (process, sink name, running time, jitter): pipeline i's sink is sink<i>, on GPU i mod gpus."""
    per = [[0, set()] for _ in range(gpus)]
    for k, name, _, _ in found:
        m = SINK_INDEX.search(name)
        if m:
            g = per[int(m.group(1)) % gpus]
            g[0] += 1
            g[1].add((k, name))
    return [[n, len(streams)] for n, streams in per]


def late_span(r):
    return "" if r["late_from_s"] is None else f"{r['late_from_s']}..{r['late_to_s']}"


def table(rows, results):
    lines = ["| preset | size | GPUs | layout | N | s | sink deadline ms | result | QoS messages (streams) |"
             f" of them after {WARM_UP_S:g} s | late frames' running time s | pipelines failed |"
             " CUDA contexts made | GPU busy % | host CPU busy % | wall s | busiest threads (cores) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['preset']} | {r['size']} | {r['gpus']} | {r['layout']} | {r['n']} | {r['seconds']} | {r['deadline_ms']} |"
                     f" {'pass' if r['pass'] else 'FAIL'} | {r['qos']} ({r['late_streams']}) | {r['qos_after_start']} |"
                     f" {late_span(r)} | {r['failed']} | {r['cuda_contexts']} |"
                     f" {r['gpu_util']} | {r['cpu_busy']} | {r['wall_s']} | {r['threads']} |")
    if results:
        lines += ["", "| preset | size | GPUs | layout | largest N, no drop and no QoS for the full run | smallest N that failed |",
                  "| --- | --- | --- | --- | --- | --- |"]
        for s in results:
            lines.append(f"| {s['preset']} | {s['size']} | {s['gpus']} | {s['layout']} | {s['best'] if s['best'] else 'none'}"
                         f" ({s['seconds']} s) | {s['first_fail'] if s['first_fail'] else 'none tried'} |")
    return "\n".join(lines)


def pairs(text, what):
    out = {}
    for item in filter(None, text.split(",")):
        if "=" not in item:
            sys.exit(f"gpu-live-streams: {what} takes PRESET=N items, not '{item}'")
        k, v = item.split("=", 1)
        out[k] = v
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--runtime", default=os.path.join(ROOT, ".gpu-runtime"))
    p.add_argument("--presets", default="standard,draft,live,video")
    p.add_argument("--layouts", default="one-process,processes", help="one-process, processes or both")
    p.add_argument("--guess", default="standard=16,draft=40,live=9,video=5",
                   help="PRESET=N: where the search starts (the bench's streams table is a good guess)")
    p.add_argument("--fixed", default="", help="PRESET=N:N:...,...: run these N only, full length (no search)")
    p.add_argument("--size", default="1920x1080")
    p.add_argument("--deadline-ms", type=int, default=20,
                   help="the sink's processing-deadline: the time a frame may take from the source to the sink"
                        " (GstBaseSink's default, 20 ms, with nothing else in the pipeline's latency)")
    p.add_argument("--props", default="", help="more cudadenoise properties, e.g. 'sigma=15' (default: none, sigma auto)")
    p.add_argument("--harness-n", type=int, help="N for --harness-rows (default: the largest N run)")
    p.add_argument("--sigma", type=float, default=15)
    p.add_argument("--seconds", type=int, default=60)
    p.add_argument("--probe-seconds", type=int, default=20)
    p.add_argument("--max-probes", type=int, default=4)
    p.add_argument("--max-confirm", type=int, default=2)
    p.add_argument("--harness-rows", action="store_true",
                   help="also run the source alone and source + noise at the largest N tried")
    p.add_argument("--system-memory", dest="upload", action="store_false",
                   help="no cudaupload: system memory (the CPU path, or a smoke test on a host without nvcodec)")
    p.add_argument("--gpus", type=int, default=1,
                   help="place pipeline i on GPU i mod GPUS (cuda-device-id of every CUDA element)")
    p.add_argument("--spread", action="store_true",
                   help="spread the sources' capture times evenly over a frame period (independent cameras); "
                        "default: all capture at once (genlocked sources, the worst case)")
    p.add_argument("--json")
    args = p.parse_args()

    if not re.fullmatch(r"\d+x\d+", args.size):
        sys.exit(f"gpu-live-streams: --size takes WxH, not '{args.size}'")
    plugins = os.path.abspath(os.path.join(args.build, "plugin"))
    if not os.path.isdir(plugins):
        sys.exit(f"gpu-live-streams: no {plugins}")
    env = runtime_env(args.runtime, plugins, os.environ.get("GST_REGISTRY_1_0", "/tmp/cdn-live-streams-registry.bin"))
    for element in (("cudaupload",) if args.upload else ()) + ("cudaaddnoise", "cudadenoise"):
        if subprocess.run(["gst-inspect-1.0", element], env=env, capture_output=True).returncode != 0:
            sys.exit(f"gpu-live-streams: no GStreamer element {element} here")
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader", "-i",
                              ",".join(str(g) for g in range(args.gpus))],
                             capture_output=True, text=True).stdout.strip().replace("\n", "; ")
    except OSError:
        gpu = "no GPU (no nvidia-smi)"
    print(f"GPU: {gpu}; host: {os.cpu_count()} CPU threads; {args.size} NV12 at 30 fps, cudaaddnoise sigma"
          f" {args.sigma:g}, cudadenoise {args.props or 'sigma auto'}; sink processing-deadline {args.deadline_ms} ms; probes {args.probe_seconds} s, full runs {args.seconds} s; sources capture {'spread over a frame period' if args.spread else 'at once'}; CUDA_DEVICE_MAX_CONNECTIONS {os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS', 'unset (8)')}")

    rows, results = [], []
    layouts = [x for x in args.layouts.split(",") if x]
    for layout in layouts:
        if layout not in ("one-process", "processes"):
            sys.exit(f"gpu-live-streams: unknown layout '{layout}'")
    if args.fixed:
        for preset, ns in pairs(args.fixed, "--fixed").items():
            for layout in layouts:
                for n in ns.split(":"):
                    rows.append(run(args, env, preset, int(n), layout, args.seconds))
    else:
        guesses = pairs(args.guess, "--guess")
        for layout in layouts:
            for preset in [x for x in args.presets.split(",") if x]:
                if preset not in PRESETS and preset not in guesses:
                    sys.exit(f"gpu-live-streams: no guess for preset '{preset}' (--guess {preset}=N)")
                results.append(search(args, env, preset, layout, int(guesses.get(preset, 8)), rows))
    if args.harness_rows:
        top = args.harness_n or (max(r["n"] for r in rows) if rows else 16)
        for preset in ("", None):
            rows.append(run(args, env, preset, top, layouts[0], args.probe_seconds))
    print()
    print(table(rows, results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": gpu, "size": args.size, "runs": rows, "largest": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
