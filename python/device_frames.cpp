// device_frames.cpp: GPU arrays as device frames (device_frames.h), read from
// their __cuda_array_interface__ (Numba's specification, versions 2 and 3:
// shape, typestr, data, strides in bytes or None for C order, mask, stream).
#include "device_frames.h"

#include <cstdint>
#include <string>
#include <vector>

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace py = pybind11;

namespace cdn::python {

namespace {

// One array's interface, as far as frames need it.
struct Interface {
  ArrayDesc desc;
  std::uintptr_t data = 0;
  bool readonly = false;
  std::size_t itemsize = 0;
  std::vector<py::ssize_t> strides;  // in bytes; C order when the interface gives None
  bool stream_given = false;
  std::uintptr_t stream = 0;
};

[[noreturn]] void refuse(const std::string& why) {
  throw py::value_error("GPU frame: " + why + " (docs/PYTHON.md, \"GPU arrays\")");
}

bool has_interface(const py::handle& h) { return py::hasattr(h, "__cuda_array_interface__"); }

Interface interface_of(const py::handle& h, const char* what) {
  if (!has_interface(h)) refuse(std::string(what) + " is not a GPU array where the frame's first plane is one");
  const py::dict d = h.attr("__cuda_array_interface__");
  Interface i;
  const int version = d.contains("version") ? d["version"].cast<int>() : 0;
  if (version < 2) refuse(std::string(what) + ": __cuda_array_interface__ version " + std::to_string(version) + " (2 or later)");
  for (const py::handle n : d["shape"].cast<py::tuple>()) i.desc.shape.push_back(n.cast<py::ssize_t>());
  const std::string typestr = d["typestr"].cast<std::string>();
  if (typestr == "|u1" || typestr == "<u1") {
    i.desc.type = ArrayDesc::Type::U8;
    i.itemsize = 1;
  } else if (typestr == "<u2") {
    i.desc.type = ArrayDesc::Type::U16;
    i.itemsize = 2;
  } else {
    i.itemsize = typestr.size() > 2 ? std::stoul(typestr.substr(2)) : 1;
  }
  const py::tuple data = d["data"].cast<py::tuple>();
  i.data = data[0].cast<std::uintptr_t>();
  i.readonly = data[1].cast<bool>();
  if (d.contains("mask") && !d["mask"].is_none()) refuse(std::string(what) + " is masked");
  if (d.contains("strides") && !d["strides"].is_none()) {
    for (const py::handle n : d["strides"].cast<py::tuple>()) i.strides.push_back(n.cast<py::ssize_t>());
  } else {
    i.strides.assign(i.desc.shape.size(), 0);
    py::ssize_t step = static_cast<py::ssize_t>(i.itemsize);
    for (std::size_t k = i.desc.shape.size(); k-- > 0;) {
      i.strides[k] = step;
      step *= i.desc.shape[k];
    }
  }
  for (py::ssize_t s : i.strides)
    if (s < 0) refuse(std::string(what) + " has a negative stride");
  if (d.contains("stream") && !d["stream"].is_none()) {
    i.stream_given = true;
    i.stream = d["stream"].cast<std::uintptr_t>();
    if (i.stream == 0) refuse(std::string(what) + ": stream 0 (the specification disallows it: 1 is the legacy default stream)");
  }
  return i;
}

// Plane `p` of `f` at `data`, rows `pitch` bytes apart, after checking that the
// samples of a row (`channels` per pixel) are adjacent.
void set_plane(FrameView& f, int p, const Interface& i, std::uintptr_t data, py::ssize_t pitch, py::ssize_t sample,
               py::ssize_t pixel, py::ssize_t row_bytes, const char* what) {
  if (sample != static_cast<py::ssize_t>(i.itemsize) || pixel < sample)
    refuse(std::string(what) + ": the samples of a row are not adjacent (strides in bytes: give a contiguous copy)");
  if (pitch < row_bytes) refuse(std::string(what) + ": rows overlap (row stride below the row's size)");
  f.data[p] = reinterpret_cast<void*>(data);
  f.pitch[p] = static_cast<std::size_t>(pitch);
}

}  // namespace

bool is_device_frame(const py::object& frame) {
  if (py::isinstance<py::tuple>(frame) || py::isinstance<py::list>(frame)) {
    const py::sequence planes = py::reinterpret_borrow<py::sequence>(frame);
    return planes.size() > 0 && has_interface(planes[0]);
  }
  return has_interface(frame);
}

int device_of(const void* pointer) {
#ifdef CDN_HAVE_CUDA
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, pointer);
  if (e != cudaSuccess) {
    cudaGetLastError();
    refuse(std::string("CUDA cannot tell where its memory is: ") + cudaGetErrorString(e));
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) refuse("its memory is not device memory");
  return a.device;
#else
  (void) pointer;
  refuse("this build of the module has no CUDA");
#endif
}

DeviceFrame device_frame(const py::object& frame, int bit_depth, bool writable) {
  std::vector<Interface> planes;
  const bool sequence = py::isinstance<py::tuple>(frame) || py::isinstance<py::list>(frame);
  if (sequence) {
    const py::sequence s = py::reinterpret_borrow<py::sequence>(frame);
    const char* const names[] = {"Y", s.size() == 2 ? "UV" : "U", "V"};
    for (std::size_t k = 0; k < s.size() && k < 3; ++k) planes.push_back(interface_of(s[k], names[k]));
    if (s.size() > 3) planes.resize(s.size());
  } else {
    planes.push_back(interface_of(frame, "frame"));
  }
  std::vector<ArrayDesc> descs;
  for (const Interface& i : planes) descs.push_back(i.desc);
  DeviceFrame d;
  d.shape = shape_of(descs, sequence, bit_depth);
  if (d.shape.layout == Layout::Interleaved444)
    refuse("(H, W, 3) is interleaved and the library's planes are not: give (3, H, W) (e.g. x.permute(2, 0, 1) or "
           "x.transpose(2, 0, 1), made contiguous)");
  if (d.shape.format == PixelFormat::P010_10LE)
    refuse("uint16 4:2:0 with bit_depth=10: host arrays hold 10-bit values in the low bits and P010 in the high "
           "ones, which no frame in place can give; pass P010's samples with bit_depth=16");
  for (const Interface& i : planes)
    if (writable && i.readonly) refuse("out= is read-only");
  FrameView& f = d.view;
  f.format = d.shape.format;
  f.width = d.shape.width;
  f.height = d.shape.height;
  f.memory = MemoryKind::Device;
  const py::ssize_t w = d.shape.width, cw = (w + 1) / 2;
  switch (d.shape.layout) {
    case Layout::Gray: {
      const Interface& i = planes[0];
      set_plane(f, 0, i, i.data, i.strides[0], i.strides[1], i.strides[1], w * i.itemsize, "frame");
      break;
    }
    case Layout::Planar444: {
      const Interface& i = planes[0];
      for (int p = 0; p < 3; ++p)
        set_plane(f, p, i, i.data + p * i.strides[0], i.strides[1], i.strides[2], i.strides[2], w, "frame");
      if (i.strides[0] < i.strides[1] * d.shape.height) refuse("frame: its planes overlap");
      break;
    }
    case Layout::SemiPlanar420: {
      const Interface &y = planes[0], &uv = planes[1];
      set_plane(f, 0, y, y.data, y.strides[0], y.strides[1], y.strides[1], w * y.itemsize, "Y");
      set_plane(f, 1, uv, uv.data, uv.strides[0], uv.strides[2], uv.strides[1], 2 * cw * uv.itemsize, "UV");
      if (uv.strides[1] != 2 * uv.strides[2]) refuse("UV: the pairs of a row are not adjacent");
      break;
    }
    case Layout::Planar420: {
      const char* const names[] = {"Y", "U", "V"};
      for (int p = 0; p < 3; ++p) {
        const Interface& i = planes[p];
        set_plane(f, p, i, i.data, i.strides[0], i.strides[1], i.strides[1], (p ? cw : w) * i.itemsize, names[p]);
      }
      break;
    }
    case Layout::Interleaved444:
      break;  // refused above
  }
  d.device = device_of(f.data[0]);
  for (int p = 1; p < format_info(f.format).planes; ++p)
    if (device_of(f.data[p]) != d.device) refuse("its planes are on different devices");
  d.stream_given = planes[0].stream_given;
  d.stream = reinterpret_cast<void*>(planes[0].stream);
  if (!d.stream_given && !writable) {
    // PyTorch's interface is version 2 and names no stream, while its work on the
    // tensor is queued on the current stream: the frame's work follows that one.
    const py::object first = sequence ? py::object(py::reinterpret_borrow<py::sequence>(frame)[0]) : frame;
    const std::string module = py::str(py::type::of(first).attr("__module__"));
    if (module.rfind("torch", 0) == 0) {
      const py::module_ torch = py::module_::import("torch");
      const auto handle = torch.attr("cuda").attr("current_stream")(d.device).attr("cuda_stream").cast<std::uintptr_t>();
      d.stream_given = true;
      d.stream = reinterpret_cast<void*>(handle ? handle : 1);  // torch's 0: the legacy default stream
    }
  }
  return d;
}

MadeFrame empty_like_frame(const py::object& frame, int bit_depth, int device) {
  const auto like = [](const py::handle& plane) {
    const std::string module = py::str(py::type::of(plane).attr("__module__"));
    const py::module_ lib = py::module_::import(module.substr(0, module.find('.')).c_str());
    if (!py::hasattr(lib, "empty_like"))
      refuse("module " + module + " has no empty_like for the output: give out=");
    return lib.attr("empty_like")(plane);
  };
  py::object out;
  if (py::isinstance<py::tuple>(frame) || py::isinstance<py::list>(frame)) {
    py::list planes;
    for (const py::handle p : py::reinterpret_borrow<py::sequence>(frame)) planes.append(like(p));
    out = py::tuple(planes);
  } else {
    out = like(frame);
  }
  MadeFrame made{out, device_frame(out, bit_depth, true)};
  if (made.frame.device != device)
    refuse("empty_like made the output on device " + std::to_string(made.frame.device) + ", not the input's " +
           std::to_string(device) + ": give out=");
  return made;
}

}  // namespace cdn::python
