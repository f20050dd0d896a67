// binomial_filter.h: the 3x3 binomial filter [1 2 1]^T [1 2 1] / 16 in integer
// arithmetic, rounded half up, with the clamp-to-edge border rule. PI-PD's
// direction prefilter (docs/PIPD.md, "Direction prefilter"; not in the paper)
// runs it on a copy of the frame before stage 1. Host and device inline code,
// so the CPU reference and the CUDA kernel compute the same integer.
#pragma once

#include "cudadenoise/plane.h"

namespace cdn {

// The filtered value of `in` at (x, y), a sample of in's range.
CDN_HD int binomial3x3_at(const PlaneView& in, int x, int y) {
  const int x0 = clamp_coord(x - 1, in.width), x1 = clamp_coord(x, in.width), x2 = clamp_coord(x + 1, in.width);
  const int y0 = clamp_coord(y - 1, in.height), y1 = clamp_coord(y, in.height), y2 = clamp_coord(y + 1, in.height);
  const int r0 = in.get(x0, y0) + 2 * in.get(x1, y0) + in.get(x2, y0);
  const int r1 = in.get(x0, y1) + 2 * in.get(x1, y1) + in.get(x2, y1);
  const int r2 = in.get(x0, y2) + 2 * in.get(x1, y2) + in.get(x2, y2);
  return (r0 + 2 * r1 + r2 + 8) >> 4;  // 16 * 65535 + 8 < 2^31
}

}  // namespace cdn
