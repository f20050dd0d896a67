// nlm3d_confidence.cpp: the reference of frame confidence's factors (nlm3d_confidence.h),
// written as the definition reads: every distance summed sample by sample, in double.
#include "nlm3d/nlm3d_confidence.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/parallel.h"
#include "cudadenoise/error.h"
#include "nlm3d/nlm3d_reference.h"

namespace cdn {

namespace {

// d2 between the 2D patch of frame a at p and that of frame b at q (samples clamped).
double patch_distance(const PlaneView& a, int px, int py, const PlaneView& b, int qx, int qy, int r) {
  double d2 = 0;
  for (int j = -r; j <= r; ++j)
    for (int i = -r; i <= r; ++i) {
      const double d = static_cast<double>(a.get(clamp_coord(px + i, a.width), clamp_coord(py + j, a.height))) -
                       b.get(clamp_coord(qx + i, b.width), clamp_coord(qy + j, b.height));
      d2 += d * d;
    }
  return d2;
}

// The smallest d2 from p (frame a) to the candidates of frame b within `radius` of
// (cx, cy), p itself left out when `skip_self`; infinity when no candidate lies in the frame.
double best_distance(const PlaneView& a, int px, int py, const PlaneView& b, int cx, int cy, int radius, int r,
                     bool skip_self) {
  double best = std::numeric_limits<double>::infinity();
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int qx = cx + dx, qy = cy + dy;
      if (qx < 0 || qy < 0 || qx >= b.width || qy >= b.height) continue;
      if (skip_self && qx == px && qy == py) continue;
      best = std::min(best, patch_distance(a, px, py, b, qx, qy, r));
    }
  return best;
}

}  // namespace

std::vector<float> nlm_frame_confidence(const FrameWindow& luma, int t, const NlmParams& params, double sigma,
                                        const NlmMotion* motion, int threads, const std::atomic<bool>* cancel) {
  if (params.frame_confidence <= 0) throw InvalidArgument("nlm3d: frame confidence is off");
  if (params.patch_shape != NlmPatchShape::Planar) throw InvalidArgument("nlm3d: frame-confidence needs patch-shape=2d");
  if (params.confidence_cell <= 0 || params.confidence_cell % 16 != 0)
    throw InvalidArgument("nlm3d: confidence-cell must be a multiple of 16");
  if (params.motion_search && (!motion || !motion->fields || motion->fx != 1 || motion->fy != 1))
    throw InvalidArgument("nlm3d: frame confidence with motion-search needs the luma's motion fields");
  const PlaneView& ref = luma.at(t);
  const int w = ref.width, h = ref.height, r = params.patch_radius, Rt = params.temporal_radius;
  const int cell = params.confidence_cell, step = cell / kNlmConfidenceSamples;
  const int cols = nlm_confidence_cols(w, cell), rows = nlm_confidence_rows(h, cell);
  const int Rn = params.search_radius_at(1), R0 = std::max(Rn, 1);
  const double scale = params.frame_confidence * params.frame_confidence * sigma * sigma * params.patch_samples();
  std::vector<float> factor(nlm_confidence_floats(params, w, h), 1.0f);
  // Each row of cells writes its own factors: rows may run in parallel.
  parallel_rows(rows, threads, [&](int cy) {
    for (int cx = 0; cx < cols; ++cx) {
      if (cancel && cancel->load()) return;  // thrown below, off the worker threads
      // Frame t's own best match of each sample pixel of the cell.
      std::vector<double> b0;
      for (int j = 0; j < kNlmConfidenceSamples; ++j)
        for (int i = 0; i < kNlmConfidenceSamples; ++i) {
          const int px = cx * cell + i * step, py = cy * cell + j * step;
          b0.push_back(px < w && py < h ? best_distance(ref, px, py, ref, px, py, R0, r, true)
                                        : std::numeric_limits<double>::infinity());
        }
      for (int dt = -Rt; dt <= params.last_dt(); ++dt) {
        const int tc = t + dt;
        if (dt == 0 || tc < 0 || tc >= luma.stream_length) continue;
        const PlaneView& other = luma.at(tc);
        double sum = 0;
        int count = 0;
        for (int j = 0; j < kNlmConfidenceSamples; ++j)
          for (int i = 0; i < kNlmConfidenceSamples; ++i) {
            const int px = cx * cell + i * step, py = cy * cell + j * step;
            const double own = b0[static_cast<std::size_t>(j) * kNlmConfidenceSamples + i];
            if (px >= w || py >= h || std::isinf(own)) continue;
            int vx = 0, vy = 0;
            if (params.motion_search) nlm_motion_vector(motion->fields[dt + Rt], px, py, 1, 1, &vx, &vy);
            const double best = best_distance(ref, px, py, other, px + vx, py + vy, Rn, r, false);
            if (std::isinf(best)) continue;
            sum += best - own;
            ++count;
          }
        if (count == 0) continue;
        const double excess = std::max(sum / count, 0.0);
        factor[(static_cast<std::size_t>(dt + Rt) * rows + cy) * cols + cx] =
            static_cast<float>(scale > 0 ? std::exp(-excess / scale) : 1.0);  // sigma 0: no scale, no confidence
      }
    }
  });
  if (cancel && cancel->load()) throw Cancelled();
  return factor;
}

}  // namespace cdn
