// host_frame.h: an owning frame in host memory (tools, tests, the CPU temporal backend).
//
// Planes are allocated back to back, each row padded to a multiple of 64 bytes
// (so pitch != row width is exercised everywhere), zero-filled. Movable, not
// copyable: view() points into the frame's own storage.
#pragma once

#include <cstddef>
#include <memory>

#include "cudadenoise/frame.h"

namespace cdn {

class HostFrame {
 public:
  HostFrame(PixelFormat format, int width, int height);
  HostFrame(HostFrame&&) = default;
  HostFrame& operator=(HostFrame&&) = default;

  const FrameView& view() const { return view_; }
  std::size_t size_bytes() const { return size_; }

 private:
  std::unique_ptr<unsigned char[]> storage_;
  std::size_t size_ = 0;
  FrameView view_;
};

}  // namespace cdn
