# clips.py: the manifest of the real video clips (scripts/eval-clips.tsv; copied to
# .testdata/video/MANIFEST.tsv by scripts/fetch-eval-data.sh): which clips there are,
# where each comes from, its licence, size, frame count and kind of motion, so the
# report and the tests can pick clips by motion class and state their provenance.
import dataclasses
import os
from typing import List, Optional, Tuple

COLUMNS = ('name', 'package', 'path', 'licence', 'width', 'height', 'frames', 'fps', 'codec',
           'motion', 'tags', 'description')
MOTIONS = ('static', 'handheld-slow', 'handheld-fast', 'camera-move-slow')
TAGS = ('water', 'night', 'short', 'soft', 'small', 'text', 'odd-size')   # and cut@N


@dataclasses.dataclass(frozen=True)
class ClipInfo:
    name: str           # file name in .testdata/video
    package: str        # the Debian 12 package that ships it
    path: str           # its path in the .deb
    licence: str        # from the package's debian/copyright
    width: int
    height: int
    frames: int         # decoded with -fps_mode passthrough
    fps: float          # average rate
    codec: str          # FFmpeg's codec name
    motion: str         # one of MOTIONS
    tags: Tuple[str, ...]
    description: str

    @property
    def cuts(self) -> Tuple[int, ...]:
        """First frames of the scene cuts in the clip (tags cut@N)."""
        return tuple(int(t[4:]) for t in self.tags if t.startswith('cut@'))


def parse_manifest(text: str, source: str = 'manifest') -> List[ClipInfo]:
    """The clips of a manifest's text; ValueError names the line of any malformed row."""
    clips = []
    header_seen = False
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith('#'):
            continue
        fields = line.split('\t')
        where = f'{source}:{number}'
        if not header_seen:
            if tuple(fields) != COLUMNS:
                raise ValueError(f'{where}: the header is {fields}, expected {list(COLUMNS)}')
            header_seen = True
            continue
        if len(fields) != len(COLUMNS):
            raise ValueError(f'{where}: {len(fields)} fields, expected {len(COLUMNS)}')
        row = dict(zip(COLUMNS, fields))
        try:
            width, height, frames, fps = int(row['width']), int(row['height']), int(row['frames']), float(row['fps'])
        except ValueError as e:
            raise ValueError(f'{where}: {e}') from None
        if min(width, height, frames) <= 0 or fps <= 0:
            raise ValueError(f'{where}: size, frames and fps must be positive')
        if row['motion'] not in MOTIONS:
            raise ValueError(f"{where}: motion '{row['motion']}' is not one of {MOTIONS}")
        tags = () if row['tags'] == '-' else tuple(row['tags'].split(','))
        for t in tags:
            if t not in TAGS and not (t.startswith('cut@') and t[4:].isdigit() and 0 < int(t[4:]) < frames):
                raise ValueError(f"{where}: unknown tag '{t}'")
        for key in ('name', 'package', 'path', 'licence', 'codec', 'description'):
            if not row[key].strip():
                raise ValueError(f'{where}: empty {key}')
        clips.append(ClipInfo(row['name'], row['package'], row['path'], row['licence'], width, height, frames,
                              fps, row['codec'], row['motion'], tags, row['description']))
    if not header_seen:
        raise ValueError(f'{source}: no header line')
    names = [c.name for c in clips]
    if len(set(names)) != len(names):
        raise ValueError(f'{source}: a clip name appears twice')
    return clips


def load_manifest(data_dir: str) -> Optional[List[ClipInfo]]:
    """The clips of <data_dir>/video/MANIFEST.tsv, or None when the clips were not fetched."""
    path = os.path.join(data_dir, 'video', 'MANIFEST.tsv')
    if not os.path.isfile(path):
        return None
    with open(path, encoding='utf-8') as f:
        return parse_manifest(f.read(), path)
