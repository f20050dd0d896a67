"""plan.py: cutting a video into pieces at keyframes, about N seconds each. A
piece starting at a keyframe decodes nothing it does not write (but for a
temporal mode's reach); where the input has no keyframe near a cut, the piece
grows to the next one."""
import hashlib
import json


def split_at_keyframes(index, piece_seconds):
    """[(a, b), ...] covering frames [0, index.frames): each piece starts at a
    keyframe (or frame 0) and ends at the first keyframe at least
    piece_seconds after its start (or at the end)."""
    n = index.frames
    pieces, start = [], 0
    for k in index.keyframes:
        if k > start and index.seconds(k) - index.seconds(start) >= piece_seconds:
            pieces.append((start, k))
            start = k
    if start < n:
        pieces.append((start, n))
    return pieces


def job_signature(path, stat, transcode_args, piece_seconds):
    """What the pieces depend on (the input, as its size and modification time
    tell, the transcode options, the cutting): a rerun with the same signature
    reuses complete pieces; any change starts the pieces over. The tool is not
    in it (a wrapper, another path to the same build may run a rerun)."""
    blob = json.dumps({"input": path, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                       "args": list(transcode_args), "piece_seconds": piece_seconds},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()
