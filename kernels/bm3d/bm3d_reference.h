// bm3d_reference.h: two-phase BM3D, the plain C++ reference (the oracle of the
// CUDA kernels and the CPU backend). Paper: bm3d-gpu-honzatko-krulis-2017,
// section 4 (grouping, collaborative filtering, aggregation, for the hard-
// thresholding and the Wiener phase); Dabov et al. 2007 and their reference
// implementation for the `reference` profile. The profiles' parameters and the
// geometry are in bm3d_profile.h, the transforms in bm3d_transforms.h, the
// choices in docs/BM3D.md.
//
// Phase 1 matches 8x8 patches on the noisy guide, filters each group by a 3D
// transform (the profile's 2D transform of each patch, its 1D transform across
// the group), hard threshold lambda3D * sigma and the inverse, and aggregates
// with weight 1 / (non-zero coefficients) times a Kaiser window. Phase 2 matches
// on the basic estimate, filters the noisy group with the empirical Wiener
// coefficients |B|^2 / (|B|^2 + sigma^2) of the basic group and aggregates with
// weight 1 / ||w||^2 (at most kMaxWeight). The basic estimate stays in float.
//
// Colour: block matching always runs on luma (phase 1 the noisy luma, phase 2 its
// basic estimate); components at another size (4:2:0 chroma) match on the luma
// resampled to their size (the mean of each 2x2 block). Every component is then
// filtered with those groups, with its own sigma and weights.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "bm3d/bm3d_profile.h"
#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"

namespace cdn::bm3d {

// A plane in float at its padded size (bm3d_profile.h), row-major.
struct FloatPlane {
  int width = 0, height = 0;              // padded size, at least 8 x 8
  int valid_width = 0, valid_height = 0;  // the plane's own size
  std::vector<float> v;

  float at(int x, int y) const { return v[static_cast<std::size_t>(y) * width + x]; }
  float& at(int x, int y) { return v[static_cast<std::size_t>(y) * width + x]; }
};

// A host plane's values (shift removed), padded by repeating the edge samples.
FloatPlane load_plane(const PlaneView& p);
// Values of a valid_width x valid_height region (row-major), padded likewise.
FloatPlane pad_values(const std::vector<float>& values, int valid_width, int valid_height);
// The guide of a component of size w x h: the luma itself at the same size, else
// each sample the mean of the luma's 2x2 (or 2x1, 1x2) block, edge samples repeated.
FloatPlane resample_guide(const FloatPlane& luma, int w, int h);

// The guide of the match8 profiles (bm3d_profile.h): each sample in 8-bit code
// values, floor(v / 2^(depth - 8) + 0.5) clamped to [0, 255] (the identity on an
// 8-bit plane).
FloatPlane quantize_guide(const FloatPlane& guide, int bit_depth);

// The group of the reference patch at (rx, ry): scan indices (bm3d_profile.h),
// the reference first, then the candidates with a squared-difference sum of at
// most pp.tau_ssd, in order of (sum, scan index), cut to a power of 2 of at most
// pp.max_group entries.
std::vector<std::uint16_t> match_group(const FloatPlane& guide, int rx, int ry, const PhaseParams& pp);

// The 8x8 Kaiser window of the aggregation (row-major).
std::array<float, kPatchArea> kaiser_window();
// The bior1.5 matrices T and T^-1 of bm3d_transforms.h in float (row-major).
const std::array<float, kPatchArea>& bior15_forward_matrix();
const std::array<float, kPatchArea>& bior15_inverse_matrix();

// 3D transform of n patches of 64 values (row-major patches back to back), in
// place: the 2D transform t2 of each patch, then the 1D transform t1 across them.
// Without t2 and t1: the paper's DCT and Walsh-Hadamard.
void transform_group(float* g, int n, Transform2d t2 = Transform2d::Dct, Transform1d t1 = Transform1d::WalshHadamard);
void inverse_transform_group(float* g, int n, Transform2d t2 = Transform2d::Dct,
                             Transform1d t1 = Transform1d::WalshHadamard);

// Phase 1 on one group (noisy patches, transformed back in place) with the
// transforms and lambda3D of `pp`: returns the aggregation weight
// 1 / (non-zero coefficients), or 1 when none is left. Without `pp`: the paper's.
float hard_threshold_group(float* g, int n, float sigma, const PhaseParams& pp);
float hard_threshold_group(float* g, int n, float sigma);
// Phase 2: filters the noisy patches `g` with the Wiener coefficients of the basic
// patches `basic` (both overwritten, transforms of `pp`); returns the weight
// 1 / ||w||^2, at most kMaxWeight (1 if ||w|| = 0). Without `pp`: the paper's.
float wiener_group(float* g, float* basic, int n, float sigma, const PhaseParams& pp);
float wiener_group(float* g, float* basic, int n, float sigma);

// The components [0, count) to filter (sigma > 0), grouped by size in order of
// first appearance: each group shares the block matching on its guide.
std::vector<std::vector<int>> components_by_size(const std::vector<PlaneView>& comps, const std::vector<double>& sigma,
                                                int count);

// Both estimates of every component (0 = luma). sigma: per component, in its code
// values; a component with sigma 0 is left as it is. phases = 1 leaves `final`
// equal to `basic`. threads <= 0: all hardware threads. When `cancel` becomes
// true the work stops and Cancelled is thrown (checked between rows of references).
struct Estimates {
  std::vector<FloatPlane> basic, final;
};
Estimates bm3d_estimates(const std::vector<PlaneView>& noisy, const Bm3dSettings& params,
                         const std::vector<double>& sigma, int threads = 0,
                         const std::atomic<bool>* cancel = nullptr);
// The same on planes already in float (e.g. noise added in floating point without
// rounding or clipping, Dabov et al.'s protocol), of bit depth `bit_depth` (which
// scales the distance thresholds and the aggregation's clamp).
// `adjust`, when given, may change each phase's parameters after the profile set
// them (the ablations of cudadenoise-bm3d-table, which measure each choice).
Estimates bm3d_estimates(const std::vector<FloatPlane>& noisy, int bit_depth, const Bm3dSettings& params,
                         const std::vector<double>& sigma, int threads = 0,
                         const std::atomic<bool>* cancel = nullptr,
                         const std::function<void(PhaseParams&)>& adjust = nullptr);
// The sigma that selects a profile's variant (bm3d_profile.h), in 8-bit code
// values: the first component's that is filtered (sigma > 0), 0 if none.
double profile_sigma8(const std::vector<double>& sigma, int count, int bit_depth);

// Filters the components [0, filtered) of `in` into `out` (host planes of the
// same sizes), rounding half up and clamping to the plane's range.
void bm3d_reference(const std::vector<PlaneView>& in, const std::vector<PlaneView>& out, int filtered,
                    const Bm3dSettings& params, const std::vector<double>& sigma, int threads = 0,
                    const std::atomic<bool>* cancel = nullptr);

// Rounds a float plane's valid region into `out`.
void store_rounded(const FloatPlane& values, const PlaneView& out);

}  // namespace cdn::bm3d
