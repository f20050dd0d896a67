// motion_check.h: how much of a motion field estimated on degraded frames (noisy,
// or a per-frame denoised estimate of them) agrees with the field estimated on
// the clean frames, and what the difference costs where the video modes use it:
// the block-wise motion-compensated prediction of one frame from another
// (issue 38 item 1: why temporal denoising gains little on fast real motion).
//
// The clean field stands in for the truth: it is the same estimator
// (motion_reference.h) on noise-free frames, so a disagreement is what the noise
// did to the estimate, not an error of the estimator itself; the compensation
// PSNR of each field (against the clean frames) says whether a disagreement
// matters.
#pragma once

#include "cudadenoise/plane.h"
#include "motion/motion_field.h"

namespace cdn::motion_check {

// Cells whose vectors differ between two fields of the same geometry.
struct Agreement {
  long cells = 0;     // cells compared
  long off = 0;       // cells whose vectors differ by more than 1 pixel in x or y
  double epe = 0;     // mean end-point error (Euclidean distance of the vectors), pixels
  double off_fraction() const { return cells ? static_cast<double>(off) / cells : 0; }
};

// `test` against `truth`: throws InvalidArgument when their geometry differs.
Agreement compare_fields(const MotionField& truth, const MotionField& test);

// The mean squared error of predicting plane `from` from plane `to` through the
// field (from -> to): sample (x, y) of `from` against `to` at (x + dx, y + dy)
// of its cell's vector, clamped to the plane. Planes of the field's size.
double compensation_mse(const PlaneView& from, const PlaneView& to, const MotionField& field);

}  // namespace cdn::motion_check
