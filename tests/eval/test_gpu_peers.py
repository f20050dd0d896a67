#!/usr/bin/env python3
# test_gpu_peers.py: the report's handling of the GPU peers (tools/eval/harness/gpu_peers.py) and of
# the rows of harness/config.py, on a machine without a GPU: tests/eval/fake_gpu_peers stand in for
# the drivers (same command line, output protocol and TIMING lines; a box blur whose weight grows
# with the strength). On a 9-frame pan across a photo, AWGN sigma 20:
# - every profile of config.GPU_PEER_ROWS runs on the luma of the same noisy frames, its output has
#   as many frames, is measured (luma only) and improves on the noisy input, and carries the
#   TIMING line's kernel and end-to-end times;
# - BM3DCUDA gets 4/3 of sigma; vs-nlm-cuda's h is the best of its sweep (calibrate), per profile;
# - restore() of an earlier run's table() (report.py --resume) gives the same h and sweeps;
# - a directory without the drivers is an error that names them;
# - a row whose mode this build lacks, or whose flag `denoise` does not know, is skipped with a
#   message (rows written on other branches), and a known row runs;
# - every row of harness/config.py runs with this build's defaults (CPU backend, 3 frames);
# - a `denoise` call that fails is retried mode by mode and each failure recorded, not raised.
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'eval'))
from harness import config  # noqa: E402
from harness.content import Content  # noqa: E402
from harness.env import Env, HarnessError  # noqa: E402
from harness.gpu_peers import GpuPeers  # noqa: E402
from harness.pipeline import Pipeline  # noqa: E402

BUILD = os.environ['CDN_BUILD_DIR_ABS']
DATA = os.environ.get('CDN_TEST_DATA', os.path.join(ROOT, '.testdata'))
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fake_gpu_peers')
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL: ' + msg)
    else:
        print('ok: ' + msg)


def main():
    env = Env(ROOT, BUILD)
    info = json.loads(subprocess.run([env.eval, 'info'], stdout=subprocess.PIPE, check=True, text=True).stdout)
    modes = [m['name'] for m in info['modes']]
    with tempfile.TemporaryDirectory(prefix='cdn-gpu-peers-test-') as work:
        d = os.path.join(work, 'pan')
        os.makedirs(d)
        clean = os.path.join(d, 'clean.y4m')
        env.eval_json(['pan', '--photo', os.path.join(DATA, 'astronaut.png'), '--size', '96x64', '--frames', '9',
                       '--start', '150,80', '-o', clean], 'pan')
        c = Content('pan', 'clip', 'pan', 'a pan', clean, 96, 64, 'I420', 'limited', frames=9)
        c.eval_start, c.eval_count = 3, 3
        c.clean_eval = os.path.join(d, 'clean-eval.y4m')
        env.eval_json(['prepare', '--input', clean, '--start', '3', '--frames', '3', '--clean-out', c.clean_eval],
                      'eval')
        skip = set(modes) | {'hqdn3d', 'nlmeans', 'atadenoise', 'ffmpeg-bm3d', 'ocv-nlm', 'ocv-nlm-multi'}
        pipe = Pipeline(env, config.PRESETS['tiny'], info, work, {}, print, skip, FAKE)
        s = config.TIMING_SIGMA
        pipe.gpu_peers.calibrate([c], (s,), pipe._noisy)
        res = pipe.condition(c, f's{s}', s)
        noisy = res['noisy']['planes'][0]['psnr']
        runs = {r['method']: r for r in res['runs']}
        check(set(runs) == {r.key for r in config.GPU_PEER_ROWS}, f'every GPU peer profile ran: {sorted(runs)}')
        for row in config.GPU_PEER_ROWS:
            r = runs.get(row.key)
            if not r:
                continue
            q = r['quality']
            check(r['luma_only'] and r['family'] == 'GPU peers' and len(q['planes']) == 1,
                  f'{row.key}: luma only, {len(q["planes"])} plane(s) measured')
            check(q['frames'] == c.eval_count, f'{row.key}: {q["frames"]} frames measured')
            check(q['planes'][0]['psnr'] > noisy, f'{row.key}: {q["planes"][0]["psnr"]:.2f} dB > noisy {noisy:.2f}')
            check(r['device_ms'] == 0.5 and r['e2e_ms'] == 0.8, f'{row.key}: times from TIMING {r["device_ms"]}, '
                  f'{r["e2e_ms"]}')
            args = r['params']['args']
            if row.strength == 'bm3d-sigma':
                check(abs(float(args[args.index('--sigma') + 1]) - s * 4 / 3) < 1e-3, f'{row.key}: sigma x 4/3: {args}')
            else:
                h = float(args[args.index('--h') + 1])
                sweep = pipe.gpu_peers.sweeps[(row.key, s)]
                best = max(sweep, key=lambda x: x[1])[0]
                check(len(sweep) == len(config.NLM_H_GRID) and abs(h - best) < 1e-3,
                      f'{row.key}: h {h} is the best of the sweep {sweep}')
        # report.py --resume: an earlier run's table() gives the same choices without sweeping again
        again = GpuPeers(env, FAKE, (), print)
        again.restore(json.loads(json.dumps(pipe.gpu_peers.table())))
        check(again.h == pipe.gpu_peers.h and again.sweeps == pipe.gpu_peers.sweeps and again.h,
              f'restore(table()) gives the same h and sweeps: {again.h}')
        try:
            GpuPeers(env, work, (), print)
            check(False, 'a directory without the drivers is an error')
        except HarnessError as e:
            check('bm3dcuda-run' in str(e) and 'nlmcuda-run' in str(e), f'missing drivers named: {e}')
        # rows: unknown mode, unknown flag, a known row
        rows = [config.Row('no-such-mode', 'x'), config.Row(modes[0], 'bogus', ('--no-such-flag', '1')),
                config.Row(modes[0], 'same', ())]
        check([pipe._row_usable(r) for r in rows] == [False, False, True], 'rows: unknown mode and flag skipped')
        check(('no-such-mode', 'x') in pipe.skipped_rows and 'no-such-flag' in pipe.skipped_rows[(modes[0], 'bogus')],
              f'skipped rows say why: {pipe.skipped_rows}')
        # every row of config.ROWS runs with this build's defaults (the papers' cubes once failed in the
        # report when the defaults took frame confidence, which cubes refuse)
        for row in config.ROWS:
            if row.mode not in modes:
                continue
            d = os.path.join(work, f'row-{row.mode}-{row.tag}')
            os.makedirs(d)
            cmd = [env.eval, 'denoise', '--input', c.clean_eval, '--out-dir', d, '--modes', row.mode,
                   '--backends', 'cpu', '--sigma', '20', *row.all_flags]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(p.returncode == 0, f'row {row.mode}-{row.tag} runs: {p.stderr.strip()[-300:]}')
        # a row's named set (--set) is a row of the one table (`info`), and explicit flags go on top of it
        # whatever their order
        sets = {(n['mode'], n['name']) for n in info['named_sets']}
        for row in config.ROWS:
            for name in [v for f, v in zip(row.all_flags[::2], row.all_flags[1::2]) if f == '--set']:
                check((row.mode, name) in sets, f'row {row.mode}-{row.tag}: {name} is a named set of {row.mode}')
        if 'nlm3d' in modes:
            def nlm3d(tag, *flags):
                d = os.path.join(work, f'set-{tag}')
                os.makedirs(d)
                subprocess.run([env.eval, 'denoise', '--input', c.clean_eval, '--out-dir', d, '--modes', 'nlm3d',
                                '--backends', 'cpu', '--noise-sigma', '20', *flags], stdout=subprocess.PIPE, check=True)
                with open(os.path.join(d, 'nlm3d-cpu.y4m'), 'rb') as f:
                    return f.read()
            paper, before, after = (nlm3d('paper', '--set', 'paper'), nlm3d('b', '--nlm-beta', '2', '--set', 'paper'),
                                    nlm3d('a', '--set', 'paper', '--nlm-beta', '2'))
            check(paper != nlm3d('defaults') and before != paper and before == after,
                  '--set paper differs from the defaults; --nlm-beta goes on top of it, before or after --set')
        # a `denoise` call that fails is retried mode by mode and the failures are recorded, not raised
        out_dir = os.path.join(work, 'fail')
        os.makedirs(out_dir)
        bad = ['denoise', '--input', c.clean_eval, '--out-dir', out_dir, '--modes', f'{modes[0]},{modes[-1]}',
               '--backends', 'cpu', '--bm3d-window', '4']   # an even window: refused
        got = pipe._denoise(bad, [modes[0], modes[-1]], 'cpu', 'even', c, 's20')
        check(got == [] and {f'{modes[0]}-even:cpu', f'{modes[-1]}-even:cpu'} <= set(pipe.failed),
              f'a failing call is recorded per mode: {sorted(pipe.failed)}')
    summary_names_where_peers_ran()
    print(f'{len(failures)} failed' if failures else 'all checks passed')
    return 1 if failures else 0


def summary_names_where_peers_ran():
    """The report's summary line: a GPU peer's device time 'on the GPU' (it has no CPU threads), a CPU
    filter's whole loop on its threads."""
    from harness import markdown
    s = config.TIMING_SIGMA

    def row(name, family, device_ms, e2e_ms, psnr, threads=None):
        return {'name': name, 'family': family, 'device_ms': device_ms, 'e2e_ms': e2e_ms, 'psnr': {s: psnr},
                'threads': threads}
    ours = row('bm3d (GPU)', 'cudadenoise GPU', 7.0, 7.5, 35.0)
    for peer, want in ((row('BM3DCUDA', 'GPU peers', 3.6, 4.7, 34.7), 'BM3DCUDA** 34.70 dB in 3.600 ms on the GPU'),
                       (row('nlmeans', 'FFmpeg', None, 900.0, 33.0, 16), 'nlmeans** 33.00 dB in 900.0 ms on 16 CPU threads')):
        g = {'name': 'video', 'rows': [ours, peer], 'noisy_psnr': {s: 22.0}}
        line = markdown._summary([g], {})[0]
        check(want in line and 'None' not in line, f'summary names where {peer["name"]} ran: {line}')


if __name__ == '__main__':
    sys.exit(main())
