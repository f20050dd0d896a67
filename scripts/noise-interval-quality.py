#!/usr/bin/env python3
"""noise-interval-quality.py: what `noise-interval` costs in quality (docs/NOISE.md, "Which frames are measured").

The automatic noise level is tracked over the frames measured: one frame in
`noise-interval`, the first included. This script filters the same noisy clips with the noise
level estimated at several intervals and prints the luma PSNR of each against the clean clip,
so the default's cost is a measured figure.

For each real clip of the evaluation (.testdata/video, scripts/fetch-eval-data.sh): the first
--frames frames, the centre --crop of them (I420, ffmpeg), then for each noise condition the
noisy frames (`cudadenoise-eval prepare`: AWGN of sigma S, or Gaussian noise of variance
a x + b), each filtered with the mode at sigma auto once per interval (`cudadenoise-eval
denoise`), measured with `cudadenoise-eval measure`.

    scripts/noise-interval-quality.py --build build [--backend cuda] [--intervals 1,4,8]
        [--conditions awgn-5,awgn-15,awgn-30,sd-0.5-4,sd-2-2] [--frames 64] [--mode-args "--modes bm3d ..."]

Prints a markdown table (mean luma PSNR per condition and interval, the largest loss of one
clip against interval 1) and, with --json FILE, every measurement. The tools and ffmpeg run
as the evaluation report runs them (tools/eval/harness/env.py): on a GPU host without
ffmpeg, through the runtime bundle in .gpu-runtime. BUILD is relative to the checkout.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "eval"))
from harness.env import Env, HarnessError  # noqa: E402  (the tools, ffmpeg and the GPU host's runtime bundle)


def condition_flags(name):
    """prepare's noise flags for a condition name: awgn-S or sd-A-B."""
    kind, _, rest = name.partition("-")
    if kind == "awgn":
        return ["--sigma", rest]
    if kind == "sd":
        a, _, b = rest.partition("-")
        return ["--noise-a", a, "--noise-b", b]
    sys.exit(f"noise-interval-quality: unknown condition '{name}' (awgn-S or sd-A-B)")


def clips(d):
    """(name, path) of the clips that d's MANIFEST.tsv lists and d holds; none without a manifest."""
    names = []
    manifest = os.path.join(d, "MANIFEST.tsv")
    if not os.path.isfile(manifest):
        return []
    with open(manifest) as f:
        for line in f:
            if line.startswith("#") or line.startswith("name\t") or not line.strip():
                continue
            names.append(line.split("\t")[0])
    return [(n, os.path.join(d, n)) for n in names if os.path.exists(os.path.join(d, n))]


def decode(env, path, out, frames, crop):
    w, h = crop.split("x")
    vf = f"crop='min(iw,{w})':'min(ih,{h})',crop='trunc(iw/2)*2':'trunc(ih/2)*2',format=yuv420p"
    env.run([env.ffmpeg, "-v", "error", "-y", "-i", path, "-frames:v", str(frames), "-vf", vf,
             "-f", "yuv4mpegpipe", "-strict", "-1", out], "decoding " + path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--data", default=os.environ.get("CDN_TEST_DATA", os.path.join(ROOT, ".testdata")))
    p.add_argument("--video-dir", help="the clips and their MANIFEST.tsv (default: DATA/video); any clips ffmpeg"
                   " reads, e.g. crops carried to a GPU host")
    p.add_argument("--backend", default="auto")
    p.add_argument("--intervals", default="1,4,8")
    p.add_argument("--conditions", default="awgn-5,awgn-15,awgn-30,sd-0.5-4,sd-2-2")
    p.add_argument("--frames", type=int, default=64)
    p.add_argument("--crop", default="544x320")
    p.add_argument("--mode-args", default="--modes bm3d --bm3d-profile rapid",
                   help="what `denoise` runs (default: bm3d rapid, the preset standard)")
    p.add_argument("--clips", default="", help="comma-separated clip names (default: every clip there)")
    p.add_argument("--json")
    args = p.parse_args()

    try:
        env = Env(ROOT, args.build)
        return measure(args, env)
    except HarnessError as e:
        sys.exit(f"noise-interval-quality: {e}")


def measure(args, env):
    intervals = [int(x) for x in args.intervals.split(",")]
    conditions = [c for c in args.conditions.split(",") if c]
    for c in conditions:
        condition_flags(c)
    chosen = clips(args.video_dir or os.path.join(args.data, "video"))
    if args.clips:
        want = set(args.clips.split(","))
        chosen = [c for c in chosen if c[0] in want]
    if not chosen:
        sys.exit("noise-interval-quality: no clips in the clip folder, or no MANIFEST.tsv there"
                 " (scripts/fetch-eval-data.sh puts them into .testdata/video)")

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, path in chosen:
            clean = os.path.join(work, name + ".y4m")
            decode(env, path, clean, args.frames, args.crop)
            for k, cond in enumerate(conditions):
                noisy = os.path.join(work, f"{name}-{cond}.y4m")
                env.eval_json(["prepare", "--input", clean, "--noisy-out", noisy, "--seed-base",
                               str(1000 * (k + 1) + 1)] + condition_flags(cond), "noise " + cond)
                outs = {}
                for n in intervals:
                    out_dir = os.path.join(work, f"{name}-{cond}-i{n}")
                    os.makedirs(out_dir, exist_ok=True)
                    runs = env.eval_json(["denoise", "--input", noisy, "--out-dir", out_dir, "--backends",
                                          args.backend, "--warmup", "0", "--repeat", "1", "--tag", f"i{n}",
                                          "--noise-interval", str(n)] + args.mode_args.split(), "denoise")
                    if len(runs) != 1 or "error" in runs[0]:
                        sys.exit(f"noise-interval-quality: denoise {name} {cond} interval {n}: {runs}")
                    outs[n] = runs[0]["output"]
                    backend = runs[0]["backend"]
                scores = env.eval_json(["measure", "--clean", clean] + [outs[n] for n in intervals], "measure")
                row = {"clip": name, "condition": cond, "backend": backend,
                       "psnr": {n: s["planes"][0]["psnr"] for n, s in zip(intervals, scores)}}
                rows.append(row)
                print(f"  {name:>14} {cond:>9}: " + "  ".join(f"i{n} {row['psnr'][n]:.3f}" for n in intervals),
                      file=sys.stderr, flush=True)

    base = intervals[0]
    print(f"luma PSNR (dB), sigma auto, `{args.mode_args}`, backend {rows[0]['backend']}; {len(chosen)} clips,"
          f" first {args.frames} frames, centre {args.crop}; the loss is against noise-interval {base}\n")
    head = "| condition | " + " | ".join(f"interval {n}" for n in intervals) + " | " + \
        " | ".join(f"mean loss, {n} | worst clip, {n}" for n in intervals[1:]) + " |"
    print(head)
    print("|" + " --- |" * (1 + len(intervals) + 2 * (len(intervals) - 1)))
    for cond in conditions:
        rs = [r for r in rows if r["condition"] == cond]
        means = [statistics.mean(r["psnr"][n] for r in rs) for n in intervals]
        losses = []
        for n in intervals[1:]:
            d = [r["psnr"][base] - r["psnr"][n] for r in rs]
            worst = max(d)
            losses.append(f"{statistics.mean(d):+.3f} | {worst:+.3f} ({rs[d.index(worst)]['clip']})")
        print(f"| {cond} | " + " | ".join(f"{m:.3f}" for m in means) + " | " + " | ".join(losses) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mode_args": args.mode_args, "frames": args.frames, "crop": args.crop, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
