// noise_tracker.cpp: per-component noise level of a stream, frame by frame (noise_tracker.h).
#include "cudadenoise/noise_tracker.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "cudadenoise/error.h"
#include "noise/noise_device_samples.h"

namespace cdn {

#ifndef CDN_HAVE_CUDA
std::unique_ptr<DeviceSamples> DeviceSamples::create() {
  throw Error("noise tracker: frames in device memory need a build with CUDA");
}
#endif

void validate(const NoiseTrackerSettings& s) {
  auto need = [](bool ok, const char* what) {
    if (!ok) throw InvalidArgument(std::string("noise tracker: ") + what);
  };
  need(s.time_constant >= 1, "time_constant must be >= 1 frame");
  need(s.step_ratio > 1, "step_ratio must be > 1");
  need(s.step_frames >= 1, "step_frames must be >= 1");
  need(s.floor > 0, "floor must be > 0");
  need(s.default_sigma >= s.floor, "default_sigma must be >= floor");
  need(s.change_ratio > 1, "change_ratio must be > 1");
  need(s.budget >= 1, "budget must be >= 1");
  need(s.max_selected >= kNoiseMinSelected, "max_selected must be >= 512");
}

std::vector<double> in_code_values(const std::vector<double>& sigma, PixelFormat format) {
  std::vector<double> out(sigma);
  const double scale = std::ldexp(1.0, format_info(format).bit_depth - 8);
  for (double& s : out) s *= scale;
  return out;
}

NoiseTracker::NoiseTracker(const NoiseTrackerSettings& settings) : settings_(settings) { validate(settings_); }

NoiseTracker::~NoiseTracker() = default;

void NoiseTracker::reset() {
  // A copy in flight keeps its staging buffer: device_ (and its buffers) stay.
  while (device_ && device_->pending() > 0) device_->take();
  held_.clear();
  started_ = false;
  components_.clear();
  reported_.clear();
  last_.clear();
  frames_ = usable_frames_ = 0;
}

void NoiseTracker::start(const FrameView& f) {
  const int n = format_info(f.format).components;
  if (started_ && f.format == format_ && f.width == width_ && f.height == height_) return;
  reset();
  format_ = f.format;
  width_ = f.width;
  height_ = f.height;
  components_ = std::vector<Component>(n);
  last_.assign(n, NoiseLevel{});
  started_ = true;
}

void NoiseTracker::observe(const FrameView& frame, void* stream) {
  validate_frame(frame);
  start(frame);
  const std::uint64_t phase = static_cast<std::uint64_t>(frames_);
  const bool first = frames_ == 0;
  ++frames_;
  const std::vector<PlaneView> comps = components(frame);
  std::vector<PatchSampling> samplings;
  for (std::size_t c = 0; c < comps.size(); ++c) samplings.push_back(sampling(comps, c, phase));
  if (frame.memory == MemoryKind::Host) {
    // Frame t - 1 first (its estimate started from the value through t - 2),
    // then frame t's estimate, started from the value through t - 1 and held
    // until the next observe() or flush(): what the device path computes.
    flush();
    std::vector<NoiseLevel> levels(comps.size());
    for (std::size_t c = 0; c < comps.size(); ++c) levels[c] = estimate(static_cast<int>(c), comps[c], samplings[c]);
    held_ = std::move(levels);
    if (first) flush();
    return;
  }
  if (!device_) device_ = DeviceSamples::create();
  // The copy of frame t goes first, so that it overlaps the estimate of frame
  // t - 1 (copied a frame ago); the first frame of a stream at once.
  device_->enqueue(frame, samplings, stream);
  fold_held();
  while (device_->pending() > (first ? 0 : 1)) take_staged();
}

int component_budget(int budget, const PlaneView& luma, const PlaneView& component) {
  constexpr int kMinChromaBudget = 4096;
  const double area = static_cast<double>(component.width) * component.height / (static_cast<double>(luma.width) * luma.height);
  if (area >= 1) return budget;
  return std::max(std::min(kMinChromaBudget, budget), static_cast<int>(budget * area));
}

PatchSampling NoiseTracker::sampling(const std::vector<PlaneView>& comps, std::size_t c, std::uint64_t phase) const {
  return patch_sampling(comps[c].width, comps[c].height, component_budget(settings_.budget, comps[0], comps[c]), phase);
}

void NoiseTracker::flush() {
  fold_held();
  while (device_ && device_->pending() > 0) take_staged();
}

void NoiseTracker::fold_held() {
  if (held_.empty()) return;
  const std::vector<NoiseLevel> levels = std::move(held_);
  held_.clear();
  fold(levels);
}

void NoiseTracker::take_staged() {
  const StagedComponents st = device_->take();
  std::vector<NoiseLevel> levels(components_.size());
  for (std::size_t c = 0; c < components_.size(); ++c)
    levels[c] = estimate(static_cast<int>(c), st.planes[c], st.sampling[c]);
  fold(levels);
}

NoiseLevel NoiseTracker::estimate(int c, const PlaneView& plane, const PatchSampling& sampling) {
  Component& k = components_[c];
  NoiseLevelOptions o;
  o.max_selected = settings_.max_selected;
  if (k.known) o.start_sigma = std::exp(k.log_sigma);  // rounds start at the tracked value
  return k.estimator.estimate(plane, sampling, o);
}

void NoiseTracker::fold(const std::vector<NoiseLevel>& levels) {
  for (std::size_t c = 0; c < components_.size(); ++c) update(components_[c], levels[c]);
  last_ = levels;
  if (last_[0].usable) ++usable_frames_;
}

void NoiseTracker::update(Component& c, const NoiseLevel& level) {
  if (!level.usable) return;  // no information: keep what is known
  // Below the floor everything is "clean": track the floor, so that leaving
  // it (noise appears) is measured from there.
  const double x = std::log(std::max(level.sigma, settings_.floor));
  if (!c.known) {
    c.known = true;
    c.log_sigma = x;
    c.pending = 0;
    return;
  }
  const double d = x - c.log_sigma;
  if (std::fabs(d) > std::log(settings_.step_ratio)) {
    const int side = d > 0 ? 1 : -1;
    if (c.pending == 0 || side != c.pending_side) {
      c.pending = 0;
      c.pending_log_sum = 0;
      c.pending_side = side;
    }
    ++c.pending;
    c.pending_log_sum += x;
    if (c.pending >= settings_.step_frames) {  // a step: take the new level
      c.log_sigma = c.pending_log_sum / c.pending;
      c.pending = 0;
    }
    return;
  }
  c.pending = 0;
  c.log_sigma += d / settings_.time_constant;
}

double NoiseTracker::value(const Component& c) const {
  if (!c.known) return settings_.default_sigma;
  return std::max(settings_.floor, std::exp(c.log_sigma));
}

std::vector<double> NoiseTracker::sigma() const {
  std::vector<double> out;
  if (!started_) return out;
  for (const Component& c : components_) out.push_back(value(c));
  return out;
}

std::vector<double> NoiseTracker::sigma_code_values() const { return in_code_values(sigma(), format_); }

bool NoiseTracker::known() const {
  if (!started_) return false;
  for (const Component& c : components_)
    if (!c.known) return false;
  return true;
}

bool NoiseTracker::changed() {
  bool any = false;
  for (const Component& c : components_) any = any || c.known;
  if (!any) return false;  // still the defaults: nothing measured to report
  const std::vector<double> now = sigma();
  bool moved = reported_.size() != now.size();
  for (std::size_t c = 0; !moved && c < now.size(); ++c)
    moved = std::fabs(std::log(now[c] / reported_[c])) > std::log(settings_.change_ratio);
  if (moved) reported_ = now;
  return moved;
}

}  // namespace cdn
