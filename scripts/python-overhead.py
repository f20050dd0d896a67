#!/usr/bin/env python3
"""python-overhead.py: the Python module's cost per frame on GPU arrays (issue 35
item 7): milliseconds per 1920x1080 NV12 frame through cudadenoise.Stream on
PyTorch CUDA tensors (push, then the ready frame taken: empty_like for the
output, the interface read, the device made current, the GIL released), for the
presets given, sigma auto as the bench's preset table measures them; and, from
the stream's own clock (Stream.timing), the part of push() spent outside the
library's path: the module's overhead, measured in the same run (the
difference from the bench's table, in another process, moves with the runs'
spread). Run it beside `cudadenoise-bench --no-cpu --presets-only --size
1920x1080` in one session.

    PYTHONPATH=BUILD/python-3.12 python3 scripts/python-overhead.py [--presets standard,draft] [--frames 300]
"""
import argparse
import time

import torch

import cudadenoise


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--presets", default="standard,draft")
    p.add_argument("--frames", type=int, default=300)
    p.add_argument("--warmup", type=int, default=30)
    args = p.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(1)
    h, w = 1080, 1920
    y, x = torch.meshgrid(torch.arange(h, device="cuda"), torch.arange(w, device="cuda"), indexing="ij")
    base = 128 + 60 * torch.sin(x / 37.0) * torch.cos(y / 23.0)
    frames = []
    for k in range(8):  # a few distinct noisy frames, cycled
        noisy = base + 15 * torch.randn(h, w, device="cuda", generator=gen)
        luma = noisy.clamp(0, 255).round().to(torch.uint8)
        uv = (128 + 15 * torch.randn(h // 2, w // 2, 2, device="cuda", generator=gen)).clamp(0, 255).round()
        frames.append((luma, uv.to(torch.uint8)))
    torch.cuda.synchronize()
    print(f"GPU: {torch.cuda.get_device_name()}; torch {torch.__version__}; 1920x1080 NV12 torch tensors, sigma auto")
    print("| preset | frames | ms/frame through cudadenoise.Stream | of it in the library | the module's (push outside the library) |")
    print("| --- | --- | --- | --- | --- |")
    for preset in args.presets.split(","):
        with cudadenoise.Stream(preset) as s:
            for k in range(args.warmup):
                s.push(frames[k % len(frames)])
                list(s)
            torch.cuda.synchronize()
            before = s.timing
            t0 = time.perf_counter()
            for k in range(args.frames):
                s.push(frames[k % len(frames)])
                list(s)
            torch.cuda.synchronize()
            ms = (time.perf_counter() - t0) * 1000 / args.frames
            after = s.timing
        library = (after["library_s"] - before["library_s"]) * 1000 / args.frames
        module = ((after["push_s"] - before["push_s"]) - (after["library_s"] - before["library_s"])) * 1000 / args.frames
        print(f"| {preset} | {args.frames} | {ms:.3f} | {library:.3f} | {module:.3f} |")


if __name__ == "__main__":
    main()
