// main.cpp: cudadenoise-bm3d-table, our BM3D (CPU reference) against Dabov et
// al.'s published table (dabov_protocol.h) on the eleven images of the BM3D
// package, which the user provides in a folder (they are not shipped). Prints a
// Markdown table per sigma: the published PSNR, ours (mean over the seeds), the
// difference, and the mean and mean absolute difference. With --check, exits 1
// when sigma 25 misses the target of issue 20: mean |difference| at most 0.1 dB
// and no image more than 0.25 dB below.
//
//   cudadenoise-bm3d-table --images DIR [--sigma 10,25,50] [--seeds 3]
//       [--bm3d-profile reference] [--only NAME,...] [--threads N] [--ablate NAME] [--check]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cudadenoise/error.h"
#include "dabov_protocol.h"
#include "flags.h"
#include "image_io.h"

using namespace cdn;
using namespace cdn::tools;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string images, sigmas = "10,25,50", only, ablation;
  double seeds = 3, threads = 0;
  bool check = false, help = false;
  DenoiseSettings settings;
  settings.bm3d.profile = Bm3dProfile::Reference;
  FlagParser flags;
  flags.add_string("--images", "DIR", "folder holding the eleven images of the BM3D package (Cameraman256.png, ...)",
                   &images);
  flags.add_string("--sigma", "LIST", "noise levels, from 10, 25 and 50 (default 10,25,50)", &sigmas);
  flags.add_number("--seeds", "N", "noise draws per image and sigma, averaged (default 3)", 1, 100, &seeds);
  flags.add_string("--only", "LIST", "only these images (names as in the table, e.g. Cameraman,House)", &only);
  flags.add_number("--threads", "N", "CPU threads (default: all)", 0, 1024, &threads);
  flags.add_string("--ablate", "NAME",
                   "put one choice of the reference profile back to the paper's: dct1 (DCT in phase 1), wht "
                   "(Walsh-Hadamard across the group), tau2500 (phase 1's threshold), np (sigma > 40 without 'vn')",
                   &ablation);
  flags.add_switch("--check", "exit 1 when sigma 25 misses the target (mean |diff| <= 0.1 dB, none below -0.25 dB)",
                   &check);
  flags.add_switch("-h,--help", "this help", &help);
  flags.add_param_flags(&settings, ParamGroup::Bm3d);
  try {
    flags.parse(argc, argv);
    if (help) {
      std::cout << "usage: cudadenoise-bm3d-table --images DIR [flags]\n" << flags.help();
      return 0;
    }
    if (images.empty()) throw UsageError("--images DIR is needed");
    validate(settings);
    const std::vector<std::string> names = split(only);
    bool failed = false;
    for (const std::string& sg : split(sigmas)) {
      const int sigma = static_cast<int>(parse_number("--sigma", sg, true, 1, 100));
      std::printf("\nBM3D profile %s%s%s, sigma %d, %d seed(s) (noise in float, not rounded or clipped)\n\n",
                  bm3d_profile_name(settings.bm3d.profile), ablation.empty() ? "" : ", ablation ", ablation.c_str(),
                  sigma, static_cast<int>(seeds));
      std::printf("| image | Dabov et al. 2007 | ours | difference | ours, basic estimate |\n| --- | --- | --- | --- | --- |\n");
      double sum = 0, sum_abs = 0, worst = 1e9;
      int n = 0;
      for (const DabovImage& im : dabov_images()) {
        if (!names.empty() && std::find(names.begin(), names.end(), im.name) == names.end()) continue;
        const Image img = read_image(images + "/" + im.file);
        if (img.channels != 1) throw Error(std::string(im.file) + ": expected a grayscale image");
        double fin = 0, basic = 0;
        for (int s = 0; s < static_cast<int>(seeds); ++s) {
          const Bm3dRun r = run_dabov_protocol(img.channel(0), sigma, 1000 * sigma + s, settings.bm3d,
                                               static_cast<int>(threads), ablation);
          fin += r.final / seeds;
          basic += r.basic / seeds;
        }
        const double want = dabov_psnr(im, sigma), d = fin - want;
        std::printf("| %s %d | %.2f | %.2f | %+.2f | %.2f |\n", im.name, im.size, want, fin, d, basic);
        std::fflush(stdout);
        sum += d;
        sum_abs += std::fabs(d);
        worst = std::min(worst, d);
        ++n;
      }
      if (n == 0) continue;
      std::printf("| mean difference | | | %+.3f | |\n| mean abs difference | | | %.3f | |\n| worst | | | %+.2f | |\n",
                  sum / n, sum_abs / n, worst);
      if (sigma == 25 && (sum_abs / n > 0.1 || worst < -0.25)) failed = true;
    }
    return check && failed ? 1 : 0;
  } catch (const UsageError& e) {
    std::cerr << "cudadenoise-bm3d-table: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "cudadenoise-bm3d-table: " << e.what() << "\n";
    return 1;
  }
}
