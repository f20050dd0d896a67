// mode_settings.cpp: report settings per mode (mode_settings.h).
#include "mode_settings.h"

#include <algorithm>

namespace cdn::eval {

double sigma_given(const DenoiseSettings& s) { return uses_sigma(s.mode) ? s.sigma : 0; }

DenoiseSettings settings_for(Mode m, double sigma, const DenoiseSettings& base) {
  DenoiseSettings s = base;
  s.mode = m;
  s.planes = PlaneSelection::All;
  if (sigma > 0 && uses_sigma(m)) {
    const ParamSpec& p = *find_param("sigma");
    p.set(s, std::min(p.max, std::max(p.min, sigma)));
  }
  validate(s);
  return s;
}

}  // namespace cdn::eval
