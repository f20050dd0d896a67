// direct_stream.cpp: DirectStream's bookkeeping (direct_stream.h) and its CPU
// backend (host frames; the mode's CPU filter).
#include "stream/direct_stream.h"

#include "core/plane_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"

namespace cdn {

void check_same_geometry(const FrameView& in, const FrameView& out) {
  validate_frame(in);
  validate_frame(out);
  if (in.format != out.format || in.width != out.width || in.height != out.height)
    throw InvalidArgument("input and output frames differ in format or size");
  if (in.data[0] == out.data[0]) throw InvalidArgument("input and output frames must not share memory");
}

DirectStream::DirectStream(const DenoiseSettings& settings, PixelFormat format, int width, int height)
    : settings_(settings), format_(format), width_(width), height_(height) {
  validate(settings);
  if (is_temporal(settings.mode))
    throw InvalidArgument(std::string("mode ") + mode_name(settings.mode) + " filters a window of frames");
}

DirectStream::~DirectStream() = default;

void DirectStream::set_settings(const DenoiseSettings& settings) {
  validate(settings);
  if (is_temporal(settings.mode))
    throw InvalidArgument(std::string("mode ") + mode_name(settings.mode) + " filters a window of frames");
  settings_ = settings;
  filter_.reset();
}

WindowFilter& DirectStream::filter() {
  if (!filter_) filter_ = make_filter(settings_);
  return *filter_;
}

void DirectStream::check(const FrameView& in, const FrameView& out) const {
  check_same_geometry(in, out);
  if (in.format != format_ || in.width != width_ || in.height != height_)
    throw InvalidArgument("frame format or size differs from the stream's");
}

ChunkJob DirectStream::job(const FrameView& in, const FrameView& out) const {
  ChunkJob job;
  job.window = {&in};
  job.outputs = {&out};
  job.stream_length = 1;
  if (uses_sigma(settings_.mode)) {
    // StreamDenoiser sets the level before every frame (given or tracked).
    if (noise_.empty()) throw Error(std::string("mode ") + mode_name(settings_.mode) + ": no noise level set");
    job.sigma = {in_code_values(noise_, format_)};
  }
  job.filtered = filtered_components(in, settings_.planes);
  job.cancel = cancel_;
  return job;
}

void DirectStream::process(const FrameView& in, const FrameView& out, void* stream) {
  check(in, out);
  filter_frame(in, out, stream);
}

void DirectStream::push(const FrameView& in, void* stream) {
  Frame out = new_frame(in.memory, stream);
  process(in, *out, stream);
  ready_.push_back(std::move(out));
}

bool DirectStream::pop(const FrameView& out, void* stream) {
  if (ready_.empty()) return false;
  copy_frame(*ready_.front(), out, stream);
  ready_.pop_front();
  return true;
}

namespace {

class CpuDirectStream final : public DirectStream {
 public:
  using DirectStream::DirectStream;
  Backend backend() const override { return Backend::Cpu; }

 protected:
  std::unique_ptr<WindowFilter> make_filter(const DenoiseSettings& s) override {
    return make_cpu_window_filter(s, format_);
  }
  void filter_frame(const FrameView& in, const FrameView& out, void*) override {
    host_only(in, out);
    for (int p = 0; p < format_info(in.format).planes; ++p)
      if (!plane_is_filtered(settings_.planes, p)) copy_host_plane(in, out, p);
    filter().run(job(in, out), nullptr);
  }
  Frame new_frame(MemoryKind memory, void*) override {
    if (memory != MemoryKind::Host) throw InvalidArgument("the CPU backend needs frames in host memory");
    auto frame = std::make_shared<HostFrame>(format_, width_, height_);
    return Frame(frame, &frame->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void*) override {
    check_same_geometry(from, to);
    host_only(from, to);
    copy_host_frame(from, to);
  }

 private:
  static void host_only(const FrameView& a, const FrameView& b) {
    if (a.memory != MemoryKind::Host || b.memory != MemoryKind::Host)
      throw InvalidArgument("the CPU backend needs frames in host memory");
  }
};

}  // namespace

std::unique_ptr<DirectStream> make_cpu_direct_stream(const DenoiseSettings& s, PixelFormat f, int w, int h) {
  return std::make_unique<CpuDirectStream>(s, f, w, h);
}

}  // namespace cdn
