// backend.cpp: backend selection (backend.h); the CUDA build's queries are in cuda_util.cu.
#include "cudadenoise/backend.h"

#include "cudadenoise/error.h"

namespace cdn {

#ifndef CDN_HAVE_CUDA
bool built_with_cuda() { return false; }
bool cuda_available(std::string* why) {
  if (why) *why = "no CUDA device (cudadenoise was built without CUDA)";
  return false;
}
int cuda_device_count() { return 0; }
#endif

Backend resolve_backend(Backend requested) {
  if (requested == Backend::Cpu) return Backend::Cpu;
  std::string why;
  const bool ok = cuda_available(&why);
  if (requested == Backend::Cuda && !ok) throw NoCudaDevice(why);
  return ok ? Backend::Cuda : Backend::Cpu;
}

}  // namespace cdn
