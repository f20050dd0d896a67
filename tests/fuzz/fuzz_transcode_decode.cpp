// fuzz_transcode_decode.cpp: libFuzzer target for cudadenoise-transcode's
// demux, decode and filter steps (tools/transcode: Input, Decoder, FilterStep)
// on the CPU backend, as the tool's pipeline wires them, on mutated small media
// files. Bad input must throw Failure with the input or codec exit code; any
// other failure, a frame lost or changed in size by the filter, or a sanitizer
// report is a finding.
//
// The filter runs the per-frame mode hybrid, or the temporal mode nlm3d with a
// small window for inputs whose size is a multiple of 3 (a fixed choice per
// input, so a finding replays). Frames over kMaxPixels are decoded but not
// filtered, and a file stops after kMaxPackets packets, to keep runs fast.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <libavutil/log.h>
}

#include "av_ptr.h"
#include "decoder.h"
#include "errors.h"
#include "filter_step.h"
#include "fuzz_support.h"
#include "input.h"

namespace {

using cdn::fuzz::fuzz_fail;
using namespace cdn::transcode;

constexpr long kMaxPixels = 96 * 96;
constexpr int kMaxPackets = 48;

cdn::DenoiseSettings settings_for(std::size_t size) {
  cdn::DenoiseSettings s;
  if (size % 3 == 0) {
    s.mode = cdn::Mode::Nlm3d;
    s.nlm.search_radius = 2;
    s.nlm.temporal_radius = 1;
    s.nlm.chunk_size = 2;
    s.sigma = 10;
  } else {
    s.mode = cdn::Mode::Hybrid;
  }
  return s;
}

class Run {
 public:
  Run(const std::string& path, std::size_t size) : input_(path) {
    const AVCodecParameters* par = input_.video()->codecpar;
    if (static_cast<long>(par->width) * par->height > kMaxPixels) return;
    decoder_ = std::make_unique<Decoder>(input_.format(), input_.video(), nullptr);
    filter_ = std::make_unique<FilterStep>(settings_for(size), true, nullptr);
  }

  void go() {
    if (!decoder_) return;
    PacketPtr pkt = alloc_packet();
    frame_ = alloc_frame();
    for (int n = 0; n < kMaxPackets && input_.read(pkt.get()); ++n) {
      if (pkt->stream_index == input_.video_index()) {
        decoder_->send(pkt.get());
        drain_decoder();
      }
      av_packet_unref(pkt.get());
    }
    decoder_->send(nullptr);
    drain_decoder();
    filter_->finish();
    drain_filter();
    if (out_ != in_) fuzz_fail("the filter gave " + std::to_string(out_) + " frames for " + std::to_string(in_));
  }

 private:
  void drain_decoder() {
    while (decoder_->receive(frame_.get())) {
      if (static_cast<long>(frame_->width) * frame_->height <= kMaxPixels) {
        sizes_.push_back({frame_->width, frame_->height});
        filter_->push(frame_.get());
        ++in_;
        drain_filter();
      }
      av_frame_unref(frame_.get());
    }
  }
  void drain_filter() {
    while (FramePtr out = filter_->pop()) {
      if (out_ >= in_) fuzz_fail("the filter gave a frame it was never given");
      const auto& want = sizes_[static_cast<std::size_t>(out_)];
      if (out->width != want.first || out->height != want.second)
        fuzz_fail("frame " + std::to_string(out_) + " changed size in the filter");
      ++out_;
    }
  }

  Input input_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<FilterStep> filter_;
  FramePtr frame_;
  std::vector<std::pair<int, int>> sizes_;
  long in_ = 0, out_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  av_log_set_level(AV_LOG_QUIET);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cdn::fuzz::MemFile file;
  file.set(data, size);
  try {
    Run run(file.path(), size);
    run.go();
  } catch (const Failure& f) {
    // The input's fault, said as such: what bad input must get.
    if (f.code() != kExitInput && f.code() != kExitCodec)
      fuzz_fail("Failure with exit code " + std::to_string(f.code()) + ": " + f.what());
  }
  return 0;
}
