// cmd_info.cpp: `cudadenoise-eval info`: the modes the library has (so the
// harness never hard-codes them: a new mode shows up in the report when it
// lands), whether each is temporal and takes a noise sigma, the named parameter
// sets (named_sets.h) and the hardware.
#include <cstdio>
#include <string>
#include <thread>

#include "commands.h"
#include "cudadenoise/backend.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/settings.h"
#include "flags.h"
#include "gpu_info.h"
#include "json.h"
#include "mode_settings.h"

namespace cdn::eval {

int cmd_info(int argc, const char* const* argv) {
  tools::FlagParser flags;
  bool help = false;
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("info takes no arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval info\nOne JSON line: modes, named sets, CUDA, GPU, CPU threads.\n");
    return kOk;
  }
  const GpuInfo g = query_gpu();
  tools::Json j;
  j["cuda_built"] = built_with_cuda(), j["cuda_available"] = g.available;
  if (g.available) {
    j["gpu"] = g.name, j["gpu_sms"] = g.sms, j["gpu_cc"] = std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor);
    j["gpu_memory_gib"] = g.memory_gib, j["cuda_driver"] = g.driver_version, j["cuda_runtime"] = g.runtime_version;
  } else {
    j["gpu_why"] = g.why;
  }
  j["hardware_threads"] = static_cast<int>(std::thread::hardware_concurrency());
  for (Mode m : all_modes())
    j["modes"].push_back({{"name", mode_name(m)}, {"temporal", is_temporal(m)}, {"takes_sigma", uses_sigma(m)},
                          {"description", mode_description(m)}});
  for (const NamedSet& n : named_sets()) {  // named_sets.h: what `denoise --set` takes
    tools::Json values = tools::Json::object();
    for (const PresetValue& v : n.values) values[v.param] = v.value;
    j["named_sets"].push_back({{"name", n.name}, {"mode", n.mode}, {"job", n.job}, {"values", values}});
  }
  std::printf("%s\n", tools::json_line(j).c_str());
  return kOk;
}

}  // namespace cdn::eval
