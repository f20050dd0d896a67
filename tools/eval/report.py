#!/usr/bin/python3
# report.py: the quality-and-speed report of cudadenoise against its peers
# (issue 7), one command: every cudadenoise mode on the GPU and the CPU and
# FFmpeg's and OpenCV's denoisers on the same noisy photos and clips in the same
# run, measured with kernels/include/cudadenoise/metrics.h, written as RESULTS.md with crops and
# speed-against-quality plots (docs/EVALUATION.md).
#
#   tools/eval/report.py                      # full report into docs/ (the GPU host's, see docs/EVALUATION.md)
#   tools/eval/report.py --preset quick       # fewer inputs
#   tools/eval/report.py --preset tiny --out /tmp/r   # CI size, CPU is enough
#   tools/eval/report.py --calibrate          # re-derive the peers' strengths (tools/eval/peer_params.json)
#   tools/eval/report.py --preset gpu --gpu-peers .peers/bin --out "$OUT"   # the GPU host's (scripts/gpu-report.sh)
#   tools/eval/report.py --draw-only results/results.json --out DIR         # figures and RESULTS.md from a run
#
# Python 3.9+; matplotlib (Debian: python3-matplotlib, for /usr/bin/python3) for
# the figures (harness/draw.py): without it the run writes results.json and
# RESULTS.md without figures, and --draw-only draws the plots later. Needs a build (cudadenoise-eval, and cudadenoise-eval-
# opencv for the OpenCV peers), ffmpeg (or .gpu-runtime), .testdata/ and, for
# real clips, .testdata/video (scripts/fetch-eval-data.sh).
import argparse
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from harness import config, markdown, noise_runs, noise_table, peers, summary  # noqa: E402
try:
    from harness import figures  # noqa: E402
    NO_FIGURES = None
except ImportError as e:   # matplotlib (harness/draw.py)
    figures, NO_FIGURES = None, str(e)
from harness.content import prepare_clip, prepare_compressed, prepare_still  # noqa: E402
from harness.gpu_peers import find_dir  # noqa: E402
from harness.env import Env, HarnessError, machine_facts  # noqa: E402
from harness.ffmpeg_run import run_filter  # noqa: E402
from harness.pipeline import Pipeline, Progress  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def check_passthrough(env, c, work):
    """FFmpeg must hand our y4m frames back bit for bit, or its peers would be judged on other samples."""
    out = os.path.join(work, c.id, 'passthrough.y4m')
    run_filter(env, 'null', c.clean, out, c.width, c.height, c.format, c.frames, 1)
    q = env.eval_json(['measure', '--clean', c.clean, out], 'measure')[0]
    if any(p['mse'] != 0 for p in q['planes']) or q['frames'] != c.frames:
        raise HarnessError(f'ffmpeg does not give {c.clean} back unchanged: {q}')
    os.remove(out)


def opencv_facts(env, work, c):
    if not env.opencv:
        return None
    out = os.path.join(work, 'opencv-probe.y4m')
    r = json.loads(env.run([env.opencv, '--input', c.clean, '-o', out, '--threads', str(env.threads), '--h', '1'],
                           'opencv').strip().splitlines()[-1])
    os.remove(out)
    return r


def run_report(args):
    say = Progress()
    env = Env(ROOT, args.build, args.bundle)
    info = env.eval_json(['info'], 'info')[0]
    facts = machine_facts(env, info)
    preset = config.PRESETS[args.preset]
    params = peers.load_params()
    skip = sorted(set(args.skip) | set(preset.skip))
    gpu_peers = find_dir(ROOT, args.gpu_peers) if args.gpu_peers and not args.noise_only else None
    # CDN_EVAL_GPU_PEERS_WITHOUT_GPU=1: tests only (tests/eval/fake_gpu_peers stand in for the drivers)
    if gpu_peers and not info.get('cuda_available') and os.environ.get('CDN_EVAL_GPU_PEERS_WITHOUT_GPU') != '1':
        say(f'--gpu-peers {args.gpu_peers}: no GPU here ({info.get("gpu_why")}): the GPU peers are left out')
        gpu_peers = None
    say(f"preset {preset.name}; modes {', '.join(m['name'] for m in info['modes'])}; GPU {facts['gpu_long']}; "
        f"CPU {facts['cpu']} x{facts['cpu_threads']}; ffmpeg {env.ffmpeg}{' (bundle)' if env.bundle else ''}; "
        f"opencv helper {'yes' if env.opencv else 'NOT BUILT'}; GPU peers {gpu_peers or 'not run'}; "
        f"figures {'yes' if figures else 'NO (' + NO_FIGURES + '): --draw-only later'}")
    work = args.work or tempfile.mkdtemp(prefix='cdn-eval-')
    os.makedirs(work, exist_ok=True)
    out = os.path.abspath(args.out)
    fig_dir = os.path.join(out, 'results')
    os.makedirs(fig_dir, exist_ok=True)
    pipe = Pipeline(env, preset, info, work, params, say, skip, gpu_peers)
    earlier = load_resumed(args.resume, preset, facts, bool(pipe.gpu_peers), bool(args.noise_only)) \
        if args.resume else None
    earlier_parts, first = [], 0
    results = {'preset': dataclasses.asdict(preset), 'facts': facts, 'info': info, 'params': params,
               'calibration': params.get('calibration', {}).get('content', 'see peer_params.json'),
               'opencv_version': None, 'opencv_framework': None, 'skipped': skip,
               'sigmas': list(config.SIGMAS), 'defaults_sigmas': list(preset.defaults_sigmas),
               'timing_sigma': config.TIMING_SIGMA,
               'rows': [dataclasses.asdict(r) for r in config.ROWS],
               'noise_conditions': [dataclasses.asdict(n) for n in config.NOISE_CONDITIONS
                                    if n.key in preset.noise_conditions],
               'noise_rows': [dataclasses.asdict(r) for r in config.NOISE_ROWS],
               'gpu_peer_rows': [dataclasses.asdict(r) for r in config.GPU_PEER_ROWS] if gpu_peers else [],
               'complete': False, 'contents': [], 'figures_drawn': figures is not None,
               'noise_only': bool(args.noise_only)}
    if earlier:
        # The earlier part's inputs as they are; its failures and row notes beside this part's.
        results['contents'] = earlier['contents']
        # the parts before this one (a resumed run that stopped early lists itself as its last part)
        earlier_parts = earlier.get('parts') or [part_facts(earlier, 0, earlier.get('skipped', []))]
        first = len(earlier['contents'])
        pipe.failed = {k: list(v) for k, v in earlier.get('failed', {}).items()}
        if pipe.gpu_peers and earlier.get('gpu_peers'):
            pipe.gpu_peers.restore(earlier['gpu_peers'])
            results['gpu_peers'] = pipe.gpu_peers.table()
            say(f"GPU peers: vs-nlm-cuda's h of the earlier part: {results['gpu_peers']['h']}")
        say(f"--resume {args.resume}: {len(results['contents'])} input(s) done there: "
            f"{', '.join(c['id'] for c in results['contents'])}")
    elif pipe.gpu_peers:
        # vs-nlm-cuda's h: swept on the first moving clips (two), at each sigma, before the report runs
        cal = [s for s in preset.clips if s.motion_class == 'moving' and not s.gray][:2] or preset.clips[:1]
        say(f"GPU peers: calibrating vs-nlm-cuda's h on {', '.join(s.id or s.name for s in cal)}")
        contents = [prepare_clip(env, s, args.data, work, preset) for s in cal]
        pipe.gpu_peers.calibrate(contents, config.SIGMAS, pipe._noisy)
        results['gpu_peers'] = pipe.gpu_peers.table()
    # Clips first (video is what cudadenoise is for); the report is rewritten after each input, so a run
    # stopped early (a time limit) still leaves a report of what it finished, marked incomplete.
    todo = [('clip', c) for c in preset.clips] + [('compressed', c) for c in preset.compressed] + \
        [('still', s) for s in preset.stills]
    if args.noise_only:   # the inputs that get a real-like noise condition (no compressed clip does)
        todo = [(k, s) for k, s in todo if k != 'compressed' and not getattr(s, 'gray', False) and
                (preset.noise_for is None or (s.id or s.name if k == 'clip' else s.name) in preset.noise_for)]
    prepare = {'clip': prepare_clip, 'still': prepare_still, 'compressed': prepare_compressed}
    done = {c['id'] for c in results['contents']}
    for kind, spec in todo:
        try:
            c = prepare[kind](env, spec, args.data, work, preset)
        except HarnessError as e:
            if kind != 'compressed':
                raise
            say(f'{spec.name}: left out: {e}')
            continue
        if c.id in done:
            continue  # finished by the earlier part (--resume)
        if not args.noise_only:   # the peers' frames (none run with --noise-only)
            check_passthrough(env, c, work)
        say(f'{c.id}: {c.width}x{c.height} {c.format} x{c.frames} ({c.title})')
        if env.opencv and results['opencv_version'] is None and 'ocv-nlm' not in skip and not args.noise_only:
            ocv = opencv_facts(env, work, c)
            results['opencv_version'], results['opencv_framework'] = ocv['opencv'], ocv['framework']
        cd = dataclasses.asdict(c)
        cd.update(group=c.group, zoom=preset.zoom, conditions={}, figures={})
        if not c.degraded and not args.noise_only:
            for s in sorted(config.SIGMAS + (() if getattr(spec, 'gray', False) else tuple(preset.defaults_sigmas))):
                say(f'{c.id}: sigma {s}')
                cd['conditions'][f's{s}'] = pipe.condition(c, f's{s}', s, defaults_only=s not in config.SIGMAS)
                n = cd['conditions'][f's{s}']['noisy']['planes'][0]
                say(f"  {c.id} s{s}: noisy PSNR Y {n['psnr']:.3f} dB (expected {n['expected_noisy_psnr']:.3f})")
        if c.kind == 'clip' and not getattr(spec, 'gray', False) and not args.noise_only:
            # the peers take the estimate, at least 1 (0, the estimate of a clean frame, is hqdn3d's "default")
            est = max(1.0, pipe.estimate_sigma(c))
            say(f'{c.id}: as it is (cudadenoise with auto sigma, the peers with sigma {est:.2f}: the estimate, '
                'at least 1)')
            cd['conditions']['asis'] = pipe.condition(c, 'asis', est)
        # real-like noise (issue 37): kept apart from the AWGN conditions, whose tables key on sigma
        conds, left_out = noise_runs.plan(preset, spec, c)
        cd['noise_conditions'], cd['noise_left_out'] = {}, left_out
        for key, why in left_out.items():
            say(f'{c.id}: {key} left out: {why}')
        for nc in conds:
            say(f'{c.id}: {nc.key} ({nc.label})')
            cd['noise_conditions'][nc.key] = noise_runs.run_condition(pipe, c, nc)
        if figures and preset.crops_figures and not args.noise_only and (preset.crops_for is None or c.id in preset.crops_for):
            for cond in [x for x in [f's{config.TIMING_SIGMA}', 'asis'] if x in cd['conditions']]:
                name = f"crops-{c.id}-{cond}.png"
                figures.crops(env, cd, cond, os.path.join(fig_dir, name), facts, pipe.primary)
                cd['figures'][cond] = name
        results['contents'].append(cd)
        results['skipped_rows'] = {f'{m}-{t}': why for (m, t), why in pipe.skipped_rows.items()}
        results['failed'] = pipe.failed
        if earlier:
            results['parts'] = earlier_parts + [part_facts(results, first, skip)]
        write_outputs(results, out, fig_dir, work)
        say(f'{c.id}: done; {out}/RESULTS.md written ({len(results["contents"])} of {len(todo)} inputs)')
    results['complete'] = True
    if earlier:
        results['parts'] = earlier_parts + [part_facts(results, first, skip)]
    write_outputs(results, out, fig_dir, work)
    say(f'wrote {out}/RESULTS.md and {fig_dir}/ ({len(os.listdir(fig_dir))} files)')
    if not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return results


def part_facts(results, first, skip):
    """One part of a resumed report: when, what build and GPU, the inputs it ran (those from index
    `first` of results['contents']), what it left out."""
    return {'date': results['facts']['date'], 'commit': results['facts']['commit'],
            'gpu': results['facts']['gpu_long'], 'inputs': [c['id'] for c in results['contents']][first:],
            'skipped': list(skip)}


def load_resumed(path, preset, facts, gpu_peers, noise_only=False):
    """An earlier run's results.json that stopped early (its time limit), to go on from: the same preset,
    build, GPU and GPU peers (run or not), or the parts would not compare."""
    with open(path) as f:
        earlier = json.load(f)
    if not isinstance(earlier, dict) or not all(k in earlier for k in ('preset', 'facts', 'contents')):
        raise HarnessError(f'--resume {path}: not a results.json of report.py')
    if earlier.get('complete'):
        raise HarnessError(f'--resume {path}: that run is complete')
    problems = [what for what, a, b in (('preset', earlier['preset'].get('name'), preset.name),
                                        ('cudadenoise build', earlier['facts'].get('commit'), facts['commit']),
                                        ('GPU', earlier['facts'].get('gpu_long'), facts['gpu_long']),
                                        ('GPU peers setting (run or not)', bool(earlier.get('gpu_peers')), gpu_peers),
                                        ('--noise-only setting', bool(earlier.get('noise_only')), noise_only))
                if a != b]
    if problems:
        raise HarnessError(f"--resume {path}: another {', '.join(problems)} than this run's")
    return earlier


def write_outputs(results, out, fig_dir, work=None, draw=True):
    if results.get('noise_only'):
        markdown.write_noise_only(results, os.path.join(out, 'RESULTS.md'), noise_table.lines(
            results, 'cuda' if results['facts'].get('gpu') else 'cpu'))
        write_json(results, fig_dir, work)
        return
    groups = markdown.aggregate(results)
    extra = summary.summaries(results, groups, 'results')
    if figures and draw:
        for g in groups:
            figures.speed_plot(g, os.path.join(fig_dir, f"plot-{g['slug']}.png"), results['facts'])
        for name, plot in extra['plots'].items():
            figures.summary_plot(plot, os.path.join(fig_dir, name), results['facts'])
        results['figures_drawn'] = True
    markdown.write(results, groups, os.path.join(out, 'RESULTS.md'), 'results', extra)
    write_json(results, fig_dir, work)


def write_json(results, fig_dir, work):
    with open(os.path.join(fig_dir, 'results.json.part'), 'w') as f:
        json.dump(strip_paths(results, work) if work else results, f, indent=1, sort_keys=True)
    os.replace(os.path.join(fig_dir, 'results.json.part'), os.path.join(fig_dir, 'results.json'))


def draw_only(args):
    """Plots and RESULTS.md from a run's results.json (a GPU host without matplotlib); crops figures need the
    run's outputs and are only drawn by the run itself."""
    if figures is None:
        raise HarnessError(f'--draw-only needs matplotlib: {NO_FIGURES}')
    with open(args.draw_only) as f:
        results = json.load(f)
    out = os.path.abspath(args.out)
    fig_dir = os.path.join(out, 'results')
    os.makedirs(fig_dir, exist_ok=True)
    write_outputs(results, out, fig_dir)
    print(f'report.py: drew {out}/RESULTS.md and the plots in {fig_dir}/ from {args.draw_only}')


def strip_paths(obj, work):
    """results.json without the work directory's paths (they do not outlive the run)."""
    if isinstance(obj, dict):
        return {k: strip_paths(v, work) for k, v in obj.items()}
    if isinstance(obj, list):
        return [strip_paths(v, work) for v in obj]
    if isinstance(obj, str) and obj.startswith(work):
        return os.path.relpath(obj, work)
    return obj


def main():
    ap = argparse.ArgumentParser(description='quality-and-speed report of cudadenoise and its peers (issue 7)')
    ap.add_argument('--preset', choices=sorted(config.PRESETS), default='full')
    ap.add_argument('--quick', dest='preset', action='store_const', const='quick', help='= --preset quick')
    ap.add_argument('--tiny', dest='preset', action='store_const', const='tiny', help='= --preset tiny (CI)')
    ap.add_argument('--build', default=os.environ.get('CDN_BUILD_DIR', 'build'), help='build directory (default build)')
    ap.add_argument('--out', default=os.path.join(ROOT, 'docs'), help='where RESULTS.md and results/ go (default docs)')
    ap.add_argument('--data', default=os.environ.get('CDN_TEST_DATA', os.path.join(ROOT, '.testdata')))
    ap.add_argument('--work', help='work directory (default: a temporary one, removed at the end)')
    ap.add_argument('--keep', action='store_true', help='keep the temporary work directory')
    ap.add_argument('--bundle', choices=('auto', 'yes', 'no'), default='auto',
                    help='use .gpu-runtime for ffmpeg (auto: when no ffmpeg is on the PATH)')
    ap.add_argument('--skip', action='append', default=[], metavar='METHOD',
                    help='leave a method out (a peer: hqdn3d nlmeans atadenoise ffmpeg-bm3d ocv-nlm ocv-nlm-multi; a mode; '
                         'MODE:cpu; a variant of harness/config.py VARIANTS, as MODE-TAG (hybrid-quality) or TAG '
                         '(quality) for all its modes; or cpu for the whole cudadenoise CPU backend on a GPU host); '
                         'repeatable')
    ap.add_argument('--calibrate', action='store_true', help='sweep the peers\' strengths into peer_params.json')
    ap.add_argument('--calibrate-peers', metavar='KEYS', help='--calibrate: only these peers (comma-separated), merged '
                    'into the table there is')
    ap.add_argument('--calibrate-sigmas', metavar='LIST', help='--calibrate: only these sigmas (comma-separated), '
                    'merged into the table there is')
    ap.add_argument('--gpu-peers', metavar='DIR', help='the GPU peers\' drivers (bm3dcuda-run, nlmcuda-run: '
                    '../shared/peers/README.md), e.g. .peers/bin, or auto (.peers/bin when there and a GPU is); '
                    'default: not run')
    ap.add_argument('--resume', metavar='RESULTS_JSON', help='go on from a run stopped early (its results.json, '
                    'the same preset, build and GPU): keep its inputs, run the others (two device calls for a report '
                    'longer than one)')
    ap.add_argument('--noise-only', action='store_true', help='only the real-like noise conditions (harness/config.py '
                    'NOISE_CONDITIONS, NOISE_ROWS) on the preset\'s inputs that get them: RESULTS.md has their table '
                    'alone (no AWGN, peers, figures)')
    ap.add_argument('--draw-only', metavar='RESULTS_JSON', help='draw the plots and write RESULTS.md into --out '
                    'from a run\'s results.json (a GPU host without matplotlib), nothing else')
    args = ap.parse_args()
    t0 = time.monotonic()
    try:
        if args.draw_only:
            draw_only(args)
        elif args.calibrate:
            from harness import calibrate
            calibrate.run(args, ROOT)
        else:
            run_report(args)
    except HarnessError as e:
        print(f'report.py: {e}', file=sys.stderr)
        return 1
    print(f'report.py: done in {time.monotonic() - t0:.0f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
