// cudadenoise-nlm3d-quality: the harness of docs/NLM3D.md's whole-clip tables.
// For each clip (.y4m; its luma is used) and each sigma it adds AWGN with fixed
// seeds (frame i of a clip gets seed + i, as cudadenoise-vbm3d-quality does),
// runs nlm3d through the StreamDenoiser (the element's and tools' front door:
// the temporal window, chunks, motion fields) at each named set of nlm3d
// (named_sets.h; with parameters of the table changed, NAME:param=value...), and prints
// the luma PSNR over the clip (from the mean of the frames' MSE). With
// --write-noisy DIR it also writes each noisy clip as raw 8-bit luma,
// DIR/NAME-sSIGMA.y, for the peers' drivers (../shared/peers/README.md); with
// --score DIR it prints the PSNR of every DIR/NAME-sSIGMA-*.y file (a peer's
// output) against the clean clip.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/metrics.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/settings.h"
#include "cudadenoise/stream_denoiser.h"
#include "flags.h"
#include "frame_ops.h"
#include "y4m.h"

namespace {

using namespace cdn;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(item);
  return v;
}

double clip_psnr(const std::vector<HostFrame>& a, const std::vector<HostFrame>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += mse(components(a[i].view())[0], components(b[i].view())[0]);
  return psnr_from_mse(sum / a.size(), 255);
}

// A named set of nlm3d (named_sets.h) followed by NLM parameters of the table
// (settings.h), each ":name=value" (value: a number, or one of the parameter's
// words), e.g. fast:motion-search=off:frame-confidence=0.5. The result is validated.
DenoiseSettings named(const std::string& text, double sigma) {
  const std::size_t colon = text.find(':');
  const NamedSet* set = find_named_set("nlm3d", text.substr(0, colon));
  if (!set)
    throw tools::UsageError("--settings: unknown name " + text.substr(0, colon) + " (" + named_set_choices("nlm3d") +
                            ")");
  DenoiseSettings s = named_set_settings(*set);
  s.sigma = sigma;
  for (std::size_t at = colon; at != std::string::npos;) {
    const std::size_t next = text.find(':', at + 1);
    const std::string item = text.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    at = next;
    const std::size_t eq = item.find('=');
    const ParamSpec* spec = eq == std::string::npos ? nullptr : find_param(item.substr(0, eq));
    if (!spec || (spec->group != ParamGroup::Nlm && spec->group != ParamGroup::Temporal))
      throw tools::UsageError("--settings " + text + ": '" + item + "' is not NAME=VALUE of an NLM-3D parameter or window");
    spec->set(s, tools::parse_param_value(*spec, "--settings " + text + ": " + spec->name, item.substr(eq + 1)));
  }
  try {
    validate(s);
  } catch (const InvalidArgument& e) {
    throw tools::UsageError("--settings " + text + ": " + e.what());
  }
  return s;
}

std::vector<HostFrame> run(Backend b, const DenoiseSettings& s, const std::vector<HostFrame>& in) {
  const FrameView& f0 = in[0].view();
  auto d = StreamDenoiser::create(b, s, f0.format, f0.width, f0.height);
  std::vector<HostFrame> out;
  std::size_t next = 0;
  auto drain = [&] {
    while (next < in.size()) {
      HostFrame f(f0.format, f0.width, f0.height);
      if (!d->pop(f.view())) break;
      out.push_back(std::move(f));
      ++next;
    }
  };
  for (const HostFrame& f : in) {
    d->push(f.view());
    drain();
  }
  d->finish();
  drain();
  if (out.size() != in.size()) throw Error("nlm3d: frames out differ from frames in");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string sigmas = "10,20,40", settings = "video,rt0", write_noisy, score;
  std::uint64_t seed = 2024;
  double frames = 0;
  bool gpu = false;
  tools::FlagParser fp;
  fp.add_string("--sigma", "LIST", "comma-separated noise sigmas (default 10,20,40)", &sigmas);
  fp.add_uint64("--seed", "N", "noise seed of frame 0 (default 2024)", &seed);
  fp.add_number("--frames", "N", "frames of each clip (default all)", 0, 100000, &frames);
  const std::string settings_help = "named sets of nlm3d (" + named_set_choices("nlm3d") +
                                    "; cudadenoise-eval info lists them), or none (default video,rt0); each may add "
                                    "NLM-3D parameters, :name=value each (fast:motion-search=off)";
  fp.add_string("--settings", "LIST", settings_help.c_str(), &settings);
  fp.add_switch("--gpu", "run on the GPU (default: the CPU reference)", &gpu);
  fp.add_string("--write-noisy", "DIR", "write each noisy luma clip as DIR/NAME-sSIGMA.y", &write_noisy);
  fp.add_string("--score", "DIR", "print the PSNR of DIR/NAME-sSIGMA-*.y (peers' outputs)", &score);
  std::vector<std::string> clips;
  try {
    clips = fp.parse(argc, argv);
    if (clips.empty()) throw tools::UsageError("no clip given");
    if (settings == "none") settings.clear();  // scoring only
    for (const std::string& n : split(settings)) named(n, 20);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\nusage: cudadenoise-nlm3d-quality [flags] CLIP.y4m...\n%s", e.what(), fp.help().c_str());
    return 2;
  }
  try {
    std::printf("%-10s %5s %6s %9s %-16s %8s\n", "clip", "sigma", "frames", "size", "method", "psnr");
    for (const std::string& path : clips) {
      eval::Clip clip = eval::read_y4m(path);
      std::vector<HostFrame> clean;
      const int n = frames > 0 ? std::min<int>(static_cast<int>(frames), clip.frames.size()) : clip.frames.size();
      for (int i = 0; i < n; ++i) clean.push_back(eval::luma_frame(clip.frames[i].view()));
      std::string name = path.substr(path.find_last_of('/') + 1);
      name = name.substr(0, name.find('.'));
      const int w = clean[0].view().width, h = clean[0].view().height;
      char size[32];
      std::snprintf(size, sizeof size, "%dx%d", w, h);
      for (const std::string& st : split(sigmas)) {
        const double sigma = tools::parse_number("--sigma", st, false, 0.5, 100);
        std::vector<HostFrame> noisy;
        for (int i = 0; i < n; ++i) {
          noisy.push_back(eval::clone_frame(clean[i].view()));
          add_gaussian_noise(noisy.back().view(), sigma, seed + i);
        }
        const std::string stem = name + "-s" + st;
        std::printf("%-10s %5s %6d %9s %-16s %8.2f\n", name.c_str(), st.c_str(), n, size, "noisy", clip_psnr(clean, noisy));
        if (!write_noisy.empty()) {
          std::ofstream f(write_noisy + "/" + stem + ".y", std::ios::binary);
          for (const HostFrame& fr : noisy) {
            const PlaneView y = components(fr.view())[0];
            for (int r = 0; r < h; ++r)
              f.write(static_cast<const char*>(y.data) + static_cast<std::size_t>(r) * y.pitch, w);
          }
          if (!f) throw Error("cannot write " + write_noisy + "/" + stem + ".y");
        }
        for (const std::string& sn : split(settings)) {
          const DenoiseSettings s = named(sn, sigma);
          const std::vector<HostFrame> out = run(gpu ? Backend::Cuda : Backend::Cpu, s, noisy);
          std::printf("%-10s %5s %6d %9s %-16s %8.2f\n", name.c_str(), st.c_str(), n, size, sn.c_str(), clip_psnr(clean, out));
          std::fflush(stdout);
        }
        if (!score.empty()) {
          DIR* dir = opendir(score.c_str());
          std::vector<std::string> files;
          for (dirent* e; dir && (e = readdir(dir));) {
            const std::string f = e->d_name;
            if (f.rfind(stem + "-", 0) == 0 && f.size() > 2 && f.compare(f.size() - 2, 2, ".y") == 0) files.push_back(f);
          }
          if (dir) closedir(dir);
          std::sort(files.begin(), files.end());
          for (const std::string& f : files) {
            std::ifstream in(score + "/" + f, std::ios::binary);
            std::vector<HostFrame> out;
            for (int i = 0; i < n; ++i) {
              out.emplace_back(PixelFormat::GRAY8, w, h);
              const PlaneView y = components(out.back().view())[0];
              for (int r = 0; r < h; ++r) in.read(static_cast<char*>(y.data) + static_cast<std::size_t>(r) * y.pitch, w);
            }
            if (!in) {
              std::printf("%-10s %5s %6d %9s %s: short file\n", name.c_str(), st.c_str(), n, size, f.c_str());
              continue;
            }
            const std::string method = f.substr(stem.size() + 1, f.size() - stem.size() - 3);
            std::printf("%-10s %5s %6d %9s %-16s %8.2f\n", name.c_str(), st.c_str(), n, size, method.c_str(), clip_psnr(clean, out));
          }
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-nlm3d-quality: %s\n", e.what());
    return 4;
  }
  return 0;
}
