# figures.py: what the report's pictures show, drawn by draw.py (matplotlib):
# per content, the crops at the timing sigma (and for clips as they are), cut
# from the y4m files by `cudadenoise-eval crop`; per group, speed against
# quality. Every figure carries the GPU, the CPU and the date in its footer.
import os
import tempfile

from . import config, draw
from .env import footer_lines
from .names import method_name

def _frame_of(content, whole):
    """The index, in a run's output (the whole clip, or its measured frames), of the frame the crops show."""
    mid = content['eval_start'] + content['eval_count'] // 2
    return mid if (content['kind'] == 'still' or whole) else mid - content['eval_start']


def _crop(env, y4m, frame, region, tmp):
    """Frame `frame` of `y4m` (the region x, y, w, h, or the whole frame) as an 8-bit RGB array."""
    out = os.path.join(tmp, f'crop-{len(os.listdir(tmp))}.png')
    args = ['crop', '--input', y4m, '--frame', str(frame), '-o', out]
    if region:
        args += ['--region', f'{region[2]}x{region[3]}+{region[0]}+{region[1]}']
    env.eval_json(args, 'crop')
    return draw.read_rgb(out)


def crops(env, content, cond, out_png, facts, primary):
    res = content['conditions'][cond]
    r = content['region']
    mid = content['eval_start'] + content['eval_count'] // 2 if content['kind'] == 'clip' else 0
    asis = cond == 'asis'
    if asis:
        title = f"{content['title']}: as it is (no noise added; sigma estimate {res['sigma']:.2f}), frame {mid}"
    else:
        title = f"{content['title']}: AWGN sigma {res['sigma']:g}" + (f', frame {mid}' if content['kind'] == 'clip' else '')
    footer = footer_lines(facts) + [f"Crops {r[2]}x{r[3]} at ({r[0]},{r[1]}), shown {content['zoom']}x; PSNR of the "
                                    f"luma plane over the measured frames"]
    degraded = bool(content.get('degraded'))
    tiles = [(content['clean'], mid, ['source' if degraded else 'input' if asis else 'clean', ''])]
    if degraded:
        tiles.append((res['files']['noisy'], mid, ['compressed input', f"PSNR Y {res['noisy']['planes'][0]['psnr']:.2f} dB"]))
    if not asis:
        tiles.append((res['files']['noisy'], mid, ['noisy', f"PSNR Y {res['noisy']['planes'][0]['psnr']:.2f} dB"]))
    for run in res['runs']:
        if run['family'].startswith('cudadenoise') and run['backend'] != primary:
            continue
        p = run.get('quality', {}).get('planes', [{}])[0].get('psnr')
        q = '' if p is None else f"PSNR Y {p:.2f} dB"
        tiles.append((run['output'], _frame_of(content, run['whole']), [method_name(run), q]))
    with tempfile.TemporaryDirectory(prefix='cdn-crops-') as tmp:
        overview = _crop(env, content['clean'], mid, None, tmp)
        tiles = [(_crop(env, y4m, frame, r, tmp), labels) for y4m, frame, labels in tiles]
    draw.montage(out_png, title, tiles, zoom=content['zoom'], columns=5, overview=overview, region=r, footer=footer)


def speed_plot(group, out_png, facts):
    """group: from markdown.aggregate(): rows with time and PSNR at the timing sigma."""
    s = config.TIMING_SIGMA
    points = []
    for row in group['rows']:
        t = row['device_ms'] if row['device_ms'] is not None else row['e2e_ms']
        q = row['psnr'].get(s)
        if t is None or q is None or t <= 0:
            continue
        points.append((row['name'], row['family'], t, q))
    noisy = group.get('noisy_psnr', {}).get(s)
    draw.plot(out_png, f"Speed against quality: {group['name']}, AWGN sigma {s}", points,
              'milliseconds per frame (log scale)', 'PSNR Y (dB)',
              subtitle=[f"{len(group['contents'])} input(s): {', '.join(group['contents'])}; PSNR of the luma "
                        f"plane, mean over the inputs; time per frame, median",
                        'GPU points: time on frames in GPU memory; CPU points: end to end on the CPU '
                        f"(FFmpeg and OpenCV on {facts['cpu_threads']} threads)"],
              footer=footer_lines(facts), hlines=[(noisy, f'noisy input {noisy:.2f} dB')] if noisy is not None else [])


def summary_plot(plot, out_png, facts):
    """A plot spec of summary.summaries(): speed against quality across inputs."""
    draw.plot(out_png, plot['title'], [tuple(p) for p in plot['points']], plot['xlabel'], plot['ylabel'],
              subtitle=plot.get('subtitle', ()), footer=footer_lines(facts),
              hlines=[tuple(h) for h in plot.get('hlines', ())])
