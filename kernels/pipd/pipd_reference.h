// pipd_reference.h: the plain C++ reference of PI-PD and hybrid PI-PD
// (pipd-isoline-gpu-filter, sections VI-B, VI-C, VII-B to VII-D; algorithms 1-3).
// It is the oracle the CUDA kernels are tested against, and the CPU backend.
#pragma once

#include <cstdint>
#include <vector>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"
#include "pipd/pipd_glrt.h"
#include "pipd/pipd_patterns.h"

namespace cdn {

// Stage 1 (kernel_precomp, algorithm 1): for every pixel, the direction of the
// pattern with the smallest sample variance in `guide` (I_theta; the first wins
// ties) and the sums of z and z^2 of `in` along it (I_sigma). `guide` is `in`
// itself (the paper) or its direction-prefiltered copy, of the same size.
struct PipdStage1 {
  int width = 0, height = 0;
  std::vector<std::uint8_t> theta;
  std::vector<std::int64_t> sum, sum_sq;
};

void pipd_stage1_reference(const PlaneView& in, const PlaneView& guide, const PatternSet& patterns, PipdStage1* out,
                           int threads);

// Stage 2 (kernel_PIPD, algorithm 2) at one pixel: the rounded mean along the
// accepted poly-isoline.
int pipd_pixel_reference(const PlaneView& in, const PipdStage1& s1, const PatternSet& patterns, int max_segments,
                         const GlrtTable& tmax, int x, int y);

// Hybrid (kernel_edge_detector, algorithm 3) at one pixel: the window or
// half-plane mean, or -1 when more than one edge direction is found (the
// PI-PD value is used there).
int hybrid_pixel_reference(const PlaneView& in, const PatternSet& thin, const GlrtTable& t2max, int x, int y);

// The whole filter on one component; `in` and `out` are host planes of the same
// size and distinct memory. threads <= 0: all hardware threads.
void pipd_reference(const PlaneView& in, const PlaneView& out, Mode mode, const PipdParams& params,
                    int threads = 0);

}  // namespace cdn
