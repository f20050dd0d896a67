// pipd_cuda.h: PI-PD and hybrid PI-PD as CUDA kernels (paper section VII:
// kernel_precomp, kernel_PIPD, kernel_edge_detector), bit-exact with the CPU
// reference in pipd_reference.h.
//
// Two launches per component: stage 1 computes I_theta / I_sigma into a scratch
// buffer from a shared-memory tile (and, in hybrid mode, runs the edge detector
// on the same tile, writing the output of every pixel with fewer than two edges);
// stage 2 follows the poly-isolines for the remaining pixels. The direction
// prefilter adds one launch per pass before stage 1, into guide planes kept in
// the same scratch buffer.
#pragma once

#include <cstddef>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"

namespace cdn {

class PipdCuda {
 public:
  PipdCuda() = default;
  ~PipdCuda();
  PipdCuda(const PipdCuda&) = delete;
  PipdCuda& operator=(const PipdCuda&) = delete;

  // Filters one device component into another (same size, distinct memory) on
  // `stream` (a cudaStream_t). Asynchronous: the caller synchronizes. The
  // scratch buffer grows to the largest component seen and is then reused.
  void run(const PlaneView& in, const PlaneView& out, Mode mode, const PipdParams& params, void* stream);

  std::size_t scratch_bytes() const { return scratch_bytes_; }

 private:
  void* scratch_ = nullptr;
  std::size_t scratch_bytes_ = 0;
};

}  // namespace cdn
