// motion_params.h: the parameters of the hierarchical block matching of
// motion_reference.h (whose header comment defines what each one does), apart
// from the estimator so that the settings (vbm3d_params.h, settings.h) can
// carry them without the estimator's interface.
#pragma once

namespace cdn {

struct MotionParams {
  int cell = 8;             // cell side, samples of each level (the field's cell at level 0)
  int margin = 4;           // the matching window: the cell grown by this on each side
  int coarse_radius = 4;    // full search at the coarsest level
  int refine_radius = 1;    // search around each predictor at the finer levels
  int max_levels = 5;       // levels above full resolution, at most
  int min_coarse_size = 32; // smaller side of the coarsest level, at least (when the frame has it)
  int lambda = 8;           // smoothness, 1/16 code value per sample and pixel of deviation from the predictor
  int smooth_passes = 2;    // passes of neighbour propagation at each level

  int window() const { return cell + 2 * margin; }
};

}  // namespace cdn
