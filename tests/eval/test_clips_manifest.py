#!/usr/bin/env python3
# test_clips_manifest.py: the clip manifest (scripts/eval-clips.tsv, read by
# scripts/fetch-eval-data.sh and tools/eval/harness/clips.py) is well formed:
# - every row has its 12 fields, a known motion class and tags, positive sizes;
#   a clip of odd width or height, and only such a clip, is tagged odd-size;
# - every motion class has a clip, and the clips of harness/config.py are in it;
# - the parser rejects a row with a field missing, an unknown motion class, an
#   unknown tag, a cut outside the clip and a name given twice.
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'tools', 'eval'))
from harness import clips as manifest  # noqa: E402
from harness import config  # noqa: E402

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL: ' + msg)


def rejects(text, what):
    try:
        manifest.parse_manifest(text, 'test')
    except ValueError as e:
        print(f'ok: {what}: {e}')
        return
    check(False, f'the parser accepted {what}')


with open(os.path.join(ROOT, 'scripts', 'eval-clips.tsv'), encoding='utf-8') as f:
    text = f.read()
clips = manifest.parse_manifest(text, 'scripts/eval-clips.tsv')
names = {c.name for c in clips}
print(f'{len(clips)} clips: ' + ', '.join(f'{c.name} ({c.width}x{c.height}, {c.frames}, {c.motion})' for c in clips))
for motion in manifest.MOTIONS:
    check(any(c.motion == motion for c in clips), f'no clip of motion class {motion}')
for source in (config.VTEST, config.CUP):
    check(source.file in names, f'{source.file} (harness/config.py) is not in the manifest')
# every clip of the manifest is in the report's clips (config.REAL_CLIPS), with the manifest's motion
by_name = {c.name: c for c in clips}
in_config = {s.file: s for s in config.REAL_CLIPS + [config.DOG_1080]}
check(set(by_name) <= set(in_config), f'clips of the manifest not in harness/config.py: {sorted(set(by_name) - set(in_config))}')
for f, s in in_config.items():
    check(f in by_name and s.motion == by_name[f].motion,
          f"{f}: motion {s.motion} in harness/config.py, {by_name[f].motion if f in by_name else 'absent'} in the manifest")
    check(s.motion_class == ('static' if s.motion == 'static' else 'moving'), f'{f}: motion class {s.motion_class}')
    if f in by_name:   # scripts/stage-eval.sh keeps the first 80 frames, and the clip must have them
        n = min(80, by_name[f].frames)
        for p in config.PRESETS.values():
            if s in p.clips:
                check(s.start + p.clip_frames <= n, f'{f}: frames {s.start}..{s.start + p.clip_frames} of {n} (preset {p.name})')
check({m for m in config.MOTION_CLASS} == set(manifest.MOTIONS), 'config.MOTION_CLASS covers the manifest\'s motions')
for c in clips:
    check(os.path.splitext(c.name)[1] != '', f'{c.name}: no extension')
    check(not c.path.startswith('/') and '..' not in c.path.split('/'), f'{c.name}: path {c.path} leaves the package')
    odd = c.width % 2 == 1 or c.height % 2 == 1
    check(odd == ('odd-size' in c.tags), f'{c.name}: {c.width}x{c.height}, tags {c.tags}: odd-size tag wrong')
with_cuts = [c for c in clips if c.cuts]
check(all(0 < cut < c.frames for c in with_cuts for cut in c.cuts), 'a cut outside its clip')

header = next(line for line in text.splitlines() if line.startswith('name\t'))
row = 'a.mp4\tpkg\tusr/a.mp4\tMIT\t64\t48\t10\t25\th264\tstatic\t-\ta clip'
good = header + '\n' + row + '\n'
check(len(manifest.parse_manifest(good, 'test')) == 1, 'a minimal manifest does not parse')
rejects(header + '\n' + row.rsplit('\t', 1)[0] + '\n', 'a row with a field missing')
rejects(header + '\n' + row.replace('static', 'wobbly') + '\n', 'an unknown motion class')
rejects(header + '\n' + row.replace('\t-\t', '\tfoggy\t') + '\n', 'an unknown tag')
rejects(header + '\n' + row.replace('\t-\t', '\tcut@10\t') + '\n', 'a cut at the last frame + 1')
rejects(good + row + '\n', 'a name given twice')
rejects(row + '\n', 'no header')

print(f'{len(failures)} failed' if failures else 'all checks passed')
sys.exit(1 if failures else 0)
