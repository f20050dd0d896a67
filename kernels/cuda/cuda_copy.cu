// cuda_copy.cu: plane copies for the CUDA backends (cuda_copy.h).
#include "cudadenoise/cuda_copy.h"

#include "cudadenoise/error.h"

namespace cdn {

namespace {
cudaMemcpyKind copy_kind(MemoryKind from, MemoryKind to) {
  if (from == MemoryKind::Host) return to == MemoryKind::Host ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice;
  return to == MemoryKind::Host ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice;
}
}  // namespace

void copy_plane_async(const FrameView& from, const FrameView& to, int p, cudaStream_t stream) {
  CDN_CUDA_CHECK(cudaMemcpy2DAsync(to.data[p], to.pitch[p], from.data[p], from.pitch[p],
                                   plane_row_bytes(from.format, from.width, p),
                                   plane_height(from.format, from.height, p), copy_kind(from.memory, to.memory),
                                   stream));
}

void copy_frame_async(const FrameView& from, const FrameView& to, cudaStream_t stream) {
  for (int p = 0; p < format_info(from.format).planes; ++p) copy_plane_async(from, to, p, stream);
}

}  // namespace cdn
