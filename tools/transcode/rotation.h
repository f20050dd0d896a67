// rotation.h: --autorotate, the display matrix applied to the pixels, as
// ffmpeg's -autorotate does: a phone clip stored sideways with "rotate 90"
// comes out upright, with no matrix left to apply. Right angles only (90, 180,
// 270 degrees clockwise); other matrices (mirrored, other angles) are not
// applied, and the transcode keeps them instead, with a note.
//
// Frames are turned on the host, plane by plane: each plane's elements (a
// sample, an interleaved UV pair of NV12/P010, a packed pixel) move as a
// whole, so every layout without sub-byte samples works, and 4:2:0 chroma
// turns with its luma (a W x H frame with W/2 x H/2 chroma becomes H x W with
// H/2 x W/2 chroma).
#pragma once

#include <cstdint>

extern "C" {
#include <libavutil/frame.h>
}

#include "av_ptr.h"

namespace cdn::transcode {

// Clockwise quarter turns (1, 2 or 3) a display matrix asks for; 0 when it
// asks for none, -1 when it is not a plain right-angle rotation.
int quarter_turns_of(const std::int32_t* display_matrix);

// A host frame turned by `quarter_turns` clockwise (1..3), with `in`'s
// properties (the sample aspect ratio swapped for odd turns). Throws
// Failure(kExitFailure) for layouts it cannot turn.
FramePtr rotate_frame(const AVFrame* in, int quarter_turns);

}  // namespace cdn::transcode
