# config.py: what the report runs on: content (photos, clips), noise levels and
# seeds, frame counts and repetitions, per preset (tiny for CI, quick, full).
import dataclasses
from typing import List, Optional, Tuple

SIGMAS = (10, 25, 40)   # AWGN std in 8-bit code values
TIMING_SIGMA = 25       # timings, plots and crops are taken at this noise level

# Settings the report runs besides each mode's defaults: tag -> (modes, flags of
# `cudadenoise-eval denoise`). The quality settings of PI-PD and hybrid are
# docs/PIPD.md's (cdn::pipd_quality_params(); direction prefilter: not in the paper).
VARIANTS = {
    'quality': (('pipd', 'hybrid'), ('--direction-prefilter', '1', '--thickness', '3', '--t2max', '1')),
}


def variant_text(flags) -> str:
    """What the tables say of a variant's flags: '--thickness 3' -> 'thickness=3'."""
    return ' '.join(f'{name[2:]}={value}' for name, value in zip(flags[::2], flags[1::2]))


def seed_base(sigma: float) -> int:
    """Noise of frame f at sigma s is seeded with 1000 s + 1 + f (kernels/noise.h)."""
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
    crop: Optional[str] = None
    region: Tuple[int, int, int, int] = None
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


VTEST = ClipSource('vtest', file='vtest.avi', start=0, region=(340, 180, 128, 128),
                   description='OpenCV sample vtest.avi (opencv-doc): 768x576 MPEG-4 (msmpeg4v3), 10 fps, '
                               'a fixed camera over a courtyard, people walking')
CUP = ClipSource('cup', file='cup.mp4', start=30, region=(240, 160, 128, 128),
                 description='OpenCV tutorial clip cup.mp4 (opencv-doc): 640x480 H.264, 26.8 fps, '
                             'hand-held, a hand turning a cup')
PAN = ClipSource('pan', pan_photo='astronaut', description='a pan across astronaut.png (2 px right, 1 px '
                 'down per frame): real photo content, synthetic motion')

PRESETS = {
    # CI: CPU only, a few seconds per method; still runs every code path (photos gray and
    # colour, a 4:2:0 clip decoded through FFmpeg, every mode and peer, figures, report).
    'tiny': Preset('tiny',
                   stills=[Still('camera', crop='128x128+200+60', region=(16, 16, 96, 96)),
                           Still('astronaut', crop='128x128+180+70', region=(16, 16, 96, 96))],
                   clips=[PAN],
                   clip_frames=9, eval_frames=3, still_timing_frames=3,
                   gpu_warmup=1, gpu_repeat=3, cpu_warmup=1, cpu_repeat=3,
                   temporal_timing_frames=0, cpu_temporal_clips=True, zoom=2, crop_size=64),
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
}
