// noise_tracker.h: the noise level of a stream, per component, followed frame
// by frame: what `sigma = auto` means for a stream (docs/NOISE.md).
//
// Every observed frame gets a per-component estimate (noise_level.h, about
// `budget` patches per component, starting from the tracked value), which then
// moves the tracked value:
// - Smoothing: an exponential moving average of log(sigma) with time constant
//   `time_constant` frames (each usable frame moves log(sigma) by 1/N of the
//   way), so per-frame scatter (1-3 %) averages out and a sigma that drifts is
//   followed within a few N frames.
// - Steps: a frame whose estimate is off the tracked value by more than a
//   factor `step_ratio` is not averaged in; `step_frames` such frames in a row,
//   all on the same side, replace the tracked value by their geometric mean. So
//   a step of the noise (5 -> 30) is followed after `step_frames` frames, and a
//   single odd frame (a flash, a cut to heavy texture) does not move it.
// - Frames with no information do not move it: a component whose estimate is
//   not usable (a black, grey or flat frame, too few weak-texture patches) keeps
//   its tracked value. Before any usable frame, sigma() is `default_sigma`.
// - The floor: sigma() is never below `floor` (8-bit code values). A clean
//   source estimates near 0, and a denoiser given 0 averages everything
//   (NLM's weights all become 1); at the floor the modes keep the input
//   (PSNR >= 40 dB against it, tests/kernels/test_noise_auto_sigma.cpp).
//
// When a frame counts: the first frame of a stream at once (observe() returns
// with sigma() including it, so that it is denoised with its own estimate).
// Every later frame t's estimate starts from the value through frame t - 1 and
// is folded in later, on one of two schedules (settings.background):
// - Foreground (the tracker's default): one frame late. After observe(t),
//   sigma() is the value through frame t - 1; frame t's estimate is folded in
//   at the next observe() or flush(). The estimate runs on the caller's
//   thread: a host frame's in observe(t) itself (observe() may not keep the
//   frame; its estimate is held), a device frame's at the next observe(),
//   from its sampled rows (bands of 7 rows, about 1/6 of a 4K plane;
//   noise_sample_plan.h), copied to pinned host memory on the caller's stream
//   by observe(t), so that it waits only for a copy enqueued a frame ago
//   (device frames: CUDA builds only).
// - Background (what StreamDenoiser uses): two frames late, the estimate off
//   the caller's thread. observe(t) stages frame t's sampled rows (a device
//   frame: the copy above; a host frame: copied into a host staging buffer),
//   folds in frame t - 2's estimate (waiting for it if still running), and
//   hands frame t - 1's staged rows to the tracker's worker thread, with a
//   copy of the tracked values it starts from (the value through t - 2). So
//   frame t - 1 is estimated while the caller processes frame t, and after
//   observe(t), t >= 2, sigma() is the value through frame t - 2 (after
//   observe(1): through frame 0). The worker only computes a frame's
//   estimates from that copy; every change of the tracked state (folding, in
//   frame order) happens on the caller's thread, in observe() and flush(). So
//   the estimates are those of the foreground schedule, frame for frame, bit
//   for bit, whatever the threads' timing; they are folded in a frame later.
//   The worker thread starts at the first hand-over and is joined by the
//   destructor (which waits for the estimate in flight). What an estimate
//   throws on the worker is rethrown by the next observe() or flush() (that
//   frame is not folded in); reset() drops it.
// Which frames are estimated (settings.interval): one frame in `interval`, the
// frames whose index since the start is a multiple of it (the first frame
// included); the frames in between are not sampled, copied nor estimated, and
// move nothing. Each estimate stands for `interval` frames: it moves log(sigma)
// by interval/time_constant of the way (at most all of it), so the time
// constant stays `time_constant` frames. (Until 2026-11-29 every frame of the
// first `time_constant` was estimated too: with many streams started at once,
// that burst of host work made their first second late; docs/PERFORMANCE.md,
// live streams.) The model's level sets fill from the frames of `interval`
// alike, so sigma() is the same with and without the model (white noise gives
// the constant model's bytes). The choice depends on the frame index alone,
// so both schedules estimate the same frames; an estimate
// starts from the value through the last estimated frame before it on both
// (with interval 1: through frame t - 1, as above). On the background schedule
// an estimated frame s is handed to the worker at observe(s + 1) and
// folded in at the next estimated frame's observe() (s + interval), so the
// worker has interval - 1 frames for it. A step of the noise is followed after
// `step_frames` estimated frames. interval 1: every frame, as above.
// Both: flush() folds in every observed frame (waiting for what is pending),
// and the same frames give the same sigma() and model() in host and in device
// memory. The lag delays a step of the noise by one frame (foreground) or two
// (background); on steady noise the value a frame late is within 0.25 % of
// the value at once.
//
// The model (settings.model; off by default, and then nothing below is done):
// each component's signal-dependent noise, var(x) = a x + b and the free curve
// over the level sets of noise_model.h, followed over frames (model()). Level
// sets are estimated on the candidate patches of the frame's sigma estimate
// (NoiseLevelEstimator::estimate_again: no second pass over the plane, the same
// samples for host and device frames); a level set counts as populated in a
// frame when it has at least kNoiseModelMinSelected candidates there. The
// warm-up: a populated level estimated fewer than `model_time_constant` times
// since it (re)started is estimated in every estimated frame, so every
// populated level has that many estimates after as many estimated frames and
// the model is known from the first ones on. After it each estimated frame
// estimates ONE level set per component: of the populated ones, the one
// estimated longest ago. Each
// level's sigma is tracked as the component's is, counted in its own updates,
// with the step rule above (step_ratio, step_frames): its first
// `model_time_constant` usable estimates are averaged with equal weights (the
// log-domain running mean), later ones moved in with time constant
// `model_time_constant` updates. When the component's sigma takes a step,
// every level's next usable estimate replaces its value at once and the level
// warms up again, so that a step of the noise is in every populated level
// within a frame or two. The same when the level updates of `step_frames`
// frames in a row are off on the same side (a step of the model that leaves
// the frame's sigma as it was: astronaut.png reads 8.9 under 0.5 x + 4 and
// under 2 x + 2). A level not measured again within kNoiseModelLevels frames
// of the step (no longer populated, or clipped at the new noise) is dropped.
// The level estimates follow the same schedule as sigma (the level sets are
// chosen from the tracked state the frame's estimate starts from), so host and
// device frames give the same model().
// docs/NOISE.md, "The model over frames", has the measurements.
//
// Sigmas are in 8-bit code values (as DenoiseSettings::sigma); in_code_values()
// scales them to each component's own depth. Not thread-safe: one thread at a
// time observes and reads a tracker (its worker, if any, touches nothing the
// caller reads).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/noise_level.h"
#include "cudadenoise/noise_model.h"

namespace cdn {

class BackgroundWorker;
class DeviceSamples;
struct NoiseTrackerTesting;

struct NoiseTrackerSettings {
  int time_constant = 16;       // frames, N of the log-domain moving average (>= 1)
  double step_ratio = 1.5;      // a frame this far off (either way) may be a step ...
  int step_frames = 2;          // ... and this many in a row are one (>= 1)
  double floor = 0.5;           // never report less (8-bit code values)
  double default_sigma = 0.5;   // before any usable frame (8-bit code values, >= floor)
  double change_ratio = 1.05;   // changed() fires when a component moves by this factor
  int budget = 16384;           // candidate patches of the luma per frame (chroma: at the luma's density, >= 4096)
  int max_selected = 4096;      // patches of each frame's covariance
  // The noise model over frames (model()); off: no level set is estimated.
  bool model = false;
  int model_time_constant = 4;  // level updates, N of each level's moving average (>= 1)
  // model(): a fitted var = a x + b whose variance grows by less than this
  // fraction from the lowest to the highest mean of its usable levels is
  // flat: a = 0, b = the levels' weighted mean variance (so that AWGN comes
  // out as AWGN). docs/NOISE.md has the measurements behind the default.
  double flat_ratio = 0.65;
  // One frame in `interval` is estimated (>= 1; see above): the tracker's host
  // cost divided by that.
  int interval = 1;
  // The schedule (see above): false, foreground (frames a frame late, estimated
  // on the caller's thread); true, background (frames two frames late,
  // estimated on the tracker's worker thread while the caller goes on).
  bool background = false;
};

// Throws InvalidArgument naming the bad field.
void validate(const NoiseTrackerSettings& s);

class NoiseTracker {
 public:
  explicit NoiseTracker(const NoiseTrackerSettings& settings = {});
  ~NoiseTracker();
  NoiseTracker(const NoiseTracker&) = delete;
  NoiseTracker& operator=(const NoiseTracker&) = delete;

  // One frame, host or device memory (`stream`: the cudaStream_t the frame is
  // ready on, or null for a frame complete now, whose copy then goes on a
  // non-blocking stream of the tracker's). Folds in the previous frame's
  // estimate (background: the one before; see above). A new format or size
  // starts the tracking again. Background: rethrows what the last estimate
  // handed over threw.
  void observe(const FrameView& frame, void* stream = nullptr);
  // Folds in the estimates of the observed frames still pending (waits for
  // copies and the worker): sigma() then includes every frame. Background:
  // rethrows what the estimate in flight threw.
  void flush();

  // Per component (luma first), 8-bit code values, >= floor.
  std::vector<double> sigma() const;
  // Per component (luma first), 8-bit code values: the tracked level sets in
  // `levels` (kNoiseModelLevels; the free curve, NoiseModel::sigma_curve) and
  // var = a x + b fitted to them (fit_noise_model), with the flat rule
  // (flat_ratio). When no fit is usable (fewer than two usable levels, or
  // settings.model off): a = 0, b = sigma()[c]^2, usable = false, the
  // constant model of sigma(). Same schedule as sigma().
  std::vector<NoiseModel> model() const;
  // sigma() scaled by 2^(depth - 8) to each component's own code values (what the
  // denoisers take).
  std::vector<double> sigma_code_values() const;
  // Whether every component has had a usable frame.
  bool known() const;
  // True when sigma() has moved by more than change_ratio (any component,
  // either way) since the last call that returned true, and at the first call
  // after any component became known. For the element's message on change.
  bool changed();

  // Frames observed, and estimated frames folded in whose component 0 was usable, since the start.
  std::int64_t frames() const { return frames_; }
  std::int64_t usable_frames() const { return usable_frames_; }
  // Estimated frames folded in (with interval 1, sigma() and model() hold frames 1 .. folded() of the stream).
  std::int64_t folded() const { return folded_; }
  // The raw per-component estimates last folded in (for diagnostics and tests).
  const std::vector<NoiseLevel>& last() const { return last_; }
  // With the model: the level sets each component estimated in the frame last
  // folded in (none: empty), and those estimates, in the same order.
  const std::vector<std::vector<int>>& last_model_levels() const { return last_model_levels_; }
  const std::vector<std::vector<NoiseLevel>>& last_models() const { return last_models_; }

  // settings.interval from the next observe() on (the frames' index counts from
  // the start as before). Throws InvalidArgument below 1.
  void set_interval(int interval);

  // Forget everything (a new stream). Waits for the estimate in flight, if
  // any, and drops it (and what it threw).
  void reset();

 private:
  // A log-domain moving average with the step rule (see above).
  struct Tracked {
    enum Move { Kept, Averaged, Taken };  // Taken: the first value, or a step
    bool known = false;
    double log_value = 0;   // tracked
    int pending = 0;        // updates in a row off by more than step_ratio
    int pending_side = 0;   // +1 above, -1 below
    double pending_log_sum = 0;
    Move update(double x, double time_constant, double log_step_ratio, int step_frames);
  };
  struct Level {  // one level set of the model
    Tracked sigma;
    double mean = 0;          // of its selected patches, moved as sigma is
    double selected = 0;      // patches per estimate, moved as sigma is
    double pending_mean = 0, pending_selected = 0;  // of the last estimate off by more than step_ratio
    bool replace = false;     // the next usable estimate replaces the value (after a step)
    std::int64_t visited = -1;  // the fold of its last estimate
    int estimates = 0;        // estimated since it (re)started: warm-up below model_time_constant
    int averaged = 0;         // usable estimates in its value since it was last taken
  };
  struct Component {
    Tracked sigma;
    std::vector<Level> levels;  // kNoiseModelLevels with the model, else none
    std::int64_t step_fold = 0;  // the fold of the last step (of sigma or of the model)
    int levels_off = 0;          // frames in a row whose level updates were off by more than step_ratio ...
    int levels_off_side = 0;     // ... on this side
  };
  // One frame's estimates of one component.
  struct Estimate {
    NoiseLevel sigma;
    std::vector<int> model_levels;  // the level sets estimated, ascending
    std::vector<NoiseLevel> models;  // their estimates
  };
  struct Staging;  // background: frames staged, not yet handed over (noise_tracker.cpp)
  void start(const FrameView& frame);
  // Whether `frame` goes on the stream started (else start() starts again).
  bool same_stream(const FrameView& frame) const;
  // Whether frame `index` (since the start) is estimated (settings.interval).
  bool estimated(std::int64_t index) const;
  // The time constant in estimates: time_constant frames over interval.
  double estimate_time_constant() const;
  void observe_foreground(const FrameView& frame, const std::vector<PatchSampling>& samplings, void* stream,
                          bool first);
  // A frame's estimate of one component, started from `from` (the tracked
  // state, or the copy of it handed over with the frame); fold() moves the
  // tracked state. Reads only its arguments: the worker runs it.
  static Estimate estimate(const NoiseTrackerSettings& settings, const Component& from, NoiseLevelEstimator& estimator,
                           const PlaneView& host_plane, const PatchSampling& sampling);
  static std::vector<int> next_levels(const NoiseTrackerSettings& settings, const Component& from,
                                      const NoiseLevelEstimator& estimator);
  std::vector<Estimate> estimate_now(const std::vector<PlaneView>& planes, const std::vector<PatchSampling>& sampling);
  void fold(const std::vector<Estimate>& estimates);
  void fold_held();
  void take_staged();
  // Background: the estimate in flight folded in (waits for it; rethrows what
  // it threw); the oldest staged frame handed over or estimated now.
  void collect();
  void hand_over();
  void estimate_staged_now();
  PatchSampling sampling(const std::vector<PlaneView>& comps, std::size_t c, std::uint64_t phase) const;
  void update(Component& c, const Estimate& e);
  Tracked::Move update_level(Level& l, const NoiseLevel& e);
  static Level forgotten(const Level& l);
  double value(const Component& c) const;

  NoiseTrackerSettings settings_;
  PixelFormat format_ = PixelFormat::GRAY8;
  int width_ = 0, height_ = 0;
  bool started_ = false;
  std::vector<Component> components_;
  // One per component; the worker's while a frame is handed over.
  std::vector<NoiseLevelEstimator> estimators_;
  std::vector<double> reported_;
  std::vector<NoiseLevel> last_;
  std::vector<std::vector<int>> last_model_levels_;
  std::vector<std::vector<NoiseLevel>> last_models_;
  std::vector<Estimate> held_;  // foreground: a host frame's estimate, not yet folded in (empty: none)
  std::int64_t frames_ = 0, usable_frames_ = 0, folded_ = 0;

  std::unique_ptr<DeviceSamples> device_;  // made at the first device frame
  std::unique_ptr<Staging> staging_;       // background: made at the second frame
  // Background: the estimates of the frame handed over (the worker writes
  // them, the caller folds them in after waiting), and the worker, made at
  // the first hand-over. The worker is declared last so that it is destroyed
  // (joined) first, before everything its job uses.
  std::vector<Estimate> handed_;
  std::unique_ptr<BackgroundWorker> worker_;
  friend struct NoiseTrackerTesting;  // tests/kernels/test_noise_tracker_background.cpp: reaches the worker
};

// The patches a tracker samples per frame in `component`: the luma's `budget`,
// or for subsampled chroma the same density (4:2:0: a quarter), at least 4096.
int component_budget(int budget, const PlaneView& luma, const PlaneView& component);

// `sigma` (8-bit code values, one per component) in each component's own code values.
std::vector<double> in_code_values(const std::vector<double>& sigma, PixelFormat format);

}  // namespace cdn
