# calibrate.py: `report.py --calibrate`: the strength of each peer at each noise
# level, chosen so that no peer is handicapped by a guessed setting.
#
# None of the peers documents how its strength maps to the noise sigma, so each
# knob is swept (peers.Knob.grid, multiples of sigma, widened while the best
# value sits at an edge, then refined at the geometric midpoints around the best;
# two knobs by coordinate search, twice) and the value
# with the best mean luma PSNR is kept, per sigma and per kind of content. The
# sweep runs on held-out content that the report never shows: luma crops of the
# photos brick, coffee and chelsea, and a luma crop of the clip box.mp4 (or a pan
# across coffee.png without it). Quality only (deterministic), so it can run on
# any machine; the result, with the sweeps, goes to tools/eval/peer_params.json.
import datetime
import json
import os

from . import config, peers
from .content import Content
from .env import Env, HarnessError
from .peer_run import PeerRunner

STILLS = (('brick', '192x192+160+160'), ('coffee', '192x192+204+104'), ('chelsea', '192x192+130+54'))
CLIP = ('box.mp4', 100, '256x192+192+144')   # file, first frame, crop
CLIP_FRAMES, CLIP_EVAL = 12, 4


def _stills(env, data, work):
    out = []
    for name, crop in STILLS:
        clean = os.path.join(work, f'cal-{name}.y4m')
        env.eval_json(['prepare', '--input', os.path.join(data, name + '.png'), '--crop', crop, '--gray',
                       '--clean-out', clean], 'prepare')
        out.append(Content(name, 'still', name, '', clean, 192, 192, 'GRAY8', 'full'))
    return out


def _clip(env, data, work):
    src = os.path.join(data, 'video', CLIP[0])
    decoded = os.path.join(work, 'cal-clip-src.y4m')
    if os.path.isfile(src):
        cmd = [env.ffmpeg, '-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', src, '-vf',
               f'trim=start_frame={CLIP[1]}:end_frame={CLIP[1] + CLIP_FRAMES},setpts=PTS-STARTPTS', '-pix_fmt',
               'yuv420p', '-fps_mode', 'passthrough', '-f', 'yuv4mpegpipe', decoded]
        env.run(cmd, 'decoding ' + src)
        desc = f'{CLIP[0]} frames {CLIP[1]}-{CLIP[1] + CLIP_FRAMES - 1}, luma {CLIP[2]}'
    else:
        env.eval_json(['pan', '--photo', os.path.join(data, 'coffee.png'), '--size', '256x192', '--frames',
                       str(CLIP_FRAMES), '--start', '100,60', '-o', decoded], 'pan')
        desc = 'a 256x192 pan across coffee.png (box.mp4 not found), luma'
    clean = os.path.join(work, 'cal-clip.y4m')
    args = ['prepare', '--input', decoded, '--gray', '--clean-out', clean]
    if os.path.isfile(src):
        args += ['--crop', CLIP[2]]
    env.eval_json(args, 'prepare')
    c = Content('clip', 'clip', 'clip', desc, clean, 256, 192, 'GRAY8', 'limited', frames=CLIP_FRAMES)
    c.eval_start, c.eval_count = (CLIP_FRAMES - CLIP_EVAL) // 2, CLIP_EVAL
    c.clean_eval = os.path.join(work, 'cal-clip-eval.y4m')
    env.eval_json(['prepare', '--input', clean, '--start', str(c.eval_start), '--frames', str(CLIP_EVAL),
                   '--clean-out', c.clean_eval], 'prepare')
    return c, desc


class Evaluator:
    def __init__(self, env, work):
        self.env, self.work, self.noisy = env, work, {}
        self.runner = PeerRunner(env)

    def noisy_files(self, c, sigma):
        key = (c.id, sigma)
        if key not in self.noisy:
            n = os.path.join(self.work, f'cal-{c.id}-s{sigma}.y4m')
            self.env.eval_json(['prepare', '--input', c.clean, '--sigma', str(sigma), '--seed-base',
                                str(config.seed_base(sigma)), '--noisy-out', n], 'noise')
            e = None
            if c.kind == 'clip':
                e = os.path.join(self.work, f'cal-{c.id}-s{sigma}-eval.y4m')
                self.env.eval_json(['prepare', '--input', n, '--start', str(c.eval_start), '--frames',
                                    str(c.eval_count), '--clean-out', e], 'eval frames')
            self.noisy[key] = (n, e)
        return self.noisy[key]

    def psnr(self, peer, p, contents, sigma):
        """Mean luma PSNR of `peer` with knob values `p` over the contents."""
        total = 0.0
        for c in contents:
            noisy, noisy_eval = self.noisy_files(c, sigma)
            whole = c.kind == 'still' or peer.kind != 'spatial'
            src = noisy if whole else noisy_eval
            n = c.frames if whole else c.eval_count
            out = os.path.join(self.work, 'cal-out.y4m')
            self.runner.run(peer, p, c.kind, src, out, c.width, c.height, c.format, n)
            args = ['measure', '--clean', c.clean if whole else c.clean_eval]
            if c.kind == 'clip' and whole:
                args += ['--frames', f'{c.eval_start}-{c.eval_start + c.eval_count - 1}']
            total += self.env.eval_json(args + [out], 'measure')[0]['planes'][0]['psnr']
        return total / len(contents)


def _sweep_knob(ev, peer, knob, p, contents, sigma, log):
    grid = [g * sigma for g in knob.grid]
    tried = {}

    def score(v):
        v = min(knob.hi, max(knob.lo, v))
        if v not in tried:
            q = dict(p, **{knob.name: v})
            tried[v] = ev.psnr(peer, q, contents, sigma)
        return tried[v]

    for v in grid:
        score(v)
    for _ in range(4):   # widen while the best is at an edge of what was tried
        vals = sorted(tried)
        best = max(vals, key=lambda v: tried[v])
        if best == vals[-1] and best < knob.hi:
            score(vals[-1] * vals[-1] / vals[-2] if len(vals) > 1 and vals[-2] > 0 else vals[-1] * 2)
        elif best == vals[0] and best > knob.lo:
            score(vals[0] * vals[0] / vals[1] if len(vals) > 1 else vals[0] / 2)
        else:
            break
    # then halve the steps around the best value (geometric midpoints with its neighbours)
    vals = sorted(tried)
    i = vals.index(max(vals, key=lambda v: tried[v]))
    for j in (i - 1, i + 1):
        if 0 <= j < len(vals) and vals[i] > 0 and vals[j] > 0:
            score((vals[i] * vals[j]) ** 0.5)
    best = max(tried, key=lambda v: tried[v])
    log.append({'knob': knob.name, 'fixed': {k: v for k, v in p.items() if k != knob.name},
                'tried': [[v, round(tried[v], 4)] for v in sorted(tried)]})
    return best, tried[best]


def calibrate_peer(ev, peer, contents, sigma, say):
    p = {k.name: k.grid[len(k.grid) // 2] * sigma for k in peer.knobs}
    log, best_q = [], None
    for _ in range(2 if len(peer.knobs) > 1 else 1):
        for k in peer.knobs:
            p[k.name], best_q = _sweep_knob(ev, peer, k, p, contents, sigma, log)
    say(f"  {peer.label} sigma {sigma}: {', '.join(f'{k}={v:.4g}' for k, v in p.items())} -> {best_q:.3f} dB")
    return p, best_q, log


def run(args, root):
    from .pipeline import Progress
    say = Progress()
    env = Env(root, args.build, args.bundle)
    if not env.opencv:
        raise HarnessError('calibration needs cudadenoise-eval-opencv (Debian: libopencv-photo-dev, then rebuild)')
    work = args.work or os.path.join(root, 'build', 'eval-calibration')
    os.makedirs(work, exist_ok=True)
    stills = _stills(env, args.data, work)
    clip, clip_desc = _clip(env, args.data, work)
    ev = Evaluator(env, work)
    # --calibrate-peers / --calibrate-sigmas: only those, merged into the table there is
    only_peers = set(args.calibrate_peers.split(',')) if getattr(args, 'calibrate_peers', None) else None
    only_sigmas = ([int(x) for x in args.calibrate_sigmas.split(',')] if getattr(args, 'calibrate_sigmas', None)
                   else None)
    table = {'peers': {}, 'sweeps': {}}
    if only_peers or only_sigmas:
        old = peers.load_params()
        table = {'peers': old.get('peers', {}), 'sweeps': old.get('sweeps', {})}
    for peer in peers.PEERS:
        if only_peers and peer.key not in only_peers:
            continue
        for kind, contents in (('still', stills), ('clip', [clip])):
            if kind == 'still' and not peer.on_stills:
                continue
            for sigma in only_sigmas or sorted(config.SIGMAS + config.DEFAULTS_SIGMAS):
                p, q, log = calibrate_peer(ev, peer, contents, sigma, say)
                table['peers'].setdefault(peer.key, {}).setdefault(kind, {})[str(sigma)] = \
                    {k: round(v, 6) for k, v in p.items()}
                table['sweeps'].setdefault(peer.key, {}).setdefault(kind, {})[str(sigma)] = \
                    {'psnr': round(q, 4), 'steps': log}
    calibration = {
        'content': ('photos: luma crops 192x192 of ' + ', '.join(n for n, _ in STILLS) +
                    f'; video: {clip_desc}, {CLIP_EVAL} middle frames of {CLIP_FRAMES} measured'),
        'objective': ('mean PSNR of the luma plane; the best of each knob\'s sweep (a grid of multiples of sigma, '
                      'widened at its edges, refined at the geometric midpoints around the best; coordinate search, '
                      'twice, for two knobs)'),
        'date': datetime.date.today().isoformat(),
        'ffmpeg': env.run([env.ffmpeg, '-hide_banner', '-version'], 'ffmpeg').splitlines()[0],
        'threads': env.threads,
    }
    if only_peers or only_sigmas:   # a partial sweep: the table's record stays, this one is added to it
        table['calibration'] = old.get('calibration', calibration)
        table['calibration'].setdefault('updates', []).append(
            {'date': calibration['date'], 'peers': sorted(only_peers or [p.key for p in peers.PEERS]),
             'sigmas': only_sigmas or 'all', 'threads': env.threads})
    else:
        table['calibration'] = calibration
    path = peers.PARAMS_FILE
    with open(path + '.part', 'w') as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write('\n')
    os.replace(path + '.part', path)
    say(f'wrote {path}')
