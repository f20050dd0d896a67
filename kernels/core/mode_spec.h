// mode_spec.h: the mode registry. Each mode's folder registers one ModeSpec
// (kernels/pipd/pipd_mode.cpp, kernels/bm3d/bm3d_mode.cpp, ...), listed once in
// mode_registry.cpp; every question about a mode (its name, its parameters,
// whether it takes a noise level, its window, its filters) is a lookup here.
//
// A new mode is: a value of Mode (settings.h), its folder with its reference,
// its CUDA kernels, its WindowFilters (window_filter.h) and its ModeSpec, its
// line in mode_registry.cpp, its sources in kernels/meson.build, a preset row
// if it deserves one, its tests and its docs. The stream, the element, the
// tools, the bench and the report pick it up from here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cudadenoise/settings.h"
#include "stream/window_filter.h"

namespace cdn {

struct ModeSpec {
  Mode mode;
  const char* name;         // the mode's name in properties, flags and files
  const char* description;  // one line, for help texts: what the mode is for (no measured figures)
  // The parameter groups of the table (settings.h) that are the mode's own; the
  // noise group follows from takes_sigma, the temporal one from window.
  std::vector<ParamGroup> groups;
  // The mode's rows of the parameter table (param_specs(), in the registry's
  // order; hybrid's are pipd's).
  std::vector<ParamSpec> params;
  bool takes_sigma;  // filters with a noise level (sigma, strength and the noise tracker apply)
  // The window of these settings, `causal` the stream's window resolved once
  // (DenoiseSettings::window, resolve_window(); the registry passes it to the
  // mode, which keeps no copy of the user's choice); null for a mode that
  // filters each frame on its own: {0, 0, 1}, and the stream passes the
  // caller's frames straight through.
  WindowShape (*window)(const DenoiseSettings& s, bool causal);
  // Whether these settings can run the mode's causal window (current and past
  // frames only); null: the mode has none.
  bool (*causal_possible)(const DenoiseSettings& s);
  // The problems of the mode's own parameters beyond their ranges (values that
  // conflict with each other), one message each, whatever the mode selected
  // (settings_problems() asks every mode); null: none to check.
  void (*check)(const DenoiseSettings& s, std::vector<std::string>* problems);
  // The mode's filters, `causal` as for window (false for a per-frame mode).
  std::unique_ptr<WindowFilter> (*cpu_filter)(const DenoiseSettings& s, bool causal, PixelFormat format);
#ifdef CDN_HAVE_CUDA
  std::unique_ptr<WindowFilter> (*cuda_filter)(const DenoiseSettings& s, bool causal, PixelFormat format, int device);
#endif

  bool temporal() const { return window != nullptr; }
};

// Every registered mode, in the order of mode_registry.cpp (the order of help
// texts and tables).
const std::vector<const ModeSpec*>& mode_specs();
// The mode's spec; throws InvalidArgument for a value no mode registered.
const ModeSpec& mode_spec(Mode m);

}  // namespace cdn
