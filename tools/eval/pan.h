// pan.h: a moving clip made from a real photo, for when no real video clip is
// at hand (the CI's tiny run, or a GPU host without the clips): a window of the
// photo that moves by (dx, dy) pixels per frame, as tests/kernels's NLM-3D
// quality test does. Colour photos give I420 frames (BT.601 full range, chroma
// the rounded mean of each 2x2 block), gray ones GRAY8.
#pragma once

#include <vector>

#include "cudadenoise/host_frame.h"
#include "image.h"

namespace cdn::eval {

struct PanSpec {
  int width = 0, height = 0;  // of the frames; even for colour
  int frames = 0;
  int x0 = 0, y0 = 0;  // top-left corner of the first window
  int dx = 2, dy = 1;  // per frame
};

// Throws std::invalid_argument when a window leaves the photo.
std::vector<HostFrame> make_pan(const tools::Image& photo, const PanSpec& spec);

}  // namespace cdn::eval
