// frame_rgb.h: a region of a GRAY8, I420 or Y444 frame as an 8-bit RGB image,
// for display only (the crops of the report): BT.601 YCbCr to RGB through
// tools/common's convert.h, after expanding limited-range samples
// (Y 16..235, C 16..240) to full range; frames not marked full range are taken
// as limited, video's default. 4:2:0 chroma is repeated (nearest).
#pragma once

#include "cudadenoise/frame.h"
#include "image.h"
#include "y4m.h"

namespace cdn::eval {

struct Region {
  int x = 0, y = 0, width = 0, height = 0;
};

// Throws std::invalid_argument when the region is not inside the frame.
tools::Image frame_region_rgb(const FrameView& frame, Range range, const Region& region);

}  // namespace cdn::eval
