// noise_estimate.h: the `sigma = auto` of one frame, for the callers that
// estimate once per image. Streams use NoiseTracker (noise_tracker.h), which
// follows the noise frame by frame.
//
// The estimator is noise_level.h (weak-texture patch PCA, Liu, Tanaka &
// Okutomi 2013, with the split-sample and clipping options); the floor and the
// default for frames without information are the tracker's (a frame observed
// by a fresh NoiseTracker), so an automatic sigma is never 0: a clean frame
// gives the floor, a black or flat one the default (docs/NOISE.md).
#pragma once

#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/plane.h"

namespace cdn {

// The raw estimate of one host plane in 8-bit code values (the whole plane,
// default budget); 0 when the plane has no usable patches (flat, black, too
// small). For measurements; denoisers take component_sigmas().
double estimate_noise_sigma(const PlaneView& plane);

// The noise std of each component of a frame, in the component's own code
// values: `given` (8-bit code values, > 0) scaled by 2^(depth - 8) (any frame),
// or, when `given` is 0, the estimate of each component of a host frame (never
// below the floor).
std::vector<double> component_sigmas(const FrameView& host_frame, double given);
// component_sigmas()[0].
double luma_sigma(const FrameView& host_frame, double given);

}  // namespace cdn
