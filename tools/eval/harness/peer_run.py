# peer_run.py: runs one peer on one y4m input (FFmpeg filter graph or the OpenCV
# helper) and returns its time per frame. A filter that does not take gray
# frames (hqdn3d) gets them as I420 with the same luma and neutral chroma, and
# its output's luma is kept: the luma it filters is ours, bit for bit (the
# chroma planes it also filters are constant; their cost is in its time).
import json
import os

from .ffmpeg_run import NeedsConversion, run_filter


def _median(v):
    v = sorted(v)
    n = len(v)
    return None if n == 0 else (v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2]))


class PeerRunner:
    def __init__(self, env):
        self.env = env
        self.wrap = set()   # (peer key, format) that need the I420 wrapping
        self.notes = {}     # peer key -> what was done to its input

    def run(self, peer, p, kind, src, out, width, height, fmt, frames):
        """Returns (ms per frame or None, samples, threads)."""
        env = self.env
        if peer.opencv_args:
            r = env.run([env.opencv, '--input', src, '-o', out, '--threads', str(env.threads)] + peer.opencv_args(p),
                        peer.label)
            r = json.loads(r.strip().splitlines()[-1])
            per_frame = r['ms'][1:]   # the first frame is the warm-up
            if peer.kind == 'temporal' and kind == 'clip':   # frames whose window the input's ends cut
                per_frame = r['ms'][max(1, peer.reach):len(r['ms']) - peer.reach]
            return _median(per_frame), len(per_frame), r['threads']
        if (peer.key, fmt) not in self.wrap:
            try:
                ms, n = run_filter(env, peer.graph(p, kind), src, out, width, height, fmt, frames, env.threads,
                                   peer.complex_graph)
                return ms, n, env.threads
            except NeedsConversion:
                if fmt != 'GRAY8':
                    raise
                self.wrap.add((peer.key, fmt))
                self.notes[peer.key] = 'takes no gray frames: given I420 with the same luma and chroma 128'
        wrapped_in, wrapped_out = out + '.in420.y4m', out + '.out420.y4m'
        env.eval_json(['prepare', '--input', src, '--as-i420', '--clean-out', wrapped_in], 'to I420')
        ms, n = run_filter(env, peer.graph(p, kind), wrapped_in, wrapped_out, width, height, 'I420', frames, env.threads,
                           peer.complex_graph)
        env.eval_json(['prepare', '--input', wrapped_out, '--gray', '--clean-out', out], 'luma')
        os.remove(wrapped_in)
        os.remove(wrapped_out)
        return ms, n, env.threads
