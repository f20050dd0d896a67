# gpu_peers.py: the public GPU denoisers beside cudadenoise (issue 17): BM3DCUDA
# and vs-nlm-cuda, run by their command-line drivers (../shared/peers/README.md:
# the peers' own kernel.cu, unmodified, called as their VapourSynth plugins call
# it), from the directory `report.py --gpu-peers DIR` names, at the profiles of
# config.GPU_PEER_ROWS, on the same noisy frames as the cudadenoise modes.
#
# The drivers take raw 8-bit luma (W x H bytes a frame, back to back): they get
# the luma plane of each noisy clip or photo (`cudadenoise-eval prepare --gray`),
# the whole clip (temporal profiles see the same neighbours as our temporal
# modes), and their output is measured, luma only, against the clean luma over
# the same frames as every other method. Their TIMING line gives 'kernel' (CUDA
# events around the device work: the GPU ms column) and 'e2e' (host-to-device
# copy, device work, copy back: the end-to-end column), medians over the frames
# after --warmup runs of frame 0; the report times them at the timing sigma only.
#
# Strength. BM3DCUDA: --sigma = 4/3 of the noise sigma (its kernel assumes noise
# 0.75 sigma; README "Parameter mapping"). vs-nlm-cuda: h in 8-bit code values
# with no documented mapping to sigma: each profile's h is the best of
# config.NLM_H_GRID x sigma for the mean luma PSNR over the first clips of the run
# (`calibrate`, at each sigma, in the same run): chosen on report content, which
# can only favour the peer.
import os
import re
import shutil

from . import config
from .env import HarnessError

TIMING_RE = re.compile(r'^TIMING peer=(\S+) pass=(\S+) .*')


def _timing(text):
    """{pass: {key: value}} of the drivers' TIMING lines."""
    out = {}
    for line in text.splitlines():
        m = TIMING_RE.match(line.strip())
        if m:
            fields = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
            out[m.group(2)] = {k: (float(v) if re.match(r'^-?[0-9.]+(e-?[0-9]+)?$', v) else v)
                               for k, v in fields.items()}
    return out


def y4m_frames(path):
    """(header line, frame payloads) of a GRAY8 y4m file."""
    with open(path, 'rb') as f:
        data = f.read()
    nl = data.index(b'\n')
    header = data[:nl + 1]
    fields = header.split()
    w = int(next(x for x in fields if x.startswith(b'W'))[1:])
    h = int(next(x for x in fields if x.startswith(b'H'))[1:])
    if not any(x == b'Cmono' for x in fields):
        raise HarnessError(f'{path}: not a GRAY8 y4m')
    frames, pos = [], nl + 1
    while pos < len(data):
        e = data.index(b'\n', pos)
        if not data[pos:e].startswith(b'FRAME'):
            raise HarnessError(f'{path}: no FRAME tag at byte {pos}')
        frames.append(data[e + 1:e + 1 + w * h])
        if len(frames[-1]) != w * h:
            raise HarnessError(f'{path}: truncated frame')
        pos = e + 1 + w * h
    return header, frames, w, h


def raw_to_y4m(raw, header, w, h, out):
    with open(raw, 'rb') as f:
        data = f.read()
    n = len(data) // (w * h)
    if n * w * h != len(data) or n == 0:
        raise HarnessError(f'{raw}: {len(data)} bytes is not a whole number of {w}x{h} frames')
    with open(out + '.part', 'wb') as f:
        f.write(header)
        for k in range(n):
            f.write(b'FRAME\n')
            f.write(data[k * w * h:(k + 1) * w * h])
    os.replace(out + '.part', out)
    return n


def _key_sigma(text):
    """table()'s 'key@sigma' back to (key, sigma)."""
    key, sigma = text.rsplit('@', 1)
    return key, int(sigma)


class GpuPeers:
    def __init__(self, env, bin_dir, skip, say):
        self.env, self.say = env, say
        self.dir = os.path.abspath(bin_dir)
        self.rows = [r for r in config.GPU_PEER_ROWS if r.key not in skip]
        missing = sorted({r.binary for r in self.rows if not os.access(os.path.join(self.dir, r.binary), os.X_OK)})
        if missing:
            raise HarnessError(f"--gpu-peers {bin_dir}: no {', '.join(missing)} there (../shared/peers/build.sh)")
        self.h = {}          # (row key, sigma) -> h (vs-nlm-cuda)
        self.sweeps = {}     # (row key, sigma) -> [[h, mean PSNR Y], ...]
        self.calibration_clips = []
        self.version = {}
        info = os.path.join(self.dir, 'BUILDINFO')
        self.buildinfo = open(info).read().strip() if os.path.isfile(info) else ''

    # ------------------------------------------------------------ files
    def _gray(self, y4m, out):
        if not os.path.exists(out):
            self.env.eval_json(['prepare', '--input', y4m, '--gray', '--clean-out', out], 'luma')
        return out

    def _raw(self, gray_y4m):
        raw = gray_y4m[:-4] + '.y'
        if not os.path.exists(raw):
            header, frames, w, h = y4m_frames(gray_y4m)
            with open(raw + '.part', 'wb') as f:
                for fr in frames:
                    f.write(fr)
            os.replace(raw + '.part', raw)
        return raw

    def _args(self, row, sigma, h=None):
        if row.strength == 'bm3d-sigma':
            return list(row.args) + ['--sigma', f'{config.BM3DCUDA_SIGMA_FACTOR * sigma:.4f}']
        return list(row.args) + ['--h', f'{h:.4f}']

    def _run(self, row, args, raw, out_raw, w, h, warmup):
        cmd = [os.path.join(self.dir, row.binary), '--input', raw, '--output', out_raw, '--width', str(w),
               '--height', str(h), '--warmup', str(warmup)] + args
        text = self.env.run(cmd, row.label)
        t = _timing(text)
        return t.get('total') or t.get('nlmeans') or (next(iter(t.values())) if t else {})

    def _measure_luma(self, clean_gray, frames, outs):
        args = ['measure', '--clean', clean_gray] + (['--frames', frames] if frames else [])
        return self.env.eval_json(args + outs, 'measure')

    # ------------------------------------------------------------ calibration
    def calibrate(self, contents, sigmas, noisy_files):
        """vs-nlm-cuda's h per profile and sigma: the best mean luma PSNR over `contents` (clips)."""
        nlm = [r for r in self.rows if r.strength == 'nlm-h']
        if not nlm or not contents:
            return
        self.calibration_clips = [c.id for c in contents]
        for s in sigmas:
            scores = {}
            for c in contents:
                files = noisy_files(c, f's{s}', s)
                d = os.path.join(files['dir'], 'gpu-peers')
                os.makedirs(d, exist_ok=True)
                noisy = self._gray(files['noisy'], os.path.join(d, 'noisy-gray.y4m'))
                raw = self._raw(noisy)
                clean = self._gray(c.clean, os.path.join(os.path.dirname(c.clean), 'clean-gray.y4m'))
                frames = f'{c.eval_start}-{c.eval_start + c.eval_count - 1}'
                header, _, w, h = y4m_frames(noisy)
                for row in nlm:
                    outs = []
                    for k in config.NLM_H_GRID:
                        out_raw = os.path.join(d, f'cal-{row.key}-{k:g}.y')
                        self._run(row, self._args(row, s, k * s), raw, out_raw, w, h, 1)
                        outs.append(os.path.join(d, f'cal-{row.key}-{k:g}.y4m'))
                        raw_to_y4m(out_raw, header, w, h, outs[-1])
                        os.remove(out_raw)
                    for k, q in zip(config.NLM_H_GRID, self._measure_luma(clean, frames, outs)):
                        scores.setdefault((row.key, k), []).append(q['planes'][0]['psnr'])
                    for o in outs:
                        os.remove(o)
            for row in nlm:
                sweep = [[k, sum(scores[(row.key, k)]) / len(scores[(row.key, k)])] for k in config.NLM_H_GRID]
                best = max(sweep, key=lambda x: x[1])
                self.h[(row.key, s)] = best[0] * s
                self.sweeps[(row.key, s)] = [[round(k * s, 4), round(q, 4)] for k, q in sweep]
                edge = ' (at the edge of the grid)' if best[0] in (config.NLM_H_GRID[0], config.NLM_H_GRID[-1]) else ''
                self.say(f'  {row.label} sigma {s}: h = {best[0]:g} sigma = {best[0] * s:.3g}, mean PSNR Y '
                         f'{best[1]:.3f} dB over {len(contents)} clip(s){edge}')

    def restore(self, table):
        """The h of an earlier run's table() (report.py --resume): the same choice without sweeping again."""
        self.calibration_clips = list(table.get('clips', []))
        self.h.update({_key_sigma(ks): float(h) for ks, h in table.get('h', {}).items()})
        self.sweeps.update({_key_sigma(ks): sweep for ks, sweep in table.get('sweeps', {}).items()})

    def h_for(self, row, sigma):
        if (row.key, sigma) in self.h:
            return self.h[(row.key, sigma)]
        # a level the calibration did not cover (photos only run the calibrated ones): the nearest level's
        # multiple of sigma
        levels = sorted({s for k, s in self.h if k == row.key})
        if not levels:
            return 0.7 * sigma
        near = min(levels, key=lambda s: abs(s - sigma))
        return self.h[(row.key, near)] / near * sigma

    def table(self):
        """For results.json: the h chosen per profile and sigma, with the sweeps."""
        return {'clips': self.calibration_clips, 'grid': list(config.NLM_H_GRID), 'dir': self.dir,
                'buildinfo': self.buildinfo,
                'h': {f'{k}@{s}': round(v, 4) for (k, s), v in self.h.items()},
                'sweeps': {f'{k}@{s}': v for (k, s), v in self.sweeps.items()}}

    # ------------------------------------------------------------ the report's runs
    def run_all(self, c, cond, sigma, files, runs, measure_target, timing):
        d = os.path.join(files['dir'], 'gpu-peers')
        os.makedirs(d, exist_ok=True)
        noisy = self._gray(files['noisy'], os.path.join(d, 'noisy-gray.y4m'))
        raw = self._raw(noisy)
        header, frames, w, h = y4m_frames(noisy)
        clean_gray = self._gray(c.clean, os.path.join(os.path.dirname(c.clean), 'clean-gray.y4m'))
        _, frame_list = measure_target(c, True)
        new = []
        for row in self.rows:
            hv = self.h_for(row, sigma) if row.strength == 'nlm-h' else None
            out_raw = os.path.join(d, row.key + '.y')
            out = os.path.join(d, row.key + '.y4m')
            t = self._run(row, self._args(row, sigma, hv), raw, out_raw, w, h, 3 if timing else 1)
            n = raw_to_y4m(out_raw, header, w, h, out)
            os.remove(out_raw)
            if n != len(frames):
                raise HarnessError(f'{row.label}: {n} frames out for {len(frames)} in')
            settings = ' '.join(self._args(row, sigma, hv)) + (
                f' (sigma {sigma:g} x 4/3)' if row.strength == 'bm3d-sigma' else
                f' (h = {hv / sigma:.3g} sigma, the best of the sweep)')
            run = {'id': f'{row.key}:cuda', 'method': row.key, 'label': row.label, 'family': 'GPU peers',
                   'backend': 'cuda', 'kind': 'temporal' if row.reach else 'spatial', 'output': out, 'whole': True,
                   'clean': clean_gray, 'frames': frame_list, 'luma_only': True,
                   'device_ms': t.get('kernel_ms_median') if timing else None,
                   'e2e_ms': t.get('e2e_ms_median') if timing else None,
                   'host_ms': t.get('host_ms_median') if timing else None,
                   'samples': int(t.get('frames', 0) or 0), 'threads': None, 'settings': settings,
                   'params': {'args': self._args(row, sigma, hv)}}
            runs.append(run)
            new.append(run)
            if timing:
                self.say(f"  {c.id} {cond}: {row.label}: kernel {run['device_ms']} ms, end to end {run['e2e_ms']} ms")
        return new


def find_dir(root, given):
    """--gpu-peers: a directory, or 'auto' (.peers/bin of the checkout, when there)."""
    if given == 'auto':
        d = os.path.join(root, '.peers', 'bin')
        return d if os.path.isdir(d) and shutil.which('nvidia-smi') else None
    return given
