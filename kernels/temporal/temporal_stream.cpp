// temporal_stream.cpp: the window's bookkeeping (temporal_stream.h) and its CPU
// backend (host frames; the mode's CPU WindowFilter).
#include "temporal/temporal_stream.h"

#include "core/plane_copy.h"
#include "cudadenoise/error.h"
#include "cudadenoise/host_frame.h"
#include "cudadenoise/noise_tracker.h"

namespace cdn {

TemporalStream::TemporalStream(const DenoiseSettings& settings, const WindowShape& shape, PixelFormat format,
                               int width, int height, int lanes)
    : settings_(settings),
      shape_(shape),
      format_(format),
      width_(width),
      height_(height),
      sched_(shape_),
      lanes_(lanes) {
  validate(settings);
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
  if (lanes < 1) throw InvalidArgument("temporal denoiser: at least one lane is needed");
  if (shape.before < 0 || shape.after < 0 || shape.chunk < 1) throw InvalidArgument("temporal denoiser: bad window");
}

ChunkJob TemporalStream::job_of(const Chunk& chunk, const std::vector<Frame>& window,
                                const std::vector<Frame>& outputs, int filtered) {
  ChunkJob job;
  for (const Frame& f : window) job.window.push_back(f.get());
  for (const Frame& f : outputs) job.outputs.push_back(f.get());
  job.window_first = chunk.window_begin;
  job.out_first = chunk.begin;
  job.stream_length = chunk.stream_length;
  job.sigma = chunk.sigma;
  job.filtered = filtered;
  return job;
}

void TemporalStream::reset() {
  // Chunks still running use their frames: let them finish before they go. What a
  // chunk's work threw (Cancelled, or a failure a launch thread met: the backend
  // has waited for what it queued) goes with the stream.
  for (const Chunk& c : running_) {
    try {
      done(c, true, nullptr);
    } catch (const std::exception&) {
    }
  }
  running_.clear();
  front_popped_ = 0;
  sched_.reset();
  inputs_.clear();
  sigmas_.clear();
  first_input_ = 0;
  popped_ = 0;
  launched_ = 0;
  held_sigma_.clear();
}

std::vector<double> TemporalStream::next_sigma() {
  // The stream's measurement for this frame (StreamDenoiser's tracker, or the
  // given sigma, times strength), in code values.
  if (!uses_sigma(settings_.mode)) return {};
  if (noise_.empty()) throw Error(std::string("mode ") + mode_name(settings_.mode) + ": no noise level set");
  const std::vector<double> measured = in_code_values(noise_, format_);
  const double held = held_sigma_.empty() ? 0 : held_sigma_[0];
  if (held <= 0 || measured[0] > held * kSigmaHoldRatio || measured[0] < held / kSigmaHoldRatio) held_sigma_ = measured;
  return held_sigma_;
}

void TemporalStream::push(const FrameView& in, void* stream) {
  validate_frame(in);
  if (in.format != format_ || in.width != width_ || in.height != height_)
    throw InvalidArgument("temporal denoiser: frame format or size changed; reset() or make a new denoiser");
  Frame f = new_frame(stream);
  copy_frame(in, *f, stream);
  std::vector<double> sigma = next_sigma();
  synchronize(stream);  // `in` may be reused as soon as push() returns
  inputs_.push_back(std::move(f));
  sigmas_.push_back(std::move(sigma));
  sched_.pushed();
  dispatch(stream);
}

void TemporalStream::dispatch(void* stream) {
  int begin, end;
  while (static_cast<int>(running_.size()) < lanes_ && sched_.next_chunk(&begin, &end)) {
    Chunk chunk;
    chunk.begin = begin;
    chunk.end = end;
    chunk.window_begin = sched_.window_begin(begin);
    chunk.stream_length = sched_.stream_length();
    for (int t = chunk.window_begin; t < sched_.window_end(end); ++t) chunk.window.push_back(inputs_[t - first_input_]);
    for (int t = begin; t < end; ++t) {
      chunk.outputs.push_back(new_frame(stream));
      chunk.sigma.push_back(sigmas_[t - first_input_]);
    }
    // A lane is free: the running chunks hold the previous lanes - 1 lanes, in turn.
    chunk.lane = launched_++ % lanes_;
    for (int p = 0; p < format_info(format_).planes; ++p)
      if (!plane_is_filtered(settings_.planes, p))
        for (int t = begin; t < end; ++t) copy_plane(*inputs_[t - first_input_], *chunk.outputs[t - begin], p, stream);
    launch(chunk, filtered_components(*chunk.outputs[0], settings_.planes), stream);
    running_.push_back(std::move(chunk));
    sched_.computed(end);
    // Inputs no later chunk reads; the running chunks keep their own window alive.
    while (first_input_ < sched_.oldest_needed()) {
      inputs_.pop_front();
      sigmas_.pop_front();
      ++first_input_;
    }
  }
}

bool TemporalStream::must_wait() const {
  return sched_.finished() || static_cast<int>(running_.size()) >= lanes_;
}

bool TemporalStream::ready() const {
  if (!running_.empty()) return must_wait() || done(running_.front(), false, nullptr);
  // Nothing runs: a chunk that can be filtered now is launched by pop(), which then
  // waits for it when it takes the last lane or the stream has ended.
  int begin, end;
  return sched_.next_chunk(&begin, &end) && (lanes_ == 1 || sched_.finished());
}

bool TemporalStream::pop(const FrameView& out, void* stream) {
  dispatch(stream);
  if (running_.empty()) return false;
  const Chunk& front = running_.front();
  if (!done(front, must_wait(), stream)) return false;
  validate_frame(out);
  if (out.format != format_ || out.width != width_ || out.height != height_)
    throw InvalidArgument("temporal denoiser: output frame format or size differs");
  copy_frame(*front.outputs[front_popped_], out, stream);
  synchronize(stream);
  ++popped_;
  if (++front_popped_ == static_cast<int>(front.outputs.size())) {
    running_.pop_front();
    front_popped_ = 0;
    dispatch(stream);  // a lane is free
  }
  return true;
}

namespace {

class CpuTemporalStream final : public TemporalStream {
 public:
  CpuTemporalStream(const DenoiseSettings& s, PixelFormat f, int w, int h)
      : TemporalStream(s, f, w, h), filter_(make_cpu_window_filter(s, f)) {}
  Backend backend() const override { return Backend::Cpu; }

 protected:
  Frame new_frame(void*) override {
    // Frames are recycled: a released frame goes back to `free_` (no allocation per frame
    // once the window is full).
    std::shared_ptr<HostFrame> owner;
    if (!free_->empty()) {
      owner = std::move(free_->back());
      free_->pop_back();
    } else {
      owner = std::make_shared<HostFrame>(format_, width_, height_);
    }
    auto pool = free_;
    HostFrame* raw = owner.get();
    return Frame(&raw->view(), [pool, owner](const FrameView*) mutable { pool->push_back(std::move(owner)); });
  }
  void copy_frame(const FrameView& from, const FrameView& to, void*) override { copy_host_frame(from, to); }
  void copy_plane(const FrameView& from, const FrameView& to, int p, void*) override { copy_host_plane(from, to, p); }
  void launch(Chunk& chunk, int filtered, void*) override {
    ChunkJob job = job_of(chunk, chunk.window, chunk.outputs, filtered);
    job.cancel = cancel_;
    filter_->run(job, nullptr);  // done on return (or Cancelled)
  }
  bool done(const Chunk&, bool, void*) const override { return true; }
  void synchronize(void*) override {}

 private:
  std::unique_ptr<WindowFilter> filter_;
  std::shared_ptr<std::vector<std::shared_ptr<HostFrame>>> free_ =
      std::make_shared<std::vector<std::shared_ptr<HostFrame>>>();
};

}  // namespace

std::unique_ptr<TemporalStream> make_cpu_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h) {
  return std::make_unique<CpuTemporalStream>(s, f, w, h);
}

}  // namespace cdn
