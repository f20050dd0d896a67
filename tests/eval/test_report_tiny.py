#!/usr/bin/env python3
# test_report_tiny.py: tools/eval/report.py end to end on the tiny preset, the
# way CI can run it (CPU backend, FFmpeg, the OpenCV helper when built), twice:
# - --resume goes on from a run stopped early: every input once, the same numbers, both parts named;
# - it writes RESULTS.md, results.json, a crops figure per input (and per clip
#   as it is) and a plot per group, all real PNG files;
# - every cudadenoise mode of `cudadenoise-eval info` (so bm3d once it exists),
#   the variants (PI-PD and hybrid at their quality settings) and every peer
#   ran, on photos and on the clip, with a time;
# - the noise is what it says: each noisy input's luma PSNR is within 0.2 dB of
#   the PSNR expected from its clean input and sigma;
# - at sigma 25 every method improves on the noisy input (luma PSNR);
# - the real-like noise condition of the preset (var 0.5 x + 4 on the astronaut crop) ran every row of
#   config.NOISE_ROWS this build has,
#   each better than the noisy input, and RESULTS.md has its table;
# - the quality numbers of the two runs are identical (determinism).
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools', 'eval'))
from harness import config  # noqa: E402

REPORT = os.environ['CDN_REPORT']
BUILD = os.environ['CDN_BUILD_DIR_ABS']
EXPECT_OPENCV = os.environ.get('CDN_EXPECT_OPENCV') == '1'
FFMPEG_PEERS = {'hqdn3d', 'nlmeans', 'atadenoise', 'ffmpeg-bm3d'}  # keys apart from the modes' names
OPENCV_PEERS = {'ocv-nlm', 'ocv-nlm-multi'}
VARIANT_RUNS = {'pipd-quality', 'hybrid-quality'}   # rows of harness/config.py ROWS
TEMPORAL_PEERS = {'atadenoise', 'ocv-nlm-multi'}   # not run on photos

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL: ' + msg)


def run(out, work, *extra, check_rc=True):
    cmd = [sys.executable, REPORT, '--tiny', '--build', BUILD, '--out', out, '--work', work, *extra]
    print('$ ' + ' '.join(cmd), flush=True)
    rc = subprocess.run(cmd).returncode
    if not check_rc:
        return rc
    if rc != 0:
        raise RuntimeError(f'report.py exited {rc}')
    with open(os.path.join(out, 'results', 'results.json')) as f:
        return json.load(f)


def quality_numbers(results):
    """Every quality number of a run, keyed by where it is (times left out)."""
    q = {}
    for c in results['contents']:
        for cond, res in c['conditions'].items():
            if 'noisy' in res:
                q[(c['id'], cond, 'noisy')] = json.dumps(res['noisy'], sort_keys=True)
            for r in res['runs']:
                if 'quality' in r:
                    q[(c['id'], cond, r['id'])] = json.dumps(r['quality'], sort_keys=True)
        for cond, res in c.get('noise_conditions', {}).items():
            q[(c['id'], cond, 'noisy')] = json.dumps(res['noisy'], sort_keys=True)
            for r in res['runs']:
                q[(c['id'], cond, r['id'])] = json.dumps(r['quality'], sort_keys=True)
    return q


def tiny_label(key):
    return next(n.label for n in config.NOISE_CONDITIONS if n.key == key)


def is_png(path):
    with open(path, 'rb') as f:
        return f.read(8) == b'\x89PNG\r\n\x1a\n' and os.path.getsize(path) > 2000


def main():
    info = json.loads(subprocess.run([os.path.join(BUILD, 'tools', 'eval', 'cudadenoise-eval'), 'info'],
                                     stdout=subprocess.PIPE, check=True, text=True).stdout)
    modes = {m['name'] for m in info['modes']}
    with tempfile.TemporaryDirectory(prefix='cdn-report-test-') as tmp:
        a = run(os.path.join(tmp, 'a'), os.path.join(tmp, 'wa'))
        b = run(os.path.join(tmp, 'b'), os.path.join(tmp, 'wb'))

        out = os.path.join(tmp, 'a')
        md = open(os.path.join(out, 'RESULTS.md')).read()
        figs = os.listdir(os.path.join(out, 'results'))
        for c in a['contents']:
            for cond in c['figures'].values():
                check(cond in figs and is_png(os.path.join(out, 'results', cond)), f'crops figure {cond}')
                check(f'results/{cond}' in md, f'RESULTS.md shows {cond}')
        plots = [f for f in figs if f.startswith('plot-')]
        groups = {c['group'] for c in a['contents']}
        check(len(plots) == len(groups), f'one plot per group: {plots} for {groups}')
        for p in plots:
            check(is_png(os.path.join(out, 'results', p)), f'plot {p} is a PNG')
        check('AMD' in md or 'Intel' in md or 'CPU:' in md, 'RESULTS.md names the CPU')
        check(a['facts']['date'] in md, 'RESULTS.md gives the date')

        check(a.get('complete') is True and 'Incomplete' not in md, 'the report is complete')
        check('## Defaults' in md and '## Video' in md, 'RESULTS.md has the video and defaults tables')
        kinds = {c['kind'] for c in a['contents']}
        check(kinds == {'still', 'clip'}, f'photos and a clip: {kinds}')
        for c in a['contents']:
            for s in config.SIGMAS + config.PRESETS['tiny'].defaults_sigmas:
                n = c['conditions'][f's{s}']['noisy']['planes'][0]
                check(abs(n['psnr'] - n['expected_noisy_psnr']) < 0.2,
                      f"{c['id']} sigma {s}: noisy PSNR {n['psnr']:.3f}, expected {n['expected_noisy_psnr']:.3f}")
            ts = config.TIMING_SIGMA
            res = c['conditions'][f's{ts}']
            noisy = res['noisy']['planes'][0]['psnr']
            ran = {r['method'] for r in res['runs']}
            ids = [r['id'] for r in res['runs']]
            check(len(ids) == len(set(ids)), f"{c['id']}: runs share an id (the tables would merge them): {ids}")
            want = modes | VARIANT_RUNS | FFMPEG_PEERS | (OPENCV_PEERS if EXPECT_OPENCV else set())
            if c['kind'] == 'still':
                want -= TEMPORAL_PEERS
            check(want <= ran, f"{c['id']}: missing {sorted(want - ran)}")
            for r in res['runs']:
                p = r['quality']['planes'][0]['psnr']
                check(p > noisy, f"{c['id']} sigma {ts}: {r['id']} {p:.2f} dB does not improve on noisy {noisy:.2f} dB")
                check(r['e2e_ms'] is not None and r['e2e_ms'] > 0, f"{c['id']}: {r['id']} has no time")
            if c['kind'] == 'clip':
                check('asis' in c['conditions'] and c['conditions']['asis']['runs'], f"{c['id']}: the as-is run")
                # as it is: every mode at its defaults with auto sigma, measured against the input
                asis = c['conditions']['asis']['runs']
                check(modes <= {r['method'] for r in asis} and all('quality' in r for r in asis),
                      f"{c['id']}: the as-is run has every mode, measured: {sorted(r['method'] for r in asis)}")
            for s in config.PRESETS['tiny'].defaults_sigmas:   # the defaults table's low noise: its rows alone
                ran = {r['method'] for r in c['conditions'][f's{s}']['runs']}
                skipped = set(a.get('skipped_rows', {}))   # rows this build cannot run (other branches' modes, flags)
                want = modes | {'hqdn3d', 'nlmeans'} | {f'{r.mode}-{r.tag}' for r in config.ROWS
                                                        if r.defaults and f'{r.mode}-{r.tag}' not in skipped}
                check(ran == want, f"{c['id']} sigma {s}: the defaults rows {sorted(want)}, ran {sorted(ran)}")

        # real-like noise (issue 37): the preset's conditions on its inputs, every row, and the table
        tiny = config.PRESETS['tiny']
        check('## Real-like noise' in md, 'RESULTS.md has the real-like noise table')
        for c in a['contents']:
            got = set(c.get('noise_conditions', {}))
            want = set(tiny.noise_conditions) if c['id'] in tiny.noise_for else set()
            check(got == want, f"{c['id']}: real-like noise conditions {sorted(got)}, want {sorted(want)}")
            for key in got:
                res = c['noise_conditions'][key]
                noisy = res['noisy']['planes'][0]['psnr']
                ran = {r['method']: r for r in res['runs']}
                for row in config.NOISE_ROWS:
                    if row.mode not in modes:
                        continue
                    r = ran.get(row.method)
                    check(r is not None and r['quality']['planes'][0]['psnr'] > noisy,
                          f"{c['id']} {key}: {row.method} ran and improves on the noisy {noisy:.2f} dB")
                check(tiny_label(key) in md, f"RESULTS.md names {key}")

        qa, qb = quality_numbers(a), quality_numbers(b)
        check(len(qa) > 50, f'{len(qa)} quality numbers')
        diff = [k for k in qa if qa[k] != qb.get(k)]
        check(not diff, f'quality differs between two runs: {diff[:5]}')

        # --resume: a run stopped after its first input goes on from its results.json and ends with
        # every input once, the same numbers, and RESULTS.md naming the two parts; a complete run
        # is refused.
        first_id = a['contents'][0]['id']
        stopped = dict(a, complete=False, contents=a['contents'][:1],
                       failed={k: [e for e in v if e.startswith(first_id + ' ')] for k, v in a.get('failed', {}).items()})
        stopped_path = os.path.join(tmp, 'stopped.json')
        with open(stopped_path, 'w') as f:
            json.dump(stopped, f)
        c = run(os.path.join(tmp, 'c'), os.path.join(tmp, 'wc'), '--resume', stopped_path)
        ids = [x['id'] for x in c['contents']]
        check(ids == [x['id'] for x in a['contents']], f'--resume: every input once, in order: {ids}')
        check(c.get('complete') is True and len(c.get('parts', [])) == 2, '--resume: complete, two parts')
        check([p['inputs'] for p in c['parts']] == [ids[:1], ids[1:]], f"--resume: the parts' inputs {c['parts']}")
        qc = quality_numbers(c)
        check(qc == qa, '--resume: the same numbers as the run in one part')
        md_c = open(os.path.join(tmp, 'c', 'RESULTS.md')).read()
        check('Run in 2 parts' in md_c and 'Incomplete' not in md_c, 'RESULTS.md of a resumed run names its parts')
        # a resumed part that stopped too lists itself, and a third part goes on from it
        if len(ids) >= 3:
            two = dict(stopped, contents=a['contents'][:2],
                       parts=[dict(c['parts'][0], inputs=ids[:1]), dict(c['parts'][1], inputs=ids[1:2])])
            two_path = os.path.join(tmp, 'two-parts.json')
            with open(two_path, 'w') as f:
                json.dump(two, f)
            e = run(os.path.join(tmp, 'e'), os.path.join(tmp, 'we'), '--resume', two_path)
            check([p['inputs'] for p in e.get('parts', [])] == [ids[:1], ids[1:2], ids[2:]],
                  f"--resume of a resumed run: three parts {e.get('parts')}")
        whole_path = os.path.join(tmp, 'a', 'results', 'results.json')
        rc = run(os.path.join(tmp, 'd'), os.path.join(tmp, 'wd'), '--resume', whole_path, check_rc=False)
        check(rc != 0, f'--resume of a complete run is refused (exit {rc})')
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    print('report.py --tiny: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
