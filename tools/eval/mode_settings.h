// mode_settings.h: the settings each cudadenoise mode runs with in the report:
// the library's defaults (cdn::param_specs()), every plane filtered, and the
// known noise level given to every parameter of the mode that is a noise sigma
// (named "sigma" or "...-sigma", in 8-bit code values), so modes that take one
// get the same information the peers get. Found through the parameter table,
// not by mode: a new mode with a sigma parameter is covered when it lands.
#pragma once

#include "cudadenoise/settings.h"

namespace cdn::eval {

// Whether the mode has a noise-sigma parameter.
bool takes_sigma(Mode m);

// Defaults for `m` with planes = All and, when sigma > 0, its sigma parameters set
// (clamped to each parameter's range).
DenoiseSettings settings_for(Mode m, double sigma, const DenoiseSettings& base = DenoiseSettings{});
// The value of the mode's (first) sigma parameter in `s`; 0 when it has none.
double sigma_given(const DenoiseSettings& s);

}  // namespace cdn::eval
