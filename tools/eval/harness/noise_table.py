# noise_table.py: the report's table of the real-like noise conditions (issue 37's table; config.NOISE_CONDITIONS,
# config.NOISE_ROWS, harness/noise_runs.py): per row, the mean luma PSNR over the clips and over the photos at
# each condition, beside the noisy input and the true mean sigma; then what each condition added (the camera
# model's fitted a and b) and the rows that did not run, with why.


def _mean(v):
    v = [x for x in v if x is not None]
    return sum(v) / len(v) if v else None


def _cell(values, n):
    """Mean of the values there are; '(k of n)' when some inputs lack the run."""
    v = [x for x in values if x is not None]
    if not v:
        return '–'
    return f'{_mean(v):.2f}' + ('' if len(v) == n else f' ({len(v)} of {n})')


def lines(results, primary):
    conds = results.get('noise_conditions') or []
    contents = [c for c in results['contents'] if c.get('noise_conditions')]
    if not conds or not contents:
        return []
    cols = []
    for label, kind in (('clips', 'clip'), ('photos', 'still')):
        for n in conds:
            cs = [c for c in contents if c['kind'] == kind and n['key'] in c['noise_conditions']]
            if cs:
                cols.append((f"{label} ({len(cs)}): {n['label']}", n['key'], cs))
    head = ['row', 'the mode is told'] + [h for h, _, _ in cols]
    told = {'auto': 'nothing (sigma auto)', 'true-sigma': 'the true mean sigma',
            'true-model': 'the true a, b (camera: the fit)', 'auto-model': 'noise-model=signal (a, b auto)'}
    L = ['## Real-like noise: signal-dependent and camera-model noise', '',
         'Luma PSNR (dB), mean over the inputs of each column, on noise that depends on the intensity (issue 37): '
         'Gaussian noise of variance a x + b (x the clean 8-bit sample) added to every Y, Cb and Cr sample, '
         'rounded and clipped (kernels/include/cudadenoise/noise.h), and the camera model (camera_noise.h: '
         'Poisson-Gaussian noise in linear RGB light, then BT.709, YCbCr and the input\'s chroma sampling; '
         'measured against the same pipeline without noise, as the pipeline itself changes the frames). '
         '"True mean sigma": sqrt(mean(a x + b)) over the clean luma; for the camera model, the RMS of noisy − '
         'clean on the luma. The camera model has no affine model of its own: its "true a, b" are var = a x + b '
         'fitted to noisy − clean by level sets of the clean luma (32 code values, tools/eval/noise_stats.h), '
         'given to every plane. Quality only, on the ' + ('GPU' if primary == 'cuda' else 'CPU backend') +
         ' (rows: harness/config.py NOISE_ROWS; docs/EVALUATION.md, "Real-like noise").', '',
         '| ' + ' | '.join(head) + ' |', '|' + ' --- |' * len(head)]
    res = lambda c, key: c['noise_conditions'][key]
    L.append('| noisy input | | ' + ' | '.join(
        _cell([res(c, k)['noisy']['planes'][0]['psnr'] for c in cs], len(cs)) for _, k, cs in cols) + ' |')
    L.append('| true mean sigma (luma) | | ' + ' | '.join(
        _cell([res(c, k)['noise']['true_sigma_luma'] for c in cs], len(cs)) for _, k, cs in cols) + ' |')
    skipped = results.get('skipped_rows', {})
    for row in results.get('noise_rows', []):
        rid = f"{row['mode']}-{row['tag']}:{primary}"
        cells = []
        for _, k, cs in cols:
            ps = [next((r['quality']['planes'][0]['psnr'] for r in res(c, k)['runs']
                        if r['id'] == rid and 'quality' in r), None) for c in cs]
            cells.append(_cell(ps, len(cs)))
        name = row['note'] or f"{row['mode']}-{row['tag']}"
        if f"{row['mode']}-{row['tag']}" in skipped:
            name += ' (skipped)'
        L.append(f"| {name} | {told.get(row['noise'], row['noise'])} | " + ' | '.join(cells) + ' |')
    L.append('')
    facts = []
    for c in contents:
        for k, r in c['noise_conditions'].items():
            n = r['noise']
            if n.get('noise') == 'camera':
                # JSON has no infinity: a pipeline that gives the input back exactly comes as null.
                clean = n.get('camera_clean_psnr_luma')
                clean = f"{clean:.2f} dB against the input" if clean is not None else "the input exactly"
                facts.append(f"{c['id']} {k}: true sigma {n['true_sigma_luma']:.2f}, fit a {n['residual_fit_a']:.3f} "
                             f"b {n['residual_fit_b']:.2f}, the camera pipeline without noise {clean}")
    if facts:
        L += ['Camera model (shot and read noise of camera_noise.h; luma): ' + '; '.join(facts) + '.', '']
    gone = [f"{c['id']} {k}: {why}" for c in results['contents'] for k, why in (c.get('noise_left_out') or {}).items()]
    if gone:
        L += ['Left out: ' + '; '.join(gone) + '.', '']
    why = [f"`{m}` ({skipped[m]})" for m in sorted(skipped)
           if any(f"{r['mode']}-{r['tag']}" == m for r in results.get('noise_rows', []))]
    if why:
        L += ['Rows skipped: ' + '; '.join(why) + '.', '']
    return L
