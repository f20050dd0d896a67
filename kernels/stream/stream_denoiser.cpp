// stream_denoiser.cpp: the front door (stream_denoiser.h): which stream runs
// (DirectStream for a per-frame mode's window {0, 0}, TemporalStream for a
// window of frames: frame_stream.h), when new settings make a new one, the
// noise level of every frame (and with a signal-dependent model, the
// stabilising stage around the filter: noise_stage.h) and the frames' tags.
#include "cudadenoise/stream_denoiser.h"

#include <algorithm>
#include <cmath>

#include "cudadenoise/error.h"
#include "cudadenoise/noise_profile.h"
#include "cudadenoise/noise_tracker.h"
#include "noise/stabilizing_tables.h"
#include "stream/direct_stream.h"
#include "stream/frame_stream.h"
#include "stream/noise_stage.h"
#include "temporal/temporal_stream.h"

namespace cdn {

namespace {

// The stream's tracker: the background schedule (noise_tracker.h), so that
// the estimate of frame t - 1 runs on the tracker's thread while this one
// filters frame t, not on the caller's streaming thread before it.
NoiseTrackerSettings tracker_settings(bool model) {
  NoiseTrackerSettings ts;
  ts.model = model;
  ts.background = true;
  return ts;
}

// A noise profile must have a model for every component of the frames.
void check_profile(const DenoiseSettings& s, PixelFormat format) {
  const int n = format_info(format).components;
  if (s.noise_profile && static_cast<int>(s.noise_profile->planes.size()) != n)
    throw InvalidArgument("the noise profile has " + std::to_string(s.noise_profile->planes.size()) + " planes, " +
                          format_name(format) + " frames " + std::to_string(n));
}

}  // namespace

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

namespace {

// Whether two lists of models give sigmas within `ratio` of each other at every
// intensity (tables made from one serve the other).
bool models_close(NoiseModelKind kind, const std::vector<NoiseModel>& x, const std::vector<NoiseModel>& y,
                  double ratio) {
  if (x.size() != y.size()) return false;
  for (std::size_t c = 0; c < x.size(); ++c)
    for (int v = 0; v <= 256; v += 16) {
      const double at = std::min(v, 255);
      const double p = kind == NoiseModelKind::Curve ? x[c].sigma_curve(at) : x[c].sigma_affine(at);
      const double q = kind == NoiseModelKind::Curve ? y[c].sigma_curve(at) : y[c].sigma_affine(at);
      if (std::fabs(p - q) > ratio * std::max(p, q)) return false;
    }
  return true;
}

constexpr double kTablesRatio = 0.01;  // new tables when the model moves by more at some intensity
constexpr double kReportRatio = 0.05;  // noise_changed(), as NoiseTracker::changed()

// The constant model of sigma: a = 0, b = sigma^2, and (for a curve) one level at that sigma.
NoiseModel constant_model(double sigma) {
  NoiseModel m;
  m.b = sigma * sigma;
  m.levels = {{128.0, m.b, 1}};
  m.usable = true;
  return m;
}

}  // namespace

bool StreamDenoiser::estimates_model() const {
  return uses_sigma(settings_.mode) && settings_.noise_model != NoiseModelKind::Constant && !settings_.noise_profile &&
         settings_.noise_a < 0;
}

std::int64_t StreamDenoiser::noise_frames() const { return tracker_ ? tracker_->folded() : 0; }

std::vector<double> StreamDenoiser::noise_sigma() const {
  if (!uses_sigma(settings_.mode)) return {};
  if (settings_.noise_model != NoiseModelKind::Constant) {
    // The model's sigma at mid-grey.
    std::vector<double> out;
    for (const NoiseModel& m : noise_models())
      out.push_back(settings_.noise_model == NoiseModelKind::Curve ? m.sigma_curve(128) : m.sigma_affine(128));
    return out;
  }
  if (settings_.sigma > 0) return std::vector<double>(format_info(format_).components, settings_.sigma);
  if (tracker_ && tracker_->frames() > 0) return tracker_->sigma();
  return std::vector<double>(format_info(format_).components, NoiseTrackerSettings{}.default_sigma);
}

bool StreamDenoiser::noise_estimated() const {
  if (!uses_sigma(settings_.mode)) return false;
  const bool estimated = settings_.noise_model == NoiseModelKind::Constant ? settings_.sigma == 0 : estimates_model();
  return estimated && tracker_ && tracker_->known();
}

bool StreamDenoiser::noise_changed() {
  if (!uses_sigma(settings_.mode)) return false;
  if (settings_.noise_model == NoiseModelKind::Constant)
    return settings_.sigma == 0 && tracker_ && tracker_->changed();
  // The model the frames are filtered with: once known, then on moves of 5 %.
  if (tables_models_.empty() || (estimates_model() && !(tracker_ && tracker_->known()))) return false;
  if (!reported_models_.empty() && models_close(settings_.noise_model, tables_models_, reported_models_, kReportRatio))
    return false;
  reported_models_ = tables_models_;
  return true;
}

std::vector<NoiseModel> StreamDenoiser::noise_models() const {
  if (!uses_sigma(settings_.mode) || settings_.noise_model == NoiseModelKind::Constant) return {};
  if (tables_) return tables_models_;
  return current_models();
}

std::vector<NoiseModel> StreamDenoiser::current_models() const {
  const int n = format_info(format_).components;
  if (settings_.noise_profile) {
    check_profile(settings_, format_);
    return settings_.noise_profile->planes;
  }
  if (settings_.noise_a >= 0) {
    NoiseModel given;
    given.a = settings_.noise_a;
    given.b = settings_.noise_b;
    given.usable = true;
    return std::vector<NoiseModel>(n, given);
  }
  // Estimated: the tracker's; a flat or not yet fitted component is the
  // constant model of the tracker's sigma (so white noise gives the constant
  // model's bytes).
  std::vector<NoiseModel> models;
  if (tracker_ && tracker_->frames() > 0) {
    models = tracker_->model();
    const std::vector<double> sigma = tracker_->sigma();
    for (std::size_t c = 0; c < models.size(); ++c)
      if (!models[c].usable || models[c].a == 0) models[c] = constant_model(sigma[c]);
  } else {
    models.assign(n, constant_model(NoiseTrackerSettings{}.default_sigma));
  }
  return models;
}

void StreamDenoiser::track_noise(const FrameView& in, void* stream, bool model) {
  // A model's tracker serves for sigma too (the same sigma()); one without the
  // model is replaced when the model is asked for.
  if (!tracker_ || (model && !tracker_models_)) {
    tracker_ = std::make_unique<NoiseTracker>(tracker_settings(model));
    tracker_models_ = model;
  }
  tracker_->set_interval(settings_.noise_interval);
  tracker_->observe(in, stream);
}

void StreamDenoiser::observe_noise(const FrameView& in, void* stream) {
  if (!uses_sigma(settings_.mode)) return;
  std::vector<double> sigma;
  if (settings_.noise_model == NoiseModelKind::Constant) {
    tables_.reset();
    if (settings_.sigma == 0) {
      track_noise(in, stream, false);
    }
    sigma = noise_sigma();
  } else {
    if (estimates_model()) track_noise(in, stream, true);
    const std::vector<NoiseModel> models = current_models();
    if (!tables_ || !models_close(settings_.noise_model, models, tables_models_, kTablesRatio)) {
      tables_ = std::make_shared<const StabilizingTables>(format_, settings_.noise_model, models,
                                                         filtered_components(format_, settings_.planes));
      tables_models_ = models;
    }
    sigma = tables_->sigma();
    // What the tables leave as it is (a flat model: white noise) is filtered at
    // its current sigma, as with the constant model: the same bytes.
    for (std::size_t c = 0; c < sigma.size(); ++c)
      if (tables_->components()[c].identity)
        sigma[c] = settings_.noise_model == NoiseModelKind::Curve ? models[c].sigma_curve(128)
                                                                  : models[c].sigma_affine(0);
  }
  for (double& v : sigma) v *= settings_.strength;
  impl().set_noise(sigma);
}

bool StreamDenoiser::stabilizing() const { return tables_ && !tables_->identity(); }

NoiseStage& StreamDenoiser::stage() {
  if (!stage_) stage_ = std::make_unique<NoiseStage>(format_, width_, height_);
  return *stage_;
}

void* StreamDenoiser::stage_stream(const FrameView& a, const FrameView& b, void* stream) {
  if (a.memory == MemoryKind::Device || b.memory == MemoryKind::Device) return stage().stream_for(stream);
  return stream;
}

std::unique_ptr<StreamDenoiser> StreamDenoiser::create(Backend backend, const DenoiseSettings& settings,
                                                       PixelFormat format, int width, int height,
                                                       const std::vector<int>& cuda_devices) {
  validate(settings);
  check_profile(settings, format);
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
  std::unique_ptr<StreamDenoiser> d(new StreamDenoiser(resolve_backend(backend), format, width, height, cuda_devices));
  d->build(settings);
  return d;
}

void StreamDenoiser::build(const DenoiseSettings& settings) {
  // The old stream goes first: its frames (device memory) are not needed any more.
  impl_.reset();
  per_frame_ = nullptr;
  held_.clear();
  tables_.reset();
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
  check_profile(s, format_);
  if (!restarts_stream(settings_, s)) {
    // From the next frame (a temporal stream ignores parameters of other modes).
    if (per_frame_) per_frame_->set_settings(runnable(s));
    settings_ = s;
    tables_.reset();  // the model or the planes may differ: the next frame makes its tables
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
  held_.clear();
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
  if (!stabilizing()) return per_frame_->process(in, out, stream);
  void* s = stage_stream(in, out, stream);
  const auto tables = tables_;
  per_frame_->process(stage().forward(*tables, in, s), stage().filtered(out.memory, s), s);
  stage().inverse(*tables, out, s);
  if (out.memory == MemoryKind::Device) NoiseStage::wait(s);
}

void StreamDenoiser::enqueue(const FrameView& in, const FrameView& out, void* stream) {
  start_pending();
  if (!per_frame_)
    throw InvalidArgument(std::string("mode ") + mode_name(settings_.mode) + " filters a window: push() and pop()");
  check_geometry(in);
  if (impl_->held() > 0) throw InvalidArgument("enqueue() while pushed frames wait: pop() them first");
  observe_noise(in, stream);
  if (!stabilizing()) return per_frame_->enqueue(in, out, stream);
  void* s = stage_stream(in, out, stream);
  const auto tables = tables_;
  per_frame_->enqueue(stage().forward(*tables, in, s), stage().filtered(out.memory, s), s);
  stage().inverse(*tables, out, s);
  if (in.memory != MemoryKind::Device || out.memory != MemoryKind::Device) NoiseStage::wait(s);
}

void StreamDenoiser::push(const FrameView& in, void* stream, FrameTag tag) {
  if (finished_) {
    if (impl().held() > 0) throw InvalidArgument("push() after finish(): pop() every frame first, or reset()");
    start_over();
  }
  check_geometry(in);
  start_pending();
  observe_noise(in, stream);
  if (stabilizing()) {
    void* s = stage_stream(in, in, stream);
    impl().push(stage().forward(*tables_, in, s), s);
    held_.push_back({std::move(tag), tables_});
  } else {
    impl().push(in, stream);
    held_.push_back({std::move(tag), nullptr});
  }
  in_stream_ = !per_frame_;
}

bool StreamDenoiser::pop(const FrameView& out, void* stream, FrameTag* tag) {
  const std::shared_ptr<const StabilizingTables> tables = held_.empty() ? nullptr : held_.front().tables;
  if (tables) {
    void* s = stage_stream(out, out, stream);
    if (!impl().pop(stage().filtered(out.memory, s), s)) return false;
    stage().inverse(*tables, out, s);
    if (out.memory == MemoryKind::Device) NoiseStage::wait(s);
  } else if (!impl().pop(out, stream)) {
    return false;
  }
  if (held_.empty()) throw Error("stream: a frame came out that was never pushed");
  if (tag) *tag = std::move(held_.front().tag);
  held_.pop_front();
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
