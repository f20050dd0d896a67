// stream_denoiser.cpp: StreamDenoiser::create, and the stream wrapper of the
// per-frame modes (each frame is filtered on push and handed back on pop).
#include "stream_denoiser.h"

#include <algorithm>
#include <deque>

#include "error.h"
#include "host_frame.h"
#include "temporal_stream.h"

namespace cdn {

namespace {

// Per-frame modes on host frames (the CUDA backend uploads and downloads them):
// push filters into a frame of our own, pop copies it out.
class PerFrameStream final : public StreamDenoiser {
 public:
  PerFrameStream(std::unique_ptr<FrameDenoiser> d, PixelFormat f, int w, int h)
      : den_(std::move(d)), format_(f), width_(w), height_(h) {}
  Backend backend() const override { return den_->backend(); }
  const DenoiseSettings& settings() const override { return den_->settings(); }
  int latency_frames() const override { return 0; }
  int held() const override { return static_cast<int>(ready_.size()); }
  bool ready() const override { return !ready_.empty(); }
  void push(const FrameView& in, void* stream) override {
    if (in.memory != MemoryKind::Host)
      throw InvalidArgument("per-frame modes: push host frames here, or use FrameDenoiser for device frames");
    HostFrame out(format_, width_, height_);
    den_->process(in, out.view(), stream);
    ready_.push_back(std::move(out));
  }
  bool pop(const FrameView& out, void*) override {
    if (ready_.empty()) return false;
    if (out.memory != MemoryKind::Host) throw InvalidArgument("per-frame modes: pop into host frames");
    copy_host_frame(ready_.front().view(), out);
    ready_.pop_front();
    return true;
  }
  void finish() override {}
  void reset() override { ready_.clear(); }

 private:
  std::unique_ptr<FrameDenoiser> den_;
  PixelFormat format_;
  int width_, height_;
  std::deque<HostFrame> ready_;
};

}  // namespace

int StreamDenoiser::latency_frames_for(const DenoiseSettings& s, int cuda_devices) {
  return is_temporal(s.mode) ? TemporalStream::latency_for(s, std::max(1, cuda_devices)) : 0;
}

std::unique_ptr<StreamDenoiser> StreamDenoiser::create(Backend backend, const DenoiseSettings& settings,
                                                       PixelFormat format, int width, int height,
                                                       const std::vector<int>& cuda_devices) {
  validate(settings);
  if (!is_temporal(settings.mode))
    return std::make_unique<PerFrameStream>(FrameDenoiser::create(backend, settings), format, width, height);
  if (resolve_backend(backend) == Backend::Cpu) return make_cpu_temporal_stream(settings, format, width, height);
#ifdef CDN_HAVE_CUDA
  return make_cuda_temporal_stream(settings, format, width, height, cuda_devices);
#else
  throw Error("unreachable: CUDA resolved in a build without CUDA");
#endif
}

}  // namespace cdn
