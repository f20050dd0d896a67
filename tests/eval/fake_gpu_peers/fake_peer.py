#!/usr/bin/python3
# fake_peer.py: a stand-in for the GPU peers' drivers (../shared/peers: bm3dcuda-run,
# nlmcuda-run) with their command line, output protocol (OUT.part, renamed when complete)
# and TIMING lines, so that tests/eval/test_gpu_peers.py can check the report's handling
# of them on a machine without a GPU. It filters with a 3x3 box blur, blended with the
# input by a weight that grows with the strength (--sigma or --h): out = x + w (blur - x),
# w = min(1, strength / 30). Invoked as bm3dcuda-run or nlmcuda-run (a link's name).
import os
import sys

import numpy as np


def main(argv):
    name = os.path.basename(argv[0])
    a = {argv[i][2:]: argv[i + 1] for i in range(1, len(argv) - 1, 2)}
    w, h = int(a['width']), int(a['height'])
    strength = float(a.get('sigma', a.get('h', 0)))
    data = open(a['input'], 'rb').read()
    n = len(data) // (w * h)
    if n == 0 or n * w * h != len(data):
        print('error: input size', file=sys.stderr)
        return 2
    k = min(1.0, strength / 30)
    x = np.frombuffer(data, np.uint8).reshape(n, h, w).astype(np.float64)
    p = np.pad(x, ((0, 0), (1, 1), (1, 1)), mode='edge')
    blur = sum(p[:, 1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dy in (-1, 0, 1) for dx in (-1, 0, 1)) / 9
    out = np.clip(np.rint(x + k * (blur - x)), 0, 255).astype(np.uint8).tobytes()
    with open(a['output'] + '.part', 'wb') as fh:
        fh.write(out)
    os.replace(a['output'] + '.part', a['output'])
    peer = 'bm3dcuda' if name.startswith('bm3d') else 'nlm-cuda'
    passes = ['basic', 'final', 'total'] if peer == 'bm3dcuda' else ['nlmeans']
    for p in passes:
        print(f'TIMING peer={peer} pass={p} frames={n} warmup={a.get("warmup", 3)} kernel_ms_median=0.5 '
              f'e2e_ms_median=0.8 host_ms_median=1.1 kernel_ms_min=0.4')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
