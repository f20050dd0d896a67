# figures.py: the report's pictures, drawn by `cudadenoise-eval montage` and
# `plot` from spec files written here: per content, the crops at the timing
# sigma (and for clips as they are); per group, speed against quality. Every
# figure carries the GPU, the CPU and the date in its footer.
import os

from . import config
from .env import footer_lines

SERIES_ORDER = ('cudadenoise GPU', 'cudadenoise CPU', 'FFmpeg', 'OpenCV')


def _spec(path, lines):
    with open(path, 'w') as f:
        for fields in lines:
            f.write('\t'.join(str(x).replace('\t', ' ') for x in fields) + '\n')


def method_name(run):
    if run['family'].startswith('cudadenoise'):
        return f"{run['label']} ({'GPU' if run['backend'] == 'cuda' else 'CPU'})"
    return f"{run['label']} ({run['family']})"


def _frame_of(content, whole):
    """The index, in a run's output (the whole clip, or its measured frames), of the frame the crops show."""
    mid = content['eval_start'] + content['eval_count'] // 2
    return mid if (content['kind'] == 'still' or whole) else mid - content['eval_start']


def crops(env, content, cond, out_png, facts, primary):
    res = content['conditions'][cond]
    r = content['region']
    mid = content['eval_start'] + content['eval_count'] // 2 if content['kind'] == 'clip' else 0
    asis = cond == 'asis'
    if asis:
        title = f"{content['title']}: as it is (no noise added; sigma estimate {res['sigma']:.2f}), frame {mid}"
    else:
        title = f"{content['title']}: AWGN sigma {res['sigma']:g}" + (f', frame {mid}' if content['kind'] == 'clip' else '')
    lines = [('title', title), ('region', r[2], r[3], r[0], r[1]), ('zoom', content['zoom']), ('columns', 5)]
    lines += [('footer', f) for f in footer_lines(facts)]
    lines.append(('footer', f"Crops {r[2]}x{r[3]} at ({r[0]},{r[1]}), shown {content['zoom']}x; PSNR of the luma "
                            f"plane over the measured frames"))
    lines.append(('overview', content['clean'], mid))
    lines.append(('tile', content['clean'], mid, 'input' if asis else 'clean', ''))
    if not asis:
        lines.append(('tile', res['files']['noisy'], mid, 'noisy', f"PSNR Y {res['noisy']['planes'][0]['psnr']:.2f} dB"))
    for run in res['runs']:
        if run['family'].startswith('cudadenoise') and run['backend'] != primary:
            continue
        whole = run['whole']
        q = '' if asis else f"PSNR Y {run['quality']['planes'][0]['psnr']:.2f} dB"
        lines.append(('tile', run['output'], _frame_of(content, whole), method_name(run), q))
    spec = out_png + '.tsv'
    _spec(spec, lines)
    env.eval_json(['montage', '--spec', spec, '-o', out_png], 'montage')
    os.remove(spec)


def speed_plot(env, group, out_png, facts):
    """group: from markdown.aggregate(): rows with time and PSNR at the timing sigma."""
    s = config.TIMING_SIGMA
    lines = [('title', f"Speed against quality: {group['name']}, AWGN sigma {s}"),
             ('subtitle', f"{len(group['contents'])} input(s): {', '.join(group['contents'])}; PSNR of the luma "
                          f"plane, mean over the inputs; time per frame, median"),
             ('subtitle', 'GPU points: time on frames in GPU memory; CPU points: end to end on the CPU '
                          f"(FFmpeg and OpenCV on {facts['cpu_threads']} threads)"),
             ('xlabel', 'milliseconds per frame (log scale)'), ('ylabel', 'PSNR Y (dB)')]
    lines += [('footer', f) for f in footer_lines(facts)]
    for row in group['rows']:
        t = row['device_ms'] if row['device_ms'] is not None else row['e2e_ms']
        q = row['psnr'].get(s)
        if t is None or q is None or t <= 0:
            continue
        lines.append(('point', row['name'], row['family'], f'{t:.6g}', f'{q:.4f}'))
    if group.get('noisy_psnr', {}).get(s) is not None:
        lines.append(('hline', f"{group['noisy_psnr'][s]:.4f}", f"noisy input {group['noisy_psnr'][s]:.2f} dB"))
    spec = out_png + '.tsv'
    _spec(spec, lines)
    env.eval_json(['plot', '--spec', spec, '-o', out_png], 'plot')
    os.remove(spec)
