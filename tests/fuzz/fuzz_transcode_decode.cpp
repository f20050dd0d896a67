// fuzz_transcode_decode.cpp: libFuzzer target for cudadenoise-transcode's
// demux, decode and filter steps (tools/transcode: Input, Decoder, FilterStep)
// on the CPU backend, as the tool's pipeline wires them, on mutated small media
// files. Bad input must throw Failure with the input or codec exit code; any
// other failure, a frame lost or changed in size by the filter, or a sanitizer
// report is a finding.
//
// The filter runs the per-frame mode hybrid, or the temporal mode nlm3d with a
// small window for inputs whose size is a multiple of 3 (a fixed choice per
// input, so a finding replays). Interlaced input (the stream's field order or
// the first frame's flags) is filtered field by field as the tool does
// (FilterStep::set_fields), where the tool would take it: a per-frame mode and
// a height whose chroma lines split into two fields; the temporal mode stops
// there (the tool refuses it). Decode errors FFmpeg conceals are counted by the
// Decoder, not thrown, as in the tool. Frames over kMaxPixels are decoded but
// not filtered, and a file stops after kMaxPackets packets, to keep runs fast.
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
#include "cudadenoise/interlace.h"
#include "decoder.h"
#include "errors.h"
#include "filter_step.h"
#include "fuzz_support.h"
#include "input.h"
#include "pixel_format.h"

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
  Run(const std::string& path, std::size_t size) : input_(path), settings_(settings_for(size)) {
    const AVCodecParameters* par = input_.video()->codecpar;
    if (static_cast<long>(par->width) * par->height > kMaxPixels) return;
    decoder_ = std::make_unique<Decoder>(input_.format(), input_.video(), nullptr);
    filter_ = std::make_unique<FilterStep>(settings_, true, nullptr);
  }

  void go() {
    if (!decoder_) return;
    PacketPtr pkt = alloc_packet();
    frame_ = alloc_frame();
    for (int n = 0; n < kMaxPackets && !refused_ && input_.read(pkt.get()); ++n) {
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
  // The tool's check_interlacing (transcode.cpp) on the first frame: false
  // where the tool would refuse the input.
  bool take_interlacing(const AVFrame* first) {
    const AVFieldOrder declared = input_.video()->codecpar->field_order;
    const bool interlaced = (declared != AV_FIELD_UNKNOWN && declared != AV_FIELD_PROGRESSIVE) ||
                            first->interlaced_frame;
    if (!interlaced) return true;
    if (cdn::interlaced_input(settings_.mode) == cdn::InterlacedInput::Refuse) return false;
    cdn::PixelFormat layout;
    const auto f = static_cast<AVPixelFormat>(first->format);
    if (!cdn_format_of(f, &layout)) cdn_format_of(conversion_target(f), &layout);
    if (!cdn::fields_fit(layout, first->height)) return false;
    filter_->set_fields(true);
    return true;
  }

  void drain_decoder() {
    while (!refused_ && decoder_->receive(frame_.get())) {
      if (in_ == 0 && !take_interlacing(frame_.get())) refused_ = true;
      if (!refused_ && static_cast<long>(frame_->width) * frame_->height <= kMaxPixels) {
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
  cdn::DenoiseSettings settings_;
  bool refused_ = false;
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
