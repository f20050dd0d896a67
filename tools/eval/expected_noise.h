// expected_noise.h: what PSNR the noisy input should have, given the clean
// plane and the sigma added: the harness's check that the noise is what it says.
//
// noise.h makes each sample clamp(round(v + sigma z), 0, max), z ~ N(0, 1). For a
// clean value v the expected squared error is
//   E_v = sum_k P(k | v) (k - v)^2,  P(k | v) = Phi((k + 1/2 - v) / s) - Phi((k - 1/2 - v) / s)
// for 0 < k < max, with the tails folded into k = 0 and k = max (s = sigma in
// the plane's code values). The expected MSE of the plane is the mean of E_v over
// its samples: below sigma^2 where clamping censors the noise (dark and bright
// areas), sigma^2 + 1/12 where it does not. Exact up to the sampling of z.
#pragma once

#include "cudadenoise/plane.h"

namespace cdn::eval {

// sigma in 8-bit code values (scaled by 2^(bit_depth - 8) as noise.h does).
double expected_noisy_mse(const PlaneView& clean, double sigma);

}  // namespace cdn::eval
