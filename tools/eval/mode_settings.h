// mode_settings.h: the settings each cudadenoise mode runs with in the report:
// the library's defaults (cdn::param_specs()), every plane filtered, and the
// known noise level given as `sigma` (8-bit code values) to every mode that
// takes one (the library's cdn::uses_sigma), so those modes get the same
// information the peers get. Which modes take a sigma is the library's answer,
// not found again here: a new mode that takes one is covered when it lands.
#pragma once

#include "cudadenoise/settings.h"

namespace cdn::eval {

// Defaults for `m` with planes = All and, when sigma > 0 and the mode takes a
// sigma, `sigma` set (clamped to the parameter's range).
DenoiseSettings settings_for(Mode m, double sigma, const DenoiseSettings& base = DenoiseSettings{});
// The sigma given in `s` when its mode takes one; 0 when it takes none.
double sigma_given(const DenoiseSettings& s);

}  // namespace cdn::eval
