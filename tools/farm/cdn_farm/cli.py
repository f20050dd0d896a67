"""cli.py: cudadenoise-farm's command line and the job: probe and split each
input, submit its missing pieces to a Dask scheduler (or a local cluster),
follow them (progress, ETA), then assemble, verify and rename each output into
place. A rerun with the same arguments reuses the complete pieces it finds.
One input that fails (cannot be read, a piece failed, its output does not
verify) does not stop the others: they are written, each failure reported."""
import argparse
import json
import os
import shutil
import sys
import time

from . import assemble, piece, plan, probe

# Options of cudadenoise-transcode the farm sets itself.
_OWN = {"-i", "--input", "-o", "--output", "--range", "--manifest", "--frames", "-f", "--format", "--json",
        "-y", "-n", "-q", "--quiet"}

EXIT_USAGE, EXIT_INPUT, EXIT_OUTPUT, EXIT_FAILURE = 2, 3, 4, 1
EXIT_SOME_FAILED = 5  # several inputs, one or more failed: the others are written
EXIT_INTERRUPTED = 130


class Usage(Exception):
    pass


def parse(argv):
    p = argparse.ArgumentParser(
        prog="cudadenoise-farm", allow_abbrev=False,
        description="Denoise long videos and many files on Dask distributed: each input is cut at keyframes "
                    "into pieces of about --piece-seconds, each piece is one cudadenoise-transcode --range run "
                    "on a worker (one GPU per worker), and the pieces are concatenated by stream copy with the "
                    "source's other streams. The output decodes to the frames of a single cudadenoise-transcode "
                    "run. Every option not listed here goes to cudadenoise-transcode (--mode, its parameters, "
                    "--codec, --crf, --lossless, --backend, ...).",
        epilog=f"Exit status: 0 every output written and verified; {EXIT_FAILURE} a piece failed after its "
               "retries (the transcode tool's message says why: e.g. a truncated input, a decode error with "
               f"--fail-on-decode-error) or another failure; {EXIT_USAGE} a usage error (an output that exists "
               f"without -y too); {EXIT_INPUT} the input cannot be read (missing, no video, ffprobe fails); "
               f"{EXIT_OUTPUT} the output could not be written or does "
               f"not verify; {EXIT_SOME_FAILED} several inputs and one or more failed (the others are "
               f"written; each failure is said, and listed in --json's \"failed\"); {EXIT_INTERRUPTED} "
               "interrupted (the pieces done are kept: a rerun resumes). "
               "docs/FARM.md: a scheduler and GPU workers on several machines.")
    p.add_argument("-i", "--input", action="append", required=True, help="input video (repeat for many files)")
    p.add_argument("-o", "--output", required=True,
                   help="output file, or with several inputs an existing directory (each output takes its "
                        "input's name)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--local", type=int, metavar="N", help="start a local cluster of N workers (the default: 1)")
    p.add_argument("--serial", action="store_true",
                   help="no Dask: run the pieces one after another here (a machine without python3-distributed; "
                        "checking the pieces and their concatenation)")
    p.add_argument("--local-gpus", metavar="I,J,...",
                   help="with --local: worker k uses CUDA device I,J,...[k mod count] (--gpu of the tool)")
    p.add_argument("--piece-seconds", type=float, default=20.0, metavar="S",
                   help="cut the inputs at the first keyframe S seconds after a piece starts (default 20)")
    p.add_argument("--retries", type=int, default=2, metavar="N",
                   help="times a failed piece is run again (a lost worker's piece is rescheduled too)")
    p.add_argument("--work-dir", metavar="DIR",
                   help="where pieces are kept until the output is verified (default: .NAME.farm beside the "
                        "output); with --scheduler every worker must see it at the same path")
    p.add_argument("--keep-work", action="store_true", help="keep the pieces after success")
    p.add_argument("--check", choices=("packets", "decode"), default="packets",
                   help="how an output is checked before it gets its name: its video packets against those of the "
                        "pieces, which the transcode tool decoded as it wrote them (packets; a decode where they "
                        "differ), or a decode of the whole output here (decode)")
    p.add_argument("--transcode", default=os.environ.get("CDN_TRANSCODE", "cudadenoise-transcode"),
                   help="the cudadenoise-transcode program (as the workers see it)")
    p.add_argument("--ffmpeg", default="ffmpeg")
    p.add_argument("--ffprobe", default="ffprobe")
    p.add_argument("-y", action="store_true", help="overwrite outputs that exist")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors (and the --json line)")
    p.add_argument("--json", action="store_true", help="print one JSON line with the summary at the end")
    args, rest = p.parse_known_args(argv)
    for a in rest:
        if a.split("=")[0] in _OWN:
            raise Usage(f"{a} is set by the farm for each piece; not a transcode option to pass")
    args.transcode_args = rest
    if args.local or args.serial:  # the workers are here: the tool must be too
        found = shutil.which(args.transcode)
        if not found:
            raise Usage(f"{args.transcode}: no such program (--transcode names cudadenoise-transcode)")
        args.transcode = os.path.abspath(found)
    if args.serial and (args.scheduler or args.local is not None):
        raise Usage("--serial excludes --scheduler and --local")
    if args.scheduler and args.local is not None:
        raise Usage("--scheduler and --local exclude each other")
    if not args.scheduler and args.local is None and not args.serial:
        args.local = 1
    if args.local is not None and args.local < 1:
        raise Usage("--local N: N must be at least 1")
    if args.piece_seconds <= 0:
        raise Usage("--piece-seconds must be > 0")
    return args


def outputs_for(args):
    if len(args.input) == 1 and not os.path.isdir(args.output):
        return [args.output]
    if not os.path.isdir(args.output):
        raise Usage("several inputs: -o must be an existing directory")
    return [os.path.join(args.output, os.path.basename(i)) for i in args.input]


def check_target(args, source, target):
    """The command's mistakes about an output (before any input is read)."""
    if os.path.abspath(source) == os.path.abspath(target):
        raise Usage(f"{target} is the input")
    if not os.path.isdir(os.path.dirname(os.path.abspath(target))):
        raise Usage(f"{target}: its directory does not exist")
    if os.path.exists(target) and not args.y:
        raise Usage(f"{target} exists (-y overwrites it)")


class Job:
    """One input: its index, pieces, work directory and output; `failure`:
    (exit code, message) once it has failed (the other inputs go on)."""

    def __init__(self, args, source, target):
        self.source, self.target = source, target
        self.failure = None
        if not os.path.isfile(source):
            raise probe.ProbeError(f"{source}: no such file")
        self.index = probe.VideoIndex(source, args.ffprobe)
        self.pieces = plan.split_at_keyframes(self.index, args.piece_seconds)
        d, base = os.path.split(os.path.abspath(target))
        self.work = args.work_dir if args.work_dir and len(args.input) == 1 else None
        if not self.work:
            root = args.work_dir or d
            self.work = os.path.join(root, f".{base}.farm")
        os.makedirs(self.work, exist_ok=True)
        signature = plan.job_signature(os.path.abspath(source), os.stat(source), args.transcode_args,
                                       args.piece_seconds)
        self.stamp = os.path.join(self.work, "job.json")
        try:
            with open(self.stamp) as f:
                kept = json.load(f)
        except (OSError, ValueError):
            kept = {}
        self.whole = False
        if kept.get("signature") != signature:  # another job's pieces: start over
            self.clear()
            kept = {"signature": signature, "input": source, "args": args.transcode_args}
            with open(self.stamp, "w") as f:
                json.dump(kept, f)
        elif kept.get("whole"):
            self.make_whole()
        self.kept = kept
        self.manifests = [piece.piece_complete(self.work, k, a, b) for k, (a, b) in enumerate(self.pieces)]
        self.reused = sum(m is not None for m in self.manifests)
        self.repaired = []  # pieces kept from a previous run that had to be made again


    def clear(self):
        for name in os.listdir(self.work):
            if name.startswith("piece-") or name.startswith(".piece-"):
                os.remove(os.path.join(self.work, name))

    def make_whole(self):
        """One piece, the whole video: for an input whose frames cannot be found
        by their timestamps (the decoder reorders them otherwise)."""
        self.whole = True
        self.pieces = [(0, self.index.frames)]


class Progress:
    def __init__(self, quiet, pieces, frames):
        self.quiet, self.pieces, self.frames = quiet, pieces, frames
        self.done = self.frames_done = 0
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()

    def add(self, frames):
        self.done += 1
        self.frames_done += frames
        if self.quiet:
            return
        t = time.monotonic() - self.start
        fps = self.frames_done / t if t > 0 else 0
        eta = (self.frames - self.frames_done) / fps if fps > 0 else float("nan")
        eta_text = "?" if eta != eta else time.strftime("%H:%M:%S", time.gmtime(eta))
        line = (f"pieces {self.done}/{self.pieces}  frames {self.frames_done}/{self.frames}  "
                f"{fps:.1f} fps  elapsed {time.strftime('%H:%M:%S', time.gmtime(t))}  eta {eta_text}")
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        sys.stderr.flush()

    def end(self):
        if self.tty and not self.quiet and self.done:
            sys.stderr.write("\n")


def start_client(args):
    import dask
    from distributed import Client, LocalCluster
    if args.scheduler:
        return Client(args.scheduler), None
    # A lost worker's task is rescheduled up to allowed-failures times. Dask's GPU
    # diagnostics (NVML) are off: the farm does not use them, and Debian 12's
    # distributed fails to start a cluster where pip's nvidia-ml-py is installed
    # (it decodes names that those releases return as str).
    dask.config.set({"distributed.scheduler.allowed-failures": args.retries + 1,
                     "distributed.diagnostics.nvml": False})
    cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                           resources={"GPU": 1}, dashboard_address=":0", silence_logs=40)
    return Client(cluster), cluster


def fail_job(j, code, message):
    """Marks `j` failed with its first failure (a later one is its consequence)."""
    if not j.failure:
        j.failure = (code, message)


def run(args, say):
    entered = time.monotonic()
    targets = outputs_for(args)
    for s, t in zip(args.input, targets):
        check_target(args, s, t)
    jobs, unread = [], []  # unread: inputs that cannot be read, as failures
    for s, t in zip(args.input, targets):
        try:
            jobs.append(Job(args, s, t))
        except probe.ProbeError as e:
            message = str(e) if str(e).startswith(s) else f"{s}: {e}"
            unread.append({"input": s, "output": t, "code": EXIT_INPUT, "error": message})
    gpu_map = [int(x) for x in args.local_gpus.split(",")] if args.local_gpus else None
    todo = [(j, k, a, b) for j in jobs for k, (a, b) in enumerate(j.pieces) if j.manifests[k] is None]
    total_frames = sum(b - a for _, _, a, b in todo)
    say(f"{sum(len(j.pieces) for j in jobs)} pieces of {len(jobs)} input(s), "
        f"{sum(j.reused for j in jobs)} reused from a previous run, {len(todo)} to run")
    start = time.monotonic()
    # Where the time went (the JSON summary's "stages", seconds): reading the inputs,
    # starting the cluster, the pieces (and "tool": their transcode runs summed over
    # the workers), and per output the join and its check, which run on this machine
    # one after the other: what more workers cannot shorten.
    stages = {"probe": start - entered, "cluster": 0.0, "pieces": 0.0, "tool": 0.0, "join": 0.0, "verify": 0.0}
    stats = {"retried": 0, "hosts": set(), "stages": stages, "checks": {"packets": 0, "decode": 0}}
    progress = Progress(args.quiet, len(todo), total_frames)
    client = cluster = None

    def piece_done(j, k, r):
        """Piece k of `j` made: its manifest kept, where and how long it ran counted."""
        j.manifests[k] = r["manifest"]
        stats["hosts"].add(r["host"])
        stages["tool"] += r["seconds"]
        progress.add(r["manifest"]["frames"])
    try:
        if todo and args.serial:
            def run_here(j, k, a, b):
                """Piece k (frames a to b) of `j` on this machine; None when it failed (`j` says why)."""
                try:
                    return piece.run_piece(args.transcode, os.path.abspath(j.source), j.work, k, a, b,
                                           args.transcode_args)
                except RuntimeError as e:
                    fail_job(j, EXIT_FAILURE, f"{j.source}: {e}")
                    return None

            made_whole = set()
            for j, k, a, b in todo:
                if id(j) in made_whole or j.failure:
                    continue
                r = run_here(j, k, a, b)
                if r is not None and "uncuttable" in r:
                    say(f"{j.source}: its frames cannot be found by their timestamps: denoised as one piece")
                    made_whole.add(id(j))
                    j.clear()
                    j.make_whole()
                    j.kept["whole"] = True
                    with open(j.stamp, "w") as fh:
                        json.dump(j.kept, fh)
                    k, a, b = 0, 0, j.index.frames
                    j.manifests = [None]
                    r = run_here(j, k, a, b)
                if r is None:
                    continue
                piece_done(j, k, r)
            progress.end()
        elif todo:
            import cloudpickle
            from distributed import as_completed
            cloudpickle.register_pickle_by_value(piece)
            began = time.monotonic()
            client, cluster = start_client(args)
            stages["cluster"] = time.monotonic() - began
            futures = {}
            for j, k, a, b in todo:
                f = client.submit(piece.run_piece, args.transcode, os.path.abspath(j.source), j.work, k, a, b,
                                  args.transcode_args, gpu_map, resources={"GPU": 1}, retries=args.retries,
                                  pure=False, key=f"cdn-piece-{os.path.basename(j.work)}-{k}-{time.time_ns()}")
                futures[f] = (j, k)
            whole = []

            def take(done):
                for f in done:
                    j, k = futures.pop(f)
                    try:
                        r = f.result()
                    except Exception as e:  # the piece's last try, or its worker lost too often
                        fail_job(j, EXIT_FAILURE, f"{j.source}: {e}")
                        continue
                    finally:
                        # A result held for the client lives on its worker: were that worker
                        # lost later, Dask would run the piece again to remake it.
                        f.release()
                    if "uncuttable" in r:
                        if not j.whole:
                            whole.append(j)
                        else:
                            fail_job(j, EXIT_FAILURE, f"{j.source}: {r['uncuttable']}")
                        continue
                    if j.whole or j not in whole:
                        piece_done(j, k, r)

            take(as_completed(futures))
            # Inputs that cannot be cut: one piece each, the whole video, on one worker.
            whole = [j for j in dict.fromkeys(whole) if not j.failure]
            if whole:
                futures = {}
                for j in whole:
                    say(f"{j.source}: its frames cannot be found by their timestamps (its decoder reorders "
                        "them otherwise): denoised as one piece, on one worker")
                    j.clear()
                    j.make_whole()
                    j.manifests = [None]
                    j.kept["whole"] = True
                    with open(j.stamp, "w") as fh:
                        json.dump(j.kept, fh)
                    f = client.submit(piece.run_piece, args.transcode, os.path.abspath(j.source), j.work, 0, 0,
                                      j.index.frames, args.transcode_args, gpu_map, resources={"GPU": 1},
                                      retries=args.retries, pure=False,
                                      key=f"cdn-piece-{os.path.basename(j.work)}-whole-{time.time_ns()}")
                    futures[f] = (j, 0)
                take(as_completed(futures))
            progress.end()
            stats["retried"] = sum(max(0, piece.attempts(j.work, k) - 1) for j, k, _, _ in todo)
        stages["pieces"] = time.monotonic() - start - stages["cluster"]
        for j in jobs:
            if j.failure:  # its complete pieces stay for a rerun
                j.failure = (j.failure[0], j.failure[1] + " (the other pieces are kept: a rerun resumes)")
                continue
            try:
                assemble_job(args, j, say, client, stats)
            except assemble.AssembleError as e:
                fail_job(j, EXIT_OUTPUT, str(e))
            except RuntimeError as e:
                fail_job(j, EXIT_FAILURE, str(e))
    finally:
        progress.end()
        if client:
            client.close()
        if cluster:
            cluster.close()
    seconds = time.monotonic() - start
    frames = sum(j.index.frames for j in jobs)
    failed = unread + [{"input": j.source, "output": j.target, "code": j.failure[0], "error": j.failure[1]}
                       for j in jobs if j.failure]
    failed.sort(key=lambda f: args.input.index(f["input"]))  # in the command's order
    written = [j for j in jobs if not j.failure]
    return {"outputs": [j.target for j in jobs if not j.failure], "inputs": list(args.input),
            "pieces": sum(len(j.pieces) for j in jobs), "pieces_run": len(todo),
            "pieces_reused": sum(j.reused for j in jobs),
            "whole": [j.source for j in jobs if j.whole],
            "pieces_repaired": [[j.source, k] for j in jobs for k in j.repaired], "frames": frames, "frames_run": total_frames,
            "seconds": round(seconds, 3), "fps": round(total_frames / seconds, 2) if seconds > 0 else 0,
            "pieces_per_second": round(len(todo) / seconds, 4) if seconds > 0 else 0,
            "workers": args.local if args.local else None, "retried": stats["retried"], "hosts": sorted(stats["hosts"]),
            "verified": not failed, "failed": failed,
            "stages": {k: round(v, 3) for k, v in stages.items()}, "checks": stats["checks"],
            "decode_errors": sum(decode_errors(j) for j in written),
            "decode_errors_by_input": {j.source: decode_errors(j) for j in written if decode_errors(j)}}


def assemble_job(args, j, say, client=None, stats=None):
    extradata = {m["extradata_md5"] for m in j.manifests}
    if len(extradata) != 1:
        raise RuntimeError(f"{j.source}: the pieces were encoded with different stream headers; "
                           "they cannot be concatenated (were the encoder options changed?)")
    how = None
    for attempt in range(2):
        videos = [piece.piece_paths(j.work, k)[0] for k in range(len(j.pieces))]
        temp = assemble.temp_beside(j.target)
        try:
            try:
                began = time.monotonic()
                assemble.concat_and_mux(args.ffmpeg, j.index, j.manifests, videos, temp, j.work)
                joined = time.monotonic()
                problem, how = assemble.verify(args.ffmpeg, args.ffprobe, j.index, j.manifests, temp, j.whole,
                                               args.check)
                if stats is not None:
                    stats["stages"]["join"] += joined - began
                    stats["stages"]["verify"] += time.monotonic() - joined
                    stats["checks"][how] += 1
            except assemble.AssembleError as e:
                problem = str(e)
            if not problem:
                os.replace(temp, j.target)
                temp = None
                break
            # Pieces changed on disk since they were made (damaged, replaced) are made again, once.
            bad = [k for k in range(len(j.pieces))
                   if not assemble.piece_decodes_as(args.ffmpeg, videos[k], j.manifests[k])]
            if attempt == 1 or not bad:
                raise assemble.AssembleError(f"{j.target}: not written: {problem}")
            say(f"{j.source}: pieces {bad} do not decode as their manifests say (damaged?): running them again")
            j.repaired += bad
            for k in bad:
                a, b = j.pieces[k]
                for path in piece.piece_paths(j.work, k):
                    if os.path.exists(path):
                        os.remove(path)
                run_args = (args.transcode, os.path.abspath(j.source), j.work, k, a, b, args.transcode_args)
                if client:  # on a worker (its GPU), as the piece was made
                    r = client.submit(piece.run_piece, *run_args, resources={"GPU": 1}, pure=False).result()
                else:
                    r = piece.run_piece(*run_args)
                j.manifests[k] = r["manifest"]
        finally:
            if temp and os.path.exists(temp):
                os.remove(temp)
    if not args.keep_work:
        shutil.rmtree(j.work, ignore_errors=True)
    errors = decode_errors(j)
    if errors:
        say(f"{errors_text(errors)} (damaged packets or frames) in {j.source}: FFmpeg concealed them, the output "
            "shows it there")
    say(f"{j.target}: {j.index.frames} frames in {len(j.pieces)} pieces, verified"
        + (f" ({errors_text(errors)})" if errors else "")
        + ("; checked by its packets" if how == "packets" else "; checked by decoding it"))


def decode_errors(j):
    """The input's decode errors: its pieces' (each counts those in its own span)."""
    return sum(m["decode_errors"] for m in j.manifests)


def errors_text(n):
    return f"{n} decode error" + ("s" if n != 1 else "")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    want_json = "--json" in argv
    quiet = "-q" in argv or "--quiet" in argv

    def say(m):
        if not quiet:
            print(f"cudadenoise-farm: {m}", file=sys.stderr)

    def fail(code, message):
        print(f"cudadenoise-farm: {message}", file=sys.stderr)
        if want_json:
            print(json.dumps({"error": message, "code": code}))
        return code

    try:
        args = parse(argv)
        summary = run(args, say)
    except Usage as e:
        return fail(EXIT_USAGE, str(e))
    except probe.ProbeError as e:
        return fail(EXIT_INPUT, str(e))
    except assemble.AssembleError as e:
        return fail(EXIT_OUTPUT, str(e))
    except KeyboardInterrupt:
        return fail(EXIT_INTERRUPTED, "interrupted (the pieces done are kept: a rerun resumes)")
    except Exception as e:
        return fail(EXIT_FAILURE, str(e))
    failed = summary["failed"]
    if failed:
        # One input: its own code; several: the others were written.
        code = failed[0]["code"] if len(args.input) == 1 else EXIT_SOME_FAILED
        for f in failed:
            print(f"cudadenoise-farm: {f['error']}", file=sys.stderr)
        if len(args.input) > 1:
            print(f"cudadenoise-farm: {len(failed)} of {len(args.input)} inputs failed, "
                  f"{len(summary['outputs'])} written", file=sys.stderr)
        if args.json:
            summary["error"] = "; ".join(f["error"] for f in failed)
            summary["code"] = code
            print(json.dumps(summary))
        return code
    if args.json:
        print(json.dumps(summary))
    else:
        say(f"{summary['frames_run']} frames in {summary['seconds']:.2f} s ({summary['fps']} fps, "
            f"{summary['pieces_per_second']} pieces/s)"
            + (f" ({errors_text(summary['decode_errors'])})" if summary["decode_errors"] else ""))
        t = summary["stages"]
        say(f"time: reading the inputs {t['probe']:.1f} s, starting the cluster {t['cluster']:.1f} s, the pieces "
            f"{t['pieces']:.1f} s (their runs {t['tool']:.1f} s summed), joining {t['join']:.1f} s, "
            f"checking the output {t['verify']:.1f} s")
    return 0
