// clip_quality.cpp: PSNR/SSIM of clips per plane (clip_quality.h).
#include "clip_quality.h"

#include "cudadenoise/error.h"
#include "cudadenoise/metrics.h"
#include "expected_noise.h"

namespace cdn::eval {

ClipScore score_clip(const std::vector<HostFrame>& clean, const std::vector<HostFrame>& test,
                     const std::vector<int>& frames_in, double sigma) {
  std::vector<int> frames = frames_in;
  if (frames.empty())
    for (int i = 0; i < static_cast<int>(std::min(clean.size(), test.size())); ++i) frames.push_back(i);
  if (frames.empty()) throw InvalidArgument("score_clip: no frames");
  ClipScore s;
  s.frames = static_cast<int>(frames.size());
  std::vector<double> samples;
  std::vector<int> peaks;
  for (int i : frames) {
    if (i < 0 || i >= static_cast<int>(clean.size()) || i >= static_cast<int>(test.size()))
      throw InvalidArgument("score_clip: frame " + std::to_string(i) + " is not in both clips");
    const FrameView &a = clean[i].view(), &b = test[i].view();
    if (a.format != b.format || a.width != b.width || a.height != b.height)
      throw InvalidArgument("score_clip: the clips differ in format or size");
    const std::vector<PlaneView> pa = components(a), pb = components(b);
    if (s.planes.empty()) {
      s.planes.resize(pa.size());
      for (const PlaneView& p : pa) samples.push_back(double(p.width) * p.height), peaks.push_back(p.max_value());
    }
    for (std::size_t c = 0; c < pa.size(); ++c) {
      const double m = mse(pa[c], pb[c]);
      s.planes[c].mse += m;
      s.planes[c].frame_psnr += psnr_from_mse(m, pa[c].max_value());
      s.planes[c].ssim += ssim(pa[c], pb[c]);
      if (sigma >= 0) s.planes[c].expected_noisy_psnr += expected_noisy_mse(pa[c], sigma);  // summed MSE for now
    }
  }
  double total = 0, mse_all = 0, ssim_all = 0, exp_all = 0;
  for (std::size_t c = 0; c < s.planes.size(); ++c) {
    PlaneScore& p = s.planes[c];
    const int peak = peaks[c];
    p.mse /= s.frames;
    p.ssim /= s.frames;
    p.frame_psnr /= s.frames;
    p.psnr = psnr_from_mse(p.mse, peak);
    total += samples[c];
    mse_all += p.mse * samples[c];
    ssim_all += p.ssim * samples[c];
    if (sigma >= 0) {
      const double e = p.expected_noisy_psnr / s.frames;
      exp_all += e * samples[c];
      p.expected_noisy_psnr = psnr_from_mse(e, peak);
    }
  }
  s.all.mse = mse_all / total;
  s.all.ssim = ssim_all / total;
  s.all.psnr = psnr_from_mse(s.all.mse, peaks[0]);
  if (sigma >= 0) s.all.expected_noisy_psnr = psnr_from_mse(exp_all / total, peaks[0]);
  return s;
}

}  // namespace cdn::eval
