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
// with sigma() including it, so that it is denoised with its own estimate);
// every later frame t one frame late: after observe(t), sigma() is the value
// through frame t - 1, and frame t's estimate is folded in at the next
// observe() or flush(). The same for frames in host and in device memory, so
// that the same frames give the same sigma (and the same denoised output)
// wherever they are. Device frames need the lag: observe() copies the sampled
// rows (bands of 7 rows, about 1/6 of a 4K plane; noise_sample_plan.h) to
// pinned host memory on the caller's stream and estimates them at the next
// observe(), so it waits only for a copy enqueued a frame ago (device frames:
// CUDA builds only). A host frame is estimated at once (observe() may not keep
// it), starting from the value through t - 1 as the device path does, and its
// estimate is held. The lag delays a step of the noise by one frame; on steady
// noise the value a frame late is within 0.25 % of the value at once.
//
// The model (settings.model; off by default, and then nothing below is done):
// each component's signal-dependent noise, var(x) = a x + b and the free curve
// over the level sets of noise_model.h, followed over frames (model()). Level
// sets are estimated on the candidate patches of the frame's sigma estimate
// (NoiseLevelEstimator::estimate_again: no second pass over the plane, the same
// samples for host and device frames); a level set counts as populated in a
// frame when it has at least kNoiseModelMinSelected candidates there. The
// warm-up: a populated level estimated fewer than `model_time_constant` times
// since it (re)started is estimated in every frame, so every populated level
// has that many estimates after as many frames and the model is known from
// the first frames on. After it each frame estimates ONE level set per
// component: of the populated ones, the one estimated longest ago. Each
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
// The level estimates follow the same schedule as sigma (the first frame at
// once, later frames a frame late), so host and device frames give the same
// model().
// docs/NOISE.md, "The model over frames", has the measurements.
//
// Sigmas are in 8-bit code values (as DenoiseSettings::sigma); in_code_values()
// scales them to each component's own depth. Not thread-safe: one thread at a
// time observes and reads a tracker.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/noise_level.h"
#include "cudadenoise/noise_model.h"

namespace cdn {

class DeviceSamples;

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
  // ready on, or null). Folds in the previous frame's estimate (see above). A
  // new format or size starts the tracking again.
  void observe(const FrameView& frame, void* stream = nullptr);
  // Folds in the estimate of the last observed frame, if still pending (a
  // device frame: waits for its copy): sigma() then includes every frame.
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

  // Frames observed, and frames folded in whose component 0 was usable, since the start.
  std::int64_t frames() const { return frames_; }
  std::int64_t usable_frames() const { return usable_frames_; }
  // The raw per-component estimates last folded in (for diagnostics and tests).
  const std::vector<NoiseLevel>& last() const { return last_; }
  // With the model: the level sets each component estimated in the frame last
  // folded in (none: empty), and those estimates, in the same order.
  const std::vector<std::vector<int>>& last_model_levels() const { return last_model_levels_; }
  const std::vector<std::vector<NoiseLevel>>& last_models() const { return last_models_; }

  // Forget everything (a new stream).
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
    Move update(double x, int time_constant, double log_step_ratio, int step_frames);
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
    NoiseLevelEstimator estimator;
  };
  // One frame's estimates of one component.
  struct Estimate {
    NoiseLevel sigma;
    std::vector<int> model_levels;  // the level sets estimated, ascending
    std::vector<NoiseLevel> models;  // their estimates
  };
  void start(const FrameView& frame);
  // Frame estimates start from the tracked value; fold() moves it.
  Estimate estimate(int component, const PlaneView& host_plane, const PatchSampling& sampling);
  std::vector<int> next_levels(const Component& c) const;
  void fold(const std::vector<Estimate>& estimates);
  void fold_held();
  void take_staged();
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
  std::vector<double> reported_;
  std::vector<NoiseLevel> last_;
  std::vector<std::vector<int>> last_model_levels_;
  std::vector<std::vector<NoiseLevel>> last_models_;
  std::vector<Estimate> held_;  // a host frame's estimate, not yet folded in (empty: none)
  std::int64_t frames_ = 0, usable_frames_ = 0, folded_ = 0;

  std::unique_ptr<DeviceSamples> device_;  // made at the first device frame
};

// The patches a tracker samples per frame in `component`: the luma's `budget`,
// or for subsampled chroma the same density (4:2:0: a quarter), at least 4096.
int component_budget(int budget, const PlaneView& luma, const PlaneView& component);

// `sigma` (8-bit code values, one per component) in each component's own code values.
std::vector<double> in_code_values(const std::vector<double>& sigma, PixelFormat format);

}  // namespace cdn
