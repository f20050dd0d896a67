// content.h: the benchmark's frames: real picture content (never zeros) tiled to
// any size and format, with AWGN sigma 25.
#pragma once

#include <string>

#include "cudadenoise/host_frame.h"

namespace cdn::bench {

// The source picture (astronaut.png from `dir`, else the built-in test picture)
// as a Y444 frame of its own size.
HostFrame source_picture(const std::string& dir);

// The source tiled with mirroring into a frame of `format` (chroma from the
// picture's colour; 10- and 16-bit values scaled from the 8-bit ones), then AWGN
// sigma 25 (in 8-bit code values) on every component.
HostFrame make_frame(const FrameView& src, PixelFormat format, int w, int h);

}  // namespace cdn::bench
