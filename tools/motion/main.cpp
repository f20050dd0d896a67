// cudadenoise-motion-check: how often the video modes' motion estimate is wrong on
// noisy frames, and what it costs (issue 38 item 1). For each clip (.y4m, its
// luma) and each sigma it adds AWGN with fixed seeds (frame i gets seed + i, as
// cudadenoise-vbm3d-quality does), and for each pair of frames (t, t + d) it
// estimates the field (motion_reference.h, the parameters of the vbm3d profile
// given) on the clean frames, on the noisy ones and on a per-frame BM3D basic
// estimate of the noisy ones (the first phase: the estimate that item 2 proposes
// to match motion on). It prints, per clip, sigma and distance d: the share of
// cells whose vector is off by more than a pixel against the clean field and
// the mean end-point error, for the noisy and the basic fields; and the PSNR of
// the clean frame t predicted from the clean frame t + d through each field
// (motion_check.h) and through no motion, so a wrong vector's cost shows. CPU
// only; give it crops of a few dozen frames (the BM3D estimate is the slow part;
// --basic none leaves it out).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bm3d/bm3d_reference.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/settings.h"  // find_param
#include "cudadenoise/vbm3d_params.h"
#include "flags.h"
#include "frame_ops.h"
#include "json.h"
#include "motion/motion_reference.h"
#include "motion_check.h"
#include "y4m.h"

using namespace cdn;

namespace {

std::vector<double> numbers(const std::string& flag, const std::string& text) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end) throw tools::UsageError(flag + ": '" + item + "' is not a number");
    out.push_back(v);
  }
  if (out.empty()) throw tools::UsageError(flag + ": give at least one value");
  return out;
}

Bm3dProfile bm3d_profile(const std::string& name) {
  const ParamSpec* spec = find_param("bm3d-profile");
  for (int k = 0; spec->choices[k]; ++k)
    if (name == spec->choices[k]) return static_cast<Bm3dProfile>(k);
  throw tools::UsageError("--basic: '" + name + "' is neither 'none' nor a bm3d profile");
}

struct Sums {  // over the frame pairs of one clip, sigma and distance
  long pairs = 0;
  motion_check::Agreement noisy, basic;
  double worst_noisy = 0;  // the largest off fraction of one pair
  double mse_clean = 0, mse_noisy = 0, mse_basic = 0, mse_zero = 0;
};

void add(motion_check::Agreement& to, const motion_check::Agreement& a) {
  to.epe = (to.epe * to.cells + a.epe * a.cells) / static_cast<double>(to.cells + a.cells);
  to.cells += a.cells;
  to.off += a.off;
}

}  // namespace

int main(int argc, char** argv) {
  tools::FlagParser fp;
  std::string sigmas = "10,20,40", distances = "1", basic = "rapid", profile = "quality", json_path;
  double frames = 16, seed = 1, threads = 0;
  bool help = false;
  fp.add_string("--sigma", "S,S..", "AWGN levels, 8-bit code values (default 10,20,40)", &sigmas);
  fp.add_string("--distance", "D,D..", "frame distances to match over (default 1)", &distances);
  fp.add_number("--frames", "N", "frames of each clip, from the first (default 16)", 2, 100000, &frames);
  fp.add_number("--seed", "N", "noise seed of frame 0 (default 1)", 0, 1e15, &seed);
  fp.add_string("--basic", "PROFILE",
                "bm3d profile of the basic estimate (its first phase; default rapid), or none", &basic);
  fp.add_string("--motion-profile", "NAME", "vbm3d profile whose motion parameters are used: quality (default) or fast",
                &profile);
  fp.add_number("--threads", "N", "CPU threads of the BM3D estimate (default: all)", 0, 1024, &threads);
  fp.add_string("--json", "FILE", "also write the results as JSON", &json_path);
  fp.add_switch("-h,--help", "show this help", &help);
  std::vector<std::string> clips;
  std::vector<double> sigma_list, distance_list;
  Bm3dSettings bp;
  MotionParams mp;
  try {
    clips = fp.parse(argc, argv);
    if (help) {
      std::printf("usage: cudadenoise-motion-check [flags] CLIP.y4m...\n\n%s", fp.help().c_str());
      return 0;
    }
    if (clips.empty()) throw tools::UsageError("give at least one clip");
    sigma_list = numbers("--sigma", sigmas);
    distance_list = numbers("--distance", distances);
    for (double d : distance_list)
      if (d < 1 || d != static_cast<int>(d)) throw tools::UsageError("--distance: whole numbers from 1");
    if (basic != "none") bp.profile = bm3d_profile(basic);
    bp.phases = 1;
    if (profile == "quality")
      mp = vbm3d_quality_profile().motion_params;
    else if (profile == "fast")
      mp = vbm3d_fast_profile().motion_params;
    else
      throw tools::UsageError("--motion-profile: quality or fast");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-motion-check: %s\n%s", e.what(), fp.help().c_str());
    return 2;
  }

  tools::Json out;
  out["motion_params"] = {{"profile", profile}, {"cell", mp.cell}, {"margin", mp.margin},
                          {"coarse_radius", mp.coarse_radius}, {"refine_radius", mp.refine_radius},
                          {"lambda", mp.lambda}, {"smooth_passes", mp.smooth_passes}};
  std::printf("motion: vbm3d %s profile (cell %d, margin %d, lambda %d); basic estimate: %s\n\n", profile.c_str(),
              mp.cell, mp.margin, mp.lambda, basic == "none" ? "none" : ("bm3d " + basic + ", first phase").c_str());
  std::printf("| clip | sigma | d | pairs | noisy: cells off > 1 px | noisy: EPE px | worst pair off |"
              " basic: cells off | basic: EPE px | PSNR of t from t+d: clean field | noisy field | basic field |"
              " no motion |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const std::string& path : clips) {
    std::vector<HostFrame> clean;
    try {
      eval::Clip clip = eval::read_y4m(path);
      const int n = std::min(static_cast<int>(frames), static_cast<int>(clip.frames.size()));
      for (int i = 0; i < n; ++i) clean.push_back(eval::luma_frame(clip.frames[i].view()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cudadenoise-motion-check: %s: %s\n", path.c_str(), e.what());
      return 3;
    }
    if (clean.size() < 2) {
      std::fprintf(stderr, "cudadenoise-motion-check: %s: fewer than two frames\n", path.c_str());
      return 3;
    }
    const int n = static_cast<int>(clean.size()), w = clean[0].view().width, h = clean[0].view().height;
    std::vector<LumaPyramid> clean_pyr;
    for (const auto& f : clean) clean_pyr.push_back(build_pyramid(components(f.view()).front(), mp));
    // What does not depend on the noise, once per distance: the clean fields (the
    // reference) and the prediction through them and through no motion.
    struct CleanPairs {
      std::vector<MotionField> truth;  // pair (t, t + d) at [t]
      double mse_clean = 0, mse_zero = 0;
    };
    std::vector<CleanPairs> by_distance;
    const MotionField zero(w, h, mp.cell);
    for (double dd : distance_list) {
      const int d = static_cast<int>(dd);
      CleanPairs c;
      for (int t = 0; t + d < n; ++t) {
        c.truth.push_back(estimate_motion(clean_pyr[t], clean_pyr[t + d], mp));
        const PlaneView from = components(clean[t].view()).front(), to = components(clean[t + d].view()).front();
        c.mse_clean += motion_check::compensation_mse(from, to, c.truth.back());
        c.mse_zero += motion_check::compensation_mse(from, to, zero);
      }
      by_distance.push_back(std::move(c));
    }
    for (double sigma : sigma_list) {
      std::vector<LumaPyramid> noisy_pyr, basic_pyr;
      for (int i = 0; i < n; ++i) {
        HostFrame noisy = eval::luma_frame(clean[i].view());  // a copy
        add_gaussian_noise(noisy.view(), sigma, static_cast<std::uint64_t>(seed) + i);
        noisy_pyr.push_back(build_pyramid(components(noisy.view()).front(), mp));
        if (basic != "none") {
          HostFrame est(PixelFormat::GRAY8, w, h);
          bm3d::bm3d_reference(components(noisy.view()), components(est.view()), 1, bp, {sigma},
                               static_cast<int>(threads));
          basic_pyr.push_back(build_pyramid(components(est.view()).front(), mp));
        }
      }
      for (std::size_t k = 0; k < distance_list.size(); ++k) {
        const int d = static_cast<int>(distance_list[k]);
        const CleanPairs& c = by_distance[k];
        Sums s;
        s.mse_clean = c.mse_clean, s.mse_zero = c.mse_zero;
        for (int t = 0; t + d < n; ++t) {
          const MotionField& truth = c.truth[t];
          const MotionField noisy = estimate_motion(noisy_pyr[t], noisy_pyr[t + d], mp);
          const PlaneView from = components(clean[t].view()).front(), to = components(clean[t + d].view()).front();
          const motion_check::Agreement a = motion_check::compare_fields(truth, noisy);
          add(s.noisy, a);
          s.worst_noisy = std::max(s.worst_noisy, a.off_fraction());
          s.mse_noisy += motion_check::compensation_mse(from, to, noisy);
          if (!basic_pyr.empty()) {
            const MotionField est = estimate_motion(basic_pyr[t], basic_pyr[t + d], mp);
            add(s.basic, motion_check::compare_fields(truth, est));
            s.mse_basic += motion_check::compensation_mse(from, to, est);
          }
          ++s.pairs;
        }
        if (s.pairs == 0) continue;
        auto db = [&](double mse) { return psnr_from_mse(mse / s.pairs, 255); };
        tools::Json row = {{"clip", path},
                           {"sigma", sigma},
                           {"distance", d},
                           {"pairs", s.pairs},
                           {"noisy_off", s.noisy.off_fraction()},
                           {"noisy_epe", s.noisy.epe},
                           {"worst_pair_off", s.worst_noisy},
                           {"psnr_clean_field", db(s.mse_clean)},
                           {"psnr_noisy_field", db(s.mse_noisy)},
                           {"psnr_no_motion", db(s.mse_zero)}};
        std::string basic_cols = " - | - |", basic_psnr = " - |";
        if (s.basic.cells) {
          row["basic_off"] = s.basic.off_fraction(), row["basic_epe"] = s.basic.epe;
          row["psnr_basic_field"] = db(s.mse_basic);
          char buf[96];
          std::snprintf(buf, sizeof buf, " %.1f %% | %.2f |", 100 * s.basic.off_fraction(), s.basic.epe);
          basic_cols = buf;
          std::snprintf(buf, sizeof buf, " %.2f |", db(s.mse_basic));
          basic_psnr = buf;
        }
        out["runs"].push_back(row);
        std::printf("| %s | %g | %d | %ld | %.1f %% | %.2f | %.1f %% |%s %.2f | %.2f |%s %.2f |\n", path.c_str(), sigma,
                    d, s.pairs, 100 * s.noisy.off_fraction(), s.noisy.epe, 100 * s.worst_noisy, basic_cols.c_str(),
                    db(s.mse_clean), db(s.mse_noisy), basic_psnr.c_str(), db(s.mse_zero));
        std::fflush(stdout);
      }
    }
  }
  if (!json_path.empty() && !(std::ofstream(json_path) << out.dump(1) << "\n")) {
    std::fprintf(stderr, "cudadenoise-motion-check: cannot write %s\n", json_path.c_str());
    return 5;
  }
  return 0;
}
