// settings.h: the denoiser's parameters and the one declarative table that
// describes them (name, help, range, default). The GStreamer element makes its
// properties from this table and the tools make their --flags from it, so
// gst-inspect, --help and validation never drift apart.
//
// PI-PD parameters follow the paper (pipd-isoline-gpu-filter, section VIII,
// fig. 10): segment length l = 5, maximum isoline length n = 25, Tmax = 1,
// T2max = 2, isolines one pixel thick; direction-prefilter, our addition, is off
// by default. BM3D's default profile follows table 1 of
// bm3d-gpu-honzatko-krulis-2017 (reference step 3, 39x39 search window, both
// phases); the profiles' constants are in bm3d_profile.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cudadenoise/vbm3d_params.h"

namespace cdn {

enum class Mode { Pipd, Hybrid, Nlm3d, Bm3d, Vbm3d };

// Whether the mode holds a temporal window (nlm3d, vbm3d); the others filter each
// frame on its own. The modes' facts come from the mode registry (kernels/core/mode_spec.h).
bool is_temporal(Mode m);
enum class Backend { Auto, Cuda, Cpu };
enum class PlaneSelection { Luma, All };

const char* mode_name(Mode m);
std::vector<Mode> all_modes();
// One line per mode, for help texts.
const char* mode_description(Mode m);
bool parse_mode(const std::string& s, Mode* out);
const char* backend_name(Backend b);
bool parse_backend(const std::string& s, Backend* out);
const char* planes_name(PlaneSelection p);
bool parse_planes(const std::string& s, PlaneSelection* out);

struct PipdParams {
  int segment_length = 5;   // l: pixels per segment
  int max_length = 25;      // n: maximum isoline length in pixels (any n: see segments())
  double tmax = 1.0;        // GLRT threshold for lengthening
  double t2max = 2.0;       // GLRT threshold of the hybrid edge detector
  int thickness = 1;        // isoline thickness in pixels: 1 or 3
  // Not in the paper (docs/PIPD.md, "Direction prefilter"): passes of the 3x3
  // binomial filter over the copy of the frame on which stage 1 picks each
  // pixel's direction; 0 picks them on the noisy frame itself, as the paper does.
  int direction_prefilter = 0;

  // The one rule from n to the isoline: it grows by whole segments of l pixels
  // while its length stays within n, and always has its first segment:
  // max(1, floor(n / l)) segments (n = 25, l = 5: the paper's 5). Every (l, n)
  // is valid, whatever order they are set in.
  int max_segments() const { return max_length >= segment_length ? max_length / segment_length : 1; }
};

// The settings docs/PIPD.md recommends for quality: the named set pipd
// "quality" (named_sets.h).
PipdParams pipd_quality_params();

// NLM-3D's similarity patch (docs/NLM3D.md): the papers' cube spans frames
// t - r .. t + r; a 2D patch lies in one frame and is compared with 2D patches
// of the other frames (KNLMeansCL's way), which follows motion between frames.
enum class NlmPatchShape { Cube = 0, Planar = 1 };
const char* patch_shape_name(NlmPatchShape s);

// 3D non-local means (nlm3d-gpu-cuomo-2014 eq. 8-9; see docs/NLM3D.md): what
// the user sets. The defaults are for moving video (docs/NLM3D.md, "Moving
// video"); nlm_paper_params() gives the papers' 11^3 search cube with 3^3 cubes.
// The window (centred or causal) is DenoiseSettings::window's.
struct NlmSettings {
  int search_radius = 3;     // spatial search radius in frame t: (2R+1)^2 candidates (paper: 5, an 11^3 cube)
  int temporal_radius = 4;   // frames searched either side (paper: 5)
  // Not in the papers: the spatial search radius in the other frames t +- 1 ..
  // t +- Rt (the windows that motion-search centres); -1: search_radius.
  int neighbour_search_radius = 2;
  int patch_radius = 4;      // patch radius: in x and y, and in t for the cube (paper: 1, a 3^3 cube)
  NlmPatchShape patch_shape = NlmPatchShape::Planar;  // paper: Cube
  // Not in the papers: the search window in frame t + dt is centred on the
  // pixel's motion vector towards that frame (nlm3d_motion.h); 2D patches only.
  // The streams estimate the fields (nlm3d_window*, kernels/motion_*).
  bool motion_search = true;
  // Not in the papers: the weight is exp(-max(d2 - 2 sigma^2 |B|, 0) / h^2),
  // the distance less what noise alone gives (Buades, Coll, Morel, "Non-Local
  // Means Denoising", IPOL 2011): patches that differ only by noise weigh ~1.
  bool distance_offset = true;
  // Not in the papers: frame confidence (nlm3d_confidence.h; docs/NLM3D.md, "Frame
  // confidence"). Per cell of confidence_cell luma pixels and other frame t + dt, E: how
  // much larger that frame's best patch distance is than frame t's own, on average over
  // the cell; that frame's candidates there are weighed by exp(-max(E, 0) / (c^2 sigma^2 |B|)),
  // c = frame_confidence (0: off). 2D patches only.
  double frame_confidence = 0.5;
  int confidence_cell = 32;  // luma pixels, a multiple of 16
  // Not in the papers: the self weight w(p,p) is max(the largest weight of the
  // other candidates, this floor); 0 = the papers' rule (Coupe et al.: the largest
  // weight alone). Where no candidate matches p within the noise (tiny frames,
  // clean or lightly noisy texture) the papers' rule still gives the best of them
  // p's own weight; the floor keeps p there (docs/NLM3D.md, "Self-weight floor").
  double self_weight_floor = 0.01;
  double beta = 0.2;         // nlm-beta: beta of h^2 = 2 beta sigma^2 |patch| (the papers: "beta ~ 1, to be tuned"; their cubes: 0.4; docs/NLM3D.md)
  int chunk_size = 50;       // frames filtered per batch (1 with the causal window)

  // The spatial search radius in frame t + dt.
  int search_radius_at(int dt) const {
    return dt == 0 || neighbour_search_radius < 0 ? search_radius : neighbour_search_radius;
  }
  int max_search_radius() const { return search_radius_at(0) > search_radius_at(1) ? search_radius_at(0) : search_radius_at(1); }
  // Frames in a patch: 2r + 1 for the cube, 1 for 2D patches.
  int patch_frames() const { return patch_shape == NlmPatchShape::Cube ? 2 * patch_radius + 1 : 1; }
  // Samples in a patch, |B| of h^2.
  int patch_samples() const { return (2 * patch_radius + 1) * (2 * patch_radius + 1) * patch_frames(); }
  // Frames needed before an output frame, and after it in the centred window
  // (NlmParams::reach_after): the single source of truth for every window
  // (schedulers, pools, latency).
  int reach() const { return temporal_radius + (patch_frames() - 1) / 2; }
};
bool operator==(const NlmSettings& a, const NlmSettings& b);
inline bool operator!=(const NlmSettings& a, const NlmSettings& b) { return !(a == b); }

// What an NLM-3D filter runs: the settings and the stream's window, resolved
// once (DenoiseSettings::window, resolve_window(); the mode registry hands it
// to the filter).
struct NlmParams : NlmSettings {
  // Not in the papers: a causal window, frames t - Rt .. t only (live sources:
  // each frame out as soon as it is filtered, chunks of one frame); 2D patches only.
  bool causal = false;

  // Frames needed after an output frame: 0 for the causal window.
  int reach_after() const { return causal ? 0 : reach(); }
  // The last temporal offset searched: Rt, or 0 for the causal window.
  int last_dt() const { return causal ? 0 : temporal_radius; }
};
NlmParams nlm_params(const NlmSettings& s, bool causal);

// The papers' configuration: the named set nlm3d "paper" (named_sets.h, where
// the research tools' other NLM-3D sets are). Not the defaults.
NlmSettings nlm_paper_params();

// BM3D's profiles (docs/BM3D.md, kernels/bm3d/bm3d_profile.h): `paper` follows the GPU
// paper (bm3d-gpu-honzatko-krulis-2017, table 1: 2D DCT and Walsh-Hadamard in both
// phases); `reference` follows Dabov et al.'s reference implementation (BM3D.m:
// biorthogonal 1.5 in the hard-thresholding phase, DCT in the Wiener phase, Haar
// across the group, its thresholds and its sigma > 40 profile); `fast` is the paper
// profile with step 8, window 19 and the basic estimate only. `balanced` is the
// reference profile with block matching on the guide rounded to 8-bit code values
// (exact integer distances, the same quality); `quick`, `rapid` and `draft` add
// less search (a coarser step, a smaller window, smaller groups), for speed:
// docs/BM3D.md gives their parameters and their measured quality.
enum class Bm3dProfile { Paper = 0, Reference = 1, Fast = 2, Balanced = 3, Quick = 4, Rapid = 5, Draft = 6 };
const char* bm3d_profile_name(Bm3dProfile p);

// BM3D parameters, what the user sets. step, window and phases at kProfileValue
// take the profile's values; any other value replaces the profile's in both
// phases (group1 and group2: in phase 1 and 2). The filter resolves them per
// phase, bit depth and sigma (bm3d::phase_params, kernels/bm3d/bm3d_profile.h).
struct Bm3dSettings {
  Bm3dProfile profile = Bm3dProfile::Paper;
  int step = kProfileValue;    // p: pixels between reference patches (paper: 3)
  int window = kProfileValue;  // n: side of the square search window, odd (paper: 39)
  int phases = kProfileValue;  // 2: hard thresholding then Wiener; 1: the basic estimate only
  int group1 = kProfileValue;  // N of phase 1 (hard thresholding), 8, 16 or 32 (paper: 16)
  int group2 = kProfileValue;  // N of phase 2 (Wiener), 8, 16 or 32 (paper: 32)
};

// Which frames a temporal mode's window holds (docs/PRESETS.md, "Live"): centred
// (t - r .. t + r: the best quality, r frames of latency), causal (t - r .. t:
// the frame comes out as soon as it is filtered, for live sources), or auto:
// causal for a live source when the mode has a causal window, else centred
// (resolve_window()). Per-frame modes ignore it.
enum class TemporalWindow { Auto = 0, Centred = 1, Causal = 2 };
const char* temporal_window_name(TemporalWindow w);

// How the noise level depends on the intensity (docs/NOISE.md, "The noise model
// in the stream"): constant (one sigma per component, for every intensity: the
// AWGN model), signal (var = a x + b per component: the filter runs behind the
// generalized Anscombe transform, Makitalo & Foi 2013), curve (a free noise level
// function sigma(x) per component: the filter runs behind its integral transform).
enum class NoiseModelKind { Constant = 0, Signal = 1, Curve = 2 };
const char* noise_model_name(NoiseModelKind k);

struct NoiseProfile;  // noise_profile.h

// What the user sets: the parameter table's values. The names follow one rule:
// XxxSettings is what the user sets (kProfileValue: the profile's value),
// XxxParams what a filter runs, every value resolved (NlmParams, Vbm3dParams,
// bm3d::PhaseParams; PipdParams has nothing to resolve). The window is stored
// once, here; the mode registry resolves it and hands it to the mode's filter.
struct DenoiseSettings {
  Mode mode = Mode::Pipd;
  PipdParams pipd;
  NlmSettings nlm;
  Bm3dSettings bm3d;
  Vbm3dSettings vbm3d;  // the video mode's profile and overrides (vbm3d_params.h)
  // Noise std in 8-bit code values (scaled by 2^(depth-8) for deeper planes), for
  // nlm3d and bm3d; 0 = auto: estimated per component from every frame and
  // tracked over time (noise_tracker.h; StreamDenoiser::noise_sigma()).
  double sigma = 0;
  // The one strength knob of every mode that takes a sigma: the denoiser
  // assumes strength x sigma (given or estimated). 1 = the noise as measured.
  double strength = 1.0;
  // The noise model (see NoiseModelKind). Signal and curve take their models
  // from `noise_profile` when set, else for signal from noise_a and noise_b when
  // noise_a >= 0 (the same model for every component, 8-bit code values; -1:
  // auto), else from the frames (tracked over time like sigma).
  NoiseModelKind noise_model = NoiseModelKind::Constant;
  double noise_a = -1;
  double noise_b = 0;
  std::shared_ptr<const NoiseProfile> noise_profile;  // not in the table: a file (noise_profile.h)
  // With the noise estimated: one frame in this many is measured, the first
  // included (NoiseTrackerSettings::interval; 1: every frame).
  int noise_interval = 4;
  TemporalWindow window = TemporalWindow::Auto;
  PlaneSelection planes = PlaneSelection::All;
};

// Whether a mode takes a noise sigma (and so `sigma` and `strength`).
bool uses_sigma(Mode m);
// Whether a temporal mode has a causal window in this build: its filter reads
// only the frames of the window it is given (t - before .. t). Set in the mode's
// registration, by the mode's engineers once their causal filter exists.
bool has_causal_window(Mode m);
// Whether these settings can run the mode's causal window (nlm3d: 2D patches
// only, a cube spans later frames). Auto takes the causal window only then.
bool causal_window_possible(const DenoiseSettings& s);
// The window to run: `s.window`, or for Auto causal when `live_source` and the
// mode has one, else centred. Throws InvalidArgument for causal on a mode
// without one.
TemporalWindow resolve_window(const DenoiseSettings& s, bool live_source);

// Every problem of the settings as a whole, one message each (empty: valid): a
// value out of its range, and values that conflict with each other, named
// together whatever order they were set in (patch-shape=cube with 2D-only NLM
// options, say).
std::vector<std::string> settings_problems(const DenoiseSettings& s);
// Throws InvalidArgument with every problem of settings_problems(), "; " between them.
void validate(const DenoiseSettings& s);

// Which modes a parameter belongs to: Noise is the sigma and strength of the
// modes that take one (uses_sigma); Temporal, the window of the temporal modes;
// Vbm3d: the video mode's (docs/VBM3D.md).
enum class ParamGroup { Pipd, Hybrid, Nlm, Bm3d, Vbm3d, Noise, Temporal };  // Hybrid: the hybrid mode's own
bool param_group_applies(ParamGroup g, Mode m);

// One numeric parameter: what the element's property and the tools' flag are made of.
struct ParamSpec {
  ParamGroup group;
  const char* name;   // property / flag name, e.g. "segment-length"
  const char* blurb;  // one-line help
  bool integer;       // integer or floating point
  double min, max, def;
  double (*get)(const DenoiseSettings&);
  void (*set)(DenoiseSettings&, double);
  const char* word = nullptr;  // a word that stands for `word_value` (e.g. "auto" for sigma 0)
  double word_value = 0;
  // An enumerated parameter: the names of the integer values min, min + 1, ..., max
  // (nullptr-terminated), accepted in place of the numbers.
  const char* const* choices = nullptr;
};

const std::vector<ParamSpec>& param_specs();
const ParamSpec* find_param(const std::string& name);
// A parameter's value from text: its word (e.g. "auto"), one of its choices, or
// a finite number; false otherwise. The range is validate()'s to check.
bool param_value_from_text(const ParamSpec& spec, const std::string& text, double* out);

// Whether going from settings `from` to `to` needs a new stream rather than
// taking effect from the next frame: when a temporal mode is involved (its window
// is filtered with one set of parameters) and the mode, the planes or a
// parameter of the table whose group applies to that mode differ (or the noise
// profile, the Noise group's file). Between per-frame modes, never. Decided
// from the table, so a new parameter counts.
bool restarts_stream(const DenoiseSettings& from, const DenoiseSettings& to);

}  // namespace cdn
