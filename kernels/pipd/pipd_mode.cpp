// pipd_mode.cpp: the registrations (mode_spec.h) of pipd and hybrid, PI-PD's
// isoline filter per frame (pipd-isoline-gpu-filter, section VIII: the
// parameters' defaults) and hybrid PI-PD with its edge detector; the PI-PD
// rows of the parameter table.
#include <string>
#include <vector>

#include "core/mode_spec.h"
#include "pipd/pipd_filter.h"

namespace cdn {

namespace {

void check_pipd(const DenoiseSettings& s, std::vector<std::string>* problems) {
  if (s.pipd.thickness != 1 && s.pipd.thickness != 3)
    problems->push_back("thickness = " + std::to_string(s.pipd.thickness) + " is invalid: expected 1 or 3");
}

ModeSpec pipd_spec(Mode mode, const char* name, const char* description, std::vector<ParamGroup> groups,
                   std::vector<ParamSpec> rows, void (*check)(const DenoiseSettings&, std::vector<std::string>*)) {
  ModeSpec m{mode,  name,    description, std::move(groups), std::move(rows), false, nullptr, nullptr,
             check, make_pipd_cpu_filter};
#ifdef CDN_HAVE_CUDA
  m.cuda_filter = make_pipd_cuda_filter;
#endif
  return m;
}

// The mode's rows of the parameter table (settings.h).
std::vector<ParamSpec> params() {
  return {
      {ParamGroup::Pipd, "segment-length", "PI-PD segment length l in pixels (paper: 5)", true, 2, 8, 5,
       [](const DenoiseSettings& s) { return double(s.pipd.segment_length); },
       [](DenoiseSettings& s, double v) { s.pipd.segment_length = int(v); }},
      {ParamGroup::Pipd, "max-length", "PI-PD maximum isoline length n in pixels (paper: 25); isolines grow by whole segments up to it: "
       "floor(n / segment-length) segments, at least one", true,
       2, 64, 25, [](const DenoiseSettings& s) { return double(s.pipd.max_length); },
       [](DenoiseSettings& s, double v) { s.pipd.max_length = int(v); }},
      {ParamGroup::Pipd, "tmax", "PI-PD GLRT threshold Tmax for lengthening an isoline (paper: 1)", false, 0.0, 100.0, 1.0,
       [](const DenoiseSettings& s) { return s.pipd.tmax; }, [](DenoiseSettings& s, double v) { s.pipd.tmax = v; }},
      {ParamGroup::Hybrid, "t2max", "Hybrid PI-PD's edge-detector GLRT threshold T2max (paper: 2)", false, 0.0, 100.0, 2.0,
       [](const DenoiseSettings& s) { return s.pipd.t2max; },
       [](DenoiseSettings& s, double v) { s.pipd.t2max = v; }},
      {ParamGroup::Pipd, "thickness", "PI-PD isoline thickness in pixels, 1 or 3", true, 1, 3, 1,
       [](const DenoiseSettings& s) { return double(s.pipd.thickness); },
       [](DenoiseSettings& s, double v) { s.pipd.thickness = int(v); }},
      {ParamGroup::Pipd, "direction-prefilter",
       "PI-PD: passes of a 3x3 binomial filter over the copy on which stage 1 picks isoline directions; 0 = the "
       "noisy frame, as in the paper (an addition of ours: docs/PIPD.md)",
       true, 0, 2, 0, [](const DenoiseSettings& s) { return double(s.pipd.direction_prefilter); },
       [](DenoiseSettings& s, double v) { s.pipd.direction_prefilter = int(v); }},
  };
}

}  // namespace

const ModeSpec& pipd_mode() {
  static const ModeSpec spec = pipd_spec(Mode::Pipd, "pipd", "PI-PD isoline filter, per frame (real time)",
                                         {ParamGroup::Pipd}, params(), check_pipd);
  return spec;
}

const ModeSpec& hybrid_mode() {
  // The PI-PD parameters (t2max, hybrid's own, among them) are pipd's rows and
  // checked once, by pipd's registration.
  static const ModeSpec spec =
      pipd_spec(Mode::Hybrid, "hybrid", "hybrid PI-PD with the edge detector, per frame (real time)",
                {ParamGroup::Pipd, ParamGroup::Hybrid}, {}, nullptr);
  return spec;
}

}  // namespace cdn
