// noise_tracker.cpp: per-component noise level of a stream, frame by frame (noise_tracker.h).
#include "cudadenoise/noise_tracker.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <utility>

#include "core/background_worker.h"
#include "cudadenoise/error.h"
#include "noise/noise_device_samples.h"
#include "noise/noise_sample_plan.h"

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
  need(s.model_time_constant >= 1, "model_time_constant must be >= 1 update");
  need(s.flat_ratio >= 0, "flat_ratio must be >= 0");
  need(s.interval >= 1, "interval must be >= 1 frame");
}

std::vector<double> in_code_values(const std::vector<double>& sigma, PixelFormat format) {
  std::vector<double> out(sigma);
  const double scale = std::ldexp(1.0, format_info(format).bit_depth - 8);
  for (double& s : out) s *= scale;
  return out;
}

// Background: the frames staged and not yet handed over, oldest first (at most
// two, in observe(); one between calls). A host frame's sampled rows are in
// host[its buffer]; a device frame's are taken from device_ when handed over.
// Two host buffers: observe() stages a frame only after the estimate in
// flight has been folded in, so the one buffer in use is that of the frame
// staged and not yet handed over, and the other is free.
struct NoiseTracker::Staging {
  struct Frame {
    bool device = false;
    StagedComponents host;  // a host frame's samples
  };
  std::deque<Frame> frames;
  std::vector<unsigned char> host[2];
  int next_host = 0;  // the buffer the next host frame is staged into
};

NoiseTracker::NoiseTracker(const NoiseTrackerSettings& settings) : settings_(settings) { validate(settings_); }

// The estimate in flight reads the staging buffers: it ends before they go.
NoiseTracker::~NoiseTracker() {
  if (worker_) worker_->discard();
}

void NoiseTracker::reset() {
  if (worker_) worker_->discard();  // it reads the staging buffers; its result is dropped
  handed_.clear();
  if (staging_) staging_->frames.clear();
  // A copy in flight keeps its staging buffer: device_ (and its buffers) stay.
  while (device_ && device_->pending() > 0) device_->take();
  held_.clear();
  started_ = false;
  components_.clear();
  reported_.clear();
  last_.clear();
  last_models_.clear();
  last_model_levels_.clear();
  frames_ = usable_frames_ = folded_ = 0;
}

bool NoiseTracker::same_stream(const FrameView& f) const {
  return started_ && f.format == format_ && f.width == width_ && f.height == height_;
}

void NoiseTracker::start(const FrameView& f) {
  const int n = format_info(f.format).components;
  if (same_stream(f)) return;
  reset();
  format_ = f.format;
  width_ = f.width;
  height_ = f.height;
  components_ = std::vector<Component>(n);
  estimators_ = std::vector<NoiseLevelEstimator>(n);
  if (settings_.model)
    for (Component& c : components_) c.levels.resize(kNoiseModelLevels);
  last_.assign(n, NoiseLevel{});
  last_models_.assign(n, {});
  last_model_levels_.assign(n, {});
  started_ = true;
}

void NoiseTracker::observe(const FrameView& frame, void* stream) {
  validate_frame(frame);
  const bool again = !same_stream(frame);
  // Background, at a frame that is estimated: the estimate in flight first
  // (frame t - 2's with interval 1; what it threw surfaces here, before frame t
  // changes anything), so that the next one starts from the value through it
  // and the staging buffer it used is free again.
  if (again || estimated(frames_)) collect();
  start(frame);
  const std::uint64_t phase = static_cast<std::uint64_t>(frames_);
  const bool first = frames_ == 0;
  if (!estimated(frames_++)) {
    // Not estimated: the foreground folds the last estimated frame in; the
    // background hands it to the worker, which has until the next estimated
    // frame (interval - 1 frames) to finish it.
    if (!settings_.background) {
      flush();
    } else if (staging_ && !staging_->frames.empty()) {
      collect();  // an estimate in flight only when the interval grew mid-stream (set_interval)
      hand_over();
    }
    return;
  }
  const std::vector<PlaneView> comps = components(frame);
  std::vector<PatchSampling> samplings;
  for (std::size_t c = 0; c < comps.size(); ++c) samplings.push_back(sampling(comps, c, phase));
  if (!settings_.background || first) {
    observe_foreground(frame, samplings, stream, first);
    return;
  }
  // Frame t staged (a device frame: its copy enqueued), then frame t - 1
  // handed to the worker, to be estimated while the caller processes frame t.
  if (!staging_) staging_ = std::make_unique<Staging>();
  Staging::Frame staged;
  if (frame.memory == MemoryKind::Host) {
    staged.host = stage_host_samples(frame, samplings, staging_->host[staging_->next_host]);
    staging_->next_host ^= 1;
  } else {
    if (!device_) device_ = DeviceSamples::create();
    device_->enqueue(frame, samplings, stream);
    staged.device = true;
  }
  staging_->frames.push_back(std::move(staged));
  if (staging_->frames.size() > 1) hand_over();
}

void NoiseTracker::observe_foreground(const FrameView& frame, const std::vector<PatchSampling>& samplings,
                                      void* stream, bool first) {
  if (frame.memory == MemoryKind::Host) {
    // Frame t - 1 first (its estimate started from the value through t - 2),
    // then frame t's estimate, started from the value through t - 1 and held
    // until the next observe() or flush(): what the device path computes.
    flush();
    held_ = estimate_now(components(frame), samplings);
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

void NoiseTracker::set_interval(int interval) {
  NoiseTrackerSettings s = settings_;
  s.interval = interval;
  validate(s);
  settings_ = s;
}

bool NoiseTracker::estimated(std::int64_t index) const { return index % settings_.interval == 0; }

double NoiseTracker::estimate_time_constant() const {
  // Each estimate stands for `interval` frames.
  return std::max(1.0, static_cast<double>(settings_.time_constant) / settings_.interval);
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
  collect();
  while (staging_ && !staging_->frames.empty()) estimate_staged_now();
  fold_held();
  while (device_ && device_->pending() > 0) take_staged();
}

void NoiseTracker::collect() {
  if (!worker_ || !worker_->busy()) return;
  worker_->wait();  // rethrows what the estimate threw: that frame is not folded in
  fold(handed_);
}

void NoiseTracker::hand_over() {
  Staging::Frame f = std::move(staging_->frames.front());
  staging_->frames.pop_front();
  // A device frame's samples stay valid until the next enqueue(): observe()
  // enqueues only after collect() has waited for this estimate.
  const StagedComponents samples = f.device ? device_->take() : std::move(f.host);
  if (!worker_) worker_ = std::make_unique<BackgroundWorker>("cdn-noise");
  handed_.assign(components_.size(), Estimate{});
  // The worker gets a copy of the tracked state the estimates start from and
  // writes only handed_ and the estimators, which the caller leaves alone
  // until collect() has waited for it.
  worker_->run([this, from = components_, samples] {
    for (std::size_t c = 0; c < from.size(); ++c)
      handed_[c] = estimate(settings_, from[c], estimators_[c], samples.planes[c], samples.sampling[c]);
  });
}

// Background, flush(): the staged frame estimated on the caller's thread (no
// estimate in flight), as the worker would.
void NoiseTracker::estimate_staged_now() {
  Staging::Frame f = std::move(staging_->frames.front());
  staging_->frames.pop_front();
  const StagedComponents samples = f.device ? device_->take() : std::move(f.host);
  fold(estimate_now(samples.planes, samples.sampling));
}

std::vector<NoiseTracker::Estimate> NoiseTracker::estimate_now(const std::vector<PlaneView>& planes,
                                                               const std::vector<PatchSampling>& sampling) {
  std::vector<Estimate> estimates(components_.size());
  for (std::size_t c = 0; c < components_.size(); ++c)
    estimates[c] = estimate(settings_, components_[c], estimators_[c], planes[c], sampling[c]);
  return estimates;
}

void NoiseTracker::fold_held() {
  if (held_.empty()) return;
  const std::vector<Estimate> estimates = std::move(held_);
  held_.clear();
  fold(estimates);
}

void NoiseTracker::take_staged() {
  const StagedComponents st = device_->take();
  fold(estimate_now(st.planes, st.sampling));
}

NoiseTracker::Estimate NoiseTracker::estimate(const NoiseTrackerSettings& settings, const Component& k,
                                              NoiseLevelEstimator& estimator, const PlaneView& plane,
                                              const PatchSampling& sampling) {
  NoiseLevelOptions o;
  o.max_selected = settings.max_selected;
  if (k.sigma.known) o.start_sigma = std::exp(k.sigma.log_value);  // rounds start at the tracked value
  Estimate e;
  e.sigma = estimator.estimate(plane, sampling, o);
  if (k.levels.empty()) return e;
  // Level sets on the same candidates: as estimate_noise_model() does for
  // each level, starting from the level's tracked sigma once it has one.
  e.model_levels = next_levels(settings, k, estimator);
  for (const int level : e.model_levels) {
    const Level& l = k.levels[level];
    NoiseLevelOptions lo = noise_model_level_options(level, settings.max_selected);
    if (l.sigma.known && !l.replace) lo.start_sigma = std::exp(l.sigma.log_value);
    e.models.push_back(estimator.estimate_again(lo));
  }
  return e;
}

// Of the level sets with enough candidates in this frame: every one still
// warming up (estimated fewer than model_time_constant times since it
// (re)started); when none is, the one estimated longest ago (the lowest first
// among equals). Reads only what fold() changes (in `from`: the state the
// frame's estimate starts from), so host and device frames, foreground and
// background, choose alike.
std::vector<int> NoiseTracker::next_levels(const NoiseTrackerSettings& settings, const Component& from,
                                           const NoiseLevelEstimator& estimator) {
  const double width = 256.0 / kNoiseModelLevels;
  std::vector<int> warming;
  int oldest = -1;
  for (int k = 0; k < kNoiseModelLevels; ++k) {
    if (estimator.candidates_between(k * width, (k + 1) * width) < kNoiseModelMinSelected) continue;
    if (from.levels[k].estimates < settings.model_time_constant) warming.push_back(k);
    if (oldest < 0 || from.levels[k].visited < from.levels[oldest].visited) oldest = k;
  }
  if (!warming.empty() || oldest < 0) return warming;
  return {oldest};
}

void NoiseTracker::fold(const std::vector<Estimate>& estimates) {
  for (std::size_t c = 0; c < components_.size(); ++c) {
    update(components_[c], estimates[c]);
    last_[c] = estimates[c].sigma;
    last_models_[c] = estimates[c].models;
    last_model_levels_[c] = estimates[c].model_levels;
  }
  ++folded_;
  if (last_[0].usable) ++usable_frames_;
}

NoiseTracker::Tracked::Move NoiseTracker::Tracked::update(double x, double time_constant, double log_step_ratio,
                                                          int step_frames) {
  if (!known) {
    known = true;
    log_value = x;
    pending = 0;
    return Taken;
  }
  const double d = x - log_value;
  if (std::fabs(d) > log_step_ratio) {
    const int side = d > 0 ? 1 : -1;
    if (pending == 0 || side != pending_side) {
      pending = 0;
      pending_log_sum = 0;
      pending_side = side;
    }
    ++pending;
    pending_log_sum += x;
    if (pending >= step_frames) {  // a step: take the new level
      log_value = pending_log_sum / pending;
      pending = 0;
      return Taken;
    }
    return Kept;
  }
  pending = 0;
  log_value += d / time_constant;
  return Averaged;
}

void NoiseTracker::update(Component& c, const Estimate& e) {
  // step_frames frames in a row whose level updates are off on one side (of
  // any levels, none averaged in): a step of the model. Each level off takes
  // its value off; the others their next estimate; all warm up again. A frame
  // counts once however many levels it updated (the warm-up updates several).
  bool averaged = false, off = false;
  int off_side = 0;
  for (std::size_t i = 0; i < e.model_levels.size(); ++i) {
    Level& l = c.levels[e.model_levels[i]];
    l.visited = folded_;
    const Tracked::Move m = update_level(l, e.models[i]);
    if (m == Tracked::Averaged) {
      averaged = true;
    } else if (m == Tracked::Kept && l.sigma.pending > 0) {
      if (off && l.sigma.pending_side != off_side) averaged = true;  // off both ways: no step
      off = true;
      off_side = l.sigma.pending_side;
    }
  }
  if (averaged) {
    c.levels_off = 0;
  } else if (off) {
    if (c.levels_off == 0 || off_side != c.levels_off_side) c.levels_off = 0;
    c.levels_off_side = off_side;
    if (++c.levels_off >= settings_.step_frames) {
      for (Level& o : c.levels) {
        if (o.sigma.pending > 0 && o.sigma.pending_side == c.levels_off_side) {
          o.sigma.log_value = o.sigma.pending_log_sum / o.sigma.pending;
          o.sigma.pending = 0;
          o.mean = o.pending_mean;
          o.selected = o.pending_selected;
          o.replace = false;
          o.averaged = 1;
        } else {
          o.replace = o.sigma.known;
        }
        o.estimates = 0;
      }
      c.step_fold = folded_;
      c.levels_off = 0;
    }
  }
  if (!e.sigma.usable) return;  // no information: keep what is known
  // Below the floor everything is "clean": track the floor, so that leaving
  // it (noise appears) is measured from there.
  const double x = std::log(std::max(e.sigma.sigma, settings_.floor));
  const bool was_known = c.sigma.known;
  const Tracked::Move m =
      c.sigma.update(x, estimate_time_constant(), std::log(settings_.step_ratio), settings_.step_frames);
  if (m == Tracked::Taken && was_known) {  // a step of the noise: every level takes its next estimate as it is
    for (Level& l : c.levels) {
      l.replace = l.sigma.known;
      l.estimates = 0;  // and warms up again
    }
    c.step_fold = folded_;
  }
  // A level not measured again within kNoiseModelLevels frames of a step (not
  // populated, or no usable estimate) holds noise that is gone: it is dropped.
  if (folded_ - c.step_fold >= kNoiseModelLevels)
    for (Level& l : c.levels)
      if (l.replace) l = forgotten(l);
}

// A level that knows nothing (when it was last estimated stays).
NoiseTracker::Level NoiseTracker::forgotten(const Level& l) {
  Level f;
  f.visited = l.visited;
  return f;
}

NoiseTracker::Tracked::Move NoiseTracker::update_level(Level& l, const NoiseLevel& e) {
  ++l.estimates;
  const NoiseModelLevel m = noise_model_level(e);
  if (!m.usable()) {
    if (l.replace) l = forgotten(l);  // after a step: no value rather than the old one
    return Tracked::Kept;
  }
  const double x = std::log(std::max(std::sqrt(m.variance), settings_.floor));
  if (l.replace) l.sigma = Tracked{};
  l.replace = false;
  // The running mean of the first model_time_constant values, then the moving average.
  const int n = std::min(l.averaged + 1, settings_.model_time_constant);
  const Tracked::Move move = l.sigma.update(x, n, std::log(settings_.step_ratio), settings_.step_frames);
  switch (move) {
    case Tracked::Taken:
      l.mean = e.mean;
      l.selected = e.selected;
      l.averaged = 1;
      break;
    case Tracked::Averaged:
      l.mean += (e.mean - l.mean) / n;
      l.selected += (e.selected - l.selected) / n;
      ++l.averaged;
      break;
    case Tracked::Kept:  // off: held until a step takes it
      l.pending_mean = e.mean;
      l.pending_selected = e.selected;
      break;
  }
  return move;
}

double NoiseTracker::value(const Component& c) const {
  if (!c.sigma.known) return settings_.default_sigma;
  return std::max(settings_.floor, std::exp(c.sigma.log_value));
}

std::vector<NoiseModel> NoiseTracker::model() const {
  std::vector<NoiseModel> out;
  if (!started_) return out;
  for (const Component& c : components_) {
    NoiseModel m;
    m.levels.resize(kNoiseModelLevels);
    for (std::size_t k = 0; k < c.levels.size(); ++k) {
      const Level& l = c.levels[k];
      if (l.sigma.known)
        m.levels[k] = {l.mean, std::exp(2 * l.sigma.log_value), std::max(1, static_cast<int>(std::lround(l.selected)))};
    }
    fit_noise_model(&m);
    if (!m.usable) {  // the constant model of sigma()
      const double s = value(c);
      m.a = 0;
      m.b = s * s;
    } else if (m.a > 0) {
      // The flat rule: variance that grows by less than flat_ratio over the
      // levels' span is taken as constant, the weighted mean (AWGN is a = 0).
      double lo = 256, hi = 0;
      for (const NoiseModelLevel& l : m.levels)
        if (l.usable()) {
          lo = std::min(lo, l.mean);
          hi = std::max(hi, l.mean);
        }
      if (m.a * hi + m.b < (1 + settings_.flat_ratio) * (m.a * lo + m.b)) fit_noise_model(&m, false);
    }
    out.push_back(std::move(m));
  }
  return out;
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
    if (!c.sigma.known) return false;
  return true;
}

bool NoiseTracker::changed() {
  bool any = false;
  for (const Component& c : components_) any = any || c.sigma.known;
  if (!any) return false;  // still the defaults: nothing measured to report
  const std::vector<double> now = sigma();
  bool moved = reported_.size() != now.size();
  for (std::size_t c = 0; !moved && c < now.size(); ++c)
    moved = std::fabs(std::log(now[c] / reported_[c])) > std::log(settings_.change_ratio);
  if (moved) reported_ = now;
  return moved;
}

}  // namespace cdn
