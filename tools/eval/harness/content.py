# content.py: the clean inputs of a run, as y4m files in the work directory.
#
# Photos (.testdata/<name>.png, Debian's python3-skimage) become one GRAY8 or
# Y444 frame (BT.601 full range), cut to the preset's region if any. Clips
# (.testdata/video, scripts/fetch-eval-data.sh) are decoded by FFmpeg to 4:2:0
# y4m (frame-exact: -fps_mode passthrough, no scaling; the harness checks that
# a null filter gives the samples back unchanged), frames start .. start + T.
# Without the clip file, or for the tiny preset, a pan across a photo stands in,
# and the report says so.
import dataclasses
import os
from typing import Optional, Tuple

from .config import ClipSource, CompressedSource, Preset, Still
from .env import Env, HarnessError


@dataclasses.dataclass
class Content:
    id: str
    kind: str               # 'still' or 'clip'
    title: str
    description: str
    clean: str              # y4m: 1 frame (still) or T frames (clip)
    width: int = 0
    height: int = 0
    format: str = ''
    range: str = ''
    frames: int = 1
    eval_start: int = 0     # clips: the measured frames are eval_start .. eval_start + eval_count - 1
    eval_count: int = 1
    clean_eval: Optional[str] = None   # clips: those frames alone
    region: Tuple[int, int, int, int] = (0, 0, 0, 0)
    stand_in: bool = False  # a pan across a photo instead of a real clip
    motion: str = ''        # clips: the manifest's motion (config.MOTION_CLASS gives its class)
    motion_class: str = ''  # clips: 'moving' or 'static'
    degraded: Optional[str] = None   # compressed clips: the y4m to denoise (`clean` is its source)

    @property
    def group(self):
        """Results are pooled and plotted per group: same size and format, same kind."""
        fmt = {'GRAY8': 'gray', 'Y444': 'colour 4:4:4', 'I420': 'colour 4:2:0'}.get(self.format, self.format)
        if self.degraded:
            return f"{self.width}x{self.height} {fmt} compressed video"
        return f"{self.width}x{self.height} {fmt} {'photos' if self.kind == 'still' else 'video'}"


def _region(spec, w, h, size):
    if spec:
        x, y, rw, rh = spec
        rw, rh = min(rw, w), min(rh, h)
        return (max(0, min(x, w - rw)), max(0, min(y, h - rh)), rw, rh)
    rw, rh = min(size, w), min(size, h)
    return ((w - rw) // 2 // 2 * 2, (h - rh) // 2 // 2 * 2, rw, rh)


def prepare_still(env: Env, s: Still, data: str, work: str, preset: Preset) -> Content:
    src = os.path.join(data, s.name + '.png')
    if not os.path.isfile(src):
        raise HarnessError(f'{src} is missing: run scripts/fetch-test-data.sh')
    d = os.path.join(work, s.name)
    os.makedirs(d, exist_ok=True)
    clean = os.path.join(d, 'clean.y4m')
    args = ['prepare', '--input', src, '--clean-out', clean]
    if s.crop:
        args += ['--crop', s.crop]
    g = env.eval_json(args, 'prepare ' + s.name)[0]
    c = Content(s.name, 'still', s.name + '.png',
                f"{s.name}.png from Debian's python3-skimage" + (f', region {s.crop}' if s.crop else ''),
                clean, g['width'], g['height'], g['format'], g['range'])
    c.region = _region(s.region, c.width, c.height, preset.crop_size)
    return c


def _decode(env: Env, src: str, start: int, frames: int, out: str):
    cmd = [env.ffmpeg, '-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-threads', '1', '-i', src,
           '-an', '-sn', '-vf', f'trim=start_frame={start}:end_frame={start + frames},setpts=PTS-STARTPTS',
           '-pix_fmt', 'yuv420p', '-fps_mode', 'passthrough', '-f', 'yuv4mpegpipe', out]
    env.run(cmd, 'decoding ' + src)


def _y4m_size(path):
    with open(path, 'rb') as f:
        fields = f.readline().split()
    return (int(next(x for x in fields if x.startswith(b'W'))[1:]),
            int(next(x for x in fields if x.startswith(b'H'))[1:]))


def _centre_crop(c: ClipSource, preset: Preset, w: int, h: int):
    """The crop of clip c (WxH+X+Y, or None) at the preset's clip size, and its offset."""
    if c.crop == 'full':
        return None, (0, 0)
    if c.crop:
        size, x, y = c.crop.split('+')
        return c.crop, (int(x), int(y))
    if not preset.clip_size:
        return None, (0, 0)
    cw, ch = min(preset.clip_size[0], w) // 2 * 2, min(preset.clip_size[1], h) // 2 * 2
    x, y = (w - cw) // 4 * 2, (h - ch) // 4 * 2
    return f'{cw}x{ch}+{x}+{y}', (x, y)


def prepare_clip(env: Env, c: ClipSource, data: str, work: str, preset: Preset) -> Content:
    cid = c.id or c.name
    d = os.path.join(work, cid)
    os.makedirs(d, exist_ok=True)
    T, E = preset.clip_frames, preset.eval_frames
    src = os.path.join(data, 'video', c.file) if c.file else None
    stand_in = False
    title, description = c.file or c.name, c.description
    if src is None or not os.path.isfile(src):
        photo = c.pan_photo or 'astronaut'
        size = c.pan_size if c.pan_photo else '352x288'
        start = c.pan_start if c.pan_photo else (40, 40)
        stand_in = c.file is not None
        src = os.path.join(d, 'pan.y4m')
        env.eval_json(['pan', '--photo', os.path.join(data, photo + '.png'), '--size', size, '--frames', str(T),
                       '--start', f'{start[0]},{start[1]}', '-o', src], 'pan')
        if stand_in:
            title = f'pan across {photo}.png (stand-in for {c.file})'
            description = (f'{c.file} was not found in {data}/video (scripts/fetch-eval-data.sh): a {size} pan '
                           f'across {photo}.png, 2 px right and 1 px down per frame, stands in for it')
        start_frame = 0
    else:
        start_frame = c.start
    decoded = os.path.join(d, 'decoded.y4m')
    _decode(env, src, start_frame, T, decoded)   # the same FFmpeg path for real clips and pans
    clean = os.path.join(d, 'clean.y4m')
    args = ['prepare', '--input', decoded, '--frames', str(T), '--clean-out', clean]
    w, h = _y4m_size(decoded)
    crop, offset = (None, (0, 0)) if stand_in or not c.file else _centre_crop(c, preset, w, h)
    if crop:
        args += ['--crop', crop]
        description += f' (region {crop} of {w}x{h})'
    if c.gray:
        args += ['--gray']
    g = env.eval_json(args, 'prepare ' + c.name)[0]
    if g['frames'] != T:
        raise HarnessError(f'{src}: {g["frames"]} frames decoded, {T} wanted')
    if c.id and c.id != c.name:
        title = f'{title} ({c.id})'
    content = Content(cid, 'clip', title, description, clean, g['width'], g['height'], g['format'], g['range'],
                      frames=T, stand_in=stand_in, motion=c.motion, motion_class=c.motion_class)
    content.eval_start, content.eval_count = (T - E) // 2, E
    content.clean_eval = os.path.join(d, 'clean-eval.y4m')
    env.eval_json(['prepare', '--input', clean, '--start', str(content.eval_start), '--frames', str(E),
                   '--clean-out', content.clean_eval], 'prepare eval frames')
    region = c.region and (c.region[0] - offset[0], c.region[1] - offset[1], c.region[2], c.region[3])
    content.region = _region(region, content.width, content.height, preset.crop_size)
    return content


def prepare_compressed(env: Env, c: CompressedSource, data: str, work: str, preset: Preset) -> Content:
    """A compressed clip (its first clip_frames frames) and the lossless source it was encoded from."""
    d = os.path.join(work, c.name)
    os.makedirs(d, exist_ok=True)
    T = preset.clip_frames
    ys = {}
    for role, name in (('clean', c.source), ('degraded', c.file)):
        src = os.path.join(data, 'video', 'compressed', name)
        if not os.path.isfile(src):
            raise HarnessError(f'{src} is missing: scripts/make-compressed-clips.sh')
        _decode(env, src, 0, T, os.path.join(d, role + '-decoded.y4m'))
        ys[role] = os.path.join(d, role + '.y4m')
        g = env.eval_json(['prepare', '--input', os.path.join(d, role + '-decoded.y4m'), '--frames', str(T),
                           '--clean-out', ys[role]], 'prepare ' + c.name)[0]
        if g['frames'] != T:
            raise HarnessError(f'{src}: {g["frames"]} frames decoded, {T} wanted')
    content = Content(c.name, 'clip', c.name, c.description + f'; measured against {c.source}', ys['clean'],
                      g['width'], g['height'], g['format'], g['range'], frames=T, degraded=ys['degraded'])
    content.eval_start, content.eval_count = (T - preset.eval_frames) // 2, preset.eval_frames
    content.clean_eval = os.path.join(d, 'clean-eval.y4m')
    env.eval_json(['prepare', '--input', ys['clean'], '--start', str(content.eval_start), '--frames',
                   str(content.eval_count), '--clean-out', content.clean_eval], 'prepare eval frames')
    content.region = _region(None, content.width, content.height, preset.crop_size)
    return content
