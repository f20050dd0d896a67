// gpu_info.h: which GPU the figures come from (name, SMs, compute capability,
// memory, CUDA driver and runtime versions), for the report's captions.
#pragma once

#include <string>

namespace cdn::eval {

struct GpuInfo {
  bool available = false;
  std::string why;  // when not available
  std::string name;
  int sms = 0, cc_major = 0, cc_minor = 0;
  double memory_gib = 0;
  int driver_version = 0, runtime_version = 0;  // CUDA's encoding: 1000 major + 10 minor
};

// Device 0 (the one the tools use); never throws.
GpuInfo query_gpu();

}  // namespace cdn::eval
