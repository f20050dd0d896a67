// metrics.h: image quality metrics on host planes: MSE, PSNR and SSIM.
//
// PSNR = 10 log10(peak^2 / MSE) over the whole plane, peak = (1 << bit_depth) - 1
// (255 for 8-bit, 1023 for 10-bit); identical planes give +infinity.
// SSIM follows Wang, Bovik, Sheikh, Simoncelli, "Image quality assessment: from
// error visibility to structural similarity", IEEE TIP 2004: an 11x11 Gaussian
// window (sigma 1.5, normalised to sum 1), K1 = 0.01, K2 = 0.03, L = peak; the
// index is the mean of the SSIM map over the windows that lie wholly inside the
// plane (no padding, no downsampling). Values are compared after the shift is
// removed (PlaneView::get), so P010's padding bits play no part.
//
// Multi-component helpers pool the components: PSNR from the MSE over all their
// samples, SSIM as the mean of the per-component SSIMs weighted by sample count.
#pragma once

#include <vector>

#include "cudadenoise/frame.h"
#include "cudadenoise/plane.h"

namespace cdn {

// Mean squared error of two host planes of the same size; throws InvalidArgument
// for device memory or mismatched sizes / bit depths.
double mse(const PlaneView& a, const PlaneView& b);

// 10 log10(peak^2 / mse); +infinity when mse == 0.
double psnr_from_mse(double mse, int peak);

double psnr(const PlaneView& a, const PlaneView& b);

// Mean SSIM; NaN when the plane is smaller than the 11x11 window.
double ssim(const PlaneView& a, const PlaneView& b);

struct Quality {
  double psnr = 0;
  double ssim = 0;
};

// Pooled over matching components (a[i] against b[i]).
Quality quality(const std::vector<PlaneView>& a, const std::vector<PlaneView>& b);

// Over components() of two host frames of the same format and size.
Quality frame_quality(const FrameView& a, const FrameView& b);

}  // namespace cdn
