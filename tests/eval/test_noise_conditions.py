#!/usr/bin/env python3
# test_noise_conditions.py: the report's real-like noise (issue 37; tools/eval/harness/noise_runs.py,
# noise_table.py, `cudadenoise-eval prepare`), on a machine without a GPU:
# - prepare adds variance a x + b (--noise-a/--noise-b) or the camera model (--camera-noise), says so in its
#   JSON (true mean sigma, the residual's RMS and level-set fit) and refuses two kinds of noise at once, half
#   a model, the camera model on gray frames and --camera-clean-out without it;
# - plan(): gray photos lose the camera conditions with a reason, the luma-only timing clip and compressed
#   clips get none, a preset's noise_for and noise_conditions limit them;
# - run_condition on a small pan with the camera model: measured against the camera pipeline's frames
#   without noise, the true-sigma rows get the residual's RMS, the true-model rows its fitted a and b, every
#   row improves on the noisy input, and the model-auto rows either run or are skipped with the library's
#   own "not built" message (never counted as failures);
# - the markdown table has a column per condition and the mean over the inputs;
# - report.py --noise-only (tiny preset) runs those conditions alone and writes their table as RESULTS.md.
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'eval'))
from harness import config, noise_runs, noise_table  # noqa: E402
from harness.content import Content  # noqa: E402
from harness.env import Env  # noqa: E402
from harness.pipeline import Pipeline  # noqa: E402

BUILD = os.environ['CDN_BUILD_DIR_ABS']
DATA = os.environ.get('CDN_TEST_DATA', os.path.join(ROOT, '.testdata'))
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL: ' + msg)
    else:
        print('ok: ' + msg)


def prepare(env, *args):
    p = subprocess.run([env.eval, 'prepare', *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, (json.loads(p.stdout.splitlines()[-1]) if p.returncode == 0 else None), p.stderr


def check_prepare(env, work):
    photo, gray = os.path.join(DATA, 'astronaut.png'), os.path.join(DATA, 'camera.png')
    out = os.path.join(work, 'n.y4m')
    rc, j, _ = prepare(env, '--input', photo, '--crop', '128x128+180+70', '--noise-a', '0.5', '--noise-b', '4',
                       '--noisy-out', out)
    check(rc == 0 and j['noise'] == 'signal' and j['noise_a'] == 0.5 and j['noise_b'] == 4,
          f'prepare --noise-a 0.5 --noise-b 4: {j}')
    if j:
        check(abs(j['residual_rms_luma'] / j['true_sigma_luma'] - 1) < 0.05 and abs(j['residual_fit_a'] - 0.5) < 0.15,
              f"the noise is what it says: true sigma {j['true_sigma_luma']:.3f}, RMS {j['residual_rms_luma']:.3f}, "
              f"fit a {j['residual_fit_a']:.3f}")
    cc = os.path.join(work, 'cc.y4m')
    rc, j, _ = prepare(env, '--input', photo, '--crop', '128x128+180+70', '--camera-noise', 'low', '--noisy-out', out,
                       '--camera-clean-out', cc)
    check(rc == 0 and j['noise'] == 'camera' and j['camera_noise'] == 'low' and j['camera_shot'] > 0
          and j['true_sigma_luma'] == j['residual_rms_luma'] and j['true_sigma_luma'] > 1 and os.path.isfile(cc)
          and 'camera_clean_psnr_luma' in j, f'prepare --camera-noise low: {j}')
    rc, j, _ = prepare(env, '--input', photo, '--sigma', '10', '--noisy-out', out)
    check(rc == 0 and j['noise'] == 'awgn' and j['true_sigma_luma'] == 10, f'prepare --sigma 10: {j}')
    for args, words in ((('--sigma', '5', '--noise-a', '1', '--noise-b', '1'), 'one kind of noise'),
                        (('--sigma', '5', '--camera-noise', 'low'), 'one kind of noise'),
                        (('--noise-a', '1', '--noise-b', '1', '--camera-noise', 'bright'), 'one kind of noise'),
                        (('--noise-a', '1'), 'go together'),
                        (('--noise-b', '1'), 'go together'),
                        (('--camera-noise', 'dim'), 'camera-noise'),
                        (('--sigma', '5', '--camera-clean-out', cc), '--camera-clean-out goes with --camera-noise')):
        rc, _, err = prepare(env, '--input', photo, '--noisy-out', out, *args)
        check(rc == 2 and words in err, f'prepare {" ".join(args)}: refused ({rc}) saying "{words}": {err.strip()}')
    rc, _, err = prepare(env, '--input', gray, '--camera-noise', 'low', '--noisy-out', out)
    check(rc == 2 and 'colour frames' in err, f'prepare --camera-noise on a gray photo: refused: {err.strip()}')


def check_plan():
    tiny, full = config.PRESETS['tiny'], config.PRESETS['full']
    gray = Content('camera', 'still', 't', 'd', 'x', 8, 8, 'GRAY8')
    colour = Content('astronaut', 'still', 't', 'd', 'x', 8, 8, 'Y444')
    run, out = noise_runs.plan(full, config.Still('camera'), gray)
    check([n.key for n in run] == ['sd-0.5-4', 'sd-2-2'] and set(out) == {'camera-bright', 'camera-low'}
          and all('colour' in w for w in out.values()), f'gray photo: signal-dependent only, camera left out: {out}')
    run, out = noise_runs.plan(full, config.Still('astronaut'), colour)
    check([n.key for n in run] == list(config.NOISE_CONDITION_KEYS) and not out, 'colour photo: every condition')
    run, _ = noise_runs.plan(tiny, config.Still('astronaut'), colour)
    check([n.key for n in run] == list(tiny.noise_conditions), f'tiny: its conditions only: {run}')
    run, out = noise_runs.plan(tiny, config.Still('camera'), gray)
    check(not run and not out, 'tiny: inputs outside noise_for get none')
    clip = Content('dog-1080p-gray', 'clip', 't', 'd', 'x', 8, 8, 'GRAY8')
    check(noise_runs.plan(full, config.DOG_1080, clip) == ([], {}), 'the luma-only timing clip gets none')
    comp = Content('dog-x264-crf23', 'clip', 't', 'd', 'x', 8, 8, 'I420', degraded='y')
    check(noise_runs.plan(full, config.COMPRESSED[0], comp) == ([], {}), 'compressed clips get none')


def check_run(env, work):
    info = json.loads(subprocess.run([env.eval, 'info'], stdout=subprocess.PIPE, check=True, text=True).stdout)
    d = os.path.join(work, 'pan')
    os.makedirs(d)
    clean = os.path.join(d, 'clean.y4m')
    env.eval_json(['pan', '--photo', os.path.join(DATA, 'astronaut.png'), '--size', '64x48', '--frames', '5',
                   '--start', '150,80', '-o', clean], 'pan')
    c = Content('pan', 'clip', 'pan', 'a pan', clean, 64, 48, 'I420', 'limited', frames=5)
    c.eval_start, c.eval_count = 2, 1
    c.clean_eval = os.path.join(d, 'clean-eval.y4m')
    env.eval_json(['prepare', '--input', clean, '--start', '2', '--frames', '1', '--clean-out', c.clean_eval], 'eval')
    pipe = Pipeline(env, config.PRESETS['tiny'], info, work, {}, print, ())
    nc = next(n for n in config.NOISE_CONDITIONS if n.key == 'camera-low')
    res = noise_runs.run_condition(pipe, c, nc)
    facts, runs = res['noise'], {r['method']: r for r in res['runs']}
    noisy = res['noisy']['planes'][0]['psnr']
    check(all('camera-low' in r['clean'] and 'camera-clean' in r['clean'] for r in res['runs']) and res['runs'],
          'camera noise is measured against the camera pipeline without noise')
    modes = {m['name'] for m in info['modes']}
    for row in config.NOISE_ROWS:
        r = runs.get(row.method)
        if row.mode not in modes:
            check(r is None, f'{row.method}: mode not built, not run')
            continue
        if row.noise == 'auto-model':
            why = pipe.skipped_rows.get((row.mode, row.tag), '')
            check((r is not None) != ('not built' in why),
                  f'{row.method}: runs, or is skipped with the library\'s message: {why or "ran"}')
            check(f'{row.method}:cpu' not in pipe.failed, f'{row.method}: not a failure')
            continue
        check(r is not None, f'{row.method} ran')
        if not r:
            continue
        p = r['quality']['planes'][0]['psnr']
        check(p > noisy, f'{row.method}: {p:.2f} dB > noisy {noisy:.2f}')
        if row.noise == 'true-sigma':
            check(f"sigma {facts['residual_rms_luma']:.3g}" in r['settings'], f"{row.method}: {r['settings']}")
        if row.noise == 'true-model':
            check(f"noise-a={facts['residual_fit_a']:.6g}" in r['settings'] and
                  f"noise-b={facts['residual_fit_b']:.6g}" in r['settings'], f"{row.method}: {r['settings']}")
    check(not pipe.failed, f'no failures: {pipe.failed}')
    # the table: a column for the condition, each row's PSNR (one input: its own value)
    results = {'noise_conditions': [{'key': nc.key, 'label': nc.label}], 'contents': [
        {'id': 'pan', 'kind': 'clip', 'noise_conditions': {nc.key: res}, 'noise_left_out': {}},
        {'id': 'camera', 'kind': 'still', 'noise_conditions': {}, 'noise_left_out': {nc.key: 'gray'}}],
        'noise_rows': [{'mode': r.mode, 'tag': r.tag, 'noise': r.noise, 'note': r.note} for r in config.NOISE_ROWS],
        'skipped_rows': {f'{m}-{t}': w for (m, t), w in pipe.skipped_rows.items()}}
    md = '\n'.join(noise_table.lines(results, 'cpu'))
    check(f'clips (1): {nc.label}' in md and f'{noisy:.2f}' in md and 'camera camera-low: gray' in md,
          'the table: the column, the noisy input, what was left out')
    for row in config.NOISE_ROWS:
        if row.method in runs:
            line = next((x for x in md.splitlines() if x.startswith(f'| {row.note} |')), '')
            check(f"{runs[row.method]['quality']['planes'][0]['psnr']:.2f}" in line, f'the table: {line}')


def check_noise_only(work):
    out = os.path.join(work, 'noise-only')
    rc = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'eval', 'report.py'), '--tiny', '--noise-only',
                         '--build', BUILD, '--out', out, '--work', os.path.join(work, 'wn')]).returncode
    check(rc == 0, f'report.py --tiny --noise-only exit {rc}')
    if rc:
        return
    with open(os.path.join(out, 'results', 'results.json')) as f:
        r = json.load(f)
    tiny = config.PRESETS['tiny']
    check(r['noise_only'] and r['complete'] and [c['id'] for c in r['contents']] == list(tiny.noise_for),
          f"--noise-only: the inputs that get noise conditions: {[c['id'] for c in r['contents']]}")
    check(all(not c['conditions'] and set(c['noise_conditions']) == set(tiny.noise_conditions) for c in r['contents']),
          '--noise-only: no AWGN condition, the real-like ones')
    md = open(os.path.join(out, 'RESULTS.md')).read()
    label = next(n.label for n in config.NOISE_CONDITIONS if n.key == tiny.noise_conditions[0])
    check('## Real-like noise' in md and f'photos (1): {label}' in md and '--noise-only' in md,
          '--noise-only: RESULTS.md is the real-like noise table')


def main():
    env = Env(ROOT, BUILD)
    with tempfile.TemporaryDirectory(prefix='cdn-noise-conditions-test-') as work:
        check_prepare(env, work)
        check_plan()
        check_run(env, work)
        check_noise_only(work)
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    print('real-like noise conditions: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
