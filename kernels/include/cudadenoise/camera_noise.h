// camera_noise.h: test noise that resembles a camera's (issue 37, item 3;
// docs/NOISE.md, "Camera-model test noise"), CPU reference: a clean 8-bit
// BT.709 YCbCr frame is taken back to linear RGB light, gets Poisson-Gaussian
// sensor noise there (variance shot x L + read, L in [0, 1]), and goes forward
// again through the BT.709 transfer curve, the YCbCr matrix and the chroma
// subsampling, so the noise ends up signal-dependent, different by plane and
// correlated between luma and chroma, as in real footage.
//
// The shot and read parameters follow the model Brooks et al. fitted to camera
// calibrations ("Unprocessing images for learned raw denoising", CVPR 2019, and
// the authors' code, random_noise_levels): shot in [1e-4, 1.2e-2] and
// ln(read) = 2.18 ln(shot) + 1.20 (their line, without its random offset). Simplifications, stated: noise is added to each
// of R, G, B independently (no Bayer mosaic and demosaicking), Poisson is its
// Gaussian approximation, no white balance, gains or tone curve besides
// BT.709's, limited-range YCbCr (16..235, 16..240), 4:2:0 chroma as the mean
// of each 2x2 block (co-sited at the centre).
#pragma once

#include <cstdint>

#include "cudadenoise/frame.h"

namespace cdn {

struct CameraNoise {
  double shot = 0;  // variance per unit of linear light
  double read = 0;  // variance at black
};

// Brooks et al.'s read variance for a shot parameter.
CameraNoise camera_noise_for_shot(double shot);
// Two light levels for the evaluation: daylight-like and low light.
constexpr double kCameraShotBright = 1e-3;
constexpr double kCameraShotLowLight = 1e-2;

// out = the camera noise of `seed` added to in (I420, NV12 or Y444; same
// format and size; in == out allowed). Deterministic for a seed. Throws
// InvalidArgument for other formats.
void add_camera_noise(const FrameView& in, const FrameView& out, const CameraNoise& noise, std::uint64_t seed);

// The BT.709 transfer curve (OETF) and its inverse, V and L in [0, 1].
double bt709_oetf(double l);
double bt709_inverse_oetf(double v);

}  // namespace cdn
