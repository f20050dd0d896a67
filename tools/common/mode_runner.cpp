// mode_runner.cpp: one cudadenoise mode over a clip, timed (mode_runner.h).
#include "mode_runner.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "cudadenoise/error.h"
#include "cudadenoise/stream_pump.h"
#include "device_timing.h"
#include "timing_stats.h"

namespace cdn::eval {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Feeds the frames through a stream and drains it, frame n going into
// out[n % out.size()]; returns ms per frame.
double stream_once(StreamDenoiser& d, const std::vector<FrameView>& in, std::vector<HostFrame>& out) {
  std::size_t n = 0;
  FunctionSink sink([&] { return out[n % out.size()].view(); }, [&] { return ++n > 0; });
  const auto t0 = Clock::now();
  for (const FrameView& f : in) feed(d, f, sink);
  drain(d, sink);
  const double ms = ms_since(t0);
  if (n != in.size())
    throw Error("the stream gave back " + std::to_string(n) + " of " + std::to_string(in.size()) + " frames");
  return ms / in.size();
}

}  // namespace

std::vector<FrameView> ping_pong(const std::vector<HostFrame>& clip, int frames) {
  std::vector<FrameView> v;
  const int n = static_cast<int>(clip.size());
  if (frames <= n || n == 1) {
    for (const HostFrame& f : clip) v.push_back(f.view());
    return v;
  }
  const int period = 2 * (n - 1);
  for (int i = 0; i < frames; ++i) {
    const int k = i % period;
    v.push_back(clip[k < n ? k : period - k].view());
  }
  return v;
}

ModeRun run_mode(const std::vector<HostFrame>& clip, Backend backend, const DenoiseSettings& settings, int warmup,
                 int repeat, int timing_frames, double max_seconds) {
  if (clip.empty()) throw InvalidArgument("run_mode: empty clip");
  const auto start = Clock::now();
  auto over_budget = [&] { return max_seconds > 0 && ms_since(start) > 1000 * max_seconds; };
  repeat = std::max(1, repeat);
  warmup = std::max(0, warmup);
  ModeRun r;
  for (const HostFrame& f : clip) r.output.emplace_back(f.view().format, f.view().width, f.view().height);
  std::vector<FrameView> timed = ping_pong(clip, timing_frames);
  std::vector<double> e2e;
  const FrameView& f0 = clip[0].view();
  auto d = StreamDenoiser::create(backend, settings, f0.format, f0.width, f0.height);
  r.backend = d->backend();
  if (!d->per_frame()) {
    // A window: timed over whole streams, each in a new denoiser (made before the clock starts).
    std::vector<FrameView> views;
    for (const HostFrame& f : clip) views.push_back(f.view());
    const double out_ms = stream_once(*d, views, r.output);
    d.reset();  // its frames' memory, before the timed runs make theirs
    if (timed.size() == views.size() && warmup == 0 && repeat == 1) {
      e2e.push_back(out_ms);  // the output run is the one timed run
    } else {
      std::vector<HostFrame> scratch;
      scratch.emplace_back(clip[0].view().format, clip[0].view().width, clip[0].view().height);
      for (int i = 0; i < warmup + repeat && (e2e.empty() || !over_budget()); ++i) {
        auto fresh = StreamDenoiser::create(backend, settings, f0.format, f0.width, f0.height);
        const double ms = stream_once(*fresh, timed, scratch);
        if (i >= warmup) e2e.push_back(ms);
      }
    }
  } else {
    // Frame by frame: each one's feed() timed.
    std::size_t k = 0;
    FunctionSink sink([&] { return r.output[k].view(); }, [] { return true; });
    for (int i = 0; i < warmup && !over_budget(); ++i) feed(*d, clip[0].view(), sink);
    const int samples = std::max<int>(static_cast<int>(clip.size()), repeat);
    for (int i = 0; i < samples && (i < static_cast<int>(clip.size()) || !over_budget()); ++i) {
      k = static_cast<std::size_t>(i) % clip.size();
      const auto t0 = Clock::now();
      feed(*d, clip[k].view(), sink);
      e2e.push_back(ms_since(t0));
    }
  }
  r.e2e_ms = median(e2e);
  r.e2e_samples = static_cast<int>(e2e.size());
  if (r.backend == Backend::Cuda) {
    const DeviceTiming dt = time_on_device(timed, settings, warmup, repeat);
    r.device_ms = dt.ms;
    r.device_samples = dt.samples;
  }
  return r;
}

}  // namespace cdn::eval
