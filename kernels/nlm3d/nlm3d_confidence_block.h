// nlm3d_confidence_block.h: the distance search of frame confidence's CUDA kernel
// (nlm3d_confidence_cuda.cu; the definition: nlm3d_confidence.h), written once for the
// device and the host so that the CPU tests (tests/kernels/test_nlm3d_confidence.cpp)
// check its groups of offsets, borders and direct reads against a plain minimum in CI.
#pragma once

#include <math.h>

#include <cstddef>

#include "cudadenoise/plane.h"
#include "nlm3d/nlm3d_planar_block.h"  // kGroup, group_hi

namespace cdn::nlm_confidence {

// The smallest d2 from the patch `cen` (row-major, p x p floats, in shared memory on the
// GPU: the pixel's patch of frame t at px, py) to the candidates of frame f within `radius`
// of (cx, cy): per window row, kGroup horizontal offsets from one read of kGroup + 2r
// candidate samples per patch row (offsets beyond `radius` discarded); p itself left out
// when skip_self; infinity when no candidate lies in the frame.
template <int r>
CDN_HD float best_distance(const float* cen, const PlaneView& f, int px, int py, int cx, int cy, int radius,
                           bool skip_self) {
  constexpr int p = 2 * r + 1, kGroup = nlm_planar::kGroup, W = kGroup + 2 * r;
  const int w = f.width, h = f.height;
  // An 8-bit plane whose samples are contiguous, and a window (with the groups' last
  // offsets and the patch) inside the frame: no clamp, rows read through a pointer.
  const int hi = nlm_planar::group_hi(radius);  // the last offset a group evaluates
  const bool direct = f.bytes_per_sample == 1 && f.pixel_stride == 1 && cx - radius - r >= 0 && cx + hi + r < w &&
                      cy - radius - r >= 0 && cy + radius + r < h;
  const unsigned char* base = static_cast<const unsigned char*>(f.data) + f.component_offset;
  float best = INFINITY;
  for (int dy = -radius; dy <= radius; ++dy) {
    const int qy = cy + dy;
    if (qy < 0 || qy >= h) continue;  // the whole row of candidates lies outside the frame
    for (int g0 = -radius; g0 <= radius; g0 += kGroup) {
      float sum[kGroup];
CDN_UNROLL
      for (int k = 0; k < kGroup; ++k) sum[k] = 0.f;
      for (int j = 0; j < p; ++j) {
        const int y = clamp_coord(qy + j - r, h);
        float c[p], q[W];
CDN_UNROLL
        for (int i = 0; i < p; ++i) c[i] = cen[j * p + i];
        if (direct) {
          const unsigned char* row = base + static_cast<std::size_t>(y) * f.pitch + (cx + g0 - r);
CDN_UNROLL
          for (int m = 0; m < W; ++m) q[m] = static_cast<float>(row[m]);
        } else {
CDN_UNROLL
          for (int m = 0; m < W; ++m) q[m] = static_cast<float>(f.get(clamp_coord(cx + g0 - r + m, w), y));
        }
CDN_UNROLL
        for (int k = 0; k < kGroup; ++k)
CDN_UNROLL
          for (int i = 0; i < p; ++i) {
            const float d = c[i] - q[k + i];
            sum[k] += d * d;
          }
      }
CDN_UNROLL
      for (int k = 0; k < kGroup; ++k) {
        const int dx = g0 + k, qx = cx + dx;
        if (dx > radius) break;
        if (qx < 0 || qx >= w || (skip_self && qx == px && qy == py)) continue;
        best = fminf(best, sum[k]);
      }
    }
  }
  return best;
}

}  // namespace cdn::nlm_confidence
