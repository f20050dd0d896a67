# peers.py: the peer denoisers of the report, as Debian 12 ships them, and how
# each is run and parametrised.
#
# FFmpeg 5.1 filters: hqdn3d, nlmeans, atadenoise and bm3d (the manual's
# two-pass use: a basic estimate, then the final estimate with it as reference);
# OpenCV 4.6: fastNlMeansDenoising and fastNlMeansDenoisingMulti through
# cudadenoise-eval-opencv. Fixed settings are the documented defaults or
# recommendations. The one strength knob (two for bm3d) that must follow the
# noise level has no documented mapping to sigma: it comes from peer_params.json,
# the best value of a sweep on held-out content at each sigma (calibrate.py),
# interpolated linearly in sigma between the calibrated levels (and scaled with
# sigma outside them), so no peer runs with a strength we guessed.
import dataclasses
import json
import os
from typing import Callable, Dict, List, Optional, Tuple

from .env import HarnessError

PARAMS_FILE = os.environ.get('CDN_EVAL_PEER_PARAMS') or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'peer_params.json')


@dataclasses.dataclass
class Knob:
    name: str
    lo: float
    hi: float
    grid: Tuple[float, ...]   # calibration candidates, as multiples of sigma


@dataclasses.dataclass
class Peer:
    key: str
    label: str
    family: str               # 'FFmpeg' or 'OpenCV'
    kind: str                 # 'spatial' (per frame), 'causal' (uses past frames), 'temporal' (past and future)
    knobs: List[Knob]
    fixed: str                # the settings that do not follow sigma, for the report
    graph: Optional[Callable[[Dict[str, float], str], str]] = None   # FFmpeg filter graph (knobs, content kind)
    complex_graph: bool = False
    opencv_args: Optional[Callable[[Dict[str, float]], List[str]]] = None
    reach: int = 0            # 'temporal': frames it reads on each side of the one it makes

    @property
    def on_stills(self):
        """Temporal peers need neighbouring frames: a photo has none."""
        return self.kind != 'temporal'

    def describe(self, p, kind):
        return self.graph(p, kind) if self.graph else ' '.join(self.opencv_args(p))


def _hqdn3d(p, kind):
    a = p['luma_spatial']
    # hqdn3d's defaults are 4:3:6:4.5; the ratios are kept, the scale follows sigma. On a photo
    # (a one-frame stream) its temporal part would only pull the output back to the noisy frame
    # it starts from, so it is turned down to 0.01 (0 would mean "the default").
    lt, ct = (1.5 * a, 1.125 * a) if kind == 'clip' else (0.01, 0.01)
    return f'hqdn3d=luma_spatial={a:.4g}:chroma_spatial={0.75 * a:.4g}:luma_tmp={lt:.4g}:chroma_tmp={ct:.4g}'


def _ata(p, kind):
    a, b = p['threshold_a'], p['threshold_b']
    return f'atadenoise=0a={a:.4g}:0b={b:.4g}:1a={a:.4g}:1b={b:.4g}:2a={a:.4g}:2b={b:.4g}:s=9'


def _bm3d(p, kind):
    b, f = p['sigma_basic'], p['sigma_final']
    return (f'split[a][b],[a]bm3d=sigma={b:.4g}:block=4:bstep=2:group=1:estim=basic[a],'
            f'[b][a]bm3d=sigma={f:.4g}:block=4:bstep=2:group=16:estim=final:ref=1')


PEERS = [
    Peer('hqdn3d', 'hqdn3d', 'FFmpeg', 'causal', [Knob('luma_spatial', 0, 255, (0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5))],
         'chroma_spatial, luma_tmp, chroma_tmp in the default ratios 3:6:4.5 to luma_spatial 4; on photos luma_tmp = '
         'chroma_tmp = 0.01 (no previous frame)', graph=_hqdn3d),
    Peer('nlmeans', 'nlmeans', 'FFmpeg', 'spatial', [Knob('s', 1, 30, (0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0))],
         'p=7 r=15 (the defaults)', graph=lambda p, kind: f"nlmeans=s={p['s']:.4g}:p=7:r=15"),
    Peer('atadenoise', 'atadenoise', 'FFmpeg', 'temporal',
         [Knob('threshold_a', 0, 0.3, (0.001, 0.002, 0.003, 0.004, 0.006, 0.008)),
          Knob('threshold_b', 0, 5, (0.002, 0.004, 0.008, 0.016, 0.032, 0.064))],
         's=9 frames (the default), the same thresholds a (0a, 1a, 2a) and b for every plane', graph=_ata, reach=4),
    Peer('ffmpeg-bm3d', 'bm3d 2-pass', 'FFmpeg', 'spatial',
         [Knob('sigma_basic', 0, 99999, (1, 2, 3, 4, 6, 8)), Knob('sigma_final', 0, 99999, (4, 8, 16, 32, 64, 128))],
         'the manual\'s two-pass example: block=4 (16x16) bstep=2, basic group=1, final group=16 ref=1',
         graph=_bm3d, complex_graph=True),
    Peer('ocv-nlm', 'OpenCV NLM', 'OpenCV', 'spatial', [Knob('h', 0, 1000, (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2))],
         'fastNlMeansDenoising, templateWindowSize 7, searchWindowSize 21 (recommended), per plane',
         opencv_args=lambda p: ['--method', 'single', '--h', f"{p['h']:.4g}", '--template', '7', '--search', '21']),
    Peer('ocv-nlm-multi', 'OpenCV NLM multi', 'OpenCV', 'temporal',
         [Knob('h', 0, 1000, (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2))],
         'fastNlMeansDenoisingMulti, temporalWindowSize 5 (the OpenCV tutorial), template 7, search 21, per plane',
         opencv_args=lambda p: ['--method', 'multi', '--h', f"{p['h']:.4g}", '--temporal', '5', '--template', '7',
                                '--search', '21'], reach=2),
]


def load_params(path=PARAMS_FILE):
    if not os.path.isfile(path):
        raise HarnessError(f'{path} is missing: run tools/eval/report.py --calibrate')
    with open(path) as f:
        return json.load(f)


def params_for(table, peer, kind, sigma):
    """The knob values of `peer` for content `kind` ('still' or 'clip') at `sigma`."""
    try:
        levels = table['peers'][peer.key][kind]
    except KeyError:
        raise HarnessError(f'peer_params.json has no {peer.key}/{kind}: run report.py --calibrate') from None
    pts = sorted((float(s), v) for s, v in levels.items())
    out = {}
    for k in peer.knobs:
        xs = [s for s, _ in pts]
        ys = [v[k.name] for _, v in pts]
        if sigma <= xs[0]:
            val = ys[0] * sigma / xs[0]
        elif sigma >= xs[-1]:
            val = ys[-1] * sigma / xs[-1]
        else:
            i = max(j for j in range(len(xs)) if xs[j] <= sigma)
            t = (sigma - xs[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] > xs[i] else 0
            val = ys[i] + t * (ys[i + 1] - ys[i])
        out[k.name] = min(k.hi, max(k.lo, val))
    return out
