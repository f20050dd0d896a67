// backend.h: where frames are filtered, chosen at run time: the CUDA kernels or
// the CPU reference, which give the same output (bit-exact for PI-PD and
// hybrid, see docs/PIPD.md; within stated bounds for nlm3d and bm3d).
#pragma once

#include <string>
#include <vector>

#include "cudadenoise/settings.h"

namespace cdn {

// True when the library was compiled with CUDA kernels.
bool built_with_cuda();
// True when a CUDA device can be used now; otherwise `why` (if given) says why not.
bool cuda_available(std::string* why = nullptr);
// CUDA devices this process can use (0 without CUDA).
int cuda_device_count();
// Auto resolves to Cuda when cuda_available(), else Cpu. Cuda when no device can
// be used throws NoCudaDevice (cuda_available's reason).
Backend resolve_backend(Backend requested);

// A list of CUDA device indices, "N[,N...]" (each 0 to 63; one may repeat: two
// workers on that device): the lanes a temporal mode spreads its chunks over
// (StreamDenoiser::create's cuda_devices; the element's cuda-devices, the
// transcode tool's --gpu). "" is the empty list. False, with what is wrong in
// `why`, for anything else; whether the devices exist is create()'s to check.
bool parse_cuda_device_list(const std::string& text, std::vector<int>* out, std::string* why);

}  // namespace cdn
