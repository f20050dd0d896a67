// cudadenoise-vbm3d-quality: the CPU harness that measured docs/VBM3D.md's
// quality tables. For each clip (.y4m; its luma is used) and each sigma it adds
// AWGN with fixed seeds (frame i of a clip gets seed + i), filters every frame
// with per-frame bm3d (its paper profile: the DCT and Walsh-Hadamard transforms
// and thresholds that vbm3d reuses, so both stand on equal footing) and with
// vbm3d (the CPU references), and prints the luma PSNR over the clip (from the mean of the
// frames' MSE) of the noisy input, bm3d, vbm3d's basic estimate and vbm3d, and
// vbm3d - bm3d. The CPU is slow: give it small clips (e.g. 320x240 crops of
// 20 to 40 frames; scripts/vbm3d-clips.sh makes them). bm3d's results depend only
// on the clip, sigma and seed, so --bm3d-cache keeps them in a text file
// between runs. With --gpu both run on the GPU instead (the CUDA kernels, so
// whole clips at their own size are practical; vbm3d in chunks of 50 frames as
// the temporal stream hands them out); the basic estimate is then not shown.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bm3d/bm3d_reference.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/noise.h"
#include "flags.h"
#include "frame_ops.h"
#include "vbm3d/vbm3d_reference.h"
#include "y4m.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#include "cudadenoise/stream_denoiser.h"
#include "vbm3d/vbm3d_cuda.h"
#endif

namespace {

using namespace cdn;

struct Options {
  std::string sigmas = "10,20,40";
  std::uint64_t seed = 2024;
  double frames = 0;  // 0: all
  double threads = 0;
  std::string bm3d_cache;
  bool no_bm3d = false;
  std::string profile = "quality";
  std::string bm3d_profile = "paper";
};

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(tools::parse_number("--sigma", item, false, 0.5, 100));
  return v;
}

double clip_psnr(const std::vector<HostFrame>& a, const std::vector<HostFrame>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += mse(components(a[i].view())[0], components(b[i].view())[0]);
  return psnr_from_mse(sum / a.size(), 255);
}

std::vector<HostFrame> add_noise(const std::vector<HostFrame>& clean, double sigma, std::uint64_t seed) {
  std::vector<HostFrame> noisy;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    noisy.push_back(eval::clone_frame(clean[i].view()));
    add_gaussian_noise(noisy.back().view(), sigma, seed + i);
  }
  return noisy;
}

#ifdef CDN_HAVE_CUDA
std::vector<HostFrame> bm3d_gpu(const std::vector<HostFrame>& noisy, double sigma, Bm3dProfile profile) {
  DenoiseSettings s;
  s.mode = Mode::Bm3d;
  s.bm3d.profile = profile;
  s.sigma = sigma;
  const FrameView& v = noisy[0].view();
  auto d = StreamDenoiser::create(Backend::Cuda, s, v.format, v.width, v.height);
  std::vector<HostFrame> out;
  for (const HostFrame& f : noisy) {
    out.emplace_back(f.view().format, f.view().width, f.view().height);
    d->process(f.view(), out.back().view());
  }
  return out;
}

std::vector<HostFrame> vbm3d_gpu(const std::vector<HostFrame>& noisy, const Vbm3dParams& p, double sigma) {
  const FrameView& v = noisy[0].view();
  const int n = static_cast<int>(noisy.size()), chunk = 50, reach = p.reach();
  CudaFramePool pool(v.format, v.width, v.height, n + chunk);
  std::vector<CudaFramePool::Handle> din;
  for (const HostFrame& f : noisy) {
    din.push_back(pool.acquire(nullptr));
    copy_frame_async(f.view(), din.back()->view(), nullptr);
  }
  std::vector<CudaFramePool::Handle> dout;
  for (int i = 0; i < chunk; ++i) dout.push_back(pool.acquire(nullptr));
  CDN_CUDA_CHECK(cudaDeviceSynchronize());
  Vbm3dCuda filter;
  std::vector<HostFrame> out;
  for (int c0 = 0; c0 < n; c0 += chunk) {
    const int c1 = std::min(n, c0 + chunk), w0 = std::max(0, c0 - reach), w1 = std::min(n, c1 + reach);
    std::vector<FrameView> window, outs;
    for (int f = w0; f < w1; ++f) window.push_back(din[f]->view());
    for (int f = c0; f < c1; ++f) outs.push_back(dout[f - c0]->view());
    filter.run(window, c0 - w0, c1 - w0, outs, 1, p, {sigma}, nullptr);
    for (int f = c0; f < c1; ++f) {
      out.emplace_back(v.format, v.width, v.height);
      copy_frame_async(outs[f - c0], out.back().view(), nullptr);
    }
    CDN_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return out;
}
#endif

std::map<std::string, double> read_cache(const std::string& path) {
  std::map<std::string, double> m;
  std::ifstream f(path);
  std::string key;
  double v;
  while (f >> key >> v) m[key] = v;
  return m;
}

// Adds a parameter flag for an int or float field.
template <typename T>
void add_field(tools::FlagParser& fp, const std::string& name, const std::string& help, T* field, double lo,
               double hi) {
  fp.add("--" + name, "N", help, [field, lo, hi](const std::string& flag, const std::string& v) {
    *field = static_cast<T>(tools::parse_number(flag, v, std::is_integral<T>::value, lo, hi));
  });
}

void add_phase_flags(tools::FlagParser& fp, const std::string& prefix, Vbm3dPhaseParams* p) {
  add_field(fp, prefix + "radius", "temporal radius", &p->radius, 0, kMaxVbm3dRadius);
  add_field(fp, prefix + "step", "reference step", &p->step, 1, 8);
  add_field(fp, prefix + "window", "search window side in frame t", &p->window, 1, 63);
  add_field(fp, prefix + "predictive", "predictive window side", &p->predictive, 1, 15);
  add_field(fp, prefix + "seeds", "matches followed per frame", &p->seeds, 1, 8);
  add_field(fp, prefix + "per-frame", "members per other frame", &p->per_frame, 1, 32);
  add_field(fp, prefix + "group", "group size", &p->group, 1, 32);
  add_field(fp, prefix + "tau", "distance threshold", &p->tau, 1, 1e6);
  add_field(fp, prefix + "own", "members of frame t", &p->own_frame, 0, 32);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  Vbm3dParams vp = vbm3d_quality_profile();
  bool fast = false, paper = false, no_motion = false, motion_on_noisy = false, ref_agg = false, no_vbm3d = false,
       gpu = false;
  double phases = 0, hard_tau_noise = -1;
  tools::FlagParser fp;
  fp.add_string("--sigma", "LIST", "comma-separated noise sigmas (default 10,20,40)", &o.sigmas);
  fp.add_uint64("--seed", "N", "noise seed of frame 0 (default 2024)", &o.seed);
  fp.add_number("--frames", "N", "frames of each clip (default all)", 0, 100000, &o.frames);
  fp.add_number("--threads", "N", "CPU threads (default all)", 0, 256, &o.threads);
  fp.add_string("--bm3d-cache", "FILE", "bm3d results kept between runs", &o.bm3d_cache);
  fp.add_switch("--no-bm3d", "skip bm3d", &o.no_bm3d);
  fp.add_string("--bm3d-profile", "NAME",
                "bm3d's profile (default paper: the transforms and thresholds vbm3d reuses; reference, balanced, ...)",
                &o.bm3d_profile);
  fp.add_switch("--no-vbm3d", "skip vbm3d (fills the bm3d cache)", &no_vbm3d);
  fp.add_switch("--fast", "start from the fast profile", &fast);
  fp.add_switch("--paper", "start from the paper's profile", &paper);
  bool wide = false;
  fp.add_switch("--wide", "start from the wide profile", &wide);
  fp.add_switch("--no-motion", "predictive search without motion (VBM3D's)", &no_motion);
  fp.add_switch("--motion-on-noisy", "the Wiener phase follows the noisy frames' motion, not the basic estimates'",
                &motion_on_noisy);
  fp.add_switch("--aggregate-reference", "aggregate the reference patch only", &ref_agg);
  bool group_agg = false, frame_agg = false;
  fp.add_switch("--aggregate-group", "aggregate every member into its own frame (the default profiles')", &group_agg);
  fp.add_switch("--aggregate-frame", "aggregate the members that lie in the reference's frame", &frame_agg);
  fp.add_number("--phases", "N", "1 or 2", 0, 2, &phases);
  fp.add_number("--hard-tau-noise", "X",
                "the hard phase's threshold at least X times 2 sigma^2 (0: tau alone, the paper's; default the profile's)",
                0, 100, &hard_tau_noise);
  fp.add_switch("--gpu", "run bm3d and vbm3d on the GPU", &gpu);
  std::vector<std::string> clips;
  try {
    // The profile first, so that the per-field flags apply over it.
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--fast") vp = vbm3d_fast_profile();
      if (std::string(argv[i]) == "--paper") vp = vbm3d_paper_profile();
      if (std::string(argv[i]) == "--wide") vp = vbm3d_wide_profile();
    }
    add_phase_flags(fp, "h-", &vp.hard);
    add_phase_flags(fp, "w-", &vp.wiener);
    add_field(fp, "lambda", "motion smoothness", &vp.motion_params.lambda, 0, 1024);
    add_field(fp, "refine", "motion refine radius", &vp.motion_params.refine_radius, 0, 4);
    add_field(fp, "margin", "motion window margin", &vp.motion_params.margin, 0, 8);
    clips = fp.parse(argc, argv);
    if (clips.empty()) throw tools::UsageError("no clip given");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\nusage: cudadenoise-vbm3d-quality [flags] CLIP.y4m...\n%s", e.what(), fp.help().c_str());
    return 2;
  }
  Bm3dSettings bp;
  {
    const ParamSpec* spec = find_param("bm3d-profile");
    int k = 0;
    while (spec->choices[k] && o.bm3d_profile != spec->choices[k]) ++k;
    if (!spec->choices[k]) {
      std::fprintf(stderr, "--bm3d-profile: '%s' is not a bm3d profile\n", o.bm3d_profile.c_str());
      return 2;
    }
    bp.profile = static_cast<Bm3dProfile>(k);
  }
  if (no_motion) vp.motion = false;
  if (motion_on_noisy) vp.motion_on_basic = false;
  if (ref_agg) vp.aggregation = Vbm3dAggregation::Reference;
  if (group_agg) vp.aggregation = Vbm3dAggregation::Group;
  if (frame_agg) vp.aggregation = Vbm3dAggregation::Frame;
  if (phases > 0) vp.phases = static_cast<int>(phases);
  if (hard_tau_noise >= 0) vp.hard_tau_noise = static_cast<float>(hard_tau_noise);
#ifndef CDN_HAVE_CUDA
  if (gpu) {
    std::fprintf(stderr, "--gpu: built without CUDA\n");
    return 2;
  }
#endif

  std::map<std::string, double> cache;
  if (!o.bm3d_cache.empty()) cache = read_cache(o.bm3d_cache);
  std::printf("%-14s %5s %7s %8s %8s %8s %8s %7s\n", "clip", "sigma", "frames", "noisy", "bm3d", "v-basic", "vbm3d",
              "gain");
  for (const std::string& path : clips) {
    eval::Clip clip = eval::read_y4m(path);
    std::vector<HostFrame> clean;
    const int n = o.frames > 0 ? std::min<int>(static_cast<int>(o.frames), clip.frames.size()) : clip.frames.size();
    for (int i = 0; i < n; ++i) clean.push_back(eval::luma_frame(clip.frames[i].view()));
    std::string name = path.substr(path.find_last_of('/') + 1);
    for (double sigma : parse_list(o.sigmas)) {
      const std::vector<HostFrame> noisy = add_noise(clean, sigma, o.seed);
      std::ostringstream key;
      key << name << ":" << n << ":" << sigma << ":" << o.seed << (gpu ? ":gpu" : "") << ":" << o.bm3d_profile;
      double bm3d_psnr = NAN;
      if (cache.count(key.str())) {
        bm3d_psnr = cache[key.str()];
      } else if (!o.no_bm3d) {
        std::vector<HostFrame> out;
#ifdef CDN_HAVE_CUDA
        if (gpu) out = bm3d_gpu(noisy, sigma, bp.profile);
#endif
        for (int i = 0; i < n && !gpu; ++i) {
          out.emplace_back(PixelFormat::GRAY8, clean[i].view().width, clean[i].view().height);
          bm3d::bm3d_reference(components(noisy[i].view()), components(out.back().view()), 1, bp, {sigma},
                               static_cast<int>(o.threads));
        }
        bm3d_psnr = clip_psnr(clean, out);
        if (!o.bm3d_cache.empty()) {
          std::ofstream(o.bm3d_cache, std::ios::app) << key.str() << " " << bm3d_psnr << "\n";
        }
      }
      if (no_vbm3d) {
        std::printf("%-14s %5g %7d %8.2f %8.2f\n", name.c_str(), sigma, n, clip_psnr(clean, noisy), bm3d_psnr);
        continue;
      }
      std::vector<HostFrame> basic, final;
#ifdef CDN_HAVE_CUDA
      if (gpu) final = vbm3d_gpu(noisy, vp, sigma);
#endif
      if (!gpu) {
        std::vector<std::vector<PlaneView>> window;
        for (const HostFrame& f : noisy) window.push_back(components(f.view()));
        const vbm3d::WindowEstimates e =
            vbm3d::vbm3d_estimates(window, 0, n, vp, {sigma}, static_cast<int>(o.threads));
        for (int i = 0; i < n; ++i) {
          basic.emplace_back(PixelFormat::GRAY8, clean[i].view().width, clean[i].view().height);
          final.emplace_back(PixelFormat::GRAY8, clean[i].view().width, clean[i].view().height);
          bm3d::store_rounded(e.basic[i][0], components(basic.back().view())[0]);
          bm3d::store_rounded(e.final[i][0], components(final.back().view())[0]);
        }
      }
      const double pv = clip_psnr(clean, final);
      std::printf("%-14s %5g %7d %8.2f %8.2f %8.2f %8.2f %+7.2f\n", name.c_str(), sigma, n, clip_psnr(clean, noisy),
                  bm3d_psnr, gpu ? NAN : clip_psnr(clean, basic), pv, pv - bm3d_psnr);
      std::fflush(stdout);
    }
  }
  return 0;
}
