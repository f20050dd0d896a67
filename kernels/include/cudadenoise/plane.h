// plane.h: a view of one colour component of a frame, in host or device memory.
//
// A component is a 2D array of 8-bit or 16-bit samples at any pitch. Interleaved
// chroma (NV12/P010 UV) is two components of one plane: pixel_stride = 2 and
// component_offset = 0 (U) or 1 (V), so kernels filter U and V in place in the
// interleaved plane, without copies. `shift` is the number of padding bits below
// the value (6 for P010_10LE): kernels filter value = sample >> shift and write
// value << shift, so P010's low bits stay zero. `bit_depth` is the value's depth.
// The view never owns memory; the __host__ __device__ accessors are used by the
// CPU reference and the CUDA kernels alike.
#pragma once

#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define CDN_HD __host__ __device__ __forceinline__
#else
#define CDN_HD inline
#endif

// `#pragma unroll` for the device compilation only: CDN_HD code is also compiled for
// the host (the CPU tests run the kernels' block programs), where the unrolled loops
// only make the build slow (clang honours the pragma; a sanitizer build of such a test
// took 40 minutes) and GCC warns that it ignores it.
#if defined(__CUDA_ARCH__)
#define CDN_UNROLL _Pragma("unroll")
#else
#define CDN_UNROLL
#endif

namespace cdn {

enum class MemoryKind { Host, Device };

// The border rule shared by the CPU references and the kernels: a sample outside
// the frame reads the nearest frame sample (clamp to edge).
CDN_HD int clamp_coord(int v, int size) { return v < 0 ? 0 : (v >= size ? size - 1 : v); }

struct PlaneView {
  void* data = nullptr;         // first byte of the plane (row 0)
  std::size_t pitch = 0;        // bytes between rows
  int width = 0;                // samples of this component per row
  int height = 0;               // rows
  int bytes_per_sample = 1;     // 1 or 2 (16-bit little-endian host order)
  int pixel_stride = 1;         // samples between horizontally adjacent pixels
  int component_offset = 0;     // samples before this component in a pixel
  int shift = 0;                // padding bits below the value (P010: 6)
  int bit_depth = 8;            // significant bits of the value
  MemoryKind memory = MemoryKind::Host;

  CDN_HD bool is_16bit() const { return bytes_per_sample == 2; }
  CDN_HD int max_value() const { return (1 << bit_depth) - 1; }

  // Value (shift removed) at (x, y); no bounds check: callers clamp first.
  CDN_HD int get(int x, int y) const {
    const unsigned char* row = static_cast<const unsigned char*>(data) + static_cast<std::size_t>(y) * pitch;
    const int idx = x * pixel_stride + component_offset;
    if (bytes_per_sample == 1) return row[idx];
    return reinterpret_cast<const std::uint16_t*>(row)[idx] >> shift;
  }
  CDN_HD void set(int x, int y, int value) const {
    unsigned char* row = static_cast<unsigned char*>(data) + static_cast<std::size_t>(y) * pitch;
    const int idx = x * pixel_stride + component_offset;
    if (bytes_per_sample == 1)
      row[idx] = static_cast<unsigned char>(value);
    else
      reinterpret_cast<std::uint16_t*>(row)[idx] = static_cast<std::uint16_t>(value << shift);
  }
};

}  // namespace cdn
