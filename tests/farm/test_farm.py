"""test_farm.py: cudadenoise-farm end to end on a local Dask cluster of 2 CPU
workers, on a short 64x48 clip with audio made here (x264 with B-frames, a
keyframe every 10 frames, cut into pieces of 10 frames): for every mode (the
temporal ones with small windows) the output decodes frame for frame, with the
same timestamps, to a single cudadenoise-transcode run (both lossless), and
carries the source's audio packets untouched; a worker killed while it runs a
piece (that piece alone is run again, the output is still exact); a run that
fails on one piece leaves no output and keeps the others, and its rerun
resumes (reuses them), running again a kept piece that was damaged on disk and
one that was cut short; MP4 inputs (AAC priming, edit lists) at a single run's
timestamps; outputs checked by their packets against the pieces' (the
manifests list each piece file's packets and frames), or decoded where asked
or where the container rewrote the packets (MPEG-TS); inputs that fail
(pieces failing, truncated, missing) among
several: the others are written, each failure reported, exit 5; a damaged
input's decode errors, counted once per error as a single run counts them
(pipd, and nlm3d whose pieces' contexts overlap); a local cluster on a host
with nvidia-ml-py's pynvml; the outputs' mode is 0666 less the umask; the
build tree's launcher runs as it is (no environment) and lists the exit codes."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOL = os.environ["CDN_TRANSCODE"]
FARM = os.environ["CDN_FARM"]

MODES = {
    "pipd": ["--mode", "pipd"],
    "hybrid": ["--mode", "hybrid"],
    # The modes that take a sigma get one: sigma auto is tracked over every
    # earlier frame, so the tool refuses it with --range (test below).
    "nlm3d": ["--mode", "nlm3d", "--search-radius", "2", "--temporal-radius", "2", "--sigma", "20"],
    "bm3d": ["--mode", "bm3d", "--bm3d-profile", "draft", "--sigma", "20"],
    "vbm3d": ["--mode", "vbm3d", "--vbm3d-profile", "fast", "--sigma", "20"],
}
COMMON = ["--backend", "cpu", "--lossless"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def framemd5(path, spec="v:0", copy=False):
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-i", path, "-map", f"0:{spec}"]
    cmd += (["-c", "copy"] if copy else []) + ["-f", "framemd5", "-"]
    p = run(cmd)
    assert p.returncode == 0, p.stderr
    return [l for l in p.stdout.splitlines() if l and not l.startswith("#")]


class FarmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cdn-farm-test-")
        cls.clip = os.path.join(cls.dir, "clip.mkv")
        p = run(["ffmpeg", "-v", "error", "-nostdin", "-y",
                 "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25,noise=alls=20:allf=t",
                 "-f", "lavfi", "-i", "sine=f=440:sample_rate=48000", "-t", "2",
                 "-c:v", "libx264", "-g", "10", "-keyint_min", "10", "-sc_threshold", "0", "-bf", "2",
                 "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", cls.clip])
        assert p.returncode == 0, p.stderr
        cls.singles = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def single(self, mode):
        if mode not in self.singles:
            out = os.path.join(self.dir, f"single-{mode}.mkv")
            p = run([TOOL, "-i", self.clip, "-o", out, "-y", "-q"] + COMMON + MODES[mode])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.singles[mode] = framemd5(out)
        return self.singles[mode]

    def farm(self, out, mode, *extra, expect=0, inputs=None):
        cmd = [sys.executable, FARM] + [a for i in (inputs or [self.clip]) for a in ("-i", i)]
        cmd += ["-o", out, "--local", "2", "--piece-seconds", "0.3", "--json", "-q"] + list(extra) + COMMON + MODES[mode]
        p = run(cmd)
        self.assertEqual(p.returncode, expect, p.stderr)
        return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr

    def wrapper(self, name, body):
        """A stand-in for the transcode tool: `body` (sh), then the real tool."""
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\n{body}\nexec '{TOOL}' \"$@\"\n")
        os.chmod(path, 0o755)
        return path

    def check_output(self, out, mode):
        self.assertEqual(framemd5(out), self.single(mode))  # frames, pts, durations, MD5s
        self.assertEqual(framemd5(out, "a:0", copy=True), framemd5(self.clip, "a:0", copy=True))

    def test_every_mode_equals_a_single_run(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                out = os.path.join(self.dir, f"farm-{mode}.mkv")
                summary, _ = self.farm(out, mode)
                self.assertEqual(summary["pieces"], 5)
                self.assertEqual(summary["frames"], 50)
                self.assertTrue(summary["verified"])
                self.check_output(out, mode)
                self.assertFalse(os.path.exists(os.path.join(self.dir, f".farm-{mode}.mkv.farm")))
                # Where the time went: every stage ran and none took longer than the whole.
                t = summary["stages"]
                self.assertEqual(set(t), {"probe", "cluster", "pieces", "tool", "join", "verify"})
                for stage in ("cluster", "pieces", "tool", "join", "verify"):
                    self.assertGreater(t[stage], 0, stage)
                self.assertLessEqual(t["cluster"] + t["pieces"] + t["join"] + t["verify"], summary["seconds"] + 0.01)
                # Matroska keeps the pieces' packets: the output is checked by them, not decoded.
                self.assertEqual(summary["checks"], {"packets": 1, "decode": 0})

    def test_a_manifest_lists_the_written_files_packets_and_frames(self):
        out, manifest = os.path.join(self.dir, "piece.mkv"), os.path.join(self.dir, "piece.json")
        p = run([TOOL, "-i", self.clip, "-o", out, "-y", "-q", "--range", "10:30", "--manifest", manifest]
                + COMMON + MODES["pipd"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(manifest) as f:
            m = json.load(f)
        self.assertEqual(m["frames"], 20)
        self.assertEqual(m["packet_md5"], [l.split(",")[5].strip() for l in framemd5(out, copy=True)])
        self.assertEqual(m["frame_md5"], [l.split(",")[5].strip() for l in framemd5(out)])
        # It reads OUTPUT back: not a pipe.
        p = run([TOOL, "-i", self.clip, "-o", "-", "-f", "matroska", "--manifest", manifest] + COMMON + MODES["pipd"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("not with a pipe", p.stderr)

    def test_an_output_is_decoded_where_asked_or_where_its_packets_are_not_the_pieces(self):
        md5s = lambda lines: [l.split(",")[5].strip() for l in lines]
        out = os.path.join(self.dir, "farm-decoded.mkv")
        summary, _ = self.farm(out, "pipd", "--check", "decode")
        self.assertEqual(summary["checks"], {"packets": 0, "decode": 1})
        self.check_output(out, "pipd")
        # MPEG-TS rewrites H.264 packets (an access unit delimiter in each):
        # the packets differ from the pieces', so the output is decoded.
        ts = os.path.join(self.dir, "farm.ts")
        summary, _ = self.farm(ts, "pipd")
        self.assertTrue(summary["verified"])
        self.assertEqual(summary["checks"], {"packets": 0, "decode": 1})
        self.assertEqual(md5s(framemd5(ts)), md5s(self.single("pipd")))

    def test_sigma_auto_is_refused_for_pieces(self):
        out = os.path.join(self.dir, "auto.mkv")
        p = run([TOOL, "-i", self.clip, "-o", out, "--range", "10:20", "-q"] + COMMON + ["--mode", "bm3d"])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("needs --sigma", p.stderr)
        self.assertFalse(os.path.exists(out))

    def test_decode_errors_are_counted_as_a_single_run_counts_them(self):
        # 200 bytes flipped mid-file: FFmpeg conceals the damage; the tool goes on and counts it.
        clean, damaged = os.path.join(self.dir, "clean75.mkv"), os.path.join(self.dir, "damaged75.mkv")
        p = run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=96x72:rate=25",
                 "-frames:v", "75", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", clean])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(clean, "rb") as f:
            data = bytearray(f.read())
        for i in range(200):
            data[len(data) // 2 + i] ^= 0xFF
        with open(damaged, "wb") as f:
            f.write(data)
        for mode in ("pipd", "nlm3d"):  # nlm3d: the pieces' contexts overlap, an error is counted once
            with self.subTest(mode=mode):
                p = run([TOOL, "-i", damaged, "-o", os.path.join(self.dir, f"damaged-{mode}.mkv"), "-y", "--json"]
                        + COMMON + MODES[mode])
                self.assertEqual(p.returncode, 0, p.stderr)
                errors = json.loads(p.stdout.strip().splitlines()[-1])["decode_errors"]
                self.assertGreaterEqual(errors, 1)
                out = os.path.join(self.dir, f"farm-damaged-{mode}.mkv")
                cmd = [sys.executable, FARM, "-i", damaged, "-o", out, "--local", "2", "--piece-seconds", "0.9",
                       "--json"] + COMMON + MODES[mode]
                p = run(cmd)
                self.assertEqual(p.returncode, 0, p.stderr)
                summary = json.loads(p.stdout.strip().splitlines()[-1])
                self.assertEqual(summary["pieces"], 3)
                self.assertEqual(summary["decode_errors"], errors)
                self.assertEqual(summary["decode_errors_by_input"], {damaged: errors})
                noun = "decode error" if errors == 1 else "decode errors"
                self.assertIn(f"{errors} {noun} (damaged packets or frames) in {damaged}", p.stderr)
                self.assertIn(f"verified ({errors} {noun})", p.stderr)

    def test_outputs_get_the_umask_s_mode(self):
        for umask, mode in ((0o022, 0o644), (0o027, 0o640)):
            with self.subTest(umask=oct(umask)):
                out = os.path.join(self.dir, f"umask-{umask:03o}.mkv")
                p = run([sys.executable, FARM, "-i", self.clip, "-o", out, "--serial", "--piece-seconds", "0.3",
                         "-q"] + COMMON + MODES["pipd"], preexec_fn=lambda: os.umask(umask))
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(os.stat(out).st_mode & 0o777, mode)

    def test_the_build_tree_launcher_runs_as_it_is(self):
        # build/tools/farm/cudadenoise-farm: executable, finds this source tree's
        # cdn_farm and this build's transcode tool without any environment.
        env = {k: v for k, v in os.environ.items() if k not in ("CDN_FARM_DIR", "CDN_TRANSCODE")}
        launcher = os.environ["CDN_FARM_BUILD"]
        p = run([launcher, "--help"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        sys.path.insert(0, os.environ["CDN_FARM_DIR"])
        from cdn_farm import cli
        text = " ".join(p.stdout.split())
        self.assertIn("Exit status: ", text)
        codes = text.split("Exit status: ", 1)[1]
        for code in (0, cli.EXIT_FAILURE, cli.EXIT_USAGE, cli.EXIT_INPUT, cli.EXIT_OUTPUT, cli.EXIT_SOME_FAILED,
                     cli.EXIT_INTERRUPTED):
            self.assertRegex(codes, rf"(^|; ){code} [a-z]", f"exit status {code} in --help")
        out = os.path.join(self.dir, "launcher.mkv")
        p = run([launcher, "-i", self.clip, "-o", out, "--serial", "--piece-seconds", "0.3", "-q"]
                + COMMON + MODES["pipd"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(framemd5(out), self.single("pipd"))

    def test_a_local_cluster_starts_where_nvidia_ml_py_is_installed(self):
        # GPU hosts have pip's nvidia-ml-py, whose pynvml returns str where Debian 12's
        # distributed expects bytes: with Dask's NVML diagnostics on, no cluster starts.
        stand_in = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nvml_stand_in")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [stand_in, os.environ.get("PYTHONPATH")])))
        out = os.path.join(self.dir, "farm-nvml.mkv")
        p = run([sys.executable, FARM, "-i", self.clip, "-o", out, "--local", "1", "--piece-seconds", "0.9", "--json",
                 "-q"] + COMMON + MODES["pipd"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(framemd5(out), self.single("pipd"))

    def test_a_killed_worker_s_piece_alone_is_run_again(self):
        mark = os.path.join(self.dir, "killed")
        # The last piece kills the worker running it (SIGKILL), once. That worker has usually
        # finished other pieces by then: their results must not be lost with it (run again).
        tool = self.wrapper("kill-worker.sh", f"""case "$*" in *"--range 40:"*)
  if [ ! -e '{mark}' ]; then : > '{mark}'; kill -9 $PPID; sleep 30; exit 1; fi;; esac""")
        out = os.path.join(self.dir, "farm-killed.mkv")
        summary, _ = self.farm(out, "nlm3d", "--transcode", tool)
        self.assertTrue(os.path.exists(mark))
        self.assertEqual(summary["retried"], 1)
        self.check_output(out, "nlm3d")

    def test_a_failed_run_resumes_and_redoes_damaged_pieces(self):
        out = os.path.join(self.dir, "farm-resume.mkv")
        work = os.path.join(self.dir, ".farm-resume.mkv.farm")
        tool = self.wrapper("fail-one.sh", """case "$*" in *"--range 20:30"*)
  echo "cudadenoise-transcode: made to fail" >&2; exit 3;; esac""")
        summary, err = self.farm(out, "pipd", "--transcode", tool, "--retries", "1", expect=1)
        self.assertIn("20:30", summary["error"])
        self.assertFalse(os.path.exists(out))
        kept = sorted(n for n in os.listdir(work) if n.endswith(".json") and n.startswith("piece-"))
        self.assertEqual(len(kept), 4)
        # Damage piece 0 in place (same size: its manifest still matches) and cut piece 1 short.
        video0 = os.path.join(work, "piece-00000.mkv")
        size = os.path.getsize(video0)
        with open(video0, "r+b") as f:
            f.seek(size // 2)
            chunk = f.read(64)
            f.seek(size // 2)
            f.write(bytes(b ^ 0x5A for b in chunk))
        video1 = os.path.join(work, "piece-00001.mkv")
        with open(video1, "r+b") as f:
            f.truncate(os.path.getsize(video1) // 2)
        summary, err = self.farm(out, "pipd")
        self.assertEqual(summary["pieces_reused"], 3)  # 0, 3 and 4; 1 (cut) and 2 (failed) run
        self.assertEqual(summary["pieces_run"], 2)
        self.assertEqual(summary["pieces_repaired"], [[self.clip, 0]])
        self.check_output(out, "pipd")

    def test_mp4_with_aac_priming_and_edit_lists_equals_a_single_run(self):
        # An MP4 as ffmpeg makes it (B-frames, AAC whose priming starts before 0:
        # a Matroska output moves every stream by it), and one cut by stream copy
        # at a non-keyframe (an edit list: leading packets marked discard).
        made = os.path.join(self.dir, "made.mp4")
        p = run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25",
                 "-f", "lavfi", "-i", "sine", "-t", "2", "-c:v", "libx264", "-g", "10", "-bf", "2",
                 "-c:a", "aac", "-shortest", made])
        self.assertEqual(p.returncode, 0, p.stderr)
        cut = os.path.join(self.dir, "cut.mp4")
        p = run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-ss", "0.5", "-i", made, "-c", "copy", cut])
        self.assertEqual(p.returncode, 0, p.stderr)
        for source in (made, cut):
            with self.subTest(source=os.path.basename(source)):
                single = source + ".single.mkv"
                p = run([TOOL, "-i", source, "-o", single, "-y", "-q"] + COMMON + MODES["pipd"])
                self.assertEqual(p.returncode, 0, p.stderr)
                out = source + ".farm.mkv"
                summary, _ = self.farm(out, "pipd", inputs=[source])
                self.assertGreater(summary["pieces"], 1)
                self.assertEqual(framemd5(out), framemd5(single))
                # Every stream's packets at the single run's times: the same A/V offset.
                self.assertEqual(packet_times(out), packet_times(single))

    def test_failed_inputs_do_not_stop_the_others(self):
        # Among several inputs: one whose pieces fail, a truncated one, a missing one.
        names = ["good1.mkv", "bad.mkv", "trunc.mkv", "missing.mkv", "good2.mkv"]
        src = os.path.join(self.dir, "several")
        out = os.path.join(self.dir, "several-out")
        os.makedirs(src)
        os.makedirs(out)
        paths = [os.path.join(src, n) for n in names]
        for n in ("good1.mkv", "bad.mkv", "good2.mkv"):
            shutil.copy(self.clip, os.path.join(src, n))
        with open(self.clip, "rb") as f:
            data = f.read()
        with open(os.path.join(src, "trunc.mkv"), "wb") as f:
            f.write(data[:len(data) // 2])
        tool = self.wrapper("fail-bad.sh", """case "$*" in *bad.mkv*)
  echo "cudadenoise-transcode: made to fail" >&2; exit 3;; esac""")
        summary, err = self.farm(out, "pipd", "--transcode", tool, "--retries", "0", expect=5, inputs=paths)
        self.assertEqual(sorted(os.listdir(out)), [".bad.mkv.farm", ".trunc.mkv.farm", "good1.mkv", "good2.mkv"])
        for n in ("good1.mkv", "good2.mkv"):
            self.check_output(os.path.join(out, n), "pipd")
        self.assertEqual(summary["outputs"], [os.path.join(out, n) for n in ("good1.mkv", "good2.mkv")])
        self.assertEqual([(f["input"], f["code"]) for f in summary["failed"]],
                         [(paths[1], 1), (paths[2], 1), (paths[3], 3)])
        self.assertIn("made to fail", summary["failed"][0]["error"])
        self.assertIn("truncated", summary["failed"][1]["error"])
        self.assertIn("no such file", summary["failed"][2]["error"])
        self.assertEqual(summary["code"], 5)
        self.assertFalse(summary["verified"])
        for p in paths[1:4]:
            self.assertIn(p, err)
        self.assertIn("3 of 5 inputs failed, 2 written", err)

    def test_serial_failed_piece_fails_its_input_only(self):
        # --serial runs the pieces here: one that fails fails its input, the other input is written.
        src = os.path.join(self.dir, "serial")
        out = os.path.join(self.dir, "serial-out")
        os.makedirs(src)
        os.makedirs(out)
        paths = [os.path.join(src, n) for n in ("good.mkv", "bad.mkv")]
        for p in paths:
            shutil.copy(self.clip, p)
        tool = self.wrapper("serial-fail-bad.sh", """case "$*" in *bad.mkv*)
  echo "cudadenoise-transcode: made to fail" >&2; exit 3;; esac""")
        p = run([sys.executable, FARM, "-i", paths[0], "-i", paths[1], "-o", out, "--serial", "--piece-seconds",
                 "0.3", "--json", "-q", "--transcode", tool] + COMMON + MODES["pipd"])
        self.assertEqual(p.returncode, 5, p.stderr)
        summary = json.loads(p.stdout.strip().splitlines()[-1])
        self.assertEqual(summary["outputs"], [os.path.join(out, "good.mkv")])
        self.check_output(os.path.join(out, "good.mkv"), "pipd")
        self.assertEqual([(f["input"], f["code"]) for f in summary["failed"]], [(paths[1], 1)])
        self.assertIn("made to fail", summary["failed"][0]["error"])


def packet_times(path):
    p = run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts,dts", "-of", "csv=p=0", path])
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


if __name__ == "__main__":
    unittest.main(verbosity=2)
