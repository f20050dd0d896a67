// bm3d_profile.h: the constants of BM3D's two phases (bm3d-gpu-honzatko-krulis-
// 2017, table 1) and the geometry both backends share: where reference patches
// sit, which candidates a search window holds and how a candidate is numbered.
//
// Geometry (docs/BM3D.md): a plane is processed at its padded size
// max(w, 8) x max(h, 8) (padding repeats the edge sample, the clamp rule of
// plane.h), so every 8x8 patch lies inside it. Patch origins run over
// [0, last_x] x [0, last_y], last = padded size - 8. Reference origins are
// min(i * step, last) (section 4.1.1: patches at the border are references
// whatever the step). The search window of a reference at (rx, ry) holds the
// origins (rx + dx, ry + dy), |dx|, |dy| <= radius, that are valid origins; a
// candidate's scan index is (dy + radius) * side + (dx + radius), row-major.
#pragma once

#include <cstdint>

#include "plane.h"
#include "settings.h"

namespace cdn::bm3d {

constexpr int kPatch = 8;            // k: patch side, both phases
constexpr int kPatchArea = kPatch * kPatch;
constexpr int kMaxGroupHard = 16;    // N of the hard-thresholding phase
constexpr int kMaxGroupWiener = 32;  // N of the Wiener phase
constexpr float kTauHard = 2500.0f;  // distance thresholds of d = ||P - Q||^2 / k^2, 8-bit units
constexpr float kTauWiener = 400.0f;
constexpr float kLambda3d = 2.7f;    // hard threshold lambda3D * sigma
constexpr double kKaiserBeta = 2.0;  // Kaiser window of the aggregation (the reference implementations' beta)

// One phase's parameters for a plane of a given bit depth.
struct PhaseProfile {
  int step = 3;
  int radius = 19;      // window = 2 radius + 1
  int max_group = 16;   // N: a power of 2
  float tau_ssd = 0;    // threshold on the sum of squared differences over the patch, in the plane's code values
  bool wiener = false;

  CDN_HD int side() const { return 2 * radius + 1; }
  CDN_HD int self_index() const { return radius * side() + radius; }
};

inline PhaseProfile phase_profile(const Bm3dParams& p, bool wiener, int bit_depth) {
  PhaseProfile pp;
  pp.step = p.step;
  pp.radius = p.window / 2;
  pp.max_group = wiener ? kMaxGroupWiener : kMaxGroupHard;
  const float scale = static_cast<float>(1 << (bit_depth - 8));
  pp.tau_ssd = (wiener ? kTauWiener : kTauHard) * kPatchArea * scale * scale;
  pp.wiener = wiener;
  return pp;
}

// Reference patch origins of a plane of padded size pw x ph.
struct RefGrid {
  int last_x = 0, last_y = 0, step = 1, nx = 1, ny = 1;

  RefGrid() = default;
  RefGrid(int pw, int ph, int s) : last_x(pw - kPatch), last_y(ph - kPatch), step(s) {
    nx = (last_x + s - 1) / s + 1;  // 0, s, ..., and last_x itself
    ny = (last_y + s - 1) / s + 1;
  }
  CDN_HD int x(int i) const { return i * step < last_x ? i * step : last_x; }
  CDN_HD int y(int j) const { return j * step < last_y ? j * step : last_y; }
  CDN_HD int count() const { return nx * ny; }
};

// The largest power of 2 not above n (n >= 1): groups are cut to it (section 4.1.1).
CDN_HD int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

}  // namespace cdn::bm3d
