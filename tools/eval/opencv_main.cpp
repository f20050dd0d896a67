// opencv_main.cpp: cudadenoise-eval-opencv, the OpenCV peers of the report:
// cv::fastNlMeansDenoising (one frame) and cv::fastNlMeansDenoisingMulti (a
// temporal window of frames) from Debian 12's libopencv-photo, run on a y4m clip
// plane by plane (Y, then Cb and Cr at their own size, all with the same h:
// AWGN of the same sigma is in every plane), written to a y4m clip.
//
//   cudadenoise-eval-opencv --input noisy.y4m -o out.y4m --method multi --h 12 --threads 16
//
// The window of the multi method is centred on each frame and holds --temporal
// frames (odd), fewer where the clip's ends cut it (OpenCV wants it centred and
// inside the clip). Prints one JSON line: the settings, OpenCV's version,
// parallel framework and thread count, and each frame's wall time in ms (all
// planes). Links only opencv_core, opencv_imgproc and opencv_photo.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/photo.hpp>

#include "flags.h"
#include "json.h"
#include "y4m.h"

namespace {

using namespace cdn;
using namespace cdn::eval;

// The "Parallel framework:" line of OpenCV's build information (e.g. "TBB (ver 2021.8 interface 12080)").
std::string parallel_framework() {
  const std::string& b = cv::getBuildInformation();
  const std::string key = "Parallel framework:";
  const std::size_t at = b.find(key);
  if (at == std::string::npos) return "unknown";
  std::size_t s = b.find_first_not_of(' ', at + key.size()), e = b.find('\n', at);
  return b.substr(s, e == std::string::npos ? std::string::npos : e - s);
}

cv::Mat plane_mat(const PlaneView& p) {
  if (p.pixel_stride != 1 || p.bytes_per_sample != 1) throw std::runtime_error("opencv peers take 8-bit planar frames");
  return cv::Mat(p.height, p.width, CV_8UC1, p.data, p.pitch);
}

int run(int argc, char** argv) {
  tools::FlagParser flags;
  std::string input, output, method = "single";
  double h = 10, tmpl = 7, search = 21, temporal = 5, threads = 0;
  bool help = false;
  flags.add_string("--input", "Y4M", "the noisy clip", &input);
  flags.add_string("-o,--output", "Y4M", "the denoised clip", &output);
  flags.add_choice("--method", {"single", "multi"}, "fastNlMeansDenoising or fastNlMeansDenoisingMulti", &method);
  flags.add_number("--h", "H", "filter strength h, every plane (default 10)", 0, 1000, &h);
  flags.add_number("--template", "N", "templateWindowSize (default 7, OpenCV's recommendation)", 1, 99, &tmpl);
  flags.add_number("--search", "N", "searchWindowSize (default 21, OpenCV's recommendation)", 1, 199, &search);
  flags.add_number("--temporal", "N", "temporalWindowSize of multi, odd (default 5)", 1, 99, &temporal);
  flags.add_number("--threads", "N", "cv::setNumThreads (default 0: OpenCV's default, all cores)", 0, 4096, &threads);
  flags.add_switch("-h,--help", "show this help", &help);
  if (!flags.parse(argc, argv).empty()) throw tools::UsageError("no positional arguments");
  if (help) {
    std::printf("Usage: cudadenoise-eval-opencv --input Y4M -o Y4M [options]\n\n%s", flags.help().c_str());
    return 0;
  }
  if (input.empty() || output.empty()) throw tools::UsageError("--input and --output are required");
  if (static_cast<int>(temporal) % 2 == 0) throw tools::UsageError("--temporal must be odd");
  if (threads > 0) cv::setNumThreads(static_cast<int>(threads));

  const Clip clip = read_y4m(input);
  const int n = static_cast<int>(clip.frames.size());
  std::vector<HostFrame> out;
  std::vector<std::vector<cv::Mat>> planes(n);  // planes[f][c]
  for (int f = 0; f < n; ++f) {
    out.emplace_back(clip.info.format, clip.info.width, clip.info.height);
    for (const PlaneView& p : components(clip.frames[f].view())) planes[f].push_back(plane_mat(p));
  }
  tools::Json times = tools::Json::array();
  for (int f = 0; f < n; ++f) {
    const std::vector<PlaneView> dst = components(out[f].view());
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t c = 0; c < dst.size(); ++c) {
      cv::Mat d = plane_mat(dst[c]);
      if (method == "single") {
        cv::fastNlMeansDenoising(planes[f][c], d, static_cast<float>(h), static_cast<int>(tmpl), static_cast<int>(search));
      } else {
        const int reach = std::min(static_cast<int>(temporal) / 2, std::min(f, n - 1 - f));
        std::vector<cv::Mat> window;
        for (int k = f - reach; k <= f + reach; ++k) window.push_back(planes[k][c]);
        cv::fastNlMeansDenoisingMulti(window, d, reach, 2 * reach + 1, static_cast<float>(h), static_cast<int>(tmpl),
                                      static_cast<int>(search));
      }
      if (d.data != dst[c].data) throw std::runtime_error("OpenCV reallocated the output plane");
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    times.push_back(ms);
  }
  write_y4m(output, clip.info, out);
  tools::Json j;
  j["method"] = method, j["h"] = h, j["template"] = static_cast<int>(tmpl), j["search"] = static_cast<int>(search);
  j["temporal"] = method == "multi" ? static_cast<int>(temporal) : 1;
  j["threads"] = cv::getNumThreads(), j["framework"] = parallel_framework();
  j["opencv"] = CV_VERSION, j["frames"] = n, j["ms"] = times;
  std::printf("%s\n", tools::json_line(j).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const cdn::tools::UsageError& e) {
    std::fprintf(stderr, "cudadenoise-eval-opencv: %s (see --help)\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-eval-opencv: %s\n", e.what());
    return 1;
  }
}
