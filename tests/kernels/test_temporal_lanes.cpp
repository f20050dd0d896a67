// test_temporal_lanes.cpp: the temporal window's scheduling over several workers
// (lanes: the CUDA backend's devices) without a GPU: a backend whose lanes are
// threads that finish their chunks after random delays. Frames must come out
// complete, in order, computed from the right window, within the stated latency
// and memory bounds, with chunks really running side by side; for centred
// windows (nlm3d's) and causal ones (current and past frames only).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "cudadenoise/host_frame.h"
#include "cudadenoise/stream_denoiser.h"
#include "temporal/temporal_stream.h"

namespace cdn {
namespace {

// A stand-in filter: output(t) = sum of the inputs t - before .. t + after
// (clamped to the stream), modulo 256, on 1x1 GRAY8 frames.
class ThreadLanes final : public TemporalStream {
 public:
  ThreadLanes(const DenoiseSettings& s, const WindowShape& w, int lanes)
      : TemporalStream(s, w, PixelFormat::GRAY8, 1, 1, lanes), workers_(lanes) {
    set_noise({1.0});  // as StreamDenoiser does before every frame
  }
  ~ThreadLanes() override { reset(); }
  Backend backend() const override { return Backend::Cpu; }

  int frames_alive() const { return *alive_; }
  // The sigma each output frame was given, by stream index (launch order).
  const std::vector<double>& sigmas() const { return sigmas_; }
  int max_frames_alive() const { return *max_alive_; }
  int max_concurrent() const { return max_running_; }

 protected:
  Frame new_frame(void*) override {
    auto f = std::make_shared<HostFrame>(PixelFormat::GRAY8, 1, 1);
    const int now = ++*alive_;
    *max_alive_ = std::max(*max_alive_, now);
    auto alive = alive_;
    return Frame(&f->view(), [f, alive](const FrameView*) { --*alive; });
  }
  void copy_frame(const FrameView& from, const FrameView& to, void*) override { copy_host_frame(from, to); }
  void copy_plane(const FrameView& from, const FrameView& to, int p, void*) override { copy_host_plane(from, to, p); }
  void launch(Chunk& chunk, int, void*) override {
    Worker& w = workers_[chunk.lane];
    ASSERT_FALSE(w.thread.joinable()) << "lane " << chunk.lane << " given a chunk while busy";
    for (const std::vector<double>& s : chunk.sigma) sigmas_.push_back(s.at(0));
    w.finished = false;
    {
      std::lock_guard<std::mutex> g(lock_);
      max_running_ = std::max(max_running_, ++running_now_);
    }
    const int delay = static_cast<int>(rng_() % 6);
    const WindowShape shape = shape_;
    w.thread = std::thread([this, &w, chunk, delay, shape] {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      for (int t = chunk.begin; t < chunk.end; ++t) {
        int sum = 0;
        for (int k = -shape.before; k <= shape.after; ++k) {
          const int u = std::clamp(t + k, 0, chunk.stream_length - 1);
          sum += components(*chunk.window[u - chunk.window_begin])[0].get(0, 0);
        }
        components(*chunk.outputs[t - chunk.begin])[0].set(0, 0, sum % 256);
      }
      {
        std::lock_guard<std::mutex> g(lock_);
        --running_now_;
      }
      w.finished = true;
    });
  }
  bool done(const Chunk& chunk, bool wait, void*) const override {
    Worker& w = workers_[chunk.lane];
    if (!wait && !w.finished) return false;
    if (w.thread.joinable()) w.thread.join();
    return true;
  }
  void synchronize(void*) override {}

 private:
  struct Worker {
    std::thread thread;
    std::atomic<bool> finished{true};
  };
  mutable std::vector<Worker> workers_;
  // Frames are released on the lanes' threads too.
  std::shared_ptr<std::atomic<int>> alive_ = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<int> max_alive_ = std::make_shared<int>(0);
  std::mutex lock_;
  int running_now_ = 0, max_running_ = 0;
  std::mt19937 rng_{7};
  std::vector<double> sigmas_;
};

DenoiseSettings settings(int chunk) {
  DenoiseSettings s;
  s.mode = Mode::Nlm3d;
  s.nlm = nlm_paper_params();
  s.nlm.chunk_size = chunk;
  s.nlm.temporal_radius = 1;
  s.nlm.patch_radius = 1;  // cubes: reach 2
  return s;
}

int expected(int t, int n, const WindowShape& w) {
  int sum = 0;
  for (int k = -w.before; k <= w.after; ++k) sum += (std::clamp(t + k, 0, n - 1) * 7 + 3) % 256;
  return sum % 256;
}

// nlm3d's centred window (reach 2 either side), or a causal one of 3 past frames.
WindowShape shape_of(const DenoiseSettings& s, bool causal) {
  return causal ? WindowShape{3, 0, s.nlm.chunk_size} : window_shape(s);
}

void run_stream(int lanes, int chunk, int n, bool causal) {
  SCOPED_TRACE("lanes " + std::to_string(lanes) + ", chunk " + std::to_string(chunk) + ", frames " +
               std::to_string(n) + (causal ? ", causal" : ", centred"));
  const DenoiseSettings s = settings(chunk);
  const WindowShape shape = shape_of(s, causal);
  ThreadLanes lanes_stream(s, shape, lanes);
  TemporalStream& d = lanes_stream;
  EXPECT_EQ(d.latency_frames(), lanes * chunk - 1 + shape.after);
  if (!causal) {
    EXPECT_EQ(shape.after, s.nlm.reach());
    EXPECT_EQ(StreamDenoiser::latency_frames_for(s, lanes), d.latency_frames());
  }
  HostFrame in(PixelFormat::GRAY8, 1, 1), out(PixelFormat::GRAY8, 1, 1);
  int popped = 0;
  auto take = [&](int pushed) {
    while (d.pop(out.view(), nullptr)) {
      EXPECT_EQ(components(out.view())[0].get(0, 0), expected(popped, n, shape)) << "frame " << popped;
      if (pushed < n) {
        EXPECT_LE(pushed - 1 - popped, d.latency_frames()) << "frame " << popped << " came out late";
      }
      ++popped;
    }
  };
  for (int t = 0; t < n; ++t) {
    components(in.view())[0].set(0, 0, (t * 7 + 3) % 256);
    d.push(in.view(), nullptr);
    take(t + 1);
    EXPECT_LE(lanes_stream.frames_alive(), TemporalStream::frames_needed(shape, lanes)) << "after frame " << t;
    // A causal window of one-frame chunks on one lane gives each frame back at its push.
    if (causal && chunk == 1 && lanes == 1) {
      EXPECT_EQ(popped, t + 1);
    }
  }
  d.finish();
  take(n);
  EXPECT_EQ(popped, n) << "frames out must equal frames in";
  EXPECT_EQ(d.held(), 0);
  EXPECT_LE(lanes_stream.max_frames_alive(), TemporalStream::frames_needed(shape, lanes));
  if (lanes > 1 && n >= 3 * lanes * chunk) {
    EXPECT_GE(lanes_stream.max_concurrent(), 2) << "chunks never ran side by side";
  }
}

TEST(TemporalLanes, FramesComeOutInOrderWithinTheBounds) {
  for (bool causal : {false, true})
    for (int lanes : {1, 2, 3})
      for (int chunk : {1, 4, 7})
        for (int n : {1, 2, 5, 60}) run_stream(lanes, chunk, n, causal);
}

TEST(TemporalLanes, ResetWhileChunksRunDropsEverything) {
  const DenoiseSettings s = settings(3);
  ThreadLanes lanes_stream(s, window_shape(s), 3);
  TemporalStream& d = lanes_stream;
  HostFrame in(PixelFormat::GRAY8, 1, 1), out(PixelFormat::GRAY8, 1, 1);
  for (int t = 0; t < 20; ++t) {
    components(in.view())[0].set(0, 0, t);
    d.push(in.view(), nullptr);  // no pops: chunks run, outputs wait
  }
  d.reset();
  EXPECT_EQ(d.held(), 0);
  EXPECT_EQ(lanes_stream.frames_alive(), 0);
  EXPECT_FALSE(d.pop(out.view(), nullptr));
  // A new stream after the reset starts from frame 0.
  for (int t = 0; t < 3; ++t) {
    components(in.view())[0].set(0, 0, (t * 7 + 3) % 256);
    d.push(in.view(), nullptr);
  }
  d.finish();
  int popped = 0;
  while (d.pop(out.view(), nullptr)) {
    EXPECT_EQ(components(out.view())[0].get(0, 0), expected(popped, 3, window_shape(s)));
    ++popped;
  }
  EXPECT_EQ(popped, 3);
}

// The stream's measured sigma (set_noise(): the noise tracker's value, which
// moves a little with every frame) reaches the filter held: it changes only
// when the measurement moves beyond kSigmaHoldRatio of the value held, so the
// filters get runs of equal sigma; a flush starts from the next measurement.
TEST(TemporalStream, MeasuredSigmaIsHeldWithinTwoPercent) {
  ThreadLanes d(settings(4), WindowShape{2, 0, 1}, 1);
  HostFrame in(PixelFormat::GRAY8, 1, 1), out(PixelFormat::GRAY8, 1, 1);
  const std::vector<double> measured = {10.0, 10.05, 10.19, 9.81, 10.21, 10.3, 10.25, 9.95, 9.0, 9.1};
  const std::vector<double> want = {10.0, 10.0, 10.0, 10.0, 10.21, 10.21, 10.21, 9.95, 9.0, 9.0};
  ASSERT_DOUBLE_EQ(TemporalStream::kSigmaHoldRatio, 1.02) << "the values below assume 2 %";
  for (double v : measured) {
    d.set_noise({v});
    d.push(in.view(), nullptr);
    while (d.pop(out.view(), nullptr)) {
    }
  }
  d.finish();
  while (d.pop(out.view(), nullptr)) {
  }
  ASSERT_EQ(d.sigmas().size(), want.size());
  for (std::size_t t = 0; t < want.size(); ++t) EXPECT_DOUBLE_EQ(d.sigmas()[t], want[t]) << "frame " << t;
  d.reset();
  d.set_noise({10.1});
  d.push(in.view(), nullptr);
  while (d.pop(out.view(), nullptr)) {
  }
  EXPECT_DOUBLE_EQ(d.sigmas().back(), 10.1) << "after reset() the first measurement is taken as it is";
}

}  // namespace
}  // namespace cdn
