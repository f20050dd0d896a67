// motion_reference.h: block motion estimation between two frames, the plain C++
// reference (the oracle of motion_cuda.h). Hierarchical block matching on a
// mean pyramid of the noisy luma, the classic coarse-to-fine scheme (e.g.
// Bierling, "Displacement estimation by hierarchical blockmatching", SPIE VCIP
// 1988): each 2x2 mean halves the noise's std, so the coarse levels see the
// scene's structure through the noise, find large displacements with a small
// search, and hand them down as predictors that the finer levels refine.
//
// Definition (every step in integers, so the CUDA kernels give the same field):
// - Pyramid: level 0 is the luma's values (shift removed); level l + 1 is
//   ceil(w / 2) x ceil(h / 2), each sample (a + b + c + d + 2) >> 2 of its 2x2
//   block (coordinates clamped at the border). The coarsest level L is the
//   highest l <= max_levels whose smaller side is at least min_coarse_size
//   (0 for small frames).
// - Every level is cut in cells of `cell` x `cell` samples; a cell is matched
//   by the sum of absolute differences (SAD) over its window, the cell grown by
//   `margin` samples on each side (16 x 16 for 8 + 2 x 4): larger than the
//   cell, so that noise and flat cells mislead it less. Samples outside either
//   frame read the nearest border sample.
// - Cost of a displacement d for a cell: SAD(d) + lambda_px * |d - p|_1, where
//   p is the cell's first predictor (the parent's vector, doubled; 0 at the
//   coarsest level) and lambda_px = lambda * window samples * 2^(depth - 8) / 16
//   (lambda in 1/16 of a code value per sample and pixel of deviation). The
//   smallest cost wins; ties keep the first displacement in the search order.
// - Coarsest level: every d with |dx|, |dy| <= coarse_radius, rows of dy then
//   dx, from -r to r.
// - Finer levels: five predictors, in this order: twice the vector of the
//   parent cell (cx / 2, cy / 2), of its horizontal, vertical and diagonal
//   neighbours on the side of the cell (clamped to the parent grid), and zero;
//   around each, every d within refine_radius (rows of dy then dx).
// - Then, at every level, `smooth_passes` passes of neighbour propagation (each
//   pass reads the previous one's field): a cell takes the best of its own
//   vector and its 8 neighbours' (own first, then rows of dy, dx; neighbours
//   clamped to the field), the cost's deviation now measured from the
//   component-wise median of those 9 vectors. Flat cells, where every vector
//   matches as well, so inherit their neighbours' motion.
// The field of level 0 is the result: one vector per cell of `cell` pixels.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "cudadenoise/motion_params.h"
#include "cudadenoise/plane.h"
#include "motion/motion_field.h"

namespace cdn {

// One level of the pyramid.
struct PyramidLevel {
  int width = 0, height = 0;
  std::vector<std::uint16_t> v;  // row-major
  int at(int x, int y) const { return v[static_cast<std::size_t>(y) * width + x]; }
};

struct LumaPyramid {
  int bit_depth = 8;
  std::vector<PyramidLevel> levels;  // levels[0]: full resolution
};

// The coarsest level L for a frame of w x h.
int pyramid_levels(int w, int h, const MotionParams& p);

// The pyramid of a host luma plane, levels 0 .. pyramid_levels().
LumaPyramid build_pyramid(const PlaneView& luma, const MotionParams& p);

// lambda_px of the definition for these parameters and bit depth.
int motion_lambda_px(const MotionParams& p, int bit_depth);

// The field from frame `from` to frame `to` (pyramids of the same size and
// parameters). When `cancel` becomes true the work stops within a row of cells
// and Cancelled is thrown.
MotionField estimate_motion(const LumaPyramid& from, const LumaPyramid& to, const MotionParams& p,
                            const std::atomic<bool>* cancel = nullptr);

}  // namespace cdn
