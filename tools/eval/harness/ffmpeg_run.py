# ffmpeg_run.py: runs an FFmpeg filter graph on a y4m clip and times it per frame.
#
# FFmpeg 5.1 decodes, filters and muxes one frame after another in one loop, so
# the interval between two frames arriving on its output pipe is the time it
# took to make the second one (y4m parsing and muxing are copies, small against
# any of the filters). The first frame's interval is the warm-up (start-up,
# allocation, thread pool, the filters' delay) and is not counted; the time per
# frame is the median of the others. The output is written, unchanged, to a
# y4m file. -flush_packets 1 hands each frame to the pipe as soon as it is muxed.
#
# A filter that does not take the clip's pixel format makes FFmpeg insert a
# conversion (auto_scale) before it, and the filter would not see our samples:
# the log is read (verbose) and such a run raises NeedsConversion.
import os
import subprocess
import tempfile
import threading
import time

from .env import HarnessError


class NeedsConversion(HarnessError):
    pass


def _median(v):
    v = sorted(v)
    n = len(v)
    return None if n == 0 else (v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2]))


def frame_bytes(width, height, fmt):
    luma = width * height
    if fmt == 'GRAY8':
        return luma
    if fmt == 'I420':
        return luma + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    if fmt == 'Y444':
        return 3 * luma
    raise HarnessError('unsupported format ' + fmt)


def pix_fmt(fmt):
    return {'GRAY8': 'gray', 'I420': 'yuv420p', 'Y444': 'yuv444p'}[fmt]


def run_filter(env, graph, src, dst, width, height, fmt, frames, threads, complex_graph=False, timeout=1800):
    """Filters src (y4m) into dst (y4m); returns (ms per frame or None, samples). A run that takes more
    than `timeout` seconds is killed (FFmpeg 5.1's atadenoise never ends on a one-frame input)."""
    size = frame_bytes(width, height, fmt)
    thread_opts = ['-filter_complex_threads' if complex_graph else '-filter_threads', str(threads)]
    cmd = [env.ffmpeg, '-hide_banner', '-nostdin', '-loglevel', 'verbose', '-threads', '1', '-i', src] + thread_opts
    cmd += (['-filter_complex', graph] if complex_graph else ['-vf', graph])
    cmd += ['-pix_fmt', pix_fmt(fmt), '-fps_mode', 'passthrough', '-flush_packets', '1', '-strict', '-1',
            '-f', 'yuv4mpegpipe', 'pipe:1']
    log = tempfile.TemporaryFile()
    p = subprocess.Popen(cmd, env=env.env, stdout=subprocess.PIPE, stderr=log)
    watchdog = threading.Timer(timeout, p.kill)
    watchdog.start()
    arrivals = []
    tmp = dst + '.part'

    def log_text():
        log.seek(0)
        return log.read().decode(errors='replace')

    try:
        with open(tmp, 'wb') as out:
            header = p.stdout.readline()
            if not header.startswith(b'YUV4MPEG2'):
                p.wait()
                raise HarnessError('ffmpeg gave no y4m stream: ' + ' '.join(cmd) + '\n' + log_text()[-2000:])
            out.write(header)
            while True:
                tag = p.stdout.readline()
                if not tag:
                    break
                data = p.stdout.read(size)
                if not tag.startswith(b'FRAME') or len(data) != size:
                    raise HarnessError('ffmpeg gave a truncated frame: ' + ' '.join(cmd))
                arrivals.append(time.perf_counter())
                out.write(tag)
                out.write(data)
        if p.wait() != 0:
            raise HarnessError(f'ffmpeg failed (exit {p.returncode}): {" ".join(cmd)}\n{log_text()[-2000:]}')
        if "auto-inserting filter 'auto_scale" in log_text():
            os.remove(tmp)
            raise NeedsConversion(f'{graph.split("=")[0]} does not take {fmt} frames')
    finally:
        watchdog.cancel()
        if p.poll() is None:
            p.kill()
            p.wait()
        log.close()
    if len(arrivals) != frames:
        raise HarnessError(f'ffmpeg gave {len(arrivals)} frames for {frames}: {" ".join(cmd)}')
    os.replace(tmp, dst)
    intervals = [1000.0 * (b - a) for a, b in zip(arrivals, arrivals[1:])]
    return _median(intervals), len(intervals)
