// cuda_denoiser.cu: FrameDenoiser over the CUDA kernels (pipd_cuda.h, bm3d_cuda.h).
// Device frames are filtered where they are (zero-copy); host frames are staged
// through two frames of a CudaFramePool (upload, filter, download).
#include <cuda_runtime.h>

#include <memory>

#include "bm3d/bm3d_cuda.h"
#include "core/plane_copy.h"
#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_estimate.h"
#include "cudadenoise/noise_tracker.h"
#include "pipd/pipd_cuda.h"
#include "stream/frame_denoiser.h"

namespace cdn {

namespace {

class CudaDenoiser final : public FrameDenoiser {
 public:
  explicit CudaDenoiser(const DenoiseSettings& s) : settings_(s) {
    CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking));
  }
  ~CudaDenoiser() override {
    staging_in_.reset();
    staging_out_.reset();
    pool_.reset();
    held_.reset();
    if (own_stream_) cudaStreamDestroy(own_stream_);
  }

  Backend backend() const override { return Backend::Cuda; }
  const DenoiseSettings& settings() const override { return settings_; }
  void set_settings(const DenoiseSettings& s) override {
    validate(s);
    if (is_temporal(s.mode)) throw InvalidArgument("a FrameDenoiser cannot switch to a temporal mode");
    settings_ = s;
    sigma_.reset();
  }

  void enqueue(const FrameView& in, const FrameView& out, void* stream_ptr) override {
    if (in.memory != MemoryKind::Device || out.memory != MemoryKind::Device) return process(in, out, stream_ptr);
    check_same_geometry(in, out);
    cudaStream_t stream = stream_ptr ? static_cast<cudaStream_t>(stream_ptr) : own_stream_;
    ensure_sigma(in, stream);
    filter_device(in, out, stream);
  }

  void process(const FrameView& in, const FrameView& out, void* stream_ptr) override {
    check_same_geometry(in, out);
    cudaStream_t stream = stream_ptr ? static_cast<cudaStream_t>(stream_ptr) : own_stream_;
    ensure_sigma(in, stream);
    if (in.memory == MemoryKind::Device && out.memory == MemoryKind::Device) {
      filter_device(in, out, stream);
    } else {
      // Staging: frames of our pool, kept for the next call while the geometry holds.
      ensure_staging(in);
      const FrameView& din = in.memory == MemoryKind::Device ? in : staging_in_->view();
      const FrameView& dout = out.memory == MemoryKind::Device ? out : staging_out_->view();
      if (in.memory == MemoryKind::Host) copy_frame_async(in, din, stream);
      filter_device(din, dout, stream);
      if (out.memory == MemoryKind::Host) copy_frame_async(dout, out, stream);
    }
    CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  std::shared_ptr<const FrameView> new_frame(PixelFormat f, int w, int h, MemoryKind memory) override {
    if (memory == MemoryKind::Host) {
      auto frame = std::make_shared<HostFrame>(f, w, h);
      return std::shared_ptr<const FrameView>(frame, &frame->view());
    }
    // Frames a caller has pushed and not yet popped: two at most (pop after each push).
    if (!held_ || held_->format() != f || held_->width() != w || held_->height() != h)
      held_ = std::make_unique<CudaFramePool>(f, w, h, 2);
    auto frame = held_->try_acquire(own_stream_);
    if (!frame) throw InvalidArgument("per-frame stream: pop() every ready frame after each push()");
    return std::shared_ptr<const FrameView>(frame, &frame->view());
  }
  void copy_frame(const FrameView& from, const FrameView& to, void* stream_ptr) override {
    check_same_geometry(from, to);
    cudaStream_t stream = stream_ptr ? static_cast<cudaStream_t>(stream_ptr) : own_stream_;
    copy_frame_async(from, to, stream);
    CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  void filter_device(const FrameView& in, const FrameView& out, cudaStream_t stream) {
    const FormatInfo fi = format_info(in.format);
    for (int p = 0; p < fi.planes; ++p)
      if (!plane_is_filtered(settings_.planes, p)) copy_plane_async(in, out, p, stream);
    const auto ic = components(in), oc = components(out);
    const int filtered = filtered_components(in, settings_.planes);
    if (settings_.mode == Mode::Bm3d) {
      const std::vector<double> sigma = noise_.empty() ? sigma_.get(in, settings_.sigma) : in_code_values(noise_, in.format);
      bm3d_.run(ic, oc, filtered, settings_.bm3d, sigma, stream, cancel_);
      return;
    }
    for (int c = 0; c < filtered; ++c) pipd_.run(ic[c], oc[c], settings_.mode, settings_.pipd, stream);
  }

  // BM3D's noise level: given, or estimated once from the first frame (brought to
  // the host for the estimator when it is a device frame).
  void ensure_sigma(const FrameView& in, cudaStream_t stream) {
    if (settings_.mode != Mode::Bm3d || !noise_.empty() || sigma_.known(in.format)) return;
    if (in.memory == MemoryKind::Host || settings_.sigma > 0) {
      sigma_.get(in, settings_.sigma);
      return;
    }
    HostFrame host(in.format, in.width, in.height);
    copy_frame_async(in, host.view(), stream);
    CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
    sigma_.get(host.view(), settings_.sigma);
  }

  void ensure_staging(const FrameView& like) {
    if (pool_ && pool_->format() == like.format && pool_->width() == like.width && pool_->height() == like.height)
      return;
    staging_in_.reset();
    staging_out_.reset();
    pool_ = std::make_unique<CudaFramePool>(like.format, like.width, like.height, 2);
    staging_in_ = pool_->acquire(own_stream_);
    staging_out_ = pool_->acquire(own_stream_);
  }

  DenoiseSettings settings_;
  cudaStream_t own_stream_ = nullptr;
  PipdCuda pipd_;
  Bm3dCuda bm3d_;
  FirstFrameSigma sigma_;
  std::unique_ptr<CudaFramePool> pool_;
  CudaFramePool::Handle staging_in_, staging_out_;
  std::unique_ptr<CudaFramePool> held_;  // new_frame()'s device frames
};

}  // namespace

std::unique_ptr<FrameDenoiser> make_cuda_denoiser(const DenoiseSettings& settings) {
  validate(settings);
  return std::make_unique<CudaDenoiser>(settings);
}

}  // namespace cdn
