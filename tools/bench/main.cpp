// cudadenoise-bench: milliseconds per frame and megapixels per second of each
// mode, size, format and backend, printed as a table.
//
// Content is real: the luma of a photo (camera.png, or the built-in test
// picture when the test data is absent) tiled with mirroring to the frame size,
// chroma from the same picture's colour, plus AWGN sigma 25. Never zeros.
// "kernel" is the device time of StreamDenoiser::enqueue on device frames (what
// the element and the transcode tool pay on the zero-copy path), between CUDA
// events on the same stream; "end-to-end" is process on host frames: upload, filter, download.
// Timings are medians over --iterations runs after --warmup runs.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "addnoise_table.h"
#include "bm3d_table.h"
#ifdef CDN_BENCH_CLIPS
#include "clip_table.h"
#endif
#include "content.h"
#include "convert.h"
#include "exit_codes.h"
#include "cudadenoise/backend.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/named_sets.h"
#include "cudadenoise/noise.h"
#include "cudadenoise/presets.h"
#include "cudadenoise/stream_pump.h"
#include "image_io.h"
#include "mode_runner.h"
#include "nlm3d_table.h"
#include "preset_table.h"
#include "streams_table.h"
#include "test_picture.h"
#include "vbm3d_table.h"

#ifdef CDN_HAVE_CUDA
#include <cuda_runtime.h>

#include "cudadenoise/cuda_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/frame_pool.h"
#endif

namespace {

using namespace cdn;
using bench::make_frame;
using bench::source_picture;

struct Options {
  int iterations = 20;
  int cpu_iterations = 3;
  int warmup = 3;
  bool cpu = true;
  bool gpu = true;
  bool pipd = true;
  bool nlm = true;
  bool bm3d = true;
  bool presets = true;
  bool addnoise = true;
  bool scaling = true;  // the temporal presets over several workers / GPUs
  std::vector<int> streams;  // --streams: stream counts of the streams table (streams_table.h); empty: not run
  std::vector<std::string> streams_presets = {"standard", "draft", "live", "video"};
  int streams_frames = 150;
  int bm3d_iterations = 5;
  bool vbm3d = true;
  int vbm3d_iterations = 3;
  int vbm3d_chunk = 50;
  bool vbm3d_stream_only = false;
  int nlm_frames = 100;
  std::vector<std::string> clips;  // --clip: real footage (clip_table.h)
  int clip_frames = 40, clip_length = 150;
  std::string data_dir = ".testdata";
  std::vector<std::pair<int, int>> sizes = {{512, 512}, {1920, 1080}, {3840, 2160}};
};

void usage() {
  std::puts(
      "usage: cudadenoise-bench [--iterations N] [--cpu-iterations N] [--warmup N] [--no-cpu] [--no-gpu]\n"
      "                         [--no-pipd] [--no-nlm] [--no-bm3d] [--nlm-frames N] [--bm3d-iterations N]\n"
      "                         [--no-vbm3d] [--vbm3d-iterations N] [--vbm3d-chunk N] [--vbm3d-stream-only]\n"
      "                         [--no-presets] [--presets-only] [--no-addnoise] [--addnoise]\n"
      "                         [--no-scaling] [--scaling-only] [--streams N,N... | --streams-only N,N...]\n"
      "                         [--streams-presets P,P...] [--streams-frames N]\n"
      "                         [--size WxH]... [--data DIR] [--clip FILE.y4m]... [--clip-only]\n"
      "                         [--clip-frames N] [--clip-length N]\n"
      "Prints a table of ms per frame and megapixels per second for PI-PD and hybrid at each size\n"
      "(the paper's settings, and docs/PIPD.md's quality settings),\n"
      "for GRAY8 (a luma plane), NV12 and P010_10LE (all planes), on the GPU (kernel and end-to-end)\n"
      "and on the CPU (all hardware threads); then nlm3d at 1080p on the GPU for the papers' search and\n"
      "patch cubes (11^3 and 21^3, 3^3 and 5^3) in GRAY8, 11^3 / 3^3 in NV12 and P010_10LE, and its\n"
      "kernels alone for the named settings (paper, video, fast;\n"
      "docs/NLM3D.md) in GRAY8 and NV12; then every preset of a temporal mode at 1080p NV12 with its chunks\n"
      "spread over one GPU, two workers on it and every GPU (--scaling-only: that table only); then bm3d at each size (paper, reference and fast profiles, block matching,\n"
      "filtering and the rest apart, device memory) and on the CPU at the first size; then vbm3d\n"
      "(quality and fast profiles, 1080p GRAY8, NV12 and P010, 4K NV12; per output frame of a chunk:\n"
      "motion, matching, filtering and the rest apart, device memory) and its CPU reference at 320x240; then every preset\n"
      "(sigma auto) on NV12 at 1920x1080 and 3840x2160 on the GPU, and the default on the CPU; then the noise\n"
      "of cudaaddnoise (NV12 and P010_10LE at 1920x1080 and 3840x2160: the old xoshiro generator and the\n"
      "counter-based one on the CPU, the counter-based one on the GPU). --addnoise: that table only.\n"
      "--streams N,N...: then N 1080p streams at once in one process for each N, on one GPU and on every GPU,\n"
      "for --streams-presets (standard,draft,live,video), sigma auto, --streams-frames frames each (150);\n"
      "--streams-only: that table only.\n"
      "--clip: real footage (8-bit y4m, 4:2:0): its first --clip-frames frames (40) with AWGN sigma 20,\n"
      "played forwards and backwards for --clip-length frames (150) through the temporal modes' named\n"
      "settings in GRAY8 and NV12 on the GPU, first; --clip-only: that table only.\n"
      "Without a CUDA device the GPU rows are left out (the first line says why).\n"
      "Exit codes: 0 success, 2 bad arguments, 4 a failure while measuring, 6 no CUDA device\n"
      "with --no-cpu (nothing else to measure; the same code and words as the other tools).");
}

// `v` as a whole number of 1 or more, all of it ("3x" is not one); false if not.
bool count_from(const char* v, int* out) {
  if (!v) return false;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || errno == ERANGE || n < 1 || n > INT_MAX) return false;
  *out = static_cast<int>(n);
  return true;
}

// A per-frame mode's kernel and end-to-end times through the one runner
// (mode_runner.h): on the GPU, CUDA events around the kernels on device frames
// and the wall time of host frames in and out; on the CPU, both the wall time.
struct Result {
  double kernel_ms = 0, e2e_ms = 0;
};

Result time_frame(Backend b, const std::vector<HostFrame>& frame, const DenoiseSettings& s, const Options& o) {
  const bool cpu = b == Backend::Cpu;
  const eval::ModeRun r = eval::run_mode(frame, b, s, cpu ? 1 : o.warmup, cpu ? o.cpu_iterations : o.iterations);
  return {cpu ? r.e2e_ms : r.device_ms, r.e2e_ms};
}

#ifdef CDN_HAVE_CUDA
// A temporal mode: a stream of device frames through StreamDenoiser, pushing
// and popping every ready frame (stream_pump.h) as the element does; ms per
// frame over `frames` frames after a
// warm-up stream, the 50-frame chunk included whole. Making the denoiser (its
// frame pools, allocated up front) is timed apart, into *setup_ms when given: an
// element or the transcode tool does it once per stream. *longest_push_ms: the
// slowest push() (a stall behind a running chunk shows there).
double time_nlm_gpu(const DenoiseSettings& s, const FrameView& host, int frames, const std::vector<int>& devices = {},
                    double* setup_ms = nullptr, double* longest_push_ms = nullptr) {
  CudaFramePool pool(host.format, host.width, host.height, 2);
  auto din = pool.acquire(nullptr), dout = pool.acquire(nullptr);
  copy_frame_async(host, din->view(), nullptr);
  CDN_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  using clock = std::chrono::steady_clock;
  auto ms_since = [](clock::time_point a) { return std::chrono::duration<double, std::milli>(clock::now() - a).count(); };
  auto run = [&](int n) {
    const auto a = clock::now();
    auto d = StreamDenoiser::create(Backend::Cuda, s, host.format, host.width, host.height, devices);
    if (setup_ms) *setup_ms = ms_since(a);
    const auto b = clock::now();
    int out = 0;
    double longest = 0;
    FunctionSink sink([&] { return dout->view(); }, [&] { return ++out > 0; });
    for (int i = 0; i < n; ++i) {
      const auto p = clock::now();
      d->push(din->view());
      longest = std::max(longest, ms_since(p));
      pop_ready(*d, sink);
    }
    if (longest_push_ms) *longest_push_ms = longest;
    drain(*d, sink);
    if (out != n) throw Error("bench: frames out differ from frames in");
    return ms_since(b);
  };
  run(50 * std::max<int>(1, static_cast<int>(devices.size())));  // warm-up: a chunk per worker (module load)
  return run(frames) / frames;
}
#endif

std::vector<std::string> split_commas(const std::string& v) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= v.size() && !v.empty()) {
    const std::size_t comma = std::min(v.find(',', at), v.size());
    out.push_back(v.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

// Returns "" or what is wrong, naming the flag (as the other tools' parser does).
std::string parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const std::string needs_count = a + " needs a whole number of 1 or more";
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--iterations" || a == "--cpu-iterations" || a == "--warmup") {
      if (!count_from(next(), &(a == "--iterations" ? o->iterations : a == "--warmup" ? o->warmup : o->cpu_iterations)))
        return needs_count;
    } else if (a == "--no-cpu") {
      o->cpu = false;
    } else if (a == "--no-gpu") {
      o->gpu = false;
    } else if (a == "--no-pipd") {
      o->pipd = false;
    } else if (a == "--no-nlm") {
      o->nlm = false;
    } else if (a == "--no-presets") {
      o->presets = false;
    } else if (a == "--presets-only") {
      o->pipd = o->nlm = o->bm3d = o->vbm3d = o->addnoise = o->scaling = false;
    } else if (a == "--no-scaling") {
      o->scaling = false;
    } else if (a == "--scaling-only") {
      o->pipd = o->nlm = o->bm3d = o->vbm3d = o->addnoise = o->presets = false;
    } else if (a == "--no-addnoise") {
      o->addnoise = false;
    } else if (a == "--addnoise") {
      o->pipd = o->nlm = o->bm3d = o->vbm3d = o->presets = o->scaling = false;
    } else if (a == "--clip") {
      const char* v = next();
      if (!v) return a + " needs a value (a y4m file)";
      o->clips.push_back(v);
    } else if (a == "--clip-only") {
      o->pipd = o->nlm = o->bm3d = o->vbm3d = o->presets = o->addnoise = o->scaling = false;
    } else if (a == "--clip-frames" || a == "--clip-length") {
      if (!count_from(next(), &(a == "--clip-frames" ? o->clip_frames : o->clip_length))) return needs_count;
    } else if (a == "--no-bm3d") {
      o->bm3d = false;
    } else if (a == "--no-vbm3d") {
      o->vbm3d = false;
    } else if (a == "--vbm3d-stream-only") {
      o->vbm3d_stream_only = true;
    } else if (a == "--vbm3d-iterations" || a == "--vbm3d-chunk") {
      if (!count_from(next(), &(a == "--vbm3d-chunk" ? o->vbm3d_chunk : o->vbm3d_iterations))) return needs_count;
    } else if (a == "--bm3d-iterations") {
      if (!count_from(next(), &o->bm3d_iterations)) return needs_count;
    } else if (a == "--streams" || a == "--streams-only") {
      const char* v = next();
      o->streams.clear();
      for (const std::string& item : split_commas(v ? v : "")) {
        int n = 0;
        if (!count_from(item.c_str(), &n)) return a + " needs whole numbers of 1 or more, with commas between";
        o->streams.push_back(n);
      }
      if (o->streams.empty()) return a + " needs whole numbers of 1 or more, with commas between";
      if (a == "--streams-only") o->pipd = o->nlm = o->bm3d = o->vbm3d = o->presets = o->addnoise = o->scaling = false;
    } else if (a == "--streams-presets") {
      const char* v = next();
      o->streams_presets = split_commas(v ? v : "");
      for (const std::string& name : o->streams_presets)
        if (!find_preset(name)) return "--streams-presets: no preset " + name + " (" + preset_choices() + ")";
      if (o->streams_presets.empty()) return "--streams-presets needs preset names, with commas between";
    } else if (a == "--streams-frames") {
      if (!count_from(next(), &o->streams_frames)) return needs_count;
    } else if (a == "--nlm-frames") {
      if (!count_from(next(), &o->nlm_frames)) return needs_count;
    } else if (a == "--data") {
      const char* v = next();
      if (!v) return a + " needs a value (a folder)";
      o->data_dir = v;
    } else if (a == "--size") {
      const char* v = next();
      int w, h, used = 0;
      if (!v || std::sscanf(v, "%dx%d%n", &w, &h, &used) != 2 || v[used] != '\0' || w < 1 || h < 1)
        return a + " needs WIDTHxHEIGHT";
      if (o->sizes.size() == 3 && o->sizes[0].first == 512) o->sizes.clear();  // first --size replaces the defaults
      o->sizes.push_back({w, h});
    } else {
      return "unknown flag " + a;
    }
  }
  if (!o->cpu && !o->gpu) return "--no-cpu and --no-gpu leave nothing to measure";
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const std::string problem = parse(argc, argv, &o);
  if (!problem.empty()) {
    std::fprintf(stderr, "cudadenoise-bench: %s (see --help)\n", problem.c_str());
    return 2;
  }
  try {
    std::string why;
    const bool gpu = o.gpu && cuda_available(&why);
    if (!gpu && !o.cpu) {  // the GPU rows were all that was asked for
      std::fprintf(stderr, "cudadenoise-bench: --no-cpu: %s\n", why.c_str());
      return tools::kExitGpu;
    }
#ifdef CDN_HAVE_CUDA
    if (gpu) {
      cudaDeviceProp prop;
      CDN_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
      std::printf("GPU: %s (%d SMs, sm_%d%d)\n", prop.name, prop.multiProcessorCount, prop.major, prop.minor);
    }
#endif
    if (!gpu) std::printf("GPU: none (%s)\n", o.gpu ? why.c_str() : "--no-gpu");
    std::printf("CPU: %u hardware threads\n\n", std::max(1u, std::thread::hardware_concurrency()));
#ifdef CDN_BENCH_CLIPS
    bench::clip_table(o.clips, o.clip_frames, o.clip_length, gpu);
#else
    if (!o.clips.empty()) throw Error("--clip: this build has no y4m reader (FFmpeg's libavformat)");
#endif
    if (o.pipd) {
      std::printf("settings: the named sets of pipd and hybrid (cudadenoise-eval info; docs/PIPD.md)\n");
      std::printf("%-7s %-8s %-10s %-10s %-5s %12s %10s %14s %10s\n", "mode", "settings", "size", "format", "dev",
                  "kernel ms", "kernel MP/s", "end-to-end ms", "e2e MP/s");
    }
    const HostFrame src = source_picture(o.data_dir);
    if (o.pipd)
    for (const auto& size : o.sizes)
      for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12, PixelFormat::P010_10LE}) {
        const int w = size.first, h = size.second;  // not a structured binding: the lambda below captures them
        std::vector<HostFrame> in;
        in.push_back(make_frame(src.view(), f, w, h));
        for (Mode m : {Mode::Pipd, Mode::Hybrid})
        for (const NamedSet* set : named_sets_of(mode_name(m))) {
          const DenoiseSettings s = named_set_settings(*set);
          const char* settings = set->name;
          const double mp = double(w) * h / 1e6;
          auto row = [&](const char* dev, const Result& r) {
            std::printf("%-7s %-8s %4dx%-5d %-10s %-5s %12.3f %10.1f %14.3f %10.1f\n", mode_name(m),
                        settings, w, h, format_name(f), dev, r.kernel_ms, mp / r.kernel_ms * 1e3,
                        r.e2e_ms, mp / r.e2e_ms * 1e3);
            std::fflush(stdout);
          };
          if (gpu) row("gpu", time_frame(Backend::Cuda, in, s, o));
          if (o.cpu) row("cpu", time_frame(Backend::Cpu, in, s, o));
        }
      }
#ifdef CDN_HAVE_CUDA
    if (gpu && o.nlm) {
      std::printf("\nnlm3d on the GPU: 1920x1080, %d frames of device memory streamed through StreamDenoiser in\n"
                  "chunks of 50 (upload and making the denoiser excluded; sigma 20); NV12 and P010 filter all planes\n"
                  "(chroma on the luma's weights)\n",
                  o.nlm_frames);
      std::printf("%-22s %-10s %12s %10s %18s\n", "search / patch", "format", "ms/frame", "fps", "50-frame chunk s");
      struct Config {
        int R, Rt, r;
        PixelFormat format;
      };
      const Config configs[] = {{5, 5, 1, PixelFormat::GRAY8},  {5, 5, 2, PixelFormat::GRAY8},
                                {10, 10, 1, PixelFormat::GRAY8}, {10, 10, 2, PixelFormat::GRAY8},
                                {5, 5, 1, PixelFormat::NV12},    {5, 5, 1, PixelFormat::P010_10LE}};
      for (const Config& c : configs) {
        DenoiseSettings s;
        s.mode = Mode::Nlm3d;
        s.nlm = nlm_paper_params();  // the papers' cubes, whatever the defaults
        s.nlm.search_radius = c.R;
        s.nlm.temporal_radius = c.Rt;
        s.nlm.patch_radius = c.r;
        s.sigma = 20;
        const HostFrame frame = make_frame(src.view(), c.format, 1920, 1080);
        const double ms = time_nlm_gpu(s, frame.view(), o.nlm_frames);
        char name[64];
        std::snprintf(name, sizeof name, "%d^3 / %d^3", 2 * c.R + 1, 2 * c.r + 1);
        std::printf("%-22s %-10s %12.3f %10.1f %18.3f\n", name, format_name(c.format), ms, 1000.0 / ms, ms * 50 / 1000.0);
        std::fflush(stdout);
      }
      // nlm3d's named sets (named_sets.h): motion estimated by the stream
      // (kernels/motion/motion_cuda.h) and included in the time; causal: chunks of 1.
      std::printf("\nnlm3d named sets on the GPU (named_sets.h): 1920x1080, %d frames through StreamDenoiser (motion\n"
                  "estimation included), sigma 20\n", o.nlm_frames);
      std::printf("%-22s %-10s %12s %10s\n", "set", "format", "ms/frame", "fps");
      for (const NamedSet* set : named_sets_of("nlm3d"))
        for (PixelFormat f : {PixelFormat::GRAY8, PixelFormat::NV12}) {
          DenoiseSettings s = named_set_settings(*set);
          s.sigma = 20;
          const HostFrame frame = make_frame(src.view(), f, 1920, 1080);
          const double ms = time_nlm_gpu(s, frame.view(), o.nlm_frames);
          std::printf("%-22s %-10s %12.3f %10.1f\n", set->name, format_name(f), ms, 1000.0 / ms);
          std::fflush(stdout);
        }
    }
    if (gpu && o.scaling) {
      // Chunks spread over workers (StreamDenoiser's cuda_devices) for every preset
      // of a temporal mode (issue 36 item 3): one GPU, two workers on it, every GPU.
      const int count = cuda_device_count();
      std::vector<std::vector<int>> lists = {{0}, {0, 0}};
      std::vector<int> all;
      for (int d = 0; d < count; ++d) all.push_back(d);
      if (count > 1) lists.push_back(all);
      const HostFrame in = make_frame(src.view(), PixelFormat::NV12, 1920, 1080);
      // 10 x --nlm-frames (1000): 20 chunks, so that the pipeline's start and end weigh little.
      const int frames = 10 * o.nlm_frames;
      std::printf("\ntemporal presets over workers (StreamDenoiser's devices; 0,0 = two workers on GPU 0): %d frames\n"
                  "of 1920x1080 NV12 through StreamDenoiser, sigma 20, chunks of 50; setup: making the denoiser\n"
                  "(its frame pools); %d CUDA device(s)\n",
                  frames, count);
      std::printf("%-14s %-7s %-10s %12s %10s %10s %10s %16s\n", "preset", "mode", "devices", "ms/frame", "fps",
                  "speed-up", "setup ms", "longest push ms");
      for (const Preset* p : available_presets()) {
        DenoiseSettings s = preset_settings(*p);
        if (!is_temporal(s.mode)) continue;
        s.sigma = 20;
        double base = 0;
        for (const auto& devices : lists) {
          double setup = 0, longest = 0;
          const double ms = time_nlm_gpu(s, in.view(), frames, devices, &setup, &longest);
          if (base == 0) base = ms;
          std::string name;
          for (int d : devices) name += (name.empty() ? "" : ",") + std::to_string(d);
          std::printf("%-14s %-7s %-10s %12.3f %10.1f %9.2fx %10.1f %16.1f\n", p->name, p->mode, name.c_str(), ms,
                      1000.0 / ms, base / ms, setup, longest);
          std::fflush(stdout);
        }
      }
    }
#endif
    if (o.nlm) bench::nlm3d_kernel_table(src.view(), 50, o.iterations, gpu);
    if (o.bm3d) bench::bm3d_table(src.view(), o.sizes, o.bm3d_iterations, gpu, o.cpu);
    if (o.vbm3d) bench::vbm3d_table(src.view(), o.vbm3d_iterations, o.vbm3d_chunk, gpu, o.cpu, o.vbm3d_stream_only);
    if (o.presets) bench::preset_table(src.view(), o.iterations, gpu, o.cpu);
    if (o.addnoise) bench::addnoise_table(src.view(), o.iterations, o.cpu_iterations, gpu, o.cpu);
    if (gpu && !o.streams.empty()) bench::streams_table(src.view(), o.streams_presets, o.streams, o.streams_frames);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudadenoise-bench: %s\n", e.what());
    return 4;
  }
  return 0;
}
