// stream_denoiser.cpp: the front door (stream_denoiser.h): which stream runs
// (DirectStream for a per-frame mode's window {0, 0}, TemporalStream for a
// window of frames: frame_stream.h), when new settings make a new one, the
// noise level of every frame and the frames' tags.
#include "cudadenoise/stream_denoiser.h"

#include <algorithm>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_tracker.h"
#include "stream/direct_stream.h"
#include "stream/frame_stream.h"
#include "temporal/temporal_stream.h"

namespace cdn {

StreamDenoiser::StreamDenoiser(Backend backend, PixelFormat format, int width, int height,
                               std::vector<int> cuda_devices)
    : backend_(backend), format_(format), width_(width), height_(height), devices_(std::move(cuda_devices)) {}

StreamDenoiser::~StreamDenoiser() = default;

DenoiseSettings StreamDenoiser::runnable(const DenoiseSettings& s) const {
  DenoiseSettings r = s;
  r.window = resolve_window(s, live_);
  return r;
}

TemporalWindow StreamDenoiser::window() const {
  return is_temporal(settings_.mode) ? resolve_window(settings_, live_) : TemporalWindow::Centred;
}

void StreamDenoiser::set_live_source(bool live) {
  if (live == live_) return;
  const DenoiseSettings target = has_pending_ ? pending_ : settings_;
  const bool temporal = is_temporal(target.mode);
  const TemporalWindow before = temporal ? resolve_window(target, live_) : TemporalWindow::Centred;
  live_ = live;
  if (!temporal || resolve_window(target, live_) == before) return;
  // The window changes: like new settings, at once when idle, else at the next stream start.
  if (idle()) {
    build(target);
  } else {
    pending_ = target;
    has_pending_ = true;
  }
}

std::vector<double> StreamDenoiser::noise_sigma() const {
  if (!uses_sigma(settings_.mode)) return {};
  if (settings_.sigma > 0) return std::vector<double>(format_info(format_).components, settings_.sigma);
  if (tracker_ && tracker_->frames() > 0) return tracker_->sigma();
  return std::vector<double>(format_info(format_).components, NoiseTrackerSettings{}.default_sigma);
}

bool StreamDenoiser::noise_estimated() const {
  return uses_sigma(settings_.mode) && settings_.sigma == 0 && tracker_ && tracker_->known();
}

bool StreamDenoiser::noise_changed() {
  return uses_sigma(settings_.mode) && settings_.sigma == 0 && tracker_ && tracker_->changed();
}

void StreamDenoiser::observe_noise(const FrameView& in, void* stream) {
  if (!uses_sigma(settings_.mode)) return;
  if (settings_.sigma == 0) {
    if (!tracker_) tracker_ = std::make_unique<NoiseTracker>();
    tracker_->observe(in, stream);
  }
  std::vector<double> sigma = noise_sigma();
  for (double& v : sigma) v *= settings_.strength;
  impl().set_noise(sigma);
}

std::unique_ptr<StreamDenoiser> StreamDenoiser::create(Backend backend, const DenoiseSettings& settings,
                                                       PixelFormat format, int width, int height,
                                                       const std::vector<int>& cuda_devices) {
  validate(settings);
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
  std::unique_ptr<StreamDenoiser> d(new StreamDenoiser(resolve_backend(backend), format, width, height, cuda_devices));
  d->build(settings);
  return d;
}

void StreamDenoiser::build(const DenoiseSettings& settings) {
  // The old stream goes first: its frames (device memory) are not needed any more.
  impl_.reset();
  per_frame_ = nullptr;
  tags_.clear();
  const DenoiseSettings s = runnable(settings);
  if (is_temporal(s.mode)) {
    if (backend_ == Backend::Cpu) {
      impl_ = make_cpu_temporal_stream(s, format_, width_, height_);
    } else {
#ifdef CDN_HAVE_CUDA
      impl_ = make_cuda_temporal_stream(s, format_, width_, height_, devices_);
#endif
    }
  } else {
    std::unique_ptr<DirectStream> stream;
    if (backend_ == Backend::Cpu) {
      stream = make_cpu_direct_stream(s, format_, width_, height_);
    } else {
#ifdef CDN_HAVE_CUDA
      stream = make_cuda_direct_stream(s, format_, width_, height_);
#endif
    }
    per_frame_ = stream.get();
    impl_ = std::move(stream);
  }
  if (!impl_) throw Error("no stream for this backend in this build");
  impl_->set_cancel_flag(cancel_);
  settings_ = settings;
  has_pending_ = false;
  in_stream_ = finished_ = false;
}

FrameStream& StreamDenoiser::impl() const {
  if (!impl_) throw Error("the denoiser failed to make its stream for new settings; make a new one");
  return *impl_;
}

Backend StreamDenoiser::backend() const { return backend_; }

void StreamDenoiser::set_settings(const DenoiseSettings& s) {
  validate(s);
  if (!restarts_stream(settings_, s)) {
    // From the next frame (a temporal stream ignores parameters of other modes).
    if (per_frame_) per_frame_->set_settings(runnable(s));
    settings_ = s;
    has_pending_ = false;
  } else if (idle()) {
    build(s);
  } else {
    pending_ = s;
    has_pending_ = true;
  }
}

void StreamDenoiser::start_over() {
  impl().reset();
  tags_.clear();
  in_stream_ = finished_ = false;
}

int StreamDenoiser::latency_frames_for(const DenoiseSettings& s, int cuda_devices, bool live_source) {
  if (!is_temporal(s.mode)) return 0;
  DenoiseSettings r = s;
  r.window = resolve_window(s, live_source);
  return TemporalStream::latency_for(r, std::max(1, cuda_devices));
}

int StreamDenoiser::latency_frames() const {
  const int devices = static_cast<int>(devices_.size());
  const int next = has_pending_ ? latency_frames_for(pending_, devices, live_) : 0;
  if (idle() && has_pending_) return next;
  return std::max(impl().latency_frames(), next);
}

bool StreamDenoiser::per_frame() const {
  if (has_pending_ && idle()) return !is_temporal(pending_.mode);
  return per_frame_ != nullptr;
}

bool StreamDenoiser::may_drop_frames() const { return per_frame() && !(has_pending_ && is_temporal(pending_.mode)); }

void StreamDenoiser::start_pending() {
  if (has_pending_ && idle()) build(pending_);
}

void StreamDenoiser::check_geometry(const FrameView& f) const {
  if (f.format != format_ || f.width != width_ || f.height != height_)
    throw InvalidArgument(std::string("frame is ") + format_name(f.format) + " " + std::to_string(f.width) + "x" +
                          std::to_string(f.height) + ", the stream " + format_name(format_) + " " +
                          std::to_string(width_) + "x" + std::to_string(height_));
}

void StreamDenoiser::process(const FrameView& in, const FrameView& out, void* stream) {
  start_pending();
  if (!per_frame_)
    throw InvalidArgument(std::string("mode ") + mode_name(settings_.mode) + " filters a window: push() and pop()");
  check_geometry(in);
  if (impl_->held() > 0) throw InvalidArgument("process() while pushed frames wait: pop() them first");
  observe_noise(in, stream);
  per_frame_->process(in, out, stream);
}

void StreamDenoiser::enqueue(const FrameView& in, const FrameView& out, void* stream) {
  start_pending();
  if (!per_frame_)
    throw InvalidArgument(std::string("mode ") + mode_name(settings_.mode) + " filters a window: push() and pop()");
  check_geometry(in);
  if (impl_->held() > 0) throw InvalidArgument("enqueue() while pushed frames wait: pop() them first");
  observe_noise(in, stream);
  per_frame_->enqueue(in, out, stream);
}

void StreamDenoiser::push(const FrameView& in, void* stream, FrameTag tag) {
  if (finished_) {
    if (impl().held() > 0) throw InvalidArgument("push() after finish(): pop() every frame first, or reset()");
    start_over();
  }
  check_geometry(in);
  start_pending();
  observe_noise(in, stream);
  impl().push(in, stream);
  tags_.push_back(std::move(tag));
  in_stream_ = !per_frame_;
}

bool StreamDenoiser::pop(const FrameView& out, void* stream, FrameTag* tag) {
  if (!impl().pop(out, stream)) return false;
  if (tags_.empty()) throw Error("stream: a frame came out that was never pushed");
  if (tag) *tag = std::move(tags_.front());
  tags_.pop_front();
  if (finished_ && impl_->held() == 0) start_over();  // the last frame of the stream is out
  return true;
}

bool StreamDenoiser::ready() const { return impl().ready(); }
int StreamDenoiser::held() const { return impl().held(); }

void StreamDenoiser::finish() {
  impl().finish();
  finished_ = true;
  if (impl_->held() == 0) start_over();
}

void StreamDenoiser::reset() { start_over(); }

void StreamDenoiser::set_cancel_flag(const std::atomic<bool>* flag) {
  cancel_ = flag;
  if (impl_) impl_->set_cancel_flag(flag);
}

bool StreamDenoiser::idle() const { return !in_stream_ && impl().held() == 0; }

}  // namespace cdn
