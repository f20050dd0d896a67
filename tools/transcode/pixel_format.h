// pixel_format.h: FFmpeg pixel formats <-> cdn frames. The mapping is direct
// where the memory layout is one cdn understands (yuv420p = I420, nv12, p010le,
// p016le, yuv444p = Y444, gray, gray16le); everything else is converted with
// swscale to conversion_target() first.
#pragma once

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

#include "cudadenoise/frame.h"

namespace cdn::transcode {

// False when cdn has no format with the same memory layout.
bool cdn_format_of(AVPixelFormat av, PixelFormat* out);

// What an unmappable software format is converted to: p010le when it has more
// than 8 bits per sample (10-bit stays 10-bit), else yuv444p for RGB and other
// 4:4:4 formats (full chroma stays full), else yuv420p.
AVPixelFormat conversion_target(AVPixelFormat av);

// The planes of `frame` (host memory, or CUDA device pointers for
// MemoryKind::Device) as a cdn frame of format `format`.
FrameView frame_view(const AVFrame* frame, PixelFormat format, MemoryKind memory);

// "yuv420p", or "none".
const char* pix_fmt_name(int av);

}  // namespace cdn::transcode
