// frame.cpp: pixel format table and the split of frames into components (frame.h).
#include "cudadenoise/frame.h"

#include <cstring>
#include <sstream>

#include "cudadenoise/error.h"

namespace cdn {

namespace {
struct FormatEntry {
  PixelFormat format;
  const char* name;
  FormatInfo info;
};
// planes, components, bytes, depth, shift, csx, csy, interleaved
constexpr FormatEntry kFormats[] = {
    {PixelFormat::GRAY8, "GRAY8", {1, 1, 1, 8, 0, 0, 0, false}},
    {PixelFormat::GRAY16_LE, "GRAY16_LE", {1, 1, 2, 16, 0, 0, 0, false}},
    {PixelFormat::NV12, "NV12", {2, 3, 1, 8, 0, 1, 1, true}},
    {PixelFormat::I420, "I420", {3, 3, 1, 8, 0, 1, 1, false}},
    {PixelFormat::P010_10LE, "P010_10LE", {2, 3, 2, 10, 6, 1, 1, true}},
    {PixelFormat::P016_LE, "P016_LE", {2, 3, 2, 16, 0, 1, 1, true}},
    {PixelFormat::Y444, "Y444", {3, 3, 1, 8, 0, 0, 0, false}},
};

const FormatEntry& entry(PixelFormat f) {
  for (const auto& e : kFormats)
    if (e.format == f) return e;
  throw InvalidArgument("unknown pixel format");
}

int chroma_size(int size, int shift) { return (size + (1 << shift) - 1) >> shift; }
}  // namespace

const char* format_name(PixelFormat f) { return entry(f).name; }

bool parse_format(const std::string& name, PixelFormat* out) {
  for (const auto& e : kFormats)
    if (name == e.name) {
      *out = e.format;
      return true;
    }
  return false;
}

std::vector<PixelFormat> all_formats() {
  std::vector<PixelFormat> v;
  for (const auto& e : kFormats) v.push_back(e.format);
  return v;
}

FormatInfo format_info(PixelFormat f) { return entry(f).info; }

int plane_width_samples(PixelFormat f, int width, int plane) {
  const FormatInfo fi = format_info(f);
  if (plane == 0) return width;
  const int cw = chroma_size(width, fi.chroma_shift_x);
  return fi.interleaved_uv ? 2 * cw : cw;
}

int plane_height(PixelFormat f, int height, int plane) {
  const FormatInfo fi = format_info(f);
  return plane == 0 ? height : chroma_size(height, fi.chroma_shift_y);
}

int plane_row_bytes(PixelFormat f, int width, int plane) {
  return plane_width_samples(f, width, plane) * format_info(f).bytes_per_sample;
}

std::vector<PlaneView> components(const FrameView& frame) {
  const FormatInfo fi = format_info(frame.format);
  std::vector<PlaneView> out;
  auto make = [&](int plane, int w, int h, int stride, int offset) {
    PlaneView v;
    v.data = frame.data[plane];
    v.pitch = frame.pitch[plane];
    v.width = w;
    v.height = h;
    v.bytes_per_sample = fi.bytes_per_sample;
    v.pixel_stride = stride;
    v.component_offset = offset;
    v.shift = fi.shift;
    v.bit_depth = fi.bit_depth;
    v.memory = frame.memory;
    out.push_back(v);
  };
  make(0, frame.width, frame.height, 1, 0);
  if (fi.components == 1) return out;
  const int cw = chroma_size(frame.width, fi.chroma_shift_x);
  const int ch = chroma_size(frame.height, fi.chroma_shift_y);
  if (fi.interleaved_uv) {
    make(1, cw, ch, 2, 0);
    make(1, cw, ch, 2, 1);
  } else {
    make(1, cw, ch, 1, 0);
    make(2, cw, ch, 1, 0);
  }
  return out;
}

void copy_host_plane(const FrameView& from, const FrameView& to, int p) {
  if (from.memory != MemoryKind::Host || to.memory != MemoryKind::Host)
    throw InvalidArgument("copy_host_plane needs frames in host memory");
  const std::size_t row = static_cast<std::size_t>(plane_row_bytes(from.format, from.width, p));
  for (int y = 0; y < plane_height(from.format, from.height, p); ++y)
    std::memcpy(static_cast<char*>(to.data[p]) + y * to.pitch[p],
                static_cast<const char*>(from.data[p]) + y * from.pitch[p], row);
}

void copy_host_frame(const FrameView& from, const FrameView& to) {
  for (int p = 0; p < format_info(from.format).planes; ++p) copy_host_plane(from, to, p);
}

void validate_frame(const FrameView& frame) {
  if (frame.width <= 0 || frame.height <= 0) {
    std::ostringstream m;
    m << "frame size " << frame.width << "x" << frame.height << " is not positive";
    throw InvalidArgument(m.str());
  }
  const FormatInfo fi = format_info(frame.format);
  for (int p = 0; p < fi.planes; ++p) {
    if (!frame.data[p]) throw InvalidArgument("frame plane " + std::to_string(p) + " has no data");
    const std::size_t row = static_cast<std::size_t>(plane_row_bytes(frame.format, frame.width, p));
    if (frame.pitch[p] < row) {
      std::ostringstream m;
      m << format_name(frame.format) << " plane " << p << ": pitch " << frame.pitch[p]
        << " is smaller than a row (" << row << " bytes)";
      throw InvalidArgument(m.str());
    }
  }
}

}  // namespace cdn
