// clip_quality.h: PSNR and SSIM of a clip against its clean reference, per
// plane (Y, then Cb, Cr) and over all planes, on chosen frames, with the
// functions of kernels/include/cudadenoise/metrics.h.
//
// Per plane: the MSE is the mean over the frames of each frame's MSE, the PSNR
// is computed from that MSE (peak 255), the SSIM is the mean of the frames'
// SSIMs; frame_psnr is the mean of the frames' PSNRs, the other convention. "all" pools the planes like cdn::quality: MSE over all samples, SSIM
// weighted by sample count. With a sigma, also the PSNR the noisy input is
// expected to have (expected_noise.h), from the clean frames.
#pragma once

#include <vector>

#include "cudadenoise/host_frame.h"

namespace cdn::eval {

struct PlaneScore {
  double mse = 0, psnr = 0, ssim = 0;
  double frame_psnr = 0;  // the mean of the frames' PSNRs (infinite if one frame is identical); per plane only
  double expected_noisy_psnr = 0;  // only with a sigma
};

struct ClipScore {
  std::vector<PlaneScore> planes;  // Y (or gray), Cb, Cr
  PlaneScore all;
  int frames = 0;
};

// `frames`: indices into both clips (empty: all). Throws cdn::InvalidArgument
// when the clips differ in format or size or an index is out of range.
ClipScore score_clip(const std::vector<HostFrame>& clean, const std::vector<HostFrame>& test,
                     const std::vector<int>& frames, double sigma = -1);

}  // namespace cdn::eval
