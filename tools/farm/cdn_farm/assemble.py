"""assemble.py: the pieces into the final output: the video pieces concatenated
by stream copy (FFmpeg's concat demuxer), the source's other streams (audio,
subtitles, attachments), global metadata and chapters muxed from the source
once, in the source's stream order; then checked before it gets its name:
its video packets are, one for one, the pieces' packets that the transcode
tool read back from each piece file and decoded there (the manifests'
packet_md5 and frame_md5), as many as the source has frames, at the source's
timestamps. Where they are not (a muxer that rewrites packets, such as
MPEG-TS's), or with check="decode", decoding it must give, frame by frame,
the manifests' frame MD5s (ffmpeg -f framemd5). The packets are read without
decoding: the check costs the client a read of the file, not a decode of it,
which would cap a farm of many GPUs at one machine's decoding speed."""
import os
import subprocess
import tempfile
from fractions import Fraction

from . import probe


class AssembleError(Exception):
    pass


def _run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stderr.strip().splitlines() if l]
        raise AssembleError(f"{what}: " + (lines[-1] if lines else f"exit {p.returncode}"))
    return p.stdout


def concat_and_mux(ffmpeg, index, manifests, piece_videos, target_temp, work_dir):
    """Writes `target_temp` (its extension names the container). The concat
    demuxer starts its output at 0 and each file where the previous one's
    duration ends: each piece gets its exact start and length in the source's
    clock (inpoint; the next piece's first timestamp minus its own) and the
    whole is put back at the first piece's first timestamp (-itsoffset on that
    input only), all from the pieces' manifests (the source video's time base)."""
    listing = os.path.join(work_dir, "concat.txt")
    with open(listing, "w") as f:
        for m, v in zip(manifests, piece_videos):
            tb = Fraction(*m["time_base"])
            f.write("file '" + os.path.abspath(v).replace("'", "'\\''") + "'\n")
            f.write(f"inpoint {_seconds(m['first_pts'], tb)}\n")  # not the file's start_time: a short
            # Matroska file may have none
            if m.get("end_pts") is not None:
                f.write(f"duration {_seconds(m['end_pts'] - m['first_pts'], tb)}\n")
    first = manifests[0]
    # auto_convert 0: the pieces' packets as they are (by default the concat demuxer
    # would put H.264 headers in band at every piece's start; the pieces share theirs).
    cmd = [ffmpeg, "-v", "error", "-nostdin", "-y", "-itsoffset",
           _seconds(first["first_pts"], Fraction(*first["time_base"])),
           "-f", "concat", "-safe", "0", "-auto_convert", "0", "-i", listing, "-i", index.path]
    for s in index.streams:  # the source's order; its denoised video from the pieces
        i = int(s["index"])
        cmd += ["-map", "0:v:0"] if i == index.video_stream else ["-map", f"1:{i}"]
    cmd += ["-map_metadata", "1", "-map_chapters", "1", "-c", "copy", target_temp]
    _run(cmd, "concatenating the pieces")


def _seconds(ticks, time_base):
    """An exact decimal (microseconds: FFmpeg's AV_TIME_BASE) for ticks * time_base."""
    us = Fraction(ticks) * time_base * 1000000
    return f"{round(us)}us"


def decoded_frames(ffmpeg, path):
    """[(pts, md5)] of the frames of `path`'s first video stream (decoded), and their time base."""
    return _framemd5(ffmpeg, path, [], f"decoding {path}")


def video_packets(ffmpeg, path):
    """[(pts, md5)] of the packets of `path`'s first video stream (read, not decoded), and their time base."""
    return _framemd5(ffmpeg, path, ["-c", "copy"], f"reading {path}")


def _framemd5(ffmpeg, path, options, what):
    out = _run([ffmpeg, "-v", "error", "-nostdin", "-i", path, "-map", "0:v:0"] + options + ["-f", "framemd5", "-"],
               what)
    tb, frames = None, []
    for line in out.splitlines():
        if line.startswith("#tb 0:"):
            num, den = line.split(":")[1].strip().split("/")
            tb = Fraction(int(num), int(den))
        elif line and not line.startswith("#"):
            f = [x.strip() for x in line.split(",")]
            frames.append((int(f[2]), f[5]))
    return frames, tb


def verify(ffmpeg, ffprobe, index, manifests, path, whole=False, check="packets"):
    """(None, how) when `path` holds the manifests' frames, as many as the source
    has, at the source's timestamps; else (what differs, how). `how` is
    "packets" where its video packets are the pieces' (each manifest's
    packet_md5: those read back from the piece file, which decode there to its
    frame_md5), else "decode": decoding `path` gives the manifests' frames, MD5
    for MD5 (check="decode" asks for that in any case).
    The timestamps are compared as the muxer may have moved them: a container
    that takes no negative timestamps (Matroska) moves every stream by the
    same amount (an MP4's AAC priming starts before 0: a single transcode run
    and `ffmpeg -c copy` put its video at 0.023 s), so the video must be where
    the source has it moved as the copied streams were (same A/V offset).
    `whole`: one piece made by a plain run over an input whose frames cannot
    be found by their timestamps: its frames and timestamps are the tool's own
    (its manifest's), which may differ from the packets' count and timestamps."""
    how = "decode"
    if check == "packets" and not whole and all(len(m.get("packet_md5", [])) == len(m["frame_md5"])
                                                for m in manifests):
        packets, _ = video_packets(ffmpeg, path)
        if [md5 for _, md5 in packets] == [md5 for m in manifests for md5 in m["packet_md5"]]:
            how = "packets"
    problem = _frames_problem(ffmpeg, index, manifests, path, whole) if how == "decode" else None
    if problem or whole:
        return problem, how
    return _timestamps_problem(ffprobe, index, path), how


def _frames_problem(ffmpeg, index, manifests, path, whole):
    """What differs between decoding `path` and the manifests' frames; None if nothing."""
    frames, _ = decoded_frames(ffmpeg, path)
    expected = [md5 for m in manifests for md5 in m["frame_md5"]]
    want = len(expected) if whole else index.frames
    if len(frames) != want or len(expected) != want:
        return f"{len(frames)} frames decoded, the source has {want} (the pieces {len(expected)})"
    at = 0
    for number, m in enumerate(manifests):
        n = len(m["frame_md5"])
        if [md5 for _, md5 in frames[at:at + n]] != m["frame_md5"]:
            return f"piece {number} does not decode as its manifest says"
        at += n
    return None


def _timestamps_problem(ffprobe, index, path):
    """What is wrong with `path`'s video packets' count and timestamps against the source's; None if nothing."""
    try:
        out = probe.VideoIndex(path, ffprobe)
        shift = _muxer_shift(index, out)
    except probe.ProbeError as e:
        return f"probing the output: {e}"
    if isinstance(shift, str):
        return shift
    shift, shift_slack = shift
    if out.frames != index.frames:
        return f"{out.frames} video packets in the output, the source has {index.frames} frames"
    # Timestamps: the source's, to half a tick of the coarser time base (and the shift's own rounding).
    slack = max(out.time_base, index.time_base) / 2 + shift_slack
    for i, (pts, src) in enumerate(zip(out.pts, index.pts)):
        if abs(pts * out.time_base - (src * index.time_base + shift)) > slack:
            moved = f" moved by {float(shift):.6f} s as the other streams" if shift else ""
            return (f"frame {i} is at {float(pts * out.time_base):.6f} s, the source's at "
                    f"{float(src * index.time_base):.6f} s{moved}")
    return None


def _muxer_shift(index, out):
    """(seconds, their rounding) by which the streams copied from the source
    moved in the output `out` (same stream order), 0 when there are none; or
    what is wrong when they did not all move by the same amount."""
    src, dst = index.stream_starts(), out.stream_starts()
    found = None
    for i in sorted(src):
        if i == index.video_stream or i not in dst or i == out.video_stream:
            continue
        d = dst[i] - src[i]
        slack = max(index.time_base_of(i), out.time_base_of(i)) / 2
        if found is None:
            found = (d, slack)
        elif abs(d - found[0]) > slack + found[1]:
            return (f"the source's streams moved apart in the output (stream {i} by {float(d):.6f} s, "
                    f"another by {float(found[0]):.6f} s)")
    return found or (Fraction(0), Fraction(0))


def piece_decodes_as(ffmpeg, video, manifest):
    """Whether one piece file decodes to its manifest's frames."""
    try:
        frames, _ = decoded_frames(ffmpeg, video)
    except AssembleError:
        return False
    return [md5 for _, md5 in frames] == manifest["frame_md5"]


def temp_beside(target):
    """A temporary name beside `target` (same file system: the rename is atomic),
    with the mode a new file gets (0666 less the umask, as the transcode tool's
    outputs): mkstemp makes it 0600, and ffmpeg writing into it keeps that."""
    d, base = os.path.split(os.path.abspath(target))
    stem, ext = os.path.splitext(base)
    fd, temp = tempfile.mkstemp(prefix=f".{stem}.part", suffix=ext, dir=d)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
    finally:
        os.close(fd)
    return temp


def _umask():
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o077)
    os.umask(mask)
    return mask
