// flags.h: a tiny command-line parser for the tools.
//
// Flags are "--name VALUE", "--name=VALUE" or switches without a value; a flag
// may have several names ("-o,--output"). Everything else is a positional
// argument ("--" ends the flags). The denoiser's parameter flags are made from
// cdn::param_specs(), so their names, ranges, defaults and help text are the
// ones the GStreamer element shows. Bad input throws UsageError with a one-line
// message that names the flag.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudadenoise/settings.h"

namespace cdn::tools {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

// The number in `text`, which must be all of it, finite, in [min, max] and, if
// `integer`, whole. `flag` names the flag in the error message.
double parse_number(const std::string& flag, const std::string& text, bool integer, double min, double max);

// The value of parameter `spec` written as `text`: its word (e.g. "auto"), one of
// its choices' names, or a number (read by cdn::param_value_from_text), in its
// range and whole where it must be. `flag` names it in the error message, which
// lists what it takes. The parameter flags and any NAME=VALUE list of parameters.
double parse_param_value(const ParamSpec& spec, const std::string& flag, const std::string& text);

// "Parameters of --mode pipd, hybrid": a help heading for a ParamGroup, naming
// the modes it applies to (cdn::param_group_applies).
std::string param_group_title(ParamGroup group);

class FlagParser {
 public:
  using Apply = std::function<void(const std::string& flag, const std::string& value)>;

  // names: comma-separated, e.g. "-o,--output". An empty metavar makes a switch.
  void add(const std::string& names, const std::string& metavar, const std::string& help, Apply apply);
  void add_switch(const std::string& names, const std::string& help, bool* target);
  void add_string(const std::string& names, const std::string& metavar, const std::string& help,
                  std::string* target);
  // One of `choices`; the help lists them.
  void add_choice(const std::string& names, const std::vector<std::string>& choices, const std::string& help,
                  std::string* target);
  void add_number(const std::string& names, const std::string& metavar, const std::string& help, double min,
                  double max, double* target);
  void add_uint64(const std::string& names, const std::string& metavar, const std::string& help,
                  std::uint64_t* target);
  // "--<spec name> N" for every cdn::param_specs() entry, setting *settings.
  void add_param_flags(DenoiseSettings* settings);
  // The same for the entries of one ParamGroup only (for help grouped by mode).
  void add_param_flags(DenoiseSettings* settings, ParamGroup group);
  // "--preset NAME": one of cdn::available_presets() (help lists them with their jobs).
  void add_preset_flag(std::string* target);
  // "--noise-profile FILE": reads the noise profile file (cudadenoise/noise_profile.h)
  // into settings->noise_profile when parsed; a file that cannot be read or is
  // not a profile is a UsageError with the library's message.
  void add_noise_profile_flag(DenoiseSettings* settings);
  // A heading line in help() before the flags added after it (not a flag).
  void add_heading(const std::string& title);

  // Parses argv[1..argc-1]; returns the positional arguments.
  std::vector<std::string> parse(int argc, const char* const* argv);
  // Whether the flag with this name (any of its names) was given.
  bool was_set(const std::string& name) const;
  // The flag list, one per line (or two where the names are long), aligned,
  // with the headings (a blank line, then "TITLE:") where they were added.
  std::string help() const;

 private:
  struct Flag {
    std::vector<std::string> names;  // empty: a heading, `help` is its title
    std::string metavar;  // empty: switch
    std::string help;
    Apply apply;
  };
  const Flag* find(const std::string& name) const;
  void add_param_flag(DenoiseSettings* settings, const ParamSpec& spec);
  std::vector<Flag> flags_;
  std::set<const Flag*> seen_;
};

// The settings to run: `preset`'s (presets.h), with every denoiser flag given on
// the command line (--mode, --planes, each parameter flag, --noise-profile) on
// top, whatever the order; `parsed` holds the flags' values. Throws UsageError
// for settings that cdn::validate rejects.
DenoiseSettings settings_with_preset(const FlagParser& flags, const std::string& preset, const DenoiseSettings& parsed);

}  // namespace cdn::tools
