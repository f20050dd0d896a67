// nlm3d_confidence.h: frame confidence, NLM-3D's option `frame-confidence` (not in
// the papers; docs/NLM3D.md, "Frame confidence"). The CPU reference of the factors
// here, the CUDA kernel in nlm3d_confidence_cuda.cu; the filters (nlm3d_reference.cpp,
// nlm3d_planar_block.h) multiply each candidate's weight by its frame's factor.
//
// Why. Where another frame does not hold frame t's content at the motion-compensated
// place (caustics moving over a scene under water, an occlusion, a wrong vector), its
// candidates differ from frame t's patch by a pattern weaker than the noise, still weigh
// nearly 1, and outnumber frame t's own: they blur. Where it does hold it, its best match
// is as good as frame t's own best. So, per cell of the luma and other frame t + dt:
//
//   b0(p)    = min d2(p, q) over q in frame t,      |q - p| <= max(Rn, 1) per axis, q != p
//   b(p, dt) = min d2(p, q) over q in frame t + dt, |q - (p + v(p, dt))| <= Rn per axis
//   E(cell, dt) = mean of b(p, dt) - b0(p) over the cell's sample pixels p that have both
//   factor(cell, dt) = exp(-max(E, 0) / (c^2 sigma^2 |B|))        (1 when no p has both)
//
// d2 the filter's 2D patch distance on the luma (clamped samples), Rn the other frames'
// search radius (frame t's candidates are taken in the same window size, so that both
// minima are over about as many candidates: a minimum over more candidates is lower), v
// the motion vector of p's cell (none without motion-search), candidates outside the
// frame left out as in the filter, c = frame_confidence, sigma the luma's, |B| the patch's
// samples. A cell is confidence_cell luma pixels square; its sample pixels are an 8 x 8
// grid, every (cell / 8)-th pixel in x and y from the cell's corner (those inside the
// frame): the mean over 64 pixels is as good as over all (measured, docs/NLM3D.md) at
// 64 / cell^2 of the cost (1/16 at cells of 32). Every pass of a frame uses the luma's factors: a pass on
// fx x fy luma means reads, for its sample (x, y), the cell holding luma (fx x, fy y).
// dt = 0 has factor 1; the self weight (the largest weight of the other candidates, at least self-weight-floor) is
// taken before the factors.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"
#include "nlm3d/nlm3d_motion.h"

namespace cdn {

struct FrameWindow;

// Sample pixels per cell side.
constexpr int kNlmConfidenceSamples = 8;

// The factors of output frames, host or device memory: per frame (2 Rt + 1) grids of
// cols x rows cells, frame z's factor of (dt, cell) at
// factor[((z * (2 Rt + 1)) + dt + Rt) * rows * cols + cy * cols + cx].
struct NlmConfidence {
  const float* factor = nullptr;
  int cols = 0, rows = 0;
  int cell = 32;  // luma pixels
  int Rt = 0;
  int fx = 1, fy = 1;  // the pass's guide block (nlm3d_guide.h): (1, 1) for the luma
};

CDN_HD int nlm_confidence_cols(int luma_width, int cell) { return (luma_width + cell - 1) / cell; }
CDN_HD int nlm_confidence_rows(int luma_height, int cell) { return (luma_height + cell - 1) / cell; }

// The view of the factors at `factor` (host or device) for a luma of luma_width x
// luma_height and a pass on fx x fy luma means.
inline NlmConfidence nlm_confidence_view(const float* factor, const NlmParams& p, int luma_width, int luma_height,
                                         int fx = 1, int fy = 1) {
  return {factor,
          nlm_confidence_cols(luma_width, p.confidence_cell),
          nlm_confidence_rows(luma_height, p.confidence_cell),
          p.confidence_cell,
          p.temporal_radius,
          fx,
          fy};
}

// Factors per output frame: (2 Rt + 1) x rows x cols.
inline std::size_t nlm_confidence_floats(const NlmParams& p, int luma_width, int luma_height) {
  return static_cast<std::size_t>(2 * p.temporal_radius + 1) * nlm_confidence_cols(luma_width, p.confidence_cell) *
         nlm_confidence_rows(luma_height, p.confidence_cell);
}

// The factor of frame z's candidates in frame t + dt for sample (x, y) of the pass.
CDN_HD float nlm_confidence_factor(const NlmConfidence& c, int z, int dt, int x, int y) {
  const int cx = clamp_coord(c.fx * x / c.cell, c.cols), cy = clamp_coord(c.fy * y / c.cell, c.rows);
  return c.factor[(static_cast<long>(z) * (2 * c.Rt + 1) + dt + c.Rt) * c.rows * c.cols +
                  static_cast<long>(cy) * c.cols + cx];
}

// The factors of frame t, (2 Rt + 1) x rows x cols as laid out above (z = 0), from the
// luma window; sigma in the luma's code values; motion: frame t's fields with fx = fy = 1
// (required with motion-search). params.frame_confidence must be > 0. Rows of cells on
// `threads` threads (<= 0: all hardware threads); when `cancel` becomes true the work
// stops within a cell and Cancelled is thrown.
std::vector<float> nlm_frame_confidence(const FrameWindow& luma, int t, const NlmParams& params, double sigma,
                                        const NlmMotion* motion, int threads = 0,
                                        const std::atomic<bool>* cancel = nullptr);

}  // namespace cdn
