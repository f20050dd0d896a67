// host_wait.cu: host waits that sleep instead of spinning (host_wait.h).
#include "cuda/host_wait.h"

#include "cudadenoise/error.h"

namespace cdn {

void wait_for_stream(cudaStream_t stream) {
  // An event a call: a few microseconds, against a frame's milliseconds, and
  // no event to keep per context and thread.
  cudaEvent_t done = nullptr;
  CDN_CUDA_CHECK(cudaEventCreateWithFlags(&done, kSleepingWaitEventFlags));
  cudaError_t rc = cudaEventRecord(done, stream);
  if (rc == cudaSuccess) rc = cudaEventSynchronize(done);
  cudaEventDestroy(done);
  CDN_CUDA_CHECK(rc);
}

}  // namespace cdn
