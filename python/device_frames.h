// device_frames.h: GPU arrays as the library's device frames, without copies
// (issue 35 item 4; docs/PYTHON.md, "GPU arrays"). A GPU array is an object with
// __cuda_array_interface__ (versions 2 and 3: PyTorch CUDA tensors, CuPy and
// Numba device arrays). A frame takes the layouts of array_frames.h whose
// planes the library's frames can point into, in place:
//
//   (H, W)       uint8 / uint16 (GRAY8 / GRAY16_LE)
//   (3, H, W)    uint8 (Y444, planar)
//   (Y, UV)      uint8 NV12; uint16 with bit_depth=16 (P016: 16-bit samples)
//   (Y, U, V)    uint8 I420
//
// Rows may be padded (any row stride); samples within a row must be adjacent
// (and UV's pairs). Refused, with the reason: (H, W, 3) (interleaved: the
// library's planes are not), uint16 4:2:0 with bit_depth=10 (host arrays hold
// 10-bit values in the low bits, P010 in the high ones: no copy can reconcile
// them), masked arrays, planes on different devices.
#pragma once

#include <pybind11/pybind11.h>

#include "array_frames.h"
#include "cudadenoise/frame.h"

namespace cdn::python {

struct DeviceFrame {
  FrameShape shape;
  FrameView view;              // memory Device, planes pointing into the arrays
  int device = 0;              // the CUDA device holding them
  // The stream the frame's work is ordered on: version 3's "stream", or for a
  // PyTorch tensor (whose interface names none) torch's current stream on its
  // device; none: the frame is complete when it is passed.
  bool stream_given = false;
  void* stream = nullptr;      // cudaStream_t; legacy and per-thread defaults included
};

// Whether `frame` is a GPU array or a sequence of them (its first plane is one).
bool is_device_frame(const pybind11::object& frame);

// The frame's planes as a device frame. `writable`: an output, so read-only
// arrays are refused and no stream is looked up (the library writes an output
// on its input's stream). Throws pybind11::value_error for what cannot be taken
// in place.
DeviceFrame device_frame(const pybind11::object& frame, int bit_depth, bool writable);

// New arrays like `frame`'s (each plane's module's empty_like: torch.empty_like,
// cupy.empty_like, ...), checked to be on `device`, and their device frame
// (read once: each read of a PyTorch tensor's interface costs microseconds).
struct MadeFrame {
  pybind11::object arrays;
  DeviceFrame frame;
};
MadeFrame empty_like_frame(const pybind11::object& frame, int bit_depth, int device);

// The CUDA device holding `pointer` (cudaPointerGetAttributes); throws
// pybind11::value_error for host memory.
int device_of(const void* pointer);

}  // namespace cdn::python
