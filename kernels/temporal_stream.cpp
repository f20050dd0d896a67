// temporal_stream.cpp: window bookkeeping of the temporal mode (temporal_stream.h)
// and the CPU backend over nlm3d_reference.
#include "temporal_stream.h"

#include "error.h"
#include "host_frame.h"
#include "nlm3d_guide.h"
#include "nlm3d_reference.h"
#include "noise_estimate.h"
#include "parallel.h"
#include "plane_copy.h"

namespace cdn {

TemporalStream::TemporalStream(const DenoiseSettings& settings, PixelFormat format, int width, int height, int lanes)
    : settings_(settings),
      format_(format),
      width_(width),
      height_(height),
      sched_(settings.nlm.chunk_size, settings.nlm.reach()),
      lanes_(lanes) {
  validate(settings);
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
  if (lanes < 1) throw InvalidArgument("temporal denoiser: at least one lane is needed");
}

int TemporalStream::latency_for(const DenoiseSettings& s, int lanes) {
  return lanes * s.nlm.chunk_size - 1 + s.nlm.reach();
}

int TemporalStream::frames_needed(const DenoiseSettings& s, int lanes) {
  return 2 * lanes * s.nlm.chunk_size + 2 * s.nlm.reach() + 1;
}

void TemporalStream::reset() {
  // Chunks still running use their frames: let them finish before they go.
  for (const Chunk& c : running_) done(c, true, nullptr);
  running_.clear();
  front_popped_ = 0;
  sched_.reset();
  inputs_.clear();
  first_input_ = 0;
  popped_ = 0;
  launched_ = 0;
  sigma_ = -1;
}

void TemporalStream::push(const FrameView& in, void* stream) {
  validate_frame(in);
  if (in.format != format_ || in.width != width_ || in.height != height_)
    throw InvalidArgument("temporal denoiser: frame format or size changed; reset() or make a new denoiser");
  Frame f = new_frame(stream);
  copy_frame(in, *f, stream);
  if (sigma_ < 0)  // given (in 8-bit code values, scaled to the luma's depth) or estimated
    sigma_ = settings_.sigma > 0 ? luma_sigma(*f, settings_.sigma) : estimate_sigma(*f, stream);
  synchronize(stream);  // `in` may be reused as soon as push() returns
  inputs_.push_back(std::move(f));
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
    for (int t = begin; t < end; ++t) chunk.outputs.push_back(new_frame(stream));
    chunk.sigma = sigma_;
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
  using TemporalStream::TemporalStream;
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
  void copy_frame(const FrameView& from, const FrameView& to, void*) override {
    copy_host_frame(from, to);
  }
  void copy_plane(const FrameView& from, const FrameView& to, int p, void*) override { copy_host_plane(from, to, p); }
  double estimate_sigma(const FrameView& first, void*) override { return luma_sigma(first, 0); }
  void launch(Chunk& chunk, int filtered, void*) override {
    // Synchronous: the chunk is done when launch() returns.
    for (const NlmPass& pass : nlm_passes(format_, filtered)) {
      const int nv = static_cast<int>(pass.values.size());
      std::vector<FrameWindow> values(nv);
      for (int v = 0; v < nv; ++v) {
        values[v].first = chunk.window_begin;
        values[v].stream_length = chunk.stream_length;
        for (const auto& f : chunk.window) values[v].frames.push_back(components(*f)[pass.values[v]]);
      }
      // The guide: the luma itself, or its block means made here (at the values' size).
      FrameWindow guide;
      guide.first = chunk.window_begin;
      guide.stream_length = chunk.stream_length;
      std::vector<HostFrame> made;
      made.reserve(chunk.window.size());
      for (const auto& f : chunk.window) {
        const PlaneView luma = components(*f)[0];
        if (pass.fx == 1 && pass.fy == 1) {
          guide.frames.push_back(luma);
          continue;
        }
        const PlaneView& size = values[0].frames[guide.frames.size()];
        made.emplace_back(PixelFormat::GRAY16_LE, size.width, size.height);
        const PlaneView g = components(made.back().view())[0];
        for (int y = 0; y < g.height; ++y)
          for (int x = 0; x < g.width; ++x) g.set(x, y, luma_guide_sample(luma, x, y, pass.fx, pass.fy));
        guide.frames.push_back(g);
      }
      // Frames of a chunk are independent: one thread per frame (several per frame for a chunk of one).
      const int n = chunk.end - chunk.begin;
      const int inner = n == 1 ? 0 : 1;
      parallel_rows(n, 0, [&](int i) {
        std::vector<PlaneView> outs;
        for (int c : pass.values) outs.push_back(components(*chunk.outputs[i])[c]);
        nlm3d_guided_reference(guide, values, chunk.begin + i, outs, settings_.nlm, chunk.sigma, inner);
      });
    }
  }
  bool done(const Chunk&, bool, void*) const override { return true; }
  void synchronize(void*) override {}

 private:
  std::shared_ptr<std::vector<std::shared_ptr<HostFrame>>> free_ =
      std::make_shared<std::vector<std::shared_ptr<HostFrame>>>();
};

}  // namespace

std::unique_ptr<StreamDenoiser> make_cpu_temporal_stream(const DenoiseSettings& s, PixelFormat f, int w, int h) {
  return std::make_unique<CpuTemporalStream>(s, f, w, h);
}

}  // namespace cdn
