// host_wait.h: host waits for CUDA work that put the thread to sleep instead of
// spinning on a core (issue 36 item 1).
//
// A context made with the default scheduling flag (CU_CTX_SCHED_AUTO: the
// runtime's primary contexts, and the GstCudaContext that GStreamer 1.22's
// nvcodec makes and every element of a pipeline shares) spins the calling
// thread in cudaStreamSynchronize and cudaEventSynchronize while the GPU works,
// whenever the process has fewer contexts than CPU threads: always, in
// practice. One stream spinning costs one core for the GPU time of its frame;
// many pipelines on one GPU each wait on every frame (GStreamer 1.22's CUDA
// memory is synchronous: a producer waits for its work before it pushes), so
// their spinning threads take the host's cores from the work that feeds the GPU
// (sources, uploads, the noise tracker's estimates). An event made with
// cudaEventBlockingSync makes the waiting thread sleep until the GPU is done,
// whatever the context's flag. Events of these flags cannot time work.
#pragma once

#include <cuda_runtime.h>

namespace cdn {

// Flags for an event a host thread waits on (cudaEventSynchronize).
inline constexpr unsigned kSleepingWaitEventFlags = cudaEventBlockingSync | cudaEventDisableTiming;

// cudaStreamSynchronize(stream), sleeping: what was queued on `stream` before
// the call is done when it returns. Throws CudaError as CDN_CUDA_CHECK does
// (an error of the work waited for included).
void wait_for_stream(cudaStream_t stream);

}  // namespace cdn
