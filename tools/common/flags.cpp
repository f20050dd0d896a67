// flags.cpp: the tools' command-line parser (flags.h).
#include "flags.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/presets.h"

namespace cdn::tools {

namespace {
std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> out;
  std::stringstream ss(names);
  for (std::string n; std::getline(ss, n, ',');) out.push_back(n);
  return out;
}

std::string format_number(double v, bool integer) {
  std::ostringstream s;
  if (integer)
    s << static_cast<long long>(v);
  else
    s << v;
  return s.str();
}

// `v` (written `text`) in [min, max] and, if `integer`, whole.
double check_range(const std::string& flag, const std::string& text, double v, bool integer, double min, double max) {
  if (integer && v != std::floor(v)) throw UsageError(flag + ": '" + text + "' is not an integer");
  if (v < min || v > max)
    throw UsageError(flag + ": " + text + " is out of range [" + format_number(min, integer) + ", " +
                     format_number(max, integer) + "]");
  return v;
}

}  // namespace

double parse_number(const std::string& flag, const std::string& text, bool integer, double min, double max) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end != begin + text.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError(flag + ": '" + text + "' is not a number");
  return check_range(flag, text, v, integer, min, max);
}

void FlagParser::add(const std::string& names, const std::string& metavar, const std::string& help, Apply apply) {
  flags_.push_back({split_names(names), metavar, help, std::move(apply)});
}

void FlagParser::add_switch(const std::string& names, const std::string& help, bool* target) {
  add(names, "", help, [target](const std::string&, const std::string&) { *target = true; });
}

void FlagParser::add_string(const std::string& names, const std::string& metavar, const std::string& help,
                            std::string* target) {
  add(names, metavar, help, [target](const std::string&, const std::string& v) { *target = v; });
}

void FlagParser::add_choice(const std::string& names, const std::vector<std::string>& choices,
                            const std::string& help, std::string* target) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : "|") + c;
  add(names, list, help + " (default " + *target + ")",
      [choices, list, target](const std::string& flag, const std::string& v) {
        for (const auto& c : choices)
          if (v == c) {
            *target = v;
            return;
          }
        throw UsageError(flag + ": '" + v + "' is not one of " + list);
      });
}

void FlagParser::add_number(const std::string& names, const std::string& metavar, const std::string& help,
                            double min, double max, double* target) {
  add(names, metavar, help, [min, max, target](const std::string& flag, const std::string& v) {
    *target = parse_number(flag, v, false, min, max);
  });
}

void FlagParser::add_uint64(const std::string& names, const std::string& metavar, const std::string& help,
                            std::uint64_t* target) {
  add(names, metavar, help, [target](const std::string& flag, const std::string& v) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || v[0] == '+' || end != v.c_str() + v.size() || errno == ERANGE)
      throw UsageError(flag + ": '" + v + "' is not a non-negative integer");
    *target = n;
  });
}

std::string param_group_title(ParamGroup group) {
  std::string modes;
  int n = 0;
  for (Mode m : all_modes())
    if (param_group_applies(group, m)) modes += std::string(n++ ? ", " : "") + mode_name(m);
  // The window applies to the same modes as NLM-3D's own parameters today: a title of its own.
  if (group == ParamGroup::Temporal) return "Window of the temporal modes (--mode " + modes + ")";
  return std::string("Parameters of --mode ") + modes;
}

void FlagParser::add_preset_flag(std::string* target) {
  std::string help = "denoiser preset: a mode and its parameters for a job; every denoiser flag given overrides it "
                     "(docs/PRESETS.md):";
  for (const Preset* p : available_presets()) help += std::string(" ") + p->name + " = " + p->job + ";";
  help.back() = ' ';
  add("--preset", preset_choices(), help + "(default " + *target + ")",
      [target](const std::string& flag, const std::string& v) {
        if (!find_preset(v)) throw UsageError(flag + ": '" + v + "' is not one of " + preset_choices());
        *target = v;
      });
}

void FlagParser::add_noise_profile_flag(DenoiseSettings* settings) {
  add("--noise-profile", "FILE",
      "a noise profile (JSON, docs/NOISE.md; cudadenoise-image --save-noise-profile measures one): one noise model "
      "per plane, with --noise-model signal or curve, in place of --noise-a/--noise-b or an estimate",
      [settings](const std::string& flag, const std::string& v) {
        try {
          settings->noise_profile = std::make_shared<const NoiseProfile>(load_noise_profile(v));
        } catch (const InvalidArgument& e) {
          throw UsageError(flag + ": " + e.what());
        }
      });
}

DenoiseSettings settings_with_preset(const FlagParser& flags, const std::string& preset, const DenoiseSettings& parsed) {
  SettingsChoice choice;
  try {
    choice.set_preset(preset);
    if (flags.was_set("--mode")) choice.set_mode(parsed.mode);
    if (flags.was_set("--planes")) choice.set_planes(parsed.planes);
    for (const ParamSpec& spec : param_specs())
      if (flags.was_set(std::string("--") + spec.name)) choice.set_param(spec, spec.get(parsed));
    DenoiseSettings s = choice.resolve();
    s.noise_profile = parsed.noise_profile;  // not in the table: a file (--noise-profile)
    validate(s);
    return s;
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
}

void FlagParser::add_heading(const std::string& title) { flags_.push_back({{}, "", title, nullptr}); }

void FlagParser::add_param_flags(DenoiseSettings* settings) {
  for (const ParamSpec& spec : param_specs()) add_param_flag(settings, spec);
}

void FlagParser::add_param_flags(DenoiseSettings* settings, ParamGroup group) {
  for (const ParamSpec& spec : param_specs())
    if (spec.group == group) add_param_flag(settings, spec);
}

void FlagParser::add_param_flag(DenoiseSettings* settings, const ParamSpec& spec) {
  // A spec's word (e.g. "auto") is accepted in place of its word_value.
  const bool def_is_word = spec.word && spec.def == spec.word_value;
  std::ostringstream help;
  help << spec.blurb << " [" << format_number(spec.min, spec.integer) << ".." << format_number(spec.max, spec.integer)
       << (spec.word ? std::string(" or ") + spec.word : "") << ", default "
       << (def_is_word ? spec.word : format_number(spec.def, spec.integer)) << "]";
  std::string metavar = spec.integer ? "N" : "X";
  if (spec.word) metavar += std::string("|") + spec.word;
  if (spec.choices) {  // an enumerated parameter: its names, the numbers still accepted
    help.str("");
    help << spec.blurb << " [";
    metavar.clear();
    for (int k = 0; spec.choices[k]; ++k) {
      help << (k ? ", " : "") << spec.choices[k] << " (" << spec.min + k << ")";
      metavar += (k ? "|" : "") + std::string(spec.choices[k]);
    }
    help << "; default " << spec.choices[static_cast<int>(spec.def - spec.min)] << "]";
  }
  const ParamSpec* p = &spec;
  add(std::string("--") + spec.name, metavar, help.str(),
      [p, settings](const std::string& flag, const std::string& v) { p->set(*settings, parse_param_value(*p, flag, v)); });
}

double parse_param_value(const ParamSpec& spec, const std::string& flag, const std::string& text) {
  double v = 0;
  if (!param_value_from_text(spec, text, &v)) {  // the library reads words, choices and numbers
    std::vector<std::string> takes{"a number"};
    if (spec.word) takes.push_back(spec.word);
    for (int k = 0; spec.choices && spec.choices[k]; ++k) takes.push_back(spec.choices[k]);
    std::string list;
    for (std::size_t i = 0; i < takes.size(); ++i)
      list += (i == 0 ? "" : i + 1 == takes.size() ? " or " : ", ") + takes[i];
    throw UsageError(flag + ": '" + text + "' is not " + list);
  }
  return check_range(flag, text, v, spec.integer, spec.min, spec.max);
}

const FlagParser::Flag* FlagParser::find(const std::string& name) const {
  for (const Flag& f : flags_)
    for (const auto& n : f.names)
      if (n == name) return &f;
  return nullptr;
}

std::vector<std::string> FlagParser::parse(int argc, const char* const* argv) {
  std::vector<std::string> positional;
  seen_.clear();
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_done || arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const Flag* f = find(name);
    if (!f) throw UsageError("unknown flag " + name);
    std::string value;
    if (f->metavar.empty()) {
      if (eq != std::string::npos) throw UsageError(name + " takes no value");
    } else if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else {
      if (i + 1 >= argc) throw UsageError(name + " needs a value (" + f->metavar + ")");
      value = argv[++i];
    }
    f->apply(name, value);
    seen_.insert(f);
  }
  return positional;
}

bool FlagParser::was_set(const std::string& name) const {
  const Flag* f = find(name);
  return f && seen_.count(f) > 0;
}

std::string FlagParser::help() const {
  constexpr std::size_t kColumn = 28, kWidth = 100;
  std::string out;
  for (const Flag& f : flags_) {
    if (f.names.empty()) {
      out += "\n" + f.help + ":\n";
      continue;
    }
    std::string line = "  ";
    for (std::size_t i = 0; i < f.names.size(); ++i) line += (i ? ", " : "") + f.names[i];
    if (!f.metavar.empty()) line += " " + f.metavar;
    if (line.size() + 2 > kColumn) {
      out += line + "\n";
      line.clear();
    }
    // The help text, word-wrapped into the right-hand column.
    std::stringstream words(f.help);
    bool first = true;
    for (std::string w; words >> w; first = false) {
      if (!first && line.size() + 1 + w.size() > kWidth) {
        out += line + "\n";
        line.clear();
        first = true;
      }
      if (first) line += std::string(kColumn - line.size(), ' ');
      else line += " ";
      line += w;
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace cdn::tools
