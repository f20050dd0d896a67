// cudadenoise-bm3d-clips: BM3D's quality and speed on raw 8-bit gray frames, side
// by side with a peer's output on the same noisy frames (issue 17; docs/BM3D.md,
// "Speed against quality").
//
// Reads N frames of W x H bytes (a raw .y file: `ffmpeg -i clip -vf format=gray
// -f rawvideo clean.y`), adds AWGN of --sigma to each (kernels/include/cudadenoise/noise.h, frame f
// seeded with --seed + f, rounded and clipped as every tool does), optionally
// writes the noisy frames for a peer (--noisy-out), then for each --run
// LABEL:SETTINGS denoises them with cudadenoise's bm3d (SETTINGS: parameter-table
// names and values, e.g. "bm3d-profile=reference" or
// "bm3d-profile=balanced,bm3d-step=3") and for each --measure LABEL:FILE reads a
// peer's output. Prints one line per run: the mean over the frames of the luma
// PSNR against the clean frames, and on the GPU the median milliseconds per frame
// of the kernels (device frames, CUDA events around StreamDenoiser::enqueue) and
// end to end (host frames: upload, filter, download).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/settings.h"
#include "cudadenoise/stream_denoiser.h"
#include "flags.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace {

using namespace cdn;

std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), {});
}

void write_file(const std::string& path, const std::vector<unsigned char>& data) {
  const std::string part = path + ".part";
  {
    std::ofstream f(part, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!f) throw std::runtime_error("cannot write " + part);
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + part);
}

unsigned char* row_of(const FrameView& f, int y) {
  return static_cast<unsigned char*>(f.data[0]) + static_cast<std::size_t>(y) * f.pitch[0];
}

HostFrame gray_frame(const unsigned char* bytes, int w, int h) {
  HostFrame f(PixelFormat::GRAY8, w, h);
  for (int y = 0; y < h; ++y)
    std::copy(bytes + static_cast<std::size_t>(y) * w, bytes + static_cast<std::size_t>(y + 1) * w,
              row_of(f.view(), y));
  return f;
}

double psnr(const FrameView& a, const unsigned char* clean, int w, int h) {
  double se = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double d = double(row_of(a, y)[x]) - clean[y * w + x];
      se += d * d;
    }
  const double mse = se / (double(w) * h);
  return mse > 0 ? 10 * std::log10(255.0 * 255.0 / mse) : 99.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// "name=value,name=value" over the parameter table.
void apply_settings(const std::string& text, DenoiseSettings* s) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    at = end + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) throw tools::UsageError("--run: expected name=value, got '" + item + "'");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    const ParamSpec* p = find_param(name);
    if (!p) throw tools::UsageError("--run: no parameter " + name);
    double v = 0;
    bool named = false;
    for (int k = 0; p->choices && p->choices[k]; ++k)
      if (value == p->choices[k]) v = p->min + k, named = true;
    if (!named && p->word && value == p->word) v = p->word_value, named = true;
    if (!named) v = tools::parse_number("--run " + name, value, p->integer, p->min, p->max);
    p->set(*s, v);
  }
  validate(*s);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    tools::FlagParser flags;
    std::string clean_path, noisy_out, backend_name = "cuda";
    double width = 0, height = 0, frames = 0, sigma = 20, iterations = 5;
    std::uint64_t seed = 1;
    std::vector<std::string> runs, measures;
    bool help = false;
    flags.add_string("--clean", "FILE", "clean frames, raw 8-bit gray (W x H bytes each)", &clean_path);
    flags.add_number("--width", "W", "frame width", 8, 16384, &width);
    flags.add_number("--height", "H", "frame height", 8, 16384, &height);
    flags.add_number("--frames", "N", "frames to use (0: all)", 0, 100000, &frames);
    flags.add_number("--sigma", "S", "AWGN std in 8-bit code values", 0, 255, &sigma);
    flags.add_uint64("--seed", "K", "noise seed of frame 0 (frame f: K + f)", &seed);
    flags.add_string("--noisy-out", "FILE", "write the noisy frames here", &noisy_out);
    flags.add("--run", "LABEL:SETTINGS", "denoise with bm3d and these parameter-table settings (repeatable)",
              [&](const std::string&, const std::string& v) { runs.push_back(v); });
    flags.add("--measure", "LABEL:FILE", "PSNR of a peer's output frames (repeatable)",
              [&](const std::string&, const std::string& v) { measures.push_back(v); });
    flags.add_choice("--backend", {"cuda", "cpu"}, "where our runs go", &backend_name);
    flags.add_number("--iterations", "N", "timed runs per frame 0 (GPU)", 0, 1000, &iterations);
    flags.add_switch("-h,--help", "this help", &help);
    flags.parse(argc, argv);
    if (help || clean_path.empty() || width == 0 || height == 0) {
      std::puts("usage: cudadenoise-bm3d-clips --clean FILE --width W --height H [--frames N] --sigma S [--seed K]\n"
                "       [--noisy-out FILE] [--run LABEL:SETTINGS]... [--measure LABEL:FILE]... [--backend cuda|cpu]");
      std::fputs(flags.help().c_str(), stdout);
      return help ? 0 : 2;
    }
    const int w = static_cast<int>(width), h = static_cast<int>(height);
    const std::size_t frame_bytes = static_cast<std::size_t>(w) * h;
    const std::vector<unsigned char> clean = read_file(clean_path);
    int n = static_cast<int>(clean.size() / frame_bytes);
    if (n == 0) throw std::runtime_error(clean_path + " holds no whole frame");
    if (frames > 0) n = std::min(n, static_cast<int>(frames));

    std::vector<HostFrame> noisy;
    std::vector<unsigned char> noisy_bytes;
    for (int f = 0; f < n; ++f) {
      noisy.push_back(gray_frame(clean.data() + f * frame_bytes, w, h));
      add_gaussian_noise(noisy.back().view(), sigma, seed + static_cast<std::uint64_t>(f));
      for (int y = 0; y < h; ++y) {
        const unsigned char* row = row_of(noisy.back().view(), y);
        noisy_bytes.insert(noisy_bytes.end(), row, row + w);
      }
    }
    if (!noisy_out.empty()) write_file(noisy_out, noisy_bytes);
    double noisy_psnr = 0;
    for (int f = 0; f < n; ++f) noisy_psnr += psnr(noisy[f].view(), clean.data() + f * frame_bytes, w, h) / n;
    std::printf("RESULT label=noisy sigma=%g frames=%d size=%dx%d psnr=%.4f\n", sigma, n, w, h, noisy_psnr);

    for (const std::string& m : measures) {
      const std::size_t colon = m.find(':');
      if (colon == std::string::npos) throw tools::UsageError("--measure: expected LABEL:FILE");
      const std::vector<unsigned char> out = read_file(m.substr(colon + 1));
      if (out.size() < n * frame_bytes) throw std::runtime_error(m.substr(colon + 1) + " is too short");
      double p = 0;
      for (int f = 0; f < n; ++f) {
        const HostFrame o = gray_frame(out.data() + f * frame_bytes, w, h);
        p += psnr(o.view(), clean.data() + f * frame_bytes, w, h) / n;
      }
      std::printf("RESULT label=%s sigma=%g frames=%d size=%dx%d psnr=%.4f\n", m.substr(0, colon).c_str(), sigma, n,
                  w, h, p);
    }

    for (const std::string& r : runs) {
      const std::size_t colon = r.find(':');
      if (colon == std::string::npos) throw tools::UsageError("--run: expected LABEL:SETTINGS");
      DenoiseSettings s;
      s.mode = Mode::Bm3d;
      s.sigma = sigma;
      apply_settings(r.substr(colon + 1), &s);
      const Backend backend = backend_name == "cpu" ? Backend::Cpu : Backend::Cuda;
      auto den = StreamDenoiser::create(backend, s, PixelFormat::GRAY8, w, h);
      double p = 0;
      HostFrame out(PixelFormat::GRAY8, w, h);
      for (int f = 0; f < n; ++f) {
        den->process(noisy[f].view(), out.view());
        p += psnr(out.view(), clean.data() + f * frame_bytes, w, h) / n;
      }
      double kernel_ms = 0, e2e_ms = 0;
#ifdef CDN_HAVE_CUDA
      if (backend == Backend::Cuda && iterations > 0) {
        cudaStream_t stream;
        cudaEvent_t start, stop;
        CDN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CDN_CUDA_CHECK(cudaEventCreate(&start));
        CDN_CUDA_CHECK(cudaEventCreate(&stop));
        {
          CudaFramePool pool(PixelFormat::GRAY8, w, h, 2);
          auto din = pool.acquire(stream), dout = pool.acquire(stream);
          const FrameView& in = noisy[0].view();
          copy_frame_async(in, din->view(), stream);
          CDN_CUDA_CHECK(cudaStreamSynchronize(stream));
          std::vector<double> k, e;
          den->process(din->view(), dout->view(), stream);
          for (int i = 0; i < iterations; ++i) {
            CDN_CUDA_CHECK(cudaEventRecord(start, stream));
            den->enqueue(din->view(), dout->view(), stream);
            CDN_CUDA_CHECK(cudaEventRecord(stop, stream));
            CDN_CUDA_CHECK(cudaEventSynchronize(stop));
            float ms = 0;
            CDN_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
            k.push_back(ms);
          }
          for (int i = 0; i < iterations; ++i) {
            const auto a = std::chrono::steady_clock::now();
            den->process(in, out.view(), stream);
            e.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
          }
          kernel_ms = median(k);
          e2e_ms = median(e);
        }
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        cudaStreamDestroy(stream);
      }
#endif
      std::printf("RESULT label=%s sigma=%g frames=%d size=%dx%d psnr=%.4f kernel_ms=%.3f e2e_ms=%.3f\n",
                  r.substr(0, colon).c_str(), sigma, n, w, h, p, kernel_ms, e2e_ms);
      std::fflush(stdout);
    }
    return 0;
  } catch (const tools::UsageError& e) {
    std::fprintf(stderr, "cudadenoise-bm3d-clips: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-bm3d-clips: %s\n", e.what());
    return 1;
  }
}
