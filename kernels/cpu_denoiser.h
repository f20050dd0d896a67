// cpu_denoiser.h: the CPU backend: the reference implementation on host frames.
#pragma once

#include <memory>

#include "denoiser.h"

namespace cdn {

std::unique_ptr<FrameDenoiser> make_cpu_denoiser(const DenoiseSettings& settings);
#ifdef CDN_HAVE_CUDA
std::unique_ptr<FrameDenoiser> make_cuda_denoiser(const DenoiseSettings& settings);
#endif

}  // namespace cdn
