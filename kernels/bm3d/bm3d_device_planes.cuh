// bm3d_device_planes.cuh: the float planes BM3D and V-BM3D filter on the GPU,
// as bm3d_reference.h's FloatPlane: a component in float, padded to at least a
// patch each way by repeating its edges (load_plane_kernel), the luma guide
// resampled to a chroma size (resample_guide_kernel: CBM3D's grouping on luma,
// BM3D paper section 6), and an estimate rounded into a component
// (store_rounded). Shared by bm3d_cuda.cu and vbm3d_cuda.cu; in an unnamed
// namespace, each .cu has its own kernels.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "bm3d/bm3d_profile.h"
#include "cudadenoise/plane.h"

namespace cdn::bm3d {
namespace {

// A float plane on the device: padded size, row pitch in floats.
struct DevPlane {
  float* data = nullptr;
  int width = 0, height = 0, pitch = 0;
  int valid_width = 0, valid_height = 0;
  __device__ float at(int x, int y) const { return data[static_cast<std::size_t>(y) * pitch + x]; }
};

// The padded plane of a valid_width x valid_height component, its floats from
// reserve(slot, bytes) (a run's buffer slots).
template <typename Reserve>
DevPlane reserve_plane(Reserve&& reserve, int slot, int vw, int vh) {
  DevPlane p;
  p.valid_width = vw;
  p.valid_height = vh;
  p.width = std::max(vw, kPatch);
  p.height = std::max(vh, kPatch);
  p.pitch = (p.width + 31) / 32 * 32;
  p.data = static_cast<float*>(reserve(slot, sizeof(float) * p.pitch * p.height));
  return p;
}

// Blocks of 32 x 8 threads over a w x h plane.
dim3 plane_grid(int w, int h) { return dim3((w + 31) / 32, (h + 7) / 8); }

// load_plane of bm3d_reference.cpp.
__global__ void load_plane_kernel(PlaneView in, DevPlane out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  out.data[static_cast<std::size_t>(y) * out.pitch + x] =
      static_cast<float>(in.get(clamp_coord(x, in.width), clamp_coord(y, in.height)));
}

// resample_guide of bm3d_reference.cpp (the same operations in the same order),
// then padded like pad_values.
__global__ void resample_guide_kernel(DevPlane luma, DevPlane out) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= out.width || py >= out.height) return;
  const int x = clamp_coord(px, out.valid_width), y = clamp_coord(py, out.valid_height);
  const int lw = luma.valid_width, lh = luma.valid_height;
  const int fx = lw > out.valid_width ? 2 : 1, fy = lh > out.valid_height ? 2 : 1;
  const int x0 = clamp_coord(fx * x, lw), x1 = clamp_coord(fx * x + fx - 1, lw);
  const int y0 = clamp_coord(fy * y, lh), y1 = clamp_coord(fy * y + fy - 1, lh);
  const float sum = __fadd_rn(__fadd_rn(luma.at(x0, y0), luma.at(x1, y0)), __fadd_rn(luma.at(x0, y1), luma.at(x1, y1)));
  out.data[static_cast<std::size_t>(py) * out.pitch + px] = sum * 0.25f;
}

// store_rounded of bm3d_reference.cpp for one sample: v rounded half up, clamped
// to the component's range.
__device__ __forceinline__ void store_rounded(const PlaneView& out, int x, int y, float v) {
  const float r = floorf(v + 0.5f);
  const int top = out.max_value();
  out.set(x, y, r < 0.f ? 0 : (r > top ? top : static_cast<int>(r)));
}

}  // namespace
}  // namespace cdn::bm3d
