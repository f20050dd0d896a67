// denoiser.cpp: backend selection for FrameDenoiser (denoiser.h).
#include "denoiser.h"

#include "cpu_denoiser.h"
#include "error.h"

namespace cdn {

#ifndef CDN_HAVE_CUDA
bool built_with_cuda() { return false; }
bool cuda_available(std::string* why) {
  if (why) *why = "cudadenoise was built without CUDA";
  return false;
}
int cuda_device_count() { return 0; }
#endif

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  std::string why;
  const bool ok = cuda_available(&why);
  if (requested == Backend::Cuda && !ok) throw Error("backend cuda requested but " + why);
  return ok ? Backend::Cuda : Backend::Cpu;
}

std::unique_ptr<FrameDenoiser> FrameDenoiser::create(Backend backend, const DenoiseSettings& settings) {
  validate(settings);
  if (is_temporal(settings.mode))
    throw InvalidArgument(std::string("mode ") + mode_name(settings.mode) +
                          " filters a window of frames: use StreamDenoiser (stream_denoiser.h)");
  if (resolve_backend(backend) == Backend::Cpu) return make_cpu_denoiser(settings);
#ifdef CDN_HAVE_CUDA
  return make_cuda_denoiser(settings);
#else
  throw Error("unreachable: CUDA resolved in a build without CUDA");
#endif
}

}  // namespace cdn
