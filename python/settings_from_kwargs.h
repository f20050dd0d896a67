// settings_from_kwargs.h: the module's keyword arguments as the library's
// settings, through the same table as the element's properties and the tools'
// flags (settings.h, presets.h): preset, mode, planes and every parameter of
// cdn::param_specs(), names with underscores or dashes, values as numbers,
// booleans or the parameter's words and choices ("auto", "cube", "rapid").
// Validated by the library; its message becomes the ValueError's.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "cudadenoise/backend.h"
#include "cudadenoise/settings.h"

namespace cdn::python {

// preset: None for the library's default preset.
DenoiseSettings settings_from_kwargs(const pybind11::object& preset, const pybind11::kwargs& params);

Backend backend_from_name(const std::string& name);

// The help text of every parameter of the table (for the docstrings).
std::string parameters_help();

}  // namespace cdn::python
