// named_sets.h: the named parameter sets of the research tools, one table
// (named_sets.cpp) beside the presets (presets.h). A preset is a name for a job
// offered to users; a named set is a configuration the measurements compare
// (the papers' NLM-3D cubes, the video settings with one option off, ...).
// cudadenoise-bench and cudadenoise-eval (`info` prints the table, `denoise
// --set NAME` runs a row; the report and the quality tables go through it) all
// read this table, so a set is added or changed in one place. Rows have the
// presets' shape: a mode and parameters of param_specs() as text, on top of the
// defaults.
#pragma once

#include <string>
#include <vector>

#include "cudadenoise/presets.h"

namespace cdn {

// A row: name (unique within its mode), mode, job (one line: what it is for),
// values (name=value of param_specs(), on top of DenoiseSettings{}).
using NamedSet = Preset;

// Every row, in the order the tools list them.
const std::vector<NamedSet>& named_sets();
// The rows of one mode ("nlm3d"), in table order.
std::vector<const NamedSet*> named_sets_of(const std::string& mode);
// The row of `mode` called `name`; nullptr when none.
const NamedSet* find_named_set(const std::string& mode, const std::string& name);
// "paper|video|..." (the mode's rows), for help texts and messages.
std::string named_set_choices(const std::string& mode);
// Default settings with the row applied (throws InvalidArgument for a row this
// build cannot run); the overload throws InvalidArgument for an unknown name.
DenoiseSettings named_set_settings(const NamedSet& n);
DenoiseSettings named_set_settings(const std::string& mode, const std::string& name);

}  // namespace cdn
