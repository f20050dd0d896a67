// backend.cpp: backend selection (backend.h); the CUDA build's queries are in cuda_util.cu.
#include "cudadenoise/backend.h"

#include <algorithm>
#include <utility>

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

bool parse_cuda_device_list(const std::string& text, std::vector<int>* out, std::string* why) {
  std::vector<int> list;
  for (std::size_t at = 0; !text.empty() && at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const bool digits = !item.empty() && item.size() <= 2 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoi(item) > 63) {
      if (why) *why = "'" + item + "' in '" + text + "' is not a CUDA device index (0 to 63, commas between)";
      return false;
    }
    list.push_back(std::stoi(item));
    at = comma + 1;
  }
  *out = std::move(list);
  return true;
}

}  // namespace cdn
