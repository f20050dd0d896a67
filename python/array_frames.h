// array_frames.h: a Python caller's frame, numpy arrays in one of the layouts
// the module takes, as a library frame and back (docs/PYTHON.md, "Frames"):
//
//   (H, W)             uint8: GRAY8; uint16: GRAY16_LE (bit_depth 16 or not given)
//   (H, W, 3)          uint8: Y444 (three components interleaved, Y first)
//   (3, H, W)          uint8: Y444 (planar)
//   (Y, UV)            Y (H, W) and UV (H/2, W/2, 2): uint8 NV12; uint16 P010_10LE
//                      (bit_depth 10) or P016_LE (bit_depth 16), values in the low bits
//   (Y, U, V)          Y (H, W), U and V (H/2, W/2): uint8 I420
//
// Components, not colours: (H, W, 3) is taken as Y, U, V in that order (an RGB
// picture's channels are filtered as three components all the same). Anything
// else is refused with a ValueError that says what was expected.
#pragma once

#include <memory>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "cudadenoise/frame.h"
#include "cudadenoise/host_frame.h"

namespace cdn::python {

enum class Layout { Gray, Interleaved444, Planar444, SemiPlanar420, Planar420 };

// What a frame object is: its layout, the library format and the size.
struct FrameShape {
  Layout layout = Layout::Gray;
  PixelFormat format = PixelFormat::GRAY8;
  int width = 0, height = 0;
  bool operator==(const FrameShape& o) const {
    return layout == o.layout && format == o.format && width == o.width && height == o.height;
  }
};

// What the layout rules need of one array: its shape and its sample type.
struct ArrayDesc {
  enum class Type { U8, U16, Other };
  std::vector<pybind11::ssize_t> shape;
  Type type = Type::Other;
};

// The layout, format and size of a frame given as one array (`sequence` false,
// one entry) or as a sequence of planes; the rules of the table above, shared
// by host (numpy) and GPU arrays (device_frames.h). Throws pybind11::value_error
// for anything else, saying what was expected.
FrameShape shape_of(const std::vector<ArrayDesc>& arrays, bool sequence, int bit_depth);

// Throws pybind11::value_error for an object that is none of the layouts.
FrameShape frame_shape(const pybind11::object& frame, int bit_depth);

// A host frame holding a copy of the arrays' samples.
std::unique_ptr<HostFrame> to_host_frame(const pybind11::object& frame, const FrameShape& shape);

// New arrays in `shape`'s layout holding `view`'s samples.
pybind11::object from_host_frame(const FrameView& view, const FrameShape& shape);

}  // namespace cdn::python
