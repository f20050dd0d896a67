#!/usr/bin/env python3
"""test_live_streams_script.py: scripts/gpu-live-streams.py (issue 36's live streams
benchmark) runs here, without a GPU, on system memory: one stream in one process and
two in two processes, each to EOS (exit status 0, counted), every run in the JSON
with its QoS count (the late frames' running times, how late, and per GPU), the CUDA contexts made, GPU and host figures; a bad --size or --guess is refused
with a message; with --gpus 2 pipeline i's CUDA elements take cuda-device-id i mod 2 (the chains are
built, not run: no GPU here). Whether the runs keep real time on this machine is not asserted:
that is what the benchmark measures on the GPU host.

    test_live_streams_script.py SCRIPT BUILD_DIR
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile


def main():
    script, build = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "live.json")
        run = subprocess.run([sys.executable, script, "--build", build, "--runtime", os.path.join(tmp, "none"),
                              "--system-memory", "--fixed", "draft=1:2", "--layouts", "one-process,processes",
                              "--size", "64x48", "--seconds", "2", "--json", out],
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "| preset | size | GPUs | layout | N |" in run.stdout, run.stdout
        report = json.load(open(out))
    runs = report["runs"]
    assert [(r["layout"], r["n"]) for r in runs] == [("one-process", 1), ("one-process", 2), ("processes", 1),
                                                     ("processes", 2)], runs
    for r in runs:
        assert r["preset"] == "draft" and r["size"] == "64x48" and r["seconds"] == 2 and r["gpus"] == 1, r
        assert r["failed"] == 0 and not r["error"], r  # every pipeline reached EOS
        assert isinstance(r["qos"], int) and r["qos"] >= 0, r
        assert isinstance(r["cuda_contexts"], int) and r["cuda_contexts"] >= 0, r
        assert r["wall_s"] >= 2.0, r  # live: 60 frames at 30 fps take two seconds
        assert r["pass"] == (r["qos"] == 0), r
        # the late frames' running times: none without a QoS message, else a span
        assert 0 <= r["qos_after_start"] <= r["qos"], r
        assert (r["late_from_s"] is None) == (r["qos"] == 0), r
        assert r["late_from_s"] is None or r["late_from_s"] <= r["late_to_s"], r
        assert (r["late_max_ms"] is None) == (r["qos"] == 0), r
        assert len(r["late_by_gpu"]) == 1 and r["late_by_gpu"][0][0] == r["qos"], r
    for bad, said in ((["--size", "64"], "--size takes WxH"), (["--guess", "draft"], "PRESET=N")):
        run = subprocess.run([sys.executable, script, "--build", build, "--system-memory"] + bad,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode != 0 and said in run.stderr, (bad, run.stderr)
    spec = importlib.util.spec_from_file_location("live_streams", script)
    live = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(live)
    for i in range(3):
        placed = live.chain(i, "standard", "64x48", 30, 15, gpus=2)
        for element in ("cudaupload", "cudaaddnoise", "cudadenoise"):
            at = placed.index(element)
            assert placed[at + 1] == f"cuda-device-id={i % 2}", (element, placed)
        assert not any(a.startswith("cuda-device-id") for a in live.chain(i, "standard", "64x48", 30, 15)), i
    # QoS messages as gst-launch -m prints them, read into the late frames of each GPU's pipelines
    qos = ('Got message #{} from element "sink{}" (qos): GstMessageQOS, live=(boolean)true, '
           'running-time=(guint64){}, stream-time=(guint64)0, timestamp=(guint64)0, duration=(guint64)33333333, '
           'jitter=(gint64){}, proportion=(double)1, quality=(int)1000000, format=(GstFormat)GST_FORMAT_BUFFERS, '
           'processed=(guint64)0, dropped=(guint64)1;')
    text = "\n".join(qos.format(*m) for m in ((1, 3, 33333333, 5500000), (2, 3, 66666666, 1200000),
                                              (3, 4, 33333333, 2000000)))
    found = [(0, name, t, j) for name, t, j in live.QOS_LINE.findall(text)]
    assert found == [(0, "sink3", "33333333", "5500000"), (0, "sink3", "66666666", "1200000"),
                     (0, "sink4", "33333333", "2000000")], found
    assert live.late_per_gpu(found, 2) == [[1, 1], [2, 1]], live.late_per_gpu(found, 2)
    assert live.late_per_gpu(found, 1) == [[3, 2]]
    print("ok: 4 runs to EOS, JSON complete; bad options refused; --gpus places the chains; QoS lines read per GPU")


if __name__ == "__main__":
    main()
