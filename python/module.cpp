// module.cpp: the Python module `cudadenoise` (issue 35; docs/PYTHON.md), a thin
// layer over the library's front door (stream_denoiser.h, stream_pump.h): one
// frame with denoise(), video with Stream. Frames are numpy arrays
// (array_frames.h) or GPU arrays filtered in place on their device
// (device_frames.h), settings come from the parameter table
// (settings_from_kwargs.h), the library's errors become ValueError (bad
// settings or frames) or cudadenoise.Error (anything else, CUDA included). The
// filtering runs with the GIL released.
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_frames.h"
#include "device_frames.h"
#include "cudadenoise/backend.h"
#include "cudadenoise/error.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_pump.h"
#include "settings_from_kwargs.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace py = pybind11;

namespace cdn::python {

namespace {

// A Python object as a frame's tag (cdn::FrameTag): the stream may drop it
// without the GIL (the deleter takes it).
FrameTag tag_of(const py::object& o) {
  return FrameTag(new py::object(o), [](void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
}

// A sink that gives every output frame a host frame of its own, kept with its tag.
class CollectingSink final : public FrameSink {
 public:
  CollectingSink(PixelFormat f, int w, int h) : format_(f), width_(w), height_(h) {}
  FrameView next() override {
    pending_ = std::make_unique<HostFrame>(format_, width_, height_);
    return pending_->view();
  }
  bool take(FrameTag tag) override {
    frames.push_back(std::move(pending_));
    tags.push_back(std::move(tag));
    return true;
  }
  std::vector<std::unique_ptr<HostFrame>> frames;
  std::vector<FrameTag> tags;  // the tag each frame was pushed with

 private:
  PixelFormat format_;
  int width_, height_;
  std::unique_ptr<HostFrame> pending_;
};

// GPU arrays go to the CUDA backend (refuse_cpu_backend, before anything else is
// read from them) on their device, made current for the library (use_device: this
// module's CUDA runtime keeps a current device of its own).
void refuse_cpu_backend(const std::string& backend) {
  if (backend_from_name(backend) == Backend::Cpu)
    throw py::value_error("GPU arrays are filtered on their device: backend='cpu' takes numpy arrays");
}

Backend use_device(int device) {
#ifdef CDN_HAVE_CUDA
  if (cudaSetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    throw Error("cannot use CUDA device " + std::to_string(device));
  }
#endif
  return Backend::Cuda;
}

// A sink writing one given device frame (denoise()) or new arrays like a
// template frame (Stream), keeping each output and its tag.
class DeviceSink final : public FrameSink {
 public:
  DeviceSink(py::object like, int bit_depth, int device) : like_(std::move(like)), bit_depth_(bit_depth), device_(device) {}
  explicit DeviceSink(py::object out, const FrameView& view) : given_(std::move(out)), given_view_(view) {}
  FrameView next() override {
    const auto start = std::chrono::steady_clock::now();
    py::gil_scoped_acquire gil;
    if (given_) {
      pending_ = given_;
      return given_view_;
    }
    MadeFrame made = empty_like_frame(like_, bit_depth_, device_);
    pending_ = std::move(made.arrays);
    in_python += std::chrono::steady_clock::now() - start;
    return made.frame.view;
  }
  bool take(FrameTag tag) override {
    const auto start = std::chrono::steady_clock::now();
    py::gil_scoped_acquire gil;
    frames.push_back(std::move(pending_));
    tags.push_back(std::move(tag));
    in_python += std::chrono::steady_clock::now() - start;
    return true;
  }
  std::vector<py::object> frames;
  std::vector<FrameTag> tags;
  // Time the library's calls spent back in this module (the GIL, the output arrays).
  std::chrono::steady_clock::duration in_python{};

 private:
  py::object like_, given_, pending_;
  FrameView given_view_;
  int bit_depth_ = 0, device_ = 0;
};

// One GPU frame: filtered into `out` (or arrays made like it) on its device,
// after the work queued on the stream it names; complete when this returns.
py::object denoise_device(const py::object& frame, const py::object& out, const DenoiseSettings& settings,
                          const std::string& backend, int bit_depth, bool return_noise) {
  refuse_cpu_backend(backend);
  const DeviceFrame in = device_frame(frame, bit_depth, false);
  const Backend b = use_device(in.device);
  MadeFrame made;
  if (out.is_none())
    made = empty_like_frame(frame, bit_depth, in.device);
  else
    made = {out, device_frame(out, bit_depth, true)};
  const py::object& target = made.arrays;
  const DeviceFrame& o = made.frame;
  if (!(o.shape == in.shape)) throw py::value_error("out= has another layout, type or size than the frame");
  if (o.device != in.device) throw py::value_error("out= is on another device than the frame");
  DeviceSink sink(target, o.view);
  std::vector<double> sigma;
  {
    py::gil_scoped_release release;
    const auto d = StreamDenoiser::create(b, settings, in.shape.format, in.shape.width, in.shape.height);
    feed(*d, in.view, sink, in.stream);
    drain(*d, sink, in.stream);
    sigma = d->noise_sigma();
  }
  if (sink.frames.size() != 1) throw Error("denoise: the stream gave " + std::to_string(sink.frames.size()) + " frames");
  if (return_noise) return py::make_tuple(target, sigma);
  return target;
}

py::object denoise(const py::object& frame, const py::object& preset, const std::string& backend, int bit_depth,
                   bool return_noise, const py::object& out, const py::kwargs& params) {
  const DenoiseSettings settings = settings_from_kwargs(preset, params);
  if (is_device_frame(frame)) return denoise_device(frame, out, settings, backend, bit_depth, return_noise);
  if (!out.is_none()) throw py::value_error("out= is for GPU arrays; numpy frames come back in new arrays");
  const Backend b = backend_from_name(backend);
  const FrameShape shape = frame_shape(frame, bit_depth);
  const std::unique_ptr<HostFrame> in = to_host_frame(frame, shape);
  CollectingSink sink(shape.format, shape.width, shape.height);
  std::vector<double> sigma;
  {
    py::gil_scoped_release release;
    // A temporal mode filters the frame as a stream of one frame, as the image tool does.
    const auto d = StreamDenoiser::create(b, settings, shape.format, shape.width, shape.height);
    feed(*d, in->view(), sink);
    drain(*d, sink);
    sigma = d->noise_sigma();
  }
  if (sink.frames.size() != 1) throw Error("denoise: the stream gave " + std::to_string(sink.frames.size()) + " frames");
  py::object result = from_host_frame(sink.frames[0]->view(), shape);
  if (return_noise) return py::make_tuple(result, sigma);
  return result;
}

// Video: frames in, the same number out in order, each with the tag it came with.
class Stream {
 public:
  Stream(const py::object& preset, const std::string& backend, int bit_depth, const py::kwargs& params)
      : settings_(settings_from_kwargs(preset, params)),
        backend_(backend_from_name(backend)),
        backend_name_(backend),
        bit_depth_(bit_depth) {}

  void push(const py::object& frame, const py::object& tag) {
    const auto start = std::chrono::steady_clock::now();
    push_frame(frame, tag);
    ++timing_.pushes;
    timing_.push += std::chrono::steady_clock::now() - start;
  }

  // Seconds in push() in all and, of them, in the library's own path; the rest
  // is this module's (issue 35 item 7): reading the arrays, making the outputs
  // through their module, the GIL, the tags.
  py::dict timing() const {
    py::dict d;
    d["pushes"] = timing_.pushes;
    d["push_s"] = std::chrono::duration<double>(timing_.push).count();
    d["library_s"] = std::chrono::duration<double>(timing_.library).count();
    return d;
  }

 private:
  void push_frame(const py::object& frame, const py::object& tag) {
    check_open();
    if (is_device_frame(frame)) return push_device(frame, tag);
    if (on_device_) throw py::value_error("Stream.push: a numpy frame in a stream of GPU frames");
    const FrameShape shape = frame_shape(frame, bit_depth_);
    if (!shape_) {
      shape_ = shape;
      py::gil_scoped_release release;
      denoiser_ = StreamDenoiser::create(backend_, settings_, shape.format, shape.width, shape.height);
    } else if (!(*shape_ == shape)) {
      throw py::value_error("Stream.push: a frame of another format or size than the stream's first "
                            "(flush() and start a new Stream for it)");
    }
    const std::unique_ptr<HostFrame> in = to_host_frame(frame, shape);
    CollectingSink sink(shape.format, shape.width, shape.height);
    FrameTag t = tag_of(tag);
    {
      py::gil_scoped_release release;
      const auto start = std::chrono::steady_clock::now();
      feed(*denoiser_, in->view(), sink, nullptr, std::move(t));
      timing_.library += std::chrono::steady_clock::now() - start;
    }
    collect(sink);
  }

 public:

  // Ends the stream: every frame still held comes out. Returns every frame not
  // yet taken, with its tag, in order; the next push() starts a new stream.
  py::list flush() {
    check_open();
    if (denoiser_ && on_device_) {
      use_device(device_);
      DeviceSink sink(like_, bit_depth_, device_);
      {
        py::gil_scoped_release release;
        drain(*denoiser_, sink);
      }
      collect(sink);
      like_ = py::none();
    } else if (denoiser_) {
      CollectingSink sink(shape_->format, shape_->width, shape_->height);
      {
        py::gil_scoped_release release;
        drain(*denoiser_, sink);
      }
      collect(sink);
    }
    py::list out;
    while (!ready_.empty()) {
      out.append(ready_.front());
      ready_.pop_front();
    }
    return out;
  }

  py::object next() {
    if (ready_.empty()) throw py::stop_iteration();
    py::object f = ready_.front();
    ready_.pop_front();
    return f;
  }

  void close() {
    denoiser_.reset();
    ready_.clear();
    like_ = py::none();
    closed_ = true;
  }

  int latency_frames() const {
    return denoiser_ ? denoiser_->latency_frames() : StreamDenoiser::latency_frames_for(settings_);
  }
  std::vector<double> noise_sigma() const { return denoiser_ ? denoiser_->noise_sigma() : std::vector<double>{}; }
  int held() const { return (denoiser_ ? denoiser_->held() : 0) + static_cast<int>(ready_.size()); }
  std::string mode() const { return mode_name(settings_.mode); }

 private:
  void check_open() const {
    if (closed_) throw py::value_error("Stream: closed");
  }
  void collect(CollectingSink& sink) {
    for (std::size_t i = 0; i < sink.frames.size(); ++i)
      ready_.push_back(py::make_tuple(from_host_frame(sink.frames[i]->view(), *shape_),
                                      *static_cast<py::object*>(sink.tags[i].get())));
  }
  void collect(DeviceSink& sink) {
    for (std::size_t i = 0; i < sink.frames.size(); ++i)
      ready_.push_back(py::make_tuple(sink.frames[i], *static_cast<py::object*>(sink.tags[i].get())));
  }

  // A GPU frame: filtered on its device after the work queued on the stream it
  // names; each output in new arrays made like the frame (empty_like).
  void push_device(const py::object& frame, const py::object& tag) {
    refuse_cpu_backend(backend_name_);
    const DeviceFrame in = device_frame(frame, bit_depth_, false);
    if (shape_ && !on_device_) throw py::value_error("Stream.push: a GPU frame in a stream of numpy frames");
    if (shape_ && !(*shape_ == in.shape))
      throw py::value_error("Stream.push: a frame of another format or size than the stream's first "
                            "(flush() and start a new Stream for it)");
    if (shape_ && in.device != device_) throw py::value_error("Stream.push: a frame on another device than the first");
    const Backend b = use_device(in.device);
    if (!shape_) {
      shape_ = in.shape;
      on_device_ = true;
      device_ = in.device;
      py::gil_scoped_release release;
      denoiser_ = StreamDenoiser::create(b, settings_, in.shape.format, in.shape.width, in.shape.height);
    }
    like_ = frame;  // the template of the outputs, flush()'s too
    DeviceSink sink(like_, bit_depth_, device_);
    FrameTag t = tag_of(tag);
    {
      py::gil_scoped_release release;
      const auto start = std::chrono::steady_clock::now();
      feed(*denoiser_, in.view, sink, in.stream, std::move(t));
      timing_.library += std::chrono::steady_clock::now() - start - sink.in_python;
    }
    collect(sink);
  }

  struct Timing {
    long long pushes = 0;
    std::chrono::steady_clock::duration push{}, library{};
  };
  Timing timing_;

  DenoiseSettings settings_;
  Backend backend_;
  std::string backend_name_;
  int bit_depth_;
  bool on_device_ = false;  // GPU frames (the first frame's kind)
  int device_ = 0;          // their device
  py::object like_;         // the last GPU frame pushed: what outputs are made like
  std::optional<FrameShape> shape_;
  std::unique_ptr<StreamDenoiser> denoiser_;
  std::deque<py::object> ready_;  // (frame, tag) not yet taken
  bool closed_ = false;
};

std::string& denoise_doc() {
  static std::string doc =
      "denoise(frame, preset=None, *, backend='auto', bit_depth=0, return_noise=False, out=None, **params)\n\n"
      "Denoises one frame (numpy arrays: (H, W), (H, W, 3), (3, H, W), (Y, UV) or (Y, U, V); "
      "docs/PYTHON.md) and returns new arrays of the same layout; with return_noise=True, "
      "(frame, sigma per component). GPU arrays (__cuda_array_interface__: PyTorch, CuPy) are "
      "filtered on their device, without copies, into out= or new arrays made by their module's "
      "empty_like, after the work on the stream they name. Temporal modes filter it as a stream of one frame. "
      "bit_depth: 10 (P010) or 16 (P016) for uint16 4:2:0, 16 for uint16 gray.\n\n" +
      parameters_help();
  return doc;
}

std::string& stream_doc() {
  static std::string doc =
      "Stream(preset=None, *, backend='auto', bit_depth=0, **params)\n\n"
      "Video: push(frame, tag=None) frames in order (numpy or GPU arrays, as denoise() takes; all of one "
      "kind); iterate over the stream for the (frame, tag) pairs "
      "that are ready; flush() ends the stream and returns the rest. Frames out equal frames in, in "
      "order, each with its tag. A context manager (closes on exit: call flush() first to keep the "
      "frames still held).\n\n" +
      parameters_help();
  return doc;
}

}  // namespace

}  // namespace cdn::python

PYBIND11_MODULE(cudadenoise, m) {
  using namespace cdn::python;
  m.doc() = "cudadenoise: video denoising on NVIDIA GPUs or the CPU (docs/PYTHON.md). denoise() for one frame, "
            "Stream for video; every mode, preset and parameter of the library's table.";
  static py::exception<cdn::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const cdn::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const cdn::Error& e) {
      error(e.what());
    }
  });
  m.def("denoise", &denoise, denoise_doc().c_str(), py::arg("frame"), py::arg("preset") = py::none(), py::kw_only(),
        py::arg("backend") = "auto", py::arg("bit_depth") = 0, py::arg("return_noise") = false,
        py::arg("out") = py::none());
  py::class_<Stream>(m, "Stream", stream_doc().c_str())
      .def(py::init<const py::object&, const std::string&, int, const py::kwargs&>(), py::arg("preset") = py::none(),
           py::kw_only(), py::arg("backend") = "auto", py::arg("bit_depth") = 0)
      .def("push", &Stream::push, "Pushes a frame (and its tag); frames that become ready wait for iteration.",
           py::arg("frame"), py::arg("tag") = py::none())
      .def("flush", &Stream::flush, "Ends the stream; returns every (frame, tag) not yet taken, in order.")
      .def("close", &Stream::close, "Drops the stream and every frame it holds.")
      .def("__iter__", [](Stream& s) -> Stream& { return s; })
      .def("__next__", &Stream::next)
      .def("__enter__", [](Stream& s) -> Stream& { return s; })
      .def("__exit__", [](Stream& s, const py::object&, const py::object&, const py::object&) { s.close(); })
      .def_property_readonly("latency_frames", &Stream::latency_frames,
                             "Frames that may follow a frame before it comes out.")
      .def_property_readonly("noise_sigma", &Stream::noise_sigma,
                             "Noise sigma per component in 8-bit code values (estimated with sigma auto).")
      .def_property_readonly("held", &Stream::held, "Frames pushed and not yet taken.")
      .def_property_readonly("mode", &Stream::mode)
      .def_property_readonly("timing", &Stream::timing,
                             "{'pushes', 'push_s', 'library_s'}: seconds in push() in all and, of them, in the "
                             "library's own path; the rest is the module's (reading arrays, making outputs, the GIL).");
  py::list presets;
  for (const cdn::Preset* p : cdn::available_presets()) presets.append(p->name);
  m.attr("presets") = presets;
  py::list modes;
  for (cdn::Mode x : cdn::all_modes()) modes.append(cdn::mode_name(x));
  m.attr("modes") = modes;
  m.attr("cuda_available") = py::bool_(cdn::cuda_available());
}
