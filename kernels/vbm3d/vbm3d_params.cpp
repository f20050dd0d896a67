// vbm3d_params.cpp: the profiles of the video mode and their validation
// (vbm3d_params.h); docs/VBM3D.md records how the profiles were chosen.
#include "cudadenoise/vbm3d_params.h"

#include <algorithm>
#include <sstream>

#include "cudadenoise/error.h"

namespace cdn {

Vbm3dParams vbm3d_quality_profile() { return Vbm3dParams{}; }

Vbm3dParams vbm3d_paper_profile() {
  Vbm3dParams p;
  p.hard = Vbm3dPhaseParams{4, 6, 7, 5, 2, 2, 8, 3000.f, 1};
  p.wiener = Vbm3dPhaseParams{4, 4, 7, 5, 2, 2, 8, 1500.f, 1};
  p.motion = false;
  p.motion_on_basic = false;
  p.hard_tau_noise = 0;
  return p;
}

Vbm3dParams vbm3d_wide_profile() {
  Vbm3dParams p;
  p.hard = Vbm3dPhaseParams{4, 3, 39, 5, 2, 2, 16, 2500.f, 32};
  p.wiener = Vbm3dPhaseParams{4, 3, 39, 5, 2, 2, 32, 400.f, 32};
  return p;
}

Vbm3dParams vbm3d_fast_profile() {
  Vbm3dParams p;
  p.hard = Vbm3dPhaseParams{2, 6, 9, 5, 2, 2, 8, 2500.f, 32};
  p.phases = 1;
  return p;
}

namespace {

void check_range(const std::string& name, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi)) {
    std::ostringstream m;
    m << name << " = " << v << " is out of range: expected " << lo << " to " << hi;
    throw InvalidArgument(m.str());
  }
}

void check_odd(const std::string& name, int v, int lo, int hi) {
  check_range(name, v, lo, hi);
  if (v % 2 == 0) throw InvalidArgument(name + " = " + std::to_string(v) + " is invalid: expected an odd number");
}

void validate_phase(const std::string& phase, const Vbm3dPhaseParams& p) {
  check_range("vbm3d " + phase + " radius", p.radius, 0, kMaxVbm3dRadius);
  check_range("vbm3d " + phase + " step", p.step, 1, 8);
  check_odd("vbm3d " + phase + " window", p.window, 1, 63);
  check_odd("vbm3d " + phase + " predictive window", p.predictive, 1, 15);
  check_range("vbm3d " + phase + " seeds", p.seeds, 1, 8);
  check_range("vbm3d " + phase + " per-frame members", p.per_frame, 1, 16);
  check_range("vbm3d " + phase + " group", p.group, 1, 32);
  if ((p.group & (p.group - 1)) != 0)
    throw InvalidArgument("vbm3d " + phase + " group = " + std::to_string(p.group) + " is invalid: expected a power of 2");
  check_range("vbm3d " + phase + " tau", p.tau, 1, 1e6);
  check_range("vbm3d " + phase + " members of frame t", p.own_frame, 0, 32);
}

}  // namespace

void validate(const Vbm3dParams& p) {
  validate_phase("hard", p.hard);
  validate_phase("wiener", p.wiener);
  check_range("vbm3d phases", p.phases, 1, 2);
  check_range("vbm3d aggregation", static_cast<int>(p.aggregation), 0, 2);
  if (p.causal && p.aggregation == Vbm3dAggregation::Group)
    throw InvalidArgument("vbm3d: the group aggregation needs later frames; it does not go with the causal window");
  const MotionParams& m = p.motion_params;
  check_range("motion cell", m.cell, 4, 16);
  check_range("motion margin", m.margin, 0, 8);
  check_range("motion coarse radius", m.coarse_radius, 1, 16);
  check_range("motion refine radius", m.refine_radius, 0, 4);
  check_range("motion levels", m.max_levels, 0, 6);
  check_range("motion coarse size", m.min_coarse_size, 8, 256);
  check_range("motion lambda", m.lambda, 0, 1024);
}

namespace {

// The quality profile as the causal window runs it when no aggregation is
// given: the frame aggregation (the group one needs later frames) with the
// values it was measured with (docs/PRESETS.md, "Live sources"): steps 5 / 3,
// BM3D's groups 16 / 32, up to 32 members of frame t. (The quality profile's
// groups of 8 with one member of frame t were chosen for the group aggregation.)
Vbm3dParams causal_quality_profile() {
  Vbm3dParams p = vbm3d_quality_profile();
  p.aggregation = Vbm3dAggregation::Frame;
  p.hard.step = 5;
  p.wiener.step = 3;
  p.hard.group = 16;
  p.wiener.group = 32;
  p.hard.own_frame = p.wiener.own_frame = 32;
  return p;
}

Vbm3dParams base_profile(const Vbm3dSettings& s, bool causal) {
  if (s.profile == static_cast<int>(Vbm3dProfile::Fast)) return vbm3d_fast_profile();
  if (s.profile == static_cast<int>(Vbm3dProfile::Paper)) return vbm3d_paper_profile();
  if (s.profile == static_cast<int>(Vbm3dProfile::Wide)) return vbm3d_wide_profile();
  return causal && s.aggregation < 0 ? causal_quality_profile() : vbm3d_quality_profile();
}

}  // namespace

Vbm3dParams vbm3d_params(const Vbm3dSettings& s, bool causal) {
  Vbm3dParams p = base_profile(s, causal);
  for (Vbm3dPhaseParams* ph : {&p.hard, &p.wiener}) {
    if (s.radius >= 0) ph->radius = s.radius;
    if (s.step >= 0) ph->step = s.step;
    if (s.window >= 0) ph->window = s.window;
    if (s.predictive >= 0) ph->predictive = s.predictive;
    if (s.seeds >= 0) ph->seeds = s.seeds;
  }
  if (s.phases >= 0) p.phases = s.phases;
  if (s.motion >= 0) {
    p.motion = s.motion != 0;
    p.motion_on_basic = s.motion == 2;
  }
  p.causal = causal;
  // The group aggregation needs the frames after t; a causal window given no
  // aggregation takes the frame one (given group, validate() refuses it).
  if (s.aggregation >= 0)
    p.aggregation = static_cast<Vbm3dAggregation>(s.aggregation);
  else if (p.causal && p.aggregation == Vbm3dAggregation::Group)
    p.aggregation = Vbm3dAggregation::Frame;
  // The causal window searches as many other frames as the centred one, all of
  // them past: twice the profile's radius (at most kMaxVbm3dRadius), unless
  // vbm3d-radius is given (docs/VBM3D.md, "Causal window": 4 past frames
  // gained 0.39 to 0.46 dB over radius 0 on the moving clips, 8 gained 0.53 to 0.63).
  if (p.causal && s.radius < 0)
    for (Vbm3dPhaseParams* ph : {&p.hard, &p.wiener}) ph->radius = std::min(kMaxVbm3dRadius, 2 * ph->radius);
  return p;
}

}  // namespace cdn
