# noise_runs.py: the real-like noise conditions of the report (issue 37; config.NOISE_CONDITIONS and
# config.NOISE_ROWS; docs/EVALUATION.md, "Real-like noise"): which inputs get which condition, the
# noisy frames (`cudadenoise-eval prepare`, which also measures the true mean sigma and the level-set fit
# of noisy - clean), the rows of cudadenoise run on them on the primary backend (quality only), measured
# against the clean frames (the camera model: against its own frames without noise).
import dataclasses
import os

from . import config
from .env import HarnessError



def plan(preset, spec, c):
    """(conditions to run, {key: why left out}) for content c (made from spec) under the preset."""
    if c.degraded or getattr(spec, 'gray', False):
        return [], {}   # compressed clips, the luma-only timing clip: not inputs of these conditions
    if preset.noise_for is not None and c.id not in preset.noise_for:
        return [], {}
    run, out = [], {}
    for nc in config.NOISE_CONDITIONS:
        if nc.key not in preset.noise_conditions:
            continue
        if nc.camera and c.format == 'GRAY8':
            out[nc.key] = 'the camera model needs colour frames (this input is gray)'
        else:
            run.append(nc)
    return run, out


def _prepare(pipe, c, nc):
    """The noisy frames of condition nc (and for clips the measured ones alone); the reference content
    (the camera model's noise-free frames for camera conditions); prepare's JSON (what was added)."""
    d = os.path.join(os.path.dirname(c.clean), nc.key)
    os.makedirs(d, exist_ok=True)
    files = {'dir': d, 'noisy': os.path.join(d, 'noisy.y4m')}
    args = ['prepare', '--input', c.clean, '--seed-base', str(nc.seed), '--noisy-out', files['noisy']] + \
        list(nc.prepare_flags)
    ref = c
    if nc.camera:
        files['camera_clean'] = os.path.join(d, 'camera-clean.y4m')
        args += ['--camera-clean-out', files['camera_clean']]
    facts = pipe.env.eval_json(args, f'noise {nc.key}')[0]
    if nc.camera:
        ref = dataclasses.replace(c, clean=files['camera_clean'])
    if c.kind == 'clip':
        files['eval'] = os.path.join(d, 'noisy-eval.y4m')
        pipe.env.eval_json(['prepare', '--input', files['noisy'], '--start', str(c.eval_start), '--frames',
                            str(c.eval_count), '--clean-out', files['eval']], 'eval frames')
        if nc.camera:
            ref.clean_eval = os.path.join(d, 'camera-clean-eval.y4m')
            pipe.env.eval_json(['prepare', '--input', ref.clean, '--start', str(c.eval_start), '--frames',
                                str(c.eval_count), '--clean-out', ref.clean_eval], 'eval frames')
    return files, ref, facts


def noise_flags(row, facts):
    """(--noise-sigma value, the other flags) that tell the mode what row.noise says; facts: prepare's JSON."""
    if row.noise == 'auto':
        return 0.0, ()
    if row.noise == 'true-sigma':
        return facts['true_sigma_luma'], ()
    if row.noise == 'true-model':
        a, b = (facts['noise_a'], facts['noise_b']) if 'noise_a' in facts else \
            (facts['residual_fit_a'], facts['residual_fit_b'])
        return 0.0, ('--noise-model', 'signal', '--noise-a', f'{a:.6g}', '--noise-b', f'{b:.6g}')
    if row.noise == 'auto-model':
        return 0.0, ('--noise-model', 'signal')
    raise HarnessError(f'noise row {row.method}: unknown noise kind {row.noise!r} (config.NOISE_KINDS)')


def _usable(pipe, row, flags):
    """Whether this build can run the row: its mode, and the flags `denoise` knows (else skipped, once)."""
    key = (row.mode, row.tag)
    if key in pipe.skipped_rows:
        return False
    why = None
    if row.mode not in {m['name'] for m in pipe.modes}:
        why = f"mode '{row.mode}' is not in this build"
    else:
        unknown = [f for f in flags[::2] if f.startswith('--') and f not in pipe.denoise_flags]
        if unknown:
            why = f"`cudadenoise-eval denoise` does not know {', '.join(unknown)}"
    if why:
        pipe.skipped_rows[key] = why
        pipe.say(f'noise row {row.method} skipped: {why}')
    return why is None


def run_condition(pipe, c, nc):
    """One real-like noise condition on content c: every row of config.NOISE_ROWS this build can run."""
    files, ref, facts = _prepare(pipe, c, nc)
    backend = pipe.primary
    gpu = backend == 'cuda'
    temporal = {m['name']: m['temporal'] for m in pipe.modes}
    out_dir = os.path.join(files['dir'], 'out')
    os.makedirs(out_dir, exist_ok=True)
    runs = []
    for row in config.NOISE_ROWS:
        sigma, extra = noise_flags(row, facts)
        flags = tuple(row.flags) + extra
        if row.mode in pipe.skip or row.method in pipe.skip or f'{row.method}:{backend}' in pipe.skip:
            continue
        if not _usable(pipe, row, flags):
            continue
        if temporal.get(row.mode) and c.kind == 'clip' and not gpu and not pipe.preset.cpu_temporal_clips:
            continue   # as the AWGN conditions: a CPU pass of a temporal mode over a clip takes minutes
        whole = c.kind == 'still' or temporal.get(row.mode)
        args = ['denoise', '--input', files['noisy'] if whole else files['eval'], '--out-dir', out_dir,
                '--modes', row.mode, '--backends', backend, '--noise-sigma', f'{sigma:.4f}', '--warmup', '0',
                '--repeat', '1', '--tag', row.tag] + list(flags)
        if not gpu:
            args += ['--max-seconds', str(pipe.preset.cpu_max_seconds)]
        try:
            out = pipe.env.eval_json(args, f'cudadenoise {row.method} on {backend}')
            bad = [r for r in out if 'error' in r]
            if bad:
                raise HarnessError('; '.join(r['error'] for r in bad))
        except HarnessError as e:
            why = str(e).strip().splitlines()[-1][:300]
            pipe.failed.setdefault(f'{row.method}:{backend}', []).append(f'{c.id} {nc.key}: {why}')
            pipe.say(f'  {c.id} {nc.key}: {row.method} on {backend} FAILED, left out: {why}')
            continue
        for r in out:
            clean, frames = pipe._measure_target(ref, whole)
            told = {'auto': 'sigma auto', 'true-sigma': f'sigma {sigma:.3g}', 'auto-model': 'noise-model=signal, auto',
                    'true-model': 'noise-model=signal ' + ' '.join(f'{k[2:]}={v}' for k, v in zip(extra[2::2],
                                                                                               extra[3::2]))}
            runs.append({
                'id': f"{row.method}:{r['backend']}", 'method': row.method, 'mode': r['mode'], 'tag': row.tag,
                'label': row.note or row.method, 'noise_row': row.noise,
                'family': 'cudadenoise GPU' if r['backend'] == 'cuda' else 'cudadenoise CPU',
                'backend': r['backend'], 'kind': 'temporal' if r['temporal'] else 'spatial', 'output': r['output'],
                'whole': bool(whole), 'clean': clean, 'frames': frames, 'device_ms': None, 'e2e_ms': None,
                'samples': r['e2e_samples'], 'timing_frames': 1, 'threads': r['threads'] or None,
                'settings': ' '.join(f'{k[2:]}={v}' for k, v in zip(row.flags[::2], row.flags[1::2])) +
                            (', ' if row.flags else '') + told[row.noise],
            })
    result = {'condition': nc.key, 'label': nc.label, 'runs': runs, 'noise': facts}
    pipe._measure(ref, files, None, result)
    result['reference'] = 'the camera pipeline without noise' if nc.camera else 'the clean input'
    result['files'] = files
    pipe.say(f"  {c.id} {nc.key}: noisy PSNR Y {result['noisy']['planes'][0]['psnr']:.3f} dB, true mean sigma "
             f"{facts['true_sigma_luma']:.3f}, fit of noisy - clean: a {facts['residual_fit_a']:.3f} "
             f"b {facts['residual_fit_b']:.3f}")
    return result
