// mode_settings.cpp: report settings per mode (mode_settings.h).
#include "mode_settings.h"

#include <algorithm>
#include <string>

namespace cdn::eval {

namespace {

bool is_sigma_param(const ParamSpec& p) {
  const std::string n = p.name;
  return n == "sigma" || (n.size() > 6 && n.compare(n.size() - 6, 6, "-sigma") == 0);
}

}  // namespace

bool takes_sigma(Mode m) {
  for (const ParamSpec& p : param_specs())
    if (is_sigma_param(p) && param_group_applies(p.group, m)) return true;
  return false;
}

double sigma_given(const DenoiseSettings& s) {
  for (const ParamSpec& p : param_specs())
    if (is_sigma_param(p) && param_group_applies(p.group, s.mode)) return p.get(s);
  return 0;
}

DenoiseSettings settings_for(Mode m, double sigma, const DenoiseSettings& base) {
  DenoiseSettings s = base;
  s.mode = m;
  s.planes = PlaneSelection::All;
  if (sigma > 0)
    for (const ParamSpec& p : param_specs())
      if (is_sigma_param(p) && param_group_applies(p.group, m)) p.set(s, std::min(p.max, std::max(p.min, sigma)));
  validate(s);
  return s;
}

}  // namespace cdn::eval
