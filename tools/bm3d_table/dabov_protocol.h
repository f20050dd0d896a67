// dabov_protocol.h: Dabov et al.'s published BM3D results and their noise
// protocol, to compare our BM3D with (docs/BM3D.md, "Against the published
// table").
//
// Source of the figures: K. Dabov, A. Foi, V. Katkovnik, K. Egiazarian, "Image
// denoising by sparse 3-D transform-domain collaborative filtering", IEEE Trans.
// Image Processing 16(8), 2007, table II (grayscale, output PSNR in dB), rows
// sigma = 10, 25 and 50.
//
// Protocol (BM3D.m's): the clean 8-bit image y; z = y + sigma * n in double,
// n ~ N(0, 1) per pixel, neither rounded nor clipped; PSNR = 10 log10(255^2 /
// mean((y - y_est)^2)) of the unrounded, unclipped float estimate. We draw n with
// std::mt19937_64 seeded per run and std::normal_distribution (Dabov et al. used
// MATLAB's randn('seed', 0)); results over several seeds are averaged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudadenoise/plane.h"
#include "cudadenoise/settings.h"

namespace cdn::tools {

struct DabovImage {
  const char* name;  // as in the table
  const char* file;  // the file name in the BM3D package's image folder
  int size;          // side in pixels
  double psnr10, psnr25, psnr50;
};
// The eleven images of table II, in its order.
const std::vector<DabovImage>& dabov_images();
double dabov_psnr(const DabovImage& im, int sigma);  // sigma 10, 25 or 50

struct Bm3dRun {
  double noisy = 0, basic = 0, final = 0;  // PSNR in dB
};
// One noise draw (seed) on the clean 8-bit plane, BM3D on the CPU reference with
// `params`, PSNRs by the protocol above. threads <= 0: all hardware threads.
// `ablation`: "" (the profile as it is) or one of ablation_names(), which puts one
// choice of the reference profile back to the paper profile's, to measure it.
Bm3dRun run_dabov_protocol(const PlaneView& clean, double sigma, std::uint64_t seed, const Bm3dSettings& params,
                           int threads = 0, const std::string& ablation = "");
// dct1: the DCT in phase 1 instead of bior1.5; wht: Walsh-Hadamard across the
// group instead of Haar; tau2500: phase 1's distance threshold 2500 instead of
// 3000; np: above sigma 40, the sigma <= 40 parameters instead of the 'vn' ones.
const std::vector<std::string>& ablation_names();

}  // namespace cdn::tools
