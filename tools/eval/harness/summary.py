# summary.py: the report's tables across inputs (issues 15, 16, 17), from a
# run's results, and the specs of the two speed-against-quality plots over them:
# - video: per method, mean luma PSNR over the moving and over the static clips
#   (config.MOTION_CLASS of the manifest's motion) at each sigma, beside its time
#   per 1920x1080 luma frame (GPU time and end to end) on the 1080p timing clip;
# - per clip at the timing sigma;
# - real-like noise (harness/noise_table.py): the rows of config.NOISE_ROWS on the
#   signal-dependent and camera-model noise conditions;
# - defaults: each mode at its defaults and the rows marked `defaults`, with
#   hqdn3d and nlmeans, at every sigma (2 to 40) on clips and photos, the clips as
#   they are (PSNR against the input: a denoiser must not damage clean video) and
#   the compressed clips (PSNR against their source).
# Methods are matched across inputs by their id (method:backend); the GPU peers
# are luma only (their all-planes PSNR is not given).
from . import config, noise_table
from .names import SERIES_ORDER, method_name


def _mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def _f(v, fmt='{:.2f}'):
    return '–' if v is None else fmt.format(v)


def _ms(v):
    if v is None:
        return '–'
    return f'{v:.3f}' if v < 10 else (f'{v:.1f}' if v < 1000 else f'{v:.0f}')


def _rank(family):
    return SERIES_ORDER.index(family) if family in SERIES_ORDER else len(SERIES_ORDER)


def _psnr(run):
    q = run.get('quality')
    return q['planes'][0]['psnr'] if q else None


def _runs_by_id(contents, cond):
    """{run id: {content id: run}} for one condition, keeping the order of first appearance."""
    out = {}
    for c in contents:
        for r in c['conditions'].get(cond, {}).get('runs', []):
            out.setdefault(r['id'], {})[c['id']] = r
    return out


def _order(ids_runs):
    first = {i: next(iter(rs.values())) for i, rs in ids_runs.items()}
    return sorted(first, key=lambda i: _rank(first[i]['family'])), first


def _primary(run, primary):
    """cudadenoise rows of the backend the run reports on (the GPU where there is one)."""
    return not run['family'].startswith('cudadenoise') or run['backend'] == primary


def summaries(results, groups, fig_dir_rel):
    """{'lines': markdown lines, 'plots': {png name: plot spec for figures.summary_plot}}."""
    primary = 'cuda' if results['facts'].get('gpu') else 'cpu'
    sigmas = tuple(results.get('sigmas', config.SIGMAS))
    ts = results.get('timing_sigma', config.TIMING_SIGMA)
    contents = results['contents']
    video = [c for c in contents if c['kind'] == 'clip' and not c.get('degraded') and c['format'] != 'GRAY8']
    timing = [c for c in contents if c['kind'] == 'clip' and not c.get('degraded') and c['format'] == 'GRAY8']
    stills = [c for c in contents if c['kind'] == 'still']
    compressed = [c for c in contents if c.get('degraded')]
    L, plots = [], {}
    if video:
        L += _video_tables(video, timing, sigmas, ts, primary, plots, results)
    L += _defaults_table(video, stills, compressed, sigmas, results, primary)
    L += noise_table.lines(results, primary)
    if results.get('skipped_rows'):
        L += ['Rows of harness/config.py this build could not run: ' +
              '; '.join(f'`{k}` ({v})' for k, v in sorted(results['skipped_rows'].items())) + '.', '']
    if results.get('failed'):
        L += ['**Runs that failed** (left out of the tables): ' + '; '.join(
            f"`{k}`: {len(v)} run(s), e.g. {v[0]}" for k, v in sorted(results['failed'].items())) + '.', '']
    if results.get('gpu_peers'):
        g = results['gpu_peers']
        L += ['GPU peers: the drivers of ../shared/peers (' + ((g.get('buildinfo') or 'no BUILDINFO').replace('\n', '; ')) +
              '). vs-nlm-cuda\'s h (8-bit code '
              f"values) was chosen in the run: the best mean luma PSNR over {', '.join(g['clips'])} of h = "
              f"{', '.join(f'{x:g}' for x in g['grid'])} x sigma, per profile and sigma: " +
              ', '.join(f'{k.replace("@", " at σ")}: h {v:g}' for k, v in sorted(g['h'].items())) +
              ' (chosen on report content: it can only favour the peer). BM3DCUDA gets sigma x 4/3 (its kernel '
              'assumes noise of 0.75 sigma). Both run on the luma plane only, from raw 8-bit frames, one frame '
              'at a time on one stream; GPU ms is their kernel time (CUDA events around the device work), '
              'end to end adds the copies to and from host memory (../shared/peers/README.md).', '']
    return {'lines': L, 'plots': plots}


def _video_tables(video, timing, sigmas, ts, primary, plots, results):
    classes = [k for k in ('moving', 'static') if any(c.get('motion_class') == k for c in video)]
    by_sigma = {s: _runs_by_id(video, f's{s}') for s in sigmas}
    t_runs = _runs_by_id(timing, f's{ts}')
    ids, first = _order(by_sigma[ts])
    ids = [i for i in ids if _primary(first[i], primary)]
    tname = (f"{timing[0]['width']}x{timing[0]['height']} luma ({timing[0]['id']})" if timing else None)
    head = ['method'] + [f'σ{s} {k} ({sum(c.get("motion_class") == k for c in video)})' for s in sigmas
                         for k in classes]
    if tname:
        head += [f'GPU ms, {tname}', f'end-to-end ms, {tname}']
    L = ['## Video: quality by motion, and speed at 1080p', '',
         f"Mean luma PSNR (dB) over the real clips of each motion class ({', '.join(c['id'] + ' ' + c.get('motion_class', '') for c in video)}; "
         "motion from scripts/eval-clips.tsv: hand-held and camera moves count as moving), each cut to "
         f"{video[0]['width']}x{video[0]['height']}, the middle {video[0]['eval_count']} of {video[0]['frames']} "
         'frames measured; temporal methods see every frame. ' +
         (f"Times: per {tname} frame at σ{ts}, medians; GPU ms is device time on frames in GPU memory, "
          'end to end adds the copies from and to host memory (FFmpeg: the whole filter loop on the CPU).'
          if tname else 'No 1080p timing clip in this run.'), '',
         '| ' + ' | '.join(head) + ' |', '|' + ' --- |' * len(head)]
    noisy = ['noisy input'] + [_f(_mean([c['conditions'][f's{s}']['noisy']['planes'][0]['psnr'] for c in video
                                         if c.get('motion_class') == k])) for s in sigmas for k in classes]
    L.append('| ' + ' | '.join(noisy + ([''] * 2 if tname else [])) + ' |')
    points_dev, points_e2e = [], []
    for i in ids:
        cells = [method_name(first[i])]
        mean_at = {}
        for s in sigmas:
            for k in classes:
                v = _mean([_psnr(r) for cid, r in by_sigma[s].get(i, {}).items()
                           if next(c for c in video if c['id'] == cid).get('motion_class') == k])
                mean_at[(s, k)] = v
                cells.append(_f(v))
        tr = next(iter(t_runs.get(i, {}).values()), None)
        dev, e2e = (tr or {}).get('device_ms'), (tr or {}).get('e2e_ms')
        if tname:
            cells += [_ms(dev), _ms(e2e)]
        L.append('| ' + ' | '.join(cells) + ' |')
        q = mean_at.get((ts, classes[0])) if classes else None
        if q is not None and dev:
            points_dev.append((method_name(first[i]), first[i]['family'], dev, q))
        if q is not None and e2e:
            points_e2e.append((method_name(first[i]), first[i]['family'], e2e, q))
    L.append('')
    cls = classes[0] if classes else ''
    noisy_q = _mean([c['conditions'][f's{ts}']['noisy']['planes'][0]['psnr'] for c in video
                     if c.get('motion_class') == cls])
    for name, pts, what in (('plot-video-gpu-time.png', points_dev, 'GPU time (frames in GPU memory)'),
                            ('plot-video-end-to-end.png', points_e2e, 'end to end (host memory in and out)')):
        if not pts or not tname:
            continue
        plots[name] = {'title': f'Speed against quality: {cls} clips, AWGN sigma {ts}', 'points': pts,
                       'xlabel': f'milliseconds per {tname} frame, {what} (log scale)',
                       'ylabel': f'PSNR Y (dB), mean over the {cls} clips',
                       'subtitle': [f"PSNR: {', '.join(c['id'] for c in video if c.get('motion_class') == cls)} "
                                    f"({video[0]['width']}x{video[0]['height']}); time: {tname}",
                                    'GPU peers: luma only; cudadenoise: every plane of 4:2:0 clips, luma here'],
                       'hlines': [(noisy_q, f'noisy input {noisy_q:.2f} dB')] if noisy_q is not None else []}
        if results.get('figures_drawn', True):
            L += [f'![{name[:-4]}](results/{name})', '']
    # per clip at the timing sigma
    cs = video
    L += [f'Per clip, luma PSNR (dB) at σ{ts}:', '',
          '| method | ' + ' | '.join(f"{c['id']} ({c.get('motion', '')})" for c in cs) + ' |',
          '|' + ' --- |' * (1 + len(cs)),
          '| noisy input | ' + ' | '.join(_f(c['conditions'][f's{ts}']['noisy']['planes'][0]['psnr']) for c in cs)
          + ' |']
    for i in ids:
        rs = by_sigma[ts].get(i, {})
        L.append(f'| {method_name(first[i])} | ' + ' | '.join(_f(_psnr(rs[c["id"]]) if c['id'] in rs else None)
                                                             for c in cs) + ' |')
    return L + ['']


def _defaults_table(video, stills, compressed, sigmas, results, primary):
    all_s = sorted(set(sigmas) | set(results.get('defaults_sigmas', ())))
    inputs = [('clips', video), ('photos', stills)]
    cols, ids, first = [], [], {}
    for label, cs in inputs:
        for s in all_s:
            if any(f's{s}' in c['conditions'] for c in cs):
                cols.append((label, cs, f's{s}'))
    asis = [c for c in video if 'asis' in c['conditions']]
    for cs, cond in [(cs, cond) for _, cs, cond in cols] + [(asis, 'asis'), (compressed, 'asis')]:
        for i, rs in _runs_by_id(cs, cond).items():
            r = next(iter(rs.values()))
            if i in first or not _primary(r, primary):
                continue
            if r['family'].startswith('cudadenoise') and not r.get('defaults_row', not r.get('tag')):
                continue
            if r['family'] == 'GPU peers':
                continue
            first[i] = r
            ids.append(i)
    if not ids:
        return []
    ids.sort(key=lambda i: _rank(first[i]['family']))
    head = ['method'] + [f'{label} σ{cond[1:]}' for label, _, cond in cols]
    if asis:
        head += ['clips as they are: worst PSNR against the input']
    head += [c['id'] for c in compressed]
    L = ['## Defaults: every noise level, clean and compressed clips', '',
         'Each mode at its defaults (and the rows marked `defaults` in harness/config.py), with FFmpeg\'s hqdn3d '
         'and nlmeans at their calibrated strength: luma PSNR (dB), mean over the clips and over the photos. '
         '"As they are": the clips with no noise added, cudadenoise with auto sigma (the peers with the estimate), '
         'the lowest PSNR against the input over the clips (a denoiser should keep 40 dB or more on clean video). '
         'Compressed: a clean clip after x264/x265 (scripts/make-compressed-clips.sh), PSNR against the source '
         'it was encoded from; the input row is the compressed clip itself.', '',
         '| ' + ' | '.join(head) + ' |', '|' + ' --- |' * len(head)]
    row = ['input (noisy, or compressed)']
    for label, cs, cond in cols:
        row.append(_f(_mean([c['conditions'][cond]['noisy']['planes'][0]['psnr'] for c in cs if cond in c['conditions']])))
    if asis:
        row.append('')
    row += [_f(c['conditions']['asis']['noisy']['planes'][0]['psnr']) for c in compressed]
    L.append('| ' + ' | '.join(row) + ' |')
    for i in ids:
        cells = [method_name(first[i])]
        for label, cs, cond in cols:
            cells.append(_f(_mean([_psnr(r) for r in _runs_by_id(cs, cond).get(i, {}).values()])))
        if asis:
            v = [_psnr(r) for r in _runs_by_id(asis, 'asis').get(i, {}).values()]
            v = [x if x is not None else float('inf') for x in v]
            cells.append('–' if not v else ('identical' if min(v) == float('inf') else f'{min(v):.2f}'))
        for c in compressed:
            r = _runs_by_id([c], 'asis').get(i, {}).get(c['id'])
            cells.append(_f(_psnr(r) if r else None))
        L.append('| ' + ' | '.join(cells) + ' |')
    return L + ['']
