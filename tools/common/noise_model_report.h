// noise_model_report.h: how the tools print a signal-dependent noise model
// (cudadenoise/noise_model.h), per plane, luma first, 8-bit code values: as
// text beside the sigma they print, and in their --json lines.
#pragma once

#include <string>
#include <vector>

#include "cudadenoise/noise_model.h"
#include "cudadenoise/settings.h"
#include "json.h"

namespace cdn::tools {

// "signal, a 0.50/0.50/0.50, b 4.00/4.00/4.00" (kind, then each plane's a and b).
std::string noise_models_text(NoiseModelKind kind, const std::vector<NoiseModel>& models);
// [{"a":0.5,"b":4,"curve":[[x,sigma],...]},...]: each plane, its free curve's
// usable points (empty without a curve).
Json noise_models_json(const std::vector<NoiseModel>& models);
// Where the model of `s` comes from: "profile" (--noise-profile), "given"
// (--noise-a, --noise-b) or "estimated" (from the frames).
const char* noise_model_source(const DenoiseSettings& s);

}  // namespace cdn::tools
