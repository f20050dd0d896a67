#!/usr/bin/env python3
"""test_noise_interval_script.py: scripts/noise-interval-quality.py (docs/NOISE.md, "Which frames are
measured") runs here on the CPU backend: two small clips made with ffmpeg, a manifest beside them, AWGN
and signal-dependent noise, intervals 1 and 4; its table has a row per condition and its JSON a PSNR per
clip, condition and interval, each one a denoised clip's (above the noisy clip's); and an unknown
condition or an empty clip folder is refused with a message.

    test_noise_interval_script.py   (env: CDN_BUILD_DIR_ABS, the build directory)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "noise-interval-quality.py")


def main():
    build = os.environ["CDN_BUILD_DIR_ABS"]
    with tempfile.TemporaryDirectory() as tmp:
        clips = os.path.join(tmp, "clips")
        os.makedirs(clips)
        names = []
        for name, source in (("bars.mkv", "smptebars=size=96x64:rate=30"), ("mandel.mkv", "mandelbrot=size=96x64:rate=30")):
            subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", source, "-frames:v", "12", "-c:v", "ffv1",
                            os.path.join(clips, name)], check=True)
            names.append(name)
        with open(os.path.join(clips, "MANIFEST.tsv"), "w") as f:
            f.write("# made by the test\nname\tpackage\n" + "".join(f"{n}\ttest\n" for n in names))
        out = os.path.join(tmp, "q.json")
        run = subprocess.run([sys.executable, SCRIPT, "--build", build, "--backend", "cpu", "--video-dir", clips,
                              "--frames", "12", "--crop", "64x48", "--intervals", "1,4",
                              "--conditions", "awgn-15,sd-0.5-4", "--json", out],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = run.stdout.splitlines()
        assert "| condition | interval 1 | interval 4 | mean loss, 4 | worst clip, 4 |" in lines, run.stdout
        assert any(l.startswith("| awgn-15 |") for l in lines) and any(l.startswith("| sd-0.5-4 |") for l in lines)
        rows = json.load(open(out))["rows"]
        assert sorted((r["clip"], r["condition"]) for r in rows) == sorted(
            (n, c) for n in names for c in ("awgn-15", "sd-0.5-4")), rows
        for r in rows:
            assert r["backend"] == "cpu", r
            # the noisy clip at sigma 15 is about 24.6 dB; at 0.5 x + 4 no worse than 30: the filter gains
            floor = 26 if r["condition"] == "awgn-15" else 31
            for n in ("1", "4"):
                assert r["psnr"][n] > floor, r
        for bad, said in ((["--conditions", "pink-3"], "unknown condition"), (["--video-dir", tmp], "no clips")):
            run = subprocess.run([sys.executable, SCRIPT, "--build", build, "--video-dir", clips] + bad,
                                 capture_output=True, text=True, timeout=60)
            assert run.returncode != 0 and said in run.stderr, (bad, run.stderr)
    print(f"ok: {len(rows)} clip and condition rows, intervals 1 and 4; bad options refused")


if __name__ == "__main__":
    main()
