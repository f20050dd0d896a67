// error.cpp: formats CUDA failures into cdn::Error (error.h).
#include "cudadenoise/error.h"

#include <sstream>

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace cdn {

void throw_cuda_error(int code, const char* call, const char* file, int line) {
  std::ostringstream m;
  m << "CUDA error " << code;
#ifdef CDN_HAVE_CUDA
  m << " (" << cudaGetErrorName(static_cast<cudaError_t>(code)) << ": "
    << cudaGetErrorString(static_cast<cudaError_t>(code)) << ")";
#endif
  m << " in " << call << " at " << file << ":" << line;
  throw Error(m.str());
}

}  // namespace cdn
