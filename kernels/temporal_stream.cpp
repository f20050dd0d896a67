// temporal_stream.cpp: window bookkeeping of the temporal mode (temporal_stream.h)
// and the CPU backend over nlm3d_reference.
#include "temporal_stream.h"

#include "error.h"
#include "host_frame.h"
#include "nlm3d_reference.h"
#include "noise_estimate.h"
#include "parallel.h"
#include "plane_copy.h"

namespace cdn {

TemporalStream::TemporalStream(const DenoiseSettings& settings, PixelFormat format, int width, int height)
    : settings_(settings),
      format_(format),
      width_(width),
      height_(height),
      sched_(settings.nlm.chunk_size, settings.nlm.reach()) {
  validate(settings);
  if (width <= 0 || height <= 0) throw InvalidArgument("frame size must be positive");
}

void TemporalStream::reset() {
  sched_.reset();
  inputs_.clear();
  outputs_.clear();
  first_input_ = 0;
  popped_ = 0;
  sigma_.clear();
}

void TemporalStream::push(const FrameView& in, void* stream) {
  validate_frame(in);
  if (in.format != format_ || in.width != width_ || in.height != height_)
    throw InvalidArgument("temporal denoiser: frame format or size changed; reset() or make a new denoiser");
  Frame f = new_frame(stream);
  copy_frame(in, *f, stream);
  if (sigma_.empty()) {
    sigma_ = estimate_sigma(*f, stream);
    if (settings_.sigma > 0) {  // given in 8-bit code values: scale to each component's depth
      const auto comps = components(*f);
      for (std::size_t c = 0; c < comps.size(); ++c) sigma_[c] = settings_.sigma * (1 << (comps[c].bit_depth - 8));
    }
  }
  synchronize(stream);  // `in` may be reused as soon as push() returns
  inputs_.push_back(std::move(f));
  sched_.pushed();
}

bool TemporalStream::pop(const FrameView& out, void* stream) {
  if (outputs_.empty()) {
    int begin, end;
    if (!sched_.next_chunk(&begin, &end)) return false;
    Chunk chunk;
    chunk.begin = begin;
    chunk.end = end;
    chunk.window_begin = sched_.window_begin(begin);
    chunk.stream_length = sched_.stream_length();
    for (int t = chunk.window_begin; t < sched_.window_end(end); ++t) chunk.window.push_back(inputs_[t - first_input_]);
    for (int t = begin; t < end; ++t) chunk.outputs.push_back(new_frame(stream));
    chunk.sigma = sigma_.data();
    const int filtered = filtered_components(*chunk.outputs[0], settings_.planes);
    for (int c = 0; c < filtered; ++c) filter(chunk, c, stream);
    for (int p = 0; p < format_info(format_).planes; ++p)
      if (!plane_is_filtered(settings_.planes, p))
        for (int t = begin; t < end; ++t) copy_plane(*inputs_[t - first_input_], *chunk.outputs[t - begin], p, stream);
    for (auto& o : chunk.outputs) outputs_.push_back(std::move(o));
    sched_.computed(end);
    while (first_input_ < sched_.oldest_needed()) {
      inputs_.pop_front();
      ++first_input_;
    }
  }
  validate_frame(out);
  if (out.format != format_ || out.width != width_ || out.height != height_)
    throw InvalidArgument("temporal denoiser: output frame format or size differs");
  copy_frame(*outputs_.front(), out, stream);
  synchronize(stream);
  outputs_.pop_front();
  ++popped_;
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
  std::vector<double> estimate_sigma(const FrameView& first, void*) override {
    std::vector<double> s;
    for (const auto& c : components(first)) s.push_back(estimate_noise_sigma(c) * (1 << (c.bit_depth - 8)));
    return s;
  }
  void filter(const Chunk& chunk, int c, void*) override {
    FrameWindow window;
    window.first = chunk.window_begin;
    window.stream_length = chunk.stream_length;
    for (const auto& f : chunk.window) window.frames.push_back(components(*f)[c]);
    // Frames of a chunk are independent: one thread per frame (several per frame for a chunk of one).
    const int n = chunk.end - chunk.begin;
    const int inner = n == 1 ? 0 : 1;
    parallel_rows(n, 0, [&](int i) {
      nlm3d_frame_reference(window, chunk.begin + i, components(*chunk.outputs[i])[c], settings_.nlm, chunk.sigma[c],
                            inner);
    });
  }
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
