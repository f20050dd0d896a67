// presets.h: the presets, one table (presets.cpp): a name for a job ("standard",
// "best", ...) that picks a mode and its parameters, from which the element's
// `preset` property and the tools' --preset flag are made, like the parameters
// of settings.h. Each row was chosen from measurements (docs/PRESETS.md).
//
// A preset is a starting point: whatever the caller sets explicitly (the mode,
// the planes, any parameter of the table, `strength` and `sigma` included)
// overrides it, whatever the order it was set in (SettingsChoice).
//
// A row names its mode and parameters as text, so that rows for modes being
// written elsewhere can sit in the table before their mode exists: a row is
// offered only when its mode and every parameter it sets exist in this build
// (preset_available()); the others are listed as pending.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cudadenoise/settings.h"

namespace cdn {

struct PresetValue {
  const char* param;  // a name of param_specs()
  const char* value;  // a number, the parameter's word or one of its choices
};

struct Preset {
  const char* name;
  const char* mode;  // a mode name (parse_mode)
  const char* job;   // one line: what it is for
  std::vector<PresetValue> values;
};

// Every row, pending ones included, in the order help texts list them.
const std::vector<Preset>& preset_table();
// Whether this build can run the row; `why` says what is missing when not.
bool preset_available(const Preset& p, std::string* why = nullptr);
// The rows this build can run, in table order.
std::vector<const Preset*> available_presets();
// An available row by name; nullptr when none.
const Preset* find_preset(const std::string& name);
// The preset used when none is given (the element, the transcode and image tools).
const char* default_preset_name();
// Default settings with the row applied (throws InvalidArgument for a pending row).
DenoiseSettings preset_settings(const Preset& p);
// "standard|best|..." (available rows), for help texts.
std::string preset_choices();

// What a caller chose: a preset, and the values it set explicitly on top of it.
// The element and the tools fill one of these from their properties and flags;
// resolve() gives the settings to run.
class SettingsChoice {
 public:
  SettingsChoice();
  // Throws InvalidArgument for a name that is not an available preset.
  void set_preset(const std::string& name);
  const std::string& preset() const { return preset_; }
  void set_mode(Mode m);
  void set_planes(PlaneSelection p);
  // A parameter of param_specs(), explicitly.
  void set_param(const ParamSpec& spec, double value);
  bool is_set(const std::string& param) const { return params_.count(param) > 0; }
  bool mode_set() const { return mode_set_; }
  // The preset's settings with every explicit value on top (not validated:
  // validate() it, or let StreamDenoiser do it).
  DenoiseSettings resolve() const;

 private:
  std::string preset_;
  DenoiseSettings given_;
  bool mode_set_ = false, planes_set_ = false;
  std::set<std::string> params_;
};

}  // namespace cdn
