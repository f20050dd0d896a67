"""piece.py: one piece of a job, run on a Dask worker: cudadenoise-transcode
--range A:B --manifest M into the job's work directory (which every worker
must see at the same path: a shared file system), and the test of a piece a
rerun may keep. This module is sent to the workers by value (cloudpickle), so
a worker needs Python with python3-distributed and the transcode tool, not the
farm installed."""
import json
import os
import socket
import subprocess
import time


def piece_paths(work_dir, number):
    base = os.path.join(work_dir, f"piece-{number:05d}")
    return base + ".mkv", base + ".json"


def attempts(work_dir, number):
    """How many times the piece was started (each start appends a line)."""
    try:
        with open(os.path.join(work_dir, f"piece-{number:05d}.log")) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def piece_complete(work_dir, number, a, b):
    """The manifest exists, describes this range and the file beside it (size),
    and counts the piece's decode errors (a tool before that did not)."""
    video, manifest = piece_paths(work_dir, number)
    try:
        with open(manifest) as f:
            m = json.load(f)
        size = os.path.getsize(video)
    except (OSError, ValueError):
        return None
    if (m.get("range") != [a, b] or m.get("frames") != b - a or m.get("output_bytes") != size
            or not isinstance(m.get("decode_errors"), int)):
        return None
    return m


def run_piece(tool, source, work_dir, number, a, b, transcode_args, gpu_map=None):
    """Runs the tool for frames [a, b) of `source`; returns the manifest and where
    and how long it ran. Raises RuntimeError with the tool's message on failure
    (Dask retries it). A piece already complete in work_dir is not run again:
    Dask runs a task again when the worker holding its result is lost, though
    the piece itself is safe on the shared file system."""
    video, manifest = piece_paths(work_dir, number)
    done = piece_complete(work_dir, number, a, b)
    if done is not None:
        return {"number": number, "manifest": done, "seconds": 0.0, "host": socket.gethostname(), "pid": os.getpid()}
    cmd = [tool, "-i", source, "-o", video, "--range", f"{a}:{b}", "--manifest", manifest, "-y", "-q"]
    cmd += list(transcode_args)
    if gpu_map:
        try:
            from distributed import get_worker
            name = get_worker().name
            cmd += ["--gpu", str(gpu_map[int(name) % len(gpu_map)])]
        except (ValueError, TypeError, ImportError):
            pass
    with open(os.path.join(work_dir, f"piece-{number:05d}.log"), "a") as log:
        log.write(f"{socket.gethostname()} {os.getpid()} {time.time():.3f}\n")
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if p.returncode != 0:
        lines = [l for l in p.stderr.strip().splitlines() if l]
        if p.returncode == 3 and lines and "cannot be cut exactly" in lines[-1]:
            # Deterministic: no retry; the farm makes this input one piece.
            return {"number": number, "uncuttable": lines[-1], "host": socket.gethostname()}
        raise RuntimeError(f"piece {number} (frames {a}:{b}) failed with exit {p.returncode}: "
                           + (lines[-1] if lines else "no message"))
    with open(manifest) as f:
        m = json.load(f)
    return {"number": number, "manifest": m, "seconds": seconds, "host": socket.gethostname(), "pid": os.getpid()}
