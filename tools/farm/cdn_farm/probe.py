"""probe.py: what the farm needs to know about an input, from ffprobe: the video
stream cudadenoise-transcode denoises (the first real video, never cover art),
its time base, and every video packet's timestamp and key flag; and where each
stream's first packets lie (the offset between the streams)."""
import json
import subprocess
from fractions import Fraction


class ProbeError(Exception):
    pass


def _run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise ProbeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "ffprobe failed")
    return p.stdout


class VideoIndex:
    """The video frames of one input in presentation order (frame i has pts[i]),
    which frames are keyframes, and the stream layout."""

    def __init__(self, path, ffprobe="ffprobe"):
        self.path = path
        info = json.loads(_run([ffprobe, "-v", "error", "-show_entries",
                                "stream=index,codec_type,time_base:stream_disposition=attached_pic",
                                "-of", "json", path]))
        self.streams = info.get("streams", [])
        self.ffprobe = ffprobe
        video = [s for s in self.streams if s.get("codec_type") == "video"
                 and not s.get("disposition", {}).get("attached_pic")]
        if not video:
            raise ProbeError(f"{path}: no video stream")
        self.video_stream = int(video[0]["index"])
        num, den = video[0]["time_base"].split("/")
        self.time_base = Fraction(int(num), int(den))
        out = _run([ffprobe, "-v", "error", "-select_streams", str(self.video_stream),
                    "-show_entries", "packet=pts,flags", "-of", "csv=p=0", path])
        pts, keys = [], set()
        for line in out.splitlines():
            fields = line.strip().split(",")
            if not fields or not fields[0]:
                continue
            if fields[0] == "N/A":
                raise ProbeError(f"{path}: a video packet has no timestamp; remux it first "
                                 "(ffmpeg -i IN -c copy OUT.mkv)")
            if len(fields) > 1 and "D" in fields[1]:
                continue  # marked discard (outside an MP4/MOV edit list): decodes to no frame
            p = int(fields[0])
            pts.append(p)
            if len(fields) > 1 and "K" in fields[1]:
                keys.add(p)
        if not pts:
            raise ProbeError(f"{path}: no video frames")
        pts.sort()
        self.pts = pts
        self.keyframes = [i for i, p in enumerate(pts) if p in keys]

    @property
    def frames(self):
        return len(self.pts)

    def seconds(self, i):
        """Seconds from frame 0 to frame i."""
        return float((self.pts[i] - self.pts[0]) * self.time_base)

    def stream_starts(self, seconds=5):
        """{stream index: its earliest packet pts in seconds (a Fraction)} over the
        packets of the file's first `seconds`, discarded ones (AAC priming, before
        an MP4/MOV edit list) included: a stream copy carries them. Streams with
        no timestamped packet there are left out."""
        bases = {int(s["index"]): Fraction(*map(int, s["time_base"].split("/")))
                 for s in self.streams if s.get("time_base", "0/0") != "0/0"}
        out = _run([self.ffprobe, "-v", "error", "-read_intervals", f"%+{seconds}",
                    "-show_entries", "packet=stream_index,pts", "-of", "csv=p=0", self.path])
        starts = {}
        for line in out.splitlines():
            fields = line.strip().split(",")
            if len(fields) < 2 or not fields[1] or fields[1] == "N/A" or int(fields[0]) not in bases:
                continue
            i, t = int(fields[0]), int(fields[1]) * bases[int(fields[0])]
            if i not in starts or t < starts[i]:
                starts[i] = t
        return starts

    def time_base_of(self, i):
        return next(Fraction(*map(int, s["time_base"].split("/"))) for s in self.streams if int(s["index"]) == i)
