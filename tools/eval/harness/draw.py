# draw.py: the report's two kinds of figure, drawn with matplotlib (Debian's
# python3-matplotlib, Agg backend, no display):
# - plot(): speed against quality, one labelled point per method, time per frame
#   on a logarithmic x axis, quality on a linear y axis, a colour per series,
#   dashed reference lines (the noisy input), a legend and footer lines;
# - montage(): crops of the same region side by side, each drawn pixel for pixel
#   (zoomed by repeating pixels, never resampled) with its label lines, after an
#   overview of the whole frame with the region marked, and footer lines.
# Both write the PNG under a temporary name and rename it when complete, and
# return where things landed (pixels from the image's top left) for the tests.
import functools
import os

try:
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.image import imread
    from matplotlib.patches import Rectangle
    from matplotlib.text import Text
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator, NullFormatter
    from matplotlib.transforms import Bbox, IdentityTransform
except ImportError as e:   # report.py turns this into its error message
    raise ImportError(f'{e}: the report draws its figures with matplotlib '
                      '(Debian 12: apt install python3-matplotlib, and run with /usr/bin/python3)') from e

DPI = 100
INK, GREY, MARK = '#141414', '#6e6e6e', '#e61e1e'
PALETTE = ('#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#787878', '#000000')  # Okabe-Ito
TITLE_PT, TEXT_PT, LABEL_PT = 15, 9, 8.5


def _px(pt):
    """Line height in pixels of text of `pt` points."""
    return pt * DPI / 72 * 1.3


@functools.lru_cache(maxsize=1)
def _renderer():
    return FigureCanvasAgg(Figure(dpi=DPI)).get_renderer()


def _text_width(s, pt, weight='normal'):
    return _renderer().get_text_width_height_descent(s, FontProperties(size=pt, weight=weight), ismath=False)[0]


def read_rgb(path):
    """An 8-bit RGB(A) PNG as a uint8 array (matplotlib reads PNGs as floats v/255)."""
    return (imread(path)[..., :3] * 255).round().astype(np.uint8)


def _save(fig, width, height, path):
    fig.set_size_inches(width / DPI, height / DPI)
    tmp = path + '.part'
    fig.savefig(tmp, dpi=DPI, format='png', facecolor='white')
    os.replace(tmp, path)


def _text(fig, x, y, s, height, pt=TEXT_PT, color=INK, **kw):
    """Text with its top left at (x, y) pixels from the figure's top left."""
    return fig.text(x, height - y, s, transform=IdentityTransform(), fontsize=pt, color=color, va='top', **kw)


def plot(path, title, points, xlabel, ylabel, subtitle=(), footer=(), hlines=(), size=(960, 620)):
    """points: (label, series, x > 0, y); hlines: (y, label). Raises ValueError without points or with x <= 0."""
    if not points:
        raise ValueError('a plot needs points')
    for label, _, x, _ in points:
        if not x > 0:
            raise ValueError(f'plot x values must be positive (log axis): {label}')
    line = _px(TEXT_PT)
    width = max([size[0], 24 + _text_width(title, TITLE_PT, 'bold')] + [24 + _text_width(f, TEXT_PT) for f in footer])
    width, height = int(round(width)), size[1]
    top = 12 + _px(TITLE_PT) + len(subtitle) * line + 8 + line
    bottom = 2.2 * line + 14 + line + len(footer) * line + 12
    left, right = 70, 30
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes([left / width, bottom / height, (width - left - right) / width, (height - top - bottom) / height])
    _text(fig, 12, 12, title, height, TITLE_PT, weight='bold')
    for i, s in enumerate(subtitle):
        _text(fig, 12, 12 + _px(TITLE_PT) + i * line, s, height, color=GREY)
    for i, s in enumerate(footer):
        _text(fig, 12, height - 10 - (len(footer) - i) * line, s, height, color=GREY)

    series = list(dict.fromkeys(p[1] for p in points))
    colour = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    xs = [p[2] for p in points]
    ys = [p[3] for p in points] + [h[0] for h in hlines]
    ax.set_xscale('log')
    ax.set_xlim(10 ** np.floor(np.log10(min(xs) / 1.5)), 10 ** np.ceil(np.log10(max(xs) * 1.5)))
    yt = MaxNLocator(8, steps=[1, 2, 5, 10]).tick_values(min(ys) - 0.5, max(ys) + 0.5)
    ax.set_ylim(yt[0], yt[-1])
    ax.yaxis.set_major_locator(FixedLocator(yt))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f'{v:g}'))
    decades = np.log10(ax.get_xlim()[1] / ax.get_xlim()[0])
    ax.xaxis.set_minor_locator(LogLocator(subs=(2, 5)))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: f'{v:g}') if decades <= 2 else NullFormatter())
    ax.grid(True, which='major', color='#c8c8c8', lw=0.8)
    ax.grid(True, which='minor', color='#e6e6e6', lw=0.8)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=TEXT_PT, colors=INK)
    ax.set_xlabel(xlabel, fontsize=TEXT_PT, color=INK)
    _text(fig, 12, top - line - 2, ylabel, height)

    handles = [ax.scatter([p[2] for p in points if p[1] == s], [p[3] for p in points if p[1] == s], s=50,
                          color=colour[s], label=s, zorder=3, edgecolors='white', linewidths=0.6) for s in series]
    fig.legend(handles=handles, loc='upper left', bbox_to_anchor=(left / width, (bottom - 2.2 * line - 6) / height),
               ncol=len(series), frameon=False, fontsize=TEXT_PT, handletextpad=0.2, columnspacing=1.5,
               borderaxespad=0, borderpad=0)

    # Labels: each at the first place around its point that is free (inside the axes, off every
    # dot, line label and earlier label), else where it overlaps least.
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    taken = []
    for y, label in hlines:
        ax.axhline(y, color=GREY, lw=1, ls=(0, (5, 4)), zorder=2)
        t = ax.annotate(label, (0, y), xycoords=('axes fraction', 'data'), xytext=(6, 2), textcoords='offset points',
                        fontsize=LABEL_PT, color=GREY, va='bottom')
        taken.append(t.get_window_extent(renderer))
    to_px = ax.transData.transform
    centres = [to_px((p[2], p[3])) for p in points]
    taken += [_square(c, 7) for c in centres]
    near = ((7, 0, 'left', 'center'), (-7, 0, 'right', 'center'), (0, 7, 'center', 'bottom'),
            (0, -7, 'center', 'top'), (7, 6, 'left', 'bottom'), (7, -6, 'left', 'top'),
            (-7, 6, 'right', 'bottom'), (-7, -6, 'right', 'top'))
    far = tuple((sx * 14, sy * k * 11, 'left' if sx > 0 else 'right', 'center')
                for k in range(1, 9) for sy in (1, -1) for sx in (1, -1))   # with a leader line
    labels = []
    for (label, s, x, y) in points:
        best = None
        for dx, dy, ha, va in near + far:
            arrow = dict(arrowstyle='-', color=colour[s], lw=0.6, shrinkA=0, shrinkB=4) if abs(dy) > 7 else None
            t = ax.annotate(label, (x, y), xytext=(dx, dy), textcoords='offset points', ha=ha, va=va,
                            fontsize=LABEL_PT, color=colour[s], zorder=4, arrowprops=arrow)
            t.update_positions(renderer)
            b = Text.get_window_extent(t, renderer)   # the text alone, not its leader line
            inside = b.x0 >= box.x0 + 2 and b.x1 <= box.x1 - 2 and b.y0 >= box.y0 + 2 and b.y1 <= box.y1 - 2
            cost = sum(_area(b, o) for o in taken) + (0 if inside else 1e9)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, t, b)
            else:
                t.remove()
            if cost == 0:
                break
        taken.append(best[2])
        labels.append(best[2])
    _save(fig, width, height, path)
    flip = lambda b: (b.x0, height - b.y1, b.x1, height - b.y0)   # noqa: E731
    return {'size': (width, height), 'axes': flip(box), 'labels': [flip(b) for b in labels],
            'points': [(c[0], height - c[1]) for c in centres], 'colours': [colour[p[1]] for p in points]}


def _square(c, r):
    return Bbox([[c[0] - r, c[1] - r], [c[0] + r, c[1] + r]])


def _area(a, b):
    w, h = min(a.x1, b.x1) - max(a.x0, b.x0), min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0


def montage(path, title, tiles, zoom=1, columns=4, overview=None, region=None, footer=()):
    """tiles: (rgb uint8 HxWx3, [label lines]), all one size (a cell is as wide as its widest label); overview: an RGB array of the whole frame or None;
    region: (x, y, w, h) of the crops in overview pixels. Raises ValueError without tiles or with mixed sizes."""
    if not tiles:
        raise ValueError('a montage needs tiles')
    th, tw = tiles[0][0].shape[0] * zoom, tiles[0][0].shape[1] * zoom
    if any(t.shape[:2] != tiles[0][0].shape[:2] for t, _ in tiles):
        raise ValueError('montage tiles must have one size')
    pad, gap, line = 10, 8, _px(TEXT_PT)
    cells = len(tiles) + (overview is not None)
    cols = max(1, min(columns, cells))
    rows = (cells + cols - 1) // cols
    cell_w = int(np.ceil(max([tw] + [_text_width(s, TEXT_PT) for _, lines in tiles for s in lines])))
    cell_h = th + 4 + max(max(len(lines) for _, lines in tiles), 1) * line
    title_h = _px(TITLE_PT) + gap
    width = max([2 * pad + cols * cell_w + (cols - 1) * gap, 2 * pad + _text_width(title, TITLE_PT, 'bold')] +
                [2 * pad + _text_width(f, TEXT_PT) for f in footer])
    width = int(np.ceil(width))
    height = int(np.ceil(2 * pad + title_h + rows * cell_h + (rows - 1) * gap + gap + len(footer) * line))
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    _text(fig, pad, pad, title, height, TITLE_PT, weight='bold')
    origin = lambda i: (pad + (i % cols) * (cell_w + gap), int(pad + title_h + (i // cols) * (cell_h + gap)))  # noqa: E731
    placed = []
    cell = 0
    if overview is not None:
        x, y = origin(cell)
        cell += 1
        s = min(tw / overview.shape[1], th / overview.shape[0])
        w, h = overview.shape[1] * s, overview.shape[0] * s
        ax = fig.add_axes([x / width, (height - y - h) / height, w / width, h / height])
        ax.imshow(overview, interpolation='antialiased', aspect='auto')
        ax.set_axis_off()
        if region is not None:
            ax.add_patch(Rectangle((region[0] - 0.5, region[1] - 0.5), region[2], region[3], fill=False, ec=MARK, lw=1.5))
        _text(fig, x, y + th + 4, 'whole frame, region', height, color=GREY)
    for rgb, labels in tiles:
        x, y = origin(cell)
        cell += 1
        big = np.repeat(np.repeat(np.asarray(rgb, dtype=np.uint8), zoom, axis=0), zoom, axis=1)
        fig.figimage(big, xo=x, yo=height - y - th, origin='upper')
        placed.append((x, y))
        for i, s in enumerate(labels):
            _text(fig, x, y + th + 4 + i * line, s, height, color=INK if i == 0 else GREY)
    for i, s in enumerate(footer):
        _text(fig, pad, height - pad - (len(footer) - i) * line, s, height, color=GREY)
    _save(fig, width, height, path)
    return {'size': (width, height), 'tiles': placed, 'tile_size': (tw, th)}
