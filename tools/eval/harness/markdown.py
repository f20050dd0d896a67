# markdown.py: docs/RESULTS.md from a run's results: the summary (which mode
# for which job), one table per group of same-sized inputs, the crops and plots,
# the details per input, the noise check, the peers' settings and how it was
# all measured. Every number in it comes from the run.
import math
import os

from . import config, peers
from .names import SERIES_ORDER, method_name


def _family_rank(family):
    return SERIES_ORDER.index(family) if family in SERIES_ORDER else len(SERIES_ORDER)


def _mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def _median(v):
    v = sorted(x for x in v if x is not None)
    n = len(v)
    return None if n == 0 else (v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2]))


def _f(v, fmt='{:.2f}', none='–'):
    return none if v is None else fmt.format(v)


def _ms(v):
    if v is None:
        return '–'
    return f'{v:.3f}' if v < 10 else (f'{v:.1f}' if v < 1000 else f'{v:.0f}')


def aggregate(results):
    """Groups of contents with one size and format: per method, mean PSNR/SSIM and median times."""
    groups = {}
    for c in results['contents']:
        if c.get('degraded'):   # compressed clips: the defaults table (summaries)
            continue
        g = groups.setdefault(c['group'], {'name': c['group'], 'kind': c['kind'], 'contents': [], 'rows': [],
                                           'noisy_psnr': {}, 'slug': c['group'].replace(' ', '-').replace(':', '')})
        g['contents'].append(c['id'])
    for g in groups.values():
        cs = [c for c in results['contents'] if c['group'] == g['name'] and not c.get('degraded')]
        ids = []
        for c in cs:
            for cond in c['conditions'].values():
                for r in cond['runs']:
                    if r['id'] not in ids:
                        ids.append(r['id'])
        for s in config.SIGMAS:
            g['noisy_psnr'][s] = _mean([c['conditions'][f's{s}']['noisy']['planes'][0]['psnr'] for c in cs])
        g['ffmpeg_null_ms'] = _median([c['conditions'][f's{config.TIMING_SIGMA}'].get('ffmpeg_null_ms') for c in cs])
        g['luma_only'] = False
        for rid in ids:
            row = {'id': rid, 'psnr': {}, 'ssim': {}, 'psnr_all': {}}
            for s in config.SIGMAS:
                runs = [r for c in cs for r in c['conditions'][f's{s}']['runs'] if r['id'] == rid]
                if not runs:
                    continue
                row.setdefault('run', runs[0])
                row['psnr'][s] = _mean([r['quality']['planes'][0]['psnr'] for r in runs])
                row['ssim'][s] = _mean([r['quality']['planes'][0]['ssim'] for r in runs])
                row['psnr_all'][s] = None if runs[0].get('luma_only') else _mean([r['quality']['all']['psnr'] for r in runs])
                if s == config.TIMING_SIGMA:
                    row['device_ms'] = _median([r['device_ms'] for r in runs])
                    row['e2e_ms'] = _median([r['e2e_ms'] for r in runs])
                    row['timed_run'] = runs[0]
            if 'run' not in row:
                continue
            r = row.get('timed_run', row['run'])
            row.setdefault('device_ms', None)
            row.setdefault('e2e_ms', None)
            row.update(name=method_name(r), family=r['family'], threads=r.get('threads'), backend=r['backend'],
                       settings=r['settings'], kind=r['kind'], timing_frames=r.get('timing_frames', 1))
            g['rows'].append(row)
        g['rows'].sort(key=lambda r: _family_rank(r['family']))   # stable: first appearance within a family
    return list(groups.values())


def _summary(groups, facts):
    s = config.TIMING_SIGMA
    out = []
    for g in groups:
        gpu = [r for r in g['rows'] if r['family'] == 'cudadenoise GPU' and r['psnr'].get(s) is not None]
        ours = gpu or [r for r in g['rows'] if r['family'] == 'cudadenoise CPU' and r['psnr'].get(s) is not None]
        others = [r for r in g['rows'] if not r['family'].startswith('cudadenoise') and r['psnr'].get(s) is not None]
        if not ours:
            continue
        t = lambda r: r['device_ms'] if r['device_ms'] is not None else r['e2e_ms']
        noisy = g['noisy_psnr'].get(s)
        best = max(ours, key=lambda r: r['psnr'][s])
        fast = min(ours, key=lambda r: t(r) if t(r) is not None else math.inf)
        line = (f"- **{g['name']}** (sigma {s}, noisy {_f(noisy)} dB): best quality **{best['name']}** "
                f"{_f(best['psnr'][s])} dB in {_ms(t(best))} ms per frame; fastest **{fast['name']}** "
                f"{_f(fast['psnr'][s])} dB in {_ms(t(fast))} ms")
        if others:
            bp = max(others, key=lambda r: r['psnr'][s])
            if bp['family'] == 'GPU peers':   # device time, like ours above
                line += f"; best peer **{bp['name']}** {_f(bp['psnr'][s])} dB in {_ms(t(bp))} ms on the GPU"
            else:                             # a CPU filter: the whole loop
                where = f"{bp['threads']} CPU threads" if bp['threads'] else 'the CPU'
                line += f"; best peer **{bp['name']}** {_f(bp['psnr'][s])} dB in {_ms(bp['e2e_ms'])} ms on {where}"
        out.append(line + '.')
    return out


def _variants_sentence():
    """The settings the report runs besides the defaults (config.ROWS), as a clause."""
    parts = [f"{r.mode} `{r.tag}` ({r.text}{', window ' + r.window if r.window else ''})" for r in config.ROWS]
    return ('; and the rows of harness/config.py: ' + '; '.join(parts) +
            ' (the quality settings of pipd and hybrid: docs/PIPD.md; the BM3D profiles: docs/BM3D.md)') if parts else ''


def _group_table(g):
    s = config.TIMING_SIGMA
    head = ('| method | where | GPU ms/frame | end-to-end ms/frame | ' +
            ' | '.join(f'PSNR Y σ{x}' for x in config.SIGMAS) + f' | SSIM Y σ{s} | PSNR all planes σ{s} |')
    lines = [head, '|' + ' --- |' * (4 + len(config.SIGMAS) + 2)]
    lines.append('| noisy input | | | | ' + ' | '.join(_f(g['noisy_psnr'].get(x)) for x in config.SIGMAS) + ' | | |')
    for r in g['rows']:
        where = ('GPU, luma only' if r['family'] == 'GPU peers' else 'GPU' if r['backend'] == 'cuda' else
                 f"CPU, {r['threads']} threads" if r['threads'] else 'CPU')
        lines.append(f"| {r['name']} | {where} | {_ms(r['device_ms'])} | {_ms(r['e2e_ms'])} | " +
                     ' | '.join(_f(r['psnr'].get(x)) for x in config.SIGMAS) +
                     f" | {_f(r['ssim'].get(s), '{:.4f}')} | {_f(r['psnr_all'].get(s))} |")
    return lines


def _content_table(c):
    s = config.TIMING_SIGMA
    colour = c['format'] != 'GRAY8'
    head = '| method | ' + ' | '.join(f'PSNR Y σ{x}' for x in config.SIGMAS) + ' | ' + \
        ' | '.join(f'SSIM Y σ{x}' for x in config.SIGMAS) + (f' | PSNR Cb σ{s} | PSNR Cr σ{s}' if colour else '') + ' |'
    n = 1 + 2 * len(config.SIGMAS) + (2 if colour else 0)
    lines = [head, '|' + ' --- |' * n]
    conds = {x: c['conditions'][f's{x}'] for x in config.SIGMAS}
    nz = lambda x, k, i: conds[x]['noisy']['planes'][i][k]
    row = '| noisy input | ' + ' | '.join(_f(nz(x, 'psnr', 0)) for x in config.SIGMAS) + ' | ' + \
        ' | '.join(_f(nz(x, 'ssim', 0), '{:.4f}') for x in config.SIGMAS)
    if colour:
        row += f" | {_f(nz(s, 'psnr', 1))} | {_f(nz(s, 'psnr', 2))}"
    lines.append(row + ' |')
    ids = []
    for x in config.SIGMAS:
        for r in conds[x]['runs']:
            if r['id'] not in ids:
                ids.append(r['id'])
    first = {}
    for x in config.SIGMAS:
        for r in conds[x]['runs']:
            first.setdefault(r['id'], r)
    ids.sort(key=lambda i: _family_rank(first[i]['family']))
    for rid in ids:
        get = {x: next((r for r in conds[x]['runs'] if r['id'] == rid), None) for x in config.SIGMAS}
        any_run = next(r for r in get.values() if r)
        q = lambda x, k, i: (get[x]['quality']['planes'][i][k]
                             if get[x] and i < len(get[x]['quality']['planes']) else None)
        row = f'| {method_name(any_run)} | ' + ' | '.join(_f(q(x, 'psnr', 0)) for x in config.SIGMAS) + ' | ' + \
            ' | '.join(_f(q(x, 'ssim', 0), '{:.4f}') for x in config.SIGMAS)
        if colour:
            row += f" | {_f(q(s, 'psnr', 1))} | {_f(q(s, 'psnr', 2))}"
        lines.append(row + ' |')
    return lines


def _noise_table(results):
    lines = ['| input | σ | PSNR Y measured | PSNR Y expected | 20 log10(255/σ) | Δ (measured − expected) | '
             'PSNR all planes measured | expected |', '|' + ' --- |' * 8]
    for c in results['contents']:
        for x in sorted(int(k[1:]) for k in c['conditions'] if k.startswith('s')):
            n = c['conditions'][f's{x}']['noisy']
            y, a = n['planes'][0], n['all']
            lines.append(f"| {c['id']} | {x} | {y['psnr']:.3f} | {y['expected_noisy_psnr']:.3f} | "
                         f"{20 * math.log10(255 / x):.3f} | {y['psnr'] - y['expected_noisy_psnr']:+.3f} | "
                         f"{a['psnr']:.3f} | {a['expected_noisy_psnr']:.3f} |")
    return lines


def _peer_table(params):
    levels = sorted(config.SIGMAS + config.DEFAULTS_SIGMAS)
    lv = ' / '.join(f'σ{x}' for x in levels)
    lines = [f'| peer | fixed settings | strength knob(s) | photos: {lv} | video: {lv} |',
             '| --- | --- | --- | --- | --- |']
    for p in peers.PEERS:
        cells = []
        for kind in ('still', 'clip'):
            if kind == 'still' and not p.on_stills:
                cells.append('not run (needs neighbouring frames)')
                continue
            vals = []
            for x in levels:
                v = peers.params_for(params, p, kind, x)
                vals.append(', '.join(f'{v[k.name]:.4g}' for k in p.knobs))
            cells.append(' / '.join(vals))
        lines.append(f"| {p.label} ({p.family}) | {p.fixed} | {', '.join(k.name for k in p.knobs)} | "
                     f"{cells[0]} | {cells[1]} |")
    return lines


def _header(results, title):
    f, pre = results['facts'], results['preset']
    L = [f'# {title}', '',
         f"Generated by `tools/eval/report.py --preset {pre['name']}{' --noise-only' if results.get('noise_only') else ''}` "
         f"on {f['date']} (cudadenoise {f['commit']}). Do not edit: run it again (docs/EVALUATION.md).", '',
         f"- GPU: {f['gpu_long']}", f"- CPU: {f['cpu']}, {f['cpu_threads']} threads", '']
    if not results.get('complete', True):
        L += [f"**Incomplete: the run stopped after {len(results['contents'])} input(s).**", '']
    if results.get('parts'):
        L += [f"Run in {len(results['parts'])} parts (`--resume`), the same preset, build and GPU:"]
        L += [f"- {p['date']}: {', '.join(p['inputs'])}" for p in results['parts']] + ['']
    return L


def write_noise_only(results, path, noise_lines):
    """RESULTS.md of `report.py --noise-only`: the real-like noise table alone (harness/noise_table.py)."""
    L = _header(results, 'Results: cudadenoise on real-like noise') + noise_lines
    if results.get('failed'):
        L += ['**Runs that failed** (left out of the table): ' + '; '.join(
            f"`{k}`: {len(v)} run(s), e.g. {v[0]}" for k, v in sorted(results['failed'].items())) + '.', '']
    with open(path + '.part', 'w') as fh:
        fh.write('\n'.join(L))
    os.replace(path + '.part', path)


def write(results, groups, path, fig_dir_rel, extra=None):
    f, pre = results['facts'], results['preset']
    s = config.TIMING_SIGMA
    L = ['# Results: quality and speed of cudadenoise and its peers', '',
         f"Generated by `tools/eval/report.py --preset {pre['name']}` on {f['date']} (cudadenoise {f['commit']}). "
         'Do not edit: run it again (docs/EVALUATION.md).', '',
         f"- GPU: {f['gpu_long']}",
         f"- CPU: {f['cpu']}, {f['cpu_threads']} threads available: FFmpeg (`-filter_threads`) and OpenCV "
         f"(`cv::setNumThreads`, {results.get('opencv_framework') or 'n/a'}) use {f['cpu_threads']}, the "
         f"cudadenoise CPU backend its {results['info'].get('hardware_threads')} hardware threads",
         f"- {f['ffmpeg']} ({f['ffmpeg_from']}); OpenCV {results.get('opencv_version', 'not built')}; "
         f"Python {f['python']}", '']
    if not results.get('complete', True):
        L += [f"**Incomplete: the run stopped after {len(results['contents'])} input(s).**", '']
    if results.get('parts'):
        L += [f"Run in {len(results['parts'])} parts (`--resume`), the same preset, build and GPU:"]
        L += [f"- {p['date']}: {', '.join(p['inputs'])}"
              + (f" (left out: {', '.join(p['skipped'])})" if p['skipped'] else '') for p in results['parts']]
        L += ['']
    if not f['gpu']:
        L += ['**No GPU was used for this report: every cudadenoise figure is its CPU backend.**', '']
    if results.get('skipped'):
        L += [f"Left out of this run (`--skip`): {', '.join(results['skipped'])}.", '']
    L += ['## Summary', ''] + _summary(groups, f) + ['']
    if extra:
        L += extra['lines']
    for g in groups:
        L += [f"## {g['name']}", '', f"Inputs: {', '.join(g['contents'])}. Times at σ{s}, medians; PSNR and SSIM "
              'of the luma plane, mean over the inputs. FFmpeg times include reading and writing the frames '
              f"(y4m through a pipe): {_ms(g['ffmpeg_null_ms'])} ms per frame with a `null` filter.", '']
        L += _group_table(g) + ['']
        if results.get('figures_drawn', True):
            L += [f"![speed against quality, {g['name']}]({fig_dir_rel}/plot-{g['slug']}.png)", '']
    L += ['## Crops', ''] + ([] if results.get('figures_drawn', True) else
                             ['Not drawn: the host that ran the report had no matplotlib.', ''])
    for c in results['contents']:
        for cond in c['figures']:
            L += [f"![{c['id']} {cond}]({fig_dir_rel}/{c['figures'][cond]})", '']
    L += ['## Per input', '']
    for c in results['contents']:
        if c.get('degraded'):
            continue
        L += [f"### {c['title']}", '', c['description'] + f" ({c['width']}x{c['height']} {c['format']}" +
              (f", frames {c['eval_start']}–{c['eval_start'] + c['eval_count'] - 1} of {c['frames']} measured)"
               if c['kind'] == 'clip' else ')'), ''] + _content_table(c) + ['']
    L += ['## Noise check', '',
          'The noise added is what it says: the measured PSNR of each noisy input against the PSNR expected from '
          'the clean input and σ, with clipping to 0..255 and rounding taken into account (tools/eval/'
          'expected_noise.h); 20 log10(255/σ) is the value without clipping.', ''] + _noise_table(results) + ['']
    L += ['## Peers and their settings', '',
          'Fixed settings are the documented defaults or recommendations. The strength that must follow the noise '
          'has no documented mapping to σ for any of these filters; it is the best value (luma PSNR) of a sweep on '
          f"content the report does not measure ({results['calibration']}; box.mp4 is a report clip, its "
          f"frames 100 to 111 are not), per σ, "
          'interpolated in between (tools/eval/peer_params.json, `report.py --calibrate`). cudadenoise runs its '
          'defaults, with σ given to the modes that take one' + _variants_sentence() + '.', ''] + \
        _peer_table(results['params']) + ['']
    notes = sorted({f"{r['label']}: {r['note']}" for c in results['contents'] for cond in c['conditions'].values()
                    for r in cond['runs'] if r.get('note')})
    if notes:
        L += ['Notes: ' + '; '.join(notes) + '.', '']
    L += ['## How it was measured', '']
    L += [f"- Noise: AWGN of σ {', '.join(map(str, config.SIGMAS))} (8-bit code values) added to every plane of "
          'the YCbCr frames by kernels/include/cudadenoise/noise.h; frame f at σ gets seed 1000 σ + 1 + f' +
          (f" (σ {', '.join(map(str, results.get('defaults_sigmas', [])))} for the defaults table's rows only)"
           if results.get('defaults_sigmas') else '') + '. Clips are also run as they are, without added noise: '
          'cudadenoise with its automatic sigma, the peers with the σ kernels/include/cudadenoise/noise_estimate.h estimates on the '
          'measured frame (at least 1); measured against the input (compressed clips: against the source they were encoded '
          'from).',
          '- Photos are filtered as GRAY8 or Y444 (BT.601 full range), clips as 4:2:0 as decoded; every method '
          'reads and writes the same lossless y4m frames (an FFmpeg `null` pass was checked to give them back '
          'unchanged) and every method filters every plane.',
          f"- Quality: PSNR (peak 255) and SSIM (11x11 Gaussian window) from kernels/include/cudadenoise/metrics.h, per plane; on "
          f"clips over the middle {pre['eval_frames']} of {pre['clip_frames']} frames (MSE averaged over the "
          'frames, SSIM averaged). Deterministic: the same inputs give the same quality numbers.',
          ] + ([
          f"- cudadenoise GPU: 'GPU ms/frame' is device time on frames already in GPU memory (per-frame modes: CUDA "
          f"events around StreamDenoiser::enqueue; temporal modes: the StreamDenoiser feed/drain loop on device frames "
          f"over a stream of {pre['temporal_timing_frames']} frames, the clip played back and forth, "
          f"{pre['temporal_repeat']} runs after one warm-up run; photos: one-frame streams); 'end-to-end' "
          'adds upload and download from host memory. Medians of '
          f"{pre['gpu_repeat']} samples (per-frame modes: at least one per frame) after {pre['gpu_warmup']} "
          'warm-up run(s).'] if f['gpu'] else []) + [
          f"- cudadenoise CPU: the reference backend on all {f['cpu_threads']} threads"
          + (f", at σ {s} only (for its time; its quality there is in the tables)" if f['gpu'] else '') +
          f", median of {pre['cpu_repeat']} samples after {pre['cpu_warmup']} warm-up run(s), fewer where "
          f"{pre['cpu_max_seconds']:g} s did not allow more (never less than one per frame); its temporal mode is "
          'timed over one pass of the input' + ('' if pre['cpu_temporal_clips'] else
                                                ' and on photos only (one CPU pass over a clip takes minutes)') + '.',
          f"- FFmpeg peers: the interval between consecutive output frames of one `ffmpeg` run (decode, filter, "
          f"y4m mux in one loop), median, the first frame (start-up, delay) not counted; photos are timed on a "
          f"stream of {pre['still_timing_frames']} noisy copies. OpenCV peers: wall time of each frame's call(s) "
          'in cudadenoise-eval-opencv, median, the first frame not counted (multi: only frames with a whole '
          'temporal window).',
          '- GPU peers (where run): the drivers of ../shared/peers on the luma plane, from raw 8-bit frames, one '
          'frame at a time on one stream; GPU ms = their kernel time (CUDA events around the device work), '
          'end to end = with the copies from and to host memory, medians over the frames after 3 warm-up runs.',
          '- Non-zero real content throughout: photos from python3-skimage, clips from Debian packages '
          '(scripts/eval-clips.tsv; or a pan across a photo where the report says so).', '']
    with open(path + '.part', 'w') as fh:
        fh.write('\n'.join(L))
    os.replace(path + '.part', path)
