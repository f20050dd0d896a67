// noise_estimate.h: estimate the standard deviation of additive white Gaussian
// noise from one plane (the `sigma = auto` of the temporal and BM3D modes).
//
// Estimator: Immerkaer's Laplacian-difference operator (Immerkaer, "Fast noise
// variance estimation", CVIU 1996), N = [1 -2 1; -2 4 -2; 1 -2 1], which cancels
// locally linear content; for i.i.d. noise of std s the response has std 6 s.
// Instead of Immerkaer's mean absolute response we take a robust scale, the
// median absolute response times 1.4826 / 6, over the pixels whose local
// gradient is in the lower half (structure and texture lift the response
// where the image has edges; the median of the flatter half is mostly noise),
// leaving out 3x3 neighbourhoods with a sample at 0 or at the maximum, where
// clipping has censored the noise. Pure fine texture (grass, gravel) still
// reads as noise at low sigma: see docs/NLM3D.md for the measured accuracy.
// The result is in 8-bit code values (divided by 2^(bit_depth - 8)).
#pragma once

#include <vector>

#include "frame.h"
#include "plane.h"

namespace cdn {

// Host plane; at least 3x3 (smaller planes give 0).
double estimate_noise_sigma(const PlaneView& plane);

// The noise std of each component of a host frame, in the component's own code
// values: `given` (8-bit code values, > 0) scaled by 2^(depth - 8), or, when
// `given` is 0, the estimate of each component.
std::vector<double> component_sigmas(const FrameView& host_frame, double given);
// component_sigmas()[0] without estimating the chroma.
double luma_sigma(const FrameView& host_frame, double given);

// component_sigmas of the first frame a per-frame denoiser sees, kept for the
// frames after it (of the same format) until reset().
class FirstFrameSigma {
 public:
  const std::vector<double>& get(const FrameView& host_frame, double given) {
    if (sigma_.empty() || format_ != host_frame.format) {
      sigma_ = component_sigmas(host_frame, given);
      format_ = host_frame.format;
    }
    return sigma_;
  }
  bool known(PixelFormat f) const { return !sigma_.empty() && format_ == f; }
  void reset() { sigma_.clear(); }

 private:
  std::vector<double> sigma_;
  PixelFormat format_ = PixelFormat::GRAY8;
};

}  // namespace cdn
