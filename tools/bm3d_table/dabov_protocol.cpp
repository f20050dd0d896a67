// dabov_protocol.cpp: the published figures and the noise protocol
// (dabov_protocol.h).
#include "dabov_protocol.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "bm3d/bm3d_reference.h"
#include "cudadenoise/error.h"

namespace cdn::tools {

const std::vector<DabovImage>& dabov_images() {
  // Table II of Dabov et al. 2007: sigma 10, 25, 50.
  static const std::vector<DabovImage> images = {
      {"Cameraman", "Cameraman256.png", 256, 34.18, 29.45, 25.84},
      {"House", "house.png", 256, 36.71, 32.86, 29.69},
      {"Peppers", "peppers256.png", 256, 34.68, 30.16, 26.68},
      {"Montage", "montage.png", 256, 37.35, 32.37, 27.90},
      {"Lena", "Lena512.png", 512, 35.93, 32.08, 28.86},
      {"Barbara", "barbara.png", 512, 34.98, 30.72, 27.17},
      {"Boat", "boat.png", 512, 33.92, 29.91, 26.64},
      {"Fingerprint", "fingerprint.png", 512, 32.46, 27.70, 24.36},
      {"Man", "man.png", 512, 33.98, 29.62, 26.59},
      {"Couple", "couple.png", 512, 34.04, 29.72, 26.38},
      {"Hill", "hill.png", 512, 33.62, 29.85, 27.19},
  };
  return images;
}

double dabov_psnr(const DabovImage& im, int sigma) {
  switch (sigma) {
    case 10: return im.psnr10;
    case 25: return im.psnr25;
    case 50: return im.psnr50;
  }
  throw InvalidArgument("the published table has sigma 10, 25 and 50, not " + std::to_string(sigma));
}

namespace {
double psnr_float(const std::vector<float>& clean, const bm3d::FloatPlane& est) {
  double se = 0;
  for (int y = 0; y < est.valid_height; ++y)
    for (int x = 0; x < est.valid_width; ++x) {
      const double d = double(est.at(x, y)) - clean[static_cast<std::size_t>(y) * est.valid_width + x];
      se += d * d;
    }
  return 10 * std::log10(255.0 * 255.0 / (se / (double(est.valid_width) * est.valid_height)));
}
}  // namespace

const std::vector<std::string>& ablation_names() {
  static const std::vector<std::string> names = {"dct1", "wht", "tau2500", "np"};
  return names;
}

Bm3dRun run_dabov_protocol(const PlaneView& clean, double sigma, std::uint64_t seed, const Bm3dSettings& params,
                           int threads, const std::string& ablation) {
  if (!ablation.empty() && std::find(ablation_names().begin(), ablation_names().end(), ablation) == ablation_names().end())
    throw InvalidArgument("unknown ablation " + ablation);
  auto adjust = [&](bm3d::PhaseParams& pp) {
    if (ablation == "dct1" && !pp.wiener) pp.t2d = bm3d::Transform2d::Dct;
    if (ablation == "wht") pp.t1d = bm3d::Transform1d::WalshHadamard;
    if (ablation == "tau2500" && !pp.wiener) pp.tau_ssd = 2500.0f * bm3d::kPatchArea;
    if (ablation == "np") {
      pp.tau_ssd = (pp.wiener ? 400.0f : 3000.0f) * bm3d::kPatchArea;
      pp.max_group = pp.wiener ? 32 : 16;
      pp.step = 3;
      pp.lambda3d = 2.7f;
    }
  };
  if (clean.bit_depth != 8) throw InvalidArgument("the protocol takes an 8-bit clean image");
  const int w = clean.width, h = clean.height;
  std::vector<float> y(static_cast<std::size_t>(w) * h), z(y.size());
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const std::size_t k = static_cast<std::size_t>(j) * w + i;
      y[k] = static_cast<float>(clean.get(i, j));
      z[k] = static_cast<float>(clean.get(i, j) + sigma * normal(rng));
    }
  const bm3d::FloatPlane noisy = bm3d::pad_values(z, w, h);
  const bm3d::Estimates e = bm3d::bm3d_estimates({noisy}, 8, params, {sigma}, threads, nullptr, adjust);
  Bm3dRun r;
  r.noisy = psnr_float(y, noisy);
  r.basic = psnr_float(y, e.basic[0]);
  r.final = psnr_float(y, e.final[0]);
  return r;
}

}  // namespace cdn::tools
