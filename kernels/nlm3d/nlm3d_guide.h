// nlm3d_guide.h: which component's distances weigh which components in the
// temporal mode (docs/NLM3D.md, "Colour").
//
// Chroma takes its weights from luma (nlm3d-gpu-cuomo-2014 filters one channel):
// luma carries the structure. A frame is filtered in passes; a pass computes the
// weights once on its guide and averages every component of `values` with them:
//   gray, or luma only:  guide Y,          values {Y}
//   4:4:4:               guide Y,          values {Y, U, V}
//   4:2:0:               guide Y,          values {Y}, then
//                        guide Y 2x2 mean, values {U, V}.
// The 2x2 mean is rounded half up to an integer, so the CPU reference and the
// kernel agree exactly. Every pass uses the luma's h (h^2 = 2 beta sigma_Y^2 |B|),
// also on the 2x2 mean whose noise is sigma_Y / 2: chroma is smoother than luma
// and gains from the wider weights (measured in docs/NLM3D.md, "Colour").
#pragma once

#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/plane.h"

namespace cdn {

struct NlmPass {
  int fx = 1, fy = 1;        // the guide is the mean of fx x fy luma blocks (1 x 1: luma itself)
  std::vector<int> values;   // components averaged with the guide's weights
};

// The passes over components [0, filtered) of a frame of format f.
inline std::vector<NlmPass> nlm_passes(PixelFormat f, int filtered) {
  const FormatInfo fi = format_info(f);
  if (filtered == 1) return {NlmPass{1, 1, {0}}};
  if (fi.chroma_shift_x == 0 && fi.chroma_shift_y == 0) return {NlmPass{1, 1, {0, 1, 2}}};
  return {NlmPass{1, 1, {0}}, NlmPass{1 << fi.chroma_shift_x, 1 << fi.chroma_shift_y, {1, 2}}};
}

// Sample (x, y) of the guide of factors fx, fy over `luma`: the luma sample, or
// the rounded mean of the fx x fy block at (fx x, fy y) (clamped to the luma plane).
CDN_HD int luma_guide_sample(const PlaneView& luma, int x, int y, int fx, int fy) {
  if (fx == 1 && fy == 1) return luma.get(x, y);
  const int x0 = clamp_coord(fx * x, luma.width), x1 = clamp_coord(fx * x + fx - 1, luma.width);
  const int y0 = clamp_coord(fy * y, luma.height), y1 = clamp_coord(fy * y + fy - 1, luma.height);
  const int n = fx * fy;
  const int sum = n == 4 ? luma.get(x0, y0) + luma.get(x1, y0) + luma.get(x0, y1) + luma.get(x1, y1)
                         : luma.get(x0, y0) + luma.get(x1, y1);  // 2 x 1 or 1 x 2: x0 == x1 or y0 == y1
  return (sum + n / 2) / n;
}

}  // namespace cdn
