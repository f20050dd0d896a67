// frame.h: pixel formats the library understands and how a frame splits into
// the components (PlaneView) the denoisers filter one by one.
//
// Formats: GRAY8, GRAY16_LE, NV12, I420, P010_10LE, P016_LE, Y444 (8-bit 4:4:4).
// Chroma components are filtered at their own size (4:2:0 chroma at half width
// and height). NV12/P010/P016 UV is split into two strided components of one
// plane (see plane.h), so no host copy is needed.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cudadenoise/plane.h"

namespace cdn {

enum class PixelFormat { GRAY8, GRAY16_LE, NV12, I420, P010_10LE, P016_LE, Y444 };

// GStreamer-style name ("NV12", "P010_10LE", ...); parse returns false for unknown names.
const char* format_name(PixelFormat f);
bool parse_format(const std::string& name, PixelFormat* out);
std::vector<PixelFormat> all_formats();

struct FormatInfo {
  int planes;             // memory planes
  int components;         // colour components (1 for gray, 3 otherwise)
  int bytes_per_sample;   // 1 or 2
  int bit_depth;          // 8, 10 or 16
  int shift;              // padding bits below the value
  int chroma_shift_x;     // log2 horizontal chroma subsampling
  int chroma_shift_y;     // log2 vertical chroma subsampling
  bool interleaved_uv;    // NV12-style second plane
};
FormatInfo format_info(PixelFormat f);

// Size in samples of memory plane `plane` (width counts samples, so NV12's UV
// plane is `width` samples wide: w/2 pixels of 2 samples).
int plane_width_samples(PixelFormat f, int width, int plane);
int plane_height(PixelFormat f, int height, int plane);
int plane_row_bytes(PixelFormat f, int width, int plane);

// A frame: up to 3 memory planes, each with its own pitch.
struct FrameView {
  PixelFormat format = PixelFormat::GRAY8;
  int width = 0;
  int height = 0;
  std::array<void*, 3> data{{nullptr, nullptr, nullptr}};
  std::array<std::size_t, 3> pitch{{0, 0, 0}};
  MemoryKind memory = MemoryKind::Host;
};

// The components of a frame, luma first (Y, then U, V).
std::vector<PlaneView> components(const FrameView& frame);

// Copies memory plane `plane` of a host frame into another of the same geometry.
void copy_host_plane(const FrameView& from, const FrameView& to, int plane);
void copy_host_frame(const FrameView& from, const FrameView& to);

// Throws InvalidArgument if sizes are non-positive, a plane pointer is null or a
// pitch is smaller than the plane's row.
void validate_frame(const FrameView& frame);

}  // namespace cdn
