"""test_module.py: the Python module `cudadenoise` (python/, docs/PYTHON.md) on
the CPU backend: every frame layout and every mode gives the same bytes as the
GStreamer element on the same frames (gst-launch-1.0 over raw video, the
element loaded from the build); Stream keeps the order, the count and the tags
and matches the element frame for frame; settings and frames the library
refuses raise ValueError with its message; the help lists the table."""
import os
import subprocess
import tempfile

import numpy as np
import pytest

import cudadenoise

W, H = 40, 30  # odd chroma sizes are not needed: 4:2:0 halves of even sizes

# Per mode, small settings that run in well under a second on the CPU.
MODES = {
    "pipd": {"mode": "pipd"},
    "hybrid": {"mode": "hybrid"},
    "bm3d": {"mode": "bm3d", "sigma": 12},
    "nlm3d": {"mode": "nlm3d", "sigma": 12, "chunk_size": 3},
    "vbm3d": {"mode": "vbm3d", "sigma": 12, "vbm3d_profile": "fast", "vbm3d_chunk": 3},
}

# The element's spelling of the same settings (gst-launch takes numbers and nicks).
def element_props(params):
    out = []
    for k, v in params.items():
        out.append(f"{k.replace('_', '-')}={v}")
    return " ".join(out)


def noisy_planes(seed, depth=8):
    rng = np.random.default_rng(seed)
    top = (1 << depth) - 1
    scale = top / 255.0
    x = np.linspace(20, 230, W)[None, :] + 15 * np.sin(np.arange(H) / 4.0)[:, None]
    y = np.clip((x + rng.normal(0, 12, (H, W))) * scale, 0, top).round()
    uv = np.clip((128 + 20 * np.cos(np.arange(W // 2) / 3.0)[None, :, None] + rng.normal(0, 12, (H // 2, W // 2, 2)))
                 * scale, 0, top).round()
    return y, uv


def frame_in(layout, seed):
    """(the module's frame, GStreamer format, the raw bytes in memory layout)"""
    y8, uv8 = noisy_planes(seed)
    y8, uv8 = y8.astype(np.uint8), uv8.astype(np.uint8)
    if layout == "GRAY8":
        return y8, "GRAY8", y8.tobytes()
    if layout == "GRAY16_LE":
        y16 = (noisy_planes(seed, 16)[0]).astype(np.uint16)
        return y16, "GRAY16_LE", y16.astype("<u2").tobytes()
    if layout == "NV12":
        return (y8, uv8), "NV12", y8.tobytes() + uv8.tobytes()
    if layout == "I420":
        u, v = np.ascontiguousarray(uv8[:, :, 0]), np.ascontiguousarray(uv8[:, :, 1])
        return (y8, u, v), "I420", y8.tobytes() + u.tobytes() + v.tobytes()
    if layout == "P010_10LE":
        y10, uv10 = (a.astype(np.uint16) for a in noisy_planes(seed, 10))
        return (y10, uv10), "P010_10LE", (y10 << 6).astype("<u2").tobytes() + (uv10 << 6).astype("<u2").tobytes()
    if layout == "P016_LE":
        y16, uv16 = (a.astype(np.uint16) for a in noisy_planes(seed, 16))
        return (y16, uv16), "P016_LE", y16.astype("<u2").tobytes() + uv16.astype("<u2").tobytes()
    if layout in ("Y444", "Y444-interleaved"):
        u = np.repeat(np.repeat(uv8[:, :, 0], 2, 0), 2, 1)
        v = np.repeat(np.repeat(uv8[:, :, 1], 2, 0), 2, 1)
        planar = np.stack([y8, u, v])
        frame = planar if layout == "Y444" else np.ascontiguousarray(planar.transpose(1, 2, 0))
        return frame, "Y444", planar.tobytes()
    raise ValueError(layout)


def raw_bytes(out, layout):
    if layout in ("GRAY8", "GRAY16_LE"):
        return out.astype("<u2" if out.dtype == np.uint16 else np.uint8).tobytes()
    if layout == "NV12":
        return out[0].tobytes() + out[1].tobytes()
    if layout == "I420":
        return b"".join(p.tobytes() for p in out)
    if layout == "P010_10LE":
        return (out[0] << 6).astype("<u2").tobytes() + (out[1] << 6).astype("<u2").tobytes()
    if layout == "P016_LE":
        return out[0].astype("<u2").tobytes() + out[1].astype("<u2").tobytes()
    if layout == "Y444":
        return out.tobytes()
    if layout == "Y444-interleaved":
        return np.ascontiguousarray(out.transpose(2, 0, 1)).tobytes()
    raise ValueError(layout)


def element_run(raw_frames, gst_format, params):
    """The element (backend=cpu) over raw frames; returns its output bytes."""
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.raw"), os.path.join(d, "out.raw")
        with open(src, "wb") as f:
            f.write(b"".join(raw_frames))
        cmd = (f"gst-launch-1.0 -q filesrc location={src} ! rawvideoparse format={gst_format.lower().replace('_', '-')} "
               f"width={W} height={H} framerate=30/1 ! cudadenoise backend=cpu {element_props(params)} ! "
               f"filesink location={dst}")
        subprocess.run(cmd, shell=True, check=True, capture_output=True, timeout=300)
        with open(dst, "rb") as f:
            return f.read()


LAYOUTS = ["GRAY8", "GRAY16_LE", "NV12", "I420", "P010_10LE", "P016_LE", "Y444", "Y444-interleaved"]


def bit_depth_of(layout):
    return {"P010_10LE": 10, "P016_LE": 16, "GRAY16_LE": 16}.get(layout, 0)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_one_frame_equals_the_element(layout, mode):
    frame, gst_format, raw = frame_in(layout, 1)
    out = cudadenoise.denoise(frame, backend="cpu", bit_depth=bit_depth_of(layout), **MODES[mode])
    assert raw_bytes(out, layout) == element_run([raw], gst_format, MODES[mode])
    # The input is not touched, and the output is new arrays of the same layout.
    again, _, raw_again = frame_in(layout, 1)
    assert raw_again == raw
    assert type(out) is type(frame)


@pytest.mark.parametrize("mode", ["nlm3d", "vbm3d", "bm3d"])
def test_stream_order_tags_and_bytes_equal_the_element(mode):
    frames = [frame_in("NV12", 10 + i) for i in range(8)]
    got = []
    with cudadenoise.Stream(backend="cpu", **MODES[mode]) as s:
        for i, (frame, _, _) in enumerate(frames):
            s.push(frame, tag=("frame", i))
            got.extend(s)  # whatever is ready
        assert s.held == len(frames) - len(got)
        got.extend(s.flush())
        assert s.held == 0
    assert [t for _, t in got] == [("frame", i) for i in range(8)]
    expected = element_run([raw for _, _, raw in frames], "NV12", MODES[mode])
    assert b"".join(raw_bytes(f, "NV12") for f, _ in got) == expected


def test_stream_timing_counts_pushes_and_the_librarys_share():
    with cudadenoise.Stream(backend="cpu", mode="pipd") as s:
        assert s.timing == {"pushes": 0, "push_s": 0.0, "library_s": 0.0}
        for i in range(4):
            s.push(frame_in("NV12", 20 + i)[0])
        t = s.timing
    assert t["pushes"] == 4
    assert 0 < t["library_s"] <= t["push_s"]


def test_stream_refuses_another_size_and_is_closed_after_the_with_block():
    with cudadenoise.Stream(backend="cpu", mode="pipd") as s:
        s.push(np.zeros((H, W), np.uint8))
        with pytest.raises(ValueError, match="another format or size"):
            s.push(np.zeros((H, W + 2), np.uint8))
    with pytest.raises(ValueError, match="closed"):
        s.push(np.zeros((H, W), np.uint8))


def test_settings_errors_are_the_librarys():
    f = np.zeros((H, W), np.uint8)
    with pytest.raises(ValueError, match="patch-shape=cube conflicts with patch-radius = 4"):
        cudadenoise.denoise(f, mode="nlm3d", patch_shape="cube")
    with pytest.raises(ValueError, match="no parameter 'nosuch'"):
        cudadenoise.denoise(f, nosuch=1)
    with pytest.raises(ValueError, match="segment-length = 99 is out of range"):
        cudadenoise.denoise(f, mode="pipd", segment_length=99)
    with pytest.raises(ValueError, match="preset = 'nosuch'"):
        cudadenoise.denoise(f, "nosuch")
    with pytest.raises(ValueError, match="backend = 'gpu'"):
        cudadenoise.denoise(f, backend="gpu")
    with pytest.raises(ValueError, match="sigma = 'loud'"):
        cudadenoise.denoise(f, sigma="loud")


def test_frames_the_module_cannot_take_say_what_it_expects():
    with pytest.raises(ValueError, match="expected"):
        cudadenoise.denoise(np.zeros((H, W), np.float32))
    with pytest.raises(ValueError, match="bit_depth=10"):
        cudadenoise.denoise((np.zeros((H, W), np.uint16), np.zeros((H // 2, W // 2, 2), np.uint16)))
    with pytest.raises(ValueError, match="UV of shape"):
        cudadenoise.denoise((np.zeros((H, W), np.uint8), np.zeros((H // 2, W // 2), np.uint8)))
    with pytest.raises(ValueError, match="above the 10-bit maximum"):
        cudadenoise.denoise((np.full((H, W), 2000, np.uint16), np.zeros((H // 2, W // 2, 2), np.uint16)),
                            bit_depth=10)


def test_names_take_dashes_or_underscores_words_and_choices():
    f = frame_in("GRAY8", 3)[0]
    a = cudadenoise.denoise(f, backend="cpu", mode="bm3d", sigma=12, bm3d_profile="draft")
    b = cudadenoise.denoise(f, backend="cpu", **{"mode": "bm3d", "sigma": 12, "bm3d-profile": 6})
    assert np.array_equal(a, b)
    # sigma auto: measured on the frame (a frame large enough for the estimate).
    rng = np.random.default_rng(5)
    big = np.clip(128 + rng.normal(0, 12, (192, 256)), 0, 255).round().astype(np.uint8)
    out, sigma = cudadenoise.denoise(big, backend="cpu", mode="bm3d", sigma="auto", return_noise=True)
    assert len(sigma) == 1 and 11 < sigma[0] < 13
    assert out.std() < big.std() / 3


def test_noise_model_and_profile_are_the_librarys(tmp_path):
    rng = np.random.default_rng(9)
    x = np.linspace(20, 235, 256)[None, :] + 10 * np.sin(np.arange(192) / 5.0)[:, None]
    f = np.clip(x + rng.normal(0, 1, x.shape) * np.sqrt(0.5 * x + 4), 0, 255).round().astype(np.uint8)
    given = cudadenoise.denoise(f, backend="cpu", mode="bm3d", noise_model="signal", noise_a=0.5, noise_b=4)
    constant = cudadenoise.denoise(f, backend="cpu", mode="bm3d", sigma=8)
    assert not np.array_equal(given, constant)
    profile = tmp_path / "camera.json"
    profile.write_text('{"format": "cudadenoise-noise-profile", "version": 1, "planes": [{"a": 0.5, "b": 4.0}]}')
    from_file = cudadenoise.denoise(f, backend="cpu", mode="bm3d", noise_model="signal", noise_profile=str(profile))
    assert np.array_equal(from_file, given)
    with pytest.raises(ValueError, match="noise-model=signal or noise-model=curve"):
        cudadenoise.denoise(f, backend="cpu", mode="bm3d", noise_profile=str(profile))
    with pytest.raises(ValueError, match="nosuch.json"):
        cudadenoise.denoise(f, backend="cpu", mode="bm3d", noise_model="signal", noise_profile=str(tmp_path / "nosuch.json"))


def test_help_lists_the_parameter_table():
    for name in ("nlm_beta", "bm3d_profile", "vbm3d_profile", "sigma", "strength", "window", "noise_model",
                 "noise_profile"):
        assert name in cudadenoise.denoise.__doc__
        assert name in cudadenoise.Stream.__doc__
    assert "standard" in cudadenoise.presets and "vbm3d" in cudadenoise.modes


class StandInGpuArray:
    """An object with __cuda_array_interface__ (version 3) whose memory is not real: enough for
    what the module checks before it touches the memory (layout, strides, kind of frame)."""

    def __init__(self, shape, typestr="|u1", strides=None, mask=None, readonly=False, stream=None):
        self.__cuda_array_interface__ = {"version": 3, "shape": tuple(shape), "typestr": typestr,
                                         "data": (0x7f0000000000, readonly), "strides": strides, "mask": mask,
                                         "stream": stream}


def test_gpu_arrays_the_module_cannot_take_in_place_say_why():
    gray = StandInGpuArray((H, W))
    with pytest.raises(ValueError, match="backend='cpu' takes numpy arrays"):
        cudadenoise.denoise(gray, backend="cpu")
    with pytest.raises(ValueError, match=r"give \(3, H, W\)"):
        cudadenoise.denoise(StandInGpuArray((H, W, 3)))
    with pytest.raises(ValueError, match="bit_depth=16"):
        cudadenoise.denoise((StandInGpuArray((H, W), "<u2"), StandInGpuArray((H // 2, W // 2, 2), "<u2")), bit_depth=10)
    with pytest.raises(ValueError, match="not adjacent"):
        cudadenoise.denoise(StandInGpuArray((H, W), strides=(2 * W, 2)))
    with pytest.raises(ValueError, match="not adjacent"):
        cudadenoise.denoise((StandInGpuArray((H, W)), StandInGpuArray((H // 2, W // 2, 2), strides=(W, 1, W // 2))))
    with pytest.raises(ValueError, match="rows overlap"):
        cudadenoise.denoise(StandInGpuArray((H, W), strides=(W // 2, 1)))
    with pytest.raises(ValueError, match="masked"):
        cudadenoise.denoise(StandInGpuArray((H, W), mask=object()))
    with pytest.raises(ValueError, match="stream 0"):
        cudadenoise.denoise(StandInGpuArray((H, W), stream=0))
    with pytest.raises(ValueError, match="UV is not a GPU array"):
        cudadenoise.denoise((StandInGpuArray((H, W)), np.zeros((H // 2, W // 2, 2), np.uint8)))
    with pytest.raises(ValueError, match="expected"):
        cudadenoise.denoise(StandInGpuArray((H, W), "<f4"))
    with pytest.raises(ValueError, match="out= is for GPU arrays"):
        cudadenoise.denoise(np.zeros((H, W), np.uint8), out=np.zeros((H, W), np.uint8))
    with cudadenoise.Stream(backend="cpu") as s:
        with pytest.raises(ValueError, match="backend='cpu' takes numpy arrays"):
            s.push(gray)
    if not cudadenoise.cuda_available:
        # Memory CUDA cannot place (no device here), or a build without CUDA (the sanitizer
        # build): said, not filtered.
        with pytest.raises(ValueError, match="CUDA cannot tell where its memory is|this build of the module has no CUDA"):
            cudadenoise.denoise(gray)
