// vbm3d_params.cpp: the profiles of the video mode and their validation
// (vbm3d_params.h); docs/VBM3D.md records how the profiles were chosen.
#include "vbm3d_params.h"

#include <sstream>

#include "error.h"

namespace cdn {

Vbm3dParams vbm3d_quality_profile() { return Vbm3dParams{}; }

Vbm3dParams vbm3d_fast_profile() {
  Vbm3dParams p;
  p.hard.radius = 2;
  p.hard.step = 6;
  p.hard.window = 9;
  p.hard.group = 8;
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
  check_range("vbm3d " + phase + " radius", p.radius, 0, 8);
  check_range("vbm3d " + phase + " step", p.step, 1, 8);
  check_odd("vbm3d " + phase + " window", p.window, 1, 63);
  check_odd("vbm3d " + phase + " predictive window", p.predictive, 1, 15);
  check_range("vbm3d " + phase + " seeds", p.seeds, 1, 8);
  check_range("vbm3d " + phase + " per-frame members", p.per_frame, 1, 32);
  check_range("vbm3d " + phase + " group", p.group, 1, 32);
  if ((p.group & (p.group - 1)) != 0)
    throw InvalidArgument("vbm3d " + phase + " group = " + std::to_string(p.group) + " is invalid: expected a power of 2");
  check_range("vbm3d " + phase + " tau", p.tau, 1, 1e6);
}

}  // namespace

void validate(const Vbm3dParams& p) {
  validate_phase("hard", p.hard);
  validate_phase("wiener", p.wiener);
  check_range("vbm3d phases", p.phases, 1, 2);
  const MotionParams& m = p.motion_params;
  check_range("motion cell", m.cell, 4, 16);
  check_range("motion margin", m.margin, 0, 8);
  check_range("motion coarse radius", m.coarse_radius, 1, 16);
  check_range("motion refine radius", m.refine_radius, 0, 4);
  check_range("motion levels", m.max_levels, 0, 6);
  check_range("motion coarse size", m.min_coarse_size, 8, 256);
  check_range("motion lambda", m.lambda, 0, 1024);
}

}  // namespace cdn
