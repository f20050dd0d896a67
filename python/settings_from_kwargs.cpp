// settings_from_kwargs.cpp: keyword arguments to settings through the parameter
// table (settings_from_kwargs.h).
#include "settings_from_kwargs.h"

#include <algorithm>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/presets.h"

namespace py = pybind11;

namespace cdn::python {

namespace {

std::string dashed(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string text_of(const py::handle& v) { return py::str(v).cast<std::string>(); }

double value_of(const ParamSpec& spec, const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? 1.0 : 0.0;
  if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)) return v.cast<double>();
  if (py::isinstance<py::str>(v)) {
    double x = 0;
    if (param_value_from_text(spec, v.cast<std::string>(), &x)) return x;
    std::string expected = "a number";
    if (spec.word) expected += std::string(", ") + spec.word;
    for (int k = 0; spec.choices && spec.choices[k]; ++k) expected += std::string(", ") + spec.choices[k];
    throw InvalidArgument(std::string(spec.name) + " = '" + v.cast<std::string>() + "': expected " + expected);
  }
  throw InvalidArgument(std::string(spec.name) + ": a number or a word, not " + text_of(py::type::of(v)));
}

}  // namespace

Backend backend_from_name(const std::string& name) {
  Backend b;
  if (!parse_backend(name, &b)) throw InvalidArgument("backend = '" + name + "': expected auto, cuda or cpu");
  return b;
}

DenoiseSettings settings_from_kwargs(const py::object& preset, const py::kwargs& params) {
  SettingsChoice choice;
  if (!preset.is_none()) {
    const std::string name = text_of(preset);
    if (!find_preset(name)) throw InvalidArgument("preset = '" + name + "': expected one of " + preset_choices());
    choice.set_preset(name);
  }
  std::shared_ptr<const NoiseProfile> profile;
  for (const auto& item : params) {
    const std::string key = dashed(text_of(item.first));
    if (key == "noise-profile") {
      // A file, as the element's noise-profile property and the tools' --noise-profile.
      if (!item.second.is_none()) profile = std::make_shared<NoiseProfile>(load_noise_profile(text_of(item.second)));
    } else if (key == "mode") {
      Mode m;
      if (!parse_mode(text_of(item.second), &m)) {
        std::string modes;
        for (Mode x : all_modes()) modes += std::string(modes.empty() ? "" : ", ") + mode_name(x);
        throw InvalidArgument("mode = '" + text_of(item.second) + "': expected one of " + modes);
      }
      choice.set_mode(m);
    } else if (key == "planes") {
      PlaneSelection p;
      if (!parse_planes(text_of(item.second), &p))
        throw InvalidArgument("planes = '" + text_of(item.second) + "': expected luma or all");
      choice.set_planes(p);
    } else if (const ParamSpec* spec = find_param(key)) {
      choice.set_param(*spec, value_of(*spec, item.second));
    } else {
      throw InvalidArgument("no parameter '" + text_of(item.first) + "' (help(cudadenoise.denoise) lists them)");
    }
  }
  DenoiseSettings s = choice.resolve();
  s.noise_profile = profile;
  validate(s);
  return s;
}

std::string parameters_help() {
  std::string out = "Parameters (keyword arguments; dashes or underscores; the same table as the element's "
                    "properties and the tools' flags):\n";
  out += "  preset: " + preset_choices() + " (default " + default_preset_name() + ")\n";
  out += "  mode:";
  for (Mode m : all_modes()) out += std::string(" ") + mode_name(m);
  out += "\n  planes: luma, all\n";
  out += "  noise_profile: a noise profile file (JSON, docs/NOISE.md): the noise model of each plane, with "
         "noise_model='signal' or 'curve'\n";
  for (const ParamSpec& p : param_specs()) {
    std::string name = p.name;
    std::replace(name.begin(), name.end(), '-', '_');
    out += "  " + name + ": " + p.blurb;
    if (p.word) out += std::string(" (word: ") + p.word + ")";
    out += "\n";
  }
  return out;
}

}  // namespace cdn::python
