// host_frame.cpp: allocation of host frames (host_frame.h).
#include "cudadenoise/host_frame.h"

#include "cudadenoise/error.h"

namespace cdn {

HostFrame::HostFrame(PixelFormat format, int width, int height) {
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
  const FormatInfo fi = format_info(format);
  std::size_t offsets[3] = {0, 0, 0};
  for (int p = 0; p < fi.planes; ++p) {
    const std::size_t row = static_cast<std::size_t>(plane_row_bytes(format, width, p));
    view_.pitch[p] = (row + 63) / 64 * 64;
    offsets[p] = size_;
    size_ += view_.pitch[p] * static_cast<std::size_t>(plane_height(format, height, p));
  }
  storage_.reset(new unsigned char[size_]());
  for (int p = 0; p < fi.planes; ++p) view_.data[p] = storage_.get() + offsets[p];
  view_.format = format;
  view_.width = width;
  view_.height = height;
  view_.memory = MemoryKind::Host;
}

}  // namespace cdn
