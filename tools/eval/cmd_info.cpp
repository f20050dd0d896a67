// cmd_info.cpp: `cudadenoise-eval info`: the modes the library has (so the
// harness never hard-codes them: a new mode shows up in the report when it
// lands), whether each is temporal and takes a noise sigma, and the hardware.
#include <cstdio>
#include <string>
#include <thread>

#include "commands.h"
#include "backend.h"
#include "flags.h"
#include "gpu_info.h"
#include "json.h"
#include "mode_settings.h"
#include "settings.h"

namespace cdn::eval {

int cmd_info(int argc, const char* const* argv) {
  tools::FlagParser flags;
  bool help = false;
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("info takes no arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval info\nOne JSON line: modes, CUDA, GPU, CPU threads.\n");
    return kOk;
  }
  std::string modes = "[";
  for (Mode m : all_modes()) {
    tools::JsonLine j;
    j.add("name", mode_name(m)).add("temporal", is_temporal(m)).add("takes_sigma", takes_sigma(m));
    j.add("description", mode_description(m));
    modes += (modes.size() > 1 ? "," : "") + j.str();
  }
  modes += "]";
  const GpuInfo g = query_gpu();
  tools::JsonLine j;
  j.add("cuda_built", built_with_cuda()).add("cuda_available", g.available);
  if (g.available) {
    j.add("gpu", g.name).add("gpu_sms", g.sms).add("gpu_cc", std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor));
    j.add("gpu_memory_gib", g.memory_gib).add("cuda_driver", g.driver_version).add("cuda_runtime", g.runtime_version);
  } else {
    j.add("gpu_why", g.why);
  }
  j.add("hardware_threads", static_cast<int>(std::thread::hardware_concurrency()));
  std::string line = j.str();
  line.insert(line.size() - 1, ",\"modes\":" + modes);
  std::printf("%s\n", line.c_str());
  return kOk;
}

}  // namespace cdn::eval
