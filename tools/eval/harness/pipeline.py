# pipeline.py: one run of the report: every method on every condition (content x
# noise level, plus the clips as they are), outputs measured against the clean
# frames, timings kept at TIMING_SIGMA. Returns plain dicts (saved as
# results.json) that markdown.py and figures.py turn into the report.
#
# Who gets which frames (identical samples for every method):
# - photos: the one noisy frame. FFmpeg and OpenCV per-frame peers get, at the
#   timing sigma, a stream of K copies with their own noise (frame 0 is the
#   measured one; the others only time them); cudadenoise times itself in process.
#   Temporal methods that look ahead (atadenoise, OpenCV multi) have nothing to
#   look at in a photo and are not run; nlm3d runs as a one-frame stream.
# - clips: temporal and causal methods get all T frames, per-frame methods the E
#   measured frames only (their output is the same), all measured on those E.
import os
import re
import time

from . import config, peers
from .content import Content
from .env import Env, HarnessError
from .ffmpeg_run import run_filter
from .gpu_peers import GpuPeers
from .peer_run import PeerRunner


# The CPU peers of the defaults table (issue 16: the default must beat hqdn3d at its best strength),
# run also at config.DEFAULTS_SIGMAS, on the clips as they are and on the compressed clips.
DEFAULTS_PEERS = ('hqdn3d', 'nlmeans')


def _median(v):
    v = sorted(x for x in v if x is not None)
    n = len(v)
    return None if n == 0 else (v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2]))


class Progress:
    def __init__(self):
        self.t0 = time.monotonic()

    def __call__(self, msg):
        print(f'[{time.monotonic() - self.t0:7.1f}s] {msg}', flush=True)


class Pipeline:
    def __init__(self, env: Env, preset, info, work, params, say=None, skip=(), gpu_peers_dir=None):
        self.env, self.preset, self.info, self.work, self.params = env, preset, info, work, params
        self.skip = set(skip)   # peer keys, mode names, MODE:BACKEND, variants (TAG, MODE-TAG, MODE-TAG:BACKEND), or 'cpu'
        self.say = say or Progress()
        self.gpu = bool(info.get('cuda_available'))
        self.primary = 'cuda' if self.gpu else 'cpu'
        self.modes = info['modes']
        self.peer_runner = PeerRunner(env)
        self.skipped_rows = {}   # (mode, tag) -> why a row of config.ROWS did not run
        self.failed = {}         # method:backend -> ['content cond: error', ...] (runs that failed)
        help_text = env.run([env.eval, 'denoise', '--help'], 'denoise --help')
        self.denoise_flags = set(re.findall(r'(--[a-z0-9][a-z0-9-]*)', help_text))
        self.gpu_peers = GpuPeers(env, gpu_peers_dir, self.skip, self.say) if gpu_peers_dir else None

    # ---------------------------------------------------------------- inputs
    def _noisy(self, c: Content, cond, sigma):
        d = os.path.join(os.path.dirname(c.clean), cond)
        os.makedirs(d, exist_ok=True)
        f = {'dir': d, 'noisy': os.path.join(d, 'noisy.y4m')}
        seed = str(config.seed_base(sigma or 0))
        self.env.eval_json(['prepare', '--input', c.degraded or c.clean, '--sigma', str(sigma or 0), '--seed-base',
                            seed, '--noisy-out', f['noisy']], 'noise')
        if c.kind == 'still' and sigma == config.TIMING_SIGMA:
            f['timing'] = os.path.join(d, 'noisy-k.y4m')
            self.env.eval_json(['prepare', '--input', c.clean, '--loop', '--frames', str(self.preset.still_timing_frames),
                                '--sigma', str(sigma), '--seed-base', seed, '--noisy-out', f['timing']], 'noise')
        if c.kind == 'clip':
            f['eval'] = os.path.join(d, 'noisy-eval.y4m')
            self.env.eval_json(['prepare', '--input', f['noisy'], '--start', str(c.eval_start), '--frames',
                                str(c.eval_count), '--clean-out', f['eval']], 'eval frames')
        return f

    def _window(self, files, c, a, b):
        path = os.path.join(files['dir'], f'noisy-{a}-{b}.y4m')
        if not os.path.exists(path):
            self.env.eval_json(['prepare', '--input', files['noisy'], '--start', str(a), '--frames', str(b - a),
                                '--clean-out', path], 'window')
        return path

    def _measure_target(self, c: Content, whole_clip):
        """(clean file, frame list) an output is measured against."""
        if c.kind == 'still':
            return c.clean, '0'
        if whole_clip:
            return c.clean, f'{c.eval_start}-{c.eval_start + c.eval_count - 1}'
        return c.clean_eval, ''

    # ---------------------------------------------------------------- cudadenoise
    def _row_usable(self, row):
        """A row of config.ROWS this build can run: its mode exists and `denoise` knows its flags (rows
        written for other branches are skipped with a message, once)."""
        why = None
        if row.mode not in {m['name'] for m in self.modes}:
            why = f"mode '{row.mode}' is not in this build ({', '.join(m['name'] for m in self.modes)})"
        else:
            unknown = [f for f in row.all_flags[::2] if f not in self.denoise_flags]
            if unknown:
                why = f"`cudadenoise-eval denoise` does not know {', '.join(unknown)}"
        if why and (row.mode, row.tag) not in self.skipped_rows:
            self.skipped_rows[(row.mode, row.tag)] = why
            self.say(f'row {row.mode}-{row.tag} skipped: {why}')
        return why is None

    def _ours(self, c, cond, sigma, files, backend, runs, defaults_only=False):
        timing = cond == f's{config.TIMING_SIGMA}'
        gpu = backend == 'cuda'
        warm = self.preset.gpu_warmup if gpu else self.preset.cpu_warmup
        rep = self.preset.gpu_repeat if gpu else self.preset.cpu_repeat
        if backend == 'cpu' and self.gpu and 'cpu' in self.skip:
            return
        temporal = {m['name']: m['temporal'] for m in self.modes}

        def wanted(mode, method):
            if mode in self.skip or f'{mode}:{backend}' in self.skip or method in self.skip or \
                    f'{method}:{backend}' in self.skip:
                return False
            return not (temporal[mode] and c.kind == 'clip' and not gpu and not self.preset.cpu_temporal_clips)

        # (kind, modes, tag, flags, settings text): every mode's defaults, then the rows of config.ROWS,
        # one `denoise` call per kind and setting (the modes that share it in one process).
        calls = {}
        for m in self.modes:
            if wanted(m['name'], m['name']):
                kind = 'temporal' if m['temporal'] else 'frame'
                calls.setdefault((kind, '', ()), ('', []))[1].append(m['name'])
        for row in config.ROWS:
            if (defaults_only and not row.defaults) or not self._row_usable(row) or row.tag in self.skip:
                continue
            if wanted(row.mode, f'{row.mode}-{row.tag}'):
                kind = 'temporal' if temporal[row.mode] else 'frame'
                calls.setdefault((kind, row.tag, row.all_flags), (row.text, []))[1].append(row.mode)
        out_dir = os.path.join(files['dir'], 'out')
        os.makedirs(out_dir, exist_ok=True)
        for (kind, tag, flags), (text, names) in calls.items():
            whole = c.kind == 'still' or kind == 'temporal'
            src = files['noisy'] if whole else files['eval']
            args = ['denoise', '--input', src, '--out-dir', out_dir, '--modes', ','.join(names), '--backends', backend,
                    '--noise-sigma', f'{sigma or 0:.4f}', '--warmup', str(warm), '--repeat', str(rep)]
            if tag:
                args += ['--tag', tag] + list(flags)
            if not gpu:
                args += ['--max-seconds', str(self.preset.cpu_max_seconds)]
            if not timing:   # quality only: one pass
                args[args.index('--warmup') + 1], args[args.index('--repeat') + 1] = '0', '1'
            elif kind == 'temporal':
                if gpu and c.kind == 'clip':
                    args += ['--timing-frames', str(self.preset.temporal_timing_frames)]
                    args[args.index('--warmup') + 1] = '1'
                    args[args.index('--repeat') + 1] = str(self.preset.temporal_repeat)
                elif not gpu:
                    args[args.index('--warmup') + 1], args[args.index('--repeat') + 1] = '0', '1'
            for r in self._denoise(args, names, backend, tag, c, cond):
                clean, frames = self._measure_target(c, whole)
                method = f"{r['mode']}-{tag}" if tag else r['mode']
                runs.append({
                    'id': f"{method}:{r['backend']}", 'method': method, 'mode': r['mode'], 'tag': tag,
                    'label': f"{r['mode']} {tag}" if tag else r['mode'],
                    'family': 'cudadenoise GPU' if r['backend'] == 'cuda' else 'cudadenoise CPU',
                    'backend': r['backend'], 'kind': 'temporal' if r['temporal'] else 'spatial',
                    'output': r['output'], 'whole': whole, 'clean': clean, 'frames': frames,
                    'device_ms': r.get('device_ms') if timing else None, 'e2e_ms': r['e2e_ms'] if timing else None,
                    'samples': r['e2e_samples'], 'timing_frames': r.get('timing_frames', 1),
                    'threads': r['threads'] or None, 'defaults_row': not tag or any(
                        x.defaults for x in config.ROWS if x.mode == r['mode'] and x.tag == tag),
                    'settings': (text or 'defaults') + (f", sigma {r['sigma_given']:.3g}" if r['sigma_given']
                                                        else ', sigma auto' if self._takes_sigma(r['mode']) else ''),
                })
                if timing:
                    dev = f", GPU {r['device_ms']:.3f} ms" if r.get('device_ms') is not None else ''
                    self.say(f"  {c.id} {cond}: {method} {r['backend']}: {r['e2e_ms']:.3f} ms/frame end to end{dev}")

    def _denoise(self, args, names, backend, tag, c, cond):
        """The JSON lines of one `denoise` call; a call that fails is retried mode by mode, and a mode that
        still fails is left out of this condition with its error (self.failed, listed in RESULTS.md), so one
        broken mode does not lose the report."""
        try:
            out = self.env.eval_json(args, f'cudadenoise {",".join(names)} on {backend}')
            bad = [r for r in out if 'error' in r]
            if bad:
                raise HarnessError('; '.join(f"{r['mode']} on {backend}: {r['error']}" for r in bad))
            return out
        except HarnessError as e:
            if len(names) > 1:
                rs = []
                for n in names:
                    one = list(args)
                    one[one.index('--modes') + 1] = n
                    rs += self._denoise(one, [n], backend, tag, c, cond)
                return rs
            method = f'{names[0]}-{tag}' if tag else names[0]
            why = str(e).strip().splitlines()[-1][:300]
            self.failed.setdefault(f'{method}:{backend}', []).append(f'{c.id} {cond}: {why}')
            self.say(f'  {c.id} {cond}: {method} on {backend} FAILED, left out: {why}')
            return []

    def _takes_sigma(self, mode):
        return any(m['name'] == mode and m.get('takes_sigma') for m in self.modes)

    # ---------------------------------------------------------------- peers
    def _peer(self, c, cond, sigma, files, peer, runs):
        if (c.kind == 'still' and not peer.on_stills) or peer.key in self.skip:
            return
        p = peers.params_for(self.params, peer, c.kind, sigma)
        # photos: the one frame (or the timing stream); clips: causal peers the whole clip (their recursion
        # starts at its first frame), temporal ones the measured frames and `reach` frames on each side,
        # per-frame ones the measured frames. Outputs other than whole-clip ones hold the measured frames.
        whole = c.kind == 'still' or peer.kind == 'causal'
        out = os.path.join(files['dir'], 'out', peer.key + '.y4m')
        window = None
        if c.kind == 'still':
            src = files.get('timing', files['noisy'])
            nframes = self.preset.still_timing_frames if 'timing' in files else 1
        elif whole:
            src, nframes = files['noisy'], c.frames
        elif peer.kind == 'temporal':
            a = max(0, c.eval_start - peer.reach)
            b = min(c.frames, c.eval_start + c.eval_count + peer.reach)
            src, nframes, window = self._window(files, c, a, b), b - a, (a, out)
            out = out[:-4] + '-window.y4m'
        else:
            src, nframes = files['eval'], c.eval_count
        if peer.opencv_args and not self.env.opencv:
            self.say(f'  {c.id} {cond}: {peer.label}: skipped (cudadenoise-eval-opencv was not built)')
            return
        t0 = time.monotonic()
        ms, samples, threads = self.peer_runner.run(peer, p, c.kind, src, out, c.width, c.height, c.format, nframes)
        if window:   # keep the measured frames
            a, final = window
            self.env.eval_json(['prepare', '--input', out, '--start', str(c.eval_start - a), '--frames',
                                str(c.eval_count), '--clean-out', final], 'eval frames')
            out = final
        clean, frames = self._measure_target(c, whole)
        runs.append({'id': f'{peer.key}:cpu', 'method': peer.key, 'label': peer.label, 'family': peer.family,
                     'backend': 'cpu', 'kind': peer.kind, 'output': out, 'whole': whole, 'clean': clean,
                     'frames': frames,
                     'device_ms': None, 'e2e_ms': ms, 'samples': samples, 'threads': threads,
                     'settings': peer.describe(p, c.kind), 'params': p,
                     'note': self.peer_runner.notes.get(peer.key) if (peer.key, c.format) in self.peer_runner.wrap
                     else None})
        tm = f'{ms:.1f} ms/frame' if ms is not None else 'untimed'
        self.say(f'  {c.id} {cond}: {peer.label}: {tm} ({time.monotonic() - t0:.1f} s)')

    # ---------------------------------------------------------------- one condition
    def condition(self, c: Content, cond, sigma, defaults_only=False):
        """cond: 's10', 's20', 's40' (AWGN of that sigma), 's2', 's5' (defaults_only: the defaults table's rows
        and peers alone) or 'asis' (the clip as it is, or a compressed clip: cudadenoise with auto sigma, the
        peers with `sigma`, the estimate; measured against the input, or the compressed clip's source)."""
        asis = cond == 'asis'
        files = self._noisy(c, cond, 0 if asis else sigma)
        runs = []
        self._ours(c, cond, None if asis else sigma, files, self.primary, runs, defaults_only or asis)
        if self.gpu and cond == f's{config.TIMING_SIGMA}':
            self._ours(c, cond, sigma, files, 'cpu', runs)
        for peer in peers.PEERS:
            if (defaults_only or asis) and peer.key not in DEFAULTS_PEERS:
                continue
            self._peer(c, cond, sigma, files, peer, runs)
        if self.gpu_peers and not defaults_only and not asis:
            self.gpu_peers.run_all(c, cond, sigma, files, runs, self._measure_target, cond == f's{config.TIMING_SIGMA}')
        result = {'condition': cond, 'sigma': sigma, 'runs': runs, 'defaults_only': defaults_only}
        if cond == f's{config.TIMING_SIGMA}':
            # what FFmpeg's own reading and writing of a frame costs: a null filter on the same input
            src = files.get('timing', files['noisy'])
            n = self.preset.still_timing_frames if c.kind == 'still' else c.frames
            null_out = os.path.join(files['dir'], 'null.y4m')
            result['ffmpeg_null_ms'] = run_filter(self.env, 'null', src, null_out, c.width, c.height, c.format, n,
                                                  self.env.threads)[0]
            os.remove(null_out)
        self._measure(c, files, None if asis else sigma, result)
        result['files'] = files
        return result

    def _measure(self, c, files, sigma, result):
        clean, frames = self._measure_target(c, True)
        args = ['measure', '--clean', clean] + (['--sigma', str(sigma)] if sigma is not None else []) + \
            (['--frames', frames] if frames else [])
        noisy = self.env.eval_json(args + [files['noisy']], 'measure noisy')[0]
        result['noisy'] = noisy
        by_target = {}
        for r in result['runs']:
            by_target.setdefault((r['clean'], r['frames']), []).append(r)
        for (clean, frames), rs in by_target.items():
            args = ['measure', '--clean', clean] + (['--frames', frames] if frames else [])
            for r, q in zip(rs, self.env.eval_json(args + [r['output'] for r in rs], 'measure')):
                r['quality'] = {'planes': q['planes'], 'all': q['all'], 'frames': q['frames']}

    def estimate_sigma(self, c: Content):
        frame = c.eval_start if c.kind == 'clip' else 0
        return self.env.eval_json(['estimate', '--input', c.clean, '--frame', str(frame)], 'estimate')[0]['sigma_luma']
