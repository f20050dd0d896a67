"""test_gpu_arrays.py: GPU arrays through the Python module (issue 35 item 4;
docs/PYTHON.md, "GPU arrays"), with PyTorch and CuPy, on a machine with a GPU:
every layout the module takes in place gives the bytes of the same frame as
numpy arrays on the CUDA backend; out= is written in place and returned; rows
with padding (a crop's view) are taken as they are; the work waits for the
stream the array names; Stream gives a temporal mode's frames and tags as on
the host path; 10,000 frames through a Stream leave the device's free memory
where it was. Skips (saying why) without a GPU or without torch and CuPy: the
GPU host's Python has both (scripts/gpu-python.sh runs this file there)."""
import os

import numpy as np
import pytest

import cudadenoise

libs = []
try:
    import torch
    if torch.cuda.is_available():
        libs.append("torch")
except ImportError:
    pass
try:
    import cupy
    if cupy.cuda.runtime.getDeviceCount() > 0:
        libs.append("cupy")
except Exception:  # no CuPy, or no device for it
    pass

pytestmark = pytest.mark.skipif(not cudadenoise.cuda_available or not libs,
                                reason="needs a CUDA GPU and torch or CuPy with CUDA")

H, W = 96, 128
LAYOUTS = ["GRAY8", "GRAY16", "Y444", "NV12", "P016", "I420"]


def host_frame(layout, seed):
    """A noisy frame as numpy arrays; bit_depth for it."""
    rng = np.random.default_rng(seed)

    def plane(h, w, c=None, top=255, dtype=np.uint8):
        shape = (h, w) if c is None else (h, w, c)
        y, x = np.mgrid[0:h, 0:w]
        base = (0.5 + 0.35 * np.sin(x / 9.0) * np.cos(y / 7.0)) * top
        if c is not None:
            base = base[..., None].repeat(c, axis=2)
        return np.clip(base + rng.normal(0, 0.06 * top, shape), 0, top).round().astype(dtype)

    if layout == "GRAY8":
        return plane(H, W), 0
    if layout == "GRAY16":
        return plane(H, W, top=65535, dtype=np.uint16), 16
    if layout == "Y444":
        return np.stack([plane(H, W) for _ in range(3)]), 0
    if layout == "NV12":
        return (plane(H, W), plane(H // 2, W // 2, 2)), 0
    if layout == "P016":
        return (plane(H, W, top=65535, dtype=np.uint16), plane(H // 2, W // 2, 2, top=65535, dtype=np.uint16)), 16
    return (plane(H, W), plane(H // 2, W // 2), plane(H // 2, W // 2)), 0


def to_gpu(lib, frame):
    if isinstance(frame, tuple):
        return tuple(to_gpu(lib, p) for p in frame)
    if lib == "torch":
        return torch.from_numpy(frame).cuda()
    return cupy.asarray(frame)


def to_host(frame):
    if isinstance(frame, tuple):
        return tuple(to_host(p) for p in frame)
    return frame.cpu().numpy() if hasattr(frame, "cpu") else cupy.asnumpy(frame)


def same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@pytest.mark.parametrize("lib", libs)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("params", [dict(preset="standard", sigma=10), dict(mode="pipd"),
                                    dict(preset="draft"), dict(preset="live", sigma=12)],
                         ids=["bm3d", "pipd", "draft-sigma-auto", "nlm3d-causal"])
def test_gpu_frames_give_the_host_paths_bytes(lib, layout, params):
    host, depth = host_frame(layout, 1)
    want, want_sigma = cudadenoise.denoise(host, backend="cuda", bit_depth=depth, return_noise=True, **params)
    gpu = to_gpu(lib, host)
    got, sigma = cudadenoise.denoise(gpu, bit_depth=depth, return_noise=True, **params)
    assert type(got if not isinstance(got, tuple) else got[0]) is type(gpu if not isinstance(gpu, tuple) else gpu[0])
    assert same(to_host(got), want)
    assert sigma == pytest.approx(want_sigma)
    assert same(to_host(gpu), host)  # the input is not changed


@pytest.mark.parametrize("lib", libs)
def test_out_is_written_in_place_and_returned(lib):
    host, _ = host_frame("NV12", 2)
    gpu = to_gpu(lib, host)
    out = to_gpu(lib, tuple(np.zeros_like(p) for p in host))
    pointers = [p.data_ptr() if lib == "torch" else p.data.ptr for p in out]
    got = cudadenoise.denoise(gpu, out=out, preset="standard", sigma=10)
    assert got is out
    assert pointers == [p.data_ptr() if lib == "torch" else p.data.ptr for p in out]
    assert same(to_host(out), cudadenoise.denoise(host, backend="cuda", preset="standard", sigma=10))
    with pytest.raises(ValueError, match="another layout"):
        cudadenoise.denoise(gpu, out=to_gpu(lib, np.zeros((H, W), np.uint8)))


@pytest.mark.parametrize("lib", libs)
def test_padded_rows_are_taken_as_they_are(lib):
    big, _ = host_frame("GRAY8", 3)
    wide = np.pad(big, ((0, 0), (16, 16)), mode="reflect")
    view = to_gpu(lib, wide)[:, 16:16 + W]  # rows W + 32 bytes apart
    assert not (view.is_contiguous() if lib == "torch" else view.flags.c_contiguous)
    got = cudadenoise.denoise(view, preset="standard", sigma=10)
    assert same(to_host(got), cudadenoise.denoise(np.ascontiguousarray(big), backend="cuda", preset="standard",
                                                  sigma=10))


def test_the_work_waits_for_the_arrays_stream():
    if "torch" not in libs:
        pytest.skip("needs torch")
    host, _ = host_frame("GRAY8", 4)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        src = torch.from_numpy(host).cuda()
        torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time queued before the frame is made
        x = src.clone()                 # ready only when the sleep is over
        got = cudadenoise.denoise(x, preset="standard", sigma=10)
    torch.cuda.synchronize()
    assert same(to_host(got), cudadenoise.denoise(host, backend="cuda", preset="standard", sigma=10))


@pytest.mark.parametrize("lib", libs)
@pytest.mark.parametrize("preset", ["video", "static-video", "standard"])
def test_stream_gives_the_host_paths_frames_and_tags(lib, preset):
    frames = [host_frame("NV12", 10 + k)[0] for k in range(7)]
    want = []
    with cudadenoise.Stream(preset, backend="cuda", sigma=10) as s:
        for k, f in enumerate(frames):
            s.push(f, k)
            want += list(s)
        want += s.flush()
    got = []
    with cudadenoise.Stream(preset, sigma=10) as s:
        for k, f in enumerate(frames):
            s.push(to_gpu(lib, f), k)
            got += list(s)
        got += s.flush()
    assert [t for _, t in got] == list(range(7)) == [t for _, t in want]
    for (g, _), (w, _) in zip(got, want):
        assert same(to_host(g), w)
    with cudadenoise.Stream(preset) as s:
        s.push(to_gpu(lib, frames[0]))
        with pytest.raises(ValueError, match="numpy frame in a stream of GPU frames"):
            s.push(frames[1])


def test_ten_thousand_frames_leave_the_devices_memory_where_it_was():
    lib = libs[0]
    host, _ = host_frame("NV12", 5)
    small = tuple(p[:48, :64] if p.ndim == 2 else p[:24, :32] for p in host)
    gpu = to_gpu(lib, tuple(np.ascontiguousarray(p) for p in small))

    def free_bytes():
        return (torch.cuda.mem_get_info()[0] if lib == "torch" else cupy.cuda.runtime.memGetInfo()[0])

    with cudadenoise.Stream("draft", sigma=10) as s:
        for _ in range(100):
            s.push(gpu)
            list(s)
        before = free_bytes()
        for _ in range(10_000):
            s.push(gpu)
            list(s)
        after = free_bytes()
    assert before - after < 16 << 20, f"{(before - after) / 2**20:.1f} MiB more in use after 10,000 frames"


def test_stream_timing_on_gpu_arrays_leaves_the_output_allocation_to_the_module():
    lib = libs[0]
    gpu = to_gpu(lib, host_frame("NV12", 6)[0])
    with cudadenoise.Stream("draft", sigma=10) as s:
        for _ in range(20):
            s.push(gpu)
            list(s)
        t = s.timing
    assert t["pushes"] == 20
    assert 0 < t["library_s"] < t["push_s"]
